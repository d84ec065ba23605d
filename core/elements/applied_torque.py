"""Applied torque T(t) [N m] on a body (planar: one component; spatial: three); see
core/elements/primitives/forces.py."""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import GROUND, EditorInfo, ElementType
from mechstudio.core.elements.fields import BodyRef, TimeFunctions
from mechstudio.core.elements.primitives.forces import BodyTorqueSpec


class AppliedTorque(ElementType):
    name = "applied_torque"
    section = "forces"
    dimension = "both"
    fields = (BodyRef("body", "the loaded body"),
              TimeFunctions("torque", "torque about z (planar), or its three components in global axes (spatial)",
                            units="N m", count=3, scalar=True))
    editor = EditorInfo("Torque", "Applied torque 1 N m on a body", "arc", palette="torque", icon="torque",
                        placement="on_body", rank=90)

    def force_specs(self, element: Any, entities: Any) -> list[Any]:
        return [BodyTorqueSpec(element.body, element.torque[0])]

    def bodies(self, element: Any, entities: Any) -> tuple[str, str]:
        return GROUND, element.body


ELEMENT = AppliedTorque()
