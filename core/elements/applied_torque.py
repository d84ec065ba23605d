"""Applied torque T(t) [N m] on a body (planar: one component; spatial: three); see
core/elements/primitives/forces.py."""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import GROUND, EditorInfo, ElementType
from mechstudio.core.elements.primitives.forces import BodyTorqueSpec


class AppliedTorque(ElementType):
    name = "applied_torque"
    section = "forces"
    dimension = "both"
    fields = ("body", "torque")
    editor = EditorInfo("Torque", "Applied torque 1 N m on a body", "arc", palette="torque", icon="torque")

    def force_specs(self, element: Any, entities: Any) -> list[Any]:
        return [BodyTorqueSpec(element.body1, element.torque[0])]

    def bodies(self, element: Any, entities: Any) -> tuple[str, str]:
        return GROUND, element.body1


ELEMENT = AppliedTorque()
