"""Contacts in the editor: the palette's Contact entry, friction fields in the inspector, a run's contact points and
forces on the canvas, its events on the time bar and the plots (docs/contact.md, "In the editor").

The editor tests run without OpenGL; the live ones (a run in the main window) need Xvfb:
QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1280x1024x24" python -m pytest -p no:xvfb tests/gui/test_contact_editor.py
"""
from __future__ import annotations

import json
import math
import time
from typing import Any

import numpy as np
import pytest

from tests.gui.conftest import SAMPLES
from tests.gui.document_helpers import close_live_window, open_live_window

pytestmark = pytest.mark.gui

CONTACT_SAMPLES = ("bouncing_ball", "block_on_tilting_incline", "cam_follower_jump", "disk_rolls_then_slips",
                   "contact_pair")


def forces_of(window: Any, type_: str) -> list[dict[str, Any]]:
    return [f for f in window.document.model.data.get("forces", []) if f["type"] == type_]


# ---- palette ---------------------------------------------------------------------------------------------------
def test_palette_contact_on_a_disk_then_empty_space_makes_a_pair_with_a_floor_in_one_undo_step(window, ui):
    ui.palette_drag("disk", 0.0, 1.0)
    stack = window.document.undo_stack
    before = stack.count()
    ui.palette_drag("contact_pair", 0.0, 1.0)  # on the disk: waits for the second body
    assert window.canvas.pending is not None and not forces_of(window, "contact_pair")
    ui.click_canvas(0.0, 0.5)  # empty space: the ground, which gets a floor whose top runs through the click
    pairs = forces_of(window, "contact_pair")
    assert len(pairs) == 1 and stack.count() == before + 1
    pair = pairs[0]
    disk = window.document.model.data["bodies"][-1]["name"]
    assert (pair["body1"], pair["body2"], pair["shape1"], pair["shape2"]) == ("ground", disk, -1, -1)
    floor = window.document.model.data["ground"]["geometry"][0]
    assert floor["type"] == "box" and floor["center"][1] + floor["size"][1] / 2 == pytest.approx(0.5, abs=1e-9)
    assert window.document.selection == [("forces", pair["name"])]
    stack.undo()
    assert not forces_of(window, "contact_pair") and not window.document.model.data["ground"].get("geometry")
    assert stack.count() == before + 1  # (the undone step stays on the stack for redo)


def test_palette_contact_dropped_where_two_bodies_overlap_joins_them_at_once(window, ui):
    ui.palette_drag("disk", 0.0, 1.0)
    ui.palette_drag("block", 0.2, 1.0)  # overlaps the disk (r = 0.25 m) between x = 0 and 0.25
    n = window.document.undo_stack.count()
    ui.palette_drag("contact_pair", 0.1, 1.0)
    pairs = forces_of(window, "contact_pair")
    assert len(pairs) == 1 and window.document.undo_stack.count() == n + 1
    names = [b["name"] for b in window.document.model.data["bodies"]]
    assert (pairs[0]["body1"], pairs[0]["body2"]) == tuple(names[-2:])
    # the symbol is drawn and picked like a joint's
    a, _b = window.canvas._pair_symbols[pairs[0]["name"]]
    assert ("forces", pairs[0]["name"]) in window.canvas.pick_all(a)


# ---- inspector -------------------------------------------------------------------------------------------------
def test_inspector_edits_a_pairs_friction_with_undo(window):
    assert window.open_file(str(SAMPLES / "bouncing_ball.json"), ask=False)
    doc, ins = window.document, window.inspector
    doc.set_selection([("forces", "floor")])
    ins.refresh(force=True)
    e = ins.field("/forces/0/restitution")
    assert e.suffix().strip() == "-" and e.value() == pytest.approx(0.8)
    box = ins.field("/forces/0/friction_static:set")
    assert box is not None and not box.isChecked() and ins.field("/forces/0/friction_static") is None
    box.setChecked(True)
    for _ in range(3):
        __import__("PySide6.QtWidgets", fromlist=["QApplication"]).QApplication.processEvents()
    assert doc.model.data["forces"][0]["friction_static"] == pytest.approx(0.5)
    spin = ins.field("/forces/0/friction_static")
    spin.setValue(0.3)
    spin.editingFinished.emit()
    assert doc.model.data["forces"][0]["friction_static"] == pytest.approx(0.3)
    doc.undo_stack.undo()
    assert doc.model.data["forces"][0]["friction_static"] == pytest.approx(0.5)
    doc.undo_stack.undo()
    assert "friction_static" not in doc.model.data["forces"][0]


