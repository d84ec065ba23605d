"""Compiled kernels of the projection formulation ([001] sections 2-3, in the kept-basis form of
``mechstudio.core.dynamics.projection``): the q-dependent geometry, q' and q''/p' of one evaluation.

The same algorithm as the numpy path of :class:`~core.dynamics.projection.ProjectionFormulation` (its
``_geometry``, ``_velocity`` and ``_solve``), written as three loops-and-BLAS kernels so that an evaluation costs a
handful of Python calls instead of ~50 numpy operations (each ~1 us of interpreter overhead: most of the cost for
n <= 100). The small dense products and factorizations are ``mechstudio.core.numerics.dense_kernels``. The numpy path stays the
fallback (numba missing, or ``ProjectionFormulation(system, kernels="numpy")``) and the tests check that both give
the same numbers (tests/test_performance_equivalence.py). Compiled once and cached on disk (``mechstudio.core.jit``).

The kernels' source is plain Python with numpy semantics (so it also runs uncompiled); :func:`kernels` compiles
it. Status codes: 0 ok; 1 C_u degenerate; 2 S degenerate (a pivot ratio below 1/COND_FAIL); 3 B^T M B not positive
definite.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from mechstudio.core.numerics import dense_kernels
from mechstudio.core.numerics.dense_kernels import cholesky, cholesky_solve, lu_inplace, lu_solve, mm, mv
from mechstudio.core.jit import array_types, compile_kernel, kernel_set

#: an LU pivot ratio (min/max |u_jj|) below 1/COND_FAIL counts as singular (C_u, S of the kept basis)
COND_FAIL = 1e8


@kernel_set
def kernels() -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]] | None:
    """(k_geometry, k_velocity, k_accelerations) compiled by numba, or None without numba (``mechstudio.core.jit``)."""
    f8_1, f8_2, _, i8_1, i4_1, b1 = array_types()
    globals().update(dense_kernels.compiled())  # the kernels below call the compiled dense kernels
    return (compile_kernel(k_geometry, (f8_2, f8_1, i8_1, i8_1, f8_2, f8_2, f8_2, b1)),
            compile_kernel(k_velocity, (f8_2, f8_2, i4_1, f8_1, f8_1, f8_1)),
            compile_kernel(k_accelerations, (f8_2, i8_1, f8_1, f8_2, b1, f8_2, i4_1, f8_1, f8_2, f8_1, b1, f8_2)))


def k_geometry(Cr, xir, u, w, V2uT, V2wT, cu_inv, cu_const):
    """(status, B, LU(S), its pivots, x_xi, s_xi, LU(C_u), its pivots); status 0, or 1 (C_u degenerate),
    2 (S degenerate): a pivot ratio below 1/COND_FAIL."""
    r = u.shape[0]
    k = w.shape[0]
    n = r + k
    B = np.zeros((n, k))
    S = np.empty((k, k))
    S_piv = np.zeros(k, np.int32)
    x_xi = np.zeros(n)
    s_xi = np.zeros(k)
    cu_lu = np.empty((0 if cu_const else r, 0 if cu_const else r))
    cu_piv = np.zeros(0 if cu_const else r, np.int32)
    rhs = np.empty((r, k + 1))
    for i in range(r):
        for j in range(k):
            rhs[i, j] = Cr[i, w[j]]
        rhs[i, k] = xir[i]
    if cu_const:
        sol = mm(cu_inv, rhs)
    else:
        for i in range(r):
            for j in range(r):
                cu_lu[i, j] = Cr[i, u[j]]
        if r and lu_inplace(cu_lu, cu_piv) <= 1.0 / COND_FAIL:
            return 1, B, S, S_piv, x_xi, s_xi, cu_lu, cu_piv
        lu_solve(cu_lu, cu_piv, rhs)
        sol = rhs
    for j in range(k):
        B[w[j], j] = 1.0
    Bu = np.empty((r, k))
    xu = np.empty(r)
    for i in range(r):
        for j in range(k):
            Bu[i, j] = -sol[i, j]
            B[u[i], j] = -sol[i, j]
        xu[i] = -sol[i, k]
        x_xi[u[i]] = -sol[i, k]
    if r:
        S[:, :] = mm(V2uT, Bu) + V2wT
        s_xi[:] = mv(V2uT, xu)
    else:
        S[:, :] = V2wT
        s_xi[:] = 0.0
    if k and lu_inplace(S, S_piv) <= 1.0 / COND_FAIL:
        return 2, B, S, S_piv, x_xi, s_xi, cu_lu, cu_piv
    return 0, B, S, S_piv, x_xi, s_xi, cu_lu, cu_piv


def k_velocity(B, S, S_piv, x_xi, s_xi, p):
    """q' = x_xi + B S^-1 (p - s_xi) (eq. 2.10 of [001] in the kept-basis form)."""
    k = p.shape[0]
    z = np.empty((k, 1))
    for j in range(k):
        z[j, 0] = p[j] - s_xi[j]
    lu_solve(S, S_piv, z)
    return x_xi + mv(B, z.ravel())


def k_accelerations(B, u, eta_r, cu_inv, cu_const, cu_lu, cu_piv, h, M, Md, diag, V2T):
    """(status, q'', M q'', p'); status 0, or 3 when B^T M B is not positive definite."""
    n, k = B.shape
    qdd = np.empty(n)
    Mqdd = np.empty(n)
    pd = np.zeros(k)
    r = u.shape[0]
    x_eta = np.zeros(n)
    if r:
        if cu_const:
            g = mv(cu_inv, eta_r)
        else:
            g2 = np.empty((r, 1))
            g2[:, 0] = eta_r
            lu_solve(cu_lu, cu_piv, g2)
            g = g2[:, 0]
        for i in range(r):
            x_eta[u[i]] = -g[i]
    if diag:
        MB = np.empty((n, k))
        for i in range(n):
            for j in range(k):
                MB[i, j] = Md[i] * B[i, j]
        Mx = Md * x_eta
    else:
        MB = mm(M, B)
        Mx = mv(M, x_eta)
    if k == 0:
        return 0, x_eta, Mx, pd
    BT = np.ascontiguousarray(B.T)
    R = mm(BT, MB)
    y = mv(BT, h - Mx)
    if cholesky(R) == 0.0:  # R = B^T M B = L L^T
        return 3, qdd, Mqdd, pd
    cholesky_solve(R, y)
    qdd = x_eta + mv(B, y)
    Mqdd = Mx + mv(MB, y)
    pd = mv(V2T, qdd)
    return 0, qdd, Mqdd, pd


__all__ = ["COND_FAIL", "k_accelerations", "k_geometry", "k_velocity", "kernels"]
