"""The canvas's linkage overlays (gui/analysis/overlays.py, gui/editor/analysis_overlay.py): switched from the View
menu and from the Linkage report, drawn where the core's analyses put things, following zoom and pan, never
picked, never an undo step; a model they do not apply to gets a message, not an exception.

Independent checks: an instant centre of a link pivoted on the ground is that pivot (a ground point of the file);
the centre of two links joined by a revolute joint is the joint (its position on the canvas's own geometry); a
crank-rocker's limit positions are where the output joint B is b + a and b - a from the crank pivot (the
crank and coupler collinear, Norton ch. 4), the intersection of those circles with the rocker's circle about O4;
a slider-crank's transmission angle is 90 degrees - |beta|, sin(beta) = (e - r sin(theta)) / l.

Tolerances: marker positions are painted at the viewport pixels of the world points (the view's own transform),
compared with ``canvas.world_to_view`` of the expected points to 0.01 px (both are the same floating-point
mapping; 0.01 px allows for its roundings); world positions to 1e-9 m (Newton's assembly tolerance is 1e-12 m
and the closed forms are exact); the limit positions to 1e-6 m (the sweep refines the crank angle to 1e-12 rad,
but B moves as the square root of the distance from the fold: see docs/analysis-linkage.md).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from mechstudio.core.analysis.linkage import Linkage, instant_centres
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.systems.compile import compile_model
from tests.gui.document_helpers import click_menu_title

pytestmark = pytest.mark.gui
SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"
PX_TOL = 0.01
M_TOL = 1e-9


def open_sample(window: Any, name: str) -> Any:
    assert window.open_file(str(SAMPLES / f"{name}.json"), ask=False)
    return window.linkage_overlays


def tangent(system: Any, q: Any) -> Any:
    """The one-degree-of-freedom linkage's velocities per unit crank rate (core's Linkage.tangent): every
    velocity state is a multiple of it, and the centres do not depend on the multiple."""
    return Linkage(system).tangent(q)


def painted(window: Any) -> Any:
    """Paint the canvas now; what the overlays painted."""
    window.canvas.viewport().repaint()
    return window.linkage_overlays.painted


def close_px(a: QPointF, b: QPointF, tol: float = PX_TOL) -> bool:
    return math.hypot(a.x() - b.x(), a.y() - b.y()) <= tol


def switch_from_view_menu(qtbot: Any, window: Any, action: Any) -> None:
    """View → Linkage overlays → ``action``, clicked as a user does."""
    click_menu_title(qtbot, window, window.menu_view)
    view = window.menu_view
    sub = window.linkage_overlays.menu
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     view.actionGeometry(sub.menuAction()).center())
    qtbot.waitUntil(sub.isVisible, timeout=3000)
    before = action.isChecked()
    QTest.mouseClick(sub, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     sub.actionGeometry(action).center())
    qtbot.waitUntil(lambda: action.isChecked() != before, timeout=3000)
    for menu in (sub, view):  # (whether the menus close by themselves depends on the style)
        menu.hide()


def test_centre_markers_are_the_cores_centres_and_follow_zoom_and_pan(qtbot: Any, window: Any) -> None:
    ov = open_sample(window, "four_bar")
    assert painted(window) is None  # nothing is drawn until switched on
    switch_from_view_menu(qtbot, window, ov.act_centres)
    assert ov.act_centres.isChecked() and ov.act_kennedy.isEnabled()
    canvas, a = window.canvas, window.document.analysis
    system, q = a.system, a.q
    centres = instant_centres(system, q, tangent(system, q))
    labels = {("crank", "ground"): "I12", ("coupler", "ground"): "I13", ("rocker", "ground"): "I14",
              ("crank", "coupler"): "I23", ("crank", "rocker"): "I24", ("coupler", "rocker"): "I34"}
    assert set(centres) == set(labels)
    ground = window.document.model.data["ground"]["points"]
    joints = {j.name: j.p2 for j in canvas.geometry.joints}
    # independent: pivots on the ground and the joints between links are permanent centres
    assert centres[("crank", "ground")].point == pytest.approx(ground["O"], abs=M_TOL)
    assert centres[("rocker", "ground")].point == pytest.approx(ground["D"], abs=M_TOL)
    assert centres[("crank", "coupler")].point == pytest.approx(joints["A"], abs=M_TOL)
    assert centres[("coupler", "rocker")].point == pytest.approx(joints["B"], abs=M_TOL)
    for view in ((None, None), (60.0, (1.0, 2.0)), (180.0, (2.0, 1.0))):  # as opened, zoomed out, zoomed in
        if view[0] is not None:
            canvas.set_view(*view)
        out = painted(window)
        for pair, c in centres.items():
            label = labels[pair]
            at = canvas.world_to_view(*c.point)
            if canvas.viewport().rect().adjusted(8, 8, -8, -8).contains(at.toPoint()):
                assert label in out.markers, (label, view)
                assert close_px(out.markers[label], at), (label, out.markers[label], at)
            else:  # off the viewport: an arrow at its edge
                assert label in out.edge_marks and label not in out.markers, (label, view)
        assert {t for t, _r in out.labels} >= {lab for lab in out.markers}
    assert any(n.startswith("instant centres, links: 1 ground, 2 crank, 3 coupler, 4 rocker") for n in out.notes)


def test_kennedy_lines_only_with_the_centres(qtbot: Any, window: Any) -> None:
    ov = open_sample(window, "four_bar")
    assert not ov.act_kennedy.isEnabled()
    ov.act_centres.setChecked(True)
    ov.act_kennedy.setChecked(True)
    picture = ov.update_picture()
    assert len(picture.kennedy) == 4  # one line per three of the four links
    for line in picture.kennedy:  # each passes through the named centres' markers
        marks = {m.label: m for m in picture.centres}
        d = np.asarray(line.direction)
        for lab in line.labels:
            p = marks[lab].point
            if p is not None:
                off = np.asarray(p) - np.asarray(line.through)
                assert abs(off[0] * d[1] - off[1] * d[0]) <= 1e-9 * (1 + np.linalg.norm(off))
    ov.act_centres.setChecked(False)
    assert not ov.act_kennedy.isEnabled() and ov.update_picture().kennedy == ()


def test_switching_overlays_adds_no_undo_step_and_is_never_picked(qtbot: Any, window: Any) -> None:
    ov = open_sample(window, "four_bar")
    doc, canvas = window.document, window.canvas
    model, depth = doc.model, doc.undo_stack.count()
    items = len(canvas.scene().items())
    for action in ov.switches:
        action.setChecked(True)
    qtbot.waitUntil(lambda: ov.sweep is not None and ov.sweep.model == doc.model, timeout=30000)
    out = painted(window)
    assert out is not None and out.markers and out.arc is not None and out.ghost_anchors
    assert len(canvas.scene().items()) == items  # painted over the scene, not items in it
    # a click on the coupler's instant centre I13 (empty space) selects nothing: a marker is not an item
    ic = instant_centres(doc.analysis.system, doc.analysis.q, tangent(doc.analysis.system, doc.analysis.q))
    p13 = ic[("coupler", "ground")].point
    canvas.set_view(60.0, p13)
    out = painted(window)
    assert "I13" in out.markers
    QTest.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     canvas.view_point(*p13))
    assert doc.selection == []
    for action in ov.switches:
        action.setChecked(False)
    assert doc.undo_stack.count() == depth and doc.model == model and not doc.modified
    assert painted(window) is None


def test_the_linkage_report_switches_the_same_overlays(qtbot: Any, window: Any) -> None:
    from mechstudio.gui.analysis import analysis_dialog
    ov = open_sample(window, "four_bar")
    depth = window.document.undo_stack.count()
    dialog = analysis_dialog(window, "linkage")
    qtbot.waitUntil(lambda: dialog.outcome is not None and not dialog.worker.is_running(), timeout=30000)
    box = dialog.overlay_boxes[ov.act_transmission.objectName()]
    QTest.mouseClick(box, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPointF(8, box.height() / 2).toPoint())
    assert box.isChecked() and ov.act_transmission.isChecked()
    ov.act_limits.setChecked(True)
    assert dialog.overlay_boxes[ov.act_limits.objectName()].isChecked()
    assert ov.sweep is dialog.outcome  # the report's sweep is used: no second computation
    assert len(ov.update_picture().ghosts) == 2
    assert window.document.undo_stack.count() == depth
    dialog.close()


def test_limit_positions_of_the_crank_rocker_are_the_closed_form(qtbot: Any, window: Any) -> None:
    ov = open_sample(window, "four_bar")
    ov.act_limits.setChecked(True)
    qtbot.waitUntil(lambda: ov.sweep is not None and ov.sweep.model == window.document.model, timeout=30000)
    ghosts = ov.update_picture().ghosts
    # closed form (Norton ch. 4): crank and coupler collinear, |O2 B| = b + a or b - a, |O4 B| = c
    a, b, c, d = 1.0, 3.5, 3.0, 4.0
    expected = []
    for R in (b + a, b - a):
        x = (R * R - c * c + d * d) / (2 * d)
        expected.append((x, math.sqrt(R * R - x * x)))  # the branch of the file's pose: B above the ground line
    assert sorted(g.anchor for g in ghosts) == [pytest.approx(e, abs=1e-6) for e in sorted(expected)]
    assert all(g.kind == "limit" and g.label.startswith("limit θ2 = ") for g in ghosts)
    out = painted(window)
    for g in ghosts:  # the ghosts' labels sit at B of their poses on the screen
        assert close_px(out.ghost_anchors[g.label], window.canvas.world_to_view(*g.anchor))
        assert len(g.segments) == 3  # crank, coupler and rocker outlined


def test_a_playback_frame_of_the_slider_crank(qtbot: Any, window: Any) -> None:
    """The overlays of a run's frame shown on the canvas (as playback shows it): centres from that frame's q and
    q', the slider's centre at infinity, the transmission angle at B against the closed form."""
    ov = open_sample(window, "slider_crank_driven")
    ov.act_centres.setChecked(True)
    ov.act_transmission.setChecked(True)
    system = compile_model(window.document.model)
    run = driven_motion(system, np.linspace(0.0, 0.3, 31))
    k = 17
    q, v, t = run.q[k], run.v[k], float(run.t[k])
    window.canvas.show_configuration(system, q, t)
    out = painted(window)
    centres = instant_centres(system, q, v)  # the frame's own velocities
    slider = centres[("slider", "ground")]
    assert slider.at_infinity and "I14" in out.edge_marks and "I14" not in out.markers
    assert any(n.startswith("I14 at infinity") for n in out.notes)
    labels = {m.pair: m.label for m in ov.picture.centres}
    assert {"I12", "I23", "I34"} <= set(out.markers)
    for pair, c in centres.items():
        if labels[pair] in out.markers:
            assert close_px(out.markers[labels[pair]], window.canvas.world_to_view(*c.point)), pair
    # the transmission angle: at B, the closed form mu = 90 deg - |beta|, sin(beta) = (e - r sin theta) / l
    arc = ov.picture.arc
    joint_b = next(j.p2 for j in window.canvas.geometry.joints if j.name == "B")
    assert arc.vertex == pytest.approx(joint_b, abs=M_TOL)
    assert close_px(out.arc, window.canvas.world_to_view(*joint_b))
    names = list(system.coord_names)
    theta = q[names.index("crank.phi")]
    r, l, e = 1.0, 3.0, 0.0
    mu = math.pi / 2 - abs(math.asin((e - r * math.sin(theta)) / l))
    assert arc.value_rad == pytest.approx(mu, abs=1e-9)
    assert arc.text == f"μ = {math.degrees(mu):.1f}°"
    assert any(text == arc.text for text, _r in out.labels)


@pytest.mark.parametrize("sample, words", [
    ("parallelogram", "not a four-bar or slider-crank: it has 4 moving bodies"),
    ("spherical_pendulum", "planar models only"),
])
def test_a_model_the_overlay_does_not_apply_to_gets_a_message(qtbot: Any, window: Any, sample: str,
                                                                words: str) -> None:
    ov = open_sample(window, sample)
    window.statusBar().clearMessage()
    ov.act_transmission.setChecked(True)
    assert words in window.statusBar().currentMessage()
    assert words in ov.reasons[ov.act_transmission.objectName()]
    assert words in ov.act_transmission.toolTip()
    out = painted(window)
    assert out is not None and out.arc is None and any(words in n for n in out.notes)
    ov.act_limits.setChecked(True)
    out = painted(window)
    assert out.ghost_anchors == {}


def test_centres_of_a_mechanism_with_two_degrees_of_freedom_need_its_velocities(qtbot: Any, window: Any) -> None:
    ov = open_sample(window, "double_pendulum")
    window.statusBar().clearMessage()
    ov.act_centres.setChecked(True)
    assert "2 degrees of freedom" in window.statusBar().currentMessage()
    out = painted(window)
    assert out.markers == {} and any("depend on the velocities" in n for n in out.notes)


def test_centres_of_a_run_frame_use_its_velocities(qtbot: Any, messenger: Any, monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    """A double pendulum has two degrees of freedom: while a run's frame is shown (scrubbed to), the centres are
    those of that frame's q and q' (the run's output frames, as the CSV has them)."""
    import json
    from tests.gui.document_helpers import close_window, run_to_end, start_window
    data = json.loads((SAMPLES / "double_pendulum.json").read_text())
    data["simulation"].update(t_end=0.5, dt=0.05)
    path = tmp_path / "double_pendulum_short.json"
    path.write_text(json.dumps(data))
    w = start_window(qtbot, messenger, monkeypatch, path=str(path))  # skips without OpenGL
    ov = w.linkage_overlays
    ov.act_centres.setChecked(True)
    c = run_to_end(qtbot, w)
    c.show_time(0.25)  # a frame time: q and q' are the frame's own
    qtbot.waitUntil(lambda: w.canvas.shown_time == pytest.approx(0.25), timeout=5000)
    system, q, t = w.canvas.shown_configuration
    k = int(np.argmin(np.abs(c.buffer.t - 0.25)))
    assert np.array_equal(q, c.buffer.field("q")[k])
    out = painted(w)
    centres = instant_centres(system, q, c.buffer.field("v")[k])
    labels = {m.pair: m.label for m in ov.picture.centres}
    assert {"I12", "I23"} <= set(out.markers)
    for pair, centre in centres.items():
        if labels[pair] in out.markers:
            assert close_px(out.markers[labels[pair]], w.canvas.world_to_view(*centre.point)), pair
    # the lower link's centre is at no joint: where it is depends on this frame's velocities
    p13 = centres[("lower", "ground")].point
    assert p13 is not None and labels[("lower", "ground")] == "I13"
    w.canvas.set_view(w.canvas.scale_px, p13)
    out = painted(w)
    assert close_px(out.markers["I13"], w.canvas.world_to_view(*p13))
    close_window(qtbot, w)


def overlapping_labels(window: Any, out: Any) -> list[tuple[str, str]]:
    """Pairs of overlay labels that overlap each other or a label of the canvas."""
    from mechstudio.gui.editor.analysis_overlay import canvas_label_rects
    own = out.labels
    pairs = [(a[0], b[0]) for i, a in enumerate(own) for b in own[i + 1:] if a[1].intersects(b[1])]
    for rect in canvas_label_rects(window.canvas):
        pairs += [(text, "canvas label") for text, r in own if r.intersects(rect)]
    return pairs


@pytest.mark.parametrize("sample", ["four_bar", "slider_crank_driven"])
def test_screenshot_every_overlay_and_no_label_overlaps(qtbot: Any, window: Any, ui: Any, sample: str) -> None:
    ov = open_sample(window, sample)
    window.canvas.zoom_to_fit()
    for action in ov.switches:
        action.setChecked(True)
    qtbot.waitUntil(lambda: ov.sweep is not None and ov.sweep.model == window.document.model, timeout=30000)
    if sample == "slider_crank_driven":  # a frame of the driven motion, as playback shows it
        system = compile_model(window.document.model)
        run = driven_motion(system, np.linspace(0.0, 0.15, 16))
        window.canvas.show_configuration(system, run.q[-1], float(run.t[-1]))
    out = painted(window)
    assert out.markers and out.arc is not None and len(out.ghost_anchors) == 2
    assert overlapping_labels(window, out) == []
    path = ui.save_screenshot(window.canvas, f"overlays_{sample}.png")
    assert ui.non_background_fraction(path) > 0.02
