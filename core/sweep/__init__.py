"""Parameter sweeps: run one model many times with changed values, on Dask distributed (docs/sweeps.md).

>>> from mechstudio.core.sweep import sweep
>>> df = sweep("sample_models/four_bar.json", {"crank.mass": [1.0, 2.0, 3.0]},
...            ["peak=absmax(reaction.O.Fy)"], settings={"t_end": 1.0})

Modules: :mod:`~core.sweep.address` (``NAME.FIELD`` -> JSON pointer), :mod:`~core.sweep.design` (``--vary``,
grid/random/sobol), :mod:`~core.sweep.metrics` (reducers), :mod:`~core.sweep.runner` (one run, one batch; what a
worker executes), :mod:`~core.sweep.cache` (what a worker builds once per sweep), :mod:`~core.sweep.execute` (the
Dask driver), :mod:`~core.sweep.warm` (the warm-up worker plugin), :mod:`~core.sweep.store` (streamed Parquet
with metadata, resume), :mod:`~core.sweep.api` (checking and running a whole sweep). Importing this package does
not import Dask; running a sweep does.
"""
from mechstudio.core.sweep.address import AddressError, resolve, sweepable_fields
from mechstudio.core.sweep.api import Plan, prepare, run_plan, sweep
from mechstudio.core.sweep.design import DESIGNS, SpecError, Vary, build_design, parse_vary
from mechstudio.core.sweep.execute import DASHBOARD_HINT, ClusterError, dashboard_link
from mechstudio.core.sweep.metrics import REDUCERS, Metric, parse_metric

__all__ = ["AddressError", "ClusterError", "DASHBOARD_HINT", "DESIGNS", "Metric", "Plan", "REDUCERS", "SpecError",
           "Vary", "build_design", "dashboard_link", "parse_metric", "parse_vary", "prepare", "resolve", "run_plan",
           "sweep", "sweepable_fields"]
