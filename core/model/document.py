"""The pure-data :class:`Model`: the validated content of a model file.

A Model wraps the JSON document exactly as it is stored in the file (``model.data``), so that
load → save → load is lossless by construction and the editor can address any value by its JSON pointer.
It is treated as immutable: edits (``mechstudio.core.model.edit``) build a new Model from a copy. Typed, defaulted views
of the content (``model.bodies``, ``model.joints`` ...) are parsed on demand by ``mechstudio.core.model.entities``.
"""
from __future__ import annotations

import copy
import json
from functools import cached_property
from typing import Any

from mechstudio.core.elements.base import GROUND  # reserved body name: the fixed (or prescribed-motion) frame
from mechstudio.core.model.entities import Entities, parse_entities

FORMAT_NAME = "mechanism-studio-model"
FORMAT_VERSION = 1

#: the run length and output interval [s] of a model whose ``simulation`` section does not set them
#: (core.run.settings.SimulationSettings and the loader's output-count check both read these)
SIMULATION_DEFAULTS = {"t_end": 5.0, "dt": 0.01}


class Model:
    """A validated model document. Build it with :func:`mechstudio.core.model.io.load_model` or :func:`from_data`."""

    __slots__ = ("_data", "source", "__dict__")

    def __init__(self, data: dict[str, Any], source: str = "<memory>"):
        self._data = data
        self.source = source

    @property
    def data(self) -> dict[str, Any]:
        """The JSON document. Do not mutate it; use ``mechstudio.core.model.edit`` to make a changed copy."""
        return self._data

    def copy_data(self) -> dict[str, Any]:
        return copy.deepcopy(self._data)

    def to_json(self, indent: int = 2) -> str:
        return json.dumps(self._data, indent=indent, ensure_ascii=False, allow_nan=False) + "\n"

    @property
    def name(self) -> str:
        return str(self._data.get("name", ""))

    @property
    def description(self) -> str:
        return str(self._data.get("description", ""))

    @property
    def kind(self) -> str:
        return str(self._data.get("kind", "planar"))

    @cached_property
    def entities(self) -> Entities:
        return parse_entities(self._data)

    @property
    def bodies(self) -> "tuple[Any, ...]":
        return self.entities.bodies

    @property
    def joints(self) -> "tuple[Any, ...]":
        return self.entities.joints

    @property
    def drivers(self) -> "tuple[Any, ...]":
        return self.entities.drivers

    @property
    def forces(self) -> "tuple[Any, ...]":
        return self.entities.forces

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Model) and self._data == other._data

    def __hash__(self) -> int:  # identity-free: equal documents hash alike
        return hash(json.dumps(self._data, sort_keys=True))

    def __repr__(self) -> str:
        return f"Model({self.name!r}, {len(self._data.get('bodies', []))} bodies, source={self.source!r})"


def empty_model_data(name: str = "untitled", kind: str = "planar") -> dict[str, Any]:
    """The document of a new, empty model."""
    gravity = [0.0, -9.81] if kind == "planar" else [0.0, 0.0, -9.81]
    return {"format": FORMAT_NAME, "version": FORMAT_VERSION, "name": name, "kind": kind,
            "gravity": gravity, "ground": {"points": {}}, "bodies": [], "joints": [], "drivers": [],
            "forces": []}
