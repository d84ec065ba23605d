"""The linear complementarity problem (LCP) of impacts and of contact forces: find z such that

    w = A z + b,   w >= 0,   z >= 0,   w^T z = 0                                                (1)

solved by Lemke's complementary pivoting with the covering vector e = (1, ..., 1) (Cottle, Pang and Stone, *The
Linear Complementarity Problem*, 1992, section 4.4, Lemke's method; Murty, *Linear Complementarity, Linear and
Nonlinear Programming*, 1988, chapter 2; docs/contact.md lists the sources). Lemke's method solves (1) when A
is copositive-plus (every positive semi-definite A, the Delassus matrices of frictionless impacts and of resting
contacts) and it terminates for every A: on a secondary ray it reports that it found no solution (possible with friction: Painleve's paradox).

Why our own: no well-kept Python package offers an LCP solver (Siconos, the reference, is a large C++ library
with its own build; MuJoCo and Chrono solve their own contact models internally); the problems here are small
(the contacts closed at one instant, rarely more than a handful), so a dense tableau is the right tool.
tests/test_contact_lcp.py checks the solver against the enumeration of all 2^k complementary bases and, for
symmetric positive definite A, against scipy's non-negative least squares (the same solution, written as
min 1/2 z^T A z + b^T z, z >= 0).

Degeneracy (ties in the ratio test) is broken lexicographically in the order of the rows (Bland-like ``argmin``
over the smallest ratio, then the smallest index), and the pivots are limited to MAX_PIVOTS: a run that reaches it
reports failure instead of cycling.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mechstudio.core.types import FloatArray

#: pivots allowed before Lemke's method gives up (a generous multiple of the 2^k bases' count for small k)
MAX_PIVOTS = 500
#: a pivot column entry below this (relative to the column's largest) does not block the ratio test
PIVOT_TOL = 1e-12


@dataclass(frozen=True)
class LCPResult:
    """z and w of (1); ``ok`` False (with ``message``) when no solution was found."""
    z: FloatArray
    w: FloatArray
    ok: bool
    message: str = ""
    pivots: int = 0


def solve_lcp(A: FloatArray, b: FloatArray) -> LCPResult:
    """Lemke's method for (1) (module docstring). ``A`` (k, k), ``b`` (k,)."""
    A = np.asarray(A, float)
    b = np.asarray(b, float)
    k = b.size
    if k == 0:
        return LCPResult(np.zeros(0), np.zeros(0), True)
    if np.all(b >= 0.0):
        return LCPResult(np.zeros(k), b.copy(), True)
    # tableau of  I w - A z - e z0 = b ; basis starts as w
    T = np.hstack((np.eye(k), -A, -np.ones((k, 1)), b.reshape(-1, 1)))
    basis = list(range(k))  # variable index of each row: 0..k-1 the w's, k..2k-1 the z's, 2k the artificial z0
    z0 = 2 * k
    row = int(np.argmin(b))  # z0 enters, the most negative b leaves
    entering = z0
    pivots = 0
    while True:
        _pivot(T, row, entering)
        leaving = basis[row]
        basis[row] = entering
        pivots += 1
        if leaving == z0:
            break
        entering = leaving + k if leaving < k else leaving - k  # the complement of the leaving variable
        col = T[:, entering]
        scale = max(float(np.max(np.abs(col))), 1e-300)
        ok = col > PIVOT_TOL * scale
        if not np.any(ok):
            return _result(T, basis, k, False, "Lemke's method ended on a secondary ray: no solution found", pivots)
        ratios = np.full(k, np.inf)
        ratios[ok] = T[ok, -1] / col[ok]
        best = float(np.min(ratios))
        ties = np.flatnonzero(ratios <= best + 1e-12 * max(1.0, abs(best)))
        row = int(next((r for r in ties if basis[r] == z0), ties[0]))  # z0 leaves when it can: the end
        if pivots >= MAX_PIVOTS:
            return _result(T, basis, k, False, f"Lemke's method did not end within {MAX_PIVOTS} pivots", pivots)
    return _result(T, basis, k, True, "", pivots)


def _pivot(T: FloatArray, row: int, col: int) -> None:
    T[row] /= T[row, col]
    others = np.arange(T.shape[0]) != row
    T[others] -= np.outer(T[others, col], T[row])


def _result(T: FloatArray, basis: list[int], k: int, ok: bool, message: str, pivots: int) -> LCPResult:
    values = np.zeros(2 * k + 1)
    for r, var in enumerate(basis):
        values[var] = T[r, -1]
    w, z = values[:k], values[k:2 * k]
    return LCPResult(np.maximum(z, 0.0), np.maximum(w, 0.0), ok, message, pivots)


__all__ = ["LCPResult", "MAX_PIVOTS", "solve_lcp"]
