"""The global search of six-bar path synthesis (core.analysis.synthesis_sixbar), on the four-bar's machinery
(core.analysis.synthesis_search: differential evolution with a vectorised fitness chunked over the workers, a fixed
list of local searches after every generation, the first valid item in order ends the search).

Everything works on normalised targets (as for the four-bar). A member is a six-bar g (15 parameters, inside
:data:`SIXBAR_BOUNDS`) and, with prescribed timing, theta_1.

* **Without timing** the fitness is the rms distance of a spread subset of :data:`BASE_POINTS` targets from the
  member's sampled path, visited in order along one unbroken run (both loops closed) of one branch pair. The best
  members of each generation are *polished*: the subset's targets assigned in order to the member's path, the
  linkage continued from its own path points to the targets (homotopy on the loop-closure equations (S3), Newton's
  method with minimum-norm steps), then the other targets added one at a time, each continued from its nearest path
  point between its neighbours' crank angles (the four-bar's add_targets).
* **With timing** the fitness is the rms distance of the path points at theta_1 + delta_j from the targets, and the
  polish continues the member's own timed points to the targets on the timed equations.

A result counts only when it is valid (check_sixbar): both branches kept while the crank turns one way through the
targets, no link shorter than MIN_LINK_RATIO of the longest.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from mechstudio.core.analysis.synthesis_fourbar import (MIN_LINK_RATIO, LoopSystem, Traversal, check_traversal,
                                                        continue_to_targets, newton, timed_states)
from mechstudio.core.analysis.synthesis_search import EXACT_TOL as FOURBAR_EXACT_TOL
from mechstudio.core.analysis.synthesis_search import (CONTINUATION_MIN_LINK, Budget, Executor, Item, ItemResult,
                                                       PopulationFitness, SearchPlan, SearchState, add_targets,
                                                       continue_from_curve, least_squares_polish, run_search,
                                                       search_path, spread_subset)
from mechstudio.core.analysis.synthesis_sixbar import (N_PARAMS, TOPOLOGIES, SixBarFamily, SixBarGeometry,
                                                       SixBarTraversal, riding_dyad, sixbar_assignment,
                                                       sixbar_ordered_fit, timed_fit, watt2_on_drag_link)
from mechstudio.core.types import FloatArray

#: bounds of a member in normalised units: pivots, ground direction, links, the points U and V in their links'
#: frames (world coordinates for a ground point), the path point in link 5's frame
SIXBAR_BOUNDS = ((-2.0, 2.0), (-2.0, 2.0), (-math.pi, math.pi), (0.1, 2.5), (0.1, 2.5), (0.1, 2.5), (0.1, 2.5),
                 (-2.0, 2.0), (-2.0, 2.0), (-2.0, 2.0), (-2.0, 2.0), (0.1, 2.5), (0.1, 2.5), (-2.0, 2.0),
                 (-2.0, 2.0))
#: crank samples per reachable arc in the fitness and in a polished member's assignment
CURVE_SAMPLES = 120
ASSIGN_SAMPLES = 360
#: targets the population is fitted to when there are more
BASE_POINTS = 8
#: members polished per generation, population size multiplier
POLISH_PER_GENERATION = 2
#: four-bar starts per generation
SEEDS_PER_GENERATION = 2
POPSIZE = 8
#: fewest targets (as for the four-bar)
MIN_SIXBAR_POINTS = 5
#: four-bar starts: targets of the four-bar through a subset (without timing; with timing, at most 5 are exact for a
#: four-bar), the four-bar search's budget of evaluations (a budget in evaluations keeps the item deterministic), and
#: riding dyads tried per four-bar
SEED_POINTS = 6
SEED_POINTS_TIMED = 5
SEED_EVALUATIONS = 4000
SEED_DYADS = 3
#: residual [normalised length] at which Newton's method counts a least-squares fit as exact
EXACT_TOL = 1e-11
#: residual evaluations of the final least-squares fit (per branch pair)
FINAL_LSQ_EVALUATIONS = 400


def sixbar_fitness(kind: str, X: FloatArray, T: FloatArray, delta: FloatArray | None) -> FloatArray:
    """Fitness of members X (S, D): ``kind`` is ``ordered:TOPOLOGY`` or ``timed:TOPOLOGY`` (module docstring)."""
    mode, topology = kind.split(":")
    if mode == "ordered":
        return sixbar_ordered_fit(X, T, topology, CURVE_SAMPLES)
    assert delta is not None
    return timed_fit(X, T, delta, topology)


class SixBarSearchFamily(SixBarFamily):
    """:class:`SixBarFamily` with the members' starts for the shared fallback (least squares) and progress."""

    def traversal(self, geometry: SixBarGeometry, theta: FloatArray, direction: int) -> SixBarTraversal:
        return SixBarTraversal(geometry, theta, direction)

    def starts(self, member: FloatArray, T: FloatArray, delta: FloatArray | None
               ) -> list[tuple[SixBarGeometry, FloatArray]]:
        g = member[:N_PARAMS]
        if delta is None:
            assignment = sixbar_assignment(g, T, self.topology, ASSIGN_SAMPLES)
            if assignment is None:
                return []
            _, (s1, s2), theta = assignment
            return [(SixBarGeometry.from_vector(self.topology, g, s1, s2), theta)]
        theta = float(member[N_PARAMS]) + delta
        return [(SixBarGeometry.from_vector(self.topology, g, s1, s2), theta) for s1 in (1, -1) for s2 in (1, -1)]


