"""Dimensional synthesis of four-bar linkages: path generation (a coupler point through N target points, with or
without prescribed crank angles) and function generation (output angle = f(input angle) at N pairs of angles).

**Path generation.** :func:`synthesize_path` looks for a four-bar (ground pivots, link lengths, coupler point in the
coupler frame, assembly branch; core.analysis.synthesis_fourbar) whose coupler point passes through the targets
``T_j`` (N >= 5, in the order given) at real crank angles on *one* assembly branch, the crank turning one way from
the first target to the last without leaving the branch (a crank that turns fully, or one that only rocks between
its stops). The error of a candidate is

    error = max_j |P(theta_j) - T_j| / L,      L = the longest of the four links (ground, crank, coupler, rocker)

with P from the closed form (circle intersection) at the candidate's crank angles theta_j. With ``crank_angles``
the crank's rotations between the targets are prescribed: theta_j = theta_1 + (crank_angles[j] - crank_angles[0]),
theta_1 free (the angle from which they are counted does not matter). The search (core.analysis.synthesis_search) is
differential evolution (scipy) over the linkage's dimensions, its population and each generation's local searches
(continuation of the loop-closure equations to the targets, timed dyad fits) spread over Dask workers; it ends when a
candidate passes within ``tolerance`` (an exact linkage: the local searches converge to about 1e-12), or when the
budget (``max_time_s``, ``max_evaluations``) is spent, in which case the best candidate so far is polished by
least squares (scipy.optimize.least_squares) and returned with status MAX_ITER.

**Dynamic criteria.** With ``criterion`` (``peak_torque`` or ``peak_bearing_force``, core.analysis.synthesis_model)
the search collects up to ``solutions`` distinct linkages through the targets (path error <= tolerance: the
constraint), computes the criterion of each by the inverse dynamics of its model, moves each along its family of
exact solutions (with fewer than nine targets the exact linkages form a continuum: a random step in the null space of
the loop-closure Jacobian, then Newton's method back onto it) keeping the steps that lower the criterion, and
returns the linkage with the lowest value.

**Function generation.** :func:`synthesize_function` fits a four-bar whose output (rocker) angle psi follows the input
(crank) angle theta at N pairs (theta_j, psi_j), both measured from the ground line O2 -> O4 (Norton's theta2, theta4)
when ``absolute`` (N >= 3), or as rotations from the first pair, the starting angles free (N >= 5). For given
starting angles Freudenstein's equation (F. Freudenstein, *Approximate synthesis of four-bar linkages*, Trans. ASME
77, 1955)

    K1 cos(psi) - K2 cos(theta) + K3 = cos(theta - psi),   K1 = d/a, K2 = d/c, K3 = (a^2 - b^2 + c^2 + d^2) / (2 a c)

is linear in K1..K3 (least squares for N > 3); the starting angles are searched by differential evolution, then the
output angles of the closed form are fitted by least squares. The error is max_j |psi(theta_j) - psi_j| [rad]. The
ground link has length ``ground_length`` along the world x axis from the origin.

Failures (bad input, nothing found, a cluster that cannot start) are a :class:`SynthesisResult` with a status and a
message, never an exception.
"""
from __future__ import annotations

import contextlib
import functools
import logging
import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Sequence

import numpy as np
from scipy.optimize import differential_evolution, least_squares

from mechstudio.core.analysis.linkage import GrashofClass, grashof_class
from mechstudio.core.analysis.synthesis_fourbar import (MIN_LINK_RATIO, TWO_PI, FourBarGeometry, LoopSystem,
                                                        Traversal, check_traversal, coupler_points, newton,
                                                        solve_batch)
from mechstudio.core.analysis.synthesis_model import (CRITERIA, DEFAULT_DENSITY, DEFAULT_GRAVITY, DEFAULT_SPEED,
                                                      CriteriaResult, dynamic_criteria, four_bar_model_data)
from mechstudio.core.analysis.synthesis_search import (Budget, DaskExecutor, Executor, SearchState,
                                                       least_squares_polish, member_traversal, search_path)
from mechstudio.core.model.io import model_from_data
from mechstudio.core.types import FloatArray, Status

#: default accuracy: path error (relative to the longest link) or output angle error [rad]
DEFAULT_TOLERANCE = 1e-4
DEFAULT_TIME_S = 60.0
#: fewest targets: path generation (with or without timing), function generation with free or absolute angles
MIN_PATH_POINTS = 5
MIN_FUNCTION_POINTS = 5
MIN_FUNCTION_POINTS_ABSOLUTE = 3
#: two targets closer than this fraction of the targets' size are the same point
DUPLICATE_RTOL = 1e-9
#: the criteria search: distinct exact linkages compared, and steps along each one's family of exact solutions
DEFAULT_SOLUTIONS = 4
MANIFOLD_STEPS = 8
MANIFOLD_STEP = 0.05  # normalised length of a random step along the family
#: function generation: rounds of least squares from a candidate's own end
POLISH_ROUNDS = 4


# --- results -------------------------------------------------------------------------------------------------------

