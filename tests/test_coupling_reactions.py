"""Reported forces of the elements that couple two joints against hand-derived statics and dynamics, and the
pin-in-slot's normal-force column.

* Rack guide, static: a pinion held by a joint-angle driver, a rack pushed along its axis u by p [N] at its guide
  point A. The teeth hold the rack with -p u + tan(alpha) |p| n at the pitch point P = O + r n (n the unit normal
  of u pointing from the pinion to the rack), A = P + h n + s u (h: the guide's point off the pitch line, s: the
  rack's travel). Equilibrium of the rack about A gives the guide's moment
      M_guide = -(n x u) (h p + s tan(alpha) |p|),   n x u = +1 (rack on the right of u) or -1 (left),
  so with h = 0.1 m, p = 5 N, s = 0 the guide carries 0.5 N m (the model reported 0 when the tooth force was
  taken at the guide's point). The pinion's bearing carries -p u + tan(alpha) |p| n: |p| / cos(alpha).
* Rack guide, dynamic: sample_models/rack_and_pinion.json with the guide's point 0.1 m below the pitch line
  (0.05 m below the rack's centre of mass): x = -0.2 + 0.2 cos(w t), tooth force f = m x'' + k (x + 0.2) along
  +x; the rack's moments about its centre of mass give M_guide = 0.05 f - x tan(alpha) |f| and the tooth force's
  moment about the guide's point x tan(alpha) |f| - 0.1 f.
* Gear bearings: two gears on ground revolutes, no gravity, a torque tau on gear 1: theta_1'' = tau / (J_1 +
  (r_1/r_2)^2 J_2), F_t = J_2 |theta_2''| / r_2; each bearing carries the tooth force along the pressure line,
  |F| = F_t / cos(alpha) (alpha = 20 degrees by default), its radial part F_t tan(alpha) along the line of
  centres pushing gear 2 towards gear 1 (external) and gear 1 towards gear 2.
* Belt: two pulleys on ground revolutes, no gravity, an open or crossed belt, a torque on pulley 1: the tight
  span pulls pulley 2 with T = J_2 |theta_2''| / r_2 along the span (the common tangent computed here from the
  pulleys' centres and radii), the slack span with nothing (no pretension); pulley 2's bearing carries -T w.
* Pin in slot: ``reaction.<name>.normal`` is the reported force on the pin along the slot's left normal.

Tolerances: the static cases are solved to round-off (1e-10 N, N m on forces of ~1 to 10); the dynamic ones run
at rtol 1e-11 / atol 1e-12 like tests/test_gears.py (measured errors ~1e-10), so 1e-8 N / N m holds a margin of
100 while a missing radial part (0.36 of the tooth force) or a tooth force at the wrong point (0.1 m x ~1 N)
shows at 0.1 to 1.
"""
from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mechstudio.core.model import model_from_data
from mechstudio.core.simulate import simulate
from mechstudio.core.types import Status

ROOT = Path(__file__).resolve().parents[1]
TIGHT = {"rtol": 1e-11, "atol": 1e-12}
G = 9.81


def planar(name: str, ground: dict[str, Any], bodies: list[dict], joints: list[dict], drivers: tuple = (),
           forces: tuple = (), gravity: tuple[float, float] = (0.0, 0.0)) -> dict[str, Any]:
    return {"format": "mechanism-studio-model", "version": 1, "name": name, "kind": "planar",
            "gravity": list(gravity), "ground": {"points": ground}, "bodies": bodies, "joints": joints,
            "drivers": list(drivers), "forces": list(forces), "simulation": {"t_end": 0.2, "dt": 0.1}}


def disk(name: str, mass: float, inertia: float, at: Any, phi: float = 0.0) -> dict[str, Any]:
    return {"name": name, "mass": mass, "inertia": inertia, "com": [0.0, 0.0], "points": {"c": [0.0, 0.0]},
            "initial": {"x": float(at[0]), "y": float(at[1]), "phi": phi}}


