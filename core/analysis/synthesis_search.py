"""The global search of four-bar synthesis: differential evolution over the linkage's dimensions, its population and
the local searches of each generation spread over workers, until a linkage passes through every target.

Everything here works on *normalised* targets (centred on their bounding box, divided by its larger side), so that
the bounds and tolerances below are the same for a millimetre mechanism and for a ten-metre one.

**Path generation without timing.** A member of the population is a linkage g = (x0, y0, gamma, d, a, b, c, p, q)
(core.analysis.synthesis_fourbar) inside :data:`PATH_BOUNDS`. Its fitness is the rms distance of the targets from
its coupler curve, sampled on :data:`CURVE_SAMPLES` crank angles of each reachable arc and branch, the targets
visited in order (or in the reverse order) along one arc: a dynamic programme over the polyline's segments
(``ordered_fit``). With more than :data:`BASE_POINTS` targets the population is fitted to a spread subset of
:data:`BASE_POINTS` of them (the set of exact solutions is larger, so easier to land in). After every generation a
fixed number of work items is run on the workers:

* *polish* the best :data:`POLISH_PER_GENERATION` members not polished yet: assign the subset's targets to the
  curve in order, continue the linkage from its own curve points to the targets (homotopy on the loop-closure
  equations), then add the remaining targets one at a time, each continued from its nearest curve point between its
  neighbours' crank angles;
* *timing seeds* (:data:`TIMINGS_PER_GENERATION`): guess the crank angles of the targets (evenly spaced first, the
  spacings ordered by how well a crank dyad fits them, then random spacings), solve the timed problem (a crank dyad
  through the targets with those rotations, a circle point of the coupler's poses for the rocker), and continue
  from its curve points to the targets without the timing.

A result counts only when ``check_traversal`` accepts it: one assembly branch, the crank reaching every target in
order, no link shorter than MIN_LINK_RATIO of the longest. The first accepted item of a generation (in the items'
order, not the order in which workers finish) ends the search, so a seed gives the same linkage on any number of
workers. When the evolution stalls it is restarted with the next seed.

**Path generation with prescribed timing** (the crank turns by delta_j between the first and the j-th target):
the timed dyad fit is tried first; otherwise the population is (g, theta_1) with the rms distance of the coupler
points at theta_1 + delta_j as its fitness, and its best members are polished by Gauss-Newton on the timed
loop-closure equations.

Work items are plain functions of picklable arguments, run through an :class:`Executor`: in this process, or on a
Dask cluster (``client.submit``), the population cut into one chunk per worker.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
from scipy.optimize import differential_evolution, least_squares

from mechstudio.core.analysis.synthesis_deadline import Deadline, OutOfTime, check_time, working_until
from mechstudio.core.analysis.synthesis_fourbar import (MIN_LINK_RATIO, TWO_PI, FourBarGeometry, LoopSystem,
                                                        Traversal, check_traversal, continue_to_targets,
                                                        coupler_points, crank_dyads, newton, normalise_state,
                                                        ordered_assignment, ordered_fit, timed_states)
from mechstudio.core.run.blas import single_threaded_blas
from mechstudio.core.types import FloatArray

#: bounds of the population's linkages in normalised units (the targets' bounding box has a larger side of 1)
PATH_BOUNDS = ((-2.5, 2.5), (-2.5, 2.5), (-math.pi, math.pi), (0.05, 3.0), (0.05, 3.0), (0.05, 3.0), (0.05, 3.0),
               (-3.0, 3.0), (-3.0, 3.0))
#: crank angle samples per reachable arc in the population's fitness, and in the assignment of a polished member
CURVE_SAMPLES = 100
ASSIGN_SAMPLES = 200
#: targets the population is fitted to when there are more
BASE_POINTS = 6
#: work items per generation (fixed, so that the result does not depend on the number of workers)
POLISH_PER_GENERATION = 3
TIMINGS_PER_GENERATION = 1
#: differential evolution: population size multiplier, generations per run (then a restart), mutation, recombination
POPSIZE = 10
GENERATIONS = 200
MUTATION = (0.5, 1.0)
RECOMBINATION = 0.7
#: evenly spaced timing guesses per direction
UNIFORM_TIMINGS = 32
#: a continuation may not shorten a link below this fraction of the starting linkage's longest
CONTINUATION_MIN_LINK = 0.01
#: two members closer than this (largest coordinate difference, normalised) are polished once
SAME_MEMBER = 1e-3
#: residual [normalised length] below which a timed Gauss-Newton fit counts as exact
EXACT_TOL = 1e-10


# --- executors ---------------------------------------------------------------------------------------------------

class Executor:
    """Runs work items: ``map(fn, items)`` returns ``[fn(*item) for item in items]`` in order. This one runs them in
    this process; :class:`DaskExecutor` on a Dask cluster."""
    workers = 1

    def map(self, fn: Callable[..., Any], items: Sequence[tuple[Any, ...]]) -> list[Any]:
        return [fn(*item) for item in items]


class DaskExecutor(Executor):
    """Work items as Dask tasks on ``client`` (a ``distributed.Client``); ``workers`` is the number of chunks the
    population is cut into (default: the cluster's workers)."""

    def __init__(self, client: Any, workers: int | None = None):
        self.client = client
        if workers is None:
            workers = max(1, len(client.scheduler_info().get("workers", {})))
        self.workers = max(1, int(workers))

    def map(self, fn: Callable[..., Any], items: Sequence[tuple[Any, ...]]) -> list[Any]:
        futures = [self.client.submit(fn, *item, pure=False) for item in items]
        try:
            return list(self.client.gather(futures))
        finally:
            for f in futures:
                f.release()


def population_fitness(kind: str, X: FloatArray, T: FloatArray, delta: FloatArray | None) -> FloatArray:
    """Fitness of the members X (S, D) (module docstring): ``ordered`` for path generation without timing, ``timed``
    with it (X then holds theta_1 as its tenth column)."""
    if kind == "ordered":
        return ordered_fit(X, T, CURVE_SAMPLES)
    assert delta is not None
    theta = X[:, 9:10] + delta[None, :]
    best = np.full(len(X), np.inf)
    for sigma in (1.0, -1.0):
        P, ok = coupler_points(X[:, :9], theta, sigma)
        d2 = np.sum((P - T[None]) ** 2, -1)
        rms = np.sqrt(np.where(ok.all(-1), d2.mean(-1), np.inf))
        best = np.minimum(best, rms)
    return best


def safe_fitness(kind: str, X: FloatArray, T: FloatArray, delta: FloatArray | None,
                 evaluate: Callable[[str, FloatArray, FloatArray, FloatArray | None], FloatArray] = population_fitness
                 ) -> FloatArray:
    """``evaluate(kind, X, T, delta)`` (:func:`population_fitness`, or a module-level function of another linkage
    family), a numerical failure giving inf for the chunk (never an exception)."""
    try:
        with np.errstate(all="ignore"), single_threaded_blas():
            return evaluate(kind, X, T, delta)
    except (np.linalg.LinAlgError, ArithmeticError, ValueError):
        return np.full(len(X), np.inf)


class PopulationFitness:
    """The vectorised fitness handed to differential evolution: the population (D, S) cut into one chunk per worker,
    the chunks evaluated by the executor (``evaluate(kind, chunk, T, delta)``: a module-level function, it runs on
    the workers); counts the evaluations."""

    def __init__(self, executor: Executor, kind: str, T: FloatArray, delta: FloatArray | None = None,
                 evaluate: Callable[[str, FloatArray, FloatArray, FloatArray | None], FloatArray] = population_fitness):
        self.executor = executor
        self.kind = kind
        self.T = T
        self.delta = delta
        self.evaluate = evaluate
        self.evaluations = 0

    def __call__(self, X: FloatArray) -> FloatArray:
        members = np.ascontiguousarray(np.asarray(X, float).T)
        chunks = [c for c in np.array_split(members, self.executor.workers) if len(c)]
        parts = self.executor.map(safe_fitness, [(self.kind, c, self.T, self.delta, self.evaluate) for c in chunks])
        self.evaluations += len(members)
        out = np.concatenate(parts)
        return np.where(np.isfinite(out), out, 1e6)


# --- work items (module-level functions: they run on workers) ------------------------------------------------------

@dataclass(frozen=True)
class ItemResult:
    """What one work item found: an accepted traversal (normalised units) or None, and why not."""
    traversal: Traversal | None
    note: str


def spread_subset(n: int, count: int = BASE_POINTS) -> FloatArray:
    """Indices of ``count`` targets spread over 0..n-1 (first and last included)."""
    return np.unique(np.round(np.linspace(0, n - 1, min(count, n))).astype(int))


class FourBarFamily:
    """The four-bar's kinematics as the shared local searches (:func:`continue_from_curve`, :func:`add_targets`)
    use them: another linkage family (core.analysis.synthesis_sixbar) provides the same three methods. Its systems
    have ``state(geometry, theta)``, ``residuals``, ``jacobian``, ``T`` and ``length_index``; its geometries
    ``link_scale``."""

    def system(self, T: FloatArray, delta: FloatArray | None = None) -> LoopSystem:
        return LoopSystem(T, delta)

    def curve(self, geometry: FourBarGeometry, theta: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(path points (K, 2), assembled (K,)) at crank angles theta (K,)."""
        _, _, P, ok = geometry.positions(theta)
        return P, ok

    def check(self, system: LoopSystem, x: FloatArray, min_link_ratio: float) -> tuple[Traversal | None, str]:
        return check_traversal(system, x, min_link_ratio)

    def traversal(self, geometry: FourBarGeometry, theta: FloatArray, direction: int) -> Traversal:
        return Traversal(geometry, theta, direction)

    def starts(self, member: FloatArray, T: FloatArray, delta: FloatArray | None
               ) -> list[tuple[FourBarGeometry, FloatArray]]:
        """A member's linkages and crank angles at the targets: its ordered assignment (without timing), or
        theta_1 + delta_j on either branch (with timing)."""
        if delta is None:
            assignment = ordered_assignment(member[:9], T, ASSIGN_SAMPLES)
            if assignment is None:
                return []
            _, branch, theta = assignment
            return [(FourBarGeometry.from_vector(member[:9], branch), theta)]
        theta = float(member[9]) + delta
        return [(FourBarGeometry.from_vector(member[:9], sigma), theta) for sigma in (1, -1)]


FOUR_BAR = FourBarFamily()


def continue_from_curve(T: FloatArray, geometry: Any, theta: FloatArray, min_link_ratio: float,
                        family: Any = FOUR_BAR) -> ItemResult:
    """Continue a linkage from its path points at crank angles theta (N,) to the targets T (N, 2)."""
    P0, ok = family.curve(geometry, theta)
    if not ok.all():
        return ItemResult(None, "not assembled")
    system = family.system(T)
    x, reached = continue_to_targets(system, system.state(geometry, theta), P0,
                                     CONTINUATION_MIN_LINK * geometry.link_scale)
    if not reached:
        return ItemResult(None, "continuation failed")
    traversal, why = family.check(system, x, min_link_ratio)
    return ItemResult(traversal, why)


def add_targets(T: FloatArray, traversal: Any, idx: FloatArray, min_link_ratio: float,
                family: Any = FOUR_BAR) -> ItemResult:
    """Extend a traversal of the targets T[idx] to all targets, one at a time: the new target's start is the nearest
    curve point between its neighbours' crank angles (beyond the first or last: up to a sixth of a turn out),
    continued to the target with the others held."""
    n = len(T)
    idx = np.asarray(idx, int)
    while len(idx) < n:
        rest = [j for j in range(n) if j not in set(idx.tolist())]
        rest.sort(key=lambda j: (int(np.min(np.abs(idx - j))), j))
        for j in rest:
            check_time()
            pos = int(np.searchsorted(idx, j))
            th, sense = traversal.theta, traversal.direction
            if 0 < pos < len(idx):
                candidates = np.linspace(th[pos - 1], th[pos], 66)[1:-1]
            elif pos == 0:
                candidates = np.linspace(th[0] - sense * TWO_PI / 6, th[0], 65)[:-1]
            else:
                candidates = np.linspace(th[-1], th[-1] + sense * TWO_PI / 6, 65)[1:]
            P, ok = family.curve(traversal.geometry, candidates)
            dist = np.where(ok, np.linalg.norm(P - T[j], axis=-1), np.inf)
            k = int(np.argmin(dist))
            if not np.isfinite(dist[k]):
                continue
            new_idx = np.insert(idx, pos, j)
            theta = np.insert(th, pos, candidates[k])
            start = T[new_idx].copy()
            start[pos] = P[k]
            system = family.system(T[new_idx])
            x, reached = continue_to_targets(system, system.state(traversal.geometry, theta), start,
                                             CONTINUATION_MIN_LINK * traversal.geometry.link_scale)
            if not reached:
                continue
            extended, _ = family.check(system, x, min_link_ratio)
            if extended is not None:
                traversal, idx = extended, new_idx
                break
        else:
            return ItemResult(None, "a target could not be added")
    return ItemResult(traversal, "")


def polish_member(g: FloatArray, T: FloatArray, min_link_ratio: float) -> ItemResult:
    """Work item: a population member continued to the subset of targets it was fitted to, then to all."""
    base = spread_subset(len(T))
    Tb = T[base]
    assignment = ordered_assignment(g, Tb, ASSIGN_SAMPLES)
    if assignment is None:
        return ItemResult(None, "not assembled")
    _, branch, theta = assignment
    res = continue_from_curve(Tb, FourBarGeometry.from_vector(g, branch), theta, min_link_ratio)
    if res.traversal is None or len(base) == len(T):
        return res
    return add_targets(T, res.traversal, base, min_link_ratio)


def try_timing(delta: FloatArray, T: FloatArray, min_link_ratio: float) -> ItemResult:
    """Work item: the timed fit for the guessed rotations delta (N,), then continued to the targets untimed."""
    timed = LoopSystem(T, delta)
    note = "no crank dyad fits the timing"
    for x in timed_states(timed, dyads=2, points=2):
        x, exact = newton(timed, x, T, EXACT_TOL, steps=30)
        if exact:
            traversal, note = check_traversal(timed, x, min_link_ratio)
            if traversal is not None:
                return ItemResult(traversal, "")
        x = normalise_state(timed, x)
        if not np.all(np.isfinite(x)) or min(x[3:7]) <= 0:
            continue
        for branch in (1, -1):
            res = continue_from_curve(T, FourBarGeometry.from_vector(x[:9], branch), timed.thetas(x), min_link_ratio)
            if res.traversal is not None:
                return res
            note = res.note
    return ItemResult(None, note)


def polish_timed(member: FloatArray, T: FloatArray, delta: FloatArray, min_link_ratio: float) -> ItemResult:
    """Work item (prescribed timing): Gauss-Newton on the timed loop-closure equations from a member (g, theta_1)."""
    system = LoopSystem(T, delta)
    g, theta1 = member[:9], float(member[9])
    for branch in (1, -1):
        geometry = FourBarGeometry.from_vector(g, branch)
        theta = theta1 + delta
        if not geometry.positions(theta)[3].all():
            continue
        x, exact = newton(system, system.state(geometry, theta), T, EXACT_TOL, steps=40)
        if exact:
            traversal, why = check_traversal(system, x, min_link_ratio)
            if traversal is not None:
                return ItemResult(traversal, "")
    return ItemResult(None, "no exact timed fit from this member")


def timed_fit(T: FloatArray, delta: FloatArray, min_link_ratio: float) -> ItemResult:
    """Work item (prescribed timing): the timed dyad fit and Gauss-Newton on the timed equations."""
    system = LoopSystem(T, delta)
    note = "no crank dyad fits the timing"
    for x in timed_states(system, dyads=3, points=3):
        x, exact = newton(system, x, T, EXACT_TOL, steps=40)
        if exact:
            traversal, note = check_traversal(system, x, min_link_ratio)
            if traversal is not None:
                return ItemResult(traversal, "")
    return ItemResult(None, note)


# --- timing guesses ----------------------------------------------------------------------------------------------

def timing_scores(T: FloatArray, deltas: FloatArray) -> FloatArray:
    """Work item: the residual of the best crank dyad through the targets for each row of rotations deltas (K, N)."""
    out = np.full(len(deltas), math.inf)
    for k, delta in enumerate(deltas):
        try:
            with np.errstate(all="ignore"):
                dyads = crank_dyads(T, delta, keep=1)
        except (np.linalg.LinAlgError, ArithmeticError, ValueError):
            continue
        if dyads:
            out[k] = dyads[0][0]
    return out


def uniform_timings(T: FloatArray, executor: Executor, count: int = UNIFORM_TIMINGS) -> list[FloatArray]:
    """Evenly spaced crank rotations delta_j = j D (both directions, D up to a turn over the targets), ordered by
    the residual of the best crank dyad through the targets with those rotations (scored on the workers)."""
    n = len(T)
    steps = np.linspace(0.03, 0.999, count) * TWO_PI / (n - 1)
    deltas = np.concatenate([sense * steps[:, None] * np.arange(n)[None, :] for sense in (1, -1)])
    chunks = [c for c in np.array_split(deltas, executor.workers) if len(c)]
    scores = np.concatenate(executor.map(timing_scores, [(T, c) for c in chunks]))
    order = np.argsort(scores, kind="stable")
    return [deltas[k] for k in order]


def random_timing(rng: np.random.Generator, n: int) -> FloatArray:
    """Random crank rotations: a random total (up to a turn), random gaps (Dirichlet(2)), a random direction."""
    total = rng.uniform(0.1, 0.999) * TWO_PI
    gaps = rng.dirichlet(np.full(n - 1, 2.0)) * total
    return (1 if rng.random() < 0.5 else -1) * np.concatenate([[0.0], np.cumsum(gaps)])


# --- the search ----------------------------------------------------------------------------------------------------

class Stop(Exception):
    """Raised inside the differential evolution's callback to end the search."""


@dataclass
class SearchState:
    """The progress of a search (normalised units): the last accepted traversal and how many, the best member so far
    and its fitness,
    the counts of evaluations and work items, and how the search ended."""
    found: Traversal | None = None
    found_by: str = ""
    accepted: int = 0
    best_member: FloatArray | None = None
    best_fitness: float = math.inf
    evaluations: int = 0
    items: int = 0
    generations: int = 0
    restarts: int = 0
    cancelled: bool = False
    out_of_budget: str = ""
    notes: dict[str, int] = field(default_factory=dict)

    def note(self, text: str) -> None:
        if text:
            self.notes[text] = self.notes.get(text, 0) + 1


@dataclass(frozen=True)
class Budget:
    """Stop after ``max_time_s`` seconds of wall time or ``max_evaluations`` fitness evaluations (None: no limit);
    ``stop()`` (optional, in this process) ends the work items early too (:meth:`deadline`)."""
    max_time_s: float | None
    max_evaluations: int | None
    start: float = field(default_factory=time.perf_counter)
    stop: Callable[[], bool] | None = None

    def deadline(self) -> Deadline:
        """The instant (``time.time()``) the time budget ends, and the stop callback: what the work items check
        (core.analysis.synthesis_deadline)."""
        at = None if self.max_time_s is None else time.time() + self.max_time_s - (time.perf_counter() - self.start)
        return Deadline(at, self.stop)

    def exhausted(self, evaluations: int) -> str:
        if self.max_time_s is not None and time.perf_counter() - self.start >= self.max_time_s:
            return f"the time budget of {self.max_time_s:g} s"
        if self.max_evaluations is not None and evaluations >= self.max_evaluations:
            return f"the budget of {self.max_evaluations} evaluations"
        return ""


Item = tuple[str, Callable[..., ItemResult], tuple[Any, ...]]


@dataclass
class SearchPlan:
    """What differential evolution searches and which local searches follow each generation: ``bounds`` of a
    member, the vectorised ``fitness``, ``first`` items run before the evolution, ``per_generation(rng)`` the items
    run first in every generation, ``polish(member)`` the item that polishes one member (the best
    ``polish_per_generation`` members not polished yet), ``popsize`` the population size multiplier."""
    bounds: list[tuple[float, float]]
    fitness: PopulationFitness
    polish: Callable[[FloatArray], Item]
    first: list[Item] = field(default_factory=list)
    per_generation: Callable[[np.random.Generator], list[Item]] = lambda rng: []
    polish_per_generation: int = POLISH_PER_GENERATION
    popsize: int = POPSIZE


def search_path(T: FloatArray, executor: Executor, rng: np.random.Generator, budget: Budget,
                on_generation: Callable[[SearchState], bool], delta: FloatArray | None = None,
                min_link_ratio: float = MIN_LINK_RATIO,
                accept: Callable[[Traversal, str, int], bool] | None = None, want: int = 1,
                dyad_fit: bool = True) -> SearchState:
    """Search a four-bar through the normalised targets T (N, 2) (module docstring); ``delta`` (N,) prescribes the
    crank's rotations from the first target (``dyad_fit`` False: without the timed dyad fit first, for a caller that
    tried it). ``on_generation(state)`` is called after every generation (False
    cancels). Every traversal found is offered to ``accept(traversal, found_by, evaluations)`` (True: a new one,
    counted); the search ends when ``want`` have been accepted. Returns the final state."""
    if delta is not None:
        plan = SearchPlan(list(PATH_BOUNDS) + [(-math.pi, math.pi)], PopulationFitness(executor, "timed", T, delta),
                          lambda m: ("polished member", polish_timed, (m, T, delta, min_link_ratio)),
                          first=[("timed dyad fit", timed_fit, (T, delta, min_link_ratio))] if dyad_fit else [])
    else:
        timings = uniform_timings(T, executor)

        def guesses(rng: np.random.Generator) -> list[Item]:
            out = []
            for _ in range(TIMINGS_PER_GENERATION):
                guess = timings.pop(0) if timings else random_timing(rng, len(T))
                out.append(("timing guess", try_timing, (guess, T, min_link_ratio)))
            return out
        plan = SearchPlan(list(PATH_BOUNDS), PopulationFitness(executor, "ordered", T[spread_subset(len(T))]),
                          lambda m: ("polished member", polish_member, (m, T, min_link_ratio)),
                          per_generation=guesses)
    return run_search(plan, executor, rng, budget, on_generation, accept, want)


def run_search(plan: SearchPlan, executor: Executor, rng: np.random.Generator, budget: Budget,
               on_generation: Callable[[SearchState], bool],
               accept: Callable[[Any, str, int], bool] | None = None, want: int = 1) -> SearchState:
    """Differential evolution with the plan's local searches after every generation (module docstring), restarted
    with the next seed when it stalls, until ``want`` traversals are accepted, the budget runs out or
    ``on_generation`` says stop (shared by the linkage families)."""
    state = SearchState()
    fitness = plan.fitness

    def take(traversal: Any, how: str) -> bool:
        """Offer a traversal; True when the search has what it wants."""
        if accept is None or accept(traversal, how, fitness.evaluations):
            state.found, state.found_by = traversal, how
            state.accepted += 1
        return state.accepted >= want

    if plan.first:
        for (name, _, _), res in zip(plan.first, group_map(executor, plan.first, budget.deadline())):
            state.items += 1
            if res.traversal is not None and take(res.traversal, name):
                return state
            state.note(res.note)
    polished: list[FloatArray] = []

    def callback(intermediate_result: Any) -> bool:
        check_time()  # a search nested in a work item ends with the item's deadline
        state.generations += 1
        state.evaluations = fitness.evaluations
        pop, energies = intermediate_result.population, intermediate_result.population_energies
        k = int(np.argmin(energies))
        if energies[k] < state.best_fitness:
            state.best_fitness, state.best_member = float(energies[k]), np.array(pop[k], float)
        items = list(plan.per_generation(rng))
        count = 0
        for i in np.argsort(energies):
            if count >= plan.polish_per_generation:
                break
            member = np.array(pop[i], float)
            if not np.isfinite(energies[i]) or any(np.max(np.abs(member - m)) < SAME_MEMBER for m in polished):
                continue
            polished.append(member)
            items.append(plan.polish(member))
            count += 1
        results = group_map(executor, items, budget.deadline())
        state.items += len(items)
        for (name, _, _), res in zip(items, results):
            if res.traversal is not None:
                if take(res.traversal, name):
                    raise Stop
            else:
                state.note(res.note)
        if not on_generation(state):
            state.cancelled = True
            raise Stop
        reason = budget.exhausted(fitness.evaluations)
        if reason:
            state.out_of_budget = reason
            raise Stop
        return False

    while True:
        try:
            differential_evolution(fitness, plan.bounds, popsize=plan.popsize, maxiter=GENERATIONS, tol=1e-10,
                                   atol=0.0, mutation=MUTATION, recombination=RECOMBINATION, init="sobol",
                                   seed=int(rng.integers(2 ** 31)), polish=False, vectorized=True,
                                   updating="deferred", callback=callback)
        except Stop:
            break
        state.restarts += 1
        reason = budget.exhausted(fitness.evaluations)
        if reason:
            state.out_of_budget = reason
            break
    state.evaluations = fitness.evaluations
    return state


def group_map(executor: Executor, items: list[tuple[str, Callable[..., ItemResult], tuple[Any, ...]]],
              deadline: Deadline | None = None) -> list[ItemResult]:
    """Run the work items (name, function, arguments) through the executor under ``deadline``, results in the
    items' order."""
    if not items:
        return []
    return executor.map(run_item, [(fn, args, deadline) for _, fn, args in items])


def run_item(fn: Callable[..., ItemResult], args: tuple[Any, ...], deadline: Deadline | None = None) -> ItemResult:
    """One work item, single-threaded BLAS (small matrices: threads only add wake-ups, core.run.blas); a
    numerical failure inside it is a failed item, never an exception, and so is the deadline passing
    (core.analysis.synthesis_deadline)."""
    try:
        with np.errstate(all="ignore"), single_threaded_blas(), working_until(deadline):
            return fn(*args)
    except OutOfTime:
        return ItemResult(None, "out of time")
    except (np.linalg.LinAlgError, ArithmeticError, ValueError) as exc:
        return ItemResult(None, f"numerical failure: {type(exc).__name__}")


# --- the best approximation when no exact linkage was found --------------------------------------------------------

def timed_residuals(system: Any) -> Callable[[FloatArray], FloatArray]:
    """The system's residuals for scipy's least squares, checking the deadline in force at every call."""
    def residuals(x: FloatArray) -> FloatArray:
        check_time()
        return system.residuals(x)
    return residuals


def least_squares_polish(member: FloatArray, T: FloatArray, delta: FloatArray | None,
                         min_link_ratio: float = MIN_LINK_RATIO, family: Any = FOUR_BAR,
                         max_nfev: int = 200) -> Any | None:
    """A local least-squares fit (scipy.optimize.least_squares, trust region) of the loop-closure equations from a
    member, for targets no linkage of the family passes through exactly; the accepted traversal or None."""
    system = family.system(T, delta)
    best = None
    for geometry, theta in family.starts(member, T, delta):
        if not family.curve(geometry, theta)[1].all():
            continue
        x0 = system.state(geometry, theta)
        lower = np.full(x0.size, -np.inf)
        lower[system.length_index] = min_link_ratio * geometry.link_scale
        x0[system.length_index] = np.maximum(x0[system.length_index], lower[system.length_index] * (1 + 1e-9))
        try:
            fit = least_squares(timed_residuals(system), x0, jac=system.jacobian, bounds=(lower, np.inf),
                                method="trf", max_nfev=max_nfev)
        except (np.linalg.LinAlgError, ValueError):
            continue
        traversal, _ = family.check(system, fit.x, min_link_ratio)
        if traversal is not None and (best is None or max_distance(traversal, T) < max_distance(best, T)):
            best = traversal
    return best


def max_distance(traversal: Any, T: FloatArray) -> float:
    """The largest distance of a target from the linkage's path point at its crank angle (closed form)."""
    return float(np.max(np.linalg.norm(traversal.geometry.coupler_point(traversal.theta) - T, axis=-1)))


def member_traversal(member: FloatArray, T: FloatArray, delta: FloatArray | None,
                     family: Any = FOUR_BAR) -> Any | None:
    """A population member as a traversal of all targets (not exact): the ordered assignment to its path (without
    timing) or the crank angles theta_1 + delta_j on the better branch (with it); None when the crank cannot reach
    the assigned angles in order."""
    best = None
    for geometry, theta in family.starts(member, T, delta):
        if not family.curve(geometry, theta)[1].all():
            continue
        steps = np.diff(theta)
        sense = 1 if steps.sum() >= 0 else -1
        if np.any(sense * steps < 0) or abs(theta[-1] - theta[0]) >= TWO_PI:
            continue
        if not all(geometry.sweep_reachable(theta[j], theta[j + 1]) for j in range(len(theta) - 1)):
            continue
        traversal = family.traversal(geometry, theta, sense)
        if best is None or max_distance(traversal, T) < max_distance(best, T):
            best = traversal
    return best


__all__ = ["Budget", "DaskExecutor", "Executor", "FOUR_BAR", "ItemResult", "SearchPlan", "SearchState",
           "add_targets", "continue_from_curve", "least_squares_polish", "max_distance", "member_traversal",
           "run_search", "search_path", "spread_subset"]
