"""Exports of a run: each plot to PNG / SVG / CSV, the whole run to CSV, the animation to MP4 / GIF, and an export
bundle (model, settings, CSV, every plot and the video in one folder); plus the headless exports of
``mechstudio simulate FILE --plots DIR --video FILE.mp4``.

Plot pictures are publication figures (:mod:`mechstudio.gui.plots.figure`): PNG and SVG at a chosen size in pixels (or
inches and dpi; default :data:`~gui.plots.figure.DEFAULT_SIZE`), fonts and legend scaled with the size, no
playback cursor; every plot of a bundle has the same size. pyqtgraph's own SVG exporter (the plots' context menu)
crashes with Qt >= 6.11 (pyqtgraph #3495: closed paths now end in ``Z``); :func:`apply_svg_patch` (applied on
import) strips the ``Z`` before pyqtgraph's coordinate correction and puts it back afterwards (docs:
/work/shared/design/headless-qt.md).

Videos are rendered offscreen from the GL view (``renderToArray``) at :data:`VIDEO_SIZE` (or a chosen size),
with the camera framing the whole motion (every frame of the run, not the first pose: see
``SceneLogic.frame_motion``), and written with imageio (its ffmpeg wheel for MP4, Pillow for GIF); no system
ffmpeg is needed. The view's own camera is restored afterwards.
"""
from __future__ import annotations

import importlib
import json
import math
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

import numpy as np

from mechstudio.core.run.results import write_csv
from mechstudio.gui.plots.figure import DEFAULT_SIZE, FigureSize

VIDEO_SIZE = (1280, 720)  # [px] (H.264 with 4:2:0 chroma needs even sizes)


def parse_video_size(text: str) -> tuple[int, int]:
    """``"1280x720"`` → (1280, 720); even sizes of 16 to 7680 px (the ``--video-size`` option)."""
    size = FigureSize.parse(text)
    w, h = size.width, size.height
    if w % 2 or h % 2 or w > 7680 or h > 7680:
        raise ValueError(f"a video size is two even numbers up to 7680, e.g. 1280x720; not {text!r}")
    return w, h


# ---- pyqtgraph SVG exporter patch (Qt >= 6.11) -----------------------------------------------------------
def apply_svg_patch() -> None:
    """Make pyqtgraph's SVGExporter survive closed paths (``Z``) that Qt >= 6.11 writes. Idempotent."""
    svg = importlib.import_module("pyqtgraph.exporters.SVGExporter")
    if getattr(svg.correctCoordinates, "_mechstudio_patched", False):
        return
    orig = svg.correctCoordinates

    def correct_coordinates(node: Any, defs: Any, item: Any, options: Any) -> Any:
        closed = []
        for p in node.getElementsByTagName("path"):
            toks = p.getAttribute("d").split()
            if "Z" in toks or "z" in toks:
                p.setAttribute("d", " ".join(t for t in toks if t not in ("Z", "z")))
                closed.append(p)
        result = orig(node, defs, item, options)
        for p in closed:
            p.setAttribute("d", p.getAttribute("d").rstrip() + " Z")
        return result

    correct_coordinates._mechstudio_patched = True  # type: ignore[attr-defined]
    svg.correctCoordinates = correct_coordinates


apply_svg_patch()


# ---- plots -----------------------------------------------------------------------------------------------
def plot_size(size: FigureSize | tuple[int, int] | None = None, width: int | None = None) -> FigureSize:
    """A FigureSize from a FigureSize, a (width, height) in pixels, or a width alone (the default aspect)."""
    if isinstance(size, FigureSize):
        return size
    if size is not None:
        return FigureSize(int(size[0]), int(size[1]), DEFAULT_SIZE.dpi)
    if width is not None:
        return FigureSize(int(width), int(round(width * DEFAULT_SIZE.height / DEFAULT_SIZE.width)), DEFAULT_SIZE.dpi)
    return DEFAULT_SIZE


def export_plot(plot: Any, path: str | os.PathLike[str], size: FigureSize | tuple[int, int] | None = None,
                width: int | None = None) -> Path:
    """Write one live plot as PNG or SVG (a figure of ``size``, see the module docstring) or CSV (its curves),
    chosen by the suffix."""
    from mechstudio.gui.plots.figure import Figure
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        _plot_csv(plot, path)
        return path
    if suffix not in (".png", ".svg"):
        raise ValueError(f"unknown plot format {suffix!r}: use .png, .svg or .csv")
    fig = Figure(plot, plot_size(size, width))
    try:
        if suffix == ".png":
            fig.save_png(path)
        else:
            fig.save_svg(path, title=getattr(plot, "title", ""))
    finally:
        fig.close()
    return path