def test_inspector_shows_and_edits_a_rolling_disks_friction_and_restitution(window):
    assert window.open_file(str(SAMPLES / "disk_rolls_then_slips.json"), ask=False)
    doc, ins = window.document, window.inspector
    k, joint = next((i, j) for i, j in enumerate(doc.model.data["joints"]) if j["type"] == "planar_rolling_disk")
    doc.set_selection([("joints", joint["name"])])
    ins.refresh(force=True)
    spin = ins.field(f"/joints/{k}/friction_static")
    assert spin is not None and spin.suffix().strip() == "-"
    old = joint["friction_static"]
    spin.setValue(old + 0.1)
    spin.editingFinished.emit()
    assert doc.model.data["joints"][k]["friction_static"] == pytest.approx(old + 0.1)
    doc.undo_stack.undo()
    assert doc.model.data["joints"][k]["friction_static"] == pytest.approx(old)
    assert ins.field(f"/joints/{k}/restitution") is not None


# ---- a run in the main window (OpenGL) ---------------------------------------------------------------------------
@pytest.fixture
def live(qtbot: Any, messenger: Any, require_gl: None, monkeypatch: pytest.MonkeyPatch) -> Any:
    w = open_live_window(qtbot, messenger, monkeypatch, 1280, 900)
    yield w
    close_live_window(w)


def run_sample(qtbot: Any, w: Any, name: str, t_end: float | None = None) -> Any:
    assert w.open_file(str(SAMPLES / f"{name}.json"), ask=False)
    c = w.live.controller
    if t_end is not None:
        c.set_overrides(t_end=t_end)
    assert c.start()
    qtbot.waitUntil(lambda: c.state in ("finished", "failed", "stopped"), timeout=240000)
    assert c.state == "finished", c.last_error
    return c


def test_bouncing_ball_run_puts_its_events_on_the_time_bar_and_plots_and_arrows_at_the_contact(qtbot, live):
    c = run_sample(qtbot, live, "bouncing_ball")
    events = c.outcome["stats"]["events"]
    impacts = [ev for ev in events if ev["kind"] == "impact"]
    # the first impact at t1 = sqrt(2 h0 / g), h0 = 1 m (closed form; the engine's test checks it to 1e-9 s)
    assert impacts[0]["t"] == pytest.approx(math.sqrt(2 * 1.0 / 9.81), abs=1e-9)
    slider = live.live.slider
    qtbot.waitUntil(lambda: len(slider.events) == len(events))
    assert [ev["t"] for ev in slider.events] == [ev["t"] for ev in events]
    assert slider.span == pytest.approx(c.buffer.t_latest)
    # a tick sits where the handle is when the slider shows the event's time
    from PySide6.QtWidgets import QStyle, QStyleOptionSlider
    t1 = impacts[0]["t"]
    c.show_time(t1)
    qtbot.waitUntil(lambda: abs(slider.value() - round(1000 * t1 / slider.span)) <= 1)
    opt = QStyleOptionSlider()
    slider.initStyleOption(opt)
    handle = slider.style().subControlRect(QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderHandle,
                                           slider)
    assert abs(slider.tick_x(t1) - handle.center().x()) <= 2.0  # [px] the handle's integer position
    near = slider.events_near(slider.tick_x(t1))
    assert near and near[0]["t"] == t1
    from mechstudio.gui.simulation.event_ticks import describe_event
    assert "impact" in describe_event(near[0]) and "floor.0" in describe_event(near[0])
    for plot in live.live.plots.plots.values():
        assert list(plot.event_marks.times) == [ev["t"] for ev in events]
    # energy: total + dissipated is flat (a ball under gravity, nothing else does work) to the engine's 1e-8
    live.live.plots.refresh(c.buffer, force=True)
    curves = live.live.plots.energy.curves
    flat = curves["total + dissipated"].getData()[1]
    assert np.ptp(flat) <= 1e-8 * abs(flat[0])
    balance = curves["balance total − work"].getData()[1]
    assert np.ptp(balance) <= 1e-8 * abs(flat[0])
    # at rest (t = 4.5 s, after the last impact at 4.06 s): the contact point is the ball's lowest point, the normal
    # force m g acts upward from it
    c.show_time(4.5)
    canvas = live.canvas
    qtbot.waitUntil(lambda: bool(canvas.contact_arrows))
    i = int(np.argmin(np.abs(c.buffer.t - 4.5)))
    x, y = c.buffer.field("q")[i, :2]
    expected = (x, y - 0.1)  # the ball's radius
    name, what, tail, tip = canvas.contact_arrows[0]
    assert (name, what) == ("floor", "normal")
    assert tail == pytest.approx(expected, abs=1e-7)
    assert canvas.contact_marks[0].normal_force == pytest.approx((0.0, 9.81), abs=1e-6)
    v_tail, v_exp = canvas.world_to_view(*tail), canvas.world_to_view(*expected)
    assert abs(v_tail.x() - v_exp.x()) < 0.5 and abs(v_tail.y() - v_exp.y()) < 0.5  # [px]
    assert tip[1] > tail[1] and tip[0] == pytest.approx(tail[0], abs=1e-9)  # upward, into the ball


