"""Start the Qt application: ``run(path)`` opens the main window on a model file (or the default sample)."""
from __future__ import annotations

import os
import sys
from typing import Any

from gui.paths import RESOURCES, default_model


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


def build_window(path: str | None = None, *, offer_recovery: bool = True) -> Any:
    """The main window with ``path`` open (the default sample when None); a recovery is offered first."""
    from gui.main_window import MainWindow
    window = MainWindow()
    recovered = window.offer_recovery() if offer_recovery else False
    if not recovered:
        target = path or str(default_model())
        if not window.open_file(target, ask=False) and path is None:
            pass  # the default model failed to load: start empty (the dialog said why)
    return window


def run(path: str | None = None) -> int:
    """Open the GUI and run the event loop until the window closes."""
    if path is not None and not os.path.exists(path):
        print(f"mechstudio: no such file: {path}", file=sys.stderr)
        return 2
    app = create_application()
    window = build_window(path)
    window.show()
    window.canvas.zoom_to_fit()
    return int(app.exec())
