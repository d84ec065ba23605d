"""Issue 13 item 10: exports of publication quality. The plot-export dialog driven with real clicks and keys
(size in inches and dpi → SVG of that size), no playback cursor in the picture (pixel check, with a control that
has one), every bundle plot at one size with proportionate fonts, log-axis tick labels that never overlap (label
boxes, with pyqtgraph's stock axis as the control that does overlap), and a video whose camera frames every frame
of a 10-link chain's swing (projection and pixel checks, with the first-pose camera as the control)."""
from __future__ import annotations

import itertools
import xml.dom.minidom
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest

from tests.gui.conftest import SAMPLES
from tests.gui.test_live_export import gl_view  # noqa: F401 - a SceneView showing this module's ``traj``

pytestmark = pytest.mark.gui

DOUBLE = str(SAMPLES / "double_pendulum.json")
CHAIN = str(SAMPLES / "spherical_chain_10.json")


def simulate(path: str, **kw: Any) -> Any:
    from mechstudio.core.model import load_model
    from mechstudio.core.simulate import SimulationSettings, run
    from mechstudio.core.systems.compile import compile_model
    m = load_model(path)
    return run(compile_model(m), SimulationSettings.from_model(m, **kw))


def buffer_of(traj: Any) -> Any:
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    b = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    b.append(traj.frames)
    return b


@pytest.fixture(scope="module")
def pendulum_run() -> Any:
    return simulate(DOUBLE, t_end=2.0, dt=0.01)


@pytest.fixture
def panel(qtbot: Any, pendulum_run: Any) -> Any:
    from mechstudio.gui.plots.panel import PlotPanel
    p = PlotPanel()
    qtbot.addWidget(p)
    p.resize(1400, 300)
    p.show_run(pendulum_run.system, buffer_of(pendulum_run))
    p.set_cursor(1.0)
    return p


def rgb(img: Any) -> np.ndarray:
    from PySide6.QtGui import QImage
    img = img.convertToFormat(QImage.Format.Format_RGB888)
    a = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine())[:, :img.width() * 3]
    return a.reshape(img.height(), img.width(), 3).astype(int)


# ---- the dialog, with the mouse and the keyboard ---------------------------------------------------------------
def test_export_dialog_inches_and_dpi_give_an_svg_of_that_size(qtbot: Any, panel: Any, tmp_path: Path) -> None:
    """Click the energy plot's Export button, pick "SVG…" in its menu with the keys, choose inches in the dialog
    and type 6 × 4 in at 150 dpi, press Enter: the SVG is 900 × 600 user units and 6 × 4 inches."""
    from PySide6.QtWidgets import QApplication
    from mechstudio.gui.plots.export_dialog import PlotExportDialog
    from mechstudio.gui.export import export_plot
    chosen: list[Any] = []

    def on_export(key: str, fmt: str) -> None:  # what LiveView._on_plot_export does, with the file given
        size = PlotExportDialog(panel, f"the {key} plot").chosen()
        chosen.append(size)
        if size is not None:
            export_plot(panel.plots[key], tmp_path / f"{key}.{fmt}", size)

    panel.sig_export.connect(on_export)
    steps: list[str] = []

    def drive_menu() -> None:
        menu = QApplication.activePopupWidget()
        assert menu is not None, "the Export menu did not open"
        if menu.activeAction() is None or menu.activeAction().text() != "PNG…":
            QTest.keyClick(menu, Qt.Key.Key_Down)  # to the first entry, PNG…
        QTest.keyClick(menu, Qt.Key.Key_Down)  # SVG…
        steps.append(menu.activeAction().text())
        QTimer.singleShot(50, drive_dialog)
        QTest.keyClick(menu, Qt.Key.Key_Return)

    def drive_dialog() -> None:
        dlg = QApplication.activeModalWidget()
        assert isinstance(dlg, PlotExportDialog), dlg
        dlg.units.setFocus()
        QTest.keyClick(dlg.units, Qt.Key.Key_Down)  # pixels -> inches
        assert dlg.units.currentText() == "inches"
        for box, text in ((dlg.dpi, "150"), (dlg.width_box, "6"), (dlg.height_box, "4")):
            box.setFocus()
            box.selectAll()
            QTest.keyClicks(box, text)
        steps.append(dlg.pixels.text())
        QTest.keyClick(dlg.height_box, Qt.Key.Key_Return)

    from PySide6.QtWidgets import QToolButton
    button = panel.energy.findChild(QToolButton, "export_energy")
    QTimer.singleShot(100, drive_menu)
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(chosen), timeout=5000)
    assert steps[0] == "SVG…" and steps[1].startswith("900 × 600 px"), steps
    size = chosen[0]
    assert (size.width, size.height, size.dpi) == (900, 600, 150.0)
    root = xml.dom.minidom.parse(str(tmp_path / "energy.svg")).documentElement
    assert root.getAttribute("viewBox") == "0 0 900 600"
    assert root.getAttribute("width") == "6in" and root.getAttribute("height") == "4in"
    paths = root.getElementsByTagName("path") + root.getElementsByTagName("polyline")
    assert max(len(p.getAttribute("d") or p.getAttribute("points")) for p in paths) > 200, "no curves"
    # the legend is in it (its texts), and readable: its font is that of the tick labels or larger
    texts = [t for t in root.getElementsByTagName("text")]
    names = {"".join(n.data for n in t.childNodes if n.nodeType == n.TEXT_NODE).strip(): t for t in texts}
    assert "kinetic" in names and "potential" in names, list(names)

    def font_px(t: Any) -> float:
        node = t
        while node is not None and node.nodeType == node.ELEMENT_NODE:
            if node.getAttribute("font-size"):
                return float(node.getAttribute("font-size").rstrip("px"))
            node = node.parentNode
        raise AssertionError("no font size")

    tick = next(t for n, t in names.items() if n in ("0.5", "1.0", "1.5"))
    assert font_px(names["kinetic"]) >= 0.9 * font_px(tick)


