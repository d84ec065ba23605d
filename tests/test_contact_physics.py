"""Contacts that can let go against closed forms (docs/contact.md): bounces of a ball (impact times, heights
e^(2k) h0, rest), a block on an incline (sticks while tan(alpha) < mu_s, else slides with
a = g (sin(alpha) - mu_k cos(alpha))), a cam follower's lift-off (speed and instant from the spring preload and
the profile), a disk on an incline that rolls while tan(alpha) <= mu_s (1 + m r^2 / J) and slips beyond it (its
slipping accelerations), and the energy balance with the impact and friction losses, flat to 1e-8 relative.

Tolerances: the events are located to 1e-12 s on the dense output of DOP853 at rtol 1e-10 (the run's settings
here), so impact and lift-off times match their closed forms to 1e-9 s (the accumulated integration error of the
free flights between them); accelerations are fitted from positions over 0.2-0.5 s of constant acceleration
(exact polynomials for the integrator: 1e-9 relative).
"""
from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from mechstudio.core.model.io import model_from_data
from mechstudio.core.run.driver import run
from mechstudio.core.simulate import SimulationSettings
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status

SAMPLES = Path(__file__).resolve().parents[1] / "sample_models"
G = 9.81


def _sample(name: str) -> dict:
    return json.loads((SAMPLES / f"{name}.json").read_text(encoding="utf-8"))


def _run(data: dict, **settings):
    model = model_from_data(data, "<test>")
    system = compile_model(model)
    settings.setdefault("rtol", 1e-10)
    traj = run(system, SimulationSettings.from_model(model, **settings))
    assert traj.status == Status.FINISHED, traj.message
    return traj


def _balance(traj) -> float:
    """max |E - W - (E - W)(0)| / max(E): the energy bookkeeping with the contact losses in W."""
    e = traj.kinetic + traj.potential - traj.work
    return float(np.max(np.abs(e - e[0])) / max(np.max(np.abs(traj.kinetic + traj.potential)), 1.0))


# ---- a: the bouncing ball ----------------------------------------------------------------------------------------
def test_bouncing_ball_impact_times_heights_and_rest():
    traj = _run(_sample("bouncing_ball"), t_end=4.5)
    e, h0 = 0.8, 1.0
    t1 = math.sqrt(2 * h0 / G)
    impacts = [ev for ev in traj.stats["events"] if ev["kind"] == "impact"]
    expected = [t1]
    for k in range(1, len(impacts)):
        expected.append(expected[-1] + 2 * e ** k * t1)
    speeds = np.array([ev["approach_speed"] for ev in impacts])
    elastic = speeds > 1e-3  # REST_SPEED: slower impacts are plastic (the end of the bounces)
    assert elastic.sum() >= 30
    times = np.array([ev["t"] for ev in impacts])
    assert np.max(np.abs(times[elastic] - np.array(expected)[elastic])) < 1e-9
    assert np.allclose(speeds[elastic], math.sqrt(2 * G * h0) * e ** np.arange(elastic.sum()), rtol=1e-9)
    # bounce heights between impacts: the maximum of the ball's bottom between impact k and k+1 is e^(2k) h0
    y = traj.coordinate("ball.y") - 0.1
    t = traj.t
    for k in range(1, 4):
        inside = (t > times[k - 1]) & (t < times[k])
        apex = 0.5 * (times[k - 1] + times[k])
        assert y[inside].max() == pytest.approx(e ** (2 * k) * h0, abs=0.5 * G * (0.01) ** 2 + 1e-9)
        del apex
    # at rest on the floor at the end: gap 0, normal force m g, closed
    cols = traj.columns()
    assert abs(y[-1]) < 1e-9 and abs(traj.v[-1, 1]) < 1e-9
    assert cols["contact.floor.normal"][-1] == pytest.approx(G * 1.0, rel=1e-9)
    assert cols["contact.floor.state"][-1] == 3.0
    assert np.min(cols["contact.floor.normal"]) >= 0.0
    # energy: E + impact losses flat; the losses are the whole initial energy above rest
    assert _balance(traj) < 1e-8
    total = traj.kinetic + traj.potential + cols["energy.dissipated.impact"]
    assert np.ptp(total) < 1e-8 * total[0]
    assert cols["energy.dissipated.impact"][-1] == pytest.approx(G * h0, rel=1e-8)


