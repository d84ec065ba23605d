"""Sparse O(N) fused path of the projection formulation for planar systems in the coordinate basis.

With the *coordinate basis* (``ProjectionFormulation(basis="coordinates")``, chosen automatically for
loop-free planar models, see ``mechstudio.core.dynamics.projection``) the kept null-space basis is the selection of the
independent coordinates w: V2 = E_w, p = q'_w. Then S = V2^T B = I and every step of an evaluation is a sparse
solve whose cost grows linearly with the number of bodies (module docstring of ``mechstudio.core.dynamics.projection`` and
docs/dynamics.md, "The O(N) route"):

* velocities ([001] eq. 2.10 with V2 = E_w): q'_w = p,  C_u q'_u = -xi - C_w p, with the sparse LU factors of
  a constant C_u (computed once per basis), or for a varying C_u (closed loops, sliders, knife edges: angle
  columns among u) as q'_u = C_u^T (C_u C_u^T)^-1 (-xi - C_w p) by the banded Cholesky on C_u's pattern (exact
  for the square C_u; status 4 when its pivot ratio is at or below VELOCITY_PIVOT_MIN);
* accelerations and multipliers (the unique solution of [001] eq. 2.11 with C q'' + eta = 0, M = diag(Md) > 0):

      W lambda = -eta - C M^-1 h,   W = C M^-1 C^T,   q'' = M^-1 (h + C^T lambda),   p' = q''_w,

  W is banded after a reverse Cuthill-McKee ordering of the constraint rows (rows are coupled only through a
  shared body), factored by a banded Cholesky: O(m bw^2) for a bandwidth bw that does not grow with a chain's
  length; lambda is the multiplier of the corrected eq. 4.2 (the same numbers, since C has full row rank);
* the drift correction of an output ([001] eq. 4.10, ``mechstudio.core.dynamics.correction``): dq = M^-1 C_h^T W_h^-1 (-Phi)
  with the leading holonomic block W_h of W (its own ordering), the velocity projection
  dq' = M^-1 C^T W^-1 (-(C q' + xi));
* reactions, energies: loops over the constraint entries.

Rows are coupled only where C has entries in common columns; the pattern of C is taken from the system's own
compiled terms at random states (a body touched by a row counts with all three of its columns), so every
element type that has a compiled planar form takes this path without code here. The path returns a status
instead of raising (0 ok; 4 a Cholesky pivot ratio of W at or below ``CHOL_PIVOT_RTOL``: redundant or
singular constraints), and the caller then redoes the evaluation on the dense path (``projection_planar``).
tests/test_sparse_projection.py checks it against the dense fused path and the generic one.

Plain Python with numpy semantics: compiled by :func:`kernels` (numba, ``mechstudio.core.jit``), otherwise run as written.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import scipy.linalg as sla
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import reverse_cuthill_mckee

from mechstudio.core.systems import planar_kernels, planar_time
from mechstudio.core.dynamics import packed_output, packed_planar, projection_fused, projection_planar
from mechstudio.core.dynamics.packed_planar import unpack_forces, unpack_geometry, unpack_plan, unpack_reactions
from mechstudio.core.dynamics.correction import CHOL_PIVOT_RTOL, MAX_ITER, POSITION_TOL, VELOCITY_TOL
from mechstudio.core.jit import compile_helper, kernel_set

#: status of a sparse kernel when W (or W_h, or C_u C_u^T) is numerically singular: the dense path takes over
STATUS_SINGULAR_W = 4
#: status of the compiled right-hand side of (t, y, I, F) when a time function's value is not finite at t (the
#: step is then taken on the Python path, whose evaluation of the function reports why)
STATUS_TIME = 9
#: entries of an output frame's scalars array (``mechstudio.core.dynamics.base.OutputScalar`` and the flags)
N_SCALARS = 11
#: the least Cholesky pivot ratio of C_u C_u^T (a varying C_u): below it, cond(C_u)^2 would cost more than
#: 1e6 eps in q'_u, and the dense path (an LU of C_u) runs instead
VELOCITY_PIVOT_MIN = 1e-3


# --- sparse and banded linear algebra (plan arrays: see build_plan) ---------------------------------------------
def band_gram(C, wt, nrows, col_ptr, col_rows, pos, bw):  # noqa: ANN001, ANN201
    """W = C[:nrows] diag(wt) C[:nrows]^T (wt = M^-1, or 1 on the dependent columns) in lower band storage,
    Wb[i, d] = W[perm_i, perm_(i-d)] (pos: row -> its place in the ordering, -1 for rows not in the block); only
    the rows of each column's pattern are visited: O(nnz)."""
    Wb = np.zeros((nrows, bw + 1))
    for c in range(col_ptr.shape[0] - 1):
        inv = wt[c]
        lo, hi = col_ptr[c], col_ptr[c + 1]
        if inv == 0.0:
            continue
        for a in range(lo, hi):
            ra = col_rows[a]
            if ra >= nrows or C[ra, c] == 0.0:
                continue
            pa = pos[ra]
            ca = C[ra, c] * inv
            for b in range(lo, hi):  # the pairs (ra, rb) below the diagonal of the ordering
                rb = col_rows[b]
                if rb < nrows and pos[rb] <= pa:
                    Wb[pa, pa - pos[rb]] += ca * C[rb, c]
    return Wb


