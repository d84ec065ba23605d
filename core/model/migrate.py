"""Upgrades of older model documents to the current format version, applied before schema validation.

Each entry of ``MIGRATIONS`` maps a version v to a function that turns a version-v document into a version-v+1
document (pure, returns a new dict). Version 1 is the first format, so there is nothing to upgrade yet; when the
format changes incompatibly, bump ``FORMAT_VERSION`` in ``mechstudio.core.model.document`` and add the step here, with a
test that an old file still loads.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

from mechstudio.core.model.document import FORMAT_VERSION

MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """Return ``data`` upgraded to ``FORMAT_VERSION`` (``data`` itself when it is already current)."""
    version = data.get("version")
    if not isinstance(version, int) or version >= FORMAT_VERSION:
        return data
    out = copy.deepcopy(data)
    while out["version"] < FORMAT_VERSION:
        step = MIGRATIONS.get(out["version"])
        if step is None:  # io.validate_data refuses such versions first, with a diagnostic
            raise ValueError(f"no upgrade from format version {out['version']}")
        out = step(out)
    return out
