"""Traces of ticked points in the running app (Xvfb, real OpenGL): ticking a point after a run draws its path on
the canvas (pixels of the body's colour along the path computed independently from the run's coordinates, none
there before the tick) and in the 3D view; traces grow while the run plays, follow the time bar, and disappear when
the mechanism is edited or the run reset."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage

from tests.gui.conftest import SAMPLES
from tests.gui.document_helpers import close_live_window, open_live_window

pytestmark = pytest.mark.gui

COLOR_TOL = 40  # max |ΔR|+|ΔG|+|ΔB| of a pixel "in the trace colour" (antialiasing blends the 2 px line's edges)
CLEAR_PX = 12  # path samples closer than this to a drawn bar are not checked (the bar has the same colour)


@pytest.fixture
def live_window(qtbot: Any, messenger: Any, qapp: Any, require_gl: None, monkeypatch: pytest.MonkeyPatch) -> Any:
    w = open_live_window(qtbot, messenger, monkeypatch, 1400, 950, str(SAMPLES / "four_bar.json"))
    yield w
    close_live_window(w)


def run_to_end(qtbot: Any, w: Any) -> Any:
    c = w.live.controller
    w.live.act_run.trigger()
    qtbot.waitUntil(lambda: c.state in ("finished", "failed"), timeout=300000)
    assert c.state == "finished", c.last_error
    c.show_time(c.buffer.t_latest)  # the end of the run, paused: the whole curve
    qtbot.wait(100)
    return c


def expected_path(c: Any, body: str, local: tuple[float, float], q: np.ndarray | None = None) -> np.ndarray:
    """World positions of a body point at every frame (or at configurations ``q``), from the planar coordinates
    (x, y = centre of mass, phi): r_P = r + A(phi) (s' - c')  (independent of core.systems.points and of the GUI)."""
    names = list(c.system.coord_names)
    q = np.atleast_2d(c.buffer.field("q") if q is None else q)
    x, y, phi = (q[:, names.index(f"{body}.{k}")] for k in ("x", "y", "phi"))
    com = next(b for b in c.system.model.data["bodies"] if b["name"] == body)["com"]
    sx, sy = local[0] - com[0], local[1] - com[1]
    return np.c_[x + np.cos(phi) * sx - np.sin(phi) * sy, y + np.sin(phi) * sx + np.cos(phi) * sy]


def colour_near(img: QImage, x: int, y: int, rgb: tuple[int, int, int], r: int = 2) -> bool:
    for yy in range(y - r, y + r + 1):
        for xx in range(x - r, x + r + 1):
            if 0 <= xx < img.width() and 0 <= yy < img.height():
                c = QColor(img.pixel(xx, yy))
                if abs(c.red() - rgb[0]) + abs(c.green() - rgb[1]) + abs(c.blue() - rgb[2]) <= COLOR_TOL:
                    return True
    return False


def seg_dist(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    d = b - a
    t = 0.0 if not d.any() else float(np.clip((p - a) @ d / (d @ d), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * d)))


def checkable_samples(canvas: Any, path: np.ndarray, n: int = 40) -> list[tuple[int, int]]:
    """Pixels (in the canvas widget's grab) of up to ``n`` path points away from every drawn bar and point."""
    off = canvas.viewport().pos()
    bars = [(np.array(canvas.world_to_view(*a).toTuple()), np.array(canvas.world_to_view(*b).toTuple()))
            for g in canvas.geometry.bodies for a, b, _w in g.bars]
    marks = [np.array(canvas.world_to_view(*p).toTuple()) for g in canvas.geometry.bodies for p in
             list(g.points.values()) + [g.com]]
    out = []
    for k in np.linspace(0, len(path) - 1, 3 * n).astype(int):
        v = np.array(canvas.world_to_view(*path[k]).toTuple())
        if all(seg_dist(v, a, b) > CLEAR_PX for a, b in bars) and all(np.linalg.norm(v - m) > CLEAR_PX for m in marks):
            out.append((int(round(v[0] + off.x())), int(round(v[1] + off.y()))))
    return out[::max(1, len(out) // n)]


def test_ticking_a_point_after_a_run_draws_its_trace(qtbot: Any, live_window: Any) -> None:
    w = live_window
    canvas, view = w.canvas, w.live.view
    c = run_to_end(qtbot, w)
    assert canvas.point_traces == [] and view.point_trace_keys() == []
    before = canvas.grab().toImage()
    gl_before = view.grabFramebuffer()
    path = expected_path(c, "coupler", (3.5, 0.0))  # the coupler's point b
    colour = QColor(next(b for b in w.document.model.data["bodies"] if b["name"] == "coupler")["color"])
    rgb = (colour.red(), colour.green(), colour.blue())
    # tick coupler.b in the outline
    row = w.outline.point_item(("coupler", "b"))
    row.setCheckState(0, Qt.CheckState.Checked)
    qtbot.waitUntil(lambda: bool(canvas.point_traces), timeout=5000)
    assert not c.stale  # a tick is not an edit of the mechanism: the results stay valid
    line = canvas.point_traces[0]
    assert line.label == "coupler.b" and QColor(line.color) == colour
    assert np.allclose(line.points, path, rtol=0, atol=1e-12)  # every frame, the last at the shown (end) time
    qtbot.wait(200)
    after = canvas.grab().toImage()
    samples = checkable_samples(canvas, path)
    assert len(samples) >= 15, "the path should run clear of the drawn bars"
    hit_after = sum(colour_near(after, x, y, rgb) for x, y in samples)
    hit_before = sum(colour_near(before, x, y, rgb) for x, y in samples)
    assert hit_after >= 0.9 * len(samples), (hit_after, len(samples))
    assert hit_before == 0, hit_before
    # the 3D view draws the same trace: many more pixels of exactly the body colour (the bar itself is lit)
    assert view.point_trace_keys() == [("coupler", "b")]
    qtbot.wait(200)
    gl_after = view.grabFramebuffer()

    def count(img: QImage) -> int:
        a = np.frombuffer(img.convertToFormat(QImage.Format.Format_RGB888).constBits(), np.uint8)
        a = a.reshape(img.height(), -1)[:, :3 * img.width()].reshape(img.height(), img.width(), 3).astype(int)
        return int((np.abs(a - np.array(rgb)).sum(axis=2) <= COLOR_TOL).sum())
    assert count(gl_after) > count(gl_before) + 100, (count(gl_before), count(gl_after))
    # untick: gone again (undoable like any edit)
    w.act_undo.trigger()
    qtbot.waitUntil(lambda: canvas.point_traces == [], timeout=3000)
    assert view.point_trace_keys() == []


def test_traces_grow_during_the_run_follow_the_time_bar_and_clear_on_edits(qtbot: Any, live_window: Any) -> None:
    w = live_window
    canvas, view = w.canvas, w.live.view
    c = w.live.controller
    g = canvas.geometry.body("coupler")
    mid = tuple((np.array(g.points["a"]) + np.array(g.points["b"])) / 2)
    assert canvas.add_point("coupler", mid) == "P1"  # added and ticked
    lengths: list[int] = []
    w.live.act_run.trigger()

    def sample() -> bool:
        if canvas.point_traces:
            lengths.append(len(canvas.point_traces[0].points))
        return c.state == "finished" and not c.clock.playing
    qtbot.waitUntil(sample, timeout=300000)
    assert lengths and min(lengths) < len(c.buffer) and len(set(lengths)) >= 3, lengths  # it grew while playing
    local = next(b for b in c.system.model.data["bodies"] if b["name"] == "coupler")["points"]["P1"]
    path = expected_path(c, "coupler", tuple(local))
    # scrub back to the middle: the trace ends at that time, at the interpolated position
    w.live.slider.setValue(500)
    w.live.slider.sliderMoved.emit(500)  # what dragging the slider does
    t_mid = c.clock.t
    ts = c.buffer.t
    n_before = int(np.searchsorted(ts, t_mid, side="right"))
    pts = canvas.point_traces[0].points
    assert np.allclose(pts[:n_before], path[:n_before], atol=1e-12)
    i, j, s = c.buffer.index_at(t_mid)
    assert 0 < n_before < len(c.buffer) and len(pts) == n_before + (1 if s > 0 else 0)
    q = c.buffer.field("q")
    assert np.allclose(pts[-1], expected_path(c, "coupler", tuple(local), (1 - s) * q[i] + s * q[j])[0],
                       atol=1e-12)
    assert view.point_trace_keys() == [("coupler", "P1")]
    # an edit of the mechanism: the results are stale, the traces (of another mechanism) go
    coupler = w.document.model.data["bodies"][1]
    from mechstudio.core.model import edit
    ptr = edit.element_pointer(w.document.model, "bodies", "coupler") + "/mass"
    w.document.push_edit(edit.set_value(w.document.model, ptr, float(coupler["mass"]) * 2), "Set mass")
    assert c.stale
    qtbot.waitUntil(lambda: canvas.point_traces == [], timeout=3000)
    assert view.point_trace_keys() == []
    w.act_undo.trigger()  # back to the run's mechanism: its results and traces are valid again
    assert not c.stale
    qtbot.waitUntil(lambda: bool(canvas.point_traces), timeout=3000)
    w.live.act_reset.trigger()
    assert len(c.buffer) == 0 and canvas.point_traces == []


def test_export_drawing_writes_svg_and_dxf_with_the_shown_traces(qtbot: Any, live_window: Any, tmp_path: Any) -> None:
    import xml.etree.ElementTree as ET
    import ezdxf
    w = live_window
    w.canvas.set_traced(("coupler", "b"), True)
    w.canvas.set_traced(("crank", "b"), True)
    c = run_to_end(qtbot, w)
    w.live.slider.setValue(600)
    w.live.slider.sliderMoved.emit(600)  # what dragging the slider does
    t_shown = c.clock.t
    shown = {line.label: line.points for line in w.canvas.point_traces}
    assert set(shown) == {"coupler.b", "crank.b"}
    for suffix in ("svg", "dxf"):
        target = tmp_path / f"four_bar.{suffix}"
        w.ask_drawing_path = lambda _suggestion, target=target: str(target)
        assert w.export_drawing_dialog() == str(target)
        assert f"t = {t_shown:.3f} s, 2 traces" in w.statusBar().currentMessage()
    svg = ET.parse(tmp_path / "four_bar.svg").getroot()
    ns = {"s": "http://www.w3.org/2000/svg"}
    polylines = svg.findall(".//s:polyline", ns)
    assert sorted(p.get("data-point") for p in polylines) == ["coupler.b", "crank.b"]
    for p in polylines:  # one polyline per trace, with the points the canvas shows
        xy = np.array([[float(v) for v in pair.split(",")] for pair in p.get("points").split()])
        assert np.allclose(xy, shown[p.get("data-point")], atol=1e-12)
    doc = ezdxf.readfile(tmp_path / "four_bar.dxf")
    layers = {layer.dxf.name for layer in doc.layers}
    assert {"body.crank", "body.coupler", "body.rocker"} <= layers
    polys = doc.modelspace().query("LWPOLYLINE")
    assert len(polys) == 2  # the traces are the only polylines of the file
    matched = set()
    for p in polys:  # each is one of the shown traces, in metres
        g = np.array(p.get_points("xy"))
        matched |= {k for k, e in shown.items() if g.shape == e.shape and np.allclose(g, e, atol=1e-12)}
    assert matched == set(shown)


def test_export_drawing_without_a_run_or_a_mechanism_says_why(qtbot: Any, live_window: Any, tmp_path: Any) -> None:
    w = live_window
    target = tmp_path / "pose.svg"
    w.ask_drawing_path = lambda _s: str(target)
    assert w.export_drawing_dialog() == str(target)
    assert "initial pose (no run yet: no traces)" in w.statusBar().currentMessage()
    import xml.etree.ElementTree as ET
    assert ET.parse(target).getroot().findall(".//{http://www.w3.org/2000/svg}polyline") == []
    w.new_model()
    w.messenger.errors.clear()
    assert w.export_drawing_dialog() is None
    assert w.messenger.errors and "no bodies" in w.messenger.errors[-1][1]


def test_spatial_model_traces_in_3d_and_in_the_front_view(qtbot: Any, live_window: Any) -> None:
    w = live_window
    assert w.open_file(str(SAMPLES / "spherical_chain_3.json"), ask=False)
    canvas, view = w.canvas, w.live.view
    # right-click offers tracing; adding points by clicking is planar only, and says so
    out = canvas.geometry.body("link2").points["out"]
    acts = {a.text(): a for a in canvas.context_actions(out)}
    assert {"Trace link2.out", "Trace link3.in"} <= set(acts)
    add = [a for a in acts.values() if a.text().startswith("Add point here")]
    assert add and all(not a.isEnabled() and "Properties" in a.text() for a in add)
    acts["Trace link2.out"].trigger()
    acts["Trace link3.in"].trigger()
    run_to_end(qtbot, w)
    qtbot.waitUntil(lambda: len(canvas.point_traces) == 2, timeout=5000)
    lines = {line.label: line.points for line in canvas.point_traces}
    assert lines["link2.out"].shape[1] == 3  # world x, y, z
    # the two points are joined by a spherical joint: their traces coincide (constraint tolerance of the run)
    assert np.max(np.linalg.norm(lines["link2.out"] - lines["link3.in"], axis=1)) < 1e-6
    assert np.ptp(lines["link2.out"], axis=0).max() > 0.05  # it moved
    assert sorted(view.point_trace_keys()) == [("link2", "out"), ("link3", "in")]
