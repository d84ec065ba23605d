"""Model outline: ground points, bodies (spatial bodies nested along their spherical joints), joints, drivers,
forces. Rebuilt from the model on every change; selecting rows sets the document's selection."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QAbstractItemView, QTreeWidget, QTreeWidgetItem

from core.model import GROUND, Model
from core.model import edit
from gui.document import Document

KEY_ROLE = Qt.ItemDataRole.UserRole
GROUPS = (("ground_points", "Ground points"), ("bodies", "Bodies"), ("joints", "Joints"), ("drivers", "Drivers"),
          ("forces", "Forces"))


class Outline(QTreeWidget):
    def __init__(self, document: Document, parent: Any = None):
        super().__init__(parent)
        self.document = document
        self.setObjectName("outline")
        self.setHeaderLabels(["Element", "Type"])
        self.setColumnWidth(0, 170)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self._items: dict[tuple[str, str], QTreeWidgetItem] = {}
        document.sig_model_changed.connect(self._on_document_model_changed)
        document.sig_selection_changed.connect(self._on_document_selection_changed)
        self.itemSelectionChanged.connect(self._on_outline_selection_changed)
        self._on_document_model_changed(document.model)

    def _on_document_model_changed(self, model: Model) -> None:
        blocker = QSignalBlocker(self)
        self.clear()
        self._items = {}
        data = model.data
        tree = edit.spherical_tree(model)
        for coll, title in GROUPS:
            group = QTreeWidgetItem(self, [title, ""])
            group.setFlags(group.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            f = group.font(0)
            f.setBold(True)
            group.setFont(0, f)
            if coll == "ground_points":
                for name in data.get("ground", {}).get("points", {}):
                    self._add(group, coll, name, "ground point")
            elif coll == "bodies" and tree:
                self._add_tree(group, GROUND, tree, set())
                for b in data.get("bodies", []):
                    if (coll, b["name"]) not in self._items:
                        self._add(group, coll, b["name"], self._body_type(b))
            else:
                for e in data.get(coll, []):
                    self._add(group, coll, e["name"], e.get("type", self._body_type(e)))
            count = sum(1 for k in self._items if k[0] == coll)
            group.setText(1, str(count))
            group.setExpanded(True)
        del blocker
        self._on_document_selection_changed(self.document.selection)

    @staticmethod
    def _body_type(b: dict[str, Any]) -> str:
        geo = b.get("geometry", [])
        return geo[0]["type"] if geo else "body"

    def _add_tree(self, parent_item: QTreeWidgetItem, parent: str, tree: dict[str, list[tuple[str, str]]],
                  seen: set[str]) -> None:
        for joint, child in tree.get(parent, []):
            if child in seen:
                continue
            seen.add(child)
            try:
                b = edit.element(self.document.model, "bodies", child)
            except KeyError:
                continue
            item = self._add(parent_item, "bodies", child, f"{self._body_type(b)} via {joint}")
            self._add_tree(item, child, tree, seen)
            item.setExpanded(True)

    def _add(self, parent: QTreeWidgetItem, coll: str, name: str, type_: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem(parent, [name, type_])
        item.setData(0, KEY_ROLE, (coll, name))
        self._items[(coll, name)] = item
        return item

    def item_for(self, key: tuple[str, str]) -> QTreeWidgetItem | None:
        return self._items.get(key)

    def _on_document_selection_changed(self, keys: list[tuple[str, str]]) -> None:
        blocker = QSignalBlocker(self)
        self.clearSelection()
        for k in keys:
            item = self._items.get(tuple(k))
            if item is not None:
                item.setSelected(True)
                self.scrollToItem(item)
        del blocker

    def _on_outline_selection_changed(self) -> None:
        keys = [tuple(i.data(0, KEY_ROLE)) for i in self.selectedItems() if i.data(0, KEY_ROLE)]
        self.document.set_selection(keys)
