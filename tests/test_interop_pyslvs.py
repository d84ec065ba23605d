"""Import of Pyslvs mechanism expressions.

Checked against independent references:

* Pyslvs' own examples and synthesis collections (tests/data/pyslvs/examples.json, copied from pyslvs 22.07.0; its
  ``source`` names the files and commit): each imports with the degrees of freedom of the Grübler/Kutzbach count
  worked out here from the expression alone, which is also the rank-based count of ``mechstudio info`` and, for the
  examples, the number of inputs Pyslvs gives them; each runs driven by its own Pyslvs input pairs while every
  joint keeps Pyslvs' meaning (written out below from the expression, not from the converter): the links of an R
  joint share its point; the pin links of a P or RP joint share one pin that stays on the slot line of the first
  link; P pin links keep their angle to the slot.
* closed forms: the slider of the crank slider "Crank slider (RP joint)" at x = r cos th + sqrt(l^2 - (r sin th -
  e)^2) over a full turn, and the four-bar that the same slider then drives (circle intersection); the whole chain
  of "Crank lifter" (a second RP joint with its slot on a moving link); the inverted crank slider "Crank slider
  (Three bar)" (slot on the coupler, pin on the ground); the slider-driven "Slider lifter"; a P joint with two pin
  links that move as one.
* colours: Pyslvs' colour table, ``color[(r, g, b)]`` and the default Green, carried into the model.

Tolerances: assembly closes the constraints to 1e-12 (m, rad); positions are compared to 1e-9 m and angles to
1e-9 rad, far below the mm of Pyslvs drawings and far above the round-off of the closed forms.
"""
from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest

from mechstudio.core.errors import ModelError
from mechstudio.core.interop.pyslvs import (JOINT_COLORS_KEY, PYSLVS_COLORS, add_input_driver, add_speed_driver,
                                            hex_color, model_from_expression, parse_expression)
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.kinematics.assembly import assemble, dof_report
from mechstudio.core.model import model_from_data
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.systems.points import point_columns
from mechstudio.gui.cli import main

DATA = json.loads((Path(__file__).parent / "data" / "pyslvs" / "examples.json").read_text(encoding="utf-8"))
EXAMPLES = DATA["examples"]
ALL = {**{f"example: {k}": v for k, v in EXAMPLES.items()},
       **{f"collection: {k}": v for k, v in DATA["collections"].items()}}
POS_TOL = 1e-9  # m
ANGLE_TOL = 1e-9  # rad

SLIDER_CRANK = """M[
  J[R, color[Green], P[0.0, 0.0], L[ground, crank]],
  J[R, color[Green], P[100.0, 0.0], L[crank, rod]],
  J[RP, A[0.0], color[Green], P[400.0, 0.0], L[ground, rod]],
]"""
FOUR_BAR = ("M[J[R, color[Green], P[0.0, 0.0], L[ground, link_0]], J[R, color[Green], P[12.92, 32.53], "
            "L[link_0, link_1]], J[R, color[Green], P[73.28, 67.97], L[link_1, link_2]], J[R, color[Green], "
            "P[33.3, 66.95], L[link_1]], J[R, color[Green], P[90.0, 0.0], L[ground, link_2]]]")


# --- helpers: an independent reading of the expression --------------------------------------------------------

def grubler_dof(expression: str) -> int:
    """Grübler/Kutzbach mobility 3 (n - 1) - sum of the constraints of the pairs, from the expression alone: an R
    joint of k links is k - 1 revolute pairs (2 each); P and RP joints of links (s, o1, o2, ...): the pin of o1 in
    the slot of s is a prismatic pair (2) or a pin-in-slot pair (1), each further o_i is welded (3, P) or pinned
    (2, RP) to o1."""
    joints = parse_expression(expression)
    moving = {link for j in joints for link in j.links} - {"ground"}
    removed = 0
    for j in joints:
        k = len(j.links)
        if k < 2:
            continue
        if j.kind == "R":
            removed += 2 * (k - 1)
        elif j.kind == "P":
            removed += 2 + 3 * (k - 2)
        else:
            removed += 1 + 2 * (k - 2)
    return 3 * len(moving) - removed


def rotation(phi: float | np.ndarray) -> np.ndarray:
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, -s], [s, c]])


def run_driven(doc: dict, times: np.ndarray):
    system = compile_model(model_from_data(doc))
    res = driven_motion(system, times)
    return system, res


