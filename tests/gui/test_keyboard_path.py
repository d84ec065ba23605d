"""The keyboard path: a pendulum (ground point, bar, revolute to the ground) built, run and saved with key events
only (QTest key events, no mouse), the canvas's focus frame, Tab and Shift+Tab leaving the canvas, every panel
reachable by its key, and the command palette's refusals.

The pendulum is checked against physics, not against the editor: the saved file holds one bar of 1.2 m hinged
at the origin, and the run's frames keep the bar's end a on the hinge (||r_a|| below the run's own constraint
tolerance) while its angle changes (it swings under gravity).
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.gui.document_helpers import close_live_window, open_live_window

pytestmark = pytest.mark.gui


def key(widget: Any, k: Any, mod: Any = None) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    QTest.keyClick(widget, k, mod if mod is not None else Qt.KeyboardModifier.NoModifier)


def focused() -> Any:
    from PySide6.QtWidgets import QApplication
    return QApplication.focusWidget()


def type_text(text: str) -> None:
    from PySide6.QtTest import QTest
    QTest.keyClicks(focused(), text)


def enter() -> None:
    from PySide6.QtCore import Qt
    key(focused(), Qt.Key.Key_Return)


def command(window: Any, *lines: str) -> None:
    """Ctrl+K, then each line typed and Enter (the first picks the entry, the others are its points)."""
    from PySide6.QtCore import Qt
    key(focused() or window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert window.command_palette.isVisible() and focused() is window.command_palette.edit
    for line in lines:
        type_text(line)
        enter()



@pytest.fixture
def live_window(qtbot: Any, messenger: Any, require_gl: None, monkeypatch: pytest.MonkeyPatch) -> Any:
    w = open_live_window(qtbot, messenger, monkeypatch, 1280, 820)
    yield w
    close_live_window(w)


def test_pendulum_built_run_and_saved_by_keyboard_only(qtbot: Any, live_window: Any, tmp_path: Path) -> None:
    from PySide6.QtCore import Qt
    w = live_window
    key(w, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)  # File → New: an empty planar model
    assert not w.document.model.data.get("bodies")
    key(w, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)  # the canvas has the keyboard
    assert focused() is w.canvas
    command(w, "ground", "0, 0")
    command(w, "place bar", "0, 0", "0.6, -1.0392304845413263")  # 1.2 m, 60 degrees below the horizontal
    command(w, "revolute", "0, 0")  # the ground point and the bar's end a are there: connected at once
    assert not w.command_palette.isVisible() and focused() is w.canvas
    data = w.document.model.data
    assert list(data["ground"]["points"].values()) == [[0.0, 0.0]]
    (bar,) = data["bodies"]
    assert bar["points"]["b"] == pytest.approx([1.2, 0.0], abs=1e-9)
    assert bar["initial"]["phi"] == pytest.approx(-math.pi / 3, abs=1e-9)
    assert bar["mass"] == pytest.approx(1.2) and bar["inertia"] == pytest.approx(1.2 * 1.2 ** 2 / 12)
    (joint,) = data["joints"]
    assert (joint["type"], joint["body1"], joint["body2"], joint["point2"]) == ("revolute", "ground", bar["name"], "a")
    assert "DOF: 1" in w.status_text() and "Assembled" in w.status_text()
    # run: F5
    c = w.live.controller
    key(w, Qt.Key.Key_F5)
    assert c.state == "running"
    qtbot.waitUntil(lambda: c.state == "finished", timeout=120000)
    q = c.buffer.field("q")
    names = list(c.system.coord_names)
    x, y, phi = (q[:, names.index(f"{bar['name']}.{k}")] for k in ("x", "y", "phi"))
    # end a (body frame (0, 0), centre of mass at (0.6, 0)) stays on the hinge at the origin
    ax, ay = x - 0.6 * np.cos(phi), y - 0.6 * np.sin(phi)
    assert np.hypot(ax, ay).max() < 1e-6
    assert np.ptp(phi) > 0.5  # it swings
    # save: Ctrl+S (an untitled model: the messenger stands in for the keyboard-driven file dialog)
    w.messenger.next_save = str(tmp_path / "pendulum.json")
    key(w, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    saved = json.loads((tmp_path / "pendulum.json").read_text())
    assert saved["bodies"][0]["points"]["b"] == pytest.approx([1.2, 0.0], abs=1e-9)
    assert saved["joints"][0]["type"] == "revolute" and not w.document.modified


def test_focus_frame_and_tab_leave_the_canvas(qtbot: Any, window: Any) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage
    w = window
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=5000)
    canvas = w.canvas

    def corner_colour() -> int:
        img = canvas.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
        return img.pixel(img.width() // 2, 0) & 0xFFFFFF

    key(w, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert focused() is canvas
    highlight = canvas.palette().color(canvas.palette().ColorRole.Highlight).rgb() & 0xFFFFFF
    assert corner_colour() == highlight, "no focus frame while the canvas has the keyboard"
    key(canvas, Qt.Key.Key_Tab)
    assert focused() is not canvas and focused() is not None, "Tab stayed in the canvas"
    assert corner_colour() != highlight, "the focus frame stayed after the canvas lost the keyboard"
    key(w, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    key(canvas, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert focused() is not canvas and focused() is not None, "Shift+Tab stayed in the canvas"


def test_every_panel_is_one_key_away(qtbot: Any, window: Any) -> None:
    """Ctrl+1..5 (the 3D view and plots are not installed in this window): each panel is shown and raised over
    the panels it shares tabs with, and its first field has the keyboard; Ctrl+0 goes back to the canvas."""
    from PySide6.QtCore import Qt
    from mechstudio.gui.keyboard import PANELS
    w = window
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=5000)
    digits = [Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_4, Qt.Key.Key_5]
    w.dock_outline.hide()
    for k, (attr, _text) in zip(digits, PANELS):
        dock = getattr(w, attr)
        key(w, k, Qt.KeyboardModifier.ControlModifier)
        assert dock.isVisible() and not dock.visibleRegion().isEmpty(), f"{attr} is not on screen"
        f = focused()
        assert f is not None and dock.isAncestorOf(f), f"{attr}: the keyboard is on {f!r}"
        key(w, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
        assert focused() is w.canvas
    # Help → Keyboard shortcuts lists them
    from mechstudio.gui.dialogs.shortcuts import ShortcutsDialog
    rows = ShortcutsDialog(w).rows()
    keys = {r[1] for r in rows}
    assert {"Ctrl+0", "Ctrl+1", "Ctrl+5"} <= keys and any("Ctrl+K" in k for k in keys)
    assert any("Tab" in r[1] and "Canvas" in r[0] for r in rows)


def test_palette_entry_placed_by_keyboard(qtbot: Any, window: Any) -> None:
    """Ctrl+1 to the palette, arrows to an entry, Enter: the command palette asks for its point."""
    from PySide6.QtCore import Qt
    w = window
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=5000)
    key(w, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert focused() is w.palette
    while w.palette.currentItem() is None or w.palette.currentItem().data(Qt.ItemDataRole.UserRole) != "disk":
        key(w.palette, Qt.Key.Key_Right)
    key(w.palette, Qt.Key.Key_Return)
    assert w.command_palette.isVisible() and focused() is w.command_palette.edit
    type_text("0.5, 0.25")
    enter()
    (disk,) = w.document.model.data["bodies"]
    assert (disk["initial"]["x"], disk["initial"]["y"]) == (0.5, 0.25)  # typed coordinates are exact, no grid


def test_command_palette_says_why_and_asks_again(qtbot: Any, window: Any) -> None:
    from PySide6.QtCore import Qt
    w = window
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=5000)
    key(w, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    command(w, "driver", "1, 1")  # no joint there
    cp = w.command_palette
    assert cp.isVisible() and "joint" in cp.message.text()
    type_text("one, two")
    enter()
    assert "two numbers" in cp.message.text()
    key(cp.edit, Qt.Key.Key_Escape)
    assert not cp.isVisible() and focused() is w.canvas
    assert not w.document.model.data.get("drivers")
    command(w, "zzz no such thing")
    assert cp.isVisible() and not cp.entries() and "nothing matches" in cp.message.text()
    key(cp.edit, Qt.Key.Key_Escape)
    # a menu command by name: Zoom to fit
    command(w)
    type_text("zoom to fit")
    assert cp.entries() and cp.entries()[0].startswith("Zoom to fit")
    enter()
    assert not cp.isVisible()


def test_listing_the_menus_keeps_them(qtbot: Any, window: Any, tmp_path: Path) -> None:
    """Help → Keyboard shortcuts and the command palette read every menu; File → Open recent must still work
    afterwards (``QAction.menu()`` used to hand the menus to Python's garbage collector, which deleted them)."""
    import gc
    from mechstudio.gui.dialogs.shortcuts import ShortcutsDialog
    w = window
    ShortcutsDialog(w).deleteLater()
    w.command_palette.open()
    w.command_palette.close_palette()
    gc.collect()
    w.messenger.next_save = str(tmp_path / "empty.json")
    assert w.save() and not w.messenger.errors
    assert [a.text() for a in w.menu_recent.actions()] == ["empty.json"]


def test_going_elsewhere_dismisses_the_command_palette(qtbot: Any, window: Any, ui: Any) -> None:
    """A click on the canvas (or Tab, or a panel key) while the box asks for a point: the box goes and nothing
    stays half-placed."""
    from PySide6.QtCore import Qt
    w = window
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=5000)
    command(w, "revolute")
    cp = w.command_palette
    assert cp.isVisible() and cp.kind == "revolute"
    ui.click_canvas(0.0, 0.0)
    assert not cp.isVisible() and w.canvas.pending is None and not w.document.model.data.get("joints")
    command(w, "bar")
    key(cp.edit, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)  # Ctrl+1: the palette panel
    assert not cp.isVisible() and focused() is w.palette
