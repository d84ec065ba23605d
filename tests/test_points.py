"""mechstudio.core.systems.points: world positions of named body points (coupler curves), naming and selection parsing.

Independent checks: the positions are recomputed here by hand from the pose coordinates (x, y, phi) with the
rotation matrix written out; joint coincidences of the assembled mechanism (crank.b = coupler.a, ...) and the
driver's closed form (crank tip at (cos wt, sin wt)) hold to the assembly tolerance; spatial points are compared
with the systems' own scalar pose code (SpatialSystem.body_pose: three elementary rotations multiplied;
TreeMaximalSystem.point_position).
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from conftest import SAMPLES
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.model import load_model, loads_model
from mechstudio.core.systems.points import (BodyFrames, BodyPoint, PointSelectionError, PointTracer, named_points, parse_point_names,
                         point_columns, select_points)
from mechstudio.core.systems.compile import compile_model

OMEGA = 2.0  # crank speed of the driven four-bar [rad/s]


def driven_four_bar_data() -> dict:
    """The sample four-bar with its crank driven at OMEGA from 60 deg and a coupler point P off the bar line."""
    data = json.loads((SAMPLES / "four_bar.json").read_text())
    data["bodies"][1]["points"]["P"] = [1.2, 0.8]
    data["bodies"][0]["initial"].pop("hold")
    data["drivers"] = [{"name": "motor", "type": "joint_angle", "joint": "O",
                        "function": {"type": "constant_speed", "initial": math.pi / 3, "speed": OMEGA}}]
    return data


def driven_four_bar(t_end: float, frames: int):
    """(model, system, kinematic result) of the driven four-bar over ``frames`` times from 0 to t_end [s]."""
    model = loads_model(json.dumps(driven_four_bar_data()), "four_bar_driven")
    system = compile_model(model)
    res = driven_motion(system, np.linspace(0.0, t_end, frames))
    assert res.status.ok, res.message
    return model, system, res


@pytest.fixture(scope="module")
def four_bar():
    return driven_four_bar(4.0, 81)


def pose_point(system, q: np.ndarray, body: str, local: tuple[float, float], com: tuple[float, float]) -> np.ndarray:
    """r_P = r + A(phi) (s' - c') from the pose coordinates (x, y, phi) in q (..., n), A written out."""
    x, y, phi = (q[..., system.coord_names.index(f"{body}.{c}")] for c in ("x", "y", "phi"))
    dx, dy = local[0] - com[0], local[1] - com[1]
    return np.stack([x + np.cos(phi) * dx - np.sin(phi) * dy, y + np.sin(phi) * dx + np.cos(phi) * dy], -1)


def by_hand(res, system, body: str, local: tuple[float, float], com: tuple[float, float]) -> np.ndarray:
    """The path (F, 2) of a body-frame point over the frames of a kinematic result, by hand."""
    return pose_point(system, res.q, body, local, com)


def test_coupler_trace_equals_the_pose_computed_by_hand(four_bar):
    model, system, res = four_bar
    tracer = PointTracer(system, parse_point_names(model, "coupler.P"))
    trace = tracer.trace(res.q, "coupler.P")
    assert trace.shape == (81, 2)
    # 1e-12 m: the same arithmetic in another order on O(1) m values (rounding only)
    np.testing.assert_allclose(trace, by_hand(res, system, "coupler", (1.2, 0.8), (1.75, 0.0)), atol=1e-12)
    # one state at a time gives the same rows
    for k in (0, 40, 80):
        np.testing.assert_allclose(tracer.positions(res.q[k])[0], trace[k], atol=1e-15)


def test_joint_points_coincide_and_follow_the_driver(four_bar):
    model, system, res = four_bar
    tracer = PointTracer(system)  # every named point
    assert tracer.names == ["crank.a", "crank.b", "coupler.a", "coupler.b", "coupler.P", "rocker.a", "rocker.b"]
    pos = tracer.positions(res.q)
    assert pos.shape == (81, 7, 2)
    p = dict(zip(tracer.names, np.moveaxis(pos, 1, 0)))
    # joints hold to the assembly tolerance (Newton to ||Phi|| <= 1e-10 here), not to rounding
    tol = 1e-8
    np.testing.assert_allclose(p["crank.a"], 0.0, atol=tol)
    np.testing.assert_allclose(p["crank.b"], p["coupler.a"], atol=tol)
    np.testing.assert_allclose(p["coupler.b"], p["rocker.b"], atol=tol)
    np.testing.assert_allclose(p["rocker.a"], np.broadcast_to([4.0, 0.0], (81, 2)), atol=tol)
    th = math.pi / 3 + OMEGA * res.t
    np.testing.assert_allclose(p["crank.b"], np.column_stack([np.cos(th), np.sin(th)]), atol=tol)
    # the coupler point keeps its distances to the coupler's joints (rigid body): |PA|, |PB| constant
    np.testing.assert_allclose(np.linalg.norm(p["coupler.P"] - p["coupler.a"], axis=1), math.hypot(1.2, 0.8),
                               atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(p["coupler.P"] - p["coupler.b"], axis=1), math.hypot(2.3, 0.8),
                               atol=1e-12)


def test_point_columns_are_named_and_ordered(four_bar):
    model, system, res = four_bar
    cols = point_columns(system, res.q, parse_point_names(model, ["rocker.b", "coupler.P"]))
    assert list(cols) == ["point.rocker.b.x", "point.rocker.b.y", "point.coupler.P.x", "point.coupler.P.y"]
    np.testing.assert_allclose(np.column_stack([cols["point.coupler.P.x"], cols["point.coupler.P.y"]]),
                               by_hand(res, system, "coupler", (1.2, 0.8), (1.75, 0.0)), atol=1e-12)


def test_body_frame_poses(four_bar):
    model, system, res = four_bar
    frames = BodyFrames.of_system(system)
    origin, R = frames.poses(res.q)
    assert origin.shape == (81, 3, 2) and R.shape == (81, 3, 2, 2)
    # the crank's frame origin is its point a = (0, 0), the joint O at the world origin
    np.testing.assert_allclose(origin[:, 0], 0.0, atol=1e-8)
    np.testing.assert_allclose(np.einsum("fbij,fbkj->fbik", R, R), np.broadcast_to(np.eye(2), R.shape), atol=1e-14)
    # the ground is the world frame
    np.testing.assert_allclose(frames.world(res.q[3], ["ground"], [[4.0, 0.0]]), [[4.0, 0.0]])


def spatial_state(system, rng):
    q = system.initial_guess() + rng.normal(0.0, 0.7, system.n)
    return q


def test_spatial_euler_points_match_the_system_pose():
    model = load_model(SAMPLES / "rolling_disk.json")
    data = model.copy_data()
    data["bodies"][0]["points"]["rim"] = [0.5, 0.0, 0.0]
    data["bodies"][0]["points"]["off"] = [0.1, -0.2, 0.3]
    data["bodies"][0]["com"] = [0.0, 0.0, 0.05]
    model = loads_model(json.dumps(data), "disk")
    system = compile_model(model)
    rng = np.random.default_rng(1)
    qs = np.array([spatial_state(system, rng) for _ in range(5)])
    tracer = PointTracer(system)
    assert tracer.column_names[:3] == ["point.disk.centre.x", "point.disk.centre.y", "point.disk.centre.z"]
    pos = tracer.positions(qs)
    assert pos.shape == (5, 3, 3)
    com = np.array([0.0, 0.0, 0.05])
    for f, q in enumerate(qs):
        c, R = system.body_pose(q, "disk")
        for k, p in enumerate(tracer.points):
            np.testing.assert_allclose(pos[f, k], c + R @ (np.array(p.local) - com), atol=1e-13)


def test_spherical_tree_points_match_the_system():
    data = load_model(SAMPLES / "spherical_chain_3.json").copy_data()
    data["bodies"][1]["com"] = [0.01, -0.02, 0.05]  # off the frame origin, so c' matters
    model = loads_model(json.dumps(data), "chain")
    system = compile_model(model)
    rng = np.random.default_rng(2)
    q = system.initial_guess() + rng.normal(0.0, 0.3, system.n)  # quaternions need not be unit: A(p/|p|)
    tracer = PointTracer(system)
    assert tracer.points, "the sample has named points"
    pos = tracer.positions(q)
    for k, p in enumerate(tracer.points):
        np.testing.assert_allclose(pos[k], system.point_position(q, p.body, p.local), atol=1e-13)


def test_selection_parsing_and_errors():
    model = loads_model(json.dumps(driven_four_bar_data()), "m")
    assert [p.name for p in parse_point_names(model, " coupler.P , crank.b,coupler.P")] == ["coupler.P", "crank.b"]
    assert parse_point_names(model, ["rocker.a"]) == (BodyPoint("rocker", "a", (0.0, 0.0)),)
    assert select_points(model, None, enabled=False) == ()
    assert select_points(model) == named_points(model)
    with pytest.raises(PointSelectionError, match=r"no body named 'crnak'; bodies with named points: crank, coupler"):
        parse_point_names(model, "crnak.b")
    with pytest.raises(PointSelectionError, match=r"body 'coupler' has no point named 'Q'; its points: a, b, P"):
        parse_point_names(model, "coupler.Q")
    with pytest.raises(PointSelectionError, match=r"not of the form body\.point.*valid points: crank\.a"):
        parse_point_names(model, "coupler")
    with pytest.raises(PointSelectionError, match="ground's points do not move"):
        parse_point_names(model, "ground.O")
    with pytest.raises(PointSelectionError, match="no point named"):
        parse_point_names(model, " , ")
