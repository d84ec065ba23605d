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

The rebuilders below are written for the field lists in :data:`GEOMETRY_FIELDS`, :data:`FORCES_FIELDS` and
:data:`REACTIONS_FIELDS`. :func:`layout_matches` compares them with ``mechstudio.core.systems.planar_kernels``: when an element type
adds fields there and these lists are not updated, the sparse path is not used (the dense fused path runs, with
the same numbers; tests/test_sparse_projection.py shows that fallback). Updating is one entry per new field here
and one argument in the matching rebuilder.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from mechstudio.core.systems import planar_kernels
from mechstudio.core.jit import compile_helper, kernel_set

#: the fields the rebuilders know (the order of core.systems.planar_kernels' named tuples)
GEOMETRY_FIELDS = ("nb", "m", "mh", "co_rx", "co_ry", "co_bi", "co_bj", "co_si", "co_sj", "pl_r", "pl_bi", "pl_bj",
                   "pl_si", "pl_sj", "pl_vi", "an_r", "an_bi", "an_bj", "cd_r", "cd_k", "kn_r", "kn_b", "kn_s", "kn_n",
                   "gm_r", "gm_bi", "gm_bj", "gm_bc", "gm_si", "gm_sj", "gm_e", "gm_radii",
                   "rk_r", "rk_bc", "rk_bp", "rk_bb", "rk_u", "rk_sp", "rk_sb", "rk_rho",
                   "dl_rn", "dl_rt", "dl_bi", "dl_bj", "dl_si", "dl_sj", "dl_vi", "dl_par",
                   "cm_r", "cm_bi", "cm_bj", "cm_kind", "cm_off", "cm_n", "cm_si", "cm_sj", "cm_u", "cm_par", "cm_tab")
FORCES_FIELDS = ("mass_diagonal", "gravity_force", "sp_b1", "sp_b2", "sp_s1", "sp_s2", "sp_k", "sp_c", "sp_l0",
                 "rt_b1", "rt_b2", "rt_k", "rt_c", "rt_th0", "ld_b", "ld_s", "tq_b")
REACTIONS_FIELDS = ("rows", "sign", "body", "arm", "radial_body", "radial_n", "radial_tan")


def layout_matches() -> bool:
    """True when core.systems.planar_kernels' named tuples have exactly the fields the rebuilders know."""
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


# --- rebuilders (compiled with the kernels that call them) ----------------------------------------------------
def iseg(I, k):  # noqa: ANN001, ANN201
    """Integer segment k (1-D view)."""
    return I[I[1 + 2 * k]:I[2 + 2 * k]]


def fseg(I, F, k):  # noqa: ANN001, ANN201
    """Float segment k (1-D view)."""
    return F[I[1 + 2 * k]:I[2 + 2 * k]]


