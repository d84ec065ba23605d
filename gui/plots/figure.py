"""Publication figures of the live plots: a plot's curves redrawn at a chosen size for PNG and SVG export.

A :class:`FigureSize` is pixels (or inches at a dpi). The figure is laid out at a fixed *layout* size of the
same aspect (about :data:`LAYOUT` pixels) and painted scaled up (or down) to the chosen pixels: fonts, line
widths and the legend keep their proportion to the picture, so a 1600×1000 PNG reads like the 800×500 one at
twice the resolution, and every plot of a bundle at one size looks alike. The figure has the live plot's
curves (the same :class:`~gui.plots.curves.CurveSet` painting), its axes and title, a legend with a white
background in a readable font, and no playback cursor. Its range is the live plot's when the user zoomed or
panned it, otherwise it fits the data. The left axis's log-scale labels never overlap
(:class:`~gui.plots.log_axis.NonOverlappingAxis`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen
from PySide6.QtWidgets import QApplication

from mechstudio.gui.plots.curves import CurveSet
from mechstudio.gui.plots.log_axis import NonOverlappingAxis

LAYOUT = (800.0, 500.0)  # [px] the layout size of a figure of aspect 1.6 (other aspects: the same area)
FONT_PX = {"tick": 13, "label": 14, "title": 16, "legend": 13}  # [px of the layout]
MIN_PX, MAX_PX = 16, 20000  # [px] sizes a figure may have


@dataclass(frozen=True)
class FigureSize:
    """The size of an exported figure: ``width`` × ``height`` pixels at ``dpi`` dots per inch (the dpi is written
    into PNG and SVG, it does not change the pixels)."""

    width: int
    height: int
    dpi: float = 100.0

    def __post_init__(self) -> None:
        for name in ("width", "height"):
            v = getattr(self, name)
            if not (MIN_PX <= v <= MAX_PX):
                raise ValueError(f"a figure's {name} must be {MIN_PX} to {MAX_PX} px, not {v}")
        if not (10.0 <= self.dpi <= 2400.0):
            raise ValueError(f"a figure's resolution must be 10 to 2400 dpi, not {self.dpi:g}")

    @classmethod
    def from_inches(cls, width_in: float, height_in: float, dpi: float) -> "FigureSize":
        return cls(int(round(width_in * dpi)), int(round(height_in * dpi)), float(dpi))

    @classmethod
    def parse(cls, text: str, dpi: float = 100.0) -> "FigureSize":
        """``"1600x1000"`` (also ``×`` or ``X``) → FigureSize(1600, 1000)."""
        parts = text.lower().replace("×", "x").split("x")
        try:
            w, h = (int(p.strip()) for p in parts)
        except ValueError:
            raise ValueError(f"a size is WIDTHxHEIGHT in pixels, e.g. 1600x1000; not {text!r}") from None
        return cls(w, h, dpi)

    @property
    def inches(self) -> tuple[float, float]:
        return self.width / self.dpi, self.height / self.dpi

    @property
    def scale(self) -> float:
        """Picture pixels per layout pixel: the layout has the picture's aspect and the area of :data:`LAYOUT`."""
        return math.sqrt(self.width * self.height / (LAYOUT[0] * LAYOUT[1]))

    @property
    def layout(self) -> tuple[float, float]:
        s = self.scale
        return self.width / s, self.height / s


DEFAULT_SIZE = FigureSize(1600, 1000, 200.0)  # 8 × 5 in at 200 dpi


