"""Mode animation from the Modes dialog (gui/analysis/mode_animation.py, gui/analysis/dialogs.py): the canvas shows
the mechanism vibrating in the chosen mode, on its constraints, without touching the document; it stops on Stop,
when the model is edited, and where nothing can be animated the dialog says why.

Independent checks: every shown pose closes the joints (||Phi|| at the pose, evaluated here on the compiled
system) and keeps the bars' lengths (the distance between the joints of each bar, from the shown q as in
core/systems/points.py: r + A(phi)(s' - c')); the shown motion is the core's mode: its component in the null space
V of Phi_q at the equilibrium, V^T (q - q*), is the mode's reduced shape times a sin(2 pi t / T) (exact for the
chart q* + V z + U_c w(z), since V^T U_c = 0); the amplitude is the largest displacement of a drawn point as a
fraction of the mechanism's size (the bars' ends, whose displacement is the largest in a pendulum's mode).

Tolerances: ||Phi|| <= 1e-12 m (the chart's Newton stops at 1e-14; 1e-12 leaves room for the evaluation's
roundings at lengths of 1 m); bar lengths to 1e-12 m for the same reason; V^T (q - q*) to 1e-12 (roundings of a
sum of n = 6 products of numbers of order 1); the amplitude to 1 % (first order in a: the chord of a 2 % swing
differs from the arc by (0.04)^2 / 24 relative, the constraint correction by O(a^2) ~ 4e-4 relative).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from mechstudio.core.analysis.modes import modal_analysis
from tests.gui.document_helpers import click_menu_entry, click_menu_title

pytestmark = pytest.mark.gui
SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"
PHI_TOL = 1e-12


def open_modes(qtbot: Any, window: Any, sample: str) -> Any:
    """Open ``sample``, then Analysis → Modes… clicked; the dialog once its result is shown."""
    assert window.open_file(str(SAMPLES / f"{sample}.json"), ask=False)
    click_menu_title(qtbot, window, window.menu_analysis)
    click_menu_entry(qtbot, window.menu_analysis, "act_modes")
    qtbot.waitUntil(lambda: "modes" in window.analysis_dialogs, timeout=5000)
    dialog = window.analysis_dialogs["modes"]
    qtbot.waitUntil(lambda: dialog.outcome is not None and not dialog.worker.is_running(), timeout=60000)
    return dialog


def click(widget: Any) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, widget.rect().center())


def bar_ends(model_data: dict[str, Any], names: list[str], q: np.ndarray) -> dict[str, list[np.ndarray]]:
    """The world ends a, b [m] of every bar body at q: each at r + A(phi) (s' - c') ([003],
    core/systems/points.py)."""
    out = {}
    for b in model_data["bodies"]:
        r = np.array([q[names.index(f"{b['name']}.x")], q[names.index(f"{b['name']}.y")]])
        phi = q[names.index(f"{b['name']}.phi")]
        A = np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])
        c = np.asarray(b["com"], float)
        out[b["name"]] = [r + A @ (np.asarray(b["points"][k], float) - c) for k in ("a", "b")]
    return out


def bar_lengths(model_data: dict[str, Any], names: list[str], q: np.ndarray) -> dict[str, float]:
    """|b - a| of every bar body at q."""
    return {name: float(np.linalg.norm(b - a)) for name, (a, b) in bar_ends(model_data, names, q).items()}


def test_a_mode_animates_on_the_constraints_and_leaves_the_document(qtbot: Any, window: Any) -> None:
    dialog = open_modes(qtbot, window, "double_pendulum")
    doc, canvas, animator = window.document, window.canvas, window.mode_animator
    model, depth = doc.model, doc.undo_stack.count()
    system = dialog.outcome.system
    res = modal_analysis(system)  # the core's own result, computed here again
    assert res.status.ok and len(res.modes) == 2
    assert dialog.mode_box.count() == 2 and dialog.animate_button.isEnabled()
    dialog.mode_box.setCurrentIndex(1)
    click(dialog.animate_button)
    assert animator.running and "mode 2" in dialog.animation_status.text()
    assert dialog.stop_button.isEnabled()
    start = animator.frames_shown
    qtbot.waitUntil(lambda: animator.frames_shown >= start + 5, timeout=10000)  # the timer moves the views

    lin, mode = res.linearisation, res.modes[1]
    names = list(system.coord_names)
    lengths = bar_lengths(model.data, names, lin.q)
    motion = animator.motion
    x = mode.reduced_shape / (lin.basis @ mode.reduced_shape)[np.argmax(np.abs(lin.basis @ mode.reduced_shape))]
    moved = 0.0
    for t in np.linspace(0.0, motion.shown_period, 13):
        assert animator.show_at(float(t))
        shown = canvas.shown_configuration
        assert shown is not None and shown[0] is system
        q = shown[1]
        assert np.linalg.norm(system.phi(q, 0.0)) <= PHI_TOL
        assert bar_lengths(model.data, names, q) == pytest.approx(lengths, abs=PHI_TOL)
        z = lin.basis.T @ (q - lin.q)
        want = motion.amplitude * math.sin(2 * math.pi * t / motion.shown_period) * x
        assert z == pytest.approx(want, abs=PHI_TOL)
        moved = max(moved, float(np.max(np.abs(q - lin.q))))
    assert moved > 0.05  # it does move (about 0.2 rad at the default amplitude)

    click(dialog.stop_button)
    assert not animator.running and canvas.shown_configuration is None
    assert doc.model == model and doc.undo_stack.count() == depth and not doc.modified
    assert "Stopped animating mode 2" in dialog.animation_status.text()


def test_the_amplitude_is_the_largest_displacement_as_a_fraction_of_the_size(qtbot: Any, window: Any) -> None:
    dialog = open_modes(qtbot, window, "double_pendulum")
    animator = window.mode_animator
    dialog.amplitude_box.setValue(2)
    assert dialog.animate() == ""
    animator.timer.stop()  # poses at chosen times only
    motion = animator.motion
    system, q0 = motion.system, motion.linearisation.q
    data, names = window.document.model.data, list(system.coord_names)
    ends0 = bar_ends(data, names, q0)
    # the size: the bounding box of the bars' ends and the ground point at the equilibrium (2 m, hanging)
    box = np.array([p for ends in ends0.values() for p in ends] + [data["ground"]["points"]["O"]])
    size = float(np.max(np.ptp(box, axis=0)))
    assert size == pytest.approx(2.0, abs=1e-9)
    for value in (2, 4):
        dialog.amplitude_box.setValue(value)
        assert animator.show_at(motion.shown_period / 4)  # sin = 1
        ends = bar_ends(data, names, animator.last_q)
        largest = max(float(np.linalg.norm(e - e0)) for k in ends for e, e0 in zip(ends[k], ends0[k]))
        assert largest == pytest.approx(value / 100 * size, rel=0.01)
    animator.stop()


def test_an_edit_stops_the_animation(qtbot: Any, window: Any, ui: Any) -> None:
    dialog = open_modes(qtbot, window, "double_pendulum")
    animator, canvas, doc = window.mode_animator, window.canvas, window.document
    click(dialog.animate_button)
    qtbot.waitUntil(lambda: animator.frames_shown >= 2, timeout=10000)
    assert canvas.shown_configuration is not None
    depth = doc.undo_stack.count()
    ui.drag_canvas([(0.0, 0.0), (0.1, 0.0), (0.2, 0.0)])  # the ground point O, dragged
    assert doc.undo_stack.count() == depth + 1  # the user's edit, and only that
    assert not animator.running and canvas.shown_configuration is None
    assert "the model was edited" in dialog.animation_status.text()
    frames = animator.frames_shown
    QTest.qWait(150)
    assert animator.frames_shown == frames  # no more frames
    assert not dialog.animate_button.isEnabled()  # the modes belong to the old model: Run again first


def test_closing_the_dialog_stops_and_restores_the_pose(qtbot: Any, window: Any) -> None:
    dialog = open_modes(qtbot, window, "double_pendulum")
    animator = window.mode_animator
    click(dialog.animate_button)
    assert animator.running
    dialog.close()
    assert not animator.running and window.canvas.shown_configuration is None


def test_a_driven_model_has_nothing_to_animate_and_says_why(qtbot: Any, window: Any) -> None:
    dialog = open_modes(qtbot, window, "slider_crank_driven")
    assert dialog.mode_box.count() == 0 and not dialog.animate_button.isEnabled()
    assert dialog.animate() == "no modes of the current model: Run again"
    assert not window.mode_animator.running and window.canvas.shown_configuration is None


def test_instant_centres_of_an_animated_mode(qtbot: Any, window: Any) -> None:
    """With the overlays on, the centres of the animated pose come from the mode's motion: the upper link turns
    about the pivot O (I12) and the two links' relative centre is the elbow joint (I23)."""
    dialog = open_modes(qtbot, window, "double_pendulum")
    animator, canvas = window.mode_animator, window.canvas
    overlays = window.linkage_overlays
    overlays.act_centres.setChecked(True)
    dialog.mode_box.setCurrentIndex(0)
    assert dialog.animate() == ""
    animator.timer.stop()
    assert animator.show_at(0.3)
    canvas.viewport().repaint()
    out = overlays.painted
    joints = {j.name: j.p2 for j in canvas.geometry.joints}
    assert math.hypot(out.markers["I12"].x() - canvas.world_to_view(*joints["O"]).x(),
                      out.markers["I12"].y() - canvas.world_to_view(*joints["O"]).y()) <= 0.01
    assert math.hypot(out.markers["I23"].x() - canvas.world_to_view(*joints["elbow"]).x(),
                      out.markers["I23"].y() - canvas.world_to_view(*joints["elbow"]).y()) <= 0.01
    animator.stop()


