"""The four-bar synthesis overlay on the planar canvas: the picked target points (numbered) and the current
candidate linkage (ground pivots, crank, coupler triangle, rocker, in its pose at the first target) with its coupler
curve; for a function generator, the linkage, the crank's and the rocker's positions at the precision points (thin
numbered rays) and the arc of the rocker's pin.

What is drawn is a :class:`SynthesisPicture`: plain data in world coordinates [m]. :func:`paint_synthesis` paints it
from the canvas's ``drawForeground`` (through the canvas's ``overlay_painters``), in viewport pixels (the world points
mapped by the view's transform), so markers and numbers keep their size at every zoom. Nothing here is a graphics
item: clicks never pick it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF, QTransform
from PySide6.QtWidgets import QGraphicsView

from mechstudio.core.analysis.synthesis import Candidate

Vec2 = tuple[float, float]

TARGET_COLOR = "#d35400"
CURVE_COLOR = "#2e7d32"
LINK_COLOR = "#1f4e9c"
GROUND_COLOR = "#444444"
RAY_COLOR = "#7a5ea8"
#: radius of a target marker and of a joint circle [px]
TARGET_PX, JOINT_PX = 6.0, 4.0
#: side of a ground pivot's triangle [px]
GROUND_PX = 14.0
FONT_POINTS = 8


@dataclass(frozen=True)
class Linkage4:
    """A four-bar's pose: ground pivots ``O2``, ``O4``, crank pin ``A``, rocker pin ``B``, coupler point ``P`` [m]."""
    O2: Vec2
    O4: Vec2
    A: Vec2
    B: Vec2
    P: Vec2


@dataclass(frozen=True)
class SynthesisPicture:
    """Everything the overlay draws (world coordinates [m]): the ``targets`` in order, the candidate's ``fitted``
    coupler points at its crank angles, its ``curve`` and its ``linkage`` pose (None before a candidate); ``rays``:
    segments (pivot, pin) drawn thin and numbered at the pin (a function generator's input and output positions);
    ``labels``: the numbers drawn at the targets."""
    targets: tuple[Vec2, ...] = ()
    fitted: tuple[Vec2, ...] = ()
    curve: tuple[Vec2, ...] = ()
    linkage: Linkage4 | None = None
    rays: tuple[tuple[Vec2, Vec2], ...] = ()
    #: the targets' numbers (default 1, 2, ...: a table's row numbers when some rows are not drawn)
    labels: tuple[int, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.targets or self.curve or self.linkage)

    def points(self) -> list[Vec2]:
        """Every world point drawn (to fit the view to)."""
        pts = list(self.targets) + list(self.fitted) + list(self.curve) + [p for r in self.rays for p in r]
        if self.linkage is not None:
            lk = self.linkage
            pts += [lk.O2, lk.O4, lk.A, lk.B, lk.P]
        return pts


def _pt(v: np.ndarray) -> Vec2:
    return (float(v[0]), float(v[1]))


def candidate_picture(cand: Candidate | None, targets: tuple[Vec2, ...] = (), samples: int = 361,
                      labels: tuple[int, ...] = ()) -> SynthesisPicture:
    """What to draw for ``cand`` (None: the targets only). A path candidate: its pose at the first target, its coupler
    curve (``samples`` points) and its fitted points; a function generator: its pose at the first input angle, the
    rays O2 -> A and O4 -> B at every input angle, and the arc of B over the input's motion."""
    if cand is None:
        return SynthesisPicture(targets, labels=labels)
    g = cand.geometry
    A, B, P, _ = g.positions(np.array([cand.crank_angles[0]]))
    linkage = Linkage4(_pt(g.O2), _pt(g.O4), _pt(A[0]), _pt(B[0]), _pt(P[0]))
    if cand.kind != "function":
        return SynthesisPicture(targets, tuple(_pt(p) for p in cand.fitted),
                                tuple(_pt(p) for p in cand.coupler_curve(samples)), linkage, labels=labels)
    Aj, Bj, _, _ = g.positions(cand.crank_angles)
    rays = tuple((_pt(g.O2), _pt(a)) for a in Aj) + tuple((_pt(g.O4), _pt(b)) for b in Bj)
    _, Bs, _, ok = g.positions(np.linspace(cand.crank_angles[0], cand.crank_angles[-1], samples))
    return SynthesisPicture((), (), tuple(_pt(b) for b in Bs[ok]), linkage, rays)


def picture_in_view(view: QGraphicsView, picture: SynthesisPicture) -> bool:
    """Whether everything in ``picture`` lies in the view's viewport."""
    pts = picture.points()
    if not pts:
        return True
    vp = view.viewport().rect()
    return all(vp.contains(_px(view, p).toPoint()) for p in pts)


def fit_picture(view: QGraphicsView, picture: SynthesisPicture, margin: float = 1.25) -> None:
    """Zoom and centre ``view`` (y up) on ``picture``: its bounding box times ``margin`` fills the viewport."""
    pts = np.array(picture.points(), float)
    if not len(pts):
        return
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    w, h = max(hi[0] - lo[0], 1e-6), max(hi[1] - lo[1], 1e-6)
    vp = view.viewport().rect()
    scale = min(max(vp.width(), 100) / (w * margin), max(vp.height(), 100) / (h * margin))
    view.setTransform(QTransform.fromScale(scale, -scale))
    view.centerOn(QPointF(float(lo[0] + hi[0]) / 2, float(lo[1] + hi[1]) / 2))
    view.viewport().update()


def _px(view: QGraphicsView, p: Vec2) -> QPointF:
    """Viewport position [px] of world point ``p`` [m]."""
    return view.viewportTransform().map(QPointF(float(p[0]), float(p[1])))