class LinkageFit:
    """What every synthesized linkage (a four-bar :class:`Candidate`, a six-bar) says of its fit from its fields
    ``error``, ``tolerance`` and ``geometry``."""
    error: float
    tolerance: float
    geometry: Any

    @property
    def exact(self) -> bool:
        """Whether the candidate meets the tolerance."""
        return self.error <= self.tolerance

    @property
    def link_lengths(self) -> dict[str, float]:
        """The link lengths by name [length]."""
        return self.geometry.lengths

    @property
    def link_scale(self) -> float:
        """The longest link [length]: the error's unit."""
        return self.geometry.link_scale


@dataclass(frozen=True)
class Candidate(LinkageFit):
    """A synthesized four-bar (world units, the targets' length unit) and how well it fits.

    ``kind``: ``path`` or ``function``. ``geometry``: the linkage (core.analysis.synthesis_fourbar.FourBarGeometry).
    ``crank_angles`` (N,): the crank's world angle [rad] at each target, in the targets' order, unwrapped along the
    motion; ``direction`` +1 when the crank turns counter-clockwise from the first target to the last, -1 clockwise.
    ``targets`` (N, 2): the target points (path) or (input, output) angle pairs as given [rad] (function);
    ``fitted`` (N, 2): the coupler points at ``crank_angles`` (path) or (input, output of the linkage) (function).
    ``error``: max distance / longest link (path) or max output angle error [rad] (function); ``max_distance`` the
    largest distance in length units (path; the angle error again for function generation). ``criteria``: the
    dynamic criteria computed for it (``peak_torque`` [N m], ``peak_bearing_force`` [N]), else empty."""
    kind: str
    geometry: FourBarGeometry
    crank_angles: FloatArray
    direction: int
    targets: FloatArray
    fitted: FloatArray
    error: float
    max_distance: float
    tolerance: float
    evaluations: int = 0
    elapsed_s: float = 0.0
    criteria: dict[str, float] = field(default_factory=dict)

    @property
    def grashof(self) -> GrashofClass:
        g = self.geometry
        return grashof_class(g.a, g.b, g.c, g.d)

    def coupler_curve(self, samples: int = 361) -> FloatArray:
        """Coupler points (K, 2) over the crank's motion: a full turn when the crank turns fully, else over its
        reachable range on the candidate's branch (for drawing)."""
        g = self.geometry
        lo, hi = self.crank_angles[0], self.crank_angles[-1]
        for a, b in g.reachable_intervals():
            k = math.floor((lo - a) / TWO_PI)
            if a + k * TWO_PI <= min(lo, hi) + 1e-9 and max(lo, hi) <= b + k * TWO_PI + 1e-9:
                lo, hi = a + k * TWO_PI, b + k * TWO_PI
                break
        _, _, P, ok = g.positions(np.linspace(lo, hi, samples))
        return P[ok]

    def to_model_data(self, name: str = "synthesized_four_bar", *, speed: float = DEFAULT_SPEED,
                      density: float = DEFAULT_DENSITY,
                      gravity: tuple[float, float] = DEFAULT_GRAVITY) -> dict[str, Any]:
        """The model document: bodies crank, coupler (named coupler point ``P``), rocker; revolute joints O2, A, B,
        O4; a joint-angle driver ``motor`` turning the crank at ``speed`` [rad/s] from the first target to the last
        (core.analysis.synthesis_model)."""
        return four_bar_model_data(self.geometry, float(self.crank_angles[0]), float(self.crank_angles[-1]),
                                   name=name, description=self.description(speed), speed=speed, density=density,
                                   gravity=gravity)

    def to_model(self, name: str = "synthesized_four_bar", **options: Any) -> Any:
        """:meth:`to_model_data` as a validated :class:`~mechstudio.core.model.Model`."""
        return model_from_data(self.to_model_data(name, **options), f"<{name}>")

    def description(self, speed: float = DEFAULT_SPEED) -> str:
        """The model's description: the task, the error, and when the crank (at ``speed`` [rad/s]) reaches each
        target."""
        what = (f"coupler point P through {len(self.targets)} target points" if self.kind == "path" else
                f"output angle at {len(self.targets)} input angles")
        err = (f"max distance {self.max_distance:.3g} = {self.error:.3g} of the longest link" if self.kind == "path"
               else f"max output angle error {self.error:.3g} rad")
        times = ", ".join(f"{abs(t - self.crank_angles[0]) / speed:.9g}" for t in self.crank_angles)
        return (f"Four-bar synthesized for {what} ({err}). The motor drives the crank from the first target to the "
                f"last; the targets are reached at t = {times} s.")

    def summary(self) -> list[str]:
        """Report lines: error, link lengths, Grashof class, crank angles."""
        L = self.link_lengths
        lines = [f"error: {self.error:.3g} " + ("of the longest link (max distance "
                                                f"{self.max_distance:.3g})" if self.kind == "path" else "rad"),
                 "links: " + ", ".join(f"{k} {v:.6g}" for k, v in L.items()),
                 f"ground pivots: O2 ({self.geometry.x0:.6g}, {self.geometry.y0:.6g}), "
                 f"O4 ({self.geometry.O4[0]:.6g}, {self.geometry.O4[1]:.6g})",
                 f"coupler point: ({self.geometry.p:.6g}, {self.geometry.q:.6g}) in the coupler frame (A, x towards B)",
                 f"Grashof: {self.grashof.describe()}",
                 f"assembly branch {self.geometry.branch:+d}; crank turns "
                 f"{'counter-clockwise' if self.direction > 0 else 'clockwise'} through "
                 f"{math.degrees(abs(self.crank_angles[-1] - self.crank_angles[0])):.6g} deg",
                 "crank angles [deg]: " + ", ".join(f"{math.degrees(t):.9g}" for t in self.crank_angles)]
        lines += [f"{k.replace('_', ' ')}: {v:.6g} {'N m' if k == 'peak_torque' else 'N'}"
                  for k, v in self.criteria.items()]
        return lines


