"""scipy's DOP853 step, compiled around a compiled right-hand side (speed; the same steps as scipy).

For a small model most of a continuous DOP853 run is Python: scipy's ``RungeKutta._step_impl`` combines the
stages with numpy calls and calls the right-hand side 12 times a step through two Python wrappers, each call a
numba dispatch of a few microseconds around a few microseconds of arithmetic (a rolling disk has 7 states). When
the formulation offers its right-hand side as a compiled function of (t, y, I, F) -- the state and the model
data packed in one int64 and one float64 array, see :class:`CompiledRHS` -- :func:`dop853_step` takes one
accepted step in one compiled call and :func:`dop853_dense` gives the step's dense-output coefficients. When
its outputs (correction and output frame of a state) are compiled as well (:attr:`CompiledRHS.outputs`),
:func:`dop853_segment` runs the driver's whole loop -- steps, the outputs inside them, the step-end
corrections -- for many steps in one call, so that the Python driver runs once per block of steps instead of
four to six calls per step (for a 10-link chain about a quarter of the run was that Python and its calls).

The two functions are written once and compiled once per right-hand side (:func:`specialized`): a copy of each
whose globals ``_prepare`` and ``_rhs`` are that right-hand side's, under its own name, so that numba's on-disk
cache keeps one entry per right-hand side and the call of ``_rhs`` is a direct (inlinable) call. (A first-class
function argument would serve every right-hand side with one compilation, but numba types such an argument at
every call, ~100 microseconds, more than the step.) ``_prepare(I, F)`` runs once per step and gives what every
stage's ``_rhs(t, y, P)`` takes: for a right-hand side of (t, y, I, F) simply (I, F); a right-hand side that
offers its own preparation (:attr:`CompiledRHS.prepare`) unpacks the model data into its arrays there, once
instead of at each of the 12 to 15 stages (a few microseconds each: 15-20 % of a four-bar's evaluation).

The algorithm is scipy's, line for line (scipy/integrate/_ivp/rk.py, ``RungeKutta._step_impl``, ``rk_step``,
``DOP853._estimate_error_norm`` and ``DOP853._dense_output_impl``; Hairer, Norsett & Wanner, Solving ODEs I,
sec. II.5 and II.6), with scipy's own Butcher tableau (``scipy.integrate._ivp.dop853_coefficients``), forward
in time and with a scalar atol:

* stages K_s = f(t + c_s h, y + h sum_{j<s} a_sj K_j), s = 1..11, K_0 = f(t, y); y_new = y + h sum b_j K_j;
  K_12 = f(t + h, y_new);
* error norm ||err|| = |h| ||e5||^2 / sqrt(n (||e5||^2 + 0.01 ||e3||^2)), e5 = K^T E5 / scale,
  e3 = K^T E3 / scale, scale = atol + rtol max(|y|, |y_new|);
* accepted when ||err|| < 1, the next |h| multiplied by min(10, 0.9 ||err||^(-1/8)) (at most 1 after a
  rejection); rejected otherwise, |h| multiplied by max(0.2, 0.9 ||err||^(-1/8)); a step below 10 ulp of t fails;
* dense output: three more stages (rows 13-15 of the extended tableau) and the 7 coefficient rows
  F_0 = dy, F_1 = h f_old - dy, F_2 = 2 dy - h (f + f_old), F_3..6 = h D K, evaluated by scipy's
  ``Dop853DenseOutput``.

Sums are plain loops (not BLAS), so a trajectory equals scipy's to round-off, not bitwise
(tests/test_dop853_compiled.py: the same step sizes and states to 1e-13 relative).

Status codes of the kernels: 0 ok; 1 the step size fell below 10 ulp of t (scipy's "Required step size is
less than spacing between numbers."); 2 the right-hand side reported trouble (its own status != 0): the caller
then takes the step with scipy's Python solver, whose right-hand side takes the formulation's generic path.
"""
from __future__ import annotations

import math
import types
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from scipy.integrate._ivp import dop853_coefficients as _coef

from mechstudio.core.jit import compile_helper, kernel_set, numba_module

