"""Help → Keyboard shortcuts: every shortcut of the window's menus (read from the actions themselves, so the
list is always current: the panel keys of View → Go to panel and the command palette among them) and the
canvas's mouse and key gestures, the keyboard path included (Tab, the palette's Enter, the command palette)."""
from __future__ import annotations

from typing import Any

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHeaderView, QMenuBar, QTableWidget,
                               QTableWidgetItem, QVBoxLayout)

from mechstudio.gui.widgets.menu_actions import menu_actions
from mechstudio.gui.widgets.toolbar_style import plain_text

#: the canvas's gestures (gui/editor/canvas.py), which are not menu actions
CANVAS_GESTURES = (
    ("Canvas", "Click / Shift+click / Ctrl+click", "select / add to the selection"),
    ("Canvas", "Alt+click", "select the next item under the click (an axle under its ground point, a pin on a body)"),
    ("Canvas", "Drag on empty space", "select everything in the box"),
    ("Canvas", "Drag a body / ground point / end handle", "move it / move the support / resize and rotate"),
    ("Canvas", "Mouse wheel", "zoom about the pointer"),
    ("Canvas", "Middle-button drag", "pan"),
    ("Canvas", "Esc or right click", "cancel the armed palette tool or the half-placed joint"),
    ("Canvas", "Right click on a body point / a body", "trace the point / add a point here"),
    ("Canvas", "Tab / Shift+Tab", "give the keyboard to the next / previous panel's field (a frame around the canvas "
                                  "shows that it has the keyboard)"),
    ("Command palette", "Ctrl+K or Ctrl+Shift+P, type a name, Enter",
     "run a menu command, or place an element: type each of its points as x, y [m] and Enter (Esc cancels)"),
    ("Outline", "Tick a body's point", "trace it (its path is drawn during and after a run)"),
    ("Palette", "Drag an entry onto the canvas", "place it (or click the entry, then click the canvas)"),
    ("Palette", "Arrow keys, Enter", "place the chosen entry at typed coordinates (the command palette asks)"),
    ("Panels", "Ctrl+0, Ctrl+1 … Ctrl+7", "the canvas; the palette, outline, properties, spherical tree, undo "
                                         "history, 3D view, plots (View → Go to panel)"),
    ("Properties", "Tab / Shift+Tab, Enter", "next / previous field, commit the value"),
    ("Properties", "Mouse wheel over a focused field", "step the value (an unfocused field scrolls the panel)"),
)


def menu_shortcuts(menubar: QMenuBar) -> list[tuple[str, str, str]]:
    """(menu path, shortcuts, action) for every action with a shortcut, in menu order (walked without
    ``QAction.menu()``, which deletes the menus it is asked for: :mod:`mechstudio.gui.widgets.menu_actions`)."""
    rows: list[tuple[str, str, str]] = []
    for path, a in menu_actions(menubar):
        keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in a.shortcuts() if not k.isEmpty()]
        if keys:
            rows.append((path, " or ".join(keys), plain_text(a.text()).split(" ")[0]
                         if a.objectName() in ("act_undo", "act_redo") else plain_text(a.text())))
    return rows


class ShortcutsDialog(QDialog):
    """A table: where, keys / gesture, what it does."""

    def __init__(self, window: Any):
        super().__init__(window)
        self.setWindowTitle("Keyboard shortcuts")
        self.resize(720, 560)
        rows = [(where, keys, what) for where, keys, what in menu_shortcuts(window.menuBar())] + list(CANVAS_GESTURES)
        self.table = QTableWidget(len(rows), 3)
        self.table.setObjectName("shortcuts")
        self.table.setHorizontalHeaderLabels(["Where", "Keys / gesture", "What it does"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        lay = QVBoxLayout(self)
        lay.addWidget(self.table)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def rows(self) -> list[tuple[str, str, str]]:
        return [tuple(self.table.item(r, c).text() for c in range(3))  # type: ignore[misc]
                for r in range(self.table.rowCount())]
