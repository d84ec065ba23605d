"""The JSON Schema (draft 2020-12) of the model file: core/model/schema.json holds everything but the element
types; each section's ``type`` enum and its per-type branches (``allOf``: if ``type`` is T, then exactly T's
fields) are generated from the element types' field declarations (core/elements/<type>.py,
:meth:`~core.elements.base.ElementType.schema_branch`). A new element module is thereby a new schema branch;
tests/test_model_schema.py checks the branches against the declarations.
"""
from __future__ import annotations

import copy
import json
from functools import lru_cache
from importlib import resources
from typing import Any

from mechstudio.core.elements import element_types

#: schema definition of each section's items
DEFINITIONS = {"joints": "joint", "drivers": "driver", "forces": "force"}


@lru_cache(maxsize=1)
def base_schema() -> dict[str, Any]:
    """core/model/schema.json as stored (the element sections without their types)."""
    text = resources.files("mechstudio.core.model").joinpath("schema.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


@lru_cache(maxsize=1)
def model_schema() -> dict[str, Any]:
    """The complete schema: the stored one with every element type's branch (module docstring)."""
    schema = copy.deepcopy(base_schema())
    for section, definition in DEFINITIONS.items():
        types = element_types(section)
        node = schema["$defs"][definition]
        node.setdefault("properties", {})["type"] = {"enum": [et.name for et in types]}
        node["allOf"] = [et.schema_branch() for et in types]
    return schema


__all__ = ["DEFINITIONS", "base_schema", "model_schema"]