def test_dialog_refuses_a_size_it_cannot_make(qtbot: Any) -> None:
    from PySide6.QtWidgets import QDialogButtonBox
    from mechstudio.gui.plots.export_dialog import PlotExportDialog
    dlg = PlotExportDialog()
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.units.setCurrentText("inches")
    dlg.dpi.setFocus()
    dlg.dpi.selectAll()
    QTest.keyClicks(dlg.dpi, "2400")
    dlg.width_box.setFocus()
    dlg.width_box.selectAll()
    QTest.keyClicks(dlg.width_box, "9")  # 9 in at 2400 dpi = 21600 px: too large
    assert dlg.size() is None and "20000" in dlg.error.text()
    assert not dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()


# ---- no cursor, one size for all, fonts in proportion ----------------------------------------------------------
def cursor_pixels(fig: Any, img: np.ndarray, t: float) -> int:
    """Pixels of the live cursor's colour (#555555) in the picture column at time t, inside the plot area."""
    x, y_top = fig.to_pixels(t, fig.plot_item.getViewBox().viewRange()[1][1])
    _x, y_bottom = fig.to_pixels(t, fig.plot_item.getViewBox().viewRange()[1][0])
    col = img[int(y_top) + 2:int(y_bottom) - 2, int(round(x)) - 1:int(round(x)) + 2]
    return int(np.sum(np.all(np.abs(col - 0x55) <= 24, axis=2)))


def test_exported_png_has_no_playback_cursor(qtbot: Any, panel: Any) -> None:
    import pyqtgraph as pg
    from mechstudio.gui.plots.figure import Figure, FigureSize
    size = FigureSize(1200, 750)
    for key in ("energy", "reactions"):
        plot = panel.plots[key]
        assert plot.cursor.isVisible() and plot.cursor.value() == 1.0
        fig = Figure(plot, size)
        try:
            clean = rgb(fig.image())
            assert cursor_pixels(fig, clean, 1.0) < 10, key
            # control: the same figure with the live cursor's line does show it to this check
            line = pg.InfiniteLine(1.0, angle=90, pen=plot.cursor.pen)
            fig.plot_item.addItem(line, ignoreBounds=True)
            with_line = rgb(fig.image())
            height = fig.to_pixels(1.0, fig.plot_item.getViewBox().viewRange()[1][0])[1]
            assert cursor_pixels(fig, with_line, 1.0) > 0.2 * height, key
        finally:
            fig.close()


