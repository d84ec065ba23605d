"""Fixed joint (spatial weld; 6 rows x, y, z, perp1, perp2, twist): point2 of body 2 coincides with point1 of
body 1 and the axis frame of axis2 in body 2 (axis, and the perpendicular f' of
core/elements/primitives/spatial_rows.axis_frame) coincides with that of axis1 in body 1 (a spherical joint and
three dot-1 rows, Haug 1989 ch. 9). With equal axes the two body frames stay parallel. Named ``fixed_joint``
because ``weld`` is the planar one. Reported on body 2 about point2."""
from __future__ import annotations

from mechstudio.core.elements.base import EditorInfo
from mechstudio.core.elements.spatial_joint import SpatialJointType, axis_fields, end_fields


class FixedJoint(SpatialJointType):
    name = "fixed_joint"
    fields = (*end_fields(),
              *axis_fields("reference axis in body1's frame", "reference axis in body2's frame"))
    editor = EditorInfo("Fixed joint", "Spatial weld: two bodies rigidly joined", "weld",
                        no_palette="spatial joints are written in the model file (docs/model-format.md)")


ELEMENT = FixedJoint()
