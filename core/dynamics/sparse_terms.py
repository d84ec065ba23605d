"""The constraint Jacobian C of a planar system on its sparsity pattern (speed of the sparse routes: no m x n array).

``mechstudio.core.systems.planar_kernels.k_position_terms`` returns C as a dense (m, n) array. For a chain of N bodies
that is O(N^2) memory written at every evaluation (at N = 201 bodies, 2.9 MB: ~0.2 ms of memory traffic, more
than a whole O(N) evaluation of the sparse route). Here C is held as the values ``Cv`` of a fixed pattern in
compressed rows (``row_ptr``, ``row_cols``: a body touched by a row with its three columns, the pattern of
``projection_sparse``), with ``col_at`` mapping the compressed-column entries (``col_ptr``, ``col_rows``) to
their place in Cv:

* :func:`k_sparse_position_terms`: (Cv, Phi) with the same equations, written in the same floating-point order, as
  ``k_position_terms`` for the element kinds of linkages -- point coincidence (revolute joints), point on a line
  (sliders, pin in slot), relative angle, coordinate drivers, knife edges ([001]/[003], see the element modules
  under core/elements/primitives). tests/test_loop_projection.py checks it equal (bitwise) to the dense kernel
  on every sample that has only these kinds. For the other kinds (gear and rack meshes, rolling disks, cams)
  :func:`position_values` gathers Cv from the dense kernel (the same numbers, O(N^2) memory traffic);
* :func:`cv_mv`, :func:`cv_tmv`: C x and C^T y over the pattern;
* :func:`cv_gram_solve`: (C D C^T) x = r by the banded Cholesky of ``projection_sparse`` in its row ordering;
* :func:`cv_reactions`: ``planar_kernels.k_reactions`` with C on the pattern.

Plain Python with numpy semantics; compiled by the modules that call them (``mechstudio.core.jit``).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechstudio.core.dynamics import projection_planar, projection_sparse
from mechstudio.core.dynamics.projection_sparse import band_cholesky, band_solve
from mechstudio.core.jit import compile_helper, kernel_set
from mechstudio.core.systems import planar_kernels

#: the PlanarGeometry fields that :func:`k_sparse_position_terms` reads (counts and the linkage kinds); a model
#: with data in any other field (gears, racks, rolling disks, cams, and any kind added later) takes the dense
#: kernel (:func:`sparse_kinds_only`)
SPARSE_FIELDS = ("nb", "m", "mh", "co_rx", "co_ry", "co_bi", "co_bj", "co_si", "co_sj", "pl_r", "pl_bi", "pl_bj",
                 "pl_si", "pl_sj", "pl_vi", "an_r", "an_bi", "an_bj", "cd_r", "cd_k", "kn_r", "kn_b", "kn_s", "kn_n")

#: positions of the PlanarGeometry fields read here (by name: a reordering of the named tuple is followed)
(G_NB, G_MH, G_CO_RX, G_CO_RY, G_CO_BI, G_CO_BJ, G_CO_SI, G_CO_SJ, G_PL_R, G_PL_BI, G_PL_BJ, G_PL_SI, G_PL_SJ,
 G_PL_VI, G_AN_R, G_AN_BI, G_AN_BJ, G_CD_R, G_CD_K, G_KN_R, G_KN_B, G_KN_S, G_KN_N) = (
    planar_kernels.PlanarGeometry._fields.index(name) for name in (
        "nb", "mh", "co_rx", "co_ry", "co_bi", "co_bj", "co_si", "co_sj", "pl_r", "pl_bi", "pl_bj", "pl_si", "pl_sj",
        "pl_vi", "an_r", "an_bi", "an_bj", "cd_r", "cd_k", "kn_r", "kn_b", "kn_s", "kn_n"))

#: positions of the PlanarReactions fields
R_ROWS, R_SIGN, R_BODY, R_ARM, R_RADIAL_BODY, R_RADIAL_N, R_RADIAL_TAN, R_RADIAL_MZ = (
    planar_kernels.PlanarReactions._fields.index(name) for name in (
        "rows", "sign", "body", "arm", "radial_body", "radial_n", "radial_tan", "radial_mz"))
R_CP_E, R_CP_B1, R_CP_B2, R_CP_BC = (planar_kernels.PlanarReactions._fields.index(name)
                                     for name in ("cp_e", "cp_b1", "cp_b2", "cp_bc"))


def sparse_kinds_only(geo: tuple) -> bool:
    """True when the model has no data outside :data:`SPARSE_FIELDS` (no element of a kind only the dense kernel
    evaluates)."""
    fields = planar_kernels.PlanarGeometry._fields
    return all(np.size(value) == 0 for name, value in zip(fields, geo) if name not in SPARSE_FIELDS)


def entry(row_ptr, row_cols, r, col):  # noqa: ANN001, ANN201
    """The index of C[r, col] in Cv (-1 when (r, col) is not in the pattern)."""
    for a in range(row_ptr[r], row_ptr[r + 1]):
        if row_cols[a] == col:
            return a
    return -1


def put(Cv, row_ptr, row_cols, n, r, col, val):  # noqa: ANN001, ANN201
    """C[r, col] = val unless col is a ground column (not stored), as the planar kernels' helper. The pattern holds
    every column of every body a row touches (``projection_sparse``: at three random states), so an entry outside
    it is a structural zero and is not stored. (No check with an exception here: it would make this helper, called
    ~8 times per joint, five times slower; tests/test_loop_projection.py compares C with the dense kernel's.)"""
    if col < n:
        a = _entry(row_ptr, row_cols, r, col)
        if a >= 0:
            Cv[a] = val


def k_sparse_position_terms(q, geo, fval, row_ptr, row_cols):  # noqa: ANN001, ANN201
    """(Cv, Phi (m_h,)) at q for the linkage kinds (module docstring); the expressions of
    ``planar_kernels.k_position_terms``, entry by entry."""
    nb, mh = geo[G_NB], geo[G_MH]
    co_rx, co_ry, co_bi, co_bj, co_si, co_sj = geo[G_CO_RX], geo[G_CO_RY], geo[G_CO_BI], geo[G_CO_BJ], \
        geo[G_CO_SI], geo[G_CO_SJ]
    pl_r, pl_bi, pl_bj, pl_si, pl_sj, pl_vi = geo[G_PL_R], geo[G_PL_BI], geo[G_PL_BJ], geo[G_PL_SI], \
        geo[G_PL_SJ], geo[G_PL_VI]
    an_r, an_bi, an_bj, cd_r, cd_k = geo[G_AN_R], geo[G_AN_BI], geo[G_AN_BJ], geo[G_CD_R], geo[G_CD_K]
    kn_r, kn_b, kn_s, kn_n = geo[G_KN_R], geo[G_KN_B], geo[G_KN_S], geo[G_KN_N]
    n = 3 * nb
    c, s = _trig(q, nb)
    qe = _ext(q, nb)
    Cv = np.zeros(row_cols.shape[0])
    phi = np.empty(mh)
    for e in range(co_rx.shape[0]):
        i, j, rx, ry = co_bi[e], co_bj[e], co_rx[e], co_ry[e]
        aix, aiy = _rot(c, s, i, co_si, e)
        ajx, ajy = _rot(c, s, j, co_sj, e)
        phi[rx] = qe[3 * i] + aix - qe[3 * j] - ajx
        phi[ry] = qe[3 * i + 1] + aiy - qe[3 * j + 1] - ajy
        _put(Cv, row_ptr, row_cols, n, rx, 3 * i, 1.0)
        _put(Cv, row_ptr, row_cols, n, ry, 3 * i + 1, 1.0)
        _put(Cv, row_ptr, row_cols, n, rx, 3 * i + 2, -aiy)
        _put(Cv, row_ptr, row_cols, n, ry, 3 * i + 2, aix)
        _put(Cv, row_ptr, row_cols, n, rx, 3 * j, -1.0)
        _put(Cv, row_ptr, row_cols, n, ry, 3 * j + 1, -1.0)
        _put(Cv, row_ptr, row_cols, n, rx, 3 * j + 2, ajy)
        _put(Cv, row_ptr, row_cols, n, ry, 3 * j + 2, -ajx)
    for e in range(pl_r.shape[0]):
        i, j, r = pl_bi[e], pl_bj[e], pl_r[e]
        aix, aiy = _rot(c, s, i, pl_si, e)
        ajx, ajy = _rot(c, s, j, pl_sj, e)
        vx, vy = _rot(c, s, i, pl_vi, e)
        dx = qe[3 * j] + ajx - qe[3 * i] - aix
        dy = qe[3 * j + 1] + ajy - qe[3 * i + 1] - aiy
        phi[r] = vx * dx + vy * dy - fval[r]
        _put(Cv, row_ptr, row_cols, n, r, 3 * i, -vx)
        _put(Cv, row_ptr, row_cols, n, r, 3 * i + 1, -vy)
        _put(Cv, row_ptr, row_cols, n, r, 3 * j, vx)
        _put(Cv, row_ptr, row_cols, n, r, 3 * j + 1, vy)
        _put(Cv, row_ptr, row_cols, n, r, 3 * j + 2, -vx * ajy + vy * ajx)
        _put(Cv, row_ptr, row_cols, n, r, 3 * i + 2, (-vy * dx + vx * dy) - (-vx * aiy + vy * aix))
    for e in range(an_r.shape[0]):
        i, j, r = an_bi[e], an_bj[e], an_r[e]
        phi[r] = qe[3 * j + 2] - qe[3 * i + 2] - fval[r]
        _put(Cv, row_ptr, row_cols, n, r, 3 * i + 2, -1.0)
        _put(Cv, row_ptr, row_cols, n, r, 3 * j + 2, 1.0)
    for e in range(cd_r.shape[0]):
        r = cd_r[e]
        phi[r] = q[cd_k[e]] - fval[r]
        _put(Cv, row_ptr, row_cols, n, r, cd_k[e], 1.0)
    for e in range(kn_r.shape[0]):
        b, r = kn_b[e], kn_r[e]
        nx, ny = _rot(c, s, b, kn_n, e)
        ax, ay = _rot(c, s, b, kn_s, e)
        _put(Cv, row_ptr, row_cols, n, r, 3 * b, nx)
        _put(Cv, row_ptr, row_cols, n, r, 3 * b + 1, ny)
        _put(Cv, row_ptr, row_cols, n, r, 3 * b + 2, -nx * ay + ny * ax)
    return Cv, phi


def gather(C, row_ptr, row_cols):  # noqa: ANN001, ANN201
    """Cv of a dense C."""
    Cv = np.empty(row_cols.shape[0])
    for i in range(C.shape[0]):
        for a in range(row_ptr[i], row_ptr[i + 1]):
            Cv[a] = C[i, row_cols[a]]
    return Cv


def position_values(q, geo, fval, row_ptr, row_cols, dense):  # noqa: ANN001, ANN201
    """(Cv, Phi): by :func:`k_sparse_position_terms`, or from the dense kernel when ``dense`` (other kinds)."""
    if dense:
        C, phi = _position_terms(q, geo, fval)
        return _gather(C, row_ptr, row_cols), phi
    return _sparse_position_terms(q, geo, fval, row_ptr, row_cols)


def cv_mv(Cv, row_ptr, row_cols, nrows, x):  # noqa: ANN001, ANN201
    """C[:nrows] @ x."""
    out = np.zeros(nrows)
    for i in range(nrows):
        acc = 0.0
        for a in range(row_ptr[i], row_ptr[i + 1]):
            acc += Cv[a] * x[row_cols[a]]
        out[i] = acc
    return out


def cv_tmv(Cv, row_ptr, row_cols, nrows, y, n):  # noqa: ANN001, ANN201
    """C[:nrows]^T @ y."""
    out = np.zeros(n)
    for i in range(nrows):
        yi = y[i]
        if yi != 0.0:
            for a in range(row_ptr[i], row_ptr[i + 1]):
                out[row_cols[a]] += Cv[a] * yi
    return out


def cv_band_gram(Cv, wt, nrows, col_ptr, col_rows, col_at, pos, bw):  # noqa: ANN001, ANN201
    """W = C[:nrows] diag(wt) C[:nrows]^T in lower band storage in the ordering pos (as
    ``projection_sparse.band_gram``, C on the pattern)."""
    Wb = np.zeros((nrows, bw + 1))
    for col in range(col_ptr.shape[0] - 1):
        inv = wt[col]
        if inv == 0.0:
            continue
        lo, hi = col_ptr[col], col_ptr[col + 1]
        for a in range(lo, hi):
            ra = col_rows[a]
            va = Cv[col_at[a]]
            if ra >= nrows or va == 0.0:
                continue
            pa = pos[ra]
            ca = va * inv
            for b in range(lo, hi):
                rb = col_rows[b]
                if rb < nrows and pos[rb] <= pa:
                    Wb[pa, pa - pos[rb]] += ca * Cv[col_at[b]]
    return Wb


def cv_gram_solve(Cv, wt, nrows, rhs, plan_rows, col_ptr, col_rows, col_at, pivot_min):  # noqa: ANN001, ANN201
    """(ok, x) with (C[:nrows] diag(wt) C[:nrows]^T) x = rhs by the banded Cholesky in the ordering plan_rows =
    (perm, pos, [bw]); ok False when its pivot ratio is at or below pivot_min (as ``projection_sparse.gram_solve``)."""
    perm, pos, bwa = plan_rows
    x = np.zeros(nrows)
    if nrows == 0:
        return True, x
    Wb = _cv_band_gram(Cv, wt, nrows, col_ptr, col_rows, col_at, pos, bwa[0])
    if not _band_cholesky(Wb) > pivot_min:
        return False, x
    y = np.empty(nrows)
    for i in range(nrows):
        y[i] = rhs[perm[i]]
    _band_solve(Wb, y)
    for i in range(nrows):
        x[perm[i]] = y[i]
    return True, x


def cv_reactions(q, Cv, row_ptr, row_cols, lam, react):  # noqa: ANN001, ANN201
    """(n_constraints, 6) rows (Fx, Fy, 0, 0, 0, Mz): ``planar_kernels.k_reactions`` with C on the pattern (the
    same expressions; the couplings by ``planar_kernels.couple_reactions`` with :func:`cv_coupling_forces`)."""
    rows, sign, body, arm = react[R_ROWS], react[R_SIGN], react[R_BODY], react[R_ARM]
    radial_body, radial_n = react[R_RADIAL_BODY], react[R_RADIAL_N]
    radial_tan, radial_mz = react[R_RADIAL_TAN], react[R_RADIAL_MZ]
    nc = rows.shape[0]
    m = row_ptr.shape[0] - 1
    out = np.zeros((nc, 6))
    for e in range(nc):
        b = body[e]
        g0 = g1 = g2 = 0.0
        for a in range(rows.shape[1]):
            r = rows[e, a]
            if r < m:
                g0 += _value(Cv, row_ptr, row_cols, r, 3 * b) * lam[r]
                g1 += _value(Cv, row_ptr, row_cols, r, 3 * b + 1) * lam[r]
                g2 += _value(Cv, row_ptr, row_cols, r, 3 * b + 2) * lam[r]
        g0, g1, g2 = g0 * sign[e], g1 * sign[e], g2 * sign[e]
        cb, sb = math.cos(q[3 * b + 2]), math.sin(q[3 * b + 2])
        ax = cb * arm[e, 0] - sb * arm[e, 1]
        ay = sb * arm[e, 0] + cb * arm[e, 1]
        out[e, 0] = g0
        out[e, 1] = g1
        out[e, 5] = g2 - (ax * g1 - ay * g0)
        if radial_tan[e] != 0.0 or radial_mz[e] != 0.0:  # (k_F |F_t| + k_M |M|) A_c n' (ReactionSite.radial)
            rb = radial_body[e]
            phc = q[3 * rb + 2] if 3 * rb < q.shape[0] else 0.0
            cc, sc = math.cos(phc), math.sin(phc)
            size = radial_tan[e] * math.sqrt(g0 * g0 + g1 * g1) + radial_mz[e] * abs(out[e, 5])
            out[e, 0] += size * (cc * radial_n[e, 0] - sc * radial_n[e, 1])
            out[e, 1] += size * (sc * radial_n[e, 0] + cc * radial_n[e, 1])
    _couple_reactions(q, _cv_coupling_forces(q, Cv, row_ptr, row_cols, lam, react), react, out)
    return out


def cv_coupling_forces(q, Cv, row_ptr, row_cols, lam, react):  # noqa: ANN001, ANN201
    """``planar_kernels.coupling_forces`` with C on the pattern: (K, 3, 3) generalized forces of each coupling's
    rows on its bodies b1, b2 and carrier (0 for the ground)."""
    rows, cp_e, cp_b1, cp_b2, cp_bc = react[R_ROWS], react[R_CP_E], react[R_CP_B1], react[R_CP_B2], react[R_CP_BC]
    m, n = row_ptr.shape[0] - 1, q.shape[0]
    G = np.zeros((cp_e.shape[0], 3, 3))
    for k in range(cp_e.shape[0]):
        for i in range(3):
            b = cp_b1[k] if i == 0 else (cp_b2[k] if i == 1 else cp_bc[k])
            for a in range(rows.shape[1]):
                r = rows[cp_e[k], a]
                if r < m and 3 * b + 2 < n:
                    for c in range(3):
                        G[k, i, c] += _value(Cv, row_ptr, row_cols, r, 3 * b + c) * lam[r]
    return G


def value(Cv, row_ptr, row_cols, r, col):  # noqa: ANN001, ANN201
    """C[r, col] (0 off the pattern)."""
    a = _entry(row_ptr, row_cols, r, col)
    return Cv[a] if a >= 0 else 0.0


def trig(q, nb):  # noqa: ANN001, ANN201
    """cos and sin of every body angle, the ground's (1, 0) appended (as the planar kernels' helper)."""
    c = np.empty(nb + 1)
    s = np.empty(nb + 1)
    for k in range(nb):
        c[k] = math.cos(q[3 * k + 2])
        s[k] = math.sin(q[3 * k + 2])
    c[nb], s[nb] = 1.0, 0.0
    return c, s


def rot(c, s, b, vectors, e):  # noqa: ANN001, ANN201
    """A(phi_b) v' for the body vector v' = vectors[e] (as the planar kernels' helper)."""
    return (c[b] * vectors[e, 0] - s[b] * vectors[e, 1], s[b] * vectors[e, 0] + c[b] * vectors[e, 1])


def ext(x, nb):  # noqa: ANN001, ANN201
    """x with the ground's three zeros appended."""
    out = np.zeros(3 * nb + 3)
    out[:3 * nb] = x
    return out


# the helpers the functions above call: plain Python here, the compiled versions bound by compiled()
_trig, _rot, _ext = trig, rot, ext
_put, _entry, _value, _gather = put, entry, value, gather
_sparse_position_terms, _position_terms = k_sparse_position_terms, planar_kernels.k_position_terms
_cv_band_gram, _band_cholesky, _band_solve = cv_band_gram, band_cholesky, band_solve
_couple_reactions, _cv_coupling_forces = planar_kernels.couple_reactions, cv_coupling_forces

NAMES = ("trig", "rot", "ext", "entry", "put", "value", "k_sparse_position_terms", "gather", "position_values",
         "cv_mv", "cv_tmv", "cv_band_gram", "cv_gram_solve", "cv_coupling_forces", "cv_reactions")


@kernel_set
def compiled() -> dict[str, Any] | None:
    """{name: compiled function} of :data:`NAMES` (the helpers they call compiled first and bound into this
    module's globals: the dense position kernel, the banded Cholesky of ``projection_sparse``), or None without
    numba."""
    if projection_planar.kernels() is None or projection_sparse.kernels() is None:
        return None
    g = globals()
    g["_position_terms"] = compile_helper(planar_kernels.k_position_terms)
    g["_band_cholesky"] = compile_helper(projection_sparse.band_cholesky)
    g["_band_solve"] = compile_helper(projection_sparse.band_solve)
    g["_couple_reactions"] = compile_helper(planar_kernels.couple_reactions)  # its helpers: projection_planar's
    for name in NAMES:
        g[name] = compile_helper(g[name])
        g["_" + name] = g[name]
    g["_sparse_position_terms"] = g["k_sparse_position_terms"]
    return {name: g[name] for name in NAMES}
