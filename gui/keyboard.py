"""The keyboard path through the main window: every panel one key away, and the command palette.

:func:`install_keyboard` (called once by the main window) adds

* *View → Go to panel*: Ctrl+0 the canvas, Ctrl+1 … Ctrl+7 the palette, outline, properties, spherical tree,
  undo history, 3D view and plots (:data:`PANELS`). A panel that is hidden is shown, one behind another panel's
  tab is raised, and the keyboard focus goes to its first field (so the tabs of tabbed panels need no mouse);
* *Model → Command palette…* (Ctrl+K or Ctrl+Shift+P): :class:`~gui.editor.command_palette.CommandPalette`,
  which places elements at typed coordinates and runs any menu command by name;
* Enter on an entry of the palette panel: the command palette asks for that element's points.

Tab and Shift+Tab move between the canvas and the panels' fields (the canvas passes them on instead of keeping
them, and draws a focus frame while it has the keyboard: :class:`~gui.editor.canvas.PlanarCanvas`). All of
these are listed in Help → Keyboard shortcuts (read from the menus).
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMenu, QWidget

from mechstudio.gui.editor.command_palette import CommandPalette, PaletteEnterFilter

#: (window attribute, text) of the panels Ctrl+1 ... Ctrl+n go to, in that order (Ctrl+0: the canvas)
PANELS = (("dock_palette", "Palette"), ("dock_outline", "Outline"), ("dock_inspector", "Properties"),
          ("dock_tree", "Spatial tree"), ("dock_history", "Undo history"), ("dock_view3d", "3D view"),
          ("dock_plots", "Plots"))
PALETTE_KEYS = ("Ctrl+K", "Ctrl+Shift+P")


def focus_target(widget: QWidget) -> QWidget:
    """The widget itself when Tab can focus it, else its first child that Tab can focus (else itself)."""
    if widget.focusPolicy() & Qt.FocusPolicy.TabFocus and widget.isEnabled():
        return widget
    for child in widget.findChildren(QWidget):
        if child.focusPolicy() & Qt.FocusPolicy.TabFocus and child.isEnabled() and child.isVisibleTo(widget):
            return child
    return widget


def go_to_panel(window: Any, dock: QDockWidget) -> QWidget | None:
    """Show ``dock`` (raised over the panels it shares tabs with) and give the keyboard focus to its first field;
    the widget focused (None when the panel has no widget)."""
    dock.show()
    dock.raise_()
    widget = dock.widget()
    if widget is None:
        return None
    target = focus_target(widget)
    target.setFocus(Qt.FocusReason.ShortcutFocusReason)
    return target


def go_to_canvas(window: Any) -> None:
    window.canvas.setFocus(Qt.FocusReason.ShortcutFocusReason)


def _menu(window: Any, title: str) -> QMenu | None:
    """The top-level menu titled ``title`` (without its mnemonic ampersand)."""
    for menu in window.menuBar().findChildren(QMenu, options=Qt.FindChildOption.FindDirectChildrenOnly):
        if menu.title().replace("&", "") == title:
            return menu
    return None


def install_keyboard(window: Any) -> None:
    """Add the panel keys, the command palette and the palette's Enter to ``window`` (see module docstring)."""
    window.menu_view.addSeparator()
    go = window.menu_view.addMenu("&Go to panel")
    go.setObjectName("menu_go_to")
    act = QAction("Canvas", window)
    act.setObjectName("act_go_canvas")
    act.setShortcut(QKeySequence("Ctrl+0"))
    act.setStatusTip("Give the keyboard to the canvas (Tab and Shift+Tab move on to the panels)")
    act.triggered.connect(lambda _c=False: go_to_canvas(window))
    go.addAction(act)
    window.addAction(act)
    for k, (attr, text) in enumerate(PANELS, start=1):
        dock = getattr(window, attr, None)
        if dock is None:
            continue
        act = QAction(text, window)
        act.setObjectName(f"act_go_{attr}")
        act.setShortcut(QKeySequence(f"Ctrl+{k}"))
        act.setStatusTip(f"Show the {text} panel and give it the keyboard")
        act.triggered.connect(lambda _c=False, d=dock: go_to_panel(window, d))
        go.addAction(act)
        window.addAction(act)
    palette = CommandPalette(window)
    window.command_palette = palette
    act = QAction("&Command palette…", window)
    act.setObjectName("act_command_palette")
    act.setShortcuts([QKeySequence(k) for k in PALETTE_KEYS])
    act.setStatusTip("Place an element at typed coordinates, or run any command by its name")
    act.triggered.connect(lambda _c=False: palette.open())
    (_menu(window, "Model") or window.menu_view).addAction(act)
    window.addAction(act)
    window.act_command_palette = act

    def current_kind() -> str | None:
        item = window.palette.currentItem()
        return None if item is None or not window.palette.isEnabled() else item.data(Qt.ItemDataRole.UserRole)

    enter = PaletteEnterFilter(palette.open, current_kind, window)
    window.palette.installEventFilter(enter)
    window.palette_enter_filter = enter
