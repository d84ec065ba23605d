"""The contact rows (core/contact/geometry.py) against central finite differences and the material points'
velocities: the gap's gradient Gn, its quadratic term bn (g'' at zero accelerations, the second derivative of g
along q + s q'), the stick row's gradient and quadratic term, and the slip velocity's gradient Gt against
tau . (v_A(Q) - v_B(Q)) computed from the two bodies' velocity fields."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mechstudio.core.contact.geometry import (BodyState, PointLine, PointPoint, ShapeError, convex_ccw,
                                              nearest_row, shape_from_geometry)

#: central differences of O(1) functions with step 1e-6: truncation ~1e-12, round-off ~1e-10
H = 1e-6
TOL = 1e-7


def _states(x: np.ndarray) -> tuple[BodyState, BodyState]:
    """Bodies A and B from x = (qA (3), qB (3), vA (3), vB (3))."""
    return (BodyState(x[0:2], float(x[2]), x[6:8], float(x[8])), BodyState(x[3:5], float(x[5]), x[9:11],
                                                                           float(x[11])))


def _rows():
    yield PointLine((0.1, -0.2), 0.15, (0.3, 0.1), (0.6, 0.8), 0.05)
    yield PointLine((0.0, 0.0), 0.0, (-0.2, 0.4), (0.0, 1.0))
    yield PointPoint((0.1, 0.2), 0.2, (-0.1, 0.05), 0.1)
    yield PointPoint((0.3, 0.0), 0.0, (0.0, 0.0), 0.25)


@pytest.mark.parametrize("row", list(_rows()))
@pytest.mark.parametrize("seed", range(3))
def test_rows_against_finite_differences(row, seed):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(6)
    q[0:2] += np.array([1.5, 1.0])  # A away from B (the point-point rows need |d| > 0)
    v = rng.standard_normal(6)
    A, B = _states(np.concatenate((q, v)))
    rv = row.values(A, B)

    def at(qq: np.ndarray) -> tuple[float, float]:
        r = row.values(*_states(np.concatenate((qq, v))))
        return r.gap, r.stick

    grad_n, grad_s = np.zeros(6), np.zeros(6)
    for i in range(6):
        e = np.zeros(6)
        e[i] = H
        (gp, sp), (gm, sm) = at(q + e), at(q - e)
        grad_n[i], grad_s[i] = (gp - gm) / (2 * H), (sp - sm) / (2 * H)
    assert np.allclose(np.concatenate((rv.gn_a, rv.gn_b)), grad_n, atol=TOL)
    assert np.allclose(np.concatenate((rv.gs_a, rv.gs_b)), grad_s, atol=TOL)
    h2 = 1e-4  # second differences: truncation ~h^2, round-off ~eps/h^2 ~1e-8
    (gp, sp), (g0, s0), (gm, sm) = at(q + h2 * v), at(q), at(q - h2 * v)
    assert rv.bn == pytest.approx((gp - 2 * g0 + gm) / h2 ** 2, abs=1e-5)
    assert rv.bs == pytest.approx((sp - 2 * s0 + sm) / h2 ** 2, abs=1e-5)
    # the slip velocity from the bodies' velocity fields at the contact point Q
    n = rv.normal
    tau = np.array([n[1], -n[0]])

    def vel(S: BodyState) -> np.ndarray:
        return S.v + S.omega * np.array([-(rv.point[1] - S.r[1]), rv.point[0] - S.r[0]])
    assert float(np.concatenate((rv.gt_a, rv.gt_b)) @ v) == pytest.approx(float(tau @ (vel(A) - vel(B))), abs=1e-12)


def test_point_line_stick_row_rate_is_the_slip_velocity():
    """Rolling row (point-line): its rate equals the slip velocity when the disk touches the line."""
    row = PointLine((0.0, 0.0), 0.2, (0.0, 0.0), (0.0, 1.0))
    A = BodyState(np.array([0.3, 0.2]), 0.4, np.array([0.7, 0.0]), -1.3)  # touching: centre 0.2 above the line
    B = BodyState(np.zeros(2), 0.0, np.zeros(2), 0.0)
    rv = row.values(A, B)
    assert rv.gap == pytest.approx(0.0, abs=1e-15)
    x = np.array([0.3, 0.2, 0.4, 0.0, 0.0, 0.0, 0.7, 0.0, -1.3, 0.0, 0.0, 0.0])
    assert float(np.concatenate((rv.gs_a, rv.gs_b)) @ x[6:]) == pytest.approx(0.7 + 0.2 * -1.3, abs=1e-15)
    assert float(np.concatenate((rv.gt_a, rv.gt_b)) @ x[6:]) == pytest.approx(0.7 + 0.2 * -1.3, abs=1e-15)


def test_nearest_feature_of_a_box_and_a_capsule():
    box = shape_from_geometry({"type": "box", "center": [0.0, -0.1], "size": [2.0, 0.2]}, {}, [0.0, 0.0])
    ground = BodyState(np.zeros(2), 0.0, np.zeros(2), 0.0)

    def gap(c, rho=0.1, shape=box):
        A = BodyState(np.asarray(c, float), 0.0, np.zeros(2), 0.0)
        return nearest_row(np.asarray(c, float), rho, (0.0, 0.0), A, shape, ground)
    g, row = gap([0.3, 0.5])  # above the top face
    assert g == pytest.approx(0.4) and isinstance(row, PointLine)
    g, row = gap([1.3, 0.4])  # beyond the corner (1, 0): the vertex
    assert g == pytest.approx(0.5 - 0.1) and isinstance(row, PointPoint)
    g, _ = gap([0.5, -0.05])  # inside: the nearest face, negative
    assert g == pytest.approx(-0.05 - 0.1)
    g, _ = gap([0.0, -3.0])  # below: the bottom face (not the top one)
    assert g == pytest.approx(2.8 - 0.1)
    bar = shape_from_geometry({"type": "bar", "from": "a", "to": [1.0, 0.0], "width": 0.1}, {"a": [0.0, 0.0]},
                              [0.0, 0.0])
    assert bar.kind == "capsule" and bar.radius == pytest.approx(0.05)
    assert gap([0.5, -0.4], 0.1, bar)[0] == pytest.approx(0.4 - 0.15)  # the two-sided segment, from below
    assert gap([-0.3, 0.4], 0.1, bar)[0] == pytest.approx(0.5 - 0.15)  # its round end


def test_shapes_that_cannot_touch_are_refused_with_a_reason():
    with pytest.raises(ShapeError, match="not convex"):
        convex_ccw([(0, 0), (2, 0), (1, 0.2), (2, 1), (0, 1)])
    with pytest.raises(ShapeError, match="cannot touch"):
        shape_from_geometry({"type": "sphere", "radius": 1.0}, {}, [0.0, 0.0])
    clockwise = convex_ccw([(0, 0), (0, 1), (1, 1), (1, 0)])
    area2 = sum(clockwise[i][0] * clockwise[(i + 1) % 4][1] - clockwise[(i + 1) % 4][0] * clockwise[i][1]
                for i in range(4))
    assert area2 > 0 and math.isclose(abs(area2), 2.0)