def polish_sixbar(member: FloatArray, T: FloatArray, topology: str, min_link_ratio: float) -> ItemResult:
    """Work item: a member continued to the subset of targets it was fitted to, then to all of them."""
    family = SixBarSearchFamily(topology)
    base = spread_subset(len(T), BASE_POINTS)
    Tb = T[base]
    starts = family.starts(member, Tb, None)
    if not starts:
        return ItemResult(None, "not assembled")
    geometry, theta = starts[0]
    res = continue_from_curve(Tb, geometry, theta, min_link_ratio, family)
    if res.traversal is None:
        return least_squares_item(member, T, None, family, min_link_ratio, res.note)
    if len(base) == len(T):
        return res
    return add_targets(T, res.traversal, base, min_link_ratio, family)


def least_squares_item(member: FloatArray, T: FloatArray, delta: FloatArray | None, family: SixBarSearchFamily,
                       min_link_ratio: float, note: str) -> ItemResult:
    """A member pulled onto the targets by least squares on the loop-closure equations (the shared
    least_squares_polish), then Newton's method (minimum-norm steps) to round-off; a valid exact traversal or
    None with ``note``."""
    traversal = least_squares_polish(member, T, delta, min_link_ratio, family)
    if traversal is None:
        return ItemResult(None, note)
    system = family.system(T, delta)
    x, exact = newton(system, system.state(traversal.geometry, traversal.theta), T, EXACT_TOL, steps=30)
    if not exact:
        return ItemResult(None, note)
    found, why = family.check(system, x, min_link_ratio, traversal.direction if delta is not None else None)
    return ItemResult(found, why)


def closest_sixbar(member: FloatArray, T: FloatArray, delta: FloatArray | None, family: SixBarSearchFamily,
                   min_link_ratio: float) -> SixBarTraversal | None:
    """The end of a search without an exact six-bar: the member pulled onto the targets by least squares on (S3)
    (all 15 parameters and the per-target angles free; :data:`FINAL_LSQ_EVALUATIONS`), then Newton's method to
    round-off, which lands exactly when the fit ended near an exact six-bar; the valid exact traversal, else the
    least-squares one (None when it is not valid)."""
    traversal = least_squares_polish(member, T, delta, min_link_ratio, family, max_nfev=FINAL_LSQ_EVALUATIONS)
    if traversal is None:
        return None
    system = family.system(T, delta)
    x, exact = newton(system, system.state(traversal.geometry, traversal.theta), T, EXACT_TOL, steps=30)
    if exact:
        found, _ = family.check(system, x, min_link_ratio, traversal.direction if delta is not None else None)
        if found is not None:
            return found
    return traversal


def polish_sixbar_timed(member: FloatArray, T: FloatArray, delta: FloatArray, topology: str,
                        min_link_ratio: float) -> ItemResult:
    """Work item (prescribed timing): the member's path points at theta_1 + delta_j continued to the targets on the
    timed loop-closure equations, on each branch pair where it assembles."""
    family = SixBarSearchFamily(topology)
    system = family.system(T, delta)
    note = "not assembled"
    direction = 1 if delta[-1] > delta[0] else -1
    for geometry, theta in family.starts(member, T, delta):
        traversal, why = follow_to_targets(family, system, geometry, theta, min_link_ratio, direction)
        if traversal is not None:
            return ItemResult(traversal, "")
        if why != "not assembled":
            note = why
    return least_squares_item(member, T, delta, family, min_link_ratio, note)


