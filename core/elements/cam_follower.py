"""Cam and follower (1 holonomic row: contact): a disk cam on ``body1`` with profile radius r(theta) [m]
(``profile``: a time-function expression with theta [rad], measured about ``point1`` from body1's x axis,
written as t) touches a follower on ``body2``:

* ``follower: "flat"`` -- a flat face through ``point2`` along ``axis`` (body2's frame); the cam must be convex.
  Row u^T (P2 - O) - h(psi) = 0 with h the cam's support function (h(psi) = max_theta r(theta) cos(theta - psi),
  contact angle by Newton's method, h' by the envelope theorem);
* ``follower: "roller"`` -- a roller of ``radius`` rho about ``point2``. Row D(c) - rho = 0, D the distance from
  the roller centre to the profile.

The equations and their derivatives are in core/elements/primitives/cam_contact.py; the profile's table and its
checks (positive, convex for a flat face, resolved by the table) in core/elements/primitives/cam_profile.py.
The face's normal u is perp(axis) or its opposite, whichever points away from the cam centre at the file's
initial poses. The reaction (the contact force along the contact normal, the row's multiplier) is reported
on the follower about ``point2`` (for a roller: the roller centre, so its moment is 0).

With ``unilateral`` the contact holds only while its force pushes (docs/contact.md, run event by event by
``mechstudio.core.run.events``): the follower lifts off where the contact force would become negative (the
follower's spring preload and mass cannot keep it on the profile) and lands again with Newton's ``restitution``;
the row is the signed gap (positive: apart), so it serves as the gap function. The contact is frictionless.
"""
from __future__ import annotations

import math
from typing import Any

from mechstudio.core.elements.base import EditorInfo, ElementType
from mechstudio.core.elements.fields import (BodyRef, Choice, Direction, Flag, Length, Number, ParseContext, PointRef,
                                             TimeFunction)
from mechstudio.core.elements.planar_rolling_disk import initial_point
from mechstudio.core.elements.primitives.cam_contact import CamContactSpec
from mechstudio.core.elements.primitives.cam_profile import profile_problems


def face_normal(element: Any, entities: Any) -> tuple[float, float]:
    """The flat face's unit normal in body2's frame, pointing away from the cam centre at the initial poses."""
    ax = element.axis[:2]
    norm = math.hypot(ax[0], ax[1])
    n = (-ax[1] / norm, ax[0] / norm)
    x1, y1, _ = initial_point(entities, element.body1, element.point1)
    x2, y2, phi2 = initial_point(entities, element.body2, element.point2)
    c, s = math.cos(phi2), math.sin(phi2)
    if (c * n[0] - s * n[1]) * (x2 - x1) + (s * n[0] + c * n[1]) * (y2 - y1) < 0.0:
        n = (-n[0], -n[1])
    return n


class CamFollower(ElementType):
    name = "cam_follower"
    fields = (BodyRef("body1", "the cam"), PointRef("point1", "the cam's centre (pole of the profile)", body="body1"),
              TimeFunction("profile", "profile radius r(theta), theta [rad] from body1's x axis written as t",
                           units="m"),
              Choice("follower", "flat face or roller", values=("flat", "roller")),
              BodyRef("body2", "the follower", distinct_from="body1"),
              PointRef("point2", "roller centre, or a point of the flat face", body="body2"),
              Direction("axis", "flat face direction in body2's frame", noun="face direction", default=(1.0, 0.0),
                        offer=False),
              Length("radius", "roller radius", gt=0.0, default=0.0, offer=False),
              Flag("unilateral", "the follower may lift off the cam (the contact force only pushes)", default=False),
              Number("restitution", "coefficient of restitution e of a landing (0: plastic, 1: elastic)", units="-",
                     ge=0.0,
                     le=1.0, default=0.0, offer=False))
    components = ("contact",)
    editor = EditorInfo("Cam", "A disk cam and its follower: click the cam's centre on the cam body, then the "
                               "follower (a roller of radius 0.05 m at the click; the profile is a circle through "
                               "it, edit r(theta) afterwards)", "cam", palette="cam_follower", icon="cam_follower",
                        placement="contact", rank=140)

    def check(self, element: Any, ctx: ParseContext, pointer: str) -> None:
        """A flat face needs its direction, a roller its radius; the profile checked for its follower (positive,
        convex for a flat face, resolved by its table)."""
        if element.follower == "flat" and "axis" not in ctx.item:
            ctx.problem(pointer, "a flat-faced follower needs 'axis', the face direction in body2's frame")
        if element.follower == "roller" and "radius" not in ctx.item:
            ctx.problem(pointer, "a roller follower needs 'radius', the roller radius [m]")
        if "profile" in ctx.ok and "follower" in ctx.ok:
            for p in profile_problems(element.profile, element.follower):
                ctx.problem(f"{pointer}/profile", f"cam profile r(theta): {p}")

    def contact_options(self, element: Any) -> dict[str, Any] | None:
        """How the contact lets go (``mechstudio.core.contact``): the row 0 is the gap; None when bilateral."""
        if not element.unilateral:
            return None
        return {"normal": 0, "tangent": None, "unilateral": True, "friction_static": None,
                "restitution": element.restitution}

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        flat = element.follower == "flat"
        return [CamContactSpec(element.body1, element.point1, element.body2, element.point2, element.profile,
                               element.follower, face_normal(element, entities) if flat else (0.0, 1.0),
                               0.0 if flat else element.radius)]

    def contact_components(self, element: Any, point: Any, reaction: Any) -> dict[str, float]:
        """contact [N] (CSV reaction.<name>.contact): the reported force along the contact normal, positive when
        the cam pushes the follower. Flat face: along the face normal u; roller: |F| (the force is along the
        normal) signed by whether it points away from the cam centre."""
        f = (float(reaction[0]), float(reaction[1]))
        p2, o = point(element.body2, element.point2), point(element.body1, element.point1)
        if element.follower == "flat":
            x0, x1 = point(element.body2, (0.0, 0.0)), point(element.body2, (1.0, 0.0))
            phi2 = math.atan2(x1[1] - x0[1], x1[0] - x0[0])
            # the same outward normal as the equation: perp(axis) or its opposite, pointing away from the cam
            ax = element.axis
            n = (-math.sin(phi2) * ax[0] - math.cos(phi2) * ax[1], math.cos(phi2) * ax[0] - math.sin(phi2) * ax[1])
            if n[0] * (p2[0] - o[0]) + n[1] * (p2[1] - o[1]) < 0.0:
                n = (-n[0], -n[1])
            norm = math.hypot(*n)
            return {"contact": (n[0] * f[0] + n[1] * f[1]) / norm}
        sign = 1.0 if f[0] * (p2[0] - o[0]) + f[1] * (p2[1] - o[1]) >= 0.0 else -1.0
        return {"contact": sign * math.hypot(*f)}


ELEMENT = CamFollower()
