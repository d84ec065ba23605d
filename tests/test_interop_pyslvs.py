"""Import of Pyslvs mechanism expressions (issue 18). Checked against closed forms: the imported slider-crank
driven at constant speed puts the slider at x_B = r cos(th) + sqrt(l^2 - r^2 sin^2(th)); the imported four-bar keeps
every link length during its motion. Syntax errors are diagnostics with line and column."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mechstudio.core.errors import ModelError
from mechstudio.core.interop.pyslvs import add_speed_driver, model_from_expression, parse_expression
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.model import model_from_data
from mechstudio.core.systems.compile import compile_model
from mechstudio.gui.cli import main

SLIDER_CRANK = """M[
  J[R, color[Green], P[0.0, 0.0], L[ground, crank]],
  J[R, color[Green], P[100.0, 0.0], L[crank, rod]],
  J[RP, A[0.0], color[Green], P[400.0, 0.0], L[ground, rod]],
]"""
FOUR_BAR = ("M[J[R, color[Green], P[0.0, 0.0], L[ground, link_0]], J[R, color[Green], P[12.92, 32.53], "
            "L[link_0, link_1]], J[R, color[Green], P[73.28, 67.97], L[link_1, link_2]], J[R, color[Green], "
            "P[33.3, 66.95], L[link_1]], J[R, color[Green], P[90.0, 0.0], L[ground, link_2]]]")


def test_parser_reads_types_angles_positions_and_links():
    joints = parse_expression(SLIDER_CRANK)
    assert [(j.kind, j.angle_deg, j.position, j.links) for j in joints] == [
        ("R", 0.0, (0.0, 0.0), ["ground", "crank"]), ("R", 0.0, (100.0, 0.0), ["crank", "rod"]),
        ("RP", 0.0, (400.0, 0.0), ["ground", "rod"])]


def test_imported_slider_crank_follows_the_closed_form():
    doc = model_from_expression(SLIDER_CRANK, scale=0.001)
    add_speed_driver(doc, "J0", 2 * math.pi)
    system = compile_model(model_from_data(doc))
    times = np.linspace(0.0, 1.0, 41)
    res = driven_motion(system, times)
    assert res.status.ok, res.message
    r, l = 0.1, 0.3
    th = 2 * math.pi * times
    x_b = r * np.cos(th) + np.sqrt(l ** 2 - (r * np.sin(th)) ** 2)
    slider_x = res.q[:, system.coord_names.index("J2_slider.x")]
    assert np.abs(slider_x - x_b).max() < 1e-9  # the assembly tolerance, far below the 0.1 m crank


def test_imported_four_bar_keeps_its_link_lengths():
    doc = model_from_expression(FOUR_BAR, scale=0.01)
    add_speed_driver(doc, "J0", 1.0)
    model = model_from_data(doc)
    system = compile_model(model)
    res = driven_motion(system, np.linspace(0.0, 2.0, 21))
    assert res.status.ok, res.message
    bodies = {b["name"]: b for b in doc["bodies"]}

    def world(k, body, point):
        i = system.coord_names.index(f"{body}.x")
        x, y, phi = res.q[k, i:i + 3]
        com = bodies[body]["com"]
        px, py = (np.array(bodies[body]["points"][point]) - com)
        return np.array([x + math.cos(phi) * px - math.sin(phi) * py, y + math.sin(phi) * px + math.cos(phi) * py])

    ground = doc["ground"]["points"]
    for k in range(len(res.t)):
        a, b = world(k, "link_0", "J1"), world(k, "link_2", "J2")
        assert np.linalg.norm(a - ground["J0"]) == pytest.approx(math.hypot(0.1292, 0.3253), abs=1e-9)
        assert np.linalg.norm(b - a) == pytest.approx(math.hypot(0.7328 - 0.1292, 0.6797 - 0.3253), abs=1e-9)
        assert np.linalg.norm(b - ground["J4"]) == pytest.approx(math.hypot(0.9 - 0.7328, 0.6797), abs=1e-9)
    assert res.q[-1, system.coord_names.index("link_0.phi")] == pytest.approx(2.0, abs=1e-9)  # the driver


@pytest.mark.parametrize("text, where", [
    ("M[J[R, P[0, 0], L[ground, a]", "line 1, column 29"),
    ("M[\n  J[Q, P[0, 0], L[ground, a]]]", "line 2, column 5"),
    ("M[J[R, P[0], L[ground, a]]]", "line 1, column 11"),
    ("M[J[R, P[0, 0], L[ground, a]]] extra", "line 1, column 32"),
    ("M[J[R, P[0, 0], L[ground, a]] $", "line 1, column 31"),
])
def test_syntax_errors_name_line_and_column(text, where):
    with pytest.raises(ModelError) as err:
        parse_expression(text)
    assert where in err.value.diagnostics[0].message


def test_import_command_writes_a_valid_model(tmp_path, capsys):
    out = tmp_path / "crank.json"
    rc = main(["import", SLIDER_CRANK, "--out", str(out), "--drive", "J0:6.283185307179586"])
    assert rc == 0
    doc = json.loads(out.read_text())
    assert [j["type"] for j in doc["joints"]] == ["revolute", "revolute", "prismatic", "revolute"]
    capsys.readouterr()
    rc = main(["import", SLIDER_CRANK, "--out", "-", "--drive", "J9:1.0"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and "no revolute joint 'J9'" in err
    rc = main(["import", SLIDER_CRANK, "--out", "-", "--drive", "J0:fast"])
    out, err = capsys.readouterr()
    assert rc == 2 and "--drive" in err
    rc = main(["import", "M[J[R, P[0, 0], L[ground, a]", "--out", "-"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and "<expression>:/: error: line 1" in err