@dataclass(frozen=True)
class SynthesisResult:
    """The outcome of a synthesis. ``status``: CONVERGED (the best candidate meets the tolerance), MAX_ITER (the
    budget ran out: ``best`` is the closest candidate), CANCELLED (the progress callback said stop: ``best`` so far)
    or FAILED (bad input -- ``bad_input`` True -- or no candidate at all); ``message`` says which and why.
    ``candidates``: the distinct candidates that meet the tolerance (several with a dynamic criterion), best first."""
    status: Status
    message: str
    best: Candidate | None = None
    candidates: tuple[Candidate, ...] = ()
    evaluations: int = 0
    generations: int = 0
    elapsed_s: float = 0.0
    workers: int = 1
    bad_input: bool = False

    @property
    def ok(self) -> bool:
        return self.status.ok


def failed(message: str, start: float | None = None) -> SynthesisResult:
    """The result of bad input."""
    return SynthesisResult(Status.FAILED, message, elapsed_s=0.0 if start is None else time.perf_counter() - start,
                           bad_input=True)


def quiet_numerics(fn: Callable[..., SynthesisResult]) -> Callable[..., SynthesisResult]:
    """Run a synthesis with numpy's floating-point warnings off: the searches meet linkages that do not close
    (NaN, inf) by design and handle them as such."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> SynthesisResult:
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    return wrapper


# --- input checks --------------------------------------------------------------------------------------------------

class InputProblem(ValueError):
    """Bad input to a synthesis (the message says what and where)."""


def check_points(targets: Any, minimum: int, what: str = "target") -> FloatArray:
    """Targets as an (N, 2) float array, or InputProblem naming the bad one."""
    try:
        T = np.array(targets, dtype=float)
    except (TypeError, ValueError):
        raise InputProblem(f"the {what}s must be a list of (x, y) pairs of numbers") from None
    if T.ndim != 2 or T.shape[1] != 2:
        raise InputProblem(f"the {what}s must be a list of (x, y) pairs, got an array of shape {T.shape}")
    if len(T) < minimum:
        raise InputProblem(f"{len(T)} {what}s given; at least {minimum} are needed")
    bad = np.flatnonzero(~np.isfinite(T).all(axis=1))
    if bad.size:
        raise InputProblem(f"{what} {bad[0] + 1} ({T[bad[0]].tolist()}) is not a pair of finite numbers")
    size = float(np.max(np.ptp(T, axis=0)))
    if size == 0:
        raise InputProblem(f"all {what}s are the same point")
    dist = np.linalg.norm(T[:, None] - T[None], axis=-1)
    np.fill_diagonal(dist, np.inf)
    i, j = np.unravel_index(int(np.argmin(dist)), dist.shape)
    if dist[i, j] <= DUPLICATE_RTOL * size:
        i, j = sorted((int(i), int(j)))
        raise InputProblem(f"{what}s {i + 1} and {j + 1} are the same point ({T[i].tolist()})")
    return T


def check_angles(angles: Any, n: int, what: str) -> FloatArray:
    """Angles [rad] as an (n,) array, strictly monotone with a span under a turn, or InputProblem."""
    try:
        a = np.array(angles, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise InputProblem(f"the {what} must be a list of numbers (rad)") from None
    if len(a) != n:
        raise InputProblem(f"{len(a)} {what} given for {n} targets; give one per target")
    bad = np.flatnonzero(~np.isfinite(a))
    if bad.size:
        raise InputProblem(f"{what[:-1]} {bad[0] + 1} is not a finite number")
    steps = np.diff(a)
    if not (np.all(steps > 0) or np.all(steps < 0)):
        k = int(np.flatnonzero(np.sign(steps) != np.sign(steps[0]) if steps[0] != 0 else steps == 0)[0]) \
            if np.any(steps != 0) else 0
        raise InputProblem(f"the {what} must increase (or decrease) from each target to the next: "
                           f"{what[:-1]}s {k + 1} and {k + 2} are {a[k]:.6g} and {a[k + 1]:.6g} rad")
    if abs(a[-1] - a[0]) >= TWO_PI:
        raise InputProblem(f"the {what} span {abs(a[-1] - a[0]):.6g} rad: the crank reaches the targets within "
                           "one turn (less than 2 pi)")
    return a


def check_options(tolerance: float, max_time_s: float | None, max_evaluations: int | None, workers: int,
                  min_link_ratio: float) -> None:
    if not (isinstance(tolerance, (int, float)) and math.isfinite(tolerance) and tolerance > 0):
        raise InputProblem(f"the tolerance must be a positive number, got {tolerance!r}")
    if max_time_s is not None and not (math.isfinite(max_time_s) and max_time_s > 0):
        raise InputProblem(f"max_time_s must be a positive number of seconds, got {max_time_s!r}")
    if max_evaluations is not None and max_evaluations < 1:
        raise InputProblem(f"max_evaluations must be at least 1, got {max_evaluations!r}")
    if int(workers) < 1:
        raise InputProblem(f"workers must be at least 1, got {workers!r}")
    if not 0 < min_link_ratio < 1:
        raise InputProblem(f"min_link_ratio must lie between 0 and 1, got {min_link_ratio!r}")


# --- executors -----------------------------------------------------------------------------------------------------

@contextlib.contextmanager
def executor_for(workers: int, client: Any | None) -> Iterator[Executor]:
    """An executor: ``client`` (a Dask client: its workers, or ``workers`` chunks), else a local Dask cluster of
    ``workers`` processes for the duration (closed at the end), else (workers == 1) this process."""
    if client is not None:
        yield DaskExecutor(client, workers if workers > 1 else None)
        return
    if workers <= 1:
        yield Executor()
        return
    # distributed only when a local cluster is asked for (start-up of the commands and of the editor)
    from distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)
    try:
        with Client(cluster) as own_client:
            yield DaskExecutor(own_client, workers)
    finally:
        cluster.close()


# --- path generation -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Frame:
    """Normalisation of the targets: T_normalised = (T - centre) / size (size: the larger side of their bounding
    box)."""
    centre: FloatArray
    size: float

    @classmethod
    def of(cls, T: FloatArray) -> "Frame":
        lo, hi = T.min(axis=0), T.max(axis=0)
        return cls(0.5 * (lo + hi), float(np.max(hi - lo)))

    def inward(self, T: FloatArray) -> FloatArray:
        return (T - self.centre) / self.size

    def outward(self, traversal: Traversal) -> Traversal:
        return Traversal(traversal.geometry.transformed(self.size, self.centre), traversal.theta,
                         traversal.direction)


def path_candidate(traversal: Traversal, T: FloatArray, tolerance: float, evaluations: int, elapsed_s: float,
                   criteria: dict[str, float] | None = None) -> Candidate:
    """A path candidate from a traversal in world units; the error from the closed form."""
    fitted = traversal.geometry.coupler_point(traversal.theta)
    distance = float(np.max(np.linalg.norm(fitted - T, axis=-1)))
    return Candidate("path", traversal.geometry, np.array(traversal.theta, float), int(traversal.direction),
                     T.copy(), fitted, distance / traversal.geometry.link_scale, distance, tolerance, evaluations,
                     elapsed_s, dict(criteria or {}))


@quiet_numerics
def synthesize_path(targets: Sequence[Sequence[float]] | FloatArray, *, crank_angles: Sequence[float] | None = None,
                    workers: int = 1, client: Any | None = None, seed: int = 0,
                    tolerance: float = DEFAULT_TOLERANCE, max_time_s: float | None = DEFAULT_TIME_S,
                    max_evaluations: int | None = None, criterion: str | None = None,
                    solutions: int = DEFAULT_SOLUTIONS,
                    speed: float = DEFAULT_SPEED, density: float = DEFAULT_DENSITY,
                    gravity: tuple[float, float] = DEFAULT_GRAVITY, min_link_ratio: float = MIN_LINK_RATIO,
                    progress: Callable[[Candidate], bool | None] | None = None) -> SynthesisResult:
    """A four-bar whose coupler point passes through ``targets`` (N >= 5 (x, y) points, in order) (module
    docstring).

    ``crank_angles`` (N,) [rad]: prescribed crank rotations (relative to the first target). ``workers``: Dask worker
    processes (1: this process); ``client``: a Dask client to run on instead of starting a local cluster. ``seed``:
    the same seed gives the same linkage on any number of workers (unless the time budget ends the search).
    ``tolerance``: the path error to reach (relative to the longest link). ``max_time_s``, ``max_evaluations``: the
    budget (fitness evaluations of the evolution). ``criterion``: ``peak_torque`` or ``peak_bearing_force`` to
    minimise over up to ``solutions`` exact linkages, their models driven at ``speed`` [rad/s] with links of line
    density ``density`` [kg/m] under ``gravity`` [m/s^2]. ``min_link_ratio``: the shortest link's least fraction of
    the longest. ``progress(candidate)`` is called with every improved best candidate; returning False cancels the
    search (status CANCELLED with the best candidate so far; a candidate that already meets the tolerance is
    returned as found)."""
    start = time.perf_counter()
    try:
        T = check_points(targets, MIN_PATH_POINTS)
        delta = None
        if crank_angles is not None:
            angles = check_angles(crank_angles, len(T), "crank angles")
            delta = angles - angles[0]
        check_options(tolerance, max_time_s, max_evaluations, workers, min_link_ratio)
        if criterion is not None and criterion not in CRITERIA:
            raise InputProblem(f"unknown criterion {criterion!r}; the criteria are {', '.join(CRITERIA)}")
        if solutions < 1:
            raise InputProblem(f"solutions must be at least 1, got {solutions!r}")
    except InputProblem as exc:
        return failed(str(exc), start)
    frame = Frame.of(T)
    Tn = frame.inward(T)
    rng = np.random.default_rng(seed)
    budget = Budget(max_time_s, max_evaluations, start)
    best: list[Candidate] = []
    exact: list[Candidate] = []
    want = solutions if criterion else 1

    def report(candidate: Candidate) -> bool:
        if best and candidate.error >= best[0].error and not (criterion and candidate.exact):
            return True
        best[:1] = [candidate]
        return progress is None or progress(candidate) is not False

    def on_generation(state: SearchState) -> bool:
        if state.best_member is None:
            return True
        traversal = member_traversal(state.best_member, Tn, delta)
        if traversal is None or (best and best[0].exact):
            return True
        return report(path_candidate(frame.outward(traversal), T, tolerance, state.evaluations,
                                     time.perf_counter() - start))

    criteria_options = {"speed": speed, "density": density, "gravity": gravity}
    state = SearchState()
    cancelled = [False]

    def accept(traversal: Traversal, how: str, evaluations: int) -> bool:
        candidate = path_candidate(frame.outward(traversal), T, tolerance, evaluations, time.perf_counter() - start)
        if not candidate.exact or any(same_linkage(candidate, c) for c in exact):
            return False
        exact.append(candidate)
        if not report(candidate):
            cancelled[0] = True
        return True

    try:
        with executor_for(int(workers), client) as executor:
            state = search_path(Tn, executor, rng, budget, on_generation, delta, min_link_ratio, accept, want)
            state.cancelled = state.cancelled or cancelled[0]
            if criterion and exact and not state.cancelled:
                exact = improve_criterion(exact, Tn, frame, T, delta, criterion, criteria_options, tolerance,
                                          executor, rng, budget, report)
    except (OSError, RuntimeError, TimeoutError) as exc:  # a local cluster that cannot start
        return failed(f"the Dask cluster could not be used: {exc}", start)
    elapsed = time.perf_counter() - start
    common = dict(evaluations=state.evaluations, generations=state.generations, elapsed_s=elapsed,
                  workers=int(workers))
    if exact:
        exact.sort(key=lambda c: (c.criteria.get(criterion, math.inf) if criterion else c.error))
        chosen = exact[0]
        what = (f"; {criterion.replace('_', ' ')} {chosen.criteria[criterion]:.6g} (lowest of {len(exact)} exact "
                "linkages)" if criterion and criterion in chosen.criteria else "")
        return SynthesisResult(Status.CONVERGED, f"found a four-bar through all {len(T)} targets: error "
                               f"{chosen.error:.3g} of the longest link in {elapsed:.3g} s{what}", chosen,
                               tuple(exact), **common)
    if state.cancelled:
        return SynthesisResult(Status.CANCELLED, "cancelled" + (f"; best error so far {best[0].error:.3g}" if best
                                                                else ""), best[0] if best else None, **common)
    fallback = approximate(state, Tn, delta, frame, T, tolerance, min_link_ratio, start)
    if fallback is not None and (not best or fallback.error < best[0].error):
        best[:1] = [fallback]
    why = state.out_of_budget or "the search ended"
    if not best:
        return SynthesisResult(Status.FAILED, f"no four-bar reaches the targets in order ({why})", **common)
    return SynthesisResult(Status.MAX_ITER, f"no four-bar within the tolerance {tolerance:g} was found before "
                           f"{why}; the closest has error {best[0].error:.3g} of the longest link", best[0], **common)


def approximate(state: SearchState, Tn: FloatArray, delta: FloatArray | None, frame: Frame, T: FloatArray,
                tolerance: float, min_link_ratio: float, start: float) -> Candidate | None:
    """The best member polished by least squares (targets no four-bar passes exactly), as a candidate."""
    if state.best_member is None:
        return None
    traversal = least_squares_polish(state.best_member, Tn, delta, min_link_ratio)
    if traversal is None:
        traversal = member_traversal(state.best_member, Tn, delta)
    if traversal is None:
        return None
    return path_candidate(frame.outward(traversal), T, tolerance, state.evaluations, time.perf_counter() - start)


def same_linkage(a: Candidate, b: Candidate, rtol: float = 1e-6) -> bool:
    """Whether two candidates are the same linkage (every parameter within rtol of the link scale)."""
    va, vb = a.geometry.vector(), b.geometry.vector()
    scale = max(a.link_scale, b.link_scale)
    diff = np.abs(va - vb)
    diff[2] = abs(math.remainder(va[2] - vb[2], TWO_PI)) * scale
    return bool(np.all(diff <= rtol * scale)) and a.geometry.branch == b.geometry.branch


# --- dynamic criteria --------------------------------------------------------------------------------------------

def candidate_criteria(geometry: FourBarGeometry, theta_start: float, theta_end: float,
                       options: dict[str, Any]) -> CriteriaResult:
    """Work item: the dynamic criteria of one linkage (core.analysis.synthesis_model.dynamic_criteria)."""
    return dynamic_criteria(geometry, theta_start, theta_end, **options)


def improve_criterion(exact: list[Candidate], Tn: FloatArray, frame: Frame, T: FloatArray, delta: FloatArray | None,
                      criterion: str, options: dict[str, Any], tolerance: float, executor: Executor,
                      rng: np.random.Generator, budget: Budget,
                      report: Callable[[Candidate], bool]) -> list[Candidate]:
    """Each exact candidate with its criteria, then moved along its family of exact solutions (module docstring)
    while that lowers the criterion; the candidates whose criteria could be computed."""
    items = [(c.geometry, float(c.crank_angles[0]), float(c.crank_angles[-1]), options) for c in exact]
    results = executor.map(candidate_criteria, items)
    out = [replace(c, criteria=r.values) for c, r in zip(exact, results) if r.status.ok]
    improved = []
    system = LoopSystem(Tn, delta)
    for cand in out:
        for _ in range(MANIFOLD_STEPS):
            if budget.exhausted(0):
                break
            moved = manifold_step(cand, system, frame, rng)
            if moved is None:
                continue
            trial = path_candidate(frame.outward(moved), T, tolerance, cand.evaluations, cand.elapsed_s)
            if not trial.exact:
                continue
            res = executor.map(candidate_criteria, [(trial.geometry, float(trial.crank_angles[0]),
                                                     float(trial.crank_angles[-1]), options)])[0]
            if res.status.ok and res.values[criterion] < cand.criteria[criterion]:
                cand = replace(trial, criteria=res.values)
                if not report(cand):
                    return improved + [cand]
        improved.append(cand)
    return improved


def manifold_step(candidate: Candidate, system: LoopSystem, frame: Frame,
                  rng: np.random.Generator) -> Traversal | None:
    """A random step along the family of exact solutions through the candidate (null space of the loop-closure
    Jacobian), back onto it by Newton's method; the accepted traversal or None."""
    g = candidate.geometry
    normal = FourBarGeometry(*(float(v) for v in ((g.x0 - frame.centre[0]) / frame.size,
                                                   (g.y0 - frame.centre[1]) / frame.size, g.gamma,
                                                   g.d / frame.size, g.a / frame.size, g.b / frame.size,
                                                   g.c / frame.size, g.p / frame.size, g.q / frame.size)),
                             branch=g.branch)
    x = system.state(normal, candidate.crank_angles)
    J = system.jacobian(x)
    _, s, Vt = np.linalg.svd(J)
    rank = int(np.sum(s > 1e-10 * s[0]))
    null = Vt[rank:]
    if len(null) == 0:
        return None
    step = null.T @ rng.standard_normal(len(null))
    step *= MANIFOLD_STEP / max(np.linalg.norm(step[:9]), 1e-300)
    x, ok = newton(system, x + step, system.T, 1e-13, steps=20)
    if not ok:
        return None
    traversal, _ = check_traversal(system, x)
    return None if traversal is None else frame.outward(traversal)


