"""Cam and follower (issue 15 item 5) against closed-form kinematics and hand-derived one-degree-of-freedom
force balances.

sample_models/cam_follower.json: an eccentric circular cam (radius R = 0.05 m, centre at e = 0.01 m from the
shaft) turned at omega = 2 pi rad/s, theta = omega t. Its polar profile is r(theta) = e cos(theta) +
sqrt(R^2 - e^2 sin^2(theta)).

* Flat-faced plunger sliding vertically above the shaft: its face height is y = R + e sin(theta) (the support
  function of a circle: the face touches the circle at its top, e sin(theta) above R), so y'' = -e omega^2
  sin(theta). A spring (200 N/m, free length 0.15 m, from (0, 0.25) to the plunger's point 0.1 m above the face)
  is compressed by y; the follower's vertical balance gives the contact force
  N = m (y'' + g) + k y, purely vertical.
* Roller follower (radius rho) sliding horizontally through the shaft: the roller centre stays R + rho from the
  circle's centre e (cos, sin)(theta): x = e cos(theta) + sqrt((R + rho)^2 - e^2 sin^2(theta)). The contact
  force is along the line from the circle's centre to the roller centre, n = (x - e cos(theta), -e sin(theta)) /
  (R + rho); the horizontal balance m x'' = N n_x - k (x - 0.025) gives N; it passes through the roller centre.

Tolerances: positions to 1e-10 m -- the driven mechanism has no degree of freedom, its positions are Newton
solutions to the run's tolerance (measured 1e-13) and the cam's profile table is exact at its nodes and within
~1e-12 of the exact profile between them (cam_profile.py checks 1e-9 of max r at build time; measured 2e-12 m
for r''); contact forces to 1e-8 N (forces ~10 N; they involve r'' of the table: measured differences 1e-10 N).
"""
from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from mechstudio.core.elements.primitives.cam_contact import exact_distance, exact_support
from mechstudio.core.errors import ModelError
from mechstudio.core.model import model_from_data
from mechstudio.core.model.timefunc import time_function
from mechstudio.core.simulate import simulate
from mechstudio.core.types import Status

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_models" / "cam_follower.json"
TIGHT = {"rtol": 1e-11, "atol": 1e-12}
E, R, RHO, K, M, G = 0.01, 0.05, 0.015, 200.0, 0.2, 9.81
W = 2 * math.pi


@pytest.fixture(scope="module")
def run():
    traj = simulate(str(SAMPLE), t_end=1.0, dt=0.02, **TIGHT)
    assert traj.status == Status.FINISHED, traj.message
    return traj


def reaction(traj, name: str) -> np.ndarray:
    return traj.frames.reactions[:, [c.name for c in traj.system.constraints].index(name), :]


def test_flat_faced_follower_lift_and_contact_force(run):
    s, t = run.system, run.frames.t
    th = W * t
    k = 3 * s.index["plunger"]
    face = run.frames.q[:, k + 1] - 0.05  # the face point from the centre of mass (0, 0.05)
    y = R + E * np.sin(th)
    np.testing.assert_allclose(face, y, atol=1e-10)
    f = reaction(run, "flat_cam")
    n_expected = M * (-E * W * W * np.sin(th) + G) + K * y
    np.testing.assert_allclose(f[:, 1], n_expected, atol=1e-8)
    np.testing.assert_allclose(f[:, 0], 0.0, atol=1e-8)
    np.testing.assert_allclose(run.columns()["reaction.flat_cam.contact"], n_expected, atol=1e-8)
    assert np.ptp(y) > 0.019  # a full lift cycle was checked


def test_roller_follower_position_and_contact_force(run):
    s, t = run.system, run.frames.t
    th = W * t
    k = 3 * s.index["roller_arm"]
    x = run.frames.q[:, k] - 0.05  # the roller centre from the centre of mass (0.05, 0)
    x_exact = E * np.cos(th) + np.sqrt((R + RHO) ** 2 - E ** 2 * np.sin(th) ** 2)
    np.testing.assert_allclose(x, x_exact, atol=1e-10)
    tt = sp.Symbol("t")
    xs = E * sp.cos(W * tt) + sp.sqrt((R + RHO) ** 2 - E ** 2 * sp.sin(W * tt) ** 2)
    xdd = sp.lambdify(tt, sp.diff(xs, tt, 2), "numpy")(t)
    n = np.column_stack((x_exact - E * np.cos(th), -E * np.sin(th))) / (R + RHO)
    normal = (M * xdd + K * (x_exact - 0.025)) / n[:, 0]
    f = reaction(run, "roller_cam")
    np.testing.assert_allclose(f[:, 0], normal * n[:, 0], atol=1e-8)
    np.testing.assert_allclose(f[:, 1], normal * n[:, 1], atol=1e-8)
    np.testing.assert_allclose(f[:, 5], 0.0, atol=1e-10)  # through the roller centre
    assert np.all(normal > 0)  # the spring keeps the contact
    np.testing.assert_allclose(run.columns()["reaction.roller_cam.contact"], normal, atol=1e-8)


