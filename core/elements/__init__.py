"""The element registry: every joint, driver, contact and force type, each defined once in its own module.

``BUILT_INS`` lists the built-in types by section without importing them; :func:`element_type` imports a
type's module on first use and returns its :class:`~core.elements.base.ElementType`. Every backend (planar and
spatial compilation, symbolic models, reactions, editor placement, 2D and 3D drawing) dispatches through it;
an unknown type raises :class:`~core.errors.UnknownNameError` naming the type and the valid ones.
See docs/elements.md for the "add a joint type" recipe.
"""
from __future__ import annotations

import importlib
from typing import Any

from core.elements.base import ElementType, ReactionSite
from core.errors import UnknownNameError

#: section -> built-in element type names (each is module core.elements.<name>)
BUILT_INS: dict[str, tuple[str, ...]] = {
    "joints": ("revolute", "prismatic", "weld", "pin_in_slot", "knife_edge", "spherical", "rolling_disk"),
    "drivers": ("joint_angle", "joint_distance", "coordinate"),
    "forces": ("spring_damper", "rotational_spring_damper", "applied_force", "applied_torque"),
}
_LOADED: dict[str, ElementType] = {}


def element_names(section: str | None = None) -> list[str]:
    """Registered type names (of one section, or all)."""
    if section is None:
        return [n for names in BUILT_INS.values() for n in names]
    return list(BUILT_INS[section])


def element_type(name: str, section: str | None = None) -> ElementType:
    """The element type ``name`` (checked to belong to ``section`` when given)."""
    valid = element_names(section)
    if name not in valid:
        what = {"joints": "joint type", "drivers": "driver type", "forces": "force type"}.get(section or "",
                                                                                              "element type")
        raise UnknownNameError(what, name, valid)
    et = _LOADED.get(name)
    if et is None:
        et = _LOADED[name] = importlib.import_module(f"core.elements.{name}").ELEMENT
    return et


def of(element: Any, section: str) -> ElementType:
    """The type of a parsed model element (``core.model.entities`` Joint, Driver or Force)."""
    return element_type(element.type, section)


__all__ = ["BUILT_INS", "ElementType", "ReactionSite", "element_names", "element_type", "of"]
