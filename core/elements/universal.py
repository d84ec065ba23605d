"""Universal joint (Cardan/Hooke; spatial, 4 rows x, y, z, cross): point2 of body 2 coincides with point1 of body
1 and the two cross axes, axis1 (body 1's frame) and axis2 (body 2's frame), stay perpendicular (a spherical
joint and one dot-1 row; core/elements/primitives/spatial_rows.py, Haug 1989 ch. 9). For a shaft coupling the
cross axes are perpendicular to their shafts. No driver or spring. Reported on body 2 about point2."""
from __future__ import annotations

from mechstudio.core.elements.base import EditorInfo
from mechstudio.core.elements.spatial_joint import SpatialJointType, axis_fields, end_fields


class Universal(SpatialJointType):
    name = "universal"
    fields = (*end_fields(),
              *axis_fields("cross axis fixed in body1's frame", "cross axis fixed in body2's frame",
                           default1=(1.0, 0.0, 0.0), default2=(0.0, 1.0, 0.0)))
    editor = EditorInfo("Universal joint", "Cardan (Hooke) joint: two perpendicular cross axes", "ball",
                        no_palette="spatial joints are written in the model file (docs/model-format.md)")


ELEMENT = Universal()
