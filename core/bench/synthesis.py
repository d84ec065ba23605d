"""Benchmark suite "synthesis": time to recover a four-bar through 6 to 8 points of a known four-bar's coupler
curve, and a six-bar through 10 points of a known Stephenson III's path (:data:`SIXBAR_CASES`), to 1e-4 of the
longest link, in this process and on a Dask LocalCluster of 1 and of 2 worker processes.

The cases (:data:`CASES`, world units m): the sample four-bar (crank 1, coupler 3.5, rocker 3, ground 4) with a
coupler point off the coupler line, 8 targets at evenly spaced crank angles over a full turn; a Grashof
double-rocker on a short part of its curve, 7 targets at uneven crank angles, placed and turned anywhere, in
millimetres; a non-Grashof (triple-rocker) linkage, 6 targets. The targets come from the closed form of the known
linkage (core.analysis.synthesis_fourbar); the search does not know the linkage. Each cluster is started, and the
synthesis modules imported on its workers, before the clock starts. The same seed makes the same work items on any
number of workers, so the ratio measures the parallel speed-up of one and the same search. Columns:

* ``case``, ``targets``, ``where`` (``process``: no Dask; ``dask``: a LocalCluster), ``workers``;
* ``status``, ``error`` (max distance / longest link of the result), ``time_s`` (to the result),
  ``evaluations``, ``generations``;
* ``speedup`` = time_s(Dask, 1 worker) / time_s(Dask, k workers) of the same case.

``--quick``: the first case only (a smoke run, no six-bar).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from mechstudio.core.analysis.synthesis import synthesize_path
from mechstudio.core.analysis.synthesis_fourbar import FourBarGeometry
from mechstudio.core.analysis.synthesis_sixbar import SixBarGeometry
from mechstudio.core.analysis.synthesis_sixbar_path import synthesize_sixbar_path
from mechstudio.core.bench import BenchTable
from mechstudio.core.sweep.execute import connect

TOLERANCE = 1e-4
SEED = 0
#: the time budget of one search [s]
MAX_TIME_S = 300.0


@dataclass(frozen=True)
class Case:
    """A known four-bar and the crank angles [rad] of its targets."""
    name: str
    geometry: FourBarGeometry
    crank_angles: tuple[float, ...]

    def targets(self) -> np.ndarray:
        return self.geometry.coupler_point(np.array(self.crank_angles))


CASES = (
    Case("crank-rocker, full turn", FourBarGeometry(0.0, 0.0, 0.0, 4.0, 1.0, 3.5, 3.0, 1.2, 1.0, 1),
         tuple(2 * math.pi * k / 8 + 0.3 for k in range(8))),
    Case("double-rocker, part of the curve (mm)",
         FourBarGeometry(0.120, -0.045, 2.1, 0.110, 0.085, 0.030, 0.095, 0.020, -0.035, -1),
         (2.95, 3.02, 3.10, 3.13, 3.21, 3.30, 3.34)),
    Case("triple-rocker", FourBarGeometry(-2.0, 1.5, -0.6, 2.1, 1.0, 1.6, 1.3, -0.4, 0.8, 1),
         (-2.2, -1.5, -0.9, -0.1, 0.6, 1.3)),
)


@dataclass(frozen=True)
class SixBarCase:
    """A known six-bar (core.analysis.synthesis_sixbar), the crank angles [rad] of its targets and the search's
    seed."""
    name: str
    geometry: SixBarGeometry
    crank_angles: tuple[float, ...]
    seed: int

    def targets(self) -> np.ndarray:
        return self.geometry.coupler_point(np.array(self.crank_angles))


#: a Stephenson III six-bar (longest link 1 m), 10 targets over 192 deg of its crank: more than a four-bar passes
SIXBAR_CASES = (
    SixBarCase("Stephenson III six-bar", SixBarGeometry.from_vector(
        "stephenson3", (0.048875, 1.727838, -0.967858, 0.308791, 0.471181, 0.506472, 1.0, -0.459478, -0.654922,
                        0.191423, 1.670054, 0.795095, 0.918023, 0.298365, 0.249243), -1, 1),
        (3.847807, 3.476682, 3.105556, 2.734431, 2.363306, 1.992181, 1.621056, 1.24993, 0.878805, 0.50768), 2),
)


def warm(client: Any) -> None:
    """Import the synthesis modules on every worker (outside the timed search)."""
    def load() -> bool:
        import mechstudio.core.analysis.synthesis_search  # noqa: F401 -- loads the work items' module on the worker
        import mechstudio.core.analysis.synthesis_sixbar_search  # noqa: F401 -- the six-bar's work items
        return True
    client.run(load)


def run_case(case: Case, client: Any | None, workers: int) -> dict[str, Any]:
    targets = case.targets()
    clock = time.perf_counter()
    res = synthesize_path(targets, workers=workers, client=client, seed=SEED, tolerance=TOLERANCE,
                          max_time_s=MAX_TIME_S)
    wall = time.perf_counter() - clock
    return {"case": case.name, "targets": len(targets), "where": "process" if client is None else "dask",
            "workers": workers, "status": res.status.value, "error": res.best.error if res.best else math.nan,
            "time_s": wall, "evaluations": res.evaluations, "generations": res.generations}


def run_sixbar_case(case: SixBarCase, client: Any | None, workers: int) -> dict[str, Any]:
    targets = case.targets()
    clock = time.perf_counter()
    res = synthesize_sixbar_path(targets, case.geometry.topology, workers=workers, client=client, seed=case.seed,
                                 tolerance=TOLERANCE, max_time_s=MAX_TIME_S)
    wall = time.perf_counter() - clock
    return {"case": case.name, "targets": len(targets), "where": "process" if client is None else "dask",
            "workers": workers, "status": res.status.value, "error": res.best.error if res.best else math.nan,
            "time_s": wall, "evaluations": res.evaluations, "generations": res.generations}


def run(quick: bool = False, worker_counts: tuple[int, ...] = (1, 2)) -> BenchTable:
    cases = CASES[:1] if quick else CASES
    sixbars = () if quick else SIXBAR_CASES
    rows = [run_case(case, None, 1) for case in cases] + [run_sixbar_case(case, None, 1) for case in sixbars]
    for k in worker_counts:
        with connect(workers=k) as client:
            warm(client)
            rows += [run_case(case, client, k) for case in cases]
            rows += [run_sixbar_case(case, client, k) for case in sixbars]
    for case in tuple(cases) + tuple(sixbars):
        base = next((r["time_s"] for r in rows if r["case"] == case.name and r["where"] == "dask"
                     and r["workers"] == min(worker_counts)), math.nan)
        for r in rows:
            if r["case"] == case.name and r["where"] == "dask":
                r["speedup"] = base / r["time_s"]
    notes = [f"time to a four-bar (six-bar) within {TOLERANCE:g} of the longest link through every target (seed "
             f"{SEED}; the six-bar case's own seed; the same work on any number of workers)",
             "speedup = time(Dask, 1 worker) / time(Dask, k workers); clusters started and warmed before timing"]
    return BenchTable("Four-bar and six-bar path synthesis on Dask", rows, notes)
