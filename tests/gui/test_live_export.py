"""Issue 7 exports: plot PNG/SVG/CSV (SVG with the Qt >= 6.11 patch), run CSV, MP4/GIF, export bundle round trip,
headless ``mechstudio simulate --plots --video``. GL parts need Xvfb (see test_live_run.py)."""
from __future__ import annotations

import subprocess
import sys
import xml.dom.minidom
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.gui.conftest import ROOT, SAMPLES

pytestmark = pytest.mark.gui

DISK = str(SAMPLES / "rolling_disk_accelerating_plane.json")


@pytest.fixture(scope="module")
def traj() -> Any:
    from mechstudio.core.model import load_model
    from mechstudio.core.simulate import SimulationSettings, run
    from mechstudio.core.systems.compile import compile_model
    m = load_model(DISK)
    return run(compile_model(m), SimulationSettings.from_model(m, t_end=0.4, dt=0.02))


@pytest.fixture
def panel(qtbot: Any, traj: Any) -> Any:
    from mechstudio.gui.plots.panel import PlotPanel
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    p = PlotPanel()
    qtbot.addWidget(p)
    p.resize(1400, 400)
    p.set_system(traj.system)
    b = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    b.append(traj.frames)
    p.refresh(b, force=True)
    return p


def test_plot_png_svg_csv(panel: Any, tmp_path: Path, traj: Any) -> None:
    from PySide6.QtGui import QImage
    from mechstudio.core.run.results import read_csv
    from mechstudio.gui.export import export_plot
    png = export_plot(panel.energy, tmp_path / "energy.png", width=800)
    img = QImage(str(png))
    assert not img.isNull() and img.width() == 800 and img.height() > 100
    svg = export_plot(panel.violation, tmp_path / "violation.svg")
    doc = xml.dom.minidom.parse(str(svg))
    paths = doc.getElementsByTagName("path") + doc.getElementsByTagName("polyline")
    assert len(paths) >= 4, "the SVG lacks the curves"
    # the curves' coordinates are there: long paths with many points
    assert max(len(p.getAttribute("d") or p.getAttribute("points")) for p in paths) > 200
    csv = export_plot(panel.energy, tmp_path / "energy.csv")
    cols = read_csv(csv)
    assert list(cols)[:3] == ["t", "kinetic", "potential"] and len(cols["t"]) == len(traj.frames) == 21
    assert np.allclose(cols["kinetic"], traj.frames.kinetic)


def test_svg_patch_handles_closed_paths() -> None:
    """The Qt >= 6.11 failure (paths ending in Z) does not break the patched correctCoordinates."""
    import importlib
    import mechstudio.gui.export  # noqa: F401  (applies the patch)
    svg = importlib.import_module("pyqtgraph.exporters.SVGExporter")
    assert getattr(svg.correctCoordinates, "_mechstudio_patched", False)
    doc = xml.dom.minidom.parseString('<g><path d="M0,0 L10,0 L10,10 Z"/></g>')
    node = doc.documentElement

    class Item:
        def sceneTransform(self) -> Any:
            from PySide6.QtGui import QTransform
            return QTransform()

    svg.correctCoordinates(node, [], Item(), {"background": None, "width": 100, "height": 100})
    d = node.getElementsByTagName("path")[0].getAttribute("d")
    assert d.endswith("Z") and "10" in d


def test_run_csv_columns(tmp_path: Path, traj: Any) -> None:
    from mechstudio.core.run.results import read_csv
    from mechstudio.gui.export import export_run_csv
    out = export_run_csv(traj, tmp_path / "run.csv")
    cols = read_csv(out)
    assert list(cols) == list(traj.columns())
    assert "reaction.contact.Fz" in cols and "violation.position_before" in cols
    assert len(cols["t"]) == 21


