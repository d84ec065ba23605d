"""Pin in a slot (planar; 1 row normal): a point of body 2 (the pin, ``point2``) stays on the line of a slot
fixed in body 1 (through ``point1`` along ``axis``, body 1's frame); it slides along the slot and turns freely.
One point-line row along the slot's normal n' = perp(axis), [003] local method:

    (A_1 n')^T (r_2 + A_2 s_2 - r_1 - A_1 s_1) = 0.

``length`` [m] (optional) is the slot's length centred on point1: drawn by the editor and the 3D view only --
the equation does not stop the pin at the slot's ends.
"""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import EditorInfo, ElementType
from mechstudio.core.elements.primitives.point_line import PointLineSpec


class PinInSlot(ElementType):
    name = "pin_in_slot"
    fields = ("body1", "point1", "body2", "point2", "axis", "length")
    components = ("normal",)
    editor = EditorInfo("Pin in slot", "A pin of one body in a slot of another body (or of the ground) along the "
                                       "global x axis at the drop point: slides and turns", "slot",
                        palette="pin_in_slot", icon="pin_in_slot")

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        ax = element.axis
        return [PointLineSpec(element.body1, element.point1, (-ax[1], ax[0]), element.body2, element.point2)]


ELEMENT = PinInSlot()
