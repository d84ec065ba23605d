"""Editing the traced points with the mouse (no OpenGL needed): the Add point tool and the right-click menu add
a named point at the clicked body-frame coordinates (undoable), the outline's check boxes and the canvas menu
tick points (undoable, saved with the model), Properties renames a point, refusals say why in the status bar."""
from __future__ import annotations

import math
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from mechstudio.core.model import edit
from mechstudio.gui.editor import traced_points as tp
from tests.gui.conftest import SAMPLES

pytestmark = pytest.mark.gui


def open_four_bar(window: Any, qtbot: Any) -> None:
    assert window.open_file(str(SAMPLES / "four_bar.json"), ask=False)
    window.canvas.zoom_to_fit()
    qtbot.wait(50)


def coupler_local(model: Any, world: tuple[float, float]) -> tuple[float, float]:
    """Body-frame coordinates of a world point on the coupler, from the pose stored in ``model``."""
    b = edit.element(model, "bodies", "coupler")
    x0, y0, phi = (b["initial"][k] for k in ("x", "y", "phi"))
    dx, dy = world[0] - x0, world[1] - y0
    return (math.cos(phi) * dx + math.sin(phi) * dy, -math.sin(phi) * dx + math.cos(phi) * dy)


def on_coupler(window: Any, s: float) -> tuple[float, float]:
    """The world point at fraction ``s`` along the coupler bar as drawn."""
    g = window.canvas.geometry.body("coupler")
    a, b = g.points["a"], g.points["b"]
    return (a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1]))


def test_add_point_tool_click_creates_a_named_point_and_undo_removes_it(window: Any, qtbot: Any) -> None:
    open_four_bar(window, qtbot)
    canvas = window.canvas
    window.act_add_point.trigger()
    assert canvas.point_tool_armed
    target = on_coupler(window, 0.4)
    view = canvas.view_point(*target)
    clicked = canvas.to_world(view)  # the world point of the pixel the mouse really clicks
    before = window.document.base_model()  # the assembled pose the canvas draws
    QTest.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, view)
    model = window.document.model
    pts = edit.element(model, "bodies", "coupler")["points"]
    assert list(pts) == ["a", "b", "P1"]
    assert pts["P1"] == pytest.approx(coupler_local(before, clicked), abs=1e-9)
    assert tp.traced(model) == [("coupler", "P1")]
    assert not canvas.point_tool_armed  # one point per arming, like the palette tools
    assert window.act_undo.text().endswith("Add point coupler.P1")
    assert "Added point coupler.P1" in window.statusBar().currentMessage()
    # the outline lists it, ticked
    row = window.outline.point_item(("coupler", "P1"))
    assert row is not None and row.checkState(0) == Qt.CheckState.Checked
    window.act_undo.trigger()
    assert "P1" not in edit.element(window.document.model, "bodies", "coupler")["points"]
    assert tp.traced(window.document.model) == []
    window.act_redo.trigger()
    assert "P1" in edit.element(window.document.model, "bodies", "coupler")["points"]


def test_add_point_refused_off_the_bodies_with_the_reason(window: Any, qtbot: Any) -> None:
    open_four_bar(window, qtbot)
    canvas = window.canvas
    window.act_add_point.trigger()
    before = window.document.model
    QTest.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     canvas.view_point(2.0, -0.6))  # below the ground line: no body there
    assert window.document.model is before
    assert "no body here" in window.statusBar().currentMessage()
    # Esc and the right button cancel the armed tool
    window.act_add_point.trigger()
    QTest.keyClick(canvas, Qt.Key.Key_Escape)
    assert not canvas.point_tool_armed


def test_right_click_menu_adds_a_point_and_ticks_points(window: Any, qtbot: Any) -> None:
    open_four_bar(window, qtbot)
    canvas = window.canvas
    target = on_coupler(window, 0.7)
    texts = [a.text() for a in canvas.context_actions(target)]
    assert texts == ["Add point here (on coupler)"]
    add = canvas.context_actions(target)[0]
    add.trigger()
    assert "P1" in edit.element(window.document.model, "bodies", "coupler")["points"]
    # at the coupler's end B the menu offers to trace both points there (coupler.b and rocker.b), unticked
    b_end = canvas.geometry.body("coupler").points["b"]
    acts = {a.text(): a for a in canvas.context_actions(b_end)}
    assert {"Trace coupler.b", "Trace rocker.b"} <= set(acts)
    assert not acts["Trace coupler.b"].isChecked()
    acts["Trace coupler.b"].trigger()  # checkable: toggles on
    assert ("coupler", "b") in tp.traced(window.document.model)
    assert window.act_undo.text().endswith("Trace coupler.b")
    acts = {a.text(): a for a in canvas.context_actions(b_end)}
    assert acts["Trace coupler.b"].isChecked()
    window.act_undo.trigger()
    assert ("coupler", "b") not in tp.traced(window.document.model)
    # nowhere: a disabled line that says what the menu is for
    nothing = canvas.context_actions((2.0, -0.6))
    assert len(nothing) == 1 and not nothing[0].isEnabled() and "right-click a body point" in nothing[0].text()


