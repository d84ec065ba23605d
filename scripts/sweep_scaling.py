"""Sweep scaling on a Dask LocalCluster of k worker processes, for a machine with many cores
(docs/benchmarks.md, "Sweeps on the 16-core machine").

Run in the project's root (imports ``mechstudio``):

    python3 scripts/sweep_scaling.py [--workers 1,4,8,16] [--rounds 2] [--runs 1000] [--json out.json]

The plan is the sweep bench's (mechstudio.core.bench.sweep): four-bar, crank mass x coupler mass (40 x 25),
metric absmax(reaction.O.Fy), t_end = 1 s, the run cache on (RunSpec.reuse, the default). The kernels are compiled
(or loaded) once in this driver before any cluster starts (a probe run with kernels="compiled"); the workers load
them from the same cache folder ($MECHSTUDIO_CACHE_DIR). For each k: a cluster from
mechstudio.core.sweep.execute.connect(workers=k), its workers warmed as the bench does (WarmKernels plugin, then an
untimed sweep of WARM_RUNS runs per worker), then ``rounds`` timed sweeps with the bench's sweep_once.
One line per (k, round); efficiency = best wall(k0) * k0 / (k * wall) with k0 the first worker count (1 by default).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import sys
import signal
import tempfile
import time
import traceback


def say(*a: object) -> None:
    print(*a, flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", default="1,4,8,16", help="comma-separated worker counts (default 1,4,8,16)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--runs", type=int, default=1000, help="the first N rows of the bench's design (default 1000)")
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--warm-runs", type=int, default=None, help="untimed runs per worker (default the bench's WARM_RUNS)")
    ap.add_argument("--json", default=None, help="write the results here (rewritten after every worker count)")
    ap.add_argument("--deadline-s", type=float, default=None,
                    help="skip the worker counts and rounds that would end later than this many seconds after the "
                         "start (estimated from the first worker count's sweeps)")
    args = ap.parse_args(argv)
    # a timeout's SIGTERM: leave through the clusters' clean-up (connect closes its workers on KeyboardInterrupt)
    signal.signal(signal.SIGTERM, interrupt)
    counts = [int(x) for x in args.workers.split(",") if x.strip()]

    t0 = time.perf_counter()
    import numpy as np
    import numba
    import dask
    import distributed
    from mechstudio.core.bench import sweep as bench
    from mechstudio.core.simulate import simulate
    from mechstudio.core.sweep.api import prepare
    from mechstudio.core.sweep.execute import connect
    from mechstudio.core.sweep.warm import WarmKernels
    warm_runs = bench.WARM_RUNS if args.warm_runs is None else args.warm_runs
    say(f"# sweep_scaling: python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"dask {dask.__version__}, distributed {distributed.__version__}, cpus {os.cpu_count()}, "
        f"cache {os.environ.get('MECHSTUDIO_CACHE_DIR')}; imports {time.perf_counter() - t0:.1f} s")

    params = bench.design(False).head(args.runs).reset_index(drop=True)
    plan = prepare(bench.FOUR_BAR, params, [bench.METRIC], {"t_end": args.t_end})
    say(f"# plan: {plan.n_runs} runs of {bench.FOUR_BAR.name}, t_end {args.t_end} s, metric {bench.METRIC}, "
        f"reuse {plan.spec.reuse}; workers {counts}, rounds {args.rounds}, warm runs/worker {warm_runs}")
    c = time.perf_counter()
    probe = simulate(str(bench.FOUR_BAR), t_end=0.02, kernels="compiled")
    say(f"# driver compile/load of the kernels (probe run, kernels=compiled): {time.perf_counter() - c:.1f} s, "
        f"status {probe.status.value}")

    result: dict = {"python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
                    "dask": dask.__version__, "distributed": distributed.__version__, "cpus": os.cpu_count(),
                    "cpu_model": cpu_model(), "runs": plan.n_runs, "t_end": args.t_end, "rounds": args.rounds,
                    "warm_runs_per_worker": warm_runs, "worker_counts": counts, "clusters": [], "rows": []}
    base: tuple[int, float] | None = None  # (k0, best wall of k0)
    header = (f"{'k':>3} {'round':>5} {'runs':>5} {'fail':>4} {'wall_s':>8} {'runs/s':>8} {'runs/s/wkr':>10} "
              f"{'run_s':>8} {'1/run_s':>8} {'eff':>6} {'load1':>6}")
    say(header)
    deadline = None if args.deadline_s is None else t0 + args.deadline_s

    def fits(k: int, sweeps: int, overhead_s: float) -> bool:
        """Whether ``sweeps`` timed sweeps on k workers (plus ``overhead_s``) end before the deadline."""
        if deadline is None or base is None:
            return True
        need = overhead_s + sweeps * 1.15 * base[1] * base[0] / k
        return time.perf_counter() + need < deadline

    for k in counts:
        cluster_info: dict = {"workers": k}
        warm_est = 8.0 + 1.5 * warm_runs * (base[1] * base[0] / plan.n_runs if base else 0.05)
        if not fits(k, 1, warm_est):
            cluster_info["skipped"] = "deadline"
            say(f"# k={k}: skipped (not enough time left before the deadline)")
            result["clusters"].append(cluster_info)
            continue
        try:
            c = time.perf_counter()
            with connect(workers=k) as client, tempfile.TemporaryDirectory() as folder:
                cluster_info["start_s"] = time.perf_counter() - c
                n_live = len(client.scheduler_info().get("workers", {}))
                c = time.perf_counter()
                client.register_plugin(WarmKernels(plan.spec), name=WarmKernels.name)
                cluster_info["plugin_warm_s"] = time.perf_counter() - c
                c = time.perf_counter()
                warm_plan = dataclasses.replace(plan, params=params.head(max(1, warm_runs * k)))
                w = bench.sweep_once(client, warm_plan, folder, "warm")
                cluster_info["warm_sweep_s"] = time.perf_counter() - c
                cluster_info["warm_sweep_runs"] = w["runs"]
                cluster_info["live_workers"] = n_live
                say(f"# k={k}: cluster up in {cluster_info['start_s']:.1f} s ({n_live} workers), plugin warm "
                    f"{cluster_info['plugin_warm_s']:.1f} s, warm sweep {w['runs']} runs {w['wall_s']:.1f} s "
                    f"(failed {w['failed']})")
                rows = []
                for r in range(args.rounds):
                    if r > 0 and not fits(k, 1, 3.0):
                        say(f"# k={k}: round {r + 1} skipped (deadline)")
                        break
                    m = bench.sweep_once(client, plan, folder, f"r{r}")
                    row = {"workers": k, "round": r + 1, **m, "runs_per_s_per_worker": m["runs_per_s"] / k,
                           "loadavg1": os.getloadavg()[0]}
                    if base is not None:
                        row["efficiency"] = base[1] * base[0] / (k * m["wall_s"])
                    rows.append(row)
                    result["rows"].append(row)
                    say(line(row))
                if base is None and rows:
                    base = (k, min(x["wall_s"] for x in rows))
                    for row in rows:
                        row["efficiency"] = base[1] * base[0] / (k * row["wall_s"])
                        say(line(row) + "   (efficiency base)")
                c = time.perf_counter()
            cluster_info["close_s"] = time.perf_counter() - c
        except KeyboardInterrupt as exc:
            cluster_info["error"] = f"interrupted ({exc})"
            say(f"# k={k}: interrupted ({exc}); stopping")
            result["clusters"].append(cluster_info)
            result["summary"] = summary(result["rows"])
            if args.json:
                write_json(args.json, result)
            raise
        except Exception as exc:  # report and go on with the next worker count
            cluster_info["error"] = f"{type(exc).__name__}: {exc}"
            say(f"# k={k}: FAILED {cluster_info['error']}")
            traceback.print_exc(file=sys.stdout)
            sys.stdout.flush()
        result["clusters"].append(cluster_info)
        result["summary"] = summary(result["rows"])
        result["total_s"] = time.perf_counter() - t0
        if args.json:
            write_json(args.json, result)

    say("# summary (best of rounds): k, wall_s, runs/s, runs/s per worker, mean run_s, efficiency")
    for s in result["summary"]:
        say(f"#   k={s['workers']:>2}  wall {s['wall_s']:7.2f} s  {s['runs_per_s']:7.1f} runs/s  "
            f"{s['runs_per_s_per_worker']:6.2f} /worker  run_s {s['run_s'] * 1000:6.2f} ms  eff {fmt(s.get('efficiency'))}")
    say(f"# total {time.perf_counter() - t0:.1f} s")
    return 0


def interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def line(row: dict) -> str:
    return (f"{row['workers']:>3} {row['round']:>5} {row['runs']:>5} {row['failed']:>4} {row['wall_s']:>8.3f} "
            f"{row['runs_per_s']:>8.2f} {row['runs_per_s_per_worker']:>10.3f} {row['run_s']:>8.5f} "
            f"{row['runs_per_s_worker']:>8.2f} {fmt(row.get('efficiency')):>6} {row['loadavg1']:>6.2f}")


def fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def summary(rows: list[dict]) -> list[dict]:
    best: dict[int, dict] = {}
    for r in rows:
        if r["workers"] not in best or r["wall_s"] < best[r["workers"]]["wall_s"]:
            best[r["workers"]] = r
    return [{k: v for k, v in r.items() if k in ("workers", "round", "runs", "failed", "wall_s", "runs_per_s",
                                                  "runs_per_s_per_worker", "run_s", "efficiency")}
            for r in best.values()]


def cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo") as f:
            return next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), None)
    except OSError:
        return None


def write_json(path: str, data: dict) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, default=float)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
