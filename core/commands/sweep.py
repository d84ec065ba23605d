"""``mechstudio sweep MODEL --vary NAME.FIELD=... --metric LABEL=REDUCER(COLUMN) --out FILE.parquet``: run a
parameter sweep on Dask (docs/sweeps.md).

Everything is checked before a run starts (exit status 2 with the reason: unknown names, fields, columns,
reducers, settings). On standard error: the address of the Dask dashboard (or, without bokeh, how to get it) and,
when standard error is a terminal, a progress bar with the ETA; ``--quiet`` prints neither, nor the summary.
Ctrl+C stops, keeps the finished rows in the file and exits with 130 (``--resume`` continues). Runs that fail are
rows with their status; exit status 0. A file that cannot be written is named (``error: OUT: reason``, status 2);
a cluster that cannot be started or reached is reported as such (``error: Dask cluster: ...``, status 2).
"""
from __future__ import annotations

import argparse
import secrets
import sys
from pathlib import Path
from typing import Any

from mechstudio.core.commands.arguments import add_quiet_argument, os_error_text

DESIGN_NAMES = ("grid", "random", "sobol")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="parameter sweep on Dask; writes one Parquet row per run",
                       description="Run MODEL once per point of a design over NAME.FIELD parameters and reduce "
                                   "result columns to metrics. See docs/sweeps.md.")
    p.add_argument("file", metavar="MODEL")
    p.add_argument("--vary", action="append", required=True, metavar="NAME.FIELD=START:STOP:COUNT|v1,v2,...",
                   help="a parameter and its values (repeat for several parameters)")
    p.add_argument("--design", choices=DESIGN_NAMES, default="grid",
                   help="grid: every combination (default); random, sobol: --samples points over the ranges")
    p.add_argument("--samples", type=int, metavar="N", help="number of runs of the random and sobol designs")
    p.add_argument("--seed", type=int, metavar="S", help="seed of the random and sobol designs (reproducible)")
    p.add_argument("--metric", action="append", required=True, metavar="LABEL=REDUCER(COLUMN)",
                   help="reducer max, min, absmax, mean, rms or final of a result column (docs/results-csv.md)")
    p.add_argument("--t-end", type=float, metavar="T", help="end time [s] (default: the file's)")
    p.add_argument("--dt", type=float, metavar="DT", help="output interval [s] (default: the file's)")
    p.add_argument("--formulation", "--method", dest="formulation", metavar="F", help="formulation")
    p.add_argument("--integrator", help="integrator (default: the file's)")
    p.add_argument("--rtol", type=float, metavar="R", help="relative tolerance")
    p.add_argument("--atol", type=float, help="absolute tolerance")
    p.add_argument("--out", required=True, metavar="FILE.parquet", help="result file (Parquet)")
    p.add_argument("--resume", action="store_true", help="skip the runs already in the --out file")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, metavar="K", help="local worker processes (default: the cores)")
    where.add_argument("--scheduler", metavar="ADDRESS", help="address of a running Dask scheduler")
    where.add_argument("--scheduler-file", metavar="FILE", help="scheduler file of a running Dask cluster")
    p.add_argument("--batch-size", type=int, metavar="B", help="runs per Dask task (default: automatic)")
    add_quiet_argument(p)
    p.set_defaults(func=run_command)


def design_seed(args: argparse.Namespace) -> int | None:
    """The seed: --seed, else (resuming) the file's, else a fresh one that is printed and recorded."""
    if args.design == "grid":
        return None
    if args.seed is not None:
        return args.seed
    if args.resume and Path(args.out).exists():
        # Dask and the sweep engine only when a sweep runs (start-up of every command)
        from mechstudio.core.sweep.store import read_metadata
        seed = read_metadata(args.out).get("sweep", {}).get("design", {}).get("seed")
        if seed is not None:
            return int(seed)
    seed = secrets.randbits(32)
    if not args.quiet:
        print(f"design seed {seed} (give --seed {seed} to repeat this design)", file=sys.stderr)
    return seed


