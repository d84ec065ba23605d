"""Point columns of result tables: ``kinematics`` and ``simulate`` with ``--points`` / ``--no-points``.

The coupler-curve check of issue 15: a four-bar's coupler point column equals the position computed by hand
from the same row's x, y, phi columns with the rotation matrix written out, at every output (1e-12 m: the CSV
is written repr-exact, so only the rounding of the two evaluation orders differs); spatial too, with R = Rz Rx Rz
multiplied out here.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from cli_helpers import run_cli
from conftest import SAMPLES
from mechstudio.core.run.results import read_csv
from test_points import driven_four_bar_data



def coupler_by_hand(cols, body="coupler", local=(1.2, 0.8), com=(1.75, 0.0)):
    x, y, phi = cols[f"q.{body}.x"], cols[f"q.{body}.y"], cols[f"q.{body}.phi"]
    dx, dy = local[0] - com[0], local[1] - com[1]
    return x + np.cos(phi) * dx - np.sin(phi) * dy, y + np.sin(phi) * dx + np.cos(phi) * dy


@pytest.fixture
def driven_file(tmp_path):
    path = tmp_path / "four_bar_driven.json"
    path.write_text(json.dumps(driven_four_bar_data()))
    return path


def test_kinematics_gives_the_coupler_curve(driven_file, tmp_path, capsys):
    out = tmp_path / "k.csv"
    rc, _, err = run_cli(["kinematics", driven_file, "--t-end", "3.2", "--dt", "0.05", "--out", out, "-q"], capsys)
    assert rc == 0, err
    cols = read_csv(out)
    names = list(cols)
    # every named point by default, after the documented kinematic columns, in file order
    assert names[names.index("violation.position") + 1:] == [
        f"point.{p}.{a}" for p in ("crank.a", "crank.b", "coupler.a", "coupler.b", "coupler.P", "rocker.a",
                                   "rocker.b") for a in "xy"]
    px, py = coupler_by_hand(cols)
    assert len(px) == 65  # a full crank turn (3.2 s at 2 rad/s) and more
    np.testing.assert_allclose(cols["point.coupler.P.x"], px, atol=1e-12)
    np.testing.assert_allclose(cols["point.coupler.P.y"], py, atol=1e-12)
    # the crank tip follows the driver's closed form (assembly tolerance)
    th = math.pi / 3 + 2.0 * cols["t"]
    np.testing.assert_allclose(cols["point.crank.b.x"], np.cos(th), atol=1e-8)
    np.testing.assert_allclose(cols["point.crank.b.y"], np.sin(th), atol=1e-8)


def test_simulate_point_columns_selection_and_none(tmp_path, capsys):
    model = SAMPLES / "four_bar.json"
    out = tmp_path / "s.csv"
    rc, _, err = run_cli(["simulate", model, "--t-end", "0.3", "--out", out, "-q",
                          "--points", "coupler.b, crank.b"], capsys)
    assert rc == 0, err
    cols = read_csv(out)
    assert [c for c in cols if c.startswith("point.")] == ["point.coupler.b.x", "point.coupler.b.y",
                                                            "point.crank.b.x", "point.crank.b.y"]
    bx, by = coupler_by_hand(cols, local=(3.5, 0.0))
    np.testing.assert_allclose(cols["point.coupler.b.x"], bx, atol=1e-12)
    np.testing.assert_allclose(cols["point.coupler.b.y"], by, atol=1e-12)
    rc, _, err = run_cli(["simulate", model, "--t-end", "0.1", "--out", out, "-q", "--no-points"], capsys)
    assert rc == 0, err
    assert not [c for c in read_csv(out) if c.startswith("point.")]
    rc, _, err = run_cli(["simulate", model, "--t-end", "0.1", "--out", out, "-q"], capsys)
    assert rc == 0 and len([c for c in read_csv(out) if c.startswith("point.")]) == 12


def test_spatial_point_columns_have_z(tmp_path, capsys):
    data = json.loads((SAMPLES / "rolling_disk.json").read_text())
    data["bodies"][0]["points"]["rim"] = [0.5, 0.0, 0.0]
    model = tmp_path / "disk.json"
    model.write_text(json.dumps(data))
    out = tmp_path / "d.csv"
    rc, _, err = run_cli(["simulate", model, "--t-end", "0.5", "--out", out, "-q", "--points", "disk.rim"], capsys)
    assert rc == 0, err
    cols = read_csv(out)
    assert [c for c in cols if c.startswith("point.")] == ["point.disk.rim.x", "point.disk.rim.y", "point.disk.rim.z"]
    psi, th, ph = (cols[f"q.disk.{a}"] for a in ("psi", "theta", "phi"))
    # R = Rz(psi) Rx(theta) Rz(phi) applied to (0.5, 0, 0) (com at the origin): R[:, 0] * 0.5
    r0 = np.stack([np.cos(psi) * np.cos(ph) - np.sin(psi) * np.cos(th) * np.sin(ph),
                   np.sin(psi) * np.cos(ph) + np.cos(psi) * np.cos(th) * np.sin(ph),
                   np.sin(th) * np.sin(ph)])
    for k, a in enumerate("xyz"):
        np.testing.assert_allclose(cols[f"point.disk.rim.{a}"], cols[f"q.disk.{a}"] + 0.5 * r0[k], atol=1e-12)
    # the rim point stays on the disk: at the radius from the centre
    d = np.linalg.norm(np.stack([cols[f"point.disk.rim.{a}"] - cols[f"q.disk.{a}"] for a in "xyz"]), axis=0)
    np.testing.assert_allclose(d, 0.5, atol=1e-12)


@pytest.mark.parametrize("command", ["simulate", "kinematics"])
@pytest.mark.parametrize("points, expected", [
    ("crank.zz", "body 'crank' has no point named 'zz'; its points: a, b"),
    ("crnak.b", "no body named 'crnak'; bodies with named points: crank, coupler, rocker"),
    ("crank", "is not of the form body.point"),
    ("ground.O", "the ground's points do not move"),
])
def test_bad_point_selection_exits_2_naming_the_valid_ones(command, points, expected, capsys):
    rc, out, err = run_cli([command, SAMPLES / "four_bar.json", "--t-end", "0.1", "--points", points], capsys)
    assert rc == 2 and out == ""
    assert "error: argument --points:" in err and expected in err, err


def test_points_and_no_points_exclude_each_other(capsys):
    rc, out, err = run_cli(["simulate", SAMPLES / "four_bar.json", "--points", "crank.b", "--no-points"], capsys)
    assert rc == 2 and "not allowed with argument" in err