def band_cholesky(Wb):  # noqa: ANN001, ANN201
    """W = L L^T in place in lower band storage; min/max of diag(L), 0 when W is not positive definite."""
    r, w1 = Wb.shape
    bw = w1 - 1
    dmin, dmax = np.inf, 0.0
    for j in range(r):
        s = Wb[j, 0]
        for d in range(1, min(bw, j) + 1):
            s -= Wb[j, d] * Wb[j, d]
        if not s > 0.0:
            return 0.0
        ljj = math.sqrt(s)
        dmin, dmax = min(dmin, ljj), max(dmax, ljj)
        Wb[j, 0] = ljj
        for i in range(j + 1, min(j + bw, r - 1) + 1):
            s = Wb[i, i - j]
            for c in range(max(i - bw, 0), j):
                s -= Wb[i, i - c] * Wb[j, j - c]
            Wb[i, i - j] = s / ljj
    return dmin / dmax if dmax > 0.0 else 1.0


def band_solve(Lb, y):  # noqa: ANN001, ANN201
    """Solve L L^T x = y in place (L from :func:`band_cholesky`)."""
    r, w1 = Lb.shape
    bw = w1 - 1
    for i in range(r):
        s = y[i]
        for c in range(max(i - bw, 0), i):
            s -= Lb[i, i - c] * y[c]
        y[i] = s / Lb[i, 0]
    for i in range(r - 1, -1, -1):
        s = y[i]
        for k in range(i + 1, min(i + bw, r - 1) + 1):
            s -= Lb[k, k - i] * y[k]
        y[i] = s / Lb[i, 0]


def csr_mv(C, row_ptr, row_cols, nrows, x):  # noqa: ANN001, ANN201
    """C[:nrows] @ x over the pattern."""
    out = np.zeros(nrows)
    for i in range(nrows):
        s = 0.0
        for a in range(row_ptr[i], row_ptr[i + 1]):
            s += C[i, row_cols[a]] * x[row_cols[a]]
        out[i] = s
    return out


def csr_tmv(C, row_ptr, row_cols, nrows, lam, n):  # noqa: ANN001, ANN201
    """C[:nrows]^T @ lam over the pattern."""
    out = np.zeros(n)
    for i in range(nrows):
        li = lam[i]
        if li != 0.0:
            for a in range(row_ptr[i], row_ptr[i + 1]):
                out[row_cols[a]] += C[i, row_cols[a]] * li
    return out


