"""The synthesis dialog's two input pages: :class:`PathPage` (the targets' table: x, y and, with prescribed timing, a
crank angle per target) and :class:`FunctionPage` (angle pairs typed in a table, or a function y = f(x) typed as an
expression and sampled at Chebyshev points), both built on :class:`NumberTable`.

The tables hold the texts as typed (what the core receives is exactly what the cells show); the checks are
:mod:`mechstudio.gui.analysis.synthesis_inputs`', and a refusal is drawn on its cell or field
(:meth:`NumberTable.mark`, :meth:`FunctionPage.mark`): a red background and the message as its tooltip. Nothing here
touches the model document: editing a table adds no undo step.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QKeyEvent
from PySide6.QtWidgets import (QAbstractItemView, QButtonGroup, QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout,
                               QGridLayout, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPushButton, QRadioButton,
                               QSpinBox, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from mechstudio.core.analysis.synthesis_sixbar import TOPOLOGIES
from mechstudio.gui.analysis.synthesis_inputs import (ANGLE_COL, MAX_COUNT, MIN_COUNT, FunctionSpec, Problem,
                                                      function_pairs, parse_number)

#: background of a cell or field a refusal is about
PROBLEM_COLOR = "#f8d0cc"
#: text colour of a disabled (kept, not used) column: crank angles while timing is off
OFF_COLOR = "#9a9a9a"
#: rows a table shows without scrolling
VISIBLE_ROWS = 6
#: defaults of the options: path tolerance (of the longest link), function tolerance [deg], time budget [s], seed
DEFAULT_TOLERANCE, DEFAULT_FUNCTION_TOLERANCE_DEG, DEFAULT_TIME_S, DEFAULT_SEED = 1e-4, 0.005, 60.0, 0
#: a six-bar's search space is larger (15 dimensions): its default time budget [s]
SIX_BAR_TIME_S = 240.0
FOUR_BAR = "fourbar"
#: the linkages of path generation: (key, title); the six-bars are the core's topologies
LINKAGES = ((FOUR_BAR, "Four-bar"),) + tuple((name, f"{top.title} six-bar") for name, top in TOPOLOGIES.items())


def push_button(text: str, name: str, tip: str) -> QPushButton:
    b = QPushButton(text)
    b.setObjectName(name)
    b.setAutoDefault(False)
    b.setToolTip(tip)
    return b


class NumberTable(QTableWidget):
    """A table of numbers typed as text. ``editable``: the columns the user may type in (the others are results,
    read-only); the row header numbers the rows from 1 (as the canvas numbers the targets). ``edited`` is emitted
    when the user changes a cell or deletes rows (Delete key), never by :meth:`set_rows` and friends."""

    edited = Signal()

    def __init__(self, headers: Sequence[str], editable: Sequence[int], name: str, parent: QWidget | None = None):
        super().__init__(0, len(headers), parent)
        self.setObjectName(name)
        self.setHorizontalHeaderLabels(list(headers))
        self.editable_columns = set(editable)
        self.disabled_columns: set[int] = set()
        self.read_only = False
        self._quiet = False
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
                             | QAbstractItemView.EditTrigger.AnyKeyPressed)
        rows_px = self.verticalHeader().defaultSectionSize() * VISIBLE_ROWS
        self.setMinimumHeight(rows_px + header.sizeHint().height() + 2 * self.frameWidth())
        self.itemChanged.connect(self._on_item_changed)

    # ---- contents ----------------------------------------------------------------------------------------
    def rows(self) -> list[list[str]]:
        """The texts of the editable columns, row by row."""
        cols = sorted(self.editable_columns)
        return [[self._text(r, c) for c in cols] for r in range(self.rowCount())]

    def _text(self, r: int, c: int) -> str:
        item = self.item(r, c)
        return item.text() if item is not None else ""

    def set_rows(self, rows: Sequence[Sequence[str]]) -> None:
        """Replace the rows (texts of the editable columns; the result columns are cleared)."""
        self._quiet = True
        try:
            self.setRowCount(0)
            for texts in rows:
                self._append(texts)
        finally:
            self._quiet = False

    def append_row(self, texts: Sequence[str]) -> int:
        """Append a row (quietly: the caller knows); its index."""
        self._quiet = True
        try:
            return self._append(texts)
        finally:
            self._quiet = False

    def _append(self, texts: Sequence[str]) -> int:
        r = self.rowCount()
        self.insertRow(r)
        cols = sorted(self.editable_columns)
        for c in range(self.columnCount()):
            k = cols.index(c) if c in cols else None
            self.setItem(r, c, QTableWidgetItem(texts[k] if k is not None and k < len(texts) else ""))
        self._style_row(r)
        return r

    def remove_rows(self, rows: Sequence[int]) -> None:
        self._quiet = True
        try:
            for r in sorted(set(rows), reverse=True):
                self.removeRow(r)
        finally:
            self._quiet = False

    def selected_rows(self) -> list[int]:
        return sorted({i.row() for i in self.selectedIndexes()})

    def set_column(self, col: int, texts: Sequence[str]) -> None:
        """Fill a (result) column; rows beyond ``texts`` are cleared."""
        self._quiet = True
        try:
            for r in range(self.rowCount()):
                item = self.item(r, col)
                if item is not None:
                    item.setText(texts[r] if r < len(texts) else "")
        finally:
            self._quiet = False

    # ---- editing state -----------------------------------------------------------------------------------
    def set_read_only(self, on: bool) -> None:
        self.read_only = on
        self._restyle()

    def set_column_enabled(self, col: int, on: bool) -> None:
        """A disabled column keeps its texts, greyed and read-only (crank angles while timing is off)."""
        (self.disabled_columns.discard if on else self.disabled_columns.add)(col)
        self._restyle()

    def _restyle(self) -> None:
        self._quiet = True
        try:
            for r in range(self.rowCount()):
                self._style_row(r)
        finally:
            self._quiet = False

    def _style_row(self, r: int) -> None:
        for c in range(self.columnCount()):
            item = self.item(r, c)
            if item is None:
                continue
            flags = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
            if c in self.editable_columns and c not in self.disabled_columns and not self.read_only:
                flags |= Qt.ItemFlag.ItemIsEditable
            item.setFlags(flags)
            off = c in self.disabled_columns or c not in self.editable_columns or self.read_only
            item.setForeground(QBrush(QColor(OFF_COLOR)) if off and c in self.editable_columns else QBrush())
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    # ---- problems ----------------------------------------------------------------------------------------
    def mark(self, problem: Problem | None) -> None:
        """Draw ``problem`` on its cell (red, the message as tooltip); None clears every mark."""
        self._quiet = True
        try:
            for r in range(self.rowCount()):
                for c in range(self.columnCount()):
                    item = self.item(r, c)
                    if item is not None and item.toolTip():
                        item.setBackground(QBrush())
                        item.setToolTip("")
            if problem is not None and problem.row is not None and problem.column is not None \
                    and problem.row < self.rowCount():
                item = self.item(problem.row, problem.column)
                if item is not None:
                    item.setBackground(QBrush(QColor(PROBLEM_COLOR)))
                    item.setToolTip(problem.message)
        finally:
            self._quiet = False

    def marked(self) -> tuple[int, int] | None:
        """The marked cell (row, column), if any (for tests)."""
        for r in range(self.rowCount()):
            for c in range(self.columnCount()):
                item = self.item(r, c)
                if item is not None and item.toolTip():
                    return r, c
        return None

    def show_cell(self, row: int, column: int) -> None:
        """Scroll to a cell and make it current without selecting it (a selected row would hide its mark)."""
        item = self.item(row, column)
        if item is not None:
            self.scrollToItem(item)
            self.clearSelection()
            self.selectionModel().setCurrentIndex(self.indexFromItem(item),
                                                  QItemSelectionModel.SelectionFlag.NoUpdate)

    # ---- events ------------------------------------------------------------------------------------------
    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        if not self._quiet and item.column() in self.editable_columns:
            self.edited.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt API
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and not self.read_only \
                and self.state() != QAbstractItemView.State.EditingState and self.selected_rows():
            self.remove_rows(self.selected_rows())
            self.edited.emit()
            return
        super().keyPressEvent(event)


class PathPage(QWidget):
    """Path generation's inputs: the linkage (a four-bar or a six-bar), pick/add/remove/clear, the timing switch
    and the targets' table."""

    @property
    def linkage(self) -> str:
        """The chosen linkage's key: ``fourbar`` or a six-bar topology of core.analysis.synthesis_sixbar."""
        return str(self.linkage_combo.currentData())

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.pick_button = push_button("&Pick on canvas", "synthesis_pick",
                                       "Each click on the canvas adds a target point; Esc or this button ends "
                                       "picking (nothing in the model is selected or moved)")
        self.pick_button.setCheckable(True)
        self.add_button = push_button("&Add row", "synthesis_add_row", "Add a target to type its coordinates")
        self.remove_button = push_button("&Remove", "synthesis_remove_rows",
                                         "Remove the selected targets (or the last one); Delete in the table too")
        self.clear_button = push_button("C&lear", "synthesis_clear", "Remove all target points")
        self.count_label = QLabel()
        self.count_label.setObjectName("synthesis_count")
        row = QHBoxLayout()
        for w in (self.pick_button, self.add_button, self.remove_button, self.clear_button):
            row.addWidget(w)
        row.addWidget(self.count_label, 1)
        self.timing_check = QCheckBox("Prescribed ti&ming: the crank angle at each target")
        self.timing_check.setObjectName("synthesis_timing")
        self.timing_check.setToolTip("Only the differences count (the rotation from the first target); the angles "
                                     "must increase or decrease and span less than a turn. Switched off, the typed "
                                     "angles are kept but not used.")
        self.linkage_combo = QComboBox()
        self.linkage_combo.setObjectName("synthesis_linkage")
        for key, title in LINKAGES:
            self.linkage_combo.addItem(title, key)
        self.linkage_combo.setToolTip("The linkage to synthesize. A four-bar passes up to 9 points exactly (5 with "
                                      "timing); a six-bar (a four-bar and a dyad) up to 15 (8 with timing), and its "
                                      "search takes minutes rather than seconds")
        linkage_label = QLabel("Lin&kage:")
        linkage_label.setBuddy(self.linkage_combo)
        kind = QHBoxLayout()
        kind.addWidget(linkage_label)
        kind.addWidget(self.linkage_combo)
        kind.addStretch(1)
        self.table = NumberTable(["x [m]", "y [m]", "crank angle [deg]"], (0, 1, 2), "synthesis_targets")
        self.table.set_column_enabled(ANGLE_COL, False)
        self.problem_label = problem_label("synthesis_targets_problem")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(kind)
        layout.addLayout(row)
        layout.addWidget(self.timing_check)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.problem_label)


