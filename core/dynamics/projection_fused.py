"""The system-independent half of the fused compiled projection paths (speed; the same numbers as the generic path).

A fused path evaluates the whole projection right-hand side, or a whole recorded output frame, in one compiled
call instead of a dozen Python-level calls (each a few microseconds of interpreter and argument-unboxing overhead
around little arithmetic). Two system kinds have one: spatial rolling-disk systems
(``mechstudio.core.dynamics.projection_spatial``) and planar systems (``mechstudio.core.dynamics.projection_planar``). Each supplies
its compiled position terms (C, Phi) and velocity terms (h, eta); the steps of the algorithm are here, written
once:

* :func:`_state`: q' = A^-1 [-xi_r; p] at z = [p; q] with the kept basis (module docstring of
  ``mechstudio.core.dynamics.projection``: B, LU(S), x_xi, s_xi);
* :func:`_rhs`: z' = [p'; q'] and the work integrand P = P_nc + q'^T (M q'' - h), q'' from
  (B^T M B) y = B^T (h - M x_eta);
* :func:`_min_norm_step`: min 1/2 dx^T M dx subject to A dx = rhs (``mechstudio.core.dynamics.correction``: eq. 4.10 with a
  Cholesky factor of A M^-1 A^T for a positive diagonal M, else the KKT system [M A^T; A 0]);
* :func:`_newton_done`, :func:`_project_velocity`: the stopping rule of the Newton-Raphson correction and the
  velocity projection (``mechstudio.core.dynamics.correction.correct``);
* :func:`_recorded`: q'', M q'', ||N||_2 at a corrected state, and :func:`_multipliers`: lambda =
  C_u^-T (M q'' - h)_u (corrected eq. 4.2), or the minimum-norm least-squares lambda when C is rank deficient;
  :func:`_scalars`: the output frame's scalars.

The kept basis travels as one tuple ``basis = (rows, u, w, V2u^T, V2w^T, C_u^-1, C_u constant, V2^T)``
(``ProjectionFormulation.fused_basis``). Mass matrices: a full M (``diag`` False) or the diagonal Md (``diag``
True, M unused). Status codes: 0 ok; 1 C_u degenerate; 2 S degenerate; 3 B^T M B not positive definite (the
generic path then raises the right failure or chooses new dependent coordinates).

Plain Python with numpy semantics: compiled by :func:`helpers` (numba, ``mechstudio.core.jit``), otherwise run as they are.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechstudio.core.numerics import dense_kernels
from mechstudio.core.numerics.dense_kernels import cholesky, cholesky_solve, lu_inplace, lu_solve, mm, mv
from mechstudio.core.dynamics import projection_kernels
from mechstudio.core.dynamics.correction import CHOL_PIVOT_RTOL, KKT_PIVOT_RTOL, LSTSQ_RCOND, POSITION_TOL, VELOCITY_TOL
from mechstudio.core.dynamics.projection_kernels import k_accelerations, k_geometry, k_velocity
from mechstudio.core.jit import compile_helper, kernel_set


def _norm(x):  # noqa: ANN001, ANN201
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return math.sqrt(s)


def _kkt_step(M, A, rhs):  # noqa: ANN001, ANN201
    """min 1/2 dx^T M dx subject to A dx = rhs: the KKT system [M A^T; A 0] [dx; mu] = [0; rhs] (LU with
    partial pivoting; least squares below a pivot ratio of KKT_PIVOT_RTOL or when the solution is not finite,
    as ``mechstudio.core.dynamics.correction._kkt_step``)."""
    n, m = M.shape[0], A.shape[0]
    K = np.zeros((n + m, n + m))
    K[:n, :n] = M
    K[:n, n:] = A.T
    K[n:, :n] = A
    b = np.zeros((n + m, 1))
    b[n:, 0] = rhs
    K0 = K.copy()
    piv = np.zeros(n + m, np.int32)
    if lu_inplace(K, piv) > KKT_PIVOT_RTOL:
        x = b.copy()
        lu_solve(K, piv, x)
        if np.all(np.isfinite(x)):
            return x[:n, 0].copy()
    return np.linalg.lstsq(K0, b[:, 0], rcond=LSTSQ_RCOND)[0][:n].copy()


def _diag_step(Md, A, rhs):  # noqa: ANN001, ANN201
    """(ok, dx) with dx = M^-1 A^T (A M^-1 A^T)^-1 rhs for M = diag(Md) > 0 (eq. 4.10); ok False when
    A M^-1 A^T is numerically singular (a Cholesky pivot below CHOL_PIVOT_RTOL of the largest)."""
    m, n = A.shape
    AM = np.empty((m, n))
    for i in range(m):
        for j in range(n):
            AM[i, j] = A[i, j] / Md[j]
    W = mm(AM, np.ascontiguousarray(A.T))
    if m and not cholesky(W) > CHOL_PIVOT_RTOL:
        return False, np.zeros(n)
    y = rhs.copy()
    cholesky_solve(W, y)
    return True, mv(np.ascontiguousarray(AM.T), y)


def _min_norm_step(M, Md, diag, A, rhs):  # noqa: ANN001, ANN201
    """min 1/2 dx^T M dx subject to A dx = rhs, as ``mechstudio.core.dynamics.correction._Steps.step``."""
    if diag:
        positive = True
        for j in range(Md.shape[0]):
            if not Md[j] > 0.0:
                positive = False
        if positive:
            ok, dx = _diag_step(Md, A, rhs)
            if ok:
                return dx
            w = np.sqrt(1.0 / Md)  # redundant rows: correction._weighted_lstsq_step
            Aw = np.empty(A.shape)
            for i in range(A.shape[0]):
                for j in range(A.shape[1]):
                    Aw[i, j] = A[i, j] * w[j]
            return w * np.linalg.lstsq(Aw, rhs, rcond=CHOL_PIVOT_RTOL)[0]
        return _kkt_step(np.diag(Md), A, rhs)
    return _kkt_step(M, A, rhs)


def _kept_geometry(C, xi, basis):  # noqa: ANN001, ANN201
    """The projection's geometry kernel (B, LU(S), x_xi, ...) for the kept independent rows of C and xi."""
    rows, u, w, V2uT, V2wT, cu_inv, cu_const, V2T = basis
    Cr = np.empty((rows.shape[0], C.shape[1]))
    xir = np.empty(rows.shape[0])
    for i in range(rows.shape[0]):
        Cr[i, :] = C[rows[i], :]
        xir[i] = xi[rows[i]]
    return k_geometry(Cr, xir, u, w, V2uT, V2wT, cu_inv, cu_const)


