"""Sparse O(N) route of the projection formulation's kept SVD-type basis: closed loops, sliders, knife edges.

The projection formulation (``mechstudio.core.dynamics.projection``) keeps an orthonormal null-space basis V2 (n x k)
between refreshes and evaluates, at z = [p; q], with the dependent coordinates u (C_u = C[:, u] square) and the
independent ones w ([001] eqs. 2.10, 3.5 in the errata's kept-basis form):

    B = [B_u; B_w] = [-C_u^-1 C_w; I],   S = V2^T B,   x_xi = [-C_u^-1 xi; 0],   s_xi = V2^T x_xi
    q'  = x_xi + B S^-1 (p - s_xi)                                              (2.10)
    q'' = x_eta + B y,   (B^T M B) y = B^T (h - M x_eta),   x_eta = [-C_u^-1 eta; 0],   p' = V2^T q''
    lambda: C_u^T lambda = (M q'' - h)_u                                         (corrected 4.2)
    ||N||_2 with N = B S^-1                                                      (the basis' growth)

The dense fused path (``projection_planar``) factors C_u (r x r, varying with q on closed loops: angle columns
among u) by a dense LU at every evaluation, O(r^3), and its output frame does five such factorizations (the
correction's W = C M^-1 C^T, two geometries, the multipliers): A02's N-four-bar grew as N^2.1. Here the same
equations run with sparse linear algebra:

* the rows of C are ordered by reverse Cuthill-McKee on their coupling through shared bodies (as
  ``projection_sparse``), the dependent coordinates by the first row that touches them; then C_u is banded, with
  a lower and upper bandwidth kl, ku that do not grow with the number of bodies (kl = 4, ku = 3 for A02 at every
  N), and its LU factors with partial pivoting stay in the band (LAPACK gbtrf's scheme: U gets kl + ku upper
  diagonals): O(r kl (kl + ku)) per factorization, O(r (kl + ku)) per solve;
* B costs k band solves, S and B^T M B O(n k^2), their factors O(k^3): for a few degrees of freedom (A02: k = 1)
  every evaluation is O(N);
* the drift correction ([001] eq. 4.10, ``mechstudio.core.dynamics.correction``) solves with W = C M^-1 C^T and its
  holonomic block by the banded Cholesky of ``projection_sparse`` (M = diag(Md) > 0), the reactions and energies
  loop over the entries;
* C itself is evaluated on its sparsity pattern (``mechstudio.core.dynamics.sparse_terms``): the dense m x n array
  of ``planar_kernels.k_position_terms`` alone would be O(N^2) memory traffic per evaluation.

The basis itself is refreshed without an SVD (:meth:`LoopPath.refresh`, O(n kl (kl + ku)) against the SVD's
O(n^3)): the band LU with partial pivoting of C^T (coordinates as its rows, in the order of the first row of C
touching them; :func:`choose_columns`) picks for each row of C the coordinate with the largest remaining entry,
so u = the pivots and w = the rest, and finds a rank deficiency as a vanishing pivot; B then spans
null(C) exactly, and V2 = the Q factor of B's thin QR is an orthonormal basis of the same space as the SVD's V2
(for k = 1 the same vector up to its sign; for k > 1 a rotation of it: p is rotated, q', q'' and lambda are the
same). C is taken to have full row rank only when power-iteration estimates of sigma_min(C_u), which bounds
sigma_min(C) from below, and of sigma_max(C) have a ratio above RANK_MARGIN (a thousand times the SVD's rank
tolerance, RANK_RTOL): a
redundant constraint (the parallelogram sample), a singular configuration met at a refresh, or an ill-conditioned
choice make :meth:`LoopPath.refresh` return None and the formulation computes the SVD and takes the dense path, as
before. Every kernel returns a status instead of raising: 0 ok; 1 C_u degenerate (a pivot ratio of its band LU at
or below 1/COND_FAIL: the formulation chooses u again at that state and retries, as the dense path does); 2 S
degenerate; 3 B^T M B not positive definite; 4 W singular in the correction (redundant rows): the formulation
redoes that evaluation on the dense path, which raises the right failure or restarts with a fresh basis.

The same numbers as the dense path: tests/test_loop_projection.py checks rhs, q', q'', lambda, reactions,
energies and ||N||_2 against it at random consistent states of A02 (several N) and of the closed-loop and slider
samples to 1e-10, and whole runs (docs/dynamics.md, "Closed loops in O(N)").

Plain Python with numpy semantics: compiled by :func:`kernels` (numba, ``mechstudio.core.jit``), otherwise run as
written (the tests call the plain functions too).
"""
from __future__ import annotations

import copy
import math
import weakref
from typing import Any, Callable

import numpy as np
from scipy.sparse import csr_matrix

from mechstudio.core.dynamics import (packed_output, packed_planar, projection_fused, projection_planar,
                                     projection_sparse, sparse_terms)
from mechstudio.core.dynamics.correction import CHOL_PIVOT_RTOL, MAX_ITER, POSITION_TOL, VELOCITY_TOL
from mechstudio.core.dynamics.packed_planar import iseg, unpack_forces, unpack_geometry, unpack_reactions
from mechstudio.core.dynamics.projection_kernels import COND_FAIL
from mechstudio.core.jit import borrow, compile_helper, kernel_set
from mechstudio.core.kinematics.assembly import RANK_RTOL
from mechstudio.core.numerics import dense_kernels
from mechstudio.core.numerics.dense_kernels import cholesky, cholesky_solve, lu_inplace, lu_solve, mm, mv
from mechstudio.core.systems import planar_kernels, planar_time

#: status codes of the kernels (module docstring)
STATUS_CU_DEGENERATE, STATUS_S_DEGENERATE, STATUS_REDUCED_MASS, STATUS_SINGULAR_W = 1, 2, 3, 4
#: a time function's value is not finite at t (the compiled right-hand side of (t, y, I, F) declines the step)
STATUS_TIME = projection_sparse.STATUS_TIME
#: full row rank is taken only when the estimate of sigma_min(C_u) / sigma_max(C) exceeds this (RANK_RTOL x 1000)
RANK_MARGIN = 1e3 * RANK_RTOL
#: a pivot of the refresh's elimination at or below this times the largest entry of C counts as zero
ELIMINATION_PIVOT_RTOL = 1e-12
#: power iterations of the sigma_min(C_u) estimate (converges to a few percent for the gaps seen: A02, samples)
POWER_ITERATIONS = 12


