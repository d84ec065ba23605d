"""Gear pair and rack and pinion (issue 15 items 2 and 3), checked against hand-derived one-DOF models.

* Gear train (sample_models/gear_train.json): pinion (r1 = 0.1 m), idler (r2 = 0.15 m), unbalanced wheel
  (r3 = 0.2 m, mass centre e = 0.1 m off its axle), external meshes. With theta = phi_pinion, the meshes give
  phi_idler = -(r1/r2) theta and phi_wheel = (r1/r3) theta, so (Lagrange, written by hand here)

      J_eff theta'' = -m3 g e cos(phi_wheel) (r1/r3),   J_eff = J1 + (r1/r2)^2 J2 + (r1/r3)^2 (J3 + m3 e^2),

  integrated by scipy's DOP853 at rtol 1e-12. The tooth torque on the wheel about its axle is
  tau_23 = (J3 + m3 e^2) phi_wheel'' + m3 g e cos(phi_wheel) (Euler about the fixed axle); on the idler
  tau_12 = J2 phi_idler'' - (r2/r3) tau_23 (the wheel's teeth push back on the idler with (r2/r3) tau_23). The reported mesh reactions must be these torques (Mz) and the
  tangential forces tau/r at the pitch points (Fy; Fx = 0 since the centres are on the x axis).
* Internal gearing: a ring gear (r = 0.3 m, unbalanced) meshing with a pinion (0.1 m) inside it turn the same
  way, phi_pinion = +3 phi_ring.
* Rack and pinion (sample_models/rack_and_pinion.json): x = r phi, a spring on the rack: the closed form
  x = -0.2 + 0.2 cos(w t), w^2 = k / (m_rack + J/r^2); the tooth force on the rack m x'' + k (x + 0.2).
* The reported tooth force lies along the pressure line: its radial part is tan(alpha) |F_t| and pushes the
  driven body away from its mate (towards an external gear's axle; away from the pinion for a rack).

Tolerances: the simulations run at rtol 1e-11 / atol 1e-12 and the reference at rtol 1e-12. Measured
(projection + DOP853): angles within 3.5e-11 rad, the rack within 8e-12 m, tooth torques within 1.7e-11 N m and
tooth forces within 2.8e-10 N, energy drift 7e-11 J (gears) and 1.5e-10 J (rack). So 1e-8 rad / m / N / J leaves
a margin of 30 to 1000 over integration error, while any modelling error (a wrong ratio, sign, pitch point or
reaction site) shows at the size of the motion (0.1 to 1) or of the forces (~1 N).
"""
from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from mechstudio.core.errors import ModelError
from mechstudio.core.model import model_from_data
from mechstudio.core.simulate import simulate
from mechstudio.core.types import Status

ROOT = Path(__file__).resolve().parents[1]
GEAR_TRAIN = ROOT / "sample_models" / "gear_train.json"
RACK = ROOT / "sample_models" / "rack_and_pinion.json"
TIGHT = {"rtol": 1e-11, "atol": 1e-12}
G = 9.81
TAN20 = math.tan(math.radians(20.0))  # the default pressure angle


