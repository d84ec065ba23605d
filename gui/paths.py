"""Where things are: the checkout's resources/ and sample_models/ folders, and the per-user config folder.

``resources/`` and ``sample_models/`` are top-level folders of the checkout (editable install), found relative
to this file. The config folder (settings, recent files, autosave/recovery files) is ``$MECHSTUDIO_CONFIG_DIR``
when set — the test suite always sets it, so tests never touch a user's settings — and otherwise Qt's
``QStandardPaths.AppConfigLocation``.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESOURCES = ROOT / "resources"
SAMPLE_MODELS = ROOT / "sample_models"
CONFIG_ENV = "MECHSTUDIO_CONFIG_DIR"


def config_dir() -> Path:
    """The folder for settings and recovery files (created on demand)."""
    env = os.environ.get(CONFIG_ENV)
    if env:
        path = Path(env)
    else:
        from PySide6.QtCore import QStandardPaths
        path = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppConfigLocation))
        if not path.name or path == Path(""):
            path = Path.home() / ".config" / "mechanism-studio"
    path.mkdir(parents=True, exist_ok=True)
    return path


def sample_models() -> list[tuple[Path, str, str]]:
    """(path, name, description) of every sample model, sorted by file name. Unreadable files are skipped."""
    out = []
    for p in sorted(SAMPLE_MODELS.glob("*.json")):
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            out.append((p, str(data.get("name", p.stem)), str(data.get("description", ""))))
    return out


def default_model() -> Path:
    """The model ``make run`` and a bare ``mechstudio`` open (the live-view issue's rolling disk when present)."""
    for name in ("rolling_disk_accelerating_plane.json", "four_bar.json"):
        if (SAMPLE_MODELS / name).exists():
            return SAMPLE_MODELS / name
    return SAMPLE_MODELS / "four_bar.json"
