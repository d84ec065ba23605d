"""Checks and runs a sweep off the GUI thread and reports through Qt signals.

The thread builds the design and checks the sweep (:func:`mechstudio.core.sweep.prepare`, which makes a one-interval run
of the model to know its result columns); the sweep itself runs on Dask (a LocalCluster of worker processes,
started by the thread); the thread only submits tasks and waits for them, so the window never waits. Signals
are emitted from the Python thread and delivered queued to the GUI thread. ``cancel()`` asks the sweep to stop:
no new tasks are submitted, the tasks in flight are cancelled, and ``finished`` reports what was done.
"""
from __future__ import annotations

import os
import threading
from typing import Any

from PySide6.QtCore import QObject, Signal

from mechstudio.core.model.document import Model
from mechstudio.core.sweep import AddressError, SpecError, Vary, build_design, prepare, run_plan
from mechstudio.gui.dialogs.wording import sweep_words, user_words
from mechstudio.gui.sweep.cluster import SweepCluster, dashboard_link


class SweepWorker(QObject):
    """One sweep in a background thread: ``planned(plan)`` once checked, ``cluster_ready(dashboard link or "")``
    when the cluster runs, ``progress(done, total)``, ``rows(list of dict)``, ``finished(state, message)`` with
    state "finished", "cancelled" or "failed" (messages in the dialog's words: ``gui.dialogs.wording``).

    The runs go to ``client`` when given, else to ``cluster`` (a :class:`~mechstudio.gui.sweep.cluster.SweepCluster`
    kept by the dialog between sweeps), else to a local cluster of ``workers`` processes for this sweep only."""

    planned = Signal(object)
    cluster_ready = Signal(str)
    progress = Signal(int, int)
    rows = Signal(list)
    finished = Signal(str, str)

    def __init__(self, model: Model, varies: list[Vary], metrics: list[str], overrides: dict[str, Any],
                 design: dict[str, Any], workers: int | None = None, client: Any = None,
                 parent: QObject | None = None, cluster: SweepCluster | None = None):
        super().__init__(parent)
        self.model, self.varies, self.metrics, self.overrides = model, varies, metrics, overrides
        self.design, self.workers, self.client, self.cluster = design, workers, client, cluster
        self.plan: Any = None
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sweep", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def cancel(self) -> None:
        self._cancel.set()

    def is_running(self) -> bool:
        return self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _deliver(self, rows: list[dict[str, Any]]) -> None:
        """Rows to the dialog, their messages in its words (a failed run names the model kind, not a class)."""
        self.rows.emit([{**r, "message": user_words(r["message"])} if isinstance(r.get("message"), str) else r
                        for r in rows])

    def _run(self) -> None:
        try:
            table = build_design(self.varies, self.design["design"], self.design.get("samples"),
                                 self.design.get("seed"))
            self.plan = prepare(self.model, table, self.metrics, self.overrides,
                                design={**self.design, "vary": [v.text() for v in self.varies]})
        except (SpecError, AddressError) as exc:
            self.finished.emit("failed", sweep_words(str(exc)))
            return
        except Exception as exc:  # an unforeseen problem is reported, never raised into Qt
            self.finished.emit("failed", sweep_words(f"{type(exc).__name__}: {exc}"))
            return
        self.planned.emit(self.plan)
        try:
            client = self.client
            if client is None and self.cluster is not None:
                client = self.cluster.client_for(self.workers or os.cpu_count() or 1)
                self.cluster_ready.emit(dashboard_link(client) or "")
            if self._cancel.is_set():
                self.finished.emit("cancelled", f"cancelled after 0 of {self.plan.n_runs} runs")
                return
            outcome = run_plan(self.plan, client=client, workers=self.workers, sink=self._deliver,
                               progress=self.progress.emit, cancel=self._cancel.is_set)
        except Exception as exc:  # cluster start-up or connection trouble: reported, never raised into Qt
            self.finished.emit("failed", sweep_words(f"{type(exc).__name__}: {exc}"))
            return
        if outcome.cancelled or self._cancel.is_set():
            self.finished.emit("cancelled", f"cancelled after {outcome.rows} of {self.plan.n_runs} runs")
        else:
            self.finished.emit("finished", f"{outcome.rows} runs")
