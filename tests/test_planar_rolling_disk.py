"""Planar rolling disk (issue 15 item 4) against the rolling cylinder's closed forms.

A disk of mass m, radius r and inertia J about its centre rolling without slipping down an incline of angle
alpha (sample_models/planar_rolling_disk_incline.json; J = m r^2 / 2):

    a = g sin(alpha) / (1 + J / (m r^2)),   friction F = m g sin(alpha) J / (J + m r^2) (up the slope),
    normal N = m g cos(alpha),             and the angular acceleration is -a / r (clockwise when rolling right).

On a horizontal line of a cart moving with prescribed acceleration a0 (coordinate drivers), in the cart's frame
the disk feels -m a0: the centre's absolute acceleration is a0 J / (J + m r^2) and the friction force that
drives it is m a0 J / (J + m r^2), normal m g.

Tolerances. The instantaneous checks solve the linear saddle-point system of the projection formulation at a
consistent state in double precision: the results (of size 1 to 10) carry round-off of ~1e-15 times the
condition number, so 1e-10 is a bound far above round-off that a wrong equation (an error in any term of size
r, J or g) would exceed by orders of magnitude. Over 1 s of integration with rtol 1e-11 / atol 1e-12 the
position, a quadratic in t, agrees with 1/2 a t^2 to 1e-9 m (measured 1e-15: DOP853 integrates the quadratic
motion almost exactly; the margin covers other step sequences).
"""
from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from mechstudio.core.dynamics import get_formulation
from mechstudio.core.elements.planar_rolling_disk import contact_forces
from mechstudio.core.model import model_from_data
from mechstudio.core.simulate import simulate
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_models" / "planar_rolling_disk_incline.json"
TIGHT = {"rtol": 1e-11, "atol": 1e-12}
G = 9.81


def incline_data(alpha: float, inertia: float, radius: float = 0.1, mass: float = 1.0) -> dict:
    data = json.loads(SAMPLE.read_text())
    axis = [math.cos(alpha), -math.sin(alpha)]
    disk = data["bodies"][0]
    disk.update(mass=mass, inertia=inertia)
    disk["initial"].update(x=radius * math.sin(alpha), y=radius * math.cos(alpha))
    data["joints"][0].update(axis=axis, radius=radius)
    return data


@pytest.mark.parametrize("alpha,inertia", [(math.pi / 6, 0.005), (0.2, 0.01), (0.7, 0.0)])
def test_incline_accelerations_and_contact_forces_closed_form(alpha, inertia):
    m, r = 1.0, 0.1
    s = compile_model(model_from_data(incline_data(alpha, inertia)))
    q, v = s.initial_guess(), np.zeros(s.n)
    assert np.linalg.norm(s.phi(q, 0.0)) < 1e-15
    acc = get_formulation("projection")(s).reactions(q, v, 0.0)
    a = G * math.sin(alpha) / (1.0 + inertia / (m * r * r))
    down = np.array([math.cos(alpha), -math.sin(alpha)])
    np.testing.assert_allclose(acc.qdd[:2], a * down, atol=1e-10)
    assert acc.qdd[2] == pytest.approx(-a / r, abs=1e-10)
    reaction = s.reactions(q, acc.lam, 0.0)["contact"]
    normal, friction = contact_forces(0.0, (math.cos(alpha), -math.sin(alpha)), reaction)
    assert normal == pytest.approx(m * G * math.cos(alpha), abs=1e-10)
    assert friction == pytest.approx(-m * G * math.sin(alpha) * inertia / (inertia + m * r * r), abs=1e-10)
    assert reaction[5] == pytest.approx(r * friction, abs=1e-12)  # applied at the contact point


def test_sample_rolls_down_the_incline_as_the_closed_form_and_conserves_energy():
    traj = simulate(str(SAMPLE), **TIGHT)
    assert traj.status == Status.FINISHED, traj.message
    a = G * 0.5 / 1.5
    t = traj.frames.t
    travelled = (traj.frames.q[:, 0] - 0.05) / math.cos(math.pi / 6)
    np.testing.assert_allclose(travelled, 0.5 * a * t * t, atol=1e-9)
    np.testing.assert_allclose(traj.frames.q[:, 2], -0.5 * a * t * t / 0.1, atol=1e-8)  # no slip: s = -r phi
    assert np.ptp(traj.frames.total) < 1e-9
    cols = traj.columns()  # the CSV's contact columns
    np.testing.assert_allclose(cols["reaction.contact.normal"], G * math.cos(math.pi / 6), atol=1e-10)
    np.testing.assert_allclose(cols["reaction.contact.friction"], -G * 0.5 * 0.005 / 0.015, atol=1e-10)


