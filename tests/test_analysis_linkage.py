"""Linkage outputs (core.analysis.linkage) against closed forms: the four-bar's transmission angle, the coupler's
instant centre, Kennedy's theorem, Grashof classes, the crank-rocker's limit positions, a non-Grashof linkage's
stops, the slider-crank's mechanical advantage and dead centres; the refusal of other models; the command.

Tolerances: poses are assembled to ||Phi|| <= 1e-12 m (core.kinematics.assembly.ASSEMBLY_TOL), so angles from them
agree with the closed forms to ~1e-11 rad; 1e-9 leaves room for the ill-conditioning near the limit positions
(output at rest) where the velocity ratio's slope is finite. Stops are folds of the assembly (the Newton steps slow
down there) and are located by bisection on whether the pose assembles: 1e-6 rad.
"""
from __future__ import annotations

import math
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import run_cli
from mechstudio.core.analysis.linkage import (FOUR_BAR, SLIDER_CRANK, Linkage, LinkageError, grashof_class,
                                              instant_centres, linkage_topology, perp)
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.model.io import load_model, model_from_data
from mechstudio.core.systems.compile import compile_model

SAMPLES = 72  # crank samples per turn in these tests (the limit positions are refined by Brent's method anyway)
ANGLE_TOL = 1e-9
ROOT = Path(__file__).resolve().parents[1]


def rot(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s], [s, c]])


def body(name: str, p1: tuple[float, float], p2: tuple[float, float], P1: np.ndarray, P2: np.ndarray,
         names: tuple[str, str] = ("p", "q")) -> dict:
    """A bar with body-frame points ``p1``, ``p2`` placed so that they are at world P1, P2 (exactly: the closed-form
    pose, so the assembly starts on the intended branch)."""
    p1a, p2a = np.array(p1), np.array(p2)
    phi = math.atan2(*(P2 - P1)[::-1]) - math.atan2(*(p2a - p1a)[::-1])
    origin = P1 - rot(phi) @ p1a
    com = (0.5 * (p1a + p2a)).tolist()
    return {"name": name, "mass": 1.0, "inertia": 0.1, "com": com,
            "points": {names[0]: list(p1), names[1]: list(p2)},
            "initial": {"x": float(origin[0]), "y": float(origin[1]), "phi": float(phi)}}


def revolute(name: str, b1: str, p1: str, b2: str, p2: str) -> dict:
    return {"name": name, "type": "revolute", "body1": b1, "point1": p1, "body2": b2, "point2": p2}


def four_bar_pose(a: float, b: float, c: float, d: float, theta2: float) -> tuple[np.ndarray, np.ndarray]:
    """A and B at crank angle theta2 (O2 at the origin, O4 at (d, 0)): B is the intersection of the circles
    (A, b) and (O4, c) to the left of the diagonal A -> O4 (one of the two assembly branches)."""
    A = a * np.array([math.cos(theta2), math.sin(theta2)])
    O4 = np.array([d, 0.0])
    z = np.linalg.norm(O4 - A)
    along = (b * b - c * c + z * z) / (2 * z)
    h = math.sqrt(max(b * b - along * along, 0.0))
    e = (O4 - A) / z
    return A, A + along * e + h * perp(e)


#: the ground line's placement in the tests' world: O2 here, the line O2 -> O4 turned by GROUND_ANGLE
O2_WORLD, GROUND_ANGLE = np.array([0.3, -0.2]), 0.4


def world(p: np.ndarray) -> np.ndarray:
    return O2_WORLD + rot(GROUND_ANGLE) @ p


