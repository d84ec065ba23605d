"""The IFToMM / MBS benchmark suite: ``mechstudio bench --suite iftomm``.

Each problem is a model file in ``sample_models/benchmarks/`` (data and sources in its README.md) run through
the ordinary driver :func:`mechstudio.core.simulate.run` with a formulation and an integrator, and judged by its own error
definition against an independent reference (:mod:`mechstudio.core.bench.iftomm_reference`):

* A01 simple pendulum (2000 s): max over the output frames of the distance between the computed and the exact
  position of the mass [m] (benchmark threshold 1e-3 m).
* A02 N four-bar (N = 40, 20 s): max over the frames of the position error [m] and of the velocity error
  [m/s] of the first coupler point B0 against the one-degree-of-freedom energy solution (threshold 1e-3).
  Every passage through the horizontal (rank of Phi_q drops from 6N + 2 = 242 to 5N + 2 = 202, DOF 1 -> N + 1)
  is logged.
* A03 Andrews (0.03 s): max relative error of the 7 angles (and, as ``error_2``, of their rates) against the
  published Test Set values; A03 (0.05 s): max |E - E0 - tau (beta - beta0)| over the frames [J].
* Stiff four-bar with a diagonal spring-damper (2 s): max error of the crank angle [rad] against the
  one-DOF reference.

Columns: problem, formulation, integrator, tolerance (rtol), error (by the problem's definition), error_2
(the second measure where there is one), energy drift (max |E - E0 - W| [J], W = work of the applied torque and
dampers from the driver's bookkeeping), max constraint violation (||Phi|| before correction), CPU time [s],
RHS evaluations, SVD count, status. Runs are stopped after a CPU budget (``status`` says so).
"""
from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np

from mechstudio.core.bench import BenchTable
from mechstudio.core.bench import iftomm_models as models
from mechstudio.core.bench import iftomm_reference as ref
from mechstudio.core.dynamics.base import SolverFailure
from mechstudio.core.kinematics.assembly import rank_analysis
from mechstudio.core.model.io import model_from_data
from mechstudio.core.run.ali3p import simulate_ali3p
from mechstudio.core.simulate import SimulationSettings, Trajectory
from mechstudio.core.simulate import run as simulate_run
from mechstudio.core.systems.compile import compile_model

FORMULATIONS: list[tuple[str, str, bool]] = [  # (label, formulation, correction)
    ("projection", "projection", True),
    ("projection (no correction)", "projection", False),
    ("lagrange", "lagrange", True),
    ("appell", "appell", True),
]


@dataclass
class Measure:
    error: float
    error_2: float | None = None
    notes: str = ""


def _budget(seconds: float) -> Callable[[], bool]:
    c0 = time.process_time()
    return lambda: time.process_time() - c0 > seconds


class BudgetExceeded(SolverFailure):
    """Raised from a CPU-time timer inside a right-hand side: the driver ends the run with this message."""