def test_the_3d_view_shows_the_mode_too(qtbot: Any, messenger: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from mechstudio.gui.analysis import analysis_dialog
    from tests.gui.document_helpers import close_window, start_window
    w = start_window(qtbot, messenger, monkeypatch, path=str(SAMPLES / "double_pendulum.json"))  # skips without GL
    view = w.live.controller.view
    drawn: list[tuple[np.ndarray, float]] = []
    set_state = view.set_state

    def spy(q: Any, t: float, *args: Any, **kwargs: Any) -> None:
        drawn.append((np.array(q, dtype=float), float(t)))
        set_state(q, t, *args, **kwargs)
    monkeypatch.setattr(view, "set_state", spy)
    dialog = analysis_dialog(w, "modes")
    qtbot.waitUntil(lambda: dialog.outcome is not None and not dialog.worker.is_running(), timeout=60000)
    animator = w.mode_animator
    assert dialog.animate() == "" and animator.uses_3d
    animator.timer.stop()
    assert animator.show_at(0.7)
    q_canvas = w.canvas.shown_configuration[1]
    assert drawn[-1][1] == 0.7 and np.array_equal(drawn[-1][0], q_canvas)  # the same pose in both views
    animator.stop()
    assert np.array_equal(drawn[-1][0], w.document.analysis.q) and drawn[-1][1] == 0.0  # the model's pose again
    dialog.close()
    close_window(qtbot, w)


def test_screenshot_of_a_mode_frame(qtbot: Any, window: Any, ui: Any) -> None:
    dialog = open_modes(qtbot, window, "double_pendulum")
    window.linkage_overlays.act_centres.setChecked(True)
    dialog.mode_box.setCurrentIndex(1)
    assert dialog.animate() == ""
    window.mode_animator.timer.stop()
    assert window.mode_animator.show_at(0.2)
    window.canvas.zoom_to_fit()
    window.canvas.viewport().repaint()
    assert set(window.linkage_overlays.painted.markers) == {"I12", "I13", "I23"}
    path = ui.save_screenshot(window, "mode_double_pendulum.png")
    assert ui.non_background_fraction(path) > 0.02
    window.mode_animator.stop()