def text_height_px(png: Path, region: tuple[slice, slice]) -> int:
    """Rows of ``region`` holding dark pixels (text) — the height of the tick labels there."""
    from PySide6.QtGui import QImage
    a = rgb(QImage(str(png)))[region]
    return int(np.sum(np.any(np.all(a < 110, axis=2), axis=1)))


def test_bundle_plots_share_one_size_with_proportionate_text(qtbot: Any, panel: Any, pendulum_run: Any,
                                                             tmp_path: Path) -> None:
    from PySide6.QtGui import QImage
    from mechstudio.gui.export import export_bundle
    from mechstudio.gui.plots.figure import FigureSize
    panel.resize(1400, 180)  # odd live shapes: the pictures do not follow them
    qtbot.wait(20)
    for size in (FigureSize(1600, 1000), FigureSize(800, 500)):
        d = tmp_path / f"b{size.width}"
        export_bundle(d, pendulum_run.system.model, pendulum_run, panel, video=None, plot_size=size)
        pngs = sorted((d / "plots").glob("*.png"))
        assert [p.stem for p in pngs] == sorted(panel.plots)
        assert {(QImage(str(p)).width(), QImage(str(p)).height()) for p in pngs} == {(size.width, size.height)}
        svgs = sorted((d / "plots").glob("*.svg"))
        assert {xml.dom.minidom.parse(str(p)).documentElement.getAttribute("viewBox") for p in svgs} == \
            {f"0 0 {size.width} {size.height}"}
    # the text is in proportion: the x tick labels' band of the 1600 picture is twice as tall as the 800's
    big = text_height_px(tmp_path / "b1600" / "plots" / "energy.png", (slice(900, 1000), slice(200, 1500)))
    small = text_height_px(tmp_path / "b800" / "plots" / "energy.png", (slice(450, 500), slice(100, 750)))
    assert small > 8 and 1.6 < big / small < 2.4, (big, small)


# ---- log-axis ticks ----------------------------------------------------------------------------------------------
def label_rects(axis: Any) -> list[Any]:
    from PySide6.QtGui import QImage, QPainter
    img = QImage(10, 10, QImage.Format.Format_ARGB32)
    p = QPainter(img)
    try:
        if axis.style["tickFont"]:
            p.setFont(axis.style["tickFont"])
        specs = axis.generateDrawSpecs(p)
    finally:
        p.end()
    return [rect for rect, _flags, _text in specs[2]] if specs else []


def overlaps(rects: list[Any]) -> int:
    return sum(1 for a, b in itertools.combinations(rects, 2) if a.intersects(b))


@pytest.mark.parametrize("height", [120, 180, 260, 400, 700])
def test_log_axis_labels_never_overlap(qtbot: Any, height: int) -> None:
    import pyqtgraph as pg
    from mechstudio.gui.plots.log_axis import NonOverlappingAxis
    stock_overlaps = 0
    for lo, hi in ((-18, 0), (-18, -8), (-12.2, -9.9), (-10.3, -9.6), (-3, 2), (-16, -15.7)):
        for axis_class in (NonOverlappingAxis, pg.AxisItem):
            w = pg.PlotWidget(axisItems={"left": axis_class("left")})
            qtbot.addWidget(w)
            w.resize(300, height)
            w.show()
            qtbot.waitExposed(w)
            pi = w.getPlotItem()
            pi.setLogMode(y=True)
            pi.getViewBox().setYRange(lo, hi, padding=0)
            qtbot.waitUntil(lambda: pi.getAxis("left").height() > 0.5 * height, timeout=3000)  # laid out
            # the axis fits its width to its labels when it paints, which lays the plot out again: paint and run the
            # pending events (all of them, however slow the machine) until the axis keeps its size over a round (a
            # timed poll may catch the layout half done)
            from PySide6.QtCore import QCoreApplication
            size = None
            for _round in range(20):
                w.grab()
                for _event_pass in range(3):
                    QCoreApplication.sendPostedEvents()
                    QCoreApplication.processEvents()
                size, before = (pi.getAxis("left").width(), pi.getAxis("left").height()), size
                if size == before:
                    break
            rects = label_rects(pi.getAxis("left"))
            if axis_class is NonOverlappingAxis:
                assert overlaps(rects) == 0, (lo, hi, height, [r.getRect() for r in rects])
                assert len(rects) >= (2 if height >= 180 else 1), (lo, hi, height)
            else:
                stock_overlaps += overlaps(rects)
            w.close()
    if height <= 180:
        assert stock_overlaps > 0, "control: pyqtgraph's own log axis overlaps in these cases"


