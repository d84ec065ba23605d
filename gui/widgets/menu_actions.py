"""Walk a menu bar's actions, submenus included, without ``QAction.menu()``.

With PySide6 (6.10 at least), ``QAction.menu()`` hands Python a wrapper that owns the C++ menu: once that
wrapper is garbage-collected the menu is deleted, with its submenus — a window whose File menu was looked at this
way then fails on the next use of File → Open recent ("Internal C++ object (QMenu) already deleted"). So the
submenus are found here as the menu bar's child menus instead, matched to the actions that open them by
``QMenu.menuAction()``.
"""
from __future__ import annotations

from typing import Iterator

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QMenuBar
from shiboken6 import getCppPointer

from mechstudio.gui.widgets.toolbar_style import plain_text


def _address(obj: object) -> int:
    return int(getCppPointer(obj)[0])


def menu_actions(menubar: QMenuBar) -> Iterator[tuple[str, QAction]]:
    """(menu path "File › Open sample", action) for every action of every menu, depth first in menu order;
    separators and the actions that open submenus are skipped."""
    owner = menubar.window() or menubar  # (a submenu may be parented to the window rather than to its menu)
    submenus = {_address(m.menuAction()): m for m in owner.findChildren(QMenu)}

    def walk(menu: QMenu, path: str) -> Iterator[tuple[str, QAction]]:
        for a in menu.actions():
            sub = submenus.get(_address(a))
            if sub is not None:
                yield from walk(sub, f"{path} › {plain_text(a.text())}")
            elif not a.isSeparator():
                yield path, a

    for top in menubar.actions():
        menu = submenus.get(_address(top))
        if menu is not None:
            yield from walk(menu, plain_text(top.text()))

