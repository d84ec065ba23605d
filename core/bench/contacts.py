"""Benchmark suite "contacts": CPU time of the event-driven runs of the sample models with contacts and joint
friction (docs/contact.md).

Each sample (``CASES``) runs with its own file's settings (formulation, integrator, tolerances, dt, t_end; a
``--quick`` run stops at ``QUICK_T_END``) through the application's driver (:func:`mechstudio.core.simulate.run`:
outputs with reactions, energies, contact columns and the events), assembly excluded. Columns:

* ``cpu_s``: CPU time of the process for the run (``time.process_time``; the machine is shared), best of
  ``repeats`` runs; ``wall_s`` the wall time of that run; ``ms_per_frame`` = cpu_s per output frame;
* ``rtf`` = simulated seconds / cpu_s; ``rhs`` right-hand sides, ``steps`` accepted integrator steps, ``events``
  the contact events (impacts, lift-offs, slips, stops, ...);
* ``balance_drift``: max |(E - W) - (E0 - W0)| / max(|T|, |V|, 1 J) over the outputs (W includes the impacts'
  losses and the friction's work, so it stays flat across events: docs/contact.md, "Energy").

Kernels: the mode systems run on the numpy path of their formulation (docs/contact.md, "Kernels"), so the numbers
do not depend on numba.
"""
from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

from mechstudio.core.bench import BenchTable, machine_description
from mechstudio.core.bench.speed import balance_drift, best_run
from mechstudio.core.model.io import load_model
from mechstudio.core.simulate import SimulationSettings, initial_state
from mechstudio.core.simulate import run as run_model
from mechstudio.core.systems.compile import compile_model

SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"
#: the samples timed: contacts that let go, friction at contacts, joint friction
CASES = ("cam_follower_jump", "slider_crank_joint_friction", "block_on_tilting_incline",
         "scotch_yoke_joint_friction", "bouncing_ball", "disk_rolls_then_slips", "contact_pair")
#: simulated seconds of a ``--quick`` run (at most)
QUICK_T_END = 0.5


def contact_row(name: str, repeats: int = 3, t_end: float | None = None) -> dict[str, Any]:
    """Time sample ``name`` (best CPU time of ``repeats`` runs) and return its table row."""
    model = load_model(SAMPLES / f"{name}.json")
    overrides = {} if t_end is None else {"t_end": min(t_end, float(model.data.get("simulation", {}).get(
        "t_end", t_end)))}
    settings = SimulationSettings.from_model(model, **overrides)
    system = compile_model(model)
    init = initial_state(system)
    row: dict[str, Any] = {"case": name, "formulation": settings.formulation, "integrator": settings.integrator,
                           "rtol": settings.rtol, "dt": settings.dt, "t_end": settings.t_end}
    if not init.status.ok:
        row["status"] = f"assembly failed: {init.message}"
        return row
    cpu, wall, traj = best_run(system, settings, init, repeats)
    st = traj.stats
    sim = float(st.get("simulated_seconds", settings.t_end))
    frames = len(traj.frames.t)
    row.update(cpu_s=cpu, wall_s=wall, ms_per_frame=1e3 * cpu / max(frames, 1),
               rtf=sim / cpu if cpu > 0 else math.inf, rhs=int(st.get("rhs_evaluations", 0)),
               steps=int(st.get("steps", 0)), events=len(st.get("events", [])),
               balance_drift=balance_drift(traj.frames), status=traj.status.value)
    return row


def run(quick: bool = False, repeats: int | None = None) -> BenchTable:
    """The "contacts" table (see module docstring); ``quick``: runs of at most QUICK_T_END s, one repeat."""
    reps = repeats if repeats is not None else (1 if quick else 3)
    contact_row(CASES[0], repeats=1, t_end=0.01)  # imports and first-call set-up outside the timings
    rows = [contact_row(name, repeats=reps, t_end=QUICK_T_END if quick else None) for name in CASES]
    notes = [machine_description(),
             f"cpu_s: process CPU, best of {reps} runs, each sample with its own file's settings; the mode systems "
             "run on the numpy path (docs/contact.md, Kernels)"]
    return BenchTable("contacts: event-driven runs", rows, notes)


if __name__ == "__main__":  # pragma: no cover
    print(run().to_markdown())