def run_command(args: argparse.Namespace) -> int:
    from mechstudio.core.model import load_model  # the model loader only when a sweep runs (start-up of every command)
    # Dask and the sweep engine only when a sweep runs (start-up of every command)
    from mechstudio.core.sweep import AddressError, SpecError, build_design, parse_metric, parse_vary, prepare

    model = load_model(args.file)
    try:
        if args.workers is not None and args.workers < 1:
            raise SpecError("--workers must be at least 1")
        if args.batch_size is not None and args.batch_size < 1:
            raise SpecError("--batch-size must be at least 1")
        varies = [parse_vary(v) for v in args.vary]
        metrics = [parse_metric(m) for m in args.metric]
        seed = design_seed(args)
        table = build_design(varies, args.design, args.samples, seed)
        design = {"design": args.design, "vary": [v.text() for v in varies], "samples": args.samples,
                  "seed": seed}
        overrides = dict(t_end=args.t_end, dt=args.dt, formulation=args.formulation, integrator=args.integrator,
                         rtol=args.rtol, atol=args.atol)
        plan = prepare(model, table, metrics, overrides, design=design)
    except (SpecError, AddressError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return execute_plan(plan, args)


def execute_plan(plan: Any, args: argparse.Namespace) -> int:
    """Run with the dashboard's address and, on a terminal, a tqdm bar on stderr (created at the first report, so
    that resumed runs do not count in the rate); Ctrl+C keeps what is done."""
    # Dask and the sweep engine only when a sweep runs (start-up of every command)
    from mechstudio.core.sweep import DASHBOARD_HINT, ClusterError, SpecError, run_plan
    # Dask and the sweep engine only when a sweep runs (start-up of every command)
    from mechstudio.core.sweep.execute import scheduler_from_environment
    external = bool(args.scheduler or args.scheduler_file or scheduler_from_environment())
    bars: list[Any] = []
    show_bar = not args.quiet and sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if not show_bar:
            return
        if not bars:
            from tqdm import tqdm  # tqdm only when a progress bar is drawn (start-up of every command)
            bars.append(tqdm(total=total, initial=done, unit="run", file=sys.stderr, mininterval=0.5,
                             smoothing=0.05, desc="sweep", dynamic_ncols=True))
        bars[0].update(done - bars[0].n)

    def dashboard(link: str | None) -> None:
        if args.quiet:
            return
        if link:
            print(f"dashboard: {link}", file=sys.stderr)
        elif external:
            print("note: the Dask scheduler serves no dashboard", file=sys.stderr)
        else:
            print(f"note: {DASHBOARD_HINT}", file=sys.stderr)

    def close_bar() -> None:
        for bar in bars:
            bar.close()

    try:
        outcome = run_plan(plan, out=args.out, resume=args.resume, workers=args.workers, scheduler=args.scheduler,
                           scheduler_file=args.scheduler_file, batch_size=args.batch_size, progress=progress,
                           on_dashboard=dashboard)
    except SpecError as exc:
        close_bar()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ClusterError as exc:
        close_bar()
        print(f"error: Dask cluster: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the result file (named) cannot be written
        close_bar()
        print(f"error: {os_error_text(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        close_bar()
        done = finished_runs(args.out)
        print(f"interrupted: {done} of {plan.n_runs} runs are in {args.out}; --resume continues", file=sys.stderr)
        return 130
    close_bar()
    return summarize(args.out, plan.n_runs, outcome.cancelled, args.quiet)


def finished_runs(out: str) -> int:
    """How many rows the result file holds (0 when it cannot be read)."""
    import pyarrow.parquet as pq  # pyarrow only when a result file is read (start-up of every command)
    try:
        return int(pq.read_metadata(out).num_rows)
    except (OSError, ValueError):
        return 0


def summarize(out: str, total: int, cancelled: bool, quiet: bool = False) -> int:
    """Print how many runs the file holds and how many did not finish (unless ``quiet``); the exit status."""
    import pyarrow.parquet as pq  # pyarrow only when a result file is read (start-up of every command)

    # Dask and the sweep engine only when a sweep runs (start-up of every command)
    from mechstudio.core.sweep.runner import row_ok
    if quiet:
        return 130 if cancelled else 0
    status = pq.read_table(out, columns=["status"]).column(0).to_pylist()
    failed = sum(1 for s in status if not row_ok(s))
    print(f"{len(status)} of {total} runs in {out}" + (f"; {failed} did not finish (see status, message)"
                                                        if failed else ""))
    return 130 if cancelled else 0
