"""The pin-in-slot joint from the palette, with the mouse (issue 15 item 1 through the element registry): a crank
and a lever on ground pins, then the palette's "Pin in slot" dropped on the crank's tip and the lever gives the
slotted lever of sample_models/slotted_lever.json (slot along the global x axis at the drop point, i.e. along
the lever when it lies horizontal), which assembles with one degree of freedom."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mechstudio.core.systems.compile import compile_model

pytestmark = pytest.mark.gui
SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"


def test_pin_in_slot_from_the_palette(qtbot: Any, window: Any, ui: Any) -> None:
    window.canvas.set_view(120.0, (1.0, 0.0))
    ui.palette_drag("ground", 0.0, 0.0)
    ui.palette_drag("ground", 0.0, -1.0)
    ui.palette_drag("bar", 0.0, 0.0)        # crank from (0, 0) to (1, 0)
    ui.palette_drag("bar", 0.0, -1.0)       # lever from (0, -1) to (1, -1)
    ui.palette_drag("revolute", 0.0, 0.0)
    ui.palette_drag("revolute", 0.0, -1.0)
    ui.palette_drag("pin_in_slot", 1.0, 0.0)  # on the crank's tip: waits for the slotted body
    assert window.canvas.pending is not None
    ui.click_canvas(0.6, -1.0)              # on the lever
    joints = window.document.model.data["joints"]
    slot = joints[-1]
    assert slot["type"] == "pin_in_slot" and {slot["body1"], slot["body2"]} == {"bar1", "bar2"}
    assert slot["axis"] == pytest.approx([1.0, 0.0])
    system = compile_model(window.document.model)
    assert (system.n, system.m) == (6, 5)
    assert "DOF: 1" in window.status_text()
    assert any(j.symbol == "slot" for j in window.canvas.geometry.joints)


def test_slotted_lever_sample_draws(qtbot: Any, window: Any, ui: Any) -> None:
    assert window.open_file(str(SAMPLES / "slotted_lever.json"))
    sg = window.canvas.geometry
    slot = next(j for j in sg.joints if j.type == "pin_in_slot")
    (x0, y0), (x1, y1) = slot.slot
    assert np.hypot(x1 - x0, y1 - y0) == pytest.approx(1.3)
    lever = sg.body("lever")
    ends = [np.array(slot.slot[0]), np.array(slot.slot[1])]
    outline = next(p for p in lever.polygons if len(p) > 4)  # the slot's outline on the lever
    assert min(np.linalg.norm(np.array(v) - ends[0]) for v in outline) == pytest.approx(0.02)
    assert min(np.linalg.norm(np.array(v) - ends[1]) for v in outline) == pytest.approx(0.02)
    path = ui.save_screenshot(window, "editor_slotted_lever.png")
    assert ui.non_background_fraction(path) > 0.02
