"""The synthesis overlay on the planar canvas: the picked target points (numbered) and the current candidate linkage
(a four-bar's ground pivots, crank, coupler triangle and rocker, or a six-bar's links, in its pose at the first
target) with its path; for a function generator, the linkage, the crank's and the rocker's positions at the
precision points (thin numbered rays) and the arc of the rocker's pin.

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
from mechstudio.core.analysis.synthesis_sixbar_path import SixBarCandidate

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
class LinkagePose:
    """A linkage's pose [m]: its ground pivots, its moving links (each the polygon of its joints and points: a bar
    has two, a ternary link or the coupler with its coupler point three or more) and the traced point ``P``."""
    ground: tuple[Vec2, ...]
    links: tuple[tuple[Vec2, ...], ...]
    P: Vec2

    def points(self) -> list[Vec2]:
        return list(self.ground) + [p for link in self.links for p in link] + [self.P]


def four_bar_pose(cand: Candidate, theta: float) -> LinkagePose:
    """The four-bar's pose at crank angle ``theta`` [rad]: ground O2, O4; crank O2-A, coupler A-B-P, rocker O4-B."""
    g = cand.geometry
    A, B, P, _ = g.positions(np.array([theta]))
    O2, O4, a, b, p = _pt(g.O2), _pt(g.O4), _pt(A[0]), _pt(B[0]), _pt(P[0])
    return LinkagePose((O2, O4), ((O2, a), (a, b, p), (O4, b)), p)


def six_bar_pose(cand: SixBarCandidate, theta: float) -> LinkagePose:
    """A six-bar's pose at crank angle ``theta`` [rad] (core.analysis.synthesis_sixbar: the four-bar's links, with U
    and V on the links of their topology, link 5 U-E-P and link 6 V-E)."""
    g = cand.geometry
    J, _ = g.joints(np.array([theta]))
    at = {k: _pt(J[k][0]) for k in ("A", "B", "U", "V", "E", "P")}
    O2, O4 = _pt(g.O2), _pt(g.O4)
    members = {"ground": [O2, O4], "crank": [O2, at["A"]], "coupler": [at["A"], at["B"]], "rocker": [O4, at["B"]]}
    top = g.top
    members[top.u_link].append(at["U"])
    members[top.v_link].append(at["V"])
    links = tuple(tuple(members[k]) for k in ("crank", "coupler", "rocker")) + \
        ((at["U"], at["E"], at["P"]), (at["V"], at["E"]))
    return LinkagePose(tuple(members["ground"]), links, at["P"])


@dataclass(frozen=True)
class SynthesisPicture:
    """Everything the overlay draws (world coordinates [m]): the ``targets`` in order, the candidate's ``fitted``
    coupler points at its crank angles, its ``curve`` and its ``linkage`` pose (None before a candidate); ``rays``:
    segments (pivot, pin) drawn thin and numbered at the pin (a function generator's input and output positions);
    ``labels``: the numbers drawn at the targets."""
    targets: tuple[Vec2, ...] = ()
    fitted: tuple[Vec2, ...] = ()
    curve: tuple[Vec2, ...] = ()
    linkage: LinkagePose | None = None
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
            pts += self.linkage.points()
        return pts


def _pt(v: np.ndarray) -> Vec2:
    return (float(v[0]), float(v[1]))


def candidate_picture(cand: Candidate | SixBarCandidate | None, targets: tuple[Vec2, ...] = (), samples: int = 361,
                      labels: tuple[int, ...] = ()) -> SynthesisPicture:
    """What to draw for ``cand`` (None: the targets only). A path candidate (a four-bar or a six-bar): its pose at the
    first target, its path (``samples`` points) and its fitted points; a function generator: its pose at the first
    input angle, the rays O2 -> A and O4 -> B at every input angle, and the arc of B over the input's motion."""
    if cand is None:
        return SynthesisPicture(targets, labels=labels)
    pose = six_bar_pose if isinstance(cand, SixBarCandidate) else four_bar_pose
    linkage = pose(cand, float(cand.crank_angles[0]))  # type: ignore[arg-type]
    if cand.kind != "function":
        return SynthesisPicture(targets, tuple(_pt(p) for p in cand.fitted),
                                tuple(_pt(p) for p in cand.coupler_curve(samples)), linkage, labels=labels)
    g = cand.geometry
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


def _paint_linkage(view: QGraphicsView, painter: QPainter, lk: LinkagePose) -> None:
    """Ground pivots (hatched triangles, joined by a dashed line), each link as a thick bar or a shaded polygon,
    white joint circles, the traced point filled."""
    ground = QColor(GROUND_COLOR)
    pivots = [_px(view, p) for p in lk.ground]
    painter.setPen(QPen(ground, 1.0, Qt.PenStyle.DashLine))
    for a, b in zip(pivots, pivots[1:]):
        painter.drawLine(a, b)
    for o in pivots:  # a ground pivot: a hatched triangle under the pin
        h = GROUND_PX
        tri = QPolygonF([o, o + QPointF(-h / 2, h), o + QPointF(h / 2, h)])
        painter.setPen(QPen(ground, 1.2))
        painter.setBrush(QBrush(QColor(0, 0, 0, 40)))
        painter.drawPolygon(tri)
        painter.drawLine(o + QPointF(-h * 0.75, h), o + QPointF(h * 0.75, h))
    link = QColor(LINK_COLOR)
    P = _px(view, lk.P)
    joints: list[QPointF] = list(pivots)
    for member in lk.links:
        pts = [_px(view, p) for p in member]
        if len(pts) > 2:
            painter.setPen(QPen(link, 1.5))
            painter.setBrush(QBrush(QColor(31, 78, 156, 45)))
            painter.drawPolygon(QPolygonF(pts))
        pen = QPen(link, 3.0)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.drawLine(pts[0], pts[1])
        joints += [p for p in pts if p != P]
    painter.setPen(QPen(link, 1.5))
    painter.setBrush(QBrush(QColor("white")))
    for j in joints:
        painter.drawEllipse(j, JOINT_PX, JOINT_PX)
    painter.setBrush(QBrush(QColor(CURVE_COLOR)))
    painter.setPen(QPen(QColor(CURVE_COLOR), 1.0))
    painter.drawEllipse(P, JOINT_PX, JOINT_PX)


__all__ = ["LinkagePose", "SynthesisPicture", "four_bar_pose", "six_bar_pose", "candidate_picture", "fit_picture", "paint_synthesis", "picture_in_view"]
