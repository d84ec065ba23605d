"""The Dask worker plugin that warms the compiled kernels once per worker (kept apart so that importing
:mod:`mechstudio.core.sweep` does not import Dask).

The warm-up (a short run: loading, or on a first use compiling, the numba kernels: up to minutes) runs in a daemon
thread (:func:`mechstudio.core.sweep.runner.start_warm_up`) and ``setup`` returns at once, so neither the worker's
event loop nor the driver waits: heartbeats go on, a Ctrl+C during the warm-up stops the sweep at once, and a
worker asked to close while warming closes (a daemon thread does not hold up the process's exit). The sweep's
tasks wait for the warm-up before their first run (:func:`mechstudio.core.sweep.runner.run_sweep_batch`).
Without a sweep id the plugin warms in ``setup`` itself, so that the workers are warm when ``register_plugin``
returns (a benchmark that times only the runs).
"""
from __future__ import annotations

from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from mechstudio.core.sweep.runner import WARM_UPS, RunSpec, start_warm_up, warm_kernels


class WarmKernels(WorkerPlugin):
    """Dask worker plugin: warm the compiled kernels of ``spec``'s model in each worker process once, for the sweep
    ``sweep_id`` (in the background), or, without one, before ``setup`` returns."""

    name = "mechstudio-warm-kernels"

    def __init__(self, spec: RunSpec, sweep_id: str | None = None):
        self.spec, self.sweep_id = spec, sweep_id

    def setup(self, worker: Any) -> None:
        if self.sweep_id is not None:
            start_warm_up(self.spec, self.sweep_id)
            return
        try:
            warm_kernels(self.spec)
        except Exception:  # warming is an optimisation; a model that cannot run reports it in its rows
            pass

    def teardown(self, worker: Any) -> None:
        if self.sweep_id is not None:
            WARM_UPS.pop(self.sweep_id, None)
