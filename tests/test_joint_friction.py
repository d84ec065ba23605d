"""Coulomb friction in joints (docs/contact.md, "Joint friction") against closed forms and independent integration.

* A pendulum (a bar on a revolute with pin radius r and friction mu) against the 1-DOF equation integrated here by
  scipy's solve_ivp: J_O phi'' = -m g l cos(phi) - mu r sigma |F|, F = m (a_c - g) the pin force, solved for phi''
  at every evaluation (a scalar root: the left side minus the right is strictly increasing in phi'' because
  mu r m l < J_O); phase by phase, the stops where phi' = 0 and the stick test l |cos phi| <= mu r (at rest
  |F| = m g). Tolerance 1e-7 rad on the angle and 1e-8 s on the stop times: both integrations run at rtol
  1e-11..1e-12, the measured differences are 7e-12 rad and 4e-13 s (the events are located to 1e-12 s).
* A block on a prismatic joint (and a pin in a slot) on an incline: sticks while tan(alpha) < mu_s (position to
  1e-9 m, friction m g sin(alpha)); slides with a = g (sin(alpha) - mu_k cos(alpha)) (1e-9 relative); thrown up
  the incline it stops at t* = v0 / (g (sin(alpha) + mu_k cos(alpha))) (the event to 1e-9 s) and sticks there.
* Energy: energy.total + energy.dissipated.friction flat to 1e-8 relative (the dissipation is a quadrature of the
  friction power on the dense output, ~1e-12 relative per step).
* A friction-free model is unchanged bit for bit (the contact machinery is not even constructed).
* The slide's relative coordinate: its rate's gradient G and quadratic term b against finite differences.
* The free-body balance (tests/free_body.py) holds with the friction in the reported reactions, and fails
  without it.
"""
from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from mechstudio.core.contact.contacts import contact_set
from mechstudio.core.contact.joint_friction import JointFriction
from mechstudio.core.model import load_model, model_from_data
from mechstudio.core.errors import ModelError
from mechstudio.core.simulate import simulate
from mechstudio.core.types import Status

from tests.free_body import Run, imbalance

ROOT = Path(__file__).resolve().parents[1]
G = 9.81


def _model(bodies: list[dict], joints: list[dict], t_end: float, dt: float = 0.01, **extra: Any) -> dict[str, Any]:
    return {"format": "mechanism-studio-model", "version": 1, "name": "jf", "kind": "planar", "gravity": [0.0, -G],
            "ground": {"points": {"O": [0.0, 0.0]}}, "bodies": bodies, "joints": joints, "drivers": [],
            "forces": [], "simulation": {"t_end": t_end, "dt": dt, "rtol": 1e-11, "atol": 1e-13}, **extra}


# ---- pendulum with pin friction ----------------------------------------------------------------------------------
M, L, JC, R_PIN = 2.0, 0.5, 0.1, 0.1


def pendulum(mu: float | None = 0.4, phi0: float = 0.0, t_end: float = 4.0, **pin: Any) -> dict[str, Any]:
    joint = {"name": "pin", "type": "revolute", "body1": "ground", "point1": "O", "body2": "bar", "point2": "a"}
    if mu is not None:
        joint.update(friction_static=mu, pin_radius=R_PIN)
    joint.update(pin)
    bar = {"name": "bar", "mass": M, "inertia": JC, "com": [L, 0.0], "points": {"a": [0.0, 0.0]},
           "initial": {"x": 0.0, "y": 0.0, "phi": phi0}}
    return _model([bar], [joint], t_end)


def pendulum_reference(mu: float, phi0: float, times: np.ndarray) -> tuple[np.ndarray, list[float], float]:
    """phi at ``times``, the stop times and the angle where it sticks (module docstring), by solve_ivp."""
    jo = JC + M * L * L

    def accel(phi: float, w: float, sigma: float) -> float:
        def f(x: float) -> float:
            t_hat, r_hat = np.array([-math.sin(phi), math.cos(phi)]), np.array([math.cos(phi), math.sin(phi)])
            force = M * (L * x * t_hat - L * w * w * r_hat - np.array([0.0, -G]))
            return jo * x + M * G * L * math.cos(phi) + mu * R_PIN * sigma * float(np.linalg.norm(force))
        return brentq(f, -1e4, 1e4, xtol=1e-15, rtol=1e-15)

    out = np.full(len(times), np.nan)
    stops: list[float] = []
    t, y = 0.0, np.array([phi0, 0.0])
    sigma = -math.copysign(1.0, math.cos(phi0))  # from rest: moves the way gravity turns it
    while t < times[-1]:
        def rhs(_t: float, s: np.ndarray) -> list[float]:
            return [s[1], accel(s[0], s[1], sigma)]

        def stop(_t: float, s: np.ndarray) -> float:
            return s[1]
        stop.terminal, stop.direction = True, sigma * -1.0
        mask = times >= t
        sol = solve_ivp(rhs, (t, times[-1]), y, method="DOP853", rtol=1e-12, atol=1e-14, events=stop,
                        dense_output=True)
        t_end = float(sol.t[-1])
        inside = mask & (times <= t_end)
        out[inside] = sol.sol(times[inside])[0]
        if sol.status != 1:
            break
        t, y = t_end, np.array([sol.y_events[0][0][0], 0.0])
        stops.append(t)
        if L * abs(math.cos(y[0])) <= mu * R_PIN:  # sticks for good (at rest |F| = m g)
            out[times > t] = y[0]
            return out, stops, float(y[0])
        sigma = -sigma
    return out, stops, math.nan