def cols(traj: Any) -> dict[str, np.ndarray]:
    assert traj.status == Status.FINISHED, traj.message
    return traj.columns(points=())


def force(c: dict[str, np.ndarray], name: str) -> np.ndarray:
    return np.stack([c[f"reaction.{name}.Fx"], c[f"reaction.{name}.Fy"]], axis=1)


# ---- rack guide ------------------------------------------------------------------------------------------
def static_rack(axis: tuple[float, float], side: str, h: float, s: float, p: float, alpha: float | None,
                r: float = 0.1) -> dict[str, Any]:
    """The static rack of the module docstring: pinion at O = (0.2, -0.1) held, the rack's guide point A (its
    centre of mass) pushed by p u."""
    u = np.array(axis, float) / np.hypot(*axis)
    eps = -1.0 if side == "left" else 1.0
    n = -eps * np.array([-u[1], u[0]])  # from the pinion towards the rack
    O = np.array([0.2, -0.1])
    A = O + (r + h) * n + s * u
    turn = math.atan2(u[1], u[0])
    mesh = {"name": "mesh", "type": "rack_pinion", "joint1": "axle", "joint2": "guide", "radius": r, "side": side,
            "offset": s}
    if alpha is not None:
        mesh["pressure_angle"] = alpha
    return planar("static_rack", {"O": list(O), "A": list(A)},
                  [disk("pinion", 1.0, 0.01, O), disk("rack", 2.0, 0.05, A, turn)],
                  [{"name": "axle", "type": "revolute", "body1": "ground", "point1": "O", "body2": "pinion",
                    "point2": "c"},
                   {"name": "guide", "type": "prismatic", "body1": "ground", "point1": "A", "body2": "rack",
                    "point2": "c", "axis": list(axis), "angle": turn}, mesh],
                  drivers=({"name": "hold", "type": "joint_angle", "joint": "axle", "function": 0.0},),
                  forces=({"name": "push", "type": "applied_force", "body": "rack", "point": "c",
                           "force": list(p * u)},))


STATIC_RACKS = [  # (axis, side, h, s, p, alpha): the case first (0.5 N m), then other geometry
    ((1.0, 0.0), "right", 0.1, 0.0, 5.0, None),
    ((1.0, 0.0), "right", 0.1, 0.3, 5.0, None),
    ((0.6, 0.8), "left", 0.05, 0.2, -3.0, math.radians(25.0)),
    ((-0.8, 0.6), "right", -0.04, -0.15, 2.0, math.radians(14.5)),
    ((0.0, 1.0), "left", 0.2, 0.0, 1.5, 0.0),
]


@pytest.mark.parametrize("axis,side,h,s,p,alpha", STATIC_RACKS)
def test_static_rack_guide_carries_the_tooth_force_moment(axis, side, h, s, p, alpha):
    c = cols(simulate(model_from_data(static_rack(axis, side, h, s, p, alpha))))
    a = math.radians(20.0) if alpha is None else alpha
    u = np.array(axis, float) / np.hypot(*axis)
    eps = -1.0 if side == "left" else 1.0
    n = -eps * np.array([-u[1], u[0]])
    n_x_u = n[0] * u[1] - n[1] * u[0]
    guide = -n_x_u * (h * p + s * math.tan(a) * abs(p))
    np.testing.assert_allclose(c["reaction.guide.Mz"], guide, atol=1e-10)
    if (axis, h, s, p, alpha) == ((1.0, 0.0), 0.1, 0.0, 5.0, None):
        assert abs(c["reaction.guide.Mz"][-1]) == pytest.approx(0.5, abs=1e-10)  # the static case
    teeth = -p * u + math.tan(a) * abs(p) * n  # on the rack
    np.testing.assert_allclose(force(c, "mesh"), np.tile(teeth, (len(c["t"]), 1)), atol=1e-10)
    np.testing.assert_allclose(force(c, "guide"), np.tile(-teeth - p * u, (len(c["t"]), 1)), atol=1e-10)
    # the pinion's bearing carries the whole tooth force: |p| / cos(alpha)
    np.testing.assert_allclose(force(c, "axle"), np.tile(teeth, (len(c["t"]), 1)), atol=1e-10)
    np.testing.assert_allclose(np.hypot(*force(c, "axle").T), abs(p) / math.cos(a), rtol=1e-12)
    np.testing.assert_allclose(c["reaction.axle.Mz"], 0.0, atol=1e-10)


