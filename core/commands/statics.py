"""``mechstudio statics FILE [--t T] [--inverse [--t-end T] [--dt DT]] [--out FILE.csv|-]``: static equilibrium,
or inverse dynamics of a driven mechanism (:mod:`mechstudio.core.analysis.statics`).

Without ``--inverse``: the pose of static equilibrium under gravity, springs and loads at time ``--t`` (default
0; drivers hold their coordinates at that time), every joint force and the drivers' holding force or torque, as
a one-row CSV (``q.*``, ``reaction.<constraint>.<component>``, ``residual.force``, ``violation.position``,
``dof``, ``stable``); the summary (pose, holding forces, residual, stability) goes to standard error.

With ``--inverse``: a fully driven (zero-DOF) mechanism's kinematics over 0..T every DT (T and DT default to the
file's ``simulation`` section, like ``kinematics``), then the driver forces/torques and joint reactions that
produce it, one row per time (the reaction columns of ``simulate``, energies, ``power.drivers``). A mechanism
with degrees of freedom left is refused (exit status 3).

``FILE`` may be ``-`` (standard input); without ``--out`` (or with ``--out -``) the CSV goes to standard output.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from mechstudio.core.analysis.statics import inverse_dynamics, static_equilibrium
from mechstudio.core.commands.arguments import (STDIO, add_model_argument, add_quiet_argument, check_output_frames,
                                                nonnegative_float, positive_float, read_model, report_stream,
                                                write_columns)
from mechstudio.core.model import Model
from mechstudio.core.simulate import SimulationSettings
from mechstudio.core.systems.compile import compile_model


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("statics", help="static equilibrium (pose, joint forces, driver holding torque), or "
                                       "inverse dynamics of a driven mechanism with --inverse")
    add_model_argument(p)
    p.add_argument("--t", type=nonnegative_float, default=0.0, dest="time",
                   help="time [s] at which the drivers hold their coordinates (statics; default 0)")
    p.add_argument("--inverse", action="store_true",
                   help="inverse dynamics of a fully driven mechanism over time instead of statics")
    p.add_argument("--t-end", type=positive_float, help="end time [s] of --inverse (default: the file's "
                                                        "simulation.t_end)")
    p.add_argument("--dt", type=positive_float, help="output interval [s] of --inverse (default: the file's "
                                                     "simulation.dt)")
    p.add_argument("--out", default=STDIO, help="CSV file to write (default: - for standard output)")
    add_quiet_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not args.inverse and (args.t_end is not None or args.dt is not None):
        print("error: argument --t-end/--dt: only with --inverse", file=sys.stderr)
        return 2
    model = read_model(args.file)
    if args.inverse:
        return run_inverse(args, model)
    system = compile_model(model)
    res = static_equilibrium(system, t=args.time)
    if not res.status.ok:
        print(f"error: no static equilibrium: {res.message}", file=sys.stderr)
        return 3
    cols = res.columns(system)
    write_columns(args.out, cols)
    if not args.quiet:
        out = report_stream(args.out)
        print(f"static equilibrium at t = {res.t:g} s after {res.iterations} iteration(s): {res.dof} DOF, "
              f"{res.message}; residual ||Q + C^T lambda|| = {res.residual:.3g} "
              f"(relative {res.residual / max(res.force_scale, 1e-300):.3g})", file=out)
        for k, name in enumerate(system.coord_names):
            print(f"  q.{name} = {res.q[k]:.10g}", file=out)
        for name, r in res.drivers.items():
            print(f"  driver {name}: holding force ({r[0]:.6g}, {r[1]:.6g}) N, torque {r[5]:.6g} N m", file=out)
        where = "standard output" if args.out == STDIO else args.out
        print(f"wrote 1 row x {len(cols)} columns to {where}", file=out)
    return 0


def run_inverse(args: argparse.Namespace, model: Model) -> int:
    settings = SimulationSettings.from_model(model, t_end=args.t_end, dt=args.dt)
    check_output_frames(settings.t_end, settings.dt)
    system = compile_model(model)
    times = np.linspace(0.0, settings.t_end, int(round(settings.t_end / settings.dt)) + 1)
    res = inverse_dynamics(system, times)
    where = "standard output" if args.out == STDIO else args.out
    if not res.status.ok and len(res.t) == 0:
        print(f"error: inverse dynamics refused: {res.message}", file=sys.stderr)
        return 3
    cols = res.columns(system)
    write_columns(args.out, cols)
    if not res.status.ok:
        print(f"error: {res.message} ({len(res.t)} rows written to {where})", file=sys.stderr)
        return 3
    if not args.quiet:
        out = report_stream(args.out)
        if res.message:
            print(f"warning: {res.message}", file=sys.stderr)
        for name in res.info.get("drivers", []):
            r = res.reaction(system, name)
            torque, force = r[:, 5], np.hypot(r[:, 0], r[:, 1])
            parts = [f"torque {torque.min():.6g} .. {torque.max():.6g} N m" if np.any(torque) else "",
                     f"force up to {force.max():.6g} N" if np.any(force) else ""]
            print(f"  driver {name}: {', '.join(p for p in parts if p) or 'no load'}", file=out)
        print(f"wrote {len(res.t)} rows x {len(cols)} columns to {where}", file=out)
    return 0
