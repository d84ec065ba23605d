"""``mechstudio modes FILE [--count N] [--out FILE.csv|-] [--time T] [--no-search] [-q]``: natural frequencies, periods,
damping ratios and mode shapes about an equilibrium (:mod:`mechstudio.core.analysis.modes`).

The equilibrium is searched from the file's initial pose (assembled; the pose itself when it is one already);
``--no-search`` requires the initial pose to be an equilibrium (status 3 when it is not). The report goes to
standard output: the equilibrium's residual, one line per mode (lowest first; unstable modes first, with their
growth rate), the largest coordinate participations of each shape (components of V x scaled so that the largest
is 1; metres and radians mixed) and the eigenvalues of the damped first-order form. ``--out`` writes one CSV row
per mode (columns ``mode, omega_squared, frequency_hz, period_s, growth_rate_per_s, damping_ratio`` and
``shape.<coordinate>``; ``period_s`` inf and ``damping_ratio`` nan for zero-frequency and unstable modes); with
``--out -`` the CSV goes to standard output and the report to standard error.
Exit status 3 when no equilibrium is found or the model cannot be linearised (nonholonomic or driven).
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from mechstudio.core.analysis.modes import ModalAnalysis, NaturalMode, modal_analysis
from mechstudio.core.commands.arguments import (STDIO, add_model_argument, add_quiet_argument, nonnegative_float,
                                                positive_int, read_model, report_stream, write_columns)
from mechstudio.core.systems.compile import compile_model

#: coordinates listed per mode shape
PARTICIPATIONS = 4


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("modes", help="natural frequencies, damping ratios and mode shapes about an equilibrium")
    add_model_argument(p)
    p.add_argument("--count", type=positive_int, help="report the N lowest modes (default: all)")
    p.add_argument("--out", help="CSV file of the modes to write, or - for standard output (default: none)")
    p.add_argument("--time", type=nonnegative_float, default=0.0,
                   help="time [s] at which time-dependent loads are evaluated (default 0)")
    p.add_argument("--no-search", action="store_true",
                   help="do not search an equilibrium: the file's initial pose must be one")
    add_quiet_argument(p)
    p.set_defaults(func=run)


def describe_mode(k: int, mode: NaturalMode, names: list[str]) -> str:
    """One report line: frequency, period, w^2, damping ratio, the largest participations."""
    top = np.argsort(-np.abs(mode.shape), kind="stable")[:PARTICIPATIONS]
    parts = ", ".join(f"{names[i]} {mode.shape[i]:+.3g}" for i in top if abs(mode.shape[i]) >= 1e-6)
    if mode.kind == "unstable":
        head = (f"{k:>4}  UNSTABLE: w^2 = {mode.omega_squared:.6g} rad^2/s^2, imaginary frequency, "
                f"grows like exp({mode.growth_rate:.6g} t/s)")
    elif mode.kind == "zero":
        head = f"{k:>4}  zero frequency (free motion, no restoring force)"
    else:
        zeta = "-" if np.isnan(mode.damping_ratio) else f"{mode.damping_ratio:.4g}"
        head = (f"{k:>4}  f = {mode.frequency_hz:.6g} Hz, T = {mode.period_s:.6g} s, "
                f"w^2 = {mode.omega_squared:.6g} rad^2/s^2, zeta = {zeta}")
    return f"{head}\n        shape: {parts}"


def report(result: ModalAnalysis, source: str, count: int | None, names: list[str]) -> list[str]:
    eq, lin = result.equilibrium, result.linearisation
    assert lin is not None
    lines = [f"modes of {source}: {lin.dof} degree(s) of freedom"]
    rel = eq.residual / eq.force_norm if eq.force_norm > 0 else 0.0
    how = "the initial pose" if eq.iterations == 0 else f"found after {eq.iterations} Newton step(s)"
    lines.append(f"equilibrium: {how}; ||V^T h|| = {eq.residual:.3g} (||h|| = {eq.force_norm:.3g}, "
                 f"relative {rel:.3g})")
    if not result.modes:
        lines.append(result.message or "no modes")
        return lines
    lines.append("stable equilibrium" if result.stable else "UNSTABLE equilibrium")
    if not result.symmetric_stiffness:
        lines.append("note: the stiffness is not symmetric (follower loads): w^2 are the real parts")
    modes = result.modes[:count] if count else result.modes
    lines.append(f"\nundamped modes (K_r x = w^2 M_r x; zeta = x^T D_r x / (2 w)), {len(modes)} of "
                 f"{len(result.modes)}:")
    lines.extend(describe_mode(k + 1, m, names) for k, m in enumerate(modes))
    damped = result.damped[:count] if count else result.damped
    lines.append("\ndamped eigenvalues s [1/s] (one of each conjugate pair):")
    for d in damped:
        s = d.eigenvalue
        zeta = "-" if np.isnan(d.damping_ratio) else f"{d.damping_ratio:.4g}"
        lines.append(f"      s = {s.real:.6g} {'+' if s.imag >= 0 else '-'} {abs(s.imag):.6g}i   "
                     f"f_n = {d.natural_frequency_hz:.6g} Hz, f_d = {d.damped_frequency_hz:.6g} Hz, zeta = {zeta}"
                     f"{'' if d.stable else '   (growing)'}")
    return lines


def columns(result: ModalAnalysis, count: int | None, names: list[str]) -> dict[str, np.ndarray]:
    """One row per undamped mode (see the module docstring)."""
    modes = result.modes[:count] if count else result.modes
    cols: dict[str, np.ndarray] = {
        "mode": np.arange(1, len(modes) + 1, dtype=float),
        "omega_squared": np.array([m.omega_squared for m in modes]),
        "frequency_hz": np.array([m.frequency_hz for m in modes]),
        "period_s": np.array([m.period_s for m in modes]),
        "growth_rate_per_s": np.array([m.growth_rate for m in modes]),
        "damping_ratio": np.array([m.damping_ratio for m in modes]),
    }
    for i, name in enumerate(names):
        cols[f"shape.{name}"] = np.array([m.shape[i] for m in modes])
    return cols


def run(args: argparse.Namespace) -> int:
    model = read_model(args.file)
    system = compile_model(model)
    result = modal_analysis(system, None, args.time, search=not args.no_search)
    if not result.status.ok or result.linearisation is None:
        print(f"error: {result.message} ({result.status.value})", file=sys.stderr)
        return 3
    names = list(system.coord_names)
    lines = report(result, args.file, args.count, names)
    if args.out is not None:
        write_columns(args.out, columns(result, args.count, names))
    stream = report_stream(args.out)
    if args.out is None or not args.quiet:  # without --out the report is the product
        stream.write("".join(line + "\n" for line in lines))
    if args.out is not None and args.out != STDIO and not args.quiet:
        print(f"wrote {min(args.count or len(result.modes), len(result.modes))} mode(s) to {args.out}")
    return 0
