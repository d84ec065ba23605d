"""Spherical joint (spatial; 3 rows x, y, z): a point of body 2 coincides with a point of body 1, free
rotation; optional rotational spring/damper and joint torque. Compiled by the spherical-tree systems of
core/dynamics/wittenburg.py (Wittenburg's method, [004]); its reaction is reported on body 2 at point2."""
from __future__ import annotations

from mechstudio.core.elements.base import EditorInfo, ElementType


class Spherical(ElementType):
    name = "spherical"
    dimension = "spatial"
    fields = ("body1", "point1", "body2", "point2", "spring", "damping", "torque")
    components = ("x", "y", "z")
    editor = EditorInfo("Spherical joint", "Ball joint of a spatial tree", "ball",
                        no_palette="the spherical-tree editor adds spherical joints (spatial models)")


ELEMENT = Spherical()