def world(doc: dict, system, q: np.ndarray, body: str, point: str) -> np.ndarray:
    """(F, 2) world positions of a named point (a ground point when ``body`` is the ground)."""
    if body == "ground":
        return np.tile(np.array(doc["ground"]["points"][point], float), (len(q), 1))
    cols = point_columns(system, q)
    return np.column_stack([cols[f"point.{body}.{point}.x"], cols[f"point.{body}.{point}.y"]])


def angle(system, q: np.ndarray, body: str) -> np.ndarray:
    if body == "ground":
        return np.zeros(len(q))
    return q[:, system.coord_names.index(f"{body}.phi")]


def check_pyslvs_semantics(expression: str, doc: dict, system, q: np.ndarray) -> None:
    """Every joint of the expression keeps Pyslvs' meaning over the frames q (module docstring)."""
    for k, j in enumerate(parse_expression(expression)):
        point = f"J{k}"
        if len(j.links) < 2:
            continue
        if j.kind == "R":
            ref = world(doc, system, q, j.links[0], point)
            for link in j.links[1:]:
                assert np.abs(world(doc, system, q, link, point) - ref).max() < POS_TOL, (k, link)
            continue
        slot, pins = j.links[0], j.links[1:]
        pin = world(doc, system, q, pins[0], point)
        for link in pins[1:]:
            assert np.abs(world(doc, system, q, link, point) - pin).max() < POS_TOL, (k, link)
        base = world(doc, system, q, slot, point)
        phi_s = angle(system, q, slot)
        a = math.radians(j.angle_deg)
        u = np.column_stack([np.cos(phi_s + a), np.sin(phi_s + a)])
        across = u[:, 0] * (pin - base)[:, 1] - u[:, 1] * (pin - base)[:, 0]
        assert np.abs(across).max() < POS_TOL, (k, "pin off the slot")
        if j.kind == "P":
            for link in pins:
                assert np.abs(angle(system, q, link) - phi_s).max() < ANGLE_TOL, (k, link, "turned in a P joint")


def circle_intersection(p: np.ndarray, a: float, d: np.ndarray, b: float, side: float) -> np.ndarray:
    """(F, 2) points at distance a from p and b from d, on the side ``side`` (sign of cross(d - p, x - p))."""
    v = d - p
    dist = np.hypot(v[:, 0], v[:, 1])
    along = (a ** 2 - b ** 2 + dist ** 2) / (2 * dist)
    h = np.sqrt(a ** 2 - along ** 2)
    e = v / dist[:, None]
    n = np.column_stack([-e[:, 1], e[:, 0]])
    return p + along[:, None] * e + side * h[:, None] * n


def cross2(u: np.ndarray, v: np.ndarray) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def mm(x: float, y: float) -> np.ndarray:
    return np.array([x, y]) * 1e-3


# --- parsing --------------------------------------------------------------------------------------------------

def test_parser_reads_types_angles_positions_links_and_colours():
    joints = parse_expression(SLIDER_CRANK)
    assert [(j.kind, j.angle_deg, j.position, j.links) for j in joints] == [
        ("R", 0.0, (0.0, 0.0), ["ground", "crank"]), ("R", 0.0, (100.0, 0.0), ["crank", "rod"]),
        ("RP", 0.0, (400.0, 0.0), ["ground", "rod"])]
    assert {j.color for j in joints} == {(110, 190, 30)}
    text = ("# a line comment\nM[#[ a block\n comment #] rest of its line\n"
            "  J[R, color[dark-RED], P[0, 0], L[ground, a]],\n  J[R, P[1, 0], L[a, b]],  # no colour: Green\n"
            "  J[RP, A[-30.5], color[(255, 130, 0)], P[+2., .5e1], L[b, a,]],\n"
            "  J[R, color[Brick-Red], P[3, 3], L[]],\n]")
    joints = parse_expression(text)
    assert [j.color for j in joints] == [(128, 0, 0), (110, 190, 30), (255, 130, 0), (255, 130, 130)]
    assert [j.where for j in joints] == [(4, 3), (5, 3), (6, 3), (7, 3)]
    assert joints[2].angle_deg == -30.5 and joints[2].position == (2.0, 5.0) and joints[2].links == ["b", "a"]
    assert joints[3].links == []


