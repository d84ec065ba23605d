"""Six-bar path synthesis (core.analysis.synthesis_sixbar*): the closed form (S1) against the kinematic solver, a
Watt II whose second loop is a parallelogram (link 5 translates), the loop-closure equations (S3) and their Jacobian
against central differences, the six-bars that trace a four-bar's coupler curve (the search's starts), recovery of
known six-bars from more targets than a four-bar passes (checked by driving the written model with the kinematic
solver), with prescribed crank angles and for a Watt I (budgets in evaluations, so deterministic), the deadline
inside the work items and cancellation, and the command's --linkage with its bad input.

Tolerances: the closed form uses the same circle intersections as the solver's assembled pose, which the solver
converges to ||Phi|| <= 1e-12 m: SOLVER_RTOL = 1e-8 of the link scale (tests/sixbar_helpers.py). Residuals of (S3)
at a closed-form pose are round-off (1e-12 of the link scale). Central differences with h = 1e-6 have truncation
error O(h^2 |f'''|) ~ 1e-12 and round-off O(eps / h) ~ 1e-10: 1e-7 absolute for derivatives of order 1. The
acceptance: every target within 1e-4 of the longest link, through the solver (ACCEPT).
"""
from __future__ import annotations

import json
import math
import pickle
import time

import numpy as np
import pytest

from cli_helpers import run_cli
from mechstudio.core.analysis.synthesis_deadline import Deadline, OutOfTime, check_time, working_until
from mechstudio.core.analysis.synthesis_fourbar import FourBarGeometry, newton
from mechstudio.core.analysis.synthesis_search import run_item
from mechstudio.core.analysis.synthesis_sixbar import (TOPOLOGIES, SixBarGeometry, SixBarSystem, check_sixbar,
                                                       normalise_sixbar_state, riding_dyad, watt2_on_drag_link)
from mechstudio.core.analysis.synthesis_sixbar_path import synthesize_sixbar_path
from mechstudio.core.bench.synthesis import SIXBAR_CASES
from mechstudio.core.types import Status
from sixbar_helpers import ACCEPT, SOLVER_RTOL, check_sixbar_model, known_sixbar, model_path, random_sixbar

BUDGET_S = 300.0


@pytest.mark.parametrize("topology", sorted(TOPOLOGIES))
def test_closed_form_path_point_matches_the_kinematic_solver(topology):
    rng = np.random.default_rng(sorted(TOPOLOGIES).index(topology) + 40)
    g, theta = random_sixbar(rng, topology, 9, uneven=True)
    np.testing.assert_allclose(model_path(g, theta), g.coupler_point(theta), rtol=0,
                               atol=SOLVER_RTOL * g.link_scale)


def test_a_parallelogram_second_loop_translates_link5_on_a_circle():
    """Watt II with O4 U parallel and equal to O6 E (U = (r, 0) on the rocker, O6 = O4 + w, E = U + w): link 5
    keeps its direction, so P = U + R(angle of w) (p, q) runs on a circle of radius r about O4 + R(.)(p, q)."""
    base = FourBarGeometry(0.0, 0.0, 0.2, 2.0, 0.6, 1.9, 1.5, 0.0, 0.0, 1)
    r, w = 0.7, np.array([0.9, 0.4])
    O4 = base.O4
    p, q = 0.3, -0.25
    theta = np.linspace(0.0, 2 * math.pi, 25)
    found = 0
    for s2 in (1, -1):
        g = SixBarGeometry.from_vector("watt2", [0.0, 0.0, 0.2, 2.0, 0.6, 1.9, 1.5, r, 0.0, *(O4 + w),
                                                 float(np.hypot(*w)), r, p, q], 1, s2)
        J, ok = g.joints(theta)
        assert ok.all()
        phi5 = np.arctan2(*(J["E"] - J["U"]).T[::-1])
        if np.allclose(phi5, math.atan2(w[1], w[0]), atol=1e-12):
            found += 1
            centre = O4 + np.array([p * w[0] - q * w[1], p * w[1] + q * w[0]]) / np.hypot(*w)
            np.testing.assert_allclose(np.linalg.norm(J["P"] - centre, axis=-1), r, atol=1e-12)
            np.testing.assert_allclose(J["E"] - J["U"], np.broadcast_to(w, J["E"].shape), atol=1e-12)
    assert found == 1  # the other branch is the anti-parallelogram


