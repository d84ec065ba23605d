"""Contacts on the planar canvas: the ground's shapes, the contact-pair symbol, and a run's contact points and forces.

* **Ground shapes** (``ground.geometry``: a floor box, an incline polygon, a terrain polyline ...) are drawn
  hatched in grey (a polyline as its line with a hatched band of :data:`POLYLINE_BAND` on its solid side); they
  never move.
* A **contact pair** is drawn as a dashed line between the nearest points of its two bodies' shapes with a small
  double bar (two short parallel strokes across the line, like a gap) at the point on body1's side: the symbol is
  picked like a joint's (:func:`pair_symbol`).
* During playback (:meth:`PlanarCanvas.show_configuration` with the frame's contact data) every contact that
  touches gets a dot at each touching point, coloured by its state (:data:`STATE_COLORS`: stick green, slip
  orange, closed without friction blue; open contacts are not drawn), and two arrows from the point of application
  (the single point, or the centre of pressure of several): the normal force (blue) and the friction force (red),
  :data:`ARROW_PX` pixels for the largest contact force of the run (:func:`force_scale`).

No Qt in the geometry helpers here; the canvas does the painting.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from mechstudio.core.drawing.scene import SceneGeometry, Vec2, dist_segment
from mechstudio.core.model import GROUND

#: colour of a contact point by its state (the ``contact.<name>.state`` column)
STATE_COLORS = {0: "#9aa3ad", 1: "#2ca02c", 2: "#ff7f0e", 3: "#1f77b4"}
STATE_NAMES = {0: "open", 1: "stick", 2: "slip", 3: "closed"}
NORMAL_COLOR = "#1f5fbf"
FRICTION_COLOR = "#d62728"
ARROW_PX = 60.0  # [px] the arrow of the run's largest contact force
MIN_ARROW_PX = 3.0  # [px] shorter arrows are not drawn
POLYLINE_BAND = 0.04  # [m] width of the hatched band drawn on a polyline's solid side


def polyline_band(points: Sequence[Vec2], side: str = "right", width: float = POLYLINE_BAND) -> list[Vec2]:
    """The outline of a band ``width`` [m] wide along an open chain on its solid ``side`` (of the direction of
    travel), for hatching: the chain, then the chain offset by ``width`` along each vertex's mean normal."""
    sign = -1.0 if side == "right" else 1.0  # the left normal of a direction (tx, ty) is (-ty, tx)
    offset = []
    for i, p in enumerate(points):
        nx = ny = 0.0
        for j in (i - 1, i):  # the segments before and after the vertex
            if j < 0 or j + 1 >= len(points):
                continue
            a, b = points[j], points[j + 1]
            L = math.dist(a, b) or 1.0
            nx, ny = nx - (b[1] - a[1]) / L, ny + (b[0] - a[0]) / L
        n = math.hypot(nx, ny) or 1.0
        offset.append((p[0] + sign * width * nx / n, p[1] + sign * width * ny / n))
    return list(points) + offset[::-1]


def ground_shapes(data: dict[str, Any], sg: SceneGeometry) -> list[tuple[str, Any]]:
    """The ground's shapes as ("polygon", [points]), ("disk", (centre, r)), ("bar", (a, b, width)) or
    ("polyline", ([points], [band outline])) [m] (:func:`polyline_band`)."""
    out: list[tuple[str, Any]] = []

    def ref(r: Any) -> Vec2:
        if isinstance(r, str):
            return sg.ground.get(r, (0.0, 0.0))
        return (float(r[0]), float(r[1]))
    for s in data.get("ground", {}).get("geometry", []) or []:
        t = s.get("type")
        try:
            if t == "box":
                c = ref(s.get("center", [0.0, 0.0]))
                hx, hy = float(s["size"][0]) / 2, float(s["size"][1]) / 2
                out.append(("polygon", [(c[0] - hx, c[1] - hy), (c[0] + hx, c[1] - hy), (c[0] + hx, c[1] + hy),
                                        (c[0] - hx, c[1] + hy)]))
            elif t == "polygon":
                out.append(("polygon", [ref(v) for v in s["vertices"]]))
            elif t == "polyline":
                pts = [ref(v) for v in s["points"]]
                out.append(("polyline", (pts, polyline_band(pts, s.get("side", "right")))))
            elif t == "disk":
                out.append(("disk", (ref(s.get("center", [0.0, 0.0])), float(s["radius"]))))
            elif t == "bar":
                out.append(("bar", (ref(s["from"]), ref(s["to"]), float(s.get("width", 0.05)))))
        except (KeyError, TypeError, ValueError, IndexError):  # a malformed shape: the model check reports it
            continue
    return out


