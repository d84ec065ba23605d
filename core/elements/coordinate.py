"""Coordinate driver (planar; 1 row named after the coordinate): x, y or phi of a body's centre of mass
follows f(t) -- the coordinate-driver primitive, [003]. Reported on the body about its centre of mass."""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import GROUND, EditorInfo, ElementType, ReactionSite
from mechstudio.core.elements.fields import BodyRef, Choice, TimeFunction
from mechstudio.core.elements.primitives.coordinate_driver import CoordinateDriverSpec


class Coordinate(ElementType):
    name = "coordinate"
    section = "drivers"
    fields = (BodyRef("body", "the driven body", moving=True),
              Choice("coordinate", "the driven coordinate of its centre of mass", values=("x", "y", "phi")),
              TimeFunction("function", "the coordinate as a function of time [m, or rad for phi]"))
    components = ("coordinate",)  # the row is labelled with the driven coordinate (x, y or phi)
    editor = EditorInfo("Coordinate driver", "Prescribed body coordinate", "motor",
                        no_palette="written in the model file or the properties panel")

    def row_components(self, element: Any) -> tuple[str, ...]:
        return (element.coordinate,)

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        return [CoordinateDriverSpec(element.body, element.coordinate, element.function)]

    def bodies(self, element: Any, entities: Any) -> tuple[str, str]:
        return GROUND, element.body

    def reaction_site(self, element: Any, entities: Any) -> ReactionSite:
        return ReactionSite(element.body, None, 1.0)


ELEMENT = Coordinate()
