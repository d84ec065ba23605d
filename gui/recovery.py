"""Autosave and crash recovery.

While the document has unsaved changes, :class:`Autosaver` writes it every minute (``interval_ms``; the
environment variable ``MECHSTUDIO_AUTOSAVE_MS`` overrides it) to ``<config>/recovery/autosave.json``, atomically,
with ``autosave.meta.json`` naming the original file and the time. A normal close — or saving, or discarding the
changes — removes the recovery files, so their presence at the next start means the app did not exit normally:
the main window then offers the recovered model.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer

from core.errors import ModelError
from core.model import Model, loads_model
from core.model.io import atomic_write_text
from gui.paths import config_dir

DEFAULT_INTERVAL_MS = 60_000
INTERVAL_ENV = "MECHSTUDIO_AUTOSAVE_MS"


def recovery_dir() -> Path:
    d = config_dir() / "recovery"
    d.mkdir(parents=True, exist_ok=True)
    return d


@dataclass(frozen=True)
class Recovered:
    model: Model
    original_path: str | None
    saved_at: float


def find_recovery() -> Recovered | None:
    """The model left by a session that did not exit normally (None when there is none or it is unreadable)."""
    d = config_dir() / "recovery"
    model_file, meta_file = d / "autosave.json", d / "autosave.meta.json"
    if not model_file.exists():
        return None
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8")) if meta_file.exists() else {}
        model = loads_model(model_file.read_text(encoding="utf-8"), str(model_file))
    except (OSError, ValueError, ModelError):
        return None
    return Recovered(model, meta.get("path") or None, float(meta.get("time", 0.0)))


def clear_recovery() -> None:
    d = config_dir() / "recovery"
    for name in ("autosave.json", "autosave.meta.json"):
        try:
            (d / name).unlink()
        except FileNotFoundError:
            pass


class Autosaver(QObject):
    """Periodically writes the document's model to the recovery file while it has unsaved changes."""

    def __init__(self, document: Any, interval_ms: int | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.document = document
        env = os.environ.get(INTERVAL_ENV)
        self.interval_ms = interval_ms or (int(env) if env and env.isdigit() else DEFAULT_INTERVAL_MS)
        self.timer = QTimer(self)
        self.timer.setInterval(self.interval_ms)
        self.timer.timeout.connect(self.autosave)
        self.timer.start()
        self.last_saved: float | None = None

    def autosave(self) -> bool:
        """Write the recovery file now if there are unsaved changes; True when written."""
        if not self.document.modified:
            return False
        d = recovery_dir()
        try:
            atomic_write_text(d / "autosave.json", self.document.model.to_json())
            atomic_write_text(d / "autosave.meta.json",
                              json.dumps({"path": self.document.path, "time": time.time(), "pid": os.getpid()}))
        except OSError:
            return False
        self.last_saved = time.time()
        return True
