"""Writing result tables (CSV) atomically, with the documented column names (docs/results-csv.md)."""
from __future__ import annotations

import io
import os
from typing import Iterator, Mapping

import numpy as np

from mechstudio.core.host.files import atomic_write_chunks
from mechstudio.core.types import FloatArray

#: rows formatted per chunk of CSV text (a chunk of 20 columns is ~1 MB: bounded memory for long runs)
CSV_CHUNK_ROWS = 2000


def csv_chunks(columns: Mapping[str, FloatArray], rows_per_chunk: int = CSV_CHUNK_ROWS) -> Iterator[str]:
    """CSV text of equally long columns in pieces: the header line, then blocks of ``rows_per_chunk`` rows, full
    double precision (repr-exact, %.17g). Joined, the pieces are :func:`columns_to_csv`."""
    names = list(columns)
    yield ",".join(names) + "\n"
    if not names:
        return
    arrays = [np.asarray(columns[k], float) for k in names]
    n = len(arrays[0])
    for start in range(0, n, rows_per_chunk):
        block = np.column_stack([a[start:start + rows_per_chunk] for a in arrays])
        buf = io.StringIO()
        np.savetxt(buf, block, delimiter=",", fmt="%.17g")
        yield buf.getvalue()


def columns_to_csv(columns: Mapping[str, FloatArray]) -> str:
    """CSV text of equally long columns, header first, full double precision (repr-exact, %.17g)."""
    return "".join(csv_chunks(columns))


def write_csv(path: str | os.PathLike[str], columns: Mapping[str, FloatArray]) -> None:
    """Write the CSV of ``columns`` to ``path`` atomically, piece by piece (OSError names ``path``)."""
    atomic_write_chunks(path, csv_chunks(columns))


def read_csv(path: str | os.PathLike[str]) -> dict[str, FloatArray]:
    with open(path, encoding="utf-8") as fh:
        names = fh.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {k: data[:, i] for i, k in enumerate(names)}
