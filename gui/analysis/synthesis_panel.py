"""*Analysis → Synthesize linkage…*: path generation by a four-bar or a six-bar (a point through target points, with
or without prescribed timing) and function generation (the output angle as a function of the input angle), the candidates drawn
on the canvas as the search improves them, the best one opened as a model.

:class:`SynthesisDialog` is a non-modal dialog, one per window, created on first use by :func:`synthesis_dialog` and
kept on the window for the session: closing hides it, and everything typed in it (targets, angles, the function,
the options) is there again when it is reopened, whichever mode is shown.

* **Path generation** (:class:`~mechstudio.gui.analysis.synthesis_tables.PathPage`): the linkage (a four-bar, or a
  Watt I/II or Stephenson I/III six-bar: :mod:`mechstudio.core.analysis.synthesis_sixbar`; choosing a six-bar raises
  an untouched time budget to the six-bar's default), the targets' table (x, y
  [m] and, with *Prescribed timing*, the crank angle [deg] at each target). Targets are clicked on the canvas
  (*Pick on canvas*: :class:`~mechstudio.gui.analysis.synthesis_worker.TargetPicker` takes the clicks first, so a
  click neither selects nor moves anything and adds no undo step; the point is rounded to a tenth of a pixel) or
  typed (*Add row*); rows are removed with *Remove* or Delete; the canvas's numbered markers follow the table.
  Switching timing off keeps the typed angles (greyed, not used).
* **Function generation** (:class:`~mechstudio.gui.analysis.synthesis_tables.FunctionPage`): angle pairs typed in
  a table, or a function y = f(x) typed as an expression and sampled at Chebyshev points over [x start, x end],
  scaled to the input's and the output's rotations [deg] (:mod:`mechstudio.gui.analysis.synthesis_inputs`);
  relative angles (the search picks the starting angles) or absolute ones (from the ground line); the ground length.
  It starts with Freudenstein's textbook case, y = log10(x) on [1, 2], the input turning 60 deg and the output 90.
* **Synthesize** checks the inputs (a refusal is the headline, in red, and its cell or field is marked; nothing is
  started) and runs :func:`~mechstudio.core.analysis.synthesis.synthesize_path`,
  :func:`~mechstudio.core.analysis.synthesis_sixbar_path.synthesize_sixbar_path` or
  :func:`~mechstudio.core.analysis.synthesis.synthesize_function` on a Python thread
  (:class:`~mechstudio.gui.analysis.synthesis_worker.SynthesisWorker`); each improved candidate is drawn on the canvas
  (:mod:`mechstudio.gui.editor.synthesis_overlay`) and summarised in the dialog; a function generator's achieved
  output angles and their errors [deg] fill the pairs' table. *Stop* ends the search with the best so far. Each
  mode keeps its own result.
* **Open as model** opens the best candidate (:meth:`Candidate.to_model_data`) as a new untitled document through the
  window's :meth:`open_untitled` (which first asks to save the current document's changes, as File → New does).

Bad input and failures are messages in the dialog, never a traceback.
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QButtonGroup, QDialog, QHBoxLayout, QLabel, QRadioButton, QStackedWidget, QVBoxLayout

from mechstudio.core.analysis.synthesis import Candidate, SynthesisResult, synthesize_function, synthesize_path
from mechstudio.core.analysis.synthesis_sixbar_path import SixBarCandidate, synthesize_sixbar_path
from mechstudio.core.errors import ModelError
from mechstudio.core.model import model_from_data
from mechstudio.core.types import Status
from mechstudio.gui.analysis.panel import LEVEL_COLOURS
from mechstudio.gui.analysis.synthesis_inputs import (ACHIEVED_COL, ANGLE_COL, ERROR_COL, X_COL, Y_COL, Problem,
                                                      pair_inputs, parse_number, path_inputs)
from mechstudio.gui.analysis.synthesis_tables import (DEFAULT_TIME_S, FOUR_BAR, SIX_BAR_TIME_S, FunctionPage, OptionsBox,
                                                    PathPage, push_button)
from mechstudio.gui.analysis.synthesis_worker import SynthesisWorker, TargetPicker
from mechstudio.gui.editor.synthesis_overlay import (SynthesisPicture, candidate_picture, fit_picture, paint_synthesis,
                                                     picture_in_view)

log = logging.getLogger(__name__)

#: the synthesis needs at least this many targets (core.analysis.synthesis.synthesize_path)
MIN_TARGETS = 5
#: samples of the drawn coupler curve
CURVE_SAMPLES = 361
#: undo text of the opened model's edit (File → New's empty model, then this one step)
OPEN_TEXT = "Synthesized linkage"
PATH, FUNCTION = "path", "function"
HINTS = {PATH: "Pick at least 5 target points on the canvas (or type them), in the order the coupler point passes "
               "them, then Synthesize.",
         FUNCTION: "Type a function y = f(x) or angle pairs, then Synthesize: a four-bar whose output angle follows "
                   "its input angle."}
#: Fit view leaves this much room: the picture's size times FIT_MARGIN fills the viewport
FIT_MARGIN = 1.25


@dataclass
class Outcome:
    """One mode's latest search: the candidate shown and the final result (None while searching)."""
    candidate: Candidate | None = None
    result: SynthesisResult | None = None


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
        self.setWindowTitle("Synthesize linkage")
        self.setModal(False)
        self.outcomes = {PATH: Outcome(), FUNCTION: Outcome()}
        self.running_mode: str | None = None
        self.picture = SynthesisPicture()
        self.painted: dict[int, Any] = {}
        self.problem: Problem | None = None
        self.worker = SynthesisWorker(self)
        self.worker.candidate.connect(self._on_candidate)
        self.worker.finished.connect(self._on_finished)
        self.picker = TargetPicker(self.canvas, self)
        self.picker.picked.connect(self.add_target)
        self.picker.ended.connect(lambda: self.set_picking(False))
        self.canvas.overlay_painters.append(self.paint)
        self._build()
        self._set_headline(HINTS[PATH], "busy")
        self._inputs_changed()

    # ---- layout ----------------------------------------------------------------------------------------------
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
        self.path_radio = QRadioButton("Pat&h generation")
        self.path_radio.setObjectName("synthesis_mode_path")
        self.path_radio.setToolTip("A coupler point through target points, in order")
        self.function_radio = QRadioButton("&Function generation")
        self.function_radio.setObjectName("synthesis_mode_function")
        self.function_radio.setToolTip("The output (rocker) angle as a function of the input (crank) angle")
        self.mode_group = QButtonGroup(self)
        self.mode_group.addButton(self.path_radio)
        self.mode_group.addButton(self.function_radio)
        self.path_radio.setChecked(True)
        self.mode_group.buttonToggled.connect(lambda _b, on: on and self._on_mode())
        modes = QHBoxLayout()
        modes.addWidget(self.path_radio)
        modes.addWidget(self.function_radio)
        modes.addStretch(1)
        self.path_page = PathPage()
        self.pick_button = self.path_page.pick_button
        self.remove_button = self.path_page.remove_button
        self.clear_button = self.path_page.clear_button
        self.count_label = self.path_page.count_label
        self.targets_table = self.path_page.table
        self.timing_check = self.path_page.timing_check
        self.pick_button.clicked.connect(lambda _c=False: self.toggle_picking())
        self.path_page.add_button.clicked.connect(lambda _c=False: self.add_row())
        self.remove_button.clicked.connect(lambda _c=False: self.remove_selected())
        self.clear_button.clicked.connect(lambda _c=False: self.clear_targets())
        self.timing_check.toggled.connect(self._on_timing)
        self.path_page.linkage_combo.currentIndexChanged.connect(lambda _i: self._on_linkage())
        self.targets_table.edited.connect(self._inputs_changed)
        self.function_page = FunctionPage()
        self.pairs_table = self.function_page.table
        self.function_page.changed.connect(self._inputs_changed)
        self.function_page.remove_button.clicked.connect(lambda _c=False: self.remove_selected())
        self.function_page.add_button.clicked.connect(lambda _c=False: self.add_row())
        self.pages = QStackedWidget()
        self.pages.addWidget(self.path_page)
        self.pages.addWidget(self.function_page)
        self.options_box = OptionsBox()
        for name in ("tolerance_edit", "function_tolerance_edit", "time_spin", "seed_spin"):
            setattr(self, name, getattr(self.options_box, name))
        self.details = QLabel()
        self.details.setObjectName("synthesis_details")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.details.setMinimumHeight(4 * self.details.fontMetrics().lineSpacing())
        self.fit_button = push_button("F&it view", "synthesis_fit", "Zoom the canvas to the targets and the linkage")
        self.fit_button.clicked.connect(lambda _c=False: self.fit_view())
        self.synth_button = push_button("&Synthesize", "synthesis_run", "Search a linkage for the task")
        self.synth_button.clicked.connect(lambda _c=False: self.synthesize())
        self.stop_button = push_button("S&top", "synthesis_stop", "End the search: keep the best so far")
        self.stop_button.clicked.connect(lambda _c=False: self.stop())
        self.open_button = push_button("&Open as model", "synthesis_open",
                                       "Open the best linkage as a new model (asks to save the current one first)")
        self.open_button.clicked.connect(lambda _c=False: self.open_as_model())
        self.close_button = push_button("Close", "synthesis_close", "")
        self.close_button.clicked.connect(lambda _c=False: self.close())
        buttons = QHBoxLayout()
        buttons.addWidget(self.fit_button)
        buttons.addStretch(1)
        for w in (self.synth_button, self.stop_button, self.open_button, self.close_button):
            buttons.addWidget(w)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.headline)
        layout.addLayout(modes)
        layout.addWidget(self.pages, 3)
        layout.addWidget(self.options_box)
        layout.addWidget(self.details, 1)
        layout.addLayout(buttons)
        self.resize(600, 640)

    def _set_headline(self, text: str, level: str) -> None:
        self.headline.setText(text)
        self.headline.setProperty("level", level)
        self.headline.setStyleSheet(f"color: {LEVEL_COLOURS.get(level, LEVEL_COLOURS['ok'])}")

    # ---- state ---------------------------------------------------------------------------------------------------
    @property
    def mode(self) -> str:
        return FUNCTION if self.function_radio.isChecked() else PATH

    def set_mode(self, mode: str) -> None:
        (self.function_radio if mode == FUNCTION else self.path_radio).setChecked(True)

    @property
    def candidate(self) -> Candidate | None:
        """The current mode's candidate shown (the best so far while searching)."""
        return self.outcomes[self.mode].candidate

    @property
    def result(self) -> SynthesisResult | None:
        return self.outcomes[self.mode].result

    @property
    def targets(self) -> list[tuple[float, float]]:
        """The table's targets whose x and y are numbers [m], in order (what the canvas shows)."""
        return [p for _, p in self.numbered_targets()]

    def numbered_targets(self) -> list[tuple[int, tuple[float, float]]]:
        """(row number from 1, (x, y) [m]) of the table's rows whose x and y are numbers."""
        out = []
        for k, row in enumerate(self.targets_table.rows(), start=1):
            x, y = parse_number(row[X_COL]), parse_number(row[Y_COL])
            if x is not None and y is not None:
                out.append((k, (x, y)))
        return out

    def update_state(self) -> None:
        running = self.worker.is_running()
        n = self.targets_table.rowCount()
        self.count_label.setText(f"{n} target{'s' if n != 1 else ''}"
                                 + (f" (at least {MIN_TARGETS})" if n < MIN_TARGETS else ""))
        for w in (self.path_page, self.function_page, self.path_radio, self.function_radio, self.options_box):
            w.setEnabled(not running)
        self.remove_button.setEnabled(bool(n))
        self.clear_button.setEnabled(bool(n))
        self.function_page.remove_button.setEnabled(bool(self.pairs_table.rowCount()))
        self.synth_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.open_button.setEnabled(self.candidate is not None and not running)
        self.fit_button.setEnabled(not self.picture.empty)

    def _on_mode(self) -> None:
        function = self.mode == FUNCTION
        if function:
            self.set_picking(False)
        self.pages.setCurrentWidget(self.function_page if function else self.path_page)
        self.check()
        self.options_box.set_function(function)
        self._show_outcome()
        self._refresh_picture()
        self.update_state()

    def _show_outcome(self) -> None:
        """The headline and details of the current mode's result (or its hint)."""
        out = self.outcomes[self.mode]
        self.details.setText(self._summary(out.candidate) if out.candidate is not None else "")
        if out.result is not None:
            self._set_headline(out.result.message or out.result.status.value, self._level(out.result))
        else:
            self._set_headline(HINTS[self.mode], "busy")

    # ---- inputs --------------------------------------------------------------------------------------------------
    @property
    def picking(self) -> bool:
        return self.picker.active

    def toggle_picking(self) -> None:
        self.set_picking(not self.picking)

    def set_picking(self, on: bool) -> None:
        if on and (self.worker.is_running() or self.mode != PATH):
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
        """Append a target [m] (a click: rounded to a tenth of the canvas's pixel, so the table shows exactly the
        point the search gets)."""
        decimals = max(0, math.ceil(math.log10(max(self.canvas.scale_px, 1e-9))) + 1)
        self.targets_table.append_row([f"{round(x, decimals):.{decimals}f}", f"{round(y, decimals):.{decimals}f}",
                                       ""])
        self._inputs_changed()

    def add_row(self) -> None:
        """A new row to type in (targets or pairs, by the mode), its first cell being edited."""
        table = self.pairs_table if self.mode == FUNCTION else self.targets_table
        if table.read_only:
            return
        r = table.append_row([])
        table.setCurrentCell(r, 0)
        table.editItem(table.item(r, 0))
        self._table_changed()

    def remove_selected(self) -> None:
        """Remove the selected rows of the mode's table, or its last row when none is selected."""
        table = self.pairs_table if self.mode == FUNCTION else self.targets_table
        if table.read_only or not table.rowCount():
            return
        table.remove_rows(table.selected_rows() or [table.rowCount() - 1])
        self._table_changed()

    def remove_last(self) -> None:
        if self.targets_table.rowCount():
            self.targets_table.remove_rows([self.targets_table.rowCount() - 1])
            self._inputs_changed()

    def clear_targets(self) -> None:
        self.targets_table.set_rows([])
        self._inputs_changed()

    def _table_changed(self) -> None:
        if self.mode == FUNCTION:
            self.function_page.sync_typed()
        self._inputs_changed()

    def _on_linkage(self) -> None:
        """A six-bar's search takes longer: an untouched time budget follows the linkage's default."""
        six = self.path_page.linkage != FOUR_BAR
        old, new = (DEFAULT_TIME_S, SIX_BAR_TIME_S) if six else (SIX_BAR_TIME_S, DEFAULT_TIME_S)
        if self.time_spin.value() == old:
            self.time_spin.setValue(new)

    def _on_timing(self, on: bool) -> None:
        self.targets_table.set_column_enabled(ANGLE_COL, on)
        self._inputs_changed()

    def _inputs_changed(self) -> None:
        """Any edit of the inputs: the mode's result no longer belongs to them; check them again (marking the
        offending cell or field) and redraw."""
        mode = self.mode
        if mode == FUNCTION:
            self.function_page.refresh()  # a function's pairs again (the result columns cleared)
        self.outcomes[mode] = Outcome()
        self.check()
        self.details.setText("")
        if self.headline.property("level") != "busy":  # a refusal or the old result's message: no longer true
            self._set_headline(HINTS[mode], "busy")
        self._refresh_picture()
        self.update_state()

    def check(self) -> tuple[Any, ...] | Problem:
        """The current mode's inputs for the core, or the first problem (drawn on its cell or field, and under the
        table)."""
        page = self.function_page
        if self.mode == FUNCTION:
            problem_or = (page.problem if page.from_expression and page.problem is not None else
                          pair_inputs(self.pairs_table.rows(), page.absolute_check.isChecked()))
        else:
            problem_or = path_inputs(self.targets_table.rows(), self.timing_check.isChecked())
        problem = problem_or if isinstance(problem_or, Problem) else None
        if self.mode == FUNCTION:
            self.function_page.mark(problem)
        else:
            self.targets_table.mark(problem)
            label = self.path_page.problem_label
            label.setText(problem.message if problem is not None else "")
            # too few targets is no cell's fault, and while they are being picked the count says it already
            label.setVisible(problem is not None and problem.row is not None)
        self.problem = problem
        return problem_or

    def options(self) -> tuple[float, float, int] | str:
        """(tolerance (of the longest link, or [rad] in function mode), time budget [s], seed), or what is wrong."""
        return self.options_box.options(self.mode == FUNCTION)

    def ground_length(self) -> float | str:
        text = self.function_page.ground_edit.text().strip()
        value = parse_number(text)
        return value if value is not None and value > 0 else f"the ground length must be a positive number, " \
                                                              f"not {text!r}"

    # ---- the search ------------------------------------------------------------------------------------------
    def synthesize(self) -> bool:
        """Start the search of the current mode; False (with the reason in the headline) when it cannot start."""
        if self.worker.is_running():
            return False
        self.set_picking(False)
        mode = self.mode
        inputs = self.check()
        if isinstance(inputs, Problem):
            self._set_headline(f"Cannot synthesize: {inputs.message}.", "error")
            table = self.pairs_table if mode == FUNCTION else self.targets_table
            if inputs.row is not None and inputs.column is not None:
                table.show_cell(inputs.row, inputs.column)
            elif inputs.field is not None and inputs.field in self.function_page.edits:
                self.function_page.edits[inputs.field].setFocus()
            return False
        opts = self.options()
        ground = self.ground_length() if mode == FUNCTION else 1.0
        for bad in (opts, ground):
            if isinstance(bad, str):
                self._set_headline(f"Cannot synthesize: {bad}.", "error")
                return False
        tolerance, max_time_s, seed = opts  # type: ignore[misc]
        search: Callable[[Callable[[Candidate], bool]], SynthesisResult]
        if mode == FUNCTION:
            theta, psi = inputs
            absolute = self.function_page.absolute_check.isChecked()
            search = lambda progress: synthesize_function(  # noqa: E731
                theta, psi, absolute=absolute, ground_length=float(ground), tolerance=tolerance, seed=seed,
                max_time_s=max_time_s, progress=progress)
            what = f"a function generator for {len(theta)} angle pairs"
        else:
            targets, crank_angles = inputs
            linkage = self.path_page.linkage
            if linkage == FOUR_BAR:
                search = lambda progress: synthesize_path(  # noqa: E731
                    targets, crank_angles=crank_angles, seed=seed, tolerance=tolerance, max_time_s=max_time_s,
                    progress=progress)
            else:
                search = lambda progress: synthesize_sixbar_path(  # noqa: E731
                    targets, linkage, crank_angles=crank_angles, seed=seed, tolerance=tolerance,
                    max_time_s=max_time_s, progress=progress, should_stop=self.worker.stop_requested)
            what = (f"a {self.path_page.linkage_combo.currentText().lower()} through {len(targets)} targets"
                    + (" with timing" if crank_angles is not None else ""))
        self.outcomes[mode] = Outcome()
        self.running_mode = mode
        self._refresh_picture()
        self.details.setText("")
        self._set_headline(f"Searching {what}…", "busy")
        self.worker.start(search)
        self.update_state()
        return True

    def stop(self) -> None:
        if self.worker.is_running():
            self.worker.stop()
            self._set_headline("Stopping…", "busy")

    def _on_candidate(self, cand: Candidate) -> None:
        mode = self.running_mode
        if mode is None or (not self.worker.is_running() and self.outcomes[mode].result is not None):
            return  # a late candidate of a search already reported
        self.outcomes[mode].candidate = cand
        if mode == self.mode:
            self._show_candidate(cand)
            unit = "of the longest link" if cand.kind == "path" else f"rad ({math.degrees(cand.error):.3g} deg)"
            self._set_headline(f"Searching… best so far: error {cand.error:.3g} {unit} ({cand.evaluations} "
                               f"linkages tried, {cand.elapsed_s:.1f} s)", "busy")
        self.sig_candidate.emit(cand)

    def _on_finished(self, res: SynthesisResult) -> None:
        mode = self.running_mode or self.mode
        out = self.outcomes[mode]
        out.result = res
        if res.best is not None:
            out.candidate = res.best
        if mode == self.mode:
            if out.candidate is not None:
                self._show_candidate(out.candidate)
            self._set_headline(res.message or res.status.value, self._level(res))
        self.update_state()
        self.sig_finished.emit(res)

    @staticmethod
    def _level(res: SynthesisResult) -> str:
        return "ok" if res.status == Status.CONVERGED else ("error" if res.best is None else "warning")

    @staticmethod
    def _summary(cand: Candidate) -> str:
        lines = cand.summary()
        if cand.kind == "function":
            lines[0] = f"error: {math.degrees(cand.error):.3g} deg (output angle; {cand.error:.3g} rad)"
        return "\n".join(lines)

    def _show_candidate(self, cand: Candidate) -> None:
        self.details.setText(self._summary(cand))
        if cand.kind == "function":
            achieved = np.degrees(cand.fitted[:, 1])
            error = np.degrees(cand.fitted[:, 1] - cand.targets[:, 1])
            self.pairs_table.set_column(ACHIEVED_COL, [f"{v:.10g}" for v in achieved])
            self.pairs_table.set_column(ERROR_COL, [f"{v:.2g}" for v in error])
        self._refresh_picture()
        if cand.kind == "function" and not self.in_view():  # placed by the core at the origin: bring it into view
            self.fit_view()

    # ---- opening ---------------------------------------------------------------------------------------------
    def open_as_model(self) -> bool:
        """Open the best candidate as a new untitled document (the window asks to save the current one's changes
        first). True when opened."""
        cand = self.candidate
        if cand is None or self.worker.is_running():
            return False
        name = ("synthesized_function_generator" if cand.kind == "function" else
                "synthesized_six_bar" if isinstance(cand, SixBarCandidate) else "synthesized_four_bar")
        try:
            model = model_from_data(cand.to_model_data(name), f"<{name}>")
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
        numbered = self.numbered_targets() if self.mode == PATH else []
        self.picture = candidate_picture(self.candidate, tuple(p for _, p in numbered), CURVE_SAMPLES,
                                         tuple(k for k, _ in numbered))
        self.fit_button.setEnabled(not self.picture.empty)
        self.canvas.viewport().update()

    def in_view(self) -> bool:
        """Whether everything drawn lies in the canvas's viewport."""
        return picture_in_view(self.canvas, self.picture)

    def fit_view(self) -> None:
        """Zoom and centre the canvas on the targets and the candidate."""
        fit_picture(self.canvas, self.picture, FIT_MARGIN)

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
    """The window's synthesis dialog, created on first use (then kept on the window for the session, with all that
    was typed in it), shown and raised."""
    dialog = getattr(window, "synthesis_dialog", None)
    if dialog is None:
        dialog = window.synthesis_dialog = SynthesisDialog(window)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog


__all__ = ["FUNCTION", "MIN_TARGETS", "OPEN_TEXT", "PATH", "SynthesisDialog", "SynthesisWorker", "TargetPicker",
           "synthesis_dialog"]
