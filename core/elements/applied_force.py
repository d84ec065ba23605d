"""Applied force F(t) [N] at a body point (planar and spatial models); see core/elements/primitives/forces.py."""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import GROUND, EditorInfo, ElementType
from mechstudio.core.elements.primitives.forces import PointLoadSpec


class AppliedForce(ElementType):
    name = "applied_force"
    section = "forces"
    dimension = "both"
    fields = ("body", "point", "force")
    editor = EditorInfo("Force", "Applied force (0, -10) N at the drop point of a body", "arrow", palette="force",
                        icon="force")

    def force_specs(self, element: Any, entities: Any) -> list[Any]:
        return [PointLoadSpec(element.body1, element.point1, tuple(element.force))]

    def bodies(self, element: Any, entities: Any) -> tuple[str, str]:
        return GROUND, element.body1


ELEMENT = AppliedForce()
