"""A non-editable install works from any folder (issue 18): build the wheel, install it into a NEW virtual
environment, and run ``mechstudio`` there from a folder outside the checkout: the installed sample models, the icons
and the schema are found with importlib.resources, and a short simulation of an installed sample writes its CSV.

A headless install (no gui extra) runs without Qt: a second environment gets the same wheel with every import of
PySide6, shiboken6, pyqtgraph, OpenGL and ``mechstudio.gui`` blocked (a meta-path finder installed by a .pth file,
so in every process of that environment, Dask's worker processes included); ``mechstudio simulate`` and a sweep of
two runs work there, the editor says which extra it needs, and the wheel's metadata puts the GUI packages under the
gui extra only.

To stay fast the new environments get no dependencies of their own: a .pth file makes the test interpreter's
site-packages (numpy, scipy, ...) visible -- which is why the headless one needs the blocker: that site-packages
has Qt -- and the wheel is installed with ``--no-deps --ignore-installed`` (never touching that site-packages) (the
editable install in that site-packages is not activated: .pth files of a path added that way are not executed).
numba is switched off (MECHSTUDIO_NO_NUMBA) so the runs need no kernel compilation; the numpy path is checked equal
to the kernels elsewhere. Building the wheel needs setuptools from the package index (pip's build isolation):
skipped when that fails for lack of an index.
"""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from mechstudio import __version__

ROOT = Path(__file__).resolve().parents[1]
GUI_IMPORTS = ("PySide6", "shiboken6", "pyqtgraph", "OpenGL")

#: installed into the headless environment's site-packages, run at every start by a .pth file
BLOCKER = """
import importlib.abc, os, sys

BLOCKED = {blocked!r}


class BlockGui(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCKED or name == "mechstudio.gui" or name.startswith("mechstudio.gui."):
            log = os.environ.get("MECHSTUDIO_TEST_BLOCK_LOG")
            if log:
                with open(log, "a") as fh:
                    fh.write(name + "\\n")
            raise ImportError(f"{{name}} is not installed (blocked by the headless install test)")
        return None


sys.meta_path.insert(0, BlockGui())
"""


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    wheels = tmp_path_factory.mktemp("wheels")
    build = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)])
    if build.returncode != 0:
        pytest.skip(f"cannot build the wheel here (no package index?): {build.stderr[-300:]}")
    (found,) = wheels.glob("mechanism_studio-*.whl")
    return found


def make_environment(env_dir: Path, wheel: Path, block_gui: bool = False) -> Path:
    """A new virtual environment with the wheel installed (see module docstring); ``block_gui``: no GUI imports."""
    made = _run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(env_dir)])
    assert made.returncode == 0, made.stderr
    py = env_dir / "bin" / "python"
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    (site / "_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    if block_gui:
        (site / "_block_gui.py").write_text(BLOCKER.format(blocked=GUI_IMPORTS))
        (site / "_block_gui.pth").write_text("import _block_gui\n")
    inst = _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--ignore-installed", "-q",
                 str(wheel)])
    assert inst.returncode == 0, inst.stderr
    return env_dir


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    return make_environment(tmp_path_factory.mktemp("install") / "venv", wheel)


@pytest.fixture(scope="module")
def headless(wheel, tmp_path_factory) -> Path:
    return make_environment(tmp_path_factory.mktemp("headless") / "venv", wheel, block_gui=True)


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MECHSTUDIO_DEBUG")}
    env.update(MECHSTUDIO_NO_NUMBA="1", MECHSTUDIO_CACHE_DIR=str(tmp_path / "cache"), HOME=str(tmp_path))
    return env


