"""The sweep dialog's local Dask cluster: started by the first sweep, reused by the next ones, closed cleanly.

:class:`SweepCluster` starts a ``LocalCluster`` of worker processes (one thread each, on 127.0.0.1, with the
workers' settings of the command line's clusters: ``core.sweep.execute.LOCAL_WORKER_CONFIG``) when a sweep
first needs it and keeps it for the next sweeps with the same number of workers (no start-up per sweep, and the
workers' compiled kernels stay warm). It has a dashboard when bokeh is installed (:func:`dashboard_link`, shown
in the dialog). :meth:`SweepCluster.close` closes the client and then the cluster (the nannies stop their
workers, nobody is killed) in a background thread, so closing the window or the dialog never waits for it; the
interpreter waits for that thread at exit (it is not a daemon), so no worker process outlives the app.

:func:`quiet_dask_logging` keeps Dask's INFO chatter (every worker start, plugin, connection and close: hundreds
of lines per sweep) out of the app's log: Dask's loggers log warnings and errors only, in the app's process and,
through Dask's configuration, in the worker processes it starts.
"""
from __future__ import annotations

import importlib.util
import logging
import threading
from typing import Any

from mechstudio.core.sweep.execute import LOCAL_WORKER_CONFIG, dashboard_link as core_dashboard_link

log = logging.getLogger(__name__)

#: loggers of Dask and the libraries its dashboard uses -> the least level they log
DASK_LOG_LEVELS = {"distributed": "warning", "dask": "warning", "bokeh": "error", "tornado": "error",
                   "tornado.application": "error"}
CLOSE_TIMEOUT_S = 10.0  # the nannies get this long to stop their workers before they are terminated [s]


def quiet_dask_logging() -> None:
    """Dask's loggers at WARNING (see the module docstring); safe to call before or after Dask is imported."""
    for name, level in DASK_LOG_LEVELS.items():
        logging.getLogger(name).setLevel(level.upper())
    if importlib.util.find_spec("dask") is None:
        return
    import dask  # optional here (checked above); its configuration is what worker processes log by
    dask.config.set({"logging": dict(DASK_LOG_LEVELS)})


def has_dashboard_support() -> bool:
    """Dask's dashboard needs bokeh."""
    return importlib.util.find_spec("bokeh") is not None


def dashboard_link(client: Any) -> str | None:
    """The address of the Dask dashboard of ``client``'s cluster, or None when it serves none
    (:func:`mechstudio.core.sweep.dashboard_link`, the sweep command's answer)."""
    return None if client is None else core_dashboard_link(client)


class SweepCluster:
    """See the module docstring. Thread-safe: the sweep thread asks for the client, the GUI thread closes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.cluster: Any = None
        self.client: Any = None
        self.workers = 0
        self.closing: threading.Thread | None = None

    def client_for(self, workers: int) -> Any:
        """A client of a local cluster of ``workers`` processes: the running one when it has that many, else a
        new one (the old one is closed first)."""
        with self._lock:
            if self.client is not None and self.workers == workers and self.client.status == "running":
                return self.client
            self._close_now()
            quiet_dask_logging()
            from distributed import Client, LocalCluster  # Dask is imported when the first sweep runs
            import dask  # likewise
            address = "127.0.0.1:0" if has_dashboard_support() else None
            with dask.config.set(LOCAL_WORKER_CONFIG):  # the nannies hand it to their worker processes
                self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                            host="127.0.0.1", dashboard_address=address,
                                            silence_logs=logging.WARNING)
            self.client = Client(self.cluster)
            self.workers = workers
            log.info("started a local Dask cluster of %d workers (dashboard %s)", workers,
                     dashboard_link(self.client) or "none")
            return self.client

    @property
    def running(self) -> bool:
        return self.client is not None

    def dashboard_link(self) -> str | None:
        return dashboard_link(self.client)

    def _close_now(self) -> None:
        client, cluster = self.client, self.cluster
        self.client = self.cluster = None
        self.workers = 0
        for what, obj in (("client", client), ("cluster", cluster)):
            if obj is None:
                continue
            try:
                obj.close(timeout=CLOSE_TIMEOUT_S) if what == "cluster" else obj.close()
            except Exception:  # noqa: BLE001 (a cluster that is already gone: nothing left to close)
                log.info("closing the sweep's Dask %s", what, exc_info=True)

    def close(self, wait: bool = False) -> None:
        """Close the client and the cluster in a background thread (``wait``: and wait for it)."""
        def work() -> None:
            with self._lock:
                self._close_now()
        if self.client is not None or self.cluster is not None:
            self.closing = threading.Thread(target=work, name="dask-close", daemon=False)
            self.closing.start()
        if wait and self.closing is not None:
            self.closing.join()


__all__ = ["DASK_LOG_LEVELS", "SweepCluster", "dashboard_link", "has_dashboard_support", "quiet_dask_logging"]