@contextlib.contextmanager
def cpu_budget(seconds: float) -> Iterator[None]:
    """Stop a run after ``seconds`` of CPU time even inside one output interval (an integrator whose step
    collapses never returns to the driver's cancel check): a profiling timer raises BudgetExceeded, which the
    driver reports as the run's failure message."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise BudgetExceeded(f"stopped: CPU budget of {seconds:g} s exceeded")
    old = signal.signal(signal.SIGPROF, handler)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def _energy_drift(tr: Trajectory) -> float:
    f = tr.frames
    if len(f.t) == 0:
        return math.nan
    bal = f.kinetic + f.potential - f.work
    return float(np.max(np.abs(bal - bal[0])))


def _row(problem: str, label: str, tr: Trajectory, settings: SimulationSettings, m: Measure | None
         ) -> dict[str, Any]:
    f = tr.frames
    st = tr.stats
    status = tr.status.name.lower()
    if status == "cancelled":
        status = f"stopped at t = {st.get('simulated_seconds', 0):.4g} s (CPU budget)"
    elif "CPU budget" in tr.message:
        status = f"stopped at t = {st.get('simulated_seconds', 0):.4g} s (CPU budget)"
    elif status != "finished":
        status = f"failed: {tr.message}"
    return {
        "problem": problem, "formulation": label, "integrator": settings.integrator,
        "tolerance": settings.rtol,
        "error": (m.error if m else math.nan), "error_2": (m.error_2 if m and m.error_2 is not None else ""),
        "energy_drift_J": _energy_drift(tr),
        "max_violation": float(np.max(f.violation_position_before)) if len(f.t) else math.nan,
        "cpu_s": float(st.get("cpu_seconds", math.nan)), "rhs_evals": int(st.get("rhs_evaluations", 0)),
        "svd_count": int(st.get("svd_count", 0)), "status": status,
    }


def _system(doc: dict[str, Any]):
    return compile_model(model_from_data(doc))


# --- measures ---------------------------------------------------------------------------------------------------


def measure_pendulum(tr: Trajectory) -> Measure:
    f = tr.frames
    x, y = ref.pendulum_exact(f.t, models.PENDULUM["length"], models.PENDULUM["g"])
    err = np.hypot(f.q[:, 0] - x, f.q[:, 1] - y)
    return Measure(float(err.max()), float(err[-1]), "error = max position error of the mass [m]; "
                                                     "error_2 = at the final time")


def b0_state(tr: Trajectory) -> tuple[np.ndarray, np.ndarray]:
    """Position and velocity of B0 (top of crank0) from the frames."""
    s = tr.system
    k = s.index["crank0"]
    ph, w = tr.frames.q[:, 3 * k + 2], tr.frames.v[:, 3 * k + 2]
    pos = np.array([s.point_position(q, "crank0", (1.0, 0.0)) for q in tr.frames.q])
    vel = np.column_stack((-np.sin(ph) * w, np.cos(ph) * w))
    return pos, vel


def measure_nfourbar(tr: Trajectory, N: int) -> Measure:
    r = ref.NFourBarReference(N)
    pos_ref, vel_ref = r.point_b0(tr.frames.t)
    pos, vel = b0_state(tr)
    ep = np.max(np.abs(pos - pos_ref)) if len(pos) else math.nan
    ev = np.max(np.abs(vel - vel_ref)) if len(vel) else math.nan
    return Measure(float(ep), float(ev), "error = max |B0 - B0_ref| [m], error_2 = max |B0' - B0'_ref| [m/s]")


def rank_drops(tr: Trajectory) -> list[dict[str, Any]]:
    """The passages of the N four-bar through the horizontal, where Phi_q loses rank.

    Between two frames where sin(crank0 angle) changes sign, the crossing time is interpolated; the rank and the
    degrees of freedom are those of Phi_q at the horizontal configuration of the branch (all cranks at that
    angle), and ``sigma_min_frame`` is the smallest singular value of Phi_q at the nearest frame (relative to
    the largest): how close the run came to the singular configuration."""
    s = tr.system
    f = tr.frames
    k = s.index["crank0"]
    ph = f.q[:, 3 * k + 2]
    sn = np.sin(ph)
    out = []
    full = rank_analysis(s.phi_q(f.q[0], 0.0)).rank if len(f.t) else 0
    for i in np.flatnonzero(np.sign(sn[1:]) != np.sign(sn[:-1])):
        t0, t1 = f.t[i], f.t[i + 1]
        a0, a1 = ph[i], ph[i + 1]
        target = math.pi * round(((a0 + a1) / 2) / math.pi)
        tc = t0 + (t1 - t0) * (target - a0) / (a1 - a0)
        q_h = _branch_configuration(s, target)
        rk = rank_analysis(s.phi_q(q_h, 0.0)).rank
        j = i if abs(ph[i] - target) < abs(ph[i + 1] - target) else i + 1
        sv = np.linalg.svd(s.phi_q(f.q[j], f.t[j]), compute_uv=False)
        out.append({"t": float(tc), "angle": float(target), "rank": int(rk), "full_rank": int(full),
                    "dof": s.n - int(rk), "sigma_min_frame": float(sv[-1] / sv[0])})
    return out


def _branch_configuration(s, theta: float) -> np.ndarray:
    """Body coordinates of the N four-bar with every crank at angle theta (parallelogram branch)."""
    q = np.zeros(s.n)
    c, sn = math.cos(theta), math.sin(theta)
    for name, k in s.index.items():
        if name.startswith("crank"):
            i = int(name[5:])
            q[3 * k:3 * k + 3] = (i + 0.5 * c, 0.5 * sn, theta)
        elif name.startswith("coupler"):
            i = int(name[7:])
            q[3 * k:3 * k + 3] = (i - 1 + c + 0.5, sn, 0.0)
    return q


def andrews_reference() -> tuple[np.ndarray, np.ndarray]:
    r = models.andrews_data()["published_reference_t_0.03"]
    return (np.array([r[n] for n in ref.ANDREWS_ANGLES]), np.array([r[n + "d"] for n in ref.ANDREWS_ANGLES]))


def measure_andrews_testset(tr: Trajectory) -> Measure:
    f = tr.frames
    if len(f.t) == 0 or abs(f.t[-1] - 0.03) > 1e-12:
        return Measure(math.nan, math.nan)
    rq, rv = andrews_reference()
    a, ad = ref.andrews_angles(f.q[-1], f.v[-1])
    return Measure(float(np.max(np.abs(a - rq) / np.abs(rq))), float(np.max(np.abs(ad - rv) / np.abs(rv))),
                   "error = max relative error of the 7 angles at 0.03 s, error_2 = of their rates")


def andrews_energy_balance(tr: Trajectory) -> np.ndarray:
    """E - E0 - tau (beta - beta0) at every frame [J]."""
    f = tr.frames
    tau = models.andrews_data()["parameters"]["mom"]
    beta = f.q[:, 2]
    E = f.kinetic + f.potential
    return E - E[0] - tau * (beta - beta[0])


def measure_andrews_energy(tr: Trajectory) -> Measure:
    bal = andrews_energy_balance(tr)
    return Measure(float(np.max(np.abs(bal))) if bal.size else math.nan, None,
                   "error = max |E - E0 - tau (beta - beta0)| over 0.05 s [J]")


def measure_stiff(tr: Trajectory) -> Measure:
    f = tr.frames
    r = ref.StiffFourBarReference(models.STIFF_FOURBAR)
    y = r.solve(f.t)
    k = tr.system.index["crank"]
    th, w = f.q[:, 3 * k + 2], f.v[:, 3 * k + 2]
    return Measure(float(np.max(np.abs(th - y[: len(th), 0]))), float(np.max(np.abs(w - y[: len(w), 1]))),
                   "error = max crank-angle error [rad], error_2 = crank-rate error [rad/s]")


# --- the suite ------------------------------------------------------------------------------------------------


def _run(doc: dict[str, Any], label: str, form: str, corr: bool, budget: float, **over: Any
         ) -> tuple[Trajectory, SimulationSettings]:
    model = model_from_data(doc)
    system = compile_model(model)
    settings = SimulationSettings.from_model(model, formulation=form, correction=corr, **over)
    with cpu_budget(budget * 1.05):
        tr = simulate_run(system, settings, cancel=_budget(budget))
    return tr, settings


ALI3P_STEP = 1e-3


def run_ali3p(doc: dict[str, Any], step: float, budget: float) -> tuple[Trajectory, SimulationSettings]:
    """ALI3-P (core.run.ali3p.simulate_ali3p) on a model document."""
    model = model_from_data(doc)
    system = compile_model(model)
    settings = SimulationSettings.from_model(model, rtol=1e-11)  # rtol: the Newton tolerance
    with cpu_budget(budget * 1.05):
        tr = simulate_ali3p(system, settings, step=step, cancel=_budget(budget))
    return tr, settings


def problems(quick: bool = False) -> list[dict[str, Any]]:
    """(name, document, measure, overrides) of each problem; ``quick`` shortens A01 and shrinks A02."""
    N = 4 if quick else models.NFOURBAR["N"]
    return [
        {"problem": "A01 pendulum" + (" (200 s)" if quick else " (2000 s)"),
         "doc": models.pendulum_model(200.0 if quick else models.PENDULUM["t_end"]), "measure": measure_pendulum},
        {"problem": f"A02 N four-bar N={N} (20 s)", "doc": models.nfourbar_model(N, 20.0, "projection"),
         "measure": lambda tr, N=N: measure_nfourbar(tr, N), "rank_log": True},
        {"problem": "A03 Andrews test set (0.03 s)", "doc": models.andrews_model(0.03),
         "measure": measure_andrews_testset},
        {"problem": "A03 Andrews energy (0.05 s)", "doc": models.andrews_model(0.05),
         "measure": measure_andrews_energy},
        {"problem": "stiff four-bar (2 s)", "doc": models.stiff_fourbar_model(), "measure": measure_stiff},
    ]


def run(quick: bool = False, budget: float | None = None, formulations: list[str] | None = None,
        only: list[str] | None = None, **_: Any) -> BenchTable:
    budget = budget if budget is not None else (60.0 if quick else 300.0)
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    for p in problems(quick):
        if only and not any(o.lower() in p["problem"].lower() for o in only):
            continue
        for label, form, corr in FORMULATIONS:
            if formulations and label not in formulations:
                continue
            tr, settings = _run(p["doc"], label, form, corr, budget)
            m = None
            m = p["measure"](tr) if len(tr.frames.t) else None
            rows.append(_row(p["problem"], label, tr, settings, m))
            if p.get("rank_log") and len(tr.frames.t):
                drops = rank_drops(tr)
                if drops:
                    where = ", ".join(f"{d['t']:.3f} s" for d in drops)
                    notes.append(f"{p['problem']}, {label}: rank of Phi_q dropped {len(drops)} times "
                                 f"(from {drops[0]['full_rank']} to {drops[0]['rank']}, DOF 1 -> {drops[0]['dof']}) "
                                 f"at t = {where}; closest approach sigma_min/sigma_max = "
                                 f"{min(d['sigma_min_frame'] for d in drops):.2g}")
            print(f"  {p['problem']} / {label}: {rows[-1]['status']}, cpu {rows[-1]['cpu_s']:.3g} s", flush=True)
        if p.get("rank_log") and (not formulations or "ali3p" in formulations):
            step = ALI3P_STEP
            tr, settings = run_ali3p(p["doc"], step, budget)
            m = p["measure"](tr) if len(tr.frames.t) > 1 else None
            label = f"ALI3-P (trapezoidal, h = {step:g} s)"
            row = _row(p["problem"], label, tr, settings, m)
            row["integrator"] = "trapezoidal (own)"
            row["energy_drift_J"] = float(np.max(np.abs(tr.total - tr.total[0])))
            rows.append(row)
            drops = rank_drops(tr) if len(tr.frames.t) > 1 else []
            if drops:
                where = ", ".join(f"{d['t']:.3f} s" for d in drops)
                notes.append(f"{p['problem']}, ALI3-P: rank of Phi_q dropped {len(drops)} times (from "
                             f"{drops[0]['full_rank']} to {drops[0]['rank']}, DOF 1 -> {drops[0]['dof']}) at t = "
                             f"{where}; closest approach sigma_min/sigma_max = "
                             f"{min(d['sigma_min_frame'] for d in drops):.2g}; Newton iterations accepted "
                             f"unconverged (< 1e-6 m) near them: {tr.stats.get('newton_unconverged', 0)}")
            print(f"  {p['problem']} / {label}: {row['status']}, cpu {row['cpu_s']:.3g} s", flush=True)
        if m is not None and m.notes:
            notes.append(f"{p['problem']}: {m.notes}")
    notes.append("energy_drift_J = max |E - E0 - W| with W the work of the applied torque, dampers and constraint "
                 "forces integrated by the driver; max_violation = max ||Phi|| at the output times before the "
                 "drift correction; cpu_s = process CPU time of the run")
    return BenchTable("IFToMM / MBS benchmark problems", rows, notes)
