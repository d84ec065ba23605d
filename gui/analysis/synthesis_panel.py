"""*Analysis → Synthesize four-bar…*: pick target points on the canvas, watch the four-bar synthesis improve its
candidate, open the best one as a model.

:class:`SynthesisDialog` is a non-modal dialog (one per window, created on first use by :func:`synthesis_dialog`).

* **Picking** (*Pick targets on the canvas*): while it is on, each left click on the canvas adds a numbered target
  point where it was clicked (world coordinates, no snapping); :class:`TargetPicker` takes the canvas's mouse events
  first (an event filter on its viewport), so a click neither selects nor moves anything and adds no undo step.
  Esc (in the canvas or the dialog), the button again, or *Synthesize* ends picking. *Remove last* and *Clear*
  edit the list.
* **Synthesize** runs :func:`mechstudio.core.analysis.synthesis.synthesize_path` on a Python thread
  (:class:`SynthesisWorker`, as the other analyses' :class:`~mechstudio.gui.analysis.panel.AnalysisWorker`). Its
  ``progress`` callback hands every improved candidate to the GUI thread by a queued Qt signal; the canvas then draws
  the candidate's linkage at the first target's pose and its coupler curve
  (:mod:`mechstudio.gui.editor.synthesis_overlay`), and the dialog shows its error and summary. *Stop* makes the
  callback answer False: the search ends within one generation with the best candidate so far.
* **Open as model** opens the best candidate (:meth:`Candidate.to_model_data`) as a new untitled document through
  the window's :meth:`open_untitled` (which first asks to save the current document's changes, as File → New does).

Bad input (too few targets, a bad tolerance) and failures are one line in the dialog, never a traceback.
"""
from __future__ import annotations

import logging
import math
import threading
from typing import Any

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (QDialog, QDoubleSpinBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton,
                               QSpinBox, QVBoxLayout)

from mechstudio.core.analysis.synthesis import Candidate, SynthesisResult, synthesize_path
from mechstudio.core.errors import ModelError
from mechstudio.core.model import model_from_data
from mechstudio.core.types import Status
from mechstudio.gui.analysis.panel import LEVEL_COLOURS
from mechstudio.gui.editor.synthesis_overlay import Linkage4, SynthesisPicture, paint_synthesis

log = logging.getLogger(__name__)

#: the synthesis needs at least this many targets (core.analysis.synthesis.synthesize_path)
MIN_TARGETS = 5
#: defaults of the options: tolerance (of the longest link), time budget [s], seed
DEFAULT_TOLERANCE, DEFAULT_TIME_S, DEFAULT_SEED = 1e-4, 60.0, 0
#: samples of the drawn coupler curve
CURVE_SAMPLES = 361
#: undo text of the opened model's edit (File → New's empty model, then this one step)
OPEN_TEXT = "Synthesized four-bar"


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

    def start(self, targets: np.ndarray, tolerance: float, max_time_s: float, seed: int) -> None:
        self._stop = stop = threading.Event()
        self._done = done = threading.Event()

        def progress(cand: Candidate) -> bool:
            self._emit(self.candidate, cand)
            return not stop.is_set()

        def run() -> None:
            try:
                res = synthesize_path(targets, seed=seed, tolerance=tolerance, max_time_s=max_time_s,
                                      progress=progress)
            except Exception as exc:  # the core reports failures as statuses; a bug is a message, never a traceback
                log.warning("four-bar synthesis failed", exc_info=True)
                res = SynthesisResult(Status.FAILED, f"the synthesis failed: {type(exc).__name__}: {exc}")
            done.set()
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
        """Ask the running search to end (at its next progress call)."""
        self._stop.set()

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