def _font(px: int, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(px)
    f.setBold(bold)
    return f


class Figure:
    """An offscreen PlotWidget holding a copy of one live plot, laid out for ``size`` (see the module docstring).
    ``widget``, ``plot_item``, ``curve_set`` and ``legend`` are public (tests map data to pixels with them)."""

    def __init__(self, plot: Any, size: FigureSize):
        self.size = size
        lw, lh = size.layout
        s = size.scale
        self.widget = pg.PlotWidget(background="w", axisItems={"left": NonOverlappingAxis("left")})
        self.widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        self.widget.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.widget.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.widget.setFrameShape(self.widget.Shape.NoFrame)
        self.widget.resize(int(round(lw)), int(round(lh)))
        pi = self.plot_item = self.widget.getPlotItem()
        live = plot.plot_item
        log_y = live.ctrl.logYCheck.isChecked()
        pi.setLogMode(x=False, y=log_y)
        pi.showGrid(x=True, y=True, alpha=0.25)
        pi.setTitle(getattr(plot, "title", ""), color="k", size=f"{FONT_PX['title']}px", bold=True)
        style = {"color": "#000", "font-size": f"{FONT_PX['label']}px"}
        pi.setLabel("bottom", "t", units="s", **style)
        ylabel = getattr(plot, "ylabel", "")
        if ylabel:
            pi.setLabel("left", ylabel, **style)
        axis_pen = pg.mkPen("k", width=max(1.0, s))
        for name in ("left", "bottom"):
            ax = pi.getAxis(name)
            ax.setTickFont(_font(FONT_PX["tick"]))
            ax.setPen(axis_pen)
            ax.setTextPen(pg.mkPen("k"))
        pi.getAxis("left").enableAutoSIPrefix(live.getAxis("left").autoSIPrefix)
        pi.hideButtons()
        self.legend = pi.addLegend(offset=(-10, 10), labelTextSize=f"{FONT_PX['legend']}px", labelTextColor="k",
                                   brush=pg.mkBrush(255, 255, 255, 230), pen=pg.mkPen("#888"))
        # pyqtgraph keeps its legend at screen size (it ignores transformations): here it scales with the picture
        self.legend.setFlag(self.legend.GraphicsItemFlag.ItemIgnoresTransformations, False)
        self.curve_set = CurveSet()
        self.curve_set.antialias = True
        self.curve_set.setLogMode(False, log_y)
        pi.addItem(self.curve_set)
        shown = [c for c in plot.curves.values() if c.isVisible()]
        if shown:
            series = [(c.name, c.y, self._pen(c.pen, s)) for c in shown]
            curves = self.curve_set.set_curves(shown[0].x, series)
            for c in curves.values():
                self.legend.addItem(c, c.name)
        self._set_range(plot, shown)
        self.widget.show()
        for _ in range(3):  # lay out (the widget is never on screen): the plot's layout, then its axes
            QApplication.sendPostedEvents()
            QApplication.processEvents()
            pi.layout.activate()

    @staticmethod
    def _pen(pen: QPen, scale: float) -> QPen:
        p = QPen(pen)
        p.setCosmetic(True)
        p.setWidthF(max(pen.widthF(), 1.0) * 1.25 * scale)
        return p

    def _set_range(self, plot: Any, shown: list[Any]) -> None:
        vb = self.plot_item.getViewBox()
        user_range = not getattr(plot, "_y_managed", True)
        if user_range:
            (x0, x1), (y0, y1) = plot.plot_item.getViewBox().viewRange()
            vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
            return
        bounds = self.curve_set.data_bounds() if shown else None
        if bounds is None:
            vb.setRange(xRange=(0.0, 1.0), yRange=(0.0, 1.0))
            return
        x0, x1, y0, y1 = bounds
        vb.setRange(xRange=(x0, x1), padding=0)
        pad = 0.06 * (y1 - y0) if y1 > y0 else max(abs(y1), 1.0) * 0.1
        vb.setRange(yRange=(y0 - pad, y1 + pad), padding=0)

    def render(self, painter: QPainter) -> None:
        """Paint the figure into ``painter``'s device, filling (0, 0, width, height) of the chosen size."""
        lw, lh = self.widget.width(), self.widget.height()
        for _ in range(2):  # paints at the layout size bring every item up to date (the view box's range and
            self.widget.grab()  # transform at the first, the axes' tick pictures after it): the widget is never on
            QApplication.processEvents()  # screen, and a render without them is stale
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        # the scene, not the view: QGraphicsView.render maps the source through the view and shifts the picture
        self.widget.scene().render(painter, QRectF(0, 0, self.size.width, self.size.height), QRectF(0, 0, lw, lh),
                                   Qt.AspectRatioMode.IgnoreAspectRatio)

    def image(self) -> QImage:
        """The picture (ARGB32, white background); its dpi is written after painting (a painter on a QImage of
        another dpi would scale the point-size fonts of pyqtgraph's items)."""
        img = QImage(self.size.width, self.size.height, QImage.Format.Format_ARGB32)
        img.fill(QColor("white"))
        p = QPainter(img)
        try:
            self.render(p)
        finally:
            p.end()
        dpm = int(round(self.size.dpi / 0.0254))
        img.setDotsPerMeterX(dpm)
        img.setDotsPerMeterY(dpm)
        return img

    def save_png(self, path: Path) -> None:
        if not self.image().save(str(path), "PNG"):
            raise OSError(f"cannot write {path}")

    def save_svg(self, path: Path, title: str = "") -> None:
        """An SVG of ``width`` × ``height`` user units (the viewBox) and the physical size at ``dpi`` (its width
        and height in inches). Painted at the screen's resolution (as the PNG), then sized."""
        import xml.dom.minidom
        from PySide6.QtSvg import QSvgGenerator
        gen = QSvgGenerator()
        gen.setFileName(str(path))
        gen.setSize(QSize(self.size.width, self.size.height))
        gen.setViewBox(QRect(0, 0, self.size.width, self.size.height))
        gen.setResolution(QImage(1, 1, QImage.Format.Format_ARGB32).logicalDpiX())
        gen.setTitle(title)
        gen.setDescription("Mechanism Studio plot")
        p = QPainter(gen)
        try:
            p.fillRect(QRectF(0, 0, self.size.width, self.size.height), QColor("white"))
            self.render(p)
        finally:
            p.end()
        doc = xml.dom.minidom.parse(str(path))
        root = doc.documentElement
        w_in, h_in = self.size.inches
        root.setAttribute("width", f"{w_in:.4g}in")
        root.setAttribute("height", f"{h_in:.4g}in")
        Path(path).write_text(doc.toxml(), encoding="utf-8")

    def close(self) -> None:
        """Delete the offscreen widget now (a deleteLater posted outside an event loop would keep it, and its
        pyqtgraph items, until the application exits)."""
        from shiboken6 import Shiboken
        self.widget.close()
        Shiboken.delete(self.widget)

    def to_pixels(self, x: float, y: float) -> tuple[float, float]:
        """The picture pixel of data point (x, y) (y in data units, also on a log axis)."""
        vb = self.plot_item.getViewBox()
        yy = math.log10(y) if self.plot_item.ctrl.logYCheck.isChecked() else y
        sp = vb.mapViewToScene(QPointF(x, yy))
        vp = self.widget.mapFromScene(sp)
        s = self.size.width / self.widget.width()
        return vp.x() * s, vp.y() * self.size.height / self.widget.height()


def render_figure(plot: Any, size: FigureSize) -> QImage:
    """The plot as a picture of ``size`` (tests, previews)."""
    fig = Figure(plot, size)
    try:
        return fig.image()
    finally:
        fig.close()


__all__ = ["DEFAULT_SIZE", "Figure", "FigureSize", "render_figure"]
