"""The maximal-coordinate tree system (core.systems.tree_maximal) checked against finite differences (issue 4).

M and h are compared with the Lagrange equations formed by central finite differences of the kinetic energy
T(q, q') = q'^T M(q) q' / 2 (h = Q - d(M q')/dq q' + dT/dq, Q = -dV/dq for gravity); Phi_q, xi and gamma with
finite differences of Phi(q, t). Central differences with step 1e-6 have truncation errors ~1e-12 relative and
round-off ~1e-10 relative to the magnitudes involved: 1e-7 is a safe bound (2nd differences: step 1e-4, 1e-6).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mechstudio.core.model.io import load_model
from mechstudio.core.systems.compile import compile_model

SAMPLES = Path(__file__).resolve().parents[1] / "sample_models"


def system(name: str):
    return compile_model(load_model(SAMPLES / f"{name}.json"))


@pytest.mark.parametrize("name", ["spherical_chain_3", "branched_tree"])
def test_mass_matrix_and_forces_are_the_lagrange_equations(name):
    s = system(name)
    rng = np.random.default_rng(4)
    q = rng.normal(size=s.n)  # any q, q' (not even on the constraint manifold): the formulas are exact
    v = rng.normal(size=s.n)
    t = 0.3
    T = lambda qq, vv: 0.5 * vv @ s.mass_matrix(qq, t) @ vv  # noqa: E731
    eps = 1e-6
    dTdq = np.array([(T(q + eps * e, v) - T(q - eps * e, v)) / (2 * eps) for e in np.eye(s.n)])
    dMv = (s.mass_matrix(q + eps * v, t) @ v - s.mass_matrix(q - eps * v, t) @ v) / (2 * eps)
    Q = np.zeros(s.n)
    for k in range(s.nb):
        Q[7 * k:7 * k + 3] = s.mass[k] * s.gravity
    h = Q - dMv + dTdq
    assert np.allclose(s.forces(q, v, t), h, rtol=0, atol=1e-7 * np.abs(h).max())
    # on the manifold the kinetic energy is T = m |r'|^2/2 + w^T J w/2 (the regularising term vanishes)
    q, v = s.consistent_state(0.0)
    assert abs(T(q, v) - s.kinetic_energy(q, v, 0.0)) < 1e-14 * s.kinetic_energy(q, v, 0.0)
    assert np.all(np.linalg.eigvalsh(s.mass_matrix(q, 0.0)) > 0)


@pytest.mark.parametrize("name", ["chain_on_shaking_base", "branched_tree"])
def test_constraint_jacobian_xi_and_gamma(name):
    s = system(name)
    rng = np.random.default_rng(5)
    q = rng.normal(size=s.n)
    v = rng.normal(size=s.n)
    t = 0.37
    eps = 1e-6
    J = np.array([(s.phi(q + eps * e, t) - s.phi(q - eps * e, t)) / (2 * eps) for e in np.eye(s.n)]).T
    C = s.constraint_matrix(q, t)
    assert np.allclose(C, J, atol=1e-7 * np.abs(J).max())
    xi = (s.phi(q, t + eps) - s.phi(q, t - eps)) / (2 * eps)
    assert np.allclose(s.xi(q, t), xi, atol=1e-7)
    # along q(tau) = q + v tau (q'' = 0): d^2 Phi / d tau^2 = -gamma
    h = 1e-4
    d2 = (s.phi(q + h * v, t + h) - 2 * s.phi(q, t) + s.phi(q - h * v, t - h)) / h ** 2
    assert np.allclose(-s.gamma(q, v, t), d2, atol=1e-6 * np.abs(d2).max())
    assert np.allclose(s.eta(q, v, t), -s.gamma(q, v, t))


def test_initial_state_is_assembled_and_consistent():
    s = system("chain_on_shaking_base")
    q, v = s.consistent_state(0.0)
    assert np.abs(s.phi(q, 0.0)).max() < 1e-15
    assert np.abs(s.constraint_matrix(q, 0.0) @ v + s.xi(q, 0.0)).max() < 1e-14
    assert np.allclose(q, s.initial_guess()) and len(s.initial_velocity_specs()) == s.n
    # the joint point of link1 is at the base point O = r0(0) = (0, 0.02 sin 0.5, 0)
    assert np.allclose(s.point_position(q, "link1", (0.02, -0.01, 0.25)), [0, 0.02 * np.sin(0.5), 0], atol=1e-15)
