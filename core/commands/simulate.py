"""``mechstudio simulate FILE``: run the dynamics headless and write the documented CSV (docs/results-csv.md).

``FILE`` may be ``-`` (the model on standard input) and ``--out -`` writes the CSV to standard output (the summary
then goes to standard error). Times and solver settings default to the file's ``simulation`` section. A progress
bar is shown on standard error when it is a terminal (``--quiet``: none, and no summary).

Extension point: :func:`run_command` takes ``after_run``, a callable ``(trajectory, args) -> int | None`` called
with the finished trajectory (``mechstudio`` passes its plot and video exports, see ``gui/simulate_cli.py``); a
non-None, non-zero result becomes the exit status.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Optional

from mechstudio.core.commands.arguments import (STDIO, add_model_argument, add_points_arguments, add_quiet_argument,
                                     check_output_frames, points_from_args, positive_float, progress_counter,
                                     read_model, report_stream, write_columns)
from mechstudio.core.dynamics.base import FORMULATIONS, get_formulation
from mechstudio.core.run.events import events_path, write_events_csv
from mechstudio.core.integrate.base import INTEGRATORS, get_integrator
from mechstudio.core.simulate import SimulationSettings, Trajectory, run
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.numerics.orientation import NAMES as ORIENTATION_NAMES

AfterRun = Callable[[Trajectory, argparse.Namespace], Optional[int]]


def register(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    get_formulation("projection")
    get_integrator("dop853")
    p = sub.add_parser("simulate", help="forward dynamics; writes results as CSV")
    add_model_argument(p)
    p.add_argument("--t-end", type=positive_float, help="end time [s] (default: the file's simulation.t_end)")
    p.add_argument("--dt", type=positive_float, help="output interval [s] (default: the file's simulation.dt)")
    p.add_argument("--method", "--formulation", dest="formulation", choices=sorted(FORMULATIONS),
                   help="dynamics formulation (default: the file's, else projection)")
    p.add_argument("--integrator", choices=sorted(INTEGRATORS), help="time integrator (default: the file's)")
    p.add_argument("--rtol", type=positive_float, help="relative tolerance of adaptive integrators")
    p.add_argument("--atol", type=positive_float, help="absolute tolerance of adaptive integrators")
    p.add_argument("--step", type=positive_float, help="step [s] of the fixed-step integrators rk4 and abm")
    p.add_argument("--parametrization", choices=ORIENTATION_NAMES,
                   help="orientation coordinates of spherical trees")
    p.add_argument("--no-correction", action="store_true", help="do not correct the constraint drift")
    p.add_argument("--out", help="CSV file to write, or - for standard output")
    add_points_arguments(p)
    add_quiet_argument(p)
    p.set_defaults(func=run_command)
    return p


def settings_from_args(model: Any, args: argparse.Namespace) -> SimulationSettings:
    """The file's simulation settings overridden by the options given on the command line."""
    overrides = dict(t_end=args.t_end, dt=args.dt, formulation=args.formulation, integrator=args.integrator,
                     rtol=args.rtol, atol=args.atol, step=args.step, parametrization=args.parametrization)
    if args.no_correction:
        overrides["correction"] = False
    settings = SimulationSettings.from_model(model, **overrides)
    settings.validate()
    check_output_frames(settings.t_end, settings.dt)
    return settings


def print_summary(traj: Trajectory, settings: SimulationSettings, out: str | None) -> None:
    """The status line, solver statistics, energy balance and constraint violations."""
    stream = report_stream(out)
    st = traj.stats
    print(f"{traj.status.value}: {traj.message}", file=stream)
    if st:
        rate = st.get("simulated_seconds", 0.0) / max(st.get("wall_seconds", 1e-9), 1e-9)
        print(f"  formulation {settings.formulation}, integrator {settings.integrator}, rtol {settings.rtol:g}; "
              f"{st.get('rhs_evaluations', 0)} right-hand sides, {st.get('svd_count', 0)} SVDs, "
              f"{st.get('steps', 0)} steps; {st.get('wall_seconds', 0):.3g} s wall ({rate:.3g}x real time)",
              file=stream)
    if len(traj.frames):
        e = traj.frames.kinetic + traj.frames.potential - traj.frames.work
        print(f"  energy balance (E - W) drift {abs(e - e[0]).max():.3g} J; "
              f"max ||Phi|| {traj.frames.violation_position.max():.3g}, "
              f"max ||C q' + xi|| {traj.frames.violation_velocity.max():.3g}", file=stream)
        if not st.get("lambda_unique", True):
            print("  note: redundant constraints: the reactions are the minimum-norm solution (not unique)",
                  file=stream)
    if "events" in st:
        print(f"  contacts: {len(st['events'])} events", file=stream)
    if out and out != STDIO:
        print(f"  wrote {len(traj.frames)} rows to {out}", file=stream)


def run_command(args: argparse.Namespace, after_run: AfterRun | None = None) -> int:
    model = read_model(args.file)
    settings = settings_from_args(model, args)
    points = points_from_args(model, args)
    system = compile_model(model)
    tick, close = progress_counter(int(round(settings.t_end / settings.dt)) + 1, args.quiet, "simulate")
    try:
        traj = run(system, settings, cancel=tick)
    finally:
        close()
    if args.out:
        write_columns(args.out, traj.columns(points))
        if args.out != STDIO and "events" in traj.stats:  # contacts: the events beside the results
            write_events_csv(events_path(args.out), traj.stats["events"])
    if not args.quiet:
        print_summary(traj, settings, args.out)
    elif not traj.status.ok:
        print(f"{traj.status.value}: {traj.message}", file=sys.stderr)
    rc = 0 if traj.status.ok else 3
    if after_run is not None:
        extra = after_run(traj, args)
        rc = rc or int(extra or 0)
    return rc
