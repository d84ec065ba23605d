"""The 3D view's camera keeps the mechanism in view for the whole run (issue 7; gui/view3d/camera_fit.py).

* A mechanism hanging from fixed pivots through distance-keeping joints (a planar or a spherical chain) gets a
  camera fitted to every reachable configuration: random configurations over the joints' full range (not only
  those a run happens to visit) all project inside the view, and the fit is no larger than that reach.
* Any other mechanism starts with its initial pose and the fit grows, with headroom, when frames of a run leave
  it: afterwards every frame projects inside the view, the fit never shrinks, and frames already inside do not
  move the camera again.

Needs real OpenGL for the GL widget (Xvfb + llvmpipe, see test_live_run.py); the projections are computed here
from the view's own matrices.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.gui.conftest import SAMPLES

pytestmark = pytest.mark.gui

DOCK = (400, 200)  # the 3D dock of the main window in the view benchmark



def make_view(qtbot: Any, model: Any, size: tuple[int, int] = DOCK) -> Any:
    from mechstudio.core.systems.compile import compile_model
    from mechstudio.gui.view3d.scene import SceneView
    system = compile_model(model)
    v = SceneView()
    qtbot.addWidget(v)
    v.resize(*size)
    v.show()
    qtbot.waitExposed(v)
    v.set_model(model, system, system.initial_guess())
    v.reset_camera()
    return v


def ndc(view: Any, P: np.ndarray) -> np.ndarray:
    """Normalised device coordinates (n, 3) of world points P (n, 3) with the view's camera."""
    w, h = view.width(), view.height()
    m = view.projectionMatrix((0, 0, w, h), (0, 0, w, h)) * view.viewMatrix()
    M = np.array(m.copyDataTo(), float).reshape(4, 4)
    X = np.c_[P, np.ones(len(P))] @ M.T
    assert np.all(X[:, 3] > 0), "points behind the camera"
    return X[:, :3] / X[:, 3:]