MU_PIN = 0.6  # comes to rest after five swings, within 4.5 s


@lru_cache(maxsize=None)
def pendulum_run() -> Any:
    return simulate(model_from_data(pendulum(MU_PIN, 0.0, t_end=4.5)))


def test_pendulum_with_pin_friction_matches_independent_integration() -> None:
    mu, phi0 = MU_PIN, 0.0
    traj = pendulum_run()
    assert traj.status == Status.FINISHED, traj.message
    cols = traj.columns(points=())
    ref, stops, rest = pendulum_reference(mu, phi0, cols["t"])
    assert np.max(np.abs(cols["q.bar.phi"] - ref)) < 1e-7
    events = [e for e in traj.stats["events"] if e["contact"] == "pin" and e["kind"] == "stop"]
    assert len(events) == len(stops) >= 3
    assert np.max(np.abs(np.array([e["t"] for e in events]) - stops)) < 1e-8
    assert not math.isnan(rest)  # it comes to rest near the bottom, where l |cos(phi)| <= mu r
    assert cols["reaction.pin.state"][-1] == 1.0 and cols["reaction.pin.state"][1] == 2.0
    # the friction moment: mu r |F| while slipping, the joint's reported Mz (a couple on the bar)
    slip = cols["reaction.pin.state"] == 2.0
    size = np.hypot(cols["reaction.pin.Fx"], cols["reaction.pin.Fy"])
    assert np.allclose(np.abs(cols["reaction.pin.friction"][slip]), mu * R_PIN * size[slip], rtol=1e-12, atol=0)
    # (the pin's own rows add no moment: round-off only)
    assert np.allclose(cols["reaction.pin.Mz"], cols["reaction.pin.friction"], rtol=0, atol=1e-12)
    # at rest: the moment of gravity about the pin, within mu_s r m g
    end = cols["reaction.pin.friction"][-1]
    assert end == pytest.approx(M * G * L * math.cos(rest), rel=1e-6, abs=1e-9)
    assert abs(end) <= mu * R_PIN * M * G


def test_pendulum_energy_balance_with_joint_friction() -> None:
    cols = pendulum_run().columns(points=())
    lost = cols["energy.dissipated.friction"]
    total = cols["energy.total"] + lost
    scale = float(np.max(np.abs(cols["energy.kinetic"])) + abs(cols["energy.potential"][0]))
    assert np.max(np.abs(total - total[0])) / scale < 1e-8
    assert lost[-1] > 0.3 * M * G * L  # most of the initial height is lost to the pin
    assert np.all(np.diff(lost) >= -1e-15)
    wn = cols["energy.total"] - cols["work.nonconservative"]
    assert np.max(np.abs(wn - wn[0])) / scale < 1e-8


def test_friction_free_model_unchanged_bit_for_bit() -> None:
    plain = model_from_data(pendulum(None, 0.3, t_end=1.0))
    radius_only = model_from_data(pendulum(None, 0.3, t_end=1.0, pin_radius=0.02))
    a, b = simulate(plain), simulate(radius_only)
    assert contact_set(b.system) is None
    assert a.stats["mode"] != "events" and b.stats["mode"] != "events"
    for key, col in a.columns(points=()).items():
        assert np.array_equal(col, b.columns(points=())[key]), key


# ---- block on an incline: prismatic joint, pin in a slot -----------------------------------------------------------
MU_S, MU_K, MB = 0.5, 0.4, 1.5


def incline(alpha: float, joint_type: str = "prismatic", v0: float = 0.0, t_end: float = 1.0) -> dict[str, Any]:
    joint = {"name": "guide", "type": joint_type, "body1": "ground", "point1": "O", "body2": "block",
             "point2": "c", "axis": [math.cos(alpha), math.sin(alpha)], "friction_static": MU_S,
             "friction_kinetic": MU_K}
    block = {"name": "block", "mass": MB, "inertia": 0.02, "com": [0.0, 0.0], "points": {"c": [0.0, 0.0]},
             "initial": {"x": 0.0, "y": 0.0, "phi": 0.0}}
    extra = {"initial_velocities": [{"body": "block", "coordinate": "x", "value": v0 * math.cos(alpha)}]} if v0 else {}
    return _model([block], [joint], t_end, **extra)


