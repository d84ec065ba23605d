"""Help → Keyboard shortcuts: every shortcut of the window's menus (read from the actions themselves, so the
list is always current) and the canvas's mouse and key gestures."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHeaderView, QMenu, QMenuBar,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from mechstudio.gui.widgets.toolbar_style import plain_text

#: the canvas's gestures (gui/editor/canvas.py), which are not menu actions
CANVAS_GESTURES = (
    ("Canvas", "Click / Shift+click / Ctrl+click", "select / add to the selection"),
    ("Canvas", "Drag on empty space", "select everything in the box"),
    ("Canvas", "Drag a body / ground point / end handle", "move it / move the support / resize and rotate"),
    ("Canvas", "Mouse wheel", "zoom about the pointer"),
    ("Canvas", "Middle-button drag", "pan"),
    ("Canvas", "Esc or right click", "cancel the armed palette tool or the half-placed joint"),
    ("Canvas", "Right click on a body point / a body", "trace the point / add a point here"),
    ("Outline", "Tick a body's point", "trace it (its path is drawn during and after a run)"),
    ("Palette", "Drag an entry onto the canvas", "place it (or click the entry, then click the canvas)"),
    ("Properties", "Tab / Shift+Tab, Enter", "next / previous field, commit the value"),
    ("Properties", "Mouse wheel over a focused field", "step the value (an unfocused field scrolls the panel)"),
)


def submenus(widget: QWidget) -> dict[QAction, QMenu]:
    """The menus directly under ``widget`` (a menu bar or a menu) by the action that opens each.

    Found among the widget's children, never with ``QAction.menu()``: in PySide6 (6.10) a wrapper returned by
    ``QAction.menu()`` can delete the C++ menu when it is garbage-collected, and the window's own reference to
    that menu then raises "Internal C++ object (QMenu) already deleted" (the recent-files menu, at every Save).
    """
    children = widget.findChildren(QMenu, options=Qt.FindChildOption.FindDirectChildrenOnly)
    return {m.menuAction(): m for m in children}


def menu_shortcuts(menubar: QMenuBar) -> list[tuple[str, str, str]]:
    """(menu path, shortcuts, action) for every action with a shortcut, in menu order."""
    rows: list[tuple[str, str, str]] = []

    def walk(menu: QMenu, path: str) -> None:
        subs = submenus(menu)
        for a in menu.actions():
            sub = subs.get(a)
            if sub is not None:
                walk(sub, f"{path} › {plain_text(a.text())}")
            elif isinstance(a, QAction) and not a.isSeparator():
                keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in a.shortcuts() if not k.isEmpty()]
                if keys:
                    rows.append((path, " or ".join(keys), plain_text(a.text()).split(" ")[0]
                                 if a.objectName() in ("act_undo", "act_redo") else plain_text(a.text())))

    top_menus = submenus(menubar)
    for top in menubar.actions():
        if top in top_menus:
            walk(top_menus[top], plain_text(top.text()))
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
