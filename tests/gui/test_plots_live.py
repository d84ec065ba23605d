"""Live refresh of the plots (issue 7): the rules that keep plot work between two frames of the 3D view small.

- a live refresh gives new curves to one plot, the stalest first, and moves every plot's time cursor to the same
  time;
- the y range only grows, to hold every value, and a growth is done alone: the curves follow at the next call;
- with ``defer_paint`` the touched plot repaints only after ``flush_paint``;
- once the user zooms, the y range is theirs.
The frame-rate figures are in the view benchmark (docs/benchmarks.md), not here.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def traj() -> Any:
    from mechstudio.core.model import model_from_data
    from mechstudio.core.simulate import SimulationSettings, run
    from mechstudio.core.systems.compile import compile_model
    from mechstudio.gui.bench_view import chain_model_data
    model = model_from_data(chain_model_data(4))
    return run(compile_model(model), SimulationSettings.from_model(model, t_end=1.0, dt=0.01))


@pytest.fixture
def panel(qtbot: Any, traj: Any) -> Any:
    from mechstudio.gui.plots.panel import PlotPanel
    p = PlotPanel()
    qtbot.addWidget(p)
    p.resize(1200, 350)
    p.show()
    qtbot.waitExposed(p)
    p.set_system(traj.system)
    p.set_time_range(1.0)
    return p


def feed(buf: Any, traj: Any, i0: int, i1: int) -> None:
    from mechstudio.core.simulate import FRAME_FIELDS, FrameBlock
    buf.append(FrameBlock(**{k: getattr(traj.frames, k)[i0:i1] for k in FRAME_FIELDS}))


def n_points(plot: Any) -> set[int]:
    return {len(c.getOriginalDataset()[0]) for c in plot.curves.values()}


def y_of(plot: Any, buf: Any) -> list[np.ndarray]:
    return [y for _n, y, _p in plot.series(buf)]


def test_one_plot_per_live_refresh_and_range_growth_apart(panel: Any, traj: Any) -> None:
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    buf = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    feed(buf, traj, 0, 10)
    keys = list(panel.plots)
    touched = []
    for _ in range(2 * len(keys)):  # each plot: its range grows alone, then its curves
        before = {k: n_points(p) for k, p in panel.plots.items()}
        ranges = {k: p._y_range for k, p in panel.plots.items()}
        panel.refresh(buf, cursor=0.05)
        changed = [k for k, p in panel.plots.items() if n_points(p) != before[k] or p._y_range != ranges[k]]
        assert len(changed) == 1, changed
        k = changed[0]
        p = panel.plots[k]
        if p._y_range != ranges[k]:
            assert n_points(p) == before[k], "the range grew and the curves changed in the same call"
        touched.append(k)
        assert p.cursor.value() == pytest.approx(0.05)
    assert panel.up_to_date(buf)
    assert [touched[i] for i in range(0, len(touched), 2)] == keys  # in turn, the stalest first
    for p in panel.plots.values():
        assert n_points(p) == {10}
        lo, hi = p._y_range
        vb_lo, vb_hi = p.plot_item.getViewBox().viewRange()[1]
        assert (vb_lo, vb_hi) == pytest.approx((lo, hi))
        ys = np.concatenate(y_of(p, buf))
        if p.plot_item.ctrl.logYCheck.isChecked():
            ys = np.log10(ys)
        assert lo <= ys.min() and ys.max() <= hi


def test_range_never_shrinks_and_holds_the_data(panel: Any, traj: Any) -> None:
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    buf = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    energy = panel.energy
    prev = None
    for i in range(10, 101, 10):
        feed(buf, traj, i - 10, i)
        for _ in range(2 * len(panel.plots)):
            panel.refresh(buf)
        assert panel.up_to_date(buf)
        lo, hi = energy._y_range
        ys = np.concatenate(y_of(energy, buf))
        assert lo <= ys.min() and ys.max() <= hi
        if prev is not None:
            assert lo <= prev[0] and hi >= prev[1], "the y range shrank"
        prev = (lo, hi)


def test_force_refresh_updates_every_plot_at_once(panel: Any, traj: Any) -> None:
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    buf = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    feed(buf, traj, 0, 50)
    assert panel.refresh(buf, force=True)
    assert panel.up_to_date(buf)
    assert all(n_points(p) == {50} for p in panel.plots.values())


def test_deferred_paint_waits_for_flush(qtbot: Any, panel: Any, traj: Any) -> None:
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    buf = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    feed(buf, traj, 0, 20)
    panel.refresh(buf, force=True)
    qtbot.wait(50)
    feed(buf, traj, 20, 30)
    panel.refresh(buf, cursor=0.25, defer_paint=True)
    assert panel.paint_pending()
    vp = panel.plots[list(panel.plots)[0]].plot_widget.viewport()
    assert not vp.updatesEnabled()
    panel.flush_paint()
    assert vp.updatesEnabled() and not panel.paint_pending()
    # a cursor move alone is not deferred
    for _ in range(2 * len(panel.plots)):
        panel.refresh(buf)
        panel.flush_paint()
    assert panel.up_to_date(buf)
    panel.refresh(buf, cursor=0.5, defer_paint=True)
    assert not panel.paint_pending()


def test_user_zoom_takes_over_the_y_range(panel: Any, traj: Any) -> None:
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    buf = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    feed(buf, traj, 0, 20)
    panel.refresh(buf, force=True)
    p = panel.reactions
    vb = p.plot_item.getViewBox()
    vb.scaleBy(y=0.5)
    vb.sigRangeChangedManually.emit(vb.state["mouseEnabled"])  # what a wheel zoom emits
    zoomed = vb.viewRange()[1]
    assert not p._y_managed
    feed(buf, traj, 20, 100)
    panel.refresh(buf, force=True)
    assert vb.viewRange()[1] == pytest.approx(zoomed), "a refresh moved the range the user chose"
    p.set_system(traj.system)  # a new run: the plot manages its range again
    assert p._y_managed


def test_every_cursor_shows_the_same_time_after_a_live_refresh(qtbot: Any, panel: Any, traj: Any) -> None:
    """All four time cursors follow the animation together (they used to move one plot per refresh, so they
    lagged each other by up to four plot ticks), also while a plot's repaint is deferred."""
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    buf = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    for k, i in enumerate(range(10, 101, 10)):
        feed(buf, traj, i - 10, i)
        t = float(buf.t_latest) * 0.9
        panel.refresh(buf, cursor=t, defer_paint=k % 2 == 0)
        assert [p.cursor.value() for p in panel.plots.values()] == pytest.approx([t] * len(panel.plots))
        panel.flush_paint()
    # all plots up to date: a refresh still moves every cursor
    for _ in range(2 * len(panel.plots)):
        panel.refresh(buf)
    assert panel.up_to_date(buf)
    panel.refresh(buf, cursor=0.123)
    assert [p.cursor.value() for p in panel.plots.values()] == pytest.approx([0.123] * len(panel.plots))
    qtbot.wait(30)
    for k, p in panel.plots.items():  # each plot shows its cursor (grey #555 dashes) at t = 0.123
        assert abs(cursor_column(p) - column_of(p, 0.123)) <= 1, k