def right_click(window: Any, canvas: Any, world: tuple[float, float]) -> None:
    """A right click delivered to the window (as the windowing system does), so Qt makes the context menu event
    from it (QTest's widget-level clicks skip that step)."""
    pos = canvas.viewport().mapTo(window, canvas.view_point(*world))
    QTest.mouseClick(window.windowHandle(), Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, pos)


def test_real_right_click_opens_the_menu_and_cancels_a_tool(window: Any, qtbot: Any) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMenu
    open_four_bar(window, qtbot)
    canvas = window.canvas
    seen: list[list[str]] = []

    def close_menu() -> None:
        menu = QApplication.activePopupWidget()
        if isinstance(menu, QMenu):
            seen.append([a.text() for a in menu.actions()])
            menu.close()
    QTimer.singleShot(300, close_menu)
    right_click(window, canvas, on_coupler(window, 0.5))
    qtbot.waitUntil(lambda: bool(seen), timeout=3000)
    assert seen[0] == ["Add point here (on coupler)"]
    # with the tool armed, the right button only cancels it (no menu)
    window.act_add_point.trigger()
    QTimer.singleShot(300, close_menu)
    right_click(window, canvas, on_coupler(window, 0.5))
    qtbot.wait(500)
    assert not canvas.point_tool_armed and len(seen) == 1


def test_outline_check_box_ticks_a_point_undoably_and_saves_it(window: Any, qtbot: Any, tmp_path: Any) -> None:
    open_four_bar(window, qtbot)
    outline = window.outline
    row = outline.point_item(("crank", "b"))
    assert row is not None and row.checkState(0) == Qt.CheckState.Unchecked
    row.setCheckState(0, Qt.CheckState.Checked)  # what a click on the box does
    qtbot.waitUntil(lambda: tp.traced(window.document.model) == [("crank", "b")], timeout=2000)
    row = outline.point_item(("crank", "b"))  # the outline was rebuilt from the model
    assert row.checkState(0) == Qt.CheckState.Checked and row.parent().isExpanded()
    assert window.document.modified
    # the canvas marks the ticked point with its name
    labels = [it.text() for it in window.canvas.scene().items() if hasattr(it, "text") and callable(it.text)]
    assert "b" in labels
    window.messenger.next_save = str(tmp_path / "traced.json")
    assert window.save()
    from mechstudio.core.model import load_model
    assert tp.traced(load_model(tmp_path / "traced.json")) == [("crank", "b")]
    window.act_undo.trigger()
    assert tp.traced(window.document.model) == []
    assert outline.point_item(("crank", "b")).checkState(0) == Qt.CheckState.Unchecked


def test_properties_rename_a_point(window: Any, qtbot: Any) -> None:
    open_four_bar(window, qtbot)
    window.canvas.set_traced(("coupler", "b"), True)
    window.document.set_selection([("bodies", "coupler")])
    insp = window.inspector
    ptr = edit.element_pointer(window.document.model, "bodies", "coupler") + "/points/b"
    field = insp.field(ptr + "#name")
    assert field is not None and field.text() == "b"
    field.setFocus()
    field.selectAll()
    QTest.keyClicks(field, "tip")
    QTest.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "tip" in edit.element(window.document.model, "bodies", "coupler")["points"],
                    timeout=2000)
    assert tp.traced(window.document.model) == [("coupler", "tip")]
    joints = window.document.model.data["joints"]
    assert any(j["body1"] == "coupler" and j["point1"] == "tip" for j in joints)
    # a taken name is refused under the field, the model unchanged
    qtbot.wait(50)
    field = insp.field(ptr[:-1] + "tip#name")
    before = window.document.model
    field.setFocus()
    field.selectAll()
    QTest.keyClicks(field, "a")
    QTest.keyClick(field, Qt.Key.Key_Return)
    assert window.document.model is before
    assert "already has a point named 'a'" in insp.error_text(ptr[:-1] + "tip#name")
