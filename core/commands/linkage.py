"""``mechstudio linkage FILE [--t-end T] [--dt DT] [--samples N] [--points B.P,...|--no-points] [--out FILE.csv|-]``:
classic linkage outputs of a four-bar or slider-crank (core.analysis.linkage; docs/analysis-linkage.md).

The summary (topology, link lengths, Grashof class, limit positions and stops over one crank turn, the range of the
transmission angle) goes to standard error when the CSV goes to standard output, else to standard output. The CSV
holds, over the driven run (``mechstudio kinematics``' times: T and DT default to the file's ``simulation``
section), ``t``, the coordinates ``q.*`` and velocities ``v.*``, the ``linkage.*`` columns and the point columns
(``--points``/``--no-points``, as ``kinematics``). A model without a driver is run with its crank turning at one
turn per second from its assembled angle. A model that is not a four-bar or slider-crank exits with status 2 and
says why; a run that stops early (a driven crank that cannot turn on) writes its rows and exits with status 3.
"""
from __future__ import annotations

import argparse
import math
import sys

import numpy as np

from mechstudio.core.analysis.linkage import (SWEEP_SAMPLES, CrankSweep, Linkage, LinkageError, LinkagePosition,
                                              linkage_topology)
from mechstudio.core.commands.arguments import (STDIO, add_model_argument, add_points_arguments, add_quiet_argument,
                                                check_output_frames, points_from_args, positive_float, positive_int,
                                                read_model, report_stream, write_columns)
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.simulate import SimulationSettings
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.systems.points import point_columns

#: the crank's speed [rad/s] when the model has no driver: one turn per second
UNDRIVEN_SPEED = 2 * math.pi


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("linkage", help="instant centres, transmission angle, mechanical advantage, Grashof class "
                                       "and limit positions of a four-bar or slider-crank")
    add_model_argument(p)
    p.add_argument("--t-end", type=positive_float, help="end time [s] (default: the file's simulation.t_end)")
    p.add_argument("--dt", type=positive_float, help="output interval [s] (default: the file's simulation.dt)")
    p.add_argument("--samples", type=positive_int, default=SWEEP_SAMPLES,
                   help=f"crank positions per turn searched for limit positions (default {SWEEP_SAMPLES})")
    p.add_argument("--out", default=STDIO, help="CSV file to write (default: - for standard output)")
    add_points_arguments(p)
    add_quiet_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    model = read_model(args.file)
    try:
        topology = linkage_topology(model)
    except LinkageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    settings = SimulationSettings.from_model(model, t_end=args.t_end, dt=args.dt)
    check_output_frames(settings.t_end, settings.dt)
    points = points_from_args(model, args)
    system = compile_model(model)
    try:
        linkage = Linkage(system, topology)
    except LinkageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    times = np.linspace(0.0, settings.t_end, int(round(settings.t_end / settings.dt)) + 1)
    summary = [linkage.topology.describe(), f"Grashof: {linkage.topology.grashof.describe()}"]
    status_ok, message = True, ""
    if model.drivers:
        res = driven_motion(system, times)
        t, q, v = res.t, res.q, res.v
        status_ok, message = res.status.ok, res.message
    else:
        t, q, v, message = _undriven_run(linkage, times)
        status_ok = not message
        summary.append(f"no driver: the crank {topology.input!r} turns at {UNDRIVEN_SPEED:.6g} rad/s from its "
                       "assembled angle")
    sweep = linkage.sweep(args.samples)
    summary += _sweep_lines(linkage, sweep)
    cols: dict[str, np.ndarray] = {"t": t}
    for prefix, arr in (("q", q), ("v", v)):
        for k, name in enumerate(system.coord_names):
            cols[f"{prefix}.{name}"] = arr[:, k]
    if len(t):
        cols.update(linkage.columns(q, v))
        cols.update(point_columns(system, q, points))
        mu = np.degrees(cols["linkage.transmission_angle"])
        summary.append(f"transmission angle over the run: min {np.nanmin(mu):.4g} deg, max {np.nanmax(mu):.4g} deg")
    write_columns(args.out, cols)
    where = "standard output" if args.out == STDIO else args.out
    if not status_ok:
        print("\n".join(summary), file=sys.stderr)
        print(f"error: {message} ({len(t)} rows written to {where})", file=sys.stderr)
        return 3
    if not args.quiet:
        stream = report_stream(args.out)
        print("\n".join(summary), file=stream)
        print(f"wrote {len(t)} rows x {len(cols)} columns to {where}", file=stream)
    return 0


def _undriven_run(linkage: Linkage, times: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """(t, q, q', message) of the crank turned at UNDRIVEN_SPEED; rows up to a stop, with a message there."""
    phi0 = float(linkage.q0[linkage.k_in])
    qs, vs = [], []
    q = linkage.q0
    for t in times:
        nxt = linkage.pose_at(phi0 + UNDRIVEN_SPEED * float(t), q)
        if nxt is None:
            n = len(qs)
            return (times[:n], np.array(qs).reshape(n, -1), np.array(vs).reshape(n, -1),
                    f"the crank cannot turn past t = {float(t):g} s (the coupler and output are collinear)")
        q = nxt
        qs.append(q)
        vs.append(linkage.tangent(q) * UNDRIVEN_SPEED)
    return times, np.array(qs), np.array(vs), ""


def _position_line(linkage: Linkage, p: LinkagePosition) -> str:
    out = (f"theta4 = {math.degrees(p.output):.6g} deg" if linkage.topology.kind == "four-bar"
           else f"slider at {p.output:.6g} m")
    return (f"  {p.kind}: crank angle theta2 = {math.degrees(p.crank_angle):.6g} deg "
            f"({linkage.topology.input}.phi = {p.input_angle:.9g} rad), {out}, "
            f"transmission angle {math.degrees(p.transmission_angle):.4g} deg")


def _sweep_lines(linkage: Linkage, sweep: CrankSweep) -> list[str]:
    turn = "a full turn" if sweep.full_turn else (
        f"{math.degrees(sweep.input_angle[-1] - sweep.input_angle[0]):.6g} deg (the crank cannot turn fully)")
    lines = [f"crank sweep: {turn}, {len(sweep.input_angle) - 1} steps"]
    lines.append(f"limit positions (output at rest): {len(sweep.limits)}")
    lines += [_position_line(linkage, p) for p in sweep.limits]
    if sweep.stops:
        lines.append(f"stops (coupler and output collinear): {len(sweep.stops)}")
        lines += [_position_line(linkage, p) for p in sweep.stops]
    mu = np.degrees(sweep.transmission_angle)
    lines.append(f"transmission angle over the crank sweep: min {mu.min():.4g} deg, max {mu.max():.4g} deg")
    return lines
