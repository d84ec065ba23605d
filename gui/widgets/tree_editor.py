"""Spatial tree editor: add a body as a child of the selected body (or the ground) through a spatial joint —
its type (spherical, hinge, slider, cylindrical, universal, fixed), its axis in the parent's and in the child's
frame, the joint's spring and damper fields, hinge points, mass, full inertia tensor (with rod / box / cylinder /
sphere helpers), initial orientation (rotation vector or quaternion) and angular velocity — and add rolling disks.

The form only prepares values; "Add child" pushes one command (one undo step) built with
``mechstudio.core.model.edit.add_tree_body``, which writes the same JSON structure as
``sample_models/spherical_chain_3.json``; a joint of another type is that spherical joint with its type, axes and
fields replaced (docs/spatial-joints.md). The joint's number fields (spring, damping, free angle, ...) are built
from the element type's declared ``fields`` (core/elements/<type>.py), as the inspector builds its rows; drivers and
loads (time functions) are set in Properties once the joint exists.

Axes: ``axis1`` in the parent's frame (default: the type's declared default, z; x for a universal joint) and
``axis2`` in the child's frame. By default ``axis2`` follows: it is the same world direction as ``axis1``
(``A_child^T A_parent axis1``, so it changes with the child's initial orientation); for a universal joint it is
the perpendicular cross axis ``f`` of ``axis1``'s frame (core/elements/primitives/spatial_rows.axis_frame: y for
x), turned the same way. A zero axis is refused under the axes. A model with such a joint is run in maximal
coordinates, where every body needs a rough position: the edit writes ``initial.x, y, z`` of the child (its
``in`` point on the parent's point) and of every body that had none (its assembled pose).

Every default is a valid body: the inertia starts as the default rod's (length 0.5 m between the default hinges,
radius :data:`~core.model.edit.TREE_ROD_RADIUS`), and follows the mass while nobody typed another tensor. The
"rod" shape is a solid cylinder of finite radius, so its three principal moments are positive and satisfy the
triangle inequality J3 <= J1 + J2 (a line rod of zero radius has an axial moment of 0: not a rigid body's
inertia). A refused body gets a message in the form's own words, right under the button, word-wrapped.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QDoubleSpinBox, QFormLayout, QGridLayout, QGroupBox,
                               QHBoxLayout, QLabel, QLineEdit, QPushButton, QScrollArea, QSizePolicy, QVBoxLayout,
                               QWidget)

from mechstudio.core.elements import element_type
from mechstudio.core.elements.fields import Field, Number
from mechstudio.core.elements.primitives.spatial_rows import axis_frame
from mechstudio.core.errors import ModelError
from mechstudio.core.model import GROUND
from mechstudio.core.model import edit
from mechstudio.core.model.spatial_joints import uses_maximal_joints
from mechstudio.core.numerics.orientation import quat_to_matrix
from mechstudio.gui.document import Document
from mechstudio.gui.view3d.geometry import Poser
from mechstudio.gui.widgets.inspector import FieldComboBox, FieldSpinBox  # the wheel acts only with focus

NEW_POINT = "(new point)"
#: the joint types a child can hang from (element types of core/elements)
JOINT_TYPES = ("spherical", "hinge", "slider", "cylindrical", "universal", "fixed_joint")
#: the fields the form sets itself (the joint's ends and axes); the other number fields get their own widgets
OWN_KEYS = ("body1", "point1", "body2", "point2", "axis1", "axis2")
#: what the axis is called, per joint type (row labels and messages)
AXIS_WORDS = {"hinge": "hinge axis", "slider": "sliding axis", "cylindrical": "joint axis",
              "universal": "cross axis", "fixed_joint": "reference axis"}


@dataclass(frozen=True)
class Shape:
    """An inertia helper: what to type (``dims``, in metres), its default, and the tensor about the centre."""

    dims: tuple[str, ...]  # what to type, in order [m]
    default: str
    inertia: Callable[..., list[list[float]]]  # (mass [kg], *dims [m]) -> 3x3 [kg m^2]
    required: int = 0  # how many of ``dims`` must be given (0: all); the others have defaults

    @property
    def hint(self) -> str:
        return " ".join(self.dims)


def rod_inertia(mass: float, length: float, radius: float = edit.TREE_ROD_RADIUS) -> list[list[float]]:
    """A rod along body z as a solid cylinder of finite ``radius`` (a zero radius gives a singular tensor)."""
    return edit.inertia_cylinder(mass, radius, length)


SHAPES: dict[str, Shape] = {
    "rod": Shape(("length", "radius"), f"0.5 {edit.TREE_ROD_RADIUS:g}", rod_inertia, required=1),
    "box": Shape(("a", "b", "c"), "0.1 0.1 0.5", edit.inertia_box),
    "cylinder": Shape(("radius", "length"), "0.05 0.5", edit.inertia_cylinder),
    "sphere": Shape(("radius",), "0.1", edit.inertia_sphere),
}


def inertia_problem(inertia: list[list[float]]) -> str | None:
    """Why a tensor cannot be a rigid body's inertia about its centre of mass, in a user's words; None if it can.

    A rigid body's principal moments J1 <= J2 <= J3 are positive and satisfy J3 <= J1 + J2 (J3 = ∫(x²+y²) dm
    <= ∫(x²+z²) dm + ∫(y²+z²) dm)."""
    J = np.linalg.eigvalsh(np.asarray(inertia, float))
    moments = ", ".join(f"{x:.4g}" for x in J)
    hint = "Pick a shape under “inertia from shape” and press Fill, or type other values."
    if np.any(J <= 0):
        return (f"The inertia must have three positive principal moments; these are {moments} kg m². "
                f"A rod needs a radius. {hint}")
    if J[2] > J[0] + J[1] + 1e-12 * J[2]:
        return (f"No real body has these moments of inertia ({moments} kg m²): the largest is more than the "
                f"sum of the other two. {hint}")
    return None


def user_message(exc: ModelError) -> str:
    """The diagnostics of a refused edit without the file and JSON path (the form is the place)."""
    return "\n".join(d.message for d in exc.diagnostics[:6])


class NumberBox(FieldSpinBox):
    """A spin box that shows its value with the digits it needs ("0.25", "0.0208333"), not a fixed count of
    decimals that a narrow field cuts off ("0.250000" as "0.2500("). The mouse wheel changes it only while it has
    the keyboard focus (as in Properties); over an unfocused field the wheel scrolls the panel."""

    digits = 6  # significant digits shown (the value keeps the spin box's decimals; the tooltip shows it all)

    def textFromValue(self, value: float) -> str:
        return f"{value:.{self.digits}g}"

    def valueFromText(self, text: str) -> float:
        """The shown text of the current value means the current value (Enter must not round it to the text)."""
        bare = text.strip()
        for part in (self.prefix().strip(), self.suffix().strip()):
            bare = bare.replace(part, "").strip() if part else bare
        if bare == self.textFromValue(self.value()):
            return self.value()
        return super().valueFromText(text)


def _spin(value: float = 0.0, lo: float = -1e6, hi: float = 1e6, decimals: int = 6, suffix: str = "") -> QDoubleSpinBox:
    w = NumberBox()
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
    #: narrower than this [px], every label goes above its field: three numbers of a row then keep their digits
    #: (beside a label column they would be cut to "0.02(" in a panel of a 1366 px wide window)
    WRAP_BELOW_PX = 480

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        policy = (QFormLayout.RowWrapPolicy.WrapAllRows if self.viewport().width() < self.WRAP_BELOW_PX
                  else QFormLayout.RowWrapPolicy.WrapLongRows)
        for form in getattr(self, "forms", []):
            if form.rowWrapPolicy() != policy:
                form.setRowWrapPolicy(policy)

    def __init__(self, document: Document, parent: Any = None):
        super().__init__(parent)
        self.document = document
        self.setObjectName("tree_editor")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        page = QWidget()
        lay = QVBoxLayout(page)
        self.info = QLabel("Build a spatial mechanism: each child body hangs from its parent (or the ground) by a "
                           "joint of the type you choose. Points are in the body frames [m]; the rotation vector "
                           "(axis × angle, body to world) gives the initial orientation. Drivers and loads of a "
                           "joint are set in Properties once it exists.")
        self.info.setWordWrap(True)
        lay.addWidget(self.info)

        box = QGroupBox("Add child body")
        form = QFormLayout(box)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.forms = [form]  # narrow: every label goes above its field (see resizeEvent)
        self.parent_combo = FieldComboBox()
        self.parent_combo.setObjectName("tree_parent")
        self.parent_combo.currentTextChanged.connect(self._on_parent_changed)
        form.addRow("parent", self.parent_combo)
        self.parent_point = FieldComboBox()
        self.parent_point.setObjectName("tree_parent_point")
        self.parent_point.setEditable(True)
        form.addRow("joint point on parent", self.parent_point)
        self.parent_point_xyz = Vector([0.0, 0.0, 0.0], "m", "tree_parent_point_xyz")
        form.addRow("  new point at", self.parent_point_xyz)
        self.joint_type = FieldComboBox()
        self.joint_type.setObjectName("tree_joint_type")
        for t in JOINT_TYPES:
            self.joint_type.addItem(element_type(t, "joints").editor.label, t)
        form.addRow("joint", self.joint_type)
        self.axis1 = Vector(list(self._default_axes("hinge")[0]), "", "tree_axis1")
        form.addRow("axis (parent's frame)", self.axis1)
        self.axis2_follows = QCheckBox("the same world direction (from the orientations)")
        self.axis2_follows.setObjectName("tree_axis2_follows")
        self.axis2_follows.setChecked(True)
        form.addRow(self.axis2_follows)
        self.axis2 = Vector(list(self._default_axes("hinge")[1]), "", "tree_axis2")
        form.addRow("axis (child's frame)", self.axis2)
        self.axis_message = QLabel()
        self.axis_message.setObjectName("tree_axis_message")
        self.axis_message.setWordWrap(True)
        self.axis_message.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        self.axis_message.setStyleSheet("color: #c00")
        form.addRow(self.axis_message)
        # the number fields of each joint type, from its declared fields (one page per type, the chosen one shown)
        self.joint_fields: dict[str, dict[str, tuple[Field, QDoubleSpinBox]]] = {}
        self.joint_pages: dict[str, QWidget] = {}
        for t in JOINT_TYPES:
            page_t = QWidget()
            page_t.setObjectName(f"tree_fields_{t}")
            f_form = QFormLayout(page_t)
            f_form.setContentsMargins(0, 0, 0, 0)
            f_form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
            self.forms.append(f_form)
            self.joint_fields[t] = {}
            for f in element_type(t, "joints").fields:
                if f.key in OWN_KEYS or not isinstance(f, Number) or f.default is None:
                    continue
                w = _spin(float(f.default), suffix=f.unit)
                w.setObjectName(f"tree_field_{t}_{f.key}")
                w.setToolTip(f.description())
                f_form.addRow(f.key.replace("_", " "), w)
                self.joint_fields[t][f.key] = (f, w)
            form.addRow(page_t)
            self.joint_pages[t] = page_t
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
                self.inertia[r][c].digits = 4  # (narrow fields)
                self.inertia[r][c].valueChanged.connect(
                    lambda v, w=self.inertia[r][c]: w.setToolTip(f"{v:.12g} kg m²"))
                grid.addWidget(self.inertia[r][c], r, c)
                if r != c:
                    self.inertia[r][c].valueChanged.connect(lambda v, r=r, c=c: self._mirror(r, c, v))
        form.addRow("inertia [kg m²]", grid_box)
        helper = QWidget()
        h = QHBoxLayout(helper)
        h.setContentsMargins(0, 0, 0, 0)
        self.helper_kind = FieldComboBox()
        self.helper_kind.addItems(list(SHAPES))
        self.helper_kind.setObjectName("tree_helper_kind")
        self.helper_dims = QLineEdit(SHAPES["rod"].default)
        self.helper_dims.setMinimumWidth(50)
        self.helper_dims.setObjectName("tree_helper_dims")
        self.helper_kind.currentTextChanged.connect(self._on_shape_changed)
        self._on_shape_changed("rod")
        apply = QPushButton("Fill")
        apply.setObjectName("tree_helper_apply")
        apply.clicked.connect(self.apply_helper)
        h.addWidget(self.helper_kind)
        h.addWidget(self.helper_dims, 1)
        h.addWidget(apply)
        form.addRow("inertia from shape", helper)
        self.in_point = Vector([0.0, 0.0, 0.25], "m", "tree_in_point")
        form.addRow("joint point 'in'", self.in_point)
        self.has_out = QCheckBox("end point 'out' for the next child")
        self.has_out.setObjectName("tree_has_out")
        self.has_out.setChecked(True)
        form.addRow(self.has_out)
        self.out_point = Vector([0.0, 0.0, -0.25], "m", "tree_out_point")
        form.addRow("joint point 'out'", self.out_point)
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
        self.message = QLabel()
        self.message.setObjectName("tree_message")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        self.message.setStyleSheet("color: #c00")
        self.message.hide()
        form.addRow(self.message)
        lay.addWidget(box)

        disk = QGroupBox("Rolling disk")
        dform = QFormLayout(disk)
        self.forms.append(dform)
        self.disk_radius = _spin(0.3, 1e-6, 100, suffix="m")
        self.disk_mass = _spin(1.0, 1e-9, 1e6, suffix="kg")
        dform.addRow("radius", self.disk_radius)
        dform.addRow("mass", self.disk_mass)
        b = QPushButton("Add rolling disk")
        b.setObjectName("tree_add_disk")
        b.clicked.connect(self.add_rolling_disk)
        dform.addRow(b)
        lay.addWidget(disk)
        lay.addStretch(1)
        self.setWidget(page)
        document.sig_model_changed.connect(lambda _m: self._refresh_choices())
        document.sig_selection_changed.connect(self._on_document_selection_changed)
        self._helper_fill: list[list[float]] | None = None  # the tensor the helper wrote last
        self.apply_helper()
        self.mass.valueChanged.connect(self._on_mass_changed)
        self._joint_form = form
        self._shown_type = ""
        self.joint_type.currentIndexChanged.connect(lambda _i: self._on_joint_type_changed())
        self.axis2_follows.toggled.connect(lambda _on: self._update_axes())
        for w in (*self.axis1.spins, *self.axis2.spins, *self.rotvec.spins):
            w.valueChanged.connect(lambda _v: self._update_axes())
        self.quaternion.textChanged.connect(lambda _t: self._update_axes())
        self.parent_combo.currentTextChanged.connect(lambda _t: self._update_axes())
        self._refresh_choices()
        self._on_joint_type_changed()

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

    def show_message(self, text: str) -> None:
        """Show (or, with "", hide) the red message under "Add child", scrolled into view."""
        self.message.setText(text)
        self.message.setVisible(bool(text))
        if text:
            self.widget().adjustSize()
            self.ensureWidgetVisible(self.message)

    def _on_shape_changed(self, kind: str) -> None:
        shape = SHAPES.get(kind)
        if shape is None:
            return
        self.helper_dims.setText(shape.default)
        self.helper_dims.setPlaceholderText(shape.hint)
        self.helper_dims.setToolTip(f"{kind}: {shape.hint} [m]" + (" (box edges along body x, y, z)" if kind == "box"
                                                                  else " (axis along body z)" if kind != "sphere"
                                                                  else ""))

    def apply_helper(self) -> bool:
        """Fill the inertia tensor from the chosen shape, its dimensions and the mass; False (and a message) when
        the dimensions are not what the shape needs."""
        kind = self.helper_kind.currentText()
        shape = SHAPES[kind]
        try:
            dims = [float(x) for x in self.helper_dims.text().replace(",", " ").split()]
        except ValueError:
            dims = []
        required = shape.required or len(shape.dims)
        if not (required <= len(dims) <= len(shape.dims)) or any(not np.isfinite(d) or d <= 0 for d in dims):
            self.show_message(f"A {kind} needs its {', '.join(shape.dims)} in metres: positive numbers separated by "
                              f"spaces, e.g. “{shape.default}”.")
            return False
        fill = shape.inertia(self.mass.value(), *dims)
        self.set_inertia(fill)
        self._helper_fill = self.inertia_value()
        self.show_message("")
        return True

    def _on_mass_changed(self, _mass: float) -> None:
        """While the tensor is the helper's, it follows the mass (it is proportional to it)."""
        if self._helper_fill is not None and self.inertia_value() == self._helper_fill:
            self.apply_helper()

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

    # ---- joint type and axes ----------------------------------------------------------------------------------
    @staticmethod
    def _default_axes(joint: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The declared defaults of ``axis1`` and ``axis2`` of ``joint`` (z and z; x and y for a universal)."""
        fields = {f.key: f for f in element_type(joint, "joints").fields}
        return tuple(fields["axis1"].default), tuple(fields["axis2"].default)

    def current_joint_type(self) -> str:
        return str(self.joint_type.currentData() or "spherical")

    def _on_joint_type_changed(self) -> None:
        """Show the chosen type's axes and fields; an axis nobody typed takes the new type's default."""
        joint = self.current_joint_type()
        old = self._shown_type
        self._shown_type = joint
        if joint != "spherical":
            before = self._default_axes(old)[0] if old and old != "spherical" else self._default_axes("hinge")[0]
            if tuple(self.axis1.value()) == tuple(before):
                self.axis1.set_value(list(self._default_axes(joint)[0]))
        form = self._joint_form
        axes = joint != "spherical"
        for w in (self.axis1, self.axis2_follows, self.axis2, self.axis_message):
            form.setRowVisible(w, axes)
        words = AXIS_WORDS.get(joint, "axis")
        for w, frame in ((self.axis1, "parent's frame"), (self.axis2, "child's frame")):
            label = form.labelForField(w)
            if label is not None:
                label.setText(f"{words} ({frame})")
        self.axis2_follows.setText("perpendicular to the parent's cross axis (from the orientations)"
                                   if joint == "universal" else "the same world direction (from the orientations)")
        for t, page_t in self.joint_pages.items():
            form.setRowVisible(page_t, t == joint and bool(self.joint_fields[t]))
        self._update_axes()

    def _parent_pose(self, parent: str) -> tuple[np.ndarray, np.ndarray]:
        """(origin [m], rotation body -> world) of ``parent``'s frame in the document's assembled pose (the
        ground: the world)."""
        poses = self._poses()
        if parent in poses:
            return poses[parent]
        return np.zeros(3), np.eye(3)

    def _poses(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Every body's frame pose (origin, rotation) in the document's assembled configuration; {} without one."""
        a = self.document.analysis
        if a.system is None or a.q is None or not np.all(np.isfinite(np.asarray(a.q, float))):
            return {}
        try:
            return Poser(a.system).poses(np.asarray(a.q, float))
        except (AttributeError, KeyError, ValueError, IndexError):  # a system the poser does not know: no poses
            return {}

    def _child_rotation(self) -> np.ndarray:
        """The child's initial rotation (body -> world) from the rotation vector or the typed quaternion."""
        return quat_to_matrix(np.asarray([self._quaternion()], float))[0]

    def _update_axes(self) -> None:
        """Recompute a following ``axis2`` and say under the axes when one of them is zero."""
        joint = self.current_joint_type()
        if joint == "spherical" or not hasattr(self, "_joint_form") or getattr(self, "_updating_axes", False):
            return
        self._updating_axes = True
        try:
            self._follow_axes(joint)
        finally:
            self._updating_axes = False

    def _follow_axes(self, joint: str) -> None:
        following = self.axis2_follows.isChecked()
        for s in self.axis2.spins:
            s.setEnabled(not following)
        problem = self.axis_problem()
        if following and problem is None:
            try:
                A_c = self._child_rotation()
            except ValueError:  # a quaternion being typed: axis2 follows once it is complete
                A_c = None
            if A_c is not None:
                _o, A_p = self._parent_pose(self.parent_combo.currentText() or GROUND)
                h, f, _g = axis_frame(np.asarray(self.axis1.value(), float))
                world = A_p @ (f if joint == "universal" else h)
                a2 = A_c.T @ world
                a2[np.abs(a2) < 1e-12] = 0.0
                self.axis2.set_value([float(x) for x in a2])
        self.axis_message.setText(problem or "")
        self.axis_message.setVisible(bool(problem))

    def axis_problem(self) -> str | None:
        """Why the typed axes cannot be the joint's (a zero axis), in the form's words; None when they can."""
        joint = self.current_joint_type()
        if joint == "spherical":
            return None
        words = AXIS_WORDS.get(joint, "axis")
        for vec, frame in ((self.axis1, "parent's"), (self.axis2, "child's")):
            if not any(abs(x) > 0 for x in vec.value()):
                return (f"The {words} in the {frame} frame is zero: a joint axis needs a direction. Type three "
                        "numbers that are not all zero, e.g. 0 0 1.")
        return None

    def joint_values(self) -> dict[str, Any]:
        """The chosen type's number fields that differ from their defaults, as the joint's JSON keys."""
        return {key: w.value() for key, (f, w) in self.joint_fields[self.current_joint_type()].items()
                if w.value() != f.default}

    def field_problem(self) -> str | None:
        """The first joint field the element type refuses (a negative spring, ...), in its words."""
        for key, (f, w) in self.joint_fields[self.current_joint_type()].items():
            why = f.value_problem(w.value())
            if why:
                return f"The joint's {why}."
        return None

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
        problem = inertia_problem(self.inertia_value())
        if problem:
            self.show_message(problem)
            return False
        if not name:
            self.show_message("Give the child body a name.")
            return False
        joint = self.current_joint_type()
        problem = self.axis_problem() or self.field_problem()
        if problem:
            self.show_message(problem)
            return False
        try:
            color = edit.next_color(self.document.model)
            child = edit.tree_body(name, self.mass.value(), self.inertia_value(), in_point=self.in_point.value(),
                                   out_point=self.out_point.value() if self.has_out.isChecked() else None,
                                   quaternion=self._quaternion(), omega=self.omega.value(), color=color)
            plain = joint == "spherical" and not self.joint_values() and not uses_maximal_joints(
                self.document.model.data)
            new = edit.add_tree_body(self.document.base_model(), parent, point, child,
                                     parent_point_coords=self.parent_point_xyz.value(), validate=plain)
            if not plain:
                new = self._with_joint(new, parent, point, name)
        except ModelError as exc:
            self.show_message(user_message(exc))
            return False
        except (ValueError, KeyError) as exc:
            self.show_message(f"Cannot add {name}: {exc}")
            return False
        self.show_message("")
        how = "" if joint == "spherical" else f" by a {element_type(joint, 'joints').editor.label.lower()}"
        self.document.push_edit(new, f"Add {name} to {parent}{how}")
        self.document.set_selection([("bodies", name)])
        self.name.setText(edit.unique_name(self.document.model, "link", "bodies"))
        return True

    def _with_joint(self, model: Any, parent: str, point: str, name: str) -> Any:
        """``model`` (the child just hung by a spherical joint, not validated) with the chosen joint: its type,
        axes and fields, and the rough positions a maximal-coordinate model needs (module docstring)."""
        joint = self.current_joint_type()
        values = self.joint_values()
        poses = self._poses()
        o_p, A_p = self._parent_pose(parent)
        A_c = self._child_rotation()

        def fn(d: dict[str, Any]) -> None:
            j = d["joints"][-1]
            j["type"] = joint
            if joint != "spherical":
                j["axis1"] = [float(x) for x in self.axis1.value()]
                j["axis2"] = [float(x) for x in self.axis2.value()]
            j.update(values)
            if not uses_maximal_joints(d):
                return
            pp = (d.get("ground", {}).get("points", {}) if parent == GROUND
                  else edit.element(d, "bodies", parent).get("points", {}))
            P = o_p + A_p @ np.asarray(pp.get(point, [0.0, 0.0, 0.0]), float)
            for b in d.get("bodies", []):
                init = b.setdefault("initial", {})
                if b["name"] == name:
                    origin = P - A_c @ np.asarray(b["points"]["in"], float)
                elif all(k in init for k in ("x", "y", "z")) or b["name"] not in poses:
                    continue
                else:
                    origin = poses[b["name"]][0]
                init.update({k: float(v) for k, v in zip(("x", "y", "z"), origin)})
        return edit.transform(model, fn)

    def add_rolling_disk(self) -> bool:
        name = edit.unique_name(self.document.model, "disk", "bodies")
        try:
            new = edit.add_rolling_disk(self.document.base_model(), name, radius=self.disk_radius.value(),
                                        mass=self.disk_mass.value(),
                                        center=(0.0, 0.0, self.disk_radius.value()))
        except ModelError as exc:
            self.show_message(user_message(exc))
            return False
        self.show_message("")
        self.document.push_edit(new, f"Add rolling disk {name}")
        self.document.set_selection([("bodies", name)])
        return True
