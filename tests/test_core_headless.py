"""core/ is the headless engine: it must import and run where Qt cannot even be imported."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BLOCKER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph', 'OpenGL') or name.startswith('mechstudio.gui'):
            raise ImportError(f'{name} is blocked in this test')
sys.meta_path.insert(0, Block())
"""


def run_py(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCKER + code], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_core_imports_and_simulates_without_qt():
    code = """
import mechstudio.core, mechstudio.core.cli, mechstudio.core.simulate, mechstudio.core.dynamics, mechstudio.core.kinematics.assembly
from mechstudio.core.dynamics.base import get_formulation
for name in ('projection', 'lagrange'):
    get_formulation(name)
from mechstudio.core.simulate import simulate
tr = simulate('sample_models/pendulum.json', t_end=0.05)
assert tr.status.ok, tr.message
mods = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'OpenGL') or m.startswith('mechstudio.gui')]
assert not mods, mods
print('ok')
"""
    res = run_py(code)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().endswith("ok")


def test_cli_info_runs_headless():
    res = run_py("import sys; from mechstudio.core.cli import main; sys.exit(main(['info', 'sample_models/four_bar.json']))")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    for needle in ("coordinates (n = 9)", "crank.phi", "constraints (m = 8", "rank of Phi_q = 8",
                   "degrees of freedom d = n - rank = 9 - 8 = 1", "redundant constraints: none"):
        assert needle in out, out
    res = run_py("import sys; from mechstudio.core.cli import main; sys.exit(main(['info', 'sample_models/parallelogram.json']))")
    assert "redundant constraints (1):" in res.stdout


def test_import_contract_holds():
    """import-linter's forbidden contract (pyproject.toml): core never imports Qt, pyqtgraph, OpenGL or gui."""
    lint = Path(sys.executable).parent / "lint-imports"
    res = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "KEPT" in res.stdout


def test_bad_model_gives_diagnostics_not_traceback(tmp_path):
    out = tmp_path / "never.csv"
    res = run_py(f"import sys; from mechstudio.core.cli import main; sys.exit(main(['simulate', "
                 f"'tests/data/bad_models/negative_mass.json', '--out', r'{out}']))")
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    assert "negative_mass.json:/bodies/0/mass: error: must be greater than 0" in res.stderr
    assert not out.exists()
