"""Contact pair (planar): two bodies (either may be the ground) touch with the shapes of their ``geometry`` --
``shape1`` of body1 against ``shape2`` of body2 (an index into the body's geometry list, the ground's
``ground.geometry``; -1, the default: every shape of the body that can touch). Disks are circles, bars capsules
(radius width/2), boxes and polygons convex polygons (a floor or an incline: a ground box or polygon).

The pair adds no constraint rows to the model: it is a force element whose force exists only while the shapes
touch. A run with contact pairs is event-driven (docs/contact.md; ``mechstudio.core.contact`` finds the candidate
contact points, their gaps, normals and rows from the shapes, ``mechstudio.core.run.events`` integrates between
the events): an open point closes with an impact (Newton's law with ``restitution`` e, impulses from the
complementarity problem of all touching points), a closed point holds as a constraint while its normal force
pushes and lifts off when it would pull; with ``friction_static`` mu_s it sticks while the friction it needs stays
within mu_s N and slips otherwise, with a kinetic friction force -mu_k N sign(v_slip) (``friction_kinetic`` mu_k,
default mu_s). The contact force (the sum over the pair's closed points, on body2) is reported in the run's
columns ``contact.<name>.normal``, ``.friction``, ``.gap`` and ``.state`` (docs/results-csv.md).
"""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import GROUND, EditorInfo, ElementType, ReactionSite
from mechstudio.core.elements.fields import BodyRef, Count, Number, ParseContext
from mechstudio.core.elements.joint_friction import check_friction


class ContactPair(ElementType):
    name = "contact_pair"
    section = "forces"
    fields = (BodyRef("body1", "the first body, or the ground"),
              Count("shape1", "index of the touching shape in body1's geometry (-1: all of its shapes)",
                    units="-", ge=-1,
                    default=-1),
              BodyRef("body2", "the second body", distinct_from="body1"),
              Count("shape2", "index of the touching shape in body2's geometry (-1: all of its shapes)",
                    units="-", ge=-1,
                    default=-1),
              Number("restitution", "coefficient of restitution e of an impact (0: plastic, 1: elastic)", units="-",
                     ge=0.0,
                     le=1.0, default=0.0),
              Number("friction_static", "static friction coefficient mu_s (omitted: frictionless)", units="-", ge=0.0,
                     default=None),
              Number("friction_kinetic", "kinetic friction coefficient mu_k (omitted: mu_s)", units="-", ge=0.0,
                     default=None))
    editor = EditorInfo("Contact", "Two bodies that touch with their shapes (disks, bars, boxes, convex polygons): "
                                   "impacts, lift-off, Coulomb friction", "contact",
                        palette="contact_pair", icon="contact_pair", placement="connector", rank=150)

    def check(self, element: Any, ctx: ParseContext, pointer: str) -> None:
        """mu_k needs mu_s, and at most mu_s."""
        check_friction(element, ctx, pointer, pin=False)

    def force_specs(self, element: Any, entities: Any) -> list[Any]:
        """None: the contact force exists only in event-driven runs (module docstring)."""
        return []

    def contact_options(self, element: Any) -> dict[str, Any]:
        """How the contact lets go (``mechstudio.core.contact``): a pair of shapes."""
        return {"pair": True, "unilateral": True, "friction_static": element.friction_static,
                "friction_kinetic": element.friction_kinetic, "restitution": element.restitution}

    def reaction_site(self, element: Any, entities: Any) -> ReactionSite:
        """The contact force is reported on body2 about its centre of mass (on body1, sign -1, when body2 is the
        ground)."""
        if element.body2 == GROUND:
            return ReactionSite(element.body1, None, -1.0)
        return ReactionSite(element.body2, None, 1.0)


ELEMENT = ContactPair()
