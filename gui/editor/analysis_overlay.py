"""Analysis overlays on the planar canvas: instant centres, Kennedy lines, the transmission angle and the ghosts of
limit positions, painted over the mechanism.

What is drawn is an :class:`OverlayPicture`: plain data in world coordinates [m] (computed without Qt by
:mod:`mechstudio.gui.analysis.overlay_data`). :func:`paint_overlay` paints it from the canvas's ``drawForeground``
(the canvas calls every function in its ``overlay_painters``). Nothing here is a graphics item, so the overlay
follows zoom and pan with the view's transform, is repainted with the viewport, and is never picked by a click.

Everything is painted in viewport pixels (the world points mapped by the view's transform), so markers, arcs and
labels keep their size at every zoom:

* **instant centres**: a ring with a cross at each finite centre, labelled ``I12`` (link 1 is the ground, the
  bodies are 2, 3, ... in file order; the picture's notes give the legend); centres closer than
  :data:`MERGE_PX` share one marker and one label (``I12, I14``). A centre outside the viewport, or at infinity
  (a relative translation: a direction, not a point), is an arrow at the viewport's edge pointing to it, labelled
  ``I14 ∞`` for a point at infinity;
* **Kennedy lines**: thin dashed lines through the three centres of every three links (Kennedy's theorem says
  they are collinear), clipped to the viewport;
* **transmission angle**: an arc at the coupler-output joint between its two rays, with its value; red where the
  angle is poor;
* **limit positions and stops**: the mechanism's outline in each of those poses, dashed, labelled at the output
  joint;
* **notes** (the legend, centres at infinity or undefined, why an overlay is not drawn): a box in the viewport's
  top-left corner.

Labels are put beside their markers, on the first of a few sides (two rings of them) where they overlap neither
the canvas's own labels nor the overlay's earlier ones, nor leave the viewport; where every side is taken, on the
one that covers least (:func:`mechstudio.gui.editor.label_layout.least_covered`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF, QTransform
from PySide6.QtWidgets import QGraphicsSimpleTextItem, QGraphicsView

from mechstudio.gui.editor.label_layout import Rect, least_covered

Vec2 = tuple[float, float]

CENTRE_COLOR = "#b0147a"
KENNEDY_COLOR = "#d77fbf"
ARC_COLOR = "#0a7f8c"
POOR_COLOR = "#c62828"
LIMIT_COLOR = "#3f5fa8"
STOP_COLOR = "#c0392b"
NOTE_COLOR = "#333333"
#: ring radius of an instant-centre marker [px]
MARKER_PX = 5.5
#: centres nearer than this on screen share a marker and a label [px]
MERGE_PX = 4.0
#: radius of the transmission-angle arc [px]; its rays reach this much further
ARC_PX, RAY_EXTRA_PX = 30.0, 16.0
#: arrows for centres off the viewport sit this far inside its edge [px]
EDGE_INSET_PX = 16.0
#: a Kennedy line reaches this far beyond its outermost centres [px]
KENNEDY_MARGIN_PX = 28.0
#: gap between a marker and its label [px]
LABEL_GAP_PX = 6.0
FONT_POINTS = 8
#: the notes box is at most this wide; longer notes wrap [px]
NOTES_MAX_PX = 520.0


@dataclass(frozen=True)
class CentreMark:
    """One instant centre: ``label`` (``I13``), the body ``pair`` of core's ``instant_centres``, the world
    ``point`` [m] when it is finite, the unit ``direction`` when it is at infinity (both None: undefined)."""
    label: str
    pair: tuple[str, str]
    point: Vec2 | None
    direction: Vec2 | None = None


@dataclass(frozen=True)
class KennedyLine:
    """The line of the three centres ``labels`` of three links: through ``through`` [m] along the unit
    ``direction``; ``points`` are its finite centres; ``infinite`` when one of them is at infinity."""
    labels: tuple[str, str, str]
    through: Vec2
    direction: Vec2
    points: tuple[Vec2, ...]
    infinite: bool = False


@dataclass(frozen=True)
class AngleArc:
    """The transmission angle at ``vertex`` [m] between the unit directions ``ray1`` and ``ray2`` (world); its
    ``text`` (value in degrees); ``poor`` when it is outside the recommended range."""
    vertex: Vec2
    ray1: Vec2
    ray2: Vec2
    value_rad: float
    text: str
    poor: bool = False


@dataclass(frozen=True)
class Ghost:
    """The mechanism's outline in a limit position or stop (``kind`` "limit" or "stop"): bars as segments,
    polygons, disks (centre, radius) [m]; ``label`` drawn at ``anchor`` (the output joint in that pose)."""
    kind: str
    label: str
    anchor: Vec2
    segments: tuple[tuple[Vec2, Vec2], ...] = ()
    polygons: tuple[tuple[Vec2, ...], ...] = ()
    disks: tuple[tuple[Vec2, float], ...] = ()


@dataclass(frozen=True)
class OverlayPicture:
    """Everything the overlay draws for one configuration (world coordinates [m])."""
    centres: tuple[CentreMark, ...] = ()
    kennedy: tuple[KennedyLine, ...] = ()
    arc: AngleArc | None = None
    ghosts: tuple[Ghost, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.centres or self.kennedy or self.arc or self.ghosts or self.notes)


@dataclass
class Painted:
    """Where the last paint put things, in viewport pixels (tests and tooltips read it): ``markers`` label ->
    marker centre; ``edge_marks`` label -> arrow tip of a centre off the viewport or at infinity; ``labels`` the
    text and rectangle of every label; ``arc`` the transmission arc's vertex; ``ghost_anchors`` per ghost label."""
    markers: dict[str, QPointF] = field(default_factory=dict)
    edge_marks: dict[str, QPointF] = field(default_factory=dict)
    labels: list[tuple[str, QRectF]] = field(default_factory=list)
    arc: QPointF | None = None
    ghost_anchors: dict[str, QPointF] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    notes_rect: QRectF | None = None


