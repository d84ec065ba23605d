"""The element registry: every joint, driver, contact and force type, each defined once in its own module.

An element type is the module core/elements/<type>.py that defines ``ELEMENT``, an
:class:`~core.elements.base.ElementType` named ``<type>`` (see docs/elements.md): adding that module is what
declares the type. :func:`element_names` lists them by section (found once, by importing the package's
modules); :func:`element_type` returns one. Every backend (loading and the model schema, planar and spatial
compilation, symbolic models, reactions, editing, the inspector, editor placement, 2D and 3D drawing)
dispatches through it; an unknown type raises :class:`~core.errors.UnknownNameError` naming the type and the
valid ones.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from mechstudio.core.elements.base import ElementType, ReactionSite
from mechstudio.core.errors import UnknownNameError

SECTIONS = ("joints", "drivers", "forces")
#: what an element of each section is called in messages
WHAT = {"joints": "joint type", "drivers": "driver type", "forces": "force type"}
_FOUND: dict[str, ElementType] = {}


def _registry() -> dict[str, ElementType]:
    """name -> element type of every module of this package that defines ``ELEMENT`` (found on first use)."""
    if not _FOUND:
        found = {}
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
            if info.ispkg:
                continue
            module = importlib.import_module(f"{__name__}.{info.name}")
            et = getattr(module, "ELEMENT", None)
            if et is None:
                continue
            if not isinstance(et, ElementType) or et.name != info.name:
                raise ValueError(f"core/elements/{info.name}.py: ELEMENT must be the ElementType named "
                                 f"{info.name!r}, got {et!r}")
            if et.section not in SECTIONS:
                raise ValueError(f"core/elements/{info.name}.py: section {et.section!r} is not one of {SECTIONS}")
            found[et.name] = et
        _FOUND.update(found)
    return _FOUND


def element_names(section: str | None = None) -> list[str]:
    """Registered type names (of one section, or all), in section order, then by name."""
    reg = _registry()
    sections = SECTIONS if section is None else (section,)
    return [n for s in sections for n in sorted(reg) if reg[n].section == s]


def element_type(name: str, section: str | None = None) -> ElementType:
    """The element type ``name`` (checked to belong to ``section`` when given)."""
    et = _registry().get(name)
    if et is None or (section is not None and et.section != section):
        raise UnknownNameError(WHAT.get(section or "", "element type"), name, element_names(section))
    return et


def element_types(section: str | None = None) -> list[ElementType]:
    """Every registered element type (of one section, or all), in :func:`element_names` order."""
    return [element_type(n) for n in element_names(section)]


def of(element: Any, section: str) -> ElementType:
    """The type of a parsed model element (a record made by its type's ``parse``)."""
    return element_type(element.type, section)


def __getattr__(name: str) -> Any:
    if name == "BUILT_INS":  # section -> type names, as the registry finds them
        return {s: tuple(element_names(s)) for s in SECTIONS}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ElementType", "ReactionSite", "SECTIONS", "element_names", "element_type", "element_types", "of"]
