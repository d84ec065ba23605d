"""Start, quit and start again with the same configuration folder: the window state is restored with every
toolbar in its row (the time bar in a row of its own under File and Simulation, never over the menu bar), the
menus open by click, the time slider is wide and every palette entry shows; a saved state that puts a toolbar out of place is not restored,
and View → Reset layout puts the toolbars back. Both at 1920×1080 and at 1366×768. Real mouse clicks."""
from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import SAMPLES
from tests.gui.document_helpers import click_menu_entry, click_menu_title, close_window, fitting, start_window

pytestmark = pytest.mark.gui
#: None: the screen (a first start fills it, maximized); else a window of that size [px] (at most the screen's:
#: run Xvfb with -screen 0 1920x1080x24 or 1366x768x24 for those sizes exactly)
SIZES = [None, (1920, 1080), (1366, 768)]
#: the slider takes the time bar's row but for the time readout, speed, progress and status (~460 px)
MIN_SLIDER_FRACTION = 0.4
FRAME_PX = 40  # a window's frame (title bar, border) can take this much of the size asked for [px]


def assert_toolbars_in_rows(w: Any) -> None:
    top = Qt.ToolBarArea.TopToolBarArea
    mb = w.menuBar().geometry()
    for tb in (w.toolbar_file, w.toolbar_simulation, w.toolbar_time):
        assert w.toolBarArea(tb) == top, f"{tb.objectName()} is outside the toolbar area"
        assert tb.isVisible()
        assert not tb.geometry().intersects(mb), f"{tb.objectName()} {tb.geometry()} overlaps the menu bar {mb}"
    file_row = w.toolbar_file.geometry()
    time_row = w.toolbar_time.geometry()
    assert w.toolbar_simulation.geometry().top() == file_row.top()  # File and Simulation share the first row
    assert time_row.top() >= file_row.bottom(), "the time bar is not in a row of its own under the buttons"
    assert w.live.slider.width() >= MIN_SLIDER_FRACTION * w.width(), w.live.slider.width()


def assert_palette_whole(w: Any) -> None:
    """Every palette entry shown whole, without scrolling (compact rows on a short column)."""
    pal = w.palette
    view = pal.viewport().rect()
    cut = [pal.item(i).text() for i in range(pal.count()) if not view.contains(pal.visualItemRect(pal.item(i)))]
    assert not cut, f"palette entries cut at {w.width()}x{w.height()} (palette {pal.size()}): {cut}"


def assert_menus_open_by_click(qtbot: Any, w: Any) -> None:
    for menu in (w.menu_file, w.menu_edit):
        click_menu_title(qtbot, w, menu)
        QTest.keyClick(menu, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None, timeout=3000)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}" if s else "screen")
def test_second_start_keeps_the_time_bar_in_its_own_row(qtbot: Any, messenger: Any, monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Any, size: tuple[int, int] | None) -> None:
    path = str(SAMPLES / "four_bar.json")
    first = None
    expected = fitting(size) if size else fitting((100_000, 100_000))
    for start in range(3):  # first start, then two starts from the layout the previous one saved
        w = start_window(qtbot, messenger, monkeypatch, size if start == 0 else None, path)
        assert w._layout_restored == (start > 0)
        assert w.isMaximized() == (size is None)
        first = first or (w.width(), w.height())
        assert abs(first[0] - expected[0]) <= FRAME_PX and abs(first[1] - expected[1]) <= FRAME_PX
        # the geometry is restored (up to the frame Qt allows for: Xvfb has no window manager to draw one)
        assert abs(w.width() - first[0]) <= FRAME_PX and abs(w.height() - first[1]) <= FRAME_PX
        assert_toolbars_in_rows(w)
        assert_palette_whole(w)
        assert_menus_open_by_click(qtbot, w)
        w.grab().save(str(tmp_path / f"start{start}_{w.width()}x{w.height()}.png"))
        close_window(qtbot, w)


def test_a_state_with_a_toolbar_out_of_place_is_not_restored(qtbot: Any, messenger: Any,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A state saved with the time bar outside every toolbar area (what earlier versions left behind)."""
    w = start_window(qtbot, messenger, monkeypatch, (1366, 768))
    w.removeToolBar(w.toolbar_time)  # out of every area, as the broken restore left it
    w.toolbar_time.show()
    assert not w.toolbars_in_place()
    close_window(qtbot, w)
    w2 = start_window(qtbot, messenger, monkeypatch)
    assert not w2._layout_restored
    assert_toolbars_in_rows(w2)
    assert_menus_open_by_click(qtbot, w2)
    close_window(qtbot, w2)


def test_view_reset_layout_puts_the_toolbars_back(qtbot: Any, messenger: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    w = start_window(qtbot, messenger, monkeypatch, (1366, 768))
    w.removeToolBar(w.toolbar_time)
    w.toolbar_time.show()
    w.removeToolBar(w.toolbar_file)
    qtbot.waitUntil(lambda: not w.toolbars_in_place())
    click_menu_title(qtbot, w, w.menu_view)
    click_menu_entry(qtbot, w.menu_view, "act_reset_layout")
    qtbot.waitUntil(lambda: w.toolbars_in_place(), timeout=3000)
    QTest.qWait(50)
    assert_toolbars_in_rows(w)
    assert_menus_open_by_click(qtbot, w)
    close_window(qtbot, w)