class SynthesisDialog(QDialog):
    """See the module docstring. ``window``: the main window (its canvas, document, :meth:`open_untitled`)."""

    sig_candidate = Signal(object)
    """Emitted with each candidate once it is shown."""
    sig_finished = Signal(object)
    """Emitted with the :class:`SynthesisResult` once it is shown."""

    def __init__(self, window: Any):
        super().__init__(window)
        self.main_window = window
        self.canvas = window.canvas
        self.setObjectName("analysis_synthesis")
        self.setWindowTitle("Synthesize four-bar")
        self.setModal(False)
        self.targets: list[tuple[float, float]] = []
        self.candidate: Candidate | None = None
        self.result: SynthesisResult | None = None
        self.picture = SynthesisPicture()
        self.painted: dict[int, Any] = {}
        self.worker = SynthesisWorker(self)
        self.worker.candidate.connect(self._on_candidate)
        self.worker.finished.connect(self._on_finished)
        self.picker = TargetPicker(self.canvas, self)
        self.picker.picked.connect(self.add_target)
        self.picker.ended.connect(lambda: self.set_picking(False))
        self.canvas.overlay_painters.append(self.paint)
        self._build()
        self._set_headline("Pick at least 5 target points on the canvas, in the order the coupler point passes "
                           "them, then Synthesize.", "busy")
        self.update_state()

    # ---- layout ----------------------------------------------------------------------------------------------
    def _button(self, text: str, name: str, slot: Any, tip: str) -> QPushButton:
        b = QPushButton(text)
        b.setObjectName(name)
        b.setAutoDefault(False)
        b.setToolTip(tip)
        b.clicked.connect(lambda _c=False: slot())
        return b

    def _build(self) -> None:
        self.headline = QLabel()
        self.headline.setObjectName("synthesis_headline")
        self.headline.setWordWrap(True)
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.headline.font()
        font.setBold(True)
        self.headline.setFont(font)
        # room for two lines: a wrapped status keeps its last line when the text grows after the layout
        self.headline.setMinimumHeight(2 * self.headline.fontMetrics().lineSpacing() + 4)
        self.pick_button = self._button("&Pick targets on the canvas", "synthesis_pick", self.toggle_picking,
                                        "Each click on the canvas adds a target point; Esc or this button ends "
                                        "picking (nothing in the model is selected or moved)")
        self.pick_button.setCheckable(True)
        self.remove_button = self._button("Remove &last", "synthesis_remove_last", self.remove_last,
                                          "Remove the last target point")
        self.clear_button = self._button("C&lear", "synthesis_clear", self.clear_targets, "Remove all target points")
        self.count_label = QLabel()
        self.count_label.setObjectName("synthesis_count")
        targets_row = QHBoxLayout()
        for w in (self.pick_button, self.remove_button, self.clear_button):
            targets_row.addWidget(w)
        targets_row.addWidget(self.count_label, 1)
        self.tolerance_edit = QLineEdit(f"{DEFAULT_TOLERANCE:g}")
        self.tolerance_edit.setObjectName("synthesis_tolerance")
        self.tolerance_edit.setToolTip("Largest distance of a target from the coupler point, as a fraction of the "
                                       "longest link (the search stops once a linkage meets it)")
        self.time_spin = QDoubleSpinBox()
        self.time_spin.setObjectName("synthesis_time")
        self.time_spin.setRange(1.0, 3600.0)
        self.time_spin.setDecimals(0)
        self.time_spin.setSuffix(" s")
        self.time_spin.setValue(DEFAULT_TIME_S)
        self.time_spin.setToolTip("The search's time budget: then the closest linkage found is the result")
        self.seed_spin = QSpinBox()
        self.seed_spin.setObjectName("synthesis_seed")
        self.seed_spin.setRange(0, 2 ** 31 - 1)
        self.seed_spin.setValue(DEFAULT_SEED)
        self.seed_spin.setToolTip("The random search's seed: the same seed and targets give the same linkage")
        form = QFormLayout()
        form.addRow("Tolerance (of the longest link):", self.tolerance_edit)
        form.addRow("Time budget:", self.time_spin)
        form.addRow("Seed:", self.seed_spin)
        self.details = QLabel()
        self.details.setObjectName("synthesis_details")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.synth_button = self._button("&Synthesize", "synthesis_run", self.synthesize,
                                         "Search a four-bar whose coupler point passes the targets in order")
        self.stop_button = self._button("S&top", "synthesis_stop", self.stop, "End the search: keep the best so far")
        self.open_button = self._button("&Open as model", "synthesis_open", self.open_as_model,
                                        "Open the best linkage as a new model (asks to save the current one first)")
        self.close_button = self._button("Close", "synthesis_close", self.close, "")
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for w in (self.synth_button, self.stop_button, self.open_button, self.close_button):
            buttons.addWidget(w)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.headline)
        layout.addLayout(targets_row)
        layout.addLayout(form)
        layout.addWidget(self.details, 1)
        layout.addLayout(buttons)
        self.resize(560, 360)

    def _set_headline(self, text: str, level: str) -> None:
        self.headline.setText(text)
        self.headline.setProperty("level", level)
        self.headline.setStyleSheet(f"color: {LEVEL_COLOURS.get(level, LEVEL_COLOURS['ok'])}")

    def update_state(self) -> None:
        running = self.worker.is_running()
        n = len(self.targets)
        self.count_label.setText(f"{n} target{'s' if n != 1 else ''}"
                                 + (f" (at least {MIN_TARGETS})" if n < MIN_TARGETS else ""))
        self.pick_button.setEnabled(not running)
        self.remove_button.setEnabled(bool(n) and not running)
        self.clear_button.setEnabled(bool(n) and not running)
        self.synth_button.setEnabled(n >= MIN_TARGETS and not running)
        self.stop_button.setEnabled(running)
        self.open_button.setEnabled(self.candidate is not None and not running)
        for w in (self.tolerance_edit, self.time_spin, self.seed_spin):
            w.setEnabled(not running)

    # ---- targets ---------------------------------------------------------------------------------------------
    @property
    def picking(self) -> bool:
        return self.picker.active

    def toggle_picking(self) -> None:
        self.set_picking(not self.picking)

    def set_picking(self, on: bool) -> None:
        if on and self.worker.is_running():
            on = False
        if on:
            self.canvas.cancel()  # an armed palette tool or pending joint would otherwise wait for the next click
            self.canvas.setCursor(Qt.CursorShape.CrossCursor)
            self._set_headline("Click target points on the canvas; Esc ends picking.", "busy")
        else:
            self.canvas.unsetCursor()
        self.picker.active = on
        self.pick_button.setChecked(on)
        self.update_state()

    def add_target(self, x: float, y: float) -> None:
        self.targets.append((x, y))
        self._targets_changed()

    def remove_last(self) -> None:
        if self.targets:
            self.targets.pop()
            self._targets_changed()

    def clear_targets(self) -> None:
        self.targets.clear()
        self._targets_changed()

    def _targets_changed(self) -> None:
        """A changed target list: the candidate no longer belongs to it."""
        self.candidate = None
        self.result = None
        self.details.setText("")
        self._refresh_picture()
        self.update_state()

    # ---- the search --------------------------------------------------------------------------------------------
    def options(self) -> tuple[float, float, int] | str:
        """(tolerance, time budget [s], seed), or what is wrong with them."""
        text = self.tolerance_edit.text().strip()
        try:
            tolerance = float(text)
        except ValueError:
            return f"the tolerance {text!r} is not a number"
        if not (math.isfinite(tolerance) and tolerance > 0):
            return f"the tolerance must be a positive number, not {text!r}"
        return tolerance, float(self.time_spin.value()), int(self.seed_spin.value())

    def synthesize(self) -> bool:
        """Start the search on the targets; False (with the reason shown) when it cannot start."""
        if self.worker.is_running():
            return False
        self.set_picking(False)
        if len(self.targets) < MIN_TARGETS:
            self._set_headline(f"Pick at least {MIN_TARGETS} target points (now {len(self.targets)}).", "error")
            return False
        opts = self.options()
        if isinstance(opts, str):
            self._set_headline(f"Cannot synthesize: {opts}.", "error")
            return False
        tolerance, max_time_s, seed = opts
        self.candidate = self.result = None
        self._refresh_picture()
        self.details.setText("")
        self._set_headline(f"Searching a four-bar through {len(self.targets)} targets…", "busy")
        self.worker.start(np.array(self.targets, float), tolerance, max_time_s, seed)
        self.update_state()
        return True

    def stop(self) -> None:
        if self.worker.is_running():
            self.worker.stop()
            self._set_headline("Stopping…", "busy")

    def _on_candidate(self, cand: Candidate) -> None:
        if not self.worker.is_running() and self.result is not None:
            return  # a late candidate of a search already reported
        self.candidate = cand
        self._refresh_picture()
        self._set_headline(f"Searching… best so far: error {cand.error:.3g} of the longest link "
                           f"({cand.evaluations} linkages tried, {cand.elapsed_s:.1f} s)", "busy")
        self.details.setText("\n".join(cand.summary()))
        self.sig_candidate.emit(cand)

    def _on_finished(self, res: SynthesisResult) -> None:
        self.result = res
        if res.best is not None:
            self.candidate = res.best
            self.details.setText("\n".join(res.best.summary()))
        level = "ok" if res.status == Status.CONVERGED else ("error" if res.best is None else "warning")
        self._set_headline(res.message or res.status.value, level)
        self._refresh_picture()
        self.update_state()
        self.sig_finished.emit(res)

    # ---- opening ---------------------------------------------------------------------------------------------
    def open_as_model(self) -> bool:
        """Open the best candidate as a new untitled document (the window asks to save the current one's changes
        first). True when opened."""
        cand = self.candidate
        if cand is None or self.worker.is_running():
            return False
        try:
            model = model_from_data(cand.to_model_data("synthesized_four_bar"), "<synthesized four-bar>")
        except ModelError as exc:
            self._set_headline(f"Cannot open the linkage as a model: {exc.diagnostics[0].message}", "error")
            return False
        if not self.main_window.open_untitled(model, OPEN_TEXT):
            self._set_headline("Not opened: the current model was kept.", "warning")
            return False
        self._set_headline("Opened the linkage as a new model (untitled: Save asks where to keep it).", "ok")
        return True

    # ---- overlay ---------------------------------------------------------------------------------------------
    def _refresh_picture(self) -> None:
        cand = self.candidate
        linkage, curve, fitted = None, (), ()
        if cand is not None:
            g = cand.geometry
            A, B, P, _ = g.positions(np.array([cand.crank_angles[0]]))
            pt = lambda v: (float(v[0]), float(v[1]))  # noqa: E731
            linkage = Linkage4(pt(g.O2), pt(g.O4), pt(A[0]), pt(B[0]), pt(P[0]))
            curve = tuple(pt(p) for p in cand.coupler_curve(CURVE_SAMPLES))
            fitted = tuple(pt(p) for p in cand.fitted)
        self.picture = SynthesisPicture(tuple(self.targets), fitted, curve, linkage)
        self.canvas.viewport().update()

    def paint(self, painter: QPainter) -> None:
        """The canvas's overlay painter: the targets and the candidate while the dialog is shown."""
        if not self.isVisible() or self.picture.empty:
            self.painted = {}
            return
        try:
            self.painted = paint_synthesis(self.canvas, painter, self.picture)
        except Exception:  # a painting bug must never break the canvas's paint (a traceback per frame)
            log.warning("cannot paint the synthesis overlay", exc_info=True)
            self.painted = {}

    # ---- keys and closing ------------------------------------------------------------------------------------
    def keyPressEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        if event.key() == Qt.Key.Key_Escape and self.picking:
            self.set_picking(False)
            return
        super().keyPressEvent(event)

    def hideEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        self.set_picking(False)
        self.worker.stop()
        self.canvas.viewport().update()
        super().hideEvent(event)

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        super().showEvent(event)
        self.canvas.viewport().update()


def synthesis_dialog(window: Any) -> SynthesisDialog:
    """The window's synthesis dialog, created on first use, shown and raised."""
    dialog = getattr(window, "synthesis_dialog", None)
    if dialog is None:
        dialog = window.synthesis_dialog = SynthesisDialog(window)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog


__all__ = ["MIN_TARGETS", "OPEN_TEXT", "SynthesisDialog", "SynthesisWorker", "TargetPicker", "synthesis_dialog"]