N_STAGES = 12  # stages of the DOP853 step (scipy's DOP853.n_stages)
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0  # scipy.integrate._ivp.rk
ERROR_EXPONENT = -1.0 / 8.0  # -1 / (error_estimator_order + 1), error estimator of order 7

#: the tableau as the kernels take it: A (16, 16) with the extra stages' rows, B (12,), C (16,), E3, E5 (13,),
#: D (4, 16)
TABLEAU = tuple(np.ascontiguousarray(a, dtype=float) for a in (_coef.A, _coef.B, _coef.C, _coef.E3, _coef.E5,
                                                                 _coef.D))


@dataclass
class CompiledRHS:
    """A formulation's right-hand side as a compiled function for :func:`dop853_step`.

    ``kernel(t, y, I, F) -> (status, y')``: a compiled function (``mechstudio.core.jit.compile_helper``); y the
    integrator's whole state (including the work W appended by the driver), I and F the model data packed for
    it; status != 0 means "take the Python path" (module docstring).
    ``data()`` gives the current (I, F) (they change when the formulation changes its basis);
    ``counted(n)`` adds n evaluations to the formulation's count.
    ``prepare``: None, or a compiled function ``prepare(I, F) -> P`` (the model data unpacked once per step); then
    ``kernel`` is a function of (t, y, P) instead (module docstring).
    ``outputs``: None, or the formulation's outputs compiled, three compiled functions for :func:`dop853_segment`:
    ``prepare_outputs(I, F) -> Q``; ``outputs(Z, times, correction, frame, growth, Q) -> (status, count, rows)``,
    the corrected output frames of the states Z[j] (y without W) at times[j], each row a
    ``mechstudio.core.dynamics.packed_output.pack_frame`` array, computed for the first ``count`` rows (status
    != 0: trouble at row ``count``); ``frame`` False: the corrected q, q' and the correction's scalars are
    enough, ``growth`` True: ||N||_2 is wanted (a step end); ``state_of(row, Q) -> y`` (without W), the integrator state of a frame's
    corrected q, q' (the formulation's ``pack``). With them the driver runs many steps per call; the frames'
    width is ``frame_width`` (3 n + 6 reaction rows + the output scalars), ``frame_flags`` the columns of its
    CONVERGED, CHANGED and NULL_SPACE_GROWTH scalars (``mechstudio.core.dynamics.base.OutputScalar``), and a
    step end whose ||N||_2 exceeds ``growth_limit`` is left to the driver (its basis is refreshed).
    """
    kernel: Callable[..., Any]
    data: Callable[[], tuple[np.ndarray, np.ndarray]]
    counted: Callable[[int], None]
    prepare: Callable[..., Any] | None = None
    outputs: tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]] | None = None
    frame_width: int = 0
    frame_flags: tuple[int, int, int] = (0, 0, 0)
    growth_limit: float = math.inf

    def evaluate(self, t: float, y: np.ndarray) -> tuple[int, np.ndarray]:
        """(status, y') of the compiled right-hand side at (t, y) with the current data."""
        I, F = self.data()
        if self.prepare is None:
            return self.kernel(t, y, I, F)
        return self.kernel(t, y, self.prepare(I, F))


def _stage_state(y, K, a, s, h):  # noqa: ANN001, ANN201
    """y + h sum_{j<s} a_j K_j (scipy: y + np.dot(K[:s].T, a[:s]) * h)."""
    n = y.shape[0]
    out = np.empty(n)
    for i in range(n):
        acc = 0.0
        for j in range(s):
            acc += K[j, i] * a[j]
        out[i] = y[i] + acc * h
    return out


def dop853_step(t, y, f, h_abs, t_bound, rtol, atol, max_step, K, I, F, A, B, C, E3, E5):  # noqa: ANN001, ANN201
    """One accepted DOP853 step from (t, y) with f = f(t, y) and the proposed |h| (module docstring).

    Returns (status, t_new, y_new, f_new, next |h|, h taken, right-hand-side evaluations); K (13 or more rows)
    holds the accepted step's stages on return (scipy's ``K``, read by the dense output)."""
    return _step_prepared(t, y, f, h_abs, t_bound, rtol, atol, max_step, K, _prepare(I, F), A, B, C, E3, E5)


