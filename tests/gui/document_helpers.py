"""Helpers of the document, restart and settings tests: a main window with the live view started as the app
starts it, real clicks on menu titles and menu entries, and a driver for modal dialogs."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from PySide6.QtCore import QPoint, QRect, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu, QMenuBar, QWidget


def skip_without_gl() -> None:
    from PySide6.QtGui import QOpenGLContext
    plat = QApplication.instance().platformName()
    if plat in ("offscreen", "minimal") or not QOpenGLContext().create():
        pytest.skip(f"no usable OpenGL on QPA platform {plat!r}; run under Xvfb with QT_QPA_PLATFORM=xcb")


def start_window(qtbot: Any, messenger: Any, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int] | None = None,
                 path: str | None = None) -> Any:
    """A main window with the live view, constructed as the app does (saved layout restored), shown; ``size``
    [px]: the window is set to it (a screen of that size); ``path``: a model file opened."""
    skip_without_gl()
    monkeypatch.delenv("MECHSTUDIO_NO_LIVE_VIEW", raising=False)
    from mechstudio.gui.main_window import MainWindow
    w = MainWindow(messenger=messenger)
    qtbot.addWidget(w)
    if path is not None:
        assert w.open_file(path, ask=False)
    if size is not None:  # instead of the screen's size (a first start fills the screen)
        w.setWindowState(Qt.WindowState.WindowNoState)
        w.setGeometry(QRect(0, 0, *fitting(size)))
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()  # the window's shortcuts (Ctrl+S, F5) need it active
    qtbot.waitUntil(lambda: w.isActiveWindow(), timeout=3000)
    QTest.qWait(100)  # the first-show layout runs from the event loop
    return w


def open_live_window(qtbot: Any, messenger: Any, monkeypatch: pytest.MonkeyPatch, width: int, height: int,
                     path: str | None = None) -> Any:
    """The main window with the live view, first start (no saved layout), at ``width`` x ``height`` [px], on the
    model file ``path`` (None: the window's empty document), shown and active. End with
    :func:`close_live_window`."""
    monkeypatch.delenv("MECHSTUDIO_NO_LIVE_VIEW", raising=False)
    from mechstudio.gui.main_window import MainWindow
    w = MainWindow(messenger=messenger, restore_layout=False)
    qtbot.addWidget(w)
    w.resize(width, height)
    if path is not None:
        assert w.open_file(path, ask=False)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()  # the window's shortcuts need it active
    qtbot.waitUntil(lambda: w.isActiveWindow(), timeout=3000)
    qtbot.waitUntil(lambda: w.dock_view3d.isVisible() and w.dock_plots.isVisible(), timeout=3000)
    QTest.qWait(50)  # the first-show layout runs from the event loop
    return w


def close_live_window(w: Any) -> None:
    """Stop the live view's solver and mark the document clean (no "save changes?" question at teardown)."""
    w.live.controller.shutdown()
    w.document.undo_stack.setClean()


def press(widget: QWidget, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """A key press as the user's keyboard makes it (shortcuts included)."""
    QTest.keyClick(widget, key, modifier)


def type_into(widget: QWidget, text: str) -> None:
    """Select all of a text field (Ctrl+A) and type ``text``."""
    widget.setFocus()
    QTest.keyClick(widget, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(widget, text)


def click(widget: QWidget) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, widget.rect().center())


def run_to_end(qtbot: Any, w: Any, timeout_ms: int = 300_000) -> Any:
    """F5, then wait until the run finished and its animation stopped; the controller."""
    c = w.live.controller
    press(w.canvas, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: c.state in ("finished", "failed") and not c.clock.playing and not c.active,
                    timeout=timeout_ms)
    assert c.state == "finished", c.last_error
    qtbot.waitUntil(lambda: w.live.plots.up_to_date(c.buffer) and not c.plot_timer.isActive(), timeout=10_000)
    return c


def fitting(size: tuple[int, int]) -> tuple[int, int]:
    """``size`` [px], or less where the (virtual) screen is smaller: Qt keeps a window inside its screen. Run
    Xvfb with ``-screen 0 1920x1080x24`` (or 1366x768) to test at those sizes exactly."""
    avail = QApplication.primaryScreen().availableGeometry()
    return min(size[0], avail.width()), min(size[1], avail.height())


def close_window(qtbot: Any, w: Any) -> None:
    """Close as the user does (the window saves its layout), with the run stopped."""
    w.live.controller.shutdown()
    w.document.undo_stack.setClean()
    assert w.close()
    QTest.qWait(50)


def menu_title_rect(menubar: QMenuBar, menu: QMenu) -> QRect:
    return menubar.actionGeometry(menu.menuAction())


def click_menu_title(qtbot: Any, window: Any, menu: QMenu) -> None:
    """Click a menu's title in the menu bar (where a user clicks: the window's point, whatever widget is on top)
    and wait for the menu to open."""
    mb = window.menuBar()
    center = menu_title_rect(mb, menu).center()
    target = window.childAt(mb.mapTo(window, center))
    assert target is mb, f"the menu title {menu.title()!r} is covered by {target!r}"
    QTest.mouseClick(mb, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, center)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is menu, timeout=3000)


def click_menu_entry(qtbot: Any, menu: QMenu, object_name: str) -> None:
    """Click the entry of the open ``menu`` whose action is named ``object_name``."""
    action = next(a for a in menu.actions() if a.objectName() == object_name)
    QTest.mouseClick(menu, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     menu.actionGeometry(action).center())


def when_modal(act: Callable[[QWidget], None], name: str | None = None, timeout_ms: int = 20000) -> list[bool]:
    """Run ``act(dialog)`` on the next modal dialog (named ``name``) as soon as it is shown; the returned list
    gets True once it ran."""
    done: list[bool] = []
    deadline = [timeout_ms // 20]

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is not None and dialog.isVisible() and (name is None or dialog.objectName() == name):
            done.append(True)
            act(dialog)
        elif deadline[0] > 0:
            deadline[0] -= 1
            QTimer.singleShot(20, poll)
    QTimer.singleShot(0, poll)
    return done


def screen_shot(qapp: Any, w: Any, name: str) -> Any:
    """Grab ``w``'s frame from the screen (OpenGL views included, which ``widget.grab()`` leaves blank) into
    docs/screenshots/<name> when MECHSTUDIO_UPDATE_SCREENSHOTS=1, else a temporary folder; its path."""
    import os
    import tempfile
    from pathlib import Path
    if os.environ.get("MECHSTUDIO_UPDATE_SCREENSHOTS") == "1":
        out = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / name
    else:
        out = Path(tempfile.gettempdir()) / "mechstudio-screenshots" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    g = w.frameGeometry()
    img = qapp.primaryScreen().grabWindow(0, g.x(), g.y(), g.width(), g.height())
    assert img.save(str(out)), out
    return out
