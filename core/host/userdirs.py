"""Per-user folders of Mechanism Studio outside the installed package (which may be read-only).

* cache (compiled numba kernels): ``$MECHSTUDIO_CACHE_DIR``, else the platform's user cache folder
  (``platformdirs.user_cache_dir``): ``$XDG_CACHE_HOME/mechstudio`` or ``~/.cache/mechstudio`` (Linux and other
  Unix), ``~/Library/Caches/mechstudio`` (macOS), ``%LOCALAPPDATA%\\mechstudio\\Cache`` (Windows);
* logs: ``$MECHSTUDIO_LOG_DIR``, else the platform's user log folder (``platformdirs.user_log_dir``):
  ``$XDG_STATE_HOME/mechstudio/log`` or ``~/.local/state/mechstudio/log`` (Linux and other Unix),
  ``~/Library/Logs/mechstudio`` (macOS), ``%LOCALAPPDATA%\\mechstudio\\Logs`` (Windows).

The ``MECHSTUDIO_*`` variables win over everything (a shared cache on a cluster, a writable folder where home is
not). Nothing is created here; callers create what they write to.
"""
from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "mechstudio"
CACHE_ENV = "MECHSTUDIO_CACHE_DIR"
LOG_ENV = "MECHSTUDIO_LOG_DIR"


def user_cache_dir() -> Path:
    """The folder for caches (see module docstring)."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path(platformdirs.user_cache_dir(APP, appauthor=False))


def user_log_dir() -> Path:
    """The folder for log files (see module docstring)."""
    env = os.environ.get(LOG_ENV)
    return Path(env) if env else Path(platformdirs.user_log_dir(APP, appauthor=False))
