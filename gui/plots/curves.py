"""All curves of a live plot in one QGraphicsItem (:class:`CurveSet`), drawn by one ``paint()``.

Why: a pyqtgraph ``PlotDataItem`` per curve costs Python work per item and per repaint (its bounds, its display
dataset, its path, the scene's per-item bookkeeping). With the 20 reaction curves of a 10-link chain, setting
and repainting the reactions plot took 13-14 ms on an idle host and 17-27 ms during a run with a software
renderer, which delayed frames of the 3D view past 33 ms (docs/benchmarks.md, live view). Here the curves share
one time axis and one item: setting them stores the arrays, and a repaint strokes one ``QPainterPath`` per curve
with the curve's pen (built once per data change from a ``QPolygonF`` whose points are written through a numpy
view: no Python loop over points). A path, not ``drawPolyline``: Qt's raster engine strokes a polyline of the same
points with slightly different pixels, and the plots are meant to look exactly as before.

What users see is what the per-curve items drew, by the same rules (``tests/gui/test_plot_curves.py`` compares
the pixels):

* ``clipToView`` and automatic peak downsampling as pyqtgraph's ``PlotDataItem`` does them (points outside the
  x range are skipped when the x range is not automatic; above 5 points per pixel the data are reduced to the
  min and max of each group of points);
* pens with a width over 1, solid, opaque and not antialiased are drawn as separate segments, as pyqtgraph's
  ``PlotCurveItem`` does ("segmented line mode");
* non-finite points break a curve, as pyqtgraph's ``connect='finite'`` breaks it;
* values far outside the view (over 10^6 view heights, deep zooms) are clipped as with pyqtgraph's
  ``dynamicRangeLimit`` (Qt's rasteriser misbehaves with huge coordinates);
* exports (PNG, SVG) draw antialiased, like ``PlotCurveItem`` (an SVG has one ``<path>`` per curve).

A partial repaint (a time cursor moving over the plot repaints a strip a few pixels wide) draws only the points
inside the strip for solid pens and finite data; dashed and dotted pens are drawn whole (their dash pattern runs
along the whole curve) and clipped by Qt.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np
import pyqtgraph as pg
import pyqtgraph.functions as fn
from pyqtgraph.graphicsItems.PlotCurveItem import arrayToLineSegments
from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem

AUTO_DOWNSAMPLE_FACTOR = 5.0  # pyqtgraph's autoDownsampleFactor: downsample above this many points per pixel
RANGE_LIMIT = 1e6  # pyqtgraph's dynamicRangeLimit (view heights)
RANGE_HYST = 3.0  # pyqtgraph's dynamicRangeHyst
STRIP_FRACTION = 0.25  # a repaint narrower than this fraction of the view draws only its own points
STRIP_MARGIN = 3  # [px] ... and those this close to it


def polygon(x: np.ndarray, y: np.ndarray) -> QPolygonF:
    """A QPolygonF of the points (x[i], y[i]), filled through a numpy view of its memory."""
    poly = fn.create_qpolygonf(len(x))
    arr = fn.ndarray_from_qpolygonf(poly)
    arr[:, 0] = x
    arr[:, 1] = y
    return poly


def finite_path(x: np.ndarray, y: np.ndarray) -> QPainterPath:
    """The curve as one QPainterPath, broken at non-finite points exactly as pyqtgraph's ``arrayToQPath(...,
    connect='finite')`` breaks it (each piece but the last ends with its last point repeated: Qt strokes
    P1--P2--P2 with other pixels than P1--P2)."""
    path = QPainterPath()
    bad = ~(np.isfinite(x) & np.isfinite(y))
    if not bad.any():
        if len(x) >= 2:
            path.addPolygon(polygon(x, y))
        return path
    cuts = np.flatnonzero(bad) + 1
    starts = np.concatenate(([0], cuts))
    stops = np.concatenate((cuts, [len(x)]))
    last = len(starts) - 1
    for k, (a, b) in enumerate(zip(starts, stops)):
        if b - a <= 1:
            continue
        xs, ys = x[a:b].copy(), y[a:b].copy()
        if k < last:  # the trailing non-finite point takes its neighbour's place
            xs[-1], ys[-1] = xs[-2], ys[-2]
        path.addPolygon(polygon(xs, ys))
    return path


def _finite_span(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float] | None:
    """(x0, x1, y0, y1) over the points where both x and y are finite, or None (fast when all are finite)."""
    b = (float(x.min()), float(x.max()), float(y.min()), float(y.max()))
    if all(map(math.isfinite, b)):
        return b
    ok = np.isfinite(x) & np.isfinite(y)
    if not ok.any():
        return None
    return (float(x[ok].min()), float(x[ok].max()), float(y[ok].min()), float(y[ok].max()))


def segmented(pen: QPen, antialias: bool) -> bool:
    """pyqtgraph's rule (PlotCurveItem, segmentedLineMode 'auto'): wide, solid, opaque pens without antialiasing
    are drawn as separate line segments (much faster than a wide polyline with joins in the raster engine)."""
    return (pen.widthF() > 1.0 and pen.style() == Qt.PenStyle.SolidLine and pen.isSolid()
            and pen.color().alphaF() == 1.0 and not antialias)


@dataclass(eq=False)
class Curve:
    """One curve of a :class:`CurveSet`: its name, pen and data (shares the set's x). Quacks like the parts of a
    ``PlotDataItem`` that the legend sample, the CSV export and the tests use."""

    name: str
    pen: QPen
    x: np.ndarray
    y: np.ndarray
    visible: bool = True
    owner: "CurveSet | None" = field(default=None, repr=False)

    @property
    def opts(self) -> dict[str, Any]:  # what pyqtgraph's legend sample (ItemSample) reads
        return {"pen": self.pen, "antialias": False, "fillLevel": None, "fillBrush": None, "symbol": None}

    def getOriginalDataset(self) -> tuple[np.ndarray, np.ndarray]:
        return self.x, self.y

    def getData(self) -> tuple[np.ndarray, np.ndarray]:
        return self.x, self.y

    def isVisible(self) -> bool:
        return self.visible

    def setVisible(self, on: bool) -> None:
        if on != self.visible:
            self.visible = on
            if self.owner is not None:
                self.owner._changed()  # (its bounds change too)


@dataclass
class _Display:
    """A curve's points as drawn (log mapping, clip to view, downsampling, range limit), and their path."""
    x: np.ndarray
    y: np.ndarray
    finite: bool
    _path: QPainterPath | None = None
    segments: Any = None

    def path(self) -> QPainterPath:
        """The curve as one QPainterPath: what pyqtgraph's PlotCurveItem draws (the raster engine strokes a path
        and a polyline of the same points with slightly different pixels)."""
        if self._path is None:
            self._path = finite_path(self.x, self.y)
        return self._path


class CurveSet(pg.GraphicsObject):
    """Every curve of one plot, in one item; see the module docstring.

    ``set_curves(x, [(name, y, pen), ...])`` replaces the data (the curves share the time axis ``x``);
    ``curves`` maps names to :class:`Curve` in drawing order.
    """

    def __init__(self) -> None:
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)  # paint() gets the exposed rect
        self.curves: dict[str, Curve] = {}
        self._x = np.zeros(0)
        self._log = (False, False)
        self._mapped: list[tuple[np.ndarray, np.ndarray]] | None = None  # per curve, after the log mapping
        self._bounds: tuple[float, float, float, float] | None = None  # of the mapped finite data
        self._display: list[_Display] | None = None
        self._display_key: Any = None
        self._ds_last = 1
        self._brect: QRectF | None = None
        self.antialias = bool(pg.getConfigOption("antialias"))
        self.paints = 0  # (tests) paint() calls that drew something

    # ---- data ----------------------------------------------------------------------------------------------
    def set_curves(self, x: np.ndarray, series: Iterable[tuple[str, np.ndarray, QPen]]) -> dict[str, Curve]:
        """Replace the curves: shared x, and (name, y, pen) in drawing order (the first is drawn first)."""
        x = np.asarray(x, float)
        old = self.curves
        self.curves = {}
        for name, y, pen in series:
            c = old.get(name)
            visible = c.visible if c is not None else True
            self.curves[name] = Curve(name, pen, x, np.asarray(y, float), visible, self)
        self._x = x
        self._changed()
        return self.curves

    def clear(self) -> None:
        self.set_curves(np.zeros(0), [])

    def setLogMode(self, x_mode: bool, y_mode: bool) -> None:
        """pyqtgraph's PlotItem calls this on its items: values are drawn as log10 on a log axis."""
        if (bool(x_mode), bool(y_mode)) != self._log:
            self._log = (bool(x_mode), bool(y_mode))
            self._changed()

    def _changed(self) -> None:
        self._mapped = None
        self._bounds = None
        self._display = None
        self._brect = None
        self.prepareGeometryChange()
        self.informViewBoundsChanged()
        self.update()

    def mapped(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per curve (x, y) in view coordinates (log10 on a log axis; non-positive values become NaN)."""
        if self._mapped is None:
            lx, ly = self._log
            with np.errstate(divide="ignore", invalid="ignore"):
                x = self._x
                if lx:
                    x = np.where(x > 0, np.log10(np.where(x > 0, x, 1.0)), np.nan)
                out = []
                for c in self.curves.values():
                    y = c.y
                    if ly:
                        y = np.where(y > 0, np.log10(np.where(y > 0, y, 1.0)), np.nan)
                    out.append((x, y))
            self._mapped = out
        return self._mapped

    def data_bounds(self) -> tuple[float, float, float, float] | None:
        """(x0, x1, y0, y1) over the finite mapped points of the visible curves, or None."""
        if self._bounds is None:
            xs, ys = [], []
            for c, (x, y) in zip(self.curves.values(), self.mapped()):
                if c.visible and len(x):
                    b = _finite_span(x, y)
                    if b is not None:
                        xs += b[:2]
                        ys += b[2:]
            self._bounds = (min(xs), max(xs), min(ys), max(ys)) if xs else None
        return self._bounds

    # ---- pyqtgraph / Qt item protocol -------------------------------------------------------------------
    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange: Any = None) -> tuple[float | None, float | None]:
        """The data range along ``ax`` (0: x, 1: y) for the view box's auto-range."""
        if orthoRange is not None and ax == 1:
            lo, hi = math.inf, -math.inf
            for c, (x, y) in zip(self.curves.values(), self.mapped()):
                if c.visible and len(x):
                    sel = y[(x >= orthoRange[0]) & (x <= orthoRange[1])]
                    sel = sel[np.isfinite(sel)]
                    if len(sel):
                        lo, hi = min(lo, float(sel.min())), max(hi, float(sel.max()))
            return (lo, hi) if lo <= hi else (None, None)
        b = self.data_bounds()
        if b is None:
            return (None, None)
        return (b[0], b[1]) if ax == 0 else (b[2], b[3])

    def pixelPadding(self) -> float:
        w = max((c.pen.widthF() for c in self.curves.values() if c.pen.isCosmetic()), default=0.0)
        return w * 0.7072

    def boundingRect(self) -> QRectF:
        if self._brect is None:
            b = self.data_bounds()
            if b is None:
                self._brect = QRectF()
            else:
                px, py = self.pixelVectors()
                pw = 1.0 + self.pixelPadding()  # the pens reach over the data by up to a pixel or two
                mx = pw * (px.length() if px is not None else 0.0)
                my = pw * (py.length() if py is not None else 0.0)
                self._brect = QRectF(b[0] - mx, b[2] - my, (b[1] - b[0]) + 2 * mx, (b[3] - b[2]) + 2 * my)
        return self._brect

    def viewTransformChanged(self) -> None:
        self._brect = None
        self.prepareGeometryChange()

    # ---- display data ------------------------------------------------------------------------------------
    def display(self) -> list[_Display]:
        """Per curve, the points to draw now (see the module docstring); cached until the data or the part of
        them that the view needs changes."""
        mapped = self.mapped()
        vb = self.getViewBox()
        x_all = mapped[0][0] if mapped else self._x
        i0, i1, ds, limit = 0, len(x_all), 1, None
        if vb is not None and len(x_all) > 1:
            vr = vb.viewRect()
            # automatic downsampling (pyqtgraph: data spacing vs pixels, with its hysteresis)
            dx = float(x_all[-1] - x_all[0]) / (len(x_all) - 1)
            width = vb.width()
            if dx != 0.0 and width != 0.0 and math.isfinite(dx):
                ds_f = max(1.0, abs(vr.width() / dx / (width * AUTO_DOWNSAMPLE_FACTOR)))
                if math.isfinite(ds_f):
                    ds = int(ds_f)
            if math.isclose(ds, self._ds_last, rel_tol=0.01):
                ds = self._ds_last
            self._ds_last = ds
            if not vb.autoRangeEnabled()[0]:  # clip to view (the x range is not following the data)
                i0 = min(max(bisect.bisect_left(x_all, vr.left()) - ds, 0), len(x_all))
                i1 = min(max(bisect.bisect_left(x_all, vr.right()) + ds, i0), len(x_all))
            b = self.data_bounds()
            h = vr.height()
            if b is not None and h > 0 and not b[2] > vr.bottom() and not b[3] < vr.top() \
                    and (b[3] - b[2]) > 2 * RANGE_HYST * RANGE_LIMIT * h:
                limit = (vr.top() - RANGE_LIMIT * h, vr.bottom() + RANGE_LIMIT * h)
        key = (i0, i1, ds, limit)
        if self._display is None or key != self._display_key:
            self._display = [self._display_of(x, y, i0, i1, ds, limit) for x, y in mapped]
            self._display_key = key
        return self._display

    @staticmethod
    def _display_of(x: np.ndarray, y: np.ndarray, i0: int, i1: int, ds: int,
                    limit: tuple[float, float] | None) -> _Display:
        x, y = x[i0:i1], y[i0:i1]
        if ds > 1:  # pyqtgraph's 'peak' downsampling: max then min of each group, at a centred x
            n = len(x) // ds
            st = ds // 2
            x = np.repeat(x[st:st + n * ds:ds], 2)
            y2 = y[:n * ds].reshape((n, ds))
            y = np.empty(2 * n)
            y[0::2] = y2.max(axis=1)
            y[1::2] = y2.min(axis=1)
        if limit is not None:
            y = np.clip(y, limit[0], limit[1])
        return _Display(x, y, bool(np.isfinite(x).all() and np.isfinite(y).all()))

    # ---- painting -----------------------------------------------------------------------------------------
    def paint(self, p: QPainter, opt: Any, widget: Any = None) -> None:
        if not self.curves or len(self._x) == 0:
            return
        exporting = self._exportOpts is not False
        aa = self._exportOpts.get("antialias", True) if exporting else self.antialias
        p.setRenderHint(QPainter.RenderHint.Antialiasing, aa)
        strip = None if exporting else self._strip(opt)
        for c, d in zip(self.curves.values(), self.display()):
            if not c.visible or c.pen.style() == Qt.PenStyle.NoPen:
                continue
            p.setPen(c.pen)
            if segmented(c.pen, self.antialias):
                self._draw_segments(p, d, strip)
            elif strip is not None and c.pen.style() == Qt.PenStyle.SolidLine and d.finite:
                self._draw_strip(p, d, strip)
            else:
                p.drawPath(d.path())
        self.paints += 1

    def _strip(self, opt: Any) -> tuple[float, float] | None:
        """The x range of a partial repaint narrower than STRIP_FRACTION of the view (else None: draw all),
        widened by STRIP_MARGIN pixels on each side (a segment that ends just outside is drawn with its cap)."""
        r = getattr(opt, "exposedRect", None)
        vb = self.getViewBox()
        if r is None or r.isNull() or vb is None:
            return None
        if r.width() >= STRIP_FRACTION * vb.viewRect().width():
            return None
        px = self.pixelWidth()
        if not px or not math.isfinite(px):
            return None
        return (r.left() - STRIP_MARGIN * px, r.right() + STRIP_MARGIN * px)

    @staticmethod
    def _draw_strip(p: QPainter, d: _Display, strip: tuple[float, float]) -> None:
        """The points of the (finite) curve inside the strip, with one more on each side (the segments into it)."""
        k0 = max(int(np.searchsorted(d.x, strip[0], "left")) - 1, 0)
        k1 = min(int(np.searchsorted(d.x, strip[1], "right")) + 1, len(d.x))
        if k1 - k0 >= 2:
            p.drawPath(finite_path(d.x[k0:k1], d.y[k0:k1]))

    @staticmethod
    def _draw_segments(p: QPainter, d: _Display, strip: tuple[float, float] | None) -> None:
        if strip is not None:
            k0 = max(int(np.searchsorted(d.x, strip[0], "left")) - 1, 0)
            k1 = min(int(np.searchsorted(d.x, strip[1], "right")) + 1, len(d.x))
            segs = arrayToLineSegments(d.x[k0:k1], d.y[k0:k1], connect="finite", finiteCheck=True)
            p.drawLines(*segs.drawargs())
            return
        if d.segments is None:
            d.segments = arrayToLineSegments(d.x, d.y, connect="finite", finiteCheck=True)
        p.drawLines(*d.segments.drawargs())


class EventMarks(pg.GraphicsObject):
    """Vertical lines across the whole view at the times of a run's contact events, one colour per event kind (one
    item for all of them: one ``paint()``). Added to a plot with ``ignoreBounds``: it never changes the ranges."""

    def __init__(self) -> None:
        super().__init__()
        self.times = np.zeros(0)
        self.colors: list[str] = []
        self.setZValue(-5)  # under the curves and the time cursor

    def set_marks(self, times: Iterable[float], colors: Iterable[str]) -> None:
        """Lines at ``times`` [s] in ``colors`` (one each)."""
        self.times = np.asarray(list(times), float)
        self.colors = list(colors)
        self.prepareGeometryChange()
        self.update()

    def boundingRect(self) -> QRectF:
        vr = self.viewRect()
        if vr is None or not len(self.times):
            return QRectF()
        return QRectF(vr)

    def viewRangeChanged(self) -> None:
        self.prepareGeometryChange()

    def paint(self, p: QPainter, opt: Any, widget: Any = None) -> None:
        vr = self.viewRect()
        if vr is None or not len(self.times):
            return
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        for x, color in zip(self.times, self.colors):  # (time axes are linear)
            if not vr.left() <= x <= vr.right():
                continue
            pen = QPen(pg.mkColor(color), 1, Qt.PenStyle.SolidLine)
            pen.setCosmetic(True)
            c = pen.color()
            c.setAlpha(90)
            pen.setColor(c)
            p.setPen(pen)
            p.drawLine(QLineF(x, vr.top(), x, vr.bottom()))