def problem_label(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setStyleSheet("color: #b3261e")
    label.hide()
    return label


class FunctionPage(QWidget):
    """Function generation's inputs: the pairs' source (a function y = f(x) or typed pairs), the function's fields,
    relative or absolute angles, the ground length, and the pairs' table (input, wanted output; achieved output
    and its error once a result is shown). ``changed`` is emitted on every edit of an input."""

    changed = Signal()
    FIELDS = ("expression", "x_start", "x_end", "input_span_deg", "output_span_deg", "input_start_deg",
              "output_start_deg")

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        spec = FunctionSpec()
        self.expr_radio = QRadioButton("Function y = f(&x)")
        self.expr_radio.setObjectName("synthesis_source_expression")
        self.pairs_radio = QRadioButton("Typed angle &pairs")
        self.pairs_radio.setObjectName("synthesis_source_pairs")
        self.source_group = QButtonGroup(self)
        self.source_group.addButton(self.expr_radio)
        self.source_group.addButton(self.pairs_radio)
        self.expr_radio.setChecked(True)
        self.edits: dict[str, QLineEdit] = {}
        tips = {"expression": "y = f(x) with +, -, *, /, ** and sin, cos, tan, exp, log, log10, sqrt, ... (pi, e)",
                "x_start": "x at the first precision point's end of the range",
                "x_end": "x at the other end of the range",
                "input_span_deg": "how far the input (crank) turns while x runs from start to end [deg]",
                "output_span_deg": "how far the output (rocker) turns while y runs from f(start) to f(end) [deg]",
                "input_start_deg": "the input's angle from the ground line O2 -> O4 at x start [deg]",
                "output_start_deg": "the output's angle from the ground line at x start [deg]"}
        for name in self.FIELDS:
            e = QLineEdit(str(getattr(spec, name)))
            e.setObjectName(f"synthesis_{name}")
            e.setToolTip(tips[name])
            e.textEdited.connect(lambda _t: self.changed.emit())
            self.edits[name] = e
        self.count_spin = QSpinBox()
        self.count_spin.setObjectName("synthesis_count_points")
        self.count_spin.setRange(MIN_COUNT, MAX_COUNT)
        self.count_spin.setValue(spec.count)
        self.count_spin.setToolTip("Precision points, at Chebyshev spacing over the range of x")
        self.count_spin.valueChanged.connect(lambda _v: self.changed.emit())
        self.absolute_check = QCheckBox("A&bsolute angles (from the ground line); else the start angles are free")
        self.absolute_check.setObjectName("synthesis_absolute")
        self.absolute_check.setToolTip("Absolute: the angles are measured from the ground line O2 -> O4 (3 pairs "
                                       "or more). Otherwise only their changes count and the search picks the "
                                       "starting angles (5 pairs or more).")
        self.absolute_check.toggled.connect(lambda _on: self.changed.emit())
        self.ground_edit = QLineEdit("1")
        self.ground_edit.setObjectName("synthesis_ground_length")
        self.ground_edit.setToolTip("Ground link O2 -> O4, along +x from the origin [m]: the linkage's scale")
        self.ground_edit.textEdited.connect(lambda _t: self.changed.emit())
        grid = QGridLayout()
        grid.setHorizontalSpacing(6)
        grid.addWidget(QLabel("y ="), 0, 0)
        grid.addWidget(self.edits["expression"], 0, 1, 1, 3)
        grid.addWidget(QLabel("points:"), 0, 4)
        grid.addWidget(self.count_spin, 0, 5)
        grid.addWidget(QLabel("x from"), 1, 0)
        grid.addWidget(self.edits["x_start"], 1, 1)
        grid.addWidget(QLabel("to"), 1, 2, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.edits["x_end"], 1, 3)
        grid.addWidget(QLabel("input turns"), 2, 0)
        grid.addWidget(self.edits["input_span_deg"], 2, 1)
        grid.addWidget(QLabel("deg, output"), 2, 2, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.edits["output_span_deg"], 2, 3)
        grid.addWidget(QLabel("deg"), 2, 4)
        self.start_labels = (QLabel("start angles"), QLabel("deg,"), QLabel("deg"))
        grid.addWidget(self.start_labels[0], 3, 0)
        grid.addWidget(self.edits["input_start_deg"], 3, 1)
        grid.addWidget(self.start_labels[1], 3, 2, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.edits["output_start_deg"], 3, 3)
        grid.addWidget(self.start_labels[2], 3, 4)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        self.expression_box = QWidget()
        self.expression_box.setLayout(grid)
        grid.setContentsMargins(16, 0, 0, 0)
        source = QHBoxLayout()
        source.addWidget(self.expr_radio)
        source.addWidget(self.pairs_radio)
        source.addStretch(1)
        self.add_button = push_button("A&dd pair", "synthesis_add_pair", "Add an angle pair to type")
        self.remove_button = push_button("Remo&ve", "synthesis_remove_pairs",
                                         "Remove the selected pairs (or the last one); Delete in the table too")
        source.addWidget(self.add_button)
        source.addWidget(self.remove_button)
        ground = QHBoxLayout()
        ground.addWidget(self.absolute_check, 1)
        ground.addWidget(QLabel("ground:"))
        ground.addWidget(self.ground_edit)
        ground.addWidget(QLabel("m"))
        self.ground_edit.setMaximumWidth(70)
        self.table = NumberTable(["input [deg]", "wanted output [deg]", "achieved [deg]", "error [deg]"], (0, 1),
                                 "synthesis_pairs")
        self.table.edited.connect(self._on_table_edited)
        self.problem_label = problem_label("synthesis_function_problem")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(source)
        layout.addWidget(self.expression_box)
        layout.addLayout(ground)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.problem_label)
        #: the pairs typed in the table, kept while the table shows a function's pairs; at first the default
        #: function's pairs, rounded, as an example
        example = function_pairs(spec, False)
        self.typed_pairs: list[list[str]] = ([] if isinstance(example, Problem) else
                                             [[f"{a:.6g}", f"{b:.6g}"] for a, b in zip(*example)])
        self.tips = tips
        #: the function's problem (None: its pairs are in the table, or the typed pairs are used)
        self.problem: Problem | None = None
        self.source_group.buttonToggled.connect(self._on_source)
        self.refresh()

    @property
    def from_expression(self) -> bool:
        return self.expr_radio.isChecked()

    def spec(self) -> FunctionSpec:
        return FunctionSpec(**{n: self.edits[n].text() for n in self.FIELDS}, count=int(self.count_spin.value()))

    def _on_source(self, _button: Any, checked: bool) -> None:
        if checked:
            self.refresh()
            self.changed.emit()

    def _on_table_edited(self) -> None:
        self.sync_typed()
        self.changed.emit()

    def sync_typed(self) -> None:
        """Keep the typed pairs (after an edit or a removal in the table)."""
        if not self.from_expression:
            self.typed_pairs = self.table.rows()

    def refresh(self) -> Problem | None:
        """Show the pairs of the current source (a function's, read-only; or the typed ones) and the fields that
        count; returns the function's problem, if any."""
        expr = self.from_expression
        self.expression_box.setVisible(expr)
        absolute = self.absolute_check.isChecked()
        for name in ("input_start_deg", "output_start_deg"):
            self.edits[name].setEnabled(absolute)
        for w in self.start_labels:
            w.setEnabled(absolute)
        self.add_button.setVisible(not expr)
        self.remove_button.setVisible(not expr)
        problem = None
        if expr:
            pairs = function_pairs(self.spec(), absolute)
            if isinstance(pairs, Problem):
                problem = pairs
                self.table.set_rows([])
            else:
                self.table.set_rows([[f"{a:.10g}", f"{b:.10g}"] for a, b in zip(*pairs)])
            self.table.set_read_only(True)
        else:
            if self.table.read_only:  # coming from the function: the typed pairs again
                self.table.set_rows(self.typed_pairs)
            self.table.set_read_only(False)
        self.problem = problem
        return problem

    def mark(self, problem: Problem | None) -> None:
        """Draw ``problem`` on its field or cell and under the table; None clears."""
        for name, e in self.edits.items():
            bad = problem is not None and problem.field == name
            e.setStyleSheet(f"background: {PROBLEM_COLOR}" if bad else "")
            e.setToolTip(problem.message if bad and problem is not None else self.tips[name])
        self.count_spin.setStyleSheet(f"background: {PROBLEM_COLOR}" if problem is not None
                                      and problem.field == "count" else "")
        self.table.mark(problem)
        self.problem_label.setText(problem.message if problem is not None else "")
        self.problem_label.setVisible(problem is not None)


