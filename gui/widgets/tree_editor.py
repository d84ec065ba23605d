"""Spherical-joint tree editor: add a body as a child of the selected body (or the ground) through a spherical
joint — hinge points, mass, full inertia tensor (with rod / box / cylinder / sphere helpers), initial
orientation (rotation vector or quaternion) and angular velocity — and add rolling disks.

The form only prepares values; "Add child" pushes one command built with ``core.model.edit.add_tree_body``, which
writes the same JSON structure as ``sample_models/spherical_chain_3.json``.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGridLayout, QGroupBox,
                               QHBoxLayout, QLabel, QLineEdit, QPushButton, QScrollArea, QSizePolicy, QVBoxLayout,
                               QWidget)

from core.errors import ModelError
from core.model import GROUND
from core.model import edit
from gui.document import Document

NEW_POINT = "(new point)"


def _spin(value: float = 0.0, lo: float = -1e6, hi: float = 1e6, decimals: int = 6, suffix: str = "") -> QDoubleSpinBox:
    w = QDoubleSpinBox()
    w.setDecimals(decimals)
    w.setRange(lo, hi)
    w.setValue(value)
    if suffix:
        w.setSuffix(f" {suffix}")
    w.setMinimumWidth(50)
    w.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
    return w


class Vector(QWidget):
    """A row of spin boxes."""

    def __init__(self, values: list[float], suffix: str = "", name: str = ""):
        super().__init__()
        self.setObjectName(name)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.spins = [_spin(v, suffix=suffix) for v in values]
        for s in self.spins:
            lay.addWidget(s)

    def value(self) -> list[float]:
        return [s.value() for s in self.spins]

    def set_value(self, values: list[float]) -> None:
        for s, v in zip(self.spins, values):
            s.setValue(float(v))


class TreeEditor(QScrollArea):
    def __init__(self, document: Document, parent: Any = None):
        super().__init__(parent)
        self.document = document
        self.setObjectName("tree_editor")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        page = QWidget()
        lay = QVBoxLayout(page)
        self.info = QLabel("Build a tree of bodies connected by spherical joints (spatial model). Points are in "
                           "the body frames [m]; the rotation vector (axis × angle, body to world) gives the "
                           "initial orientation.")
        self.info.setWordWrap(True)
        lay.addWidget(self.info)

        box = QGroupBox("Add child body through a spherical joint")
        form = QFormLayout(box)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.parent_combo = QComboBox()
        self.parent_combo.setObjectName("tree_parent")
        self.parent_combo.currentTextChanged.connect(self._on_parent_changed)
        form.addRow("parent", self.parent_combo)
        self.parent_point = QComboBox()
        self.parent_point.setObjectName("tree_parent_point")
        self.parent_point.setEditable(True)
        form.addRow("hinge point on parent", self.parent_point)
        self.parent_point_xyz = Vector([0.0, 0.0, 0.0], "m", "tree_parent_point_xyz")
        form.addRow("  new point at", self.parent_point_xyz)
        self.name = QLineEdit()
        self.name.setObjectName("tree_name")
        form.addRow("child name", self.name)
        self.mass = _spin(1.0, 1e-9, 1e6, suffix="kg")
        self.mass.setObjectName("tree_mass")
        form.addRow("mass", self.mass)
        grid_box = QWidget()
        grid = QGridLayout(grid_box)
        grid.setContentsMargins(0, 0, 0, 0)
        self.inertia = [[_spin(0.0, -1e6, 1e6, decimals=12) for _ in range(3)] for _ in range(3)]
        for r in range(3):
            for c in range(3):
                self.inertia[r][c].setObjectName(f"tree_inertia_{r}{c}")
                grid.addWidget(self.inertia[r][c], r, c)
                if r != c:
                    self.inertia[r][c].valueChanged.connect(lambda v, r=r, c=c: self._mirror(r, c, v))
        form.addRow("inertia [kg m²]", grid_box)
        helper = QWidget()
        h = QHBoxLayout(helper)
        h.setContentsMargins(0, 0, 0, 0)
        self.helper_kind = QComboBox()
        self.helper_kind.addItems(["rod", "box", "cylinder", "sphere"])
        self.helper_kind.setObjectName("tree_helper_kind")
        self.helper_dims = QLineEdit("0.5")
        self.helper_dims.setMinimumWidth(50)
        self.helper_dims.setObjectName("tree_helper_dims")
        self.helper_dims.setToolTip("rod: length; box: a b c; cylinder: radius length; sphere: radius [m]")
        apply = QPushButton("Fill")
        apply.setObjectName("tree_helper_apply")
        apply.clicked.connect(self.apply_helper)
        h.addWidget(self.helper_kind)
        h.addWidget(self.helper_dims, 1)
        h.addWidget(apply)
        form.addRow("inertia helper", helper)
        self.in_point = Vector([0.0, 0.0, 0.25], "m", "tree_in_point")
        form.addRow("hinge 'in'", self.in_point)
        self.has_out = QCheckBox("end point 'out' for the next child")
        self.has_out.setObjectName("tree_has_out")
        self.has_out.setChecked(True)
        form.addRow(self.has_out)
        self.out_point = Vector([0.0, 0.0, -0.25], "m", "tree_out_point")
        form.addRow("hinge 'out'", self.out_point)
        self.rotvec = Vector([0.0, 0.0, 0.0], "rad", "tree_rotvec")
        form.addRow("rotation vector", self.rotvec)
        self.quaternion = QLineEdit()
        self.quaternion.setMinimumWidth(60)
        self.quaternion.setObjectName("tree_quaternion")
        self.quaternion.setPlaceholderText("or quaternion w x y z (overrides)")
        form.addRow("", self.quaternion)
        self.omega = Vector([0.0, 0.0, 0.0], "rad/s", "tree_omega")
        form.addRow("ω (world)", self.omega)
        self.add_button = QPushButton("Add child")
        self.add_button.setObjectName("tree_add")
        self.add_button.clicked.connect(self.add_child)
        form.addRow(self.add_button)
        lay.addWidget(box)

        disk = QGroupBox("Rolling disk")
        dform = QFormLayout(disk)
        self.disk_radius = _spin(0.3, 1e-6, 100, suffix="m")
        self.disk_mass = _spin(1.0, 1e-9, 1e6, suffix="kg")
        dform.addRow("radius", self.disk_radius)
        dform.addRow("mass", self.disk_mass)
        b = QPushButton("Add rolling disk")
        b.setObjectName("tree_add_disk")
        b.clicked.connect(self.add_rolling_disk)
        dform.addRow(b)
        lay.addWidget(disk)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #c00")
        lay.addWidget(self.message)
        lay.addStretch(1)
        self.setWidget(page)
        document.sig_model_changed.connect(lambda _m: self._refresh_choices())
        document.sig_selection_changed.connect(self._on_document_selection_changed)
        self._refresh_choices()

    # ---- form ------------------------------------------------------------------------------------------
    def _mirror(self, r: int, c: int, v: float) -> None:
        other = self.inertia[c][r]
        if other.value() != v:
            other.setValue(v)

    def inertia_value(self) -> list[list[float]]:
        return [[self.inertia[r][c].value() for c in range(3)] for r in range(3)]

    def set_inertia(self, m: list[list[float]]) -> None:
        for r in range(3):
            for c in range(3):
                self.inertia[r][c].setValue(float(m[r][c]))

    def apply_helper(self) -> None:
        try:
            dims = [float(x) for x in self.helper_dims.text().replace(",", " ").split()]
            kind = self.helper_kind.currentText()
            fn = edit.INERTIA_HELPERS[kind]
            self.set_inertia(fn(self.mass.value(), *dims))
            self.message.setText("")
        except (ValueError, TypeError) as exc:
            self.message.setText(f"inertia helper: {exc}")

    def _refresh_choices(self) -> None:
        current = self.parent_combo.currentText()
        self.parent_combo.blockSignals(True)
        self.parent_combo.clear()
        self.parent_combo.addItems([GROUND] + edit.names(self.document.model, "bodies"))
        if current:
            self.parent_combo.setCurrentText(current)
        self.parent_combo.blockSignals(False)
        self._on_parent_changed(self.parent_combo.currentText())
        if not self.name.text() or self.name.text() in edit.all_names(self.document.model):
            self.name.setText(edit.unique_name(self.document.model, "link", "bodies"))

    def _on_parent_changed(self, parent: str) -> None:
        model = self.document.model
        if parent == GROUND:
            pts = list(model.data.get("ground", {}).get("points", {}))
            default = "O"
        else:
            try:
                pts = list(edit.element(model, "bodies", parent).get("points", {}))
            except KeyError:
                pts = []
            default = "out"
        self.parent_point.clear()
        items = pts if default in pts else pts + [default]
        self.parent_point.addItems(items)
        self.parent_point.setCurrentText(default if default in items else (items[0] if items else default))

    def _on_document_selection_changed(self, keys: list[tuple[str, str]]) -> None:
        bodies = [n for c, n in keys if c == "bodies"]
        if len(bodies) == 1:
            self.parent_combo.setCurrentText(bodies[0])

    # ---- actions -----------------------------------------------------------------------------------------
    def _quaternion(self) -> list[float]:
        text = self.quaternion.text().strip()
        if text:
            q = [float(x) for x in text.replace(",", " ").split()]
            if len(q) != 4:
                raise ValueError("a quaternion has 4 components: w x y z")
            return q
        return edit.quaternion_from_rotation_vector(self.rotvec.value())

    def add_child(self) -> bool:
        """Push "Add <child>" built from the form; True when added."""
        parent = self.parent_combo.currentText() or GROUND
        point = self.parent_point.currentText().strip() or ("O" if parent == GROUND else "out")
        name = self.name.text().strip()
        try:
            color = edit.next_color(self.document.model)
            child = edit.tree_body(name, self.mass.value(), self.inertia_value(), in_point=self.in_point.value(),
                                   out_point=self.out_point.value() if self.has_out.isChecked() else None,
                                   quaternion=self._quaternion(), omega=self.omega.value(), color=color)
            new = edit.add_tree_body(self.document.base_model(), parent, point, child,
                                     parent_point_coords=self.parent_point_xyz.value())
        except ModelError as exc:
            self.message.setText("\n".join(d.format() for d in exc.diagnostics[:6]))
            return False
        except (ValueError, KeyError) as exc:
            self.message.setText(str(exc))
            return False
        self.message.setText("")
        self.document.push_edit(new, f"Add {name} to {parent}")
        self.document.set_selection([("bodies", name)])
        self.name.setText(edit.unique_name(self.document.model, "link", "bodies"))
        return True

    def add_rolling_disk(self) -> bool:
        name = edit.unique_name(self.document.model, "disk", "bodies")
        try:
            new = edit.add_rolling_disk(self.document.base_model(), name, radius=self.disk_radius.value(),
                                        mass=self.disk_mass.value(),
                                        center=(0.0, 0.0, self.disk_radius.value()))
        except ModelError as exc:
            self.message.setText("\n".join(d.format() for d in exc.diagnostics[:6]))
            return False
        self.document.push_edit(new, f"Add rolling disk {name}")
        self.document.set_selection([("bodies", name)])
        return True
