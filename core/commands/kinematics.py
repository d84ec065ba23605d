"""``mechstudio kinematics FILE [--t-end T] [--dt DT] [--points B.P,...|--no-points] [--out FILE.csv|-]``:
driven-mechanism kinematic analysis.

T and DT default to the file's ``simulation`` section (like ``simulate``); ``FILE`` may be ``-`` (standard input);
without ``--out`` (or with ``--out -``) the CSV goes to standard output and the summary to standard error. The
point columns (``point.<body>.<point>.x`` ...) are those of ``simulate``: a coupler curve needs no dynamics.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from mechstudio.core.commands.arguments import (STDIO, add_model_argument, add_points_arguments, add_quiet_argument,
                                     check_output_frames, points_from_args, positive_float, read_model,
                                     report_stream, write_columns)
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.systems.points import point_columns
from mechstudio.core.simulate import SimulationSettings
from mechstudio.core.systems.compile import compile_model


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("kinematics", help="position/velocity/acceleration analysis of a driven mechanism")
    add_model_argument(p)
    p.add_argument("--t-end", type=positive_float, help="end time [s] (default: the file's simulation.t_end)")
    p.add_argument("--dt", type=positive_float, help="output interval [s] (default: the file's simulation.dt)")
    p.add_argument("--out", default=STDIO, help="CSV file to write (default: - for standard output)")
    add_points_arguments(p)
    add_quiet_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    model = read_model(args.file)
    settings = SimulationSettings.from_model(model, t_end=args.t_end, dt=args.dt)
    check_output_frames(settings.t_end, settings.dt)
    points = points_from_args(model, args)
    system = compile_model(model)
    times = np.linspace(0.0, settings.t_end, int(round(settings.t_end / settings.dt)) + 1)
    res = driven_motion(system, times)
    cols: dict[str, np.ndarray] = {"t": res.t}
    for prefix, arr in (("q", res.q), ("v", res.v), ("a", res.a)):
        for k, name in enumerate(system.coord_names):
            cols[f"{prefix}.{name}"] = arr[:, k]
    cols["violation.position"] = res.residual
    cols.update(point_columns(system, res.q, points))
    write_columns(args.out, cols)
    where = "standard output" if args.out == STDIO else args.out
    if not res.status.ok:
        print(f"error: {res.message} ({len(res.t)} rows written to {where})", file=sys.stderr)
        return 3
    if not args.quiet:
        print(f"wrote {len(res.t)} rows x {len(cols)} columns to {where}", file=report_stream(args.out))
    return 0
