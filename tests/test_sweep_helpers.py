"""Independent reference for the sweep tests: serial ``simulate`` runs of modified files saved to disk.

For each run the base file is loaded as plain JSON, the value written at the field's place by hand (no
``mechstudio.core.sweep`` code), saved, and simulated with :func:`mechstudio.core.simulate.simulate` from the path -- what a user
doing the sweep by hand with ``mechstudio simulate`` gets. The reducers are written out with numpy here.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from mechstudio.core.simulate import simulate

ROOT = Path(__file__).resolve().parents[1]
FOUR_BAR = ROOT / "sample_models" / "four_bar.json"

REFERENCE_REDUCERS = {
    "max": np.max, "min": np.min, "absmax": lambda x: np.max(np.abs(x)), "mean": np.mean,
    "rms": lambda x: np.sqrt(np.mean(x * x)), "final": lambda x: x[-1],
}


def modified_file(base: Path, values: dict[str, float], folder: Path, tag: str) -> Path:
    """Save a copy of ``base`` with ``{"name.field.path": value}`` written into the named elements."""
    data = json.loads(base.read_text())
    for address, value in values.items():
        name, *path = address.split(".")
        node = next(e for c in ("bodies", "joints", "drivers", "forces") for e in data.get(c, [])
                    if e["name"] == name)
        for key in path[:-1]:
            node = node[int(key)] if isinstance(node, list) else node[key]
        last = path[-1]
        node[int(last) if isinstance(node, list) else last] = value
    out = folder / f"run_{tag}.json"
    out.write_text(json.dumps(data, indent=1))
    return out


def serial_metrics(base: Path, values: dict[str, float], metrics: dict[str, tuple[str, str]], folder: Path,
                   tag: str, **settings: Any) -> tuple[str, dict[str, float]]:
    """(status, {label: value}) of one serial run of the modified file; metrics ``{label: (reducer, column)}``."""
    traj = simulate(str(modified_file(base, values, folder, tag)), **settings)
    if not traj.status.ok:
        return traj.status.value, {}
    cols = traj.columns()
    return traj.status.value, {label: float(REFERENCE_REDUCERS[red](np.asarray(cols[col])))
                               for label, (red, col) in metrics.items()}


def assert_rows_match_serial(frame: Any, base: Path, metrics: dict[str, tuple[str, str]], folder: Path,
                             tol: float = 1e-12, **settings: Any) -> int:
    """Every finished row of a sweep equals its serial run to ``tol`` (relative, with an absolute floor of
    tol times the metric's scale); returns the number of rows compared."""
    params = [c for c in frame.columns if c.startswith("param.")]
    compared = 0
    for _, row in frame.iterrows():
        values = {c[len("param."):]: float(row[c]) for c in params}
        status, expected = serial_metrics(base, values, metrics, folder, str(int(row["run"])), **settings)
        assert row["status"] == status, (row["run"], row["status"], status)
        if status != "finished":
            continue
        for label, value in expected.items():
            got = float(row[f"metric.{label}"])
            assert abs(got - value) <= tol * max(abs(value), 1.0), (row["run"], label, got, value)
        compared += 1
    return compared
