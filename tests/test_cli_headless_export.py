"""``mechstudio simulate --video/--plots`` with no display (issue 18): a server or CI job has no DISPLAY; the video
is rendered through a virtual X display started automatically (gui/virtual_display.py, needs Xvfb: skipped
without it) and the plots offscreen. Run in a subprocess with DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM removed
from the environment, as on a server."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, SAMPLES


@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb not installed")
def test_video_and_plots_without_a_display(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(ROOT)
    cmd = [sys.executable, "-m", "mechstudio.gui.cli", "simulate", str(SAMPLES / "pendulum.json"), "--t-end", "0.3",
           "--video", "run.gif", "--fps", "20", "--plots", "plots", "--quiet"]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    from PIL import Image, ImageSequence
    with Image.open(tmp_path / "run.gif") as gif:
        frames = [np.asarray(f.convert("RGB"), dtype=float) for f in ImageSequence.Iterator(gif)]
    assert len(frames) >= 5
    assert all(f.std() > 5.0 for f in frames)  # something drawn, not a blank image
    assert np.abs(frames[-1] - frames[0]).mean() > 0.1  # the pendulum moved between the first and last frame
    pngs = sorted(p.name for p in (tmp_path / "plots").glob("*.png"))
    assert "coordinates.png" in pngs and "energy.png" in pngs
