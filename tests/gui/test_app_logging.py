"""The app's rotating log file and its exception hook (issue 18): an exception escaping a slot is logged with its
traceback, a dialog names the log file, and the event loop keeps running."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox


def test_an_exception_in_a_slot_is_logged_shown_and_the_app_keeps_running(qtbot: Any, isolated_config: Path,
                                                                        monkeypatch: Any) -> None:
    import sys
    from mechstudio.core.host.log import configure_file_logging
    from mechstudio.gui.app import install_excepthook
    from mechstudio.gui.paths import log_dir
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append((box.text(), box.detailedText())) or 0)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    log_file = configure_file_logging(log_dir())
    try:
        install_excepthook(log_file)

        def broken_slot() -> None:
            raise ZeroDivisionError("a bug in a slot")

        QTimer.singleShot(0, broken_slot)
        qtbot.waitUntil(lambda: bool(shown), timeout=5000)
        alive: list[bool] = []
        QTimer.singleShot(0, lambda: alive.append(True))  # the event loop still delivers events
        qtbot.waitUntil(lambda: bool(alive), timeout=5000)
    finally:
        for h in list(logging.getLogger().handlers):
            if getattr(h, "baseFilename", None) == str(log_file.resolve()):
                logging.getLogger().removeHandler(h)
                h.close()
    text, details = shown[0]
    assert str(log_file) in text and "ZeroDivisionError" in text
    assert "broken_slot" in details
    logged = log_file.read_text()
    assert "unexpected error" in logged and "ZeroDivisionError: a bug in a slot" in logged and "broken_slot" in logged
    assert QApplication.instance() is not None
