"""Coulomb friction in planar joints (docs/contact.md, "Joint friction"): the optional fields that the revolute,
prismatic and pin-in-slot elements declare, their cross-field checks, and the options the contact machinery
(``mechstudio.core.contact.joint_friction``) reads.

* revolute: ``friction_static`` mu_s, ``friction_kinetic`` mu_k (default mu_s) and ``pin_radius`` r [m]: a
  friction moment of size mu r |F| about the pin, F the joint force (the pin's reaction force);
* prismatic, pin in slot: ``friction_static``, ``friction_kinetic``: a friction force of size mu |N| along the
  axis (the slot), N the guide's (the slot's) normal force.

The friction opposes the relative rotation (the relative sliding); while the joint's relative rate is zero and the
friction needed stays within mu_s times the load, the joint sticks. A joint without ``friction_static`` is
frictionless (the fields absent: the element is exactly what it was).
"""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import ElementType
from mechstudio.core.elements.fields import Field, Length, Number, ParseContext


def friction_fields(pin: bool) -> tuple[Field, ...]:
    """The friction fields of a joint; ``pin``: a revolute's, with the pin radius."""
    what = "the friction moment mu r |F|" if pin else "the friction force mu |N|"
    fields: tuple[Field, ...] = (
        Number("friction_static", f"static friction coefficient mu_s of the joint ({what}; omitted: "
                                  "frictionless)", units="-", ge=0.0, default=None, initial=0.2,
               companions=("pin_radius",) if pin else ()),
        Number("friction_kinetic", "kinetic friction coefficient mu_k of the joint (omitted: mu_s)", units="-",
               ge=0.0, default=None))
    if pin:  # 1 cm: a typical pin of a classroom linkage
        fields += (Length("pin_radius", "pin radius r of the friction moment mu r |F|", gt=0.0, default=None,
                          initial=0.01),)
    return fields


def check_friction(element: Any, ctx: ParseContext, pointer: str, pin: bool) -> None:
    """mu_k needs mu_s and is at most mu_s; a revolute's friction needs its pin radius (``pin``). The contacts'
    friction (a contact pair, a rolling disk) follows the same rules (``pin`` False)."""
    mu_s, mu_k = element.friction_static, element.friction_kinetic
    if mu_k is not None and mu_s is None:
        ctx.problem(f"{pointer}/friction_kinetic", "friction_kinetic needs friction_static (mu_s)")
    elif mu_k is not None and mu_s is not None and mu_k > mu_s:
        ctx.problem(f"{pointer}/friction_kinetic", f"friction_kinetic ({mu_k:g}) must not exceed "
                                                   f"friction_static ({mu_s:g})")
    if pin and mu_s is not None and element.pin_radius is None:
        ctx.problem(f"{pointer}/pin_radius", "a revolute with friction_static needs its pin_radius [m] (the "
                                             "friction moment is mu r |F|)")


def friction_options(element: Any, kind: str, axis: tuple[float, ...] | None = None) -> dict[str, Any] | None:
    """What the contact machinery needs of a joint with friction (None: frictionless): ``kind`` "turn" (a
    revolute) or "slide" (along ``axis``, body1's frame), mu_s, mu_k, and the arm r [m] of the load (the pin
    radius; 1 for a slide, whose friction is mu |N|)."""
    mu_s = element.friction_static
    if mu_s is None:
        return None
    mu_k = element.friction_kinetic
    return {"kind": kind, "friction_static": float(mu_s),
            "friction_kinetic": float(mu_s if mu_k is None else mu_k),
            "radius": float(element.pin_radius) if kind == "turn" else 1.0,
            "axis": None if axis is None else (float(axis[0]), float(axis[1]))}


__all__ = ["check_friction", "friction_fields", "friction_options"]


class SlidingFrictionJoint(ElementType):
    """Base of the joints that slide along ``axis`` (body1's frame) with the friction fields of
    :func:`friction_fields` (``pin`` False): the prismatic joint and the pin in a slot."""

    def check(self, element: Any, ctx: ParseContext, pointer: str) -> None:
        check_friction(element, ctx, pointer, pin=False)

    def joint_friction(self, element: Any) -> dict[str, Any] | None:
        """The joint's friction along its axis (mu |N|, N the guide's normal force); None when frictionless."""
        return friction_options(element, "slide", element.axis)
