"""*Simulation → Parameter sweep…*: set up a sweep of the open model, run it on Dask, look at the results.

* **Parameters**: one row per ``NAME.FIELD`` (every numeric value of a named element; also added by right-click
  → *Sweep this* on an inspector field) with a range START..STOP and COUNT values for the grid.
* **Design**: grid (every combination), or random / Sobol samples over the ranges with a seed.
* **Metrics**: label, reducer (max, min, absmax, mean, rms, final) and a result column (the CSV columns of the
  model, from a one-interval run made in the background when the dialog opens).
* **Run** checks and runs the sweep in a background thread (:class:`mechstudio.gui.sweep.worker.SweepWorker`) on a Dask
  LocalCluster; the progress bar follows the runs, **Cancel** stops it keeping the finished rows. Rows appear in
  the sortable table and the plot (metric against the parameter; a heat map for two parameters on a grid) as
  they arrive. **Export…** writes Parquet (with the sweep's metadata) or CSV. Double-clicking a row opens that
  run -- the model with those values -- in the editor as a new untitled, unsaved document (asking to save the
  open one's changes first) and starts it in the live view when there is one.
* The cluster (:class:`mechstudio.gui.sweep.cluster.SweepCluster`) is started by the first sweep and kept for the
  next ones while the dialog is open; its dashboard's link is shown when it has one (bokeh installed). Closing
  the dialog or the window closes it in the background.
* The dialog fits the screen it opens on (at most 1000 × 860 px; the set-up part scrolls on a small screen).
"""
from __future__ import annotations

import os
import threading
from typing import Any

from PySide6.QtCore import QRect, QSortFilterProxyModel, Qt, QTimer, Signal
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QComboBox, QDialog, QDoubleSpinBox, QFormLayout,
                               QFrame, QGroupBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QProgressBar,
                               QPushButton, QScrollArea, QSpinBox, QSplitter, QTableView, QTableWidget, QTabWidget,
                               QVBoxLayout, QWidget)

from mechstudio.core.errors import ModelError
from mechstudio.core.model.document import Model
from mechstudio.core.model.edit import get_value
from mechstudio.core.simulate import SimulationSettings
from mechstudio.core.sweep.address import apply_values, resolve, sweepable_addresses
from mechstudio.core.sweep.design import DESIGNS, Vary
from mechstudio.core.sweep.metrics import REDUCERS
from mechstudio.gui.simulation.settings_dialog import SecondsBox
from mechstudio.gui.sweep.cluster import SweepCluster
from mechstudio.gui.sweep.results import MetricPlot, RowsModel

PREFERRED_SIZE = (1000, 860)  # [px] the dialog's size where the screen has room
SCREEN_MARGIN_PX = 8  # kept free around the dialog on a small screen
RESULTS_MIN_PX = 220  # the plot and table never get less height
TABLE_MIN_PX = 84  # the parameter and metric tables show at least their header and two rows


def choice_combo(items: list[str], current: str | None = None) -> QComboBox:
    """A combo box of ``items`` showing ``current`` (added when it is not one of them)."""
    combo = QComboBox()
    combo.addItems(items)
    if current:
        if current not in items:
            combo.addItem(current)
        combo.setCurrentText(current)
    return combo


def refill(combo: QComboBox, items: list[str]) -> None:
    """Replace the choices of ``combo``, keeping what it shows."""
    current = combo.currentText()
    combo.clear()
    combo.addItems(items)
    if current:
        if current not in items:
            combo.addItem(current)
        combo.setCurrentText(current)