def four_bar_model(a: float, b: float, c: float, d: float, theta2: float = 1.0, driven: bool = True,
                   speed: float = 2 * math.pi) -> dict:
    """A four-bar with its ground line turned and shifted, and body points off the body-frame origins."""
    A, B = four_bar_pose(a, b, c, d, theta2)
    O2, O4, A, B = world(np.zeros(2)), world(np.array([d, 0.0])), world(A), world(B)
    crank = body("crank", (0.1, 0.05), (0.1 + a * math.cos(0.3), 0.05 + a * math.sin(0.3)), O2, A)
    coupler = body("coupler", (-0.2, 0.0), (-0.2, b), A, B)
    rocker = body("rocker", (0.0, 0.0), (c, 0.0), O4, B)
    data = {"format": "mechanism-studio-model", "version": 1, "name": "fourbar", "kind": "planar",
            "gravity": [0.0, -9.81], "ground": {"points": {"O2": O2.tolist(), "O4": O4.tolist()}},
            "bodies": [crank, coupler, rocker],
            "joints": [revolute("O2", "ground", "O2", "crank", "p"), revolute("A", "crank", "q", "coupler", "p"),
                       revolute("B", "coupler", "q", "rocker", "q"), revolute("O4", "rocker", "p", "ground", "O4")],
            "drivers": [], "forces": [], "simulation": {"t_end": 1.0, "dt": 0.05}}
    if driven:
        phi0 = data["bodies"][0]["initial"]["phi"]
        data["drivers"] = [{"name": "motor", "type": "joint_angle", "joint": "O2",
                            "function": {"type": "constant_speed", "initial": phi0, "speed": speed}}]
    return data


def slider_crank_model(r: float, l: float, e: float, theta: float = 0.7, axis_angle: float = 0.25) -> dict:
    """A driven slider-crank: O2 at the origin, the slide axis turned by ``axis_angle``, B's path at offset e."""
    R = rot(axis_angle)
    A_loc = r * np.array([math.cos(theta), math.sin(theta)])
    B_loc = np.array([A_loc[0] + math.sqrt(l * l - (e - A_loc[1]) ** 2), e])
    A, B = R @ A_loc, R @ B_loc
    crank = body("crank", (0.0, 0.0), (r, 0.0), np.zeros(2), A)
    rod = body("rod", (0.0, 0.0), (l, 0.0), A, B)
    slider = {"name": "slider", "mass": 0.5, "inertia": 0.01, "com": [0.0, 0.0], "points": {"c": [0.0, 0.0]},
              "initial": {"x": float(B[0]), "y": float(B[1]), "phi": 0.0}}
    rail = R @ np.array([0.0, e])
    data = {"format": "mechanism-studio-model", "version": 1, "name": "slider_crank", "kind": "planar",
            "gravity": [0.0, -9.81], "ground": {"points": {"O": [0.0, 0.0], "rail": rail.tolist()}},
            "bodies": [crank, rod, slider],
            "joints": [revolute("O", "ground", "O", "crank", "p"), revolute("A", "crank", "q", "rod", "p"),
                       revolute("B", "rod", "q", "slider", "c"),
                       {"name": "slide", "type": "prismatic", "body1": "ground", "point1": "rail", "body2": "slider",
                        "point2": "c", "axis": [math.cos(axis_angle), math.sin(axis_angle)]}],
            "drivers": [{"name": "motor", "type": "joint_angle", "joint": "O",
                         "function": {"type": "constant_speed", "initial": crank["initial"]["phi"], "speed": 3.0}}],
            "forces": [], "simulation": {"t_end": 2.0, "dt": 0.1}}
    return data


def linkage_of(data: dict) -> Linkage:
    return Linkage(compile_model(model_from_data(data)))


# --- transmission angle ----------------------------------------------------------------------------------------

