"""Start the Qt application: ``run(path)`` opens the main window on a model file, or on an empty planar model.

Without a file the editor starts on an empty planar model, where the Quick start (Help → Quick start: build a
four-bar with the palette) begins; the samples are in File → Open sample.

Start-up paints before it works: a small splash is painted as soon as the application exists (the window's
modules take a few seconds to import), and the window is shown and painted before the model is opened (opening
assembles the mechanism, and the first assembly loads the compiled kernels).

The app logs (INFO and above) to a rotating file ``<config>/log/mechstudio.log`` (:func:`mechstudio.core.host.log.
configure_file_logging`); Dask's loggers log warnings only (``gui.sweep.cluster.quiet_dask_logging``). An
exception that escapes a Qt slot does not end the app: :func:`install_excepthook` logs it with its traceback and
shows a dialog naming the log file, and the event loop goes on.
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
from mechstudio.gui.paths import RESOURCES, log_dir
from mechstudio.gui.sweep.cluster import quiet_dask_logging

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


def open_initial(window: Any, path: str | None = None, *, offer_recovery: bool = True) -> None:
    """What a start opens in ``window``: a recovery first (when the last session left one and the user wants it),
    else ``path``, else an empty planar model (where the Quick start begins)."""
    if offer_recovery and window.offer_recovery():
        return
    if path is not None:
        window.open_file(path, ask=False)  # a bad file shows its problems; the window stays empty
        return
    window.statusBar().showMessage("A new, empty planar model: drag elements from the Palette onto the canvas "
                                   "(Help → Quick start shows how), or open a sample (File → Open sample)", 30000)


def build_window(path: str | None = None, *, offer_recovery: bool = True) -> Any:
    """The main window with ``path`` open (an empty planar model when None); a recovery is offered first."""
    from mechstudio.gui.main_window import MainWindow  # the editor's modules: imported once a splash is painted
    window = MainWindow()
    open_initial(window, path, offer_recovery=offer_recovery)
    return window


def show_splash(app: Any) -> Any:
    """A small splash (the app's icon and "starting…") painted at once: the window's modules take seconds to
    import."""
    from PySide6.QtCore import Qt  # Qt is imported once there is a display (run() checks it first)
    from PySide6.QtGui import QColor, QIcon, QPixmap
    from PySide6.QtWidgets import QSplashScreen
    icon = RESOURCES / "icons" / "app.svg"
    pixmap = QPixmap(360, 140)
    pixmap.fill(QColor("#f4f6f8"))
    splash = QSplashScreen(pixmap)
    if icon.exists():
        splash.setPixmap(_splash_pixmap(QIcon(str(icon)), pixmap))
    splash.showMessage("Mechanism Studio\nstarting…", Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                       QColor("#333"))
    splash.show()
    for _ in range(3):  # map and paint it now
        app.processEvents()
    return splash


def _splash_pixmap(icon: Any, pixmap: Any) -> Any:
    from PySide6.QtGui import QPainter  # as in show_splash: Qt only once there is a display
    painter = QPainter(pixmap)
    icon.paint(painter, 24, 22, 96, 96)
    painter.end()
    return pixmap


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
    splash = show_splash(app)
    log_file = configure_file_logging(log_dir())
    quiet_dask_logging()
    log.info("Mechanism Studio starting (pid %d), model %s", os.getpid(), path or "(new)")
    install_excepthook(log_file)
    from mechstudio.gui.main_window import MainWindow  # the editor's modules: imported once the splash is painted
    window = MainWindow()
    window.show()
    splash.finish(window)
    for _ in range(3):  # paint the window before the model is opened (assembly, first use of the kernels)
        app.processEvents()
    open_initial(window, path)
    window.canvas.zoom_to_fit()
    rc = int(app.exec())
    log.info("Mechanism Studio exiting with status %d", rc)
    return rc
