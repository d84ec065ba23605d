"""Spherical joint (spatial; 3 rows x, y, z): a point of body 2 coincides with a point of body 1, free
rotation; optional rotational spring/damper and joint torque. Compiled by the spherical-tree systems of
core/dynamics/wittenburg.py (Wittenburg's method, [004]); its reaction is reported on body 2 at point2."""
from __future__ import annotations

from mechstudio.core.elements.base import EditorInfo, ElementType
from mechstudio.core.elements.fields import BodyRef, Number, PointRef, TimeFunctions


class Spherical(ElementType):
    name = "spherical"
    dimension = "spatial"
    fields = (BodyRef("body1"), PointRef("point1", body="body1"),
              BodyRef("body2", distinct_from="body1"), PointRef("point2", body="body2"),
              Number("spring", "rotational spring", units="N m/rad", ge=0.0, default=0.0),
              Number("damping", "rotational damper", units="N m s/rad", ge=0.0, default=0.0),
              TimeFunctions("torque", "joint torque on body2 (minus on body1), body1 axes", units="N m", count=3,
                            default=()))
    components = ("x", "y", "z")
    editor = EditorInfo("Spherical joint", "Ball joint of a spatial tree", "ball",
                        no_palette="the spherical-tree editor adds spherical joints (spatial models)")


ELEMENT = Spherical()
