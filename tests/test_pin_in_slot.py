"""Pin in slot (issue 15 item 1), checked against a second formulation of the same mechanism.

sample_models/slotted_lever.json: a crank pinned at O carries a pin that slides in the slot of a lever pinned at
P. The same mechanism is built a second way without the new element: a (nearly) massless slider block rides in the
slot on a prismatic joint (constant angle to the lever, its point on the slot's line) and carries the crank's
pin on a revolute joint. Both have one degree of freedom and the same physics; they differ in coordinates
(6 vs 9) and equations (5 vs 8).

* At the same states the accelerations of crank and lever agree to 1e-10 and the constraint force on the crank
  (pin in slot vs the block's revolute) to 1e-9 N: both are linear solves in double precision of the same
  physics (the 1e-12 kg block changes forces by ~1e-11 N); measured differences 9e-12 (accelerations, of
  size ~10) and 2e-11 N (forces of size ~10 N), so the tolerances leave a margin of ~10 to 50.
* Integrated for 2.1 s with rtol 1e-11 / atol 1e-12, the crank angles agree to 1e-8 rad: both integrate the
  same one-degree-of-freedom motion to that tolerance with different coordinates and step sequences. Measured:
  the two differ by 7e-11 rad (1.5e-11 at rtol 1e-12), and each moves by 3e-11 / 7e-11 rad between rtol 1e-11
  and 1e-12, so 1e-8 leaves a margin of ~100 over integration error while a modelling difference (a wrong
  slot line or reaction) shows up at the size of the motion itself.
* Energy: no dissipation, so kinetic + potential energy stays constant to 1e-8 J over 3 s (measured 6e-10).
"""
from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np

from mechstudio.core.dynamics import get_formulation
from mechstudio.core.kinematics.assembly import assemble, solve_velocities
from mechstudio.core.model import model_from_data
from mechstudio.core.simulate import simulate
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_models" / "slotted_lever.json"
TIGHT = {"rtol": 1e-11, "atol": 1e-12}
BLOCK_MASS = 1e-12  # [kg] the file format wants a positive mass; its inertial force is ~1e-12 of the crank's


def slot_data() -> dict:
    return json.loads(SAMPLE.read_text())


def block_data() -> dict:
    """The same mechanism with a massless block: prismatic(lever, block) along the slot + revolute(block, crank)."""
    data = copy.deepcopy(slot_data())
    slot = next(j for j in data["joints"] if j["type"] == "pin_in_slot")
    data["joints"].remove(slot)
    lever_phi = next(b for b in data["bodies"] if b["name"] == "lever")["initial"]["phi"]
    data["bodies"].append({"name": "block", "mass": BLOCK_MASS, "inertia": 0.0, "com": [0.0, 0.0],
                           "points": {"c": [0.0, 0.0]}, "initial": {"x": 0.5, "y": 0.0, "phi": lever_phi}})
    data["joints"] += [
        {"name": "rail", "type": "prismatic", "body1": slot["body1"], "point1": slot["point1"], "body2": "block",
         "point2": "c", "axis": slot["axis"], "angle": 0.0},
        {"name": "block_pin", "type": "revolute", "body1": "block", "point1": "c", "body2": slot["body2"],
         "point2": slot["point2"]},
    ]
    return data


def block_state(sb, ss, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The block model's (q, q') for the slot model's state: the block sits at the pin, turned with the lever."""
    qb, vb = np.zeros(sb.n), np.zeros(sb.n)
    for name in ("crank", "lever"):
        qb[3 * sb.index[name]:3 * sb.index[name] + 3] = q[3 * ss.index[name]:3 * ss.index[name] + 3]
        vb[3 * sb.index[name]:3 * sb.index[name] + 3] = v[3 * ss.index[name]:3 * ss.index[name] + 3]
    k, c, lv = sb.index["block"], ss.index["crank"], ss.index["lever"]
    arm = np.array([0.5 - 0.25, 0.0])  # the crank's pin b = (0.5, 0) from its centre of mass (0.25, 0)
    ph = q[3 * c + 2]
    rot = np.array([[math.cos(ph), -math.sin(ph)], [math.sin(ph), math.cos(ph)]]) @ arm
    qb[3 * k:3 * k + 2] = q[3 * c:3 * c + 2] + rot
    qb[3 * k + 2] = q[3 * lv + 2]
    vb[3 * k:3 * k + 2] = v[3 * c:3 * c + 2] + v[3 * c + 2] * np.array([-rot[1], rot[0]])
    vb[3 * k + 2] = v[3 * lv + 2]
    return qb, vb