def gram_solve(C, wt, nrows, rhs, plan_rows, col_ptr, col_rows, pivot_min):  # noqa: ANN001, ANN201
    """(ok, x) with (C[:nrows] diag(wt) C[:nrows]^T) x = rhs by the banded Cholesky in the plan's ordering
    (plan_rows = (perm, pos, bw as a 1-array)); ok False when the pivot ratio is at or below pivot_min."""
    perm, pos, bwa = plan_rows
    Wb = band_gram(C, wt, nrows, col_ptr, col_rows, pos, bwa[0])
    x = np.zeros(nrows)
    if nrows == 0:
        return True, x
    if not band_cholesky(Wb) > pivot_min:
        return False, x
    y = np.empty(nrows)
    for i in range(nrows):
        y[i] = rhs[perm[i]]
    band_solve(Wb, y)
    for i in range(nrows):
        x[perm[i]] = y[i]
    return True, x


def lu_sparse_solve(lu, b):  # noqa: ANN001, ANN201
    """x with C_u x = b from the sparse LU factors lu = (piv, L_ptr, L_col, L_val, U_ptr, U_col, U_val, U_diag)
    of P C_u = L U (LAPACK getrf's row interchanges, L unit lower, entries by rows)."""
    piv, L_ptr, L_col, L_val, U_ptr, U_col, U_val, U_diag = lu
    r = b.shape[0]
    x = b.copy()
    for j in range(r):
        p = piv[j]
        if p != j:
            tmp = x[j]
            x[j] = x[p]
            x[p] = tmp
    for i in range(r):
        s = x[i]
        for a in range(L_ptr[i], L_ptr[i + 1]):
            s -= L_val[a] * x[L_col[a]]
        x[i] = s
    for i in range(r - 1, -1, -1):
        s = x[i]
        for a in range(U_ptr[i], U_ptr[i + 1]):
            s -= U_val[a] * x[U_col[a]]
        x[i] = s / U_diag[i]
    return x


# --- the fused kernels ---------------------------------------------------------------------------------------
def sparse_velocity(C, xi, p, plan):  # noqa: ANN001, ANN201
    """(ok, q') with q'_w = p and C_u q'_u = -xi - C_w p (module docstring): by the LU factors of a constant
    C_u, else as q'_u = C_u^T (C_u C_u^T)^-1 (-xi - C_w p) with the banded Cholesky (exact for the square C_u;
    ok False when its pivot ratio is at or below VELOCITY_PIVOT_MIN)."""
    u, w, row_ptr, row_cols, col_ptr, col_rows, rows_all, rows_h, lu = plan
    n = C.shape[1]
    m = C.shape[0]
    v = np.zeros(n)
    for j in range(w.shape[0]):
        v[w[j]] = p[j]
    rhs = csr_mv(C, row_ptr, row_cols, m, v)
    for i in range(m):
        rhs[i] = -xi[i] - rhs[i]
    if lu[0].shape[0] == m:
        vu = lu_sparse_solve(lu, rhs)
        for i in range(u.shape[0]):
            v[u[i]] = vu[i]
        return True, v
    on_u = np.zeros(n)
    for i in range(u.shape[0]):
        on_u[u[i]] = 1.0
    ok, mu = gram_solve(C, on_u, m, rhs, rows_all, col_ptr, col_rows, VELOCITY_PIVOT_MIN)
    v += on_u * csr_tmv(C, row_ptr, row_cols, m, mu, n)
    return ok, v


def sparse_accelerations(C, h, eta, Md, plan):  # noqa: ANN001, ANN201
    """(ok, q'', lambda) from W lambda = -eta - C M^-1 h, q'' = M^-1 (h + C^T lambda)."""
    u, w, row_ptr, row_cols, col_ptr, col_rows, rows_all, rows_h, lu = plan
    m, n = C.shape
    minv = 1.0 / Md
    hm = h * minv
    rhs = csr_mv(C, row_ptr, row_cols, m, hm)
    for i in range(m):
        rhs[i] = -eta[i] - rhs[i]
    ok, lam = gram_solve(C, minv, m, rhs, rows_all, col_ptr, col_rows, CHOL_PIVOT_RTOL)
    qdd = (h + csr_tmv(C, row_ptr, row_cols, m, lam, n)) * minv
    return ok, qdd, lam