def test_dynamic_rack_guide_off_the_pitch_line():
    data = json.loads((ROOT / "sample_models" / "rack_and_pinion.json").read_text())
    data["bodies"][1]["points"]["g"] = [0.0, -0.05]  # the guide's point 0.1 m below the pitch line (y = -0.1)
    data["ground"]["points"]["R"] = [0.0, -0.2]
    assert data["joints"][1]["name"] == "slide"
    data["joints"][1]["point2"] = "g"
    k, m_rack, J, r = 40.0, 1.0, 0.05, 0.1
    w = math.sqrt(k / (m_rack + J / r ** 2))
    c = cols(simulate(model_from_data(data), t_end=3.0, dt=0.05, **TIGHT))
    t, x = c["t"], c["q.rack.x"]
    np.testing.assert_allclose(x, -0.2 + 0.2 * np.cos(w * t), atol=1e-8)
    f = (k - m_rack * w ** 2) * 0.2 * np.cos(w * t)  # the tooth force on the rack along +x
    assert np.max(np.abs(f)) > 1.0
    tan20 = math.tan(math.radians(20.0))
    np.testing.assert_allclose(c["reaction.mesh.Fx"], f, atol=1e-8)
    np.testing.assert_allclose(c["reaction.mesh.Fy"], -tan20 * np.abs(f), atol=1e-8)
    np.testing.assert_allclose(c["reaction.mesh.Mz"], x * tan20 * np.abs(f) - 0.1 * f, atol=1e-8)
    np.testing.assert_allclose(c["reaction.slide.Mz"], 0.05 * f - x * tan20 * np.abs(f), atol=1e-8)
    np.testing.assert_allclose(c["reaction.slide.Fy"], tan20 * np.abs(f) + m_rack * G, atol=1e-8)
    np.testing.assert_allclose(c["reaction.slide.Fx"], 0.0, atol=1e-8)
    # the largest error of the former report (tooth force at the guide's point): offset x tooth force
    assert np.max(np.abs(c["reaction.slide.Mz"] - (-0.05 * f))) > 0.09 * np.max(np.abs(f))


# ---- gear bearings ---------------------------------------------------------------------------------------
GEAR_PAIRS = [  # (centre of gear 2 from gear 1's, r1, r2, internal, alpha): alpha None = the default 20 degrees
    ((0.3, 0.0), 0.1, 0.2, False, None),
    ((0.18, 0.24), 0.12, 0.18, False, None),
    ((-0.1, 0.1 * math.sqrt(3.0)), 0.3, 0.1, True, math.radians(25.0)),
    ((0.0, -0.15), 0.05, 0.2, True, None),
]