def reference(accel, t_end: float, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """theta, theta' of theta'' = accel(theta) from rest at 0, by DOP853 at rtol 1e-12."""
    sol = solve_ivp(lambda t, y: [y[1], accel(y[0])], (0.0, t_end), [0.0, 0.0], method="DOP853", rtol=1e-12,
                    atol=1e-14, dense_output=True)
    theta, rate = sol.sol(times)
    return theta, rate


def column(traj, name: str, coord: str, which: str = "q") -> np.ndarray:
    k = 3 * traj.system.index[name] + ("x", "y", "phi").index(coord)
    return getattr(traj.frames, which)[:, k]


def reaction(traj, name: str) -> np.ndarray:
    k = [c.name for c in traj.system.constraints].index(name)
    return traj.frames.reactions[:, k, :]


def test_gear_train_against_the_minimal_coordinate_model():
    r1, r2, r3 = 0.1, 0.15, 0.2
    J1, J2, m3, e = 0.005, 0.016875, 2.0, 0.1
    J3 = 0.03 + m3 * e ** 2  # about the wheel's axle
    J_eff = J1 + (r1 / r2) ** 2 * J2 + (r1 / r3) ** 2 * J3

    def accel(theta: float) -> float:
        return -m3 * G * e * math.cos(r1 / r3 * theta) * (r1 / r3) / J_eff

    traj = simulate(str(GEAR_TRAIN), t_end=3.0, dt=0.05, **TIGHT)
    assert traj.status == Status.FINISHED, traj.message
    t = traj.frames.t
    theta, rate = reference(accel, 3.0, t)
    assert np.ptp(theta) > 1.0  # the train really turns
    np.testing.assert_allclose(column(traj, "pinion", "phi"), theta, atol=1e-8)
    np.testing.assert_allclose(column(traj, "idler", "phi"), -(r1 / r2) * theta, atol=1e-8)
    np.testing.assert_allclose(column(traj, "wheel", "phi"), (r1 / r3) * theta, atol=1e-8)
    # speed ratios at every output
    w1, w2, w3 = (column(traj, b, "phi", "v") for b in ("pinion", "idler", "wheel"))
    np.testing.assert_allclose(w2, -(r1 / r2) * w1, atol=1e-10)
    np.testing.assert_allclose(w3, (r1 / r3) * w1, atol=1e-10)
    # tooth forces from the hand model
    acc = np.array([accel(th) for th in theta])
    phi3, tau23 = (r1 / r3) * theta, J3 * (r1 / r3) * acc + m3 * G * e * np.cos((r1 / r3) * theta)
    tau12 = J2 * (-(r1 / r2) * acc) - (r2 / r3) * tau23
    mesh23, mesh12 = reaction(traj, "mesh23"), reaction(traj, "mesh12")
    assert np.max(np.abs(tau23)) > 0.5  # a real load
    np.testing.assert_allclose(mesh23[:, 5], tau23, atol=1e-8)  # moment about the wheel's axle
    np.testing.assert_allclose(mesh23[:, 1], -tau23 / r3, atol=1e-8)  # tangential, at the pitch point x = 0.4
    # radial part of the force along the pressure line: tan(20 deg) |F_t|, towards the wheel's axle (+x)
    np.testing.assert_allclose(mesh23[:, 0], TAN20 * np.abs(tau23 / r3), atol=1e-8)
    np.testing.assert_allclose(mesh12[:, 5], tau12, atol=1e-8)
    np.testing.assert_allclose(mesh12[:, 1], -tau12 / r2, atol=1e-8)
    np.testing.assert_allclose(mesh12[:, 0], TAN20 * np.abs(tau12 / r2), atol=1e-8)
    # the bearings carry the tooth forces: pinion axle = its weight + the reaction of the idler's teeth
    np.testing.assert_allclose(reaction(traj, "axle1")[:, 1], 1.0 * G + mesh12[:, 1], atol=1e-8)
    np.testing.assert_allclose(reaction(traj, "axle1")[:, 5], 0.0, atol=1e-8)
    assert np.allclose(phi3, column(traj, "wheel", "phi"), atol=1e-8)


def test_tooth_force_is_reported_along_the_pressure_line():
    """|F| = |F_t| / cos(alpha) with the angle the file gives (25 degrees here), 20 degrees by default."""
    data = json.loads(GEAR_TRAIN.read_text())
    alpha = math.radians(25.0)
    data["joints"][4]["pressure_angle"] = alpha
    traj = simulate(model_from_data(data), t_end=0.5, dt=0.1)
    assert traj.status == Status.FINISHED, traj.message
    f = reaction(traj, "mesh23")[-1]
    ft = abs(f[5]) / 0.2  # the tangential force from the tooth torque about the wheel's axle
    assert ft > 1.0
    assert math.hypot(f[0], f[1]) == pytest.approx(ft / math.cos(alpha), rel=1e-12)
    assert math.atan2(f[0], abs(f[1])) == pytest.approx(alpha, rel=1e-12)  # tilted towards the axle (+x)
    assert traj.system.model.entities.joint("mesh12").pressure_angle == pytest.approx(math.radians(20.0))


def ring_data() -> dict:
    """An unbalanced ring gear (r = 0.3 m) on an axle at O and a pinion (r = 0.1 m) inside it at (0.2, 0)."""
    return {"format": "mechanism-studio-model", "version": 1, "name": "ring", "kind": "planar",
            "gravity": [0.0, -G], "ground": {"points": {"O": [0.0, 0.0], "P": [0.2, 0.0]}},
            "bodies": [{"name": "ring", "mass": 2.0, "inertia": 0.1, "com": [0.1, 0.0], "points": {"c": [0.0, 0.0]},
                        "initial": {"x": 0.0, "y": 0.0, "phi": 0.0}},
                       {"name": "pinion", "mass": 0.5, "inertia": 0.004, "com": [0.0, 0.0],
                        "points": {"c": [0.0, 0.0]}, "initial": {"x": 0.2, "y": 0.0, "phi": 0.0}}],
            "joints": [{"name": "a1", "type": "revolute", "body1": "ground", "point1": "O", "body2": "ring",
                        "point2": "c"},
                       {"name": "a2", "type": "revolute", "body1": "ground", "point1": "P", "body2": "pinion",
                        "point2": "c"},
                       {"name": "mesh", "type": "gear_pair", "joint1": "a1", "joint2": "a2", "radius1": 0.3,
                        "radius2": 0.1, "internal": True}],
            "simulation": {"t_end": 2.0, "dt": 0.05}}


def test_internal_gearing_turns_both_gears_the_same_way():
    m, e, Jc, Jp, ratio = 2.0, 0.1, 0.1 + 2.0 * 0.1 ** 2, 0.004, 3.0
    J_eff = Jc + ratio ** 2 * Jp

    def accel(theta: float) -> float:
        return -m * G * e * math.cos(theta) / J_eff

    traj = simulate(model_from_data(ring_data()), t_end=2.0, dt=0.05, **TIGHT)
    assert traj.status == Status.FINISHED, traj.message
    theta, _ = reference(accel, 2.0, traj.frames.t)
    np.testing.assert_allclose(column(traj, "ring", "phi"), theta, atol=1e-8)
    np.testing.assert_allclose(column(traj, "pinion", "phi"), ratio * theta, atol=1e-8)
    # tooth torque on the pinion = Jp phi_p''; tangential force at the pitch point (0.3, 0), 0.1 beyond its axle
    tau = Jp * ratio * np.array([accel(th) for th in theta])
    r = reaction(traj, "mesh")
    np.testing.assert_allclose(r[:, 5], tau, atol=1e-8)
    np.testing.assert_allclose(r[:, 1], tau / 0.1, atol=1e-8)
    np.testing.assert_allclose(r[:, 0], -TAN20 * np.abs(tau / 0.1), atol=1e-8)  # towards the pinion's axle (-x)
    assert np.ptp(traj.frames.total) < 1e-8


def test_rack_and_pinion_against_the_closed_form():
    k, m_rack, J, r = 40.0, 1.0, 0.05, 0.1
    w = math.sqrt(k / (m_rack + J / r ** 2))
    traj = simulate(str(RACK), t_end=5.0, dt=0.05, **TIGHT)
    assert traj.status == Status.FINISHED, traj.message
    t = traj.frames.t
    x = -0.2 + 0.2 * np.cos(w * t)
    np.testing.assert_allclose(column(traj, "rack", "x"), x, atol=1e-8)
    np.testing.assert_allclose(column(traj, "pinion", "phi"), x / r, atol=1e-8)
    np.testing.assert_allclose(column(traj, "rack", "x", "v"), r * column(traj, "pinion", "phi", "v"), atol=1e-10)
    tooth = (k - m_rack * w ** 2) * 0.2 * np.cos(w * t)  # m x'' + k (x + 0.2) on the rack, along +x
    mesh = reaction(traj, "mesh")
    assert np.max(np.abs(tooth)) > 1.0
    np.testing.assert_allclose(mesh[:, 0], tooth, atol=1e-8)
    np.testing.assert_allclose(mesh[:, 1], -TAN20 * np.abs(tooth), atol=1e-8)  # pushes the rack away (-y)
    # about the rack's joint point (x, -0.1), on the pitch line: the radial part acts at the pitch point (0, -0.1)
    np.testing.assert_allclose(mesh[:, 5], column(traj, "rack", "x") * TAN20 * np.abs(tooth), atol=1e-8)
    # the pinion's bearing takes the reaction of the rack's teeth (both parts) and the pinion's weight
    np.testing.assert_allclose(reaction(traj, "axle")[:, 0], tooth, atol=1e-8)
    np.testing.assert_allclose(reaction(traj, "axle")[:, 1], 2.0 * G - TAN20 * np.abs(tooth), atol=1e-8)


@pytest.mark.parametrize("sample", [GEAR_TRAIN, RACK])
def test_conservative_samples_keep_their_energy(sample):
    traj = simulate(str(sample), **TIGHT)
    assert traj.status == Status.FINISHED, traj.message
    assert np.ptp(traj.frames.kinetic) > 0.05  # they move
    assert np.ptp(traj.frames.total) < 1e-8


@pytest.mark.parametrize("change,pointer,words", [
    (lambda d: d["joints"][3].update(joint1="axle9"), "/joints/3/joint1", "no joint named 'axle9'"),
    (lambda d: d["joints"][4].update(joint2="mesh12"), "/joints/4/joint2", "must be a revolute"),
    (lambda d: d["joints"][3].update(radius2=0.2), "/joints/3/radius2", "centre distance 0.25"),
    (lambda d: d["joints"][1].update(body1="wheel", point1="m"), "/joints/3/joint2", "share exactly one body"),
])
def test_bad_references_name_the_json_path(change, pointer, words):
    data = json.loads(GEAR_TRAIN.read_text())
    change(data)
    with pytest.raises(ModelError) as info:
        model_from_data(copy.deepcopy(data), "gear_train.json")
    text = str(info.value)
    assert pointer in text and words in text and "gear_train.json" in text, text


# ---- moving carriers: the pitch points do not slip (a check from the bodies' velocities alone) ------------------
def body(name: str, mass: float, inertia: float, com: list[float], pose: list[float]) -> dict:
    return {"name": name, "mass": mass, "inertia": inertia, "com": com, "points": {"o": [0.0, 0.0]},
            "initial": {"x": pose[0], "y": pose[1], "phi": pose[2]}}


def model_with(bodies: list[dict], joints: list[dict]) -> dict:
    return {"format": "mechanism-studio-model", "version": 1, "name": "carrier", "kind": "planar",
            "gravity": [0.0, -G], "bodies": bodies, "joints": joints}


def material_velocity(traj, q: np.ndarray, v: np.ndarray, name: str, p: np.ndarray) -> np.ndarray:
    """Velocity [m/s] of the material point of body ``name`` at world point p (the ground: 0)."""
    if name == "ground":
        return np.zeros(2)
    k = traj.system.index[name]
    return v[3 * k:3 * k + 2] + v[3 * k + 2] * np.array([-(p - q[3 * k:3 * k + 2])[1], (p - q[3 * k:3 * k + 2])[0]])


def test_planet_rolls_inside_a_fixed_ring_without_slipping():
    """A fixed ring gear (r = 0.3 m, the ground, gear 1), a carrier arm swinging about its centre and a planet
    (r = 0.1 m) on the arm, internal gearing: at the pitch point (on the ring, beyond the planet's centre) the
    planet's material point is at rest, like the ring's. Tolerance 1e-9 m/s: the velocity constraint holds to
    the drift correction's ~1e-12; a wrong sign or pitch point gives the planet's speed (~1 m/s)."""
    data = model_with([body("arm", 1.0, 0.01, [0.1, 0.0], [0.0, 0.0, 0.0]),
                       body("planet", 0.5, 0.0025, [0.0, 0.0], [0.2, 0.0, 0.0])],
                      [{"name": "hub", "type": "revolute", "body1": "ground", "point1": [0.0, 0.0], "body2": "arm",
                        "point2": "o"},
                       {"name": "pin", "type": "revolute", "body1": "arm", "point1": [0.2, 0.0], "body2": "planet",
                        "point2": "o"},
                       {"name": "mesh", "type": "gear_pair", "joint1": "hub", "joint2": "pin", "radius1": 0.3,
                        "radius2": 0.1, "internal": True}])
    traj = simulate(model_from_data(data), t_end=2.0, dt=0.05, **TIGHT)
    assert traj.status == Status.FINISHED, traj.message
    assert np.ptp(column(traj, "arm", "phi")) > 1.0
    for q, v in zip(traj.frames.q, traj.frames.v):
        centre = q[3 * traj.system.index["planet"]:3 * traj.system.index["planet"] + 2]
        pitch = 0.3 * centre / np.linalg.norm(centre)
        assert np.linalg.norm(material_velocity(traj, q, v, "planet", pitch)) < 1e-9
    # the planet turns backwards: phi_planet = (1 - r1/r2) phi_arm = -2 phi_arm
    np.testing.assert_allclose(column(traj, "planet", "phi"), -2.0 * column(traj, "arm", "phi"), atol=1e-9)
    assert np.ptp(traj.frames.total) < 1e-8


@pytest.mark.parametrize("slide_on", ["arm", "rack"])
def test_rack_on_a_swinging_arm_rolls_on_a_fixed_pinion(slide_on):
    """A fixed pinion (r = 0.1 m, the ground) and an arm swinging about its centre carrying a rack below its axis
    (on the right of +x): the rack rolls on the pinion, so its material point at the pitch point P = O - r
    perp(u) is at rest. The prismatic joint is given either on the arm (body1) or on the rack (body1, its axis
    in the rack's frame turned by 0.3 rad), which must give the same motion."""
    rack_phi = 0.0 if slide_on == "arm" else -0.3
    if slide_on == "arm":
        slide = {"name": "slide", "type": "prismatic", "body1": "arm", "point1": [0.0, -0.1], "body2": "rack",
                 "point2": "o", "axis": [1.0, 0.0], "angle": 0.0}
    else:
        slide = {"name": "slide", "type": "prismatic", "body1": "rack", "point1": "o", "body2": "arm",
                 "point2": [0.3, -0.1], "axis": [math.cos(0.3), math.sin(0.3)], "angle": 0.3}
    data = model_with([body("arm", 1.0, 0.05, [0.3, 0.0], [0.0, 0.0, 0.0]),
                       body("rack", 0.5, 0.004, [0.0, 0.0], [0.3, -0.1, rack_phi])],
                      [{"name": "hub", "type": "revolute", "body1": "ground", "point1": [0.0, 0.0], "body2": "arm",
                        "point2": "o"}, slide,
                       {"name": "mesh", "type": "rack_pinion", "joint1": "hub", "joint2": "slide", "radius": 0.1,
                        "offset": 0.3}])
    traj = simulate(model_from_data(data), t_end=1.5, dt=0.05, **TIGHT)
    assert traj.status == Status.FINISHED, traj.message
    beta = column(traj, "arm", "phi")
    assert np.ptp(beta) > 0.5
    for q, v, b in zip(traj.frames.q, traj.frames.v, beta):
        pitch = 0.1 * np.array([math.sin(b), -math.cos(b)])  # O - r perp(u), u = (cos b, sin b)
        assert np.linalg.norm(material_velocity(traj, q, v, "rack", pitch)) < 1e-9
    k = traj.system.index["rack"]
    travel = traj.frames.q[:, 3 * k] * np.cos(beta) + traj.frames.q[:, 3 * k + 1] * np.sin(beta)
    np.testing.assert_allclose(travel, 0.3 - 0.1 * beta, atol=1e-9)  # s = -r beta + 0.3 along the arm
    assert np.ptp(traj.frames.total) < 1e-8
