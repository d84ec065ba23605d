"""The 3D view draws the spatial joints' axes (counted per joint type; moved with their bodies in the model pose
and during a run) and picks a body by a click: the click sets the document's selection, and a body selected
anywhere is outlined in the view. Screenshots of the tree editor with a hinge child and of the Cardan shaft with
its axes (docs/screenshots/ with MECHSTUDIO_UPDATE_SCREENSHOTS=1, else a temporary folder; the screen is grabbed:
the 3D view is a native GL window). Needs real OpenGL for the view (Xvfb + llvmpipe)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from tests.gui.conftest import SAMPLES
from tests.gui.document_helpers import close_live_window, open_live_window, screen_shot

pytestmark = pytest.mark.gui

#: segments drawn per joint type: an arrow (shaft and two head strokes) per axis; a universal joint has two
SEGMENTS = {"hinge": 3, "slider": 3, "cylindrical": 3, "fixed_joint": 3, "universal": 6, "spherical": 0}


def load(name: str) -> Any:
    from mechstudio.core.model import load_model
    return load_model(str(SAMPLES / f"{name}.json"))


@pytest.mark.parametrize("name", ["cardan_shaft", "collar_pendulum", "rssr_linkage", "spherical_chain_3"])
def test_axis_segments_per_joint_type(name: str) -> None:
    from mechstudio.gui.view3d.geometry import build_scene
    model = load(name)
    spec = build_scene(model)
    for j in model.data["joints"]:
        got = sum(len(a.segments) for a in spec.axes if a.joint == j["name"])
        assert got == SEGMENTS[j["type"]], (j["name"], j["type"], got)
        bodies = [a.body for a in spec.axes if a.joint == j["name"]]
        assert bodies == ([j["body1"], j["body2"]] if j["type"] == "universal"
                          else [j["body1"]] if SEGMENTS[j["type"]] else [])


def segment_lines(view: Any, joint: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """(start, unit direction) of each shaft (the first segment of each arrow) of ``joint`` as drawn now."""
    pos = np.asarray(view.axes_item.pos)
    out, k = [], 0
    for a, n in zip(view.spec.axes, view.axis_lines.counts):
        if a.joint == joint:
            p0, p1 = pos[k], pos[k + 1]
            out.append((p0, (p1 - p0) / np.linalg.norm(p1 - p0)))
        k += n
    return out


def distance_to_line(x: np.ndarray, line: tuple[np.ndarray, np.ndarray]) -> float:
    p, e = line
    d = x - p
    return float(np.linalg.norm(d - (d @ e) * e))


@pytest.mark.parametrize("name", ["collar_pendulum", "cardan_shaft"])
def test_axes_drawn_and_moving_with_their_bodies(qtbot: Any, require_gl: None, name: str) -> None:
    """Each axis passes through the joint point and lies along the axis as body2 sees it (the joint closes
    both: an independent check of the transform by body1), in the first frame and after a run."""
    from mechstudio.core.simulate import SimulationSettings, run
    from mechstudio.core.systems.compile import compile_model
    from mechstudio.gui.view3d.scene import SceneView
    model = load(name)
    system = compile_model(model)
    traj = run(system, SimulationSettings.from_model(model, t_end=0.3, dt=0.05))
    v = SceneView()
    qtbot.addWidget(v)
    v.resize(320, 240)
    v.show()
    qtbot.waitExposed(v)
    v.set_model(model, system, traj.frames.q[0])
    total = sum(SEGMENTS[j["type"]] for j in model.data["joints"])
    assert len(v.axes_item.pos) == 2 * total
    for q in (traj.frames.q[0], traj.frames.q[-1]):
        v.set_state(q, 0.0)
        for j in model.data["joints"]:
            if j["body2"] == "ground" or j["type"] not in ("hinge", "universal", "fixed_joint"):
                continue
            o2, R2 = (np.asarray(x, float) for x in system.body_frame_pose(q, j["body2"]))
            pts = model.data["bodies"][[b["name"] for b in model.data["bodies"]].index(j["body2"])]["points"]
            P2 = o2 + R2 @ np.asarray(pts[j["point2"]], float)  # the joint point, from body2
            lines = segment_lines(v, j["name"])
            assert distance_to_line(P2, lines[0]) < 1e-6, j["name"]
            if j["type"] == "universal":  # the cross axes stay perpendicular; the second is body2's
                assert abs(lines[0][1] @ lines[1][1]) < 1e-6
                a2 = R2 @ np.asarray(j["axis2"], float)
                assert np.allclose(np.cross(lines[1][1], a2 / np.linalg.norm(a2)), 0, atol=1e-6)
            else:  # hinge, fixed: the drawn axis1 is parallel to body2's axis2
                a2 = R2 @ np.asarray(j["axis2"], float)
                assert np.allclose(np.cross(lines[0][1], a2 / np.linalg.norm(a2)), 0, atol=1e-6), j["name"]


@pytest.fixture
def live_window(qtbot: Any, messenger: Any, qapp: Any, require_gl: None, monkeypatch: pytest.MonkeyPatch) -> Any:
    avail = qapp.primaryScreen().availableGeometry()
    w = open_live_window(qtbot, messenger, monkeypatch, min(1600, avail.width()), min(1000, avail.height()),
                         str(SAMPLES / "cardan_shaft.json"))
    yield w
    close_live_window(w)


def click_scene(scene: Any, pixel: np.ndarray) -> None:
    QTest.mouseClick(scene, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(int(round(pixel[0])), int(round(pixel[1]))))


def test_click_picks_the_body_under_the_cursor(qtbot: Any, qapp: Any, live_window: Any) -> None:
    w = live_window
    scene = w.live.view
    qtbot.waitUntil(lambda: bool(scene.poses), timeout=5000)
    size = (scene.width(), scene.height())
    for body in ("input", "mid_b", "output"):
        o, R = scene.poses[body]
        com = o + R @ np.asarray(next(b for b in w.document.model.data["bodies"] if b["name"] == body)["com"])
        pixel = scene.project_pixels(com[None, :], size)[0]
        assert 0 < pixel[0] < size[0] and 0 < pixel[1] < size[1], (body, pixel, size)
        click_scene(scene, pixel)
        qtbot.waitUntil(lambda body=body: w.document.selection == [("bodies", body)], timeout=3000)
        assert scene.highlighted == [body] and scene.outline_item.visible()
        assert len(scene.outline_item.pos) == 24  # the 12 edges of its box
        assert w.inspector.findChild(object, "field:/bodies/" + str(
            [b["name"] for b in w.document.model.data["bodies"]].index(body)) + "/mass") is not None
    click_scene(scene, np.array([3.0, 3.0]))  # the corner: no body
    qtbot.waitUntil(lambda: w.document.selection == [], timeout=3000)
    assert not scene.outline_item.visible()
    # a body selected elsewhere (the outline) is outlined in the view
    w.document.set_selection([("bodies", "mid_a")])
    assert scene.highlighted == ["mid_a"] and scene.outline_item.visible()


def test_screenshot_cardan_shaft_axes(qtbot: Any, qapp: Any, live_window: Any) -> None:
    """The 3D view floated and enlarged (900 x 600), mid_a selected: the hinge arrows at the bearings, the two
    crosses of the universal joints, the spline's sliding line, and mid_a's outline."""
    w = live_window
    dock = w.dock_view3d
    dock.setFloating(True)
    dock.resize(900, 600)
    dock.move(40, 40)
    qtbot.waitUntil(lambda: w.live.container.width() > 800, timeout=3000)
    view = w.live.view
    view.reset_camera()
    view.frame_motion(np.asarray(w.document.analysis.q, float)[None, :], (view.width(), view.height()), 0.8)
    view.setCameraPosition(elevation=30, azimuth=-70)
    w.document.set_selection([("bodies", "mid_a")])
    QTest.qWait(400)
    path = screen_shot(qapp, dock, "cardan_shaft_axes.png")
    from PySide6.QtGui import QImage
    img = QImage(str(path))
    colours = {img.pixel(x, y) for y in range(5, img.height() - 5, 3) for x in range(5, img.width() - 5, 3)}
    assert len(colours) > 20, "the 3D view shows nothing"


def test_screenshot_tree_editor_hinge_child(qtbot: Any, qapp: Any, messenger: Any, monkeypatch: Any,
                                            require_gl: None) -> None:
    avail = qapp.primaryScreen().availableGeometry()
    w = open_live_window(qtbot, messenger, monkeypatch, min(1600, avail.width()), min(1000, avail.height()))
    try:
        w.new_model()
        tree = w.tree_editor
        w.dock_tree.show()
        w.dock_tree.raise_()
        tree.joint_type.setCurrentIndex(tree.joint_type.findData("hinge"))
        tree.axis1.set_value([0.0, 1.0, 0.0])
        tree.rotvec.set_value([0.0, 0.6, 0.0])
        QTest.mouseClick(tree.add_button, Qt.MouseButton.LeftButton)
        assert [j["type"] for j in w.document.model.data["joints"]] == ["hinge"]
        w.resizeDocks([w.dock_plots, w.dock_view3d], [w.width() - 640, 640], Qt.Orientation.Horizontal)
        w.resizeDocks([w.dock_plots], [380], Qt.Orientation.Vertical)
        QTest.qWait(200)
        view = w.live.view
        view.frame_motion(np.asarray(w.document.analysis.q, float)[None, :], (view.width(), view.height()), 0.7)
        view.setCameraPosition(elevation=15, azimuth=-50)
        QTest.qWait(300)
        screen_shot(qapp, w, "tree_editor_hinge_child.png")
    finally:
        close_live_window(w)
