"""Metrics of a sweep: ``LABEL=REDUCER(COLUMN)`` reduces one result column of a run to one number.

COLUMN is any column of the run's results as written to CSV (``Trajectory.columns()``, docs/results-csv.md),
e.g. ``reaction.O.Fy`` or ``q.crank.phi``. Over the output samples x_0 .. x_K (t_k = k dt, uniform):

* ``max`` = max_k x_k, ``min`` = min_k x_k, ``absmax`` = max_k |x_k|;
* ``mean`` = (1/(K+1)) sum_k x_k (the sample mean of the uniformly spaced outputs);
* ``rms`` = sqrt((1/(K+1)) sum_k x_k^2);
* ``final`` = x_K, the value at the last output.

A run that did not finish (failed, invalid) has NaN metrics; its status and message say why.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

import numpy as np

from mechstudio.core.sweep.design import SpecError

REDUCERS: dict[str, Callable[[np.ndarray], float]] = {
    "max": lambda x: float(np.max(x)),
    "min": lambda x: float(np.min(x)),
    "absmax": lambda x: float(np.max(np.abs(x))),
    "mean": lambda x: float(np.mean(x)),
    "rms": lambda x: float(np.sqrt(np.mean(np.square(x)))),
    "final": lambda x: float(x[-1]),
}

_METRIC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_.\-]*)\s*=\s*([A-Za-z]+)\s*\(\s*([^()\s]+)\s*\)\s*\Z")


@dataclass(frozen=True)
class Metric:
    """``label`` = ``reducer``(``column``)."""
    label: str
    reducer: str
    column: str

    def text(self) -> str:
        return f"{self.label}={self.reducer}({self.column})"

    def to_dict(self) -> dict:
        return {"label": self.label, "reducer": self.reducer, "column": self.column}


def parse_metric(text: str) -> Metric:
    """Parse ``LABEL=REDUCER(COLUMN)``; the column is checked against the model later."""
    m = _METRIC.match(text)
    if not m:
        raise SpecError(f"--metric {text}: write LABEL=REDUCER(COLUMN), e.g. peak=absmax(reaction.O.Fy)")
    label, reducer, column = m.groups()
    if reducer not in REDUCERS:
        raise SpecError(f"--metric {text}: unknown reducer {reducer!r}; reducers: {', '.join(REDUCERS)}")
    return Metric(label, reducer, column)


def check_metrics(metrics: Iterable[Metric], columns: Iterable[str]) -> None:
    """Refuse duplicate labels and columns the model's results do not have (listing the valid columns)."""
    available = list(columns)
    seen: set[str] = set()
    for m in metrics:
        if m.label in seen:
            raise SpecError(f"--metric {m.text()}: the label {m.label!r} is used twice")
        seen.add(m.label)
        if m.column not in available:
            raise SpecError(f"--metric {m.text()}: the results have no column {m.column!r}; columns: "
                            f"{', '.join(available)}")


def evaluate(metrics: Iterable[Metric], columns: Mapping[str, np.ndarray]) -> dict[str, float]:
    """``{label: value}`` of every metric over the run's result columns (NaN for an empty column)."""
    out = {}
    for m in metrics:
        x = np.asarray(columns[m.column], dtype=float)
        out[m.label] = REDUCERS[m.reducer](x) if x.size else float("nan")
    return out
