"""Deleting, copying and pasting in the gear-train sample with the mouse and the keyboard: a gear body, the axle
a gear turns on (picked on the canvas: the ground point its revolute pins) and the axle's revolute joint (picked
in the outline) each take the gear pairs that need them; the model stays valid and Undo restores it."""
from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from mechstudio.core.model import edit, model_from_data
from mechstudio.core.systems.compile import compile_model
from tests.gui.conftest import SAMPLES

pytestmark = pytest.mark.gui


@pytest.fixture
def gears(qtbot: Any, window: Any) -> Any:
    """The active editor window (key shortcuts need an active window) with the gear train at 600 px/m."""
    assert window.open_file(str(SAMPLES / "gear_train.json"))
    window.canvas.set_view(600.0, (0.3, 0.0))
    window.activateWindow()
    window.raise_()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    return window


def click(window: Any, x: float, y: float) -> None:
    """A left click on the canvas at world point (x, y) [m]."""
    QTest.mouseClick(window.canvas.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     window.canvas.view_point(x, y))


def press_delete_and_check(window: Any, messenger: Any, gone: set[str], dof: int) -> None:
    """Delete (confirming "also deletes ..."): exactly ``gone`` leaves the model, which stays valid, compiles and
    has ``dof`` degrees of freedom; Ctrl+Z brings back the model as it was (one degree of freedom)."""
    doc = window.document
    before = doc.model
    named = {n for c in edit.COLLECTIONS + ("ground_points",) for n in edit.names(before, c)}
    selected = {n for _c, n in doc.selection}
    messenger.answer = True
    asked = len(messenger.questions)
    QTest.keyClick(window.canvas, Qt.Key.Key_Delete)
    assert len(messenger.questions) == asked + 1
    title, text = messenger.questions[-1]
    assert title == "Delete" and all(n in text for n in gone - selected)
    after = {n for c in edit.COLLECTIONS + ("ground_points",) for n in edit.names(doc.model, c)}
    assert named - after == gone
    model_from_data(doc.model.data)  # valid: raises no ModelError
    compile_model(doc.model)
    assert f"DOF: {dof}" in window.status_text()
    QTest.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert doc.model.data == before.data
    assert "DOF: 1" in window.status_text()


def test_delete_a_gear_body_takes_its_axle_and_gear_pairs(qtbot: Any, gears: Any, messenger: Any) -> None:
    click(gears, 0.25, 0.1)  # on the idler's disk, away from its axle
    assert gears.document.selection == [("bodies", "idler")]
    messenger.answer = False  # declined: nothing changes
    QTest.keyClick(gears.canvas, Qt.Key.Key_Delete)
    assert "axle2, mesh12, mesh23" in messenger.questions[-1][1]
    assert edit.names(gears.document.model, "bodies") == ["pinion", "idler", "wheel"]
    press_delete_and_check(gears, messenger, {"idler", "axle2", "mesh12", "mesh23"}, dof=2)


def test_delete_the_axle_a_gear_turns_on(qtbot: Any, gears: Any, messenger: Any) -> None:
    click(gears, 0.6, 0.0)  # the wheel's axle: the ground point its revolute pins
    assert gears.document.selection == [("ground_points", "O3")]
    press_delete_and_check(gears, messenger, {"O3", "axle3", "mesh23"}, dof=4)


def test_delete_the_axle_joint_of_a_gear(qtbot: Any, gears: Any, messenger: Any) -> None:
    outline = gears.outline
    item = outline.item_for(("joints", "axle2"))
    outline.scrollToItem(item)
    QTest.mouseClick(outline.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     outline.visualItemRect(item).center())
    assert gears.document.selection == [("joints", "axle2")]
    press_delete_and_check(gears, messenger, {"axle2", "mesh12", "mesh23"}, dof=5)


def test_copy_and_paste_a_gear_pair(qtbot: Any, gears: Any) -> None:
    doc = gears.document
    before = doc.model
    outline = gears.outline
    item = outline.item_for(("joints", "mesh23"))
    outline.scrollToItem(item)
    QTest.mouseClick(outline.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     outline.visualItemRect(item).center())
    QTest.keyClick(gears.canvas, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClick(gears.canvas, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert doc.undo_stack.count() == 1
    assert doc.selection == [("bodies", "idler1"), ("bodies", "wheel1")]
    mesh = doc.model.data["joints"][-1]
    assert mesh["type"] == "gear_pair" and (mesh["joint1"], mesh["joint2"]) == ("axle4", "axle5")
    compile_model(doc.model)
    QTest.keyClick(gears, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert doc.model.data == before.data
