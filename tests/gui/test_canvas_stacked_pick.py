"""Items drawn on top of each other stay reachable with the mouse: in the driven slider-crank the crank's axle
(joint 'O') sits on the ground point 'O'. A plain click selects the topmost item (the ground point) and the status
bar names everything under the click; Alt+click walks down to the axle joint, then to the crank, and round again.
Real mouse events on the canvas's viewport."""
from __future__ import annotations

from typing import Any

import pytest

from conftest import SAMPLES

pytestmark = pytest.mark.gui


def click(canvas: Any, x: float, y: float, alt: bool = False) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    mod = Qt.KeyboardModifier.AltModifier if alt else Qt.KeyboardModifier.NoModifier
    QTest.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, mod, canvas.view_point(x, y))


def test_alt_click_reaches_the_axle_under_its_ground_point(window: Any) -> None:
    w = window
    assert w.open_file(str(SAMPLES / "slider_crank_driven.json"), ask=False)
    canvas = w.canvas
    messages: list[str] = []
    canvas.sig_status.connect(messages.append)
    click(canvas, 0.0, 0.0)
    assert w.document.selection == [("ground_points", "O")]
    assert any("joint 'O'" in m and "Alt+click" in m for m in messages), messages
    seen = []
    for _ in range(4):
        click(canvas, 0.0, 0.0, alt=True)
        seen.append(tuple(w.document.selection))
    under = [h for h in canvas.pick_all((0.0, 0.0)) if h[0] != "handle"]
    assert ("joints", "O") in under and ("ground_points", "O") in under
    # each Alt+click selects the next item under the click, in the order drawn, and wraps round
    start = under.index(("ground_points", "O"))
    expected = [(under[(start + k) % len(under)],) for k in range(1, 5)]
    assert seen == expected, (seen, under)
    assert ("joints", "O") in [s[0] for s in seen]
    # nothing moved: a click is not a drag
    assert w.document.undo_stack.count() == 0
