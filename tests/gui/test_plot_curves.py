"""All curves of a plot in one item (gui/plots/curves.py, issue 7): it must draw what the per-curve pyqtgraph items
drew (same pixels on screen and in PNG exports, the same curve geometry in SVG exports), also after partial
repaints by a moving time cursor, with downsampling, gaps, log axes, clipping to the view and deep zooms.

The reference is what the plots used before: one ``PlotDataItem`` per curve with ``clipToView``, automatic peak
downsampling and no dynamic-range limit while the plot manages its y range.
"""
from __future__ import annotations

import xml.dom.minidom
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytestmark = pytest.mark.gui
SETTLE_ROUNDS = 6  # event-loop rounds that deliver a change to the screen (each queued step takes one)


@pytest.fixture(scope="module")
def traj() -> Any:
    from mechstudio.core.model import model_from_data
    from mechstudio.core.simulate import SimulationSettings, run
    from mechstudio.core.systems.compile import compile_model
    from mechstudio.gui.bench_view import chain_model_data
    model = model_from_data(chain_model_data(10))  # 20 reaction curves
    return run(compile_model(model), SimulationSettings.from_model(model, t_end=1.5, dt=0.005))


@pytest.fixture
def panel(qtbot: Any, traj: Any) -> Any:
    from mechstudio.gui.plots.panel import PlotPanel
    from mechstudio.gui.simulation.buffer import TrajectoryBuffer
    p = PlotPanel()
    qtbot.addWidget(p)
    p.resize(1280, 370)  # the plot dock of the main window
    p.show()
    qtbot.waitExposed(p)
    p.set_system(traj.system)
    p.set_time_range(1.5)
    p.coordinates.add_series(f"v.{traj.system.coord_names[5]}")
    buf = TrajectoryBuffer(traj.system.n, len(traj.system.constraints))
    buf.append(traj.frames)
    p.refresh(buf, force=True)
    p.buffer = buf
    return p


#: how often :func:`on_screen` grabs the screen again while it is still changing
STABLE_GRABS = 40


def settle() -> None:
    """Run the pending events to the end: a scene change is queued, turns into a repaint request of the view, which
    is queued too, and is then painted and flushed to the X server. A few rounds deliver all of it, however slow the
    machine is (waiting a fixed number of milliseconds does not, under load)."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication
    for _ in range(SETTLE_ROUNDS):
        QCoreApplication.sendPostedEvents()
        QApplication.processEvents()


def pixels(widget: Any, qtbot: Any) -> np.ndarray:
    from PySide6.QtGui import QImage
    settle()
    img = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    a = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine() // 4, 4)
    return a[:, :img.width(), :3].copy()


def reference_items(plot_item: Any, x: np.ndarray, series: list[tuple[str, np.ndarray, Any]],
                    names: bool = False) -> list[Any]:
    """The curves as the plots drew them before: one PlotDataItem each."""
    items = []
    for name, y, pen in series:
        c = plot_item.plot(x, y, pen=pen, name=name if names else None)
        c.setClipToView(True)
        c.setDownsampling(auto=True, method="peak")
        c.setDynamicRangeLimit(None)
        items.append(c)
    return items


def swap_to_reference(plot: Any, x: np.ndarray, series: list[tuple[str, np.ndarray, Any]]) -> list[Any]:
    plot.curve_set.hide()
    plot.legend.clear()
    return reference_items(plot.plot_item, x, series, names=True)


def test_each_plot_is_one_curve_item_painted_once(panel: Any, qtbot: Any) -> None:
    import pyqtgraph as pg
    from mechstudio.gui.plots.curves import CurveSet
    assert len(panel.reactions.curves) == 20
    for p in panel.plots.values():
        items = p.plot_item.items
        assert not [i for i in items if isinstance(i, (pg.PlotDataItem, pg.PlotCurveItem))]
        assert [i for i in items if isinstance(i, CurveSet)] == [p.curve_set]
    cs = panel.reactions.curve_set
    n = cs.paints
    panel.reactions.plot_widget.viewport().repaint()
    assert cs.paints == n + 1  # all 20 curves in one paint()


@pytest.mark.parametrize("key", ["reactions", "violation", "energy", "coordinates"])
def test_same_pixels_as_one_item_per_curve(panel: Any, qtbot: Any, key: str) -> None:
    p = panel.plots[key]
    p.cursor.hide()
    new = pixels(p.plot_widget, qtbot)
    assert (new != new[3, -3]).any(axis=2).sum() > 2000, "nothing drawn"
    series = p.series(panel.buffer)
    swap_to_reference(p, panel.buffer.t, series)
    old = pixels(p.plot_widget, qtbot)
    diff = (new != old).any(axis=2)
    assert diff.sum() == 0, f"{int(diff.sum())} pixels differ from the per-curve items"


def on_screen(widget: Any, qtbot: Any) -> np.ndarray:
    """What the X server shows of the widget (``grab()`` would paint it afresh, in full), once it has stopped
    changing: the app's flush of a repaint to the X server is asynchronous, and on a loaded machine the server may
    still be drawing the last strips when the events are done (grabbed again, 50 ms apart, until two grabs agree;
    at most ``STABLE_GRABS`` times)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QImage
    top = widget.window()
    at = widget.mapTo(top, QPoint(0, 0))

    def grab() -> np.ndarray:
        settle()
        img = top.screen().grabWindow(top.winId(), at.x(), at.y(), widget.width(), widget.height()).toImage()
        img = img.convertToFormat(QImage.Format.Format_RGB32)
        a = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine() // 4, 4)
        return a[:, :img.width(), :3].copy()
    last = grab()
    for _ in range(STABLE_GRABS):
        qtbot.wait(50)
        now = grab()
        if np.array_equal(now, last):
            break
        last = now
    return last


