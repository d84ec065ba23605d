"""Planar rolling disk (2 holonomic rows: normal, rolling): a disk (``body2``, centre ``point2``, ``radius`` [m])
rolls without slipping on a straight line of ``body1`` (or of the ground) through ``point1`` along ``axis``
(body1's frame); the line moves and turns with its body. The disk stays on the line's left side, the side of
its normal perp(axis) (reverse ``axis`` for the other side). Primitive core/elements/primitives/disk_on_line.py:

    n^T (P2 - P1) - r = 0,      v^T (P2 - P1) + r (phi2 - phi1) - c0 = 0,

v = A1 axis/|axis|, n = perp(v); c0 is the rolling row's value at the file's initial poses (rolling is measured
from the initial contact), see :func:`rolling_offset`. The reaction is reported on the disk about its centre:
the force the line applies at the contact point, whose components along n and v are the normal and the friction
force (:func:`contact_forces`); its moment about the centre is r times the friction force.

Contact that can let go (docs/contact.md; run event by event by ``mechstudio.core.run.events``): with
``unilateral`` the normal row holds only while its force pushes (the disk may leave the line and land on it again,
with Newton's ``restitution``); with ``friction_static`` mu_s (and ``friction_kinetic`` mu_k, default mu_s) the
rolling row holds only while the friction it needs stays within mu_s N: beyond, the disk slips and a kinetic
friction force -mu_k N sign(v_slip) acts at the contact point; it rolls again when its slip velocity vanishes and
the friction needed is within mu_s N. Without these fields the disk always touches and rolls (both rows bilateral).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechstudio.core.elements.base import GROUND, EditorInfo, ElementType, ReactionSite
from mechstudio.core.elements.fields import BodyRef, Direction, Flag, Length, Number, ParseContext, PointRef
from mechstudio.core.elements.joint_friction import check_friction
from mechstudio.core.elements.primitives.disk_on_line import DiskOnLineSpec


def initial_point(entities: Any, body: str, point: tuple[float, ...]) -> tuple[float, float, float]:
    """(x, y, phi of the body): the global position [m] of a body-frame point at the file's initial pose."""
    if body == GROUND:
        return float(point[0]), float(point[1]), 0.0
    b = next(b for b in entities.bodies if b.name == body)
    x, y, phi = (float(b.initial.get(k, 0.0)) for k in ("x", "y", "phi"))
    c, s = math.cos(phi), math.sin(phi)
    return x + c * point[0] - s * point[1], y + s * point[0] + c * point[1], phi


def rolling_offset(element: Any, entities: Any) -> float:
    """c0 = v^T (P2 - P1) + r (phi2 - phi1) at the file's initial poses [m]."""
    x1, y1, phi1 = initial_point(entities, element.body1, element.point1)
    x2, y2, phi2 = initial_point(entities, element.body2, element.point2)
    ax = np.asarray(element.axis[:2], float) / math.hypot(*element.axis[:2])
    c, s = math.cos(phi1), math.sin(phi1)
    v = (c * ax[0] - s * ax[1], s * ax[0] + c * ax[1])
    return v[0] * (x2 - x1) + v[1] * (y2 - y1) + element.radius * (phi2 - phi1)


def contact_forces(phi1: float, axis: tuple[float, ...], reaction: Any) -> tuple[float, float]:
    """(normal, friction) [N]: the reported force (Fx, Fy) on the disk along the line's normal n and direction v
    (line body angle ``phi1`` [rad], ``axis`` in its frame)."""
    a = math.atan2(axis[1], axis[0]) + phi1
    v = (math.cos(a), math.sin(a))
    return -v[1] * reaction[0] + v[0] * reaction[1], v[0] * reaction[0] + v[1] * reaction[1]


class PlanarRollingDisk(ElementType):
    name = "planar_rolling_disk"
    fields = (BodyRef("body1", "the body (or the ground) carrying the line"),
              PointRef("point1", "a point of the line", body="body1"),
              Direction("axis", "line direction in body1's frame; the disk rolls on its left (perp(axis)) side",
                        noun="line direction"),
              BodyRef("body2", "the disk", moving=True, distinct_from="body1"),
              PointRef("point2", "the disk's centre", body="body2"),
              Length("radius", "disk radius", gt=0.0),
              Flag("unilateral", "the disk may leave the line (the normal force only pushes)", default=False),
              Number("friction_static", "static friction coefficient mu_s (omitted: the disk never slips)", units="-",
                     ge=0.0,
                     default=None),
              Number("friction_kinetic", "kinetic friction coefficient mu_k (omitted: mu_s)", units="-", ge=0.0,
                     default=None),
              Number("restitution", "coefficient of restitution e of a landing (0: plastic, 1: elastic)", units="-",
                     ge=0.0,
                     le=1.0, default=0.0, offer=False))
    components = ("normal", "rolling")
    editor = EditorInfo("Rolling disk", "A disk rolling without slipping on a line: click the disk's centre, then "
                                        "a point of the line (a body or the ground); the line runs along the "
                                        "global x axis", "rolling",
                        palette="planar_rolling_disk", icon="planar_rolling_disk",
                        placement="contact", rank=130)

    def check(self, element: Any, ctx: ParseContext, pointer: str) -> None:
        """mu_k needs mu_s, and at most mu_s."""
        check_friction(element, ctx, pointer, pin=False)

    def contact_options(self, element: Any) -> dict[str, Any] | None:
        """How the contact lets go (``mechstudio.core.contact``): normal row 0, tangential (rolling) row 1; None
        for a disk that always touches and rolls."""
        if not element.unilateral and element.friction_static is None:
            return None
        return {"normal": 0, "tangent": 1, "unilateral": element.unilateral,
                "friction_static": element.friction_static, "friction_kinetic": element.friction_kinetic,
                "restitution": element.restitution}

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        return [DiskOnLineSpec(element.body1, element.point1, element.axis[:2], element.body2, element.point2,
                               element.radius, rolling_offset(element, entities))]

    def reaction_site(self, element: Any, entities: Any) -> ReactionSite:
        return ReactionSite(element.body2, element.point2, 1.0)

    def contact_components(self, element: Any, point: Any, reaction: Any) -> dict[str, float]:
        """normal and friction [N] (CSV reaction.<name>.normal, .friction), see :func:`contact_forces`."""
        o, x = point(element.body1, (0.0, 0.0)), point(element.body1, (1.0, 0.0))
        normal, friction = contact_forces(math.atan2(x[1] - o[1], x[0] - o[0]), element.axis, reaction)
        return {"normal": normal, "friction": friction}


ELEMENT = PlanarRollingDisk()