class OptionsBox(QWidget):
    """The search's options: the tolerance (path: of the longest link; function: of the output angle [deg], each
    mode its own field), the time budget [s] and the seed."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.tolerance_edit = QLineEdit(f"{DEFAULT_TOLERANCE:g}")
        self.tolerance_edit.setObjectName("synthesis_tolerance")
        self.tolerance_edit.setToolTip("Largest distance of a target from the coupler point, as a fraction of the "
                                       "longest link (the search stops once a linkage meets it)")
        self.function_tolerance_edit = QLineEdit(f"{DEFAULT_FUNCTION_TOLERANCE_DEG:g}")
        self.function_tolerance_edit.setObjectName("synthesis_function_tolerance")
        self.function_tolerance_edit.setToolTip("Largest error of the output angle at a precision point [deg]")
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
        self.seed_spin.setToolTip("The random search's seed: the same seed and inputs give the same linkage")
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.addRow("Tolerance (of the longest link):", self.tolerance_edit)
        self.form.addRow("Tolerance (output angle) [deg]:", self.function_tolerance_edit)
        row = QHBoxLayout()
        row.addWidget(QLabel("Time budget:"))
        row.addWidget(self.time_spin)
        row.addSpacing(12)
        row.addWidget(QLabel("Seed:"))
        row.addWidget(self.seed_spin)
        row.addStretch(1)
        self.form.addRow(row)
        self.set_function(False)

    def set_function(self, on: bool) -> None:
        """Show the tolerance field of function generation (else path generation's); both keep their texts."""
        self.form.setRowVisible(self.tolerance_edit, not on)
        self.form.setRowVisible(self.function_tolerance_edit, on)

    def options(self, function: bool) -> tuple[float, float, int] | str:
        """(tolerance (of the longest link, or [rad] for function generation), time budget [s], seed), or what is
        wrong."""
        text = (self.function_tolerance_edit if function else self.tolerance_edit).text().strip()
        tolerance = parse_number(text)
        if tolerance is None:
            return f"the tolerance {text!r} is not a number"
        if not tolerance > 0:
            return f"the tolerance must be a positive number, not {text!r}"
        return (math.radians(tolerance) if function else tolerance), float(self.time_spin.value()), \
            int(self.seed_spin.value())


__all__ = ["FunctionPage", "NumberTable", "OptionsBox", "PathPage", "push_button"]
