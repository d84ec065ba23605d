"""SVG text of a :class:`~core.drawing.sheet.Drawing` (xml.etree.ElementTree; docs/drawings.md).

Coordinates are the drawing's, in metres, written exactly (Python's shortest round-trip ``repr``). The
``viewBox`` is in metres too; y points up in the drawing and down in SVG, so every layer sits in one group with
``transform="scale(1,-1)"`` and the viewBox spans y from -y_max to -y_min. ``width``/``height`` give the picture
a screen size (``size_px`` on its longer side) without changing the coordinates.

Each layer is a ``<g>`` with ``id`` = the layer name and Inkscape's layer attributes (so Inkscape lists the
layers); bars are ``<path>`` s with exact half-circle ends, outlines ``<polygon>``, circles ``<circle>``,
segments ``<line>`` and each trace exactly one
``<polyline>`` (``id="trace.<body>.<point>"``, ``data-point="<body>.<point>"``). No other element is a polyline.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from mechstudio.core.drawing.sheet import Circle, Drawing, Outline, Segment, Slot, Trace
from mechstudio.core.types import FloatArray

SVG_NS = "http://www.w3.org/2000/svg"
INKSCAPE_NS = "http://www.inkscape.org/namespaces/inkscape"
#: margin around the drawing, as a fraction of its larger dimension
MARGIN = 0.05


def num(x: float) -> str:
    """A coordinate as text, exact (shortest repr that reads back to the same double)."""
    return repr(float(x))


def points_attr(points: FloatArray) -> str:
    """The ``points`` attribute ``"x1,y1 x2,y2 ..."`` of a polygon or polyline."""
    return " ".join(f"{num(x)},{num(y)}" for x, y in np.asarray(points, float).reshape(-1, 2))


def slot_path(slot: Slot) -> str:
    """The ``d`` of a bar outline: a side, a half circle round the end, the other side, a half circle round the
    start. The arcs turn clockwise in the drawing's y-up coordinates (sweep-flag 0: decreasing angle)."""
    (p1, p2), (p3, p4) = slot.sides()
    r = num(slot.width / 2)
    return (f"M {num(p1[0])},{num(p1[1])} L {num(p2[0])},{num(p2[1])} A {r} {r} 0 0 0 {num(p3[0])},{num(p3[1])} "
            f"L {num(p4[0])},{num(p4[1])} A {r} {r} 0 0 0 {num(p1[0])},{num(p1[1])} Z")


def drawing_to_svg(drawing: Drawing, size_px: float = 1000.0) -> str:
    """The SVG document (text) of ``drawing``; see the module docstring."""
    ET.register_namespace("", SVG_NS)
    ET.register_namespace("inkscape", INKSCAPE_NS)
    x0, y0, x1, y1 = drawing.bounds()
    span = max(x1 - x0, y1 - y0, 1e-9)
    m = MARGIN * span
    x0, y0, x1, y1 = x0 - m, y0 - m, x1 + m, y1 + m
    w, h = x1 - x0, y1 - y0
    scale = size_px / max(w, h)
    svg = ET.Element(f"{{{SVG_NS}}}svg", {"version": "1.1", "viewBox": f"{num(x0)} {num(-y1)} {num(w)} {num(h)}",
                                         "width": f"{w * scale:.1f}", "height": f"{h * scale:.1f}"})
    ET.SubElement(svg, f"{{{SVG_NS}}}title").text = drawing.title
    ET.SubElement(svg, f"{{{SVG_NS}}}desc").text = ("Mechanism Studio drawing; coordinates in metres, "
                                                    "y up (transform scale(1,-1))")
    flip = ET.SubElement(svg, f"{{{SVG_NS}}}g", {"transform": "scale(1,-1)", "stroke-linejoin": "round",
                                                 "stroke-linecap": "round", "stroke-width": num(drawing.line_width)})
    for layer in drawing.layers:
        fill = layer.color if layer.name.startswith("body.") else "none"
        g = ET.SubElement(flip, f"{{{SVG_NS}}}g", {"id": layer.name, f"{{{INKSCAPE_NS}}}groupmode": "layer",
                                                   f"{{{INKSCAPE_NS}}}label": layer.name, "stroke": layer.color,
                                                   "fill": fill, "fill-opacity": "0.35"})
        for it in layer.items:
            if isinstance(it, Slot):
                ET.SubElement(g, f"{{{SVG_NS}}}path", {"d": slot_path(it)})
            elif isinstance(it, Outline):
                ET.SubElement(g, f"{{{SVG_NS}}}polygon", {"points": points_attr(it.points)})
            elif isinstance(it, Circle):
                ET.SubElement(g, f"{{{SVG_NS}}}circle", {"cx": num(it.center[0]), "cy": num(it.center[1]),
                                                         "r": num(it.radius)})
            elif isinstance(it, Segment):
                attrs = {"x1": num(it.start[0]), "y1": num(it.start[1]), "x2": num(it.end[0]), "y2": num(it.end[1])}
                if it.dashed:
                    d = 4 * drawing.line_width
                    attrs["stroke-dasharray"] = f"{num(3 * d)} {num(d)} {num(d / 4)} {num(d)}"
                ET.SubElement(g, f"{{{SVG_NS}}}line", attrs)
            elif isinstance(it, Trace):
                ET.SubElement(g, f"{{{SVG_NS}}}polyline", {"id": f"trace.{it.name}", "data-point": it.name,
                                                           "points": points_attr(it.points), "stroke": it.color,
                                                           "fill": "none"})
    ET.indent(svg)
    return ET.tostring(svg, encoding="unicode", xml_declaration=True) + "\n"