@pytest.mark.parametrize("topology", sorted(TOPOLOGIES))
@pytest.mark.parametrize("timed", [False, True])
def test_loop_closure_vanishes_on_the_closed_form_and_its_jacobian_matches_differences(topology, timed):
    rng = np.random.default_rng(7)
    g, theta = random_sixbar(rng, topology, 6)
    T = g.coupler_point(theta)
    system = SixBarSystem(T, topology, theta - theta[0] if timed else None)
    x = system.state(g, theta)
    assert np.max(np.abs(system.residuals(x))) <= 1e-12 * g.link_scale
    J = system.jacobian(x)
    h = 1e-6
    numeric = np.column_stack([(system.residuals(x + h * e) - system.residuals(x - h * e)) / (2 * h)
                               for e in np.eye(len(x))])
    np.testing.assert_allclose(J, numeric, rtol=0, atol=1e-7 * max(1.0, g.link_scale))
    # the closed-form pose is a valid traversal on the generating branches
    traversal, why = check_sixbar(system, x)
    assert traversal is not None, why
    assert (traversal.geometry.branch1, traversal.geometry.branch2) == (g.branch1, g.branch2)


@pytest.mark.parametrize("topology", sorted(TOPOLOGIES))
def test_negative_lengths_are_the_same_linkage(topology):
    rng = np.random.default_rng(3)
    g, theta = random_sixbar(rng, topology, 5)
    system = SixBarSystem(g.coupler_point(theta), topology)
    x = system.state(g, theta)
    flipped = x.copy()
    for length, block in ((4, 0), (5, 1), (6, 2), (11, 3), (12, 4)):
        flipped[length] = -flipped[length]
        flipped[system.column(block)] += math.pi
    top = TOPOLOGIES[topology]
    for link, idx in ((top.u_link, [7, 8]), (top.v_link, [9, 10])):
        if link != "ground":
            flipped[idx] = -flipped[idx]
    flipped[[13, 14]] = -flipped[[13, 14]]
    flipped[3], flipped[2] = -flipped[3], flipped[2] + math.pi
    assert np.max(np.abs(system.residuals(flipped))) <= 1e-12 * g.link_scale
    back = normalise_sixbar_state(system, flipped)
    np.testing.assert_allclose(back[:15], x[:15], atol=1e-12)


@pytest.mark.parametrize("topology", sorted(TOPOLOGIES))
def test_six_bars_built_on_a_four_bar_trace_its_coupler_curve(topology):
    four = FourBarGeometry(0.1, 0.2, 0.3, 4.0, 1.0, 3.5, 3.0, 1.2, 1.0, -1)
    theta = np.linspace(0.4, 1.6, 7)
    rng = np.random.default_rng(0)
    for _ in range(10):
        if topology == "watt2":
            found = watt2_on_drag_link(four, theta, rng)
            six, crank = found if found is not None else (None, theta)
        else:
            six, crank = riding_dyad(four, topology, rng, theta), theta
        if six is not None:
            break
    assert six is not None
    np.testing.assert_allclose(six.coupler_point(crank), four.coupler_point(theta), atol=1e-9)
    assert all(six.sweep_reachable(crank[k], crank[k + 1]) for k in range(len(crank) - 1))


# --- recovery ------------------------------------------------------------------------------------------------------

def write_model(candidate, tmp_path, name="six.json"):
    path = tmp_path / name
    path.write_text(json.dumps(candidate.to_model_data()), encoding="utf-8")
    return path


def test_recovers_a_watt_ii_from_eight_points(tmp_path):
    rng = np.random.default_rng(0)
    _, _, targets = known_sixbar(rng, "watt2", 8)
    res = synthesize_sixbar_path(targets, "watt2", seed=0, max_time_s=BUDGET_S)
    assert res.status == Status.CONVERGED, res.message
    best = res.best
    assert best.error <= ACCEPT and best.geometry.topology == "watt2"
    assert check_sixbar_model(write_model(best, tmp_path), targets, best.crank_angles) <= ACCEPT
    curve = best.coupler_curve(721)
    step = float(np.max(np.linalg.norm(np.diff(curve, axis=0), axis=-1)))
    assert all(np.min(np.linalg.norm(curve - t, axis=-1)) <= step for t in targets)


def test_command_recovers_a_stephenson_iii_from_ten_points(tmp_path, capsys):
    """Ten points of a Stephenson III's path (the benchmark's case): more than a four-bar passes (nine)."""
    case = SIXBAR_CASES[0]
    targets = case.targets()
    source = tmp_path / "t.csv"
    source.write_text("x,y\n" + "\n".join(f"{float(x)!r},{float(y)!r}" for x, y in targets) + "\n", encoding="utf-8")
    out_file = tmp_path / "six.json"
    rc, out, err = run_cli(["synthesize", source, "--linkage", "stephenson3", "--seed", str(case.seed), "--out",
                            out_file], capsys)
    assert rc == 0, err
    assert out.startswith("converged:") and "Stephenson III" in out and "link5" in out
    assert "path point link5.P" in err
    line = next(ln for ln in out.splitlines() if "crank angles [deg]:" in ln)
    angles = np.radians([float(v) for v in line.split(":", 1)[1].split(",")])
    assert check_sixbar_model(out_file, targets, angles) <= ACCEPT
    data = json.loads(out_file.read_text(encoding="utf-8"))
    assert {b["name"] for b in data["bodies"]} == {"crank", "coupler", "rocker", "link5", "link6"}
    assert "U" in next(b for b in data["bodies"] if b["name"] == "coupler")["points"]


