"""The planar system's compiled-term data and a sparse plan packed into two flat arrays (speed: call overhead).

Calling a compiled kernel costs numba ~0.45 us per array inside a tuple argument (measured on the 2-core
development host: a do-nothing kernel taking the planar ``geo``, ``frc`` and the sparse plan, 70 arrays, costs
~33 us a call; the same kernel taking three flat arrays ~0.7 us). At 10 links that was half of a right-hand
side. So the sparse path (``mechstudio.core.dynamics.projection_sparse``) passes the model data as one int64 array ``I``
and one float64 array ``F``, and the kernels rebuild the tuples of ``mechstudio.core.systems.planar_kernels`` (PlanarGeometry,
PlanarForces, PlanarReactions) and of the sparse plan from them as views (no copy).

Layout: I[0] = number of segments s; I[1 + 2k], I[2 + 2k] = start and end of segment k (in I for an integer
segment, in F for a float segment); then the integer data. The segments follow the field order of the named
tuples, one per field (PlanarGeometry's three leading counts nb, m, mh are segment 0), then the plan's arrays.

Nothing here is kept by hand: the segments and the rebuilders :func:`unpack_geometry`, :func:`unpack_forces`
and :func:`unpack_reactions` are generated (:func:`unpacker_source`) from the layouts of
``mechstudio.core.systems.planar_kernels`` (``GEOMETRY_LAYOUT``, ``FORCES_LAYOUT``, ``REACTIONS_LAYOUT``), which are
generated in turn from the equation primitives' declared ``COMPILED_FIELDS``: a field added to a primitive's
declaration is packed and rebuilt like the others; one its group returns without declaring it, or of another
kind than declared, is refused by name when the system's data are built (``planar_kernels.checked_fields``), and
:func:`pack_planar` refuses an array whose kind does not match its field's.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from mechstudio.core.dynamics import packed_output
from mechstudio.core.jit import borrow, compile_helper, kernel_set, numba_module
from mechstudio.core.systems import planar_kernels
from mechstudio.core.systems.planar_kernels import (ARRAY_KINDS, COUNT, FORCES_LAYOUT, GEOMETRY_LAYOUT, REACTIONS_LAYOUT,
                                                    ROWS, Layout)
from mechstudio.core.elements.primitives.base import INDEX, NUMBER, TABLE, VECTOR

#: the fields the rebuilders return (the order of core.systems.planar_kernels' named tuples, from its layouts)
GEOMETRY_FIELDS = tuple(f for f, _ in GEOMETRY_LAYOUT)
FORCES_FIELDS = tuple(f for f, _ in FORCES_LAYOUT)
REACTIONS_FIELDS = tuple(f for f, _ in REACTIONS_LAYOUT)


def layout_matches() -> bool:
    """True when core.systems.planar_kernels' named tuples have exactly the fields the rebuilders return (both are
    generated from the same layouts; False only if one of them was replaced at run time)."""
    return (planar_kernels.PlanarGeometry._fields == GEOMETRY_FIELDS
            and planar_kernels.PlanarForces._fields == FORCES_FIELDS
            and planar_kernels.PlanarReactions._fields == REACTIONS_FIELDS)


def pack(*groups: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(I, F) of the arrays of ``groups`` in order (module docstring); PlanarGeometry's leading nb, m, mh (ints)
    become one integer segment."""
    segments: list[np.ndarray] = []
    for group in groups:
        items = list(group)
        if items and isinstance(items[0], (int, np.integer)):  # PlanarGeometry: nb, m, mh
            segments.append(np.array(items[:3], np.int64))
            items = items[3:]
        segments += [np.asarray(a) for a in items]
    n_seg = len(segments)
    ints, floats = [], []
    header = np.zeros(1 + 2 * n_seg, np.int64)
    header[0] = n_seg
    at_i, at_f = len(header), 0
    for k, a in enumerate(segments):
        flat = np.ascontiguousarray(a).ravel()
        if np.issubdtype(flat.dtype, np.integer):
            header[1 + 2 * k], header[2 + 2 * k] = at_i, at_i + flat.size
            ints.append(flat.astype(np.int64))
            at_i += flat.size
        else:
            header[1 + 2 * k], header[2 + 2 * k] = at_f, at_f + flat.size
            floats.append(flat.astype(float))
            at_f += flat.size
    I = np.ascontiguousarray(np.concatenate([header] + ints))
    F = np.ascontiguousarray(np.concatenate(floats) if floats else np.zeros(0))
    return I, F


def check_layout(layout: Layout, values: tuple, what: str) -> None:
    """``values`` (a named tuple of ``layout``) checked against it: one value per field, each array of its
    field's kind -- else a ValueError naming the field."""
    if len(values) != len(layout):
        raise ValueError(f"{what}: {len(values)} values for the {len(layout)} fields of its layout")
    for (name, kind), v in zip(layout, values):
        if kind == COUNT:
            if not isinstance(v, (int, np.integer)):
                raise ValueError(f"{what}.{name}: a count, got {type(v).__name__}")
            continue
        a = np.asarray(v)
        ndim, dtype = ARRAY_KINDS[kind]
        if a.ndim != ndim or a.dtype.kind != dtype:
            raise ValueError(f"{what}.{name}: declared {kind} (ndim {ndim}, dtype kind {dtype!r}); got a {a.dtype} "
                             f"array of shape {a.shape}")


