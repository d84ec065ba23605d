"""Hinge (spatial revolute joint; 5 rows x, y, z, perp1, perp2): point2 of body 2 coincides with point1 of body 1
and axis2 (body 2's frame) stays parallel to axis1 (body 1's frame): a spherical joint and two dot-1 rows
(core/elements/primitives/spatial_rows.py, Haug 1989 ch. 9). Joint coordinate: the angle theta about axis1,
optionally driven (``angle``) and loaded by a rotational spring-damper and torque (core/elements/spatial_joint.py).
Named ``hinge`` because ``revolute`` is the planar pin joint. Reported on body 2 about point2."""
from __future__ import annotations

from mechstudio.core.elements.base import EditorInfo
from mechstudio.core.elements.spatial_joint import ROTATION, SpatialJointType, axis_fields, end_fields, rotation_fields


class Hinge(SpatialJointType):
    name = "hinge"
    fields = (*end_fields(),
              *axis_fields("hinge axis in body1's frame", "hinge axis in body2's frame"),
              *rotation_fields())
    axis_loads = (ROTATION,)
    editor = EditorInfo("Hinge", "Spatial revolute joint: rotation about one axis", "ball",
                        no_palette="spatial joints are written in the model file (docs/model-format.md)")


ELEMENT = Hinge()
