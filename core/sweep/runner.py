"""One run of a sweep, and a batch of runs: what a Dask task executes on a worker (no Dask import here).

A run applies its parameter values to the base model with the public edits (:func:`mechstudio.core.sweep.address.
apply_values`, validated like an editor edit), runs :func:`mechstudio.core.simulate.simulate` with the sweep's setting
overrides and reduces the result columns to the metrics. It is therefore exactly the computation of
``mechstudio simulate`` on the modified file saved to disk (same model document, same settings).

Nothing raises out of a run: an invalid parameter value gives status ``invalid`` with the model's diagnostics,
a numerical failure the simulation's own status (``failed``, ``singular``, ...) and message, any other
exception status ``error`` with its type and text; the metrics of such runs are NaN.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from mechstudio.core.errors import ModelError
from mechstudio.core.model.document import Model
from mechstudio.core.model.io import loads_model
from mechstudio.core.simulate import SimulationSettings, Trajectory, simulate
from mechstudio.core.sweep.address import apply_values
from mechstudio.core.sweep.metrics import Metric, evaluate
from mechstudio.core.types import Status

#: statuses a sweep row can have besides the simulation's own (core.types.Status values)
STATUS_INVALID = "invalid"
STATUS_ERROR = "error"


@dataclass(frozen=True)
class RunSpec:
    """What every run of a sweep shares: the base model (JSON text), the parameters' JSON pointers and
    column names, the metrics and the simulation setting overrides (None: the file's value)."""
    model_json: str
    addresses: tuple[str, ...]
    pointers: tuple[str, ...]
    metrics: tuple[Metric, ...]
    overrides: dict[str, Any] = field(default_factory=dict)

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


def run_one(spec: RunSpec, model: Model, run: int, values: Sequence[float]) -> dict[str, Any]:
    """The row of run ``run`` with parameter ``values`` (in ``spec.addresses`` order)."""
    clock = time.perf_counter()
    row = blank_row(spec, run, values)
    metrics: dict[str, float] = {}
    try:
        modified = apply_values(model, spec.pointers, values)
        traj = simulate(modified, **spec.overrides)
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


def run_batch(spec: RunSpec, runs: Sequence[int], values: Sequence[Sequence[float]]) -> list[dict[str, Any]]:
    """Rows of several runs (one Dask task): the base model is parsed once per batch."""
    model = spec.model()
    return [run_one(spec, model, r, v) for r, v in zip(runs, values)]


def warm_kernels(spec: RunSpec) -> None:
    """Load (or compile) the formulation's compiled kernels in this process with one short run."""
    probe_run(spec.model(), spec.overrides)


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
