"""View benchmark (issue 7): a 10-link planar chain animated in the 3D view at 60 fps for 10 s of playback.

:func:`run_view_benchmark` simulates the chain once (headless, not timed), then plays it back in a visible
:class:`~gui.view3d.scene.SceneWindow` the way the live view does (a 16 ms display timer, interpolating between
output frames, each frame rendered with glFinish) and returns the frame statistics. ``mechstudio bench`` can print
it; it needs a display with OpenGL (e.g. under xvfb-run). Not a timed test. Frame times are taken when the GL
window has swapped its buffers (``frameSwapped``); "render" is the delay from the state update to that swap.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np


def chain_model_data(n: int = 10, length: float = 0.3) -> dict[str, Any]:
    bodies, joints = [], []
    for k in range(n):
        bodies.append({"name": f"link{k + 1}", "mass": 0.5, "inertia": 0.5 * length ** 2 / 12,
                       "com": [length / 2, 0.0], "points": {"a": [0.0, 0.0], "b": [length, 0.0]},
                       "geometry": [{"type": "bar", "from": "a", "to": "b", "width": 0.03}],
                       "color": ["#d9534f", "#4a90d9", "#5cb85c", "#f0ad4e"][k % 4],
                       "initial": {"x": k * length, "y": 0.0, "phi": 0.0}})
        joints.append({"name": f"J{k + 1}", "type": "revolute", "body1": "ground" if k == 0 else f"link{k}",
                       "point1": "O" if k == 0 else "b", "body2": f"link{k + 1}", "point2": "a"})
    return {"format": "mechanism-studio-model", "version": 1, "name": f"planar_chain_{n}", "kind": "planar",
            "gravity": [0.0, -9.81], "ground": {"points": {"O": [0.0, 0.0]}}, "bodies": bodies, "joints": joints,
            "drivers": [], "forces": []}


def run_view_benchmark(duration: float = 10.0, fps: float = 60.0, size: tuple[int, int] = (800, 600),
                       n_links: int = 10, sim_t_end: float = 2.0) -> dict[str, Any]:
    """Play ``duration`` s of the chain's animation; returns fps, frame-interval percentiles and late frames.

    The simulated run is ``sim_t_end`` s (dt 0.01) and playback loops over it, so the benchmark measures the
    view, not the solver.
    """
    from gui.export import ensure_qt_platform
    ensure_qt_platform()
    from OpenGL import GL
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication
    from core.model import model_from_data
    from core.simulate import SimulationSettings, run
    from core.system import compile_model
    from gui.simulation.buffer import TrajectoryBuffer
    from gui.view3d.geometry import Poser
    from gui.view3d.scene import SceneWindow
    app = QApplication.instance() or QApplication(["mechstudio-bench"])
    model = model_from_data(chain_model_data(n_links))
    system = compile_model(model)
    traj = run(system, SimulationSettings(t_end=sim_t_end, dt=0.01, rtol=1e-6, atol=1e-8))
    buf = TrajectoryBuffer(system.n, len(system.constraints))
    buf.append(traj.frames)
    poser = Poser(system)
    win = SceneWindow()
    win.setParent(None)  # a top-level window here (its default parent is a hidden anchor)
    win.resize(*size)
    win.show()
    win.set_model(model, system, traj.frames.q[0])
    loop = QEventLoop()
    QTimer.singleShot(300, loop.quit)
    loop.exec()
    stamps: list[float] = []
    render_ms: list[float] = []
    q = buf.field("q")
    t_sim = buf.t_latest
    t0 = time.perf_counter()

    def frame() -> None:
        now = time.perf_counter()
        if now - t0 >= duration:
            loop.quit()
            return
        t = (now - t0) % t_sim
        i, j, s = buf.index_at(t)
        win.set_state(poser.interpolate(q[i], q[j], s), t)  # schedules a repaint (as the live view does)
        requested.append(now)

    def swapped() -> None:
        stamps.append(time.perf_counter())
        if requested:
            render_ms.append(1e3 * (stamps[-1] - requested[-1]))

    requested: list[float] = []
    win.frameSwapped.connect(swapped)
    timer = QTimer()
    timer.setTimerType(__import__("PySide6.QtCore", fromlist=["Qt"]).Qt.TimerType.PreciseTimer)
    from gui.simulation.controller import DISPLAY_MS  # the live view's own display timer
    timer.setInterval(DISPLAY_MS if fps == 60.0 else int(1000 // fps))
    timer.timeout.connect(frame)
    timer.start()
    loop.exec()
    timer.stop()
    win.makeCurrent()
    renderer = (GL.glGetString(GL.GL_RENDERER) or b"?").decode()
    win.doneCurrent()
    win.close()
    if len(stamps) < 2:
        raise RuntimeError(f"no frames were presented ({len(requested)} updates requested): is there a display?")
    gaps = np.diff(stamps) * 1e3
    return {"links": n_links, "duration_s": round(stamps[-1] - stamps[0], 2) if stamps else 0.0,
            "frames": len(stamps), "fps": round(len(stamps) / max(stamps[-1] - stamps[0], 1e-9), 1) if stamps else 0,
            "frame_interval_ms_p50": round(float(np.percentile(gaps, 50)), 1),
            "frame_interval_ms_p99": round(float(np.percentile(gaps, 99)), 1),
            "frame_interval_ms_max": round(float(gaps.max()), 1), "late_frames_over_33ms": int(np.sum(gaps > 33.0)),
            "update_to_swap_ms_mean": round(float(np.mean(render_ms)), 2), "update_to_swap_ms_max": round(float(np.max(render_ms)), 2),
            "size": f"{size[0]}x{size[1]}", "renderer": renderer}


if __name__ == "__main__":
    print(run_view_benchmark())


def view_suite(quick: bool = False, **_: Any) -> "Any":
    """The "view" suite of ``mechstudio bench``: the live view's frame rate (issue 7 target: 60 fps, no frame
    later than 33 ms over a 10 s playback of the 10-link planar chain)."""
    from core.bench import BenchTable
    row = run_view_benchmark(duration=3.0 if quick else 10.0)
    ok = row["fps"] >= 59.0 and row["late_frames_over_33ms"] == 0
    return BenchTable("Live view frame rate (10-link planar chain)", [row],
                      [f"target: 60 fps with no frame later than 33 ms: {'met' if ok else 'NOT met'} here",
                       "software OpenGL (Mesa llvmpipe) under Xvfb when run headless"])
