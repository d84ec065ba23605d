"""Rack and pinion (planar; 1 row ``tooth``): a pinion turning about revolute joint ``joint1`` on a carrier (a
body or the ground) drives a rack sliding on prismatic joint ``joint2`` of the same carrier:

    s = rho (phi_p - phi_c) + s_0,   rho = +r (``side`` right) or -r (left),

s [m] the rack's travel along the prismatic axis u (from the pinion's centre to the rack's prismatic-joint
point, projected on u), r = ``radius`` the pinion's pitch radius, s_0 = ``offset`` the travel at phi_p = phi_c.
``side``: where the rack's pitch line lies seen from the pinion's centre looking along u (right: a
counter-clockwise pinion pushes the rack along +u). One rack-mesh row (core/elements/primitives/rack_mesh.py).
u is the prismatic joint's axis, taken into the carrier's frame (the axis is in the prismatic's body1 frame,
turned by -angle when the carrier is its body2); the resolved element keeps it in ``axis`` and the held angle
phi_rack - phi_carrier in ``angle`` (for drawing).

Reaction (the tooth force): lambda [N] is the tangential tooth force F_t = lambda u the pinion applies to the
rack. It is reported on the rack (at its prismatic-joint point; on the pinion at its centre, sign -1, when the
rack is the ground) along the pressure line (``pressure_angle`` alpha, default 20 degrees): (Fx, Fy) = F =
F_t + |F_t| tan(alpha) n, |F| = |F_t| / cos(alpha), n the unit normal of the axis pointing away from the pinion.
F acts at the pitch point P = O_p - rho perp(u) = O_p + r n on the rack's pitch line: Mz = (P - A) x F about the
reported point A (on the rack: nonzero when its joint point lies off the pitch line, h F_t for an offset h, or
away from P along the axis, for the radial part; on the pinion: the tooth torque). The row's own generalized
force takes F_t at the rack's joint point instead, with the difference (offset x F_t) as a moment on the
carrier: the reported rack guide (the prismatic joint) carries that moment and the radial part, the pinion's
bearing the radial part (core.elements.base.Coupling), so the reported forces on the rack, the pinion and the
carrier balance.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from mechstudio.core.elements.base import CouplingEnds, CouplingSketch, EditorInfo, ElementType, ReactionSite, Slot
from mechstudio.core.elements.coupled_joints import COUPLED_SLOTS, coupling, joints_on_carrier
from mechstudio.core.elements.fields import Angle, Choice, JointRef, Length
from mechstudio.core.elements.gear_pair import DEFAULT_PRESSURE_ANGLE
from mechstudio.core.elements.primitives.rack_mesh import RackMeshSpec


class RackPinion(ElementType):
    name = "rack_pinion"
    fields = (JointRef("joint1", "revolute joint of the pinion on the carrier", types=("revolute",)),
              JointRef("joint2", "prismatic joint of the rack on the same carrier", types=("prismatic",)),
              Length("radius", "pitch radius of the pinion", gt=0.0),
              Choice("side", "side of the rack axis the rack's pitch line lies on, seen from the pinion centre",
                     values=("right", "left"), default="right"),
              Length("offset", "rack travel along the axis at zero pinion angle", default=0.0),
              Angle("pressure_angle", "pressure angle", ge=0.0, lt=1.5, default=DEFAULT_PRESSURE_ANGLE))
    derived = COUPLED_SLOTS + (Slot("angle", 0.0, "phi_rack - phi_carrier, held by the prismatic joint [rad]",
                                    "float"),)
    components = ("tooth",)
    editor = EditorInfo("Rack and pinion", "A pinion driving a rack: click the pinion's revolute joint, then the "
                                           "rack's prismatic joint (both on the same carrier body or the ground)",
                        "rack", palette="rack_pinion", icon="rack_pinion", placement="coupling", rank=120)

    def resolve(self, element: Any, joints: dict[str, Any], pointer: str, problems: list[tuple[str, str]]) -> Any:
        """Pinion, rack, carrier and the rack axis in the carrier's frame from the two joints."""
        found = joints_on_carrier(element, joints, pointer, ("revolute", "prismatic"), problems)
        if found is None:
            return element
        carrier, pinion, rack = found
        slide = rack.joint
        ax = slide.axis[:2]
        if slide.body1 != carrier:  # axis in the rack's frame: phi_carrier - phi_rack = angle
            c, s = math.cos(-slide.angle), math.sin(-slide.angle)
            ax = (c * ax[0] - s * ax[1], s * ax[0] + c * ax[1])
        norm = math.hypot(*ax)
        if pinion.body == rack.body:
            problems.append((f"{pointer}/joint2", f"rack_pinion {element.name!r}: the pinion and the rack are both "
                                                  f"{rack.body!r}"))
            return element
        turn = slide.angle if slide.body1 == carrier else -slide.angle  # phi_rack - phi_carrier, held
        return replace(element, body1=pinion.body, point1=pinion.point, body2=rack.body, point2=rack.point,
                       carrier=carrier, axis=(ax[0] / norm, ax[1] / norm), angle=turn)

    def reaction_site(self, element: Any, entities: Any) -> ReactionSite:
        """The default site (the rack at its point; the pinion at its centre, sign -1, when the rack is the
        ground) with the force along the pressure line: the radial part pushes the rack away from the pinion,
        -eps perp(u) in the carrier's frame (eps = +1 on the right, -1 on the left)."""
        site = super().reaction_site(element, entities)
        eps = -1.0 if element.side == "left" else 1.0
        away = (eps * element.axis[1], -eps * element.axis[0])
        rho = eps * element.radius
        pitch = (rho * element.axis[1], -rho * element.axis[0])  # P - O_p = -rho perp(u), carrier frame
        return replace(site, radial=(element.carrier, away, math.tan(element.pressure_angle), 0.0),
                       coupling=coupling(element, pitch=(element.body1, element.point1, pitch)))

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        rho = element.radius if element.side != "left" else -element.radius
        return [RackMeshSpec(element.carrier, element.axis, element.body1, element.point1, element.body2,
                             element.point2, rho, element.offset)]

    def coupling_sketch(self, item: dict[str, Any], ends: CouplingEnds) -> CouplingSketch:
        """The pinion's pitch circle and the rack's pitch line along the sliding axis, tangent to it on the
        rack's side (the pitch point marked)."""
        c1, r = ends.centre1, float(item.get("radius", 0.0))
        ax = ends.axis2 or (1.0, 0.0)
        n = math.hypot(*ax) or 1.0
        u = (ax[0] / n, ax[1] / n)
        rho = -r if item.get("side") == "left" else r
        pitch = (c1[0] + rho * u[1], c1[1] - rho * u[0])  # O - rho perp(u)
        rack_point = ends.point2
        along = u[0] * (rack_point[0] - pitch[0]) + u[1] * (rack_point[1] - pitch[1])  # the rack's point along it
        half = max(4.0 * r, 0.2)
        mid = (pitch[0] + along * u[0], pitch[1] + along * u[1])
        rack = ((mid[0] - half * u[0], mid[1] - half * u[1]), (mid[0] + half * u[0], mid[1] + half * u[1]))
        return CouplingSketch(pitch, circles=((c1, r),), rack=rack, axis=u)

    def wheel_radii(self, element: Any) -> tuple[float | None, float | None]:
        return element.radius, None


ELEMENT = RackPinion()