def test_slot_and_block_models_agree_state_by_state():
    ms, mb = model_from_data(slot_data()), model_from_data(block_data())
    ss, sb = compile_model(ms), compile_model(mb)
    assert (ss.n, ss.m, sb.n, sb.m) == (6, 5, 9, 8)
    traj = simulate(ms, t_end=2.1, dt=0.1)
    assert traj.status == Status.FINISHED, traj.message
    fs, fb = get_formulation("projection")(ss), get_formulation("projection")(sb)
    for q, v, t in zip(traj.frames.q[::4], traj.frames.v[::4], traj.frames.t[::4]):
        qb, vb = block_state(sb, ss, q, v)
        assert np.linalg.norm(sb.phi(qb, t)) < 1e-9 and np.linalg.norm(sb.constraint_matrix(qb, t) @ vb) < 1e-9
        a_s, a_b = fs.reactions(q, v, t), fb.reactions(qb, vb, t)
        for name in ("crank", "lever"):
            np.testing.assert_allclose(a_s.qdd[3 * ss.index[name]:3 * ss.index[name] + 3],
                                       a_b.qdd[3 * sb.index[name]:3 * sb.index[name] + 3], atol=1e-10)
        r_slot = ss.reactions(q, a_s.lam, t)["slot"]
        r_pin = sb.reactions(qb, a_b.lam, t)["block_pin"]  # both: the force on the crank at its pin
        np.testing.assert_allclose(r_slot, r_pin, atol=1e-9)
        assert abs(r_slot[5]) < 1e-12


def test_slot_and_block_trajectories_agree():
    ms, mb = model_from_data(slot_data()), model_from_data(block_data())
    ts = simulate(ms, t_end=2.1, dt=0.05, **TIGHT)
    tb = simulate(mb, t_end=2.1, dt=0.05, **TIGHT)
    assert ts.status == tb.status == Status.FINISHED
    ks, kb = 3 * ts.system.index["crank"] + 2, 3 * tb.system.index["crank"] + 2
    assert np.ptp(ts.frames.q[:, ks]) > 1.0  # it really swings
    np.testing.assert_allclose(ts.frames.q[:, ks], tb.frames.q[:, kb], atol=1e-8)


def test_sample_conserves_energy_and_keeps_the_pin_on_the_slot_line():
    traj = simulate(str(SAMPLE), **TIGHT)
    assert traj.status == Status.FINISHED, traj.message
    assert np.ptp(traj.frames.total) < 1e-8
    s = traj.system
    for q in traj.frames.q[::25]:
        pin = s.point_position(q, "crank", (0.5, 0.0))
        p, a = s.point_position(q, "lever", (0.0, 0.0)), s.point_position(q, "lever", (1.0, 0.0))
        d = (a - p) / np.linalg.norm(a - p)
        assert abs(d[0] * (pin - p)[1] - d[1] * (pin - p)[0]) < 1e-10  # distance of the pin from the slot line


def test_assembly_from_a_perturbed_start():
    s = compile_model(model_from_data(slot_data()))
    q0 = s.initial_guess() + 0.01
    res = assemble(s, q0)
    assert np.linalg.norm(s.phi(res.q, 0.0)) < 1e-10
    v, residual = solve_velocities(s, res.q, 0.0)
    assert residual < 1e-12 and v.shape == (6,)