@pytest.mark.parametrize("line,r1,r2,internal,alpha", GEAR_PAIRS)
def test_gear_bearing_load_is_the_tooth_force_over_cos_alpha(line, r1, r2, internal, alpha):
    J1, J2, tau = 0.02, 0.05, 1.5
    c1, c2 = np.array([0.1, 0.2]), np.array([0.1, 0.2]) + np.array(line)
    mesh = {"name": "mesh", "type": "gear_pair", "joint1": "a1", "joint2": "a2", "radius1": r1, "radius2": r2,
            "internal": internal}
    if alpha is not None:
        mesh["pressure_angle"] = alpha
    data = planar("gears", {"A": list(c1), "B": list(c2)}, [disk("g1", 1.0, J1, c1), disk("g2", 2.0, J2, c2)],
                  [{"name": "a1", "type": "revolute", "body1": "ground", "point1": "A", "body2": "g1",
                    "point2": "c"},
                   {"name": "a2", "type": "revolute", "body1": "g2", "point1": "c", "body2": "ground",
                    "point2": "B"}, mesh],
                  forces=({"name": "drive", "type": "applied_torque", "body": "g1", "torque": tau},))
    c = cols(simulate(model_from_data(data), t_end=1.0, dt=0.1, **TIGHT))
    ratio = r1 / r2
    acc1 = tau / (J1 + ratio ** 2 * J2)
    ft = J2 * ratio * acc1 / r2  # the tangential tooth force
    a = math.radians(20.0) if alpha is None else alpha
    e = np.array(line) / np.hypot(*line)  # from gear 1's centre to gear 2's
    away = e if not internal else -e  # the radial tooth force on gear 2
    for name in ("a1", "a2"):  # each bearing carries the tooth force on its gear, opposite
        np.testing.assert_allclose(np.hypot(*force(c, name).T), ft / math.cos(a), rtol=1e-8)
        np.testing.assert_allclose(c[f"reaction.{name}.Mz"], 0.0, atol=1e-8)
    # a1 is reported on gear 1: its bearing holds it against gear 2's teeth, which push it off along -away;
    # a2's second body is the ground: the force on the ground, i.e. the tooth force on gear 2
    np.testing.assert_allclose(force(c, "a1") @ away, ft * math.tan(a), atol=1e-8)
    np.testing.assert_allclose(force(c, "a2") @ away, ft * math.tan(a), atol=1e-8)
    np.testing.assert_allclose(force(c, "mesh") @ away, ft * math.tan(a), atol=1e-8)
    np.testing.assert_allclose(np.hypot(*force(c, "mesh").T), ft / math.cos(a), rtol=1e-8)


# ---- belt ------------------------------------------------------------------------------------------------
def tangent_spans(c1: np.ndarray, r1: float, c2: np.ndarray, r2: float, crossed: bool) -> list[tuple]:
    """The two straight spans (point on pulley 1, point on pulley 2) of a belt, by brute force: for unit normals
    n at angles around the circle, the lines tangent to both pitch circles (n . (c2 - c1) = r1 -+ r2)."""
    sign = -1.0 if crossed else 1.0
    d = c2 - c1
    out = []
    base = math.atan2(d[1], d[0])
    cos_t = (r1 - sign * r2) / np.hypot(*d)
    for side in (1.0, -1.0):
        ang = base + side * math.acos(cos_t)
        n = np.array([math.cos(ang), math.sin(ang)])
        assert abs(n @ d - (r1 - sign * r2)) < 1e-12
        out.append((c1 + r1 * n, c2 + sign * r2 * n))
    return out


@pytest.mark.parametrize("crossed,r1,r2", [(False, 0.1, 0.06), (False, 0.08, 0.08), (True, 0.05, 0.12)])
def test_belt_pulls_along_its_tight_span(crossed, r1, r2):
    J1, J2, tau = 0.002, 0.004, 0.3
    c1, c2 = np.array([0.0, 0.0]), np.array([0.4, 0.3])
    data = planar("belt", {"A": list(c1), "B": list(c2)}, [disk("p1", 1.0, J1, c1), disk("p2", 1.0, J2, c2)],
                  [{"name": "a1", "type": "revolute", "body1": "ground", "point1": "A", "body2": "p1",
                    "point2": "c"},
                   {"name": "a2", "type": "revolute", "body1": "ground", "point1": "B", "body2": "p2",
                    "point2": "c"},
                   {"name": "belt", "type": "belt_drive", "joint1": "a1", "joint2": "a2", "radius1": r1,
                    "radius2": r2, "crossed": crossed}],
                  forces=({"name": "drive", "type": "applied_torque", "body": "p1", "torque": tau},))
    c = cols(simulate(model_from_data(data), t_end=1.0, dt=0.1, **TIGHT))
    ratio = r1 / r2
    acc1 = tau / (J1 + ratio ** 2 * J2)
    torque2 = J2 * (-ratio if crossed else ratio) * acc1  # the belt's torque on pulley 2
    T = abs(torque2) / r2
    np.testing.assert_allclose(c["reaction.belt.Mz"], torque2, atol=1e-8)
    np.testing.assert_allclose(np.abs(c["reaction.belt.tension"]), T, rtol=1e-8)
    # the tight span: the one whose pull on pulley 2 (from its tangent point towards pulley 1's) turns it with
    # torque2
    pulls = []
    for x1, x2 in tangent_spans(c1, r1, c2, r2, crossed):
        w = (x1 - x2) / np.hypot(*(x1 - x2))
        arm = x2 - c2
        pulls.append((T * w, arm[0] * T * w[1] - arm[1] * T * w[0]))
    pull = next(f for f, m in pulls if math.isclose(m, torque2, rel_tol=1e-9))
    np.testing.assert_allclose(force(c, "belt"), np.tile(pull, (len(c["t"]), 1)), atol=1e-8)
    np.testing.assert_allclose(force(c, "a2"), np.tile(-pull, (len(c["t"]), 1)), atol=1e-8)  # on pulley 2
    np.testing.assert_allclose(force(c, "a1"), np.tile(pull, (len(c["t"]), 1)), atol=1e-8)  # on pulley 1