# --- banded LU with partial pivoting (LAPACK gbtrf's scheme) in row-window storage ------------------------------
# Ab (rows, 2 kl + ku + 1) holds row i's columns i - kl .. i + kl + ku: Ab[i, j - i + kl] = A[i, j]. A row swap at
# step j exchanges the two rows' columns j .. j + kl + ku; the multipliers of step j stay in column j (they are
# applied with the swaps in the same sequence, as gbtrs does).
def band_lu(Ab, kl, ku, ncols, piv):  # noqa: ANN001, ANN201
    """A = P_0 L_0 ... P_(c-1) L_(c-1) U in place for A (rows >= ncols, ncols) banded with kl sub- and ku
    super-diagonals; returns (min, max) of the pivots |u_jj| (min 0 when a pivot is zero: stopped there)."""
    rows = Ab.shape[0]
    up = kl + ku
    dmin, dmax = np.inf, 0.0
    for j in range(ncols):
        last = min(j + kl, rows - 1)
        p = j
        best = abs(Ab[j, kl])
        for i in range(j + 1, last + 1):
            a = abs(Ab[i, j - i + kl])
            if a > best:
                best, p = a, i
        piv[j] = p
        if best == 0.0:
            return 0.0, dmax
        dmin, dmax = min(dmin, best), max(dmax, best)
        end = min(j + up, ncols - 1)
        if p != j:
            for c in range(j, end + 1):
                tmp = Ab[j, c - j + kl]
                Ab[j, c - j + kl] = Ab[p, c - p + kl]
                Ab[p, c - p + kl] = tmp
        d = Ab[j, kl]
        for i in range(j + 1, last + 1):
            f = Ab[i, j - i + kl] / d
            Ab[i, j - i + kl] = f
            if f != 0.0:
                for c in range(j + 1, end + 1):
                    Ab[i, c - i + kl] -= f * Ab[j, c - j + kl]
    return (dmin if ncols else 1.0), (dmax if ncols else 1.0)


def band_lu_solve(Ab, kl, ku, piv, b):  # noqa: ANN001, ANN201
    """Solve A x = b in place (square A, factors of :func:`band_lu`)."""
    r = Ab.shape[0]
    up = kl + ku
    for j in range(r):
        p = piv[j]
        if p != j:
            tmp = b[j]
            b[j] = b[p]
            b[p] = tmp
        bj = b[j]
        if bj != 0.0:
            for i in range(j + 1, min(j + kl, r - 1) + 1):
                b[i] -= Ab[i, j - i + kl] * bj
    for i in range(r - 1, -1, -1):
        acc = b[i]
        for c in range(i + 1, min(i + up, r - 1) + 1):
            acc -= Ab[i, c - i + kl] * b[c]
        b[i] = acc / Ab[i, kl]


def band_lu_solve_t(Ab, kl, ku, piv, b):  # noqa: ANN001, ANN201
    """Solve A^T x = b in place (square A, factors of :func:`band_lu`): U^T forwards, then the L_j^T and the
    swaps backwards."""
    r = Ab.shape[0]
    up = kl + ku
    for i in range(r):
        acc = b[i]
        for c in range(max(i - up, 0), i):
            acc -= Ab[c, i - c + kl] * b[c]
        b[i] = acc / Ab[i, kl]
    for j in range(r - 1, -1, -1):
        acc = b[j]
        for i in range(j + 1, min(j + kl, r - 1) + 1):
            acc -= Ab[i, j - i + kl] * b[i]
        b[j] = acc
        p = piv[j]
        if p != j:
            tmp = b[j]
            b[j] = b[p]
            b[p] = tmp


def norm2(x):  # noqa: ANN001, ANN201
    """The Euclidean norm of a vector (a loop: no BLAS call for the short vectors of a frame)."""
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i] * x[i]
    return math.sqrt(acc)


# --- the dependent coordinates at a refresh ---------------------------------------------------------------------
def choose_columns(q, geo, fval, ch, dense, pivot_rtol):  # noqa: ANN001, ANN201
    """(ok, u (m,), w (n - m,), Cv): the band LU with partial pivoting of C^T (coordinates in the order of the
    first row touching them, rows of C in the banded order; ch = (perm, corder, cpos, [kl, ku] of C^T, row_ptr,
    row_cols)) picks, for each row of C, the coordinate with the largest remaining entry: u, the pivots; w, the
    rest. ok False when a pivot is at or below pivot_rtol times the largest entry of C (dependent rows: a
    redundant constraint or a singular configuration). O(n kl (kl + ku))."""
    perm, corder, cpos, bands, row_ptr, row_cols = ch
    Cv, phi = _position_values(q, geo, fval, row_ptr, row_cols, dense)
    m, n = perm.shape[0], corder.shape[0]
    kl, ku = bands[0], bands[1]
    T = np.zeros((n, 2 * kl + ku + 1))
    big = 0.0
    for s in range(m):
        row = perm[s]
        for a in range(row_ptr[row], row_ptr[row + 1]):
            i = cpos[row_cols[a]]
            T[i, s - i + kl] = Cv[a]
            big = max(big, abs(Cv[a]))
    piv = np.zeros(m, np.int64)
    dmin, dmax = band_lu(T, kl, ku, m, piv)
    who = corder.copy()
    for j in range(m):
        p = piv[j]
        tmp = who[j]
        who[j] = who[p]
        who[p] = tmp
    return dmin > pivot_rtol * big, who[:m].copy(), who[m:].copy(), Cv


# --- the kept-basis steps with the band LU of C_u (plan lp: see LoopStructure.columns_plan) -----------------------
def factor_cu(Cv, lp):  # noqa: ANN001, ANN201
    """(pivot ratio, Ab, piv): the band LU of C_u with rows in the order perm and columns in the order uorder."""
    perm, pos_u, bands, row_ptr, row_cols = lp[0], lp[1], lp[4], lp[5], lp[6]
    kl, ku = bands[0], bands[1]
    r = perm.shape[0]
    Ab = np.zeros((r, 2 * kl + ku + 1))
    for s in range(r):
        row = perm[s]
        for a in range(row_ptr[row], row_ptr[row + 1]):
            j = pos_u[row_cols[a]]
            if j >= 0:
                Ab[s, j - s + kl] = Cv[a]
    piv = np.zeros(r, np.int64)
    dmin, dmax = band_lu(Ab, kl, ku, r, piv)
    return dmin / dmax if dmax > 0.0 else 0.0, Ab, piv


