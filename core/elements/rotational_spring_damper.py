"""Rotational spring-damper at a revolute joint (planar): torque -k (theta - theta0) - c theta' on the joint's
body 2, opposite on body 1, theta = phi2 - phi1; see core/elements/primitives/forces.py."""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import EditorInfo, ElementType
from mechstudio.core.elements.fields import Angle, JointRef, Number
from mechstudio.core.elements.primitives.forces import RotationalSpringSpec


class RotationalSpringDamper(ElementType):
    name = "rotational_spring_damper"
    section = "forces"
    fields = (JointRef("joint", "the joint it acts at", types=("revolute",)),
              Number("stiffness", "rotational stiffness k", units="N m/rad", ge=0.0, default=0.0),
              Number("damping", "rotational damping c", units="N m s/rad", ge=0.0, default=0.0),
              Angle("free_angle", "joint angle theta0 at which the spring is relaxed", default=0.0))
    editor = EditorInfo("Rotational spring", "Rotational spring-damper: drop on a revolute joint", "arc",
                        palette="rotational_spring", icon="rotational_spring",
                        placement="on_joint", rank=60)

    def force_specs(self, element: Any, entities: Any) -> list[Any]:
        j = entities.joint(element.joint)
        return [RotationalSpringSpec(j.body1, j.body2, element.stiffness, element.damping, element.free_angle)]

    def bodies(self, element: Any, entities: Any) -> tuple[str, str]:
        j = entities.joint(element.joint)
        return j.body1, j.body2


ELEMENT = RotationalSpringDamper()