def dop853_step_prepared(t, y, f, h_abs, t_bound, rtol, atol, max_step, K, P, A, B, C, E3, E5):  # noqa: ANN001, ANN201
    """:func:`dop853_step` with the right-hand side's data already prepared (P = _prepare(I, F))."""
    n = y.shape[0]
    nfev = 0
    min_step = 10.0 * abs(np.nextafter(t, np.inf) - t)
    if h_abs > max_step:
        h_abs = max_step
    elif h_abs < min_step:
        h_abs = min_step
    rejected = False
    while True:
        if h_abs < min_step:
            return 1, t, y, f, h_abs, 0.0, nfev
        h = h_abs
        t_new = t + h
        if t_new - t_bound > 0.0:
            t_new = t_bound
        h = t_new - t
        h_abs = abs(h)
        K[0, :] = f
        for s in range(1, N_STAGES):
            status, ks = _rhs(t + C[s] * h, _stage_state(y, K, A[s], s, h), P)
            nfev += 1
            if status != 0:
                return 2, t, y, f, h_abs, 0.0, nfev
            K[s, :] = ks
        y_new = _stage_state(y, K, B, N_STAGES, h)
        status, f_new = _rhs(t + h, y_new, P)
        nfev += 1
        if status != 0:
            return 2, t, y, f, h_abs, 0.0, nfev
        K[N_STAGES, :] = f_new
        e5 = 0.0
        e3 = 0.0
        for i in range(n):
            scale = atol + max(abs(y[i]), abs(y_new[i])) * rtol
            a5 = 0.0
            a3 = 0.0
            for j in range(N_STAGES + 1):
                a5 += K[j, i] * E5[j]
                a3 += K[j, i] * E3[j]
            a5 /= scale
            a3 /= scale
            e5 += a5 * a5
            e3 += a3 * a3
        if e5 == 0.0 and e3 == 0.0:
            error_norm = 0.0
        else:
            error_norm = abs(h) * e5 / math.sqrt((e5 + 0.01 * e3) * n)
        if error_norm < 1.0:
            if error_norm == 0.0:
                factor = MAX_FACTOR
            else:
                factor = min(MAX_FACTOR, SAFETY * error_norm ** ERROR_EXPONENT)
            if rejected:
                factor = min(1.0, factor)
            return 0, t_new, y_new, f_new, h_abs * factor, h, nfev
        h_abs *= max(MIN_FACTOR, SAFETY * error_norm ** ERROR_EXPONENT)
        rejected = True


def dop853_dense(t_old, h, y_old, y, f, K, I, F, A, C, D):  # noqa: ANN001, ANN201
    """(status, coefficient rows F (7, n), evaluations) of the dense output of the step from (t_old, y_old) to
    (t_old + h, y) with f = f(t_old + h, y), K the step's stages (16 rows: the three extra stages are written
    into rows 13-15); scipy's ``DOP853._dense_output_impl``."""
    return _dense_prepared(t_old, h, y_old, y, f, K, _prepare(I, F), A, C, D)


def dop853_dense_prepared(t_old, h, y_old, y, f, K, P, A, C, D):  # noqa: ANN001, ANN201
    """:func:`dop853_dense` with the right-hand side's data already prepared (P = _prepare(I, F))."""
    n = y.shape[0]
    for s in range(N_STAGES + 1, A.shape[0]):
        status, ks = _rhs(t_old + C[s] * h, _stage_state(y_old, K, A[s], s, h), P)
        if status != 0:
            return 2, np.zeros((7, n)), s - N_STAGES
        K[s, :] = ks
    out = np.empty((7, n))
    for i in range(n):
        dy = y[i] - y_old[i]
        out[0, i] = dy
        out[1, i] = h * K[0, i] - dy
        out[2, i] = 2.0 * dy - h * (f[i] + K[0, i])
    for r in range(D.shape[0]):
        for i in range(n):
            acc = 0.0
            for j in range(D.shape[1]):
                acc += D[r, j] * K[j, i]
            out[3 + r, i] = h * acc
    return 0, out, A.shape[0] - N_STAGES - 1