def test_four_bar_transmission_angle_matches_the_law_of_cosines_over_a_crank_turn():
    """cos(mu) = (b^2 + c^2 - a^2 - d^2 + 2 a d cos(theta2)) / (2 b c) (module docstring of core.analysis.linkage:
    the diagonal |A O4| from the triangles O2 A O4 and A B O4)."""
    a, b, c, d = 2.0, 7.0, 9.0, 6.0
    lk = linkage_of(four_bar_model(a, b, c, d))
    assert lk.topology.kind == FOUR_BAR and lk.topology.lengths == pytest.approx({"a": a, "b": b, "c": c, "d": d})
    sweep = lk.sweep(SAMPLES)
    assert sweep.full_turn
    theta2 = lk.crank_angle(sweep.q)
    assert np.ptp(np.unwrap(theta2)) == pytest.approx(2 * math.pi, abs=1e-9)  # the turn, both ends sampled
    expected = np.arccos((b * b + c * c - a * a - d * d + 2 * a * d * np.cos(theta2)) / (2 * b * c))
    np.testing.assert_allclose(sweep.transmission_angle, expected, atol=ANGLE_TOL)
    # the same over the model's driven run (the columns of `mechstudio linkage`)
    system = lk.system
    res = driven_motion(system, np.linspace(0.0, 1.0, 21))
    cols = lk.columns(res.q, res.v)
    th = cols["linkage.crank_angle"]
    np.testing.assert_allclose(cols["linkage.transmission_angle"],
                               np.arccos((b * b + c * c - a * a - d * d + 2 * a * d * np.cos(th)) / (2 * b * c)),
                               atol=ANGLE_TOL)


def test_slider_crank_transmission_angle_is_the_rod_angle_from_the_slide_normal():
    """For a slider, mu = 90 deg - |beta|, beta the rod's angle from the slide: sin(beta) = (e - r sin(theta)) / l."""
    r, l, e = 1.0, 3.2, 0.4
    lk = linkage_of(slider_crank_model(r, l, e))
    sweep = lk.sweep(SAMPLES)
    theta = lk.crank_angle(sweep.q)
    beta = np.arcsin((e - r * np.sin(theta)) / l)
    np.testing.assert_allclose(sweep.transmission_angle, math.pi / 2 - np.abs(beta), atol=ANGLE_TOL)


# --- instant centres -------------------------------------------------------------------------------------------

def line_intersection(p1: np.ndarray, p2: np.ndarray, p3: np.ndarray, p4: np.ndarray) -> np.ndarray:
    d1, d2 = p2 - p1, p4 - p3
    s = np.cross(np.append(p3 - p1, 0), np.append(d2, 0))[2] / np.cross(np.append(d1, 0), np.append(d2, 0))[2]
    return p1 + s * d1


def test_coupler_instant_centre_is_where_the_crank_and_rocker_lines_meet():
    lk = linkage_of(four_bar_model(2.0, 7.0, 9.0, 6.0))
    O2, O4 = world(np.zeros(2)), world(np.array([6.0, 0.0]))
    sweep = lk.sweep(SAMPLES)
    checked = 0
    for q in sweep.q[::5]:
        v = lk.tangent(q) * 2.5  # any input rate: the centres do not depend on it
        A, B = lk.points(q)
        if abs(np.cross(np.append(A - O2, 0), np.append(B - O4, 0))[2]) < 1e-3:
            continue  # crank and rocker (nearly) parallel: the centre is (nearly) at infinity
        ic = instant_centres(lk.system, q, v)
        np.testing.assert_allclose(ic[("coupler", "ground")].point, line_intersection(O2, A, O4, B), atol=1e-9)
        np.testing.assert_allclose(ic[("crank", "ground")].point, O2, atol=1e-12)
        np.testing.assert_allclose(ic[("rocker", "ground")].point, O4, atol=1e-12)
        np.testing.assert_allclose(ic[("crank", "coupler")].point, A, atol=1e-12)
        np.testing.assert_allclose(ic[("coupler", "rocker")].point, B, atol=1e-12)
        # the crank-rocker centre lies on the ground line and on the coupler line (Kennedy's construction)
        np.testing.assert_allclose(ic[("crank", "rocker")].point, line_intersection(O2, O4, A, B), atol=1e-8)
        checked += 1
    assert checked > 5


