"""Start the Qt application: ``run(path)`` opens the main window on a model file (or the default sample).

The app logs (INFO and above) to a rotating file ``<config>/log/mechstudio.log`` (:func:`mechstudio.core.host.log.
configure_file_logging`). An exception that escapes a Qt slot does not end the app: :func:`install_excepthook`
logs it with its traceback and shows a dialog naming the log file, and the event loop goes on.
"""
from __future__ import annotations

import logging
import os
import sys
import traceback
from pathlib import Path
from types import TracebackType
from typing import Any

from mechstudio.core.host.log import configure_file_logging
from mechstudio.gui.paths import RESOURCES, default_model, log_dir

log = logging.getLogger(__name__)


def create_application(argv: list[str] | None = None) -> Any:
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("Mechanism Studio")
    app.setOrganizationName("MechanismStudio")
    icon = RESOURCES / "icons" / "app.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    style = RESOURCES / "styles" / "light.qss"
    if style.exists():
        app.setStyleSheet(style.read_text(encoding="utf-8"))
    return app


def show_unexpected_error(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None,
                          log_file: Path | None) -> None:
    """Log an exception that escaped the event loop and tell the user in a dialog (the app keeps running)."""
    log.error("unexpected error", exc_info=(exc_type, exc, tb))
    from PySide6.QtWidgets import QApplication, QMessageBox
    if QApplication.instance() is None:
        traceback.print_exception(exc_type, exc, tb)
        return
    where = f"The details are in the log file:\n{log_file}" if log_file else "The details were printed on stderr."
    box = QMessageBox(QMessageBox.Icon.Critical, "Unexpected error",
                      f"Mechanism Studio hit an internal error ({exc_type.__name__}: {str(exc)[:200]}).\n\n"
                      f"Your model is still open; save your work. {where}")
    box.setDetailedText("".join(traceback.format_exception(exc_type, exc, tb)))
    box.exec()


def install_excepthook(log_file: Path | None) -> None:
    """Route uncaught exceptions (in slots and callbacks) to :func:`show_unexpected_error`; Ctrl-C still ends."""
    def hook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        show_unexpected_error(exc_type, exc, tb, log_file)
    sys.excepthook = hook


def build_window(path: str | None = None, *, offer_recovery: bool = True) -> Any:
    """The main window with ``path`` open (the default sample when None); a recovery is offered first."""
    from mechstudio.gui.main_window import MainWindow
    window = MainWindow()
    recovered = window.offer_recovery() if offer_recovery else False
    if not recovered:
        target = path or str(default_model())
        if not window.open_file(target, ask=False) and path is None:
            log.warning("the default model %s did not open; starting empty", target)
    return window


def run(path: str | None = None) -> int:
    """Open the GUI and run the event loop until the window closes."""
    if path is not None and not os.path.exists(path):
        print(f"mechstudio: no such file: {path}", file=sys.stderr)
        return 2
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or os.environ.get("QT_QPA_PLATFORM")
            or sys.platform in ("darwin", "win32")):
        print("mechstudio: no display (DISPLAY is not set): the editor needs a desktop session. Headless "
              "commands (simulate, kinematics, info, ...) work without one; see README, Troubleshooting.",
              file=sys.stderr)
        return 2
    app = create_application()  # first: the config folder (and log file) depends on the application's name
    log_file = configure_file_logging(log_dir())
    log.info("Mechanism Studio starting (pid %d), model %s", os.getpid(), path or "default")
    install_excepthook(log_file)
    window = build_window(path)
    window.show()
    window.canvas.zoom_to_fit()
    rc = int(app.exec())
    log.info("Mechanism Studio exiting with status %d", rc)
    return rc