def solve_cu(Ab, piv, lp, b, n):  # noqa: ANN001, ANN201
    """x (n,) with x_u = C_u^-1 b (b indexed by the rows of C) and x_w = 0."""
    perm, uorder, bands = lp[0], lp[2], lp[4]
    r = perm.shape[0]
    y = np.empty(r)
    for s in range(r):
        y[s] = b[perm[s]]
    if r:
        band_lu_solve(Ab, bands[0], bands[1], piv, y)
    x = np.zeros(n)
    for j in range(r):
        x[uorder[j]] = y[j]
    return x


def solve_cu_t(Ab, piv, lp, f, m):  # noqa: ANN001, ANN201
    """lambda (m,) with C_u^T lambda = f_u (f indexed by the coordinates)."""
    perm, uorder, bands = lp[0], lp[2], lp[4]
    r = perm.shape[0]
    y = np.empty(r)
    for j in range(r):
        y[j] = f[uorder[j]]
    if r:
        band_lu_solve_t(Ab, bands[0], bands[1], piv, y)
    lam = np.zeros(m)
    for s in range(r):
        lam[perm[s]] = y[s]
    return lam


def null_basis(Cv, xi, lp, n):  # noqa: ANN001, ANN201
    """(status, B (n, k), x_xi, Ab, piv): B = [-C_u^-1 C_w; I] and x_xi = [-C_u^-1 xi; 0] (module docstring);
    status 1 when the band LU's pivot ratio is at or below 1/COND_FAIL."""
    w, col_ptr, col_rows, col_at = lp[3], lp[7], lp[8], lp[9]
    m = lp[0].shape[0]
    k = w.shape[0]
    B = np.zeros((n, k))
    ratio, Ab, piv = _factor_cu(Cv, lp)
    if not ratio > 1.0 / COND_FAIL:
        return STATUS_CU_DEGENERATE, B, np.zeros(n), Ab, piv
    for j in range(k):
        col = np.zeros(m)
        c = w[j]
        for a in range(col_ptr[c], col_ptr[c + 1]):
            col[col_rows[a]] = -Cv[col_at[a]]
        x = _solve_cu(Ab, piv, lp, col, n)
        for i in range(n):
            B[i, j] = x[i]
        B[c, j] = 1.0
    x_xi = _solve_cu(Ab, piv, lp, -xi, n)
    return 0, B, x_xi, Ab, piv


def loop_geometry(Cv, xi, lp, V2T):  # noqa: ANN001, ANN201
    """(status, B, LU(S), its pivots, x_xi, s_xi, Ab, piv) at a state whose C (on its pattern) and xi are given
    (as ``projection_kernels.k_geometry``, C_u by its band LU); status 1 (C_u) or 2 (S) degenerate."""
    k, n = V2T.shape
    S = np.zeros((k, k))
    S_piv = np.zeros(k, np.int32)
    s_xi = np.zeros(k)
    status, B, x_xi, Ab, piv = _null_basis(Cv, xi, lp, n)
    if status != 0:
        return status, B, S, S_piv, x_xi, s_xi, Ab, piv
    if k:
        S[:, :] = mm(V2T, B)
        s_xi[:] = mv(V2T, x_xi)
        if lu_inplace(S, S_piv) <= 1.0 / COND_FAIL:
            return STATUS_S_DEGENERATE, B, S, S_piv, x_xi, s_xi, Ab, piv
    return 0, B, S, S_piv, x_xi, s_xi, Ab, piv


def loop_velocity(B, S, S_piv, x_xi, s_xi, p):  # noqa: ANN001, ANN201
    """q' = x_xi + B S^-1 (p - s_xi) ([001] eq. 2.10, kept-basis form)."""
    k = p.shape[0]
    if k == 0:
        return x_xi.copy()
    z = np.empty((k, 1))
    for j in range(k):
        z[j, 0] = p[j] - s_xi[j]
    lu_solve(S, S_piv, z)
    return x_xi + mv(B, z[:, 0].copy())


def loop_accelerations(B, Ab, piv, lp, eta, h, Md, V2T):  # noqa: ANN001, ANN201
    """(status, q'', M q'', p') from (B^T M B) y = B^T (h - M x_eta), q'' = x_eta + B y ([001] eq. 3.5 in the
    kept-basis form, M = diag(Md)); status 3 when B^T M B is not positive definite."""
    n, k = B.shape
    x_eta = _solve_cu(Ab, piv, lp, -eta, n)
    Mx = Md * x_eta
    pd = np.zeros(k)
    if k == 0:
        return 0, x_eta, Mx, pd
    MB = np.empty((n, k))
    for i in range(n):
        for j in range(k):
            MB[i, j] = Md[i] * B[i, j]
    BT = np.ascontiguousarray(B.T)
    R = mm(BT, MB)
    y = mv(BT, h - Mx)
    if cholesky(R) == 0.0:
        return STATUS_REDUCED_MASS, x_eta, Mx, pd
    cholesky_solve(R, y)
    qdd = x_eta + mv(B, y)
    Mqdd = Mx + mv(MB, y)
    pd = mv(V2T, qdd)
    return 0, qdd, Mqdd, pd


def loop_growth(B, S, S_piv):  # noqa: ANN001, ANN201
    """||N||_2 with N = B S^-1 (``ProjectionFormulation.null_space_growth``; 1 when k = 0)."""
    k = S.shape[0]
    if k == 0:
        return 1.0
    Sinv = np.eye(k)
    lu_solve(S, S_piv, Sinv)
    N = mm(B, Sinv)
    return math.sqrt(max(np.linalg.eigvalsh(mm(np.ascontiguousarray(N.T), N))[-1], 0.0))


def banded_min_norm_step(Cv, Md, nrows, rhs, plan_rows, lp):  # noqa: ANN001, ANN201
    """(ok, dx): dx = M^-1 C_rows^T W_rows^-1 rhs, the minimum-norm step of eq. 4.10 (M = diag(Md) > 0), with the
    banded Cholesky of W_rows = C_rows M^-1 C_rows^T; ok False when its pivot ratio is at or below
    CHOL_PIVOT_RTOL (redundant rows: the dense path's least-squares step takes over)."""
    row_ptr, row_cols, col_ptr, col_rows, col_at = lp[5], lp[6], lp[7], lp[8], lp[9]
    n = Md.shape[0]
    ok, mu = _cv_gram_solve(Cv, 1.0 / Md, nrows, rhs, plan_rows, col_ptr, col_rows, col_at, CHOL_PIVOT_RTOL)
    return ok, _cv_tmv(Cv, row_ptr, row_cols, nrows, mu, n) / Md


