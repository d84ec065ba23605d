"""Shows every problem of a model file that could not be opened (a ModelError's diagnostics)."""
from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QListWidget, QVBoxLayout

from mechstudio.core.errors import Diagnostic


class DiagnosticsDialog(QDialog):
    def __init__(self, title: str, diagnostics: list[Diagnostic], parent: Any = None, intro: str | None = None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(760, 340)
        lay = QVBoxLayout(self)
        n = len(diagnostics)
        lay.addWidget(QLabel(intro or f"The file was not opened: {n} problem{'s' if n != 1 else ''} found. "
                                      "Nothing was changed."))
        self.list = QListWidget()
        self.list.setObjectName("diagnostics")
        for d in diagnostics:
            line = d.file.rpartition(":")[2] if ":" in d.file else ""
            where = f"line {line}: " if line.isdigit() else ""
            self.list.addItem(f"{where}{d.pointer or '/'}: {d.severity}: {d.message}")
        lay.addWidget(self.list)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        lay.addWidget(buttons)

    def lines(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]