# --- function generation -----------------------------------------------------------------------------------------

def chebyshev_inputs(start: float, end: float, count: int) -> FloatArray:
    """Chebyshev spacing of ``count`` precision points over [start, end] (Freudenstein, Hartenberg & Denavit):
    x_j = (start + end) / 2 - (end - start) / 2 cos((2 j - 1) pi / (2 count)), j = 1..count (in increasing order
    when end > start)."""
    j = np.arange(1, count + 1)
    return 0.5 * (start + end) - 0.5 * (end - start) * np.cos((2 * j - 1) * math.pi / (2 * count))


def function_targets(f: Callable[[FloatArray], FloatArray], start: float, end: float, count: int,
                     spacing: str = "chebyshev") -> tuple[FloatArray, FloatArray]:
    """(input angles, output angles f(input)) at ``count`` points over [start, end] [rad], spaced ``chebyshev``
    (:func:`chebyshev_inputs`) or ``even``."""
    if spacing == "chebyshev":
        x = chebyshev_inputs(start, end, count)
    elif spacing == "even":
        x = np.linspace(start, end, count)
    else:
        raise ValueError(f"unknown spacing {spacing!r}; use chebyshev or even")
    return x, np.asarray(f(x), float)


def rocker_angles(lengths: FloatArray, theta: FloatArray, branch: float) -> tuple[FloatArray, FloatArray]:
    """Output angles psi (S, N) (O4 -> B from the ground line) of four-bars lengths (S, 4) = (a, b, c, d) with
    O2 at the origin and O4 at (d, 0), at input angles theta (S, N) ((F1)); and where they assemble."""
    S = len(lengths)
    a, b, c, d = (lengths[:, i] for i in range(4))
    G = np.zeros((S, 9))
    G[:, 3], G[:, 4], G[:, 5], G[:, 6] = d, a, b, c
    _, ok, _, B = coupler_points(G, theta, branch, with_joints=True)
    psi = np.arctan2(B[..., 1], B[..., 0] - d[:, None])
    return psi, ok