def along(cols: dict[str, np.ndarray], alpha: float) -> np.ndarray:
    return cols["q.block.x"] * math.cos(alpha) + cols["q.block.y"] * math.sin(alpha)


@pytest.mark.parametrize("joint_type", ["prismatic", "pin_in_slot"])
@pytest.mark.parametrize("degrees", [10.0, 25.0])
def test_block_sticks_while_tan_alpha_below_mu_s(joint_type: str, degrees: float) -> None:
    alpha = math.radians(degrees)
    traj = simulate(model_from_data(incline(alpha, joint_type)))
    assert traj.status == Status.FINISHED, traj.message
    cols = traj.columns(points=())
    assert np.max(np.abs(along(cols, alpha))) < 1e-9
    assert np.all(cols["reaction.guide.state"] == 1.0)
    # the friction holds the block: m g sin(alpha) up the incline (on the block, along +axis)
    assert np.allclose(cols["reaction.guide.friction"], MB * G * math.sin(alpha), rtol=1e-9)
    assert traj.stats["events"] == []


@pytest.mark.parametrize("joint_type", ["prismatic", "pin_in_slot"])
@pytest.mark.parametrize("degrees", [30.0, 40.0])
def test_block_slides_with_kinetic_friction(joint_type: str, degrees: float) -> None:
    alpha = math.radians(degrees)
    traj = simulate(model_from_data(incline(alpha, joint_type)))
    cols = traj.columns(points=())
    a = G * (math.sin(alpha) - MU_K * math.cos(alpha))
    t = cols["t"]
    assert np.allclose(along(cols, alpha), -0.5 * a * t * t, rtol=1e-9, atol=1e-12)
    assert np.all(cols["reaction.guide.state"][1:] == 2.0)
    normal = MB * G * math.cos(alpha)
    assert np.allclose(cols["reaction.guide.friction"][1:], MU_K * normal, rtol=1e-9)
    # energy: the friction dissipates mu_k N times the distance
    assert np.allclose(cols["energy.dissipated.friction"], MU_K * normal * 0.5 * a * t * t, rtol=1e-8, atol=1e-12)


def test_block_thrown_up_the_incline_stops_and_sticks() -> None:
    alpha, v0 = math.radians(20.0), 2.0
    traj = simulate(model_from_data(incline(alpha, v0=v0, t_end=1.0)))
    cols = traj.columns(points=())
    dec = G * (math.sin(alpha) + MU_K * math.cos(alpha))
    t_stop = v0 / dec
    stops = [e for e in traj.stats["events"] if e["kind"] == "stop"]
    assert len(stops) == 1 and stops[0]["t"] == pytest.approx(t_stop, abs=1e-9)
    t = cols["t"]
    s = np.where(t < t_stop, v0 * t - 0.5 * dec * t * t, v0 * v0 / (2.0 * dec))
    assert np.allclose(along(cols, alpha), s, rtol=1e-9, atol=1e-10)
    after = t > t_stop
    assert np.all(cols["reaction.guide.state"][after] == 1.0)
    assert np.allclose(cols["reaction.guide.friction"][after], MB * G * math.sin(alpha), rtol=1e-9)


# ---- the slide's relative coordinate ----------------------------------------------------------------------------
def test_slide_relative_coordinate_against_finite_differences() -> None:
    rng = np.random.default_rng(7)
    jf = JointFriction("slide", (0,), 0, 1, (0.3, -0.2), (-0.1, 0.4), (0.6, 0.8), 1.0)
    q, v, a = rng.normal(size=6), rng.normal(size=6), rng.normal(size=6)
    s0, G0, b0 = jf.relative(q, v)
    h = 1e-6
    # s' = G q' (central difference of s along q'), s'' = G q'' + b (of s' along the motion)
    sp = (jf.relative(q + h * v, v)[0] - jf.relative(q - h * v, v)[0]) / (2 * h)
    assert sp == pytest.approx(float(G0 @ v), rel=1e-8)

    def rate(tau: float) -> float:
        qt, vt = q + tau * v + 0.5 * tau * tau * a, v + tau * a
        return float(jf.relative(qt, vt)[1] @ vt)
    spp = (rate(h) - rate(-h)) / (2 * h)
    assert spp == pytest.approx(float(G0 @ a) + b0, rel=1e-7)


