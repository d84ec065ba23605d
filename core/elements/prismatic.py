"""Prismatic joint (planar; 2 rows angle, normal): body 2 slides along ``axis`` (body 1's frame) without
turning -- a constant relative angle and the point of body 2 on the line through body 1's point along the
axis (a point-line row along the axis' normal), [003] local method.

Optional Coulomb friction (``friction_static``, ``friction_kinetic``; core/elements/joint_friction.py, docs/contact.md
"Joint friction"): a friction force of size mu |N| along the axis opposing the relative sliding, N the guide's normal
force (the normal row's force; the guide's reaction moment carries no friction), acting on body2 at point2 (on
body1, opposite, at the same place); reported in the joint's ``Fx``, ``Fy``."""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import EditorInfo
from mechstudio.core.elements.fields import Angle, BodyRef, Direction, PointRef
from mechstudio.core.elements.joint_friction import SlidingFrictionJoint, friction_fields
from mechstudio.core.elements.primitives.point_line import PointLineSpec
from mechstudio.core.elements.primitives.relative_angle import RelativeAngleSpec


class Prismatic(SlidingFrictionJoint):
    name = "prismatic"
    fields = (BodyRef("body1"), PointRef("point1", body="body1"),
              BodyRef("body2", distinct_from="body1"), PointRef("point2", body="body2"),
              Direction("axis", "sliding direction in body1's frame", noun="sliding axis"),
              Angle("angle", "phi2 - phi1, held constant", default=0.0),
              *friction_fields(pin=False))
    components = ("angle", "normal")
    editor = EditorInfo("Prismatic joint", "Slider along the global x axis at the drop point", "slider",
                        palette="prismatic", icon="prismatic",
                        placement="connector", rank=20)

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        ax = element.axis
        return [RelativeAngleSpec(element.body1, element.body2, float(element.angle)),
                PointLineSpec(element.body1, element.point1, (-ax[1], ax[0]), element.body2, element.point2)]


ELEMENT = Prismatic()
