"""The 3D view draws all bodies with one item (gui.view3d.bodies_item: one draw call, poses in a uniform array).
It must show exactly what one pyqtgraph GLMeshItem per body, moved by its transform, showed before. Needs real
OpenGL (Xvfb + llvmpipe, see test_live_run.py)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.gui.conftest import SAMPLES

pytestmark = pytest.mark.gui



def _chain() -> Any:
    from mechstudio.core.model import model_from_data
    from mechstudio.gui.bench_view import chain_model_data
    return model_from_data(chain_model_data(10))


def _disk() -> Any:
    from mechstudio.core.model import load_model
    return load_model(str(SAMPLES / "rolling_disk_accelerating_plane.json"))


def _spherical() -> Any:
    from mechstudio.core.model import load_model
    paths = sorted(SAMPLES.glob("*spherical*chain*.json")) or sorted(SAMPLES.glob("*spherical*.json"))
    if not paths:
        pytest.skip("no spherical sample model")
    return load_model(str(paths[0]))


@pytest.mark.parametrize("make", [_chain, _disk, _spherical], ids=["planar chain", "rolling disk", "spherical"])
def test_one_item_draws_like_one_mesh_item_per_body(qtbot: Any, require_gl: None, make: Any) -> None:
    import pyqtgraph.opengl as gl
    from mechstudio.core.simulate import SimulationSettings, run
    from mechstudio.core.systems.compile import compile_model
    from mechstudio.gui.view3d.bodies_item import BodiesItem
    from mechstudio.gui.view3d.scene import SceneView, _lit_shader, _matrix
    model = make()
    system = compile_model(model)
    traj = run(system, SimulationSettings.from_model(model, t_end=0.3, dt=0.05))
    q, t = traj.frames.q[-1], float(traj.frames.t[-1])  # a moved pose: the per-body transforms matter
    v = SceneView()
    qtbot.addWidget(v)
    v.resize(320, 240)
    v.show()
    qtbot.waitExposed(v)
    v.set_model(model, system, traj.frames.q[0])
    # the camera on the first pose, not on every reachable one (large bodies), and kept there: this test is about
    # drawing, not about the camera's fit
    v._reach = None
    v._fit_to(traj.frames.q[0])
    v.reset_camera()
    v._reach = v.fit
    v.set_state(q, t)
    merged = [it for it in v.items if isinstance(it, BodiesItem)]
    assert len(merged) == 1 and merged[0].count == sum(not bv.mesh.empty for bv in v.spec.bodies)
    a = v.render_image(320, 240)
    # the same scene with one GLMeshItem per body (the former drawing) instead of the merged item
    poses = v.poser.poses(q)
    for it in merged:
        v.removeItem(it)
    for bv in v.spec.bodies:
        if bv.mesh.empty:
            continue
        m = gl.GLMeshItem(vertexes=bv.mesh.vertices, faces=bv.mesh.faces, faceColors=bv.mesh.colors,
                          shader=_lit_shader(), smooth=False)
        m.setTransform(_matrix(*poses[bv.name]))
        v.addItem(m)
    b = v.render_image(320, 240)
    bg = np.all(b == b[0, 0], axis=2)
    assert (~bg).mean() > 0.003, "the reference image shows nothing"  # (10 thin links: ~0.5 %)
    diff = np.abs(a.astype(int) - b.astype(int)).max(axis=2)
    assert (diff > 12).mean() < 0.002, f"{(diff > 12).sum()} pixels differ"
    assert np.abs(a.astype(int) - b.astype(int)).mean() < 0.5


def test_present_now_renders_each_frame_once(qtbot: Any, require_gl: None) -> None:
    """The live view presents a frame from its display timer (set_state(..., present=True)): exactly one render
    and swap per frame, at once; the GL items' own update requests must not render it a second time."""
    from mechstudio.core.simulate import SimulationSettings, run
    from mechstudio.core.systems.compile import compile_model
    from mechstudio.gui.view3d.scene import SceneContainer
    model = _chain()
    system = compile_model(model)
    traj = run(system, SimulationSettings.from_model(model, t_end=0.2, dt=0.02))
    box = SceneContainer()
    qtbot.addWidget(box)
    box.resize(400, 300)
    box.show()
    qtbot.waitExposed(box)
    v = box.scene
    v.set_model(model, system, traj.frames.q[0])
    qtbot.waitUntil(v.isExposed, timeout=5000)
    qtbot.wait(200)
    swaps: list[int] = []
    v.frameSwapped.connect(lambda: swaps.append(1))
    for k in range(1, 8):
        v.set_state(traj.frames.q[k], float(traj.frames.t[k]), present=True)
        assert len(swaps) == k, "the frame was not presented at once"
        qtbot.wait(40)  # any pending update request would render again here
        assert len(swaps) == k, "the frame was rendered twice"
    v.set_state(traj.frames.q[0], 0.0)  # without present: rendered at the next update request
    assert len(swaps) == 7
    qtbot.waitUntil(lambda: len(swaps) == 8, timeout=2000)
