"""The ``mechstudio`` console script (:mod:`mechstudio.cli`) works without the GUI packages: the headless commands
run and import no Qt; the editor and the GUI-side options of ``simulate`` say which extra they need (exit status
2, before any run); where the GUI packages are installed it hands over to :mod:`mechstudio.gui.cli`.

In-process tests pretend the GUI packages are missing; one subprocess runs with Qt, pyqtgraph, OpenGL and
``mechstudio.gui`` made unimportable (a meta-path blocker), as in an installation without the gui extra
(tests/test_install.py checks a real headless install).
"""
from __future__ import annotations

import subprocess
import sys

import pytest

import mechstudio.cli as launcher
from conftest import ROOT, SAMPLES

PENDULUM = str(SAMPLES / "pendulum.json")
HINT = "pip install 'mechanism-studio[gui]'"


@pytest.fixture
def no_gui(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(launcher, "missing_gui_packages", lambda: ["PySide6", "pyqtgraph"])


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        rc = launcher.main(argv)
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        rc = exc.code
    out, err = capsys.readouterr()
    return int(rc), out, err


def test_without_the_gui_the_editor_names_the_extra(no_gui: None, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in ([], ["open", PENDULUM]):
        rc, out, err = run(argv, capsys)
        assert rc == 2 and out == ""
        assert err.splitlines()[0] == f"error: the editor needs the gui extra (missing: PySide6, pyqtgraph): {HINT}"


def test_without_the_gui_video_and_plots_are_refused_before_the_run(no_gui: None, tmp_path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    csv = tmp_path / "run.csv"
    rc, out, err = run(["simulate", PENDULUM, "--t-end", "0.05", "--out", str(csv), "--video", "x.gif"], capsys)
    assert rc == 2 and "--plots and --video needs the gui extra" in err
    assert not csv.exists()  # refused before the run
    rc, out, err = run(["simulate", PENDULUM, "--t-end", "0.05", "--out", str(csv)], capsys)
    assert rc == 0, err
    assert csv.read_text().startswith("t,")


def test_without_the_gui_the_headless_commands_run(no_gui: None, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(["info", str(SAMPLES / "four_bar.json")], capsys)
    assert rc == 0 and "degrees of freedom d = n - rank = 9 - 8 = 1" in out
    rc, out, err = run(["--version"], capsys)
    assert rc == 0 and out.startswith("mechstudio ")


def test_with_the_gui_the_launcher_hands_over_to_the_gui_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import mechstudio.gui.cli as gui_cli
    calls: list[list[str]] = []
    monkeypatch.setattr(launcher, "missing_gui_packages", lambda: [])
    monkeypatch.setattr(gui_cli, "main", lambda argv: calls.append(argv) or 0)
    assert launcher.main(["open", PENDULUM]) == 0
    assert calls == [["open", PENDULUM]]


BLOCKER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph', 'OpenGL') or name.startswith('mechstudio.gui'):
            raise ImportError(f'{name} is blocked in this test')
sys.meta_path.insert(0, Block())
"""


def test_the_console_script_runs_where_qt_cannot_be_imported() -> None:
    code = BLOCKER + """
from mechstudio.cli import main, missing_gui_packages
assert missing_gui_packages() == ['PySide6', 'pyqtgraph', 'OpenGL'], missing_gui_packages()
rc = main(['info', %r])
assert rc == 0, rc
assert main([]) == 2
gui = [m for m in sys.modules
       if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'OpenGL') or m.startswith('mechstudio.gui')]
assert not gui, gui
""" % str(SAMPLES / "four_bar.json")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "MECHSTUDIO_NO_NUMBA": "1"})
    assert res.returncode == 0, res.stderr
    assert "rank of Phi_q = 8" in res.stdout
    assert "the editor needs the gui extra (missing: PySide6, pyqtgraph, OpenGL)" in res.stderr
