"""A planar system's time arrays (``PlanarSystem.time_arrays``: f(t) and f''(t) per holonomic row, xi, applied
forces and torques) evaluated inside compiled code, from the compiled programs of its time functions
(``mechstudio.core.model.timefunc_programs``).

So a model with time-varying drivers or loads runs the compiled DOP853 step (``mechstudio.core.integrate.dop853_kernels``)
like a model without: its right-hand side of (t, y, I, F) computes the time arrays itself, instead of taking them
from the Python evaluation of the time functions at every stage.

Packed data (:func:`pack`): an integer part TI and a float part TF, appended by the caller to its own packed
arrays (``projection_sparse.SparsePath.timed_data``, ``projection_loops.LoopPath.timed_data``), which records where
they start (i0 in I, f0 in F):

* TI = [mh, m, L, T, S, depth, S slots (destination, index, start, end), code], start and end relative to
  the code's first entry (``timefunc_programs.concatenate``);
* TF = [f (mh), f'' (mh), xi (m), loads (2 L), torques (T): the values of the functions that do not depend on t,
  constants of the programs].

A slot is one program and where its value goes: :data:`FVAL` f of holonomic row ``index``, :data:`XI` xi of row
``index`` (= -f'), :data:`FACCEL` f'' of row ``index``, :data:`LOAD` component ``index`` of the flattened (L, 2)
loads, :data:`TORQUE` torque ``index``. Only the functions that depend on t have slots (a model without has S = 0).

:func:`time_arrays_packed` returns ok = False when a value is not finite (a division by zero, a logarithm of a
non-positive number: where Python's evaluation raises); the caller then hands the step to the Python path, which
reports the error as before.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from mechstudio.core.jit import compile_helper, kernel_set, numba_module
from mechstudio.core.model.timefunc_programs import concatenate, run_program

#: slot destinations (module docstring)
FVAL, XI, FACCEL, LOAD, TORQUE = 0, 1, 2, 3, 4
#: which program of (f, f', f'') each destination takes
DERIVATIVE = {FVAL: 0, XI: 1, FACCEL: 2, LOAD: 0, TORQUE: 0}
#: entries of TI before the slots
HEADER = 6


def pack(counts: tuple[int, int, int, int], base: tuple[np.ndarray, ...],
         slots: list[tuple[int, int, Any]]) -> tuple[np.ndarray, np.ndarray] | None:
    """(TI, TF) of the module docstring, or None when a time function has no compiled form.

    ``counts`` = (mh, m, L, T); ``base`` = the time arrays (f, f'', xi, loads, torques) with the values of the
    functions that do not depend on t (those of the others are overwritten); ``slots`` = (destination, index,
    TimeFunction) for every function that depends on t."""
    programs = []
    for dest, _, function in slots:
        got = function.programs()
        if got is None:
            return None
        programs.append(got[DERIVATIVE[dest]])
    code, starts, consts, depth = concatenate(programs)
    table = np.zeros((len(slots), 4), np.int64)
    for k, (dest, index, _) in enumerate(slots):
        table[k] = (dest, index, starts[k], starts[k + 1])
    TI = np.concatenate((np.array([*counts, len(slots), max(depth, 1)], np.int64), table.ravel(), code))
    TF = np.concatenate([np.ravel(np.asarray(a, float)) for a in base] + [consts])
    return np.ascontiguousarray(TI), np.ascontiguousarray(TF)


def time_arrays_packed(t, I, F, i0, f0):  # noqa: ANN001, ANN201
    """(ok, f (mh,), f'' (mh,), xi (m,), loads (L, 2), torques (T,)) at t from the packed data at I[i0:], F[f0:]
    (module docstring); ok False when a value is not finite. New arrays (the packed data are not written)."""
    mh, m, nl, nt, ns, depth = I[i0], I[i0 + 1], I[i0 + 2], I[i0 + 3], I[i0 + 4], I[i0 + 5]
    at = f0
    fval = F[at:at + mh].copy()
    at += mh
    faccel = F[at:at + mh].copy()
    at += mh
    xi = F[at:at + m].copy()
    at += m
    loads = F[at:at + 2 * nl].copy()
    at += 2 * nl
    torque = F[at:at + nt].copy()
    at += nt
    ok = True
    if ns > 0:
        consts = F[at:]
        table = i0 + HEADER
        code = I[table + 4 * ns:]
        stack = np.empty(depth)
        for s in range(ns):
            dest, index = I[table + 4 * s], I[table + 4 * s + 1]
            value = _run_program(code, I[table + 4 * s + 2], I[table + 4 * s + 3], consts, t, stack)
            if not math.isfinite(value):
                ok = False
            if dest == FVAL:
                fval[index] = value
            elif dest == XI:
                xi[index] = -value
            elif dest == FACCEL:
                faccel[index] = value
            elif dest == LOAD:
                loads[index] = value
            else:
                torque[index] = value
    return ok, fval, faccel, xi, loads.reshape((nl, 2)), torque


_run_program = run_program  # the compiled evaluator is bound by kernels()


@kernel_set
def kernels() -> tuple[Callable[..., Any], Callable[..., float]] | None:
    """(:func:`time_arrays_packed`, ``timefunc_programs.run_program``) compiled, or None without numba. The
    evaluator is generated source without a file, so it is compiled without a disk cache of its own: the cached
    :func:`time_arrays_packed` contains it, and its cache folder follows ``timefunc_programs`` through
    ``mechstudio.core.jit``'s source digest (this module imports it)."""
    global _run_program
    nb = numba_module()
    _run_program = nb.njit(nogil=True)(run_program)
    return compile_helper(time_arrays_packed), _run_program


def unpacked(t: float, I: np.ndarray, F: np.ndarray, i0: int, f0: int) -> tuple:
    """:func:`time_arrays_packed` compiled, or in Python without numba."""
    compiled = kernels()
    return (compiled[0] if compiled is not None else time_arrays_packed)(float(t), I, F, int(i0), int(f0))


__all__ = ["DERIVATIVE", "FACCEL", "FVAL", "HEADER", "LOAD", "TORQUE", "XI", "kernels", "pack", "time_arrays_packed",
           "unpacked"]
