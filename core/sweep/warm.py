"""The Dask worker plugin that warms the compiled kernels once per worker (kept apart so that importing
:mod:`mechstudio.core.sweep` does not import Dask)."""
from __future__ import annotations

from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from mechstudio.core.sweep.runner import RunSpec, warm_kernels


class WarmKernels(WorkerPlugin):
    """Dask worker plugin: warm the compiled kernels of ``spec``'s model in each worker process once."""

    name = "mechstudio-warm-kernels"

    def __init__(self, spec: RunSpec):
        self.spec = spec

    def setup(self, worker: Any) -> None:
        try:
            warm_kernels(self.spec)
        except Exception:  # warming is an optimisation; a model that cannot run reports it in its rows
            pass
