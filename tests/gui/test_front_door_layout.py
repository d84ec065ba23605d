"""Issue 13 (13a) item 1: the first window fills the screen; at 1600×1000 (and still at 1280×800) the default
layout shows at least 8 property fields without scrolling, every palette entry, and no toolbar item behind an
overflow "»"; View → Reset layout puts mis-dragged docks back. A window with the live view (Xvfb + OpenGL), as
the real app starts."""
from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolBar, QWidget

from mechstudio.gui.widgets.toolbar_style import overflowing
from tests.gui.conftest import SAMPLES, non_background_fraction
from tests.gui.document_helpers import close_live_window, open_live_window

pytestmark = pytest.mark.gui
MIN_VISIBLE_FIELDS = 8


@pytest.fixture
def live_window_factory(qtbot: Any, messenger: Any, require_gl: None, monkeypatch: pytest.MonkeyPatch) -> Any:
    windows: list[Any] = []

    def make(width: int, height: int) -> Any:
        w = open_live_window(qtbot, messenger, monkeypatch, width, height, str(SAMPLES / "four_bar.json"))
        windows.append(w)
        return w
    yield make
    for w in windows:
        close_live_window(w)


def visible_in(widget: QWidget, viewport: QWidget) -> bool:
    """True when all of ``widget`` lies inside ``viewport`` (nothing of it scrolled or cut off) and is shown."""
    if not widget.isVisible():
        return False
    top_left = widget.mapTo(viewport, QPoint(0, 0))
    return viewport.rect().contains(QRect(top_left, widget.size()))


def visible_fields(window: Any) -> int:
    """Form rows (a vector's components count once) shown whole in the inspector without scrolling."""
    viewport, page = window.inspector.viewport(), window.inspector.widget()
    rows = set()
    for w in window.inspector.fields().values():
        while w.parentWidget() is not page:
            w = w.parentWidget()
        rows.add(w)
    count = sum(1 for row in rows if visible_in(row, viewport))
    print(f"window {window.width()}x{window.height()}: inspector {viewport.height()} px tall, {count} of "
          f"{len(rows)} rows visible")
    return count


def click_outline(window: Any, key: tuple[str, str]) -> None:
    rect = window.outline.visualItemRect(window.outline.item_for(key))
    QTest.mouseClick(window.outline.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     rect.center())


def check_layout(window: Any) -> None:
    click_outline(window, ("bodies", "crank"))  # a bar: name, mass, inertia, com, points, geometry, initial pose
    assert window.document.selection == [("bodies", "crank")]
    assert visible_fields(window) >= MIN_VISIBLE_FIELDS, window.inspector.viewport().height()
    palette = window.palette
    for i in range(palette.count()):
        rect = palette.visualItemRect(palette.item(i))
        assert palette.viewport().rect().contains(rect), palette.item(i).text()
        assert palette.fontMetrics().horizontalAdvance(palette.item(i).text()) < rect.width()  # not elided
    for tb in window.findChildren(QToolBar):
        assert not overflowing(tb), tb.objectName()
        for action in tb.actions():
            button = tb.widgetForAction(action)
            if button is not None and not action.isSeparator():
                assert button.isVisible() and tb.rect().contains(button.geometry()), action.objectName()
    slider = window.findChild(QWidget, "time_slider")
    assert slider is not None and slider.isVisible() and slider.width() >= 160
    canvas = window.canvas.viewport()
    assert canvas.width() >= 500 and canvas.height() >= 300


def test_first_start_fills_the_screen(qtbot: Any, messenger: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MECHSTUDIO_NO_LIVE_VIEW", "1")
    from mechstudio.gui.main_window import FIRST_START_FILL, MainWindow
    w = MainWindow(messenger=messenger)  # no saved layout in the isolated config folder: a first start
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    available = (w.screen() or QApplication.primaryScreen()).availableGeometry()
    assert w.width() >= FIRST_START_FILL * available.width()
    assert w.height() >= FIRST_START_FILL * available.height()


@pytest.mark.parametrize("size", [(1600, 1000), (1280, 800)])
def test_default_layout(qtbot: Any, live_window_factory: Any, size: tuple[int, int]) -> None:
    w = live_window_factory(*size)
    assert (w.width(), w.height()) == size
    check_layout(w)


def test_reset_layout_puts_mis_dragged_docks_back(qtbot: Any, live_window_factory: Any) -> None:
    w = live_window_factory(1600, 1000)
    left, right = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea
    w.dock_palette.hide()
    w.dock_inspector.setFloating(True)
    w.addDockWidget(right, w.dock_outline)
    w.resizeDocks([w.dock_plots], [700], Qt.Orientation.Vertical)
    QTest.qWait(20)
    menu = w.menu_view  # View → Reset layout, clicked
    menu.popup(w.mapToGlobal(QPoint(60, 20)))
    qtbot.waitUntil(menu.isVisible, timeout=2000)
    QTest.mouseClick(menu, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     menu.actionGeometry(w.act_reset_layout).center())
    QTest.qWait(20)
    assert w.dock_palette.isVisible() and not w.dock_inspector.isFloating()
    assert w.dockWidgetArea(w.dock_palette) == left and w.dockWidgetArea(w.dock_outline) == left
    assert w.dockWidgetArea(w.dock_inspector) == right
    check_layout(w)


def grab_window(window: Any, name: str) -> Any:
    """The window as the screen shows it (the 3D view is OpenGL, which ``QWidget.grab`` would leave black), saved
    via conftest's save_screenshot rules: docs/screenshots/<name> with MECHSTUDIO_UPDATE_SCREENSHOTS=1 (run under
    an Xvfb screen of at least 1600×1000), else a temporary file."""
    import os
    import tempfile
    from pathlib import Path
    QTest.qWait(300)
    g = window.frameGeometry()
    image = (window.screen() or QApplication.primaryScreen()).grabWindow(0, g.x(), g.y(), g.width(), g.height())
    if os.environ.get("MECHSTUDIO_UPDATE_SCREENSHOTS") == "1":
        out = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / name
    else:
        out = Path(tempfile.gettempdir()) / "mechstudio-screenshots" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    assert image.save(str(out))
    return out


def test_editor_screenshots(qtbot: Any, live_window_factory: Any) -> None:
    """docs/screenshots/editor_four_bar.png and editor_spherical_chain.png, at 1600×1000."""
    w = live_window_factory(1600, 1000)
    click_outline(w, ("bodies", "crank"))
    w.canvas.zoom_to_fit()
    path = grab_window(w, "editor_four_bar.png")
    assert non_background_fraction(path) > 0.05
    assert w.open_file(str(SAMPLES / "spherical_chain_3.json"))
    click_outline(w, ("bodies", "link2"))
    w.dock_tree.raise_()
    w.canvas.zoom_to_fit()
    path = grab_window(w, "editor_spherical_chain.png")
    assert non_background_fraction(path) > 0.05
