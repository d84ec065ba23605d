"""Applied force F(t) [N] at a body point (planar and spatial models); see core/elements/primitives/forces.py."""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import GROUND, EditorInfo, ElementType
from mechstudio.core.elements.fields import BodyRef, PointRef, TimeFunctions
from mechstudio.core.elements.primitives.forces import PointLoadSpec


class AppliedForce(ElementType):
    name = "applied_force"
    section = "forces"
    dimension = "both"
    fields = (BodyRef("body", "the loaded body"), PointRef("point", "where the force acts", body="body",
                                                            default=(0.0, 0.0), offer=False),
              TimeFunctions("force", "force components in global axes", units="N"))
    editor = EditorInfo("Force", "Applied force (0, -10) N at the drop point of a body", "arrow", palette="force",
                        icon="force", placement="on_body", rank=80)

    def force_specs(self, element: Any, entities: Any) -> list[Any]:
        return [PointLoadSpec(element.body, element.point, tuple(element.force))]

    def bodies(self, element: Any, entities: Any) -> tuple[str, str]:
        return GROUND, element.body


ELEMENT = AppliedForce()