# ---- model checks -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("change, pointer, words", [
    ({"friction_static": 0.2, "friction_kinetic": 0.3}, "/joints/0/friction_kinetic", "must not exceed"),
    ({"friction_kinetic": 0.3}, "/joints/0/friction_kinetic", "needs friction_static"),
    ({"friction_static": 0.2}, "/joints/0/pin_radius", "needs its pin_radius"),
    ({"friction_static": -0.2, "pin_radius": 0.01}, "/joints/0/friction_static", "at least 0"),
])
def test_bad_friction_fields_named(change: dict[str, Any], pointer: str, words: str) -> None:
    data = pendulum(None)
    data["joints"][0].update(change)
    with pytest.raises(ModelError) as err:
        model_from_data(data, "<pendulum>")
    text = str(err.value)
    assert pointer in text and words in text


# ---- free-body balance -----------------------------------------------------------------------------------------
def _balance_cases() -> dict[str, dict[str, Any]]:
    sample = json.loads((ROOT / "sample_models" / "slider_crank_joint_friction.json").read_text(encoding="utf-8"))
    sample["simulation"].update(t_end=1.0, dt=0.01)
    moving_slot = incline(math.radians(35.0), "pin_in_slot")
    # the slot in a swinging bar (the friction force acts at the pin on both bodies), pin off the block's centre
    moving_slot["bodies"].insert(0, {"name": "arm", "mass": 1.0, "inertia": 0.3, "com": [0.4, 0.0],
                                     "points": {"a": [0.0, 0.0], "s": [0.5, 0.1]},
                                     "initial": {"x": 0.0, "y": 0.0, "phi": 0.0}})
    moving_slot["bodies"][1]["initial"] = {"x": 0.5, "y": 0.25, "phi": 0.0}
    moving_slot["bodies"][1]["points"]["c"] = [0.0, 0.15]
    moving_slot["joints"] = [
        {"name": "hinge", "type": "revolute", "body1": "ground", "point1": "O", "body2": "arm", "point2": "a",
         "friction_static": 0.3, "pin_radius": 0.05},
        {**moving_slot["joints"][0], "body1": "arm", "point1": "s", "axis": [1.0, 0.0]}]
    moving_guide = copy.deepcopy(moving_slot)
    moving_guide["joints"][1].update(type="prismatic")
    return {"pendulum": pendulum(MU_PIN, 0.0, t_end=2.0), "incline": incline(math.radians(35.0)),
            "slot in a swinging arm": moving_slot, "guide on a swinging arm": moving_guide,
            "slider_crank_joint_friction.json": sample}


@pytest.mark.parametrize("case", list(_balance_cases()))
def test_free_body_balance_with_joint_friction(case: str) -> None:
    traj = simulate(model_from_data(_balance_cases()[case], f"<{case}>"))
    assert traj.status == Status.FINISHED, traj.message
    run = Run.of(traj)
    assert imbalance(run).worst < 1e-8, imbalance(run)
    # the check sees the friction: without it in the reported reaction the balance fails
    named = [j for j in run.entities.joints if f"reaction.{j.name}.friction" in run.cols]
    assert named
    for j in named:
        friction = run.cols[f"reaction.{j.name}.friction"]
        if np.max(np.abs(friction)) == 0.0:
            continue
        bad = run.copy()
        if j.type == "revolute":
            bad.cols[f"reaction.{j.name}.Mz"] = bad.cols[f"reaction.{j.name}.Mz"] - friction
        else:
            bad.cols[f"reaction.{j.name}.Fx"] = bad.cols[f"reaction.{j.name}.Fx"] * 0.999
            bad.cols[f"reaction.{j.name}.Fy"] = bad.cols[f"reaction.{j.name}.Fy"] * 0.999
        assert imbalance(bad).worst > 1e-5, j.name


# ---- the sample ------------------------------------------------------------------------------------------------
def test_sample_simulates_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "r.csv"
    sample = ROOT / "sample_models" / "slider_crank_joint_friction.json"
    short = json.loads(sample.read_text(encoding="utf-8"))
    short["simulation"]["t_end"] = 0.7  # the first two reversals (B, then the slide); the whole run takes a minute
    path = tmp_path / sample.name
    path.write_text(json.dumps(short), encoding="utf-8")
    res = subprocess.run([sys.executable, "-m", "mechstudio", "simulate", str(path), "--out", str(out)],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert res.returncode == 0, res.stderr + res.stdout
    header = out.read_text(encoding="utf-8").split("\n", 1)[0].split(",")
    for name in ("O", "A", "B", "slide"):
        assert f"reaction.{name}.friction" in header and f"reaction.{name}.state" in header
    assert "energy.dissipated.friction" in header
    events = (tmp_path / "r.events.csv").read_text(encoding="utf-8")
    assert ",stop,B," in events and ",stop,slide," in events
    assert load_model(sample).entities.kind == "planar"