def shape_points(shapes: list[tuple[str, Any]]) -> list[Vec2]:
    """Points that bound the shapes of :func:`ground_shapes` [m] (for zooming to fit)."""
    pts: list[Vec2] = []
    for kind, s in shapes:
        if kind == "polygon":
            pts += list(s)
        elif kind == "polyline":
            pts += list(s[1])
        elif kind == "disk":
            (cx, cy), r = s
            pts += [(cx - r, cy - r), (cx + r, cy + r)]
        else:
            a, b, w = s
            pts += [(a[0] - w / 2, a[1] - w / 2), (b[0] + w / 2, b[1] + w / 2)]
    return pts


def _nearest_on_polygon(p: Vec2, poly: Sequence[Vec2], closed: bool = True) -> Vec2:
    best, best_d = poly[0], math.inf
    for i in range(0 if closed else 1, len(poly)):
        a, b = poly[i - 1], poly[i]
        dx, dy = b[0] - a[0], b[1] - a[1]
        L2 = dx * dx + dy * dy
        s = 0.0 if L2 == 0 else min(max(((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / L2, 0.0), 1.0)
        c = (a[0] + s * dx, a[1] + s * dy)
        d = math.dist(p, c)
        if d < best_d:
            best, best_d = c, d
    return best


def nearest_on_shapes(p: Vec2, shapes: list[tuple[str, Any]]) -> Vec2 | None:
    """The point of the shapes' outlines nearest ``p`` [m]; None without shapes."""
    best: tuple[float, Vec2] | None = None
    for kind, s in shapes:
        if kind == "polygon":
            c = _nearest_on_polygon(p, s)
        elif kind == "polyline":
            c = _nearest_on_polygon(p, s[0], closed=False)
        elif kind == "disk":
            (cx, cy), r = s
            d = math.dist(p, (cx, cy)) or 1.0
            c = (cx + r * (p[0] - cx) / d, cy + r * (p[1] - cy) / d)
        else:
            a, b, w = s
            dx, dy = b[0] - a[0], b[1] - a[1]
            L2 = dx * dx + dy * dy
            t = 0.0 if L2 == 0 else min(max(((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / L2, 0.0), 1.0)
            m = (a[0] + t * dx, a[1] + t * dy)
            d = math.dist(p, m) or 1.0
            c = (m[0] + w / 2 * (p[0] - m[0]) / d, m[1] + w / 2 * (p[1] - m[1]) / d)
        dist = math.dist(p, c)
        if best is None or dist < best[0]:
            best = (dist, c)
    return None if best is None else best[1]


def body_shapes(sg: SceneGeometry, data: dict[str, Any], body: str) -> list[tuple[str, Any]]:
    """A body's (or the ground's) shapes in the form of :func:`ground_shapes`."""
    if body == GROUND:
        return ground_shapes(data, sg)
    b = sg.body(body)
    if b is None:
        return []
    return ([("polygon", poly) for poly in b.polygons] + [("disk", (c, r)) for c, r, _ in b.disks]
            + [("bar", (a, c, w)) for a, c, w in b.bars] + [("polyline", (line, line)) for line in b.polylines])


def pair_symbol(sg: SceneGeometry, data: dict[str, Any], item: dict[str, Any]) -> tuple[Vec2, Vec2] | None:
    """(a, b): the point of body1's shapes nearest body2's shapes and that point of body2's [m] (the contact pair's
    symbol sits at a, a dashed line runs to b); None when a body has no shapes."""
    s1 = body_shapes(sg, data, item.get("body1", ""))
    s2 = body_shapes(sg, data, item.get("body2", ""))
    if not s1 or not s2:
        return None
    b2 = sg.body(item.get("body2", "")) or sg.body(item.get("body1", ""))
    start = b2.com if b2 is not None else (0.0, 0.0)
    a = nearest_on_shapes(start, s1)
    if a is None:
        return None
    b = nearest_on_shapes(a, s2) or start
    a = nearest_on_shapes(b, s1) or a  # one more step toward the nearest pair of points
    return a, b


def near_symbol(p: Vec2, ab: tuple[Vec2, Vec2], tol: float) -> bool:
    """``p`` is on the symbol of a contact pair (its point a, or the dashed line to b)."""
    a, b = ab
    return math.dist(p, a) <= tol or dist_segment(p, a, b) <= tol * 0.6


def force_scale(magnitudes: Sequence[np.ndarray], px: float = ARROW_PX) -> float:
    """[px / N]: the largest finite value of ``magnitudes`` (the run's contact forces) drawn ``px`` long."""
    top = 0.0
    for m in magnitudes:
        m = np.abs(np.asarray(m, float))
        m = m[np.isfinite(m)]
        if len(m):
            top = max(top, float(m.max()))
    return px / top if top > 0 else 0.0


__all__ = ["ARROW_PX", "FRICTION_COLOR", "NORMAL_COLOR", "STATE_COLORS", "STATE_NAMES", "body_shapes",
           "force_scale", "ground_shapes", "polyline_band",
           "shape_points", "near_symbol", "nearest_on_shapes", "pair_symbol"]