def test_bouncing_ball_with_an_interval_integrator():
    """RK4 steps output interval by output interval; its events are located on its own solution."""
    traj = _run(_sample("bouncing_ball"), t_end=1.3, integrator="rk4", step=1e-3)
    impacts = [ev["t"] for ev in traj.stats["events"] if ev["kind"] == "impact"]
    t1 = math.sqrt(2 / G)
    assert impacts[0] == pytest.approx(t1, abs=1e-9)  # free fall is a polynomial: RK4 is exact
    assert impacts[1] == pytest.approx(t1 * (1 + 2 * 0.8), abs=1e-9)


# ---- b: block on an incline ----------------------------------------------------------------------------------
def _block_on_incline(alpha: float, mu_s: float, mu_k: float) -> dict:
    """A 0.2 x 0.1 m block of 1 kg resting on a fixed ground incline of angle alpha (a ground polygon)."""
    c, s = math.cos(alpha), math.sin(alpha)
    length = 3.0
    ramp = [[0.0, 0.0], [length * c, -length * s], [length * c, -length * s - 0.5], [0.0, -0.5]]
    along, half_h = 0.5, 0.05
    x, y = along * c - half_h * (-s) * -1, -along * s + half_h * c
    return {"format": "mechanism-studio-model", "version": 1, "name": "block", "kind": "planar",
            "gravity": [0.0, -G], "ground": {"geometry": [{"type": "polygon", "vertices": ramp}]},
            "bodies": [{"name": "block", "mass": 1.0, "inertia": (0.2 ** 2 + 0.1 ** 2) / 12,
                        "geometry": [{"type": "box", "center": [0.0, 0.0], "size": [0.2, 0.1]}],
                        "initial": {"x": x + half_h * s - half_h * s, "y": y, "phi": -alpha}}],
            "forces": [{"name": "contact", "type": "contact_pair", "body1": "ground", "body2": "block",
                        "friction_static": mu_s, "friction_kinetic": mu_k}],
            "simulation": {"t_end": 0.5, "dt": 0.01}}


@pytest.mark.parametrize("alpha_deg", [10.0, 25.0])
def test_block_sticks_while_tan_alpha_below_mu_s(alpha_deg):
    alpha = math.radians(alpha_deg)
    traj = _run(_block_on_incline(alpha, 0.5, 0.4), t_end=0.3)
    assert np.max(np.abs(traj.q - traj.q[0])) < 1e-9
    cols = traj.columns()
    assert np.allclose(cols["contact.contact.normal"], G * math.cos(alpha), rtol=1e-9)
    assert np.allclose(np.abs(cols["contact.contact.friction"]), G * math.sin(alpha), rtol=1e-9)
    assert np.all(cols["contact.contact.state"] == 1.0)
    assert not traj.stats["events"]


@pytest.mark.parametrize("alpha_deg", [30.0, 40.0])
def test_block_slides_with_the_kinetic_acceleration(alpha_deg):
    alpha, mu_k = math.radians(alpha_deg), 0.4
    traj = _run(_block_on_incline(alpha, 0.5, mu_k), t_end=0.5)
    d = (traj.q[:, :2] - traj.q[0, :2]) @ np.array([math.cos(alpha), -math.sin(alpha)])
    a = G * (math.sin(alpha) - mu_k * math.cos(alpha))
    assert np.allclose(d, 0.5 * a * traj.t ** 2, rtol=1e-9, atol=1e-12)
    cols = traj.columns()
    assert np.all(cols["contact.contact.state"] == 2.0)
    assert np.allclose(np.abs(cols["contact.contact.friction"]), mu_k * G * math.cos(alpha), rtol=1e-9)
    # the friction's work: mu_k N times the distance slid; E + D_friction flat
    fr = cols["energy.dissipated.friction"]
    assert fr[-1] == pytest.approx(mu_k * G * math.cos(alpha) * d[-1], rel=1e-8)
    total = traj.kinetic + traj.potential + fr
    assert np.ptp(total) < 1e-8 * max(abs(traj.potential).max(), 1.0)
    assert _balance(traj) < 1e-8


def test_block_on_the_tilting_incline_sample_slips_at_tan_alpha_mu_s():
    traj = _run(_sample("block_on_tilting_incline"), t_end=5.0, rtol=1e-8)
    slips = [ev for ev in traj.stats["events"] if ev["kind"] == "slip"]
    assert len(slips) == 1
    alpha = 0.1 * slips[0]["t"]
    # the ramp's turn (0.1 rad/s, block 1.5 m out) shifts the onset by omega^2 r / g ~ 2e-3 rad at most
    assert alpha == pytest.approx(math.atan(0.5), abs=2e-3)
    cols = traj.columns()
    k = int(np.searchsorted(traj.t, slips[0]["t"])) - 1
    assert abs(cols["contact.friction.friction"][k]) <= 0.5 * cols["contact.friction.normal"][k] * (1 + 1e-9)
    assert _balance(traj) < 1e-8