def recorded_state(q, v, Cv, xi, lp, V2T, geo, frc, faccel, load_f, torque, want_growth):  # noqa: ANN001, ANN201
    """(status, q'', M q'', h, lambda, ||N||_2, P_nc) at a state whose C (on its pattern) and xi are given: the
    accelerations, the multipliers from C_u^T lambda = (M q'' - h)_u (corrected eq. 4.2) and the growth (NaN
    unless want_growth)."""
    m = lp[0].shape[0]
    Md = frc[planar_kernels.FORCES_MASS_DIAGONAL]
    h, eta, power_nc = _velocity_terms(q, v, geo, frc, faccel, load_f, torque)
    lam = np.zeros(m)
    status, B, S, S_piv, x_xi, s_xi, Ab, piv = _loop_geometry(Cv, xi, lp, V2T)
    if status != 0:
        return status, v, v, h, lam, 1.0, power_nc
    status, qdd, Mqdd, pd = _loop_accelerations(B, Ab, piv, lp, eta, h, Md, V2T)
    if status != 0:
        return status, qdd, Mqdd, h, lam, 1.0, power_nc
    lam = _solve_cu_t(Ab, piv, lp, Mqdd - h, m)
    growth = _loop_growth(B, S, S_piv) if want_growth else np.nan
    return 0, qdd, Mqdd, h, lam, growth, power_nc


def k_loop_rhs(y, lp, V2T, geo, frc, td):  # noqa: ANN001, ANN201
    """(status, [p'; q'; P]) at z = [p; q]; P = P_nc + q'^T (M q'' - h) (as ``projection_planar.k_rhs``)."""
    fval, faccel, xi, load_f, torque = td
    k = V2T.shape[0]
    n = y.shape[0] - k
    Md = frc[planar_kernels.FORCES_MASS_DIAGONAL]
    out = np.zeros(k + n + 1)
    q = y[k:].copy()
    Cv, phi = _position_values(q, geo, fval, lp[5], lp[6], lp[12][0] != 0)
    status, B, S, S_piv, x_xi, s_xi, Ab, piv = _loop_geometry(Cv, xi, lp, V2T)
    if status != 0:
        return status, out
    v = _loop_velocity(B, S, S_piv, x_xi, s_xi, y[:k].copy())
    h, eta, power = _velocity_terms(q, v, geo, frc, faccel, load_f, torque)
    status, qdd, Mqdd, pd = _loop_accelerations(B, Ab, piv, lp, eta, h, Md, V2T)
    if status != 0:
        return status, out
    for j in range(k):
        out[j] = pd[j]
    for i in range(n):
        out[k + i] = v[i]
        power += v[i] * (Mqdd[i] - h[i])
    out[k + n] = power
    return 0, out


def k_loop_output(y, correction, want_growth, lp, V2T, geo, frc, td, react):  # noqa: ANN001, ANN201
    """One output frame of z = [p; q] (as ``projection_planar.k_output``: the same returns and scalars): unpack,
    the drift correction of ``mechstudio.core.dynamics.correction`` with the banded W, then q'', lambda, reactions,
    energies and ||N||_2 at the corrected state."""
    fval, faccel, xi, load_f, torque = td
    row_ptr, row_cols, rows_all, rows_h, dense = lp[5], lp[6], lp[10], lp[11], lp[12][0] != 0
    mh = geo[planar_kernels.GEO_MH]
    Md = frc[planar_kernels.FORCES_MASS_DIAGONAL]
    k = V2T.shape[0]
    q = y[k:].copy()
    n = q.shape[0]
    m = lp[0].shape[0]
    scal = np.zeros(11)
    R = np.zeros((react[planar_kernels.REACTIONS_ROWS].shape[0], 6))
    Cv, phi = _position_values(q, geo, fval, row_ptr, row_cols, dense)
    status, B, S, S_piv, x_xi, s_xi, Ab, piv = _loop_geometry(Cv, xi, lp, V2T)
    if status != 0:
        return status, q, q, q, R, scal
    v = _loop_velocity(B, S, S_piv, x_xi, s_xi, y[:k].copy())
    before = norm2(phi)
    vres = _cv_mv(Cv, row_ptr, row_cols, m, v) + xi
    vbefore = norm2(vres)
    res, it, changed = before, 0, False
    if correction and res > POSITION_TOL:
        while res > POSITION_TOL and it < MAX_ITER:
            ok, dq = _banded_min_norm_step(Cv, Md, mh, -phi, rows_h, lp)
            if not ok:
                return STATUS_SINGULAR_W, q, v, v, R, scal
            q += dq
            Cv, phi = _position_values(q, geo, fval, row_ptr, row_cols, dense)
            new = norm2(phi)
            it += 1
            changed = True
            stop = _newton_done(res, new)
            res = new
            if stop:
                break
        vres = _cv_mv(Cv, row_ptr, row_cols, m, v) + xi
    vafter = norm2(vres)
    if correction and vafter > VELOCITY_TOL:
        ok, dv = _banded_min_norm_step(Cv, Md, m, -vres, rows_all, lp)
        if not ok:
            return STATUS_SINGULAR_W, q, v, v, R, scal
        v = v + dv
        vafter = norm2(_cv_mv(Cv, row_ptr, row_cols, m, v) + xi)
        changed = True
    status, qdd, Mqdd, h, lam, growth, power_nc = _recorded_state(q, v, Cv, xi, lp, V2T, geo, frc, faccel, load_f,
                                                                   torque, want_growth)
    if status != 0:
        return status, q, v, qdd, R, scal
    R = _cv_reactions(q, Cv, row_ptr, row_cols, lam, react)
    kinetic = 0.0
    for i in range(n):
        kinetic += 0.5 * Md[i] * v[i] * v[i]
    potential = _potential(q, geo, frc)
    scal = _scalars(kinetic, potential, before, res, vbefore, vafter, it, changed, True, growth)
    return 0, q, v, qdd, R, scal


