"""Writing result tables (CSV) atomically, with the documented column names (docs/results-csv.md)."""
from __future__ import annotations

import io
import os
from typing import Mapping

import numpy as np

from mechstudio.core.model.io import atomic_write_text
from mechstudio.core.types import FloatArray


def columns_to_csv(columns: Mapping[str, FloatArray]) -> str:
    """CSV text of equally long columns, header first, full double precision (repr-exact, %.17g)."""
    names = list(columns)
    data = np.column_stack([np.asarray(columns[k], float) for k in names]) if names else np.zeros((0, 0))
    buf = io.StringIO()
    buf.write(",".join(names) + "\n")
    np.savetxt(buf, data, delimiter=",", fmt="%.17g")
    return buf.getvalue()


def write_csv(path: str | os.PathLike[str], columns: Mapping[str, FloatArray]) -> None:
    atomic_write_text(path, columns_to_csv(columns))


def read_csv(path: str | os.PathLike[str]) -> dict[str, FloatArray]:
    with open(path, encoding="utf-8") as fh:
        names = fh.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {k: data[:, i] for i, k in enumerate(names)}