def cart_data(a0: float, inertia: float) -> dict:
    """A cart (line along its x axis) driven at x = a0 t^2 / 2 and held level; a disk of 0.1 m on top."""
    data = json.loads(SAMPLE.read_text())
    data["ground"] = {"points": {"O": [0.0, 0.0]}}
    data["bodies"].insert(0, {"name": "cart", "mass": 3.0, "inertia": 0.2, "com": [0.0, 0.0],
                              "points": {"o": [0.0, 0.0]}, "initial": {"x": 0.0, "y": 0.0, "phi": 0.0}})
    disk = data["bodies"][1]
    disk.update(inertia=inertia)
    disk["initial"].update(x=0.3, y=0.1)
    data["joints"] = [{"name": "contact", "type": "planar_rolling_disk", "body1": "cart", "point1": "o",
                       "axis": [1.0, 0.0], "body2": "disk", "point2": "c", "radius": 0.1}]
    data["drivers"] = [
        {"name": "cx", "type": "coordinate", "body": "cart", "coordinate": "x",
         "function": {"type": "polynomial", "coefficients": [0.0, 0.0, a0 / 2]}},
        {"name": "cy", "type": "coordinate", "body": "cart", "coordinate": "y", "function": 0.0},
        {"name": "cphi", "type": "coordinate", "body": "cart", "coordinate": "phi", "function": 0.0}]
    return data


@pytest.mark.parametrize("inertia", [0.005, 0.002])
def test_disk_on_an_accelerating_cart(inertia):
    m, r, a0 = 1.0, 0.1, 2.5
    model = model_from_data(cart_data(a0, inertia))
    s = compile_model(model)
    k = 3 * s.index["disk"]
    a_abs = a0 * inertia / (inertia + m * r * r)
    # instantaneous, at rest at t = 0
    q = s.initial_guess()
    acc = get_formulation("projection")(s).reactions(q, np.zeros(s.n), 0.0)
    assert acc.qdd[k] == pytest.approx(a_abs, abs=1e-10)
    assert acc.qdd[k + 1] == pytest.approx(0.0, abs=1e-10)
    assert acc.qdd[k + 2] == pytest.approx(-(a_abs - a0) / r, abs=1e-10)  # rolls backwards relative to the cart
    normal, friction = contact_forces(0.0, (1.0, 0.0), s.reactions(q, acc.lam, 0.0)["contact"])
    assert normal == pytest.approx(m * G, abs=1e-10)
    assert friction == pytest.approx(m * a_abs, abs=1e-10)
    # integrated: x = x0 + a_abs t^2 / 2; the contact point does not slip on the cart
    traj = simulate(model, t_end=1.0, dt=0.05, **TIGHT)
    assert traj.status == Status.FINISHED, traj.message
    t = traj.frames.t
    np.testing.assert_allclose(traj.frames.q[:, k], 0.3 + 0.5 * a_abs * t * t, atol=1e-9)
    rel = traj.frames.q[:, k] - traj.frames.q[:, 0] - 0.3  # travelled on the cart
    np.testing.assert_allclose(rel, -r * traj.frames.q[:, k + 2], atol=1e-9)


def test_disk_on_a_turning_line_keeps_contact_and_rolls():
    """A line on a body turning back and forth (a harmonic angle driver): along the simulated motion the centre
    stays r from the turning line and the rolled distance on it equals r times the relative rotation (the
    rolling row's invariant from the initial poses), both recomputed here from the body coordinates."""
    data = cart_data(0.0, 0.005)
    data["drivers"] = [
        {"name": "cx", "type": "coordinate", "body": "cart", "coordinate": "x", "function": 0.0},
        {"name": "cy", "type": "coordinate", "body": "cart", "coordinate": "y", "function": 0.0},
        {"name": "cphi", "type": "coordinate", "body": "cart", "coordinate": "phi",
         "function": {"type": "harmonic", "amplitude": 0.3, "frequency": 2.0}}]
    traj = simulate(model_from_data(data), t_end=1.5, dt=0.05, **TIGHT)
    assert traj.status == Status.FINISHED, traj.message
    s = traj.system
    k = 3 * s.index["disk"]
    for q in traj.frames.q:
        ph = q[2]
        v, n = np.array([math.cos(ph), math.sin(ph)]), np.array([-math.sin(ph), math.cos(ph)])
        d = q[k:k + 2] - q[0:2]
        assert n @ d == pytest.approx(0.1, abs=1e-10)
        assert v @ d + 0.1 * (q[k + 2] - ph) == pytest.approx(0.3, abs=1e-10)
    assert np.ptp(traj.frames.q[:, k]) > 0.05  # it really rolls


def test_ground_disk_is_refused_with_its_json_path():
    data = copy.deepcopy(json.loads(SAMPLE.read_text()))
    data["joints"][0].update(body1="disk", point1="c", body2="ground", point2="O")
    with pytest.raises(Exception, match=r"/joints/0/body2.*moving body"):
        model_from_data(data)
