"""A backend-neutral 2D drawing: named layers of outlines, circles, segments and traces in model units [m].

The SVG (``mechstudio.core.drawing.svg``) and DXF (``mechstudio.core.drawing.dxf``) writers draw a :class:`Drawing` item by item;
:func:`mechstudio.core.drawing.build.build_drawing` makes one from a mechanism's configuration. Coordinates are world
coordinates [m] with y up (spatial models: the canvas's front view, world x-z).

Item types and what they become:

=========== ========================================= ============================ ==========================
item        meaning                                   SVG                          DXF
=========== ========================================= ============================ ==========================
Slot        outline of a bar: two sides, round ends   ``<path>`` (exact arcs)      2 LINEs + 2 ARCs
Outline     closed outline of a body shape or symbol  ``<polygon>``                LINEs, one per side
Circle      disk, pin symbol, point marker            ``<circle>``                 CIRCLE
Segment     line: disk spoke, slider axis, slot       ``<line>``                   LINE
Trace       the path of a traced point                ``<polyline>`` (one each)    LWPOLYLINE (one each)
=========== ========================================= ============================ ==========================

A trace is the only item drawn as a polyline in either format, so counting polylines counts traces.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Union

import numpy as np

from mechstudio.core.types import FloatArray

Vec2 = tuple[float, float]

#: layer of the ground's supports, of the joint symbols, of the traces; bodies get ``body.<name>`` layers
GROUND_LAYER, JOINTS_LAYER, TRACES_LAYER = "ground", "joints", "traces"
BODY_LAYER_PREFIX = "body."
GROUND_COLOR, JOINT_COLOR = "#555555", "#222222"


@dataclass(frozen=True)
class Outline:
    """A closed outline: vertices (k, 2) [m], the last joined to the first."""
    points: FloatArray


@dataclass(frozen=True)
class Slot:
    """The outline of a bar from ``start`` to ``end`` (centres of its round ends) of width ``width`` [m]: two
    sides parallel to the bar at width/2 and two half circles of radius width/2."""
    start: Vec2
    end: Vec2
    width: float

    def sides(self) -> tuple[tuple[Vec2, Vec2], tuple[Vec2, Vec2]]:
        """The two straight sides ((start + r n, end + r n), (end - r n, start - r n)), n the bar's left normal."""
        a, b = np.asarray(self.start, float), np.asarray(self.end, float)
        u = (b - a) / (np.linalg.norm(b - a) or 1.0)
        n = np.array([-u[1], u[0]]) * self.width / 2
        return ((tuple(a + n), tuple(b + n)), (tuple(b - n), tuple(a - n)))

    def direction(self) -> float:
        """Angle [rad] of the bar's axis from start to end."""
        return math.atan2(self.end[1] - self.start[1], self.end[0] - self.start[0])


@dataclass(frozen=True)
class Circle:
    center: Vec2
    radius: float  # [m]


@dataclass(frozen=True)
class Segment:
    start: Vec2
    end: Vec2
    dashed: bool = False  # an axis (slider, knife edge), drawn dash-dotted where the format allows


@dataclass(frozen=True)
class Trace:
    """The path (k, 2) [m] of the traced point ``name`` (``body.point``), in the colour ``color``."""
    name: str
    points: FloatArray
    color: str


Item = Union[Slot, Outline, Circle, Segment, Trace]


@dataclass
class Layer:
    name: str
    color: str  # "#rrggbb"
    items: list[Item] = field(default_factory=list)


@dataclass
class Drawing:
    """Layers in drawing order (bodies, ground, joints, traces), the line width [m] and a title."""
    layers: list[Layer]
    line_width: float
    title: str = ""

    def layer(self, name: str) -> Layer:
        for lay in self.layers:
            if lay.name == name:
                return lay
        raise KeyError(f"no layer {name!r}; layers: {', '.join(lay.name for lay in self.layers)}")

    @property
    def traces(self) -> list[Trace]:
        return [it for lay in self.layers for it in lay.items if isinstance(it, Trace)]

    def bounds(self) -> tuple[float, float, float, float]:
        """(x_min, y_min, x_max, y_max) [m] of every item ((-1, -1, 1, 1) for an empty drawing)."""
        pts: list[FloatArray] = []
        for lay in self.layers:
            for it in lay.items:
                if isinstance(it, (Outline, Trace)):
                    pts.append(np.asarray(it.points, float).reshape(-1, 2))
                elif isinstance(it, Circle):
                    c, r = np.asarray(it.center, float), it.radius
                    pts.append(np.array([c - r, c + r]))
                elif isinstance(it, Slot):
                    ends, r = np.array([it.start, it.end], float), it.width / 2
                    pts.append(np.vstack([ends - r, ends + r]))
                else:
                    pts.append(np.array([it.start, it.end], float))
        if not pts:
            return (-1.0, -1.0, 1.0, 1.0)
        allp = np.vstack(pts)
        allp = allp[np.all(np.isfinite(allp), axis=1)]
        if not len(allp):
            return (-1.0, -1.0, 1.0, 1.0)
        lo, hi = allp.min(axis=0), allp.max(axis=0)
        return (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))


def hex_rgb(color: str) -> tuple[int, int, int]:
    """(r, g, b) 0-255 of a ``#rrggbb`` colour."""
    c = color.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)
