"""The plot-export dialog: the picture's size in pixels, or in inches at a resolution (dpi), with the resulting
pixels shown. It returns a :class:`~gui.plots.figure.FigureSize`; the file is asked for afterwards."""
from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout, QLabel,
                               QVBoxLayout)

from mechstudio.gui.plots.figure import DEFAULT_SIZE, MAX_PX, MIN_PX, FigureSize

UNITS = ("pixels", "inches")


class PlotExportDialog(QDialog):
    """Size of an exported plot (PNG, SVG; all plots of a folder export share it)."""

    def __init__(self, parent: Any = None, what: str = "the plot", size: FigureSize = DEFAULT_SIZE):
        super().__init__(parent)
        self.setObjectName("plot_export_dialog")
        self.setWindowTitle(f"Export {what}")
        lay = QVBoxLayout(self)
        intro = QLabel("Size of the picture. Fonts, lines and the legend grow with it, so every size looks alike; "
                       "the playback cursor is not drawn.")
        intro.setWordWrap(True)
        lay.addWidget(intro)
        form = QFormLayout()
        self.units = QComboBox()
        self.units.setObjectName("export_units")
        self.units.addItems(UNITS)
        self.width_box = self._spin("export_width")
        self.height_box = self._spin("export_height")
        self.dpi = QDoubleSpinBox()
        self.dpi.setObjectName("export_dpi")
        self.dpi.setDecimals(0)
        self.dpi.setRange(10, 2400)
        self.dpi.setSuffix(" dpi")
        self.dpi.setValue(size.dpi)
        self.pixels = QLabel()
        self.pixels.setObjectName("export_pixels")
        form.addRow("units", self.units)
        form.addRow("width", self.width_box)
        form.addRow("height", self.height_box)
        form.addRow("resolution", self.dpi)
        form.addRow("picture", self.pixels)
        lay.addLayout(form)
        self.error = QLabel()
        self.error.setObjectName("export_error")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c00")
        lay.addWidget(self.error)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self._unit = "pixels"
        self._show(size)
        self.units.currentTextChanged.connect(self._on_units)
        for w in (self.width_box, self.height_box, self.dpi):
            w.valueChanged.connect(lambda _v: self._update())
        self._update()

    @staticmethod
    def _spin(name: str) -> QDoubleSpinBox:
        w = QDoubleSpinBox()
        w.setObjectName(name)
        w.setKeyboardTracking(True)
        return w

    def _show(self, size: FigureSize) -> None:
        """Write ``size`` into the fields in the current unit."""
        inches = self._unit == "inches"
        for box, px in ((self.width_box, size.width), (self.height_box, size.height)):
            box.blockSignals(True)
            box.setDecimals(2 if inches else 0)
            box.setSuffix(" in" if inches else " px")
            box.setRange(MIN_PX / size.dpi if inches else MIN_PX, MAX_PX / size.dpi if inches else MAX_PX)
            box.setValue(px / size.dpi if inches else px)
            box.blockSignals(False)
        self.dpi.blockSignals(True)
        self.dpi.setValue(size.dpi)
        self.dpi.blockSignals(False)

    def _on_units(self, unit: str) -> None:
        size = self._size_in(self._unit)
        self._unit = unit
        if size is not None:
            self._show(size)
        self._update()

    def _size_in(self, unit: str) -> FigureSize | None:
        try:
            if unit == "inches":
                return FigureSize.from_inches(self.width_box.value(), self.height_box.value(), self.dpi.value())
            return FigureSize(int(round(self.width_box.value())), int(round(self.height_box.value())),
                              self.dpi.value())
        except ValueError as exc:
            self.error.setText(str(exc))
            return None

    def size(self) -> FigureSize | None:  # type: ignore[override]
        """The chosen size, or None when the fields do not make one (the reason is shown)."""
        return self._size_in(self._unit)

    def _update(self) -> None:
        self.error.setText("")
        s = self.size()
        ok = s is not None
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)
        if s is not None:
            w_in, h_in = s.inches
            self.pixels.setText(f"{s.width} × {s.height} px ({w_in:.2f} × {h_in:.2f} in at {s.dpi:g} dpi)")

    def chosen(self) -> FigureSize | None:
        """Run the dialog: the size, or None when cancelled."""
        return self.size() if self.exec() == QDialog.DialogCode.Accepted else None