def vseg(I, F, k):  # noqa: ANN001, ANN201
    """Float segment k as (K, 2) body vectors."""
    a, b = I[1 + 2 * k], I[2 + 2 * k]
    return F[a:b].reshape(((b - a) // 2, 2))


def tseg(I, F, k):  # noqa: ANN001, ANN201
    """Float segment k as (K, 3) rows (the cams' stacked profile tables r, r', r'')."""
    a, b = I[1 + 2 * k], I[2 + 2 * k]
    return F[a:b].reshape(((b - a) // 3, 3))


def unpack_geometry(I, F):  # noqa: ANN001, ANN201
    """PlanarGeometry (segments 0-56) as the plain tuple the planar kernels take: the point/line/angle/driver/knife
    fields (1-21), gear and rack meshes (22-37), rolling disks (38-45), cams (46-56)."""
    h = iseg(I, 0)
    return (h[0], h[1], h[2], iseg(I, 1), iseg(I, 2), iseg(I, 3), iseg(I, 4), vseg(I, F, 5), vseg(I, F, 6),
            iseg(I, 7), iseg(I, 8), iseg(I, 9), vseg(I, F, 10), vseg(I, F, 11), vseg(I, F, 12), iseg(I, 13),
            iseg(I, 14), iseg(I, 15), iseg(I, 16), iseg(I, 17), iseg(I, 18), iseg(I, 19), vseg(I, F, 20),
            vseg(I, F, 21),
            iseg(I, 22), iseg(I, 23), iseg(I, 24), iseg(I, 25), vseg(I, F, 26), vseg(I, F, 27), vseg(I, F, 28),
            vseg(I, F, 29),
            iseg(I, 30), iseg(I, 31), iseg(I, 32), iseg(I, 33), vseg(I, F, 34), vseg(I, F, 35), vseg(I, F, 36),
            vseg(I, F, 37),
            iseg(I, 38), iseg(I, 39), iseg(I, 40), iseg(I, 41), vseg(I, F, 42), vseg(I, F, 43), vseg(I, F, 44),
            vseg(I, F, 45),
            iseg(I, 46), iseg(I, 47), iseg(I, 48), iseg(I, 49), iseg(I, 50), iseg(I, 51), vseg(I, F, 52),
            vseg(I, F, 53), vseg(I, F, 54), vseg(I, F, 55), tseg(I, F, 56))


FORCES_FIRST = 57  # first segment of PlanarForces


def unpack_forces(I, F):  # noqa: ANN001, ANN201
    """PlanarForces (segments 57-73)."""
    s = FORCES_FIRST
    return (fseg(I, F, s), fseg(I, F, s + 1), iseg(I, s + 2), iseg(I, s + 3), vseg(I, F, s + 4), vseg(I, F, s + 5),
            fseg(I, F, s + 6), fseg(I, F, s + 7), fseg(I, F, s + 8), iseg(I, s + 9), iseg(I, s + 10),
            fseg(I, F, s + 11), fseg(I, F, s + 12), fseg(I, F, s + 13), iseg(I, s + 14), vseg(I, F, s + 15),
            iseg(I, s + 16))


REACTIONS_FIRST = FORCES_FIRST + 17  # first segment of PlanarReactions


def unpack_reactions(I, F):  # noqa: ANN001, ANN201
    """PlanarReactions (segments 74-80): rows (K, 3) padded with m, sign, body, arm (K, 2); the gears' radial
    sites: carrier, unit radial n' (K, 2), tan(alpha)."""
    s = REACTIONS_FIRST
    a, b = I[1 + 2 * s], I[2 + 2 * s]
    return (I[a:b].reshape(((b - a) // 3, 3)), fseg(I, F, s + 1), iseg(I, s + 2), vseg(I, F, s + 3),
            iseg(I, s + 4), vseg(I, F, s + 5), fseg(I, F, s + 6))


PLAN_FIRST = REACTIONS_FIRST + 7  # first segment of the sparse plan


def unpack_plan(I, F):  # noqa: ANN001, ANN201
    """The sparse plan (``projection_sparse.build_plan``): u, w, row_ptr, row_cols, col_ptr, col_rows,
    (perm, pos, bw), (perm_h, pos_h, bw_h), (piv, L_ptr, L_col, L_val, U_ptr, U_col, U_val, U_diag)."""
    s = PLAN_FIRST
    return (iseg(I, s), iseg(I, s + 1), iseg(I, s + 2), iseg(I, s + 3), iseg(I, s + 4), iseg(I, s + 5),
            (iseg(I, s + 6), iseg(I, s + 7), iseg(I, s + 8)), (iseg(I, s + 9), iseg(I, s + 10), iseg(I, s + 11)),
            (iseg(I, s + 12), iseg(I, s + 13), iseg(I, s + 14), fseg(I, F, s + 15), iseg(I, s + 16),
             iseg(I, s + 17), fseg(I, F, s + 18), fseg(I, F, s + 19)))


def flatten_plan(plan: tuple) -> tuple:
    """The plan's arrays in the order of :func:`unpack_plan`."""
    u, w, row_ptr, row_cols, col_ptr, col_rows, rows_all, rows_h, lu = plan
    return (u, w, row_ptr, row_cols, col_ptr, col_rows, *rows_all, *rows_h, *lu)


REBUILDERS = ("iseg", "fseg", "vseg", "tseg", "unpack_geometry", "unpack_forces", "unpack_reactions", "unpack_plan")


@kernel_set
def compiled() -> dict[str, Any] | None:
    """{name: compiled rebuilder} of :data:`REBUILDERS` (bound into this module's globals, since they call each
    other), or None without numba."""
    g = globals()
    for name in REBUILDERS:
        g[name] = compile_helper(g[name])
    return {name: g[name] for name in REBUILDERS}


def packed(system: Any, plan: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(I, F) of a planar system's fused data and a sparse plan."""
    geo, frc, react = system.fused_data()
    return pack(geo, frc, react, flatten_plan(plan))


__all__ = ["FORCES_FIELDS", "compiled", "GEOMETRY_FIELDS", "REACTIONS_FIELDS", "REBUILDERS", "flatten_plan", "layout_matches",
           "pack", "packed", "unpack_forces", "unpack_geometry", "unpack_plan", "unpack_reactions"]
