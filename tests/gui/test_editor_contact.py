"""The planar rolling disk and the cam and follower from the palette, with the mouse (issue 15 items 4 and 5,
through the element registry): each is dropped on its first body and completed with a second click, the
mechanism assembles with the expected degrees of freedom, the canvas draws the contact (line and rim; cam profile
and roller), and the sample models draw. Screenshots are saved (and looked at) for the report."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mechstudio.core.systems.compile import compile_model

pytestmark = pytest.mark.gui
SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"


def test_rolling_disk_from_the_palette(qtbot: Any, window: Any, ui: Any) -> None:
    window.canvas.set_view(150.0, (0.5, 0.3))
    ui.palette_drag("disk", 0.0, 0.3)                 # a disk centred at (0, 0.3) (drops snap to a 0.1 m grid)
    ui.palette_drag("planar_rolling_disk", 0.0, 0.3)  # on its centre: waits for the line
    assert window.canvas.pending is not None
    ui.click_canvas(0.8, 0.0)                         # a ground point of the line, 0.3 below the centre
    joint = window.document.model.data["joints"][-1]
    assert joint["type"] == "planar_rolling_disk" and joint["body1"] == "ground" and joint["body2"] == "disk1"
    assert joint["radius"] == pytest.approx(0.3, abs=1e-9) and joint["axis"] == pytest.approx([1.0, 0.0])
    system = compile_model(window.document.model)
    assert (system.n, system.m) == (3, 2)
    assert "DOF: 1" in window.status_text()
    rolling = next(j for j in window.canvas.geometry.joints if j.symbol == "rolling")
    line, rim = rolling.polylines
    assert line[0][1] == pytest.approx(0.0) and line[1][1] == pytest.approx(0.0)
    assert max(abs(math.dist(v, (0.0, 0.3)) - 0.3) for v in rim) < 1e-12
    path = ui.save_screenshot(window, "editor_rolling_disk.png")
    assert ui.non_background_fraction(path) > 0.02


def test_cam_and_roller_follower_from_the_palette(qtbot: Any, window: Any, ui: Any) -> None:
    window.canvas.set_view(150.0, (0.0, 0.2))
    ui.palette_drag("ground", 0.0, 0.0)
    ui.palette_drag("ground", -0.6, 0.5)
    ui.palette_drag("disk", 0.0, 0.0)          # the cam, on a shaft at the origin
    ui.palette_drag("revolute", 0.0, 0.0)
    ui.palette_drag("bar", -0.6, 0.5)          # the rocker arm, pivoted at (-0.6, 0.5)
    ui.palette_drag("revolute", -0.6, 0.5)
    ui.palette_drag("cam_follower", 0.0, 0.0)  # on the cam's centre: waits for the follower
    assert window.canvas.pending is not None
    ui.click_canvas(0.0, 0.5)                  # the roller's centre on the arm
    cam = window.document.model.data["joints"][-1]
    assert cam["type"] == "cam_follower" and cam["body1"] == "disk1" and cam["body2"] == "bar1"
    assert cam["follower"] == "roller" and cam["radius"] == pytest.approx(0.05)
    assert cam["profile"] == pytest.approx(0.45)  # a circle about the cam's centre touching the roller
    system = compile_model(window.document.model)
    assert (system.n, system.m) == (6, 5)
    assert "DOF: 1" in window.status_text()     # the cam turns; the arm rests on it
    drawn = next(j for j in window.canvas.geometry.joints if j.symbol == "cam")
    profile, roller = drawn.polylines
    assert max(abs(math.dist(v, (0.0, 0.0)) - 0.45) for v in profile) < 1e-9
    assert max(abs(math.dist(v, (0.0, 0.5)) - 0.05) for v in roller) < 1e-9
    path = ui.save_screenshot(window, "editor_cam_follower.png")
    assert ui.non_background_fraction(path) > 0.02


def test_contact_samples_draw(qtbot: Any, window: Any, ui: Any) -> None:
    assert window.open_file(str(SAMPLES / "cam_follower.json"))
    cams = [j for j in window.canvas.geometry.joints if j.symbol == "cam"]
    assert len(cams) == 2 and all(len(j.polylines) == 2 for j in cams)
    flat = next(j for j in cams if j.name == "flat_cam")
    face = np.array(flat.polylines[1])
    assert np.ptp(face[:, 1]) == pytest.approx(0.0) and face[0, 1] == pytest.approx(0.05)  # the face at the top
    path = ui.save_screenshot(window, "editor_cam_sample.png")
    assert ui.non_background_fraction(path) > 0.02
    assert window.open_file(str(SAMPLES / "planar_rolling_disk_incline.json"))
    assert any(j.symbol == "rolling" for j in window.canvas.geometry.joints)
    path = ui.save_screenshot(window, "editor_rolling_sample.png")
    assert ui.non_background_fraction(path) > 0.02