@pytest.fixture
def gl_view(qtbot: Any, qapp: Any, traj: Any) -> Any:
    from PySide6.QtGui import QOpenGLContext
    if qapp.platformName() in ("offscreen", "minimal") or not QOpenGLContext().create():
        pytest.skip("needs OpenGL (Xvfb + xcb)")
    from mechstudio.gui.view3d.scene import SceneView
    v = SceneView()
    qtbot.addWidget(v)
    v.resize(320, 240)
    v.show()
    qtbot.waitExposed(v)
    v.set_model(traj.system.model, traj.system, traj.frames.q[0])
    return v


def test_video_mp4_gif_frame_counts(gl_view: Any, tmp_path: Path, traj: Any) -> None:
    import imageio.v3 as iio
    from mechstudio.gui.export import export_video, video_times
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    from mechstudio.gui.view3d.geometry import Poser
    b = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    b.append(traj.frames)
    expected = len(video_times(0.4, 20.0))
    assert expected == 9
    n = export_video(gl_view, b, Poser(traj.system), tmp_path / "a.mp4", fps=20.0, size=(320, 240))
    assert n == expected
    frames = iio.imread(tmp_path / "a.mp4", plugin="FFMPEG", index=None)  # (n, h, w, 3)
    assert frames.shape == (expected, 240, 320, 3)
    assert np.ptp(frames[0].astype(int)) > 50  # not a blank frame
    n = export_video(gl_view, b, Poser(traj.system), tmp_path / "a.gif", fps=20.0, size=(320, 240))
    gif = iio.imread(tmp_path / "a.gif", index=None)
    assert n == expected and gif.shape[0] == expected and gif.shape[1:3] == (240, 320)
    assert np.any(gif[0] != gif[-1])  # the disk moved


def test_bundle_round_trip(gl_view: Any, panel: Any, tmp_path: Path, traj: Any) -> None:
    from mechstudio.core.model import load_model
    from mechstudio.core.run.results import read_csv
    from mechstudio.core.simulate import SimulationSettings, run
    from mechstudio.core.systems.compile import compile_model
    from mechstudio.gui.export import export_bundle
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    from mechstudio.gui.view3d.geometry import Poser
    b = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    b.append(traj.frames)
    out = export_bundle(tmp_path / "bundle", traj.system.model, traj, panel, gl_view, b, Poser(traj.system),
                        fps=10.0)
    d = tmp_path / "bundle"
    for name in ("model.json", "settings.json", "results.csv", "animation.mp4", "README.txt", "plots/energy.svg",
                 "plots/reactions.png", "plots/violation.csv"):
        assert (d / name).exists(), name
    assert out["video_frames"] == 5
    m = load_model(d / "model.json")
    again = run(compile_model(m), SimulationSettings.from_model(m))
    saved = read_csv(d / "results.csv")
    cols = again.columns()
    assert list(saved) == list(cols)
    for k in cols:
        assert np.array_equal(saved[k], np.asarray(cols[k], float)), k


def test_headless_simulate_plots_and_video(tmp_path: Path, qapp: Any) -> None:
    """``mechstudio simulate FILE --plots DIR --video FILE.mp4`` in a subprocess (its own QApplication)."""
    from PySide6.QtGui import QOpenGLContext
    video = qapp.platformName() not in ("offscreen", "minimal") and QOpenGLContext().create()
    cmd = [sys.executable, "-m", "mechstudio.gui.cli", "simulate", DISK, "--t-end", "0.2", "--dt", "0.02",
           "--out", str(tmp_path / "r.csv"), "--plots", str(tmp_path / "plots")]
    if video:
        cmd += ["--video", str(tmp_path / "v.mp4"), "--fps", "10", "--video-size", "320x240"]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (tmp_path / "r.csv").exists()
    assert {f.name for f in (tmp_path / "plots").iterdir()} >= {"energy.png", "violation.svg", "reactions.csv"}
    if video:
        import imageio.v3 as iio
        frames = iio.imread(tmp_path / "v.mp4", plugin="FFMPEG", index=None)
        assert frames.shape[:3] == (3, 240, 320)  # three frames at the --video-size asked for
