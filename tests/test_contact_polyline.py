"""Ground and body polylines as contact shapes (docs/contact.md, Geometry) against closed forms.

* A ball dropped into a V-groove (sides at beta from the horizontal, restitution 0) comes to rest on the groove's
  axis at height r / cos(beta) above the bottom, touching both sides: the pair's total normal force is
  2 N = m g / cos(beta), N = m g / (2 cos(beta)) per side (the vertical balance 2 N cos(beta) = m g; Fx = 0 so
  the two are equal). Tolerances 1e-9: the rest position is a projection onto the two closed rows (1e-12), the
  forces are exact multipliers.
* A disk rolling without slipping down a 10 degree ramp over a convex vertex onto a 20 degree ramp keeps
  v^2 = 2 g h / (1 + J / (m r^2)) (energy; h the drop of its centre) through the vertex, where it pivots on the
  vertex (two "feature" events, no impact, no slip). Tolerance 1e-9 m^2/s^2: DOP853 at rtol 1e-10 over 0.8 s.
* The sample ball_on_terrain.json: a disk rolls down a 20 degree ramp onto a flat (a concave corner): the flat's
  plastic impact leaves v_c cos(alpha) and the spin v_c / r, the disk slips and sticks again at
  v = v_c (m r^2 cos(alpha) + J) / (m r^2 + J) (angular momentum about the contact point is conserved while it
  slips: friction and normal force act at that point, gravity through the centre above it), to 1e-9 relative.
* Bad input: messages with the JSON pointer; the shapes' split and side; the gap's continuity at a vertex; the
  drawing records.
"""
from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from mechstudio.core.contact.geometry import (BodyState, ShapeError, nearest_row, shapes_from_geometry)
from mechstudio.core.drawing.scene import scene_geometry
from mechstudio.core.model.io import model_from_data
from mechstudio.core.run.driver import run
from mechstudio.core.simulate import SimulationSettings
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status

SAMPLES = Path(__file__).resolve().parents[1] / "sample_models"
G = 9.81
GROUND = BodyState(np.zeros(2), 0.0, np.zeros(2), 0.0)


def _doc(points: list, body: dict, force: dict, t_end: float) -> dict:
    body = {"name": "ball", "mass": 1.0, "inertia": 0.005, "geometry": [{"type": "disk", "radius": 0.1}], **body}
    return {"format": "mechanism-studio-model", "version": 1, "name": "t", "kind": "planar", "gravity": [0.0, -G],
            "ground": {"geometry": [{"type": "polyline", "points": points}]}, "bodies": [body],
            "forces": [{"name": "c", "type": "contact_pair", "body1": "ground", "body2": "ball", **force}],
            "simulation": {"t_end": t_end, "dt": 0.01}}


def _run(data: dict):
    model = model_from_data(data, "<test>")
    traj = run(compile_model(model), SimulationSettings.from_model(model, rtol=1e-10))
    assert traj.status == Status.FINISHED, traj.message
    return traj


# ---- physics -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("x0", [0.0, 0.05])  # on the axis: both sides at once; off it: side to side until at rest
def test_ball_in_a_v_groove_rests_on_both_sides(x0):
    beta, m, r = math.radians(30), 2.0, 0.1
    c, s = math.cos(beta), math.sin(beta)
    data = _doc([[-c, s], [0.0, 0.0], [c, s]], {"mass": m, "initial": {"x": x0, "y": 0.5, "phi": 0.0}},
                {"restitution": 0.0}, 3.0)
    traj = _run(data)
    impacts = [ev for ev in traj.stats["events"] if ev["kind"] == "impact"]
    assert {ev["contact"] for ev in impacts} == {"c.0", "c.1"}  # the two sides are two contact points
    cols = traj.columns()
    assert traj.coordinate("ball.y")[-1] == pytest.approx(r / c, abs=1e-9)
    assert abs(traj.coordinate("ball.x")[-1]) < 1e-9
    assert np.max(np.abs(traj.v[-1])) < 1e-9
    n_side = m * G / (2.0 * c)
    assert cols["contact.c.normal"][-1] == pytest.approx(2.0 * n_side, rel=1e-9)
    assert cols["contact.c.Fy"][-1] == pytest.approx(m * G, rel=1e-9)
    assert abs(cols["contact.c.Fx"][-1]) < 1e-9 * m * G  # N1 sin(beta) - N2 sin(beta): the sides carry equal N
    assert cols["contact.c.state"][-1] == 3.0


