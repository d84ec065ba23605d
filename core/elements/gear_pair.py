"""Gear pair (planar; 1 row ``tooth``): two gears turning about revolute joints ``joint1`` and ``joint2`` on a
common carrier (a body or the ground) mesh at their pitch circles, radii ``radius1`` r_1 and ``radius2`` r_2:

    r_1 (phi_1 - phi_c) = -+ r_2 (phi_2 - phi_c)     (external / ``internal`` gearing),

one gear-mesh row (core/elements/primitives/gear_mesh.py; the gear constraint of Nikravesh, "Computer-Aided
Analysis of Mechanical Systems", sec. 9.3, with the line of centres measured from the carrier). The loader
checks that the revolutes share the carrier and that the centre distance equals r_1 + r_2 (external) or
|r_1 - r_2| (internal) to 1e-6 relative.

Reaction (the tooth force): lambda [N] is the tangential tooth force F_t, the force the teeth of gear 1 apply
to gear 2 at the pitch point P, tangent to the pitch circles (core/elements/primitives/gear_mesh.py). It is
reported on gear 2 (on gear 1, sign -1, when gear 2 is the ground) along the pressure line (pressure angle alpha,
``pressure_angle`` [rad], default 20 degrees): (Fx, Fy) = F = F_t + |F_t| tan(alpha) n, |F| = |F_t| / cos(alpha),
n the unit radial direction that pushes gear 2 away from gear 1 (external gearing: along the line of centres
from gear 1 to gear 2, i.e. towards gear 2's centre; internal: the opposite way), and Mz = the moment about gear
2's centre (the tooth torque on gear 2; the radial part passes through the centre). See
:class:`~core.elements.base.ReactionSite` (``radial``). The row's generalized forces are the tangential force
alone: the revolute joints of the two gears (their bearings) report the radial part besides
(:class:`~core.elements.base.Coupling`), so the reported forces on each gear and on the carrier balance; a
bearing's load from the teeth is |F_t| / cos(alpha).
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from mechstudio.core.elements.base import CouplingEnds, CouplingSketch, EditorInfo, ElementType, ReactionSite
from mechstudio.core.elements.coupled_joints import COUPLED_SLOTS, coupling, joints_on_carrier
from mechstudio.core.elements.fields import Angle, Flag, JointRef, Length
from mechstudio.core.elements.primitives.gear_mesh import GearMeshSpec

#: pressure angle when the file gives none: 20 degrees [rad]
DEFAULT_PRESSURE_ANGLE = 0.3490658503988659
#: relative tolerance of the centre distance against the pitch radii (file numbers typed to 6 digits)
CENTRE_DISTANCE_TOL = 1e-6


class GearPair(ElementType):
    name = "gear_pair"
    fields = (JointRef("joint1", "revolute joint of gear 1 on the carrier", types=("revolute",)),
              JointRef("joint2", "revolute joint of gear 2 on the same carrier", types=("revolute",)),
              Length("radius1", "pitch radius of gear 1", gt=0.0),
              Length("radius2", "pitch radius of gear 2", gt=0.0),
              Flag("internal", "internal gearing: the larger gear is a ring gear", default=False),
              Angle("pressure_angle", "pressure angle", ge=0.0, lt=1.5, default=DEFAULT_PRESSURE_ANGLE))
    derived = COUPLED_SLOTS
    components = ("tooth",)
    editor = EditorInfo("Gear pair", "Two meshing gears: click the revolute joint of gear 1, then that of gear 2 "
                                     "(both on the same carrier body or on the ground)", "gears",
                        palette="gear_pair", icon="gear_pair",
                        placement="coupling", rank=110)

    def resolve(self, element: Any, joints: dict[str, Any], pointer: str, problems: list[tuple[str, str]]) -> Any:
        """Gears, centres and carrier from the two revolutes; the centre distance checked against the radii."""
        found = joints_on_carrier(element, joints, pointer, ("revolute", "revolute"), problems)
        if found is None:
            return element
        carrier, g1, g2 = found
        r1, r2 = element.radius1, element.radius2
        expected = abs(r1 - r2) if element.internal else r1 + r2
        line = np.subtract(g2.carrier_point[:2], g1.carrier_point[:2])
        distance = float(np.hypot(*line))
        kind = "internal gearing: |r1 - r2|" if element.internal else "external gearing: r1 + r2"
        if expected <= 0.0 or abs(distance - expected) > CENTRE_DISTANCE_TOL * max(expected, distance):
            problems.append((f"{pointer}/radius2", f"gear_pair {element.name!r}: the pitch radii ({kind} = "
                                                   f"{expected:.6g} m) must equal the centre distance "
                                                   f"{distance:.6g} m of {g1.joint.name!r} and {g2.joint.name!r} "
                                                   f"on {carrier!r}"))
            return element
        return replace(element, body1=g1.body, point1=g1.point, body2=g2.body, point2=g2.point, carrier=carrier,
                       axis=tuple(line / distance))

    def reaction_site(self, element: Any, entities: Any) -> ReactionSite:
        """The default site (gear 2 about its centre; gear 1, sign -1, when gear 2 is the ground) with the force
        along the pressure line: the radial part pushes gear 2 away from gear 1 -- along the line of centres
        from gear 1 to gear 2 for external gearing, the opposite way for internal gearing (carrier frame)."""
        site = super().reaction_site(element, entities)
        e = element.axis if not element.internal else (-element.axis[0], -element.axis[1])
        return replace(site, radial=(element.carrier, tuple(e[:2]), math.tan(element.pressure_angle), 0.0),
                       coupling=coupling(element))

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        rho2 = -element.radius2 if element.internal else element.radius2
        return [GearMeshSpec(element.body1, element.point1, element.body2, element.point2, element.carrier,
                             element.axis, element.radius1, rho2)]

    def coupling_sketch(self, item: dict[str, Any], ends: CouplingEnds) -> CouplingSketch:
        """The two pitch circles about the gear centres where the carrier holds them; the pitch point marked."""
        c1, c2 = ends.centre1, ends.centre2
        r1, r2 = float(item.get("radius1", 0.0)), float(item.get("radius2", 0.0))
        p2 = c1
        if c1 != c2:
            x, y = pitch_point(c1, c2, r1, r2, bool(item.get("internal", False)))
            p2 = (float(x), float(y))
        return CouplingSketch(p2, circles=((c1, r1), (c2, r2)))

    def wheel_radii(self, element: Any) -> tuple[float | None, float | None]:
        return element.radius1, element.radius2


def pitch_point(centre1: Any, centre2: Any, radius1: float, radius2: float, internal: bool) -> np.ndarray:
    """The pitch point [m] (world) from the two gear centres: on the line of centres, r_1 from centre 1 --
    between the centres for external gearing, beyond the smaller gear's centre for internal gearing."""
    c1, c2 = np.asarray(centre1, float)[:2], np.asarray(centre2, float)[:2]
    e = (c2 - c1) / np.linalg.norm(c2 - c1)
    if not internal:
        return c1 + radius1 * e
    return c1 + math.copysign(radius1, radius1 - radius2) * e


ELEMENT = GearPair()