def column_of(plot: Any, t: float) -> int:
    from PySide6.QtCore import QPointF
    vb = plot.plot_item.getViewBox()
    y0, y1 = vb.viewRange()[1]
    scene = vb.mapViewToScene(QPointF(t, 0.5 * (y0 + y1)))
    return int(plot.plot_widget.mapFromScene(scene).x())


def cursor_column(plot: Any) -> int:
    """The pixel column of the plot widget with the most pixels of the cursor's grey."""
    from PySide6.QtGui import QImage
    img = plot.plot_widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    a = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine() // 4, 4)[:, :img.width()]
    c = a[:, :, :3].astype(int)
    grey = (np.abs(c - 0x55) <= 4).all(axis=2)  # (blending with the grid moves it by a step or two)
    return int(np.argmax(grey.sum(axis=0)))


def test_y_range_growth_lays_out_the_axis_at_once(qtbot: Any, panel: Any, traj: Any) -> None:
    """A growth of the y range builds the left axis' tick picture right away (in the gap where the range is set,
    not in the deferred repaint), and the axis then looks as if it had been built while painting."""
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    buf = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    feed(buf, traj, 0, 60)
    p = panel.energy
    axis = p.plot_item.getAxis("left")
    qtbot.wait(30)
    assert axis.picture is not None
    assert p.grow_y_range(y_of(p, buf))
    assert axis.picture is not None, "the axis waits for the repaint to lay out its ticks"
    qtbot.wait(30)
    prebuilt = p.plot_widget.grab().toImage()
    axis.picture = None  # as pyqtgraph would build it, in paint()
    p.set_axis_cache(False)
    p.set_axis_cache(True)
    built_in_paint = p.plot_widget.grab().toImage()
    assert axis.picture is not None
    assert prebuilt == built_in_paint


def test_a_curve_constant_but_for_rounding_gets_a_readable_range(panel: Any) -> None:
    """A coordinate that stays -0.5 but for rounding (1e-16) is drawn in a range of at least MIN_RELATIVE_SPAN of
    its magnitude, centred on it: tick labels like -0.5 and -0.5000001, not -0.49999999999999998. A curve that
    really moves keeps its own range (the headroom over its span)."""
    from mechstudio.gui.plots.panel import HEADROOM, MIN_RELATIVE_SPAN
    p = panel.energy
    p.refit_y()
    y = -0.5 + np.array([0.0, 5.5e-17, -5.5e-17, 1.1e-16])
    lo, hi = p._grown_y_range([y])
    assert hi - lo >= MIN_RELATIVE_SPAN * 0.5 and abs((lo + hi) / 2 + 0.5) < 1e-15
    p.refit_y()
    moving = np.array([0.0, 2.0])
    assert p._grown_y_range([moving]) == pytest.approx((-2.0 * HEADROOM, 2.0 + 2.0 * HEADROOM), rel=1e-12)
