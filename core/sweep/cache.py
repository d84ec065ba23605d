"""What the runs of one sweep share in a worker process, built once: :class:`RunCache`.

Every run of a sweep changes only numbers of the base model (``NAME.FIELD`` addresses name numeric leaves of
named elements), so most of what a run builds besides the integration depends on the model's *structure* alone
and is the same for all of them. Per worker process (and thread) and per sweep (:class:`~core.sweep.runner.
RunSpec`), the cache keeps

* the parsed and validated base model (parsed once per process, not once per Dask task);
* the simulation settings (addresses cannot reach the file's ``simulation`` section, so the settings of every
  run are those of the base model with the sweep's overrides);
* a *donor*: the compiled system of an earlier run, with its structure signature (:func:`structure_signature`).

A run still applies its values to the model with the validated public edits (same diagnostics for a bad value as
the editor; :func:`~core.sweep.address.apply_values`) and still compiles the modified model (the numeric part of
a run's set-up, ~2 ms: masses, inertias, points, spring constants, driver functions all come out of it exactly as
in a plain run). When the new system's structure signature equals the donor's, it is handed what the donor's runs
built from the structure only (``projection.share_structure``: the sparse loop route's pattern, orderings and
column plans, the number of closed loops) instead of building them again; with another signature (a value that
changes the structure) the run builds everything itself, exactly as without the cache, and becomes the donor; so
does a run whose donor has built nothing to share (its run stayed on the numpy path: a worker not yet warm).

The structure signature is declared once, from the compiled data rather than from a list of fields: the
constraint rows (name, type, rows, bodies), the system's kind and sizes, and every *integer* array of the system's
element data (``PlanarSystem.fused_data``: body and row indices, kinds) with the *shapes* of its float arrays (the
numbers a sweep may change). Two systems with equal signatures differ only in the floats, which nothing shared
depends on: the loop route's pattern is that of the bodies each row touches (probed at random states).

The runs are therefore numerically the same computation as without the cache (tests/test_sweep_cache.py checks
equal rows and trajectories); what a run saves is its set-up time (docs/sweeps.md, "Speed").
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from mechstudio.core.dynamics import projection, projection_planar
from mechstudio.core.model.document import Model
from mechstudio.core.model.io import loads_model
from mechstudio.core.run.settings import SimulationSettings
from mechstudio.core.systems.base import ConstrainedSystem

#: at most this many sweeps' caches are kept per worker thread (least recently used dropped)
MAX_SWEEPS = 4
#: the document sections an address may change without changing the run's settings
ELEMENT_SECTIONS = ("/bodies/", "/joints/", "/drivers/", "/forces/")


def structure_signature(system: ConstrainedSystem) -> tuple | None:
    """What the shared structure objects of ``system`` depend on (module docstring), or None for a system whose
    structure is not shared (not a planar system with constraints)."""
    if not projection_planar.applies(system):
        return None

    def part(value: Any) -> Any:
        a = np.asarray(value)
        if a.dtype.kind in "iub":
            return ("i", a.shape, a.tobytes())
        return (a.dtype.str, a.shape)
    geo, frc, react = system.fused_data()
    rows = tuple((c.name, c.type, c.rows, c.holonomic, c.body1, c.body2) for c in system.constraints)
    return (type(system).__name__, system.n, system.m, system.m_holonomic, rows,
            tuple(part(v) for v in (*geo, *frc, *react)))


@dataclass
class SweepCache:
    """The shared data of one sweep in one worker thread (module docstring)."""
    model: Model
    settings: SimulationSettings | None  # None: the addresses may change the settings (computed per run)
    donor: ConstrainedSystem | None = None
    signature: tuple | None = None
    shared: int = 0  # runs that were handed the donor's structure
    built: int = 0  # runs that built their own (the first, those with another structure, and after a donor without)

    def adopt(self, system: ConstrainedSystem) -> bool:
        """Hand ``system`` the donor's structure objects when its signature is the donor's (True); else, or when
        the donor has built none (its run stayed on the numpy path, or the loop route does not apply), make
        ``system`` the donor (False)."""
        signature = structure_signature(system)
        if signature is not None and self.donor is not None and signature == self.signature:
            if projection.share_structure(system, self.donor):
                self.shared += 1
                return True
        self.donor, self.signature = (system, signature) if signature is not None else (None, None)
        self.built += 1
        return False


class RunCache:
    """Per-thread caches of the sweeps this process runs, by sweep (``RunSpec``): :meth:`get`."""

    def __init__(self, max_sweeps: int = MAX_SWEEPS):
        self.max_sweeps = max_sweeps
        self._local = threading.local()

    def get(self, model_json: str, pointers: tuple[str, ...], overrides: dict[str, Any]) -> SweepCache:
        """The cache of the sweep of base model ``model_json`` (parsed here the first time) with these parameter
        pointers and setting overrides."""
        caches: OrderedDict = getattr(self._local, "caches", None)
        if caches is None:
            caches = self._local.caches = OrderedDict()
        key = (model_json, pointers, tuple(sorted((k, repr(v)) for k, v in overrides.items())))
        entry = caches.get(key)
        if entry is None:
            model = loads_model(model_json, "<sweep model>")
            settings = (SimulationSettings.from_model(model, **overrides)
                        if all(p.startswith(ELEMENT_SECTIONS) for p in pointers) else None)
            entry = caches[key] = SweepCache(model, settings)
            while len(caches) > self.max_sweeps:
                caches.popitem(last=False)
        caches.move_to_end(key)
        return entry

    def clear(self) -> None:
        """Forget this thread's sweeps."""
        self._local.caches = OrderedDict()


#: the caches of this process (a Dask worker's)
RUN_CACHE = RunCache()

__all__ = ["ELEMENT_SECTIONS", "MAX_SWEEPS", "RUN_CACHE", "RunCache", "SweepCache", "structure_signature"]