@pytest.mark.parametrize("text, where, words", [
    ("M[J[R, P[0, 0], L[ground, a]", "line 1, column 29", "expected"),
    ("M[\n  J[Q, P[0, 0], L[ground, a]]]", "line 2, column 5", "unknown joint type"),
    ("M[J[R, P[0], L[ground, a]]]", "line 1, column 11", "expected ,"),
    ("M[J[R, P[0, 0], L[ground, a]]] extra", "line 1, column 32", "after the end"),
    ("M[J[R, P[0, 0], L[ground, a]] $", "line 1, column 31", "unexpected character"),
    ("M[J[R, color[Purple], P[0, 0], L[ground, a]]]", "line 1, column 14", "unknown colour 'Purple'"),
    ("M[J[R, color[(1, 2, 256)], P[0, 0], L[ground, a]]]", "line 1, column 21", "0 to 255"),
    ("M[J[R, color[(1, 2.5, 3)], P[0, 0], L[ground, a]]]", "line 1, column 18", "0 to 255"),
    ("M[J[RP, P[0, 0], L[ground, a]]]", "line 1, column 3", "slot angle A"),
    ("M[J[R, P[0, 0], P[1, 1], L[ground, a]]]", "line 1, column 17", "given twice"),
    ("M[J[R, P[0, 0], L[ground a]]]", "line 1, column 26", "in the link list"),
])
def test_syntax_errors_name_line_and_column(text, where, words):
    with pytest.raises(ModelError) as err:
        parse_expression(text)
    message = err.value.diagnostics[0].message
    assert where in message and words in message, message


def test_unusable_link_names_are_refused_with_the_joint_and_its_place():
    with pytest.raises(ModelError) as err:
        model_from_expression("M[J[R, P[0, 0], L[ground, a]],\n J[R, P[1, 0], L[a, b-c]], J[R, P[2, 0], L[a, a]]]")
    messages = [d.message for d in err.value.diagnostics]
    assert "line 2, column 2: joint 1: link name 'b-c' is not usable" in messages[0]
    assert "joint 2 names a link twice" in messages[1]


# --- colours --------------------------------------------------------------------------------------------------

def test_colours_are_carried_into_the_model():
    text = ("M[J[R, color[Red], P[0, 0], L[ground, crank]], J[R, P[100, 0], L[crank, rod]],"
            " J[RP, A[0], color[(255, 130, 0)], P[400, 0], L[ground, rod, arm]], J[R, P[400, 100], L[arm]]]")
    doc = model_from_expression(text)
    model_from_data(doc)  # the colours are valid model colours (#rrggbb)
    bodies = {b["name"]: b for b in doc["bodies"]}
    blue = hex_color(PYSLVS_COLORS["blue"])
    assert blue == "#4478ac"  # Pyslvs' link colour (68, 120, 172)
    assert [bodies[n]["color"] for n in ("crank", "rod", "arm")] == [blue] * 3
    assert bodies["J2_slider"]["color"] == "#ff8200"  # the RP joint's block in the joint's colour
    assert doc["editor"][JOINT_COLORS_KEY] == {"J0": "#ac4444", "J1": "#6ebe1e", "J2": "#ff8200", "J3": "#6ebe1e"}


@pytest.mark.parametrize("name", sorted(PYSLVS_COLORS))
def test_every_pyslvs_colour_name_maps_to_a_model_colour(name):
    doc = model_from_expression(f"M[J[RP, A[0], color[{name.upper()}], P[0, 0], L[ground, a]]]")
    slider = next(b for b in doc["bodies"] if b["name"] == "J0_slider")
    assert slider["color"] == hex_color(PYSLVS_COLORS[name])
    model_from_data(doc)


# --- Pyslvs' examples -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(ALL))
def test_every_pyslvs_example_imports_with_the_grubler_degrees_of_freedom(name):
    expression = ALL[name]["expression"]
    doc = model_from_expression(expression)
    system = compile_model(model_from_data(doc))
    res = assemble(system, system.initial_guess(), 0.0)
    assert res.status.ok, res.message
    assert res.residual < 1e-12  # the drawing is already closed: lengths are taken from it
    dof = dof_report(system, res.q).dof_positions
    assert dof == grubler_dof(expression)
    if name.startswith("example: "):
        assert dof == len(ALL[name]["inputs"])  # Pyslvs gives each example one input per degree of freedom
    rp_joints = [j for j in parse_expression(expression) if j.kind == "RP" and len(j.links) >= 2]
    assert len([b for b in doc["bodies"] if b["name"].endswith("_slider")]) == len(rp_joints)  # one per RP joint


