"""Where things are: the app's resources (icons, styles), the sample models, and the per-user config folder.

``resources/`` is a top-level folder of the checkout; a non-editable install carries it as the data package
``mechstudio.gui.resources`` (setup.py), found with :mod:`importlib.resources` — the checkout's folder first. The sample models
come from :mod:`mechstudio.core.model.samples` the same way. The config folder (settings, recent files, autosave/recovery files,
the log file) is ``$MECHSTUDIO_CONFIG_DIR`` when set — the test suite always sets it, so tests never touch a user's
settings — and otherwise Qt's ``QStandardPaths.AppConfigLocation``.
"""
from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from mechstudio.core.model.samples import sample_models, samples_folder

CHECKOUT_RESOURCES = Path(__file__).resolve().parent.parent / "resources"
RESOURCES = CHECKOUT_RESOURCES if CHECKOUT_RESOURCES.is_dir() else Path(str(resources.files("mechstudio.gui"))) / "resources"
SAMPLE_MODELS = samples_folder()
CONFIG_ENV = "MECHSTUDIO_CONFIG_DIR"

__all__ = ["RESOURCES", "SAMPLE_MODELS", "CONFIG_ENV", "config_dir", "log_dir", "sample_models", "default_model"]


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


def log_dir() -> Path:
    """The folder of the app's rotating log file: ``<config>/log``."""
    return config_dir() / "log"


def default_model() -> Path:
    """The model ``make run`` and a bare ``mechstudio`` open (the live-view issue's rolling disk when present)."""
    for name in ("rolling_disk_accelerating_plane.json", "four_bar.json"):
        if (SAMPLE_MODELS / name).exists():
            return SAMPLE_MODELS / name
    return SAMPLE_MODELS / "four_bar.json"
