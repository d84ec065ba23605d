"""Release metadata and user folders: one version (``mechstudio.__version__``) with its CHANGELOG section
and classifiers; the core dependencies hold no GUI package (those are the gui extra, which make installs); the
user folders come from platformdirs, with the ``MECHSTUDIO_*`` overrides winning."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import platformdirs
import pytest

from conftest import ROOT
from mechstudio import __version__
from mechstudio.core.host import userdirs

tomllib = pytest.importorskip("tomllib")  # Python 3.11+
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
GUI_DISTRIBUTIONS = ("pyside6", "pyqtgraph", "pyopengl", "imageio", "pillow")


def requirement_name(req: str) -> str:
    return re.split(r"[\[<>=!~; ]", req, maxsplit=1)[0].lower()


def test_the_version_has_its_changelog_section() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## \[([^\]]+)\]", changelog, re.M)
    assert sections[0] == __version__, sections  # the newest section is this version's
    assert "0.1.0" in sections


def test_project_classifiers() -> None:
    """Classifiers and the dynamic version. (No [project.urls]: the project has no public address yet, and an
    invented one would send users to someone else's page.)"""
    project = PYPROJECT["project"]
    assert "urls" not in project or all(url.startswith("https://") for url in project["urls"].values())
    classifiers = project["classifiers"]
    assert "Typing :: Typed" in classifiers and "Topic :: Scientific/Engineering :: Physics" in classifiers
    minor = f"Programming Language :: Python :: {sys.version_info.major}.{sys.version_info.minor}"
    assert minor in classifiers  # the Python this suite runs on is declared
    assert project["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "mechstudio.__version__"}


def test_the_core_dependencies_hold_no_gui_package_and_the_extras_do() -> None:
    project = PYPROJECT["project"]
    core = {requirement_name(r) for r in project["dependencies"]}
    assert not any(name.startswith(GUI_DISTRIBUTIONS) for name in core), core
    assert "platformdirs" in core
    extras = project["optional-dependencies"]
    gui = {requirement_name(r) for r in extras["gui"]}
    assert {"pyside6-essentials", "pyqtgraph", "pyopengl", "imageio", "imageio-ffmpeg", "pillow"} <= gui
    assert {requirement_name(r) for r in extras["dashboard"]} == {"bokeh"}
    # make run / make test install everything: the GUI, the dashboard and MuJoCo (the MJCF comparisons)
    assert "mechanism-studio[gui,dashboard,mujoco]" in extras["dev"]
    assert {requirement_name(r) for r in extras["mujoco"]} == {"mujoco"}
    assert PYPROJECT["project"]["scripts"] == {"mechstudio": "mechstudio.cli:main"}
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert '-e ".[gui,dev]"' in makefile and "mechstudio warm" in makefile


def test_user_folders_follow_platformdirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("MECHSTUDIO_CACHE_DIR", "MECHSTUDIO_LOG_DIR"):
        monkeypatch.delenv(name, raising=False)
    assert userdirs.user_cache_dir() == Path(platformdirs.user_cache_dir("mechstudio", appauthor=False))
    assert userdirs.user_log_dir() == Path(platformdirs.user_log_dir("mechstudio", appauthor=False))
    if sys.platform.startswith("linux"):  # the XDG rules, written out in the module's docstring and the README
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
        monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
        assert userdirs.user_cache_dir() == tmp_path / "cache" / "mechstudio"
        assert userdirs.user_log_dir() == tmp_path / "state" / "mechstudio" / "log"
        monkeypatch.delenv("XDG_CACHE_HOME")
        monkeypatch.delenv("XDG_STATE_HOME")
        monkeypatch.setenv("HOME", str(tmp_path))
        assert userdirs.user_cache_dir() == tmp_path / ".cache" / "mechstudio"
        assert userdirs.user_log_dir() == tmp_path / ".local" / "state" / "mechstudio" / "log"


def test_the_mechstudio_variables_win(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("MECHSTUDIO_CACHE_DIR", str(tmp_path / "shared-cache"))
    monkeypatch.setenv("MECHSTUDIO_LOG_DIR", str(tmp_path / "logs"))
    assert userdirs.user_cache_dir() == tmp_path / "shared-cache"
    assert userdirs.user_log_dir() == tmp_path / "logs"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "MECHSTUDIO_CACHE_DIR" in readme  # the override stays documented