# ---- c: cam follower lift-off ----------------------------------------------------------------------------------
def _cam(omega: float) -> dict:
    data = _sample("cam_follower_jump")
    data["drivers"][0]["function"]["speed"] = omega
    return data


def test_cam_follower_lifts_off_where_the_contact_force_would_pull():
    m, g, F0, k, e, omega = 0.2, G, 10.0, 200.0, 0.01, 100.0
    assert omega > math.sqrt((m * g + F0) / (m * e) + k / m)  # above the jump speed
    traj = _run(_cam(omega), t_end=0.02)
    lift = [ev for ev in traj.stats["events"] if ev["kind"] == "liftoff"]
    theta = math.asin((m * g + F0) / ((m * omega ** 2 - k) * e))  # N(theta) = 0
    assert lift[0]["t"] == pytest.approx(theta / omega, abs=1e-9)
    cols = traj.columns()
    assert np.min(cols["reaction.contact.contact"]) >= 0.0
    touching = traj.t < lift[0]["t"]
    th = omega * traj.t[touching]
    assert np.allclose(cols["reaction.contact.contact"][touching],
                       m * g + F0 + (k - m * omega ** 2) * e * np.sin(th), rtol=1e-8, atol=1e-9)


def test_cam_follower_below_the_jump_speed_stays_on():
    omega_jump = math.sqrt((0.2 * G + 10.0) / (0.2 * 0.01) + 200.0 / 0.2)
    traj = _run(_cam(0.97 * omega_jump), t_end=2 * math.pi / (0.97 * omega_jump))
    assert not traj.stats["events"]
    assert np.min(traj.columns()["reaction.contact.contact"]) > 0.0


def test_cam_follower_sample_lands_again_with_impacts():
    traj = _run(_sample("cam_follower_jump"), rtol=1e-8)
    kinds = [ev["kind"] for ev in traj.stats["events"]]
    assert kinds[0] == "liftoff" and "impact" in kinds
    first = next(ev for ev in traj.stats["events"] if ev["kind"] == "impact")
    m_eff = 0.2  # the driven cam does not yield: the plunger's mass
    assert first["energy_dissipated_J"] == pytest.approx(0.5 * (1 - 0.3 ** 2) * m_eff * first["approach_speed"] ** 2,
                                                         rel=1e-9)
    assert np.min(traj.columns()["reaction.contact.contact"]) >= 0.0
    assert _balance(traj) < 1e-8


# ---- d: a disk that rolls, then slips ----------------------------------------------------------------------------
def _disk(mu: float, mu_k: float) -> dict:
    data = _sample("planar_rolling_disk_incline")
    data["joints"][0].update(friction_static=mu, friction_kinetic=mu_k, unilateral=True)
    return data


def test_disk_rolls_while_tan_alpha_within_mu_1_plus_m_r2_over_J():
    alpha, m, r, J = math.radians(30), 1.0, 0.1, 0.005
    mu = math.tan(alpha) / (1 + m * r * r / J) * 1.01  # just enough to roll
    traj = _run(_disk(mu, 0.8 * mu), t_end=0.3)
    d = (traj.q[:, :2] - traj.q[0, :2]) @ np.array([math.cos(alpha), -math.sin(alpha)])
    assert np.allclose(d, 0.5 * G * math.sin(alpha) / (1 + J / (m * r * r)) * traj.t ** 2, rtol=1e-9, atol=1e-13)
    assert np.all(traj.columns()["contact.contact.state"] == 1.0)


def test_disk_slips_beyond_and_its_accelerations_are_the_kinetic_ones():
    alpha, m, r, J = math.radians(30), 1.0, 0.1, 0.005
    mu = math.tan(alpha) / (1 + m * r * r / J) * 0.99
    mu_k = 0.8 * mu
    traj = _run(_disk(mu, mu_k), t_end=0.3)
    d = (traj.q[:, :2] - traj.q[0, :2]) @ np.array([math.cos(alpha), -math.sin(alpha)])
    assert np.allclose(d, 0.5 * G * (math.sin(alpha) - mu_k * math.cos(alpha)) * traj.t ** 2, rtol=1e-9,
                       atol=1e-13)
    spin = traj.coordinate("disk.phi") - traj.q[0, 2]
    assert np.allclose(-spin, 0.5 * mu_k * m * G * math.cos(alpha) * r / J * traj.t ** 2, rtol=1e-9, atol=1e-13)
    cols = traj.columns()
    assert np.all(cols["contact.contact.state"] == 2.0)
    total = traj.kinetic + traj.potential + cols["energy.dissipated.friction"]
    assert np.ptp(total) < 1e-8 * max(abs(traj.potential).max(), 1.0)
    assert _balance(traj) < 1e-8


