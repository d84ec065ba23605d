"""File → Export drawing…: the mechanism at the shown time, with the traces of the ticked points, to SVG or DXF.

What is drawn is what the canvas shows: with results of a run (not stale), the configuration at the time bar's
time and each ticked point's trace up to that time (scrub to the end for the whole coupler curve); without
results, the assembled initial pose and no traces. The file is written by ``mechstudio.core.drawing.export_drawing``
(docs/points-api.md, docs/drawings.md): bodies as outlines, joints as symbols, traces as polylines, metres, a layer
per body.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

DRAWING_FILTER = "SVG drawing (*.svg);;DXF drawing (*.dxf)"
SUFFIXES = (".svg", ".dxf")


@dataclass(frozen=True)
class DrawingInput:
    """What a drawing shows: the compiled system, the configuration q, the traces by ``body.point`` name (world
    positions (F, dim) [m]), the time t [s] (None: the initial pose, no run) and a note for the status bar."""

    system: Any
    q: np.ndarray
    traces: dict[str, np.ndarray]
    t: float | None
    note: str


def drawing_input(window: Any) -> DrawingInput:
    """The shown state of ``window`` (a MainWindow, with or without the live view); ValueError when there is
    nothing to draw (an empty or unassembled model)."""
    live = getattr(window, "live", None)
    c = getattr(live, "controller", None)
    if c is not None and len(c.buffer) and c.poser is not None and c.system is not None and not c.stale:
        t = float(c.clock.t)
        i, j, s = c.buffer.index_at(t)
        q_all = c.buffer.field("q")
        q = c.poser.interpolate(q_all[i], q_all[j], s)
        traces = {line.label: np.asarray(line.points, float) for line in live.point_traces.lines(t)}
        note = f"t = {t:.3f} s, {len(traces)} trace{'s' if len(traces) != 1 else ''}"
        return DrawingInput(c.system, np.asarray(q, float), traces, t, note)
    a = window.document.analysis
    if not window.document.model.data.get("bodies"):
        raise ValueError("the model has no bodies: there is nothing to draw")
    if a.system is None or a.q is None or not a.assembled:
        raise ValueError("the mechanism is not assembled (see the status bar): fix it, then export the drawing")
    why = "results are stale: run again for traces" if c is not None and c.stale and len(c.buffer) else \
        "no run yet: no traces"
    return DrawingInput(a.system, np.asarray(a.q, float), {}, None, f"initial pose ({why})")


def normalized_path(path: str, selected_filter: str = "") -> str:
    """``path`` with a drawing suffix: the one typed, else the one of the chosen filter (SVG by default)."""
    if Path(path).suffix.lower() in SUFFIXES:
        return path
    return path + (".dxf" if "dxf" in selected_filter.lower() else ".svg")


def write_drawing(window: Any, path: str) -> DrawingInput:
    """Write the shown state of ``window`` to ``path`` (.svg or .dxf); the input drawn."""
    from mechstudio.core.drawing import export_drawing
    what = drawing_input(window)
    name = window.document.model.name or "mechanism"
    title = f"{name}, t = {what.t:.3f} s" if what.t is not None else f"{name}, initial pose"
    export_drawing(path, what.system, what.q, what.traces or None, title=title)
    return what
