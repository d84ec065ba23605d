"""The sweep's result file: Parquet rows streamed to disk as runs finish, with the sweep's description.

Layout while a sweep runs (``OUT`` = the ``--out`` file):

* ``OUT.parts/part-NNNNNN.parquet``: complete small Parquet files of finished rows, written every
  ``flush_rows`` rows or ``flush_seconds`` seconds (each atomically: a temporary file, then a rename). A
  killed sweep thus loses at most the last unflushed rows; the driver never holds more than one buffer.
* at the end (also after Ctrl+C or a cancel) the parts -- and, on ``--resume``, the rows already in ``OUT`` --
  are copied batch by batch (``merge_rows`` rows at a time) into a hidden temporary file beside ``OUT``
  (:mod:`mechstudio.core.host.files` naming: a later sweep into that folder removes one a killed sweep left behind)
  that replaces the old ``OUT`` atomically; the parts folder is then removed.

A file that cannot be written or read raises OSError naming ``OUT`` (``error: OUT: Permission denied``), whichever
file of the layout failed.

``--resume`` reads the run numbers already in ``OUT`` and in the parts folder, and the sweep skips them. It is
refused when the file describes a different sweep (model, settings, parameters, design or metrics).

Columns: ``run`` (int64), ``param.<NAME.FIELD>`` (float64, one each), ``status``, ``message`` (strings),
``metric.<LABEL>`` (float64), ``wall_s`` (float64, the run's wall time on its worker [s]). Rows appear in the
order the runs finished. File metadata (Parquet key-value, UTF-8 JSON): ``mechstudio.model`` (the base model
document), ``mechstudio.settings`` (the resolved simulation settings), ``mechstudio.sweep`` (parameters,
design, metrics, run count and a SHA-256 of the parameter table), ``mechstudio.version`` (program version).
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from mechstudio import __version__
from mechstudio.core.host.files import naming_target, remove_stale_temporaries, temporary_path
from mechstudio.core.sweep.design import SpecError

META_KEYS = ("model", "settings", "sweep", "version")
PREFIX = "mechstudio."


def program_version() -> str:
    """The release of this code (``mechstudio.__version__``), recorded in a sweep's metadata."""
    return __version__


def row_schema(addresses: Iterable[str], labels: Iterable[str], meta: dict[str, Any] | None = None) -> pa.Schema:
    """The Arrow schema of the rows (column order as documented) with the sweep's metadata."""
    fields = [pa.field("run", pa.int64())]
    fields += [pa.field(f"param.{a}", pa.float64()) for a in addresses]
    fields += [pa.field("status", pa.string()), pa.field("message", pa.string())]
    fields += [pa.field(f"metric.{label}", pa.float64()) for label in labels]
    fields += [pa.field("wall_s", pa.float64())]
    encoded = {f"{PREFIX}{k}": json.dumps(v, sort_keys=True) for k, v in (meta or {}).items()}
    return pa.schema(fields, metadata=encoded or None)