def k_sparse_rhs(y, plan, geo, frc, td):  # noqa: ANN001, ANN201
    """(status, [p'; q'; P]) at z = [p; q] (module docstring); P = P_nc + q'^T (M q'' - h)."""
    fval, faccel, xi, load_f, torque = td
    w = plan[1]
    k = w.shape[0]
    n = y.shape[0] - k
    Md = frc[planar_kernels.FORCES_MASS_DIAGONAL]
    out = np.zeros(k + n + 1)
    q = y[k:].copy()
    C, phi = _position_terms(q, geo, fval)
    ok, v = _sparse_velocity(C, xi, y[:k], plan)
    if not ok:
        return STATUS_SINGULAR_W, out
    h, eta, power = _velocity_terms(q, v, geo, frc, faccel, load_f, torque)
    ok, qdd, lam = _sparse_accelerations(C, h, eta, Md, plan)
    if not ok:
        return STATUS_SINGULAR_W, out
    for j in range(k):
        out[j] = qdd[w[j]]
    for i in range(n):
        out[k + i] = v[i]
        power += v[i] * (Md[i] * qdd[i] - h[i])
    out[k + n] = power
    return 0, out


def k_packed_rhs(y, I, F, fval, faccel, xi, load_f, torque):  # noqa: ANN001, ANN201
    """:func:`k_sparse_rhs` with the model data and plan packed (``mechstudio.core.dynamics.packed_planar``)."""
    return k_sparse_rhs(y, unpack_plan(I, F), unpack_geometry(I, F), unpack_forces(I, F),
                        (fval, faccel, xi, load_f, torque))


def k_prepare_timed(I, F):  # noqa: ANN001, ANN201
    """The packed data of :func:`k_packed_rhs_timed` unpacked: (I, F, plan, geometry, forces); the compiled DOP853
    step does this once per step (``mechstudio.core.integrate.dop853_kernels``, ``CompiledRHS.prepare``)."""
    return I, F, unpack_plan(I, F), unpack_geometry(I, F), unpack_forces(I, F)


def k_packed_rhs_timed(t, y, P):  # noqa: ANN001, ANN201
    """:func:`k_sparse_rhs` as a function of (t, [y; W], P) for the compiled DOP853 step, P from
    :func:`k_prepare_timed`: the time arrays at t from the compiled time functions appended by
    :meth:`SparsePath.timed_data` (``mechstudio.core.systems.planar_time``, located by I's last two entries);
    STATUS_TIME when one is not finite (the Python path then reports it)."""
    I, F, plan, geo, frc = P
    L = I.shape[0]
    ok, fval, faccel, xi, load_f, torque = _time_arrays(t, I, F, I[L - 2], I[L - 1])
    if not ok:
        return STATUS_TIME, np.zeros(y.shape[0])
    return k_sparse_rhs(y[:-1].copy(), plan, geo, frc, (fval, faccel, xi, load_f, torque))


def k_packed_output(y, correction, I, F, fval, faccel, xi, load_f, torque):  # noqa: ANN001, ANN201
    """:func:`k_sparse_output` with the model data and plan packed (``mechstudio.core.dynamics.packed_planar``)."""
    return k_sparse_output(y, correction, unpack_plan(I, F), unpack_geometry(I, F), unpack_forces(I, F),
                           (fval, faccel, xi, load_f, torque), unpack_reactions(I, F), True)


def k_packed_output_batch(Z, times, correction, I, F):  # noqa: ANN001, ANN201
    """The output frames of the integrator states Z[j] = [p; q] at times[j] (:func:`k_sparse_output`, each packed
    by ``packed_output.pack_frame``) in one call, the data unpacked once: (status, count, frames (len(times),
    width)); on trouble at row j (a kernel status, or STATUS_TIME: a time function not finite) count = j and the
    rows from j on are left to the caller's one-frame path. I, F of :meth:`SparsePath.timed_data`."""
    return k_output_rows(Z, times, correction, True, False, k_prepare_output(I, F))


def k_prepare_output(I, F):  # noqa: ANN001, ANN201
    """The packed data of :func:`k_output_rows` unpacked: (I, F, plan, geometry, forces, reactions)."""
    return I, F, unpack_plan(I, F), unpack_geometry(I, F), unpack_forces(I, F), unpack_reactions(I, F)


