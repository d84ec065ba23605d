"""Benchmark suite "sweep": a parameter sweep of 1000 one-second four-bar runs on a Dask
LocalCluster of 1 and of 2 worker processes, without and with the worker's run cache.

The sweep: ``sample_models/four_bar.json``, crank mass 1..2 kg (40 values) x coupler mass 3..4 kg (25 values),
t_end = 1 s, dt = 0.01 s (projection, DOP853, rtol 1e-8 from the file), metric absmax(reaction.O.Fy), rows
streamed to a Parquet file in a temporary folder (the command-line path). Each cluster is started and its
workers warmed (the compiled kernels loaded) before the clock starts; on each cluster the sweep runs with the
cache off (``RunSpec.reuse`` False: every run edits the model by deep copies, compiles it and builds every
structure object, as before the cache) and on (:mod:`mechstudio.core.sweep.cache`), after an untimed sweep of
``WARM_RUNS`` runs per worker in each mode; ``rounds`` times, in alternating order (off, on; on, off; ...).
Columns:

* ``cache``: off or on; ``round``: the repetition;
* ``wall_s``: wall time of the sweep (submission to the merged file); ``runs_per_s`` = runs / wall_s;
* ``run_s``: mean wall time of one run on its worker (the rows' ``wall_s``); ``runs_per_s_worker`` = 1 / run_s;
* ``speedup``: runs_per_s over that of the cache-off sweep of the same round on the same cluster;
* ``efficiency`` = wall_s(1 worker) / (k wall_s(k workers)), same cache setting and round (1 = perfect);
* ``driver_peak_mb``: peak resident memory of the driver process during the sweep (psutil, sampled every
  20 ms); ``driver_growth_mb``: that peak minus the resident memory before the sweep -- what the sweep itself
  holds (rows are streamed, so it does not grow with the number of runs).

Targets: efficiency >= 80 % on 2 workers (2-core machine); runs per second per worker with the cache >= 2x without
(see docs/benchmarks.md for what was reached). ``--quick``: 40 runs (a smoke run).
"""
from __future__ import annotations

import dataclasses
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import psutil

from mechstudio.core.bench import BenchTable
from mechstudio.core.sweep.api import Plan, prepare, run_plan
from mechstudio.core.sweep.execute import connect
from mechstudio.core.sweep.warm import WarmKernels

FOUR_BAR = Path(__file__).resolve().parents[2] / "sample_models" / "four_bar.json"
METRIC = "peak=absmax(reaction.O.Fy)"
#: untimed runs per worker before the timed sweeps: a worker's first runs stay on the numpy path until the compiled
#: kernels pay (core.run.kernels), which would slow whichever timed sweep came first
WARM_RUNS = 40


class PeakMemory:
    """Samples this process's resident set size in a thread; ``peak_mb`` after :meth:`stop`."""

    def __init__(self, interval_s: float = 0.02):
        self.process = psutil.Process()
        self.interval_s = interval_s
        self.base_mb = self.peak_mb = self.process.memory_info().rss / 2 ** 20
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.peak_mb = max(self.peak_mb, self.process.memory_info().rss / 2 ** 20)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.peak_mb = max(self.peak_mb, self.process.memory_info().rss / 2 ** 20)


def design(quick: bool) -> pd.DataFrame:
    crank, coupler = (np.linspace(1.0, 2.0, 8), np.linspace(3.0, 4.0, 5)) if quick else \
        (np.linspace(1.0, 2.0, 40), np.linspace(3.0, 4.0, 25))
    c1, c2 = np.meshgrid(crank, coupler, indexing="ij")
    return pd.DataFrame({"crank.mass": c1.ravel(), "coupler.mass": c2.ravel()})


def sweep_once(client: Any, plan: Plan, folder: str, name: str) -> dict[str, Any]:
    """Run ``plan`` on ``client``'s warm workers, timed; the row's measurements."""
    out = Path(folder) / f"{name}.parquet"
    memory = PeakMemory()
    clock = time.perf_counter()
    run_plan(plan, client=client, out=out, warm=False)
    wall = time.perf_counter() - clock
    memory.stop()
    rows = pd.read_parquet(out)
    run_s = float(rows["wall_s"].mean())
    return {"runs": len(rows), "failed": int((rows["status"] != "finished").sum()), "wall_s": wall,
            "runs_per_s": len(rows) / wall, "run_s": run_s, "runs_per_s_worker": 1.0 / run_s,
            "driver_peak_mb": memory.peak_mb, "driver_growth_mb": memory.peak_mb - memory.base_mb}


def run_on(workers: int, params: pd.DataFrame, t_end: float, rounds: int) -> list[dict[str, Any]]:
    """The sweep with the cache off, then on, ``rounds`` times, on one cluster of ``workers`` processes."""
    plan = prepare(FOUR_BAR, params, [METRIC], {"t_end": t_end})
    plans = {"off": dataclasses.replace(plan, spec=dataclasses.replace(plan.spec, reuse=False)), "on": plan}
    out = []
    with connect(workers=workers) as client, tempfile.TemporaryDirectory() as folder:
        client.register_plugin(WarmKernels(plan.spec), name=WarmKernels.name)
        for cache, p in plans.items():  # untimed: the workers' runs switch to the compiled kernels here
            sweep_once(client, dataclasses.replace(p, params=params.head(WARM_RUNS * workers)), folder, cache)
        for r in range(rounds):
            done = {}
            for cache in ("off", "on") if r % 2 == 0 else ("on", "off"):
                done[cache] = {"workers": workers, "cache": cache, "round": r + 1,
                               **sweep_once(client, plans[cache], folder, f"{cache}{r}")}
            done["off"]["speedup"] = 1.0
            done["on"]["speedup"] = done["on"]["runs_per_s"] / done["off"]["runs_per_s"]
            out += [done["off"], done["on"]]
    return out


def run(quick: bool = False, worker_counts: tuple[int, ...] = (1, 2), t_end: float = 1.0,
        rounds: int = 1) -> BenchTable:
    params = design(quick)
    rows = [row for k in worker_counts for row in run_on(k, params, t_end, rounds)]
    base = {(r["cache"], r["round"]): r["wall_s"] * r["workers"] for r in rows if r["workers"] == worker_counts[0]}
    for r in rows:
        r["efficiency"] = base[r["cache"], r["round"]] / (r["workers"] * r["wall_s"])
    notes = [f"four-bar, {len(params)} runs of t_end = {t_end} s (dt 0.01 s, projection/DOP853, rtol 1e-8), "
             "rows streamed to Parquet; workers warmed (kernels loaded, untimed runs in both modes) before timing; "
             "cache off/on in alternating order on each cluster",
             "speedup = runs_per_s(cache on) / runs_per_s(cache off, same cluster and round)",
             "efficiency = wall(1 worker) / (k * wall(k workers)); target >= 0.8 on 2 workers"]
    return BenchTable("Parameter sweep on Dask", rows, notes)