def freudenstein_lengths(theta: FloatArray, psi: FloatArray, d: float) -> FloatArray:
    """Link lengths (S, 4) = (a, b, c, d) from the least-squares Freudenstein coefficients of angle pairs
    (S, N) (module docstring); NaN where no four-bar has those coefficients."""
    M = np.stack([np.cos(psi), -np.cos(theta), np.ones_like(theta)], -1)
    rhs = np.cos(theta - psi)
    MtM = np.einsum("sni,snj->sij", M, M) + 1e-14 * np.eye(3)
    K = solve_batch(MtM, np.einsum("sni,sn->si", M, rhs))
    with np.errstate(divide="ignore", invalid="ignore"):
        a, c = d / K[:, 0], d / K[:, 1]
        b2 = a * a + c * c + d * d - 2 * a * c * K[:, 2]
        b = np.sqrt(np.where(b2 > 0, b2, np.nan))
    ok = (K[:, 0] > 0) & (K[:, 1] > 0) & np.isfinite(b)
    out = np.stack([a, b, c, np.full_like(a, d)], -1)
    out[~ok] = np.nan
    return out


def angle_error(psi: FloatArray, target: FloatArray) -> FloatArray:
    """Wrapped difference psi - target in (-pi, pi]."""
    return np.remainder(psi - target + math.pi, TWO_PI) - math.pi