def k_output_rows(Z, times, correction, frame, growth, Q):  # noqa: ANN001, ANN201
    """:func:`k_packed_output_batch` with the data prepared by :func:`k_prepare_output` (the compiled outputs of
    the compiled DOP853 segment, ``mechstudio.core.integrate.dop853_kernels.CompiledRHS.outputs``); ``frame``
    False: the corrected q, q' and the correction's scalars only (:func:`k_sparse_output`); ``growth`` is not
    used (||N||_2 is 1 for the coordinate basis)."""
    I, F, plan, geo, frc, react = Q
    L = I.shape[0]
    n = Z.shape[1] - plan[1].shape[0]
    out = np.empty((times.shape[0], 3 * n + 6 * react[planar_kernels.REACTIONS_ROWS].shape[0] + N_SCALARS))
    for j in range(times.shape[0]):
        ok, fval, faccel, xi, load_f, torque = _time_arrays(times[j], I, F, I[L - 2], I[L - 1])
        if not ok:
            return STATUS_TIME, j, out
        status, q, v, qdd, R, scal = k_sparse_output(Z[j].copy(), correction, plan, geo, frc,
                                                     (fval, faccel, xi, load_f, torque), react, frame)
        if status != 0:
            return status, j, out
        out[j, :] = _pack_frame(q, v, qdd, R, scal)
    return 0, times.shape[0], out


def k_state_of(frame, Q):  # noqa: ANN001, ANN201
    """The integrator state [p; q] = [q'_w; q] of a packed frame's (corrected) q, q' (the coordinate basis'
    ``ProjectionFormulation.pack``)."""
    w = Q[2][1]
    k = w.shape[0]
    n = (frame.shape[0] - N_SCALARS - 6 * Q[5][planar_kernels.REACTIONS_ROWS].shape[0]) // 3
    y = np.empty(k + n)
    for j in range(k):
        y[j] = frame[n + w[j]]
    y[k:] = frame[:n]
    return y


def _min_norm(C, Md, nrows, res, plan_rows, col_ptr, col_rows, row_ptr, row_cols):  # noqa: ANN001, ANN201
    """(ok, dx) = M^-1 C_rows^T W_rows^-1 (-res) (eq. 4.10 with M = diag(Md) > 0)."""
    n = C.shape[1]
    rhs = -res
    ok, mu = _gram_solve(C, 1.0 / Md, nrows, rhs, plan_rows, col_ptr, col_rows, CHOL_PIVOT_RTOL)
    return ok, _csr_tmv(C, row_ptr, row_cols, nrows, mu, n) / Md


