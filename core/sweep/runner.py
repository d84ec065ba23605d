"""One run of a sweep, and a batch of runs: what a Dask task executes on a worker (no Dask import here).

A run applies its parameter values to the base model with the public edits (:func:`mechstudio.core.sweep.address.
apply_values`, validated like an editor edit), compiles it and runs it with the sweep's setting overrides (what
:func:`mechstudio.core.simulate.simulate` does) and reduces the result columns to the metrics. It is therefore
exactly the computation of ``mechstudio simulate`` on the modified file saved to disk (same model document, same
settings). A ``cancel`` callable (the sweep was stopped) is asked between output frames and ends the run with
status ``cancelled``.

Runs of a batch share what depends only on the base model and its structure through the worker's
:data:`~mechstudio.core.sweep.cache.RUN_CACHE` (the parsed model, the settings, the structure objects of the compiled
system: :mod:`mechstudio.core.sweep.cache`) unless the spec says ``reuse=False``; the numbers computed are the same.

Nothing raises out of a run: an invalid parameter value gives status ``invalid`` with the model's diagnostics,
a numerical failure the simulation's own status (``failed``, ``singular``, ...) and message, any other
exception status ``error`` with its type and text; the metrics of such runs are NaN.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from mechstudio.core.errors import ModelError
from mechstudio.core.model.document import Model
from mechstudio.core.model.io import loads_model
from mechstudio.core.simulate import SimulationSettings, Trajectory, run, simulate
from mechstudio.core.sweep.address import apply_edits, apply_values
from mechstudio.core.sweep.cache import RUN_CACHE, SweepCache
from mechstudio.core.sweep.metrics import Metric, evaluate
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status

#: how often a task waiting for its worker's warm-up checks whether the sweep was stopped [s]
WARM_WAIT_POLL_S = 0.2
#: in a worker process: the warm-ups of sweeps (by sweep id), each set once its warm-up run has ended
WARM_UPS: dict[str, threading.Event] = {}
#: in a worker process: the sweeps (ids) that have been stopped (core.sweep.execute.stop_here)
STOPPED_SWEEPS: set[str] = set()

#: statuses a sweep row can have besides the simulation's own (core.types.Status values)
STATUS_INVALID = "invalid"
STATUS_ERROR = "error"


@dataclass(frozen=True)
class RunSpec:
    """What every run of a sweep shares: the base model (JSON text), the parameters' JSON pointers and
    column names, the metrics and the simulation setting overrides (None: the file's value); ``reuse``: runs share
    the worker's cache of what depends only on the model's structure (:mod:`mechstudio.core.sweep.cache`; False
    builds everything per run, as the benchmark's baseline does)."""
    model_json: str
    addresses: tuple[str, ...]
    pointers: tuple[str, ...]
    metrics: tuple[Metric, ...]
    overrides: dict[str, Any] = field(default_factory=dict)
    reuse: bool = True

    def model(self) -> Model:
        return loads_model(self.model_json, "<sweep model>")

    def settings(self) -> SimulationSettings:
        return SimulationSettings.from_model(self.model(), **self.overrides)


def row_ok(status: str) -> bool:
    """Whether a row's status is a finished run (its metrics are numbers)."""
    return status in {s.value for s in Status if s.ok}


def param_column(address: str) -> str:
    return f"param.{address}"


def metric_column(label: str) -> str:
    return f"metric.{label}"


def probe_run(model: Model, overrides: dict[str, Any]) -> Trajectory:
    """A run of one output interval: the result columns of the model, and warm compiled kernels."""
    dt = SimulationSettings.from_model(model, **overrides).dt
    return simulate(model, **{**overrides, "t_end": dt})


def run_one(spec: RunSpec, model: Model, number: int, values: Sequence[float],
            cancel: Callable[[], bool] | None = None, shared: SweepCache | None = None) -> dict[str, Any]:
    """The row of run ``number`` with parameter ``values`` (in ``spec.addresses`` order); ``cancel()`` True ends
    the run early (status cancelled). ``shared``: the sweep's cache in this worker (its settings and structure
    objects are reused, and the values applied by :func:`~mechstudio.core.sweep.address.apply_values`), or None:
    everything is built for this run (the values applied by :func:`~mechstudio.core.sweep.address.apply_edits`)."""
    clock = time.perf_counter()
    row = blank_row(spec, number, values)
    metrics: dict[str, float] = {}
    try:
        modified = (apply_values(model, spec.pointers, values, share=True) if shared is not None
                    else apply_edits(model, spec.pointers, values))
        system = compile_model(modified)
        settings = shared.settings if shared is not None else None
        if settings is None:
            settings = SimulationSettings.from_model(modified, **spec.overrides)
        if shared is not None:
            shared.adopt(system)
        traj = run(system, settings, cancel=cancel)
        row["status"], row["message"] = traj.status.value, traj.message
        if traj.status.ok:
            metrics = {metric_column(k): v for k, v in evaluate(spec.metrics, traj.columns()).items()}
    except ModelError as exc:
        row["status"] = STATUS_INVALID
        row["message"] = "; ".join(f"{d.pointer}: {d.message}" for d in exc.diagnostics)
    except Exception as exc:  # a bug or an unforeseen failure must not end the sweep: it is this run's row
        row["status"], row["message"] = STATUS_ERROR, f"{type(exc).__name__}: {exc}"
    row.update(metrics)
    row["wall_s"] = time.perf_counter() - clock
    return row


def run_batch(spec: RunSpec, runs: Sequence[int], values: Sequence[Sequence[float]],
              cancel: Callable[[], bool] | None = None) -> list[dict[str, Any]]:
    """Rows of several runs (one Dask task): the base model is parsed once per worker (the run cache; without
    it, once per batch). Once ``cancel()`` is True the remaining runs are not started (their rows say cancelled)."""
    shared = RUN_CACHE.get(spec.model_json, spec.pointers, spec.overrides) if spec.reuse else None
    model = shared.model if shared is not None else spec.model()
    rows = []
    for r, v in zip(runs, values):
        if cancel is not None and cancel():
            row = blank_row(spec, r, v)
            row.update(status=Status.CANCELLED.value, message="the sweep was stopped before this run")
            rows.append(row)
        else:
            rows.append(run_one(spec, model, r, v, cancel, shared))
    return rows


def warm_kernels(spec: RunSpec) -> None:
    """Load (or compile) the formulation's compiled kernels in this process with one short run."""
    probe_run(spec.model(), spec.overrides)


def start_warm_up(spec: RunSpec, sweep_id: str) -> threading.Event:
    """Warm the kernels of ``spec`` in a daemon thread of this process (it does not hold up the process's exit);
    the event (also in :data:`WARM_UPS`) is set when it has ended, whether the run worked or not (a model that
    cannot run reports it in its rows)."""
    done = WARM_UPS.setdefault(sweep_id, threading.Event())

    def warm() -> None:
        try:
            warm_kernels(spec)
        except Exception:  # warming is an optimisation
            pass
        finally:
            done.set()
    threading.Thread(target=warm, name="mechstudio-warm-kernels", daemon=True).start()
    return done


def run_sweep_batch(spec: RunSpec, runs: Sequence[int], values: Sequence[Sequence[float]],
                    sweep_id: str) -> list[dict[str, Any]]:
    """What a Dask task runs: :func:`run_batch` once this worker's warm-up for the sweep (if any) has ended, its
    runs ending early (status cancelled) once the sweep is stopped (``sweep_id`` in :data:`STOPPED_SWEEPS`)."""
    def stopped() -> bool:
        return sweep_id in STOPPED_SWEEPS
    warming = WARM_UPS.get(sweep_id)
    while warming is not None and not warming.wait(WARM_WAIT_POLL_S) and not stopped():
        pass
    return run_batch(spec, runs, values, cancel=stopped)


def failed_rows(spec: RunSpec, runs: Sequence[int], values: Sequence[Sequence[float]], message: str
                ) -> list[dict[str, Any]]:
    """Rows for runs whose task was lost (a worker died): status ``error`` and the reason."""
    rows = [blank_row(spec, r, v) for r, v in zip(runs, values)]
    for row in rows:
        row.update(status=STATUS_ERROR, message=message)
    return rows


def blank_row(spec: RunSpec, run: int, values: Sequence[float]) -> dict[str, Any]:
    """A row in column order with the run's parameters, no status yet, NaN metrics and NaN wall time."""
    row: dict[str, Any] = {"run": int(run)}
    row.update({param_column(a): float(v) for a, v in zip(spec.addresses, values)})
    row.update(status="", message="")
    row.update({metric_column(m.label): float("nan") for m in spec.metrics})
    row["wall_s"] = float("nan")
    return row