def collinearity(c1, c2, c3) -> float:
    """How far three centres are from one line [m]: the distance of one finite centre from the line through the
    others (a centre at infinity gives the line's direction)."""
    finite = [np.array(c.point) for c in (c1, c2, c3) if c.point is not None]
    dirs = [np.array(c.direction) for c in (c1, c2, c3) if c.at_infinity]
    assert all(c.defined for c in (c1, c2, c3))
    if len(finite) == 3:
        p, q, s = finite
        return abs(np.cross(np.append(q - p, 0), np.append(s - p, 0))[2]) / max(np.linalg.norm(q - p), 1e-300)
    if len(finite) == 2:  # the line through the two must point at the centre at infinity
        p, q = finite
        return abs(np.cross(np.append(q - p, 0), np.append(dirs[0], 0))[2])
    return 0.0  # two or three at infinity: the line at infinity


@pytest.mark.parametrize("data", [four_bar_model(2.0, 7.0, 9.0, 6.0), four_bar_model(7.0, 9.0, 6.0, 2.0),
                                  slider_crank_model(1.0, 3.2, 0.4)], ids=["crank-rocker", "drag-link", "slider"])
def test_kennedy_three_centres_of_any_three_bodies_are_collinear(data):
    lk = linkage_of(data)
    names = ["ground"] + [b.name for b in lk.system.model.bodies]
    sweep = lk.sweep(36)
    for q in sweep.q:
        v = lk.tangent(q)
        ic = instant_centres(lk.system, q, v)

        def centre(i: str, j: str):
            return ic[(i, j)] if (i, j) in ic else ic[(j, i)]
        for i, j, k in combinations(names, 3):
            assert collinearity(centre(i, j), centre(i, k), centre(j, k)) < 1e-8, (i, j, k)
        # and each finite centre has the same velocity as a point of either body (the definition, checked from
        # the body velocities directly)
        r, vel, om = {}, {}, {}
        for b in lk.system.model.bodies:
            kx, kp = lk.frames.first[b.name], lk.frames.orientation_first[b.name]
            r[b.name], vel[b.name], om[b.name] = q[kx:kx + 2], v[kx:kx + 2], v[kp]
        r["ground"], vel["ground"], om["ground"] = np.zeros(2), np.zeros(2), 0.0
        for (i, j), c in ic.items():
            if c.point is not None:
                P = np.array(c.point)
                vi = vel[i] + om[i] * perp(P - r[i])
                vj = vel[j] + om[j] * perp(P - r[j])
                np.testing.assert_allclose(vi, vj, atol=1e-9)


def test_slider_centre_relative_to_ground_is_at_infinity_normal_to_the_slide():
    lk = linkage_of(slider_crank_model(1.0, 3.2, 0.4, axis_angle=0.25))
    q = lk.q0
    ic = instant_centres(lk.system, q, lk.tangent(q))
    c = ic[("slider", "ground")]
    assert c.at_infinity and c.point is None
    assert abs(np.dot(c.direction, [math.cos(0.25), math.sin(0.25)])) < 1e-12
    cols = lk.columns(q[None, :], lk.tangent(q)[None, :])
    assert np.isnan(cols["linkage.ic.slider.x"][0]) and abs(cols["linkage.ic.slider.uy"][0]) > 0.9


# --- Grashof ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lengths, kind, turns", [
    ((2.0, 7.0, 9.0, 6.0), "crank-rocker", True),  # shortest: the input
    ((7.0, 9.0, 6.0, 2.0), "double-crank", True),  # shortest: the ground (drag link)
    ((7.0, 2.0, 9.0, 6.0), "double-rocker", False),  # shortest: the coupler
    ((7.0, 9.0, 2.0, 6.0), "rocker-crank", False),  # shortest: the output
    ((2.0, 4.0, 3.0, 3.0), "change-point", True),  # s + l = p + q
    ((4.0, 3.0, 5.0, 7.5), "triple-rocker", False),  # s + l = 10.5 > p + q = 9: non-Grashof
])
def test_grashof_class_of_link_lengths(lengths, kind, turns):
    g = grashof_class(*lengths)
    assert g.kind == kind and g.input_turns == turns