def test_disk_rolls_then_slips_friction_arrow_and_state(qtbot, live):
    c = run_sample(qtbot, live, "disk_rolls_then_slips")
    assert [ev["kind"] for ev in c.buffer.events] == [ev["kind"] for ev in c.outcome["stats"]["events"]]
    t_slip = next(ev["t"] for ev in c.buffer.events if ev["kind"] == "slip")
    for t, state in ((0.5 * t_slip, 1), (0.5 * (t_slip + c.buffer.t_latest), 2)):
        t = float(c.buffer.t[int(np.argmin(np.abs(c.buffer.t - t)))])  # an output frame: no interpolation
        c.show_time(t)
        qtbot.waitUntil(lambda: live.canvas.contact_marks and live.canvas.shown_time == pytest.approx(t))
        mk = live.canvas.contact_marks[0]
        assert mk.state == state
        i = int(np.argmin(np.abs(c.buffer.t - t)))
        # the arrows split the reported force: |normal part| and |friction part| are the columns' N and F
        assert math.hypot(*mk.normal_force) == pytest.approx(c.buffer.column("contact.roll.normal")[i], rel=1e-6)
        assert math.hypot(*mk.friction) == pytest.approx(abs(c.buffer.column("contact.roll.friction")[i]),
                                                         rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("name", CONTACT_SAMPLES)
def test_every_contact_sample_opens_runs_and_draws(qtbot, live, messenger, name):
    sample_t_end = json.loads((SAMPLES / f"{name}.json").read_text())["simulation"]["t_end"]
    c = run_sample(qtbot, live, name, t_end=min(1.0, sample_t_end))  # at most 1 s: the run, not its length, is tested
    assert not messenger.errors
    assert c.buffer.column_names and len(c.buffer.events) == len(c.outcome["stats"]["events"])
    for t in np.linspace(0.0, c.buffer.t_latest, 5):
        c.show_time(float(t))
        qtbot.wait(10)
    assert live.canvas.shown_time == pytest.approx(c.buffer.t_latest)
    live.live.plots.coordinates.add_series(c.buffer.column_names[0])
    live.live.plots.refresh(c.buffer, force=True)
    time.sleep(0.01)


def test_inspector_adds_joint_friction_to_a_revolute_with_undo(window):
    """A plain revolute offers its optional friction fields (declared by the element: core/elements/revolute.py):
    ticking mu_s adds it with the pin_radius it needs, as one undo step."""
    assert window.open_file(str(SAMPLES / "pendulum.json"), ask=False)
    doc, ins = window.document, window.inspector
    k, joint = next((i, j) for i, j in enumerate(doc.model.data["joints"]) if j["type"] == "revolute")
    doc.set_selection([("joints", joint["name"])])
    ins.refresh(force=True)
    box = ins.field(f"/joints/{k}/friction_static:set")
    assert box is not None and not box.isChecked() and "friction_static" not in joint
    box.setChecked(True)
    for _ in range(3):
        __import__("PySide6.QtWidgets", fromlist=["QApplication"]).QApplication.processEvents()
    added = doc.model.data["joints"][k]
    assert added["friction_static"] == pytest.approx(0.2) and added["pin_radius"] == pytest.approx(0.01)
    assert ins.field(f"/joints/{k}/pin_radius") is not None
    doc.undo_stack.undo()  # one step: both fields go
    assert "friction_static" not in doc.model.data["joints"][k] and "pin_radius" not in doc.model.data["joints"][k]
