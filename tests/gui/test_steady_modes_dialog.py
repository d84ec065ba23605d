"""Analysis → Modes about the steady motion… (gui/analysis: dialogs.SteadyModesDialog, format.steady_modes_report,
mode_animation.SteadyModeMotion), clicked in the menu bar as a user would, on the centrifugal pendulum absorber
sample.

Independent checks: the shown frequency is the closed form w = Omega sqrt(m R l/(J_c + m l^2)) (Lagrange's equation
in the rotor's frame, tests/test_analysis_steady.py) to the table's 6 digits (1e-5 relative); every animated pose
closes the joints at its own time (||Phi(q, t)|| evaluated here on the compiled system), the rotor follows its
driver (rotor.phi = Omega t modulo 2 pi) and the pendulum swings about the radial direction with the chosen
amplitude's order (|alpha| = |pendulum.phi - rotor.phi| up to a few degrees and not 0) while the document is
untouched.

Tolerances: ||Phi|| <= 1e-12 (Newton to 1e-14 at lengths of 0.3 m); the rotor angle to 1e-6 rad (cubic spline of
the steady motion through 64 samples per turn: error ~(2 pi/64)^4/384 ~ 2e-7 rad; the driver closes it exactly);
the frequency to 1e-5 relative (6 shown digits).
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

from tests.gui.document_helpers import click_menu_entry, click_menu_title

pytestmark = pytest.mark.gui
SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"
ABSORBER = SAMPLES / "centrifugal_pendulum_absorber.json"
PHI_TOL = 1e-12


def open_steady(qtbot: Any, window: Any, path: Path) -> Any:
    """Open ``path``, then Analysis → Modes about the steady motion… clicked; the dialog once its result is
    shown."""
    assert window.open_file(str(path), ask=False)
    click_menu_title(qtbot, window, window.menu_analysis)
    click_menu_entry(qtbot, window.menu_analysis, "act_steady_modes")
    qtbot.waitUntil(lambda: "steady_modes" in window.analysis_dialogs, timeout=5000)
    dialog = window.analysis_dialogs["steady_modes"]
    qtbot.waitUntil(lambda: dialog.outcome is not None and not dialog.worker.is_running(), timeout=120000)
    assert dialog.isVisible() and not dialog.isModal()
    return dialog


def closed_form_hz() -> float:
    data = json.loads(ABSORBER.read_text())
    omega = data["drivers"][0]["function"]["speed"]
    R = data["bodies"][0]["points"]["pin"][0]
    p = data["bodies"][1]
    m, l = p["mass"], p["com"][0]
    return omega * math.sqrt(m * R * l / (p["inertia"] + m * l * l)) / (2 * math.pi)


def test_the_absorber_shows_its_tuned_order_and_animates_on_the_steady_motion(qtbot: Any, window: Any) -> None:
    dialog = open_steady(qtbot, window, ABSORBER)
    panel = dialog.panel
    doc, canvas, animator = window.document, window.canvas, window.mode_animator
    model, depth = doc.model, doc.undo_stack.count()
    f = closed_form_hz()
    assert panel.headline.text().startswith("Stable steady motion (T = 1 s), 1 Floquet mode")
    assert panel.headline.property("level") == "ok"
    table = panel.table("Floquet modes")
    row = [table.item(0, c).text() for c in range(table.columnCount())]
    assert row[1] == "oscillating"
    assert float(row[2]) == pytest.approx(f, rel=1e-5)
    assert float(row[4]) == pytest.approx(1.0, abs=1e-5)  # |mu| on the unit circle: undamped
    assert "pendulum.phi +1" in row[-1]
    assert "Period T = 1 s (driver motor function: period 1 s)" in panel.details.text()

    assert dialog.mode_box.count() == 1 and dialog.animate_button.isEnabled()
    QTest.mouseClick(dialog.animate_button, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     dialog.animate_button.rect().center())
    assert animator.running and "riding on the steady motion" in dialog.animation_status.text()
    start = animator.frames_shown
    qtbot.waitUntil(lambda: animator.frames_shown >= start + 3, timeout=10000)
    animator.timer.stop()
    motion, system = animator.motion, dialog.outcome.system
    names = list(system.coord_names)
    omega = 2 * math.pi
    alphas = []
    for t in np.linspace(0.0, 2.5 * motion.shown_period, 23):
        assert animator.show_at(float(t))
        q = canvas.shown_configuration[1]
        tau = motion.motion_time(float(t))
        assert np.linalg.norm(system.phi(q, tau)) <= PHI_TOL
        rotor = q[names.index("rotor.phi")]
        assert math.remainder(rotor - omega * tau, 2 * math.pi) == pytest.approx(0.0, abs=1e-6)
        alphas.append(math.remainder(q[names.index("pendulum.phi")] - rotor, 2 * math.pi))
    assert 0.01 < max(abs(a) for a in alphas) < 0.5  # it swings about radial, a visible fraction of a radian
    animator.stop()
    assert doc.model == model and doc.undo_stack.count() == depth and not doc.modified


def test_an_undriven_model_says_why_it_has_no_steady_motion(qtbot: Any, window: Any) -> None:
    dialog = open_steady(qtbot, window, SAMPLES / "pendulum.json")
    assert "not driven" in dialog.panel.headline.text()
    assert dialog.panel.headline.property("level") == "error"
    assert dialog.mode_box.count() == 0 and not dialog.animate_button.isEnabled()


def test_screenshot_of_the_steady_modes_panel_and_a_frame(qtbot: Any, window: Any, ui: Any) -> None:
    dialog = open_steady(qtbot, window, ABSORBER)
    assert dialog.animate() == ""
    window.mode_animator.timer.stop()
    assert window.mode_animator.show_at(0.6)
    window.canvas.zoom_to_fit()
    window.canvas.viewport().repaint()
    path = ui.save_screenshot(window, "steady_modes_absorber_canvas.png")
    assert ui.non_background_fraction(path) > 0.02
    panel_path = ui.save_screenshot(dialog, "steady_modes_absorber_panel.png")
    assert ui.non_background_fraction(panel_path) > 0.02
    window.mode_animator.stop()