def world_points(view: Any, poses: dict[str, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    from mechstudio.gui.view3d.camera_fit import body_points
    return np.vstack([poses[bv.name][0] + body_points(bv) @ poses[bv.name][1].T for bv in view.spec.bodies])


def random_tree_poses(model: Any, rotations: dict[str, np.ndarray]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Body poses (origin, R) of a tree hanging from ground points, with each body turned by ``rotations``: the
    joints stay closed (each child's joint point sits on its parent's)."""
    from mechstudio.core.model.document import GROUND
    from mechstudio.gui.view3d.camera_fit import _v3
    poses: dict[str, tuple[np.ndarray, np.ndarray]] = {GROUND: (np.zeros(3), np.eye(3))}
    joints = list(model.entities.joints)
    while len(poses) < len(model.entities.bodies) + 1:
        for j in joints:
            for parent, pp, child, pc in ((j.body1, j.point1, j.body2, j.point2), (j.body2, j.point2, j.body1, j.point1)):
                if parent in poses and child not in poses:
                    o, R = poses[parent]
                    at = o + R @ _v3(pp)
                    Rc = rotations[child]
                    poses[child] = (at - Rc @ _v3(pc), Rc)
    del poses[GROUND]
    return poses


def rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    q, r = np.linalg.qr(rng.standard_normal((3, 3)))
    q = q @ np.diag(np.sign(np.diag(r)))
    return q if np.linalg.det(q) > 0 else -q


def test_planar_chain_in_view_in_every_configuration(qtbot: Any, require_gl: None) -> None:
    from mechstudio.core.model import model_from_data
    from mechstudio.gui.bench_view import chain_model_data
    model = model_from_data(chain_model_data(10, length=0.3))
    v = make_view(qtbot, model)
    assert v.fit is not None and v.fit.tight
    rng = np.random.default_rng(1)
    names = [b.name for b in model.entities.bodies]
    worst = 0.0
    configs = [{n: rot_z(a) for n, a in zip(names, rng.uniform(-np.pi, np.pi, len(names)))} for _ in range(300)]
    configs += [{n: rot_z(a) for n in names} for a in np.linspace(-np.pi, np.pi, 73)]  # straight, all round
    for rot in configs:
        P = world_points(v, random_tree_poses(model, rot))
        assert np.all(P[:, :2] >= v.fit.lo[:2] - 1e-9) and np.all(P[:, :2] <= v.fit.hi[:2] + 1e-9)
        worst = max(worst, float(np.abs(ndc(v, P)[:, :2]).max()))
    assert worst <= 1.0, f"a configuration leaves the view (|ndc| = {worst:.3f})"
    # and the fit is the chain's reach (3 m of links around the pivot, plus the bars' ends and joint markers),
    # not more: the stretched chain reaches at least 90 % of the way to the view's edge
    assert v.fit.half[0] < 3.0 * 1.15 and worst > 0.9 / 1.1 * 0.9


def test_planar_chain_run_stays_in_view(qtbot: Any, require_gl: None) -> None:
    """The frames of a real run (the chain released horizontally swings down) project inside the view, and the
    camera does not move during the run."""
    from mechstudio.core.model import model_from_data
    from mechstudio.core.simulate import SimulationSettings, run
    from mechstudio.core.systems.compile import compile_model
    from mechstudio.gui.bench_view import chain_model_data
    model = model_from_data(chain_model_data(10))
    v = make_view(qtbot, model)
    traj = run(compile_model(model), SimulationSettings.from_model(model, t_end=3.0, dt=0.02))
    camera = (v.opts["distance"], v.opts["center"])
    assert not v.include_frames(traj.frames.q)
    for q, t in zip(traj.frames.q, traj.frames.t):
        v.set_state(q, float(t))
        assert np.abs(ndc(v, world_points(v, v.poser.poses(q)))[:, :2]).max() <= 1.0, f"t = {t}"
    assert (v.opts["distance"], v.opts["center"]) == camera and v.refits == 0


def hinge_pendulum_model() -> Any:
    from mechstudio.core.model import model_from_data
    from tests.spatial_joint_models import hinge_pendulum
    return model_from_data(hinge_pendulum(0.7))


@pytest.mark.parametrize("source", ["spherical_chain_3", "hinge pendulum"])
def test_spatial_tree_in_view_in_every_configuration(qtbot: Any, require_gl: None, source: str) -> None:
    """Any rotation of each body about its joint point (more than a hinge allows) stays in the view."""
    from mechstudio.core.model import load_model
    model = hinge_pendulum_model() if source == "hinge pendulum" else load_model(str(SAMPLES / f"{source}.json"))
    v = make_view(qtbot, model)
    assert v.fit is not None and v.fit.tight
    rng = np.random.default_rng(2)
    names = [b.name for b in model.entities.bodies]
    worst = 0.0
    for _ in range(300):
        P = world_points(v, random_tree_poses(model, {n: random_rotation(rng) for n in names}))
        assert np.all(np.linalg.norm(P - v.fit.center, axis=1) <= v.fit.radius + 1e-9)
        worst = max(worst, float(np.abs(ndc(v, P)[:, :2]).max()))
    assert worst <= 1.0, f"a configuration leaves the view (|ndc| = {worst:.3f})"


@pytest.mark.parametrize("sample, t_end", [("ice_skate_incline", 6.0), ("four_bar", 3.0)])
def test_fit_grows_with_the_frames_of_a_run(qtbot: Any, require_gl: None, sample: str, t_end: float) -> None:
    """No reach bound (a skate sliding down an incline; a closed loop): the fit starts at the initial pose and
    grows when blocks of frames leave it, so that every frame is in view; it never shrinks and does not move for
    frames already inside."""
    from mechstudio.core.model import load_model
    from mechstudio.core.simulate import SimulationSettings, run
    from mechstudio.core.systems.compile import compile_model
    model = load_model(str(SAMPLES / f"{sample}.json"))
    v = make_view(qtbot, model)
    assert v._reach is None
    traj = run(compile_model(model), SimulationSettings.from_model(model, t_end=t_end, dt=0.02))
    qs = traj.frames.q
    spans = []
    for k in range(0, len(qs), 25):  # blocks of frames, as the worker sends them
        v.include_frames(qs[k:k + 25])
        spans.append(v.fit.hi - v.fit.lo)
    assert all(np.all(b >= a - 1e-12) for a, b in zip(spans, spans[1:])), "the fit shrank"
    refits, camera = v.refits, (v.opts["distance"], v.opts["center"])
    for q, t in zip(qs, traj.frames.t):
        v.set_state(q, float(t))
        assert np.abs(ndc(v, world_points(v, v.poser.poses(q)))[:, :2]).max() <= 1.0, f"t = {t}"
    assert not v.include_frames(qs)
    assert v.refits == refits and (v.opts["distance"], v.opts["center"]) == camera
    if sample == "ice_skate_incline":
        assert 1 <= refits <= 8, refits  # it slides away: a few growths, not one per block
