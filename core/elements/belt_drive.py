"""Belt drive (planar; 1 row ``belt``): two pulleys turning about revolute joints ``joint1`` and ``joint2`` on a
common carrier (a body or the ground), pitch radii ``radius1`` r_1 and ``radius2`` r_2, joined by a belt that does
not slip:

    r_1 (phi_1 - phi_c) = +- r_2 (phi_2 - phi_c)     (open belt: +, the pulleys turn the same way;
                                                      ``crossed`` belt: -, they turn opposite ways),

so the speed ratio (phi_2 - phi_c)' / (phi_1 - phi_c)' is +- r_1 / r_2. It is the gear-mesh row of
core/elements/primitives/gear_mesh.py (Nikravesh, "Computer-Aided Analysis of Mechanical Systems", sec. 9.3) with
the signed radius rho_2 = -r_2 (open: like internal gearing) or +r_2 (crossed: like external gearing); its
line-of-centres term vanishes, the centres being fixed on the carrier. The loader checks that the revolutes
share the carrier and that the pulleys do not overlap: centre distance > |r_1 - r_2| (open) or > r_1 + r_2
(crossed).

Reaction: reported on pulley 2 about its centre (on pulley 1, sign -1, when pulley 2 is the ground): Mz is the
torque the belt applies to pulley 2. ``tension`` [N] (CSV ``reaction.<name>.tension``) is that torque over r_2:
the belt's effective pull T_tight - T_slack on pulley 2 (the belt is inextensible and no pretension is modelled,
so only this difference is determined), positive when it turns pulley 2 counter-clockwise relative to the carrier.

The force (Fx, Fy) is the pull of the tight span with the slack span unloaded (no pretension): T = |Mz| / r_2
along the span, from pulley 2's tangent point towards pulley 1's. A span is a common tangent of the pitch
circles, at the angle beta to the line of centres with sin(beta) = |k| / d (k = r_1 + rho_2, d the centre
distance), so the pull is the row's force across the line of centres (T |k| / d, the gear-mesh row's force)
plus T cos(beta) = T sqrt(1 - (k/d)^2) along it towards pulley 1 (ReactionSite.radial with k_M = cos(beta) / r).
Pulley 1 gets the opposite pull along the same span; the revolute joints (the bearings) carry the part along the
line of centres (core.elements.base.Coupling), so the forces reported on each pulley balance. A pretension T_0
in both spans would add 2 T_0 cos(beta) to each bearing's load along the line of centres; it is not modelled.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from mechstudio.core.elements.base import GROUND, CouplingEnds, CouplingSketch, EditorInfo, ElementType, ReactionSite
from mechstudio.core.elements.coupled_joints import COUPLED_SLOTS, carrier_points, coupling, joints_on_carrier
from mechstudio.core.elements.fields import Flag, JointRef, Length
from mechstudio.core.elements.primitives.gear_mesh import GearMeshSpec

Point = tuple[float, float]


class BeltDrive(ElementType):
    name = "belt_drive"
    fields = (JointRef("joint1", "revolute joint of pulley 1 on the carrier", types=("revolute",)),
              JointRef("joint2", "revolute joint of pulley 2 on the same carrier", types=("revolute",)),
              Length("radius1", "pitch radius of pulley 1", gt=0.0),
              Length("radius2", "pitch radius of pulley 2", gt=0.0),
              Flag("crossed", "crossed belt: the pulleys turn opposite ways", default=False))
    derived = COUPLED_SLOTS
    components = ("belt",)
    editor = EditorInfo("Belt drive", "Two pulleys and a belt: click the revolute joint of pulley 1, then that of "
                                      "pulley 2 (both on the same carrier body or on the ground)", "belt",
                        palette="belt_drive", icon="belt_drive", placement="coupling", rank=125)

    def resolve(self, element: Any, joints: dict[str, Any], pointer: str, problems: list[tuple[str, str]]) -> Any:
        """Pulleys, centres and carrier from the two revolutes; the pulleys must not overlap."""
        found = joints_on_carrier(element, joints, pointer, ("revolute", "revolute"), problems)
        if found is None:
            return element
        carrier, p1, p2 = found
        line = np.subtract(p2.carrier_point[:2], p1.carrier_point[:2])
        distance = float(np.hypot(*line))
        r1, r2 = element.radius1, element.radius2
        least = r1 + r2 if element.crossed else abs(r1 - r2)
        if distance <= least:
            kind = "crossed belt: r1 + r2" if element.crossed else "open belt: |r1 - r2|"
            problems.append((f"{pointer}/radius2", f"belt_drive {element.name!r}: the pulleys overlap -- the centre "
                                                   f"distance {distance:.6g} m of {p1.joint.name!r} and "
                                                   f"{p2.joint.name!r} on {carrier!r} must exceed {kind} = "
                                                   f"{least:.6g} m"))
            return element
        return replace(element, body1=p1.body, point1=p1.point, body2=p2.body, point2=p2.point, carrier=carrier,
                       axis=tuple(line / distance))

    def reaction_site(self, element: Any, entities: Any) -> ReactionSite:
        """The default site (pulley 2 about its centre; pulley 1, sign -1, when pulley 2 is the ground) with the
        force of the tight span: the row's force plus the span's pull along the line of centres towards pulley
        1, T sqrt(1 - (k/d)^2) with T = |M| / r (module docstring)."""
        site = super().reaction_site(element, entities)
        c1, c2 = carrier_points(element, entities)
        d = math.dist(c1[:2], c2[:2])
        k = element.radius1 + (element.radius2 if element.crossed else -element.radius2)
        r = element.radius1 if site.body == element.body1 else element.radius2
        along = math.sqrt(max(0.0, 1.0 - (k / d) ** 2)) / r
        towards1 = (-element.axis[0], -element.axis[1])
        return replace(site, radial=(element.carrier, towards1, 0.0, along), coupling=coupling(element))

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        rho2 = element.radius2 if element.crossed else -element.radius2
        return [GearMeshSpec(element.body1, element.point1, element.body2, element.point2, element.carrier,
                             element.axis, element.radius1, rho2)]

    def contact_components(self, element: Any, point: Any, reaction: Any) -> dict[str, float]:
        """tension [N]: the belt's torque on pulley 2 over r_2 (module docstring). The row's multiplier lambda
        puts the torque r_1 lambda on pulley 1 and rho_2 lambda on pulley 2; the site reports one of them."""
        rho2 = element.radius2 if element.crossed else -element.radius2
        mz = float(reaction[5])
        lam = -mz / element.radius1 if element.body2 == GROUND else mz / rho2
        return {"tension": rho2 * lam / element.radius2}

    def coupling_sketch(self, item: dict[str, Any], ends: CouplingEnds) -> CouplingSketch | None:
        """The two pulleys' pitch circles and the belt's two straight spans (outer tangents for an open belt,
        crossing ones for a crossed belt); the mark at the middle of the first span."""
        c1, c2 = ends.centre1, ends.centre2
        r1, r2 = float(item.get("radius1", 0.0)), float(item.get("radius2", 0.0))
        spans = belt_spans(c1, r1, c2, r2, bool(item.get("crossed", False)))
        rims = tuple(circle(c, r) for c, r in ((c1, r1), (c2, r2)))
        if not spans:
            return CouplingSketch(c2, circles=((c1, r1), (c2, r2)), polylines=rims)
        (a, b) = spans[0]
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        return CouplingSketch(mid, circles=((c1, r1), (c2, r2)), polylines=rims + tuple(spans))

    def wheel_radii(self, element: Any) -> tuple[float | None, float | None]:
        return element.radius1, element.radius2

    def coupling_item(self, name: str, joint1: str, joint2: str, ends: CouplingEnds) -> dict[str, Any] | str:
        """An open belt, equal pulleys a quarter of the centre distance (speed ratio 1)."""
        quarter = round(math.dist(ends.centre1, ends.centre2) / 4, 12)
        if quarter <= 0.0:
            return "the two revolute joints are at the same place: pulleys need distinct centres"
        return {"name": name, "type": self.name, "joint1": joint1, "joint2": joint2, "radius1": quarter,
                "radius2": quarter}


def belt_spans(c1: Point, r1: float, c2: Point, r2: float, crossed: bool) -> list[tuple[Point, Point]]:
    """The belt's two straight spans [m] between pulleys (c1, r1) and (c2, r2): the outer common tangents (open
    belt) or the inner ones (crossed); none when the pulleys overlap. A tangent's unit normal n satisfies
    n . (c2 - c1) = r1 -+ r2; its points are c1 + r1 n and c2 +- r2 n."""
    dx, dy = c2[0] - c1[0], c2[1] - c1[1]
    d = math.hypot(dx, dy)
    sign = -1.0 if crossed else 1.0
    cos_t = (r1 - sign * r2) / d if d > 0.0 else 2.0
    if abs(cos_t) >= 1.0:
        return []
    u, v = (dx / d, dy / d), (-dy / d, dx / d)
    out = []
    for side in (1.0, -1.0):
        sin_t = side * math.sqrt(1.0 - cos_t * cos_t)
        n = (cos_t * u[0] + sin_t * v[0], cos_t * u[1] + sin_t * v[1])
        out.append(((c1[0] + r1 * n[0], c1[1] + r1 * n[1]), (c2[0] + sign * r2 * n[0], c2[1] + sign * r2 * n[1])))
    return out


def circle(c: Point, r: float, n: int = 48) -> tuple[Point, ...]:
    """A closed polyline of ``n`` sides on the circle (c, r)."""
    return tuple((c[0] + r * math.cos(2 * math.pi * k / n), c[1] + r * math.sin(2 * math.pi * k / n))
                 for k in range(n + 1))


ELEMENT = BeltDrive()
