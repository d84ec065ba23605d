"""Six-bar path synthesis: a crank-driven six-bar (Watt I, Watt II, Stephenson I, Stephenson III;
core.analysis.synthesis_sixbar) whose path point passes through N target points in order, with or without prescribed
crank angles (docs/analysis-synthesis.md, "Six-bars").

:func:`synthesize_sixbar_path` has the call shape of core.analysis.synthesis.synthesize_path (targets, timing,
workers or a Dask client, seed, tolerance, budget, progress) and returns the same :class:`SynthesisResult`, its
candidates being :class:`SixBarCandidate` (same fields and methods as the four-bar's Candidate). The error is

    error = max_j |P(theta_j) - T_j| / L,    L = the longest of the six links (d, a, b, c, e, f)

A valid result keeps both assembly branches while the crank turns one way (less than a turn) from the first target
to the last, and has no link shorter than ``min_link_ratio`` of the longest.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence, cast

import numpy as np

from mechstudio.core.analysis.synthesis import (DEFAULT_TIME_S, DEFAULT_TOLERANCE, Frame, InputProblem, LinkageFit,
                                                SynthesisResult, check_angles, check_options, check_points,
                                                executor_for, failed, quiet_numerics)
from mechstudio.core.analysis.synthesis_fourbar import MIN_LINK_RATIO
from mechstudio.core.analysis.synthesis_model import DEFAULT_DENSITY, DEFAULT_GRAVITY, DEFAULT_SPEED
from mechstudio.core.analysis.synthesis_deadline import OutOfTime, working_until
from mechstudio.core.analysis.synthesis_search import Budget, SearchState, member_traversal
from mechstudio.core.analysis.synthesis_sixbar import TOPOLOGIES, SixBarGeometry, SixBarTraversal
from mechstudio.core.analysis.synthesis_sixbar_model import PATH_POINT, sixbar_model_data
from mechstudio.core.analysis.synthesis_sixbar_search import (MIN_SIXBAR_POINTS, SixBarSearchFamily,
                                                              closest_sixbar, search_sixbar)
from mechstudio.core.model.io import model_from_data
from mechstudio.core.run.blas import single_threaded_blas
from mechstudio.core.types import FloatArray, Status

#: targets a six-bar passes exactly (generically): 15 parameters, each target adds 2 equations and 1 unknown (its
#: crank angle); with timing 2 equations and no unknown past theta_1
MAX_EXACT_POINTS = 15
MAX_EXACT_POINTS_TIMED = 8
#: the share of max_time_s kept for the final least-squares polish of the best member, and its most [s]
FINAL_RESERVE = 0.1
FINAL_RESERVE_S = 5.0


@dataclass(frozen=True)
class SixBarCandidate(LinkageFit):
    """A synthesized six-bar (world units) and how well it fits; fields as the four-bar's Candidate: ``geometry``
    (SixBarGeometry), ``crank_angles`` (N,) [rad] unwrapped along the motion, ``direction`` (+1 counter-clockwise),
    ``targets``, ``fitted`` (N, 2) the path points at those angles, ``error`` (max distance / longest link),
    ``max_distance`` [length]."""
    geometry: SixBarGeometry
    crank_angles: FloatArray
    direction: int
    targets: FloatArray
    fitted: FloatArray
    error: float
    max_distance: float
    tolerance: float
    evaluations: int = 0
    elapsed_s: float = 0.0
    kind: str = "path"

    @property
    def criteria(self) -> dict[str, float]:
        return {}

    def coupler_curve(self, samples: int = 361) -> FloatArray:
        """Path points (K, 2) over the unbroken run of the crank's motion that holds the targets (for drawing)."""
        run = self.geometry.reachable_run(self.crank_angles, samples)
        P, ok = self.geometry.positions(run)
        return P[ok]

    def to_model_data(self, name: str = "synthesized_six_bar", *, speed: float = DEFAULT_SPEED,
                      density: float = DEFAULT_DENSITY, gravity: tuple[float, float] = DEFAULT_GRAVITY
                      ) -> dict[str, Any]:
        """The model document (core.analysis.synthesis_sixbar_model): path point ``link5.P``."""
        return sixbar_model_data(self.geometry, float(self.crank_angles[0]), float(self.crank_angles[-1]),
                                 name=name, description=self.description(speed), speed=speed, density=density,
                                 gravity=gravity)

    def to_model(self, name: str = "synthesized_six_bar", **options: Any) -> Any:
        return model_from_data(self.to_model_data(name, **options), f"<{name}>")

    def description(self, speed: float = DEFAULT_SPEED) -> str:
        times = ", ".join(f"{abs(t - self.crank_angles[0]) / speed:.9g}" for t in self.crank_angles)
        return (f"{self.geometry.top.title} six-bar synthesized for the path point {PATH_POINT} through "
                f"{len(self.targets)} target points (max distance {self.max_distance:.3g} = {self.error:.3g} of the "
                f"longest link). The motor drives the crank from the first target to the last; the targets are "
                f"reached at t = {times} s.")

    def summary(self) -> list[str]:
        g = self.geometry
        top = g.top

        def where(link: str, w: tuple[float, float]) -> str:
            return (f"({w[0]:.6g}, {w[1]:.6g}) on the ground" if link == "ground" else
                    f"({w[0]:.6g}, {w[1]:.6g}) in the {link} frame")
        return [f"error: {self.error:.3g} of the longest link (max distance {self.max_distance:.3g})",
                f"topology: {top.title} ({top.name}): link 5 hangs from the {top.u_link}, link 6 from the "
                f"{top.v_link}",
                "links: " + ", ".join(f"{k} {v:.6g}" for k, v in g.lengths.items()),
                f"ground pivots: O2 ({g.x0:.6g}, {g.y0:.6g}), O4 ({g.O4[0]:.6g}, {g.O4[1]:.6g})",
                f"U (link 5's pivot): {where(top.u_link, (g.u1, g.u2))}; V (link 6's pivot): "
                f"{where(top.v_link, (g.v1, g.v2))}",
                f"path point: ({g.p:.6g}, {g.q:.6g}) in link 5's frame (U, x towards E)",
                f"assembly branches {g.branch1:+d} (B), {g.branch2:+d} (E); crank turns "
                f"{'counter-clockwise' if self.direction > 0 else 'clockwise'} through "
                f"{math.degrees(abs(self.crank_angles[-1] - self.crank_angles[0])):.6g} deg",
                "crank angles [deg]: " + ", ".join(f"{math.degrees(t):.9g}" for t in self.crank_angles)]


