"""The element registry: every joint, driver, contact and force type, each defined once in its own module.

``BUILT_INS`` lists the types by section without importing them: they are the ``type`` enums of the model
schema (core/model/schema.json), so a new type is declared once there; :func:`element_type` imports the type's
module core/elements/<type>.py on first use and returns its :class:`~core.elements.base.ElementType`.
Every backend (planar and spatial compilation, symbolic models, reactions, editor placement, 2D and 3D
drawing) dispatches through it; an unknown type raises :class:`~core.errors.UnknownNameError` naming the type
and the valid ones.
See docs/elements.md for the "add a joint type" recipe.
"""
from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

from mechstudio.core.elements.base import ElementType, ReactionSite
from mechstudio.core.errors import UnknownNameError

SCHEMA = Path(__file__).resolve().parents[1] / "model" / "schema.json"
#: schema definition of each section's items
DEFINITIONS = {"joints": "joint", "drivers": "driver", "forces": "force"}


def _schema_types() -> dict[str, tuple[str, ...]]:
    definitions = json.loads(SCHEMA.read_text(encoding="utf-8"))["$defs"]
    return {section: tuple(definitions[d]["properties"]["type"]["enum"]) for section, d in DEFINITIONS.items()}


#: section -> element type names, from the schema (each is implemented by module core.elements.<name>)
BUILT_INS: dict[str, tuple[str, ...]] = _schema_types()
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
        try:
            module = importlib.import_module(f"mechstudio.core.elements.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"mechstudio.core.elements.{name}":
                raise
            raise NotImplementedError(f"element type {name!r} is in the model schema but has no module "
                                      f"core/elements/{name}.py") from None
        et = _LOADED[name] = module.ELEMENT
        if et.name != name:
            raise ValueError(f"core/elements/{name}.py defines element type {et.name!r}, not {name!r}")
    return et


def of(element: Any, section: str) -> ElementType:
    """The type of a parsed model element (``mechstudio.core.model.entities`` Joint, Driver or Force)."""
    return element_type(element.type, section)


__all__ = ["BUILT_INS", "ElementType", "ReactionSite", "element_names", "element_type", "of"]