def k_loop_state(q, v, lp, V2T, geo, frc, td):  # noqa: ANN001, ANN201
    """(status, q'', M q'', h, lambda, ||N||_2) at a consistent (q, q') (the formulation's ``accelerations``,
    ``reactions`` and ``null_space_growth``)."""
    fval, faccel, xi, load_f, torque = td
    Cv, phi = _position_values(q, geo, fval, lp[5], lp[6], lp[12][0] != 0)
    status, qdd, Mqdd, h, lam, growth, power_nc = _recorded_state(q, v, Cv, xi, lp, V2T, geo, frc, faccel, load_f,
                                                                   torque, True)
    return status, qdd, Mqdd, h, lam, growth


def k_loop_refresh(Cv, xi, lp, n, iterations):  # noqa: ANN001, ANN201
    """(status, B, estimate of sigma_min(C_u) / sigma_max(C)) at a refresh: B = [-C_u^-1 C_w; I] spans null(C);
    both singular values by power iteration (on (C_u^T C_u)^-1 and on C^T C), the first a lower bound of
    sigma_min(C) (C C^T >= C_u C_u^T) up to the iteration's convergence."""
    m = lp[0].shape[0]
    status, B, x_xi, Ab, piv = _null_basis(Cv, xi, lp, n)
    if status != 0 or m == 0:
        return status, B, 0.0 if status != 0 else 1.0
    bands, row_ptr, row_cols = lp[4], lp[5], lp[6]
    x = np.empty(m)
    for i in range(m):
        x[i] = 1.0 + 0.5 * math.sin(1.7 * i + 0.3)  # a fixed start with components along every direction
    inv_size = 0.0
    for _ in range(iterations):
        nx = norm2(x)
        for i in range(m):
            x[i] /= nx
        band_lu_solve(Ab, bands[0], bands[1], piv, x)  # C_u^-1 in the band's ordering of rows and columns
        band_lu_solve_t(Ab, bands[0], bands[1], piv, x)
        inv_size = norm2(x)  # -> ||(C_u^T C_u)^-1|| = sigma_min(C_u)^-2
    z = np.empty(n)
    for i in range(n):
        z[i] = 1.0 + 0.5 * math.sin(1.3 * i + 0.7)
    size = 0.0
    for _ in range(iterations):
        nz = norm2(z)
        for i in range(n):
            z[i] /= nz
        z = _cv_tmv(Cv, row_ptr, row_cols, m, _cv_mv(Cv, row_ptr, row_cols, m, z), n)
        size = norm2(z)  # -> ||C^T C|| = sigma_max(C)^2
    if not inv_size > 0.0 or not math.isfinite(inv_size) or not size > 0.0:
        return STATUS_CU_DEGENERATE, B, 0.0
    return 0, B, 1.0 / math.sqrt(inv_size * size)


# --- packed data (``mechstudio.core.dynamics.packed_planar``) and its tail ----------------------------------------
# I = [the packed system data and plan (packed_planar.pack); for the compiled DOP853 step the compiled time
# functions (core.systems.planar_time); tail]: the tail's 6 entries are (start of V2^T in F, k, n, start of the
# time functions in I and in F (0 without), first segment of the plan).
TAIL = 6


def unpack_loop_plan(I, F):  # noqa: ANN001, ANN201
    """The plan lp from its segments (:meth:`LoopStructure.columns_plan` order)."""
    L = I.shape[0]
    s = I[L - 1]
    return (iseg(I, s), iseg(I, s + 1), iseg(I, s + 2), iseg(I, s + 3), iseg(I, s + 4), iseg(I, s + 5),
            iseg(I, s + 6), iseg(I, s + 7), iseg(I, s + 8), iseg(I, s + 9),
            (iseg(I, s + 10), iseg(I, s + 11), iseg(I, s + 12)), (iseg(I, s + 13), iseg(I, s + 14), iseg(I, s + 15)),
            iseg(I, s + 16))


def unpack_basis(I, F):  # noqa: ANN001, ANN201
    """V2^T (k, n) from F."""
    L = I.shape[0]
    at, k, n = I[L - TAIL], I[L - TAIL + 1], I[L - TAIL + 2]
    return borrow(F[at:at + k * n].reshape((k, n)))


def k_packed_loop_rhs(y, I, F, fval, faccel, xi, load_f, torque):  # noqa: ANN001, ANN201
    """:func:`k_loop_rhs` with the data packed."""
    return k_loop_rhs(y, unpack_loop_plan(I, F), unpack_basis(I, F), unpack_geometry(I, F), unpack_forces(I, F),
                      (fval, faccel, xi, load_f, torque))


def k_loop_prepare_timed(I, F):  # noqa: ANN001, ANN201
    """The packed data of :func:`k_packed_loop_rhs_timed` unpacked: (I, F, plan, V2^T, geometry, forces); the
    compiled DOP853 step does this once per step (``mechstudio.core.integrate.dop853_kernels``,
    ``CompiledRHS.prepare``)."""
    return I, F, unpack_loop_plan(I, F), unpack_basis(I, F), unpack_geometry(I, F), unpack_forces(I, F)


def k_packed_loop_rhs_timed(t, y, P):  # noqa: ANN001, ANN201
    """:func:`k_loop_rhs` as a function of (t, [y; W], P) for the compiled DOP853 step, P from
    :func:`k_loop_prepare_timed`: the time arrays at t from the compiled time functions
    (``mechstudio.core.systems.planar_time``); STATUS_TIME when one is not finite (the Python path then reports
    it)."""
    I, F, lp, V2T, geo, frc = P
    L = I.shape[0]
    ok, fval, faccel, xi, load_f, torque = _time_arrays(t, I, F, I[L - TAIL + 3], I[L - TAIL + 4])
    if not ok:
        return STATUS_TIME, np.zeros(y.shape[0])
    return k_loop_rhs(y[:-1].copy(), lp, V2T, geo, frc, (fval, faccel, xi, load_f, torque))


def k_packed_loop_output(y, correction, want_growth, I, F, fval, faccel, xi, load_f, torque):  # noqa: ANN001, ANN201
    """:func:`k_loop_output` with the data packed."""
    return k_loop_output(y, correction, want_growth, unpack_loop_plan(I, F), unpack_basis(I, F),
                         unpack_geometry(I, F), unpack_forces(I, F), (fval, faccel, xi, load_f, torque),
                         unpack_reactions(I, F))


def k_packed_loop_output_batch(Z, times, correction, I, F):  # noqa: ANN001, ANN201
    """The output frames of the integrator states Z[j] = [p; q] at times[j] (:func:`k_loop_output` without
    ||N||_2, each packed by ``packed_output.pack_frame``) in one call, the data unpacked once: (status, count,
    frames (len(times), width)); on trouble at row j (a kernel status, e.g. C_u degenerate, or STATUS_TIME) count
    = j and the rows from j on are left to the caller's one-frame path. I, F of :meth:`LoopPath.timed_data`."""
    return k_loop_output_rows(Z, times, correction, True, False, k_loop_prepare_output(I, F))