def _state(y, C, xi, basis):  # noqa: ANN001, ANN201
    """(status, q', B, LU(C_u), its pivots) at z = y = [p; q] whose C(q, t) and xi(q, t) are given."""
    k = basis[2].shape[0]
    status, B, S, S_piv, x_xi, s_xi, cu_lu, cu_piv = _kept_geometry(C, xi, basis)
    if status != 0 or k == 0:
        v = x_xi.copy()
    else:
        v = k_velocity(B, S, S_piv, x_xi, s_xi, np.ascontiguousarray(y[:k]))
    return status, v, B, cu_lu, cu_piv


def _rows_of(x, rows):  # noqa: ANN001, ANN201
    out = np.empty(rows.shape[0])
    for i in range(rows.shape[0]):
        out[i] = x[rows[i]]
    return out


def _rhs(v, B, cu_lu, cu_piv, h, eta, M, Md, diag, power_nc, basis):  # noqa: ANN001, ANN201
    """(status, [p'; q'; P]) from q' and the state's terms (see module docstring)."""
    rows, u, w, V2uT, V2wT, cu_inv, cu_const, V2T = basis
    k = w.shape[0]
    n = v.shape[0]
    out = np.zeros(k + n + 1)
    status, qdd, Mqdd, pd = k_accelerations(B, u, _rows_of(eta, rows), cu_inv, cu_const, cu_lu, cu_piv, h, M, Md,
                                            diag, V2T)
    if status != 0:
        return status, out
    power = power_nc
    for i in range(n):
        power += v[i] * (Mqdd[i] - h[i])
    out[:k] = pd
    out[k:k + n] = v
    out[k + n] = power
    return 0, out


def _recorded(v, C, xi, h, eta, M, Md, diag, basis, want_growth=True):  # noqa: ANN001, ANN201
    """(status, q'', M q'', ||N||_2) at a (corrected) state whose C, xi, h and eta are given; ||N||_2 is NaN
    when not ``want_growth`` (an output the driver asks no basis refresh at: an eigenvalue problem saved)."""
    rows, u, w, V2uT, V2wT, cu_inv, cu_const, V2T = basis
    k = w.shape[0]
    n = v.shape[0]
    status, B, S, S_piv, x_xi, s_xi, cu_lu, cu_piv = _kept_geometry(C, xi, basis)
    growth = 1.0
    if status != 0:
        return status, np.zeros(n), np.zeros(n), growth
    status, qdd, Mqdd, pd = k_accelerations(B, u, _rows_of(eta, rows), cu_inv, cu_const, cu_lu, cu_piv, h, M, Md,
                                            diag, V2T)
    if not want_growth:
        growth = np.nan
    elif k:  # ||N||_2 with N = B S^-1 (ProjectionFormulation.null_space_growth)
        Sinv = np.eye(k)
        lu_solve(S, S_piv, Sinv)
        N = mm(B, Sinv)
        growth = math.sqrt(max(np.linalg.eigvalsh(mm(np.ascontiguousarray(N.T), N))[-1], 0.0))
    return status, qdd, Mqdd, growth


