"""Planar kinematics (source 003): analytic Jacobians, gamma, assembly, DOF, redundancy, driven motion.

Independent references: central finite differences of Phi and of Phi_q q' + Phi_t (step 1e-6: truncation
~1e-12, round-off ~1e-10 relative, hence the 1e-7 tolerances); the closed-form slider-crank differentiated by
sympy; the loop-closure description of the three-bar chain.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.kinematics.assembly import assemble, dof_report, rank_analysis
from mechstudio.core.model import load_model, loads_model
from mechstudio.core.systems.compile import compile_model

ROOT = Path(__file__).resolve().parents[1]


def every_element_model() -> dict:
    """A (not necessarily assemblable) model with every planar joint, driver and the knife edge."""
    def body(name, com=(0.3, 0.1)):
        return {"name": name, "mass": 1.5, "inertia": 0.2, "com": list(com),
                "points": {"p": [0.7, -0.2], "q": [-0.4, 0.5]}}
    return {
        "format": "mechanism-studio-model", "version": 1, "kind": "planar",
        "ground": {"points": {"O": [0.1, 0.2], "R": [1.0, -0.5]}},
        "bodies": [body("a"), body("b", (0.0, 0.0)), body("c", (-0.2, 0.4)), body("d")],
        "joints": [
            {"name": "rev", "type": "revolute", "body1": "ground", "point1": "O", "body2": "a", "point2": "p"},
            {"name": "pri", "type": "prismatic", "body1": "a", "point1": "q", "body2": "b", "point2": "p",
             "axis": [0.6, 0.8], "angle": 0.3},
            {"name": "wld", "type": "weld", "body1": "b", "point1": "q", "body2": "c", "point2": "p", "angle": -0.4},
            {"name": "rev2", "type": "revolute", "body1": "c", "point1": "q", "body2": "d", "point2": [0.2, 0.3]},
            {"name": "pri_g", "type": "prismatic", "body1": "ground", "point1": "R", "body2": "d", "point2": "q",
             "axis": [1.0, 0.0]},
            {"name": "blade", "type": "knife_edge", "body": "d", "point": "p", "axis": [0.3, -1.0]},
        ],
        "drivers": [
            {"name": "ang", "type": "joint_angle", "joint": "rev2",
             "function": {"type": "harmonic", "amplitude": 0.5, "frequency": 2.0, "phase": 0.1, "offset": 0.2}},
            {"name": "dist", "type": "joint_distance", "joint": "pri",
             "function": {"type": "expression", "expression": "0.3 + 0.1*sin(3*t) + t^2/4"}},
            {"name": "crd", "type": "coordinate", "body": "d", "coordinate": "x",
             "function": {"type": "polynomial", "coefficients": [0.1, -0.5, 0.25, 0.3]}},
        ],
    }


@pytest.fixture(scope="module")
def system():
    return compile_model(loads_model(json.dumps(every_element_model())))


def test_every_type_is_present(system):
    types = {c.type for c in system.constraints}
    assert {"revolute", "prismatic", "weld", "knife_edge", "driver"} <= types
    assert system.m_nonholonomic == 1


@pytest.mark.parametrize("seed", range(5))
def test_jacobian_matches_finite_differences(system, seed):
    rng = np.random.default_rng(seed)
    q, t, h = rng.uniform(-2, 2, system.n), rng.uniform(0, 3), 1e-6
    J = system.phi_q(q, t)
    fd = np.column_stack([(system.phi(q + h * e, t) - system.phi(q - h * e, t)) / (2 * h) for e in np.eye(system.n)])
    np.testing.assert_allclose(J, fd, rtol=1e-7, atol=1e-7)
    phi_t = (system.phi(q, t + h) - system.phi(q, t - h)) / (2 * h)
    np.testing.assert_allclose(system.phi_t(q, t), phi_t, rtol=1e-7, atol=1e-7)
    # C's holonomic block is Phi_q
    np.testing.assert_allclose(system.constraint_matrix(q, t)[:system.m_holonomic], J, atol=1e-15)


@pytest.mark.parametrize("seed", range(5))
def test_eta_is_time_derivative_of_velocity_constraints(system, seed):
    """eta = d/dt (C q' + xi) at q'' = 0 (so gamma = -eta_holonomic is the derivative of -(Phi_q q' + Phi_t))."""
    rng = np.random.default_rng(100 + seed)
    q, v, t, h = rng.uniform(-2, 2, system.n), rng.uniform(-3, 3, system.n), rng.uniform(0, 3), 1e-6

    def vel(tau: float) -> np.ndarray:
        return system.constraint_matrix(q + tau * v, t + tau) @ v + system.xi(q + tau * v, t + tau)
    fd = (vel(h) - vel(-h)) / (2 * h)
    np.testing.assert_allclose(system.eta(q, v, t), fd, rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(system.gamma(q, v, t), -fd[:system.m_holonomic], rtol=1e-7, atol=1e-7)


def test_wrong_jacobian_would_be_detected(system):
    """The finite-difference check can fail: perturb one analytic entry and it must."""
    q, t, h = np.linspace(-1, 1, system.n), 0.3, 1e-6
    J = system.phi_q(q, t).copy()
    J[2, 5] += 1e-4
    fd = np.column_stack([(system.phi(q + h * e, t) - system.phi(q - h * e, t)) / (2 * h) for e in np.eye(system.n)])
    assert not np.allclose(J, fd, rtol=1e-7, atol=1e-7)


def test_four_bar_assembles_from_rough_guess():
    system = compile_model(load_model(ROOT / "sample_models" / "four_bar.json"))
    q0 = system.initial_guess()
    assert np.linalg.norm(system.phi(q0, 0.0)) > 1e-3  # the file's positions really are rough
    res = assemble(system, q0, 0.0, hold=system.held_coordinates())
    assert res.status.ok
    assert np.linalg.norm(system.phi(res.q, 0.0)) < 1e-12
    assert res.q[2] == pytest.approx(np.pi / 3, abs=1e-15)  # crank angle held at 60 deg
    # B above the line A-D
    A = system.point_position(res.q, "crank", (1.0, 0.0))
    B = system.point_position(res.q, "rocker", (3.0, 0.0))
    D = np.array([4.0, 0.0])
    assert (D - A)[0] * (B - A)[1] - (D - A)[1] * (B - A)[0] > 0
    np.testing.assert_allclose([np.linalg.norm(B - A), np.linalg.norm(B - D)], [3.5, 3.0], atol=1e-12)


def test_three_bar_has_one_dof_in_both_descriptions():
    # (1) three absolute link angles with two loop-closure equations (source 003)
    l1, l2, l3, d = 1.0, 3.5, 3.0, 4.0
    th = np.array([np.pi / 3, 0.6287, 1.7958])
    J_loop = np.array([[-l1 * np.sin(th[0]), -l2 * np.sin(th[1]), l3 * np.sin(th[2])],
                       [l1 * np.cos(th[0]), l2 * np.cos(th[1]), -l3 * np.cos(th[2])]])
    assert 3 - rank_analysis(J_loop).rank == 1
    # (2) nine Cartesian coordinates with eight joint equations
    system = compile_model(load_model(ROOT / "sample_models" / "four_bar.json"))
    res = assemble(system, system.initial_guess(), 0.0, hold=system.held_coordinates())
    rep = dof_report(system, res.q)
    assert (system.n, system.m_holonomic, rep.dof_positions, rep.redundant) == (9, 8, 1, ())


def test_parallelogram_has_exactly_one_named_redundant_constraint():
    system = compile_model(load_model(ROOT / "sample_models" / "parallelogram.json"))
    res = assemble(system, system.initial_guess(), 0.0)
    rep = dof_report(system, res.q)
    assert rep.dof_positions == 1
    assert len(rep.redundant) == 1
    name, comp = rep.redundant[0].split(".")
    assert name in {c.name for c in system.constraints} and comp in ("x", "y")


def test_redundancy_needs_the_third_crank():
    doc = json.loads((ROOT / "sample_models" / "parallelogram.json").read_text())
    doc["joints"] = [j for j in doc["joints"] if j["name"] not in ("M", "C")]
    doc["bodies"] = [b for b in doc["bodies"] if b["name"] != "crank2"]
    system = compile_model(loads_model(json.dumps(doc)))
    res = assemble(system, system.initial_guess(), 0.0)
    rep = dof_report(system, res.q)
    assert (rep.dof_positions, rep.redundant) == (1, ())


def test_driven_slider_crank_matches_closed_form():
    system = compile_model(load_model(ROOT / "sample_models" / "slider_crank_driven.json"))
    t = sp.Symbol("t")
    r, l, w = 1.0, 3.0, 2 * sp.pi
    x = r * sp.cos(w * t) + sp.sqrt(l ** 2 - r ** 2 * sp.sin(w * t) ** 2)
    fx = [sp.lambdify(t, e) for e in (x, sp.diff(x, t), sp.diff(x, t, 2))]
    times = np.linspace(0.0, 1.0, 51)
    res = driven_motion(system, times)
    assert res.status.ok, res.message
    k = system.coord_names.index("slider.x")
    for arr, f in zip((res.q, res.v, res.a), fx):
        np.testing.assert_allclose(arr[:, k], [f(tt) for tt in times], rtol=0, atol=1e-10)
    # the crank follows the driver exactly
    np.testing.assert_allclose(res.q[:, system.coord_names.index("crank.phi")], 2 * np.pi * times, atol=1e-12)


def test_unassemblable_mechanism_fails_with_a_message():
    doc = json.loads((ROOT / "sample_models" / "four_bar.json").read_text())
    doc["ground"]["points"]["D"] = [9.0, 0.0]  # links too short to reach
    system = compile_model(loads_model(json.dumps(doc)))
    res = assemble(system, system.initial_guess(), 0.0, hold=system.held_coordinates())
    assert not res.status.ok
    assert "cannot be assembled" in res.message


def test_driver_out_of_range_stops_kinematics():
    doc = json.loads((ROOT / "sample_models" / "slider_crank_driven.json").read_text())
    doc["drivers"][0] = {"name": "push", "type": "joint_distance", "joint": "slide",
                         "function": {"type": "constant_speed", "initial": 3.0, "speed": 2.0}}
    doc["drivers"].append({"name": "dummy", "type": "coordinate", "body": "slider", "coordinate": "phi",
                           "function": 0.0})
    doc["joints"][3]["angle"] = 0.0
    del doc["drivers"][1]
    system = compile_model(loads_model(json.dumps(doc)))
    res = driven_motion(system, np.linspace(0, 1.0, 21))
    assert not res.status.ok  # the slider is pushed beyond r + l = 4 m
    assert "cannot be assembled" in res.message
