#!/usr/bin/env python3
"""The runs of the sweep suite's four-bar sweep in one process (no Dask), for comparing two checkouts on one
machine (docs/benchmarks.md, "Sweeps on the 16-core machine").

    cd CHECKOUT && PYTHONPATH=$PWD python3 /path/to/sweep_per_run.py PKG N_RUNS

PKG is ``mechstudio`` for this layout, ``core`` for checkouts from before the import package was renamed (such as
48d1910). The plan is the suite's (``sample_models/four_bar.json``, crank mass 1..2 kg x coupler mass 3..4 kg,
metric absmax(reaction.O.Fy), t_end 1 s; with ``mechstudio`` the compiled kernels from the first run on). Prints the
set-up time (kernels compiled or loaded), then the best of 3 batches of N_RUNS runs (wall and CPU time per run) and
the sum of the metric over them, which is the same for the same numerics.
"""
from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

METRIC = "peak=absmax(reaction.O.Fy)"


def main(pkg: str, n: int) -> None:
    root = "mechstudio.core" if pkg == "mechstudio" else "core"
    api = importlib.import_module(f"{root}.sweep.api")
    runner = importlib.import_module(f"{root}.sweep.runner")
    wall0, cpu0 = time.perf_counter(), time.process_time()
    crank, coupler = np.meshgrid(np.linspace(1.0, 2.0, 40), np.linspace(3.0, 4.0, 25), indexing="ij")
    params = pd.DataFrame({"crank.mass": crank.ravel(), "coupler.mass": coupler.ravel()})
    settings = {"t_end": 1.0, "kernels": "compiled"} if pkg == "mechstudio" else {"t_end": 1.0}
    plan = api.prepare(str(Path("sample_models/four_bar.json").resolve()), params, [METRIC], settings)
    values = plan.params.to_numpy(float)
    runner.run_batch(plan.spec, range(3), values[:3])  # compiles (an empty cache) or loads the kernels
    print(f"{pkg}: set-up and first runs {time.perf_counter() - wall0:.1f} s wall, "
          f"{time.process_time() - cpu0:.1f} s CPU", flush=True)
    runner.run_batch(plan.spec, range(20), values[:20])
    best = []
    for _ in range(3):
        wall, cpu = time.perf_counter(), time.process_time()
        rows = runner.run_batch(plan.spec, range(n), values[:n])
        best.append((time.perf_counter() - wall, time.process_time() - cpu))
        if not all(r["status"] == "finished" for r in rows):
            raise SystemExit(f"a run did not finish: {rows[0]}")
    wall, cpu = min(best)
    total = float(np.sum([r["metric.peak"] for r in rows]))
    print(f"{pkg}: {n} runs best of 3: {wall:.3f} s wall, {cpu:.3f} s CPU, {1000 * wall / n:.2f} ms/run, "
          f"{n / wall:.1f} runs/s; metric sum {total:.10g}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
