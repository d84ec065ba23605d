"""The analyses' outcomes (:mod:`mechstudio.gui.analysis.jobs`) as what their panels show (no Qt): a headline
(status), detail lines and tables of formatted numbers with their units in the column headers. The wording
follows the commands' summaries (``mechstudio statics``, ``linkage``, ``modes``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mechstudio.core.analysis.linkage import FOUR_BAR, LinkagePosition
from mechstudio.core.analysis.modes import ModalAnalysis, NaturalMode
from mechstudio.core.analysis.statics import StaticResult
from mechstudio.core.analysis.steady_motion import STABILITY_TOL, FloquetAnalysis, FloquetMode
from mechstudio.gui.analysis.jobs import LinkageResult, Outcome

#: significant digits of the numbers in the tables
DIGITS = 6
#: lowest frequencies named in the modes' headline
HEADLINE_FREQUENCIES = 3
#: coordinates named in a mode's "largest components" column
PARTICIPATIONS = 3
#: reaction components shown for planar models, and their units; spatial models show all six
PLANAR_COMPONENTS = ((0, "Fx [N]"), (1, "Fy [N]"), (5, "Mz [N m]"))
#: force and moment components smaller than the equilibrium's residual ||Q + C^T lambda|| (the balance is only
#: solved that far), or than this fraction of its force scale, are shown as 0: they are rounding noise
ROUNDING_RTOL = 1e-12
SPATIAL_COMPONENTS = ((0, "Fx [N]"), (1, "Fy [N]"), (2, "Fz [N]"), (3, "Mx [N m]"), (4, "My [N m]"),
                      (5, "Mz [N m]"))


@dataclass(frozen=True)
class Table:
    """A titled table: header texts (units in brackets) and rows of cell texts; the first column is a name."""
    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    empty: str = "none"  # shown instead of the table when it has no rows


@dataclass(frozen=True)
class Report:
    """What a panel shows: ``level`` "ok", "warning" (unstable, neutral) or "error" (failure, refusal)."""
    headline: str
    level: str = "ok"
    details: tuple[str, ...] = ()
    tables: tuple[Table, ...] = field(default=())


def num(value: float, digits: int = DIGITS) -> str:
    """A number with ``digits`` significant digits; "—" for NaN, "∞" for infinity, no "-0"."""
    v = float(value)
    if math.isnan(v):
        return "—"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    return f"{v + 0.0:.{digits}g}"


def chop(value: float, zero: float) -> float:
    """``value``, or 0 where its magnitude is at most ``zero`` (rounding noise, e.g. 3e-18 N m on a joint that
    carries 20 N)."""
    return 0.0 if abs(float(value)) <= zero else float(value)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# --- static equilibrium ----------------------------------------------------------------------------------------
def stability_word(res: StaticResult) -> str:
    """"stable", "unstable", "neutral", or "stability not decided" (no degree of freedom, nonholonomic)."""
    if res.stable is True:
        return "stable"
    if res.stable is False:
        return "unstable"
    return "neutral" if res.message.startswith("neutral") else "stability not decided"


def statics_report(out: Outcome) -> Report:
    res: StaticResult | None = out.result
    if out.error or res is None or out.system is None:
        return Report(out.error or "no result", "error")
    word = stability_word(res)
    rel = res.residual / max(res.force_scale, 1e-300)
    what = f"{word.capitalize()} equilibrium" if word in ("stable", "unstable", "neutral") else "Equilibrium"
    how = ("the initial pose" if res.iterations == 0 else f"after {plural(res.iterations, 'iteration')}")
    headline = f"{what} ({how}): residual {num(res.residual, 3)} (relative {num(rel, 3)}), {res.dof} DOF"
    details = (f"Static equilibrium at t = {num(res.t)} s under gravity, springs and loads; the drivers hold their "
               f"coordinates. {res.message[:1].upper()}{res.message[1:]}.",
               "Forces and moments each joint applies to its second body (global axes; moments about the joint "
               "point on that body).")
    components = PLANAR_COMPONENTS if out.model.kind == "planar" else SPATIAL_COMPONENTS
    heads = tuple(h for _, h in components)
    drivers = set(res.drivers)
    zero = max(res.residual, ROUNDING_RTOL * res.force_scale)  # below the unbalanced force: not resolved
    joints = tuple((name,) + tuple(num(chop(r[k], zero)) for k, _ in components)
                   for name, r in res.reactions.items() if name not in drivers)
    held = tuple((name, num(chop(r[0], zero)), num(chop(r[1], zero)), num(chop(r[5], zero)))
                 for name, r in res.drivers.items())
    tables = (Table("Joint forces", ("joint",) + heads, joints, "no joints"),
              Table("Drivers' holding force and torque", ("driver", "force x [N]", "force y [N]", "torque [N m]"),
                    held, "no drivers: nothing is held"))
    return Report(headline, "ok" if word == "stable" else "warning", details, tables)


def equilibrium_poses(out: Outcome) -> dict[str, tuple[float, float, float]]:
    """The body-frame poses (x, y, phi) [m, m, rad] of a planar model's equilibrium (what *Apply pose* writes);
    empty for other models and failures."""
    res, system = out.result, out.system
    if out.error or res is None or system is None or out.model.kind != "planar":
        return {}
    return {b: tuple(float(v) for v in system.body_frame_pose(res.q, b)) for b in system.body_names}


# --- linkage ---------------------------------------------------------------------------------------------------
def position_row(result: LinkageResult, p: LinkagePosition) -> tuple[str, ...]:
    four_bar = result.linkage.topology.kind == FOUR_BAR
    return (p.kind, num(math.degrees(p.crank_angle)), num(p.input_angle),
            num(math.degrees(p.output)) if four_bar else num(p.output), num(math.degrees(p.transmission_angle)))


def transmission_range_deg(result: LinkageResult) -> tuple[float, float]:
    """(min, max) transmission angle [deg] over the crank sweep."""
    mu = np.degrees(result.sweep.transmission_angle)
    return float(np.min(mu)), float(np.max(mu))


def linkage_report(out: Outcome) -> Report:
    result: LinkageResult | None = out.result
    if out.error or result is None:
        return Report(out.error or "no result", "error",
                      ("The linkage report analyses four-bars and slider-cranks only.",) if out.refused else ())
    topo, sweep = result.linkage.topology, result.sweep
    grashof = topo.grashof
    lo, hi = transmission_range_deg(result)
    headline = (f"{topo.kind.capitalize()}, {grashof.kind}: transmission angle min {num(lo, 4)} deg, "
                f"max {num(hi, 4)} deg")
    turn = ("the crank turns a full turn" if sweep.full_turn else
            f"the crank turns {num(math.degrees(sweep.input_angle[-1] - sweep.input_angle[0]))} deg only "
            f"(it cannot turn fully)")
    details = (f"Topology: {topo.describe()}",
               f"Grashof: {grashof.describe()}",
               f"Crank sweep: {turn}, {len(sweep.input_angle) - 1} steps; "
               f"{plural(len(sweep.limits), 'limit position')} (output at rest)"
               + (f", {plural(len(sweep.stops), 'stop')} (coupler and output collinear)" if sweep.stops else ""),
               f"Transmission angle over the sweep: min {num(lo, 4)} deg, max {num(hi, 4)} deg")
    out_head = "output θ4 [deg]" if topo.kind == FOUR_BAR else "slider [m]"
    rows = tuple(position_row(result, p) for p in sweep.limits + sweep.stops)
    tables = (Table("Limit positions and stops",
                    ("kind", "crank θ2 [deg]", f"{topo.input}.phi [rad]", out_head, "transmission [deg]"),
                    rows, "no limit positions"),)
    return Report(headline, "ok", details, tables)


# --- modes -----------------------------------------------------------------------------------------------------
def largest_components(mode: NaturalMode, names: list[str]) -> str:
    top = np.argsort(-np.abs(mode.shape), kind="stable")[:PARTICIPATIONS]
    return ", ".join(f"{names[i]} {mode.shape[i]:+.3g}" for i in top if abs(mode.shape[i]) >= 1e-6)


def mode_row(k: int, mode: NaturalMode, names: list[str]) -> tuple[str, ...]:
    oscillating = mode.kind == "oscillating"
    return (str(k), mode.kind, num(mode.frequency_hz) if oscillating else "0",
            num(mode.period_s) if oscillating else "∞", num(mode.damping_ratio),
            num(mode.growth_rate) if mode.kind == "unstable" else "—", largest_components(mode, names))


def modes_report(out: Outcome) -> Report:
    res: ModalAnalysis | None = out.result
    if res is None or out.system is None:
        return Report(out.error or "no result", "error")
    eq = res.equilibrium
    how = "the initial pose" if eq.iterations == 0 else f"found after {plural(eq.iterations, 'Newton step')}"
    rel = eq.residual / eq.force_norm if eq.force_norm > 0 else 0.0
    eq_line = f"Equilibrium: {how}; residual ||Vᵀh|| = {num(eq.residual, 3)} (relative {num(rel, 3)})"
    if out.error:
        return Report(out.error, "error", (eq_line,) if eq.status.ok else ())
    lin = res.linearisation
    assert lin is not None
    if not res.modes:
        return Report(res.message or "no modes", "warning", (eq_line,))
    unstable = sum(m.kind == "unstable" for m in res.modes)
    zero = sum(m.kind == "zero" for m in res.modes)
    oscillating = [m for m in res.modes if m.kind == "oscillating"]
    parts = [plural(unstable, "unstable mode")] if unstable else []
    parts += [plural(zero, "zero-frequency mode")] if zero else []
    if oscillating:
        parts.append(", ".join(f"{num(m.frequency_hz)} Hz" for m in oscillating[:HEADLINE_FREQUENCIES])
                     + (f" … ({len(oscillating)} oscillating)" if len(oscillating) > HEADLINE_FREQUENCIES else ""))
    headline = (f"{'Stable' if res.stable else 'UNSTABLE'} equilibrium, {plural(lin.dof, 'degree')} of freedom: "
                + "; ".join(parts))
    details = [eq_line, "Undamped modes K_r x = ω² M_r x, lowest first (unstable first); damping ratio "
               "ζ = xᵀ D_r x / (2ω); shapes scaled so that the largest component is +1 (m and rad mixed)."]
    if unstable:
        details.append(f"{plural(unstable, 'unstable mode')}: it grows like exp(s t) with the growth rate s shown.")
    if not res.symmetric_stiffness:
        details.append("The stiffness is not symmetric (follower loads): ω² are the real parts.")
    names = list(out.system.coord_names)
    rows = tuple(mode_row(k + 1, m, names) for k, m in enumerate(res.modes))
    tables = (Table("Modes", ("mode", "kind", "frequency [Hz]", "period [s]", "damping ratio", "growth [1/s]",
                              "largest components"), rows, "no modes"),)
    return Report(headline, "ok" if res.stable else "warning", tuple(details), tables)


# --- modes about a steady motion -------------------------------------------------------------------------------
def complex_text(z: complex, digits: int = 4) -> str:
    """a ± bi with ``digits`` significant digits (b omitted when it is 0)."""
    if z.imag == 0:
        return num(z.real, digits)
    return f"{num(z.real, digits)} {'+' if z.imag > 0 else '−'} {num(abs(z.imag), digits)}i"


def floquet_components(mode: FloquetMode, names: list[str]) -> str:
    """The largest components of a (complex) shape: modulus with sign, and the phase where it is not 0 or 180."""
    top = np.argsort(-np.abs(mode.shape), kind="stable")[:PARTICIPATIONS]
    parts = []
    for i in top:
        c = complex(mode.shape[i])
        if abs(c) < 1e-6:
            continue
        phase = math.degrees(math.atan2(c.imag, c.real))
        if abs(phase) <= 0.5 or abs(abs(phase) - 180) <= 0.5:
            parts.append(f"{names[i]} {math.copysign(abs(c), c.real):+.3g}")
        else:
            parts.append(f"{names[i]} {abs(c):.3g}∠{phase:+.0f}°")
    return ", ".join(parts)


def floquet_row(k: int, mode: FloquetMode, names: list[str]) -> tuple[str, ...]:
    oscillating = mode.kind == "oscillating"
    return (str(k), mode.kind + ("" if mode.stable else ", growing"),
            num(mode.frequency_hz) if oscillating else "0", num(mode.damping_ratio), num(abs(mode.multiplier)),
            complex_text(mode.multiplier), complex_text(mode.exponent), floquet_components(mode, names))


def steady_modes_report(out: Outcome) -> Report:
    res: FloquetAnalysis | None = out.result
    if res is None or out.system is None:
        return Report(out.error or "no result", "error")
    st = res.steady
    origin = "; ".join(st.period_sources) if st.period_sources else "given"
    how = "the initial state" if st.iterations == 0 else f"found after {plural(st.iterations, 'Newton step')}"
    period_line = f"Period T = {num(st.period)} s ({origin})"
    st_line = (f"Steady motion: {how}; periodicity residual {num(st.residual, 3)} after one period "
               f"(tolerance {num(st.tolerance, 3)}, m or rad)")
    if out.error:
        return Report(out.error, "error", (period_line, st_line) if math.isfinite(st.residual) else ())
    if not res.modes:
        return Report(res.message or "no modes", "warning", (period_line, st_line))
    fz, fu = res.dof
    oscillating = [m for m in res.modes if m.kind == "oscillating"]
    growing = sum(not m.stable for m in res.modes)
    parts = [plural(growing, "growing mode")] if growing else []
    if oscillating:
        parts.append(", ".join(f"{num(m.frequency_hz)} Hz" for m in oscillating[:HEADLINE_FREQUENCIES])
                     + (f" … ({len(oscillating)} oscillating)" if len(oscillating) > HEADLINE_FREQUENCIES else ""))
    headline = (f"{'Stable' if res.stable else 'UNSTABLE'} steady motion (T = {num(st.period, 4)} s), "
                f"{plural(len(res.modes), 'Floquet mode')}: " + "; ".join(parts or ["no oscillation"]))
    details = (period_line, st_line,
               f"Floquet multipliers μ of the monodromy over T in {fz} position and {fu} velocity coordinates of the "
               f"projection; stable when every |μ| ≤ 1 + {STABILITY_TOL:g}. Exponents s = ln(μ)/T on the branch "
               "whose periodic factor has no harmonic in the bodies' frames (the frequency seen riding with the "
               "bodies); damping ratio −Re s/|s|; one of each conjugate pair. Shapes at t0, largest component 1.")
    names = list(res.coord_names)
    rows = tuple(floquet_row(k + 1, m, names) for k, m in enumerate(res.modes))
    tables = (Table("Floquet modes", ("mode", "kind", "frequency [Hz]", "damping ratio", "|μ|", "multiplier μ",
                                      "exponent s [1/s]", "largest components"), rows, "no modes"),)
    return Report(headline, "ok" if res.stable else "warning", details, tables)


__all__ = ["DIGITS", "Report", "Table", "equilibrium_poses", "linkage_report", "modes_report", "num",
           "statics_report", "steady_modes_report", "transmission_range_deg"]
