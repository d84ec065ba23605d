"""Joint-distance driver (planar; 1 row distance): the travel of a prismatic joint along its axis follows
f(t) [m] -- a point-line primitive along the axis with a time function, [003]. Reported at the joint's point
on its second body."""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import JointDriverType
from mechstudio.core.elements.fields import JointRef, TimeFunction
from mechstudio.core.elements.primitives.point_line import PointLineSpec


class JointDistance(JointDriverType):
    name = "joint_distance"
    fields = (JointRef("joint", "the driven joint", types=("prismatic",)),
              TimeFunction("function", "the travel along the joint's axis as a function of time", units="m"))
    components = ("distance",)

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        j = entities.joint(element.joint)
        return [PointLineSpec(j.body1, j.point1, tuple(j.axis[:2]), j.body2, j.point2, element.function)]


ELEMENT = JointDistance()