class SweepDialog(QDialog):
    """See the module docstring. ``window``: the main window (its document's model is swept)."""

    columns_ready = Signal(list)

    def __init__(self, window: Any, parent: QWidget | None = None):
        super().__init__(parent or window)
        self.window = window
        self.setObjectName("sweep_dialog")
        self.setWindowTitle("Parameter sweep")
        self.resize(*PREFERRED_SIZE)
        self.worker: Any = None
        self.cluster = SweepCluster()
        self.plan: Any = None
        self.base_model: Model | None = None
        self.result_columns: list[str] = []
        self.state = "idle"  # idle, running, finished, cancelled, failed
        self._build()
        self.columns_ready.connect(self._set_result_columns)
        self._plot_timer = QTimer(self, singleShot=True, interval=250)
        self._plot_timer.timeout.connect(self.refresh_plot)
        self.refresh_model()

    # ---- construction ---------------------------------------------------------------------------------------
    def _build(self) -> None:
        top = QVBoxLayout(self)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("sweep_splitter")
        split.setChildrenCollapsible(False)
        top.addWidget(split)
        self.splitter = split
        setup = QWidget()
        lay = QVBoxLayout(setup)
        lay.setContentsMargins(0, 0, 0, 0)

        box = QGroupBox("Parameters (NAME.FIELD from START to STOP, COUNT values)")
        v = QVBoxLayout(box)
        self.params_table = QTableWidget(0, 4)
        self.params_table.setObjectName("sweep_parameters")
        self.params_table.setHorizontalHeaderLabels(["parameter", "start", "stop", "count"])
        self.params_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.params_table.setMinimumHeight(TABLE_MIN_PX)
        v.addWidget(self.params_table)
        row = QHBoxLayout()
        add = QPushButton("Add parameter")
        add.clicked.connect(lambda: self.add_parameter(None))
        remove = QPushButton("Remove")
        remove.clicked.connect(lambda: self._remove_row(self.params_table))
        row.addWidget(add), row.addWidget(remove), row.addStretch(1)
        v.addLayout(row)
        lay.addWidget(box)

        box = QGroupBox("Metrics (LABEL = REDUCER(result column))")
        v = QVBoxLayout(box)
        self.metrics_table = QTableWidget(0, 3)
        self.metrics_table.setObjectName("sweep_metrics")
        self.metrics_table.setHorizontalHeaderLabels(["label", "reducer", "column"])
        self.metrics_table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.metrics_table.setMinimumHeight(TABLE_MIN_PX)
        v.addWidget(self.metrics_table)
        row = QHBoxLayout()
        add = QPushButton("Add metric")
        add.clicked.connect(lambda: self.add_metric())
        remove = QPushButton("Remove")
        remove.clicked.connect(lambda: self._remove_row(self.metrics_table))
        row.addWidget(add), row.addWidget(remove), row.addStretch(1)
        v.addLayout(row)
        lay.addWidget(box)

        form_row = QHBoxLayout()
        form = QFormLayout()
        self.design = QComboBox()
        self.design.addItems(list(DESIGNS))
        self.samples = QSpinBox(minimum=1, maximum=1_000_000, value=16)
        self.seed = QSpinBox(minimum=0, maximum=2 ** 31 - 1, value=0)
        form.addRow("design", self.design)
        form.addRow("samples (random, sobol)", self.samples)
        form.addRow("seed", self.seed)
        form_row.addLayout(form)
        form = QFormLayout()
        self.t_end = SecondsBox(1e-4, 1e9, 1.0)
        self.t_end.setObjectName("sweep_t_end")
        self.t_end.setToolTip("End time of every run in seconds: 5, 0.5 or 1e4")
        self.dt = SecondsBox(1e-6, 1e6, 0.01)
        self.dt.setObjectName("sweep_dt")
        self.dt.setToolTip("Output interval of every run in seconds: 0.01 or 1e-3")
        for box in (self.t_end, self.dt):
            box.refused.connect(lambda reason: self.status.setText(reason))
        self.workers = QSpinBox(minimum=1, maximum=256, value=os.cpu_count() or 1)
        form.addRow("end time", self.t_end)
        form.addRow("output interval", self.dt)
        form.addRow("local workers", self.workers)
        form_row.addLayout(form)
        lay.addLayout(form_row)

        row = QHBoxLayout()
        self.run_button = QPushButton("Run sweep")
        self.run_button.setObjectName("sweep_run")
        self.run_button.clicked.connect(lambda _c=False: self.run())
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("sweep_cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(lambda _c=False: self.cancel())
        self.export_button = QPushButton("Export…")
        self.export_button.clicked.connect(self.export_dialog)
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m runs")
        self.status = QLabel("")
        self.status.setObjectName("sweep_status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for w in (self.run_button, self.cancel_button, self.progress, self.export_button):
            row.addWidget(w)
        self.dashboard = QLabel("")
        self.dashboard.setObjectName("sweep_dashboard")
        self.dashboard.setOpenExternalLinks(True)
        self.dashboard.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.dashboard.hide()
        # the inputs scroll on a small screen; the run row, the status and the dashboard's link stay in view
        self.setup_area = QScrollArea()
        self.setup_area.setObjectName("sweep_setup")
        self.setup_area.setWidget(setup)
        self.setup_area.setWidgetResizable(True)
        self.setup_area.setFrameShape(QFrame.Shape.NoFrame)
        self.setup_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        upper = QWidget()
        upper_lay = QVBoxLayout(upper)
        upper_lay.setContentsMargins(0, 0, 0, 0)
        upper_lay.addWidget(self.setup_area, 1)
        upper_lay.addLayout(row)
        upper_lay.addWidget(self.status)
        upper_lay.addWidget(self.dashboard)
        self.upper = upper
        split.addWidget(upper)

        results = QWidget()
        v = QVBoxLayout(results)
        v.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(QLabel("plot"))
        self.plot_metric = QComboBox()
        self.plot_metric.currentTextChanged.connect(lambda _t: self.refresh_plot())
        row.addWidget(self.plot_metric, 1)
        v.addLayout(row)
        self.tabs = QTabWidget()
        self.plot = MetricPlot()
        self.rows = RowsModel([])
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.rows)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self.table = QTableView()
        self.table.setObjectName("sweep_table")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.verticalHeader().hide()
        self.table.doubleClicked.connect(lambda index: self.open_run(self.run_at(index.row())))
        self.tabs.addTab(self.plot, "Plot")
        self.tabs.addTab(self.table, "Table")
        v.addWidget(self.tabs)
        results.setMinimumHeight(RESULTS_MIN_PX)
        split.addWidget(results)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        self.fit_to_screen()

    def fit_to_screen(self, available: QRect | None = None) -> None:
        """At most :data:`PREFERRED_SIZE`, inside ``available`` (default: the available area of the screen the
        window is on); the set-up part gets the height it needs when there is room (it scrolls otherwise), the
        results the rest."""
        if available is None:
            screen = self.window.screen() if hasattr(self.window, "screen") else None
            screen = screen or QApplication.primaryScreen()
            if screen is None:
                return
            available = screen.availableGeometry()
        avail = available
        frame = 40  # the title bar and border a window manager adds [px]
        w = min(PREFERRED_SIZE[0], avail.width() - 2 * SCREEN_MARGIN_PX)
        h = min(PREFERRED_SIZE[1], avail.height() - 2 * SCREEN_MARGIN_PX - frame)
        self.setMaximumSize(avail.width(), avail.height() - frame)
        self.resize(w, h)
        fixed = self.upper.sizeHint().height() - self.setup_area.sizeHint().height()  # run row, status, link
        setup_h = self.setup_area.widget().sizeHint().height() + 2 + fixed
        room = max(h - RESULTS_MIN_PX - 40, 120 + fixed)
        self.splitter.setSizes([min(setup_h, room), max(h - min(setup_h, room), RESULTS_MIN_PX)])
        x = min(max(self.x(), avail.left() + SCREEN_MARGIN_PX), avail.right() - w - SCREEN_MARGIN_PX)
        y = min(max(self.y(), avail.top() + SCREEN_MARGIN_PX), avail.bottom() - h - frame - SCREEN_MARGIN_PX)
        self.move(max(x, avail.left()), max(y, avail.top()))

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        if not getattr(self, "_fitted", False):
            self._fitted = True
            self.fit_to_screen()
            parent = self.parentWidget()
            if parent is not None:  # centred over the window, inside the screen
                geo = self.frameGeometry()
                geo.moveCenter(parent.frameGeometry().center())
                self.move(geo.topLeft())
                self.fit_to_screen()
        super().showEvent(event)

    @staticmethod
    def _remove_row(table: QTableWidget) -> None:
        table.removeRow(table.currentRow() if table.currentRow() >= 0 else table.rowCount() - 1)

    # ---- model and inputs -----------------------------------------------------------------------------------
    def refresh_model(self) -> None:
        """Take the document's current model when it changed: parameter choices, the file's times, the result
        columns (found in the background)."""
        model = self.window.document.model
        if self.base_model is not None and model == self.base_model:
            return
        self.base_model = model
        self.addresses = sweepable_addresses(model)
        for r in range(self.params_table.rowCount()):
            refill(self.params_table.cellWidget(r, 0), self.addresses)
        settings = SimulationSettings.from_model(model)
        self.t_end.setValue(settings.t_end)
        self.dt.setValue(settings.dt)
        threading.Thread(target=self._probe_columns, args=(model,), daemon=True).start()

    def _probe_columns(self, model: Model) -> None:
        from mechstudio.core.sweep.runner import probe_run
        try:
            columns = list(probe_run(model, {}).columns())
        except Exception:  # a model that cannot compile has no columns; Run reports why
            columns = []
        self.columns_ready.emit(columns)

    def _set_result_columns(self, columns: list[str]) -> None:
        self.result_columns = columns
        for r in range(self.metrics_table.rowCount()):
            refill(self.metrics_table.cellWidget(r, 2), columns)

    def add_parameter(self, address: str | None, start: float | None = None, stop: float | None = None,
                      count: int = 5) -> int:
        """Add a parameter row (default range: the current value +-50 %, or 0..1); returns the row."""
        r = self.params_table.rowCount()
        self.params_table.insertRow(r)
        combo = choice_combo(self.addresses, address)
        self.params_table.setCellWidget(r, 0, combo)
        spins = []
        for c in (1, 2):
            s = QDoubleSpinBox(minimum=-1e9, maximum=1e9, decimals=6)
            self.params_table.setCellWidget(r, c, s)
            spins.append(s)
        n = QSpinBox(minimum=1, maximum=100_000, value=count)
        self.params_table.setCellWidget(r, 3, n)
        combo.currentTextChanged.connect(lambda text, a=spins[0], b=spins[1]: self._default_range(text, a, b))
        self._default_range(combo.currentText(), *spins)
        if start is not None:
            spins[0].setValue(start)
        if stop is not None:
            spins[1].setValue(stop)
        return r

    def _default_range(self, address: str, start: QDoubleSpinBox, stop: QDoubleSpinBox) -> None:
        try:
            value = get_value(self.base_model, resolve(self.base_model, address).pointer)
        except (ValueError, KeyError):
            value = 0.0
        value = float(value) if isinstance(value, (int, float)) else 0.0
        lo, hi = (0.5 * value, 1.5 * value) if value else (0.0, 1.0)
        start.setValue(min(lo, hi))
        stop.setValue(max(lo, hi))

    def add_metric(self, label: str | None = None, reducer: str = "absmax", column: str | None = None) -> int:
        r = self.metrics_table.rowCount()
        self.metrics_table.insertRow(r)
        edit = QLineEdit(label or f"m{r + 1}")
        red = choice_combo(list(REDUCERS), reducer)
        col = choice_combo(self.result_columns, column)
        for c, w in enumerate((edit, red, col)):
            self.metrics_table.setCellWidget(r, c, w)
        return r

    def varies(self) -> list[Vary]:
        t = self.params_table
        return [Vary(t.cellWidget(r, 0).currentText(), t.cellWidget(r, 1).value(), t.cellWidget(r, 2).value(),
                     t.cellWidget(r, 3).value()) for r in range(t.rowCount())]

    def metric_texts(self) -> list[str]:
        t = self.metrics_table
        return [f"{t.cellWidget(r, 0).text().strip()}={t.cellWidget(r, 1).currentText()}"
                f"({t.cellWidget(r, 2).currentText()})" for r in range(t.rowCount())]

    # ---- running --------------------------------------------------------------------------------------------
    def run(self, client: Any = None) -> None:
        """Check and start the sweep in the background (``client``: an existing Dask client, else a
        LocalCluster of the *local workers*)."""
        if self.worker is not None and self.worker.is_running():
            return
        from mechstudio.core.sweep.store import row_schema
        from mechstudio.gui.sweep.worker import SweepWorker
        self.refresh_model()
        varies, metrics = self.varies(), self.metric_texts()
        labels = [m.partition("=")[0] for m in metrics]
        self.rows.beginResetModel()
        self.rows.frame = self.rows.frame.iloc[0:0].reindex(columns=row_schema([v.address for v in varies],
                                                                               labels).names)
        self.rows.endResetModel()
        self.plot_metric.blockSignals(True)
        self.plot_metric.clear()
        self.plot_metric.addItems([f"metric.{label}" for label in labels])
        self.plot_metric.blockSignals(False)
        self.params = [f"param.{v.address}" for v in varies]
        self.grid = self.design.currentText() == "grid"
        design = dict(design=self.design.currentText(), samples=None if self.grid else self.samples.value(),
                      seed=None if self.grid else self.seed.value())
        self.worker = SweepWorker(self.base_model, varies, metrics, {"t_end": self.t_end.value(),
                                                                      "dt": self.dt.value()}, design,
                                  workers=self.workers.value(), client=client, parent=self, cluster=self.cluster)
        self.worker.planned.connect(self._on_planned)
        self.worker.cluster_ready.connect(self._on_cluster_ready)
        self.worker.progress.connect(self._on_progress)
        self.worker.rows.connect(self._on_rows)
        self.worker.finished.connect(self._on_finished)
        self._set_running(True)
        self.status.setText("checking the sweep and starting the workers…")
        self.worker.start()

    def cancel(self) -> None:
        if self.worker is not None and self.worker.is_running():
            self.worker.cancel()
            self.status.setText("cancelling…")
            self.cancel_button.setEnabled(False)

    def _set_running(self, on: bool) -> None:
        self.state = "running" if on else self.state
        self.run_button.setEnabled(not on)
        self.cancel_button.setEnabled(on)

    def _on_planned(self, plan: Any) -> None:
        self.plan = plan
        self.progress.setRange(0, plan.n_runs)
        self.progress.setValue(0)
        self.status.setText(f"{plan.n_runs} runs on Dask…")

    def _on_cluster_ready(self, link: str) -> None:
        """Show the Dask dashboard's link (none without bokeh)."""
        self.dashboard.setVisible(bool(link))
        self.dashboard.setText(f'Dask dashboard (the workers at work): <a href="{link}">{link}</a>' if link else "")

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)

    def _on_rows(self, rows: list) -> None:
        self.rows.append(rows)
        if not self._plot_timer.isActive():
            self._plot_timer.start()

    def _on_finished(self, state: str, message: str) -> None:
        self.state = state
        self._set_running(False)
        if not self.isVisible():  # the dialog was closed during the sweep
            self.cluster.close()
        failed = int((self.rows.frame["status"] != "finished").sum()) if len(self.rows.frame) else 0
        extra = f"; {failed} did not finish (see the table's status and message)" if failed else ""
        self.status.setText(f"{state}: {message}{extra}")
        self.table.resizeColumnsToContents()
        self.refresh_plot()

    def refresh_plot(self) -> None:
        metric = self.plot_metric.currentText()
        if metric and hasattr(self, "params"):
            self.plot.show_metric(self.rows.frame, self.params, metric, self.grid)

    # ---- results --------------------------------------------------------------------------------------------
    def results(self) -> Any:
        """The rows received so far (a pandas DataFrame, sorted by run)."""
        return self.rows.frame.sort_values("run").reset_index(drop=True)

    def run_at(self, view_row: int) -> int:
        """The run number shown in row ``view_row`` of the (sorted) table."""
        source = self.proxy.mapToSource(self.proxy.index(view_row, 0)).row()
        return int(self.rows.frame.iloc[source]["run"])

    def run_model(self, run: int) -> Model:
        """The model of run ``run``: the base model with that row's parameter values."""
        row = self.rows.frame[self.rows.frame["run"] == run].iloc[0]
        pointers = [resolve(self.base_model, p.removeprefix("param.")).pointer for p in self.params]
        return apply_values(self.base_model, pointers, [float(row[p]) for p in self.params])

    def open_run(self, run: int) -> bool:
        """Open run ``run`` in the editor (asking to save changes first) and start it in the live view."""
        try:
            model = self.run_model(run)
        except ModelError as exc:
            self.window.messenger.error(self, "Cannot open the run", str(exc))
            return False
        row = self.rows.frame[self.rows.frame["run"] == run].iloc[0]
        values = ", ".join(f"{p.removeprefix('param.')} = {float(row[p]):g}" for p in self.params)
        if not self.window.open_untitled(model, f"Run {run} of the sweep ({values})", base=self.base_model):
            return False
        self.window.statusBar().showMessage(f"Opened run {run} of the sweep as a new unsaved model ({values})", 8000)
        live = getattr(self.window, "live", None)
        if live is not None:
            live.act_run.trigger()
        return True

    def export(self, path: str) -> None:
        """Write the rows to ``path``: CSV for ``.csv``, else Parquet with the sweep's metadata."""
        frame = self.results()
        if path.lower().endswith(".csv"):
            frame.to_csv(path, index=False)
            return
        import pyarrow as pa
        import pyarrow.parquet as pq
        schema = self.plan.schema() if self.plan is not None else None
        pq.write_table(pa.Table.from_pandas(frame, schema=schema, preserve_index=False), path)

    def export_dialog(self) -> None:
        if self.rows.frame.empty:
            self.status.setText("nothing to export yet")
            return
        path = self.window.messenger.save_path(self, os.path.join(os.getcwd(), "sweep.parquet"))
        if not path:
            return
        try:
            self.export(path)
        except OSError as exc:
            self.window.messenger.error(self, "Export failed", f"Could not write {path}: {exc.strerror or exc}")
            return
        self.status.setText(f"exported {len(self.rows.frame)} rows to {path}")

    def closeEvent(self, event: Any) -> None:
        self.cancel()  # the worker thread ends on its own; the window never waits for it
        if not (self.worker is not None and self.worker.is_running()):
            self.cluster.close()  # else when the cancelled sweep has finished (_on_finished)
        super().closeEvent(event)

    def shutdown(self) -> None:
        """The window closes: stop the sweep and close the cluster (in the background, see SweepCluster)."""
        self.cancel()
        self.cluster.close()
