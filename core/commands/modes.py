"""``mechstudio modes FILE [--steady [--period T]] [--count N] [--out FILE.csv|-] [--time T] [--no-search] [-q]``:
natural frequencies, periods, damping ratios and mode shapes about an equilibrium
(:mod:`mechstudio.core.analysis.modes`) or, with ``--steady``, about a periodic steady motion
(:mod:`mechstudio.core.analysis.steady_motion`).

The equilibrium is searched from the file's initial pose (assembled; the pose itself when it is one already);
``--no-search`` requires the initial pose to be an equilibrium (status 3 when it is not). The report goes to
standard output: the equilibrium's residual, one line per mode (lowest first; unstable modes first, with their
growth rate), the largest coordinate participations of each shape (components of V x scaled so that the largest
is 1; metres and radians mixed) and the eigenvalues of the damped first-order form. ``--out`` writes one CSV row
per mode (columns ``mode, omega_squared, frequency_hz, period_s, growth_rate_per_s, damping_ratio`` and
``shape.<coordinate>``; ``period_s`` inf and ``damping_ratio`` nan for zero-frequency and unstable modes); with
``--out -`` the CSV goes to standard output and the report to standard error.
Exit status 3 when no equilibrium is found or the model cannot be linearised (nonholonomic or driven).

``--steady``: the periodic steady motion of period T (``--period``, default the drive's period: a driver angle at
constant speed b repeats after 2 pi/|b|) is searched from the file's initial state (``--no-search``: that state must
be periodic), then the Floquet multipliers mu of its monodromy are reported with the exponents s = ln(mu)/T on the
branch of the bodies' frames, frequency |Im s|/2 pi [Hz], damping ratio -Re s/|s|, stability (|mu| <= 1 + 1e-6) and
the largest participations of each shape (modulus, and phase in degrees where it is not 0 or 180). ``--out`` writes
one row per Floquet mode (columns ``mode, multiplier_re, multiplier_im, multiplier_abs, exponent_re, exponent_im,
frequency_hz, natural_frequency_hz, damping_ratio, stable, harmonic, period_s`` and ``shape_re.<coordinate>``,
``shape_im.<coordinate>``). ``--time`` is the start time t0 of the steady motion. Exit status 3 when no periodic
steady motion is found (the message says why).
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from mechstudio.core.analysis.modes import ModalAnalysis, NaturalMode, modal_analysis
from mechstudio.core.analysis.steady_motion import STABILITY_TOL, FloquetAnalysis, FloquetMode, floquet_analysis
from mechstudio.core.commands.arguments import (STDIO, add_model_argument, add_quiet_argument, nonnegative_float,
                                                positive_float, positive_int, read_model, report_stream, write_columns)
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.systems.compile import compile_model

#: coordinates listed per mode shape
PARTICIPATIONS = 4


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("modes", help="natural frequencies, damping ratios and mode shapes about an equilibrium")
    add_model_argument(p)
    p.add_argument("--count", type=positive_int, help="report the N lowest modes (default: all)")
    p.add_argument("--out", help="CSV file of the modes to write, or - for standard output (default: none)")
    p.add_argument("--time", type=nonnegative_float, default=0.0,
                   help="time [s] at which time-dependent loads are evaluated (default 0); with --steady the start "
                        "time of the steady motion")
    p.add_argument("--no-search", action="store_true",
                   help="do not search an equilibrium (or steady motion): the file's initial state must be one")
    p.add_argument("--steady", action="store_true",
                   help="modes about a periodic steady motion (Floquet multipliers), e.g. of a model driven at "
                        "constant speed")
    p.add_argument("--period", type=positive_float,
                   help="with --steady: the period T [s] of the steady motion (default: the drive's period)")
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


def phase_text(value: complex) -> str:
    """A shape component as a signed modulus, with its phase [deg] when it is not 0 or 180."""
    a = abs(value)
    phase = float(np.degrees(np.angle(value)))
    if abs(phase) <= 0.5:
        return f"{a:+.3g}"
    if abs(abs(phase) - 180.0) <= 0.5:
        return f"{-a:+.3g}"
    return f"{a:.3g} at {phase:+.0f} deg"


def floquet_participations(mode: FloquetMode, names: list[str], count: int = PARTICIPATIONS) -> str:
    top = np.argsort(-np.abs(mode.shape), kind="stable")[:count]
    return ", ".join(f"{names[i]} {phase_text(mode.shape[i])}" for i in top if abs(mode.shape[i]) >= 1e-6)


def describe_floquet(k: int, mode: FloquetMode, names: list[str]) -> str:
    """One report line of a Floquet mode: frequency, damping ratio, multiplier, exponent, participations."""
    mu, s = mode.multiplier, mode.exponent
    zeta = "-" if np.isnan(mode.damping_ratio) else f"{mode.damping_ratio:.4g}"
    if mode.kind == "neutral":
        head = f"{k:>4}  neutral (mu = 1, s = 0: a free motion along the steady motion or its family)"
    elif mode.kind == "real":
        head = (f"{k:>4}  {'GROWING' if s.real > 0 else 'decaying'} without oscillation: "
                f"exp({s.real:.6g} t/s), zeta = {zeta}")
    else:
        head = f"{k:>4}  f = {mode.frequency_hz:.6g} Hz, zeta = {zeta}"
        if not mode.stable:
            head += ", GROWING"
    head += (f"; |mu| = {abs(mu):.6g}, mu = {mu.real:.6g} {'+' if mu.imag >= 0 else '-'} {abs(mu.imag):.6g}i, "
             f"s = {s.real:.6g} + {s.imag:.6g}i /s (branch {mode.harmonic:+d})")
    what = "velocity shape" if mode.velocity_shape else "shape"
    return f"{head}\n        {what}: {floquet_participations(mode, names)}"


def steady_report(result: FloquetAnalysis, source: str, count: int | None, names: list[str]) -> list[str]:
    st = result.steady
    fz, fu = result.dof
    lines = [f"modes about the steady motion of {source}: {fz} position and {fu} velocity coordinate(s) of the "
             f"projection"]
    origin = "; ".join(st.period_sources) if st.period_sources else "given"
    lines.append(f"period T = {st.period:.6g} s ({origin}), start t0 = {st.t0:.6g} s")
    how = "the initial state" if st.iterations == 0 else f"found after {st.iterations} Newton step(s)"
    lines.append(f"steady motion: {how}; periodicity residual {st.residual:.3g} after one period (tolerance "
                 f"{st.tolerance:.3g}, m or rad)")
    if not result.modes:
        lines.append(result.message or "no modes")
        return lines
    lines.append(f"stable steady motion (every |mu| <= 1 + {STABILITY_TOL:g})" if result.stable else
                 "UNSTABLE steady motion (a multiplier |mu| > 1: a perturbation grows)")
    modes = result.modes[:count] if count else result.modes
    lines.append(f"\nFloquet modes (multipliers mu of the monodromy over T; exponents s = ln(mu)/T on the branch "
                 f"whose periodic factor has no harmonic in the bodies' frames; one of each conjugate pair), "
                 f"{len(modes)} of {len(result.modes)}:")
    lines.extend(describe_floquet(k + 1, m, names) for k, m in enumerate(modes))
    return lines


def steady_columns(result: FloquetAnalysis, count: int | None, names: list[str]) -> dict[str, np.ndarray]:
    """One row per Floquet mode (see the module docstring)."""
    modes = result.modes[:count] if count else result.modes
    cols: dict[str, np.ndarray] = {
        "mode": np.arange(1, len(modes) + 1, dtype=float),
        "multiplier_re": np.array([m.multiplier.real for m in modes]),
        "multiplier_im": np.array([m.multiplier.imag for m in modes]),
        "multiplier_abs": np.array([abs(m.multiplier) for m in modes]),
        "exponent_re": np.array([m.exponent.real for m in modes]),
        "exponent_im": np.array([m.exponent.imag for m in modes]),
        "frequency_hz": np.array([m.frequency_hz for m in modes]),
        "natural_frequency_hz": np.array([m.natural_frequency_hz for m in modes]),
        "damping_ratio": np.array([m.damping_ratio for m in modes]),
        "stable": np.array([1.0 if m.stable else 0.0 for m in modes]),
        "harmonic": np.array([float(m.harmonic) for m in modes]),
        "period_s": np.full(len(modes), result.steady.period),
    }
    for i, name in enumerate(names):
        cols[f"shape_re.{name}"] = np.array([m.shape[i].real for m in modes])
    for i, name in enumerate(names):
        cols[f"shape_im.{name}"] = np.array([m.shape[i].imag for m in modes])
    return cols


def run_steady(args: argparse.Namespace, system: ConstrainedSystem) -> int:
    result = floquet_analysis(system, args.period, t0=args.time, search=not args.no_search)
    if not result.status.ok or result.monodromy is None:
        print(f"error: {result.message} ({result.status.value})", file=sys.stderr)
        return 3
    names = list(result.coord_names)
    lines = steady_report(result, args.file, args.count, names)
    if args.out is not None:
        write_columns(args.out, steady_columns(result, args.count, names))
    stream = report_stream(args.out)
    if args.out is None or not args.quiet:
        stream.write("".join(line + "\n" for line in lines))
    if args.out is not None and args.out != STDIO and not args.quiet:
        print(f"wrote {min(args.count or len(result.modes), len(result.modes))} mode(s) to {args.out}")
    return 0


def run(args: argparse.Namespace) -> int:
    model = read_model(args.file)
    system = compile_model(model)
    if args.steady:
        return run_steady(args, system)
    if args.period is not None:
        print("error: --period needs --steady (an equilibrium has no period)", file=sys.stderr)
        return 2
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
