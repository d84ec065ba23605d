"""Drawings of a mechanism: the canvas geometry (:mod:`mechstudio.core.drawing.scene`) and its export to SVG and DXF.

* :mod:`mechstudio.core.drawing.scene` — world-space geometry of a posed model (what the 2D canvas draws and picks);
* :mod:`mechstudio.core.drawing.sheet` — a backend-neutral drawing: layers of outlines, circles, segments and traces [m];
* :mod:`mechstudio.core.drawing.build` — the drawing of a configuration q with point traces;
* :mod:`mechstudio.core.drawing.svg`, :mod:`mechstudio.core.drawing.dxf` — the writers (DXF through ezdxf).

:func:`export_drawing` is the one call the GUI and the ``draw`` command make (docs/drawings.md,
docs/points-api.md). The writers are looked up lazily by format name (``DRAWING_WRITERS``), so importing this
package does not import ezdxf.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

from mechstudio.core.drawing.build import build_drawing
from mechstudio.core.drawing.sheet import Drawing
from mechstudio.core.model.io import atomic_write_text
from mechstudio.core.registry import LazyRegistry
from mechstudio.core.types import FloatArray

#: format name -> writer ``(Drawing) -> str`` (imported on first use)
DRAWING_WRITERS: LazyRegistry[Any] = LazyRegistry("drawing format", {
    "svg": "mechstudio.core.drawing.svg:drawing_to_svg",
    "dxf": "mechstudio.core.drawing.dxf:drawing_to_dxf",
})
DRAWING_FORMATS = tuple(DRAWING_WRITERS)


def drawing_format(path: str | os.PathLike[str], fmt: str | None = None) -> str:
    """``fmt`` or the format named by the suffix of ``path`` (``.svg``, ``.dxf``, any case); raises
    :class:`~core.errors.UnknownNameError` (a KeyError) naming the valid formats."""
    name = (fmt or Path(path).suffix.lstrip(".")).lower()
    DRAWING_WRITERS[name]  # raises UnknownNameError with the valid names
    return name


def drawing_text(drawing: Drawing, fmt: str) -> str:
    """The file content (text) of ``drawing`` in format ``fmt`` (``svg`` or ``dxf``)."""
    return str(DRAWING_WRITERS[fmt](drawing))


def export_drawing(path: str | os.PathLike[str], system: Any, q: FloatArray,
                   traces: Mapping[str, FloatArray] | None = None, *, fmt: str | None = None,
                   title: str = "") -> None:
    """Write the drawing of ``system`` at coordinates q (n,) with ``traces`` ``{"body.point": (F, dim) world
    positions [m]}`` to ``path`` atomically, in the format of its suffix (or ``fmt``).

    Raises UnknownNameError for an unknown format and OSError when the file cannot be written (the target is
    then untouched)."""
    name = drawing_format(path, fmt)
    atomic_write_text(path, drawing_text(build_drawing(system, q, traces, title), name))


__all__ = ["DRAWING_FORMATS", "DRAWING_WRITERS", "Drawing", "build_drawing", "drawing_format", "drawing_text",
           "export_drawing"]
