"""TrajectoryBuffer: the GUI-thread store of the frames of a run, appended block by block.

The worker thread emits :class:`~core.simulate.FrameBlock` objects (copied arrays, never modified again); the
controller appends them here on the GUI thread. Views and plots read from the buffer on their own timers:
``version`` changes on every append, so a timer can skip repainting when nothing arrived.

A run with contacts that can let go also brings, before each block, the contact columns of its frames and the
events found meanwhile (:class:`~gui.simulation.contact_stream.ContactBlock`, :meth:`TrajectoryBuffer.append_contacts`):
:meth:`TrajectoryBuffer.column` gives a column over the frames received (NaN where a frame had none), and
:attr:`TrajectoryBuffer.events` lists the events in time order.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from mechstudio.core.simulate import FrameBlock, Trajectory, FRAME_FIELDS
from mechstudio.core.types import Status


class TrajectoryBuffer:
    """Growable arrays of every FrameBlock field; ``view()`` returns the filled part as a FrameBlock."""

    def __init__(self, n: int = 0, nc: int = 0):
        self.reset(n, nc)

    def reset(self, n: int, nc: int) -> None:
        self.n, self.nc = n, nc
        self.generation = getattr(self, "generation", 0) + 1  # counts resets: caches of derived data key on it
        self.size = 0
        self.version = 0
        self.blocks_received = 0
        self._cap = 0
        self._data: dict[str, np.ndarray] = {}
        self._columns: dict[str, np.ndarray] = {}  # contact columns, each of capacity _ccap (NaN: no value)
        self._ccap = 0
        self._csize = 0  # frames the contact columns cover (== size, or ahead of it by the block announced)
        #: the run's events (docs/contact.md, "Results"): dicts with ``t`` [s], ``kind``, ``contact``, ...
        self.events: list[dict[str, Any]] = []
        self._grow(256)

    def _shape(self, name: str, cap: int) -> tuple[int, ...]:
        if name in ("q", "v", "a"):
            return (cap, self.n)
        if name == "reactions":
            return (cap, self.nc, 6)
        return (cap,)

    def _grow(self, cap: int) -> None:
        new = {k: np.zeros(self._shape(k, cap)) for k in FRAME_FIELDS}
        for k, arr in self._data.items():
            new[k][:self.size] = arr[:self.size]
        self._data, self._cap = new, cap

    def append(self, block: FrameBlock) -> None:
        k = len(block)
        if k == 0:
            return
        if self.size + k > self._cap:
            self._grow(max(2 * self._cap, self.size + k))
        for name in FRAME_FIELDS:
            self._data[name][self.size:self.size + k] = getattr(block, name)
        self.size += k
        self.version += 1
        self.blocks_received += 1

    def append_contacts(self, block: Any) -> None:
        """The contact columns of the frames of the next :meth:`append` (a ContactBlock) and the new events."""
        k = max((len(v) for v in block.columns.values()), default=0)
        if self._csize + k > self._ccap:
            cap = max(2 * self._ccap, self._csize + k, 256)
            for name, arr in self._columns.items():
                new = np.full(cap, np.nan)
                new[:self._csize] = arr[:self._csize]
                self._columns[name] = new
            self._ccap = cap
        for name, values in block.columns.items():
            if name not in self._columns:
                self._columns[name] = np.full(self._ccap, np.nan)
            self._columns[name][self._csize:self._csize + len(values)] = values
        self._csize += k
        if block.events:
            self.events.extend(block.events)
            self.version += 1

    def set_contact_results(self, columns: dict[str, Any], events: list[dict[str, Any]]) -> None:
        """The run's complete contact columns and events (its statistics at the end): they replace what came
        block by block (the same values; a run that ended early may have events after its last block)."""
        n = self.size
        full = {k: np.array(v, float) for k, v in columns.items() if len(v) == n}
        if full:
            self._columns, self._ccap, self._csize = full, n, n
        self.events = [dict(ev) for ev in events]
        self.version += 1

    @property
    def column_names(self) -> list[str]:
        """The contact columns received (``contact.<name>.<part>``, ``energy.dissipated.*``), in arrival order."""
        return list(self._columns)

    def column(self, name: str) -> np.ndarray:
        """Contact column ``name`` over the frames received (NaN where a frame has no value); KeyError if absent."""
        return self._columns[name][:self.size]

    def __len__(self) -> int:
        return self.size

    @property
    def t(self) -> np.ndarray:
        return self._data["t"][:self.size]

    def field(self, name: str) -> np.ndarray:
        return self._data[name][:self.size]

    @property
    def t_latest(self) -> float:
        return float(self._data["t"][self.size - 1]) if self.size else 0.0

    def view(self) -> FrameBlock:
        """The filled frames as a FrameBlock of views (copy before keeping them)."""
        return FrameBlock(**{k: self._data[k][:self.size] for k in FRAME_FIELDS})

    def copy(self) -> FrameBlock:
        return FrameBlock(**{k: self._data[k][:self.size].copy() for k in FRAME_FIELDS})

    def index_at(self, t: float) -> tuple[int, int, float]:
        """(i, j, s): the frames around time t and the interpolation fraction (t clamped to the data)."""
        if self.size == 0:
            raise IndexError("empty buffer")
        ts = self.t
        if t <= ts[0] or self.size == 1:
            return 0, 0, 0.0
        if t >= ts[-1]:
            return self.size - 1, self.size - 1, 0.0
        j = int(np.searchsorted(ts, t, side="right"))
        i = j - 1
        dt = ts[j] - ts[i]
        return i, j, float((t - ts[i]) / dt) if dt > 0 else 0.0

    def time_after(self, t: float, tol: float = 1e-9) -> float | None:
        """The time of the first frame later than ``t`` (by more than ``tol`` [s]); None when there is none."""
        j = int(np.searchsorted(self.t, t + tol, side="right"))
        return float(self.t[j]) if j < self.size else None

    def time_before(self, t: float, tol: float = 1e-9) -> float | None:
        """The time of the last frame earlier than ``t`` (by more than ``tol`` [s]); None when there is none."""
        i = int(np.searchsorted(self.t, t - tol, side="left")) - 1
        return float(self.t[i]) if i >= 0 else None

    def to_trajectory(self, system: Any, settings: Any, status: Status = Status.FINISHED, message: str = "",
                      stats: dict[str, Any] | None = None) -> Trajectory:
        """The frames as a Trajectory; its statistics carry the contact columns and events received (when
        ``stats`` has none of its own: a stopped run's partial results), so an export writes them too."""
        stats = dict(stats or {})
        if self._columns and "columns" not in stats:
            stats["columns"] = {k: self.column(k).copy() for k in self._columns}
        if self.events and "events" not in stats:
            stats["events"] = [dict(ev) for ev in self.events]
        return Trajectory(system, settings, self.copy(), status, message, stats)
