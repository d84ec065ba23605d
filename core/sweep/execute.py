"""Running the runs of a sweep on Dask distributed: the cluster, batching, warm-up, streaming and cancel.

* Cluster (:func:`connect`): an existing one when given a scheduler address, a scheduler file or the
  ``DASK_SCHEDULER_ADDRESS`` environment variable; otherwise a ``LocalCluster`` of ``workers`` processes
  (default: the cores) with one thread each, bound to 127.0.0.1. Processes, because the integration holds the GIL
  between its compiled kernels. Its HTTP server (the Dask dashboard when bokeh is installed: the ``dashboard``
  extra) listens on a free port chosen by the system, so that several sweeps at once never compete for Dask's
  default port 8787. :func:`dashboard_link` gives the dashboard's address, or None without bokeh
  (:data:`DASHBOARD_HINT` says how to get it).
* The local workers run without Dask's statistical profiler (:data:`LOCAL_WORKER_CONFIG`).
* Shutdown: the workers' heartbeats are stopped (:func:`quiet_heartbeats`), then the local workers are closed one
  by one with :data:`WORKER_CLOSE_S` seconds each to finish (Dask's own close gives a worker process 4 s and then
  kills it with a warning, which a loaded machine reaches); every worker process has ended when :func:`connect` returns, also after Ctrl+C. A connection or start-up failure of the
  cluster is a :class:`ClusterError`, distinct from errors of the sweep's own files (OSError naming the file).
* Warm-up: a worker plugin (:class:`mechstudio.core.sweep.warm.WarmKernels`) starts a run of the base model for
  one output interval when it is registered on each worker, and on every worker that joins later, and a task
  waits for it before its first run, so that loading the compiled (numba) kernels is paid once per worker, never
  by a timed run (:func:`mechstudio.core.sweep.runner.run_sweep_batch`).
* Batching (:func:`execute`): the runs still to do are cut into tasks as they are submitted, and at most a few
  tasks per worker are in flight at a time, so that neither the scheduler nor the driver ever holds the whole
  sweep. Rows go to ``sink`` as each task ends. A given ``batch_size`` makes every task that many runs; the
  default is *guided* (:func:`guided_batch_size`): a task takes a fixed share of the runs not yet submitted
  (1 to 50 runs), so tasks are large while much is left (little per-task overhead) and shrink to single runs
  at the end, where the workers would otherwise wait for the last large tasks of the others (a sweep of 1000
  short runs on 16 workers lost about a tenth of its wall time to that tail with fixed tasks of 8 runs).
* A task that fails as a whole (a worker died, ``KilledWorker``) gives rows with status ``error``; the sweep
  goes on. ``cancel()`` returning True, or KeyboardInterrupt, stops submitting, cancels the tasks in flight and
  tells every worker (``Client.run`` of :func:`stop_here`) that the sweep has stopped: the runs in progress, which
  check that between output frames, end at once, and the workers are idle when they are closed. The rows already
  passed to ``sink`` are kept.
"""
from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import math
import os
import signal
import threading
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from mechstudio.core.sweep.runner import STOPPED_SWEEPS, RunSpec, failed_rows, run_sweep_batch

Row = dict[str, Any]
log = logging.getLogger(__name__)
POLL_SECONDS = 0.2  # how often the driver checks ``cancel`` while waiting for tasks [s]
WORKER_CLOSE_S = 30.0  # how long a local worker process may take to close before it is killed [s]
#: the address of the local cluster's HTTP server (dashboard): loopback only, a free port
LOCAL_DASHBOARD_ADDRESS = "127.0.0.1:0"
DASHBOARD_HINT = "the Dask dashboard needs bokeh: pip install 'mechanism-studio[dashboard]'"
#: Dask settings of the local cluster's workers: no statistical profiler (by default a thread of each worker samples
#: the stacks every 10 ms; on a worker whose one thread runs short numerical runs that take and release the GIL
#: thousands of times a second it slowed the runs of a four-bar sweep by ~10-20 %, and a sweep has no use for it)
LOCAL_WORKER_CONFIG = {"distributed.worker.profile.enabled": False}


class ClusterError(RuntimeError):
    """The Dask cluster could not be started or reached (the message says which and why)."""


def scheduler_from_environment() -> str | None:
    return os.environ.get("DASK_SCHEDULER_ADDRESS") or None


def dashboard_available() -> bool:
    """Whether this installation can serve the Dask dashboard (bokeh is importable)."""
    return importlib.util.find_spec("bokeh") is not None


