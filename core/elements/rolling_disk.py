"""Rolling disk (spatial; 1 holonomic row z + 2 nonholonomic rows x, y): a thin disk of ``radius`` [m] rolling without
slipping on the (possibly moving) plane z = 0 -- the example of [001], compiled by core/systems/spatial.py.
Its reaction (the contact force) is reported on the disk."""
from __future__ import annotations

from typing import Any

from mechstudio.core.elements.base import GROUND, EditorInfo, ElementType, OneBody, ReactionSite
from mechstudio.core.elements.fields import BodyRef, Length


class RollingDisk(ElementType):
    name = "rolling_disk"
    dimension = "spatial"
    fields = (BodyRef("body", "the disk", moving=True), Length("radius", "disk radius", gt=0.0))
    record_bases = (OneBody,)
    components = ("z", "x", "y")  # contact height (holonomic), rolling without slip in x and y
    holonomic = False
    editor = EditorInfo("Rolling disk", "Disk rolling without slipping on the ground plane", "disk",
                        no_palette="rolling disks are written in the model file (spatial models)")

    def bodies(self, element: Any, entities: Any) -> tuple[str, str]:
        return GROUND, element.body

    def reaction_site(self, element: Any, entities: Any) -> ReactionSite:
        return ReactionSite(element.body, None, 1.0)


ELEMENT = RollingDisk()