def test_disk_rolls_over_a_convex_vertex_with_the_energy_closed_form():
    a1, a2, r, m, J, d = math.radians(10), math.radians(20), 0.1, 1.0, 0.005, 0.2
    pts = [[-math.cos(a1), math.sin(a1)], [0.0, 0.0], [math.cos(a2), -math.sin(a2)]]
    x0, y0 = -d * math.cos(a1) + r * math.sin(a1), d * math.sin(a1) + r * math.cos(a1)  # touching, d before it
    traj = _run(_doc(pts, {"mass": m, "inertia": J, "initial": {"x": x0, "y": y0, "phi": 0.0}},
                     {"friction_static": 1.0}, 0.8))
    kinds = [ev["kind"] for ev in traj.stats["events"]]
    assert kinds == ["feature", "feature"]  # onto the vertex, off it onto the steeper ramp: no impact, no slip
    y, v = traj.coordinate("ball.y"), traj.v
    assert traj.coordinate("ball.x")[-1] > 0.15  # well past the vertex
    v2 = v[:, 0] ** 2 + v[:, 1] ** 2
    assert np.max(np.abs(v2 - 2 * G * (y[0] - y) / (1 + J / (m * r * r)))) < 1e-9
    assert np.max(np.abs(v[:, 2] * r + np.hypot(v[:, 0], v[:, 1]))) < 1e-9  # rolling: omega r = -|v|
    assert np.all(traj.columns()["contact.c.state"] == 1.0)


def test_terrain_sample_ramp_onto_a_flat_impacts_slips_and_rolls_on():
    data = json.loads((SAMPLES / "ball_on_terrain.json").read_text(encoding="utf-8"))
    b = data["bodies"][0]
    m, J, r = b["mass"], b["inertia"], b["geometry"][0]["radius"]
    a = math.atan2(data["ground"]["geometry"][0]["points"][0][1], -data["ground"]["geometry"][0]["points"][0][0])
    traj = _run(data)
    events = traj.stats["events"]
    assert [ev["kind"] for ev in events] == ["impact", "impact", "stop"]
    vc = math.sqrt(2 * G * (b["initial"]["y"] - r) / (1 + J / (m * r * r)))  # at the corner: centre r above the flat
    t_corner = events[0]["t"]
    assert events[0]["approach_speed"] + events[1]["approach_speed"] == pytest.approx(vc * math.sin(a), rel=1e-9)
    vf = vc * (m * r * r * math.cos(a) + J) / (m * r * r + J)
    assert traj.v[-1, 0] == pytest.approx(vf, rel=1e-9)
    assert abs(traj.v[-1, 1]) < 1e-9 and traj.v[-1, 2] * r == pytest.approx(-vf, rel=1e-9)
    assert traj.coordinate("ball.y")[-1] == pytest.approx(r, abs=1e-9)
    assert t_corner < events[2]["t"] < traj.t[-1]


