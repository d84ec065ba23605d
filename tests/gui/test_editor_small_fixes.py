"""Smaller editor fixes, each with real input events where a user's hand is involved:

* a bar's length typed in Properties (its end b's x) updates mass, centre of mass and inertia exactly as dragging
  the end does (one core edit, ``edit.set_value`` -> ``edit.resize_bar``): uniform slender bar of linear density
  rho, m = rho L, c = L/2, I = m L^2 / 12 (closed form);
* the mouse wheel over an unfocused field of the spherical-tree editor scrolls the panel instead of changing the
  field (the shape combo and the number fields), and changes it once it has focus;
* ``mechstudio open`` without a file and ``mechstudio model.json`` open the editor (no usage error).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mechstudio.core.model import edit, load_model

pytestmark = pytest.mark.gui
SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"


def type_into(field: Any, text: str) -> None:
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest
    QTest.mouseClick(field, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(12, field.height() // 2))
    QTest.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(field, text)
    QTest.keyClick(field, Qt.Key.Key_Return)


def wheel(widget: Any, notches: int) -> None:
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication
    pos = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(pos, QPointF(widget.mapToGlobal(pos.toPoint())), QPoint(0, 0), QPoint(0, 120 * notches),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def uniform_bar(mass_per_m: float, length: float) -> tuple[float, list[float], float]:
    m = mass_per_m * length
    return m, [length / 2, 0.0], m * length ** 2 / 12


def test_core_typed_length_is_a_resize() -> None:
    model = load_model(SAMPLES / "four_bar.json")  # crank: 1 m, 1 kg
    for ptr, value in (("/bodies/0/points/b/0", 2.5), ("/bodies/0/points/b", [2.5, 0.0])):
        b = edit.element(edit.set_value(model, ptr, value, bar_follows=True), "bodies", "crank")
        m, com, inertia = uniform_bar(1.0, 2.5)
        assert b["points"]["b"] == [2.5, 0.0]
        assert b["mass"] == pytest.approx(m, rel=1e-15) and b["com"] == pytest.approx(com, rel=1e-15)
        assert b["inertia"] == pytest.approx(inertia, rel=1e-15)
    # the same as the drag's edit
    assert edit.set_value(model, "/bodies/0/points/b/0", 2.5, bar_follows=True) == edit.resize_bar(model, "crank", 2.5)
    # anything else is a plain value: the y of b (the bar is no longer along its x axis), a non-positive x
    for ptr, value in (("/bodies/0/points/b/1", 0.3), ("/bodies/0/points/b/0", -1.0), ("/bodies/0/points/a/0", 0.1)):
        b = edit.element(edit.set_value(model, ptr, value, validate=False), "bodies", "crank")
        assert b["mass"] == 1.0 and b["com"] == [0.5, 0.0]


def test_typed_bar_length_updates_mass_properties(qtbot: Any, window: Any) -> None:
    w = window
    assert w.open_file(str(SAMPLES / "four_bar.json"), ask=False)
    w.document.set_selection([("bodies", "crank")])
    field = w.inspector.field("/bodies/0/points/b/0")
    type_into(field, "2")
    b = edit.element(w.document.model, "bodies", "crank")
    m, com, inertia = uniform_bar(1.0, 2.0)
    assert b["points"]["b"] == [2.0, 0.0]
    assert (b["mass"], b["com"], b["inertia"]) == (pytest.approx(m), pytest.approx(com), pytest.approx(inertia))
    assert w.document.undo_stack.count() == 1  # one undoable step


def test_wheel_changes_tree_fields_only_with_focus(qtbot: Any, window: Any) -> None:
    w = window
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=5000)
    assert w.open_file(str(SAMPLES / "spherical_chain_3.json"), ask=False)
    w.dock_tree.show()
    w.dock_tree.raise_()
    qtbot.waitUntil(lambda: w.tree_editor.helper_kind.isVisible(), timeout=5000)
    combo, mass = w.tree_editor.helper_kind, w.tree_editor.mass
    w.canvas.setFocus()
    before_combo, before_mass = combo.currentIndex(), mass.value()
    wheel(combo, -1)
    wheel(mass, 1)
    assert combo.currentIndex() == before_combo, "the wheel changed the unfocused shape combo"
    assert mass.value() == before_mass, "the wheel changed the unfocused mass field"
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus, timeout=2000)
    wheel(combo, -1)
    assert combo.currentIndex() != before_combo, "the focused combo does not take the wheel"


@pytest.mark.parametrize("argv, expected", [(["open"], None), (["model.json"], "model.json"),
                                            (["open", "model.json"], "model.json"),
                                            ([str(SAMPLES / "pendulum.json")], str(SAMPLES / "pendulum.json"))])
def test_cli_opens_the_editor(monkeypatch: pytest.MonkeyPatch, argv: list[str], expected: str | None) -> None:
    import mechstudio.gui.app as app
    from mechstudio.gui.cli import main
    opened: list[str | None] = []
    monkeypatch.setattr(app, "run", lambda path=None: opened.append(path) or 0)
    assert main(argv) == 0
    assert opened == [expected]


def test_cli_still_refuses_extra_arguments(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    import mechstudio.gui.app as app
    from mechstudio.gui.cli import main
    monkeypatch.setattr(app, "run", lambda path=None: pytest.fail("the editor must not start"))
    assert main(["open", "a.json", "b.json"]) == 2
    assert "usage: mechstudio open [FILE]" in capsys.readouterr().err