@pytest.mark.parametrize("lengths, kind", [((2.0, 7.0, 9.0, 6.0), "crank-rocker"),
                                           ((7.0, 9.0, 6.0, 2.0), "double-crank"),
                                           ((7.0, 9.0, 2.0, 6.0), "rocker-crank"),
                                           ((4.0, 3.0, 5.0, 7.5), "triple-rocker")])
def test_grashof_class_of_a_model_agrees_with_whether_its_crank_turns(lengths, kind):
    """The class read from a model's joints predicts the sweep: a full turn of the input, or two stops."""
    lk = linkage_of(four_bar_model(*lengths, theta2=1.3))
    assert lk.topology.grashof.kind == kind
    sweep = lk.sweep(SAMPLES)
    assert sweep.full_turn == lk.topology.grashof.input_turns
    assert len(sweep.stops) == (0 if sweep.full_turn else 2)


def test_stops_of_a_non_grashof_linkage_are_where_coupler_and_output_are_collinear():
    """The input stops where |A O4| = b + c or |b - c|: cos(theta2) = (a^2 + d^2 - z^2) / (2 a d)."""
    a, b, c, d = 4.0, 3.0, 5.0, 7.5
    lk = linkage_of(four_bar_model(a, b, c, d, theta2=1.3))
    sweep = lk.sweep(SAMPLES)
    got = sorted(abs(p.crank_angle) for p in sweep.stops)
    expected = sorted(math.acos((a * a + d * d - z * z) / (2 * a * d)) for z in (b + c, abs(b - c))
                      if abs(a * a + d * d - z * z) <= 2 * a * d)
    assert len(got) == 2 and len(expected) == 1  # |A O4| = b + c = 8 is reached; |b - c| = 2 < d - a is not
    # this start lies on the branch between the two symmetric stops theta2 = +-acos(...)
    np.testing.assert_allclose(got, expected * 2, atol=1e-6)
    assert all(min(p.transmission_angle, math.pi - p.transmission_angle) < 1e-3 for p in sweep.stops)


# --- limit positions -------------------------------------------------------------------------------------------

def test_crank_rocker_limit_positions_match_the_collinear_crank_and_coupler():
    """Rocker extremes: |O2 B| = b + a (extended) and b - a (folded); theta4 from the triangle O2 O4 B,
    theta2 along O2 -> B (extended) or against it (folded)."""
    a, b, c, d = 2.0, 7.0, 9.0, 6.0
    lk = linkage_of(four_bar_model(a, b, c, d))
    sweep = lk.sweep(SAMPLES)
    assert len(sweep.limits) == 2
    expected = []
    for dist, sign in ((b + a, 1.0), (b - a, -1.0)):
        gamma = math.acos((c * c + d * d - dist * dist) / (2 * c * d))  # angle at O4 between O4->O2 and O4->B
        theta4 = math.pi - gamma  # B above the ground line (the branch the model starts on)
        B = np.array([d + c * math.cos(theta4), c * math.sin(theta4)])
        theta2 = math.atan2(sign * B[1], sign * B[0])
        expected.append((theta2, theta4))
    got = sorted((p.crank_angle, p.output) for p in sweep.limits)
    np.testing.assert_allclose(np.array(got), np.array(sorted(expected)), atol=ANGLE_TOL)
    assert all(abs(p.velocity_ratio) < 1e-9 for p in sweep.limits)