def k_loop_prepare_output(I, F):  # noqa: ANN001, ANN201
    """The packed data of :func:`k_loop_output_rows` unpacked: (I, F, plan, V2^T, geometry, forces, reactions)."""
    return (I, F, unpack_loop_plan(I, F), unpack_basis(I, F), unpack_geometry(I, F), unpack_forces(I, F),
            unpack_reactions(I, F))


def k_loop_output_rows(Z, times, correction, frame, growth, Q):  # noqa: ANN001, ANN201
    """:func:`k_packed_loop_output_batch` with the data prepared by :func:`k_loop_prepare_output` (the compiled
    outputs of the compiled DOP853 segment, ``mechstudio.core.integrate.dop853_kernels.CompiledRHS.outputs``);
    ``growth``: ||N||_2 computed (a step end); every frame is whole (``frame`` is not used)."""
    I, F, lp, V2T, geo, frc, react = Q
    L = I.shape[0]
    n = Z.shape[1] - V2T.shape[0]
    out = np.empty((times.shape[0], 3 * n + 6 * react[planar_kernels.REACTIONS_ROWS].shape[0]
                    + projection_sparse.N_SCALARS))
    for j in range(times.shape[0]):
        ok, fval, faccel, xi, load_f, torque = _time_arrays(times[j], I, F, I[L - TAIL + 3], I[L - TAIL + 4])
        if not ok:
            return STATUS_TIME, j, out
        status, q, v, qdd, R, scal = k_loop_output(Z[j].copy(), correction, growth, lp, V2T, geo, frc,
                                                   (fval, faccel, xi, load_f, torque), react)
        if status != 0:
            return status, j, out
        out[j, :] = _pack_frame(q, v, qdd, R, scal)
    return 0, times.shape[0], out


def k_loop_state_of(frame, Q):  # noqa: ANN001, ANN201
    """The integrator state [p; q] = [V2^T q'; q] of a packed frame's (corrected) q, q' (the formulation's
    ``pack``)."""
    V2T = Q[3]
    k, n = V2T.shape
    y = np.empty(k + n)
    for j in range(k):
        acc = 0.0
        for i in range(n):
            acc += V2T[j, i] * frame[n + i]
        y[j] = acc
    y[k:] = frame[:n]
    return y


def k_packed_loop_state(q, v, I, F, fval, faccel, xi, load_f, torque):  # noqa: ANN001, ANN201
    """:func:`k_loop_state` with the data packed."""
    return k_loop_state(q, v, unpack_loop_plan(I, F), unpack_basis(I, F), unpack_geometry(I, F),
                        unpack_forces(I, F), (fval, faccel, xi, load_f, torque))


# helpers the kernels call: plain Python here; kernels() binds the compiled versions
_factor_cu, _solve_cu, _solve_cu_t, _null_basis = factor_cu, solve_cu, solve_cu_t, null_basis
_loop_geometry, _loop_velocity, _loop_accelerations, _loop_growth = (loop_geometry, loop_velocity,
                                                                     loop_accelerations, loop_growth)
_banded_min_norm_step, _recorded_state = banded_min_norm_step, recorded_state
_position_values, _cv_mv, _cv_tmv = sparse_terms.position_values, sparse_terms.cv_mv, sparse_terms.cv_tmv
_cv_gram_solve, _cv_reactions = sparse_terms.cv_gram_solve, sparse_terms.cv_reactions
_velocity_terms, _potential = planar_kernels.k_velocity_terms, planar_kernels.k_potential
_scalars: Callable[..., Any] | None = None  # bound with the shared helpers of projection_fused
_newton_done: Callable[..., Any] | None = None

HELPERS = ("band_lu", "band_lu_solve", "band_lu_solve_t", "norm2", "factor_cu", "solve_cu", "solve_cu_t",
           "null_basis", "loop_geometry", "loop_velocity", "loop_accelerations", "loop_growth",
           "banded_min_norm_step", "recorded_state")
PACKED_HELPERS = ("unpack_loop_plan", "unpack_basis")
_time_arrays = planar_time.time_arrays_packed  # the compiled one bound by timed_kernel()
_pack_frame = packed_output.pack_frame  # likewise


@kernel_set
def kernels() -> dict[str, Callable[..., Any]] | None:
    """{name: compiled kernel}: rhs, output, state, refresh, choose and the packed forms; None without numba."""
    global _position_values, _cv_mv, _cv_tmv, _cv_gram_solve, _cv_reactions, _velocity_terms, _potential
    global k_loop_rhs, k_loop_output, k_loop_state  # the packed kernels call the compiled ones
    terms = sparse_terms.compiled()
    if terms is None or not projection_fused.bind(globals()):  # _scalars, _newton_done
        return None
    g = globals()
    g.update(packed_planar.compiled())
    g.update(dense_kernels.compiled())
    _position_values, _cv_mv, _cv_tmv = terms["position_values"], terms["cv_mv"], terms["cv_tmv"]
    _cv_gram_solve, _cv_reactions = terms["cv_gram_solve"], terms["cv_reactions"]
    _velocity_terms = compile_helper(planar_kernels.k_velocity_terms)
    _potential = compile_helper(planar_kernels.k_potential)
    for name in HELPERS + PACKED_HELPERS:
        g[name] = compile_helper(g[name])
        if name in HELPERS:
            g["_" + name] = g[name]
    k_loop_rhs, k_loop_output, k_loop_state = (compile_helper(k_loop_rhs), compile_helper(k_loop_output),
                                               compile_helper(k_loop_state))
    return {"rhs": k_loop_rhs, "output": k_loop_output, "state": k_loop_state,
            "refresh": compile_helper(k_loop_refresh), "choose": compile_helper(choose_columns),
            "packed_rhs": compile_helper(k_packed_loop_rhs), "packed_output": compile_helper(k_packed_loop_output),
            "packed_state": compile_helper(k_packed_loop_state)}


