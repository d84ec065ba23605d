"""Lemke's method (core/contact/lcp.py) against the enumeration of all complementary bases and, for symmetric
positive definite matrices, against scipy's non-negative least squares (an independent solver of the same
problem: min 1/2 z^T A z + b^T z, z >= 0, written as min ||L^T z + L^-1 b||, A = L L^T)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import nnls

from mechstudio.core.contact.lcp import solve_lcp

#: complementarity and feasibility of a solution (the tableau's round-off on O(1) data)
TOL = 1e-10


def _check(A: np.ndarray, b: np.ndarray, z: np.ndarray) -> None:
    w = A @ z + b
    assert np.all(z >= -TOL) and np.all(w >= -TOL) and abs(z @ w) <= TOL * (1 + np.abs(z).sum())


def _enumerate(A: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    """Every solution of the LCP by trying every set of positive z's (exponential: for small k)."""
    k = b.size
    out = []
    for r in range(k + 1):
        for S in itertools.combinations(range(k), r):
            z = np.zeros(k)
            if S:
                S = list(S)
                try:
                    z[S] = np.linalg.solve(A[np.ix_(S, S)], -b[S])
                except np.linalg.LinAlgError:
                    continue
            w = A @ z + b
            if np.all(z >= -1e-12) and np.all(w >= -1e-12):
                out.append(z)
    return out


@pytest.mark.parametrize("seed", range(20))
def test_lemke_solves_positive_definite_problems_like_nnls_and_enumeration(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 7))
    L = rng.standard_normal((k, k)) + 0.5 * np.eye(k)
    A = L @ L.T
    b = rng.standard_normal(k)
    res = solve_lcp(A, b)
    assert res.ok, res.message
    _check(A, b, res.z)
    ref, _ = nnls(L.T, -np.linalg.solve(L, b))
    assert np.allclose(res.z, ref, atol=1e-9)
    sols = _enumerate(A, b)
    assert len(sols) == 1 and np.allclose(res.z, sols[0], atol=1e-9)  # unique for positive definite A


@pytest.mark.parametrize("seed", range(20))
def test_lemke_on_nonsymmetric_p_matrices(seed):
    """Diagonally dominant with positive diagonal: a P-matrix (unique solution), as friction makes W."""
    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(1, 6))
    A = rng.standard_normal((k, k))
    A += np.diag(np.abs(A).sum(axis=1) + 0.1)
    b = rng.standard_normal(k)
    res = solve_lcp(A, b)
    assert res.ok
    _check(A, b, res.z)
    sols = _enumerate(A, b)
    assert len(sols) == 1 and np.allclose(res.z, sols[0], atol=1e-9)


def test_lemke_on_a_singular_psd_matrix_two_identical_contacts():
    """Two identical rows (a block landing flat on two corners of one edge has independent rows; two copies of
    one row make W singular): a solution exists and is found."""
    g = np.array([[1.0, 0.5]])
    W = np.vstack((g, g)) @ np.vstack((g, g)).T
    b = np.array([-1.0, -1.0])
    res = solve_lcp(W, b)
    assert res.ok
    _check(W, b, res.z)


def test_trivial_and_unsolvable_problems():
    assert solve_lcp(np.zeros((0, 0)), np.zeros(0)).ok
    res = solve_lcp(np.eye(2), np.array([1.0, 2.0]))
    assert res.ok and np.all(res.z == 0)
    res = solve_lcp(np.array([[-1.0]]), np.array([-1.0]))  # w = -z - 1 >= 0 with z >= 0 is impossible
    assert not res.ok and "secondary ray" in res.message