def sixbar_candidate(traversal: SixBarTraversal, T: FloatArray, tolerance: float, evaluations: int,
                     elapsed_s: float) -> SixBarCandidate:
    """A candidate from a traversal in world units; the error from the closed form (S1)."""
    fitted = traversal.geometry.coupler_point(traversal.theta)
    distance = float(np.max(np.linalg.norm(fitted - T, axis=-1)))
    return SixBarCandidate(traversal.geometry, np.array(traversal.theta, float), int(traversal.direction), T.copy(),
                           fitted, distance / traversal.geometry.link_scale, distance, tolerance, evaluations,
                           elapsed_s)


def outward(frame: Frame, traversal: SixBarTraversal) -> SixBarTraversal:
    """A traversal of normalised targets in world units."""
    return SixBarTraversal(traversal.geometry.transformed(frame.size, frame.centre), traversal.theta,
                           traversal.direction)


@quiet_numerics
def synthesize_sixbar_path(targets: Sequence[Sequence[float]] | FloatArray, topology: str = "watt2", *,
                           crank_angles: Sequence[float] | None = None, workers: int = 1, client: Any | None = None,
                           seed: int = 0, tolerance: float = DEFAULT_TOLERANCE,
                           max_time_s: float | None = DEFAULT_TIME_S, max_evaluations: int | None = None,
                           min_link_ratio: float = MIN_LINK_RATIO,
                           progress: Callable[[SixBarCandidate], bool | None] | None = None,
                           should_stop: Callable[[], bool] | None = None) -> SynthesisResult:
    """A six-bar of ``topology`` (:data:`~mechstudio.core.analysis.synthesis_sixbar.TOPOLOGIES`: watt1, watt2,
    stephenson1, stephenson3) whose path point passes through ``targets`` (N >= 5 points, in order); the other
    arguments as core.analysis.synthesis.synthesize_path (no dynamic criterion). ``should_stop()`` (optional, called
    from inside the work items of this process, so often and cheaply) cancels the search within about a second, as
    does ``progress`` returning False (at its next call). ``max_time_s`` holds to about a second: the work items
    check it (core.analysis.synthesis_deadline), and the last :data:`FINAL_RESERVE` of it (at most
    :data:`FINAL_RESERVE_S`) is kept for the final least-squares polish. Failures are statuses with messages, never
    exceptions."""
    # differential evolution's Sobol initialisation imports scipy.stats lazily (seconds on a loaded machine): before
    # the clock of max_time_s starts
    import scipy.stats.qmc  # noqa: F401
    with single_threaded_blas():
        return sixbar_path(targets, topology, crank_angles, workers, client, seed, tolerance, max_time_s,
                           max_evaluations, min_link_ratio, progress, should_stop)