def dop853_dense_values(t_old, h, y_old, coef, times):  # noqa: ANN001, ANN201
    """The dense output of a step at ``times``, rows (len(times), n): scipy's ``Dop853DenseOutput._call_impl``
    with the same operations in the same order (x = (t - t_old) / h; y = 0; for the coefficient rows from the
    last: y += F_r, then y *= x or y *= 1 - x alternately; y + y_old), so the values are scipy's bit for bit."""
    n = y_old.shape[0]
    rows = coef.shape[0]
    out = np.empty((times.shape[0], n))
    for j in range(times.shape[0]):
        x = (times[j] - t_old) / h
        for i in range(n):
            y = 0.0
            for r in range(rows):
                y += coef[rows - 1 - r, i]
                if r % 2 == 0:
                    y *= x
                else:
                    y *= 1.0 - x
            out[j, i] = y + y_old[i]
    return out


def dop853_segment(t, y, f, h_abs, t_bound, rtol, atol, max_step, K, I, F, A, B, C, E3, E5, D,  # noqa: ANN001, ANN201
                   times, k, eps, correction, since_output, max_since_output, max_steps, max_frames, frames,
                   end_row, flags, growth_limit):
    """Consecutive accepted steps of a continuous run with their step-end corrections and output frames, in one
    call: the simulation driver's loop (``mechstudio.core.run.driver``, continuous mode) for a formulation whose
    outputs are compiled too (:attr:`CompiledRHS.outputs`). The same operations as the driver's Python loop:

    * a DOP853 step (:func:`dop853_step_prepared`);
    * the output times t_k inside the step: the step's dense output at them, then ``_outputs`` of those states
      (correction of the copy and the output frame), each written to ``frames`` as [t_k, W, frame];
    * the step end corrected by ``_outputs`` (its frame computed and recorded only when it falls on an output
      time, its ||N||_2 computed); when the correction changed the state, the state is re-packed from the
      corrected q, q' (``_state_of``) and its derivative evaluated again.

    The model data are prepared once per call (``_prepare``, ``_prepare_outputs``). The call returns after
    ``max_steps`` steps, once ``max_frames`` frames are recorded, or at t_bound. A step meeting anything the
    driver handles in Python (a kernel status, a non-finite state, a correction that did not converge, more than
    ``max_since_output`` steps since the last output, more output times than ``frames`` has rows) is not
    committed: the call returns status 3 with the state before it, and the driver takes that step itself. A step
    end whose ||N||_2 exceeds ``growth_limit`` ends the call after that step with status 4: the driver refreshes
    the formulation's basis there (``Formulation.restart``).

    ``flags`` = (columns of CONVERGED, CHANGED, NULL_SPACE_GROWTH) in a frame row (``OutputScalar``). Returns
    (status 0, 3 or 4, t, y, f, next |h|, t_old, y_old, h of the last step, next output index k, steps since the
    last output, steps, right-hand-side evaluations, corrections, frames recorded); ``end_row`` holds the frame of
    the last step end (its corrected q, q')."""
    P = _prepare(I, F)
    Q = _prepare_outputs(I, F)
    n_out = times.shape[0] - 1
    n_y = y.shape[0]
    capacity = frames.shape[0]
    conv_col, changed_col, growth_col = flags[0], flags[1], flags[2]
    t_old, y_old, h_last = t, y, 0.0
    steps = 0
    nfev = 0
    n_corr = 0
    count = 0
    status = 0
    while steps < max_steps and count < max_frames and t < t_bound:
        st, t_new, y_new, f_new, h_next, h, nf = _step_prepared(t, y, f, h_abs, t_bound, rtol, atol, max_step, K,
                                                                 P, A, B, C, E3, E5)
        nfev += nf
        if st != 0:
            status = 3
            break
        finite = True
        for i in range(n_y):
            if not math.isfinite(y_new[i]):
                finite = False
        since = since_output + 1
        if not finite or (since > max_since_output and times[k] > t_new + eps):
            status = 3
            break
        kk = k
        while kk <= n_out and times[kk] < t_new - eps:
            kk += 1
        inside = kk - k
        at_output = kk <= n_out and abs(times[kk] - t_new) <= eps
        if count + inside + 1 > capacity:
            status = 3 if count == 0 else 0
            break
        ok = True
        if inside > 0:
            st, coef, nf = _dense_prepared(t, h, y, y_new, f_new, K, P, A, C, D)
            nfev += nf
            if st != 0:
                status = 3
                break
            Y = _dense_values(t, h, y, coef, times[k:kk])
            st, got, rows = _outputs(np.ascontiguousarray(Y[:, :n_y - 1]), times[k:kk], correction, True, False,
                                     Q)
            if st != 0 or got < inside:
                status = 3
                break
            for j in range(inside):
                if correction and rows[j, conv_col] == 0.0:
                    ok = False
                frames[count + j, 0] = times[k + j]
                frames[count + j, 1] = Y[j, n_y - 1]
                frames[count + j, 2:] = rows[j]
            if not ok:
                status = 3
                break
            since = 0
        end = np.empty((1, n_y - 1))
        end[0, :] = y_new[:n_y - 1]
        st, got, rows = _outputs(end, np.array([t_new]), correction, at_output, True, Q)
        if st != 0 or got < 1 or (correction and rows[0, conv_col] == 0.0) or math.isnan(rows[0, growth_col]):
            status = 3
            break
        y_next, f_next = y_new, f_new
        if rows[0, changed_col] != 0.0:
            y_next = np.empty(n_y)
            y_next[:n_y - 1] = _state_of(rows[0], Q)
            y_next[n_y - 1] = y_new[n_y - 1]
            st, f_next = _rhs(t_new, y_next, P)
            nfev += 1
            if st != 0:
                status = 3
                break
        if at_output:
            frames[count + inside, 0] = times[kk]
            frames[count + inside, 1] = y_new[n_y - 1]
            frames[count + inside, 2:] = rows[0]
            kk += 1
            inside += 1
            since = 0
        end_row[:] = rows[0]
        if correction:
            n_corr += inside + (0 if at_output else 1)
        count += inside
        t_old, y_old, h_last = t, y, h
        t, y, f, h_abs = t_new, y_next, f_next, h_next
        k = kk
        since_output = since
        steps += 1
        if rows[0, growth_col] > growth_limit:
            status = 4
            break
    return status, t, y, f, h_abs, t_old, y_old, h_last, k, since_output, steps, nfev, n_corr, count


