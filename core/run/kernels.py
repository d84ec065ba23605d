"""The kernel choice of a run: start on the numpy path at once, switch to the compiled kernels when they pay.

The numba kernels make a long run 5-20x faster, but they cost at start: importing numba (``IMPORT_CPU_S``),
loading a path's kernels from the on-disk cache (``LOAD_CPU_S``) and, on a fresh install or after an upgrade,
compiling them (one to two minutes of CPU per path). A short run pays that many times over: the pendulum sample
for one second takes ~0.1 s on the numpy path, against ~1.6 s of start-up on the compiled one. The formulations
with both paths (:attr:`~core.dynamics.base.Formulation.kernel_paths`: projection, Wittenburg; tested equal to
each other) are therefore run as follows when :attr:`~core.run.settings.SimulationSettings.kernels` is ``"auto"``
(the default):

1. The run starts on the numpy path under the kernel policy ``"numpy"`` (``mechstudio.core.jit``): numba is not
   even imported.
2. At step ends, every ``CHECK_EVERY_CPU_S`` of CPU, the driver estimates the numpy work left from the run so far,
   R = (CPU so far / simulated time so far) x simulated time left, and compares R + P with the start-up cost S of
   the compiled path in this process: ``IMPORT_CPU_S`` unless numba is imported, plus ``LOAD_CPU_S`` unless this
   path's kernels are loaded already. P is the numpy CPU of the earlier auto runs of this process (ski rental: a
   sweep of many short runs switches after about S of numpy time, and every later run of the same path starts
   compiled, S being 0 then). The remaining cost of the compiled path itself (R/5 or less) is left out, so the
   switch comes rather late than early: a short run never pays the start-up, a long one loses at most S.
3. When the compiled path pays and the cache holds its kernels (a marker the background compiler writes,
   ``jit.path_ready``), the driver switches at that step end: a fresh formulation with ``kernels="numba"`` under
   the policy ``"cached"``, restarted from the corrected state, the integrator restarted. When the cache lacks
   them, the background compiler (``mechstudio.core.run.compiler``, a separate low-priority process) is asked
   once to compile them, and the run goes on on the numpy path; it switches when the marker appears.
4. Should a kernel be missing from the cache after all (``jit.KernelNotCached``: a sub-path the compiler's short
   run did not take, a cache folder cleaned meanwhile), the run goes back to the numpy path from its last
   accepted state, the marker is removed and the compiler asked again; after a second miss the run stays on the
   numpy path.

``"compiled"`` runs the kernels from the start (compiling them now, in the foreground, when the cache lacks them:
the behaviour before this choice existed); ``"numpy"`` never uses them; an explicit formulation option
``kernels="numba"`` or ``"numpy"`` means the same. Formulations without both paths run under the policy
``"cached"`` in ``"auto"`` (a system's own kernels, e.g. the rolling disks' terms, are loaded when cached, never
compiled in the foreground). ``MECHSTUDIO_NO_NUMBA=1`` makes every choice the numpy path.

The constants were measured on the 2-core development machine (numba 0.68.1, Python 3.11.7, 2026-11-26, busy with
other work), process CPU: ``python -c "import numba"`` 0.6-0.8 s over a bare interpreter; a 0.05 s pendulum run
with the compiled kernels 1.6 s more than on the numpy path (numba's import and loading the planar kernels from a
warm cache). ``mechstudio bench --suite startup`` prints both.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from mechstudio.core import jit
from mechstudio.core.dynamics.base import FORMULATIONS, Formulation
from mechstudio.core.run import compiler
from mechstudio.core.run.settings import SimulationSettings
from mechstudio.core.systems.base import ConstrainedSystem

#: CPU seconds of importing numba (measured: module docstring)
IMPORT_CPU_S = 0.7
#: CPU seconds of loading one path's kernels from the on-disk cache (measured: module docstring)
LOAD_CPU_S = 0.9
#: the switch is considered at most once per this much CPU of the run [s], the first time after as much (the
#: estimate of the remaining work is then no longer dominated by the set-up of the first step)
CHECK_EVERY_CPU_S = 0.05
#: after this many returns to the numpy path (a kernel missing from the cache) a run stays there
MAX_FALLBACKS = 2


@dataclass
class ProcessRecord:
    """What earlier runs of this process leave for the next ones."""
    numpy_cpu: float = 0.0  # CPU seconds spent on the numpy path by auto runs (the P of the module docstring)
    loaded: set[str] = field(default_factory=set)  # keys of the paths whose kernels this process has loaded


PROCESS = ProcessRecord()


def startup_cost(key: str | None) -> float:
    """S of the module docstring [CPU s]: what starting the compiled path ``key`` costs in this process now."""
    cost = 0.0 if jit.numba_imported() else IMPORT_CPU_S
    if key not in PROCESS.loaded:
        cost += LOAD_CPU_S
    return cost


def formulation_has_kernels(name: str) -> bool:
    """True when the formulation registered as ``name`` has a numpy and a compiled path (False if unknown)."""
    try:
        return bool(getattr(FORMULATIONS[name], "kernel_paths", False))
    except KeyError:
        return False


class KernelChoice:
    """The kernel choice of one run (module docstring): the mode, the path in use, and the switch decision."""

    def __init__(self, system: ConstrainedSystem, settings: SimulationSettings):
        self.system, self.settings = system, settings
        explicit = settings.options.get("kernels")
        self.has_paths = formulation_has_kernels(settings.formulation)
        if explicit in ("numba", "numpy"):
            mode = "compiled" if explicit == "numba" else "numpy"
        else:
            try:
                mode = settings.kernel_choice()
            except ValueError:  # a bad MECHSTUDIO_KERNELS: the run's validation reports it
                mode = "numpy"
        if not jit.numba_available():
            mode = "numpy"
        self.mode = mode
        self.compiled = mode == "compiled"  # the path in use
        self.key: str | None = None
        self.requested = False  # the background compiler was asked for this run's path
        self.fallbacks = 0
        self.gave_up = mode != "auto" or not self.has_paths
        self.switched_at: float | None = None  # simulated time of the switch to the compiled path [s]
        self.switch_cpu = 0.0  # CPU seconds the switch took (numba import, loading, the new formulation)
        self.numpy_cpu = 0.0  # CPU seconds of this run on the numpy path (set by the driver at the end)
        self._next_check = time.process_time() + CHECK_EVERY_CPU_S  # the first estimate after some progress

    # --- what the driver asks ---------------------------------------------------------------------------------
    @property
    def policy(self) -> str:
        """The kernel policy (``mechstudio.core.jit``) of the driver's code now."""
        if self.mode == "compiled":
            return "compile"
        if self.mode == "numpy":
            return "numpy"
        if not self.has_paths:
            return "cached"
        return "cached" if self.compiled else "numpy"

    def formulation_options(self, compiled: bool) -> dict[str, Any]:
        """The formulation's options for the numpy (False) or compiled (True) path."""
        opts = self.settings.formulation_options()
        if self.has_paths:
            opts["kernels"] = "numba" if compiled else "numpy"
        else:
            opts.pop("kernels", None)
        return opts

    def initial_compiled(self) -> bool:
        """The path a run starts on: compiled only in mode "compiled"."""
        return self.mode == "compiled"

    def learn_key(self, form: Formulation) -> None:
        """Take the path's key from the (restarted) numpy formulation."""
        if self.key is None and not self.gave_up:
            self.key = form.kernel_key()
            if self.key is None:
                self.gave_up = True

    @property
    def watching(self) -> bool:
        """True while the run is on the numpy path and may still switch."""
        return not (self.gave_up or self.compiled)

    def due_at_start(self) -> bool:
        """True when the compiled path costs nothing to start (numba imported, this path loaded in this process)
        and the cache still holds it: then the run switches before its first step."""
        return (not self.gave_up and not self.compiled and self.key is not None and jit.numba_imported()
                and self.key in PROCESS.loaded and jit.path_ready(self.key) is not None)

    def due(self, t: float, t0: float, cpu: float) -> bool:
        """True when the driver should switch to the compiled path at this step end (module docstring): ``t`` the
        simulated time now, ``t0`` where the numpy path started, ``cpu`` the CPU seconds it has taken since."""
        if self.gave_up or self.compiled or self.key is None:
            return False
        now = time.process_time()
        if now < self._next_check or t <= t0:
            return False
        self._next_check = now + CHECK_EVERY_CPU_S
        remaining = cpu / (t - t0) * max(self.settings.t_end - t, 0.0)
        if remaining + PROCESS.numpy_cpu <= startup_cost(self.key):
            return False
        if jit.path_ready(self.key) is not None:
            return True
        if not self.requested:
            self.requested = compiler.request(self.system, self.settings, self.key)
            if not self.requested:  # no model to compile from, or no process could be started
                self.gave_up = True
        elif compiler.state(self.key) == "failed":
            self.gave_up = True
        return False

    # --- what the driver reports ------------------------------------------------------------------------------
    def switched(self, t: float, cpu: float) -> None:
        self.compiled = True
        self.switched_at, self.switch_cpu = t, self.switch_cpu + cpu
        PROCESS.loaded.add(self.key)

    def missing(self) -> None:
        """A kernel of the path was not in the cache (``jit.KernelNotCached``): back to numpy, ask again."""
        self.compiled = False
        self.fallbacks += 1
        if self.key is not None:
            jit.forget_path(self.key)
            PROCESS.loaded.discard(self.key)
        self.requested = False
        self.gave_up = self.fallbacks >= MAX_FALLBACKS

    def finished(self, numpy_cpu: float, form: Formulation | None, ok: bool) -> None:
        """At the end of the run: remember its numpy CPU for the next runs of this process; after a run that
        compiled its kernels (mode "compiled") and finished, mark its path ready in the cache (as the background
        compiler does: ``scripts/warm_kernels.py`` and the like thus serve "auto" runs too)."""
        self.numpy_cpu = numpy_cpu
        if self.mode == "auto" and self.has_paths:
            PROCESS.numpy_cpu += numpy_cpu
        if ok and self.mode == "compiled" and self.has_paths and form is not None:
            key = form.kernel_key()
            if key is not None:
                PROCESS.loaded.add(key)
                if jit.path_ready(key) is None:
                    jit.mark_path_ready(key)

    def describe(self) -> str:
        """The kernels of the run in words (the ``kernels`` entry of the run's statistics)."""
        if self.switched_at is None:
            return "compiled" if self.compiled else "numpy"
        if self.compiled:
            return f"numpy, then compiled from t = {self.switched_at:.6g} s"
        return f"numpy (compiled from t = {self.switched_at:.6g} s until a kernel was missing from the cache)"


__all__ = ["CHECK_EVERY_CPU_S", "IMPORT_CPU_S", "LOAD_CPU_S", "MAX_FALLBACKS", "PROCESS", "KernelChoice",
           "ProcessRecord", "formulation_has_kernels", "startup_cost"]
