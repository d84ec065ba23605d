"""The panel the three analyses share, the worker thread that computes them, and the non-modal dialog that holds
both.

:class:`AnalysisPanel` shows a :class:`~mechstudio.gui.analysis.format.Report`: a headline (coloured by its
level: failures and refusals in red, unstable or neutral results in amber), detail lines, and one table per
result table, sized to its rows. Every text can be selected and copied.

:class:`AnalysisWorker` runs one job (:mod:`mechstudio.gui.analysis.jobs`) on a Python thread and delivers its
outcome by the Qt signal ``done``; the signal is emitted from the thread and queued to the GUI thread, so the
window keeps painting and answering while a large model is analysed (the panel shows a busy cursor and
"Computing…" meanwhile).

:class:`AnalysisDialog` runs its job on the document's current model when shown (and on *Run again*), shows
the report, and marks a result stale once the document's model is no longer the one it was computed for.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QAbstractScrollArea, QDialog, QHBoxLayout, QHeaderView, QLabel,
                               QPushButton, QScrollArea, QSizePolicy, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from mechstudio.core.model import Model
from mechstudio.gui.analysis.format import Report, Table
from mechstudio.gui.analysis.jobs import Outcome

log = logging.getLogger(__name__)

#: headline colours by report level
LEVEL_COLOURS = {"ok": "#1b6e20", "warning": "#9a5b00", "error": "#b00020", "busy": "#555555"}
#: a table taller than this many rows scrolls
MAX_VISIBLE_ROWS = 12
#: table rows are the font's height plus this [px]; columns are at least this wide [px]
ROW_PADDING_PX, MIN_COLUMN_PX = 8, 70
#: the dialog's width beyond its widest table: margins of the dialog, the panel and a vertical scroll bar [px]
TABLE_MARGIN_PX = 60


class AnalysisPanel(QWidget):
    """Headline, details and tables of a :class:`Report`, plus a row of buttons (``button_row``)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.headline = QLabel()
        self.headline.setObjectName("analysis_headline")
        self.headline.setWordWrap(True)
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.headline.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.headline.setFont(font)
        self.stale = QLabel("The model has changed since this result: Run again to update it.")
        self.stale.setObjectName("analysis_stale")
        self.stale.setWordWrap(True)
        self.stale.setStyleSheet(f"color: {LEVEL_COLOURS['warning']}")
        self.stale.hide()
        self.details = QLabel()
        self.details.setObjectName("analysis_details")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tables_box = QVBoxLayout()
        self.tables_box.setContentsMargins(0, 0, 0, 0)
        body = QWidget()
        inner = QVBoxLayout(body)
        inner.setContentsMargins(0, 0, 0, 0)
        inner.addWidget(self.details)
        inner.addLayout(self.tables_box)
        inner.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(body)
        self.button_row = QHBoxLayout()
        self.button_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.stale)
        layout.addWidget(scroll, 1)
        layout.addLayout(self.button_row)
        self.tables: list[QTableWidget] = []
        self.report: Report | None = None

    def add_button(self, text: str, name: str, slot: Callable[[], Any], index: int = -1) -> QPushButton:
        """A button at ``index`` of the button row (after the leading stretch; -1: last)."""
        button = QPushButton(text)
        button.setObjectName(name)
        button.setAutoDefault(False)
        button.clicked.connect(lambda _c=False: slot())
        self.button_row.insertWidget(index, button)
        return button

    def set_busy(self, text: str = "Computing…") -> None:
        self._set_headline(text, "busy")
        self.setCursor(Qt.CursorShape.BusyCursor)

    def _set_headline(self, text: str, level: str) -> None:
        self.headline.setText(text)
        self.headline.setProperty("level", level)
        self.headline.setStyleSheet(f"color: {LEVEL_COLOURS.get(level, LEVEL_COLOURS['ok'])}")

    def show_report(self, report: Report) -> None:
        self.unsetCursor()
        self.report = report
        self._set_headline(report.headline, report.level)
        self.details.setText("\n".join(report.details))
        self.details.setVisible(bool(report.details))
        while self.tables_box.count():
            w = self.tables_box.takeAt(0).widget()
            if w is not None:
                w.deleteLater()
        self.tables = []
        for spec in report.tables:
            title = QLabel(f"<b>{spec.title}</b>" + ("" if spec.rows else f": {spec.empty}"))
            self.tables_box.addWidget(title)
            table = self._table(spec)
            table.setVisible(bool(spec.rows))
            self.tables_box.addWidget(table)
            self.tables.append(table)

    def table(self, title: str) -> QTableWidget:
        """The shown table titled ``title`` (KeyError naming the titles otherwise)."""
        specs = self.report.tables if self.report else ()
        for spec, table in zip(specs, self.tables):
            if spec.title == title:
                return table
        raise KeyError(f"no table {title!r}; the tables are {[s.title for s in specs]}")

    def _table(self, spec: Table) -> QTableWidget:
        table = QTableWidget(len(spec.rows), len(spec.headers))
        table.setObjectName("analysis_table")
        table.setHorizontalHeaderLabels(list(spec.headers))
        table.verticalHeader().hide()
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        table.setAlternatingRowColors(True)
        table.setWordWrap(False)
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + ROW_PADDING_PX)
        for r, row in enumerate(spec.rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if c > 0 and _numeric(text):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(r, c, item)
        header = table.horizontalHeader()
        header.setMinimumSectionSize(MIN_COLUMN_PX)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)  # numbers stay under their headers, text columns show whole
        rows = min(len(spec.rows), MAX_VISIBLE_ROWS)
        row_px = table.verticalHeader().defaultSectionSize()
        height = header.sizeHint().height() + 2 * table.frameWidth() + rows * row_px
        table.setMinimumHeight(height)
        table.setMaximumHeight(height if len(spec.rows) <= MAX_VISIBLE_ROWS else 16777215)
        table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        table.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        fixed = len(spec.rows) <= MAX_VISIBLE_ROWS
        # as wide as its columns (no grey band beside them); as tall as its rows unless it scrolls
        table.setSizePolicy(QSizePolicy.Policy.Maximum,
                            QSizePolicy.Policy.Fixed if fixed else QSizePolicy.Policy.Expanding)
        return table

    def content_width(self) -> int:
        """The width [px] the widest table needs to show all its columns without scrolling."""
        widths = [t.horizontalHeader().length() + 2 * t.frameWidth()
                  + (t.verticalScrollBar().sizeHint().width() if t.rowCount() > MAX_VISIBLE_ROWS else 0)
                  for t in self.tables]
        return max(widths, default=0)


