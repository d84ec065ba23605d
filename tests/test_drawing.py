"""Drawings to SVG and DXF (core.drawing) and the ``draw`` command.

Read back with independent parsers: ezdxf reads the DXF (layers per body, one LWPOLYLINE per trace on layer
``traces``, units metres), xml.etree parses the SVG (one <polyline> per trace). Coordinates are compared with
positions computed here by hand from the pose columns (x, y, phi) of the same configurations; both files carry
full double precision, so 1e-12 m (rounding of two evaluation orders) is the tolerance.
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import ezdxf
import numpy as np
import pytest

from conftest import SAMPLES
from mechstudio.core.drawing import build_drawing, export_drawing
from mechstudio.core.errors import UnknownNameError
from mechstudio.core.model import loads_model
from mechstudio.core.systems.points import PointTracer, parse_point_names
from mechstudio.core.run.results import read_csv
from mechstudio.core.systems.compile import compile_model
from test_points import OMEGA, driven_four_bar, pose_point
from test_points_cli import run_cli

SVG = "{http://www.w3.org/2000/svg}"
FRAME = 13  # the drawn configuration (t = 0.65 s)


@pytest.fixture(scope="module")
def four_bar():
    model, system, res = driven_four_bar(3.2, 65)
    tracer = PointTracer(system, parse_point_names(model, "coupler.P,rocker.b"))
    traces = {n: tracer.trace(res.q, n) for n in tracer.names}
    return model, system, res, traces


def svg_points(text):
    return np.array([[float(v) for v in p.split(",")] for p in text.split()])


def test_dxf_reads_back_with_layers_traces_and_metres(four_bar, tmp_path):
    model, system, res, traces = four_bar
    path = tmp_path / "four_bar.dxf"
    export_drawing(path, system, res.q[FRAME], traces)
    doc = ezdxf.readfile(path)
    assert doc.header["$INSUNITS"] == 6  # metres
    layers = {lay.dxf.name for lay in doc.layers}
    assert {"body.crank", "body.coupler", "body.rocker", "ground", "joints", "traces"} <= layers
    msp = doc.modelspace()
    polylines = msp.query('LWPOLYLINE[layer=="traces"]')
    assert len(polylines) == 2
    by_name = {e.get_xdata("MECHSTUDIO")[0].value: e for e in polylines}
    expected = {"coupler.P": pose_point(system, res.q, "coupler", (1.2, 0.8), (1.75, 0.0)),
                "rocker.b": pose_point(system, res.q, "rocker", (3.0, 0.0), (1.5, 0.0))}
    assert set(by_name) == set(expected)
    for name, e in by_name.items():
        assert not e.closed
        np.testing.assert_allclose(np.array(e.get_points("xy")), expected[name], atol=1e-12)
    assert by_name["coupler.P"].rgb == (0x5c, 0xb8, 0x5c)  # the coupler's colour
    assert len(msp.query("LWPOLYLINE POLYLINE")) == 2  # the traces are the only polylines
    # the crank's bar outline in the drawn pose: two sides 0.03 m (half the width) off the axis O-A, parallel
    # to it and as long, and two half circles of radius 0.03 m round O and A, turning outwards
    a = np.zeros(2)
    b = pose_point(system, res.q[FRAME], "crank", (1.0, 0.0), (0.5, 0.0))
    u = (b - a) / np.linalg.norm(b - a)
    sides = msp.query('LINE[layer=="body.crank"]')
    assert len(sides) == 2
    for e in sides:
        p, r = np.array(tuple(e.dxf.start)[:2]), np.array(tuple(e.dxf.end)[:2])
        for v in (p - a, r - a):  # distance from the axis: |u x v|
            assert abs(abs(u[0] * v[1] - u[1] * v[0]) - 0.03) < 1e-12
        assert abs(abs((r - p) @ u) - 1.0) < 1e-12
    arcs = sorted(msp.query('ARC[layer=="body.crank"]'), key=lambda e: abs(e.dxf.center[0]))
    assert len(arcs) == 2 and all(abs(e.dxf.radius - 0.03) < 1e-15 for e in arcs)
    for e, centre, outward in zip(arcs, (a, b), (-u, u)):
        np.testing.assert_allclose(tuple(e.dxf.center)[:2], centre, atol=1e-12)
        mid = math.radians(e.dxf.start_angle + 90.0)  # counter-clockwise half circle: its middle
        np.testing.assert_allclose([math.cos(mid), math.sin(mid)], outward, atol=1e-12)
    # a pin symbol at every joint: the crank tip (cos th, sin th) of the driver at t = 0.65 s among them
    centres = np.array([tuple(c.dxf.center)[:2] for c in msp.query('CIRCLE[layer=="joints"]')])
    th = math.pi / 3 + OMEGA * res.t[FRAME]
    assert len(centres) == 4
    assert np.min(np.linalg.norm(centres - [math.cos(th), math.sin(th)], axis=1)) < 1e-8


def test_svg_parses_with_one_polyline_per_trace(four_bar, tmp_path):
    model, system, res, traces = four_bar
    path = tmp_path / "four_bar.svg"
    export_drawing(path, system, res.q[FRAME], traces)
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    polylines = root.findall(f".//{SVG}polyline")
    assert len(polylines) == 2
    got = {p.get("data-point"): svg_points(p.get("points")) for p in polylines}
    np.testing.assert_allclose(got["coupler.P"], pose_point(system, res.q, "coupler", (1.2, 0.8), (1.75, 0.0)),
                               atol=1e-12)
    np.testing.assert_allclose(got["rocker.b"], pose_point(system, res.q, "rocker", (3.0, 0.0), (1.5, 0.0)),
                               atol=1e-12)
    # y up: the layers sit in a scale(1,-1) group; the viewBox (metres) holds every trace point once flipped
    (flip,) = root.findall(f"{SVG}g")
    assert flip.get("transform") == "scale(1,-1)"
    x0, y0, w, h = (float(v) for v in root.get("viewBox").split())
    for pts in got.values():
        assert np.all((pts[:, 0] > x0) & (pts[:, 0] < x0 + w) & (-pts[:, 1] > y0) & (-pts[:, 1] < y0 + h))
    ids = [g.get("id") for g in flip.findall(f"{SVG}g")]
    assert ids == ["body.crank", "body.coupler", "body.rocker", "ground", "joints", "traces"]


def test_spatial_drawing_is_the_front_view():
    model = loads_model((SAMPLES / "spherical_chain_3.json").read_text(), "chain")
    system = compile_model(model)
    rng = np.random.default_rng(3)
    qs = np.array([system.initial_guess() + rng.normal(0.0, 0.1, system.n) for _ in range(4)])
    tracer = PointTracer(system)
    name = tracer.names[-1]
    body, _, point = name.partition(".")
    drawing = build_drawing(system, qs[0], {name: tracer.trace(qs, name)})
    (trace,) = drawing.traces
    expected = np.array([system.point_position(q, body, model.entities.body(body).points[point]) for q in qs])
    np.testing.assert_allclose(trace.points, expected[:, [0, 2]], atol=1e-12)


def test_unknown_format_leaves_the_target_untouched(four_bar, tmp_path):
    model, system, res, traces = four_bar
    path = tmp_path / "keep.pdf"
    path.write_text("old")
    with pytest.raises(UnknownNameError, match="valid names: dxf, svg"):
        export_drawing(path, system, res.q[0], traces)
    assert path.read_text() == "old"
    export_drawing(path, system, res.q[0], traces, fmt="svg")  # an explicit format wins over the suffix
    assert ET.parse(path).getroot().tag == f"{SVG}svg"


# ---- the draw command --------------------------------------------------------------------------------------
def test_draw_command_kinematics_dxf_and_svg_to_stdout(tmp_path, capsys):
    model = SAMPLES / "slider_crank_driven.json"
    out = tmp_path / "sc.dxf"
    rc, stdout, err = run_cli(["draw", model, "--t", "0.125", "--traces", "--out", out], capsys)
    assert rc == 0, err
    assert "kinematic analysis" in stdout and "t = 0.125 s" in stdout
    doc = ezdxf.readfile(out)
    msp = doc.modelspace()
    assert len(msp.query('LWPOLYLINE[layer=="traces"]')) == 5  # every named point of the three bodies
    # drawn exactly at t = 0.125 s: crank at 2 pi t = 45 deg, its tip a joint centre
    centres = np.array([tuple(c.dxf.center)[:2] for c in msp.query('CIRCLE[layer=="joints"]')])
    th = 2 * math.pi * 0.125
    assert np.min(np.linalg.norm(centres - [math.cos(th), math.sin(th)], axis=1)) < 1e-8
    # the slider's trace: x_B = r cos th + sqrt(l^2 - r^2 sin^2 th), y = 0 (closed form of the sample)
    (slider,) = [e for e in msp.query('LWPOLYLINE[layer=="traces"]') if e.get_xdata("MECHSTUDIO")[0].value == "slider.c"]
    pts = np.array(slider.get_points("xy"))
    tk = np.union1d(np.linspace(0.0, 2.0, 201), [0.125])  # the outputs and the drawn time
    assert len(pts) == len(tk)
    thk = 2 * math.pi * tk
    np.testing.assert_allclose(pts[:, 0], np.cos(thk) + np.sqrt(9.0 - np.sin(thk) ** 2), atol=1e-8)
    np.testing.assert_allclose(pts[:, 1], 0.0, atol=1e-8)
    rc, stdout, err = run_cli(["draw", model, "--t", "0.5", "--points", "rod.b", "--out", "-"], capsys)
    assert rc == 0 and "wrote standard output" in err
    root = ET.fromstring(stdout)
    assert [p.get("data-point") for p in root.iter(f"{SVG}polyline")] == ["rod.b"]


def test_draw_command_dynamics_without_traces(tmp_path, capsys):
    out = tmp_path / "fb.svg"
    rc, stdout, err = run_cli(["draw", SAMPLES / "four_bar.json", "--t", "0.104", "--t-end", "0.2", "--out", out],
                              capsys)
    assert rc == 0, err
    assert "dynamics run" in stdout and "t = 0.1 s (the output frame nearest t = 0.104 s)" in stdout
    root = ET.parse(out).getroot()
    assert not root.findall(f".//{SVG}polyline")
    assert len(root.findall(f".//{SVG}path")) == 3  # the three bars' outlines


@pytest.mark.parametrize("argv, rc_expected, message", [
    (["--points", "coupler.zz", "--out", "X.svg"], 2, "argument --points: point 'coupler.zz'"),
    (["--out", "X.png"], 2, "argument --out: cannot tell the drawing format"),
    (["--t", "-0.5", "--out", "X.svg"], 2, "argument --t: must be a number >= 0"),
    (["--from", "kinematics", "--out", "X.svg"], 3, "kinematic analysis failed, nothing written"),
])
def test_draw_command_errors(argv, rc_expected, message, tmp_path, capsys):
    argv = [str(tmp_path / a) if a.startswith("X.") else a for a in argv]
    rc, stdout, err = run_cli(["draw", SAMPLES / "four_bar.json", *argv], capsys)
    assert rc == rc_expected and stdout == ""
    assert message in err, err
    assert not list(tmp_path.iterdir())  # nothing written


def test_draw_from_a_results_table(tmp_path, capsys):
    model, csv, out = SAMPLES / "four_bar.json", tmp_path / "run.csv", tmp_path / "fb.svg"
    rc, _, err = run_cli(["simulate", model, "--t-end", "0.5", "--out", csv, "-q"], capsys)
    assert rc == 0, err
    rc, stdout, err = run_cli(["draw", model, "--results", csv, "--t", "0.3", "--points", "coupler.b", "--out", out],
                              capsys)
    assert rc == 0, err
    assert f"from the results table {csv}" in stdout and "over 0..0.5 s" in stdout
    (poly,) = ET.parse(out).getroot().iter(f"{SVG}polyline")
    cols = read_csv(csv)
    np.testing.assert_array_equal(svg_points(poly.get("points")),
                                  np.column_stack([cols["point.coupler.b.x"], cols["point.coupler.b.y"]]))
    # the coupler's pin symbol sits where the table puts coupler.b at t = 0.3 s
    row = int(np.argmin(np.abs(cols["t"] - 0.3)))
    centres = np.array([[float(c.get("cx")), float(c.get("cy"))]
                        for c in ET.parse(out).getroot().find(f".//{SVG}g[@id='joints']").iter(f"{SVG}circle")])
    at = [cols["point.coupler.b.x"][row], cols["point.coupler.b.y"][row]]
    assert np.min(np.linalg.norm(centres - at, axis=1)) < 1e-12


def test_draw_from_a_results_table_of_another_model_is_refused(tmp_path, capsys):
    csv = tmp_path / "run.csv"
    rc, _, err = run_cli(["kinematics", SAMPLES / "slider_crank_driven.json", "--t-end", "0.1", "--out", csv, "-q"],
                         capsys)
    assert rc == 0, err
    rc, stdout, err = run_cli(["draw", SAMPLES / "four_bar.json", "--results", csv, "--out", tmp_path / "x.svg"],
                              capsys)
    assert rc == 2 and stdout == ""
    assert f"argument --results: {csv}: no column q.coupler.x" in err, err
    rc, _, err = run_cli(["draw", SAMPLES / "four_bar.json", "--results", csv, "--from", "simulate",
                          "--out", tmp_path / "x.svg"], capsys)
    assert rc == 2 and "not allowed with argument" in err
    assert not (tmp_path / "x.svg").exists()
