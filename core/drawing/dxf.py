"""DXF text of a :class:`~core.drawing.sheet.Drawing`, written with ezdxf (docs/drawings.md).

A DXF R2010 document in metres (``$INSUNITS`` = 6, ``$MEASUREMENT`` = 1 metric): one DXF layer per drawing layer
(``body.<name>``, ``ground``, ``joints``, ``traces``) in the layer's true colour; a bar is two LINEs and two
ARCs (exact), other outlines a LINE per side, circles CIRCLEs, segments LINEs (axes in the linetype ``MS_AXIS``,
dash-dot scaled to the drawing), and each trace exactly one open LWPOLYLINE on layer ``traces``, in its body's
colour, with its name ``body.point`` in XDATA of the application ``MECHSTUDIO``: the traces are the only
polylines of the file. Coordinates are the drawing's [m], written by
ezdxf at full double precision.
"""
from __future__ import annotations

import io
import math

import ezdxf
from ezdxf import units

from mechstudio.core.drawing.sheet import Circle, Drawing, Outline, Segment, Slot, Trace, hex_rgb

#: XDATA application name carrying a trace's point name
APPID = "MECHSTUDIO"
AXIS_LINETYPE = "MS_AXIS"


def drawing_to_dxf(drawing: Drawing) -> str:
    """The DXF document (text) of ``drawing``; see the module docstring."""
    doc = ezdxf.new("R2010", setup=False)
    doc.units = units.M
    doc.header["$MEASUREMENT"] = 1
    doc.appids.add(APPID)
    d = 8 * drawing.line_width  # dash length of the axis linetype [m]
    doc.linetypes.add(AXIS_LINETYPE, [3.5 * d, 2 * d, -0.5 * d, 0.0, -0.5 * d], description="axis __ . __ .")
    msp = doc.modelspace()
    for layer in drawing.layers:
        doc.layers.add(layer.name, true_color=ezdxf.colors.rgb2int(hex_rgb(layer.color)))
        attrs = {"layer": layer.name}
        for it in layer.items:
            if isinstance(it, Slot):
                for start, end in it.sides():
                    msp.add_line(start, end, dxfattribs=attrs)
                deg = math.degrees(it.direction())
                msp.add_arc(it.end, it.width / 2, deg - 90.0, deg + 90.0, dxfattribs=attrs)
                msp.add_arc(it.start, it.width / 2, deg + 90.0, deg + 270.0, dxfattribs=attrs)
            elif isinstance(it, Outline):
                pts = [tuple(p) for p in it.points]
                for start, end in zip(pts, pts[1:] + pts[:1]):
                    msp.add_line(start, end, dxfattribs=attrs)
            elif isinstance(it, Circle):
                msp.add_circle(it.center, it.radius, dxfattribs=attrs)
            elif isinstance(it, Segment):
                msp.add_line(it.start, it.end, dxfattribs={**attrs, "linetype": AXIS_LINETYPE} if it.dashed else attrs)
            elif isinstance(it, Trace):
                e = msp.add_lwpolyline([tuple(p) for p in it.points], close=False, dxfattribs=attrs)
                e.rgb = hex_rgb(it.color)
                e.set_xdata(APPID, [(1000, it.name)])
    x0, y0, x1, y1 = drawing.bounds()
    doc.set_modelspace_vport(height=max(y1 - y0, (x1 - x0) * 0.75, 1e-6) * 1.1,
                             center=((x0 + x1) / 2, (y0 + y1) / 2))
    buf = io.StringIO()
    doc.write(buf)
    return buf.getvalue()
