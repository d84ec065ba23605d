"""Known four-bars and their coupler points for the synthesis tests, and the check of a synthesized model through the
kinematic solver (core.kinematics.analysis.driven_motion), independent of the synthesis' closed form.

A plain module with a name of its own (not a conftest: see cli_helpers.py).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from mechstudio.core.analysis.linkage import grashof_class
from mechstudio.core.analysis.synthesis_fourbar import TWO_PI, FourBarGeometry
from mechstudio.core.analysis.synthesis_model import COUPLER_POINT, four_bar_model_data
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.model.io import load_model, model_from_data
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.systems.points import PointTracer

KINDS = ("crank-rocker", "double-rocker", "drag-link", "triple-rocker")
#: core.analysis.linkage.grashof_class's name of a drag link
GRASHOF_NAMES = {"drag-link": "double-crank"}
#: the kinematic solver assembles to ||Phi|| <= 1e-12 m (core.kinematics.assembly): a model's coupler point is where
#: the closed form puts it to about 1e-11 of the link scale for the scales below (1 mm to 3 m)
SOLVER_RTOL = 1e-8
#: the acceptance: every target within 1e-4 of the longest link
ACCEPT = 1e-4


def random_four_bar(rng: np.random.Generator, kind: str) -> FourBarGeometry:
    """A four-bar of the given Grashof class, coupler point anywhere near the coupler, placed and turned anywhere,
    scaled from 1 mm to 3 m."""
    while True:
        short, long_ = rng.uniform(0.2, 0.5), rng.uniform(1.0, 1.6)
        pq = rng.uniform(0.6, 1.4, 2)
        if kind == "triple-rocker":
            a, b, c, d = rng.uniform(0.4, 1.6, 4)
            s = np.sort([a, b, c, d])
            if s[0] + s[3] <= 1.03 * (s[1] + s[2]):
                continue
        else:
            if short + long_ >= 0.97 * pq.sum():
                continue
            rest = [long_, pq[0], pq[1]]
            rng.shuffle(rest)
            if kind == "crank-rocker":
                a, (b, c, d) = short, rest
            elif kind == "drag-link":
                d, (a, b, c) = short, rest
            else:
                b, (a, c, d) = short, rest
        p, q = rng.uniform(-1.5, 1.5, 2) * b + np.array([0.5 * b, 0.0])
        scale = 10 ** rng.uniform(-3, 0.5)
        x0, y0 = rng.uniform(-5, 5, 2) * scale
        g = FourBarGeometry(float(x0), float(y0), float(rng.uniform(-math.pi, math.pi)), d * scale, a * scale,
                            b * scale, c * scale, float(p) * scale, float(q) * scale, int(rng.choice([-1, 1])))
        assert grashof_class(g.a, g.b, g.c, g.d).kind == GRASHOF_NAMES.get(kind, kind)
        return g


def crank_angles_on(rng: np.random.Generator, g: FourBarGeometry, count: int, uneven: bool) -> np.ndarray:
    """``count`` crank angles in order along one reachable interval (or most of a full turn), evenly or unevenly
    spaced, in a random direction."""
    lo, hi = g.reachable_intervals()[int(rng.integers(len(g.reachable_intervals())))]
    if hi - lo >= TWO_PI - 1e-12:
        span = TWO_PI * (count - 1) / count * rng.uniform(0.6, 1.0)
        start = rng.uniform(0, TWO_PI)
    else:
        margin = 0.04 * (hi - lo)
        span = rng.uniform(0.5, 1.0) * (hi - lo - 2 * margin)
        start = lo + margin + rng.uniform(0, hi - lo - 2 * margin - span)
    if uneven:
        gaps = rng.uniform(0.5, 1.5, count - 1)
        fractions = np.concatenate([[0.0], np.cumsum(gaps) / gaps.sum()])
    else:
        fractions = np.linspace(0.0, 1.0, count)
    theta = start + span * fractions
    return theta[::-1] if rng.random() < 0.5 else theta


def model_path(g: FourBarGeometry, theta: np.ndarray, speed: float = 1.0) -> np.ndarray:
    """The coupler point of the linkage's model at the crank angles theta, by the kinematic solver: a driven run
    from theta[0] at ``speed`` sampled at t_j = |theta_j - theta_0| / speed."""
    data = four_bar_model_data(g, float(theta[0]), float(theta[-1]), speed=speed)
    system = compile_model(model_from_data(data))
    res = driven_motion(system, np.abs(theta - theta[0]) / speed)
    assert res.status.ok, res.message
    return PointTracer(system).trace(res.q, COUPLER_POINT)


def known_targets(rng: np.random.Generator, kind: str, count: int, uneven: bool) -> tuple[FourBarGeometry,
                                                                                           np.ndarray, np.ndarray]:
    """(the known linkage, its crank angles, its coupler points there by the kinematic solver)."""
    g = random_four_bar(rng, kind)
    theta = crank_angles_on(rng, g, count, uneven)
    return g, theta, model_path(g, theta)


def check_model_file(path: Path, targets: np.ndarray, crank_angles: np.ndarray) -> float:
    """Load a synthesized model file, run its driver continuously from the first target to the last (120 steps and
    the targets' times), and return the largest distance of a target from the coupler point at its time, divided by
    the model's longest link. The run must finish: the crank reaches every target without a lock or a jump."""
    model = load_model(path)
    system = compile_model(model)
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    speed = abs(data["drivers"][0]["function"]["speed"])
    t_targets = np.abs(np.asarray(crank_angles) - crank_angles[0]) / speed
    times = np.unique(np.concatenate([np.linspace(0.0, t_targets.max(), 121), t_targets]))
    res = driven_motion(system, times)
    assert res.status.ok and len(res.t) == len(times), res.message
    tracer = PointTracer(system)
    points = tracer.trace(res.q, COUPLER_POINT)
    at = points[np.searchsorted(times, t_targets)]
    ground = data["ground"]["points"]
    # one assembly branch all along: B stays on one side of the diagonal A -> O4 (it crosses it only at a stop)
    A, B = tracer.trace(res.q, "crank.A"), tracer.trace(res.q, "rocker.B")
    O4 = np.asarray(ground["O4"], float)
    side = (O4[0] - A[:, 0]) * (B[:, 1] - A[:, 1]) - (O4[1] - A[:, 1]) * (B[:, 0] - A[:, 0])
    assert np.all(side > 0) or np.all(side < 0), "the run changes assembly branch"
    lengths = [math.dist(ground["O2"], ground["O4"])] + [
        math.dist(*(b["points"][k] for k in keys)) for b, keys in zip(data["bodies"], (("O2", "A"), ("A", "B"),
                                                                                        ("O4", "B")))]
    return float(np.max(np.linalg.norm(at - targets, axis=-1))) / max(lengths)
