"""``mechstudio draw FILE --t T [--traces] [--points B.P,...] --out FILE.svg|FILE.dxf|-``: a drawing of the
mechanism at time T, with the coupler curves of its named points, as SVG or DXF (docs/drawings.md).

Where the motion comes from (``--from``, default ``auto``): a mechanism whose drivers fix every degree of
freedom (d = 0 after assembly, no nonholonomic constraint) is solved by the kinematic analysis (no dynamics,
exact at T: T is one of the analysed times); any other by the dynamics run of ``simulate`` with the file's
solver settings, drawn at the output frame nearest T (the summary says which). The motion is computed from 0 to
``--t-end`` (default: the file's ``simulation.t_end``, extended to T when T is later) every ``--dt``; the traces
cover that whole span. ``--results CSV`` takes the motion from a results table of the model instead
(``simulate`` or ``kinematics --out``: its ``t`` and ``q.*`` columns; T picks the nearest row) and computes
nothing. ``--traces`` draws the paths of every named body point; ``--points`` chooses them (and
implies ``--traces``). ``--out -`` writes the drawing to standard output (SVG unless ``--format dxf``).

Exit status as in ``mechstudio.core.cli``: 2 for bad input (unknown point, unknown format, invalid model), 3 when the
analysis or the run fails (nothing is written then).
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from mechstudio.core.commands.arguments import (STDIO, add_model_argument, add_quiet_argument, check_output_frames,
                                     nonnegative_float, points_from_args, positive_float, progress_counter,
                                     read_model, report_stream)
from mechstudio.core.commands.output import write_stdout
from mechstudio.core.drawing import DRAWING_FORMATS, build_drawing, drawing_format, drawing_text
from mechstudio.core.errors import UnknownNameError
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.kinematics.assembly import assemble, dof_report
from mechstudio.core.model.io import atomic_write_text
from mechstudio.core.systems.points import PointTracer
from mechstudio.core.run.results import read_csv
from mechstudio.core.simulate import SimulationSettings, run
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import FloatArray

SOURCES = ("auto", "kinematics", "simulate")
SOURCE_NAMES = {"kinematics": "kinematic analysis", "simulate": "dynamics run"}
#: T within this fraction of dt from an output time is that output time (rounding of k dt)
TIME_MATCH = 1e-9


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("draw", help="drawing of the mechanism at a time, with point traces, as SVG or DXF")
    add_model_argument(p)
    p.add_argument("--t", type=nonnegative_float, default=0.0, help="time [s] of the drawn configuration (default 0)")
    p.add_argument("--traces", action="store_true", help="draw the paths of every named body point")
    p.add_argument("--points", metavar="BODY.POINT,...", help="draw the paths of these points (implies --traces)")
    p.add_argument("--t-end", type=positive_float,
                   help="end [s] of the traced motion (default: the file's simulation.t_end, at least --t)")
    p.add_argument("--dt", type=positive_float, help="interval [s] between trace points (default: the file's dt)")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--from", dest="source", choices=SOURCES, default="auto",
                        help="kinematic analysis or dynamics run (default auto: kinematics for a fully driven "
                             "mechanism)")
    source.add_argument("--results", metavar="CSV",
                        help="take the motion from this results table of the model (simulate or kinematics "
                             "--out), computing nothing")
    p.add_argument("--format", choices=DRAWING_FORMATS, help="drawing format (default: the suffix of --out; "
                                                             "svg for -)")
    p.add_argument("--out", required=True, help="drawing to write: FILE.svg, FILE.dxf, or - for standard output")
    add_quiet_argument(p)
    p.set_defaults(func=run_command, no_points=False)


def is_driven(system: ConstrainedSystem) -> bool:
    """True when the drivers fix every degree of freedom: d = 0 at the assembled initial configuration and no
    nonholonomic constraint (what the kinematic analysis needs)."""
    if system.m_nonholonomic:
        return False
    first = assemble(system, system.initial_guess(), 0.0, hold=system.held_coordinates())
    return first.status.ok and dof_report(system, first.q, 0.0).dof_positions == 0


def motion(system: ConstrainedSystem, settings: SimulationSettings, t: float, source: str,
           quiet: bool = True) -> tuple[str, FloatArray, FloatArray, str]:
    """(source used, times (F,), configurations (F, n), failure message or "") over [0, t_end]; T among the
    kinematic times, the dynamics' output grid otherwise (with a progress bar on a terminal unless ``quiet``)."""
    if source == "auto":
        source = "kinematics" if is_driven(system) else "simulate"
    if source == "kinematics":
        times = np.linspace(0.0, settings.t_end, settings.output_count + 1)
        if np.min(np.abs(times - t)) > TIME_MATCH * settings.dt:  # T between two outputs: analysed too
            times = np.union1d(times, [t])
        res = driven_motion(system, times)
        return source, res.t, res.q, "" if res.status.ok else res.message
    tick, close = progress_counter(settings.output_count + 1, quiet, "draw")
    try:
        traj = run(system, settings, cancel=tick)
    finally:
        close()
    return source, traj.frames.t, traj.frames.q, "" if traj.status.ok else f"{traj.status.value}: {traj.message}"


