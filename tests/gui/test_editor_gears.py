"""Gear pair and rack and pinion from the palette, with the mouse (issue 15 items 2 and 3 through the element
registry): each is placed by pressing its palette entry, dropping it on the first joint it couples and clicking
the second one; the mechanism then assembles with one degree of freedom and the canvas draws the pitch circles
(and the rack's pitch line)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mechstudio.core.kinematics.assembly import assemble
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status

pytestmark = pytest.mark.gui
SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"


def assembles_with_one_dof(window: Any) -> Any:
    system = compile_model(window.document.model)
    res = assemble(system, system.initial_guess())
    assert res.status == Status.CONVERGED, res.message
    assert max(abs(system.phi(res.q, 0.0))) < 1e-10
    assert "DOF: 1" in window.status_text()
    return system


def test_gear_pair_from_the_palette(qtbot: Any, window: Any, ui: Any) -> None:
    window.canvas.set_view(200.0, (0.25, 0.0))
    ui.palette_drag("ground", 0.0, 0.0)
    ui.palette_drag("ground", 0.5, 0.0)
    ui.palette_drag("disk", 0.0, 0.0)
    ui.palette_drag("disk", 0.5, 0.0)
    ui.palette_drag("revolute", 0.0, 0.0)
    ui.palette_drag("revolute", 0.5, 0.0)
    ui.palette_drag("gear_pair", 0.0, 0.0)  # on the first revolute: waits for the second one
    assert window.canvas.pending is not None
    ui.click_canvas(0.5, 0.0)
    gear = window.document.model.data["joints"][-1]
    assert gear["type"] == "gear_pair" and gear["radius1"] == gear["radius2"] == pytest.approx(0.25)
    system = assembles_with_one_dof(window)
    assert (system.n, system.m) == (6, 5)
    rec = next(j for j in window.canvas.geometry.joints if j.type == "gear_pair")
    assert [r for _, r in rec.circles] == pytest.approx([0.25, 0.25]) and rec.p2 == pytest.approx((0.25, 0.0))
    path = ui.save_screenshot(window, "editor_gear_pair.png")
    assert ui.non_background_fraction(path) > 0.02


def test_rack_and_pinion_from_the_palette(qtbot: Any, window: Any, ui: Any) -> None:
    window.canvas.set_view(200.0, (0.0, -0.2))
    ui.palette_drag("ground", 0.0, 0.0)
    ui.palette_drag("disk", 0.0, 0.0)
    ui.palette_drag("revolute", 0.0, 0.0)
    ui.palette_drag("block", 0.0, -0.4)
    ui.palette_drag("prismatic", 0.0, -0.4)  # on the block: waits for the second body
    ui.click_canvas(0.6, -0.4)               # on nothing: a new ground point, the rack slides along x
    ui.palette_drag("rack_pinion", 0.0, 0.0)  # on the pinion's revolute
    assert window.canvas.pending is not None
    ui.click_canvas(0.0, -0.4)               # on the prismatic joint's point on the block
    rack = window.document.model.data["joints"][-1]
    assert rack["type"] == "rack_pinion" and rack["side"] == "right"
    assert rack["radius"] == pytest.approx(0.4)  # the sliding line's distance from the pinion's centre
    assembles_with_one_dof(window)
    rec = next(j for j in window.canvas.geometry.joints if j.type == "rack_pinion")
    assert rec.rack is not None and rec.p2 == pytest.approx((0.0, -0.4))
    path = ui.save_screenshot(window, "editor_rack_pinion.png")
    assert ui.non_background_fraction(path) > 0.02


def test_gear_samples_draw(qtbot: Any, window: Any, ui: Any) -> None:
    for sample in ("gear_train.json", "rack_and_pinion.json"):
        assert window.open_file(str(SAMPLES / sample))
        records = [j for j in window.canvas.geometry.joints if j.symbol in ("gears", "rack")]
        assert records and all(r.circles for r in records)
        path = ui.save_screenshot(window, f"editor_{sample.replace('.json', '.png')}")
        assert ui.non_background_fraction(path) > 0.02



@pytest.mark.parametrize("sample", ["gear_train.json", "rack_and_pinion.json"])
def test_gear_samples_in_the_3d_view(qtbot: Any, require_gl: None, ui: Any, sample: str) -> None:
    """The 3D view draws the pitch-circle rings (and the rack bar) with the bodies."""
    from mechstudio.core.model import load_model
    from mechstudio.gui.view3d.scene import SceneView
    model = load_model(SAMPLES / sample)
    system = compile_model(model)
    view = SceneView()
    qtbot.addWidget(view)
    view.resize(640, 400)
    view.show()
    qtbot.waitExposed(view)
    view.set_model(model, system, system.initial_guess())
    view.reset_camera()
    qtbot.wait(200)
    out = Path(ui.save_screenshot(view, f"view3d_{sample.replace('.json', '.png')}"))
    image = view.grabFramebuffer()
    assert image.save(str(out))
    assert ui.non_background_fraction(out) > 0.02
