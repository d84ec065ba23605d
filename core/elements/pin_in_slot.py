"""Pin in a slot (planar; 1 row normal): a point of body 2 (the pin, ``point2``) stays on the line of a slot
fixed in body 1 (through ``point1`` along ``axis``, body 1's frame); it slides along the slot and turns freely.
One point-line row along the slot's normal n' = perp(axis), [003] local method:

    (A_1 n')^T (r_2 + A_2 s_2 - r_1 - A_1 s_1) = 0.

``length`` [m] (optional) is the slot's length centred on point1: drawn by the editor and the 3D view only --
the equation does not stop the pin at the slot's ends.

Reaction: reported on the pin's body at the pin (on the slot's body at point1, sign -1, when the pin is on the
ground: still the force on the pin); a slot without friction carries only a force along its normal, whose
size is the row's multiplier. ``normal`` [N] (CSV ``reaction.<name>.normal``) is that force on the pin along
n = A_1 perp(axis) / |axis|, the normal on the left of the slot direction (positive: the slot pushes the pin
to the left of ``axis``).

Optional Coulomb friction (``friction_static``, ``friction_kinetic``; core/elements/joint_friction.py, docs/contact.md
"Joint friction"): a friction force of size mu |N| along the slot opposing the pin's sliding, acting on the pin at
point2 (on the slot's body, opposite, at the same place), reported in the joint's ``Fx``, ``Fy`` (``normal`` stays
the component along the slot's normal); the pin turns freely (no friction moment). Without friction the slot is
frictionless and the reported force is along its normal.
"""
from __future__ import annotations

import math
from typing import Any

from mechstudio.core.elements.base import EditorInfo
from mechstudio.core.elements.fields import BodyRef, Direction, Length, PointRef
from mechstudio.core.elements.joint_friction import SlidingFrictionJoint, friction_fields
from mechstudio.core.elements.primitives.point_line import PointLineSpec


class PinInSlot(SlidingFrictionJoint):
    name = "pin_in_slot"
    fields = (BodyRef("body1", "the body (or the ground) with the slot"),
              PointRef("point1", "the slot's centre", body="body1"),
              BodyRef("body2", "the body with the pin", distinct_from="body1"),
              PointRef("point2", "the pin", body="body2"),
              Direction("axis", "slot direction in body1's frame", noun="slot direction"),
              Length("length", "slot length, centred on point1; drawing only", gt=0.0, default=0.0, offer=False),
              *friction_fields(pin=False))
    components = ("normal",)
    editor = EditorInfo("Pin in slot", "A pin of one body in a slot of another body (or of the ground) along the "
                                       "global x axis at the drop point: slides and turns", "slot",
                        palette="pin_in_slot", icon="pin_in_slot",
                        placement="connector", rank=40)

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        ax = element.axis
        return [PointLineSpec(element.body1, element.point1, (-ax[1], ax[0]), element.body2, element.point2)]

    def contact_components(self, element: Any, point: Any, reaction: Any) -> dict[str, float]:
        """normal [N] (CSV reaction.<name>.normal): the reported force on the pin along the slot's left normal
        A_1 perp(axis) / |axis| (module docstring)."""
        o, x = point(element.body1, (0.0, 0.0)), point(element.body1, (1.0, 0.0))
        c, s = x[0] - o[0], x[1] - o[1]  # A_1 (1, 0): cos and sin of body1's angle
        ax = element.axis
        size = math.hypot(ax[0], ax[1])
        n = (-(s * ax[0] + c * ax[1]) / size, (c * ax[0] - s * ax[1]) / size)  # A_1 perp(axis) / |axis|
        return {"normal": n[0] * float(reaction[0]) + n[1] * float(reaction[1])}


ELEMENT = PinInSlot()