@kernel_set
def timed_kernel() -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]] | None:
    """(:func:`k_packed_loop_rhs_timed`, :func:`k_loop_prepare_timed`, :func:`k_packed_loop_output_batch`) compiled
    (the compiled DOP853 step's right-hand side and its preparation, the outputs inside a step), or None without
    numba."""
    built = kernels()
    times = planar_time.kernels()
    if built is None or times is None:
        return None
    globals().update(_time_arrays=times[0], _pack_frame=compile_helper(packed_output.pack_frame))
    g = globals()
    g["k_loop_output_rows"] = compile_helper(k_loop_output_rows)
    g["k_loop_prepare_output"] = compile_helper(k_loop_prepare_output)
    return tuple(compile_helper(f) for f in (k_packed_loop_rhs_timed, k_loop_prepare_timed, k_packed_loop_output_batch))


@kernel_set
def output_kernels() -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]] | None:
    """(:func:`k_loop_prepare_output`, :func:`k_loop_output_rows`, :func:`k_loop_state_of`) compiled: the outputs
    of the compiled DOP853 segment (``mechstudio.core.integrate.dop853_kernels.CompiledRHS.outputs``), or None
    without numba."""
    if timed_kernel() is None:
        return None
    return k_loop_prepare_output, k_loop_output_rows, compile_helper(k_loop_state_of)


def applies(system: Any) -> bool:
    """True for planar systems with constraints and positive masses and inertias (M = diag(Md) > 0: the banded
    W of the correction needs M^-1) when the compiled kernels are available."""
    return (projection_planar.applies(system) and bool(np.all(np.asarray(system.mass_diagonal) > 0.0))
            and kernels() is not None)


# --- the plan (Python, once per system and per choice of u) ------------------------------------------------------
def _i8(x: Any) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(x, np.int64))


class LoopStructure:
    """What depends only on a system's structure: the pattern of C (a body touched by a row with its three
    columns, ``projection_sparse.build_plan``) by rows and by columns with the map between the two, the reverse
    Cuthill-McKee orderings of the rows of W and of its holonomic block, the first row (in that ordering) touching
    each coordinate, and the band of C^T in these orderings for :func:`choose_columns`."""

    def __init__(self, system: Any, q: np.ndarray, t: float):
        m, n = system.m, system.n
        plan = projection_sparse.build_plan(system, q, t, None, np.zeros(0, np.int64), np.arange(n, dtype=np.int64))
        _, _, row_ptr, row_cols, col_ptr, col_rows, rows_all, rows_h, _ = plan
        self.row_ptr, self.row_cols, self.col_ptr, self.col_rows = (_i8(a) for a in (row_ptr, row_cols, col_ptr,
                                                                                      col_rows))
        self.rows_all, self.rows_h = tuple(_i8(a) for a in rows_all), tuple(_i8(a) for a in rows_h)
        nnz = len(self.row_cols)
        by_cols = csr_matrix((np.arange(1, nnz + 1, dtype=float), self.row_cols, self.row_ptr), shape=(m, n)).tocsc()
        by_cols.sort_indices()
        assert np.array_equal(by_cols.indptr, self.col_ptr) and np.array_equal(by_cols.indices, self.col_rows)
        self.col_at = _i8(by_cols.data.astype(np.int64) - 1)  # the CSR index of every CSC entry
        self.perm = self.rows_all[0]
        self.step = np.empty(m, np.int64)  # the place of each row in the ordering
        self.step[self.perm] = np.arange(m)
        self.entry_step = np.repeat(self.step, np.diff(self.row_ptr))  # the step of every CSR entry
        first = np.full(n, m, np.int64)
        np.minimum.at(first, self.row_cols, self.entry_step)
        self.first = first
        corder = np.lexsort((np.arange(n), first))
        cpos = np.empty(n, np.int64)
        cpos[corder] = np.arange(n)
        i, j = cpos[self.row_cols], self.entry_step
        bands = np.array([max(int((i - j).max()), 0), max(int((j - i).max()), 0)] if nnz else [0, 0], np.int64)
        self.choice = (self.perm, _i8(corder), cpos, bands, self.row_ptr, self.row_cols)
        geo, frc, react = self.system_groups = system.fused_data()
        self.dense = not sparse_terms.sparse_kinds_only(geo)
        self.plans: dict[bytes, tuple] = {}  # columns_plan by u (read-only tuples), filled by LoopPath

    def columns_plan(self, u: np.ndarray) -> tuple:
        """The kernels' plan lp = (perm, pos_u, uorder, w, [kl, ku], row_ptr, row_cols, col_ptr, col_rows, col_at,
        (perm, pos, [bw]) of W, (perm_h, pos_h, [bw_h]) of W_h, [dense terms]) for the dependent coordinates u:
        C_u's columns in the order of the first row touching them, and its band widths in that ordering."""
        n = self.first.shape[0]
        u = np.asarray(u, np.int64)
        uorder = u[np.lexsort((u, self.first[u]))]
        pos_u = np.full(n, -1, np.int64)
        pos_u[uorder] = np.arange(len(uorder))
        w = np.setdiff1d(np.arange(n), u).astype(np.int64)
        j = pos_u[self.row_cols]
        on = j >= 0
        d = self.entry_step[on] - j[on]
        bands = np.array([max(int(d.max()), 0), max(int(-d.min()), 0)] if d.size else [0, 0], np.int64)
        return (self.perm, pos_u, _i8(uorder), w, bands, self.row_ptr, self.row_cols, self.col_ptr, self.col_rows,
                self.col_at, self.rows_all, self.rows_h, np.array([1 if self.dense else 0], np.int64))


def _flatten(lp: tuple) -> tuple:
    return (*lp[:10], *lp[10], *lp[11], lp[12])


