"""Four-bar dimensional synthesis (core.analysis.synthesis): the closed form against the kinematic solver, the
reachable crank range against the linkage sweep's stops, function generation against Freudenstein's equation, the
recovery of known four-bars from their coupler points (checked by driving the written model with the kinematic
solver), prescribed timing, dynamic criteria against the energy balance, bad input, progress and cancelling.

Tolerances: the kinematic solver assembles to ||Phi|| <= 1e-12 m, so a model's coupler point agrees with the
closed form to SOLVER_RTOL = 1e-8 of the link scale for links from 1 mm to 3 m; the synthesis' local searches
converge to about 1e-12 (normalised), far inside the acceptance of 1e-4 of the longest link, which every recovered
linkage is checked against through the solver. Freudenstein's equation holds to 1e-10 for a linkage whose output
angles come from the circle intersection (its derivation is the loop closure, independent of the intersection).
The linkage sweep locates a stop by bisection to 1e-9 rad; 1e-6 rad leaves room for its Newton steps near the fold.
The criteria's energy check: central differences of the energy over 1/720 of a turn, error O(h^2) ~ 1e-5 relative.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mechstudio.core.analysis.linkage import Linkage
from mechstudio.core.analysis.statics import inverse_dynamics
from mechstudio.core.analysis.synthesis import (Candidate, function_targets, rocker_angles, synthesize_function,
                                                synthesize_path)
from mechstudio.core.analysis.synthesis_fourbar import FourBarGeometry
from mechstudio.core.analysis.synthesis_model import dynamic_criteria, four_bar_model_data
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.model.io import model_from_data
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status
from synthesis_helpers import (ACCEPT, KINDS, SOLVER_RTOL, check_model_file, crank_angles_on, known_targets,
                               model_path, random_four_bar)

#: a generous budget: the search is deterministic unless the time budget ends it (a loaded test machine)
BUDGET_S = 300.0
#: the sample four-bar (crank 1, coupler 3.5, rocker 3, ground 4 [m]) with a coupler point off the coupler line
SAMPLE = FourBarGeometry(0.0, 0.0, 0.0, 4.0, 1.0, 3.5, 3.0, 1.2, 1.0, 1)


def write_model(candidate: Candidate, tmp_path, name: str = "synth.json"):
    path = tmp_path / name
    path.write_text(json.dumps(candidate.to_model_data(), indent=2), encoding="utf-8")
    return path


# --- the closed form against the solver ----------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_closed_form_coupler_point_matches_the_kinematic_solver(kind):
    rng = np.random.default_rng(KINDS.index(kind))
    g = random_four_bar(rng, kind)
    theta = crank_angles_on(rng, g, 9, uneven=True)
    P = g.coupler_point(theta)
    np.testing.assert_allclose(model_path(g, theta), P, rtol=0, atol=SOLVER_RTOL * g.link_scale)


def test_reachable_crank_range_ends_at_the_stops_of_the_linkage_sweep():
    g = FourBarGeometry(0.3, -0.2, 0.4, 2.1, 1.0, 1.6, 1.3, 0.5, 0.4, 1)  # non-Grashof: the crank rocks
    (lo, hi), = g.reachable_intervals()
    mid = 0.5 * (lo + hi)
    data = four_bar_model_data(g, mid, mid + 0.1)
    lk = Linkage(compile_model(model_from_data(data)))
    sweep = lk.sweep(72)
    assert not sweep.full_turn and len(sweep.stops) == 2
    stops = sorted(p.input_angle for p in sweep.stops)
    assert stops[0] == pytest.approx(lo, abs=1e-6) and stops[1] == pytest.approx(hi, abs=1e-6)
    assert not g.sweep_reachable(lo - 1e-3, mid) and g.sweep_reachable(lo + 1e-3, hi - 1e-3)


def test_rocker_angles_satisfy_freudensteins_equation():
    rng = np.random.default_rng(4)
    for _ in range(5):
        g = random_four_bar(rng, "crank-rocker")
        a, b, c, d = g.a, g.b, g.c, g.d
        theta = np.linspace(0.0, 2 * math.pi, 13)
        for branch in (1, -1):
            psi, ok = rocker_angles(np.array([[a, b, c, d]]), theta[None], branch)
            assert ok.all()
            K1, K2, K3 = d / a, d / c, (a * a - b * b + c * c + d * d) / (2 * a * c)
            np.testing.assert_allclose(K1 * np.cos(psi[0]) - K2 * np.cos(theta) + K3, np.cos(theta - psi[0]),
                                       atol=1e-10)


# --- path generation -----------------------------------------------------------------------------------------------

def test_acceptance_recovers_the_sample_four_bar_from_eight_coupler_points(tmp_path):
    theta = 0.3 + 2 * math.pi * np.arange(8) / 8
    targets = model_path(SAMPLE, theta)
    res = synthesize_path(targets, seed=0, max_time_s=BUDGET_S)
    assert res.status == Status.CONVERGED, res.message
    best = res.best
    assert best.exact and best.error <= ACCEPT and best.kind == "path"
    assert np.all(np.abs(np.diff(best.crank_angles)) > 0) and abs(best.crank_angles[-1] - best.crank_angles[0]) < \
        2 * math.pi
    assert check_model_file(write_model(best, tmp_path), targets, best.crank_angles) <= ACCEPT
    # the curve for drawing passes every target within one of its sample steps
    curve = best.coupler_curve(361)
    step = float(np.max(np.linalg.norm(np.diff(curve, axis=0), axis=-1)))
    assert all(np.min(np.linalg.norm(curve - t, axis=-1)) <= step for t in targets)


@pytest.mark.parametrize("kind, seed, count", [("crank-rocker", 11, 8), ("double-rocker", 12, 7),
                                               ("drag-link", 13, 6), ("triple-rocker", 14, 7)])
def test_recovers_random_four_bars_from_their_coupler_points(tmp_path, kind, seed, count):
    """One of each Grashof class, placed, turned and scaled anywhere, targets unevenly spaced along part of the
    curve (tests/test_analysis_synthesis_random.py has a dozen more)."""
    rng = np.random.default_rng(seed)
    _, _, targets = known_targets(rng, kind, count, uneven=True)
    res = synthesize_path(targets, seed=seed, max_time_s=BUDGET_S)
    assert res.status == Status.CONVERGED, res.message
    assert check_model_file(write_model(res.best, tmp_path), targets, res.best.crank_angles) <= ACCEPT


def test_prescribed_crank_angles_are_kept(tmp_path):
    rng = np.random.default_rng(21)
    g, theta, targets = known_targets(rng, "crank-rocker", 7, uneven=True)
    given = theta - theta[0] + 1.234  # only the rotations between the targets count
    res = synthesize_path(targets, crank_angles=given, seed=1, max_time_s=BUDGET_S)
    assert res.status == Status.CONVERGED, res.message
    np.testing.assert_allclose(np.diff(res.best.crank_angles), np.diff(given), atol=1e-9)
    assert check_model_file(write_model(res.best, tmp_path), targets, res.best.crank_angles) <= ACCEPT


def test_the_same_seed_gives_the_same_linkage_and_progress_can_cancel():
    rng = np.random.default_rng(31)
    _, _, targets = known_targets(rng, "double-rocker", 6, uneven=False)
    first = synthesize_path(targets, seed=5, max_time_s=BUDGET_S)
    again = synthesize_path(targets, seed=5, max_time_s=BUDGET_S)
    assert first.ok and np.array_equal(first.best.geometry.vector(), again.best.geometry.vector())
    # ten points of a three-lobed curve (no four-bar passes exactly through them): cancelled at the first report
    t = np.linspace(0.0, 2 * math.pi, 10, endpoint=False)
    targets = np.stack([(1 + 0.3 * np.cos(3 * t)) * np.cos(t), (1 + 0.3 * np.cos(3 * t)) * np.sin(t)], -1)
    seen: list[Candidate] = []

    def stop_at_once(candidate: Candidate) -> bool:
        seen.append(candidate)
        return False
    res = synthesize_path(targets, seed=14, max_time_s=BUDGET_S, progress=stop_at_once)
    assert res.status == Status.CANCELLED and len(seen) == 1 and res.best is seen[0] and not seen[0].exact
    # a reported candidate is a real traversal: its points are the closed form's at its crank angles, reached in
    # order on one branch
    c = seen[0]
    np.testing.assert_allclose(c.fitted, c.geometry.coupler_point(c.crank_angles), atol=1e-12 * c.link_scale)
    assert c.error == pytest.approx(np.max(np.linalg.norm(c.fitted - targets, axis=-1)) / c.link_scale)
    steps = np.diff(c.crank_angles)
    assert np.all(c.direction * steps >= 0)
    assert all(c.geometry.sweep_reachable(c.crank_angles[j], c.crank_angles[j + 1]) for j in range(len(steps)))


def test_a_budget_too_small_returns_the_closest_linkage_with_max_iter():
    rng = np.random.default_rng(41)
    _, _, targets = known_targets(rng, "triple-rocker", 8, uneven=True)
    res = synthesize_path(targets, seed=2, max_evaluations=1, tolerance=1e-14)
    assert res.status in (Status.MAX_ITER, Status.CONVERGED)
    if res.status == Status.MAX_ITER:
        assert res.best is not None and "closest" in res.message
        assert res.best.error == pytest.approx(
            np.max(np.linalg.norm(res.best.geometry.coupler_point(res.best.crank_angles) - targets, axis=-1))
            / res.best.link_scale)


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(targets=[[0, 0], [1, 0], [1, 1], [0, 1]]), "4 targets given; at least 5"),
    (dict(targets=[[0, 0], [1, 0], [1, 1], [0, float("nan")], [2, 2]]), "target 4"),
    (dict(targets=[[0, 0], [1, 0], [1, 1], [1, 0], [2, 2]]), "targets 2 and 4 are the same point"),
    (dict(targets=[[1, 1]] * 5), "the same point"),
    (dict(targets=[[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [2, 2, 0]]), "(x, y) pairs"),
    (dict(targets="abc"), "(x, y) pairs"),
    (dict(targets=[[0, 0], [1, 0], [1, 1], [0, 1], [2, 2]], crank_angles=[0, 1, 2]), "3 crank angles given for 5"),
    (dict(targets=[[0, 0], [1, 0], [1, 1], [0, 1], [2, 2]], crank_angles=[0, 1, 0.5, 2, 3]), "increase"),
    (dict(targets=[[0, 0], [1, 0], [1, 1], [0, 1], [2, 2]], crank_angles=[0, 2, 4, 6, 8]), "one turn"),
    (dict(targets=[[0, 0], [1, 0], [1, 1], [0, 1], [2, 2]], tolerance=-1), "tolerance"),
    (dict(targets=[[0, 0], [1, 0], [1, 1], [0, 1], [2, 2]], criterion="speed"), "unknown criterion"),
    (dict(targets=[[0, 0], [1, 0], [1, 1], [0, 1], [2, 2]], workers=0), "workers"),
])
def test_bad_input_is_a_failed_status_with_a_message(kwargs, fragment):
    targets = kwargs.pop("targets")
    res = synthesize_path(targets, **kwargs)
    assert res.status == Status.FAILED and res.bad_input and res.best is None
    assert fragment in res.message


# --- function generation ---------------------------------------------------------------------------------------------

def rocker_path(lengths: tuple[float, float, float, float], theta: np.ndarray) -> np.ndarray:
    """Output angles of a function generator (O2 at the origin, O4 at (d, 0)) at input angles theta, by driving its
    model with the kinematic solver (the rocker's frame points O4 -> B: its phi is the output angle)."""
    a, b, c, d = lengths
    g = FourBarGeometry(0.0, 0.0, 0.0, d, a, b, c, 0.5 * b, 0.0, 1)
    data = four_bar_model_data(g, float(theta[0]), float(theta[-1]), speed=1.0)
    system = compile_model(model_from_data(data))
    res = driven_motion(system, np.abs(theta - theta[0]))
    assert res.status.ok, res.message
    return res.q[:, system.coord_names.index("rocker.phi")]


def test_function_generation_recovers_a_known_linkage_by_freudensteins_equation(tmp_path):
    known = (0.45, 1.2, 0.9, 1.0)  # crank-rocker
    theta = np.linspace(0.4, 2.6, 6)
    psi = rocker_path(known, theta)
    # rotations from the first pair only: the starting angles are found too; a tolerance near round-off asks for
    # the exact linkage (six pairs, five unknowns: the known one)
    res = synthesize_function(theta - theta[0], psi - psi[0], seed=0, tolerance=1e-10, max_time_s=BUDGET_S)
    assert res.status == Status.CONVERGED, res.message
    best = res.best
    g = best.geometry
    assert best.error <= 1e-10 and best.kind == "function"
    th = best.crank_angles  # the input angles from the ground line, with the given rotations
    np.testing.assert_allclose(np.diff(th), np.diff(theta), atol=1e-12)
    out = rocker_path((g.a, g.b, g.c, g.d), th)  # the recovered linkage's output, by the solver
    target_out = out[0] + (psi - psi[0])
    # Freudenstein's equation holds for the recovered lengths at the target angles
    K1, K2, K3 = g.d / g.a, g.d / g.c, (g.a ** 2 - g.b ** 2 + g.c ** 2 + g.d ** 2) / (2 * g.a * g.c)
    np.testing.assert_allclose(K1 * np.cos(target_out) - K2 * np.cos(th) + K3, np.cos(th - target_out), atol=1e-9)
    np.testing.assert_allclose(out - out[0], psi - psi[0], atol=1e-9)
    np.testing.assert_allclose([g.a, g.b, g.c, g.d], known, rtol=1e-8)
    np.testing.assert_allclose(best.fitted[:, 0], theta - theta[0])  # the fitted pairs in the given convention


def test_function_generation_with_three_absolute_precision_points():
    """Freudenstein's three-point synthesis: angles from the ground line, lengths exact."""
    known = (0.5, 1.3, 1.1, 1.0)
    theta = np.array([0.6, 1.2, 1.9])
    psi = rocker_path(known, theta)
    res = synthesize_function(theta, psi, absolute=True, ground_length=1.0)
    assert res.status == Status.CONVERGED, res.message
    g = res.best.geometry
    np.testing.assert_allclose([g.a, g.b, g.c, g.d], known, rtol=1e-8)


def test_function_targets_are_chebyshev_spaced():
    x, y = function_targets(np.sin, 0.0, 1.0, 3)
    np.testing.assert_allclose(x, 0.5 - 0.5 * np.cos(np.array([1, 3, 5]) * math.pi / 6))
    np.testing.assert_allclose(y, np.sin(x))


@pytest.mark.parametrize("args, kwargs, fragment", [
    (([0, 1, 2, 3], [0, 1, 2, 3]), {}, "at least 5"),
    (([0, 1, 2], [0, 1]), {"absolute": True}, "2 output angles for 3"),
    (([0, 1, 2], [0, 1, float("inf")]), {"absolute": True}, "output angle 3"),
    (([0, 2, 1], [0, 1, 2]), {"absolute": True}, "increase"),
    (([0, 1, 2], [0, 1, 2]), {"absolute": True, "ground_length": 0.0}, "ground length"),
])
def test_function_generation_bad_input(args, kwargs, fragment):
    res = synthesize_function(*args, **kwargs)
    assert res.status == Status.FAILED and res.bad_input and fragment in res.message


# --- dynamic criteria ------------------------------------------------------------------------------------------------

def test_criterion_returns_the_exact_linkage_with_the_lowest_peak_torque():
    rng = np.random.default_rng(51)
    _, _, targets = known_targets(rng, "crank-rocker", 6, uneven=False)
    res = synthesize_path(targets, seed=3, criterion="peak_torque", solutions=2, max_time_s=BUDGET_S)
    assert res.status == Status.CONVERGED, res.message
    assert all(c.exact for c in res.candidates)
    values = [c.criteria["peak_torque"] for c in res.candidates]
    assert res.best.criteria["peak_torque"] == min(values)
    again = dynamic_criteria(res.best.geometry, float(res.best.crank_angles[0]), float(res.best.crank_angles[-1]))
    assert again.values["peak_torque"] == pytest.approx(res.best.criteria["peak_torque"], rel=1e-9)


def test_peak_torque_equals_the_rate_of_change_of_energy_over_the_crank_speed():
    """Inverse dynamics of a lossless linkage: the motor's power T omega is the rate of change of kinetic plus
    potential energy (central differences, independent of the multipliers)."""
    g, speed = SAMPLE, 2 * math.pi
    crit = dynamic_criteria(g, 0.3, 0.3 + 2 * math.pi, speed=speed, samples=721)
    data = four_bar_model_data(g, 0.3, 0.3 + 2 * math.pi, speed=speed)
    system = compile_model(model_from_data(data))
    times = np.linspace(0.0, 1.0, 721)
    res = inverse_dynamics(system, times)
    energy = res.kinetic + res.potential
    rate = (energy[2:] - energy[:-2]) / (times[2:] - times[:-2])
    torque = rate / speed
    assert crit.status.ok
    assert np.max(np.abs(torque)) == pytest.approx(crit.values["peak_torque"], rel=1e-3)
