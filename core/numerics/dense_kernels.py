"""Small dense linear-algebra kernels shared by the compiled paths (projection, its fused paths, Wittenburg).

Plain Python with numpy semantics, so that they also run uncompiled. :func:`compiled` gives their numba versions
(built once per process, shared by every kernel module); a kernel module binds them into its own globals before
it compiles the kernels that call them (numba resolves a called global when it compiles the caller).

For the matrix sizes of mechanisms (n <= ~100) a BLAS or LAPACK call costs about a microsecond of overhead, more
than the arithmetic of a small product or factorization: small products are loops, large ones go to BLAS (np.dot);
LU with partial pivoting (as LAPACK getrf: the same pivots up to round-off) and Cholesky are written out.
"""
from __future__ import annotations

import math

from typing import Any, Callable

import numpy as np

from mechstudio.core.jit import compile_helper, kernel_set

SMALL_PRODUCT_FLOPS = 4096  # below this many multiply-adds a product is a plain loop (a BLAS call costs ~1 us)


def mm(A, B):
    """A @ B: loops for small products, BLAS (np.dot) for large ones."""
    n, m = A.shape
    p = B.shape[1]
    if n * m * p > SMALL_PRODUCT_FLOPS:
        return np.dot(A, B)
    out = np.zeros((n, p))
    for i in range(n):
        for k in range(m):
            a = A[i, k]
            if a != 0.0:
                for j in range(p):
                    out[i, j] += a * B[k, j]
    return out


def mv(A, x):
    """A @ x (vector): loops for small products, BLAS for large ones."""
    n, m = A.shape
    if n * m > SMALL_PRODUCT_FLOPS:
        return np.dot(A, x)
    out = np.zeros(n)
    for i in range(n):
        s = 0.0
        for k in range(m):
            s += A[i, k] * x[k]
        out[i] = s
    return out


def lu_inplace(A, piv):
    """A = P L U in place (partial pivoting); returns min |u_jj| / max |u_jj| (0 when singular)."""
    n = A.shape[0]
    dmin, dmax = np.inf, 0.0
    for j in range(n):
        p = j
        best = abs(A[j, j])
        for i in range(j + 1, n):
            a = abs(A[i, j])
            if a > best:
                best, p = a, i
        piv[j] = p
        if p != j:
            for c in range(n):
                tmp = A[j, c]
                A[j, c] = A[p, c]
                A[p, c] = tmp
        d = A[j, j]
        if best < dmin:
            dmin = best
        if best > dmax:
            dmax = best
        if d == 0.0:
            return 0.0
        for i in range(j + 1, n):
            f = A[i, j] / d
            A[i, j] = f
            if f != 0.0:
                for c in range(j + 1, n):
                    A[i, c] -= f * A[j, c]
    return dmin / dmax if dmax > 0 else 1.0


def lu_solve(LU, piv, B):
    """Solve (P L U) X = B in place for B (n, nrhs)."""
    n, nr = B.shape
    for j in range(n):
        p = piv[j]
        if p != j:
            for c in range(nr):
                tmp = B[j, c]
                B[j, c] = B[p, c]
                B[p, c] = tmp
    for j in range(n):
        for i in range(j + 1, n):
            f = LU[i, j]
            if f != 0.0:
                for c in range(nr):
                    B[i, c] -= f * B[j, c]
    for j in range(n - 1, -1, -1):
        d = LU[j, j]
        for c in range(nr):
            B[j, c] /= d
        for i in range(j):
            f = LU[i, j]
            if f != 0.0:
                for c in range(nr):
                    B[i, c] -= f * B[j, c]


CHOLESKY_LOOP_SIZE = 24  # larger matrices go to LAPACK (its blocked potrf: ~10x faster at k = 240)


def cholesky(R):
    """R = L L^T in place (L in the lower triangle); returns min/max of diag(L), 0 when R is not positive
    definite (a pivot <= 0)."""
    k = R.shape[0]
    dmin, dmax = np.inf, 0.0
    if k > CHOLESKY_LOOP_SIZE:
        try:
            L = np.linalg.cholesky(R)
        except Exception:  # noqa: BLE001 - numba raises LinAlgError: not positive definite
            return 0.0
        for j in range(k):
            for i in range(j, k):
                R[i, j] = L[i, j]
            d = L[j, j]
            dmin, dmax = min(dmin, d), max(dmax, d)
        return dmin / dmax if dmax > 0.0 else 1.0
    for j in range(k):
        s = R[j, j]
        for c in range(j):
            s -= R[j, c] * R[j, c]
        if not s > 0.0:
            return 0.0
        d = math.sqrt(s)
        dmin, dmax = min(dmin, d), max(dmax, d)
        R[j, j] = d
        for i in range(j + 1, k):
            s = R[i, j]
            for c in range(j):
                s -= R[i, c] * R[j, c]
            R[i, j] = s / d
    return dmin / dmax if dmax > 0.0 else 1.0


def cholesky_solve(L, y):
    """Solve L L^T x = y in place for a vector y (L lower triangular, as from :func:`cholesky`)."""
    k = y.shape[0]
    for j in range(k):
        s = y[j]
        for c in range(j):
            s -= L[j, c] * y[c]
        y[j] = s / L[j, j]
    for j in range(k - 1, -1, -1):
        s = y[j]
        for c in range(j + 1, k):
            s -= L[c, j] * y[c]
        y[j] = s / L[j, j]


#: the kernels of this module, by name (see :func:`compiled`)
KERNEL_NAMES = ("mm", "mv", "lu_inplace", "lu_solve", "cholesky", "cholesky_solve")


@kernel_set
def compiled() -> dict[str, Callable[..., Any]] | None:
    """{name: numba-compiled kernel} of :data:`KERNEL_NAMES` (lazily typed, cached on disk), or None without
    numba; built on the first call and shared afterwards."""
    g = globals()
    return {name: compile_helper(g[name]) for name in KERNEL_NAMES}


__all__ = ["CHOLESKY_LOOP_SIZE", "KERNEL_NAMES", "SMALL_PRODUCT_FLOPS", "cholesky", "cholesky_solve", "compiled",
           "lu_inplace", "lu_solve", "mm", "mv"]