def pack_planar(geo: tuple, frc: tuple, react: tuple, *rest: tuple) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pack` of a planar system's fused data (checked against the layouts, :func:`check_layout`) and
    further groups (the sparse plan)."""
    for layout, values, what in ((GEOMETRY_LAYOUT, geo, "PlanarGeometry"), (FORCES_LAYOUT, frc, "PlanarForces"),
                                 (REACTIONS_LAYOUT, react, "PlanarReactions")):
        check_layout(layout, values, what)
    return pack(geo, frc, react, *rest)


# --- rebuilders (compiled with the kernels that call them) ----------------------------------------------------
def iseg(I, k):  # noqa: ANN001, ANN201
    """Integer segment k (1-D view, borrowed: ``mechstudio.core.jit.borrow``)."""
    return borrow(I[I[1 + 2 * k]:I[2 + 2 * k]])


def fseg(I, F, k):  # noqa: ANN001, ANN201
    """Float segment k (1-D view, borrowed)."""
    return borrow(F[I[1 + 2 * k]:I[2 + 2 * k]])


def vseg(I, F, k):  # noqa: ANN001, ANN201
    """Float segment k as (K, 2) body vectors (a borrowed view)."""
    a, b = I[1 + 2 * k], I[2 + 2 * k]
    return borrow(F[a:b].reshape(((b - a) // 2, 2)))


def tseg(I, F, k):  # noqa: ANN001, ANN201
    """Float segment k as (K, 3) rows (the cams' stacked profile tables r, r', r''; a borrowed view)."""
    a, b = I[1 + 2 * k], I[2 + 2 * k]
    return borrow(F[a:b].reshape(((b - a) // 3, 3)))


def rseg(I, k):  # noqa: ANN001, ANN201
    """Integer segment k as (K, 3) rows (the reactions' constraint rows; a borrowed view)."""
    a, b = I[1 + 2 * k], I[2 + 2 * k]
    return borrow(I[a:b].reshape(((b - a) // 3, 3)))


#: how a field of each kind is read back from segment {k}
READERS = {INDEX: "iseg(I, {k})", NUMBER: "fseg(I, F, {k})", VECTOR: "vseg(I, F, {k})", TABLE: "tseg(I, F, {k})",
           ROWS: "rseg(I, {k})"}


def unpacker_source(name: str, layout: Layout, first: int) -> tuple[str, int]:
    """(source of ``name(I, F)`` returning the fields of ``layout`` as a plain tuple from the segments starting at
    ``first``, the segment after them). Leading counts share one integer segment (PlanarGeometry's nb, m, mh)."""
    counts = [f for f, kind in layout if kind == COUNT]
    if [f for f, _ in layout[:len(counts)]] != counts:
        raise ValueError(f"{name}: the counts of a layout must lead it: {counts}")
    body, parts, k = [], [], first
    if counts:
        body.append(f"    h = iseg(I, {k})")
        parts += [f"h[{i}]" for i in range(len(counts))]
        k += 1
    for _, kind in layout[len(counts):]:
        parts.append(READERS[kind].format(k=k))
        k += 1
    lines = [f"def {name}(I, F):  # noqa: ANN001, ANN201 - generated by packed_planar.unpacker_source",
             f'    """The fields {", ".join(f for f, _ in layout)} from segments {first}-{k - 1}."""',
             *body, f"    return ({', '.join(parts)},)"]
    return "\n".join(lines) + "\n", k


def unpackers(layouts: tuple[tuple[str, Layout], ...], namespace: dict[str, Any]) -> tuple[dict[str, Callable[..., Any]], int]:
    """({name: rebuilder}, first segment after them) of the named layouts in order, defined in ``namespace``
    (whose ``iseg`` ... they call)."""
    out, k = {}, 0
    for name, layout in layouts:
        source, k_next = unpacker_source(name, layout, k)
        exec(compile(source, f"<{__name__}.{name}, generated>", "exec"), namespace)  # noqa: S102 - from layouts
        out[name] = namespace[name]
        k = k_next
    return out, k


_GENERATED, PLAN_FIRST = unpackers((("unpack_geometry", GEOMETRY_LAYOUT), ("unpack_forces", FORCES_LAYOUT),
                                    ("unpack_reactions", REACTIONS_LAYOUT)), globals())
FORCES_FIRST = len(GEOMETRY_LAYOUT) - 2  # first segment of PlanarForces (the three counts share segment 0)
REACTIONS_FIRST = FORCES_FIRST + len(FORCES_LAYOUT)  # first segment of PlanarReactions
unpack_geometry = _GENERATED["unpack_geometry"]
unpack_forces = _GENERATED["unpack_forces"]
unpack_reactions = _GENERATED["unpack_reactions"]


def unpack_plan(I, F):  # noqa: ANN001, ANN201
    """The sparse plan (``projection_sparse.build_plan``): u, w, row_ptr, row_cols, col_ptr, col_rows,
    (perm, pos, bw), (perm_h, pos_h, bw_h), (piv, L_ptr, L_col, L_val, U_ptr, U_col, U_val, U_diag)."""
    s = PLAN_FIRST
    return (iseg(I, s), iseg(I, s + 1), iseg(I, s + 2), iseg(I, s + 3), iseg(I, s + 4), iseg(I, s + 5),
            (iseg(I, s + 6), iseg(I, s + 7), iseg(I, s + 8)), (iseg(I, s + 9), iseg(I, s + 10), iseg(I, s + 11)),
            (iseg(I, s + 12), iseg(I, s + 13), iseg(I, s + 14), fseg(I, F, s + 15), iseg(I, s + 16),
             iseg(I, s + 17), fseg(I, F, s + 18), fseg(I, F, s + 19)))


class CompiledRoute:
    """What a sparse planar route (``projection_sparse.SparsePath``, ``projection_loops.LoopPath``) offers the
    compiled DOP853 step, its segments and the outputs inside a step, alike for both. A subclass sets ``system``,
    ``packed`` (the data go to the kernels packed) and ``react`` (the reactions' fused data), names its module's
    kernel sets in ``timed_kernel`` ((rhs of (t, y, P), its preparation, the batched outputs)) and
    ``output_kernels`` (the segment's outputs), and gives ``timed_data()`` (I, F with the compiled time
    functions)."""
    timed_kernel: Callable[[], Any]
    output_kernels: Callable[[], Any]
    system: Any
    packed: bool
    react: tuple

    def timed_data(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def compiled_rhs(self) -> tuple[Callable[..., Any], Callable[..., Any]] | None:
        """The compiled right-hand side of (t, [y; W], P) and its preparation P = prepare(I, F) when the data are
        packed and every time function of the model has its compiled form (``PlanarSystem.packed_time``); None
        otherwise."""
        if not self.packed or self.system.packed_time() is None:
            return None
        built = self.timed_kernel()
        return None if built is None else built[:2]

    def compiled_outputs(self) -> tuple[tuple[Callable[..., Any], ...], int] | None:
        """(the compiled outputs of the compiled DOP853 segment, the width of a packed frame) under the conditions
        of :meth:`compiled_rhs`; None otherwise."""
        built = self.output_kernels() if self.compiled_rhs() is not None else None
        return None if built is None else (built, packed_output.frame_width(self.system.n, self._reaction_rows()))

    def output_batch(self, Z: np.ndarray, times: np.ndarray, correction: bool) -> list | None:
        """The output frames (q, q', q'', reactions, scalars; the loop route's ||N||_2 not computed) of the
        integrator states Z[j] at times[j] from one compiled call (the batched outputs of ``timed_kernel``): a
        list with None from the first row the kernel declined on; None under the conditions of
        :meth:`compiled_rhs`."""
        if self.compiled_rhs() is None:
            return None
        I, F = self.timed_data()
        result = self.timed_kernel()[2](Z, times, bool(correction), I, F)
        return packed_output.batch_frames(result, self.system.n, self._reaction_rows())

    def _reaction_rows(self) -> int:
        return self.react[planar_kernels.REACTIONS_ROWS].shape[0]


def flatten_plan(plan: tuple) -> tuple:
    """The plan's arrays in the order of :func:`unpack_plan`."""
    u, w, row_ptr, row_cols, col_ptr, col_rows, rows_all, rows_h, lu = plan
    return (u, w, row_ptr, row_cols, col_ptr, col_rows, *rows_all, *rows_h, *lu)


#: the hand-written rebuilders (compiled and cached like any helper) and the generated ones (compiled without a
#: disk cache of their own, having no source file: they are inlined into the cached kernels that call them, whose
#: cache folder follows the primitives' declarations through ``mechstudio.core.jit``'s source digest)
HELPERS = ("iseg", "fseg", "vseg", "tseg", "rseg", "unpack_plan")
REBUILDERS = HELPERS + tuple(_GENERATED)


@kernel_set
def compiled() -> dict[str, Any] | None:
    """{name: compiled rebuilder} of :data:`REBUILDERS` (bound into this module's globals, since they call each
    other), or None without numba."""
    g = globals()
    for name in HELPERS:
        g[name] = compile_helper(g[name])
    nb = numba_module()
    for name in _GENERATED:
        g[name] = nb.njit(nogil=True)(_GENERATED[name])
    return {name: g[name] for name in REBUILDERS}


def packed(system: Any, plan: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(I, F) of a planar system's fused data and a sparse plan."""
    geo, frc, react = system.fused_data()
    return pack_planar(geo, frc, react, flatten_plan(plan))


__all__ = ["FORCES_FIELDS", "CompiledRoute", "compiled", "GEOMETRY_FIELDS", "REACTIONS_FIELDS", "REBUILDERS", "check_layout", "flatten_plan",
           "layout_matches", "pack", "pack_planar", "packed", "unpack_forces", "unpack_geometry", "unpack_plan",
           "unpack_reactions", "unpacker_source", "unpackers"]
