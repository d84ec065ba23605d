"""The element palette. Drag an entry onto the canvas to place it, or click it to arm the tool and then click
on the canvas.

The drag is done with the mouse grab every platform gives a pressed button (the palette keeps receiving the
move and release events wherever the pointer goes) rather than with ``QDrag``: the drop lands on the canvas of
the same window, which is all a palette needs, and it behaves the same under a test driver as under a hand.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QAbstractItemView, QApplication, QListWidget, QListWidgetItem

from mechstudio.gui.editor.placement import PALETTE
from mechstudio.gui.paths import RESOURCES

KIND_ROLE = Qt.ItemDataRole.UserRole


def palette_icon(kind: str) -> QIcon:
    svg = RESOURCES / "icons" / f"{kind}.svg"
    if svg.exists():
        return QIcon(str(svg))
    pm = QPixmap(24, 24)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(QColor("#333"))
    p.drawText(pm.rect(), Qt.AlignmentFlag.AlignCenter, PALETTE[kind][0][:2])
    p.end()
    return QIcon(pm)


class Palette(QListWidget):
    """See the module docstring. ``canvas`` is a :class:`~gui.editor.canvas.PlanarCanvas`."""

    def __init__(self, canvas: Any, parent: Any = None):
        super().__init__(parent)
        self.canvas = canvas
        self.setObjectName("palette")
        self.setIconSize(QSize(24, 24))
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setDragEnabled(False)
        self.setMouseTracking(False)
        for kind, (label, tip) in PALETTE.items():
            item = QListWidgetItem(palette_icon(kind), label)
            item.setToolTip(tip)
            item.setData(KIND_ROLE, kind)
            self.addItem(item)
        self._press: tuple[str, QPoint] | None = None
        self._dragging = False

    def item_rect(self, kind: str) -> Any:
        """Rectangle (viewport coordinates) of the entry for ``kind`` — tests press there."""
        for i in range(self.count()):
            if self.item(i).data(KIND_ROLE) == kind:
                return self.visualItemRect(self.item(i))
        raise KeyError(kind)

    def mousePressEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        super().mousePressEvent(event)
        item = self.itemAt(event.position().toPoint())
        if event.button() == Qt.MouseButton.LeftButton and item is not None:
            self._press = (item.data(KIND_ROLE), event.position().toPoint())
            self._dragging = False

    def mouseMoveEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        if self._press is None:
            return
        kind, start = self._press
        pos = event.position().toPoint()
        if not self._dragging and (pos - start).manhattanLength() >= QApplication.startDragDistance():
            self._dragging = True
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
        if self._dragging:
            self.canvas.preview_global(kind, self.viewport().mapToGlobal(pos))

    def mouseReleaseEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        press, self._press = self._press, None
        dragging, self._dragging = self._dragging, False
        self.unsetCursor()
        if press is None:
            return super().mouseReleaseEvent(event)
        kind, _ = press
        if dragging:
            self.canvas.drop_global(kind, self.viewport().mapToGlobal(event.position().toPoint()))
            self.clearSelection()
        else:
            self.canvas.arm(kind)