def follow_to_targets(family: SixBarSearchFamily, system: Any, geometry: SixBarGeometry, theta: FloatArray,
                      min_link_ratio: float, direction: int) -> tuple[SixBarTraversal | None, str]:
    """The six-bar's path points at the crank angles ``theta`` continued to the targets on ``system``'s equations
    and checked (:meth:`SixBarSearchFamily.check`): (the valid traversal, "") or (None, why not: "not assembled"
    at ``theta``, "continuation failed", or the check's reason)."""
    P0, ok = geometry.positions(theta)
    if not ok.all():
        return None, "not assembled"
    x, reached = continue_to_targets(system, system.state(geometry, theta), P0,
                                     CONTINUATION_MIN_LINK * geometry.link_scale)
    if not reached:
        return None, "continuation failed"
    return family.check(system, x, min_link_ratio, direction)


def six_on_fourbar(fourbar: Any, theta: FloatArray, topology: str, rng: np.random.Generator
                   ) -> tuple[SixBarGeometry | None, FloatArray]:
    """A six-bar of the topology that traces the four-bar's coupler curve (synthesis_sixbar: riding_dyad, or for
    Watt II watt2_on_drag_link) and its crank angles at the four-bar's crank angles theta; (None, theta) when
    there is none."""
    if topology == "watt2":
        found = watt2_on_drag_link(fourbar, theta, rng)
        return (None, theta) if found is None else found
    return riding_dyad(fourbar, topology, rng, theta), theta


def fourbar_seed(T: FloatArray, topology: str, seed: int, min_link_ratio: float) -> ItemResult:
    """Work item: a four-bar through a spread subset of the targets (the four-bar search, in this worker), a six-bar
    whose link 5 rides on its coupler (synthesis_sixbar.riding_dyad: the same path), then the other targets added
    one at a time by continuation."""
    rng = np.random.default_rng(seed)
    base = spread_subset(len(T), SEED_POINTS)
    state = search_path(T[base], Executor(), rng, Budget(None, SEED_EVALUATIONS), lambda s: True,
                        min_link_ratio=min_link_ratio)
    if state.found is None:
        return ItemResult(None, "no four-bar through the subset")
    family = SixBarSearchFamily(topology)
    note = "no riding dyad"
    for _ in range(SEED_DYADS):
        six, theta = six_on_fourbar(state.found.geometry, state.found.theta, topology, rng)
        if six is None:
            continue
        start = SixBarTraversal(six, theta, state.found.direction)
        res = add_targets(T, start, base, min_link_ratio, family) if len(base) < len(T) else \
            ItemResult(start, "")
        if res.traversal is not None:
            system = family.system(T)
            traversal, note = family.check(system, system.state(res.traversal.geometry, res.traversal.theta),
                                           min_link_ratio)
            if traversal is not None:
                return ItemResult(traversal, "")
        else:
            note = res.note
    return ItemResult(None, note)


#: the exact timed four-bars of recent subsets (:func:`timed_fourbars`), in this process
TIMED_FOURBARS: dict[bytes, list[Traversal]] = {}
TIMED_FOURBARS_KEPT = 8


def timed_fourbars(T: FloatArray, delta: FloatArray, min_link_ratio: float) -> list[Traversal]:
    """The distinct valid four-bars through the targets T (N, 2) with the crank rotations delta (N,) that the timed
    dyad fit finds (core.analysis.synthesis_fourbar.timed_states: crank dyads (F4) and circle points, then Newton's
    method): deterministic, so kept per process for the next starts (the same subset every generation)."""
    key = np.concatenate([T.ravel(), delta, [min_link_ratio]]).tobytes()
    if key in TIMED_FOURBARS:
        return TIMED_FOURBARS[key]
    system = LoopSystem(T, delta)
    out: list[Traversal] = []
    for x in timed_states(system, dyads=3, points=3):
        x, exact = newton(system, x, T, FOURBAR_EXACT_TOL, steps=40)
        if not exact:
            continue
        traversal, _ = check_traversal(system, x, min_link_ratio)
        if traversal is not None and not any(np.allclose(traversal.geometry.vector(), t.geometry.vector(),
                                                         rtol=0, atol=1e-7) for t in out):
            out.append(traversal)
    if len(TIMED_FOURBARS) >= TIMED_FOURBARS_KEPT:
        TIMED_FOURBARS.pop(next(iter(TIMED_FOURBARS)))
    TIMED_FOURBARS[key] = out
    return out