def test_slider_crank_dead_centres_and_mechanical_advantage_match_the_closed_form():
    """x = r cos(theta) + sqrt(l^2 - (e - r sin(theta))^2) along the slide from O2; MA = omega / x' = 1 / (dx/dtheta)
    with dx/dtheta = -r sin(theta) + (e - r sin(theta)) r cos(theta) / sqrt(...); dead centres at
    x = sqrt((l + r)^2 - e^2) and sqrt((l - r)^2 - e^2)."""
    r, l, e = 1.0, 3.2, 0.4
    lk = linkage_of(slider_crank_model(r, l, e))
    assert lk.topology.kind == SLIDER_CRANK and lk.topology.lengths["e"] == pytest.approx(e, abs=1e-12)
    assert lk.topology.grashof.kind == "crank-slider"
    res = driven_motion(lk.system, np.linspace(0.0, 2.0, 41))
    cols = lk.columns(res.q, res.v)
    th = cols["linkage.crank_angle"]
    root = np.sqrt(l * l - (e - r * np.sin(th)) ** 2)
    np.testing.assert_allclose(cols["linkage.output_position"], r * np.cos(th) + root, atol=1e-10)
    dx = -r * np.sin(th) + (e - r * np.sin(th)) * r * np.cos(th) / root
    far = np.abs(dx) > 1e-2  # away from the dead centres, where MA is unbounded
    np.testing.assert_allclose(cols["linkage.mechanical_advantage"][far], 1.0 / dx[far], rtol=1e-8)
    np.testing.assert_allclose(cols["linkage.velocity_ratio"], dx, atol=1e-9)
    sweep = lk.sweep(SAMPLES)
    got = sorted(p.output for p in sweep.limits)
    np.testing.assert_allclose(got, sorted([math.sqrt((l + r) ** 2 - e * e), math.sqrt((l - r) ** 2 - e * e)]),
                               atol=1e-10)


# --- refusal and the command -----------------------------------------------------------------------------------

def test_models_that_are_not_four_bars_are_refused_with_a_reason():
    with pytest.raises(LinkageError, match="2 moving bodies"):
        linkage_topology(load_model(ROOT / "sample_models" / "double_pendulum.json"))
    with pytest.raises(LinkageError, match="4 moving bodies"):
        linkage_topology(load_model(ROOT / "sample_models" / "parallelogram.json"))
    data = slider_crank_model(1.0, 3.2, 0.4)  # the prismatic joint between the rod and the slider instead
    data["joints"][2], data["joints"][3] = ({**data["joints"][3], "name": "slide", "body1": "rod", "point1": "q"},
                                            {**data["joints"][2], "name": "B", "body1": "ground", "point1": "rail"})
    with pytest.raises(LinkageError, match="inverted slider-crank"):
        linkage_topology(model_from_data(data))


def run_linkage(capsys, *args: str) -> tuple[int, str, str]:
    return run_cli(["linkage", *args], capsys)


def test_command_writes_columns_and_summary(tmp_path, capsys):
    out = tmp_path / "lk.csv"
    rc, stdout, err = run_linkage(capsys, str(ROOT / "sample_models" / "slider_crank_driven.json"), "--t-end", "0.5",
                              "--dt", "0.125", "--samples", "36", "--out", str(out))
    assert rc == 0, err
    assert "slider-crank" in stdout and "limit positions (output at rest): 2" in stdout
    header = out.read_text().splitlines()[0].split(",")
    for name in ("t", "linkage.transmission_angle", "linkage.mechanical_advantage", "linkage.ic.rod.x",
                 "linkage.ic.crank.rod.y", "linkage.ic.slider.ux"):
        assert name in header
    rc, stdout, err = run_linkage(capsys, str(ROOT / "sample_models" / "double_pendulum.json"))
    assert rc == 2 and "not a four-bar or slider-crank" in err and "Traceback" not in err
    assert stdout == ""


def test_command_turns_the_crank_of_a_model_without_driver(capsys):
    rc, stdout, err = run_linkage(capsys, str(ROOT / "sample_models" / "four_bar.json"), "--t-end", "1", "--dt", "0.25",
                              "--samples", "36")
    assert rc == 0, err
    assert "crank-rocker" in err and "no driver" in err and "limit positions (output at rest): 2" in err
    rows = stdout.splitlines()
    assert len(rows) == 6  # header and t = 0, 0.25, ..., 1
    header = rows[0].split(",")
    phi = [float(r.split(",")[header.index("q.crank.phi")]) for r in rows[1:]]
    np.testing.assert_allclose(np.diff(phi), 2 * math.pi * 0.25, atol=1e-12)  # one turn per second