def _plot_csv(plot: Any, path: Path) -> None:
    """The plot's curves as columns t, <curve name>... (all curves share the run's time axis)."""
    cols: dict[str, np.ndarray] = {}
    for name, c in plot.curves.items():
        x, y = c.getOriginalDataset()
        if x is None:
            continue
        cols.setdefault("t", np.asarray(x, float))
        if len(x) == len(cols["t"]):
            cols[name] = np.asarray(y, float)
    write_csv(path, cols if cols else {"t": np.zeros(0)})


def export_plots(panel: Any, directory: str | os.PathLike[str], formats: tuple[str, ...] = ("png", "svg", "csv"),
                 size: FigureSize | tuple[int, int] | None = None) -> list[Path]:
    """Every plot of a PlotPanel in every format, all at one size: ``<dir>/<plot>.<fmt>``."""
    out = []
    for key, plot in panel.plots.items():
        for fmt in formats:
            out.append(export_plot(plot, Path(directory) / f"{key}.{fmt}", size))
    return out


# ---- whole run -------------------------------------------------------------------------------------------
def export_run_csv(trajectory: Any, path: str | os.PathLike[str]) -> Path:
    """The documented CSV columns of the run (``Trajectory.columns()``, docs/results-csv.md)."""
    write_csv(path, trajectory.columns())
    return Path(path)


# ---- video -----------------------------------------------------------------------------------------------
def video_times(t_end: float, fps: float, speed: float = 1.0) -> np.ndarray:
    """Frame times: every 1/fps s of wall time at ``speed``, from 0 to the end of the run."""
    n = int(math.floor(t_end / speed * fps + 1e-9)) + 1
    return np.arange(n) * speed / fps


def render_frames(view: Any, buffer: Any, poser: Any, times: np.ndarray, size: tuple[int, int] = VIDEO_SIZE,
                  constraint_names: list[str] | None = None,
                  progress: Callable[[int, int], None] | None = None) -> Any:
    """Yield RGB frames (h, w, 3) of the view at ``times`` (interpolated between output frames)."""
    q = buffer.field("q")
    R = buffer.field("reactions")
    for k, t in enumerate(times):
        i, j, s = buffer.index_at(float(t))
        view.set_state(poser.interpolate(q[i], q[j], s), float(t), R[i], constraint_names)
        yield view.render_image(*size)
        if progress is not None:
            progress(k + 1, len(times))


