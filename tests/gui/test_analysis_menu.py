"""The editor's Analysis menu (gui/analysis): each entry is clicked in the menu bar as a user would, the panel's
numbers are compared with the core's own results, *Apply pose* is one undoable edit (Ctrl+Z in the panel), the
pendulum's frequency is checked against the closed form, and refusals and failures are messages in the panel.

Tolerances: the tables show 6 significant digits, so a shown number is within 5e-6 relative of the core's; the
tests allow 1e-5 relative (and 1e-9 of the force scale absolute, for the components shown as 0).
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from mechstudio.core.analysis.linkage import Linkage, LinkageError, linkage_topology
from mechstudio.core.analysis.statics import static_equilibrium
from mechstudio.core.systems.compile import compile_model
from mechstudio.gui.analysis import APPLY_POSE_TEXT
from mechstudio.gui.widgets.menu_actions import menu_actions
from tests.gui.document_helpers import click_menu_entry, click_menu_title

SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"
#: shown numbers have 6 significant digits: relative rounding at most 5e-6
SHOWN_RTOL = 1e-5


def shown(text: str) -> float:
    return float(text.replace("−", "-"))


def zero_shown(res: Any) -> float:
    """Below this a force component is shown as 0: the equilibrium's residual, the balance's own error."""
    return max(res.residual, 1e-9 * res.force_scale)


def cells(table: Any) -> list[list[str]]:
    return [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]


def open_analysis(qtbot: Any, window: Any, action_name: str) -> Any:
    """Click Analysis in the menu bar, then the entry ``action_name``; wait for its panel's result."""
    click_menu_title(qtbot, window, window.menu_analysis)
    click_menu_entry(qtbot, window.menu_analysis, action_name)
    key = {"act_static_equilibrium": "statics", "act_linkage_report": "linkage", "act_modes": "modes"}[action_name]
    qtbot.waitUntil(lambda: key in window.analysis_dialogs, timeout=5000)
    dialog = window.analysis_dialogs[key]
    qtbot.waitUntil(lambda: dialog.outcome is not None and not dialog.worker.is_running(), timeout=60000)
    assert dialog.isVisible() and not dialog.isModal()
    return dialog


def test_menu_lists_the_three_analyses_for_the_palette_and_shortcuts(window: Any) -> None:
    paths = {a.objectName(): path for path, a in menu_actions(window.menuBar())}
    for name in ("act_static_equilibrium", "act_linkage_report", "act_modes"):
        assert paths[name] == "Analysis"
    titles = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert titles.index("Analysis") == titles.index("Simulation") + 1


