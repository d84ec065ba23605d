"""``mechstudio synthesize`` end to end (targets from CSV, JSON and a model's traced point; the model written
atomically and checked by driving it with the kinematic solver; function generation; bad input and exit statuses;
a search on two Dask workers) and the benchmark suite ``mechstudio bench --suite synthesis``.

Tolerances as tests/test_analysis_synthesis.py: every target within 1e-4 of the longest link (ACCEPT), checked by
the kinematic solver on the written file. The Dask runs use at most two workers and close their cluster.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from cli_helpers import run_cli
from mechstudio.core.analysis.synthesis_fourbar import FourBarGeometry
from mechstudio.core.analysis.synthesis_model import four_bar_model_data
from mechstudio.core.bench import SUITES, get_suite
from synthesis_helpers import ACCEPT, check_model_file, known_targets, model_path

SAMPLE = FourBarGeometry(0.0, 0.0, 0.0, 4.0, 1.0, 3.5, 3.0, 1.2, 1.0, 1)
THETA = 0.3 + 2 * math.pi * np.arange(7) / 8


def write_csv(path, rows, header="x,y"):
    path.write_text(header + "\n" + "\n".join(",".join(repr(float(v)) for v in r) for r in rows) + "\n",
                    encoding="utf-8")
    return path



def report_angles(out: str) -> np.ndarray:
    line = next(ln for ln in out.splitlines() if "crank angles [deg]:" in ln)
    return np.radians([float(v) for v in line.split(":", 1)[1].split(",")])


def test_csv_targets_to_a_model_that_passes_through_them(tmp_path, capsys):
    targets = model_path(SAMPLE, THETA)
    out_file = tmp_path / "four_bar.json"
    rc, out, err = run_cli(["synthesize", write_csv(tmp_path / "t.csv", targets), "--out", out_file, "--seed", "1"],
                           capsys)
    assert rc == 0, err
    assert out.startswith("converged:") and "links: ground" in out and "Grashof:" in out and "search:" in out
    assert f"wrote {out_file}" in err
    assert check_model_file(out_file, targets, report_angles(out)) <= ACCEPT


def test_json_targets_with_crank_angles_in_degrees_keep_the_timing(tmp_path, capsys):
    rng = np.random.default_rng(3)
    _, theta, targets = known_targets(rng, "double-rocker", 6, uneven=True)
    source = tmp_path / "t.json"
    source.write_text(json.dumps({"targets": targets.tolist(), "crank_angles_deg": np.degrees(theta).tolist()}),
                      encoding="utf-8")
    out_file = tmp_path / "m.json"
    rc, out, err = run_cli(["synthesize", source, "--out", out_file], capsys)
    assert rc == 0, err
    angles = report_angles(out)
    np.testing.assert_allclose(np.diff(angles), np.diff(theta), atol=1e-7)  # printed to 9 digits in degrees
    assert check_model_file(out_file, targets, angles) <= 1e-4


def test_targets_from_a_models_traced_point_and_the_model_on_standard_output(tmp_path, capsys):
    known = tmp_path / "known.json"
    known.write_text(json.dumps(four_bar_model_data(SAMPLE, 0.3, 0.3 + 1.5 * math.pi, speed=1.0)), encoding="utf-8")
    rc, out, err = run_cli(["synthesize", known, "--point", "coupler.P", "--count", "7", "--out", "-"], capsys)
    assert rc == 0, err
    data = json.loads(out)  # the model alone on standard output, the report on standard error
    assert data["format"] == "mechanism-studio-model" and "converged:" in err
    names = {b["name"]: b for b in data["bodies"]}
    assert set(names) == {"crank", "coupler", "rocker"} and "P" in names["coupler"]["points"]


def test_function_generation_from_a_csv_in_degrees(tmp_path, capsys):
    theta = np.linspace(20.0, 140.0, 6)
    a, b, c, d = 0.45, 1.2, 0.9, 1.0
    g = FourBarGeometry(0.0, 0.0, 0.0, d, a, b, c, 0.5 * b, 0.0, 1)
    psi = np.degrees(g.angles(np.radians(theta))[1])
    source = write_csv(tmp_path / "f.csv", np.stack([theta - theta[0], psi - psi[0]], -1), "input_deg,output_deg")
    rc, out, err = run_cli(["synthesize", source, "--function", "--out", tmp_path / "f.json"], capsys)
    assert rc == 0, err
    assert "output angle error" in out and (tmp_path / "f.json").exists()


@pytest.mark.parametrize("content, fragment", [
    ("x,y\n0,0\n1,zero\n", "line 3, column y: expected a finite number"),
    ("x,y,speed\n0,0,1\n", "unknown column 'speed'"),
    ("x,y\n0,0\n1,0\n1,1\n0,1\n", "4 targets given; at least 5"),
    ("x,y\n0,0\n1,0\n1,1\n0,1\n1,0\n", "targets 2 and 5 are the same point"),
    ('{"targets": [[0, 0], [1, "a"]]}', "/targets/1/1: error: expected a finite number"),
    ('{"points": []}', "/points: error: expected a list of [x, y] points"),
    ('{"spots": []}', 'expected "targets"'),
    ('{"targets": [[0, 0], [1, 0], [1, 1], [0, 1], [2, 2]], "crank_angles": [0, 1]}', "2 crank angles given"),
    ("{not json", "invalid JSON"),
])
def test_bad_targets_exit_2_naming_the_file_and_the_problem(tmp_path, capsys, content, fragment):
    source = tmp_path / ("t.json" if content.lstrip().startswith("{") else "t.csv")
    source.write_text(content, encoding="utf-8")
    rc, out, err = run_cli(["synthesize", source, "--out", tmp_path / "m.json"], capsys)
    assert rc == 2 and out == "" and not (tmp_path / "m.json").exists()
    assert str(source) in err and fragment in err


def test_a_budget_that_runs_out_exits_3_and_writes_the_closest_linkage(tmp_path, capsys):
    rng = np.random.default_rng(8)
    _, _, targets = known_targets(rng, "triple-rocker", 8, uneven=True)
    out_file = tmp_path / "closest.json"
    rc, out, err = run_cli(["synthesize", write_csv(tmp_path / "t.csv", targets), "--tolerance", "1e-300",
                            "--max-evaluations", "1", "--out", out_file], capsys)
    assert rc == 3 and "max_iter:" in err and "closest" in err
    assert out_file.exists()


def test_missing_file_exits_2(tmp_path, capsys):
    rc, _, err = run_cli(["synthesize", tmp_path / "none.csv"], capsys)
    assert rc == 2 and "none.csv" in err


def test_two_dask_workers_give_the_linkage_of_one_process(tmp_path, capsys):
    source = write_csv(tmp_path / "t.csv", model_path(SAMPLE, THETA))
    rc1, out1, err1 = run_cli(["synthesize", source, "--seed", "4", "--out", tmp_path / "one.json"], capsys)
    rc2, out2, err2 = run_cli(["synthesize", source, "--seed", "4", "--workers", "2", "--out", tmp_path / "two.json"],
                              capsys)
    assert rc1 == 0 and rc2 == 0, err1 + err2
    assert "on 2 worker(s)" in out2
    one, two = (json.loads((tmp_path / n).read_text(encoding="utf-8")) for n in ("one.json", "two.json"))
    assert one["bodies"] == two["bodies"] and one["ground"] == two["ground"]


def test_bench_suite_synthesis_times_one_and_two_workers():
    assert "synthesis" in SUITES
    table = get_suite("synthesis")(quick=True)
    rows = table.rows
    assert [(r["where"], r["workers"]) for r in rows] == [("process", 1), ("dask", 1), ("dask", 2)]
    assert all(r["status"] == "converged" and r["error"] <= 1e-4 and r["time_s"] > 0 for r in rows)
    assert rows[1]["speedup"] == 1.0 and rows[2]["speedup"] > 0
    assert "speedup" in table.to_markdown()