def export_video(view: Any, buffer: Any, poser: Any, path: str | os.PathLike[str], fps: float = 30.0,
                 speed: float = 1.0, size: tuple[int, int] = VIDEO_SIZE, constraint_names: list[str] | None = None,
                 progress: Callable[[int, int], None] | None = None) -> int:
    """Render the run to MP4 (H.264, imageio-ffmpeg) or GIF (Pillow) by suffix; returns the frame count. The
    camera frames every frame of the run at ``size`` (width, height) [px]; the view's camera is restored."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    size = (int(size[0]), int(size[1]))
    if size[0] % 2 or size[1] % 2:
        raise ValueError(f"a video size must be even (H.264), not {size[0]}x{size[1]}")
    camera = view.camera_state()
    try:
        view.frame_motion(buffer.field("q"), size)
        return _write_video(view, buffer, poser, path, fps, speed, size, constraint_names, progress)
    finally:
        view.restore_camera(camera)


def _write_video(view: Any, buffer: Any, poser: Any, path: Path, fps: float, speed: float, size: tuple[int, int],
                 constraint_names: list[str] | None, progress: Callable[[int, int], None] | None) -> int:
    import imageio.v2 as iio
    times = video_times(buffer.t_latest, fps, speed)
    frames = render_frames(view, buffer, poser, times, size, constraint_names, progress)
    suffix = path.suffix.lower()
    n = 0
    if suffix == ".mp4":
        writer = iio.get_writer(str(path), format="FFMPEG", mode="I", fps=fps, codec="libx264", quality=7,
                                macro_block_size=2, pixelformat="yuv420p", ffmpeg_log_level="error")
        try:
            for fr in frames:
                writer.append_data(fr)
                n += 1
        finally:
            writer.close()
    elif suffix == ".gif":
        from PIL import Image
        imgs = [Image.fromarray(fr).convert("P", palette=Image.Palette.ADAPTIVE, colors=128) for fr in frames]
        n = len(imgs)
        if n:
            imgs[0].save(str(path), save_all=True, append_images=imgs[1:], duration=int(round(1000 / fps)), loop=0,
                         disposal=1)
    else:
        raise ValueError(f"unknown video format {suffix!r}: use .mp4 or .gif")
    return n


# ---- bundle ----------------------------------------------------------------------------------------------
def settings_dict(settings: Any) -> dict[str, Any]:
    d = asdict(settings)
    return {k: v for k, v in d.items() if v is not None and v != {}}


def export_bundle(directory: str | os.PathLike[str], model: Any, trajectory: Any, panel: Any = None,
                  view: Any = None, buffer: Any = None, poser: Any = None, video: str | None = "animation.mp4",
                  fps: float = 30.0, plot_size: FigureSize | None = None,
                  video_size: tuple[int, int] = VIDEO_SIZE) -> dict[str, Any]:
    """Write model.json (with the run's settings as its ``simulation`` section), settings.json, results.csv,
    plots/<plot>.{png,svg,csv} (all at ``plot_size``) and the video (``video_size``) into ``directory``; returns
    what was written.

    Loading ``model.json`` and running it with its own settings reproduces ``results.csv``.
    """
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    settings = settings_dict(trajectory.settings)
    data = model.copy_data()
    data["simulation"] = {k: v for k, v in settings.items() if k != "options"}
    (d / "model.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (d / "settings.json").write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    written: dict[str, Any] = {"model": d / "model.json", "settings": d / "settings.json"}
    written["csv"] = export_run_csv(trajectory, d / "results.csv")
    if panel is not None:
        written["plots"] = export_plots(panel, d / "plots", size=plot_size)
    if video and view is not None and buffer is not None and poser is not None:
        names = [c.name for c in trajectory.system.constraints]
        written["video_frames"] = export_video(view, buffer, poser, d / video, fps=fps, size=video_size,
                                               constraint_names=names)
        written["video"] = d / video
    st = trajectory.stats or {}
    (d / "README.txt").write_text(
        f"Mechanism Studio export of {model.name}\n"
        f"status: {getattr(trajectory.status, 'value', trajectory.status)} - {trajectory.message}\n"
        f"frames: {len(trajectory.frames)}; right-hand sides: {st.get('rhs_evaluations', '?')}\n"
        "model.json re-runs to results.csv: mechstudio simulate model.json --out results.csv\n", encoding="utf-8")
    return written


# ---- headless (mechstudio simulate ... --plots DIR --video FILE) ---------------------------------------------
def ensure_qt_platform() -> None:
    """Pick a Qt platform for headless exports before QApplication exists: xcb when a display is available
    (needed for OpenGL), otherwise offscreen (plots work, the GL video does not)."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return
    os.environ["QT_QPA_PLATFORM"] = "xcb" if os.environ.get("DISPLAY") else "offscreen"


class VideoUnavailable(RuntimeError):
    pass


def headless_exports(trajectory: Any, model: Any, plots_dir: str | None = None, video: str | None = None,
                     fps: float = 30.0, log: Callable[[str], None] = print,
                     video_size: tuple[int, int] | str = VIDEO_SIZE,
                     plot_size: FigureSize | None = None) -> dict[str, Any]:
    """Build the plots (and the 3D view for a video) without showing a window and export them. ``video_size``:
    (width, height) or "WxH" (the CLI's ``--video-size``)."""
    if isinstance(video_size, str):
        video_size = parse_video_size(video_size)
    ensure_qt_platform()
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication(["mechstudio"])
    from mechstudio.gui.plots.panel import PlotPanel
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    from mechstudio.gui.view3d.geometry import Poser
    system = trajectory.system
    buffer = TrajectoryBuffer(system.n, len(system.constraints))
    buffer.append(trajectory.frames)
    out: dict[str, Any] = {}
    if plots_dir:
        panel = PlotPanel()
        panel.resize(1600, 400)
        panel.show_run(system, buffer)
        app.processEvents()
        out["plots"] = export_plots(panel, plots_dir, size=plot_size)
        log(f"  wrote {len(out['plots'])} plot files to {plots_dir}")
    if video:
        from PySide6.QtGui import QOpenGLContext
        if app.platformName() in ("offscreen", "minimal") or not QOpenGLContext().create():
            raise VideoUnavailable(
                f"--video needs OpenGL, which the Qt platform {app.platformName()!r} does not have: run with a "
                "display, e.g. xvfb-run -a mechstudio simulate ... --video FILE.mp4")
        from mechstudio.gui.view3d.scene import SceneView
        view = SceneView()
        view.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        view.resize(*video_size)
        view.show()
        app.processEvents()
        poser = Poser(system)
        view.set_model(trajectory.system.model, system, trajectory.frames.q[0], 0.0)
        n = export_video(view, buffer, poser, video, fps=fps, size=video_size,
                         constraint_names=[c.name for c in system.constraints])
        out["video_frames"] = n
        log(f"  wrote {n} video frames ({fps:g} fps) to {video}")
        view.close()
    return out
