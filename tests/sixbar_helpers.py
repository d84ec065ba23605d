"""Known six-bars and their path points for the six-bar synthesis tests, and the check of a synthesized six-bar model
through the kinematic solver (core.kinematics.analysis.driven_motion), independent of the synthesis' closed form.

A plain module with a name of its own (not a conftest: see cli_helpers.py).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from mechstudio.core.analysis.synthesis_fourbar import TWO_PI
from mechstudio.core.analysis.synthesis_sixbar import TOPOLOGIES, SixBarGeometry
from mechstudio.core.analysis.synthesis_sixbar_model import PATH_POINT, sixbar_model_data
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.model.io import load_model, model_from_data
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.systems.points import PointTracer

#: the acceptance: every target within 1e-4 of the longest link
ACCEPT = 1e-4
#: the kinematic solver assembles to ||Phi|| <= 1e-12 m: its path point agrees with the closed form to about 1e-10 of
#: the link scale for the scales below (0.01 m to 3 m); 1e-8 leaves room for the two chained loops
SOLVER_RTOL = 1e-8


def random_sixbar(rng: np.random.Generator, topology: str, count: int, span: float = 0.8,
                  uneven: bool = False) -> tuple[SixBarGeometry, np.ndarray]:
    """A six-bar of the topology (links 0.3 to 1.6 of a random scale, pivots and attached points near the links,
    placed and turned anywhere) and ``count`` crank angles in order (a random direction) along a run of its crank
    motion where both loops stay assembled, spanning at least ``span`` of the run (at most a turn) and staying away
    from its ends."""
    top = TOPOLOGIES[topology]
    while True:
        a, b, c, d, e, f = rng.uniform(0.3, 1.6, 6)
        u = rng.uniform(-1.0, 1.0, 2)
        v = rng.uniform(-1.0, 1.0, 2)
        if top.v_link == "ground":
            v = v + rng.uniform(-0.5, 1.5, 2)
        p, q = rng.uniform(-1.0, 1.0, 2) + np.array([0.5 * e, 0.0])
        gamma = rng.uniform(-math.pi, math.pi)
        g = SixBarGeometry.from_vector(topology, [0.0, 0.0, 0.0, d, a, b, c, u[0], u[1], v[0], v[1], e, f, p, q],
                                       int(rng.choice([-1, 1])), int(rng.choice([-1, 1])))
        lengths = np.array(list(g.lengths.values()))
        if lengths.min() < 0.15 * lengths.max():
            continue
        intervals = g.base.reachable_intervals()
        if not intervals:
            continue
        lo, hi = intervals[int(rng.integers(len(intervals)))]
        th = np.linspace(lo, hi, 721)
        ok = g.positions(th)[1] & (g.dyad_clearance(th) > 1e-3)
        if hi - lo >= TWO_PI - 1e-9:  # a full turn: a run may wrap; look at two turns
            th, ok = np.concatenate([th, th[1:] + TWO_PI]), np.concatenate([ok, ok[1:]])
        best, run = (0, 0), 0
        for k, flag in enumerate(ok):
            run = run + 1 if flag else 0
            if run > best[1] - best[0]:
                best = (k - run + 1, k + 1)
        i, j = best
        width = th[j - 1] - th[i] if j > i else 0.0
        width = min(width, 0.97 * TWO_PI)
        if width < 0.6:
            continue
        margin = 0.04 * width
        length = rng.uniform(span, 1.0) * (width - 2 * margin)
        start = th[i] + margin + rng.uniform(0, width - 2 * margin - length)
        if uneven:
            gaps = rng.uniform(0.5, 1.5, count - 1)
            fractions = np.concatenate([[0.0], np.cumsum(gaps) / gaps.sum()])
        else:
            fractions = np.linspace(0.0, 1.0, count)
        theta = start + length * fractions
        if rng.random() < 0.5:
            theta = theta[::-1]
        # place, turn and scale it anywhere
        scale = 10 ** rng.uniform(-1.5, 0.5)
        turn = rng.uniform(-math.pi, math.pi)
        g = turned(g, turn)
        theta = theta + turn
        g = g.transformed(scale, rng.uniform(-3, 3, 2) * scale)
        if all(g.sweep_reachable(theta[k], theta[k + 1]) for k in range(count - 1)):
            return g, theta


def turned(g: SixBarGeometry, angle: float) -> SixBarGeometry:
    """The same six-bar turned by ``angle`` [rad] about the origin (crank angles turn by the same angle)."""
    v = g.vector()
    c, s = math.cos(angle), math.sin(angle)
    v[0], v[1] = c * v[0] - s * v[1], s * v[0] + c * v[1]
    v[2] += angle
    if g.top.v_link == "ground":
        v[9], v[10] = c * v[9] - s * v[10], s * v[9] + c * v[10]
    return SixBarGeometry.from_vector(g.topology, v, g.branch1, g.branch2)


def model_path(g: SixBarGeometry, theta: np.ndarray, speed: float = 1.0) -> np.ndarray:
    """The path point of the six-bar's model at crank angles theta, by the kinematic solver: a driven run from
    theta[0] at ``speed`` sampled at t_j = |theta_j - theta_0| / speed."""
    data = sixbar_model_data(g, float(theta[0]), float(theta[-1]), speed=speed)
    system = compile_model(model_from_data(data))
    res = driven_motion(system, np.abs(theta - theta[0]) / speed)
    assert res.status.ok, res.message
    return PointTracer(system).trace(res.q, PATH_POINT)


def known_sixbar(rng: np.random.Generator, topology: str, count: int, uneven: bool = False
                 ) -> tuple[SixBarGeometry, np.ndarray, np.ndarray]:
    """(a random six-bar, its crank angles, its path points there by the kinematic solver)."""
    g, theta = random_sixbar(rng, topology, count, uneven=uneven)
    return g, theta, model_path(g, theta)


def check_sixbar_model(path: Path, targets: np.ndarray, crank_angles: np.ndarray) -> float:
    """Load a synthesized six-bar model file, run its driver continuously from the first target to the last (200
    steps and the targets' times) and return the largest distance of a target from ``link5.P`` at its time, divided
    by the longest link. The run must finish and keep both assembly branches (B on one side of A -> O4, E on one side
    of U -> V all along)."""
    model = load_model(path)
    system = compile_model(model)
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    speed = abs(data["drivers"][0]["function"]["speed"])
    t_targets = np.abs(np.asarray(crank_angles) - crank_angles[0]) / speed
    times = np.unique(np.concatenate([np.linspace(0.0, t_targets.max(), 201), t_targets]))
    res = driven_motion(system, times)
    assert res.status.ok and len(res.t) == len(times), res.message
    tracer = PointTracer(system)
    at = tracer.trace(res.q, PATH_POINT)[np.searchsorted(times, t_targets)]
    bodies = {b["name"]: b for b in data["bodies"]}
    O4 = np.asarray(data["ground"]["points"]["O4"], float)
    A, B = tracer.trace(res.q, "crank.A"), tracer.trace(res.q, "rocker.B")
    U, E, V = tracer.trace(res.q, "link5.U"), tracer.trace(res.q, "link5.E"), tracer.trace(res.q, "link6.V")
    for base, diag, joint in ((A, np.broadcast_to(O4, A.shape), B), (U, V, E)):
        side = (diag[:, 0] - base[:, 0]) * (joint[:, 1] - base[:, 1]) - \
            (diag[:, 1] - base[:, 1]) * (joint[:, 0] - base[:, 0])
        assert np.all(side > 0) or np.all(side < 0), "the run changes assembly branch"
    pts = {name: bodies[name]["points"] for name in bodies}
    lengths = [math.dist(data["ground"]["points"]["O2"], O4), math.dist(pts["crank"]["O2"], pts["crank"]["A"]),
               math.dist(pts["coupler"]["A"], pts["coupler"]["B"]), math.dist(pts["rocker"]["O4"], pts["rocker"]["B"]),
               math.dist(pts["link5"]["U"], pts["link5"]["E"]), math.dist(pts["link6"]["V"], pts["link6"]["E"])]
    return float(np.max(np.linalg.norm(at - targets, axis=-1))) / max(lengths)
