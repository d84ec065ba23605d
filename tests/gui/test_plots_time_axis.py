"""Long runs: the plots' time axis follows the data (it does not span the whole end time, where the data of a
3600 s run would be an invisible sliver), grows a few times, ends on the data when the run stops, and leaves a
user's zoom alone; the progress bar shows an ETA while the solver runs."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import SAMPLES
from tests.gui.document_helpers import press, start_window

pytestmark = pytest.mark.gui
PAD = 0.01  # the plots pad their time range by 1 % of its span on each side
#: the data fill at least this much of the time axis while it follows them (the axis end moves to twice the
#: newest time when the data reach it, so they fill between half and all of it)
MIN_FILL = 0.45


@pytest.fixture(scope="module")
def traj() -> Any:
    from mechstudio.core.model import load_model
    from mechstudio.core.simulate import SimulationSettings, run
    from mechstudio.core.systems.compile import compile_model
    model = load_model(SAMPLES / "pendulum.json")
    return run(compile_model(model), SimulationSettings.from_model(model, t_end=5.0, dt=0.01))


def x_range(plot: Any) -> tuple[float, float]:
    lo, hi = plot.plot_item.getViewBox().viewRange()[0]
    span = (hi - lo) / (1 + 2 * PAD)
    return lo + PAD * span, hi - PAD * span


def feed_to(buf: Any, traj: Any, t: float) -> None:
    from mechstudio.core.simulate import FRAME_FIELDS, FrameBlock
    i0, i1 = len(buf), int(np.searchsorted(traj.frames.t, t, side="right"))
    buf.append(FrameBlock(**{k: getattr(traj.frames, k)[i0:i1] for k in FRAME_FIELDS}))


def test_the_time_axis_follows_the_data_of_a_long_run(qtbot: Any, traj: Any) -> None:
    from mechstudio.gui.plots.panel import FIRST_TIME_SPAN, PlotPanel
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    p = PlotPanel()
    qtbot.addWidget(p)
    p.resize(1200, 350)
    p.show()
    qtbot.waitExposed(p)
    p.set_system(traj.system)
    p.set_time_range(3600.0)  # an hour-long run
    energy = p.plots["energy"]
    assert x_range(energy) == pytest.approx((0.0, FIRST_TIME_SPAN))
    buf = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    ends = []
    for t in (0.5, 1.2, 2.0, 3.3, 5.0):
        feed_to(buf, traj, t)
        p.refresh(buf, force=True)
        for plot in p.plots.values():
            lo, hi = x_range(plot)
            assert lo == pytest.approx(0.0, abs=1e-9) and t <= hi + 1e-9
            assert t / hi >= MIN_FILL or hi == FIRST_TIME_SPAN, (plot.key, t, hi)
        ends.append(x_range(energy)[1])
    # grown twice in five refreshes (to twice the newest time, 1.2 s then 3.3 s), never shrunk
    assert ends == pytest.approx([1.0, 2.4, 2.4, 6.6, 6.6], abs=0.021)
    p.fit_time(5.0)  # the run ended (stopped) at 5 s: the data fill the plot
    assert all(x_range(plot) == pytest.approx((0.0, 5.0)) for plot in p.plots.values())
    # a zoom by the user is theirs: new data do not move the axis
    vb = energy.plot_item.getViewBox()
    p.set_time_range(3600.0)
    buf2 = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    feed_to(buf2, traj, 0.5)
    p.refresh(buf2, force=True)
    vb.scaleBy((0.5, 1.0))
    vb.sigRangeChangedManually.emit(vb.state["mouseEnabled"])
    zoomed = vb.viewRange()[0]
    feed_to(buf2, traj, 4.0)
    p.refresh(buf2, force=True)
    assert vb.viewRange()[0] == pytest.approx(zoomed)


def test_a_long_live_run_fills_its_plots_and_shows_an_eta(qtbot: Any, messenger: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    w = start_window(qtbot, messenger, monkeypatch, (1366, 768), str(SAMPLES / "pendulum.json"))
    c, live = w.live.controller, w.live
    t_end = 3600.0
    c.set_overrides(t_end=t_end)
    formats: list[str] = []

    def progressed() -> bool:
        if live.progress.isVisible():
            formats.append(live.progress.format())
        return c.buffer.t_latest > 2.0 and any("ETA" in f for f in formats)
    press(w.canvas, Qt.Key.Key_F5)
    qtbot.waitUntil(progressed, timeout=120_000)
    qtbot.waitUntil(lambda: min(plot.data_range()[1] for plot in live.plots.plots.values()) > 1.0, timeout=30_000)
    for plot in live.plots.plots.values():
        lo, hi = x_range(plot)
        data_end = float(plot.data_range()[1])
        # the axis follows the data (they fill about half of it or more), not the end time; how far the run has
        # got when this is read depends on the machine's speed and load, so the bound is relative to the end time
        assert hi < 0.25 * t_end and data_end / hi >= MIN_FILL * 0.9, (plot.key, data_end, hi)
    eta = next(f for f in reversed(formats) if "ETA" in f)
    assert eta.split("ETA ")[1].split()[-1] in ("s", "min", "h")  # a duration in words, e.g. "12 min 05 s"
    press(w.canvas, Qt.Key.Key_F5, Qt.KeyboardModifier.ShiftModifier)  # Stop
    qtbot.waitUntil(lambda: c.state == "stopped", timeout=30_000)
    t_last = c.buffer.t_latest
    qtbot.waitUntil(lambda: live.plots.up_to_date(c.buffer), timeout=10_000)
    for plot in live.plots.plots.values():
        assert x_range(plot) == pytest.approx((0.0, t_last))  # the stopped run fills its plots
    assert live.slider_span() == pytest.approx(t_last)
    assert not live.progress.isVisible()
    c.shutdown()


def test_durations_read_as_words() -> None:
    from mechstudio.gui.simulation.live import format_duration
    assert [format_duration(s) for s in (0.2, 42.4, 245, 3 * 3600 + 20 * 60, 2 * 86400 + 4 * 3600)] == \
        ["< 1 s", "42 s", "4 min 05 s", "3 h 20 min", "2 d 04 h"]


def test_a_long_colour_key_takes_two_lines_and_lists_the_rest_in_its_tooltip(qtbot: Any) -> None:
    """The four-bar's nine coordinates in a narrow plot: the key keeps two lines, counts what it leaves out
    ("+N more") and its tooltip names every curve; a wide plot shows every entry and needs no tooltip."""
    from mechstudio.core.model import load_model
    from mechstudio.core.simulate import SimulationSettings, run
    from mechstudio.core.systems.compile import compile_model
    from mechstudio.gui.plots.panel import KEY_LINES, CoordinatePlot
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    model = load_model(SAMPLES / "four_bar.json")
    traj = run(compile_model(model), SimulationSettings.from_model(model, t_end=0.1, dt=0.01))
    buf = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    buf.append(traj.frames)
    plot = CoordinatePlot()
    qtbot.addWidget(plot)
    plot.resize(240, 320)
    plot.show()
    qtbot.waitExposed(plot)
    plot.set_system(traj.system)
    for name in traj.system.coord_names:
        plot.add_series(f"q.{name}")
    plot.update_curves(buf)
    qtbot.wait(50)
    key = plot.key_label
    names = list(plot.curves)
    assert len(names) == 9
    line = key.fontMetrics().lineSpacing()
    assert key.height() <= KEY_LINES * line + 4, (key.height(), line)
    assert "more" in key.text() and all(n in key.toolTip() for n in names)
    assert plot.plot_widget.height() >= 0.6 * plot.height()  # the curves keep most of the plot
    plot.resize(1400, 320)
    qtbot.wait(50)
    assert "more" not in key.text() and all(n in key.text() for n in names) and key.toolTip() == ""