def test_installed_mechstudio_simulates_an_installed_sample_from_another_folder(installed, tmp_path):
    exe, env = str(installed / "bin" / "mechstudio"), _env(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    found = _run([exe, "samples", "pendulum"], cwd=elsewhere, env=env)
    assert found.returncode == 0, found.stderr
    sample = Path(found.stdout.strip())
    assert sample.is_file() and installed in sample.parents and ROOT not in sample.parents
    run = _run([exe, "simulate", str(sample), "--t-end", "0.05", "--out", "run.csv"], cwd=elsewhere, env=env)
    assert run.returncode == 0, run.stderr
    lines = (elsewhere / "run.csv").read_text().splitlines()
    assert lines[0].startswith("t,") and len(lines) == 1 + 6
    version = _run([exe, "--version"], cwd=elsewhere, env=env)
    assert version.returncode == 0 and version.stdout.strip() == f"mechstudio {__version__}"


def test_installed_package_carries_icons_schema_and_benchmark_models(installed, tmp_path):
    code = ("import mechstudio.gui.paths as p, mechstudio.core.model.samples as s, mechstudio.core.bench.iftomm_models as im, mechstudio.core.model.io as io;"
            "print(p.RESOURCES); print(s.samples_folder()); print(im.BENCH_DIR); print(len(io.schema()))")
    out = _run([str(installed / "bin" / "python"), "-c", code], cwd=tmp_path, env=_env(tmp_path))
    assert out.returncode == 0, out.stderr
    resources, samples, bench, _ = out.stdout.split("\n")[:4]
    for folder in (resources, samples, bench):
        assert installed in Path(folder).parents
    assert (Path(resources) / "icons" / "app.svg").is_file()
    assert len(list(Path(samples).glob("*.json"))) == len(list((ROOT / "sample_models").glob("*.json")))
    assert (Path(bench) / "andrews_squeezer_data.json").is_file()


def test_installed_beside_a_distribution_with_a_top_level_core_package(installed, tmp_path):
    """Another distribution that ships a top-level ``core`` package neither breaks Mechanism Studio nor is broken by
    it, also after it is uninstalled: our code lives under the one package ``mechstudio``."""
    other = tmp_path / "other"
    (other / "core").mkdir(parents=True)
    (other / "core" / "__init__.py").write_text("WHO = 'other'\n")
    (other / "pyproject.toml").write_text('[build-system]\nrequires = ["setuptools>=68"]\n'
                                          'build-backend = "setuptools.build_meta"\n'
                                          '[project]\nname = "other-core"\nversion = "1.0"\n'
                                          '[tool.setuptools]\npackages = ["core"]\n')
    wheels = tmp_path / "wheels"
    build = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(other)])
    if build.returncode != 0:
        pytest.skip(f"cannot build the wheel here (no package index?): {build.stderr[-300:]}")
    py, env = str(installed / "bin" / "python"), _env(tmp_path)
    (wheel,) = wheels.glob("other_core-*.whl")
    inst = _run([sys.executable, "-m", "pip", "--python", py, "install", "--no-deps", "-q", str(wheel)])
    assert inst.returncode == 0, inst.stderr
    both = ("import core, mechstudio; from mechstudio.core import load_model; "
            "m = load_model(mechstudio.core.model.samples.sample_path('pendulum')); "
            "print(core.WHO, mechstudio.__version__, len(m.bodies))")
    code = "import mechstudio.core.model.samples; " + both
    out = _run([py, "-c", code], cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["other", __version__, "1"]
    gone = _run([sys.executable, "-m", "pip", "--python", py, "uninstall", "-y", "-q", "other-core"])
    assert gone.returncode == 0, gone.stderr
    after = _run([py, "-c", "import mechstudio.core.model.samples, mechstudio.core as c; "
                  "print(len(c.load_model(mechstudio.core.model.samples.sample_path('pendulum')).bodies))"],
                 cwd=tmp_path, env=env)
    assert after.returncode == 0 and after.stdout.strip() == "1", after.stderr
    assert _run([py, "-c", "import core"], cwd=tmp_path, env=env).returncode != 0  # nothing of ours was named core


def test_a_headless_install_simulates_and_sweeps_without_qt(headless, tmp_path):
    exe, env = str(headless / "bin" / "mechstudio"), _env(tmp_path)
    blocked_log = tmp_path / "blocked.txt"
    env["MECHSTUDIO_TEST_BLOCK_LOG"] = str(blocked_log)
    py = str(headless / "bin" / "python")
    probe = _run([py, "-c", "import PySide6"], cwd=tmp_path, env=env)
    assert probe.returncode != 0 and "blocked by the headless install test" in probe.stderr  # the blocker works
    blocked_log.unlink()
    sample = _run([exe, "samples", "pendulum"], cwd=tmp_path, env=env).stdout.strip()
    run = _run([exe, "simulate", sample, "--t-end", "0.05", "--out", "run.csv"], cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    assert len((tmp_path / "run.csv").read_text().splitlines()) == 1 + 6
    sweep = _run([exe, "sweep", sample, "--vary", "bar.mass=1,2", "--metric", "top=max(q.bar.phi)", "--t-end", "0.05",
                  "--workers", "1", "--out", "s.parquet"], cwd=tmp_path, env=env)
    assert sweep.returncode == 0, sweep.stderr
    assert sweep.stdout.strip() == "2 of 2 runs in s.parquet"
    assert "Traceback" not in sweep.stderr and "WARNING" not in sweep.stderr
    tried = blocked_log.read_text().split() if blocked_log.exists() else []
    assert set(tried) <= {"PySide6", "pyqtgraph", "OpenGL"}, tried  # only the launcher's look for the GUI packages
    for argv in ([], ["open", sample]):
        editor = _run([exe, *argv], cwd=tmp_path, env=env)
        assert editor.returncode == 2
        assert "the editor needs the gui extra" in editor.stderr and "mechanism-studio[gui]" in editor.stderr
        assert "Traceback" not in editor.stderr


def test_the_wheel_puts_the_gui_packages_under_the_gui_extra(headless, tmp_path):
    code = ("import importlib.metadata as m; md = m.metadata('mechanism-studio'); "
            "print(md['Version']); print(*m.requires('mechanism-studio'), sep='\\n'); "
            "print(*md.get_all('Classifier'), sep='\\n')")
    out = _run([str(headless / "bin" / "python"), "-c", code], cwd=tmp_path, env=_env(tmp_path))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == __version__
    for name in ("PySide6-Essentials", "pyqtgraph", "PyOpenGL", "imageio", "Pillow"):
        reqs = [line for line in lines if line.lower().startswith(name.lower())]
        assert reqs and all('extra == "gui"' in r for r in reqs), (name, reqs)
    assert any(line.startswith("platformdirs") and "extra" not in line for line in lines)
    assert any(line.startswith("bokeh") and 'extra == "dashboard"' in line for line in lines)
    assert "Typing :: Typed" in lines
