"""*Analysis → Synthesize linkage…*: prescribed timing typed in the targets' table, function generation (a function
y = f(x) at Chebyshev points, or typed angle pairs), the refusals shown on their cells and in the headline, and the
dialog's state kept across mode switches, closing and reopening; no undo step from any of it.

Independent checks: with timing, the result's crank rotations are the typed ones (to 1e-9 rad: the core makes the
timed equations exact by Newton's method, its tests keep timing to 1e-9); a function generator is opened as a model
and driven by the kinematic solver (core.kinematics.analysis.driven_motion), whose rocker angles must follow the
wanted output angles within the tolerance (twice it for rotations from the first pair: the search's error is the
largest absolute error with the starting angle free, so two pairs may err in opposite directions).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPixmap, QTransform
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractItemView, QApplication, QLineEdit

from mechstudio.core.analysis.synthesis import SynthesisResult, function_targets
from mechstudio.core.analysis.synthesis_fourbar import FourBarGeometry
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status
from mechstudio.gui.analysis.synthesis_inputs import ANGLE_COL, INPUT_COL, OUTPUT_COL
from mechstudio.gui.analysis.synthesis_panel import FUNCTION, OPEN_TEXT, PATH, SynthesisDialog

SAMPLE = FourBarGeometry(0.0, 0.0, 0.0, 4.0, 1.0, 3.5, 3.0, 1.2, 1.0, 1)
#: the search's budget in the tests [s]: the timed sample and the default function converge in a few seconds here
BUDGET_S = 40
#: the typed crank angles [deg]: uneven steps over part of a turn
TIMING_DEG = np.array([17.0, 55.5, 101.25, 140.0, 199.75, 236.0, 290.5])


def open_dialog(qtbot: Any, window: Any) -> SynthesisDialog:
    window.act_synthesize_linkage.trigger()
    dialog = window.synthesis_dialog
    qtbot.waitExposed(dialog)
    dialog.move(window.geometry().right() - dialog.width() - 20, window.geometry().top() + 60)
    window.canvas.setTransform(QTransform.fromScale(100.0, -100.0))
    window.canvas.centerOn(QPointF(1.7, 1.0))
    return dialog


def type_cell(table: Any, row: int, column: int, text: str) -> None:
    """Type ``text`` into a cell as a user does: open its editor, type, Return."""
    if table.state() != QAbstractItemView.State.EditingState or table.currentColumn() != column \
            or table.currentRow() != row:
        table.setCurrentCell(row, column)
        table.editItem(table.item(row, column))
    editors = [e for e in table.viewport().findChildren(QLineEdit) if e.isVisible()]
    assert len(editors) == 1, "one cell editor is open"
    editor = editors[0]
    editor.selectAll()
    QTest.keyClick(editor, Qt.Key.Key_Backspace)
    QTest.keyClicks(editor, text)
    QTest.keyClick(editor, Qt.Key.Key_Return)
    QApplication.processEvents()  # the delegate commits a Return's edit by a queued call
    assert table.item(row, column).text() == text


def type_targets(dialog: SynthesisDialog, points: np.ndarray, angles_deg: np.ndarray | None = None) -> None:
    """Add rows with the button and type each coordinate (and crank angle) exactly."""
    for k, (x, y) in enumerate(points):
        QTest.mouseClick(dialog.path_page.add_button, Qt.MouseButton.LeftButton)
        r = dialog.targets_table.rowCount() - 1
        type_cell(dialog.targets_table, r, 0, repr(float(x)))
        type_cell(dialog.targets_table, r, 1, repr(float(y)))
        if angles_deg is not None:
            type_cell(dialog.targets_table, r, ANGLE_COL, repr(float(angles_deg[k])))


def timed_targets() -> np.ndarray:
    return SAMPLE.coupler_point(0.3 + np.radians(TIMING_DEG - TIMING_DEG[0]))


def test_typed_timing_reaches_the_core_and_refusals_are_shown(qtbot: Any, window: Any) -> None:
    dialog = open_dialog(qtbot, window)
    doc = window.document
    undo_before = doc.undo_stack.count()
    QTest.mouseClick(dialog.timing_check, Qt.MouseButton.LeftButton)
    assert dialog.timing_check.isChecked()
    type_targets(dialog, timed_targets(), TIMING_DEG)
    assert dialog.problem is None and len(dialog.targets) == len(TIMING_DEG)
    window.canvas.viewport().repaint()
    assert sorted(dialog.painted) == list(range(1, len(TIMING_DEG) + 1)), "the typed targets are drawn, numbered"
    # a crank angle out of order: marked on its cell, and the headline says why when Synthesize is pressed
    type_cell(dialog.targets_table, 3, ANGLE_COL, "90")
    assert dialog.targets_table.marked() == (3, ANGLE_COL)
    assert "increase" in dialog.targets_table.item(3, ANGLE_COL).toolTip()
    QTest.mouseClick(dialog.synth_button, Qt.MouseButton.LeftButton)
    assert not dialog.worker.is_running()
    assert dialog.headline.property("level") == "error" and "rows 3 and 4" in dialog.headline.text()
    # timing off: the angle no longer counts (nothing marked) but is kept; on again: the same refusal
    dialog.timing_check.click()
    assert dialog.targets_table.marked() is None and dialog.targets_table.item(3, ANGLE_COL).text() == "90"
    dialog.timing_check.click()
    assert dialog.targets_table.marked() == (3, ANGLE_COL)
    type_cell(dialog.targets_table, 3, ANGLE_COL, repr(float(TIMING_DEG[3])))
    # a span of a full turn
    type_cell(dialog.targets_table, 6, ANGLE_COL, "377")
    assert dialog.targets_table.marked() == (6, ANGLE_COL) and "turn" in dialog.path_page.problem_label.text()
    type_cell(dialog.targets_table, 6, ANGLE_COL, repr(float(TIMING_DEG[6])))
    # a repeated target, typed
    type_cell(dialog.targets_table, 5, 0, dialog.targets_table.item(2, 0).text())
    type_cell(dialog.targets_table, 5, 1, dialog.targets_table.item(2, 1).text())
    assert dialog.targets_table.marked() == (5, 0) and "targets 3 and 6" in dialog.path_page.problem_label.text()
    assert not dialog.synthesize() and "same point" in dialog.headline.text()
    x, y = timed_targets()[5]
    type_cell(dialog.targets_table, 5, 0, repr(float(x)))
    type_cell(dialog.targets_table, 5, 1, repr(float(y)))
    assert dialog.problem is None and dialog.targets_table.marked() is None
    dialog.time_spin.setValue(BUDGET_S)
    with qtbot.waitSignal(dialog.sig_finished, timeout=(BUDGET_S + 30) * 1000) as blocker:
        QTest.mouseClick(dialog.synth_button, Qt.MouseButton.LeftButton)
    res: SynthesisResult = blocker.args[0]
    assert res.status == Status.CONVERGED, res.message
    rotations = res.best.crank_angles - res.best.crank_angles[0]
    np.testing.assert_allclose(rotations, np.radians(TIMING_DEG - TIMING_DEG[0]), rtol=0, atol=1e-9)
    assert doc.undo_stack.count() == undo_before and not doc.modified


def test_function_generation_of_log10_matches_the_solver(qtbot: Any, window: Any, messenger: Any) -> None:
    dialog = open_dialog(qtbot, window)
    undo_before = window.document.undo_stack.count()
    QTest.mouseClick(dialog.function_radio, Qt.MouseButton.LeftButton)
    assert dialog.mode == FUNCTION and not dialog.pick_button.isVisible()
    page = dialog.function_page
    # the default: Freudenstein's y = log10(x) on [1, 2], input 60 deg, output 90 deg, 5 Chebyshev points
    assert page.from_expression and page.edits["expression"].text() == "log10(x)"
    x, y = function_targets(np.log10, 1.0, 2.0, 5)
    want_in, want_out = 60.0 * (x - 1.0), 90.0 * y / math.log10(2.0)
    rows = dialog.pairs_table.rows()
    np.testing.assert_allclose([float(r[INPUT_COL]) for r in rows], want_in, rtol=1e-9)
    np.testing.assert_allclose([float(r[OUTPUT_COL]) for r in rows], want_out, rtol=1e-9)
    dialog.time_spin.setValue(BUDGET_S)
    seen: list[Any] = []
    dialog.sig_candidate.connect(seen.append)
    with qtbot.waitSignal(dialog.sig_finished, timeout=(BUDGET_S + 30) * 1000) as blocker:
        QTest.mouseClick(dialog.synth_button, Qt.MouseButton.LeftButton)
        assert dialog.stop_button.isEnabled() and not dialog.function_radio.isEnabled()
    res: SynthesisResult = blocker.args[0]
    assert res.status == Status.CONVERGED, res.message
    assert seen and res.best.kind == "function"
    tol_rad = math.radians(float(dialog.function_tolerance_edit.text()))
    assert res.best.error <= tol_rad
    # the table shows the achieved output and its error [deg]
    achieved = np.array([float(dialog.pairs_table.item(r, 2).text()) for r in range(5)])
    errors = np.array([float(dialog.pairs_table.item(r, 3).text()) for r in range(5)])
    assert np.all(np.abs(errors) <= math.degrees(tol_rad))
    # the linkage is drawn (with a ray per precision point at each pivot) and in view
    window.canvas.viewport().repaint()
    assert dialog.picture.linkage is not None and len(dialog.picture.rays) == 10 and dialog.in_view()
    assert window.document.undo_stack.count() == undo_before
    # open it as a model and drive it with the solver: the rocker follows the wanted outputs
    messenger.save_answer = "discard"
    QTest.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    doc = window.document
    assert doc.undo_stack.count() == 1 and doc.undo_stack.text(0) == OPEN_TEXT
    system = compile_model(doc.model)
    speed = abs(doc.model.data["drivers"][0]["function"]["speed"])
    theta = res.best.crank_angles
    run = driven_motion(system, np.abs(theta - theta[0]) / speed)
    assert run.status.ok, run.message
    crank = run.q[:, system.coord_names.index("crank.phi")]
    psi = run.q[:, system.coord_names.index("rocker.phi")]
    np.testing.assert_allclose(crank - crank[0], np.radians(want_in - want_in[0]), atol=1e-9)
    np.testing.assert_allclose(psi - psi[0], np.radians(want_out - want_out[0]), atol=2 * tol_rad + 1e-9)
    # the table's achieved outputs are the model's (rotations from the first pair)
    np.testing.assert_allclose(achieved - achieved[0], np.degrees(psi - psi[0]), atol=1e-4)


def test_typed_pairs_and_function_refusals(qtbot: Any, window: Any) -> None:
    dialog = open_dialog(qtbot, window)
    dialog.set_mode(FUNCTION)
    page = dialog.function_page
    expr = page.edits["expression"]
    # a bad expression: marked on its field, the table empty, the headline says why on Synthesize
    expr.clear()
    QTest.keyClicks(expr, "log10(x")
    assert dialog.problem is not None and dialog.problem.field == "expression"
    assert page.problem_label.isVisible() and "not a valid expression" in page.problem_label.text()
    assert not dialog.synthesize() and "y = f(x)" in dialog.headline.text()
    expr.clear()
    QTest.keyClicks(expr, "__import__('os').getcwd()")
    assert "not allowed" in dialog.problem.message, "nothing is evaluated as Python"
    expr.clear()
    QTest.keyClicks(expr, "log10(x - 1)")  # -inf at x = 1
    assert "not a finite number at x = 1" in dialog.problem.message
    expr.clear()
    QTest.keyClicks(expr, "y = sqrt(x)")
    assert dialog.problem is None and dialog.pairs_table.rowCount() == 5
    # typed pairs: the example is there; a non-monotonic input is marked on its cell
    QTest.mouseClick(page.pairs_radio, Qt.MouseButton.LeftButton)
    assert not page.from_expression and dialog.pairs_table.rowCount() == 5 and not dialog.pairs_table.read_only
    example = dialog.pairs_table.rows()
    type_cell(dialog.pairs_table, 2, INPUT_COL, "5")
    assert dialog.pairs_table.marked() == (2, INPUT_COL)
    assert not dialog.synthesize() and "rows 2 and 3" in dialog.headline.text()
    dialog.pairs_table.selectRow(4)
    QTest.mouseClick(page.remove_button, Qt.MouseButton.LeftButton)
    type_cell(dialog.pairs_table, 2, INPUT_COL, example[2][INPUT_COL])
    assert dialog.pairs_table.rowCount() == 4 and "at least 5" in page.problem_label.text()
    assert not dialog.synthesize() and "at least 5" in dialog.headline.text()
    page.absolute_check.click()  # absolute angles need 3
    assert dialog.problem is None
    page.absolute_check.click()
    QTest.mouseClick(page.add_button, Qt.MouseButton.LeftButton)
    type_cell(dialog.pairs_table, 4, INPUT_COL, example[4][INPUT_COL])
    type_cell(dialog.pairs_table, 4, OUTPUT_COL, example[4][OUTPUT_COL])
    assert dialog.pairs_table.rows() == example and dialog.problem is None
    # the function's fields are kept while the typed pairs are used, and the other way round
    QTest.mouseClick(page.expr_radio, Qt.MouseButton.LeftButton)
    assert expr.text() == "y = sqrt(x)" and dialog.pairs_table.read_only
    QTest.mouseClick(page.pairs_radio, Qt.MouseButton.LeftButton)
    assert dialog.pairs_table.rows() == example
    # the rounded example pairs are solved too
    dialog.time_spin.setValue(BUDGET_S)
    with qtbot.waitSignal(dialog.sig_finished, timeout=(BUDGET_S + 30) * 1000) as blocker:
        assert dialog.synthesize()
    res: SynthesisResult = blocker.args[0]
    assert res.status == Status.CONVERGED, res.message
    np.testing.assert_allclose(np.degrees(res.best.targets[:, 1]), [float(r[1]) for r in example], rtol=1e-12)


def test_state_is_kept_across_modes_and_close_reopen_without_undo_steps(qtbot: Any, window: Any) -> None:
    dialog = open_dialog(qtbot, window)
    doc = window.document
    undo_before = doc.undo_stack.count()
    dialog.timing_check.click()
    type_targets(dialog, timed_targets()[:3], TIMING_DEG[:3])
    QTest.mouseClick(dialog.pick_button, Qt.MouseButton.LeftButton)
    QTest.mouseClick(window.canvas.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     window.canvas.view_point(2.0, 1.5))
    assert len(dialog.targets) == 4 and doc.selection == []
    # a row not a point yet is not drawn, the others keep their row numbers
    type_cell(dialog.targets_table, 1, 1, "")
    window.canvas.viewport().repaint()
    assert sorted(dialog.painted) == [1, 3, 4]
    # a row deleted in the table (Delete key): the canvas's markers follow
    type_cell(dialog.targets_table, 1, 1, "9")
    dialog.targets_table.selectRow(1)
    QTest.keyClick(dialog.targets_table, Qt.Key.Key_Delete)
    window.canvas.viewport().repaint()
    assert len(dialog.targets) == 3 and sorted(dialog.painted) == [1, 2, 3]
    assert dialog.picking, "picking goes on"
    QTest.mouseClick(window.canvas.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     window.canvas.view_point(2.5, 1.0))
    assert len(dialog.targets) == 4 and doc.selection == []
    dialog.tolerance_edit.setText("2e-4")
    path_rows = dialog.targets_table.rows()
    # refused (the clicked target has no crank angle yet): nothing is lost
    assert not dialog.synthesize() and "crank angle of row 3 is missing" in dialog.headline.text()
    assert dialog.targets_table.marked() == (2, ANGLE_COL)
    assert dialog.targets_table.rows() == path_rows
    dialog.set_mode(FUNCTION)
    assert not dialog.picking, "picking ends in function mode"
    expr = dialog.function_page.edits["expression"]
    expr.clear()
    QTest.keyClicks(expr, "exp(x)")
    dialog.function_page.edits["x_end"].setText("3")
    dialog.function_page.edits["x_end"].textEdited.emit("3")
    dialog.function_tolerance_edit.setText("0.01")
    function_rows = dialog.pairs_table.rows()
    dialog.set_mode(PATH)
    assert dialog.targets_table.rows() == path_rows and dialog.timing_check.isChecked()
    QTest.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    window.act_synthesize_linkage.trigger()
    again = window.synthesis_dialog
    assert again is dialog and again.isVisible()
    assert again.mode == PATH and again.targets_table.rows() == path_rows and again.tolerance_edit.text() == "2e-4"
    again.set_mode(FUNCTION)
    assert expr.text() == "exp(x)" and dialog.function_page.edits["x_end"].text() == "3"
    assert dialog.pairs_table.rows() == function_rows and dialog.function_tolerance_edit.text() == "0.01"
    assert doc.undo_stack.count() == undo_before and not doc.modified


def compose(window: Any, dialog: SynthesisDialog) -> QPixmap:
    """The window with the dialog beside it, as on a desktop."""
    main, side = window.grab().toImage(), dialog.grab().toImage()
    shot = QImage(main.width() + side.width() + 8, max(main.height(), side.height()), QImage.Format.Format_RGB32)
    shot.fill(QColor("#6b7280"))
    painter = QPainter(shot)
    painter.drawImage(0, 0, main)
    painter.drawImage(main.width() + 8, 0, side)
    painter.end()
    return QPixmap.fromImage(shot)


def test_screenshot_of_function_generation(qtbot: Any, window: Any, ui: Any) -> None:
    """docs/screenshots/synthesis_function.png (with MECHSTUDIO_UPDATE_SCREENSHOTS=1): Freudenstein's log10 case
    found, the generator drawn on the canvas, achieved against wanted outputs in the dialog."""
    dialog = open_dialog(qtbot, window)
    dialog.set_mode(FUNCTION)
    dialog.time_spin.setValue(BUDGET_S)
    with qtbot.waitSignal(dialog.sig_finished, timeout=(BUDGET_S + 30) * 1000) as blocker:
        dialog.synth_button.click()
    assert blocker.args[0].status == Status.CONVERGED
    dialog.fit_view()
    window.canvas.viewport().repaint()
    pixmap = compose(window, dialog)

    class Shot:  # save_screenshot grabs a widget: hand it the composed image
        def grab(self) -> Any:
            return pixmap
    path = ui.save_screenshot(Shot(), "synthesis_function.png")
    assert ui.non_background_fraction(path) > 0.05
