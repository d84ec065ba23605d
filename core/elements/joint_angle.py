"""Joint-angle driver (planar; 1 row angle): the angle phi2 - phi1 of a revolute joint follows f(t) [rad] --
a relative-angle primitive with a time function, [003]. Reported at the joint's point on its second body."""
from __future__ import annotations

from typing import Any

from core.elements.base import EditorInfo, ElementType, ReactionSite, joint_driver_site
from core.elements.primitives.relative_angle import RelativeAngleSpec


class JointAngle(ElementType):
    name = "joint_angle"
    section = "drivers"
    fields = ("joint", "function")
    components = ("angle",)
    editor = EditorInfo("Driver", "Motor: drop on a revolute (angle) or prismatic (distance) joint", "motor",
                        palette="driver", icon="driver")

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        j = entities.joint(element.joint)
        return [RelativeAngleSpec(j.body1, j.body2, element.function)]

    def bodies(self, element: Any, entities: Any) -> tuple[str, str]:
        j = entities.joint(element.joint)
        return j.body1, j.body2

    def reaction_site(self, element: Any, entities: Any) -> ReactionSite:
        return joint_driver_site(entities.joint(element.joint))


ELEMENT = JointAngle()