# ---- the video camera ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def traj() -> Any:
    """The 10-link chain swinging for 1.5 s (the ``gl_view`` fixture of test_live_export shows it)."""
    return simulate(CHAIN, t_end=1.5, dt=0.05)


def all_points(view: Any, q: np.ndarray) -> np.ndarray:
    """Every drawn point (mesh vertices, line ends) of every body in configuration q, world frame."""
    from mechstudio.gui.view3d.camera_fit import body_points
    poses = view.poser.poses(q)
    return np.vstack([poses[bv.name][0] + body_points(bv) @ poses[bv.name][1].T for bv in view.spec.bodies
                      if bv.name in poses])


def test_video_frames_the_whole_motion(qtbot: Any, gl_view: Any, traj: Any, tmp_path: Path) -> None:
    import imageio.v3 as iio
    from mechstudio.gui.export import export_video, parse_video_size
    from mechstudio.gui.view3d.geometry import Poser
    v = gl_view
    qs = traj.frames.q
    size = parse_video_size("640x360")
    w, h = size
    # control: the view's camera (fitted to every configuration the chain could reach, a sphere of its length
    # around the pivot) shows this swing small
    v.reset_camera(size)
    before = np.vstack([v.project_pixels(all_points(v, q), size) for q in qs])
    camera_before = v.camera_state()
    # the motion framing: every point of every frame inside the picture, and the motion fills it
    v.frame_motion(qs, size)
    px = np.vstack([v.project_pixels(all_points(v, q), size) for q in qs])
    assert np.all(np.isfinite(px))
    assert px[:, 0].min() >= 0 and px[:, 0].max() <= w and px[:, 1].min() >= 0 and px[:, 1].max() <= h
    span = px.max(axis=0) - px.min(axis=0)
    span_before = before.max(axis=0) - before.min(axis=0)
    print(f"motion span {span} px, with the view's camera {span_before} px")
    assert span[0] > 0.75 * w or span[1] > 0.75 * h, f"the motion is small in the picture: {span}"
    assert max(span / [w, h]) > 1.3 * max(span_before / [w, h]), (span, span_before)
    v.restore_camera(camera_before)
    # the video: 1 + 1.5 s × 10 fps frames of 640x360, nothing of the chain touches the picture's border
    n = export_video(v, buffer_of(traj), Poser(traj.system), tmp_path / "chain.mp4", fps=10.0, size=size)
    frames = iio.imread(tmp_path / "chain.mp4", plugin="FFMPEG", index=None)
    assert n == 16 and frames.shape == (16, h, w, 3)
    bg = np.median(frames[0, :4, :, :].reshape(-1, 3), axis=0)
    for k, fr in enumerate(frames):
        border = np.concatenate([fr[:3].reshape(-1, 3), fr[-3:].reshape(-1, 3), fr[:, :3].reshape(-1, 3),
                                 fr[:, -3:].reshape(-1, 3)]).astype(int)
        assert np.max(np.abs(border - bg)) < 40, f"frame {k}: the chain reaches the picture's border"
        assert np.mean(np.any(np.abs(fr.astype(int) - bg) > 40, axis=2)) > 0.002, f"frame {k} is empty"
    # the view's own camera is back
    assert v.camera_state()["distance"] == camera_before["distance"] and v.follow == camera_before["follow"]


def test_video_size_option() -> None:
    from mechstudio.gui.export import VIDEO_SIZE, parse_video_size
    assert VIDEO_SIZE == (1280, 720)
    assert parse_video_size("1920x1080") == (1920, 1080) and parse_video_size("854×480") == (854, 480)
    for bad in ("1280", "1281x720", "axb", "0x0"):
        with pytest.raises(ValueError):
            parse_video_size(bad)