def dashboard_link(client: Any) -> str | None:
    """The address of the Dask dashboard of ``client``'s cluster, or None when its scheduler serves none: a local
    cluster without bokeh (:data:`DASHBOARD_HINT` says how to get it), a scheduler started with ``--no-dashboard``
    or without bokeh. (Dask reports an address in every case, its HTTP server's; without the dashboard that page
    would only answer that Dask needs bokeh.)"""
    def serves_dashboard(dask_scheduler: Any) -> bool:  # runs in the scheduler's process (sent by value)
        # the bokeh dashboard is an application added to the scheduler's HTTP server (distributed.dashboard)
        return bool(getattr(dask_scheduler.http_application, "applications", None))
    try:
        link = client.dashboard_link
        if not link or not client.run_on_scheduler(serves_dashboard):
            return None
    except Exception as exc:  # a scheduler that refuses to run functions, a closed client
        log.debug("no dashboard address: %s", exc)
        return None
    return str(link)


@contextlib.contextmanager
def connect(workers: int | None = None, scheduler: str | None = None,
            scheduler_file: str | None = None) -> Iterator[Any]:
    """A Dask ``Client``: to ``scheduler``/``scheduler_file``/$DASK_SCHEDULER_ADDRESS, else a LocalCluster of
    ``workers`` processes (closed on exit, every worker process ended; an external cluster is left running).
    Raises :class:`ClusterError` when the cluster cannot be started or reached."""
    # dask and distributed only when a cluster is started (start-up of the CLI and the editor)
    from distributed import Client, LocalCluster
    import dask  # likewise
    address = scheduler or (None if scheduler_file else scheduler_from_environment())
    if address or scheduler_file:
        try:
            client = Client(address, scheduler_file=scheduler_file, timeout="30s")
        except (OSError, TimeoutError, ValueError) as exc:
            where = address or f"the scheduler file {scheduler_file}"
            raise ClusterError(f"cannot reach the Dask scheduler at {where}: {exc}") from exc
        try:
            yield client
        finally:
            client.close()
        return
    n = workers or os.cpu_count() or 1
    cluster = None
    try:
        with sigint_deferred():  # the worker processes inherit it: the driver alone stops the sweep on Ctrl+C
            try:
                with dask.config.set(LOCAL_WORKER_CONFIG):  # the nannies hand it to their worker processes
                    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                                           dashboard_address=LOCAL_DASHBOARD_ADDRESS, silence_logs=logging.ERROR)
            except (OSError, RuntimeError, TimeoutError) as exc:
                raise ClusterError(f"cannot start a local Dask cluster of {n} worker process(es): {exc}") from exc
        with Client(cluster) as client:
            try:
                yield client
            finally:
                quiet_heartbeats(client)
    finally:
        if cluster is not None:
            with sigint_ignored():  # a second Ctrl+C (or a signal to the whole process group) must not cut it short
                close_local_cluster(cluster)


def stop_heartbeat(dask_worker: Any) -> None:
    """On a worker (``client.run``): stop its heartbeat and keep-alive calls to the scheduler."""
    for name in ("heartbeat", "keep-alive"):
        callback = dask_worker.periodic_callbacks.get(name)
        if callback is not None:
            callback.stop()


def quiet_heartbeats(client: Any) -> None:
    """Stop the local workers' heartbeats before they are closed: a heartbeat in flight while the scheduler drops
    a closing worker's connection is logged by the worker as an error with a traceback (a harmless race of Dask's
    shutdown that a loaded machine meets, printed on the sweep's standard error)."""
    try:
        client.run(stop_heartbeat)
    except Exception as exc:  # a worker already gone: nothing left to quiet
        log.debug("could not stop the workers' heartbeats: %s", exc)


def close_local_cluster(cluster: Any, timeout_s: float = WORKER_CLOSE_S) -> None:
    """Close every worker of ``cluster`` (giving each ``timeout_s`` seconds), then the cluster itself."""
    async def close_workers() -> None:
        await asyncio.gather(*(w.close(timeout=timeout_s) for w in list(cluster.workers.values())))
    try:
        cluster.sync(close_workers)
    finally:
        cluster.close()