def test_recovers_a_timed_stephenson_iii_from_six_points(tmp_path):
    """Prescribed crank angles: the result's crank turns by exactly the given rotations. A budget in evaluations
    (no time limit) keeps the search deterministic on any machine."""
    rng = np.random.default_rng(2)
    _, theta, targets = known_sixbar(rng, "stephenson3", 6)
    res = synthesize_sixbar_path(targets, "stephenson3", crank_angles=theta - theta[0] + 0.5, seed=2,
                                 max_time_s=None, max_evaluations=200)
    assert res.status == Status.CONVERGED, res.message
    best = res.best
    np.testing.assert_allclose(np.diff(best.crank_angles), np.diff(theta), rtol=0, atol=1e-9)
    assert check_sixbar_model(write_model(best, tmp_path), targets, best.crank_angles) <= ACCEPT


def test_recovers_a_watt_i_from_eight_points(tmp_path):
    rng = np.random.default_rng(3)
    _, _, targets = known_sixbar(rng, "watt1", 8)
    res = synthesize_sixbar_path(targets, "watt1", seed=3, max_time_s=None, max_evaluations=200)
    assert res.status == Status.CONVERGED, res.message
    best = res.best
    assert best.geometry.topology == "watt1"
    assert check_sixbar_model(write_model(best, tmp_path), targets, best.crank_angles) <= ACCEPT


# --- deadline and cancellation -------------------------------------------------------------------------------------

def test_a_passed_deadline_ends_the_inner_loops_and_nested_deadlines_keep_the_earlier():
    check_time()  # no deadline in force: nothing happens
    with working_until(Deadline(time.time() + 3600)):
        check_time()
        with working_until(Deadline(None)):  # an inner deadline without a limit keeps the outer one
            check_time()
        with working_until(Deadline(time.time() - 1)):
            with pytest.raises(OutOfTime):
                check_time()
        check_time()
    with working_until(Deadline(None, stop=lambda: True)), pytest.raises(OutOfTime):
        check_time()
    # to another process the deadline travels as its instant only
    sent = pickle.loads(pickle.dumps(Deadline(123.0, stop=lambda: True)))
    assert sent.at == 123.0 and sent.stop is None


def test_a_work_item_past_its_deadline_is_a_failed_item():
    rng = np.random.default_rng(7)
    g, theta = random_sixbar(rng, "stephenson3", 6)
    T = g.coupler_point(theta) + 0.01 * g.link_scale  # not on the path: Newton's method has work to do
    system = SixBarSystem(T, "stephenson3")

    def item():
        newton(system, system.state(g, theta), T, 1e-14, steps=50)
        raise AssertionError("not stopped")
    res = run_item(item, (), Deadline(time.time() - 1))
    assert res.traversal is None and res.note == "out of time"


def test_should_stop_cancels_the_search_within_its_first_generation():
    rng = np.random.default_rng(0)
    _, _, targets = known_sixbar(rng, "watt2", 8)
    calls = []
    res = synthesize_sixbar_path(targets, "watt2", seed=0, max_time_s=None,
                                 should_stop=lambda: calls.append(1) or True)
    assert res.status == Status.CANCELLED, res.message
    assert res.generations <= 1 and calls


@pytest.mark.parametrize("args, fragment", [
    (["--linkage", "hexbar"], "invalid choice: 'hexbar'"),
    (["--linkage", "watt2", "--criterion", "peak_torque"], "four-bars only"),
])
def test_bad_linkage_options_exit_2(tmp_path, capsys, args, fragment):
    source = tmp_path / "t.csv"
    source.write_text("x,y\n0,0\n1,0\n1,1\n0,1\n0.5,1.5\n", encoding="utf-8")
    rc, out, err = run_cli(["synthesize", source, *args, "--out", tmp_path / "m.json"], capsys)
    assert rc == 2 and fragment in err and not (tmp_path / "m.json").exists()


def test_too_few_targets_for_a_six_bar_exit_2_naming_the_file(tmp_path, capsys):
    source = tmp_path / "t.csv"
    source.write_text("x,y\n0,0\n1,0\n1,1\n0,1\n", encoding="utf-8")
    rc, out, err = run_cli(["synthesize", source, "--linkage", "stephenson3"], capsys)
    assert rc == 2 and str(source) in err and "4 targets given; at least 5" in err


def test_api_refuses_an_unknown_topology_and_bad_timing():
    T = np.array([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 1.5], [0.2, 0.7]], float)
    res = synthesize_sixbar_path(T, "stephenson2")
    assert res.status == Status.FAILED and res.bad_input and "unknown six-bar topology" in res.message
    res = synthesize_sixbar_path(T, "watt2", crank_angles=[0, 1, 2, 1, 3, 4])
    assert res.bad_input and "must increase" in res.message