def k_sparse_output(y, correction, plan, geo, frc, td, react, frame):  # noqa: ANN001, ANN201
    """One output frame of z = [p; q], as ``projection_planar.k_output`` (same returns; ||N||_2 reported as 1:
    the coordinate basis is not refreshed for growth, see ``mechstudio.core.dynamics.projection``). ``frame``
    False: only the correction (q'', the reactions and the energies zero), for a step end that is no output."""
    fval, faccel, xi, load_f, torque = td
    u, w, row_ptr, row_cols, col_ptr, col_rows, rows_all, rows_h, lu = plan
    mh = geo[planar_kernels.GEO_MH]
    Md = frc[planar_kernels.FORCES_MASS_DIAGONAL]
    k = w.shape[0]
    q = y[k:].copy()
    n = q.shape[0]
    scal = np.zeros(11)
    R = np.zeros((react[planar_kernels.REACTIONS_ROWS].shape[0], 6))
    C, phi = _position_terms(q, geo, fval)
    m = C.shape[0]
    ok, v = _sparse_velocity(C, xi, y[:k], plan)
    if not ok:
        return STATUS_SINGULAR_W, q, v, v, R, scal
    before = _norm(phi)
    vres = _csr_mv(C, row_ptr, row_cols, m, v) + xi
    vbefore = _norm(vres)
    res, it, changed = before, 0, False
    if correction and res > POSITION_TOL:
        while res > POSITION_TOL and it < MAX_ITER:
            ok, dq = _min_norm(C, Md, mh, phi, rows_h, col_ptr, col_rows, row_ptr, row_cols)
            if not ok:
                return STATUS_SINGULAR_W, q, v, v, R, scal
            q += dq
            C, phi = _position_terms(q, geo, fval)
            new = _norm(phi)
            it += 1
            changed = True
            stop = not np.isfinite(new) or (new > 0.5 * res and new > POSITION_TOL)
            res = new
            if stop:
                break
        vres = _csr_mv(C, row_ptr, row_cols, m, v) + xi
    vafter = _norm(vres)
    if correction and vafter > VELOCITY_TOL:
        ok, dv = _min_norm(C, Md, m, vres, rows_all, col_ptr, col_rows, row_ptr, row_cols)
        if not ok:
            return STATUS_SINGULAR_W, q, v, v, R, scal
        v = v + dv
        vafter = _norm(_csr_mv(C, row_ptr, row_cols, m, v) + xi)
        changed = True
    if not frame:
        return 0, q, v, np.zeros(n), R, _scalars(0.0, 0.0, before, res, vbefore, vafter, it, changed, True, 1.0)
    h, eta, power_nc = _velocity_terms(q, v, geo, frc, faccel, load_f, torque)
    ok, qdd, lam = _sparse_accelerations(C, h, eta, Md, plan)
    if not ok:
        return STATUS_SINGULAR_W, q, v, v, R, scal
    R = _reactions(q, C, lam, react)
    kinetic = 0.0
    for i in range(n):
        kinetic += 0.5 * Md[i] * v[i] * v[i]
    potential = _potential(q, geo, frc)
    scal = _scalars(kinetic, potential, before, res, vbefore, vafter, it, changed, True, 1.0)
    return 0, q, v, qdd, R, scal


# helpers the kernels call: compiled versions bound by kernels(); plain Python ones otherwise
_csr_mv, _csr_tmv, _gram_solve = csr_mv, csr_tmv, gram_solve
_sparse_velocity, _sparse_accelerations = sparse_velocity, sparse_accelerations
_position_terms, _velocity_terms = planar_kernels.k_position_terms, planar_kernels.k_velocity_terms
_potential, _reactions = planar_kernels.k_potential, planar_kernels.k_reactions
_scalars: Callable[..., Any] | None = None

_norm: Callable[..., Any] | None = None  # bound with the shared helpers (projection_fused)
_time_arrays = planar_time.time_arrays_packed  # the compiled one bound by timed_kernel()
_pack_frame = packed_output.pack_frame  # likewise

HELPERS = ("band_gram", "band_cholesky", "band_solve", "csr_mv", "csr_tmv", "gram_solve", "lu_sparse_solve",
           "sparse_velocity", "sparse_accelerations", "_min_norm")


@kernel_set
def kernels() -> tuple[Callable[..., Any], ...] | None:
    """(k_sparse_rhs, k_sparse_output, k_packed_rhs, k_packed_output) compiled, or None without numba."""
    global _position_terms, _velocity_terms, _potential, _reactions
    global k_sparse_rhs, k_sparse_output  # the packed kernels call the compiled ones
    if projection_planar.kernels() is None or not projection_fused.bind(globals()):  # planar helpers first
        return None
    g = globals()
    g.update(packed_planar.compiled())
    _position_terms = compile_helper(planar_kernels.k_position_terms)
    _velocity_terms = compile_helper(planar_kernels.k_velocity_terms)
    _potential = compile_helper(planar_kernels.k_potential)
    _reactions = compile_helper(planar_kernels.k_reactions)
    for name in HELPERS:
        g[name] = compile_helper(g[name])
    g["_csr_mv"], g["_csr_tmv"], g["_gram_solve"] = g["csr_mv"], g["csr_tmv"], g["gram_solve"]
    g["_sparse_velocity"], g["_sparse_accelerations"] = g["sparse_velocity"], g["sparse_accelerations"]
    k_sparse_rhs, k_sparse_output = compile_helper(k_sparse_rhs), compile_helper(k_sparse_output)
    return k_sparse_rhs, k_sparse_output, compile_helper(k_packed_rhs), compile_helper(k_packed_output)