def in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT in the block (main thread only; elsewhere a no-op): the driver's clean-up after a sweep, which a
    second Ctrl+C must not cut short."""
    if not in_main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def sigint_deferred() -> Iterator[None]:
    """Hold SIGINT back in the block (main thread only; elsewhere a no-op): a Ctrl+C during the block raises
    KeyboardInterrupt when it ends, not in the middle of it. SIGINT is also blocked in the main thread's signal mask,
    which the processes and threads started in the block inherit (through fork and exec): Ctrl+C in a terminal,
    which reaches the whole process group, thus reaches the driver alone, which stops the sweep cleanly and closes
    its workers."""
    if not in_main_thread():
        yield
        return
    caught: list[int] = []
    previous_handler = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    previous_mask = (signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
                     if hasattr(signal, "pthread_sigmask") else None)
    try:
        yield
    finally:
        if previous_mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)  # a pending SIGINT is caught above now
        signal.signal(signal.SIGINT, previous_handler)
    if caught:
        raise KeyboardInterrupt


def stop_here(sweep_id: str) -> None:
    """Run on every worker (``Client.run``) when a sweep stops: its runs in progress in that process end."""
    STOPPED_SWEEPS.add(sweep_id)


def stop_workers_runs(client: Any, sweep_id: str) -> None:
    """Tell every worker that the sweep ``sweep_id`` has stopped (:func:`stop_here`); a worker that cannot be
    reached is left to the cancel of its task."""
    try:
        client.run(stop_here, sweep_id, on_error="ignore")
    except Exception as exc:  # the cluster is going away: nothing left to stop
        log.debug("could not tell the workers to stop: %s", exc)


def worker_count(client: Any) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


#: guided batching: a task takes 1 / (GUIDED_SHARE * workers) of the runs not yet submitted ...
GUIDED_SHARE = 2
#: ... and at most this many runs (progress granularity, and what a lost worker takes with it)
MAX_BATCH = 50


def guided_batch_size(runs_left: int, n_workers: int) -> int:
    """The size of the next task when ``runs_left`` runs are not yet submitted (module docstring, "Batching"):
    ceil(runs_left / (GUIDED_SHARE n_workers)), from 1 to MAX_BATCH runs."""
    return int(min(MAX_BATCH, max(1, math.ceil(runs_left / (GUIDED_SHARE * n_workers)))))


@dataclass
class Outcome:
    """What :func:`execute` did: rows delivered, and whether it stopped early."""
    rows: int = 0
    cancelled: bool = False


def execute(client: Any, spec: RunSpec, runs: Sequence[int], values: np.ndarray, sink: Callable[[list[Row]], None],
            *, batch_size: int | None = None, cancel: Callable[[], bool] | None = None,
            warm: bool = True) -> Outcome:
    """Run ``runs`` (with parameter ``values``, one row each) on ``client``; rows go to ``sink`` as tasks end."""
    from distributed import wait  # distributed only when a cluster is started (start-up of the CLI and the editor)

    from mechstudio.core.sweep.warm import WarmKernels  # its module imports distributed (start-up)
    outcome = Outcome()
    n = len(runs)
    if n == 0:
        return outcome
    n_workers = worker_count(client)
    in_flight_max = max(4, 3 * n_workers)
    sweep_id = uuid.uuid4().hex
    plugin = f"{WarmKernels.name}-{sweep_id}"  # one per sweep: sweeps sharing a cluster keep their own warm-ups
    with sigint_deferred():  # short calls, not to be cut in the middle (a Ctrl+C comes through right after)
        if warm:
            client.register_plugin(WarmKernels(spec, sweep_id), name=plugin)
        spec_future = client.scatter(spec, broadcast=True, hash=False)

    run_numbers = np.asarray(runs, dtype=np.int64)

    def task_chunks() -> Iterator[tuple[list[int], list[list[float]]]]:
        start = 0
        while start < n:
            end = start + (batch_size or guided_batch_size(n - start, n_workers))
            yield run_numbers[start:end].tolist(), values[start:end].tolist()
            start = end
    chunks = task_chunks()
    pending: dict[Any, tuple[list[int], list[list[float]]]] = {}

    def top_up() -> None:
        while len(pending) < in_flight_max:
            chunk = next(chunks, None)
            if chunk is None:
                return
            pending[client.submit(run_sweep_batch, spec_future, chunk[0], chunk[1], sweep_id,
                                  pure=False)] = chunk

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
        with sigint_ignored():
            if pending:
                stop_workers_runs(client, sweep_id)
                client.cancel(list(pending))
            spec_future.release()
            if warm:
                remove_plugin(client, plugin)
    return outcome


def remove_plugin(client: Any, name: str) -> None:
    """Unregister the worker plugin ``name`` (an external cluster's workers outlive the sweep: they drop its spec);
    a cluster that is going away is left alone."""
    try:
        client.unregister_worker_plugin(name)
    except Exception as exc:  # the cluster is going away: nothing to remove
        log.debug("could not remove the worker plugin %s: %s", name, exc)