# ---- pin in slot -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("slot_on_ground", [False, True])
def test_pin_in_slot_normal_force_column(slot_on_ground):
    """A pin of a pendulum in a slot: the ``normal`` column is the reported force on the pin along the slot's
    left normal A_1 perp(axis) / |axis|, and the force has no part along the slot."""
    data = json.loads((ROOT / "sample_models" / "slotted_lever.json").read_text())
    c = cols(simulate(model_from_data(data), t_end=0.5, dt=0.05))
    slot = next(j for j in data["joints"] if j["type"] == "pin_in_slot")
    if slot_on_ground:  # the same slot written with the ground as body1 is not what this sample has: build one
        data = planar("ground_slot", {"O": [0.0, 0.0], "S": [0.1, -0.2]},
                      [{"name": "arm", "mass": 1.0, "inertia": 0.01, "com": [0.1, 0.0],
                        "points": {"o": [0.0, 0.0], "pin": [0.25, 0.0]}, "initial": {"x": 0.0, "y": 0.0,
                                                                                      "phi": -0.6}}],
                      [{"name": "pivot", "type": "revolute", "body1": "ground", "point1": "O", "body2": "arm",
                        "point2": "o"},
                       {"name": "slot", "type": "pin_in_slot", "body1": "ground", "point1": "S", "body2": "arm",
                        "point2": "pin", "axis": [2.0, 1.0]}],
                      forces=({"name": "drive", "type": "applied_torque", "body": "arm",
                               "torque": {"type": "expression", "expression": "3*sin(2*t)"}},),
                      gravity=(0.0, -G))
        data["simulation"] = {"t_end": 0.5, "dt": 0.05}
        c = cols(simulate(model_from_data(data)))
        slot = data["joints"][1]
    name, ax = slot["name"], np.array(slot["axis"], float)
    phi1 = np.zeros(len(c["t"])) if slot["body1"] == "ground" else c[f"q.{slot['body1']}.phi"]
    along = np.stack([np.cos(phi1) * ax[0] - np.sin(phi1) * ax[1],
                      np.sin(phi1) * ax[0] + np.cos(phi1) * ax[1]], axis=1) / np.hypot(*ax)
    normal = np.stack([-along[:, 1], along[:, 0]], axis=1)
    f = force(c, name)
    assert np.max(np.abs(f)) > 0.1
    np.testing.assert_allclose(np.sum(f * along, axis=1), 0.0, atol=1e-9 * np.max(np.abs(f)))
    np.testing.assert_allclose(c[f"reaction.{name}.normal"], np.sum(f * normal, axis=1), atol=1e-12)
    np.testing.assert_allclose(np.abs(c[f"reaction.{name}.normal"]), np.hypot(*f.T), rtol=1e-9)
