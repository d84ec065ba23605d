"""Unix conventions of the command line (issue 18): --version, bad option values exit 2 naming the option, every
diagnostic on stderr, '-' for the model (stdin) and for --out (stdout, the summary then on stderr), a progress bar
only on a terminal, --quiet, the file's own simulation defaults, exit statuses, exported file permissions."""
from __future__ import annotations

import io
import json
import os
import stat

import numpy as np
import pytest

from functools import partial

import cli_helpers
from conftest import SAMPLES
from mechstudio.core.model.io import current_umask
from mechstudio.gui.cli import main

run_cli = partial(cli_helpers.run_cli, entry=main)  # the launcher, as the installed command runs it



def parse_csv(text):
    lines = text.strip().splitlines()
    header = lines[0].split(",")
    data = np.array([[float(x) for x in line.split(",")] for line in lines[1:]])
    return header, data


def test_version(capsys):
    rc, out, err = run_cli(["--version"], capsys)
    assert rc == 0 and out.startswith("mechstudio ") and err == ""


@pytest.mark.parametrize("argv, option", [
    (["simulate", "MODEL", "--t-end", "-1"], "--t-end"),
    (["simulate", "MODEL", "--dt", "0"], "--dt"),
    (["simulate", "MODEL", "--rtol", "nan"], "--rtol"),
    (["simulate", "MODEL", "--integrator", "euler"], "--integrator"),
    (["kinematics", "MODEL", "--t-end", "abc"], "--t-end"),
    (["simulate", "MODEL", "--dt", "1e-9"], "--t-end/--dt"),
    (["kinematics", "MODEL", "--t-end", "1e6"], "--t-end/--dt"),
])
def test_bad_option_values_exit_2_naming_the_option_on_stderr(capsys, argv, option):
    argv = [str(SAMPLES / "pendulum.json") if a == "MODEL" else a for a in argv]
    rc, out, err = run_cli(argv, capsys)
    assert rc == 2 and out == ""
    assert f"argument {option}" in err


def test_no_command_prints_the_usage_on_stderr_with_status_2(capsys):
    from mechstudio.core.cli import main as core_main
    try:
        rc = core_main([])
    except SystemExit as exc:
        rc = exc.code
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and "usage" in err


def test_invalid_model_diagnostics_go_to_stderr_with_status_2(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    doc = json.loads((SAMPLES / "pendulum.json").read_text())
    doc["bodies"][0]["mass"] = -2.0
    bad.write_text(json.dumps(doc))
    for command in ("simulate", "kinematics", "info", "equations"):
        rc, out, err = run_cli([command, str(bad)], capsys)
        assert rc == 2 and out == "", command
        assert f"{bad}:/bodies/0/mass: error:" in err, (command, err)


def test_model_from_stdin_and_csv_to_stdout_with_the_summary_on_stderr(capsys, monkeypatch):
    text = (SAMPLES / "pendulum.json").read_text()
    rc, out, err = run_cli(["simulate", "-", "--t-end", "0.05", "--dt", "0.01", "--out", "-"], capsys, text,
                           monkeypatch)
    assert rc == 0, err
    header, data = parse_csv(out)
    assert header[0] == "t" and data.shape[0] == 6
    assert np.allclose(data[:, 0], np.linspace(0, 0.05, 6))
    assert "finished" in err.lower() or "energy balance" in err


def test_kinematics_uses_the_files_t_end_and_dt(capsys, tmp_path):
    doc = json.loads((SAMPLES / "slider_crank_driven.json").read_text())
    doc["simulation"].update(t_end=0.3, dt=0.05)
    path = tmp_path / "crank.json"
    path.write_text(json.dumps(doc))
    rc, out, err = run_cli(["kinematics", str(path)], capsys)
    assert rc == 0, err
    header, data = parse_csv(out)
    assert np.allclose(data[:, 0], np.linspace(0.0, 0.3, 7))
    assert "wrote 7 rows" in err
    rc, out, err = run_cli(["kinematics", str(path), "--dt", "0.1", "--quiet"], capsys)
    assert rc == 0 and err == "" and parse_csv(out)[1].shape[0] == 4


def test_exported_csv_has_the_permissions_of_an_ordinary_file(capsys, tmp_path):
    out_file = tmp_path / "run.csv"
    rc, out, err = run_cli(["simulate", str(SAMPLES / "pendulum.json"), "--t-end", "0.02", "--out", str(out_file)],
                           capsys)
    assert rc == 0, err
    assert stat.S_IMODE(os.stat(out_file).st_mode) == 0o666 & ~current_umask()
    assert f"wrote 3 rows to {out_file}" in out


def test_progress_bar_only_on_a_terminal_and_not_with_quiet(capsys, monkeypatch):
    import mechstudio.core.commands.arguments as arguments

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    model = str(SAMPLES / "pendulum.json")
    rc, out, err = run_cli(["simulate", model, "--t-end", "0.05"], capsys)
    assert rc == 0 and "frame" not in err  # stderr is not a terminal here
    term = Terminal()
    monkeypatch.setattr(arguments.sys, "stderr", term)
    tick, close = arguments.progress_counter(6, quiet=False, desc="simulate")
    for _ in range(6):
        assert tick() is False
    close()
    assert "simulate:" in term.getvalue() and "/6 [" in term.getvalue()
    term2 = Terminal()
    monkeypatch.setattr(arguments.sys, "stderr", term2)
    tick, close = arguments.progress_counter(6, quiet=True, desc="simulate")
    tick()
    close()
    assert term2.getvalue() == ""


def test_samples_command_names_installed_samples(capsys):
    rc, out, err = run_cli(["samples", "pendulum"], capsys)
    assert rc == 0 and out.strip().endswith("pendulum.json") and os.path.isfile(out.strip())
    rc, out, err = run_cli(["samples", "no_such_sample"], capsys)
    assert rc == 2 and "no sample model" in err
