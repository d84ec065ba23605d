"""The drawing of a mechanism in one configuration, with point traces (what the canvas shows, in metres).

:func:`build_drawing` poses the model at coordinates q (body frames from :class:`mechstudio.core.systems.points.BodyFrames`),
takes the canvas geometry of that pose (:func:`mechstudio.core.drawing.scene.scene_geometry`: bars, disks, polygons, named
points, joints, ground points) and turns it into a :class:`~core.drawing.sheet.Drawing`:

* one layer ``body.<name>`` per body, in the body's colour: a bar becomes its outline (two sides and round
  ends of the bar's width), a disk a circle with its spokes, a polygon or box its outline; named points small circles;
* layer ``ground``: a triangle under each ground point (the canvas's support symbol);
* layer ``joints``: a symbol per joint at its point on the second body (pin, ball, disk: circle; weld: square;
  slider, knife edge: square plus the axis through the first body's point; pin in slot: circle plus the slot's
  centre line when it has a length; any other symbol: circle);
* layer ``traces``: one polyline per traced point, in its body's colour.

Symbol sizes are a fixed fraction of the mechanism's size (the canvas's are fixed in pixels). Spatial models are
drawn in the canvas's front view: world (x, z) become the drawing's (x, y), traces too.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from mechstudio.core.drawing.scene import SceneGeometry, scene_geometry
from mechstudio.core.drawing.sheet import (BODY_LAYER_PREFIX, GROUND_COLOR, GROUND_LAYER, JOINT_COLOR, JOINTS_LAYER,
                                TRACES_LAYER, Circle, Drawing, Layer, Outline, Segment, Slot, Trace, Vec2)
from mechstudio.core.model import Model
from mechstudio.core.model.edit import set_poses
from mechstudio.core.systems.points import BodyFrames
from mechstudio.core.types import FloatArray

#: joint symbol size and line width as fractions of the mechanism's largest dimension
SYMBOL_FRACTION, LINE_FRACTION = 0.02, 0.002
#: the drawing's front view of a spatial model: world axes (x, z)
FRONT_VIEW_AXES = (0, 2)


def posed_scene(system: Any, q: FloatArray) -> SceneGeometry:
    """The canvas geometry of ``system``'s model at the configuration q (n,)."""
    model: Model = system.model
    frames = BodyFrames.of_system(system)
    origins, R = frames.poses(np.asarray(q, float))
    if model.kind == "planar":
        poses = {b: (float(o[0]), float(o[1]), math.atan2(r[1, 0], r[0, 0]))
                 for b, o, r in zip(frames.body_names, origins, R)}
        return scene_geometry(set_poses(model, poses, validate=False))
    return scene_geometry(model, {b: (o, r) for b, o, r in zip(frames.body_names, origins, R)})


def view_points(model: Model, points: FloatArray) -> FloatArray:
    """World points (k, dim) -> drawing plane (k, 2): planar as they are, spatial in the front view (x, z)."""
    pts = np.asarray(points, float)
    pts = pts.reshape(-1, pts.shape[-1]) if pts.size else np.zeros((0, 2 if model.kind == "planar" else 3))
    return pts[:, :2] if model.kind == "planar" else pts[:, FRONT_VIEW_AXES]


def build_drawing(system: Any, q: FloatArray, traces: Mapping[str, FloatArray] | None = None,
                  title: str = "") -> Drawing:
    """The :class:`Drawing` of ``system`` at coordinates q (n,), with ``traces`` ``{"body.point": (F, dim)
    world positions [m]}`` (core.systems.points.PointTracer.trace) as polylines (module docstring)."""
    model: Model = system.model
    sg = posed_scene(system, q)
    colors = {b.name: b.color for b in sg.bodies}
    trace_items = [Trace(name, view_points(model, path), colors.get(name.partition(".")[0], JOINT_COLOR))
                   for name, path in (traces or {}).items()]
    x0, y0, x1, y1 = sg.bounds()
    size = max(x1 - x0, y1 - y0, 1e-3)
    s = SYMBOL_FRACTION * size
    layers = [body_layer(b, s) for b in sg.bodies]
    layers.append(Layer(GROUND_LAYER, GROUND_COLOR, [ground_symbol(p, s) for p in sg.ground.values()]))
    layers.append(Layer(JOINTS_LAYER, JOINT_COLOR, [it for j in sg.joints for it in joint_symbol(j, s)]))
    layers.append(Layer(TRACES_LAYER, JOINT_COLOR, list(trace_items)))
    return Drawing(layers, LINE_FRACTION * size, title or model.name)


def body_layer(b: Any, s: float) -> Layer:
    """Layer ``body.<name>`` of one body of the scene (a BodyGeom), symbol size s [m]."""
    items: list[Any] = []
    for a, c, w in b.bars:
        items.append(Slot(a, c, w) if math.dist(a, c) > 0 else Circle(a, w / 2))
    for c, r, spokes in b.disks:
        items.append(Circle(c, r))
        for k in range(spokes):
            ang = b.pose[2] + 2 * math.pi * k / spokes
            items.append(Segment(c, (c[0] + r * math.cos(ang), c[1] + r * math.sin(ang))))
    items += [Outline(np.array(poly, float)) for poly in b.polygons if len(poly) >= 3]
    items += [Circle(p, 0.15 * s) for p in b.points.values()]
    return Layer(BODY_LAYER_PREFIX + b.name, b.color, items)


def ground_symbol(p: Vec2, s: float) -> Outline:
    """The support triangle under a ground point (apex at the point)."""
    return Outline(np.array([p, (p[0] - s / 2, p[1] - 0.9 * s), (p[0] + s / 2, p[1] - 0.9 * s)], float))


def square(p: Vec2, s: float, axis: Vec2 = (1.0, 0.0)) -> Outline:
    """A square of side s centred at p, one side along ``axis``."""
    n = math.hypot(*axis) or 1.0
    u = np.array(axis, float) / n * s / 2
    v = np.array([-u[1], u[0]])
    c = np.array(p, float)
    return Outline(np.array([c - u - v, c + u - v, c + u + v, c - u + v]))


def joint_symbol(j: Any, s: float) -> list[Any]:
    """The symbol items of one joint (a JointGeom), symbol size s [m] (module docstring)."""
    if j.symbol == "weld":
        return [square(j.p2, s)]
    if j.symbol in ("slider", "blade"):
        ax = j.axis or (1.0, 0.0)
        n = math.hypot(*ax) or 1.0
        e = (2 * s * ax[0] / n, 2 * s * ax[1] / n)
        return [Segment((j.p1[0] - e[0], j.p1[1] - e[1]), (j.p1[0] + e[0], j.p1[1] + e[1]), dashed=True),
                square(j.p2, s, ax)]
    if j.symbol == "slot" and j.slot is not None:
        return [Segment(j.slot[0], j.slot[1], dashed=True), Circle(j.p2, s / 2)]
    return [Circle(j.p2, s / 2)]


__all__ = ["build_drawing", "posed_scene", "view_points"]