# ---- geometry ------------------------------------------------------------------------------------------------------
def test_polyline_splits_at_concave_vertices_and_side_orients_it():
    v = {"type": "polyline", "points": [[-1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]}  # solid below (right): concave bottom
    chains = shapes_from_geometry(v, {}, [0.0, 0.0])
    assert [c.kind for c in chains] == ["chain", "chain"] and all(len(c.points) == 2 for c in chains)
    assert sum(len(c.disks()) for c in chains) == 2  # the two ends; the concave bottom is no candidate disk
    hill = shapes_from_geometry({**v, "side": "left"}, {}, [0.0, 0.0])  # solid above: a convex vertex, one chain
    assert len(hill) == 1 and len(hill[0].points) == 3 and len(hill[0].disks()) == 3
    step = {"type": "polyline", "points": [[-1.0, 0.0], [0.0, 0.0], [0.0, 0.2], [1.0, 0.2]]}  # concave foot, convex top
    assert [len(c.points) for c in shapes_from_geometry(step, {}, [0.0, 0.0])] == [3, 2]


def test_gap_of_a_disk_over_a_convex_vertex_is_continuous_and_one_sided():
    chain = shapes_from_geometry({"type": "polyline", "points": [[-1.0, 0.0], [0.0, 0.0], [1.0, -1.0]]}, {},
                                 [0.0, 0.0])[0]
    rho, R = 0.1, 0.3
    # around the vertex at distance R: over it (90 to 45 degrees, between the two edges' normals) the vertex's
    # distance R - rho, then the second edge's R cos(45 degrees - angle) - rho, down onto the edge (-45 degrees)
    ang = np.linspace(math.pi / 2, -math.pi / 4, 301)
    gaps = np.array([nearest_row(np.array([R * math.cos(t), R * math.sin(t)]), rho, (0.0, 0.0), GROUND, chain,
                                 GROUND)[0] for t in ang])
    expected = np.where(ang >= math.pi / 4, R, R * np.cos(math.pi / 4 - ang)) - rho
    assert np.max(np.abs(gaps - expected)) < 1e-12
    below = nearest_row(np.array([-0.5, -0.05]), rho, (0.0, 0.0), GROUND, chain, GROUND)[0]
    assert below == pytest.approx(-0.05 - rho, abs=1e-12)  # behind the floor: its signed distance
    beyond = nearest_row(np.array([-1.2, -0.05]), rho, (0.0, 0.0), GROUND, chain, GROUND)[0]
    assert beyond == pytest.approx(math.hypot(0.2, 0.05) - rho, abs=1e-12)  # past the end: the end vertex


@pytest.mark.parametrize("item, message", [
    ({"type": "polyline", "points": [[0.0, 0.0]]}, "at least 2"),
    ({"type": "polyline", "points": [[0.0, 0.0], [0.0, 0.0], [1.0, 0.0]]}, "two equal consecutive points"),
    ({"type": "polyline", "points": [[0.0, 0.0], [1.0, 0.0]], "side": "up"}, "side must be one of"),
])
def test_contact_shape_refuses_bad_polylines(item, message):
    with pytest.raises(ShapeError, match=message):
        shapes_from_geometry(item, {}, [0.0, 0.0])


def _problems(data: dict) -> str:
    with pytest.raises(Exception) as info:
        model_from_data(data, "terrain.json")
    return str(info.value)


def test_loader_messages_name_the_file_and_pointer():
    base = _doc([[0.0, 0.0], [1.0, 0.0]], {"initial": {"x": 0.0, "y": 0.5, "phi": 0.0}}, {}, 1.0)
    few = copy.deepcopy(base)
    few["ground"]["geometry"][0]["points"] = [[0.0, 0.0]]
    text = _problems(few)
    assert "terrain.json" in text and "/ground/geometry/0/points" in text
    repeated = copy.deepcopy(base)
    repeated["ground"]["geometry"][0]["points"] = [[0.0, 0.0], [1.0, 0.0], [1.0, 0.0]]
    text = _problems(repeated)
    assert "/ground/geometry/0/points/2" in text and "repeats its point 1" in text
    side = copy.deepcopy(base)
    side["bodies"][0]["geometry"].append({"type": "polyline", "points": [[0.0, 0.0], [0.1, 0.0]], "side": "up"})
    assert "/bodies/0/geometry/1/side" in _problems(side)


# ---- drawing -------------------------------------------------------------------------------------------------------
def test_drawing_record_of_a_body_polyline():
    data = _doc([[0.0, 0.0], [1.0, 0.0]], {"initial": {"x": 1.0, "y": 2.0, "phi": math.pi / 2}}, {}, 1.0)
    data["bodies"][0]["geometry"].append({"type": "polyline", "points": [[0.0, 0.0], [0.5, 0.0], [0.5, 0.5]]})
    sg = scene_geometry(model_from_data(data, "<test>"))
    (line,) = sg.bodies[0].polylines
    assert np.allclose(line, [(1.0, 2.0), (1.0, 2.5), (0.5, 2.5)], atol=1e-12)  # turned by 90 degrees
    assert sg.bodies[0].contains((0.75, 2.5), 1e-3) and not sg.bodies[0].contains((0.75, 2.4), 1e-3)
    assert (0.5, 2.5) in [tuple(np.round(p, 12)) for p in sg.bodies[0].bounds()]
