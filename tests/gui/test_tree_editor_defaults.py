"""Issue 13 item 5: the spherical-tree editor's defaults and helpers give valid bodies; its messages are in a
user's words and fully visible. Driven with real mouse clicks and key presses (QTest)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

pytestmark = pytest.mark.gui


def physical(inertia: list[list[float]]) -> bool:
    """Positive principal moments with J3 <= J1 + J2 (a rigid body's inertia about its centre of mass)."""
    J = np.linalg.eigvalsh(np.asarray(inertia, float))
    return bool(np.all(J > 0) and J[2] <= J[0] + J[1] * (1 + 1e-12))


def bodies(window: Any) -> list[str]:
    return [b["name"] for b in window.document.model.data["bodies"]]


def click(widget: Any) -> None:
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton)


def choose_shape(qtbot: Any, tree: Any, kind: str) -> None:
    """Pick ``kind`` in the shape combo with the keyboard (Home, then Down until it is current)."""
    combo = tree.helper_kind
    combo.setFocus()
    QTest.keyClick(combo, Qt.Key.Key_Home)
    for _ in range(combo.count()):
        if combo.currentText() == kind:
            return
        QTest.keyClick(combo, Qt.Key.Key_Down)
    assert combo.currentText() == kind


def type_into(line_edit: Any, text: str) -> None:
    line_edit.setFocus()
    QTest.keyClick(line_edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(line_edit, text)


@pytest.fixture
def tree(window: Any) -> Any:
    window.new_model()
    window.dock_tree.show()
    window.dock_tree.raise_()
    return window.tree_editor


def test_add_child_with_defaults_adds_a_body(qtbot: Any, window: Any, tree: Any) -> None:
    assert physical(tree.inertia_value()), tree.inertia_value()
    click(tree.add_button)
    assert bodies(window) == ["link1"], tree.message.text()
    assert not tree.message.isVisible()
    # and again: the next default child hangs from the first one's 'out' point
    click(tree.add_button)
    assert bodies(window) == ["link1", "link2"], tree.message.text()
    # the defaults' tensor is the rod's: a cylinder of length 0.5 m and radius TREE_ROD_RADIUS, mass 1 kg
    from mechstudio.core.model.edit import TREE_ROD_RADIUS
    r, L = TREE_ROD_RADIUS, 0.5
    inertia = np.asarray(window.document.model.data["bodies"][0]["inertia"], float)
    assert np.allclose(np.diag(inertia), [(3 * r * r + L * L) / 12, (3 * r * r + L * L) / 12, r * r / 2], rtol=1e-12)


@pytest.mark.parametrize("kind", ["rod", "box", "cylinder", "sphere"])
def test_every_helper_gives_a_valid_body(qtbot: Any, window: Any, tree: Any, kind: str) -> None:
    tree.set_inertia([[0.0] * 3 for _ in range(3)])
    choose_shape(qtbot, tree, kind)
    click(tree.findChild(type(tree.add_button), "tree_helper_apply"))
    m = tree.inertia_value()
    assert physical(m), (kind, m)
    click(tree.add_button)
    assert bodies(window) == ["link1"], (kind, tree.message.text())
    assert window.document.model.data["bodies"][0]["inertia"] == m


def test_rod_inertia_follows_the_mass(qtbot: Any, tree: Any) -> None:
    before = np.asarray(tree.inertia_value())
    tree.mass.setFocus()
    tree.mass.selectAll()
    QTest.keyClicks(tree.mass, "3")
    QTest.keyClick(tree.mass, Qt.Key.Key_Return)
    assert tree.mass.value() == 3.0
    assert np.allclose(tree.inertia_value(), 3.0 * before, rtol=1e-12)


def assert_fully_visible(tree: Any) -> None:
    msg = tree.message
    assert msg.isVisible() and msg.text()
    assert msg.wordWrap()
    # all its lines fit its height at its width, and the label lies inside the scroll area's viewport
    assert msg.heightForWidth(msg.width()) <= msg.height() + 1
    vp = tree.viewport()
    top_left = msg.mapTo(vp, QPoint(0, 0))
    assert top_left.x() >= 0 and top_left.x() + msg.width() <= vp.width() + 1
    assert top_left.y() >= 0 and top_left.y() + msg.height() <= vp.height() + 1


def test_invalid_inertia_is_refused_in_plain_words(qtbot: Any, window: Any, tree: Any) -> None:
    window.dock_tree.resize(300, 400)  # a narrow dock: the message wraps
    qtbot.wait(20)
    # the old line rod: principal moments (0, J, J)
    tree.set_inertia([[0.0208, 0, 0], [0, 0.0208, 0], [0, 0, 0]])
    click(tree.add_button)
    assert bodies(window) == []
    text = tree.message.text()
    assert "positive" in text and "radius" in text
    for internal in ("<memory>", "/bodies", "tensor", "error:"):
        assert internal not in text, text
    assert_fully_visible(tree)
    # moments 1, 1, 3: no real body
    tree.set_inertia([[1, 0, 0], [0, 1, 0], [0, 0, 3]])
    click(tree.add_button)
    assert bodies(window) == [] and "No real body" in tree.message.text()
    assert_fully_visible(tree)
    # a rod of zero radius typed into the helper is refused there, the tensor stays
    choose_shape(qtbot, tree, "rod")
    type_into(tree.helper_dims, "0.5 0")
    click(tree.findChild(type(tree.add_button), "tree_helper_apply"))
    assert "positive numbers" in tree.message.text()
    assert tree.inertia_value() == [[1, 0, 0], [0, 1, 0], [0, 0, 3]]
    assert_fully_visible(tree)
    # a good fill clears the message and the body goes in
    type_into(tree.helper_dims, "0.4 0.03")
    click(tree.findChild(type(tree.add_button), "tree_helper_apply"))
    assert not tree.message.isVisible()
    click(tree.add_button)
    assert bodies(window) == ["link1"]


def test_fields_show_short_numbers_and_enter_keeps_the_exact_value(qtbot: Any, window: Any, tree: Any) -> None:
    """The fields show "0.25 m", "0.02093" (not "0.250000" cut off); Enter in a field does not round the value
    to what it shows."""
    exact = tree.inertia_value()
    box = tree.inertia[0][0]
    assert box.text() == f"{exact[0][0]:.4g}" and f"{exact[0][0]:.12g}" in box.toolTip()
    assert tree.in_point.spins[2].text() == "0.25 m" and tree.mass.text() == "1 kg"
    for field in (box, tree.mass):
        field.setFocus()
        QTest.keyClick(field, Qt.Key.Key_Return)
        field.clearFocus()
    assert tree.inertia_value() == exact and tree.mass.value() == 1.0
    click(tree.add_button)
    assert window.document.model.data["bodies"][0]["inertia"] == exact
