"""*Analysis → Synthesize linkage…*: targets picked by real clicks on the canvas (over the four-bar sample's links:
the clicks must neither select nor move anything, nor add undo steps), the search on a worker thread with its
candidates drawn as they arrive, Stop, Open as model, and bad input as a message.

The targets are the sample four-bar's own coupler points (crank 1, coupler 3.5, rocker 3, ground 4 m, coupler point
(1.2, 1.0) in the coupler frame: tests/test_analysis_synthesis.py's SAMPLE), clicked at whole pixels: a click moves a
point by at most half a pixel (~1/200 of a metre at the fitted zoom), but 8 points fix fewer conditions than a
four-bar's coupler curve has parameters (Burmester-Roberts: up to 9 points), so an exact linkage through the clicked
points still exists and the search must meet the default tolerance (1e-4 of the longest link) within its budget.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPixmap, QTransform
from PySide6.QtTest import QTest

from mechstudio.core.analysis.synthesis import Candidate, SynthesisResult
from mechstudio.core.analysis.synthesis_fourbar import FourBarGeometry
from mechstudio.core.model import edit, load_model, save_model
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status
from conftest import SAMPLES, canvas_press_move_release
from mechstudio.gui.analysis.synthesis_panel import OPEN_TEXT, SynthesisDialog, synthesis_dialog

SAMPLE = FourBarGeometry(0.0, 0.0, 0.0, 4.0, 1.0, 3.5, 3.0, 1.2, 1.0, 1)
#: the search's budget in the tests [s]: the sample's 8 points converge in about 1 s on this machine
BUDGET_S = 40


def sample_targets() -> np.ndarray:
    theta = 0.3 + 2 * math.pi * np.arange(8) / 8
    return SAMPLE.coupler_point(theta)


def open_dialog(qtbot: Any, window: Any, sample: bool = True) -> SynthesisDialog:
    if sample:
        assert window.open_file(str(SAMPLES / "four_bar.json"), ask=False)
    window.act_synthesize_linkage.trigger()
    dialog = window.synthesis_dialog
    qtbot.waitExposed(dialog)
    dialog.move(window.geometry().right() - dialog.width() - 20, window.geometry().top() + 60)
    canvas = window.canvas  # 100 px/m around the sample and its coupler curve
    canvas.setTransform(QTransform.fromScale(100.0, -100.0))
    canvas.centerOn(QPointF(1.7, 1.0))
    canvas.rebuild()
    return dialog


def click(canvas: Any, x: float, y: float, button: Any = Qt.MouseButton.LeftButton) -> None:
    QTest.mouseClick(canvas.viewport(), button, Qt.KeyboardModifier.NoModifier, canvas.view_point(x, y))


def pick(qtbot: Any, dialog: SynthesisDialog, points: np.ndarray) -> None:
    QTest.mouseClick(dialog.pick_button, Qt.MouseButton.LeftButton)
    assert dialog.picking
    canvas = dialog.canvas
    rect = canvas.viewport().rect()
    for x, y in points:
        assert rect.contains(canvas.view_point(x, y)), "the target must be on screen"
        click(canvas, x, y)


def test_menu_entry_and_picking_adds_numbered_targets_without_edits(qtbot: Any, window: Any) -> None:
    dialog = open_dialog(qtbot, window)
    assert not dialog.isModal()
    doc = window.document
    undo_before = doc.undo_stack.count()
    targets = sample_targets()
    # without picking, a click on the coupler selects it
    coupler = window.canvas.geometry.body("coupler").com
    click(window.canvas, *coupler)
    assert doc.selection == [("bodies", "coupler")]
    doc.set_selection([])
    pick(qtbot, dialog, targets)
    assert len(dialog.targets) == 8
    # each target is where it was clicked: within a pixel of the intended point
    px = 1.0 / window.canvas.scale_px
    assert np.max(np.linalg.norm(np.array(dialog.targets) - targets, axis=1)) <= px
    assert doc.selection == [] and doc.undo_stack.count() == undo_before and not doc.modified
    # a drag from the coupler in picking mode moves nothing either (the press adds a target)
    before = doc.model.data
    canvas_press_move_release(qtbot, window.canvas, [coupler, (coupler[0] + 0.5, coupler[1])])
    assert doc.model.data == before and doc.undo_stack.count() == undo_before
    assert len(dialog.targets) == 9 and doc.selection == []
    dialog.targets_table.clearSelection()
    dialog.remove_button.click()  # nothing selected: the last target
    assert len(dialog.targets) == 8
    window.canvas.viewport().repaint()
    assert sorted(dialog.painted) == list(range(1, 9)), "every target is drawn with its number"
    # Esc in the canvas ends picking; a click then selects again
    QTest.keyClick(window.canvas, Qt.Key.Key_Escape)
    assert not dialog.picking
    click(window.canvas, *coupler)
    assert len(dialog.targets) == 8 and doc.selection == [("bodies", "coupler")]
    dialog.clear_button.click()
    assert dialog.targets == [] and dialog.targets_table.rowCount() == 0
    assert not dialog.synthesize() and "at least 5" in dialog.headline.text()
    assert doc.undo_stack.count() == undo_before and not doc.modified


def test_synthesize_shows_candidates_and_opens_the_best_as_a_model(qtbot: Any, window: Any, messenger: Any,
                                                                    tmp_path: Path) -> None:
    dialog = open_dialog(qtbot, window)
    pick(qtbot, dialog, sample_targets())
    dialog.time_spin.setValue(BUDGET_S)
    seen: list[Candidate] = []
    dialog.sig_candidate.connect(seen.append)
    with qtbot.waitSignal(dialog.sig_finished, timeout=(BUDGET_S + 30) * 1000) as blocker:
        QTest.mouseClick(dialog.synth_button, Qt.MouseButton.LeftButton)
        assert not dialog.picking and dialog.stop_button.isEnabled()
    res: SynthesisResult = blocker.args[0]
    assert len(seen) >= 1
    assert res.status == Status.CONVERGED, res.message
    tol = float(dialog.tolerance_edit.text())
    assert res.best.error <= tol
    assert "error" in dialog.details.text() and dialog.headline.text() == res.message
    # the candidate is drawn: its coupler curve passes within a pixel of every clicked target
    window.canvas.viewport().repaint()
    picture = dialog.picture
    assert picture.linkage is not None and len(picture.curve) > 100
    curve = np.array(picture.curve)
    step = float(np.max(np.linalg.norm(np.diff(curve, axis=0), axis=1)))
    assert all(np.min(np.linalg.norm(curve - t, axis=1)) <= step for t in dialog.targets)
    # Open as model, the current document modified: the window asks; "cancel" keeps it
    moved = edit.set_ground_point(window.document.model, "D", (4.0, 0.1))
    assert window.document.push_edit(moved, "Move ground point D")
    kept = window.document.model
    messenger.save_answer = "cancel"
    QTest.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    assert messenger.questions and window.document.model is kept
    messenger.save_answer = "discard"
    QTest.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    doc = window.document
    assert doc.model is not kept and doc.path is None
    assert doc.undo_stack.count() == 1 and doc.undo_stack.text(0) == OPEN_TEXT
    assert {b["name"] for b in doc.model.data["bodies"]} == {"crank", "coupler", "rocker"}
    path = tmp_path / "synth.json"
    save_model(doc.model, path)
    system = compile_model(load_model(path))
    assert system is not None


def test_stop_cancels_with_the_best_so_far(qtbot: Any, window: Any) -> None:
    dialog = open_dialog(qtbot, window)
    # 12 points of a square's outline: no four-bar's coupler curve passes them all, the search would use its budget
    side = np.linspace(-1.0, 1.0, 4)[:-1]
    square = np.concatenate([np.c_[side, -np.ones(3)], np.c_[np.ones(3), side], np.c_[-side, np.ones(3)],
                             np.c_[-np.ones(3), -side]]) + np.array([2.0, 1.0])
    pick(qtbot, dialog, square)
    dialog.time_spin.setValue(600)
    with qtbot.waitSignal(dialog.sig_candidate, timeout=60_000):
        dialog.synth_button.click()
    with qtbot.waitSignal(dialog.sig_finished, timeout=60_000) as blocker:
        QTest.mouseClick(dialog.stop_button, Qt.MouseButton.LeftButton)
    res: SynthesisResult = blocker.args[0]
    assert res.status == Status.CANCELLED and res.best is not None
    assert dialog.open_button.isEnabled() and dialog.synth_button.isEnabled()
    assert not dialog.worker.is_running()


def test_bad_input_is_a_message_in_the_panel(qtbot: Any, window: Any) -> None:
    dialog = open_dialog(qtbot, window)
    pick(qtbot, dialog, sample_targets()[:5])
    dialog.tolerance_edit.setText("tight")
    assert not dialog.synthesize()
    assert "tolerance" in dialog.headline.text() and dialog.headline.property("level") == "error"
    dialog.tolerance_edit.setText("-1")
    assert not dialog.synthesize() and "positive" in dialog.headline.text()
    # five points all on one spot: refused before the search, the second row marked
    dialog.clear_targets()
    for _ in range(5):
        dialog.add_target(1.0, 1.0)
    dialog.tolerance_edit.setText("1e-4")
    assert not dialog.synthesize() and not dialog.worker.is_running()
    assert "same point" in dialog.headline.text() and dialog.headline.property("level") == "error"
    assert dialog.targets_table.marked() == (1, 0) and not dialog.open_button.isEnabled()
    # a failure of the core itself is its message: a search that cannot find anything in one evaluation
    dialog.clear_targets()
    for x, y in sample_targets()[:5]:
        dialog.add_target(x, y)
    dialog.seed_spin.setValue(1)
    monkey = dialog.worker.start

    def failing_start(search: Any) -> None:
        monkey(lambda progress: SynthesisResult(Status.FAILED, "the core refused: a made-up reason",
                                                bad_input=True))
    dialog.worker.start = failing_start  # type: ignore[method-assign]
    with qtbot.waitSignal(dialog.sig_finished, timeout=30_000) as blocker:
        assert dialog.synthesize()
    res = blocker.args[0]
    assert res.status == Status.FAILED and dialog.headline.text() == res.message
    assert dialog.headline.property("level") == "error" and not dialog.open_button.isEnabled()
    assert len(dialog.targets) == 5, "a failed search keeps the targets"


def test_the_dialog_is_kept_per_window(qtbot: Any, window: Any) -> None:
    first = synthesis_dialog(window)
    assert synthesis_dialog(window) is first
    first.close()
    assert not first.picking


def test_screenshot_of_the_panel_with_targets_and_a_candidate(qtbot: Any, window: Any, ui: Any) -> None:
    """docs/screenshots/synthesis_panel.png (with MECHSTUDIO_UPDATE_SCREENSHOTS=1): the window with the dialog beside
    the canvas of a new model, the picked targets and the candidate through them."""
    dialog = open_dialog(qtbot, window, sample=False)
    pick(qtbot, dialog, sample_targets())
    dialog.time_spin.setValue(BUDGET_S)
    with qtbot.waitSignal(dialog.sig_finished, timeout=60_000):
        dialog.synth_button.click()
    picture = dialog.picture
    assert picture.linkage is not None
    pts = np.array(list(picture.curve) + list(picture.linkage.ground))
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    canvas, vp = window.canvas, window.canvas.viewport().rect()
    scale = 0.8 * min(vp.width() / (hi[0] - lo[0]), vp.height() / (hi[1] - lo[1]))
    canvas.setTransform(QTransform.fromScale(scale, -scale))
    canvas.centerOn(QPointF(*((lo + hi) / 2)))
    canvas.rebuild()
    window.canvas.viewport().repaint()
    assert sorted(dialog.painted) == list(range(1, 9))
    main, side = window.grab().toImage(), dialog.grab().toImage()
    shot = QImage(main.width() + side.width() + 8, max(main.height(), side.height()), QImage.Format.Format_RGB32)
    shot.fill(QColor("#6b7280"))  # the desktop between the two windows
    painter = QPainter(shot)
    painter.drawImage(0, 0, main)
    painter.drawImage(main.width() + 8, 0, side)
    painter.end()

    class Shot:  # save_screenshot grabs a widget: hand it the composed image
        def grab(self) -> Any:
            return QPixmap.fromImage(shot)
    path = ui.save_screenshot(Shot(), "synthesis_panel.png")
    assert ui.non_background_fraction(path) > 0.05