# --- the plan: the pattern of C, the row orderings of W, the sparse LU of C_u (Python, once per basis) ----------
def _body_pattern(system: Any, q: np.ndarray, t: float, rng: np.random.Generator) -> np.ndarray:
    """(m, nb) bool: the bodies each row of C touches, from C at q and at two random states."""
    m, nb = system.m, system.n // 3
    touched = np.zeros((m, nb), bool)
    for state in (q, q + rng.normal(0.0, 1.0, q.shape), rng.normal(0.0, 3.0, q.shape)):
        C = system.constraint_matrix(state, t)
        touched |= np.abs(C).reshape(m, nb, 3).max(axis=2) > 0.0
    return touched


def _ordering(coupled: csr_matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(perm, pos, [bandwidth]) of the reverse Cuthill-McKee ordering of a symmetric pattern (pos padded with -1
    to the size the kernels index it with is done by the caller)."""
    r = coupled.shape[0]
    if r == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(1, np.int64)
    perm = np.asarray(reverse_cuthill_mckee(coupled, symmetric_mode=True), np.int64)
    pos = np.empty(r, np.int64)
    pos[perm] = np.arange(r)
    i, j = coupled.nonzero()
    bw = int(np.abs(pos[i] - pos[j]).max()) if i.size else 0
    return perm, pos, np.array([bw], np.int64)


def closed_loops(system: Any, q: np.ndarray, t: float = 0.0) -> int:
    """The number of independent closed loops of the constraint graph: bodies and the ground are nodes, each
    constraint element an edge between the bodies its rows touch (to the ground when it touches one body); a
    loop-free (tree) model gives 0. From the pattern of C, so it holds for every element type."""
    touched = _body_pattern(system, q, t, np.random.default_rng(0))
    nb = system.n // 3
    parent = list(range(nb + 1))

    def root(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a
    loops = 0
    rows_of = system.fused_data()[2][0]  # PlanarReactions.rows: each element's rows, padded with m
    for rows in rows_of:
        bodies = sorted(set(np.flatnonzero(touched[[r for r in rows if r < system.m]].any(axis=0)).tolist()))
        if len(bodies) == 1:
            bodies.append(nb)  # attached to the ground
        for b in bodies[1:]:
            ra, rb = root(bodies[0]), root(b)
            if ra == rb:
                loops += 1
            else:
                parent[ra] = rb
    return loops


def build_plan(system: Any, q: np.ndarray, t: float, Cu: np.ndarray | None, u: np.ndarray, w: np.ndarray) -> tuple:
    """The kernels' plan (u, w, row_ptr, row_cols, col_ptr, col_rows, rows_all, rows_h, lu) for the coordinate
    basis; lu holds the sparse LU factors of C_u when it is constant (Cu given), else empty arrays."""
    m, n, mh = system.m, system.n, system.m_holonomic
    touched = _body_pattern(system, q, t, np.random.default_rng(0))
    pattern = np.repeat(touched, 3, axis=1)  # a touched body with its three columns
    P = csr_matrix(pattern.astype(float))
    Pc = P.tocsc()
    coupled = (P @ P.T).tocsr()
    perm, pos, bw = _ordering(coupled)
    perm_h, pos_h_part, bw_h = _ordering(coupled[:mh, :mh].tocsr())
    pos_h = np.full(m, -1, np.int64)
    pos_h[:mh] = pos_h_part
    if Cu is None:  # a varying C_u: q'_u by the banded Cholesky of C_u C_u^T at each evaluation
        Cu = np.zeros((0, 0))
    lu, piv = sla.lu_factor(Cu) if Cu.size else (Cu, np.zeros(0, np.int64))
    L = np.tril(lu, -1)
    U = np.triu(lu, 1)
    Ls, Us = csr_matrix(L), csr_matrix(U)
    i8 = lambda x: np.ascontiguousarray(np.asarray(x, np.int64))  # noqa: E731
    f8 = lambda x: np.ascontiguousarray(np.asarray(x, float))  # noqa: E731
    lu_data = (i8(piv), i8(Ls.indptr), i8(Ls.indices), f8(Ls.data), i8(Us.indptr), i8(Us.indices), f8(Us.data),
               f8(np.diagonal(lu)))
    return (i8(u), i8(w), i8(P.indptr), i8(P.indices), i8(Pc.indptr), i8(Pc.indices), (perm, pos, bw),
            (perm_h, pos_h, bw_h), lu_data)


def applies(system: Any) -> bool:
    """True for planar systems with constraints and positive masses and inertias (M = diag(Md) > 0) when the
    compiled kernels are available."""
    return (projection_planar.applies(system) and bool(np.all(np.asarray(system.mass_diagonal) > 0.0))
            and kernels() is not None)


@kernel_set
def timed_kernel() -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]] | None:
    """(:func:`k_packed_rhs_timed`, :func:`k_prepare_timed`, :func:`k_packed_output_batch`) compiled (the compiled
    DOP853 step's right-hand side and its preparation, the outputs inside a step), or None without numba."""
    built = kernels()
    if built is None:
        return None
    times = planar_time.kernels()
    if times is None:
        return None
    globals().update(_time_arrays=times[0], _pack_frame=compile_helper(packed_output.pack_frame))
    g = globals()
    g["k_output_rows"], g["k_prepare_output"] = compile_helper(k_output_rows), compile_helper(k_prepare_output)
    return tuple(compile_helper(f) for f in (k_packed_rhs_timed, k_prepare_timed, k_packed_output_batch))


@kernel_set
def output_kernels() -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]] | None:
    """(:func:`k_prepare_output`, :func:`k_output_rows`, :func:`k_state_of`) compiled: the outputs of the
    compiled DOP853 segment (``mechstudio.core.integrate.dop853_kernels.CompiledRHS.outputs``), or None without
    numba."""
    if timed_kernel() is None:
        return None
    return k_prepare_output, k_output_rows, compile_helper(k_state_of)


