"""Placing joints with the mouse never moves what the user did not ask to move, and couplings can always be
finished:

* a gear pair (or rack and pinion) dropped on empty canvas waits for its first joint, then for the second; a click
  that misses keeps it waiting and says why; the status text names the joints (never "first end on ;");
* pinning a body to the ground by clicking empty space keeps the body where it is (revolute: the new ground point
  at the body's point; prismatic: on the sliding line through it), whichever end is clicked first;
* joining two existing points that do not meet says that the assembly will close the gap.

All with real mouse events on the palette and the canvas; poses compared to 1e-12 m / rad (the model stores the
assembled poses; an assembly that moved nothing leaves them bit-for-bit or to Newton's last correction).
"""
from __future__ import annotations

from typing import Any

import pytest

from mechstudio.core.model import edit

pytestmark = pytest.mark.gui
TOL = 1e-12


def status(window: Any) -> str:
    return window.statusBar().currentMessage()


def pose(window: Any, body: str) -> tuple[float, float, float]:
    return edit.body_pose(edit.element(window.document.model, "bodies", body))


def two_gears(ui: Any, window: Any) -> None:
    window.canvas.set_view(200.0, (0.25, 0.0))
    for x in (0.0, 0.5):
        ui.palette_drag("ground", x, 0.0)
    for x in (0.0, 0.5):
        ui.palette_drag("disk", x, 0.0)
    for x in (0.0, 0.5):
        ui.palette_drag("revolute", x, 0.0)
    assert [j["type"] for j in window.document.model.data["joints"]] == ["revolute", "revolute"]


@pytest.mark.parametrize("how", ["drop", "armed click"])
def test_gear_pair_started_on_empty_canvas_waits_for_both_joints(qtbot: Any, window: Any, ui: Any, how: str) -> None:
    two_gears(ui, window)
    n = len(window.document.model.data["joints"])
    if how == "drop":
        ui.palette_drag("gear_pair", 0.25, 0.6)  # nowhere near a joint
    else:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest
        QTest.mouseClick(window.palette.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         window.palette.item_rect("gear_pair").center())
        assert window.canvas.armed == "gear_pair"
        ui.click_canvas(0.25, 0.6)
    pending = window.canvas.pending
    assert pending is not None and pending.first is None
    assert "click the revolute joint of the first gear" in status(window)
    ui.click_canvas(0.25, -0.6)  # a miss: still waiting, and it says why
    assert window.canvas.pending is not None and window.canvas.pending.first is None
    assert "no revolute joint there" in status(window)
    ui.click_canvas(0.0, 0.0)  # the first gear's revolute
    assert window.canvas.pending.first is not None and window.canvas.pending.first.ref == "J1"
    assert "first joint J1" in status(window) and "second gear" in status(window)
    ui.click_canvas(0.0, 0.0)  # the same joint again: not a second one
    assert window.canvas.pending is not None
    ui.click_canvas(0.5, 0.0)
    assert window.canvas.pending is None
    joints = window.document.model.data["joints"]
    assert len(joints) == n + 1 and joints[-1]["type"] == "gear_pair"
    assert (joints[-1]["joint1"], joints[-1]["joint2"]) == ("J1", "J2")
    assert "first end on ;" not in status(window) and "gear pair" in status(window).lower()


def test_escape_cancels_a_waiting_gear_pair(qtbot: Any, window: Any, ui: Any) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    two_gears(ui, window)
    ui.palette_drag("gear_pair", 0.25, 0.6)
    assert window.canvas.pending is not None
    QTest.keyClick(window.canvas, Qt.Key.Key_Escape)
    assert window.canvas.pending is None


@pytest.mark.parametrize("order", ["body first", "ground first"])
def test_pinning_a_body_to_empty_space_keeps_it_in_place(qtbot: Any, window: Any, ui: Any, order: str) -> None:
    window.canvas.set_view(150.0, (0.5, 0.0))
    ui.palette_drag("bar", 0.2, 0.3)
    before = pose(window, "bar1")
    if order == "body first":
        ui.palette_drag("revolute", 0.2, 0.3)  # on the bar's end a: waits for the second end
        ui.click_canvas(0.9, -0.4)             # empty space: the ground
    else:
        ui.palette_drag("revolute", 0.9, -0.4)  # on empty space: the ground end first
        ui.click_canvas(0.2, 0.3)               # the bar's end a
    assert window.canvas.pending is None
    joint = window.document.model.data["joints"][-1]
    assert (joint["type"], joint["body1"], joint["body2"], joint["point2"]) == ("revolute", "ground", "bar1", "a")
    assert window.document.model.data["ground"]["points"][joint["point1"]] == pytest.approx([0.2, 0.3], abs=TOL)
    assert pose(window, "bar1") == pytest.approx(before, abs=TOL), "pinning the bar moved it"
    assert "Assembled" in window.status_text() and "DOF: 1" in window.status_text()


@pytest.mark.parametrize("kind", ["prismatic", "pin_in_slot"])
def test_a_slider_to_the_ground_stays_on_its_line(qtbot: Any, window: Any, ui: Any, kind: str) -> None:
    window.canvas.set_view(150.0, (0.3, -0.3))
    ui.palette_drag("block", 0.0, -0.4)
    before = pose(window, "block1")
    ui.palette_drag(kind, 0.0, -0.4)   # on the block
    ui.click_canvas(0.6, -0.1)         # empty space above the block's line
    joint = window.document.model.data["joints"][-1]
    assert (joint["type"], joint["body1"], joint["body2"]) == (kind, "ground", "block1")
    ground = window.document.model.data["ground"]["points"][joint["point1"]]
    assert ground == pytest.approx([0.6, -0.4], abs=TOL)  # the click's x, the slider's line
    assert pose(window, "block1") == pytest.approx(before, abs=TOL), "the slider was moved onto another line"


def test_joining_existing_points_that_do_not_meet_says_so(qtbot: Any, window: Any, ui: Any) -> None:
    window.canvas.set_view(150.0, (0.5, 0.0))
    ui.palette_drag("ground", 0.0, 0.5)
    ui.palette_drag("bar", 0.0, 0.0)
    ui.palette_drag("revolute", 0.0, 0.0)  # on the bar's end a
    ui.click_canvas(0.0, 0.5)              # the existing ground point G1, 0.5 m away
    assert "0.5 m apart" in status(window) and "moves bar1" in status(window)
    assert window.document.model.data["joints"][-1]["point1"] == "G1"
