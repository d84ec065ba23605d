"""Issue 13 acceptance, one scenario as a new user lives it, with real mouse and key events (QTest) on a window
with the live view (Xvfb + OpenGL): the app starts at 1600×1000 on its default sample with a tall inspector and
no toolbar overflow; Ctrl+N; a pendulum built with three drops from the palette; Run clicked; Step back and
Step with the keys; the energy plot exported as a PNG through its Export button, menu and size dialog.

Independent check of the run: a uniform bar of length L pivoted at one end and released horizontal swings to the
other horizontal (energy conservation) after the half swing T/2 = 2 sqrt(L / (3 g)) * (sqrt(pi) / 2) *
Gamma(1/4) / Gamma(3/4) (from (1/2)(m L²/3) phi'² = m g (L/2) sin phi, phi below the horizontal; 0.9667 s for
L = 1 m, g = 9.81 m/s²)."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolBar, QToolButton
from scipy.special import gamma

from mechstudio.gui.widgets.toolbar_style import overflowing
from tests.gui.conftest import palette_drag
from tests.gui.document_helpers import open_live_window
from tests.gui.test_front_door_layout import click_outline, visible_fields

pytestmark = pytest.mark.gui
L_BAR, G = 1.0, 9.81  # the palette's bar [m] and the new model's gravity [m/s²]
T_END = 2.0  # [s] a bit more than two half swings
ROW_PX = 26  # a number field's height; 8 rows need 8 * ROW_PX of inspector at the least


def press(window: Any, action: Any) -> None:
    """A real click on the toolbar button of ``action``."""
    for tb in window.findChildren(QToolBar):
        button = tb.widgetForAction(action)
        if button is not None and button.isVisible():
            assert button.isEnabled(), action.objectName()
            QTest.mouseClick(button, Qt.MouseButton.LeftButton)
            return
    raise AssertionError(f"no visible toolbar button for {action.objectName()}")


@pytest.fixture
def app_window(qtbot: Any, messenger: Any, require_gl: None, monkeypatch: pytest.MonkeyPatch) -> Any:
    """What `mechstudio` starts (gui.app.build_window: the default sample), on a 1600×1000 screen area."""
    from mechstudio.gui.paths import default_model
    w = open_live_window(qtbot, messenger, monkeypatch, 1600, 1000, str(default_model()))
    yield w
    w.live.controller.shutdown()
    w.document.undo_stack.setClean()


def test_new_user_builds_runs_steps_and_exports_a_pendulum(qtbot: Any, app_window: Any, messenger: Any,
                                                           tmp_path: Path) -> None:
    w = app_window
    # ---- the first look: a tall inspector, every toolbar item on screen
    assert (w.width(), w.height()) == (1600, 1000)
    assert w.inspector.viewport().height() >= 8 * ROW_PX + 60, w.inspector.viewport().height()
    for tb in w.findChildren(QToolBar):
        assert not overflowing(tb), tb.objectName()
    # ---- File → New with the keyboard, then a pendulum with three drops from the palette
    QTest.keyClick(w, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert not w.document.model.data["bodies"] and w.palette.isEnabled()
    w.canvas.set_view(150.0, (0.5, -0.3))
    for kind in ("ground", "bar", "revolute"):
        palette_drag(qtbot, w, kind, 0.0, 0.0)
    data = w.document.model.data
    assert [b["name"] for b in data["bodies"]] == ["bar1"] and data["joints"][0]["type"] == "revolute"
    assert "DOF: 1" in w.status_text() and "Assembled" in w.status_text()
    click_outline(w, ("bodies", "bar1"))
    assert visible_fields(w) >= 8
    # ---- Run (a click on its button), to the end
    controller = w.live.controller
    controller.set_overrides(t_end=T_END)
    press(w, w.live.act_run)
    qtbot.waitUntil(lambda: controller.state == "finished", timeout=120_000)
    traj = controller.trajectory()
    cols = traj.columns()
    t, x = cols["t"], cols["q.bar1.x"]
    half_swing = 2 * math.sqrt(L_BAR / (3 * G)) * math.sqrt(math.pi) / 2 * gamma(0.25) / gamma(0.75)
    first = int(np.argmin(np.where(t < 1.5, x, np.inf)))
    dt = float(t[1] - t[0])
    assert abs(t[first] - half_swing) <= dt, (t[first], half_swing)  # the turning point, to one output frame
    assert x[first] == pytest.approx(-L_BAR / 2, abs=1e-3)  # back to horizontal: energy conserved
    # ---- the replay reaches the end; Step back and Step with the keys: one output frame each, results stay
    qtbot.waitUntil(lambda: not controller.clock.playing, timeout=30_000)
    frames = len(controller.buffer)
    label = w.live.time_label
    t_last = controller.clock.t
    assert t_last == pytest.approx(T_END)
    QTest.keyClick(w, Qt.Key.Key_F7, Qt.KeyboardModifier.ShiftModifier)
    assert controller.clock.t == pytest.approx(t_last - dt) and len(controller.buffer) == frames
    QTest.keyClick(w, Qt.Key.Key_F7)
    assert controller.clock.t == pytest.approx(t_last) and len(controller.buffer) == frames
    qtbot.waitUntil(lambda: label.text() == f"t = {t_last:.3f} s", timeout=2000)
    assert controller.state == "finished"
    # ---- export the energy plot: its Export button, "PNG…" in the menu, the size dialog, a file name
    target = tmp_path / "pendulum_energy.png"
    w.live.ask_file = lambda _title, _suggestion, _filter: str(target)  # the platform's file dialog
    seen: list[str] = []

    def drive_menu() -> None:
        menu = QApplication.activePopupWidget()
        assert menu is not None, "the Export menu did not open"
        while menu.activeAction() is None or menu.activeAction().text() != "PNG…":
            QTest.keyClick(menu, Qt.Key.Key_Down)
        seen.append(menu.activeAction().text())
        QTimer.singleShot(50, drive_dialog)
        QTest.keyClick(menu, Qt.Key.Key_Return)

    def drive_dialog() -> None:
        dialog = QApplication.activeModalWidget()
        assert dialog is not None, "no size dialog"
        seen.append(dialog.pixels.text())
        QTest.keyClick(dialog.width_box, Qt.Key.Key_Return)  # the default size

    QTimer.singleShot(100, drive_menu)
    QTest.mouseClick(w.live.plots.energy.findChild(QToolButton, "export_energy"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(target.exists, timeout=10_000)
    assert seen[0] == "PNG…"
    image = QImage(str(target))
    size = w.live.plot_size
    assert (image.width(), image.height()) == (size.width, size.height) and seen[1].startswith(
        f"{size.width} × {size.height} px")
    assert not messenger.errors