def test_energy_balance_of_the_driven_cam(run):
    """Energy minus the work of the constraint forces (the motor's) is constant: no spurious work by the cams."""
    drift = (run.frames.kinetic + run.frames.potential) - run.frames.work
    assert np.ptp(drift) < 1e-8


PROFILE = {"type": "expression", "expression": "0.3 + 0.05*cos(t) + 0.02*sin(2*t)"}


@pytest.mark.parametrize("kind", ["support", "distance"])
def test_symbolic_backends_functions_are_the_derivatives_of_their_values(kind):
    """exact_support (h, h', h'') and exact_distance (D, grad D, Hessian) against central differences (step 1e-5:
    truncation ~1e-10 h''', round-off ~1e-16 / 1e-5; tolerance 1e-8)."""
    f = time_function(PROFILE)
    eps = 1e-5
    if kind == "support":
        h, h1, h2 = exact_support(f)
        for p in (0.1, 1.3, 2.9, -2.0):
            assert h1(p) == pytest.approx((h(p + eps) - h(p - eps)) / (2 * eps), abs=1e-8)
            assert h2(p) == pytest.approx((h1(p + eps) - h1(p - eps)) / (2 * eps), abs=1e-8)
            assert h(p) == pytest.approx(max(f.value(x) * math.cos(x - p) for x in np.linspace(0, 2 * math.pi, 20001)),
                                         abs=1e-7)
        return
    dist, grad, hess = exact_distance(f)
    for c in ((0.5, 0.1), (-0.2, 0.45), (0.05, -0.6)):
        for a in range(2):
            e = np.eye(2)[a] * eps
            assert grad[a](*c) == pytest.approx((dist(*(c + e)) - dist(*(c - e))) / (2 * eps), abs=1e-8)
            for b in range(2):
                assert hess[2 * a + b](*c) == pytest.approx((grad[a](*(c + np.eye(2)[b] * eps))
                                                             - grad[a](*(c - np.eye(2)[b] * eps))) / (2 * eps), abs=1e-7)


@pytest.mark.parametrize("expression,follower,message", [
    ("0.01 + 0.05*cos(t)", "roller", "radius must be positive"),
    ("0.05 + 0.02*cos(3*t)", "flat", "convex"),
    ("0.05 + 0.01*abs(sin(t))", "roller", "not smooth enough"),
])
def test_bad_profiles_are_refused_naming_the_json_path(expression, follower, message):
    data = copy.deepcopy(json.loads(SAMPLE.read_text()))
    cam = next(j for j in data["joints"] if j["name"] == ("flat_cam" if follower == "flat" else "roller_cam"))
    cam["profile"] = {"type": "expression", "expression": expression}
    index = data["joints"].index(cam)
    with pytest.raises(ModelError, match=rf"/joints/{index}/profile.*{message}"):
        model_from_data(data)


def test_a_non_convex_cam_is_fine_for_a_roller():
    data = copy.deepcopy(json.loads(SAMPLE.read_text()))
    data["joints"][4]["profile"] = {"type": "expression", "expression": "0.05 + 0.004*cos(3*t)"}
    model_from_data(data)  # no error: a roller follows a (mildly) concave profile


def test_free_cam_conserves_energy():
    """Without the motor the cam turns freely (initial 40 rad/s) against both spring-loaded followers: one degree
    of freedom, no dissipation, so kinetic + potential energy is constant (rtol 1e-11: measured drift ~1e-10 J
    of ~1 J; tolerance 1e-8 J). A wrong gamma or Jacobian of the contact rows would add or remove energy."""
    data = copy.deepcopy(json.loads(SAMPLE.read_text()))
    data["drivers"] = []
    data["initial_velocities"] = [{"body": "cam", "coordinate": "phi", "value": 40.0}]
    traj = simulate(model_from_data(data), t_end=2.0, dt=0.02, **TIGHT)
    assert traj.status == Status.FINISHED, traj.message
    k = 3 * traj.system.index["cam"] + 2
    assert np.ptp(traj.frames.q[:, k]) > 2 * math.pi  # it turns round
    assert np.ptp(traj.frames.total) < 1e-8