def function_fitness(X: FloatArray, d_in: FloatArray, d_out: FloatArray, d: float) -> tuple[FloatArray, FloatArray]:
    """(max output angle error (S,), best branch (S,)) of starting angles X (S, 2) = (theta_0, psi_0) with the
    Freudenstein lengths."""
    theta = X[:, :1] + d_in[None]
    psi_t = X[:, 1:2] + d_out[None]
    L = freudenstein_lengths(theta, psi_t, d)
    err = np.full(len(X), np.inf)
    branch = np.ones(len(X))
    valid = np.isfinite(L).all(-1)
    if valid.any():
        for sigma in (1.0, -1.0):
            psi, ok = rocker_angles(L[valid], theta[valid], sigma)
            e = np.where(ok.all(-1), np.max(np.abs(angle_error(psi, psi_t[valid])), -1), np.inf)
            better = e < err[valid]
            idx = np.flatnonzero(valid)[better]
            err[idx], branch[idx] = e[better], sigma
    return err, branch


def function_traversal(lengths: FloatArray, theta: FloatArray, branch: int, min_link_ratio: float
                       ) -> Traversal | None:
    """The function generator as a traversal (coupler point at the coupler's middle), when its input reaches the
    input angles in order on its branch and no link is too short."""
    a, b, c, d = (float(v) for v in lengths)
    if not all(math.isfinite(v) and v > 0 for v in (a, b, c, d)) or min(a, b, c, d) < min_link_ratio * max(a, b, c, d):
        return None
    geometry = FourBarGeometry(0.0, 0.0, 0.0, d, a, b, c, 0.5 * b, 0.0, branch)
    if not geometry.positions(theta)[3].all():
        return None
    if not all(geometry.sweep_reachable(theta[j], theta[j + 1]) for j in range(len(theta) - 1)):
        return None
    return Traversal(geometry, np.array(theta, float), 1 if theta[-1] >= theta[0] else -1)


