"""The 2D canvas moves with a run, as the 3D view does: during playback and scrubbing the canvas draws every body
at q(t) of the displayed time t, and the model's own pose again when the results are cleared or the model is
edited.

The check is independent of the drawing code: each bar's end points are computed here from the run's coordinates
(planar bodies: q holds the centre of mass r and the angle phi; a body-frame point s' is at
r + A(phi) (s' - c'), [003], as in core/systems/points.py) and compared with the end points of the path item that draws
the bar on the canvas. Tolerance 1e-9 m: both are the same double-precision numbers up to a few roundings.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import SAMPLES
from tests.gui.document_helpers import close_live_window, open_live_window

pytestmark = pytest.mark.gui
TOL_M = 1e-9



@pytest.fixture
def four_bar(tmp_path: Path) -> Path:
    data = json.loads((SAMPLES / "four_bar.json").read_text())
    data.setdefault("simulation", {}).update(t_end=1.0, dt=0.02)
    path = tmp_path / "four_bar_1s.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def live_window(qtbot: Any, messenger: Any, require_gl: None, monkeypatch: pytest.MonkeyPatch,
                four_bar: Path) -> Any:
    w = open_live_window(qtbot, messenger, monkeypatch, 1280, 820, str(four_bar))
    yield w
    close_live_window(w)


def expected_bar_ends(model_data: dict[str, Any], coord_names: list[str], q: np.ndarray) -> dict[str, np.ndarray]:
    """World positions (2, 2) of the ends a, b of every bar body at coordinates q."""
    out = {}
    for b in model_data["bodies"]:
        name = b["name"]
        x, y, phi = (q[coord_names.index(f"{name}.{c}")] for c in ("x", "y", "phi"))
        A = np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])
        com = np.array(b["com"], float)
        pts = [np.array(b["points"][k], float) for k in ("a", "b")]
        out[name] = np.array([np.array([x, y]) + A @ (s - com) for s in pts])
    return out


def drawn_bar_ends(canvas: Any, body: str) -> np.ndarray:
    """The end points (2, 2) of the path item that draws ``body``'s bar, in world (scene) coordinates."""
    from PySide6.QtWidgets import QGraphicsPathItem
    items = [i for i in canvas.body_items(body) if isinstance(i, QGraphicsPathItem)]
    assert len(items) == 1, f"{body}: {len(items)} bar items"
    path = items[0].path()
    ends = [items[0].mapToScene(path.elementAt(k).x, path.elementAt(k).y) for k in (0, path.elementCount() - 1)]
    return np.array([[p.x(), p.y()] for p in ends])


def assert_canvas_at(canvas: Any, model_data: dict[str, Any], coord_names: list[str], q: np.ndarray) -> None:
    for body, ends in expected_bar_ends(model_data, coord_names, q).items():
        drawn = drawn_bar_ends(canvas, body)
        assert np.abs(drawn - ends).max() < TOL_M, (body, drawn, ends)


def test_canvas_follows_playback_and_scrubbing(qtbot: Any, live_window: Any) -> None:
    w = live_window
    c, canvas = w.live.controller, w.canvas
    model_q = np.asarray(w.document.analysis.q, float)
    assert canvas.shown_time is None
    w.live.act_run.trigger()
    qtbot.waitUntil(lambda: c.state == "finished", timeout=60000)
    qtbot.waitUntil(lambda: not c.clock.playing, timeout=20000)
    data, names = c.system.model.data, list(c.system.coord_names)
    q_frames = c.buffer.field("q")
    assert len(c.buffer) == 51
    # the animation ended on the last frame: the canvas shows it, like the 3D view
    qtbot.waitUntil(lambda: canvas.shown_time == pytest.approx(c.buffer.t_latest), timeout=5000)
    assert_canvas_at(canvas, data, names, q_frames[-1])
    # scrubbing (what dragging the time slider does): every shown frame is the buffer's q at that time
    for k in (0, 7, 25, 50):
        t = float(c.buffer.t[k])
        c.seek(t)
        assert canvas.shown_time == pytest.approx(t) and c.view.current_t == pytest.approx(t)
        assert_canvas_at(canvas, data, names, q_frames[k])
    assert np.abs(q_frames[25] - model_q).max() > 0.1, "the four-bar must have moved for this test to mean much"
    # playback: whatever time the canvas shows, it shows q(t) there (between frames: interpolated as the 3D view)
    seen: list[float] = []

    def sample() -> bool:
        t = canvas.shown_time
        if t is not None and 0.0 < t < c.buffer.t_latest and (not seen or t != seen[-1]):
            assert_canvas_at(canvas, data, names, w.live.canvas_motion.configuration(t))
            i, j, s = c.buffer.index_at(t)
            assert c.buffer.t[i] <= t <= c.buffer.t[j]
            seen.append(t)
        return len(seen) >= 5

    c.replay()
    qtbot.waitUntil(sample, timeout=20000)
    qtbot.waitUntil(lambda: not c.clock.playing, timeout=20000)
    # Reset drops the results: the model's pose again
    w.live.act_reset.trigger()
    assert canvas.shown_time is None
    assert_canvas_at(canvas, w.document.model.data, names, model_q)


def test_an_edit_shows_the_models_pose(qtbot: Any, live_window: Any) -> None:
    from mechstudio.core.model import edit
    w = live_window
    c, canvas = w.live.controller, w.canvas
    w.live.act_run.trigger()
    qtbot.waitUntil(lambda: c.state == "finished" and not c.clock.playing, timeout=60000)
    c.seek(0.5)
    assert canvas.shown_time == pytest.approx(0.5)
    names = list(c.system.coord_names)
    new = edit.set_value(w.document.model, edit.element_pointer(w.document.model, "bodies", "crank") + "/mass", 2.0)
    w.document.push_edit(new, "crank mass")
    assert c.stale and canvas.shown_time is None
    assert_canvas_at(canvas, w.document.model.data, names, np.asarray(w.document.analysis.q, float))
    c.seek(0.3)  # stale results are not drawn on the canvas (the edit is what the user looks at)
    assert canvas.shown_time is None
    w.document.undo_stack.undo()  # back to the run's mechanism: its results are valid again and shown
    assert not c.stale
    c.seek(0.3)
    assert canvas.shown_time == pytest.approx(0.3)


def test_placing_an_element_shows_the_models_pose(qtbot: Any, live_window: Any) -> None:
    w = live_window
    c, canvas = w.live.controller, w.canvas
    w.live.act_run.trigger()
    qtbot.waitUntil(lambda: c.state == "finished" and not c.clock.playing, timeout=60000)
    c.seek(0.5)
    assert canvas.shown_time == pytest.approx(0.5)
    canvas.arm("ground")
    assert canvas.shown_time is None
    c.seek(0.6)  # while a tool is armed the model's pose stays
    assert canvas.shown_time is None
    canvas.cancel()
    c.seek(0.6)
    assert canvas.shown_time == pytest.approx(0.6)
