"""Per-user folders of Mechanism Studio outside the installed package (which may be read-only).

* cache (compiled numba kernels): ``$MECHSTUDIO_CACHE_DIR``, else ``$XDG_CACHE_HOME/mechstudio``, else the
  platform's cache folder: ``~/.cache/mechstudio`` (Linux and other Unix), ``~/Library/Caches/mechstudio``
  (macOS), ``%LOCALAPPDATA%\\mechstudio\\Cache`` (Windows);
* logs: ``$MECHSTUDIO_LOG_DIR``, else ``$XDG_STATE_HOME/mechstudio/log``, else ``~/.local/state/mechstudio/log``
  (macOS ``~/Library/Logs/mechstudio``, Windows ``%LOCALAPPDATA%\\mechstudio\\Logs``).

The same rules as the ``platformdirs`` package (user_cache_dir, user_log_dir), written out because the core needs
only these two. Nothing is created here; callers create what they write to.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

APP = "mechstudio"
CACHE_ENV = "MECHSTUDIO_CACHE_DIR"
LOG_ENV = "MECHSTUDIO_LOG_DIR"


def _platform_dir(xdg_var: str, xdg_default: str, mac: str, windows: str) -> Path:
    env = os.environ.get(xdg_var)
    if env and os.path.isabs(env):
        return Path(env) / APP
    if sys.platform == "darwin":
        return Path.home() / "Library" / mac / APP
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / APP / windows
    return Path.home() / xdg_default / APP


def user_cache_dir() -> Path:
    """The folder for caches (see module docstring)."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else _platform_dir("XDG_CACHE_HOME", ".cache", "Caches", "Cache")


def user_log_dir() -> Path:
    """The folder for log files (see module docstring)."""
    env = os.environ.get(LOG_ENV)
    if env:
        return Path(env)
    if os.environ.get("XDG_STATE_HOME") or sys.platform not in ("darwin", "win32"):
        return _platform_dir("XDG_STATE_HOME", os.path.join(".local", "state"), "Logs", "Logs") / "log"
    return _platform_dir("XDG_STATE_HOME", "", "Logs", "Logs")
