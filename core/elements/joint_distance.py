"""Joint-distance driver (planar; 1 row distance): the travel of a prismatic joint along its axis follows
f(t) [m] -- a point-line primitive along the axis with a time function, [003]. Reported at the joint's point
on its second body."""
from __future__ import annotations

from typing import Any

from core.elements.base import EditorInfo, ElementType, ReactionSite, joint_driver_site
from core.elements.primitives.point_line import PointLineSpec


class JointDistance(ElementType):
    name = "joint_distance"
    section = "drivers"
    fields = ("joint", "function")
    components = ("distance",)
    editor = EditorInfo("Driver", "Motor: drop on a revolute (angle) or prismatic (distance) joint", "motor",
                        palette="driver", icon="driver")

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        j = entities.joint(element.joint)
        return [PointLineSpec(j.body1, j.point1, tuple(j.axis[:2]), j.body2, j.point2, element.function)]

    def bodies(self, element: Any, entities: Any) -> tuple[str, str]:
        j = entities.joint(element.joint)
        return j.body1, j.body2

    def reaction_site(self, element: Any, entities: Any) -> ReactionSite:
        return joint_driver_site(entities.joint(element.joint))


ELEMENT = JointDistance()