def _prepare(I, F):  # noqa: ANN001, ANN201
    """Placeholder of the once-per-step preparation a :func:`specialized` copy calls (replaced in its globals)."""
    raise NotImplementedError("dop853_kernels: use specialized(rhs)")


def _rhs(t, y, P):  # noqa: ANN001, ANN201
    """Placeholder of the right-hand side a :func:`specialized` copy calls (replaced in its globals)."""
    raise NotImplementedError("dop853_kernels: use specialized(rhs)")


def _pass_data(I, F):  # noqa: ANN001, ANN201
    """The preparation of a right-hand side of (t, y, I, F): the packed data as they are."""
    return I, F


def _rhs_of_data(t, y, P):  # noqa: ANN001, ANN201
    """A right-hand side of (t, y, I, F) (the global ``_data_rhs`` of a specialized copy) called with P = (I, F)."""
    return _data_rhs(t, y, P[0], P[1])


def _data_rhs(t, y, I, F):  # noqa: ANN001, ANN201
    """Placeholder (replaced in the globals of a specialized copy of :func:`_rhs_of_data`)."""
    raise NotImplementedError("dop853_kernels: use specialized(rhs)")


def _prepare_outputs(I, F):  # noqa: ANN001, ANN201
    """Placeholder of the outputs' preparation Q = prepare(I, F) (:attr:`CompiledRHS.outputs`)."""
    raise NotImplementedError("dop853_kernels: use specialized(rhs, prepare, outputs)")


