"""Success rate of six-bar path synthesis on a fixed sample of seeded random six-bars (not a test: a measurement).

    PYTHONPATH=$PWD MECHSTUDIO_NO_NUMBA=1 python tests/sixbar_sweep.py [--budget 120] [--seeds 201 202]
        [--topologies watt2 stephenson3 watt1 stephenson1] [--out sweep.jsonl]

One case at a time, single process: for each topology, seed and task ((8 targets), (10 targets), (8 targets with
prescribed crank angles)) a random six-bar of tests/sixbar_helpers.py (the targets computed by the kinematic
solver), synthesized with ``max_time_s = budget``. Prints (and appends to ``--out``) one JSON line per case: status,
error, wall time, generations, and whether the result passes the acceptance (error <= ACCEPT).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mechstudio.core.analysis.synthesis_sixbar_path import synthesize_sixbar_path  # noqa: E402
from sixbar_helpers import ACCEPT, known_sixbar  # noqa: E402

TASKS = ((8, False), (10, False), (8, True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=120.0)
    parser.add_argument("--seeds", type=int, nargs="+", default=[201, 202])
    parser.add_argument("--topologies", nargs="+", default=["watt2", "stephenson3", "watt1", "stephenson1"])
    parser.add_argument("--tasks", nargs="+", default=None, help="e.g. 8 10 8t")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    tasks = TASKS if args.tasks is None else tuple((int(t.rstrip("t")), t.endswith("t")) for t in args.tasks)
    found = total = 0
    for topology in args.topologies:
        for count, timed in tasks:
            for seed in args.seeds:
                rng = np.random.default_rng(seed)
                _, theta, targets = known_sixbar(rng, topology, count, uneven=seed % 2 == 0)
                given = theta - theta[0] + 0.5 if timed else None
                start = time.perf_counter()
                res = synthesize_sixbar_path(targets, topology, crank_angles=given, seed=seed, max_time_s=args.budget)
                wall = time.perf_counter() - start
                ok = res.best is not None and res.best.error <= ACCEPT and res.status.name == "CONVERGED"
                found += ok
                total += 1
                row = {"topology": topology, "count": count, "timed": timed, "seed": seed,
                       "status": res.status.name, "error": None if res.best is None else float(res.best.error),
                       "wall_s": round(wall, 1), "generations": res.generations, "ok": bool(ok),
                       "load": os.getloadavg()[0]}
                line = json.dumps(row)
                print(line, flush=True)
                if args.out is not None:
                    with args.out.open("a", encoding="utf-8") as fh:
                        fh.write(line + "\n")
    print(f"found {found} of {total}", flush=True)


if __name__ == "__main__":
    main()
