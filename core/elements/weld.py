"""Weld (planar; 3 rows x, y, angle): two bodies rigidly joined -- a point coincidence and a constant relative
angle phi2 - phi1 = ``angle`` [rad] ([003] local method)."""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import EditorInfo, ElementType
from mechstudio.core.elements.fields import Angle, BodyRef, PointRef
from mechstudio.core.elements.primitives.point_coincidence import PointCoincidenceSpec
from mechstudio.core.elements.primitives.relative_angle import RelativeAngleSpec


class Weld(ElementType):
    name = "weld"
    fields = (BodyRef("body1"), PointRef("point1", body="body1"),
              BodyRef("body2", distinct_from="body1"), PointRef("point2", body="body2"),
              Angle("angle", "phi2 - phi1, held constant", default=0.0))
    components = ("x", "y", "angle")
    editor = EditorInfo("Weld", "Rigid connection of two bodies", "weld", palette="weld", icon="weld", placement="connector",
                        rank=30)

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        return [PointCoincidenceSpec(element.body1, element.point1, element.body2, element.point2),
                RelativeAngleSpec(element.body1, element.body2, float(element.angle))]


ELEMENT = Weld()