def sixbar_path(targets: Sequence[Sequence[float]] | FloatArray, topology: str, crank_angles: Sequence[float] | None,
                workers: int, client: Any | None, seed: int, tolerance: float, max_time_s: float | None,
                max_evaluations: int | None, min_link_ratio: float,
                progress: Callable[[SixBarCandidate], bool | None] | None,
                should_stop: Callable[[], bool] | None) -> SynthesisResult:
    """:func:`synthesize_sixbar_path` (its arguments, in order)."""
    start = time.perf_counter()
    try:
        if topology not in TOPOLOGIES:
            raise InputProblem(f"unknown six-bar topology {topology!r}; the topologies are "
                               f"{', '.join(TOPOLOGIES)}")
        T = check_points(targets, MIN_SIXBAR_POINTS)
        delta = None
        if crank_angles is not None:
            angles = check_angles(crank_angles, len(T), "crank angles")
            delta = angles - angles[0]
        check_options(tolerance, max_time_s, max_evaluations, workers, min_link_ratio)
    except InputProblem as exc:
        return failed(str(exc), start)
    frame = Frame.of(T)
    Tn = frame.inward(T)
    rng = np.random.default_rng(seed)
    family = SixBarSearchFamily(topology)
    best: list[SixBarCandidate] = []
    exact: list[SixBarCandidate] = []
    cancelled = [False]

    def stop_requested() -> bool:
        return cancelled[0] or (should_stop is not None and bool(should_stop()))
    reserve = 0.0 if max_time_s is None else min(FINAL_RESERVE * max_time_s, FINAL_RESERVE_S)
    budget = Budget(None if max_time_s is None else max_time_s - reserve, max_evaluations, start, stop_requested)
    final = Budget(max_time_s, None, start, stop_requested).deadline()

    def report(candidate: SixBarCandidate) -> bool:
        if best and candidate.error >= best[0].error:
            return True
        best[:1] = [candidate]
        return progress is None or progress(candidate) is not False

    def on_generation(state: SearchState) -> bool:
        if stop_requested():
            return False
        if state.best_member is None or (best and best[0].exact):
            return True
        traversal = member_traversal(state.best_member, Tn, delta, family)
        if traversal is None:
            return True
        return report(sixbar_candidate(outward(frame, traversal), T, tolerance, state.evaluations,
                                       time.perf_counter() - start))

    def accept(traversal: SixBarTraversal, how: str, evaluations: int) -> bool:
        candidate = sixbar_candidate(outward(frame, traversal), T, tolerance, evaluations,
                                     time.perf_counter() - start)
        if not candidate.exact:
            return False
        exact.append(candidate)
        if not report(candidate):
            cancelled[0] = True
        return True

    try:
        with executor_for(int(workers), client) as executor:
            state = search_sixbar(Tn, topology, executor, rng, budget, on_generation, delta, min_link_ratio, accept)
    except (OSError, RuntimeError, TimeoutError) as exc:  # a local cluster that cannot start
        return failed(f"the Dask cluster could not be used: {exc}", start)
    state.cancelled = state.cancelled or stop_requested()
    elapsed = time.perf_counter() - start
    common: dict[str, Any] = dict(evaluations=state.evaluations, generations=state.generations, elapsed_s=elapsed,
                                  workers=int(workers))
    title = TOPOLOGIES[topology].title

    def result(status: Status, message: str, chosen: SixBarCandidate | None, exact_ones: tuple = ()) -> SynthesisResult:
        # SynthesisResult's candidate type names the four-bar's Candidate; a SixBarCandidate has the same interface
        return SynthesisResult(status, message, cast(Any, chosen), cast(Any, exact_ones), **common)
    if exact:
        return result(Status.CONVERGED, f"found a {title} six-bar through all {len(T)} targets: error "
                      f"{exact[0].error:.3g} of the longest link in {elapsed:.3g} s", exact[0], (exact[0],))
    if state.cancelled:
        return result(Status.CANCELLED, "cancelled" + (f"; best error so far {best[0].error:.3g}" if best else ""),
                      best[0] if best else None)
    if state.best_member is not None:
        try:
            with working_until(final):
                traversal = closest_sixbar(state.best_member, Tn, delta, family, min_link_ratio)
        except OutOfTime:
            traversal = None
        if traversal is None:
            traversal = member_traversal(state.best_member, Tn, delta, family)
        if traversal is not None:
            fallback = sixbar_candidate(outward(frame, traversal), T, tolerance, state.evaluations,
                                        time.perf_counter() - start)
            if fallback.exact:  # a valid linkage within the tolerance: found after all
                return result(Status.CONVERGED, f"found a {title} six-bar through all {len(T)} targets (least "
                              f"squares): error {fallback.error:.3g} of the longest link in {elapsed:.3g} s",
                              fallback, (fallback,))
            if not best or fallback.error < best[0].error:
                best[:1] = [fallback]
    why = state.out_of_budget or "the search ended"
    if max_time_s is not None and "time budget" in why:  # the search's budget is max_time_s less the reserve
        why = f"the time budget of {max_time_s:g} s"
    limit = MAX_EXACT_POINTS_TIMED if delta is not None else MAX_EXACT_POINTS
    beyond = (f" (more than {limit} targets{' with timing' if delta is not None else ''} are generically not on one "
              "six-bar's path)" if len(T) > limit else "")
    if not best:
        return result(Status.FAILED, f"no {title} six-bar reaches the targets in order ({why}){beyond}", None)
    return result(Status.MAX_ITER, f"no {title} six-bar within the tolerance {tolerance:g} was found before {why}; "
                  f"the closest has error {best[0].error:.3g} of the longest link{beyond}", best[0])


__all__ = ["MAX_EXACT_POINTS", "MAX_EXACT_POINTS_TIMED", "SixBarCandidate", "sixbar_candidate",
           "synthesize_sixbar_path"]