def canvas_label_rects(view: QGraphicsView) -> list[QRectF]:
    """Viewport rectangles [px] of the text items of ``view``'s scene (the canvas's body and joint names)."""
    vt = view.viewportTransform()
    rects = []
    for item in view.scene().items():
        if isinstance(item, QGraphicsSimpleTextItem) and item.isVisible():
            rects.append(item.deviceTransform(vt).mapRect(item.boundingRect()))
    return rects


def _box(r: QRectF) -> Rect:
    return (r.left(), r.top(), r.right(), r.bottom())


def _unit(x: float, y: float) -> tuple[float, float]:
    n = math.hypot(x, y)
    return (x / n, y / n) if n > 0 else (1.0, 0.0)


class _Painter:
    """One paint of a picture (module docstring): world -> pixel mapping, label placement, drawing."""

    def __init__(self, view: QGraphicsView, painter: QPainter):
        self.view, self.p = view, painter
        self.xf = QTransform(painter.transform())  # world -> viewport pixels
        self.rect = QRectF(view.viewport().rect())
        self.taken: list[QRectF] = canvas_label_rects(view)
        self.font = QFont()
        self.font.setPointSize(FONT_POINTS)
        self.fm = QFontMetricsF(self.font)
        self.out = Painted()
        self.pending: list[tuple[str, QPointF, str, float, tuple[float, float] | None]] = []
        self.sector: tuple[QPointF, float, float, float] | None = None  # the arc: vertex, start, span [deg], reach

    def px(self, p: Sequence[float]) -> QPointF:
        return self.xf.map(QPointF(float(p[0]), float(p[1])))

    def px_dir(self, d: Sequence[float]) -> tuple[float, float]:
        """A world direction as a unit pixel direction (y turns down)."""
        o = self.xf.map(QPointF(0.0, 0.0))
        e = self.xf.map(QPointF(float(d[0]), float(d[1])))
        return _unit(e.x() - o.x(), e.y() - o.y())

    def pen(self, color: str, width: float = 1.5, style: Qt.PenStyle = Qt.PenStyle.SolidLine) -> QPen:
        pen = QPen(QColor(color), width, style)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        return pen

    # ---- labels ----------------------------------------------------------------------------------------------
    def place(self, text: str, at: QPointF, gap: float = LABEL_GAP_PX,
              first: tuple[float, float] | None = None) -> QRectF:
        """The rectangle of ``text`` beside ``at``: the first candidate side that is free, else the least covered
        (module docstring);
        ``first`` a preferred unit direction (px) tried before the others."""
        w, h = self.fm.horizontalAdvance(text) + 4, self.fm.height() + 2
        x, y = at.x(), at.y()
        cands = [c for g in (gap, 3 * gap) for c in (  # a second ring for a crowded first one
            (x + g, y - g - h), (x + g, y + g), (x - g - w, y - g - h), (x - g - w, y + g),
            (x - w / 2, y - 2 * g - h), (x - w / 2, y + 2 * g), (x + 2 * g, y - h / 2), (x - 2 * g - w, y - h / 2))]
        if first is not None:
            cx, cy = x + first[0] * (gap + w / 2), y + first[1] * (gap + h / 2)
            cands.insert(0, (cx - w / 2, cy - h / 2))
        rects = [QRectF(cx, cy, w, h) for cx, cy in cands]
        inside = self.rect.adjusted(2, 2, -2, -2)
        k = least_covered([_box(r) for r in rects], [_box(t) for t in self.taken], _box(inside), self.sector_cost)
        return rects[k]

    def sector_cost(self, r: Rect) -> float:
        """The area [px^2] of ``r`` when it covers the transmission arc's sector (a label there hides the angle)."""
        covers = self.in_sector(QRectF(QPointF(r[0], r[1]), QPointF(r[2], r[3])))
        return (r[2] - r[0]) * (r[3] - r[1]) if covers else 0.0

    def in_sector(self, r: QRectF) -> bool:
        """Whether ``r`` covers part of the transmission arc's sector (its rays and arc), sampled at its corners,
        edge midpoints and centre."""
        if self.sector is None:
            return False
        v, start, span, reach = self.sector
        lo, hi = (start, start + span) if span >= 0 else (start + span, start)
        xs, ys = (r.left(), r.center().x(), r.right()), (r.top(), r.center().y(), r.bottom())
        for x in xs:
            for y in ys:
                dx, dy = x - v.x(), y - v.y()
                if math.hypot(dx, dy) > reach:
                    continue
                a = math.degrees(math.atan2(-dy, dx))
                a = lo + (a - lo) % 360.0
                if a <= hi + 8.0 or a >= lo + 352.0:  # within the sector, or a few degrees from a ray
                    return True
        return False

    def later(self, text: str, at: QPointF, color: str, gap: float = LABEL_GAP_PX,
              first: tuple[float, float] | None = None) -> None:
        """A label placed after every marker, ray and arc is drawn (so that it can keep clear of them)."""
        self.pending.append((text, at, color, gap, first))

    def flush_labels(self) -> None:
        for text, at, color, gap, first in self.pending:
            self.label(text, at, color, gap, first)
        self.pending = []

    def label(self, text: str, at: QPointF, color: str, gap: float = LABEL_GAP_PX,
              first: tuple[float, float] | None = None) -> QRectF:
        r = self.place(text, at, gap, first)
        self.taken.append(r)
        self.p.setPen(Qt.PenStyle.NoPen)
        self.p.setBrush(QColor(255, 255, 255, 200))
        self.p.drawRoundedRect(r, 2, 2)
        self.p.setPen(QColor(color))
        self.p.setFont(self.font)
        self.p.drawText(r, int(Qt.AlignmentFlag.AlignCenter), text)
        self.out.labels.append((text, r))
        return r

    # ---- pieces ----------------------------------------------------------------------------------------------
    def ghost(self, g: Ghost) -> None:
        color = LIMIT_COLOR if g.kind == "limit" else STOP_COLOR
        pen = self.pen(color, 1.4)
        pen.setDashPattern([5.0, 3.0])
        self.p.setPen(pen)
        self.p.setBrush(Qt.BrushStyle.NoBrush)
        for a, b in g.segments:
            self.p.drawLine(QLineF(self.px(a), self.px(b)))
        for poly in g.polygons:
            self.p.drawPolygon(QPolygonF([self.px(v) for v in poly]))
        scale = abs(self.xf.m11())
        for c, r in g.disks:
            self.p.drawEllipse(self.px(c), r * scale, r * scale)
        at = self.px(g.anchor)
        self.p.setBrush(QColor(color))
        self.p.drawEllipse(at, 2.5, 2.5)
        self.out.ghost_anchors[g.label] = at
        self.taken.append(QRectF(at.x() - 3, at.y() - 3, 6, 6))

    def ghost_label(self, g: Ghost) -> None:
        self.later(g.label, self.out.ghost_anchors[g.label], LIMIT_COLOR if g.kind == "limit" else STOP_COLOR)

    def clip(self, o: QPointF, d: tuple[float, float], lo: float, hi: float) -> tuple[float, float] | None:
        """The part [t0, t1] of o + t d, t in [lo, hi], inside the viewport (Liang-Barsky); None when outside."""
        r = self.rect
        for pc, dc, mn, mx in ((o.x(), d[0], r.left(), r.right()), (o.y(), d[1], r.top(), r.bottom())):
            if abs(dc) < 1e-12:
                if pc < mn or pc > mx:
                    return None
                continue
            t_a, t_b = (mn - pc) / dc, (mx - pc) / dc
            lo, hi = max(lo, min(t_a, t_b)), min(hi, max(t_a, t_b))
        return (lo, hi) if lo < hi else None

    def kennedy(self, k: KennedyLine) -> None:
        o = self.px(k.through)
        d = self.px_dir(k.direction)
        ts = [(self.px(p).x() - o.x()) * d[0] + (self.px(p).y() - o.y()) * d[1] for p in k.points] or [0.0]
        big = 4.0 * (self.rect.width() + self.rect.height()) + abs(o.x()) + abs(o.y())
        lo = -big if k.infinite else min(ts) - KENNEDY_MARGIN_PX
        hi = big if k.infinite else max(ts) + KENNEDY_MARGIN_PX
        span = self.clip(o, d, lo, hi)
        if span is None:
            return
        self.p.setPen(self.pen(KENNEDY_COLOR, 1.0, Qt.PenStyle.DashLine))
        t0, t1 = span
        self.p.drawLine(QLineF(o.x() + t0 * d[0], o.y() + t0 * d[1], o.x() + t1 * d[0], o.y() + t1 * d[1]))

    def arc(self, a: AngleArc) -> None:
        v = self.px(a.vertex)
        color = POOR_COLOR if a.poor else ARC_COLOR
        r1, r2 = self.px_dir(a.ray1), self.px_dir(a.ray2)
        self.p.setPen(self.pen(color, 1.3, Qt.PenStyle.DashLine))
        reach = ARC_PX + RAY_EXTRA_PX
        for r in (r1, r2):
            self.p.drawLine(QLineF(v, QPointF(v.x() + reach * r[0], v.y() + reach * r[1])))
        a1 = math.degrees(math.atan2(-r1[1], r1[0]))  # Qt's arc angles: counter-clockwise on the screen
        a2 = math.degrees(math.atan2(-r2[1], r2[0]))
        span = (a2 - a1 + 180.0) % 360.0 - 180.0
        box = QRectF(v.x() - ARC_PX, v.y() - ARC_PX, 2 * ARC_PX, 2 * ARC_PX)
        path = QPainterPath()
        path.arcMoveTo(box, a1)
        path.arcTo(box, a1, span)
        self.p.setPen(self.pen(color, 2.2))
        self.p.setBrush(Qt.BrushStyle.NoBrush)
        self.p.drawPath(path)
        self.out.arc = v
        self.sector = (v, a1, span, reach)
        mid = math.radians(a1 + span / 2)
        bis = (math.cos(mid), -math.sin(mid))
        self.arc_label = (a.text, QPointF(v.x() + ARC_PX * bis[0], v.y() + ARC_PX * bis[1]), color, bis)

    def arc_text(self) -> None:
        """The arc's value, on its bisector outside the arc (or the nearest free side)."""
        text, at, color, bis = self.arc_label
        sector, self.sector = self.sector, None  # the value belongs beside its own arc
        try:
            self.label(text, at, color, gap=4.0, first=bis)
        finally:
            self.sector = sector

    def centres(self, marks: Iterable[CentreMark]) -> None:
        groups: list[tuple[QPointF, list[str]]] = []
        edge: list[tuple[CentreMark, QPointF, tuple[float, float]]] = []
        inside = self.rect.adjusted(MARKER_PX, MARKER_PX, -MARKER_PX, -MARKER_PX)
        centre = self.rect.center()
        for m in marks:
            if m.point is not None:
                at = self.px(m.point)
                if not (math.isfinite(at.x()) and math.isfinite(at.y())):
                    continue
                if inside.contains(at):
                    for g in groups:
                        if math.hypot(g[0].x() - at.x(), g[0].y() - at.y()) <= MERGE_PX:
                            g[1].append(m.label)
                            break
                    else:
                        groups.append((at, [m.label]))
                else:
                    edge.append((m, at, _unit(at.x() - centre.x(), at.y() - centre.y())))
            elif m.direction is not None:
                edge.append((m, centre, self.px_dir(m.direction)))
        pen = self.pen(CENTRE_COLOR, 2.0)
        for at, labels in groups:
            self.p.setPen(pen)
            self.p.setBrush(QColor(255, 255, 255, 160))
            self.p.drawEllipse(at, MARKER_PX, MARKER_PX)
            c = MARKER_PX * 0.7
            self.p.drawLine(QLineF(at.x() - c, at.y() - c, at.x() + c, at.y() + c))
            self.p.drawLine(QLineF(at.x() - c, at.y() + c, at.x() + c, at.y() - c))
            self.taken.append(QRectF(at.x() - MARKER_PX, at.y() - MARKER_PX, 2 * MARKER_PX, 2 * MARKER_PX))
            for name in labels:
                self.out.markers[name] = at
        for at, labels in groups:
            self.later(", ".join(labels), at, CENTRE_COLOR)
        for m, _at, d in edge:
            tip = self.edge_point(d)
            self.arrow(tip, d)
            self.out.edge_marks[m.label] = tip
            self.later(f"{m.label} ∞" if m.point is None else m.label, tip, CENTRE_COLOR, first=(-d[0], -d[1]))

    def edge_point(self, d: tuple[float, float]) -> QPointF:
        """Where the ray from the viewport's centre along the pixel direction ``d`` meets its edge (inset)."""
        r = self.rect.adjusted(EDGE_INSET_PX, EDGE_INSET_PX, -EDGE_INSET_PX, -EDGE_INSET_PX)
        c = r.center()
        ts = []
        if abs(d[0]) > 1e-12:
            ts.append((r.right() - c.x()) / d[0] if d[0] > 0 else (r.left() - c.x()) / d[0])
        if abs(d[1]) > 1e-12:
            ts.append((r.bottom() - c.y()) / d[1] if d[1] > 0 else (r.top() - c.y()) / d[1])
        t = min(ts) if ts else 0.0
        return QPointF(c.x() + t * d[0], c.y() + t * d[1])

    def arrow(self, tip: QPointF, d: tuple[float, float]) -> None:
        L, h = 14.0, 5.0
        base = QPointF(tip.x() - L * d[0], tip.y() - L * d[1])
        n = (-d[1], d[0])
        self.p.setPen(self.pen(CENTRE_COLOR, 2.0))
        self.p.drawLine(QLineF(base, tip))
        head = QPolygonF([tip, QPointF(tip.x() - h * 1.6 * d[0] + h * n[0], tip.y() - h * 1.6 * d[1] + h * n[1]),
                          QPointF(tip.x() - h * 1.6 * d[0] - h * n[0], tip.y() - h * 1.6 * d[1] - h * n[1])])
        self.p.setBrush(QBrush(QColor(CENTRE_COLOR)))
        self.p.drawPolygon(head)

    def wrap(self, text: str, width: float) -> list[str]:
        """``text`` broken at spaces into lines no wider than ``width`` [px] (continuation lines indented)."""
        lines, line = [], ""
        for word in text.split(" "):
            trial = f"{line} {word}" if line else word
            if line and self.fm.horizontalAdvance(trial) > width:
                lines.append(line)
                line = "   " + word
            else:
                line = trial
        return lines + [line]

    def notes(self, notes: Sequence[str]) -> None:
        if not notes:
            return
        limit = max(min(NOTES_MAX_PX, self.rect.width() - 26), 80.0)
        lines = [ln for note in notes for ln in self.wrap(note, limit)]
        width = min(max(self.fm.horizontalAdvance(s) for s in lines) + 12, self.rect.width() - 16)
        lh = self.fm.height() + 1
        box = QRectF(self.rect.left() + 8, self.rect.top() + 8, width, lh * len(lines) + 8)
        self.p.setPen(QPen(QColor("#c8c8c8"), 1))
        self.p.setBrush(QColor(255, 255, 255, 215))
        self.p.drawRoundedRect(box, 3, 3)
        self.p.setPen(QColor(NOTE_COLOR))
        self.p.setFont(self.font)
        for k, s in enumerate(lines):
            text = self.fm.elidedText(s, Qt.TextElideMode.ElideRight, box.width() - 10)
            self.p.drawText(QRectF(box.left() + 5, box.top() + 4 + k * lh, box.width() - 10, lh),
                            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)
        self.out.notes = tuple(notes)
        self.out.notes_rect = box
        self.taken.append(box)


def paint_overlay(view: QGraphicsView, painter: QPainter, picture: OverlayPicture) -> Painted:
    """Paint ``picture`` on ``view`` (called from its ``drawForeground``: the painter maps world coordinates to
    the viewport); where things went, in viewport pixels."""
    painter.save()
    try:
        pt = _Painter(view, painter)
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pt.notes(picture.notes)  # first: the labels keep clear of the box
        for g in picture.ghosts:
            pt.ghost(g)
        for k in picture.kennedy:
            pt.kennedy(k)
        if picture.arc is not None:
            pt.arc(picture.arc)
        pt.centres(picture.centres)
        pt.flush_labels()  # the centres' names, clear of the markers and the arc
        if picture.arc is not None:
            pt.arc_text()
        for g in picture.ghosts:
            pt.ghost_label(g)
        pt.flush_labels()
        return pt.out
    finally:
        painter.restore()


__all__ = ["AngleArc", "CentreMark", "Ghost", "KennedyLine", "OverlayPicture", "Painted", "canvas_label_rects",
           "paint_overlay"]
