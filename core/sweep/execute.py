"""Running the runs of a sweep on Dask distributed: the cluster, batching, warm-up, streaming and cancel.

* Cluster (:func:`connect`): an existing one when given a scheduler address, a scheduler file or the
  ``DASK_SCHEDULER_ADDRESS`` environment variable; otherwise a ``LocalCluster`` of ``workers`` processes
  (default: the cores) with one thread each, bound to 127.0.0.1 and without a dashboard. Processes, because
  the integration holds the GIL between its compiled kernels.
* Warm-up: a worker plugin (:class:`mechstudio.core.sweep.warm.WarmKernels`) runs the base model for one output interval when it is
  registered on each worker, and on every worker that joins later, so that loading the compiled (numba)
  kernels is paid once per worker, never by a timed run.
* Batching (:func:`execute`): the runs still to do are cut into tasks of ``batch_size`` runs (default: about
  eight tasks per worker, 1 to 50 runs each) and at most a few tasks per worker are in flight at a time, so
  that neither the scheduler nor the driver ever holds the whole sweep. Rows go to ``sink`` as each task ends.
* A task that fails as a whole (a worker died, ``KilledWorker``) gives rows with status ``error``; the sweep
  goes on. ``cancel()`` returning True, or KeyboardInterrupt, stops submitting and cancels the tasks in flight;
  the rows already passed to ``sink`` are kept.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import signal
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from mechstudio.core.sweep.runner import RunSpec, failed_rows, run_batch

Row = dict[str, Any]
POLL_SECONDS = 0.2  # how often the driver checks ``cancel`` while waiting for tasks [s]


def scheduler_from_environment() -> str | None:
    return os.environ.get("DASK_SCHEDULER_ADDRESS") or None


@contextlib.contextmanager
def connect(workers: int | None = None, scheduler: str | None = None,
            scheduler_file: str | None = None) -> Iterator[Any]:
    """A Dask ``Client``: to ``scheduler``/``scheduler_file``/$DASK_SCHEDULER_ADDRESS, else a LocalCluster of
    ``workers`` processes (closed on exit; an external cluster is left running)."""
    from distributed import Client, LocalCluster
    address = scheduler or (None if scheduler_file else scheduler_from_environment())
    if address or scheduler_file:
        client = Client(address, scheduler_file=scheduler_file, timeout="30s")
        try:
            yield client
        finally:
            client.close()
        return
    n = workers or os.cpu_count() or 1
    with children_ignore_sigint():
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None, silence_logs=logging.ERROR)
    with cluster, Client(cluster) as client:
        yield client


@contextlib.contextmanager
def children_ignore_sigint() -> Iterator[None]:
    """Start processes that ignore SIGINT (inherited through exec): Ctrl+C in a terminal reaches the whole
    process group, and it is the driver that stops the sweep cleanly and then closes its workers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def worker_count(client: Any) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


def default_batch_size(n_runs: int, n_workers: int) -> int:
    """About eight tasks per worker (balance), each of 1 to 50 runs (overhead vs. progress granularity)."""
    return int(min(50, max(1, math.ceil(n_runs / (8 * n_workers)))))


@dataclass
class Outcome:
    """What :func:`execute` did: rows delivered, and whether it stopped early."""
    rows: int = 0
    cancelled: bool = False


def execute(client: Any, spec: RunSpec, runs: Sequence[int], values: np.ndarray, sink: Callable[[list[Row]], None],
            *, batch_size: int | None = None, cancel: Callable[[], bool] | None = None,
            warm: bool = True) -> Outcome:
    """Run ``runs`` (with parameter ``values``, one row each) on ``client``; rows go to ``sink`` as tasks end."""
    from distributed import wait

    from mechstudio.core.sweep.warm import WarmKernels
    outcome = Outcome()
    n = len(runs)
    if n == 0:
        return outcome
    n_workers = worker_count(client)
    size = batch_size or default_batch_size(n, n_workers)
    in_flight_max = max(4, 3 * n_workers)
    if warm:
        client.register_plugin(WarmKernels(spec), name=WarmKernels.name)
    spec_future = client.scatter(spec, broadcast=True, hash=False)
    chunks = ((list(runs[i:i + size]), values[i:i + size].tolist()) for i in range(0, n, size))
    pending: dict[Any, tuple[list[int], list[list[float]]]] = {}

    def top_up() -> None:
        while len(pending) < in_flight_max:
            chunk = next(chunks, None)
            if chunk is None:
                return
            pending[client.submit(run_batch, spec_future, chunk[0], chunk[1], pure=False)] = chunk

    try:
        top_up()
        while pending:
            if cancel is not None and cancel():
                outcome.cancelled = True
                break
            try:
                done, _ = wait(list(pending), timeout=POLL_SECONDS, return_when="FIRST_COMPLETED")
            except (TimeoutError, asyncio.TimeoutError):  # distinct classes before Python 3.11
                continue
            for future in done:
                chunk = pending.pop(future)
                if future.status == "finished":
                    rows = future.result()
                else:
                    exc = future.exception()
                    rows = failed_rows(spec, chunk[0], chunk[1], f"task failed ({type(exc).__name__}: {exc})")
                future.release()
                sink(rows)
                outcome.rows += len(rows)
            top_up()
    except KeyboardInterrupt:
        outcome.cancelled = True
        raise
    finally:
        if pending:
            client.cancel(list(pending))
        spec_future.release()
    return outcome