def test_static_equilibrium_shows_the_core_result_and_apply_pose_undoes(qtbot: Any, window: Any) -> None:
    assert window.open_file(str(SAMPLES / "four_bar.json"), ask=False)
    original = window.document.model
    dialog = open_analysis(qtbot, window, "act_static_equilibrium")
    panel = dialog.panel
    system = compile_model(original)
    res = static_equilibrium(system)
    assert res.status.ok and res.stable is True
    assert panel.headline.text().startswith(f"Stable equilibrium (after {res.iterations} iterations)")
    assert f"{res.dof} DOF" in panel.headline.text()
    rows = cells(panel.table("Joint forces"))
    assert [r[0] for r in rows] == list(res.reactions)  # the four-bar has no drivers: every reaction is a joint
    assert [h for h in (panel.table("Joint forces").horizontalHeaderItem(c).text() for c in range(4))] == [
        "joint", "Fx [N]", "Fy [N]", "Mz [N m]"]
    for row in rows:
        want = res.reactions[row[0]][[0, 1, 5]]
        assert [shown(t) for t in row[1:]] == pytest.approx(want, rel=SHOWN_RTOL, abs=zero_shown(res))
    assert not res.drivers and panel.table("Drivers' holding force and torque").rowCount() == 0

    # Apply pose: one undoable edit that makes the equilibrium the initial pose
    depth = window.document.undo_stack.count()
    assert dialog.apply_button.isEnabled()
    QTest.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert window.document.undo_stack.count() == depth + 1
    assert window.document.undo_stack.undoText() == APPLY_POSE_TEXT
    applied = window.document.model
    for body in system.body_names:
        b = next(x for x in applied.data["bodies"] if x["name"] == body)["initial"]
        assert [b["x"], b["y"], b["phi"]] == pytest.approx(system.body_frame_pose(res.q, body), abs=1e-9)
    # independent check: the applied pose is an equilibrium already, the search from it takes no step
    again = static_equilibrium(compile_model(applied))
    assert again.status.ok and again.iterations == 0
    assert panel.stale.isVisibleTo(dialog) and not dialog.apply_button.isEnabled()

    # Ctrl+Z where the user is (the panel) restores the old pose
    dialog.activateWindow()
    qtbot.waitUntil(lambda: dialog.isActiveWindow(), timeout=3000)
    QTest.keyClick(dialog.focusWidget() or dialog, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.document.undo_stack.count() == depth + 1 and window.document.undo_stack.index() == depth
    assert window.document.model == original
    assert not panel.stale.isVisibleTo(dialog) and dialog.apply_button.isEnabled()


def test_statics_of_a_driven_model_shows_the_holding_torque(qtbot: Any, window: Any) -> None:
    assert window.open_file(str(SAMPLES / "slider_crank_driven.json"), ask=False)
    dialog = open_analysis(qtbot, window, "act_static_equilibrium")
    res = static_equilibrium(compile_model(window.document.model))
    assert res.drivers
    rows = cells(dialog.panel.table("Drivers' holding force and torque"))
    assert [r[0] for r in rows] == list(res.drivers)
    for row in rows:
        want = res.drivers[row[0]][[0, 1, 5]]
        assert [shown(t) for t in row[1:]] == pytest.approx(want, rel=SHOWN_RTOL, abs=zero_shown(res))
    assert dialog.panel.headline.text().startswith("Equilibrium (the initial pose)")  # 0 DOF: not decided


def test_static_equilibrium_failure_is_a_message_in_the_panel(qtbot: Any, window: Any) -> None:
    """A disk rolling down an incline has no equilibrium: the panel says so; nothing is applied."""
    assert window.open_file(str(SAMPLES / "planar_rolling_disk_incline.json"), ask=False)
    dialog = open_analysis(qtbot, window, "act_static_equilibrium")
    res = static_equilibrium(compile_model(window.document.model))
    assert not res.status.ok
    text = dialog.panel.headline.text()
    assert text == f"no static equilibrium: {res.message}" and "Traceback" not in text
    assert dialog.panel.headline.property("level") == "error"
    assert not dialog.apply_button.isEnabled() and dialog.panel.tables == []
    assert window.messenger.errors == []


def test_linkage_report_of_the_four_bar(qtbot: Any, window: Any) -> None:
    assert window.open_file(str(SAMPLES / "four_bar.json"), ask=False)
    dialog = open_analysis(qtbot, window, "act_linkage_report")
    linkage = Linkage(compile_model(window.document.model))
    sweep = linkage.sweep()
    mu = np.degrees(sweep.transmission_angle)
    headline = dialog.panel.headline.text()
    assert headline.startswith(f"Four-bar, {linkage.topology.grashof.kind}")
    assert f"min {mu.min():.4g} deg, max {mu.max():.4g} deg" in headline
    details = dialog.panel.details.text()
    assert linkage.topology.describe() in details and linkage.topology.grashof.describe() in details
    rows = cells(dialog.panel.table("Limit positions and stops"))
    assert len(rows) == len(sweep.limits) + len(sweep.stops) == 2
    for row, p in zip(rows, sweep.limits + sweep.stops):
        assert row[0] == p.kind
        want = [math.degrees(p.crank_angle), p.input_angle, math.degrees(p.output),
                math.degrees(p.transmission_angle)]
        assert [shown(t) for t in row[1:]] == pytest.approx(want, rel=SHOWN_RTOL)


def test_linkage_report_refuses_a_pendulum_where_the_user_looks(qtbot: Any, window: Any) -> None:
    assert window.open_file(str(SAMPLES / "pendulum.json"), ask=False)
    dialog = open_analysis(qtbot, window, "act_linkage_report")
    with pytest.raises(LinkageError) as refusal:
        linkage_topology(window.document.model)
    headline = dialog.panel.headline
    assert headline.text() == str(refusal.value) and "not a four-bar or slider-crank" in headline.text()
    assert headline.isVisible() and headline.property("level") == "error"
    assert dialog.panel.tables == []


def test_modes_of_the_pendulum_match_the_closed_form(qtbot: Any, window: Any) -> None:
    """f = sqrt(m g d / I_O) / (2 pi) with I_O = I_G + m d^2 (parallel axes), all read from the file."""
    path = SAMPLES / "pendulum.json"
    data = json.loads(path.read_text())
    bar = data["bodies"][0]
    m, g = bar["mass"], float(np.hypot(*data["gravity"]))
    pivot = bar["points"][next(j for j in data["joints"] if j["body2"] == bar["name"])["point2"]]
    d = float(np.hypot(bar["com"][0] - pivot[0], bar["com"][1] - pivot[1]))
    f = math.sqrt(m * g * d / (bar["inertia"] + m * d * d)) / (2 * math.pi)
    assert window.open_file(str(path), ask=False)
    dialog = open_analysis(qtbot, window, "act_modes")
    assert dialog.panel.headline.text().startswith("Stable equilibrium, 1 degree of freedom")
    assert "found after" in dialog.panel.details.text()
    table = dialog.panel.table("Modes")
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert headers[:5] == ["mode", "kind", "frequency [Hz]", "period [s]", "damping ratio"]
    (row,) = cells(table)
    assert row[1] == "oscillating"
    assert shown(row[2]) == pytest.approx(f, rel=SHOWN_RTOL)
    assert shown(row[3]) == pytest.approx(1 / f, rel=SHOWN_RTOL)
    assert shown(row[4]) == 0.0  # no damper in the file


def test_modes_of_a_driven_model_are_refused_in_the_panel(qtbot: Any, window: Any) -> None:
    assert window.open_file(str(SAMPLES / "slider_crank_driven.json"), ask=False)
    dialog = open_analysis(qtbot, window, "act_modes")
    assert "time-dependent constraints" in dialog.panel.headline.text()
    assert dialog.panel.headline.property("level") == "error"


def test_the_analysis_runs_off_the_gui_thread(qtbot: Any, window: Any) -> None:
    """run() returns before the result: the panel says it is computing, the result comes by a queued signal."""
    assert window.open_file(str(SAMPLES / "double_pendulum.json"), ask=False)
    dialog = open_analysis(qtbot, window, "act_modes")
    first = dialog.outcome
    dialog.run()
    assert dialog.outcome is first and dialog.panel.headline.property("level") == "busy"
    assert dialog.panel.headline.text().startswith("Computing")
    qtbot.waitUntil(lambda: dialog.outcome is not first, timeout=60000)
    assert [r[1] for r in cells(dialog.panel.table("Modes"))] == ["oscillating", "oscillating"]


def test_an_empty_model_is_a_message_not_a_failure(qtbot: Any, window: Any) -> None:
    window.new_model()
    assert not window.document.model.data.get("bodies")
    dialog = open_analysis(qtbot, window, "act_static_equilibrium")
    assert dialog.panel.headline.text() == "the model has no bodies yet: there is nothing to analyse"
    assert not dialog.apply_button.isEnabled()