def test_cursor_strips_repaint_the_same_pixels(panel: Any, qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A moving cursor repaints thin strips, where only the curves' points in the strip are drawn: after the
    cursor went over the plot in live-sized steps (each one painted before the next) and away, the screen shows
    what a full repaint shows."""
    from mechstudio.gui.plots.curves import CurveSet
    strips = []
    orig = CurveSet._strip

    def spy(self: Any, opt: Any) -> Any:
        r = orig(self, opt)
        strips.append(r is not None)
        return r

    monkeypatch.setattr(CurveSet, "_strip", spy)
    for p in panel.plots.values():
        p.cursor.setValue(-1.0)  # outside the view
        p.plot_widget.viewport().repaint()
    full = {k: on_screen(p.plot_widget, qtbot) for k, p in panel.plots.items()}
    for t in np.arange(0.0, 1.6, 0.06):  # a plot tick's worth of animation per step
        panel.set_cursor(float(t))
        settle()
    panel.set_cursor(-1.0)
    assert sum(strips) > 50, "the cursor moves did not repaint strips"
    for k, p in panel.plots.items():
        diff = (on_screen(p.plot_widget, qtbot) != full[k]).any(axis=2)
        assert diff.sum() == 0, f"{k}: {int(diff.sum())} pixels differ after the cursor's strip repaints"


def test_exports_match_one_item_per_curve(panel: Any, tmp_path: Path) -> None:
    """PNG exports are identical; SVG exports hold the same curves (stroke, width, dashes and coordinates), one
    path per curve and dashed pattern, as with the per-curve items."""
    from PySide6.QtGui import QImage
    from mechstudio.gui.export import export_plot

    def svg_curves(f: Path) -> list[tuple[str, str, str, tuple[str, ...]]]:
        out = []
        for g in xml.dom.minidom.parse(str(f)).getElementsByTagName("g"):
            kids = [k for k in g.childNodes if getattr(k, "tagName", "") in ("path", "polyline")]
            if kids and g.getAttribute("stroke") not in ("", "none", "#000000", "black"):
                out.append((g.getAttribute("stroke"), g.getAttribute("stroke-width"),
                            g.getAttribute("stroke-dasharray"),
                            tuple(k.getAttribute("d") or k.getAttribute("points") for k in kids)))
        return out

    for key in ("reactions", "energy", "violation"):
        p = panel.plots[key]
        export_plot(p, tmp_path / f"new_{key}.png", width=800)
        export_plot(p, tmp_path / f"new_{key}.svg")
        new_curves = svg_curves(tmp_path / f"new_{key}.svg")
        assert len(new_curves) >= len(p.curves), "the SVG lacks curves"
        swap_to_reference(p, panel.buffer.t, p.series(panel.buffer))
        export_plot(p, tmp_path / f"old_{key}.png", width=800)
        export_plot(p, tmp_path / f"old_{key}.svg")
        assert QImage(str(tmp_path / f"new_{key}.png")) == QImage(str(tmp_path / f"old_{key}.png")), key
        assert new_curves == svg_curves(tmp_path / f"old_{key}.svg"), key


def test_component_selection_changes_curves_legend_and_key(panel: Any, qtbot: Any) -> None:
    r = panel.reactions
    assert {n.rsplit(".", 1)[1] for n in r.curves} == {"Fx", "Fy"}
    r.boxes["Fy"].setChecked(False)
    assert {n.rsplit(".", 1)[1] for n in r.curves} == {"Fx"} and len(r.curves) == 10
    assert [lbl.text for _s, lbl in r.legend.items] == list(r.curves)
    assert "Fy" not in r.key_label.text()
    r.which.setCurrentIndex(r.which.findData("J3"))
    assert list(r.curves) == ["J3.Fx"]
    r.boxes["Fy"].setChecked(True)
    assert list(r.curves) == ["J3.Fx", "J3.Fy"]
    r.cursor.hide()
    new = pixels(r.plot_widget, qtbot)
    swap_to_reference(r, panel.buffer.t, r.series(panel.buffer))
    assert (pixels(r.plot_widget, qtbot) != new).any(axis=2).sum() == 0


SYNTH_PENS = [("solid", {}), ("dash", {"style": "DashLine"}), ("wide", {"width": 1.5}),
              ("dot wide", {"style": "DotLine", "width": 2.0}), ("gappy", {})]


def synthetic(n: int) -> tuple[np.ndarray, list[tuple[str, np.ndarray, Any]]]:
    import pyqtgraph as pg
    from PySide6.QtCore import Qt
    from mechstudio.gui.plots.panel import PALETTE
    rng = np.random.default_rng(7)
    x = np.linspace(0.0, 10.0, n)
    series = []
    for i, (name, kw) in enumerate(SYNTH_PENS):
        y = 1.5 + np.sin(x * (1 + i)) + 0.3 * rng.standard_normal(n) + i
        if name == "gappy":
            y[n // 3:n // 3 + n // 50] = np.nan
        style = getattr(Qt.PenStyle, kw.get("style", "SolidLine"))
        series.append((name, y, pg.mkPen(PALETTE[i], width=kw.get("width", 1.0), style=style)))
    return x, series


@pytest.mark.parametrize("case", ["downsampled", "zoomed", "log"])
def test_same_pixels_synthetic(qtbot: Any, case: str) -> None:
    """Peak downsampling (20 000 points in 300 px), clipping to a zoomed x range, a log y axis, NaN gaps, dashed,
    dotted and wide pens: the one item draws what one PlotDataItem per curve draws, after a time cursor swept over
    both (strip repaints, which must not fail). The pixels are compared on a full repaint: how Qt strokes a dashed
    or dotted pen under a strip's clip depends on which strips the window system merged into one repaint, which
    varies with the machine's load for the two widgets alike (the strips of the live panel's curves are
    compared in test_cursor_strips_repaint_the_same_pixels)."""
    import pyqtgraph as pg
    from mechstudio.gui.plots.curves import CurveSet
    x, series = synthetic(20000 if case != "zoomed" else 3000)
    images = []
    for one_item in (True, False):
        w = pg.PlotWidget(background="w")
        qtbot.addWidget(w)
        w.resize(340, 260)
        w.show()
        qtbot.waitExposed(w)
        pi = w.getPlotItem()
        if case == "log":
            pi.setLogMode(x=False, y=True)
        if one_item:
            cs = CurveSet()
            pi.addItem(cs)
            cs.set_curves(x, series)
        else:
            reference_items(pi, x, series)
        x_range = (3.0, 4.0) if case == "zoomed" else (-0.1, 10.1)
        pi.setYRange(*{"zoomed": (0.0, 8.0), "log": (-0.5, 1.2)}.get(case, (-2.0, 9.0)), padding=0)
        # (a PlotDataItem picks its downsampling factor when the x range changes, for the view's width then: set
        # the range once the widget is laid out, as a user's zoom would)
        pi.setXRange(x_range[0] - 1.0, x_range[1], padding=0)
        settle()
        pi.setXRange(*x_range, padding=0)
        cursor = pg.InfiniteLine(x_range[0] - 5.0, angle=90)
        pi.addItem(cursor, ignoreBounds=True)
        settle()
        # a cursor sweeps over the plot: strip repaints (also of downsampled and gappy curves)
        for t in np.linspace(*x_range, 40):
            cursor.setValue(float(t))
            settle()
        cursor.setValue(x_range[0] - 5.0)
        w.viewport().update()  # one full repaint (the docstring says why)
        images.append(on_screen(w, qtbot))
    drawn = (images[1] != images[1][3, -3]).any(axis=2).sum()
    assert drawn > 3000
    diff = (images[0] != images[1]).any(axis=2)
    assert diff.sum() == 0, f"{case}: {int(diff.sum())} of {int(drawn)} pixels differ"


def test_deep_zoom_clips_far_values(qtbot: Any) -> None:
    """Values beyond 10^6 view heights are clipped (Qt's rasteriser misbehaves with huge coordinates)."""
    import pyqtgraph as pg
    from mechstudio.gui.plots.curves import RANGE_LIMIT, CurveSet
    w = pg.PlotWidget()
    qtbot.addWidget(w)
    w.resize(300, 200)
    w.show()
    qtbot.waitExposed(w)
    cs = CurveSet()
    w.getPlotItem().addItem(cs)
    x = np.linspace(0, 1, 101)
    cs.set_curves(x, [("big", np.where(x > 0.5, 1e12, 0.0), pg.mkPen("r"))])
    w.getPlotItem().setYRange(-1e-3, 1e-3, padding=0)
    w.getPlotItem().setXRange(0, 1, padding=0)
    settle()
    y = cs.display()[0].y
    h = w.getPlotItem().getViewBox().viewRect().height()
    assert y.max() <= 1e-3 + RANGE_LIMIT * h * 1.0001 and y.max() < 1e12
    w.getPlotItem().setYRange(-1e12, 2e12, padding=0)  # everything in view: nothing clipped
    settle()
    assert cs.display()[0].y.max() == 1e12
