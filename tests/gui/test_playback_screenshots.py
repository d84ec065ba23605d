"""Screenshots of the live simulation in the main window (README "Live simulation"): the rolling disk while it
runs (progress with ETA on the time bar) and the spatial chain after a run, stepped back a few frames, with trails.
Written to docs/screenshots/ with MECHSTUDIO_UPDATE_SCREENSHOTS=1 (take them on a 1600×1000 Xvfb screen:
``xvfb-run -s "-screen 0 1600x1000x24"``), otherwise to a temporary folder. The screen is grabbed (the 3D view is
a native GL window that a widget grab does not see); each picture must show the mechanism and the plots."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.gui.conftest import SAMPLES
from tests.gui.document_helpers import close_live_window, open_live_window, screen_shot

pytestmark = pytest.mark.gui


@pytest.fixture
def live_window(qtbot: Any, messenger: Any, qapp: Any, require_gl: None, monkeypatch: pytest.MonkeyPatch) -> Any:
    avail = qapp.primaryScreen().availableGeometry()
    w = open_live_window(qtbot, messenger, monkeypatch, min(1600, avail.width()), min(1000, avail.height()),
                         str(SAMPLES / "four_bar.json"))
    yield w
    close_live_window(w)


def region_colours(path: Path, widget: Any, window: Any) -> int:
    """Distinct colours in the part of the screenshot covered by ``widget`` (a blank area has one or two)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QImage
    img = QImage(str(path))
    tl = widget.mapTo(window, QPoint(0, 0))
    colours = set()
    for y in range(tl.y() + 5, tl.y() + widget.height() - 5, 4):
        for x in range(tl.x() + 5, tl.x() + widget.width() - 5, 4):
            colours.add(img.pixel(x, y))
    return len(colours)


def test_screenshot_rolling_disk_running(qtbot: Any, qapp: Any, live_window: Any) -> None:
    w = live_window
    assert w.open_file(str(SAMPLES / "rolling_disk_accelerating_plane.json"), ask=False)
    c = w.live.controller
    c.set_overrides(t_end=8.0, dt=0.01)
    w.live.act_trails.setChecked(True)
    w.live.act_run.trigger()
    qtbot.waitUntil(lambda: c.clock.t > 2.4 or c.state not in ("running", "finished"), timeout=120000)
    assert c.state in ("running", "finished"), (c.state, c.last_error)
    c.show_time(2.4)
    qtbot.wait(300)
    path = screen_shot(qapp, w, "live_rolling_disk.png")
    assert region_colours(path, w.live.container, w) > 20, "the 3D view is blank"
    assert region_colours(path, w.live.plots, w) > 20, "the plots are blank"
    w.live.act_stop.trigger()
    qtbot.waitUntil(lambda: c.state in ("stopped", "finished"), timeout=10000)


def test_screenshot_spherical_chain_stepped(qtbot: Any, qapp: Any, live_window: Any) -> None:
    w = live_window
    assert w.open_file(str(SAMPLES / "spherical_chain_3.json"), ask=False)
    c = w.live.controller
    c.set_overrides(t_end=3.0)
    w.live.act_trails.setChecked(True)
    w.live.act_run.trigger()
    qtbot.waitUntil(lambda: c.state == "finished", timeout=240000)
    qtbot.waitUntil(lambda: not c.clock.playing and not c.plot_timer.isActive(), timeout=30000)
    for _ in range(25):
        w.live.act_step_back.trigger()
    assert c.clock.t == pytest.approx(c.buffer.t[-26])
    qtbot.wait(300)
    path = screen_shot(qapp, w, "live_spherical_chain.png")
    assert region_colours(path, w.live.container, w) > 20, "the 3D view is blank"
    assert region_colours(path, w.live.plots, w) > 20, "the plots are blank"
    assert np.isclose(w.live.plots.energy.cursor.value(), c.clock.t)