class SparsePath(packed_planar.CompiledRoute):
    """The sparse fused calls for one planar system and one coordinate basis (see module docstring): with the
    data packed into two arrays when ``mechstudio.core.dynamics.packed_planar`` knows the planar kernels' layout, else
    with the tuples. The compiled step's right-hand side, the segment's outputs and the batched outputs:
    ``packed_planar.CompiledRoute`` with this module's :func:`timed_kernel` and :func:`output_kernels`."""
    timed_kernel = staticmethod(timed_kernel)
    output_kernels = staticmethod(output_kernels)

    def __init__(self, system: Any, plan: tuple):
        self.system, self.plan = system, plan
        self.k_rhs, self.k_output, self.k_packed_rhs, self.k_packed_output = kernels()
        self.geo, self.frc, self.react = system.fused_data()
        self.packed = packed_planar.layout_matches()
        if self.packed:
            self.I, self.F = packed_planar.packed(system, plan)
        self._timed: tuple | None = None  # timed_data

    def timed_data(self) -> tuple[np.ndarray, np.ndarray]:
        """(I, F) for :func:`k_packed_rhs_timed`: the packed data with the compiled time functions appended
        (``mechstudio.core.systems.planar_time``) and, last in I, where they start in I and in F."""
        if self._timed is None:
            TI, TF = self.system.packed_time()
            I = np.concatenate((self.I, TI, np.array([len(self.I), len(self.F)], np.int64)))
            self._timed = (np.ascontiguousarray(I), np.ascontiguousarray(np.concatenate((self.F, TF))))
        return self._timed

    def rhs(self, y: np.ndarray, t: float) -> tuple[int, np.ndarray]:
        if self.packed:
            return self.k_packed_rhs(y, self.I, self.F, *self.system.time_arrays(t))
        return self.k_rhs(y, self.plan, self.geo, self.frc, self.system.time_arrays(t))

    def output(self, y: np.ndarray, correction: bool, t: float) -> tuple:
        if self.packed:
            return self.k_packed_output(y, correction, self.I, self.F, *self.system.time_arrays(t))
        return self.k_output(y, correction, self.plan, self.geo, self.frc, self.system.time_arrays(t), self.react)
