"""Statics and inverse dynamics (core.analysis.statics, ``mechstudio statics``), each checked against something
that does not use the multipliers: the principle of virtual work on finite differences of assembled poses, the
closed-form equilibrium of a pendulum on a torsional spring, the power balance of a driven slider-crank and the
free-body balance of each of its bodies."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from scipy.optimize import brentq

from cli_helpers import run_cli
from conftest import SAMPLES
from mechstudio.core.analysis.statics import inverse_dynamics, static_equilibrium
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.kinematics.assembly import assemble
from mechstudio.core.model import loads_model
from mechstudio.core.run.results import read_csv
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status

G = 9.81


def sample(name: str) -> dict:
    return json.loads((SAMPLES / f"{name}.json").read_text(encoding="utf-8"))


def compiled(data: dict):
    return compile_model(loads_model(json.dumps(data), f"{data['name']}.json"))


def com_positions(data: dict, q: np.ndarray) -> np.ndarray:
    """(n_bodies, 2) centres of mass from q (planar coordinates are the centres of mass, [003])."""
    return q.reshape(-1, 3)[:, :2]


# --- statics: four-bar held by a motor, against virtual work ---------------------------------------------------
def driven_four_bar(theta: float) -> dict:
    """The sample four-bar with a motor at O holding the crank at ``theta`` at t = 0 (theta + t later)."""
    d = sample("four_bar")
    d["bodies"][0]["initial"]["phi"] = theta
    d["drivers"] = [{"name": "motor", "type": "joint_angle", "joint": "O",
                     "function": {"type": "constant_speed", "initial": theta, "speed": 1.0}}]
    return d


@pytest.mark.parametrize("theta", [0.3, 1.0, 2.2, 4.0])
def test_four_bar_holding_torque_equals_virtual_work(theta):
    """tau = -sum_i m_i g . dr_Gi/dtheta, dr/dtheta by central differences of poses assembled at theta +- h
    (the driver angle is theta + t, so the poses at t = +-h; no multiplier enters). Tolerance 1e-7 relative:
    the difference quotient errs by ~h^2 |r'''| ~ 1e-10 and by rounding ~1e-16 |r| / h ~ 1e-11."""
    d = driven_four_bar(theta)
    system = compiled(d)
    res = static_equilibrium(system)
    assert res.status is Status.CONVERGED, res.message
    assert res.dof == 0 and res.stable is None
    masses = np.array([b["mass"] for b in d["bodies"]])
    g = np.array(d["gravity"])
    h = 1e-5
    poses = []
    for t in (-h, h):
        r = assemble(system, res.q, t)
        assert r.status.ok
        poses.append(com_positions(d, r.q))
    dr = (poses[1] - poses[0]) / (2 * h)  # (n_bodies, 2) d r_G / d theta
    tau_virtual = -float(np.sum(masses * (dr @ g)))
    tau = res.drivers["motor"][5]
    assert tau == pytest.approx(tau_virtual, rel=1e-7, abs=1e-9)
    assert res.residual <= 1e-9 * res.force_scale
    # the holding torque is the driver's reaction, the same number as in the full reaction mapping
    assert res.reactions["motor"][5] == tau


def test_four_bar_without_motor_settles_to_a_stable_pose():
    """Released, the four-bar hangs at a pose where the potential is least along its one freedom: no torque
    along the motion (virtual work: sum m g . dr/dtheta = 0) and a positive projected stiffness."""
    d = sample("four_bar")
    system = compiled(d)
    res = static_equilibrium(system)
    assert res.status is Status.CONVERGED, res.message
    assert res.dof == 1 and res.stable is True
    masses = np.array([b["mass"] for b in d["bodies"]])
    g = np.array(d["gravity"])
    # move along the freedom: drive the crank angle by a small step and reassemble
    k = system.coord_names.index("crank.phi")
    poses = []
    for s in (-1e-5, 1e-5):
        q = res.q.copy()
        q[k] += s
        r = assemble(system, q, 0.0, hold=[k])
        assert r.status.ok
        poses.append(com_positions(d, r.q))
    dV = -float(np.sum(masses * (((poses[1] - poses[0]) / 2e-5) @ g)))
    assert abs(dV) <= 1e-7 * float(np.sum(masses)) * G


# --- statics: pendulum on a torsional spring, closed form ------------------------------------------------------
def spring_pendulum(k: float, theta0: float, start: float) -> dict:
    """The sample pendulum (1 kg bar, centre of mass l = 0.5 m from the pin) with a torsional spring k [N m/rad]
    at its pin, relaxed at theta0, starting at ``start`` (not held)."""
    d = sample("pendulum")
    d["bodies"][0]["initial"]["phi"] = start
    d["forces"] = [{"name": "spring", "type": "rotational_spring_damper", "joint": "O", "stiffness": k,
                    "free_angle": theta0}]
    return d


MGL = 1.0 * G * 0.5  # m g l [N m]


def test_spring_pendulum_equilibrium_angle_from_the_closed_form():
    """V = m g l sin(th) + k (th - th0)^2 / 2: equilibrium m g l cos(th) + k (th - th0) = 0, stable where
    V'' = k - m g l sin(th) > 0. Tolerance 1e-8 rad (force balance to 1e-10 relative, stiffness ~ k)."""
    k, th0 = 10.0, 0.0
    system = compiled(spring_pendulum(k, th0, start=0.8))
    res = static_equilibrium(system)
    assert res.status is Status.CONVERGED, res.message
    exact = brentq(lambda th: MGL * np.cos(th) + k * (th - th0), -np.pi / 2, np.pi / 2, xtol=1e-15)
    assert res.q[2] == pytest.approx(exact, abs=1e-8)
    assert res.stable is True and k - MGL * np.sin(exact) > 0
    # the pin carries the weight: force on the bar (0, m g), no moment (the spring torque is an applied force)
    np.testing.assert_allclose(res.reactions["O"][[0, 1, 5]], [0.0, G, 0.0], atol=1e-8)
    # the projected stiffness is V'' in the angle (one freedom, |N_P| = 1 in (x, y, phi) with x, y following
    # the angle: the eigenvalue is V'' / (1 + l^2), the Hessian in the unit-norm tangent direction)
    assert res.stiffness_eigenvalues[0] == pytest.approx((k - MGL * np.sin(exact)) / (1 + 0.25), rel=1e-5)


@pytest.mark.parametrize("k, stable", [(2 * MGL, True), (0.5 * MGL, False)])
def test_upright_pendulum_stability_flag(k, stable):
    """Upright (th = pi/2) with the spring relaxed there is an equilibrium; V'' = k - m g l decides."""
    system = compiled(spring_pendulum(k, np.pi / 2, start=np.pi / 2))
    res = static_equilibrium(system)
    assert res.status is Status.CONVERGED, res.message
    assert res.q[2] == pytest.approx(np.pi / 2, abs=1e-12)
    assert res.stable is stable


def test_search_from_near_an_unstable_pose_slides_to_a_stable_one():
    """Started beside the unstable upright pose (weak spring), the search goes downhill, not to the top: the
    pose it finds solves the closed-form equation and has V'' > 0."""
    k, th0 = 0.5 * MGL, np.pi / 2
    system = compiled(spring_pendulum(k, th0, start=np.pi / 2 + 0.05))
    res = static_equilibrium(system)
    assert res.status is Status.CONVERGED, res.message
    th = res.q[2]
    assert abs(MGL * np.cos(th) + k * (th - th0)) <= 1e-8
    assert k - MGL * np.sin(th) > 0 and res.stable is True
    assert th > np.pi / 2 + 0.05  # it fell the way it leaned


def test_unassemblable_model_is_a_status_not_an_exception():
    d = sample("four_bar")
    d["ground"]["points"]["D"] = [40.0, 0.0]  # the links cannot reach
    res = static_equilibrium(compiled(d))
    assert not res.status.ok and "assembled" in res.message


# --- inverse dynamics of the driven slider-crank ---------------------------------------------------------------
@pytest.fixture(scope="module")
def slider_crank():
    d = sample("slider_crank_driven")
    system = compiled(d)
    times = np.linspace(0.0, 1.0, 13)  # one crank turn (2 pi rad/s), every 30 degrees
    return d, system, times, inverse_dynamics(system, times)


def energy(d: dict, q: np.ndarray, v: np.ndarray) -> float:
    """Kinetic plus gravitational energy from the model's masses and inertias (not the system's methods)."""
    m = np.array([b["mass"] for b in d["bodies"]])
    inertia = np.array([b["inertia"] for b in d["bodies"]])
    q3, v3 = q.reshape(-1, 3), v.reshape(-1, 3)
    g = np.array(d["gravity"])
    return float(0.5 * np.sum(m * (v3[:, 0] ** 2 + v3[:, 1] ** 2)) + 0.5 * np.sum(inertia * v3[:, 2] ** 2)
                 - np.sum(m * (q3[:, :2] @ g)))


def test_inverse_dynamics_driver_torque_balances_the_power(slider_crank):
    """tau omega = dE/dt - P_applied (P_applied = 0: only gravity, which is in E; ideal joints do no work).
    dE/dt by the five-point stencil over kinematic states at t +- h, t +- 2h (h = 1e-3 s: error ~ h^4 E^(5) / 30,
    below 1e-8 of the largest power here). Tolerance 1e-6 of the largest |tau omega|."""
    d, system, times, res = slider_crank
    assert res.status is Status.FINISHED and res.lambda_unique, res.message
    tau = res.reaction(system, "motor")[:, 5]
    omega = res.v[:, system.coord_names.index("crank.phi")]
    h = 1e-3
    dEdt = []
    for t, q in zip(times, res.q):  # started from the pose at t: the same assembly branch
        kin = driven_motion(system, t + h * np.array([-2.0, -1.0, 0.0, 1.0, 2.0]), q0=q)
        assert kin.status.ok
        E = [energy(d, kin.q[j], kin.v[j]) for j in range(5)]
        dEdt.append((E[0] - 8 * E[1] + 8 * E[3] - E[4]) / (12 * h))
    power = tau * omega
    scale = np.max(np.abs(power))
    assert scale > 10.0  # the check is not empty: the motor works against inertia and gravity
    np.testing.assert_allclose(power, dEdt, rtol=0, atol=1e-6 * scale)
    np.testing.assert_allclose(res.driver_power, power, rtol=0, atol=1e-9 * scale)


def test_inverse_dynamics_free_body_balance(slider_crank):
    """Each body: sum of joint forces + m g = m a_G and sum of moments about G = I alpha, with the force on a
    joint's first body the opposite of the reported one (on its second body), at the same point. Tolerance 1e-8
    of the largest joint force."""
    d, system, times, res = slider_crank
    bodies = [b["name"] for b in d["bodies"]]
    body_data = {b["name"]: b for b in d["bodies"]}
    joints = {j["name"]: j for j in d["joints"]}
    site = {name: (j["body2"], j["point2"]) for name, j in joints.items()}
    for drv in d["drivers"]:
        site[drv["name"]] = site[drv["joint"]]
    g = np.array(d["gravity"])
    scale = float(np.max(np.abs(res.reactions[:, :, [0, 1]])))
    assert scale > 10.0
    for i in range(len(times)):
        q3, a3 = res.q[i].reshape(-1, 3), res.a[i].reshape(-1, 3)
        force = {b: body_data[b]["mass"] * g for b in bodies}
        moment = {b: 0.0 for b in bodies}
        for c_idx, c in enumerate(system.constraints):
            F, M = res.reactions[i, c_idx, :2], res.reactions[i, c_idx, 5]
            b2, point = site[c.name]
            k2 = bodies.index(b2)
            s = np.array(body_data[b2]["points"][point]) - np.array(body_data[b2]["com"])
            ph = q3[k2, 2]
            p = q3[k2, :2] + np.array([[np.cos(ph), -np.sin(ph)], [np.sin(ph), np.cos(ph)]]) @ s  # world point
            for body, sign in ((c.body2, 1.0), (c.body1, -1.0)):
                if body not in force:
                    continue  # the ground
                arm = p - q3[bodies.index(body), :2]
                force[body] = force[body] + sign * F
                moment[body] += sign * (M + arm[0] * F[1] - arm[1] * F[0])
        for k, b in enumerate(bodies):
            m, inertia = body_data[b]["mass"], body_data[b]["inertia"]
            np.testing.assert_allclose(force[b], m * a3[k, :2], rtol=0, atol=1e-8 * scale)
            assert moment[b] == pytest.approx(inertia * a3[k, 2], abs=1e-8 * scale)


def test_inverse_dynamics_refuses_a_mechanism_with_freedom():
    system = compiled(sample("four_bar"))
    res = inverse_dynamics(system, np.linspace(0.0, 1.0, 5))
    assert res.status is Status.FAILED and len(res.t) == 0
    assert "degree(s) of freedom" in res.message


# --- the command -------------------------------------------------------------------------------------------------
def test_cli_statics_writes_the_pose_and_the_holding_torque(capsys, tmp_path):
    path = tmp_path / "motor.json"
    path.write_text(json.dumps(driven_four_bar(1.0)), encoding="utf-8")
    out_csv = tmp_path / "statics.csv"
    rc, out, err = run_cli(["statics", str(path), "--out", str(out_csv)], capsys)
    assert rc == 0, err
    cols = read_csv(out_csv)
    for name in ("q.crank.phi", "reaction.motor.Mz", "reaction.O.Fx", "reaction.B.Fy", "residual.force", "stable"):
        assert name in cols
    assert cols["q.crank.phi"][0] == pytest.approx(1.0, abs=1e-12)
    assert "driver motor" in out  # the summary (on stdout when the CSV goes to a file)


def test_cli_inverse_columns_on_stdout(capsys):
    rc, out, err = run_cli(["statics", str(SAMPLES / "slider_crank_driven.json"), "--inverse", "--t-end", "0.5",
                            "--dt", "0.125"], capsys)
    assert rc == 0, err
    header = out.splitlines()[0].split(",")
    assert len(out.strip().splitlines()) == 1 + 5
    for name in ("t", "q.crank.phi", "a.slider.x", "reaction.motor.Mz", "reaction.slide.Fy", "power.drivers"):
        assert name in header
    assert "driver motor" in err


def test_cli_bad_file_exits_2_naming_it(capsys, tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    rc, out, err = run_cli(["statics", str(bad)], capsys)
    assert rc == 2 and out == ""
    assert "broken.json" in err


def test_cli_inverse_refuses_a_mechanism_with_freedom(capsys):
    rc, out, err = run_cli(["statics", str(SAMPLES / "four_bar.json"), "--inverse"], capsys)
    assert rc == 3 and out == ""
    assert "inverse dynamics refused" in err and "1 degree(s) of freedom" in err


def test_cli_time_options_only_with_inverse(capsys):
    rc, out, err = run_cli(["statics", str(SAMPLES / "four_bar.json"), "--dt", "0.1"], capsys)
    assert rc == 2 and "--inverse" in err


def test_a_model_without_bodies_is_a_status_not_an_exception() -> None:
    from mechstudio.core.model.document import empty_model_data
    from mechstudio.core.model.io import model_from_data
    from mechstudio.core.systems.compile import compile_model
    system = compile_model(model_from_data(empty_model_data("empty"), source="empty"))
    res = static_equilibrium(system)
    assert isinstance(res.status.ok, bool) and res.q.shape == (0,)
