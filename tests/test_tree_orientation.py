"""The four orientation parametrizations: matrices (66), (68) and kinematic equations (65), (67) (issue 4).

Independent check: A' computed by central finite differences of the parameters' matrix along the kinematic
equations must equal A omega_b~ (the definition of the body-frame angular velocity). Step 1e-6 gives a
truncation error ~1e-12 and a round-off error ~1e-10, so 1e-8 is a safe bound.
"""
from __future__ import annotations

import numpy as np
import pytest

from mechstudio.core.numerics.orientation import (PARAMETRIZATIONS, get_parametrization, matrix_to_quat, orthonormalize,
                                   quat_from_rotation_vector, quat_to_matrix, skew)


def random_rotations(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return quat_to_matrix(rng.normal(size=(n, 4)))


@pytest.mark.parametrize("name", list(PARAMETRIZATIONS))
def test_round_trip_and_kinematic_equations(name):
    par = get_parametrization(name)
    A = random_rotations(20, 1)
    a = par.from_matrix(A)
    assert np.allclose(par.to_matrix(a), A, atol=1e-13)
    rng = np.random.default_rng(2)
    wb = rng.normal(size=(20, 3))
    ad = par.rates(a, wb)
    h = 1e-6
    Ad = (par.to_matrix(a + h * ad) - par.to_matrix(a - h * ad)) / (2 * h)
    assert np.allclose(Ad, A @ skew(wb), atol=1e-8)


def test_the_angle_sets_follow_the_source():
    # (66): A = R1(a1) R2(a2) R3(a3); corrected legend c1 = cos a1, c2 = cos a2 (README errata)
    a = np.array([[0.3, -0.7, 1.1]])
    R1 = lambda x: np.array([[1, 0, 0], [0, np.cos(x), -np.sin(x)], [0, np.sin(x), np.cos(x)]])  # noqa: E731
    R2 = lambda x: np.array([[np.cos(x), 0, np.sin(x)], [0, 1, 0], [-np.sin(x), 0, np.cos(x)]])  # noqa: E731
    R3 = lambda x: np.array([[np.cos(x), -np.sin(x), 0], [np.sin(x), np.cos(x), 0], [0, 0, 1]])  # noqa: E731
    assert np.allclose(get_parametrization("bryant").to_matrix(a)[0], R1(0.3) @ R2(-0.7) @ R3(1.1))
    assert np.allclose(get_parametrization("euler313").to_matrix(a)[0], R3(0.3) @ R1(-0.7) @ R3(1.1))
    assert get_parametrization("bryant").measure(np.array([[0.0, np.pi / 2, 0.0]]))[0] < 1e-15
    assert get_parametrization("euler313").measure(np.array([[0.2, 0.0, 0.3]]))[0] == 0.0


def test_quaternion_conversions():
    r = np.array([0.4, 0.1, 0.0])
    p = quat_from_rotation_vector(r)
    ang = np.linalg.norm(r)
    u = r / ang
    K = skew(u[None])[0]
    A = np.eye(3) + np.sin(ang) * K + (1 - np.cos(ang)) * K @ K  # Rodrigues
    assert np.allclose(quat_to_matrix(p)[0], A, atol=1e-15)
    assert np.allclose(matrix_to_quat(A[None])[0], p[0], atol=1e-15)
    # re-orthonormalisation of a slightly drifted matrix lands on the rotation
    D = A + 1e-7 * np.random.default_rng(3).normal(size=(3, 3))
    R = orthonormalize(D[None])[0]
    assert np.allclose(R.T @ R, np.eye(3), atol=1e-15)
