"""Save keeps what the user made: after a run, Ctrl+S (a new file, then the same file again) leaves the results
(buffer frames, plot curves, the traces of ticked points), the shown time and the canvas's framing as they were;
and opening Help → Keyboard shortcuts before saving no longer deletes the recent-files menu (the internal error
"Internal C++ object (QMenu) already deleted" at every Save). Real key presses and clicks."""
from __future__ import annotations

import gc
import json
from typing import Any

import numpy as np
import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import SAMPLES
from tests.gui.document_helpers import press, run_to_end, start_window

pytestmark = pytest.mark.gui
CTRL = Qt.KeyboardModifier.ControlModifier


def plot_state(w: Any) -> dict[str, list[tuple[str, int]]]:
    """Every plot's curves: (name, number of points)."""
    return {k: [(n, len(c.getOriginalDataset()[0])) for n, c in p.curves.items()]
            for k, p in w.live.plots.plots.items()}


def test_save_keeps_the_run_its_plots_traces_time_and_view(qtbot: Any, messenger: Any,
                                                           monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    w = start_window(qtbot, messenger, monkeypatch, (1366, 768), str(SAMPLES / "four_bar.json"))
    c = w.live.controller
    c.set_overrides(t_end=0.5)
    w.outline.point_item(("coupler", "b")).setCheckState(0, Qt.CheckState.Checked)  # traced (an edit)
    run_to_end(qtbot, w)
    c.show_time(0.25)  # the user scrubbed to 0.25 s
    qtbot.waitUntil(lambda: bool(w.canvas.point_traces))
    frames, t_last = len(c.buffer), c.buffer.t_latest
    q = c.buffer.field("q").copy()
    plots = plot_state(w)
    traces = [(line.label, line.points.copy()) for line in w.canvas.point_traces]
    framing = w.canvas.transform()
    assert frames == 51 and all(plots.values()) and traces and w.document.modified

    for target in ("first.json", None):  # a new file (Save asks where), then the same file again
        if target:
            messenger.next_save = str(tmp_path / target)
        else:
            w.outline.point_item(("coupler", "a")).setCheckState(0, Qt.CheckState.Checked)  # modified again
            qtbot.waitUntil(lambda: len(w.canvas.point_traces) == 2)
            traces = [(line.label, line.points.copy()) for line in w.canvas.point_traces]
        press(w.canvas, Qt.Key.Key_S, CTRL)
        qtbot.waitUntil(lambda: not w.document.modified, timeout=5000)
        QTest.qWait(200)  # anything a save scheduled has run
        assert w.document.path == str(tmp_path / "first.json") and not messenger.errors
        assert c.state == "finished" and not c.stale
        assert len(c.buffer) == frames and c.buffer.t_latest == t_last and np.array_equal(c.buffer.field("q"), q)
        assert plot_state(w) == plots
        assert c.clock.t == pytest.approx(0.25) and w.live.slider.isEnabled() and w.live.act_replay.isEnabled()
        assert [(line.label, line.points.tolist()) for line in w.canvas.point_traces] == \
            [(label, points.tolist()) for label, points in traces]
        assert w.canvas.transform() == framing  # not re-framed
    saved = json.loads((tmp_path / "first.json").read_text())
    assert saved["editor"]["traces"] == ["coupler.b", "coupler.a"]
    c.shutdown()
    w.document.undo_stack.setClean()


def test_save_after_the_shortcuts_dialog_keeps_the_recent_files_menu(qtbot: Any, window: Any, messenger: Any,
                                                                    tmp_path: Any) -> None:
    """Help → Keyboard shortcuts read the menus through QAction.menu(), whose wrappers deleted the submenus when
    collected; every later Save then raised on the recent-files menu."""
    w = window
    w.activateWindow()
    qtbot.waitUntil(lambda: w.isActiveWindow(), timeout=3000)
    assert w.open_file(str(SAMPLES / "four_bar.json"), ask=False)
    press(w.canvas, Qt.Key.Key_Slash, CTRL)  # Help → Keyboard shortcuts
    qtbot.waitUntil(lambda: getattr(w, "shortcuts_dialog", None) is not None and w.shortcuts_dialog.isVisible())
    assert any(row[2] == "Save" for row in w.shortcuts_dialog.rows())
    press(w.shortcuts_dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not w.shortcuts_dialog.isVisible())
    w.shortcuts_dialog = None
    for _ in range(3):
        gc.collect()
        QApplication.processEvents()
    assert shiboken6.isValid(w.menu_recent) and shiboken6.isValid(w.menu_samples)
    for name in ("a.json", "b.json"):
        messenger.next_save = str(tmp_path / name)
        press(w.canvas, Qt.Key.Key_S, CTRL | Qt.KeyboardModifier.ShiftModifier)  # Save as
        qtbot.waitUntil(lambda: w.document.path == str(tmp_path / name), timeout=5000)
        press(w.canvas, Qt.Key.Key_S, CTRL)
    assert not messenger.errors
    assert [a.data() for a in w.menu_recent.actions()][:2] == [str(tmp_path / "b.json"), str(tmp_path / "a.json")]
    assert w.menu_recent.isEnabled() and len(w.menu_samples.actions()) > 3
