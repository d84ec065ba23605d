"""Views of sweep results: a sortable table of the rows and a plot of one metric.

* :class:`RowsModel`: the rows (a pandas DataFrame) as a Qt table model; sorting goes through a
  ``QSortFilterProxyModel`` (numbers sort as numbers: the sort role is the raw value).
* :class:`MetricPlot`: one parameter -> the metric against it (points joined in parameter order); two parameters
  on a full grid -> a heat map (``pyqtgraph.ImageItem``, one cell per grid point, colour bar); two parameters
  sampled (random, Sobol) -> the points coloured by the metric; more parameters -> the metric against the first.
  Runs without a value (failed) are left out (blank cells in the heat map).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

Index = QModelIndex | QPersistentModelIndex


class RowsModel(QAbstractTableModel):
    """A DataFrame shown as a table (read-only); :meth:`append` adds rows as they arrive."""

    def __init__(self, columns: list[str], parent: Any = None):
        super().__init__(parent)
        self.frame = pd.DataFrame(columns=columns)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.frame)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.frame.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        value = self.frame.iat[index.row(), index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            if isinstance(value, float):
                return "" if np.isnan(value) else f"{value:.6g}"
            return str(value)
        if role == Qt.ItemDataRole.UserRole:  # the sort key
            if isinstance(value, (float, np.floating)) and np.isnan(value):
                return float("inf")
            return value.item() if hasattr(value, "item") else value
        if role == Qt.ItemDataRole.ToolTipRole and self.frame.columns[index.column()] == "message":
            return str(value)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return str(self.frame.columns[section])
        return None

    def append(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        first = len(self.frame)
        self.beginInsertRows(QModelIndex(), first, first + len(rows) - 1)
        new = pd.DataFrame(rows, columns=self.frame.columns)
        self.frame = new if self.frame.empty else pd.concat([self.frame, new], ignore_index=True)
        self.endInsertRows()

    def clear(self) -> None:
        self.beginResetModel()
        self.frame = self.frame.iloc[0:0]
        self.endResetModel()


class MetricPlot(QWidget):
    """The plot of one metric of the results (see the module docstring); ``kind`` says what is drawn."""

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.plot = pg.PlotWidget(background="w")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        layout.addWidget(self.plot)
        self.kind = "empty"
        self.colorbar: Any = None
        self.image: Any = None

    def _reset(self) -> None:
        if self.colorbar is not None:  # created once, kept (removing it from the layout is not safe to repaint)
            self.colorbar.hide()
        self.plot.clear()
        self.image = None
        self.kind = "empty"

    def show_metric(self, frame: pd.DataFrame, params: list[str], metric: str, grid: bool) -> None:
        """Draw column ``metric`` of ``frame`` against the ``params`` columns (``grid``: a full factorial)."""
        self._reset()
        if frame.empty or metric not in frame or not params:
            return
        data = frame[params + [metric]].apply(pd.to_numeric, errors="coerce")
        label = metric.removeprefix("metric.")
        if len(params) == 2 and grid:
            self._heatmap(data, params, metric, label)
        elif len(params) == 2:
            self._scatter(data.dropna(), params, metric, label)
        else:
            self._line(data.dropna(), params[0], metric, label)

    def _line(self, data: pd.DataFrame, param: str, metric: str, label: str) -> None:
        data = data.sort_values(param)
        self.plot.plot(data[param].to_numpy(float), data[metric].to_numpy(float), pen=pg.mkPen("#1f77b4", width=2),
                       symbol="o", symbolSize=6, symbolBrush="#1f77b4")
        self.plot.setLabel("bottom", param.removeprefix("param."))
        self.plot.setLabel("left", label)
        self.kind = "line"

    def _scatter(self, data: pd.DataFrame, params: list[str], metric: str, label: str) -> None:
        values = data[metric].to_numpy(float)
        cmap = pg.colormap.get("viridis")
        lo, hi = (float(values.min()), float(values.max())) if len(values) else (0.0, 1.0)
        brushes = [pg.mkBrush(cmap.map((v - lo) / (hi - lo) if hi > lo else 0.5, mode="qcolor")) for v in values]
        self.plot.addItem(pg.ScatterPlotItem(data[params[0]].to_numpy(float), data[params[1]].to_numpy(float),
                                             size=10, brush=brushes, pen=None))
        self._axes(params, label)
        self.kind = "scatter"

    def _heatmap(self, data: pd.DataFrame, params: list[str], metric: str, label: str) -> None:
        table = data.pivot_table(index=params[0], columns=params[1], values=metric, aggfunc="first", dropna=False)
        xs, ys = table.index.to_numpy(float), table.columns.to_numpy(float)
        z = table.to_numpy(float)  # z[i, j]: x = xs[i], y = ys[j] (ImageItem's default axis order)
        finite = z[np.isfinite(z)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        if hi <= lo:
            hi = lo + 1.0
        self.image = pg.ImageItem(z, levels=(lo, hi))
        dx = (xs[-1] - xs[0]) / (len(xs) - 1) if len(xs) > 1 else 1.0
        dy = (ys[-1] - ys[0]) / (len(ys) - 1) if len(ys) > 1 else 1.0
        self.image.setRect(xs[0] - dx / 2, ys[0] - dy / 2, dx * len(xs), dy * len(ys))
        self.plot.addItem(self.image)
        if self.colorbar is None:
            self.colorbar = pg.ColorBarItem(values=(lo, hi), colorMap=pg.colormap.get("viridis"), interactive=False)
            self.colorbar.setImageItem(self.image, insert_in=self.plot.getPlotItem())
        else:
            self.colorbar.setImageItem(self.image)
            self.colorbar.setLevels((lo, hi))
        self.colorbar.getAxis("right").setLabel(label)
        self.colorbar.show()
        self._axes(params, label)
        self.kind = "heatmap"

    def _axes(self, params: list[str], label: str) -> None:
        self.plot.setLabel("bottom", params[0].removeprefix("param."))
        self.plot.setLabel("left", params[1].removeprefix("param."))
        self.plot.setTitle(label)