def paint_synthesis(view: QGraphicsView, painter: QPainter, picture: SynthesisPicture) -> dict[int, QPointF]:
    """Paint ``picture`` on ``view`` (from its ``drawForeground``); returns each target's number (label) -> its
    marker's centre in viewport pixels (for tests)."""
    out: dict[int, QPointF] = {}
    painter.save()
    try:
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if len(picture.curve) > 1:
            path = QPainterPath(_px(view, picture.curve[0]))
            for p in picture.curve[1:]:
                path.lineTo(_px(view, p))
            painter.setPen(QPen(QColor(CURVE_COLOR), 1.6))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(path)
        if picture.rays:
            _paint_rays(view, painter, picture.rays)
        if picture.linkage is not None:
            _paint_linkage(view, painter, picture.linkage)
        # the fitted points: small crosses, each joined to its target by a thin line (the residual)
        pen = QPen(QColor(CURVE_COLOR), 1.0)
        painter.setPen(pen)
        for t, f in zip(picture.targets, picture.fitted):
            a, b = _px(view, t), _px(view, f)
            painter.drawLine(a, b)
            painter.drawLine(b + QPointF(-3, -3), b + QPointF(3, 3))
            painter.drawLine(b + QPointF(-3, 3), b + QPointF(3, -3))
        font = QFont()
        font.setPointSize(FONT_POINTS)
        font.setBold(True)
        painter.setFont(font)
        metrics = QFontMetricsF(font)
        labels = picture.labels or tuple(range(1, len(picture.targets) + 1))
        for k, t in zip(labels, picture.targets):
            c = _px(view, t)
            out[k] = c
            painter.setPen(QPen(QColor(TARGET_COLOR), 2.0))
            painter.setBrush(QBrush(QColor(255, 255, 255, 200)))
            painter.drawEllipse(c, TARGET_PX, TARGET_PX)
            painter.drawLine(c + QPointF(-TARGET_PX - 3, 0), c + QPointF(-TARGET_PX + 2, 0))
            painter.drawLine(c + QPointF(TARGET_PX - 2, 0), c + QPointF(TARGET_PX + 3, 0))
            text = str(k)
            w, h = metrics.horizontalAdvance(text) + 6, metrics.height() + 2
            box = QRectF(c.x() + TARGET_PX + 2, c.y() - TARGET_PX - h, w, h)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QBrush(QColor(TARGET_COLOR)))
            painter.drawRoundedRect(box, 3, 3)
            painter.setPen(QPen(QColor("white")))
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
        return out
    finally:
        painter.restore()


def _paint_rays(view: QGraphicsView, painter: QPainter, rays: tuple[tuple[Vec2, Vec2], ...]) -> None:
    """Thin dashed rays, numbered at their ends (the rays of each pivot numbered from 1)."""
    pen = QPen(QColor(RAY_COLOR), 1.0, Qt.PenStyle.DashLine)
    font = QFont()
    font.setPointSize(FONT_POINTS)
    painter.setFont(font)
    counts: dict[Vec2, int] = {}
    for start, end in rays:
        a, b = _px(view, start), _px(view, end)
        painter.setPen(pen)
        painter.drawLine(a, b)
        painter.setBrush(QBrush(QColor(RAY_COLOR)))
        painter.drawEllipse(b, 2.0, 2.0)
        counts[start] = k = counts.get(start, 0) + 1
        painter.setPen(QPen(QColor(RAY_COLOR)))
        direction = b - a
        norm = max((direction.x() ** 2 + direction.y() ** 2) ** 0.5, 1e-9)
        c = b + direction / norm * 9.0
        painter.drawText(QRectF(c.x() - 10, c.y() - 8, 20, 16), Qt.AlignmentFlag.AlignCenter, str(k))


def _paint_linkage(view: QGraphicsView, painter: QPainter, lk: Linkage4) -> None:
    O2, O4, A, B, P = (_px(view, p) for p in (lk.O2, lk.O4, lk.A, lk.B, lk.P))
    ground = QColor(GROUND_COLOR)
    painter.setPen(QPen(ground, 1.0, Qt.PenStyle.DashLine))
    painter.drawLine(O2, O4)
    for o in (O2, O4):  # a ground pivot: a hatched triangle under the pin
        h = GROUND_PX
        tri = QPolygonF([o, o + QPointF(-h / 2, h), o + QPointF(h / 2, h)])
        painter.setPen(QPen(ground, 1.2))
        painter.setBrush(QBrush(QColor(0, 0, 0, 40)))
        painter.drawPolygon(tri)
        painter.drawLine(o + QPointF(-h * 0.75, h), o + QPointF(h * 0.75, h))
    link = QColor(LINK_COLOR)
    coupler = QPolygonF([A, B, P])
    painter.setPen(QPen(link, 1.5))
    painter.setBrush(QBrush(QColor(31, 78, 156, 45)))
    painter.drawPolygon(coupler)
    pen = QPen(link, 3.0)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    painter.drawLine(O2, A)
    painter.drawLine(O4, B)
    painter.drawLine(A, B)
    painter.setPen(QPen(link, 1.5))
    painter.setBrush(QBrush(QColor("white")))
    for j in (O2, O4, A, B):
        painter.drawEllipse(j, JOINT_PX, JOINT_PX)
    painter.setBrush(QBrush(QColor(CURVE_COLOR)))
    painter.setPen(QPen(QColor(CURVE_COLOR), 1.0))
    painter.drawEllipse(P, JOINT_PX, JOINT_PX)


__all__ = ["Linkage4", "SynthesisPicture", "candidate_picture", "fit_picture", "paint_synthesis", "picture_in_view"]