def _numeric(text: str) -> bool:
    try:
        float(text.replace("−", "-"))
        return True
    except ValueError:
        return text in ("—", "∞", "−∞")


class AnalysisWorker(QObject):
    """Runs ``job(model)`` on a Python thread; ``done(outcome)`` arrives on the GUI thread (queued)."""

    done = Signal(object)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._thread: threading.Thread | None = None
        self._done = threading.Event()

    def is_running(self) -> bool:
        """True from :meth:`start` until the outcome is handed over (``done`` is emitted after the job has ended,
        while the thread itself is still alive: a run asked for in its slot must start, not wait)."""
        return self._thread is not None and self._thread.is_alive() and not self._done.is_set()

    def start(self, job: Callable[[Model], Outcome], model: Model) -> None:
        self._done = done = threading.Event()

        def run() -> None:
            outcome = job(model)  # jobs never raise (mechstudio.gui.analysis.jobs.guarded)
            done.set()
            try:
                self.done.emit(outcome)
            except RuntimeError:  # the dialog was deleted meanwhile (the window closed): nobody to tell
                pass
        self._thread = threading.Thread(target=run, name=f"analysis-{job.__name__}", daemon=True)
        self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.is_running()


class AnalysisDialog(QDialog):
    """A non-modal dialog that runs ``job`` on the document's model and shows ``report(outcome)``."""

    sig_outcome = Signal(object)
    """Emitted with each :class:`Outcome` once it is shown."""

    def __init__(self, window: Any, title: str, name: str, job: Callable[[Model], Outcome],
                 report: Callable[[Outcome], Report]):
        super().__init__(window)
        self.main_window = window
        self.document = window.document
        self.job, self.report = job, report
        self.setObjectName(name)
        self.setWindowTitle(title)
        self.setModal(False)
        self.resize(720, 460)
        self.panel = AnalysisPanel(self)
        self.outcome: Outcome | None = None
        self._pending = False
        self.worker = AnalysisWorker(self)
        self.worker.done.connect(self._on_done)
        self.run_button = self.panel.add_button("&Run again", "analysis_run", self.run)
        self.close_button = self.panel.add_button("Close", "analysis_close", self.close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.panel)
        self.document.sig_model_changed.connect(lambda _m: self.update_state())
        for name in ("act_undo", "act_redo"):  # Ctrl+Z / Ctrl+Y work while the panel has the keyboard
            action = getattr(window, name, None)
            if action is not None:
                self.addAction(action)

    def run(self) -> None:
        """Analyse the document's current model (again); a run in progress finishes first, then this one."""
        if self.worker.is_running():
            self._pending = True
            return
        self.panel.set_busy(f"Computing on {self.document.display_name}…")
        self.run_button.setEnabled(False)
        self.worker.start(self.job, self.document.model)

    def _on_done(self, outcome: Outcome) -> None:
        if self._pending:
            self._pending = False
            self.run()
            return
        self.outcome = outcome
        self.run_button.setEnabled(True)
        try:
            report = self.report(outcome)
        except Exception as exc:  # a formatting bug is a message in the panel, never a traceback
            log.warning("cannot show the result of %s", self.objectName(), exc_info=True)
            report = Report(f"the result cannot be shown: {type(exc).__name__}: {exc}", "error")
        self.panel.show_report(report)
        self.fit_tables()
        self.update_state()
        self.sig_outcome.emit(outcome)

    def fit_tables(self) -> None:
        """Widen the dialog (within the screen) so that every table shows all its columns."""
        need = self.panel.content_width() + TABLE_MARGIN_PX
        screen = self.screen().availableGeometry().width() if self.screen() is not None else need
        if self.width() < need:
            self.resize(min(need, screen), self.height())

    def current(self) -> bool:
        """Whether the shown result belongs to the document's current model."""
        return self.outcome is not None and self.outcome.model == self.document.model

    def update_state(self) -> None:
        self.panel.stale.setVisible(self.outcome is not None and not self.current())


__all__ = ["AnalysisDialog", "AnalysisPanel", "AnalysisWorker", "LEVEL_COLOURS"]
