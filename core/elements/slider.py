"""Slider (spatial prismatic joint; 5 rows line1, line2, perp1, perp2, twist): point2 of body 2 stays on the line
through point1 along axis1 (two dot-2 rows), axis2 stays parallel to axis1 and body 2 does not turn about it
(three dot-1 rows; core/elements/primitives/spatial_rows.py, Haug 1989 ch. 9). Joint coordinate: the slide s along
axis1, optionally driven (``slide``) and loaded by a linear spring-damper and force (core/elements/spatial_joint.py).
Named ``slider`` because ``prismatic`` is the planar joint. Reported on body 2 about point2."""
from __future__ import annotations

from mechstudio.core.elements.base import EditorInfo
from mechstudio.core.elements.spatial_joint import SLIDE, SpatialJointType, axis_fields, end_fields, slide_fields


class Slider(SpatialJointType):
    name = "slider"
    fields = (*end_fields(),
              *axis_fields("sliding axis in body1's frame", "the same axis in body2's frame"),
              *slide_fields(SLIDE))
    axis_loads = (SLIDE,)
    editor = EditorInfo("Slider", "Spatial prismatic joint: translation along one axis", "ball",
                        no_palette="spatial joints are written in the model file (docs/model-format.md)")


ELEMENT = Slider()
