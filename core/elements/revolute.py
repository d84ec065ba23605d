"""Revolute joint (planar; 2 rows x, y): a point of body 2 pinned to a point of body 1 -- the local method's
revolute equation of [003], one point-coincidence primitive (core/elements/primitives/point_coincidence.py).

Optional Coulomb friction (``friction_static``, ``friction_kinetic``, ``pin_radius``; core/elements/joint_friction.py,
docs/contact.md "Joint friction"): a friction moment of size mu r |F| (F the joint force) opposing the relative
rotation phi2 - phi1, reported in the joint's ``Mz`` (on body2; a couple)."""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import EditorInfo, ElementType
from mechstudio.core.elements.fields import BodyRef, ParseContext, PointRef
from mechstudio.core.elements.joint_friction import check_friction, friction_fields, friction_options
from mechstudio.core.elements.primitives.point_coincidence import PointCoincidenceSpec


class Revolute(ElementType):
    name = "revolute"
    fields = (BodyRef("body1"), PointRef("point1", body="body1"),
              BodyRef("body2", distinct_from="body1"), PointRef("point2", body="body2"),
              *friction_fields(pin=True))
    components = ("x", "y")
    editor = EditorInfo("Revolute joint", "Pin joint: drop on two bodies (or a body and a ground point), or drop "
                                          "on one and click the other", "pin", palette="revolute", icon="revolute",
                        placement="connector", rank=10)

    def check(self, element: Any, ctx: ParseContext, pointer: str) -> None:
        check_friction(element, ctx, pointer, pin=True)

    def joint_friction(self, element: Any) -> dict[str, Any] | None:
        """The joint's friction (core/elements/joint_friction.py), None when frictionless."""
        return friction_options(element, "turn")

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        return [PointCoincidenceSpec(element.body1, element.point1, element.body2, element.point2)]


ELEMENT = Revolute()
