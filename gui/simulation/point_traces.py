"""Traces (coupler curves) of the ticked body points, computed from the frames of the current run.

:class:`PointTraces` reads the run's frames (the controller's :class:`~gui.simulation.buffer.TrajectoryBuffer`),
the run's compiled system (world positions through :class:`mechstudio.core.systems.points.PointTracer`, docs/points-api.md) and the
document's ticks (:mod:`mechstudio.gui.editor.traced_points`). :meth:`PointTraces.lines` gives, for a shown time t, one :class:`TraceLine` per
ticked point: the point's world positions [m] at every output frame up to t, then at t itself (interpolated like
the 3D view's pose). So scrubbing the time bar shows each trace up to the current time, and a run shows them
growing as frames arrive.

World positions are cached per point and extended incrementally (the buffer only grows during a run); the cache
is dropped when the buffer is reset or refilled by a new run. No traces are given while the results are stale
(the model was edited after the run: the traces would describe another mechanism) or when there are none.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mechstudio.core.systems.points import PointTracer, parse_point_names
from mechstudio.gui.editor.traced_points import TRACES_KEY, PointKey, label, traced

DEFAULT_COLOR = "#4a90d9"


@dataclass(frozen=True)
class TraceLine:
    """One ticked point's path: ``points`` (k, dim) world positions [m] (dim 2 planar, 3 spatial), oldest first,
    the last at the shown time."""

    key: PointKey
    color: str  # the body's colour, #rrggbb
    points: np.ndarray

    @property
    def label(self) -> str:
        return f"{self.key[0]}.{self.key[1]}"


class PointTraces:
    """See the module docstring. ``controller`` is the live view's SimulationController."""

    def __init__(self, controller: Any, document: Any):
        self.controller, self.document = controller, document
        self._cache: dict[PointKey, tuple[np.ndarray, int]] = {}  # positions at the first frames, and how many
        self._tracers: dict[tuple[int, PointKey], PointTracer] = {}  # per (id of the system, point)
        self._stamp: tuple[int, int] | None = None  # (id of the run's system, the buffer's generation)

    # ---- what is traced --------------------------------------------------------------------------------
    def keys(self) -> list[PointKey]:
        """The ticked points that the run's model has (a point added after the run has no trace until the next)."""
        system = self.controller.system
        run_model = getattr(system, "model", None)
        if run_model is None:
            return []
        own = {b["name"]: b.get("points", {}) for b in run_model.data.get("bodies", [])}
        return [k for k in traced(self.document.model) if k[1] in own.get(k[0], {})]

    def _color(self, body: str) -> str:
        for b in self.document.model.data.get("bodies", []):
            if b["name"] == body:
                return str(b.get("color", DEFAULT_COLOR))
        return DEFAULT_COLOR

    # ---- positions -------------------------------------------------------------------------------------
    def _positions(self, key: PointKey, qs: np.ndarray) -> np.ndarray:
        """World positions (F, dim) of point ``key`` at configurations ``qs`` (F, n) of the run's system."""
        system = self.controller.system
        tracer = self._tracers.get((id(system), key))
        if tracer is None:
            tracer = PointTracer(system, parse_point_names(system.model, [label(key)]))
            self._tracers = {k: v for k, v in self._tracers.items() if k[0] == id(system)}
            self._tracers[(id(system), key)] = tracer
        return tracer.positions(np.atleast_2d(qs))[:, 0, :]

    def _frames_upto(self, key: PointKey, n: int) -> np.ndarray:
        """World positions of ``key`` at the first ``n`` frames (cached, extended as frames arrive; the cache's
        capacity doubles, so a long run copies each position O(1) times)."""
        store, have = self._cache.get(key, (None, 0))
        if n > have:
            more = self._positions(key, self.controller.buffer.field("q")[have:n])
            if store is None or len(store) < n:
                grown = np.empty((max(n, 2 * (len(store) if store is not None else 0), 256), more.shape[1]))
                if store is not None:
                    grown[:have] = store[:have]
                store = grown
            store[have:n] = more
            have = n
            self._cache[key] = (store, have)
        return store[:n]

    def _check_cache(self) -> None:
        c = self.controller
        stamp = (id(c.system), c.buffer.generation)
        if stamp != self._stamp or any(count > len(c.buffer) for _store, count in self._cache.values()):
            self._cache = {}
        self._stamp = stamp

    def available(self) -> bool:
        """Results there, not stale, and a poser to place the points."""
        c = self.controller
        return len(c.buffer) > 0 and c.poser is not None and not c.stale and c.model is not None

    def lines(self, t: float | None = None) -> list[TraceLine]:
        """The ticked points' traces up to time ``t`` [s] (default: the controller's shown time)."""
        if not self.document.model.data.get("editor", {}).get(TRACES_KEY) or not self.available():
            return []  # (the 3D view asks every frame: nothing ticked costs one lookup)
        keys = self.keys()
        if not keys:
            return []
        self._check_cache()
        c = self.controller
        t = c.clock.t if t is None else t
        i, j, s = c.buffer.index_at(t)
        out = []
        for key in keys:
            pts = self._frames_upto(key, i + 1)
            if s > 0.0:
                q = c.buffer.field("q")
                qt = c.poser.interpolate(q[i], q[j], s)
                pts = np.vstack((pts, self._positions(key, qt[None, :])))
            out.append(TraceLine(key, self._color(key[0]), pts))
        return out

    def full_lines(self) -> list[TraceLine]:
        """Every frame of the run (the whole coupler curve), whatever the shown time."""
        if not self.available():
            return []
        return self.lines(self.controller.buffer.t_latest)
