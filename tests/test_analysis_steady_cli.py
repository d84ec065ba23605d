"""``mechstudio modes FILE --steady``: the report, the CSV and the exit statuses, on the sample
``centrifugal_pendulum_absorber.json`` (closed form w = Omega sqrt(m R l/(J_c + m l^2)), Lagrange's equation in
the rotor's frame, derived in tests/test_analysis_steady.py) and on failures. Frequencies to 1e-7 relative (the
monodromy's accuracy, see tests/test_analysis_steady.py)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from cli_helpers import run_cli
from conftest import SAMPLES

ABSORBER = Path(SAMPLES) / "centrifugal_pendulum_absorber.json"


def absorber_frequency_hz() -> float:
    data = json.loads(ABSORBER.read_text())
    omega = data["drivers"][0]["function"]["speed"]
    R = data["bodies"][0]["points"]["pin"][0]
    pend = data["bodies"][1]
    m, Jc, l = pend["mass"], pend["inertia"], pend["com"][0]
    return omega * math.sqrt(m * R * l / (Jc + m * l * l)) / (2 * math.pi)


def test_steady_modes_of_the_absorber_sample(capsys, tmp_path):
    out_csv = tmp_path / "floquet.csv"
    rc, out, err = run_cli(["modes", str(ABSORBER), "--steady", "--out", str(out_csv)], capsys)
    assert rc == 0, err
    f = absorber_frequency_hz()
    assert f == pytest.approx(1.380131, rel=1e-6)
    assert "period T = 1 s" in out and "steady motion: the initial state" in out
    assert "stable steady motion" in out and f"f = {f:.6g} Hz" in out
    assert "shape: pendulum.phi +1" in out
    lines = out_csv.read_text().splitlines()
    header = lines[0].split(",")
    row = dict(zip(header, (float(x) for x in lines[1].split(","))))
    assert len(lines) == 2
    assert row["frequency_hz"] == pytest.approx(f, rel=1e-7)
    assert row["multiplier_abs"] == pytest.approx(1.0, abs=1e-7) and row["stable"] == 1.0
    assert row["period_s"] == 1.0 and row["shape_re.pendulum.phi"] == 1.0
    assert complex(row["multiplier_re"], row["multiplier_im"]) == pytest.approx(
        complex(math.cos(2 * math.pi * f), math.sin(2 * math.pi * f)), abs=1e-7)
    assert "shape_im.pendulum.phi" in header


def test_steady_csv_to_stdout_and_a_given_period(capsys):
    """A period of two turns: the same steady motion, multipliers squared, the same exponent (branch rule)."""
    rc, out, err = run_cli(["modes", str(ABSORBER), "--steady", "--period", "2", "--out", "-"], capsys)
    assert rc == 0, err
    lines = out.strip().splitlines()
    header = lines[0].split(",")
    row = dict(zip(header, (float(x) for x in lines[1].split(","))))
    assert row["frequency_hz"] == pytest.approx(absorber_frequency_hz(), rel=1e-7)
    assert row["period_s"] == 2.0 and "period T = 2 s (given)" in err


@pytest.mark.parametrize("argv, words", [(["pendulum.json", "--steady"], "not driven"),
                                         (["bouncing_ball.json", "--steady", "--period", "1"], "contacts")])
def test_steady_failures_exit_3_with_the_reason(capsys, argv, words):
    rc, out, err = run_cli(["modes", str(Path(SAMPLES) / argv[0]), *argv[1:]], capsys)
    assert rc == 3 and out == "" and words in err


def test_period_without_steady_is_a_usage_error(capsys):
    rc, _, err = run_cli(["modes", str(ABSORBER), "--period", "1"], capsys)
    assert rc == 2 and "--steady" in err


def test_driven_model_without_steady_points_to_it(capsys):
    rc, _, err = run_cli(["modes", str(ABSORBER)], capsys)
    assert rc == 3 and "--steady" in err