class LoopPath(packed_planar.CompiledRoute):
    """The sparse kept-basis calls for one planar system (module docstring). The basis (V2, u) is set by
    :meth:`refresh` or :meth:`use_basis`; the data go to the kernels packed into two arrays when
    ``packed_planar`` knows the planar kernels' layout, else as tuples. The compiled step's right-hand side, the
    segment's outputs and the batched outputs: ``packed_planar.CompiledRoute`` with this module's
    :func:`timed_kernel` and :func:`output_kernels`."""
    timed_kernel = staticmethod(timed_kernel)
    output_kernels = staticmethod(output_kernels)

    def __init__(self, system: Any, structure: LoopStructure):
        self.system, self.structure = system, structure
        self.k = kernels()
        self.geo, self.frc, self.react = structure.system_groups
        self.packed = packed_planar.layout_matches()
        self.lp: tuple | None = None
        self.V2T: np.ndarray | None = None
        # plans by u (a refresh often keeps the same dependent coordinates), shared by the paths of the structure
        self._columns = structure.plans
        self._data: tuple | None = None  # (I, F) packed
        self._timed: tuple | None = None

    # --- the basis ---------------------------------------------------------------------------------------------
    def choose(self, q: np.ndarray, t: float) -> tuple[bool, np.ndarray, np.ndarray]:
        """(ok, u sorted, C on its pattern) at (q, t) by :func:`choose_columns` (not ok: more rows than
        coordinates, a rank deficiency by construction)."""
        if self.system.m > self.system.n:
            return False, np.zeros(0, np.int64), np.zeros(0)
        fval = self.system.time_arrays(t)[0]
        ok, u, w, Cv = self.k["choose"](np.ascontiguousarray(q, dtype=float), self.geo, fval, self.structure.choice,
                                        self.structure.dense, ELIMINATION_PIVOT_RTOL)
        return bool(ok), np.sort(u), Cv

    def set_columns(self, u: np.ndarray) -> None:
        key = np.asarray(u, np.int64).tobytes()
        lp = self._columns.get(key)
        if lp is None:
            lp = self._columns[key] = self.structure.columns_plan(u)
        self.lp = lp
        self._data = self._timed = None

    def refresh(self, q: np.ndarray, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(u, w, V2) of a new basis at (q, t) without an SVD (module docstring), or None when C does not have a
        safely full row rank (then the formulation computes the SVD and takes the dense path)."""
        ok, u, Cv = self.choose(q, t)
        if not ok:
            return None
        self.set_columns(u)
        n = self.system.n
        status, B, ratio = self.k["refresh"](Cv, self.system.time_arrays(t)[2], self.lp, n, POWER_ITERATIONS)
        if status != 0 or not ratio > RANK_MARGIN:
            return None
        V2 = np.linalg.qr(B)[0] if B.shape[1] else np.zeros((n, 0))
        self.use_basis(np.ascontiguousarray(V2.T))
        return u, self.lp[3], V2

    def use_basis(self, V2T: np.ndarray) -> None:
        self.V2T = np.ascontiguousarray(V2T)
        self._data = self._timed = None

    def rechoose(self, q: np.ndarray, t: float) -> bool:
        """New dependent coordinates at (q, t) after C_u degenerated (V2 and p unchanged, as the dense path's
        ``_choose_columns``); False when none are found or they are the same."""
        ok, u, _ = self.choose(q, t)
        if not ok or np.array_equal(np.sort(self.lp[2]), u):
            return False
        self.set_columns(u)
        return True

    # --- packed data -------------------------------------------------------------------------------------------
    def data(self) -> tuple[np.ndarray, np.ndarray]:
        """(I, F): the system data, the plan and V2^T packed (module section "packed data")."""
        if self._data is None:
            flat = _flatten(self.lp)
            I, F = packed_planar.pack(self.geo, self.frc, self.react, flat)
            first_plan = int(I[0]) - len(flat)
            k, n = self.V2T.shape
            tail = np.array([len(F), k, n, 0, 0, first_plan], np.int64)
            self._data = (np.ascontiguousarray(np.concatenate((I, tail))),
                          np.ascontiguousarray(np.concatenate((F, self.V2T.ravel()))))
        return self._data

    def timed_data(self) -> tuple[np.ndarray, np.ndarray]:
        """(I, F) for the compiled DOP853 step: :meth:`data` with the compiled time functions of the system
        (``PlanarSystem.packed_time``) inserted before the tail, which says where they start."""
        if self._timed is None:
            I, F = self.data()
            TI, TF = self.system.packed_time()
            L = len(I)
            tail = I[L - TAIL:].copy()
            tail[3:5] = (L - TAIL, len(F))
            self._timed = (np.ascontiguousarray(np.concatenate((I[:L - TAIL], TI, tail))),
                           np.ascontiguousarray(np.concatenate((F, TF))))
        return self._timed

    # --- evaluations -------------------------------------------------------------------------------------------
    def rhs(self, y: np.ndarray, t: float) -> tuple[int, np.ndarray]:
        if self.packed:
            I, F = self.data()
            return self.k["packed_rhs"](y, I, F, *self.system.time_arrays(t))
        return self.k["rhs"](y, self.lp, self.V2T, self.geo, self.frc, self.system.time_arrays(t))

    def output(self, y: np.ndarray, correction: bool, want_growth: bool, t: float) -> tuple:
        if self.packed:
            I, F = self.data()
            return self.k["packed_output"](y, correction, want_growth, I, F, *self.system.time_arrays(t))
        return self.k["output"](y, correction, want_growth, self.lp, self.V2T, self.geo, self.frc,
                                self.system.time_arrays(t), self.react)

    def state(self, q: np.ndarray, v: np.ndarray, t: float) -> tuple:
        q, v = np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(v, dtype=float)
        if self.packed:
            I, F = self.data()
            return self.k["packed_state"](q, v, I, F, *self.system.time_arrays(t))
        return self.k["state"](q, v, self.lp, self.V2T, self.geo, self.frc, self.system.time_arrays(t))


#: per compiled system (weakly held): its LoopStructure, so that repeated runs (a sweep, the benchmarks) build it once
_STRUCTURES: "weakref.WeakKeyDictionary[Any, LoopStructure]" = weakref.WeakKeyDictionary()


def loop_path(system: Any, q: np.ndarray, t: float) -> LoopPath:
    """A new :class:`LoopPath` of ``system`` (its structure built once per system)."""
    structure = _STRUCTURES.get(system)
    if structure is None:
        structure = _STRUCTURES[system] = LoopStructure(system, q, t)
    return LoopPath(system, structure)


def share_structure(system: Any, donor: Any) -> bool:
    """Let ``system`` use the :class:`LoopStructure` already built for ``donor``, a system of the same structure
    (the same pattern of C and the same element kinds: only numbers differ, as between the runs of a parameter
    sweep; the caller checks that), bound to ``system``'s own element data; False when ``donor`` has none yet."""
    structure = _STRUCTURES.get(donor)
    if structure is None:
        return False
    if system not in _STRUCTURES:
        shared = copy.copy(structure)
        shared.system_groups = system.fused_data()
        _STRUCTURES[system] = shared
    return True


__all__ = ["ELIMINATION_PIVOT_RTOL", "LoopPath", "LoopStructure", "RANK_MARGIN", "applies", "band_lu",
           "band_lu_solve", "band_lu_solve_t", "choose_columns", "kernels", "loop_path", "share_structure"]
