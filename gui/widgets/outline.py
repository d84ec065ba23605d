"""Model outline: ground points, bodies (spatial bodies nested along their spherical joints), joints, drivers,
forces. Rebuilt from the model on every change; selecting rows sets the document's selection.

Each body lists its named points with a check box: a ticked point is traced (its path is drawn on the canvas and
in the 3D view during and after a run). Ticking is an undoable edit saved with the model
(``mechstudio.gui.editor.traced_points``); selecting a point's row selects its body."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtWidgets import QAbstractItemView, QTreeWidget, QTreeWidgetItem

from mechstudio.core.model import GROUND, Model
from mechstudio.core.model import edit
from mechstudio.gui.document import Document
from mechstudio.gui.editor import traced_points

KEY_ROLE = Qt.ItemDataRole.UserRole
POINT_ROLE = Qt.ItemDataRole.UserRole + 1  # (body, point) of a point's row
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
        self._point_items: dict[tuple[str, str], QTreeWidgetItem] = {}
        document.sig_model_changed.connect(self._on_document_model_changed)
        document.sig_selection_changed.connect(self._on_document_selection_changed)
        self.itemSelectionChanged.connect(self._on_outline_selection_changed)
        self.itemChanged.connect(self._on_item_changed)
        self._on_document_model_changed(document.model)

    def _on_document_model_changed(self, model: Model) -> None:
        blocker = QSignalBlocker(self)
        # bodies whose points the user opened stay open; a body with a traced point opens
        opened = {k[1] for k, it in self._items.items() if k[0] == "bodies" and it.isExpanded()}
        scrolled = self.verticalScrollBar().value()  # a tick must not move the rows under the mouse
        self.clear()
        self._items = {}
        self._point_items = {}
        self._ticked = set(traced_points.traced(model))
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
            if coll == "bodies":
                for (c, name), item in self._items.items():
                    if c == "bodies" and (name in opened or any(k[0] == name for k in self._ticked)):
                        item.setExpanded(True)
            count = sum(1 for k in self._items if k[0] == coll)
            group.setText(1, str(count))
            group.setExpanded(True)
        del blocker
        self.doItemsLayout()  # the scroll range of the new rows, so the old position can be restored
        self.verticalScrollBar().setValue(scrolled)
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
        if coll == "bodies":
            self._add_points(item, name)
        return item

    def _add_points(self, body_item: QTreeWidgetItem, body: str) -> None:
        """One checkable row per named point of ``body`` (checked: traced)."""
        for point in traced_points.body_points(self.document.model).get(body, []):
            row = QTreeWidgetItem(body_item, [point, "point (traced)" if (body, point) in self._ticked else "point"])
            row.setData(0, KEY_ROLE, ("bodies", body))
            row.setData(0, POINT_ROLE, (body, point))
            row.setFlags(row.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            row.setCheckState(0, Qt.CheckState.Checked if (body, point) in self._ticked else Qt.CheckState.Unchecked)
            row.setToolTip(0, f"Tick to trace {body}.{point}: its path is drawn during and after a run")
            self._point_items[(body, point)] = row

    def point_item(self, key: tuple[str, str]) -> QTreeWidgetItem | None:
        """The row of body point ``key`` = (body, point)."""
        return self._point_items.get(tuple(key))

    def _on_item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        key = item.data(0, POINT_ROLE)
        if column != 0 or not key:
            return
        on = item.checkState(0) == Qt.CheckState.Checked
        # after this signal: the edit rebuilds the tree, which deletes the item being reported
        QTimer.singleShot(0, lambda key=tuple(key), on=on: self.set_traced(key, on))

    def set_traced(self, key: tuple[str, str], on: bool) -> bool:
        """Tick or untick a point (one undoable edit); False when nothing changed."""
        try:
            return traced_points.push_trace(self.document, key, on) is not None
        except ValueError:  # the point went away meanwhile
            return False

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
