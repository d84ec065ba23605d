"""Autosave and crash recovery, one recovery slot per running instance.

While the document has unsaved changes, :class:`Autosaver` writes it every minute (``interval_ms``; the
environment variable ``MECHSTUDIO_AUTOSAVE_MS`` overrides it) into this instance's slot in
``<config>/recovery/``: ``<id>.json`` (the model, written atomically), ``<id>.meta.json`` (original file, time,
pid), guarded by ``<id>.lock``, a :class:`QLockFile` held for the instance's lifetime. Two instances therefore
never overwrite each other's recovery. A normal close — or saving, or discarding the changes — removes the slot's
files (:func:`clear_recovery`), so a slot left behind whose lock can be taken (its process is gone: QLockFile
detects a dead owner on the same host; locks are never considered stale by age) belongs to an instance that did
not exit normally: :func:`find_recovery` claims the newest such slot (its lock, so another starting instance does
not offer it too) and the main window offers it; :func:`clear_recovery` then removes it as well.
"""
from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QLockFile, QObject, QTimer

from mechstudio.core.errors import ModelError
from mechstudio.core.model import Model, loads_model
from mechstudio.core.model.io import atomic_write_text
from mechstudio.gui.paths import config_dir

DEFAULT_INTERVAL_MS = 60_000
INTERVAL_ENV = "MECHSTUDIO_AUTOSAVE_MS"
log = logging.getLogger(__name__)


def recovery_dir() -> Path:
    d = config_dir() / "recovery"
    d.mkdir(parents=True, exist_ok=True)
    return d


class RecoverySlot:
    """The files ``<id>.json``, ``<id>.meta.json`` and the lock ``<id>.lock`` of one instance's recovery."""

    def __init__(self, folder: Path, ident: str):
        self.folder, self.ident = folder, ident
        self.lock = QLockFile(str(folder / f"{ident}.lock"))
        self.lock.setStaleLockTime(0)  # a live instance keeps its lock for hours: only a dead owner frees it

    @property
    def model_file(self) -> Path:
        return self.folder / f"{self.ident}.json"

    @property
    def meta_file(self) -> Path:
        return self.folder / f"{self.ident}.meta.json"

    def remove_files(self) -> None:
        for path in (self.model_file, self.meta_file):
            try:
                path.unlink()
            except FileNotFoundError:
                pass

    def release(self) -> None:
        """Remove the files and the lock (the lock file goes with unlock)."""
        self.remove_files()
        self.lock.unlock()


_own: RecoverySlot | None = None
_claimed: list[RecoverySlot] = []


def own_slot() -> RecoverySlot:
    """This instance's slot, created and locked on first use (in the current config folder)."""
    global _own
    folder = recovery_dir()
    if _own is None or _own.folder != folder:
        slot = RecoverySlot(folder, f"instance-{os.getpid()}-{time.time_ns()}")
        if not slot.lock.tryLock(0):
            log.warning("recovery lock %s could not be taken: %s", slot.ident, slot.lock.error())
        _own = slot
    return _own


@dataclass(frozen=True)
class Recovered:
    model: Model
    original_path: str | None
    saved_at: float


def find_recovery() -> Recovered | None:
    """The newest model left by an instance that did not exit normally, its slot claimed (None when there is none;
    an unreadable one is logged and skipped)."""
    folder = config_dir() / "recovery"
    if not folder.is_dir():
        return None
    own = _own.ident if _own is not None else None
    found: list[tuple[float, RecoverySlot, Recovered]] = []
    for model_file in folder.glob("*.json"):
        ident = model_file.name[:-len(".json")]
        if ident.endswith(".meta") or ident == own or any(c.ident == ident for c in _claimed):
            continue
        slot = RecoverySlot(folder, ident)
        if not slot.lock.tryLock(0):  # its instance is still running
            continue
        try:
            meta = json.loads(slot.meta_file.read_text(encoding="utf-8")) if slot.meta_file.exists() else {}
            model = loads_model(model_file.read_text(encoding="utf-8"), str(model_file))
        except (OSError, ValueError, ModelError) as exc:
            log.warning("recovery file %s is unreadable and ignored: %s", model_file, exc)
            slot.lock.unlock()
            continue
        rec = Recovered(model, meta.get("path") or None, float(meta.get("time", 0.0)))
        found.append((rec.saved_at, slot, rec))
    if not found:
        return None
    found.sort(key=lambda item: item[0])
    for _, slot, _ in found[:-1]:
        slot.lock.unlock()  # older orphans stay for a later start
    _, slot, rec = found[-1]
    _claimed.append(slot)
    return rec


def clear_recovery() -> None:
    """Remove this instance's recovery files and those of the orphan it claimed (offered, then taken or declined)."""
    if _own is not None:
        _own.remove_files()
    while _claimed:
        _claimed.pop().release()


class Autosaver(QObject):
    """Periodically writes the document's model to this instance's recovery slot while it has unsaved changes."""

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
        slot = own_slot()
        try:
            atomic_write_text(slot.model_file, self.document.model.to_json())
            atomic_write_text(slot.meta_file,
                              json.dumps({"path": self.document.path, "time": time.time(), "pid": os.getpid()}))
        except OSError as exc:
            log.warning("autosave to %s failed: %s", slot.model_file, exc)
            return False
        self.last_saved = time.time()
        return True
