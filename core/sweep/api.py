"""The sweep as a whole: check everything before a run starts (:func:`prepare`), then run it (:func:`run_plan`,
used by the command line and the editor) or both at once from Python (:func:`sweep`).

Everything that can be checked up front is, before any worker starts: every ``NAME.FIELD`` address (the
valid names or fields are listed otherwise), the simulation settings, and every metric's column (against the
columns of a one-interval run of the base model).
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import pandas as pd

from mechstudio.core.errors import UnknownNameError
from mechstudio.core.model.document import Model
from mechstudio.core.model.io import load_model
from mechstudio.core.simulate import SimulationSettings
from mechstudio.core.sweep.address import resolve
from mechstudio.core.sweep.design import SpecError
from mechstudio.core.sweep.execute import Outcome, connect, dashboard_link, execute
from mechstudio.core.sweep.metrics import Metric, check_metrics, parse_metric
from mechstudio.core.sweep.runner import RunSpec, probe_run
from mechstudio.core.sweep.store import SweepStore, program_version, row_schema

Progress = Callable[[int, int], None]  # (runs done, runs in total)


@dataclass
class Plan:
    """A checked sweep: the shared run description, the parameter table (one row per run, run = row number)
    and the metadata written into the result file."""
    spec: RunSpec
    params: pd.DataFrame
    meta: dict[str, Any]

    @property
    def n_runs(self) -> int:
        return len(self.params)

    def schema(self) -> Any:
        return row_schema(self.spec.addresses, [m.label for m in self.spec.metrics], self.meta)


def as_model(model: Model | str | os.PathLike[str]) -> Model:
    return model if isinstance(model, Model) else load_model(model)


def as_metrics(metrics: Iterable[str | Metric] | Mapping[str, str]) -> tuple[Metric, ...]:
    """Metrics from ``["peak=absmax(reaction.O.Fy)", ...]``, Metric objects or ``{"peak": "absmax(...)"}``."""
    if isinstance(metrics, Mapping):
        metrics = [f"{label}={expr}" for label, expr in metrics.items()]
    out = tuple(m if isinstance(m, Metric) else parse_metric(str(m)) for m in metrics)
    if not out:
        raise SpecError("give at least one --metric LABEL=REDUCER(COLUMN)")
    return out


def as_overrides(settings: SimulationSettings | Mapping[str, Any] | None) -> dict[str, Any]:
    """Setting overrides: all fields of a SimulationSettings, or the given keys (None values dropped)."""
    if settings is None:
        return {}
    if isinstance(settings, SimulationSettings):
        return dataclasses.asdict(settings)
    known = set(SimulationSettings.__dataclass_fields__)
    unknown = sorted(set(settings) - known)
    if unknown:
        raise SpecError(f"unknown simulation setting(s) {', '.join(unknown)}; settings: {', '.join(sorted(known))}")
    return {k: v for k, v in settings.items() if v is not None}


def as_table(params: pd.DataFrame | Mapping[str, Any]) -> pd.DataFrame:
    table = params.copy() if isinstance(params, pd.DataFrame) else pd.DataFrame(dict(params))
    if table.empty or len(table.columns) == 0:
        raise SpecError("the parameter table has no runs")
    try:
        table = table.astype(float).reset_index(drop=True)
    except (TypeError, ValueError) as exc:
        raise SpecError(f"parameter values must be numbers: {exc}") from None
    if not np.isfinite(table.to_numpy()).all():
        raise SpecError("parameter values must be finite numbers")
    table.columns = [str(c) for c in table.columns]
    return table


def table_digest(table: pd.DataFrame) -> str:
    h = hashlib.sha256("\x1f".join(table.columns).encode())
    h.update(np.ascontiguousarray(table.to_numpy(dtype=float)).tobytes())
    return h.hexdigest()


def prepare(model: Model | str | os.PathLike[str], params: pd.DataFrame | Mapping[str, Any],
            metrics: Iterable[str | Metric] | Mapping[str, str],
            settings: SimulationSettings | Mapping[str, Any] | None = None,
            design: Mapping[str, Any] | None = None) -> Plan:
    """Check the sweep and build its :class:`Plan`; raise SpecError/AddressError (ValueError) saying what is
    wrong. ``design`` (how the table was made) is only recorded in the metadata."""
    model = as_model(model)
    table = as_table(params)
    addresses = [resolve(model, a, probe=float(table[a].iloc[0])) for a in table.columns]
    overrides = as_overrides(settings)
    try:
        resolved = SimulationSettings.from_model(model, **overrides)
        resolved.validate()
    except UnknownNameError as exc:
        raise SpecError(str(exc)) from None
    except (TypeError, ValueError) as exc:
        raise SpecError(f"simulation settings: {exc}") from None
    metric_list = as_metrics(metrics)
    check_metrics(metric_list, probe_run(model, overrides).columns())
    spec = RunSpec(model.to_json(), tuple(table.columns), tuple(a.pointer for a in addresses), metric_list,
                   overrides)
    meta = {"model": model.data, "settings": dataclasses.asdict(resolved),
            "sweep": {"parameters": list(table.columns), "pointers": list(spec.pointers),
                      "design": dict(design) if design else {"design": "table"}, "runs": len(table),
                      "params_sha256": table_digest(table), "metrics": [m.text() for m in metric_list],
                      "source": model.source},
            "version": program_version()}
    return Plan(spec, table, meta)


def run_plan(plan: Plan, *, client: Any = None, out: str | os.PathLike[str] | None = None, resume: bool = False,
             workers: int | None = None, scheduler: str | None = None, scheduler_file: str | None = None,
             batch_size: int | None = None, progress: Progress | None = None,
             cancel: Callable[[], bool] | None = None,
             sink: Callable[[list[dict[str, Any]]], None] | None = None, warm: bool = True,
             on_dashboard: Callable[[str | None], None] | None = None) -> Outcome:
    """Run the plan's runs (those not already in ``out`` when resuming); rows are written to ``out`` (Parquet,
    see :mod:`mechstudio.core.sweep.store`) and/or passed to ``sink``. ``progress(done, total)`` after every task.
    ``warm=False``: the workers' kernels are already warm (no warm-up plugin is registered).
    ``on_dashboard(link)``: called once the cluster is up with the address of its Dask dashboard, or None when it
    has none (:func:`mechstudio.core.sweep.execute.dashboard_link`; ``DASHBOARD_HINT`` says how to get one).

    Raises :class:`~mechstudio.core.sweep.execute.ClusterError` when the cluster cannot be started or reached and
    OSError naming ``out`` when the result file cannot be written."""
    if resume and out is None:
        raise SpecError("--resume needs the --out file to resume")
    store = SweepStore(out, plan.schema(), resume=resume) if out is not None else None
    try:
        done_before = store.done_runs() if store is not None else set()
        left = np.ones(plan.n_runs, dtype=bool)
        done = np.fromiter(done_before, dtype=np.int64, count=len(done_before))
        left[done[(done >= 0) & (done < plan.n_runs)]] = False
        todo = np.flatnonzero(left)  # run numbers as one int64 array (a design may have millions of runs)
        values = plan.params.to_numpy(dtype=float)[todo]
        count = [len(done_before)]
        if progress is not None:
            progress(count[0], plan.n_runs)

        def deliver(rows: list[dict[str, Any]]) -> None:
            if store is not None:
                store.write(rows)
            if sink is not None:
                sink(rows)
            count[0] += len(rows)
            if progress is not None:
                progress(count[0], plan.n_runs)

        if not len(todo):
            return Outcome()
        with (contextlib.nullcontext(client) if client is not None
              else connect(workers, scheduler, scheduler_file)) as c:
            if on_dashboard is not None:
                on_dashboard(dashboard_link(c))
            return execute(c, plan.spec, todo, values, deliver, batch_size=batch_size, cancel=cancel, warm=warm)
    finally:
        if store is not None:
            store.close()


def sweep(model: Model | str | os.PathLike[str], params: pd.DataFrame | Mapping[str, Any],
          metrics: Iterable[str | Metric] | Mapping[str, str],
          settings: SimulationSettings | Mapping[str, Any] | None = None, client: Any = None, *,
          out: str | os.PathLike[str] | None = None, resume: bool = False, workers: int | None = None,
          batch_size: int | None = None, progress: Progress | None = None) -> pd.DataFrame:
    """Run ``model`` once per row of ``params`` and return one row per run, sorted by run.

    ``params``: a DataFrame (or dict of equal-length arrays) whose columns are ``NAME.FIELD`` addresses;
    ``metrics``: ``["peak=absmax(reaction.O.Fy)", ...]``; ``settings``: setting overrides (``{"t_end": 1}``)
    or a SimulationSettings; ``client``: a ``distributed.Client`` (default: a LocalCluster of ``workers``
    processes, or the cluster of $DASK_SCHEDULER_ADDRESS). With ``out`` the rows are also streamed to that
    Parquet file (``resume`` continues it). Columns as in the file: run, param.*, status, message, metric.*,
    wall_s.
    """
    plan = prepare(model, params, metrics, settings)
    collected: list[dict[str, Any]] = []
    run_plan(plan, client=client, out=out, resume=resume, workers=workers, batch_size=batch_size,
             progress=progress, sink=None if out is not None else collected.extend)
    if out is not None:
        frame = pd.read_parquet(Path(out))
    else:
        frame = pd.DataFrame(collected, columns=list(plan.schema().names))
    return frame.sort_values("run").reset_index(drop=True)
