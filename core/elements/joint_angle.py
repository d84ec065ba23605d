"""Joint-angle driver (planar; 1 row angle): the angle phi2 - phi1 of a revolute joint follows f(t) [rad] --
a relative-angle primitive with a time function, [003]. Reported at the joint's point on its second body."""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import JointDriverType
from mechstudio.core.elements.fields import JointRef, TimeFunction
from mechstudio.core.elements.primitives.relative_angle import RelativeAngleSpec


class JointAngle(JointDriverType):
    name = "joint_angle"
    fields = (JointRef("joint", "the driven joint", types=("revolute",)),
              TimeFunction("function", "the joint angle phi2 - phi1 as a function of time", units="rad"))
    components = ("angle",)

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        j = entities.joint(element.joint)
        return [RelativeAngleSpec(j.body1, j.body2, element.function)]


ELEMENT = JointAngle()
