"""Editing details: inspector (live preview, one undo step, validation), palette tools, delete/copy/paste as
macros, multi-select, the connectors of the palette."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from mechstudio.core.model import edit

pytestmark = pytest.mark.gui
SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"


def open_four_bar(window: Any) -> None:
    assert window.open_file(str(SAMPLES / "four_bar.json"))
    window.canvas.set_view(120.0, (2.0, 1.2))


def test_inspector_previews_live_and_commits_one_step(qtbot: Any, window: Any) -> None:
    open_four_bar(window)
    doc = window.document
    doc.set_selection([("bodies", "coupler")])
    spin = window.inspector.field("/bodies/1/mass")
    assert spin is not None and spin.suffix().strip() == "kg"
    spin.setFocus()
    for value in (3.6, 3.7, 3.8):  # typing / spinning: each value is previewed at once ...
        spin.setValue(value)
        assert edit.get_value(doc.model, "/bodies/1/mass") == pytest.approx(value)
    spin.editingFinished.emit()
    assert doc.undo_stack.count() == 1  # ... and the whole session is one undo step
    spin.setValue(4.0)
    spin.editingFinished.emit()
    assert doc.undo_stack.count() == 2
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert edit.get_value(doc.model, "/bodies/1/mass") == 3.5


def test_inspector_rejects_invalid_values(qtbot: Any, window: Any) -> None:
    open_four_bar(window)
    doc = window.document
    doc.set_selection([("bodies", "crank")])
    assert window.inspector.field("/bodies/0/mass").minimum() < 0  # "-1" can be typed, and is refused visibly
    name = window.inspector.field("name")
    name.setText("rocker")  # already used
    name.editingFinished.emit()
    assert "already used" in window.inspector.error_label.text()
    assert edit.names(doc.model, "bodies") == ["crank", "coupler", "rocker"]
    name = window.inspector.field("name")
    name.setText("input_crank")
    name.editingFinished.emit()
    assert edit.names(doc.model, "bodies")[0] == "input_crank"
    assert doc.model.data["joints"][0]["body2"] == "input_crank"


def test_angles_are_shown_in_degrees_and_stored_in_radians(qtbot: Any, window: Any) -> None:
    open_four_bar(window)
    doc = window.document
    doc.set_selection([("bodies", "crank")])
    spin = window.inspector.field("/bodies/0/initial/phi")
    assert spin.suffix().strip() == "°" and spin.value() == pytest.approx(60.0)
    window.act_degrees.setChecked(False)
    spin = window.inspector.field("/bodies/0/initial/phi")
    assert spin.suffix().strip() == "rad"


def test_driver_preview_plot_and_function_type(qtbot: Any, window: Any) -> None:
    assert window.open_file(str(SAMPLES / "slider_crank_driven.json"))
    window.document.set_selection([("drivers", "motor")])
    plot = window.inspector.findChild(object, "preview:/drivers/0/function")
    assert plot is not None
    xs, ys = plot.getPlotItem().listDataItems()[0].getData()
    assert len(xs) == 201 and ys[-1] == pytest.approx(2 * 3.141592653589793 * xs[-1])
    combo = window.inspector.findChild(object, "field:/drivers/0/function:type")
    combo.setCurrentText("harmonic")
    assert window.document.model.data["drivers"][0]["function"]["type"] == "harmonic"


def test_palette_click_arms_a_tool_then_a_canvas_click_places_it(qtbot: Any, window: Any, ui: Any) -> None:
    window.canvas.set_view(100.0, (0.0, 0.0))
    pal = window.palette
    QTest.mouseClick(pal.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     pal.item_rect("disk").center())
    assert window.canvas.armed == "disk"
    ui.click_canvas(0.5, 0.5)
    assert edit.names(window.document.model, "bodies") == ["disk1"]
    assert edit.body_pose(edit.element(window.document.model, "bodies", "disk1"))[:2] == (0.5, 0.5)
    assert window.canvas.armed is None


def test_connectors_forces_and_drivers_from_the_palette(qtbot: Any, window: Any, ui: Any) -> None:
    window.canvas.set_view(100.0, (1.0, 0.0))
    ui.palette_drag("bar", 0.0, 0.0)
    ui.palette_drag("revolute", 0.0, 0.0)   # only one body there: waits ...
    ui.click_canvas(0.0, 0.0)                # ... a click on the same spot: a new ground point -> pinned
    doc = window.document
    assert [j["body1"] for j in doc.model.data["joints"]] == ["ground"]
    assert "DOF: 1" in window.status_text()
    ui.palette_drag("driver", 0.0, 0.0)
    assert doc.model.data["drivers"][0]["type"] == "joint_angle"
    assert "DOF: 0" in window.status_text()
    ui.palette_drag("rotational_spring", 0.0, 0.0)
    ui.palette_drag("force", 0.5, 0.0)
    ui.palette_drag("torque", 0.3, 0.0)
    ui.palette_drag("spring", 1.0, 0.0)
    ui.click_canvas(1.0, 1.0)
    types = [f["type"] for f in doc.model.data["forces"]]
    assert types == ["rotational_spring_damper", "applied_force", "applied_torque", "spring_damper"]
    ui.palette_drag("block", 2.0, 0.0)
    ui.palette_drag("weld", 2.0, 0.0)
    ui.click_canvas(1.0, 0.0)
    assert doc.model.data["joints"][-1]["type"] == "weld"
    assert "Assembled" in window.status_text()
    ui.palette_drag("driver", 3.5, 3.5)  # on nothing: explained in the status bar, no edit
    assert "joint" in window.statusBar().currentMessage()


def test_delete_a_body_asks_and_removes_its_joints_in_one_step(qtbot: Any, window: Any, messenger: Any,
                                                                ui: Any) -> None:
    open_four_bar(window)
    doc = window.document
    ui.click_canvas(1.8, 1.8)  # on the coupler
    assert doc.selection == [("bodies", "coupler")]
    messenger.answer = False
    window.act_delete.trigger()
    assert "A" in messenger.questions[-1][1] and "B" in messenger.questions[-1][1]
    assert edit.names(doc.model, "bodies") == ["crank", "coupler", "rocker"]
    messenger.answer = True
    window.act_delete.trigger()
    assert edit.names(doc.model, "bodies") == ["crank", "rocker"]
    assert edit.names(doc.model, "joints") == ["O", "D"]
    assert doc.undo_stack.count() == 1
    assert "DOF: 2" in window.status_text()
    doc.undo_stack.undo()
    assert edit.names(doc.model, "joints") == ["O", "A", "B", "D"]


def test_rubber_band_multi_select_copy_paste(qtbot: Any, window: Any, ui: Any) -> None:
    open_four_bar(window)
    doc = window.document
    ui.drag_canvas([(-0.5, -0.5), (1.0, 0.5), (2.5, 2.2)])  # a box around the crank's and coupler's centres
    keys = doc.selection
    assert ("bodies", "crank") in keys and ("bodies", "coupler") in keys and ("bodies", "rocker") not in keys
    rocker = window.canvas.geometry.body("rocker").com
    QTest.mouseClick(window.canvas.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier,
                     window.canvas.view_point(*rocker))  # shift-click adds the rocker
    assert ("bodies", "rocker") in doc.selection and ("bodies", "crank") in doc.selection
    doc.set_selection([("bodies", "crank"), ("bodies", "coupler")])
    window.act_copy.trigger()
    window.act_paste.trigger()
    names = edit.names(doc.model, "bodies")
    assert names == ["crank", "coupler", "rocker", "crank1", "coupler1"]
    assert [j for j in edit.names(doc.model, "joints")][-2:] == ["O1", "A1"]
    assert doc.undo_stack.count() == 1  # the paste is one macro
    doc.undo_stack.undo()
    assert edit.names(doc.model, "bodies") == ["crank", "coupler", "rocker"]


def test_moving_a_body_and_rotating_a_block(qtbot: Any, window: Any, ui: Any) -> None:
    window.canvas.set_view(100.0, (1.0, 0.5))
    ui.palette_drag("block", 0.0, 0.0)
    doc = window.document
    ui.drag_canvas([(0.0, 0.0), (0.5, 0.2), (1.0, 0.5)])
    assert edit.body_pose(edit.element(doc.model, "bodies", "block1"))[:2] == pytest.approx((1.0, 0.5))
    (_kind, hp), = window.canvas._handles(window.canvas.geometry.body("block1"))
    ui.drag_canvas([hp, (1.0, 1.0), (1.0, 1.5)])
    assert edit.body_pose(edit.element(doc.model, "bodies", "block1"))[2] == pytest.approx(1.5707963267948966)
    assert doc.undo_stack.count() == 3
