"""Logging set-up for the command line and the app (the modules themselves just use ``logging.getLogger``).

* :func:`configure_cli_logging`: warnings and errors of the library on standard error, prefixed ``mechstudio:``
  (debug messages too with ``MECHSTUDIO_DEBUG=1``);
* :func:`configure_file_logging`: a rotating log file (``LOG_FILE_BYTES`` per file, ``LOG_FILE_BACKUPS`` old files)
  that the app writes everything of level INFO and above to; the crash dialog names it.
"""
from __future__ import annotations

import logging
import logging.handlers
import sys
from pathlib import Path

LOG_FILE_NAME = "mechstudio.log"
LOG_FILE_BYTES = 1_000_000
LOG_FILE_BACKUPS = 3
FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"


def configure_cli_logging(debug: bool = False) -> None:
    """Library warnings (or, with ``debug``, everything) on standard error; a no-op if logging is configured."""
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("mechstudio: %(levelname)s: %(message)s"))
    # the handler filters too: libraries that set their own loggers' levels (Dask's are INFO) stay quiet
    handler.setLevel(logging.DEBUG if debug else logging.WARNING)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if debug else logging.WARNING)


def configure_file_logging(folder: Path, level: int = logging.INFO) -> Path:
    """Add a rotating file handler writing ``folder/mechstudio.log`` to the root logger; return the file's path.

    Idempotent: a second call for the same file adds nothing."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOG_FILE_NAME
    root = logging.getLogger()
    for h in root.handlers:
        if isinstance(h, logging.handlers.RotatingFileHandler) and Path(h.baseFilename) == path.resolve():
            return path
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=LOG_FILE_BYTES, backupCount=LOG_FILE_BACKUPS,
                                                   encoding="utf-8")
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.setLevel(level)
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > level:
        root.setLevel(level)
    return path
