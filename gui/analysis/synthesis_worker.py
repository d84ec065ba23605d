"""The synthesis dialog's machinery: :class:`SynthesisWorker` runs one search of the core on a Python thread and
hands its candidates and result to the GUI thread by queued signals; :class:`TargetPicker` takes the canvas's clicks
as target points while picking is on (an event filter on its viewport, so nothing is selected or moved and no undo
step is added).
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal

from mechstudio.core.analysis.synthesis import Candidate, SynthesisResult
from mechstudio.core.types import Status

log = logging.getLogger(__name__)


class SynthesisWorker(QObject):
    """Runs one synthesis on a Python thread. ``candidate(Candidate)`` arrives on the GUI thread for each improved
    candidate, ``finished(SynthesisResult)`` once at the end (both queued from the thread)."""

    candidate = Signal(object)
    finished = Signal(object)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._done = threading.Event()

    def is_running(self) -> bool:
        """True from :meth:`start` until the result is handed over (``finished`` is emitted after the search has
        ended, while the thread itself is still alive)."""
        return self._thread is not None and self._thread.is_alive() and not self._done.is_set()

    def start(self, search: Callable[[Callable[[Candidate], bool]], SynthesisResult]) -> None:
        """Run ``search(progress)`` (a call of the core's ``synthesize_path`` or ``synthesize_function`` with the
        given progress callback) on a new thread."""
        self._stop = stop = threading.Event()
        self._done = done = threading.Event()

        def progress(cand: Candidate) -> bool:
            self._emit(self.candidate, cand)
            return not stop.is_set()

        def run() -> None:
            try:
                res = search(progress)
            except Exception as exc:  # the core reports failures as statuses; a bug is a message, never a traceback
                log.warning("four-bar synthesis failed", exc_info=True)
                res = SynthesisResult(Status.FAILED, f"the synthesis failed: {type(exc).__name__}: {exc}")
            done.set()  # before the signal: a slot that asks is_running() hears False
            self._emit(self.finished, res)

        self._thread = threading.Thread(target=run, name="analysis-synthesis", daemon=True)
        self._thread.start()

    @staticmethod
    def _emit(signal: Any, value: Any) -> None:
        try:
            signal.emit(value)
        except RuntimeError:  # the dialog was deleted meanwhile (the window closed): nobody to tell
            pass

    def stop(self) -> None:
        """Ask the running search to end (at its next progress call, or its next ``should_stop`` check)."""
        self._stop.set()

    def stop_requested(self) -> bool:
        """Whether :meth:`stop` was asked of the running search (a search's ``should_stop``)."""
        return self._stop.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.is_running()


class TargetPicker(QObject):
    """While ``active``, takes the canvas's left clicks as target points (``picked(x, y)`` [m]) and its Esc key
    (``ended``); every other mouse button press is swallowed too, except the middle button (pan)."""

    picked = Signal(float, float)
    ended = Signal()

    def __init__(self, canvas: Any, parent: QObject | None = None):
        super().__init__(parent)
        self.canvas = canvas
        self.active = False
        canvas.viewport().installEventFilter(self)
        canvas.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt API
        if not self.active:
            return False
        kind = event.type()
        if obj is self.canvas:
            if kind == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Escape:
                self.ended.emit()
                return True
            return False
        if kind in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonDblClick):
            if event.button() == Qt.MouseButton.MiddleButton:
                return False
            if event.button() == Qt.MouseButton.LeftButton and kind == QEvent.Type.MouseButtonPress:
                x, y = self.canvas.to_world(event.position())
                self.picked.emit(float(x), float(y))
            return True
        if kind == QEvent.Type.MouseButtonRelease:
            return event.button() != Qt.MouseButton.MiddleButton
        if kind == QEvent.Type.ContextMenu:
            return True
        return False


__all__ = ["SynthesisWorker", "TargetPicker"]