def _multipliers(f, C, basis):  # noqa: ANN001, ANN201
    """(lambda, unique) from C^T lambda = f = M q'' - h: C_u^T lambda = f_u when the kept rows are all of C
    (corrected eq. 4.2), else the minimum-norm least-squares solution (``ProjectionFormulation.reactions``)."""
    rows, u, w, V2uT, V2wT, cu_inv, cu_const, V2T = basis
    m = C.shape[0]
    if m == 0:
        return np.zeros(0), True
    if rows.shape[0] == m and u.shape[0] == m:
        fu = _rows_of(f, u)
        if cu_const:
            return mv(np.ascontiguousarray(cu_inv.T), fu), True
        Cu = np.empty((m, m))
        for i in range(m):
            for j in range(m):
                Cu[i, j] = C[i, u[j]]
        return np.linalg.solve(Cu.T, fu), True
    # numpy's default cut-off (rcond=None in multipliers_from_accelerations): eps * max(m, n)
    return np.linalg.lstsq(np.ascontiguousarray(C.T), f, rcond=2.220446049250313e-16 * max(C.shape))[0], False


def _newton_done(res, new):  # noqa: ANN001, ANN201
    """Stop the Newton-Raphson iteration after a step that made ||Phi|| ``new`` from ``res``: diverged (not
    finite) or converging too slowly (less than halved while above POSITION_TOL), as ``correction.correct``."""
    return not np.isfinite(new) or (new > 0.5 * res and new > POSITION_TOL)


def _project_velocity(M, Md, diag, C, v, xi, correction):  # noqa: ANN001, ANN201
    """(q', ||C q' + xi|| after, changed): the M-orthogonal projection of q' onto C q' + xi = 0 when
    ``correction`` is on and the residual exceeds VELOCITY_TOL (``correction.correct``)."""
    vres = _residual(C, v, xi)
    vafter = _norm(vres)
    if correction and vafter > VELOCITY_TOL:
        v = v + _min_norm_step(M, Md, diag, C, -vres)
        return v, _norm(_residual(C, v, xi)), True
    return v, vafter, False


def _scalars(kinetic, potential, before, res, vbefore, vafter, it, changed, unique, growth):  # noqa: ANN001, ANN201
    """The output kernels' scalars in the order of ``mechstudio.core.dynamics.base.OutputScalar`` (kinetic, potential,
    ||Phi|| before, after, ||C q' + xi|| before, after, Newton iterations, converged, changed, lambda unique,
    ||N||_2); plain indices here, since this is compiled code."""
    scal = np.zeros(11)
    scal[0] = kinetic
    scal[1] = potential
    scal[2] = before
    scal[3] = res
    scal[4] = vbefore
    scal[5] = vafter
    scal[6] = it
    scal[7] = 1.0 if res <= max(POSITION_TOL, 1e-10) else 0.0
    scal[8] = 1.0 if changed else 0.0
    scal[9] = 1.0 if unique else 0.0
    scal[10] = growth
    return scal


def _residual(C, v, xi):  # noqa: ANN001, ANN201
    """C q' + xi."""
    return mv(C, v) + xi


HELPERS = ("_norm", "_kkt_step", "_diag_step", "_min_norm_step", "_kept_geometry", "_state", "_rows_of", "_rhs",
           "_recorded", "_multipliers", "_residual", "_newton_done", "_project_velocity", "_scalars")


@kernel_set
def helpers() -> dict[str, Any] | None:
    """{name: compiled helper} of :data:`HELPERS` for the system-specific fused modules to bind, or None without
    numba. The helpers call the compiled dense kernels (``mechstudio.core.numerics.dense_kernels``) and projection kernels
    (``mechstudio.core.dynamics.projection_kernels``: the same compiled code, every array passed is C-contiguous), bound
    into this module's globals first (numba resolves a called global when it compiles the caller)."""
    compiled = projection_kernels.kernels()
    if compiled is None:
        return None
    g = globals()
    g.update(dense_kernels.compiled())
    g["k_geometry"], g["k_velocity"], g["k_accelerations"] = compiled
    for name in HELPERS:
        g[name] = compile_helper(g[name])
    return {name: g[name] for name in HELPERS}


def bind(module_globals: dict[str, Any]) -> bool:
    """Bind the compiled helpers into a fused module's globals (before it compiles its kernels); False
    without numba."""
    built = helpers()
    if built is None:
        return False
    module_globals.update(built)
    return True
