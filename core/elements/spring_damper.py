"""Translational spring-damper between two body points (planar; spatial models do not support it): tension
T = k (L - L0) + c L' along the line of the points; see core/elements/primitives/forces.py."""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import EditorInfo, ElementType
from mechstudio.core.elements.fields import BodyRef, Length, Number, PointRef
from mechstudio.core.elements.primitives.forces import SpringSpec


class SpringDamper(ElementType):
    name = "spring_damper"
    section = "forces"
    fields = (BodyRef("body1"), PointRef("point1", body="body1"), BodyRef("body2"), PointRef("point2", body="body2"),
              Number("stiffness", "spring stiffness k", units="N/m", ge=0.0, default=0.0),
              Number("damping", "damping coefficient c", units="N s/m", ge=0.0, default=0.0),
              Length("free_length", "free length L0", ge=0.0, default=0.0))
    editor = EditorInfo("Spring-damper", "Translational spring-damper: drop on the first point, click the second",
                        "spring", palette="spring", icon="spring", placement="connector", rank=50)

    def force_specs(self, element: Any, entities: Any) -> list[Any]:
        return [SpringSpec(element.body1, element.point1, element.body2, element.point2, element.stiffness,
                           element.damping, element.free_length)]


ELEMENT = SpringDamper()