def rows_of_results(system: ConstrainedSystem, path: str) -> tuple[FloatArray, FloatArray] | str:
    """(times (F,), configurations (F, n)) from the ``t`` and ``q.*`` columns of a results CSV of this model
    (``simulate`` or ``kinematics``), or a message saying what is wrong with the file."""
    try:
        cols = read_csv(path)
    except ValueError as exc:
        return f"{path}: not a results table (CSV of numbers with a header row): {exc}"
    need = ["t"] + [f"q.{name}" for name in system.coord_names]
    missing = [c for c in need if c not in cols]
    if missing:
        return (f"{path}: no column {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}: give the "
                "results of simulate or kinematics for this model")
    if not len(cols["t"]):
        return f"{path}: no rows"
    return cols["t"], np.column_stack([cols[c] for c in need[1:]])


def run_command(args: argparse.Namespace) -> int:
    model = read_model(args.file)
    out = args.out
    try:
        fmt = drawing_format("drawing.svg" if out == STDIO else out, args.format)
    except UnknownNameError:
        print(f"error: argument --out: cannot tell the drawing format from {out!r}: give a file ending in "
              f"{' or '.join('.' + f for f in DRAWING_FORMATS)}, or --format", file=sys.stderr)
        return 2
    traced = points_from_args(model, args) if (args.traces or args.points) else ()
    if args.results:
        system = compile_model(model)
        rows = rows_of_results(system, args.results)
        if isinstance(rows, str):
            print(f"error: argument --results: {rows}", file=sys.stderr)
            return 2
        (times, q), source, dt = rows, f"results table {args.results}", float(np.min(np.diff(rows[0]), initial=1.0))
    else:
        t_end = args.t_end if args.t_end is not None else SimulationSettings.from_model(model).t_end
        settings = SimulationSettings.from_model(model, t_end=max(t_end, args.t), dt=args.dt)
        settings.validate()
        check_output_frames(settings.t_end, settings.dt)
        system = compile_model(model)
        source, times, q, failure = motion(system, settings, args.t, args.source, args.quiet)
        source, dt = SOURCE_NAMES[source], settings.dt
        if failure:
            print(f"error: {source} failed, nothing written: {failure}", file=sys.stderr)
            return 3
    k = int(np.argmin(np.abs(times - args.t)))
    tracer = PointTracer(system, traced)
    traces = {name: tracer.trace(q, name) for name in tracer.names}
    text = drawing_text(build_drawing(system, q[k], traces, f"{model.name} at t = {times[k]:g} s"), fmt)
    if out == STDIO:
        write_stdout((text,))
    else:
        atomic_write_text(out, text)
    if not args.quiet:
        where = "standard output" if out == STDIO else out
        note = "" if abs(times[k] - args.t) <= TIME_MATCH * dt else f" (the output frame nearest t = {args.t:g} s)"
        print(f"wrote {where} ({fmt}): {model.name} at t = {times[k]:g} s{note} from the {source}, "
              f"{len(traces)} trace(s) over {times[0]:g}..{times[-1]:g} s", file=report_stream(out))
    return 0