def read_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The sweep metadata of a result (or part) file: ``{"model": ..., "settings": ..., ...}``."""
    raw = pq.read_schema(path).metadata or {}
    out = {}
    for key, value in raw.items():
        k = key.decode()
        if k.startswith(PREFIX):
            out[k[len(PREFIX):]] = json.loads(value.decode())
    return out


def _parquet_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("part-*.parquet")) if folder.is_dir() else []


class SweepStore:
    """Streams rows of one sweep to ``path`` (see the module docstring); use as a context manager or call
    :meth:`close` -- which merges everything written into ``path`` -- in a ``finally``."""

    def __init__(self, path: str | os.PathLike[str], schema: pa.Schema, *, resume: bool = False,
                 flush_rows: int = 2000, flush_seconds: float = 20.0, merge_rows: int = 10000):
        self.path = Path(path)
        self.parts = self.path.with_name(self.path.name + ".parts")
        self.schema = schema
        self.resume = resume
        self.flush_rows, self.flush_seconds, self.merge_rows = flush_rows, flush_seconds, merge_rows
        self._buffer: list[dict[str, Any]] = []
        self._last_flush = time.monotonic()
        self._closed = False
        if self.path.is_dir():
            raise SpecError(f"--out {self.path} is a folder, not a file")
        try:
            remove_stale_temporaries(self.path.parent, self.path.name)
            for stale in self.parts.glob(".tmp-*") if self.parts.is_dir() else []:
                stale.unlink()
            if resume:
                self._check_compatible()
            else:
                shutil.rmtree(self.parts, ignore_errors=True)
                if self.path.exists():
                    self.path.unlink()
            self.parts.mkdir(parents=True, exist_ok=True)
            self._seq = len(_parquet_files(self.parts))
        except OSError as exc:
            raise naming_target(exc, self.path) from None

    # ---- resume ---------------------------------------------------------------------------------------------
    def _sources(self) -> list[Path]:
        """Files holding rows already written: the merged file (when resuming) and the parts."""
        return ([self.path] if self.path.exists() else []) + _parquet_files(self.parts)

    def _check_compatible(self) -> None:
        mine = {k.decode(): json.loads(v.decode()) for k, v in (self.schema.metadata or {}).items()}
        for src in self._sources():
            try:
                theirs = {PREFIX + k: v for k, v in read_metadata(src).items()}
            except (pa.ArrowException, OSError, ValueError) as exc:
                raise SpecError(f"--resume: cannot read {src}: {exc}") from None
            differ = [k[len(PREFIX):] for k in (PREFIX + "model", PREFIX + "settings", PREFIX + "sweep")
                      if theirs.get(k) != mine.get(k)]
            if differ:
                raise SpecError(f"--resume: {src} holds a different sweep (its {', '.join(differ)} differ); "
                                f"write to another --out file or leave out --resume")

    def done_runs(self) -> set[int]:
        """Run numbers already on disk (in the file and the parts)."""
        done: set[int] = set()
        for src in self._sources():
            for batch in pq.ParquetFile(src).iter_batches(columns=["run"], batch_size=self.merge_rows):
                done.update(batch.column(0).to_pylist())
        return done

    # ---- writing --------------------------------------------------------------------------------------------
    def write(self, rows: Iterable[dict[str, Any]]) -> None:
        self._buffer.extend(rows)
        if len(self._buffer) >= self.flush_rows or time.monotonic() - self._last_flush >= self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        """Write the buffered rows as one new part file (atomic rename)."""
        self._last_flush = time.monotonic()
        if not self._buffer:
            return
        table = pa.Table.from_pylist(self._buffer, schema=self.schema)
        self._seq += 1
        final = self.parts / f"part-{self._seq:06d}.parquet"
        tmp = self.parts / f".tmp-{self._seq:06d}.parquet"
        try:
            pq.write_table(table, tmp)
            os.replace(tmp, final)
        except OSError as exc:
            raise naming_target(exc, self.path) from None
        self._buffer = []

    def iter_written(self) -> Iterator[pa.RecordBatch]:
        for src in self._sources():
            yield from pq.ParquetFile(src).iter_batches(batch_size=self.merge_rows)

    def close(self) -> None:
        """Flush, then merge everything written into ``path`` (atomically) and remove the parts."""
        if self._closed:
            return
        self._closed = True
        self.flush()
        tmp = temporary_path(self.path)
        try:
            with pq.ParquetWriter(tmp, self.schema) as writer:
                pending: list[pa.RecordBatch] = []
                count = 0
                for batch in self.iter_written():
                    pending.append(batch)
                    count += batch.num_rows
                    if count >= self.merge_rows:
                        writer.write_table(pa.Table.from_batches(pending))
                        pending, count = [], 0
                if pending:
                    writer.write_table(pa.Table.from_batches(pending))
            os.replace(tmp, self.path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            raise naming_target(exc, self.path) from None
        shutil.rmtree(self.parts, ignore_errors=True)

    def __enter__(self) -> "SweepStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