def fourbar_seed_timed(T: FloatArray, delta: FloatArray, topology: str, seed: int,
                       min_link_ratio: float) -> ItemResult:
    """Work item (prescribed timing): a timed four-bar through a spread subset of the targets, a six-bar riding on
    its coupler, its path points at theta_1 + delta_j continued to all targets on the timed equations."""
    rng = np.random.default_rng(seed)
    base = spread_subset(len(T), SEED_POINTS_TIMED)
    Tb, db = T[base], delta[base] - delta[base[0]]
    fourbars = timed_fourbars(Tb, db, min_link_ratio)
    if fourbars:
        found = fourbars[int(rng.integers(len(fourbars)))]
    else:  # no exact dyad fit: the four-bar's timed search
        state = search_path(Tb, Executor(), rng, Budget(None, SEED_EVALUATIONS), lambda s: True, delta=db,
                            min_link_ratio=min_link_ratio, dyad_fit=False)
        if state.found is None:
            return ItemResult(None, "no timed four-bar through the subset")
        found = state.found
    family = SixBarSearchFamily(topology)
    system = family.system(T, delta)
    direction = 1 if delta[-1] > delta[0] else -1
    note = "no riding dyad"
    for _ in range(SEED_DYADS):
        six, crank = six_on_fourbar(found.geometry, found.theta, topology, rng)
        if six is None:
            continue
        theta = crank[0] - delta[base[0]] + delta  # a Watt II's crank keeps the four-bar's timing only roughly
        traversal, note = follow_to_targets(family, system, six, theta, min_link_ratio, direction)
        if traversal is not None:
            return ItemResult(traversal, "")
        if note == "not assembled":
            note = "not assembled at the prescribed crank angles"
    return ItemResult(None, note)


def search_sixbar(T: FloatArray, topology: str, executor: Executor, rng: np.random.Generator, budget: Budget,
                  on_generation: Callable[[SearchState], bool], delta: FloatArray | None = None,
                  min_link_ratio: float = MIN_LINK_RATIO,
                  accept: Callable[[Any, str, int], bool] | None = None, want: int = 1) -> SearchState:
    """Search a six-bar of the topology through the normalised targets T (N, 2) (module docstring); arguments as
    core.analysis.synthesis_search.search_path."""
    if topology not in TOPOLOGIES:
        raise ValueError(f"unknown six-bar topology {topology!r}")
    bounds = list(SIXBAR_BOUNDS)

    def seeds(rng: np.random.Generator) -> list[Item]:
        out = []
        for _ in range(SEEDS_PER_GENERATION):
            seed = int(rng.integers(2 ** 31))
            out.append(("four-bar start", fourbar_seed, (T, topology, seed, min_link_ratio)) if delta is None else
                       ("four-bar start", fourbar_seed_timed, (T, delta, topology, seed, min_link_ratio)))
        return out
    if delta is not None:
        fitness = PopulationFitness(executor, f"timed:{topology}", T, delta, sixbar_fitness)
        plan = SearchPlan(bounds + [(-math.pi, math.pi)], fitness,
                          lambda m: ("polished member", polish_sixbar_timed, (m, T, delta, topology, min_link_ratio)),
                          per_generation=seeds, polish_per_generation=POLISH_PER_GENERATION, popsize=POPSIZE)
    else:
        fitness = PopulationFitness(executor, f"ordered:{topology}", T[spread_subset(len(T), BASE_POINTS)], None,
                                    sixbar_fitness)
        plan = SearchPlan(bounds, fitness,
                          lambda m: ("polished member", polish_sixbar, (m, T, topology, min_link_ratio)),
                          per_generation=seeds, polish_per_generation=POLISH_PER_GENERATION, popsize=POPSIZE)
    return run_search(plan, executor, rng, budget, on_generation, accept, want)


__all__ = ["BASE_POINTS", "MIN_SIXBAR_POINTS", "SIXBAR_BOUNDS", "SixBarSearchFamily", "closest_sixbar", "polish_sixbar",
           "polish_sixbar_timed", "search_sixbar", "sixbar_fitness"]