def _outputs(Z, times, correction, frame, growth, Q):  # noqa: ANN001, ANN201
    """Placeholder of the compiled outputs of states Z[j] at times[j] (:attr:`CompiledRHS.outputs`)."""
    raise NotImplementedError("dop853_kernels: use specialized(rhs, prepare, outputs)")


def _state_of(frame, Q):  # noqa: ANN001, ANN201
    """Placeholder of the integrator state (without W) of a frame's corrected q, q' (:attr:`CompiledRHS.outputs`)."""
    raise NotImplementedError("dop853_kernels: use specialized(rhs, prepare, outputs)")


# the prepared step and dense output and the dense values, as a specialized copy binds them (specialized())
_step_prepared, _dense_prepared, _dense_values = dop853_step_prepared, dop853_dense_prepared, dop853_dense_values


_SPECIALIZED: dict[Any, "Specialized"] = {}


@dataclass(frozen=True)
class Specialized:
    """The DOP853 kernels compiled around one right-hand side (:func:`specialized`): ``step`` (:func:`dop853_step`),
    ``dense`` (:func:`dop853_dense`) and, when its formulation's outputs are compiled too, ``segment``
    (:func:`dop853_segment`; else None)."""
    step: Callable[..., Any]
    dense: Callable[..., Any]
    segment: Callable[..., Any] | None


def _copy(func: Callable[..., Any], g: dict[str, Any], tag: str) -> Callable[..., Any]:
    """``func`` with the globals ``g``, compiled (cached on disk) under the name ``<name>__<tag>``."""
    copy = types.FunctionType(func.__code__, g, func.__name__, func.__defaults__, func.__closure__)
    copy.__qualname__ = f"{func.__name__}__{tag}"
    copy.__module__, copy.__doc__ = func.__module__, func.__doc__
    return numba_module().njit(cache=True, nogil=True)(copy)


def specialized(rhs: Callable[..., Any], prepare: Callable[..., Any] | None = None,
                outputs: tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]] | None = None
                ) -> Specialized | None:
    """The DOP853 kernels compiled with ``rhs`` as their right-hand side, once per process and right-hand side
    (cached on disk under the names ``dop853_step__<module>_<name>``); None without numba.
    ``rhs`` is a compiled function (t, y, I, F) -> (status, y'), or, with ``prepare`` (a compiled function
    (I, F) -> P), one of (t, y, P) (module docstring). ``outputs``: the formulation's compiled outputs
    (:attr:`CompiledRHS.outputs`), for :func:`dop853_segment`."""
    if numba_module() is None:
        return None
    got = _SPECIALIZED.get((rhs, outputs))
    if got is None:
        g = dict(globals())
        g["_stage_state"] = _stage_state_compiled()
        tag = f"{rhs.__module__}_{rhs.__name__}".replace(".", "_")
        if prepare is None:
            g["_prepare"] = _pass_data_compiled()
            g["_rhs"] = _copy(_rhs_of_data, {**globals(), "_data_rhs": rhs}, tag)
        else:
            g["_prepare"], g["_rhs"] = prepare, rhs
        g["_step_prepared"] = _copy(dop853_step_prepared, g, tag)
        g["_dense_prepared"] = _copy(dop853_dense_prepared, g, tag)
        segment = None
        if outputs is not None:
            g["_prepare_outputs"], g["_outputs"], g["_state_of"] = outputs
            g["_dense_values"] = dense_values_kernel()
            segment = _copy(dop853_segment, g, tag)
        got = _SPECIALIZED[rhs, outputs] = Specialized(_copy(dop853_step, g, tag), _copy(dop853_dense, g, tag),
                                                       segment)
    return got


@kernel_set
def _stage_state_compiled() -> Callable[..., Any] | None:
    return compile_helper(_stage_state)


@kernel_set
def _pass_data_compiled() -> Callable[..., Any] | None:
    return compile_helper(_pass_data)


@kernel_set
def dense_values_kernel() -> Callable[..., Any] | None:
    """:func:`dop853_dense_values` compiled, or None without numba."""
    return compile_helper(dop853_dense_values)