def polish_function(start: FloatArray, lengths: FloatArray, branch: int, d_in: FloatArray, d_out: FloatArray,
                    absolute: bool) -> tuple[FloatArray, FloatArray]:
    """Least squares (scipy) on the output angle errors over (theta_0, psi_0, a, b, c) (the offsets only when not
    absolute); returns (offsets, lengths)."""
    d = float(lengths[3])

    def residual(x: FloatArray) -> FloatArray:
        off = x[:2] if not absolute else start
        L = np.array([[x[2], x[3], x[4], d]])
        psi, ok = rocker_angles(L, (off[0] + d_in)[None], branch)
        r = angle_error(psi[0], off[1] + d_out)
        return np.where(ok[0], r, 10.0)
    x0 = np.concatenate([start, lengths[:3]])
    lower = np.concatenate([[-np.inf, -np.inf], np.full(3, 1e-9 * d)])
    fit = least_squares(residual, x0, bounds=(lower, np.inf), method="trf", xtol=1e-15, ftol=1e-15, gtol=1e-15,
                        max_nfev=200)
    return fit.x[:2] if not absolute else start, np.concatenate([fit.x[2:], [d]])


@quiet_numerics
def synthesize_function(input_angles: Sequence[float], output_angles: Sequence[float], *, absolute: bool = False,
                        ground_length: float = 1.0, tolerance: float = DEFAULT_TOLERANCE, seed: int = 0,
                        workers: int = 1, client: Any | None = None, max_time_s: float | None = DEFAULT_TIME_S,
                        max_evaluations: int | None = None, min_link_ratio: float = MIN_LINK_RATIO,
                        progress: Callable[[Candidate], bool | None] | None = None) -> SynthesisResult:
    """A four-bar whose output angle follows the input angle at the given pairs [rad] (module docstring).

    ``absolute``: the angles are measured from the ground line (else they are rotations from the first pair, the
    starting angles free). ``ground_length`` [length]: the ground link, O2 at the origin, O4 on the +x axis.
    ``tolerance``: the largest output angle error to reach [rad]. Other arguments as :func:`synthesize_path` (the
    search is small: ``workers`` and ``client`` are accepted for the same call shape, the work runs here)."""
    start = time.perf_counter()
    try:
        minimum = MIN_FUNCTION_POINTS_ABSOLUTE if absolute else MIN_FUNCTION_POINTS
        theta_in = check_angles(input_angles, len(np.atleast_1d(np.asarray(input_angles, dtype=object))),
                                "input angles")
        if len(theta_in) < minimum:
            raise InputProblem(f"{len(theta_in)} angle pairs given; at least {minimum} are needed"
                               f"{'' if absolute else ' with free starting angles (3 with absolute angles)'}")
        try:
            psi_in = np.array(output_angles, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise InputProblem("the output angles must be a list of numbers (rad)") from None
        if len(psi_in) != len(theta_in):
            raise InputProblem(f"{len(psi_in)} output angles for {len(theta_in)} input angles; give one per input")
        bad = np.flatnonzero(~np.isfinite(psi_in))
        if bad.size:
            raise InputProblem(f"output angle {bad[0] + 1} is not a finite number")
        if not (math.isfinite(ground_length) and ground_length > 0):
            raise InputProblem(f"the ground length must be a positive number, got {ground_length!r}")
        check_options(tolerance, max_time_s, max_evaluations, workers, min_link_ratio)
    except InputProblem as exc:
        return failed(str(exc), start)
    d = float(ground_length)
    d_in = theta_in - (0.0 if absolute else theta_in[0])
    d_out = psi_in - (0.0 if absolute else psi_in[0])
    budget = Budget(max_time_s, max_evaluations, start)
    evaluations = [0]
    best: list[Candidate] = []

    def make(offsets: FloatArray, lengths: FloatArray, branch: int) -> Candidate | None:
        theta = offsets[0] + d_in
        traversal = function_traversal(lengths, theta, branch, min_link_ratio)
        if traversal is None:
            return None
        psi, _ = rocker_angles(np.asarray(lengths, float)[None], theta[None], branch)
        err = float(np.max(np.abs(angle_error(psi[0], offsets[1] + d_out))))
        fitted = np.stack([theta_in, psi_in + angle_error(psi[0], offsets[1] + d_out)], -1)
        return Candidate("function", traversal.geometry, traversal.theta, traversal.direction,
                         np.stack([theta_in, psi_in], -1), fitted, err, err, tolerance, evaluations[0],
                         time.perf_counter() - start)

    best_params: list[tuple[FloatArray, FloatArray, int]] = []

    def consider(offsets: FloatArray, lengths: FloatArray, branch: int, polish: bool) -> bool:
        cands = []
        c0 = make(offsets, lengths, branch)
        if c0 is not None:
            cands.append((c0, (offsets, lengths, branch)))
        if polish and np.all(np.isfinite(lengths)):
            for _ in range(POLISH_ROUNDS):  # least squares again from its own end while that still improves
                off2, len2 = polish_function(offsets, lengths, branch, d_in, d_out, absolute)
                c1 = make(off2, len2, branch)
                if c1 is None or (cands and c1.error >= 0.5 * cands[-1][0].error):
                    if c1 is not None and (not cands or c1.error < cands[-1][0].error):
                        cands.append((c1, (off2, len2, branch)))
                    break
                cands.append((c1, (off2, len2, branch)))
                offsets, lengths = off2, len2
        for cand, params in cands:
            if not best or cand.error < best[0].error:
                best[:1], best_params[:1] = [cand], [params]
                if progress is not None and progress(cand) is False:
                    return False
        return True

    cancelled = False
    if absolute:
        X = np.zeros((1, 2))
        err, branch = function_fitness(X, d_in, d_out, d)
        L = freudenstein_lengths(d_in[None], d_out[None], d)[0]
        evaluations[0] = 1
        cancelled = not consider(X[0], L, int(branch[0]), True)
    else:
        rng = np.random.default_rng(seed)
        bounds = [(-math.pi, math.pi), (-math.pi, math.pi)]

        def fitness(X: FloatArray) -> FloatArray:
            evaluations[0] += X.shape[1]
            e, _ = function_fitness(X.T, d_in, d_out, d)
            return np.where(np.isfinite(e), e, 10.0)

        class Done(Exception):
            pass

        def callback(intermediate_result: Any) -> bool:
            x = np.array(intermediate_result.x, float)
            e, br = function_fitness(x[None], d_in, d_out, d)
            if np.isfinite(e[0]):
                L = freudenstein_lengths((x[0] + d_in)[None], (x[1] + d_out)[None], d)[0]
                if not consider(x, L, int(br[0]), True):
                    raise Done("cancelled")
            if best and best[0].exact:
                raise Done("found")
            if budget.exhausted(evaluations[0]):
                raise Done("budget")
            return False

        while True:
            try:
                differential_evolution(fitness, bounds, popsize=20, maxiter=100, tol=1e-12, init="sobol",
                                       seed=int(rng.integers(2 ** 31)), polish=False, vectorized=True,
                                       updating="deferred", callback=callback)
            except Done as exc:
                cancelled = str(exc) == "cancelled"
                break
            if budget.exhausted(evaluations[0]):
                break
    elapsed = time.perf_counter() - start
    common = dict(evaluations=evaluations[0], elapsed_s=elapsed, workers=int(workers))
    if cancelled:
        return SynthesisResult(Status.CANCELLED, "cancelled", best[0] if best else None, **common)
    if not best:
        return SynthesisResult(Status.FAILED, "no four-bar reaches the input angles in order on one branch", **common)
    if best[0].exact:
        return SynthesisResult(Status.CONVERGED, f"found a function generator: max output angle error "
                               f"{best[0].error:.3g} rad in {elapsed:.3g} s", best[0], (best[0],), **common)
    return SynthesisResult(Status.MAX_ITER, f"no four-bar within the tolerance {tolerance:g} rad was found; the "
                           f"closest has a max output angle error of {best[0].error:.3g} rad", best[0], **common)


__all__ = ["CRITERIA", "Candidate", "DEFAULT_TOLERANCE", "FourBarGeometry", "LinkageFit", "SynthesisResult",
           "chebyshev_inputs", "function_targets", "rocker_angles", "synthesize_function", "synthesize_path"]