def test_disk_sample_rolls_then_slips():
    traj = _run(_sample("disk_rolls_then_slips"), rtol=1e-8)
    kinds = [ev["kind"] for ev in traj.stats["events"]]
    assert kinds == ["slip"]
    ev = traj.stats["events"][0]
    cols = traj.columns()
    k = int(np.searchsorted(traj.t, ev["t"]))
    assert cols["contact.roll.state"][k - 1] == 1.0 and cols["contact.roll.state"][k + 1] == 2.0
    assert _balance(traj) < 1e-8


# ---- e: contact pairs of other shapes ---------------------------------------------------------------------------
def test_disk_rolls_on_a_ground_box_contact_pair_like_the_rolling_element():
    """A disk on a tilted ground box through a frictional contact pair rolls (point-line stick row) with the
    rolling disk's acceleration g sin(alpha) / (1 + J / (m r^2))."""
    alpha, r, J = math.radians(20), 0.1, 0.005
    c, s = math.cos(alpha), math.sin(alpha)
    data = {"format": "mechanism-studio-model", "version": 1, "name": "d", "kind": "planar",
            "gravity": [0.0, -G],
            "ground": {"geometry": [{"type": "polygon", "vertices": [[-1.0 * c, 1.0 * s], [2 * c, -2 * s],
                                                                     [2 * c, -3.0], [-1.0 * c, -3.0]]}]},
            "bodies": [{"name": "disk", "mass": 1.0, "inertia": J,
                        "geometry": [{"type": "disk", "center": [0.0, 0.0], "radius": r}],
                        "initial": {"x": r * s, "y": r * c, "phi": 0.0}}],
            "forces": [{"name": "pair", "type": "contact_pair", "body1": "ground", "body2": "disk",
                        "friction_static": 0.6}],
            "simulation": {"t_end": 0.3, "dt": 0.01}}
    traj = _run(data)
    d = (traj.q[:, :2] - traj.q[0, :2]) @ np.array([c, -s])
    assert np.allclose(d, 0.5 * G * s / (1 + J / r ** 2) * traj.t ** 2, rtol=1e-9, atol=1e-13)
    assert np.allclose(traj.coordinate("disk.phi"), -d / r, rtol=1e-9, atol=1e-12)


def test_contact_pair_errors_are_statuses_with_the_pointer():
    data = _sample("bouncing_ball")
    bad = copy.deepcopy(data)
    bad["forces"][0]["shape1"] = 3
    model = model_from_data(bad, "ball.json")
    traj = run(compile_model(model), SimulationSettings.from_model(model, t_end=0.1))
    assert traj.status == Status.FAILED and "ball.json:/forces/0/shape1" in traj.message
    bad = copy.deepcopy(data)
    bad["ground"]["geometry"] = [{"type": "polygon", "vertices": [[0, 0], [2, 0], [1, 0.2], [2, 1], [0, 1]]}]
    model = model_from_data(bad, "ball.json")
    traj = run(compile_model(model), SimulationSettings.from_model(model, t_end=0.1))
    assert traj.status == Status.FAILED and "not convex" in traj.message


def test_a_model_without_contacts_runs_as_before():
    traj = _run(_sample("planar_rolling_disk_incline"), t_end=0.1)
    assert traj.stats["mode"] == "continuous" and "events" not in traj.stats


# ---- the command line: the CSV's contact columns and the events file ------------------------------------------------
def test_simulate_writes_contact_columns_and_the_events_beside_the_csv(tmp_path, capsys):
    from cli_helpers import run_cli

    from mechstudio.core.run.results import read_csv
    out = tmp_path / "ball.csv"
    rc, text, err = run_cli(["simulate", SAMPLES / "bouncing_ball.json", "--t-end", "1.3", "--out", out], capsys)
    assert rc == 0, err
    assert "contacts: 2 events" in text + err
    cols = read_csv(out)
    for name in ("contact.floor.gap", "contact.floor.normal", "contact.floor.state", "contact.floor.Fy",
                 "energy.dissipated.impact", "energy.dissipated.friction"):
        assert name in cols and len(cols[name]) == 131
    lines = (tmp_path / "ball.events.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "t,kind,contact,details" and len(lines) == 3
    t, kind, contact, details = lines[1].split(",")
    assert float(t) == pytest.approx(math.sqrt(2 / G), abs=1e-9) and kind == "impact" and contact == "floor.0"
    assert "impulse_Ns=" in details
