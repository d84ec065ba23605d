"""Benchmark suite "spatial": the spatial-joint samples in maximal coordinates (docs/spatial-joints.md).

For each sample (``cardan_shaft``, ``rssr_linkage``, ``collar_pendulum``), one full run of the application's
driver (:func:`mechstudio.core.simulate.run`) with the file's own settings (projection, DOP853 at rtol 1e-10, atol
1e-12, outputs every 0.01 s with drift correction, reactions, energies and joint coordinates), on the **numpy
path** (``kernels="numpy"``: what a user opening the sample gets, since a run of a few seconds starts there and
never pays for the compiled kernels, ``mechstudio.core.run.kernels``), assembly excluded. Columns:

* ``cpu_s``: process CPU of the run (``time.process_time``; the machine is shared, so CPU time is the fair
  measure), best of ``repeats`` runs; ``cpu_per_sim_s`` = cpu_s / simulated seconds (lower is better; < 1 is
  faster than real time), ``rtf`` its inverse;
* ``rhs``: right-hand-side evaluations, ``us_per_rhs`` = cpu_s / rhs (everything the run does included);
* ``rows_us``: one evaluation of every joint row's value, Jacobian, rate and bias at a state of the run
  (:meth:`~mechstudio.core.elements.primitives.spatial_rows.RowBatch.scalars`, its cache cleared), and
  ``reference_rows_us`` the same by the one-joint-at-a-time reference
  (:func:`~mechstudio.core.elements.primitives.spatial_rows.evaluate`, the evaluation the system used before the
  batched one); ``reference_over_batched`` their ratio, measured in this process, interleaved, best of 5 rounds;
  with numba, ``kernel_rows_us`` the same by the compiled kernel (``spatial_rows_kernels``), which runs on the
  compiled path of long runs.
"""
from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from mechstudio.core.bench import BenchTable, machine_description
from mechstudio.core.elements.primitives import spatial_rows_kernels
from mechstudio.core.elements.primitives.spatial_rows import GROUND_STATE, BodyState, Pair, RowBatch, evaluate
from mechstudio.core.jit import kernel_policy
from mechstudio.core.model.io import load_model
from mechstudio.core.run.blas import single_threaded_blas
from mechstudio.core.simulate import SimulationSettings, initial_state
from mechstudio.core.simulate import run as run_model
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import FloatArray

SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"
CASES = ("cardan_shaft", "rssr_linkage", "collar_pendulum")
QUICK_T_END = 0.5  # [s] simulated by --quick runs


def reference_rows(batch: RowBatch, q: FloatArray, v: FloatArray) -> list[Any]:
    """Every term of ``batch`` by the one-joint-at-a-time reference (Pair: one world vector at a time)."""
    def state(k: int) -> BodyState:
        if k < 0:
            return GROUND_STATE
        return BodyState(q[7 * k:7 * k + 3], q[7 * k + 3:7 * k + 7], v[7 * k:7 * k + 3], v[7 * k + 3:7 * k + 7], True)
    pairs = {jn: Pair(geo, state(i), state(j)) for jn, (geo, i, j) in enumerate(batch.joints)}
    return [evaluate(eq, pairs[jn]) for jn, eq in batch.terms]


def rows_timing(batch: RowBatch, q: FloatArray, v: FloatArray, rounds: int = 5) -> tuple[float, float, float]:
    """(batched numpy, reference, compiled kernel (nan without numba)) CPU microseconds of one evaluation of every
    term at (q, v), best of ``rounds`` interleaved rounds."""
    def batched() -> None:
        batch.clear_cache()  # the kept state would make it free
        with kernel_policy("numpy"):
            batch.scalars(q, v)

    compiled = spatial_rows_kernels.kernel()

    def kernel() -> None:
        batch.clear_cache()
        batch.compiled_scalars(compiled, q, v)

    cases = [batched, lambda: reference_rows(batch, q, v)] + ([kernel] if compiled is not None else [])
    best = [math.inf, math.inf, math.nan if compiled is None else math.inf]
    for _ in range(rounds):
        for k, f in enumerate(cases):
            n = 0
            c0 = time.process_time()
            while True:
                f()
                n += 1
                dt = time.process_time() - c0
                if dt > 0.05:
                    break
            best[k] = min(best[k], 1e6 * dt / n)
    return best[0], best[1], best[2]


def sample_row(name: str, repeats: int, t_end: float | None = None) -> dict[str, Any]:
    """The table row of sample ``name`` (module docstring)."""
    model = load_model(SAMPLES / f"{name}.json")
    system = compile_model(model)
    init = initial_state(system)
    over = {} if t_end is None else {"t_end": t_end}
    settings = SimulationSettings.from_model(model, kernels="numpy", **over)
    row: dict[str, Any] = {"sample": name, "bodies": len(model.bodies), "joints": len(model.joints),
                           "n": system.n, "m": system.m, "t_end": settings.t_end}
    if not init.status.ok:
        row["status"] = f"assembly failed: {init.message}"
        return row
    best = None
    for _ in range(max(1, repeats)):
        c0 = time.process_time()
        traj = run_model(system, settings, q0=init.q, v0=init.v)
        cpu = time.process_time() - c0
        if best is None or cpu < best[0]:
            best = (cpu, traj)
    assert best is not None
    cpu, traj = best
    sim = float(traj.stats.get("simulated_seconds", settings.t_end))
    rhs = int(traj.stats.get("rhs_evaluations", 0))
    row.update(cpu_s=cpu, cpu_per_sim_s=cpu / sim if sim > 0 else math.inf, rtf=sim / cpu if cpu > 0 else math.inf,
               rhs=rhs, us_per_rhs=1e6 * cpu / rhs if rhs else math.nan, status=traj.status.value)
    batch = getattr(system, "rows", None)
    if isinstance(batch, RowBatch):
        frames = traj.frames
        mid = len(frames.q) // 2
        q, v = np.asarray(frames.q[mid], float), np.asarray(frames.v[mid], float)
        fast, slow, kernel = rows_timing(batch, q, v)
        row.update(rows_us=fast, reference_rows_us=slow, reference_over_batched=slow / fast)
        if not math.isnan(kernel):
            row.update(kernel_rows_us=kernel)
    return row


def run(quick: bool = False, repeats: int | None = None) -> BenchTable:
    """The "spatial" table (module docstring); ``quick``: runs of QUICK_T_END s, one repeat."""
    reps = repeats if repeats is not None else (1 if quick else 3)
    with single_threaded_blas():
        sample_row(CASES[0], repeats=1, t_end=0.02)  # imports and first-call set-up outside the timings
        rows = [sample_row(name, reps, QUICK_T_END if quick else None) for name in CASES]
    notes = [machine_description(),
             f"numpy path (kernels='numpy'), each sample with its own file's settings"
             f"{f' but t_end {QUICK_T_END} s' if quick else ''}; cpu_s: process CPU, best of {reps} runs; "
             "rows_us / reference_rows_us (/ kernel_rows_us): every joint row (value, Jacobian, rate, bias) batched "
             "by numpy / one joint at a time (/ by the compiled kernel), interleaved in this process"]
    return BenchTable("spatial: spatial-joint samples in maximal coordinates (numpy path)", rows, notes)


if __name__ == "__main__":  # pragma: no cover
    print(run().to_markdown())