@pytest.mark.parametrize("name", ["Crank slider (RP joint)", "Crank lifter"])
def test_info_counts_one_degree_of_freedom_for_rp_joints_with_two_pin_links(name, tmp_path, capsys):
    out = tmp_path / "m.json"
    assert main(["import", EXAMPLES[name]["expression"], "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["info", str(out)]) == 0
    text = capsys.readouterr().out
    assert "degrees of freedom d = n - rank = " in text and text.split("degrees of freedom d = ")[1].split("\n")[0] \
        .endswith("= 1"), text
    assert "redundant constraints: none" in text


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_runs_driven_by_its_own_inputs_keeping_pyslvs_joints(name):
    """Each input turns at 0.3 rad/s (a slider input moves 3 mm/s) for 1 s, one way or the other: a drawing may
    sit at one end of its range (Ten Fold's levers is at a toggle position turning forwards)."""
    expression, inputs = EXAMPLES[name]["expression"], EXAMPLES[name]["inputs"]
    times = np.linspace(0.0, 1.0, 11)
    messages = []
    for direction in (1.0, -1.0):
        doc = model_from_expression(expression)
        for base, drive in inputs:
            add_input_driver(doc, expression, base, drive, direction * (0.003 if base == drive else 0.3))
        system, res = run_driven(doc, times)
        if res.status.ok:
            check_pyslvs_semantics(expression, doc, system, res.q)
            moved = np.abs(res.q[-1] - res.q[0]).max()
            assert moved > 1e-3, moved
            return
        messages.append(res.message)
    pytest.fail(f"{name}: {messages}")


def test_crank_slider_rp_example_follows_the_closed_form(tmp_path):
    """Pyslvs' "Crank slider (RP joint)" through the command line (import with its input pair, kinematics):
    slider S on the ground slot y = 0 at x_S = x_O + r cos th + sqrt(l^2 - (r sin th - e)^2), e = 0 - y_O the slot's
    offset from the crank pivot O; the link pinned to the same slider (the RP joint's second pin link) drives the
    four-bar S-C-D, C on circles about S and D, and carries the point E."""
    model = tmp_path / "crank_slider.json"
    csv_out = tmp_path / "k.csv"
    omega = 1.0
    assert main(["import", EXAMPLES["Crank slider (RP joint)"]["expression"], "--out", str(model),
                 "--input", f"0,1:{omega}"]) == 0
    assert main(["kinematics", str(model), "--t-end", f"{2 * math.pi}", "--dt", f"{2 * math.pi / 72}",
                 "--out", str(csv_out), "--quiet"]) == 0
    rows = list(csv.DictReader(io.StringIO(csv_out.read_text())))
    col = {k: np.array([float(r[k]) for r in rows]) for k in rows[0]}
    pt = {k: np.column_stack([col[f"point.{k}.x"], col[f"point.{k}.y"]]) for k in
          ("L1.J1", "L2.J1", "L2.J2", "L3.J2", "J2_slider.c", "L3.J3", "L4.J3", "L3.J5")}
    t = col["t"]
    assert len(t) == 73 and t[-1] == pytest.approx(2 * math.pi)
    o, a0, s0, c0, d, e0 = (mm(-67.38, 36.13), mm(-68.925, 55.925), mm(11.88, 0.0), mm(50.775, 24.7908),
                            mm(74.375, 7.625), mm(95.1972, 52.8805))
    r, l, e = np.linalg.norm(a0 - o), np.linalg.norm(s0 - a0), 0.0 - o[1]
    th = math.atan2(*(a0 - o)[::-1]) + omega * t
    x_s = o[0] + r * np.cos(th) + np.sqrt(l ** 2 - (r * np.sin(th) - e) ** 2)
    slider = np.column_stack([x_s, np.zeros_like(t)])
    for key in ("L2.J2", "L3.J2", "J2_slider.c"):  # both pin links and the block at one point on the slot
        assert np.abs(pt[key] - slider).max() < POS_TOL, key
    assert np.ptp(x_s) > 1.5 * r  # a full stroke of the slider (about 2 r = 40 mm)
    side = np.sign(cross2(d - s0, c0 - s0))
    c = circle_intersection(slider, np.linalg.norm(c0 - s0), np.tile(d, (len(t), 1)), np.linalg.norm(c0 - d), side)
    assert np.abs(pt["L3.J3"] - c).max() < POS_TOL and np.abs(pt["L4.J3"] - c).max() < POS_TOL
    psi = np.arctan2(*(c - slider).T[::-1]) - math.atan2(*(c0 - s0)[::-1])
    e_pt = slider + np.einsum("kij,j->ki", np.moveaxis(rotation(psi), -1, 0), e0 - s0)
    assert np.abs(pt["L3.J5"] - e_pt).max() < POS_TOL


def test_crank_lifter_follows_the_closed_form():
    """Pyslvs' "Crank lifter": the slider S and the four-bar S-C-D as above, L3 carrying F; L5 pinned to L3 at F
    has a slot (angle 0 in its frame, through G0 at the start) in which L4's point G slides: the slot's normal
    n(phi5) keeps n . (G - F) = e5, e5 = (G0 - F0)_y, so phi5 = beta - pi + asin(e5 / rho) with G - F = rho
    (cos beta, sin beta) (the branch through phi5 = 0)."""
    expression = EXAMPLES["Crank lifter"]["expression"]
    doc = model_from_expression(expression)
    add_input_driver(doc, expression, 0, 1, 1.0)
    times = np.linspace(0.0, 2 * math.pi, 121)
    system, res = run_driven(doc, times)
    assert res.status.ok, res.message
    check_pyslvs_semantics(expression, doc, system, res.q)
    o, a0, s0, c0, d, f0, g0 = (mm(-67.38, 36.13), mm(-68.925, 55.925), mm(11.88, 0.0), mm(50.775, 24.7908),
                                mm(80.375, 8.625), mm(109.1972, 63.8805), mm(0.82, 64.42))
    r, l, e = np.linalg.norm(a0 - o), np.linalg.norm(s0 - a0), 0.0 - o[1]
    th = math.atan2(*(a0 - o)[::-1]) + times
    slider = np.column_stack([o[0] + r * np.cos(th) + np.sqrt(l ** 2 - (r * np.sin(th) - e) ** 2), 0 * times])
    side = np.sign(cross2(d - s0, c0 - s0))
    dd = np.tile(d, (len(times), 1))
    c = circle_intersection(slider, np.linalg.norm(c0 - s0), dd, np.linalg.norm(c0 - d), side)
    rot = lambda psi: np.moveaxis(rotation(psi), -1, 0)  # noqa: E731 (F, 2, 2)
    psi3 = np.arctan2(*(c - slider).T[::-1]) - math.atan2(*(c0 - s0)[::-1])
    f = slider + np.einsum("kij,j->ki", rot(psi3), f0 - s0)
    psi4 = np.arctan2(*(c - dd).T[::-1]) - math.atan2(*(c0 - d)[::-1])
    g = dd + np.einsum("kij,j->ki", rot(psi4), g0 - d)
    q = res.q
    for body, point, ref in (("L2", "J2", slider), ("L3", "J2", slider), ("L3", "J3", c), ("L4", "J3", c),
                             ("L3", "J5", f), ("L5", "J5", f), ("L4", "J6", g)):
        assert np.abs(world(doc, system, q, body, point) - ref).max() < POS_TOL, (body, point)
    rho_vec = g - f
    rho, beta = np.hypot(*rho_vec.T), np.arctan2(rho_vec[:, 1], rho_vec[:, 0])
    phi5 = beta - math.pi + np.arcsin((g0 - f0)[1] / rho)
    diff = np.angle(np.exp(1j * (angle(system, q, "L5") - phi5)))
    assert np.abs(diff).max() < ANGLE_TOL
    assert np.ptp(angle(system, q, "L5")) > 0.02  # the slotted link does swing (about 2.3 degrees)


def test_inverted_crank_slider_follows_the_closed_form():
    """Pyslvs' "Crank slider (Three bar)": the slot is on the coupler L2 (through G at angle 0 in its frame), the
    pin is the ground point G. n(phi2) . (G - A) = e = (G - A0)_y, so phi2 = beta - asin(e / rho) with G - A = rho
    (cos beta, sin beta), A the crank pin."""
    expression = EXAMPLES["Crank slider (Three bar)"]["expression"]
    doc = model_from_expression(expression)
    add_input_driver(doc, expression, 0, 1, 1.0)
    times = np.linspace(0.0, 2 * math.pi, 73)
    system, res = run_driven(doc, times)
    assert res.status.ok, res.message
    o, a0, g = mm(-30.0, -10.0), mm(-9.9986, 4.999), mm(65.0, -45.0)
    th = math.atan2(*(a0 - o)[::-1]) + times
    a = o + np.linalg.norm(a0 - o) * np.column_stack([np.cos(th), np.sin(th)])
    assert np.abs(world(doc, system, res.q, "L2", "J1") - a).max() < POS_TOL
    rho_vec = g - a
    phi2 = np.arctan2(rho_vec[:, 1], rho_vec[:, 0]) - np.arcsin((g - a0)[1] / np.hypot(*rho_vec.T))
    assert np.abs(np.angle(np.exp(1j * (angle(system, res.q, "L2") - phi2)))).max() < ANGLE_TOL
    assert np.abs(world(doc, system, res.q, "J2_slider", "c") - g).max() < POS_TOL  # the block on the ground pin


def test_slider_input_moves_the_pin_along_the_slot():
    """Pyslvs' "Slider lifter" driven by its input (0, 0): the pin of the RP joint 0 moves along the ground slot
    (A = 0) at 10 mm/s; L2 is pinned there and at J2 to L1, which turns about J1: J2 on circles about S and J1."""
    expression = EXAMPLES["Slider lifter"]["expression"]
    doc = model_from_expression(expression)
    add_input_driver(doc, expression, 0, 0, 0.01)
    times = np.linspace(0.0, 1.0, 21)
    system, res = run_driven(doc, times)
    assert res.status.ok, res.message
    check_pyslvs_semantics(expression, doc, system, res.q)
    slider = np.column_stack([0.01 * times, 0 * times])
    assert np.abs(world(doc, system, res.q, "L2", "J0") - slider).max() < POS_TOL
    j1, j2 = mm(50.0, 0.0), mm(25.0, 27.0)
    side = np.sign(cross2(j1 - 0, j2 - 0))
    ref = circle_intersection(slider, np.linalg.norm(j2), np.tile(j1, (len(times), 1)), np.linalg.norm(j2 - j1), side)
    assert np.abs(world(doc, system, res.q, "L1", "J2") - ref).max() < POS_TOL


def test_p_joint_pin_links_move_as_one():
    """A P joint of links (ground, block, flag): block and flag slide together on the ground slot without
    turning (a slider crank whose block carries a flag 50 mm above it); the block follows the closed form."""
    text = ("M[J[R, P[0, 0], L[ground, crank]], J[R, P[100, 0], L[crank, rod]], J[R, P[400, 0], L[rod, block]],"
            " J[P, A[0], P[400, 0], L[ground, block, flag]], J[R, P[400, 50], L[flag]]]")
    assert grubler_dof(text) == 1
    doc = model_from_expression(text)
    assert [j["type"] for j in doc["joints"]] == ["revolute", "revolute", "revolute", "prismatic", "weld"]
    add_speed_driver(doc, "J0", 2.0)
    times = np.linspace(0.0, math.pi, 31)
    system, res = run_driven(doc, times)
    assert res.status.ok, res.message
    check_pyslvs_semantics(text, doc, system, res.q)
    th = 2.0 * times
    x_b = 0.1 * np.cos(th) + np.sqrt(0.3 ** 2 - (0.1 * np.sin(th)) ** 2)
    assert np.abs(world(doc, system, res.q, "block", "J3")[:, 0] - x_b).max() < POS_TOL
    flag = world(doc, system, res.q, "flag", "J4")
    assert np.abs(flag - np.column_stack([x_b, 0.05 + 0 * x_b])).max() < POS_TOL


def test_imported_slider_crank_follows_the_closed_form():
    doc = model_from_expression(SLIDER_CRANK, scale=0.001)
    add_speed_driver(doc, "J0", 2 * math.pi)
    times = np.linspace(0.0, 1.0, 41)
    system, res = run_driven(doc, times)
    assert res.status.ok, res.message
    r, l = 0.1, 0.3
    th = 2 * math.pi * times
    x_b = r * np.cos(th) + np.sqrt(l ** 2 - (r * np.sin(th)) ** 2)
    slider_x = res.q[:, system.coord_names.index("J2_slider.x")]
    assert np.abs(slider_x - x_b).max() < POS_TOL


def test_imported_four_bar_keeps_its_link_lengths():
    doc = model_from_expression(FOUR_BAR, scale=0.01)
    add_speed_driver(doc, "J0", 1.0)
    system, res = run_driven(doc, np.linspace(0.0, 2.0, 21))
    assert res.status.ok, res.message
    a, b = world(doc, system, res.q, "link_0", "J1"), world(doc, system, res.q, "link_2", "J2")
    ground = doc["ground"]["points"]
    assert np.abs(np.linalg.norm(a - ground["J0"], axis=1) - math.hypot(0.1292, 0.3253)).max() < POS_TOL
    assert np.abs(np.linalg.norm(b - a, axis=1) - math.hypot(0.7328 - 0.1292, 0.6797 - 0.3253)).max() < POS_TOL
    assert np.abs(np.linalg.norm(b - ground["J4"], axis=1) - math.hypot(0.9 - 0.7328, 0.6797)).max() < POS_TOL
    assert res.q[-1, system.coord_names.index("link_0.phi")] == pytest.approx(2.0, abs=ANGLE_TOL)  # the driver


def test_input_pairs_that_cannot_be_driven_are_refused_by_name():
    expression = EXAMPLES["Crank rocker"]["expression"]
    doc = model_from_expression(expression)
    for (base, drive), words in (((0, 9), "joints 0 to 4"), ((0, 2), "share no link"), ((1, 1), "not a P or RP"),
                                 ((0, 4), "both on the ground")):
        with pytest.raises(ModelError) as err:
            add_input_driver(doc, expression, base, drive, 1.0)
        assert f"input pair ({base}, {drive})" in str(err.value) and words in str(err.value)
    assert doc["drivers"] == []


def test_an_input_pair_off_the_ground_turns_its_link():
    """Pyslvs' input angle is the absolute direction of the line base -> driver: the pair (2, 3) of "Crank slider
    (RP joint)" (the RP pin and a pin of L3) turns L3 itself; the crank follows."""
    expression = EXAMPLES["Crank slider (RP joint)"]["expression"]
    doc = model_from_expression(expression)
    assert add_input_driver(doc, expression, 2, 3, -0.2) == "input_2_3"
    assert doc["drivers"][0]["type"] == "coordinate" and doc["drivers"][0]["body"] == "L3"
    times = np.linspace(0.0, 1.0, 11)
    system, res = run_driven(doc, times)
    assert res.status.ok, res.message
    check_pyslvs_semantics(expression, doc, system, res.q)
    line = world(doc, system, res.q, "L3", "J3") - world(doc, system, res.q, "L3", "J2")
    turned = np.unwrap(np.arctan2(line[:, 1], line[:, 0]))
    assert np.abs(turned - turned[0] + 0.2 * times).max() < ANGLE_TOL
    assert np.ptp(angle(system, res.q, "L1")) > 0.05  # the crank moves


def test_a_ground_pivot_listed_second_is_driven_with_the_right_sign():
    """J[R, ..., L[crank, ground]]: the revolute's phi2 - phi1 is minus the crank's angle; the input pair still
    turns the crank counter-clockwise."""
    text = "M[J[R, P[0, 0], L[crank, ground]], J[R, P[10, 0], L[crank]]]"
    doc = model_from_expression(text)
    add_input_driver(doc, text, 0, 1, 0.5)
    system, res = run_driven(doc, np.linspace(0.0, 1.0, 3))
    assert res.status.ok, res.message
    assert angle(system, res.q, "crank")[-1] == pytest.approx(0.5, abs=ANGLE_TOL)


def test_import_command_writes_a_valid_model(tmp_path, capsys):
    out = tmp_path / "crank.json"
    rc = main(["import", SLIDER_CRANK, "--out", str(out), "--drive", "J0:6.283185307179586"])
    assert rc == 0
    doc = json.loads(out.read_text())
    assert [j["type"] for j in doc["joints"]] == ["revolute", "revolute", "prismatic", "revolute"]
    expr_file = tmp_path / "M.txt"  # a file whose name starts like an expression
    expr_file.write_text(EXAMPLES["Slider lifter"]["expression"])
    assert main(["import", str(expr_file), "--out", str(out), "--input", "0,0:0.01", "--drive", "J1:0.1"]) == 0
    doc = json.loads(out.read_text())
    assert [(d["type"], d["joint"]) for d in doc["drivers"]] == [("joint_angle", "J1"), ("joint_distance", "J0_slot")]
    assert doc["name"] == "M"
    capsys.readouterr()
    for args, words in ((["--drive", "J9:1.0"], "no revolute or prismatic joint 'J9'"),
                        (["--drive", "J0:fast"], "--drive"), (["--input", "0:1"], "--input"),
                        (["--input", "0,1,2:1"], "--input"), (["--input", "0,7:1"], "input pair (0, 7)")):
        rc = main(["import", SLIDER_CRANK, "--out", "-", *args])
        out_text, err = capsys.readouterr()
        assert rc == 2 and out_text == "" and words in err, (args, err)
    rc = main(["import", "M[J[R, P[0, 0], L[ground, a]", "--out", "-"])
    out_text, err = capsys.readouterr()
    assert rc == 2 and out_text == "" and "<expression>:/: error: line 1" in err


def test_far_away_joints_and_bad_scales_are_refused_by_joint():
    with pytest.raises(ModelError) as err:
        model_from_expression("M[J[R, P[0, 0], L[ground, a]],\n J[R, P[1e308, 0], L[a, b]]]")
    assert "line 2, column 2: joint 1: position P[1e+308, 0] at scale 0.001 m is beyond 1000 m" in str(err.value)
    with pytest.raises(ModelError, match="scale must be a positive number"):
        model_from_expression(SLIDER_CRANK, scale=float("nan"))


def test_mutated_examples_give_a_model_or_diagnostics():
    """400 seeded mutants of Pyslvs' examples: joint types swapped (R, P, RP at any angle), links renamed (to
    another link, the ground or a new name, links of one joint doubled), numbers made extreme, and text-level
    insertions, cuts and duplications. Each is imported, validated, compiled and assembled, or refused with a
    ModelError."""
    import random
    import re
    rng = random.Random(28)
    pieces = ["[", "]", ",", "(", ")", "#", "#[", "#]", "\n", "-", "1e999", "nan", "color[Red]", "color[(1,2,3)]",
              "L[]", "P[0,0]", "J[", "\udcff", "\x00"]
    numbers = ["0", "-0", "1e-300", "1e300", "1e5", "-3.5", "360"]
    expressions = [v["expression"] for v in ALL.values()]

    def sub_one(pattern: str, make, text: str) -> str:
        spots = list(re.finditer(pattern, text))
        if not spots:
            return text
        m = rng.choice(spots)
        return text[:m.start()] + make(m) + text[m.end():]

    outcomes = {"model": 0, "refused": 0}
    for _ in range(400):
        s = rng.choice(expressions)
        names = sorted(set(re.findall(r"\b(?:L|link_)\d+\b", s))) + ["ground", "extra"]
        for _ in range(rng.randint(1, 3)):
            op = rng.random()
            if op < 0.25:
                s = sub_one(r"J\[R, ", lambda m: rng.choice(["J[RP, A[45.0], ", "J[P, A[90], ", "J[RP, A[0], "]), s)
            elif op < 0.5:
                s = sub_one(r"\b(?:L|link_)\d+\b", lambda m: rng.choice(names + [m.group() + ", " + m.group()]), s)
            elif op < 0.65:
                s = sub_one(r"-?\d+\.?\d*", lambda m: rng.choice(numbers), s)
            else:
                i, op = rng.randrange(len(s) + 1), rng.random()
                if op < 0.4:
                    s = s[:i] + rng.choice(pieces) + s[i:]
                elif op < 0.7:
                    s = s[:i] + s[i + rng.randint(1, 8):]
                else:
                    j = rng.randrange(len(s) + 1)
                    s = s[:i] + s[min(i, j):max(i, j)] + s[i:]
        try:
            system = compile_model(model_from_data(model_from_expression(s)))
            assemble(system, system.initial_guess(), 0.0)
            outcomes["model"] += 1
        except ModelError as exc:
            assert exc.diagnostics and all(d.message for d in exc.diagnostics)
            outcomes["refused"] += 1
    assert min(outcomes.values()) > 40, outcomes  # both kinds occur: the mutants reach past the parser
