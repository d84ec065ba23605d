"""The command palette (Ctrl+K or Ctrl+Shift+P): build, run and save with the keyboard alone.

A box over the top of the window with one text field. Type part of a name — every word must occur in the entry
(case does not matter) — and the list below shows what matches: the palette's elements ("Place Bar", "Place
Revolute joint", ...) and every command of the menus ("Run", "Save", "Zoom to fit", ...). Up and Down choose,
Enter takes the chosen entry, Esc closes the box (as does giving the keyboard or the mouse to anything else).

A command runs at once. An element then asks for its points, one at a time: type the coordinates ``x, y`` in
metres (``0.5, -0.25``; a space or a semicolon also separates them) and Enter. Each point does what a drop or a
click of the mouse does at that place (:meth:`PlanarCanvas.drop` and :meth:`PlanarCanvas.click_pending`, with
the same snapping to the body points, ground points and joints within the pick radius, but not to the grid: typed
coordinates are exact). So a joint connects the bodies and points there, and one whose second end is not there
asks for it; a gear pair asks for the two joints it couples; a bar asks for its second end (Enter alone keeps it
1 m long along x). Where a point places nothing, the box says why and asks again. When the element is placed the
box closes and the canvas has the keyboard focus.

The palette dock offers the same: Enter on a palette entry opens this box at its first point
(:func:`mechstudio.gui.keyboard.install_keyboard`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFrame, QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout

from mechstudio.gui.editor import placement
from mechstudio.gui.widgets.menu_actions import menu_actions
from mechstudio.gui.widgets.toolbar_style import plain_text

WIDTH_FRACTION = 0.5  # of the window's width
MAX_ROWS = 12
ENTRY_ROLE = Qt.ItemDataRole.UserRole

#: what the first point of each palette element is (the following ones: what the canvas's prompt says)
FIRST_POINT = {
    "bar": "first end (a)", "disk": "centre", "block": "centre", "ground": "position",
    "revolute": "first end (a body point, a ground point, or empty space for the ground)",
    "prismatic": "first end (a body point, a ground point, or empty space for the ground)",
    "weld": "first end (a body point, a ground point, or empty space for the ground)",
    "pin_in_slot": "first end (a body point, a ground point, or empty space for the ground)",
    "spring": "first end (a body point, a ground point, or empty space for the ground)",
    "rotational_spring": "the revolute joint", "driver": "the joint it drives",
    "force": "the point of the body it acts on", "torque": "a point of the body", "knife_edge": "a point of the body",
    "gear_pair": "the first gear's revolute joint", "rack_pinion": "the pinion's revolute joint",
    "planar_rolling_disk": "the disk's centre", "cam_follower": "the cam's centre",
}
BAR_SECOND = "second end (b); Enter alone keeps it 1 m long along x"
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_COORDS = re.compile(rf"^\s*\(?\s*({_NUMBER})\s*[,; ]\s*({_NUMBER})\s*\)?\s*$")


def parse_point(text: str) -> tuple[float, float]:
    """``"x, y"`` [m] -> (x, y); ValueError with what to type."""
    m = _COORDS.match(text)
    if m is None:
        raise ValueError(f"type two numbers, x and y in metres, e.g. 0.5, -0.25 (not {text.strip()!r})"
                         if text.strip() else "type x, y in metres, e.g. 0.5, -0.25")
    return float(m.group(1)), float(m.group(2))


@dataclass(frozen=True)
class Entry:
    """One line of the list: a palette element (``kind``) or a menu command (``action``)."""

    text: str
    kind: str | None = None
    action: QAction | None = None
    keys: str = ""

    def matches(self, query: str) -> bool:
        hay = f"{self.text} {self.kind or ''}".lower().replace("_", " ")
        return all(word in hay for word in query.lower().split())


def menu_entries(menubar: Any) -> list[Entry]:
    """Every enabled command of the menus (submenus walked), as "Command   (Menu › Submenu)"."""
    out: list[Entry] = []
    for path, a in menu_actions(menubar):
        if a.text() and a.isEnabled() and a.isVisible():
            keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in a.shortcuts()
                             if not k.isEmpty())
            out.append(Entry(f"{plain_text(a.text())}   ({path})", action=a, keys=keys))
    return out


class CommandPalette(QFrame):
    """See the module docstring. ``window`` is the MainWindow (its ``canvas``, ``document``, ``menuBar()``)."""

    sig_closed = Signal()

    def __init__(self, window: Any):
        super().__init__(window)
        self.window = window
        self.setObjectName("command_palette")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 8, 8, 8)
        self.prompt = QLabel("")
        self.prompt.setObjectName("command_palette_prompt")
        self.prompt.setWordWrap(True)
        self.edit = QLineEdit()
        self.edit.setObjectName("command_palette_text")
        self.edit.setClearButtonEnabled(True)
        self.list = QListWidget()
        self.list.setObjectName("command_palette_list")
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay in the text field; Up/Down move here
        self.message = QLabel("")
        self.message.setObjectName("command_palette_message")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00")
        for w in (self.prompt, self.edit, self.list, self.message):
            lay.addWidget(w)
        self.edit.textEdited.connect(self._filter)
        self.edit.returnPressed.connect(self._enter)
        self.edit.installEventFilter(self)
        self.list.itemActivated.connect(lambda _item: self._take())
        self.kind: str | None = None  # the element whose points are being asked for
        self.bar: str | None = None  # a placed bar waiting for its second end
        self._entries: list[Entry] = []
        self.hide()

    # ---- open / close ---------------------------------------------------------------------------------------
    def open(self, kind: str | None = None) -> None:
        """Show the box: the list of entries, or (``kind``) the first point of that palette element."""
        self._place_box()
        self.show()
        self.raise_()
        self.message.clear()
        if kind is None:
            self.kind, self.bar = None, None
            self._entries = [Entry(f"Place {label}", kind=k) for k, (label, _tip) in placement.PALETTE.items()]
            self._entries += menu_entries(self.window.menuBar())
            self.prompt.setText("Type a command or an element to place (Up/Down choose, Enter takes, Esc closes)")
            self.edit.clear()
            self.edit.setPlaceholderText("e.g. bar, revolute, run, save")
            self.list.show()
            self._filter("")
        else:
            self._start_element(kind)
        self.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def close_palette(self) -> None:
        """Hide the box; the canvas gets the keyboard focus back."""
        if self.window.canvas.placing and self.kind is not None:
            self.window.canvas.cancel()  # a half-placed element (Esc): nothing pending stays behind
        self.kind, self.bar = None, None
        self.hide()
        self.window.canvas.setFocus(Qt.FocusReason.OtherFocusReason)
        self.sig_closed.emit()

    def dismiss(self) -> None:
        """Hide the box without taking the keyboard focus anywhere (it has gone elsewhere)."""
        if self.window.canvas.pending is not None and self.kind is not None:
            self.window.canvas.cancel()
        self.kind, self.bar = None, None
        self.hide()
        self.sig_closed.emit()

    def _place_box(self) -> None:
        w = self.window
        width = max(360, int(WIDTH_FRACTION * w.width()))
        top = w.menuBar().height() + 4
        self.setFixedWidth(width)
        self.move((w.width() - width) // 2, top)
        self.adjustSize()

    # ---- the list ---------------------------------------------------------------------------------------------
    def _filter(self, text: str) -> None:
        if self.kind is not None or self.bar is not None:
            return
        self.list.clear()
        for e in [e for e in self._entries if e.matches(text)]:
            item = QListWidgetItem(f"{e.text}    {e.keys}".rstrip())
            item.setData(ENTRY_ROLE, e)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)
        rows = min(max(self.list.count(), 1), MAX_ROWS)
        self.list.setFixedHeight(rows * max(self.list.sizeHintForRow(0), 16) + 2 * self.list.frameWidth())
        self.message.setText("" if self.list.count() else f"nothing matches {text!r}")
        self.adjustSize()

    def entries(self) -> list[str]:
        """The texts of the listed entries (tests)."""
        return [self.list.item(i).text() for i in range(self.list.count())]

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt API
        if obj is self.edit and event.type() == QEvent.Type.FocusOut and self.isVisible() and \
                event.reason() in (Qt.FocusReason.MouseFocusReason, Qt.FocusReason.TabFocusReason,
                                   Qt.FocusReason.BacktabFocusReason, Qt.FocusReason.ShortcutFocusReason):
            self.dismiss()  # the user went elsewhere (a click, Tab, a panel key): the box goes, nothing half-placed
            return False
        if obj is self.edit and event.type() == QEvent.Type.KeyPress:
            key = event.key()
            if key == Qt.Key.Key_Escape:
                self.close_palette()
                return True
            if key in (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown) \
                    and self.list.isVisible() and self.list.count():
                step = {Qt.Key.Key_Up: -1, Qt.Key.Key_Down: 1, Qt.Key.Key_PageUp: -MAX_ROWS,
                        Qt.Key.Key_PageDown: MAX_ROWS}[key]
                self.list.setCurrentRow(min(max(self.list.currentRow() + step, 0), self.list.count() - 1))
                return True
        return False

    def _enter(self) -> None:
        if self.kind is not None or self.bar is not None:
            self._point(self.edit.text())
        else:
            self._take()

    def _take(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        entry: Entry = item.data(ENTRY_ROLE)
        if entry.kind is not None:
            self._start_element(entry.kind)
            return
        self.close_palette()
        if entry.action is not None:
            entry.action.trigger()

    # ---- points -------------------------------------------------------------------------------------------
    def _start_element(self, kind: str) -> None:
        canvas = self.window.canvas
        if not self.window.palette.isEnabled():  # a spatial model: the palette builds planar models only
            self.message.setText(self.window.palette.toolTip() or "the palette builds planar models (File → New)")
            self.list.hide()
            self.kind = None
            return
        canvas.cancel()
        self.kind, self.bar = kind, None
        self.list.hide()
        self._ask(f"{placement.PALETTE[kind][0]} — {FIRST_POINT.get(kind, 'its point')}")

    def _ask(self, what: str, message: str = "") -> None:
        self.prompt.setText(f"{what}:  type x, y [m], Enter (Esc cancels)")
        self.message.setText(message)
        self.edit.clear()
        self.edit.setPlaceholderText("x, y   e.g. 0.5, -0.25")
        self.adjustSize()

    def _point(self, text: str) -> None:
        canvas, doc = self.window.canvas, self.window.document
        if self.bar is not None:
            self._bar_end(text)
            return
        try:
            p = parse_point(text)
        except ValueError as exc:
            self.message.setText(str(exc))
            return
        before = doc.undo_stack.index()
        status = canvas.click_pending(p, grid=False) if canvas.pending is not None else \
            canvas.drop(self.kind, p, grid=False)
        if canvas.pending is not None:  # a second end, a coupling's next joint: ask for it (and say what missed)
            self._ask(placement.prompt(canvas.pending).split(" (Esc cancels)")[0])
            return
        if doc.undo_stack.index() == before:  # nothing was placed: say why, ask again
            self.message.setText(status or "nothing was placed there")
            self.edit.selectAll()
            return
        self.window.statusBar().showMessage(status, 6000)
        if self.kind == "bar":
            keys = [k for k in doc.selection if k[0] == "bodies"]
            if keys:
                self.bar = keys[0][1]
                self._ask(f"{self.bar} — {BAR_SECOND}")
                return
        self.close_palette()

    def _bar_end(self, text: str) -> None:
        doc = self.window.document
        if text.strip():
            try:
                p = parse_point(text)
            except ValueError as exc:
                self.message.setText(str(exc))
                return
            new = placement.stretch_bar(doc.base_model(), self.bar, p)
            if new is None:
                self.message.setText("the second end must differ from the first one")
                return
            doc.push_edit(new, f"Resize {self.bar}")
            self.window.statusBar().showMessage(f"Resized {self.bar}", 6000)
        self.close_palette()


class PaletteEnterFilter(QObject):
    """An event filter for the palette list: Enter or Return on an entry calls ``open_at(kind)`` with the kind of
    the current entry (``kind_of()``)."""

    def __init__(self, open_at: Callable[[str], None], kind_of: Callable[[], str | None], parent: QObject | None = None):
        super().__init__(parent)
        self.open_at, self.kind_of = open_at, kind_of

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt API
        if event.type() == QEvent.Type.KeyPress and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            kind = self.kind_of()
            if kind is not None:
                self.open_at(kind)
                return True
        return False
