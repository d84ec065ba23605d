"""Knife edge (planar; 1 nonholonomic row normal): the point ``point`` of ``body`` cannot move across the
blade direction ``axis`` (body frame) -- the ice skate of [002]; primitive core/elements/primitives/knife_edge.py.
The reaction is reported on the body about the blade point."""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import GROUND, EditorInfo, ElementType, OneBody, ReactionSite
from mechstudio.core.elements.fields import BodyRef, Direction, PointRef
from mechstudio.core.elements.primitives.knife_edge import KnifeEdgeSpec


class KnifeEdge(ElementType):
    name = "knife_edge"
    fields = (BodyRef("body", moving=True), PointRef("point", "the blade's point", body="body"),
              Direction("axis", "blade direction in the body's frame", noun="blade direction"))
    record_bases = (OneBody,)
    components = ("normal",)
    holonomic = False
    editor = EditorInfo("Knife edge", "Nonholonomic blade on a body (no sideways velocity)", "blade",
                        palette="knife_edge", icon="knife_edge",
                        placement="on_body", rank=100)

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        return [KnifeEdgeSpec(element.body, element.point, element.axis)]

    def bodies(self, element: Any, entities: Any) -> tuple[str, str]:
        return GROUND, element.body

    def reaction_site(self, element: Any, entities: Any) -> ReactionSite:
        return ReactionSite(element.body, element.point, 1.0)


ELEMENT = KnifeEdge()
