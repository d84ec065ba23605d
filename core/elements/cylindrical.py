"""Cylindrical joint (spatial; 4 rows line1, line2, perp1, perp2): point2 of body 2 stays on the line through
point1 along axis1 and axis2 stays parallel to axis1 (core/elements/primitives/spatial_rows.py, Haug 1989 ch. 9):
rotation about and translation along the axis. Joint coordinates: the angle theta and the slide s, each
optionally driven (``angle``, ``slide``) and loaded (rotational ``spring``, ``damping``, ``free_angle``,
``torque``; linear ``linear_spring``, ``linear_damping``, ``free_length``, ``force``;
core/elements/spatial_joint.py). Reported on body 2 about point2."""
from __future__ import annotations

from mechstudio.core.elements.base import EditorInfo
from mechstudio.core.elements.spatial_joint import (ROTATION, SLIDE_OF_CYLINDER, SpatialJointType, axis_fields,
                                                    end_fields, rotation_fields, slide_fields)


class Cylindrical(SpatialJointType):
    name = "cylindrical"
    fields = (*end_fields(),
              *axis_fields("joint axis in body1's frame", "joint axis in body2's frame"),
              *rotation_fields(), *slide_fields(SLIDE_OF_CYLINDER))
    axis_loads = (ROTATION, SLIDE_OF_CYLINDER)
    editor = EditorInfo("Cylindrical joint", "Spatial joint: rotation about and translation along one axis", "ball",
                        no_palette="spatial joints are written in the model file (docs/model-format.md)")


ELEMENT = Cylindrical()
