"""Property inspector: every field of the selected element, with units and validation.

A joint, driver or force is shown from its element type's field declarations (core/elements/<type>.py,
core/elements/fields.py), in their order: a number with its unit (an angle in degrees when the View menu says
so) and refused at the field outside its bounds; a reference as a chooser of the valid targets only (a body
field lists the bodies, a gear pair's joint fields the revolute joints, a rack's the prismatic ones, a choice its
values, a named point the points of its body); a direction as a vector that may not be zero; a time function
with the unit of its value. An optional field the file omits is shown with its default. Bodies, ground points
and the model's own fields are generated from their JSON. Every field is bound to its JSON pointer. Typing or spinning previews live: each change pushes a command that merges with the previous ones of
the same field-editing session, so when editing finishes (focus leaves, Enter) the whole session is one undo
step, named after the element, the field and the value ("Set crank.mass to 2 kg").

* Every number field accepts a minus sign; a value outside the field's range (a mass of 0 or -1, a negative
  stiffness) or one the model rejects (a name already used, ...) is not applied: the field turns red and the
  reason appears right under it, and the model keeps its value.
* The mouse wheel changes a field only while it has keyboard focus (click or Tab into it first); over an
  unfocused field the wheel scrolls the inspector.
* Context-menu hook for other tools (e.g. a parameter sweep): :meth:`Inspector.add_field_action` adds an entry
  to the right-click menu of every number field, and :attr:`Inspector.fieldContextMenuRequested` is emitted
  with the field's JSON pointer and the global position whenever such a menu opens.

Model -> widget updates run under ``QSignalBlocker`` (no feedback loop). Time functions (drivers, loads) get a
type selector and a preview plot over the simulation time.
"""
from __future__ import annotations

import itertools
import math
from typing import Any, Callable

from PySide6.QtCore import QEvent, QObject, QPoint, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QContextMenuEvent, QWheelEvent
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
                               QMenu, QScrollArea, QSizePolicy, QVBoxLayout, QWidget)

from mechstudio.core.elements import SECTIONS, element_type
from mechstudio.core.elements.fields import Field, Number
from mechstudio.core.errors import ModelError, UnknownNameError
from mechstudio.core.model import GROUND
from mechstudio.core.model import edit
from mechstudio.gui.document import Document
from mechstudio.gui.editor import traced_points

_sessions = itertools.count(1)

LENGTH_KEYS = {"x", "y", "z", "com", "radius", "width", "free_length", "size", "thickness", "from", "to",
               "center", "point", "point1", "point2", "vertices", "points"}
ANGLE_KEYS = {"phi", "angle", "free_angle", "phase", "psi", "theta"}
UNITS = {"mass": "kg", "inertia": "kg m²", "stiffness": "N/m", "damping": "N s/m", "speed": "/s",
         "frequency": "rad/s", "omega": "rad/s", "velocity": "m/s", "force": "N", "torque": "N m", "gravity": "m/s²",
         "t_end": "s", "dt": "s", "rtol": "", "atol": "", "amplitude": "", "offset": "", "initial": "",
         "spring": "N m/rad", "value": ""}
#: key -> (bound, strict): a value must be > bound (strict) or >= bound; every other number may be negative
MINIMA = {"mass": (0.0, True), "radius": (0.0, True), "width": (0.0, True), "thickness": (0.0, True),
          "stiffness": (0.0, False), "damping": (0.0, False), "free_length": (0.0, False), "t_end": (0.0, True),
          "dt": (0.0, True), "spring": (0.0, False)}
#: the widest range a number field offers (the model's own checks refuse what makes no sense)
FIELD_RANGE = 1e12
COMPONENT_NAMES = "xyz"
TIME_FUNCTION_DEFAULTS = {
    "constant": 0.0,
    "constant_speed": {"type": "constant_speed", "initial": 0.0, "speed": 1.0},
    "polynomial": {"type": "polynomial", "coefficients": [0.0, 1.0]},
    "harmonic": {"type": "harmonic", "amplitude": 1.0, "frequency": 6.283185307179586, "phase": 0.0, "offset": 0.0},
    "expression": {"type": "expression", "expression": "sin(t)"},
}
TIME_FUNCTION_KEYS = {"function"}  # keys whose value is a time function (plus force/torque components)
#: a time function's parameters whose unit is the unit of its value (speed: that unit per second)
VALUE_PARAMETERS = ("value", "initial", "amplitude", "offset")
ERROR_STYLE = "background: #ffd6d6"


class FieldSpinBox(QDoubleSpinBox):
    """A number field: the wheel works only with keyboard focus; values shown without trailing zeros."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the wheel does not take focus

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt API
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()  # the scroll area scrolls instead

    def textFromValue(self, value: float) -> str:  # noqa: N802 - Qt API
        text = self.locale().toString(value, "f", self.decimals())
        point = self.locale().decimalPoint()
        if point in text:
            text = text.rstrip("0").rstrip(point)
        return text


class FieldComboBox(QComboBox):
    """A choice field: the wheel works only with keyboard focus."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt API
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()


def format_number(value: float) -> str:
    """A number as a user reads it: up to 6 significant digits, no trailing zeros."""
    return f"{value:.6g}"


class Inspector(QScrollArea):
    """See the module docstring. ``angle_unit()`` returns "deg" or "rad" (the View menu's units display)."""

    fieldContextMenuRequested = Signal(str, QPoint)
    """A number field's right-click menu opens: (JSON pointer of the field, global position)."""

    def __init__(self, document: Document, angle_unit: Callable[[], str] = lambda: "deg", parent: Any = None):
        super().__init__(parent)
        self.document = document
        self.angle_unit = angle_unit
        self.setObjectName("inspector")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._key: tuple[str, str] | None = None
        self._shape: Any = None
        self._fields: dict[str, QWidget] = {}
        self._errors: dict[str, QLabel] = {}  # field pointer -> the message label right under its row
        self._field_of: dict[QObject, str] = {}  # number field widget -> its pointer (context menu)
        self._field_actions: list[tuple[str, Callable[[str], None]]] = []
        self._updaters: dict[str, Callable[[Any], None]] = {}
        self._checks: dict[str, Callable[[Any], str | None]] = {}  # field pointer -> its declared check
        self._views: dict[str, tuple[Callable[[float], float], str]] = {}  # number field -> (file -> view, unit)
        #: callables (menu, pointer) adding entries to a numeric field's context menu (gui.sweep: "Sweep this")
        self.field_menu_hooks: list[Callable[[QMenu, str], None]] = []
        self._session = next(_sessions)
        self.error_label = QLabel()  # the label of the latest refusal (tests and tools read it)
        self._plot: Any = None
        self._busy = 0
        self._deferred = False
        self._deferred_force = False
        document.sig_selection_changed.connect(lambda _k: self.refresh(force=True))
        document.sig_model_changed.connect(lambda _m: self.refresh())
        self.refresh(force=True)

    # ---- building ----------------------------------------------------------------------------------------
    def _element(self) -> tuple[str, Any] | None:
        sel = self.document.selection
        if len(sel) != 1:
            return None
        coll, name = sel[0]
        model = self.document.model
        try:
            if coll == "ground_points":
                return edit.element_pointer(model, coll, name), model.data["ground"]["points"][name]
            return edit.element_pointer(model, coll, name), edit.element(model, coll, name)
        except KeyError:
            return None

    @staticmethod
    def _shape_of(value: Any) -> Any:
        if isinstance(value, dict):
            return tuple((k, Inspector._shape_of(v)) for k, v in value.items())
        if isinstance(value, list):
            return tuple(Inspector._shape_of(v) for v in value)
        return type(value).__name__ if not isinstance(value, (int, float)) or isinstance(value, bool) else "num"

    def refresh(self, force: bool = False) -> None:
        """Update the field values, or rebuild the form when the element or its structure changed.

        A rebuild requested from inside one of the form's own signal handlers is deferred to the event loop:
        the form must not delete the widget whose signal is being delivered.
        """
        if self._busy:
            self._deferred_force = self._deferred_force or force
            if not self._deferred:
                self._deferred = True
                QTimer.singleShot(0, self._run_deferred)
            return
        self._refresh(force)

    def _run_deferred(self) -> None:
        force, self._deferred, self._deferred_force = self._deferred_force, False, False
        self._refresh(force)

    def _refresh(self, force: bool) -> None:
        found = self._element()
        key = tuple(self.document.selection[0]) if found else None
        shape = self._shape_of(found[1]) if found else None
        if not force and key == self._key and shape == self._shape and found is not None:
            self._update_values(found[0], found[1])
            return
        self._key, self._shape = key, shape
        self._fields, self._updaters, self._errors, self._field_of, self._checks, self._views = {}, {}, {}, {}, {}, {}
        self._plot = None
        page = QWidget()
        lay = QVBoxLayout(page)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setVerticalSpacing(4)
        lay.addLayout(form)
        self.error_label = QLabel()
        if found is None:
            n = len(self.document.selection)
            form.addRow(QLabel("Select one element to edit its properties." if n != 1 else ""))
            if n > 1:
                form.addRow(QLabel(f"{n} elements selected."))
            self._model_fields(form)
        else:
            pointer, value = found
            coll, name = self.document.selection[0]
            title = QLabel(f"<b>{name}</b> — {edit.collection_word(coll)}")
            form.addRow(title)
            if coll == "ground_points":
                self._name_row(form, coll, name)
                self._vector_row(form, "position", pointer, value, "x, y" if len(value) == 2 else "x, y, z", "m")
            else:
                self._dict_rows(form, pointer, value, coll)
        lay.addStretch(1)
        self.setWidget(page)

    def _add_row(self, form: QFormLayout, label: str, editor: QWidget, pointers: list[str]) -> None:
        """Add ``editor`` as a form row with a (hidden) message label right under it for ``pointers``."""
        box = QWidget()
        v = QVBoxLayout(box)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(1)
        v.addWidget(editor)
        message = QLabel()
        message.setObjectName("error:" + (pointers[0] if pointers else ""))
        message.setStyleSheet("color: #c00")
        message.setWordWrap(True)
        message.hide()
        v.addWidget(message)
        for ptr in pointers:
            self._errors[ptr] = message
        form.addRow(label, box)

    def _model_fields(self, form: QFormLayout) -> None:
        data = self.document.model.data
        form.addRow(QLabel("<b>Model</b>"))
        w = QLineEdit(str(data.get("name", "")))
        w.setObjectName("field:/name")
        w.editingFinished.connect(lambda w=w: self._set("/name", w.text(), session_end=True))
        self._add_row(form, "name", w, ["/name"])
        self._fields["/name"] = w
        d = QLineEdit(str(data.get("description", "")))
        d.setObjectName("field:/description")
        d.editingFinished.connect(lambda d=d: self._set("/description", d.text(), session_end=True))
        self._add_row(form, "description", d, ["/description"])
        self._fields["/description"] = d
        form.addRow("kind", QLabel(str(data.get("kind", "planar"))))
        if "gravity" in data:
            self._vector_row(form, "gravity", "/gravity", data["gravity"], "gravity", "m/s²")

    def _name_row(self, form: QFormLayout, coll: str, name: str) -> None:
        w = QLineEdit(name)
        w.setObjectName("field:name")
        w.editingFinished.connect(lambda w=w, coll=coll: self._rename(coll, w.text()))
        self._add_row(form, "name", w, ["name"])
        self._fields["name"] = w

    def _dict_rows(self, form: QFormLayout, pointer: str, value: dict[str, Any], coll: str, depth: int = 0) -> None:
        if depth == 0 and coll in SECTIONS and self._element_rows(form, pointer, value, coll):
            return
        for key, v in value.items():
            ptr = f"{pointer}/{edit.join_pointer(key)[1:]}"
            label = ("  " * depth) + key
            if key == "name" and depth == 0:
                self._name_row(form, coll, v)
            elif key == "type":
                form.addRow(label, QLabel(str(v)))
            elif key in ("body", "body1", "body2"):
                self._choice_row(form, label, ptr, v, [GROUND] + edit.names(self.document.model, "bodies"))
            elif key == "joint":
                self._choice_row(form, label, ptr, v, edit.names(self.document.model, "joints"))
            elif key == "coordinate":
                self._choice_row(form, label, ptr, v, ["x", "y", "phi"] if self.document.model.kind == "planar"
                                 else ["x", "y", "z", "phi", "psi", "theta"])
            elif key in TIME_FUNCTION_KEYS or (key in ("force", "torque") and coll == "forces"):
                self._time_function_rows(form, label, ptr, v)
            elif isinstance(v, bool):
                w = QCheckBox()
                w.setChecked(v)
                w.toggled.connect(lambda on, ptr=ptr: self._set(ptr, bool(on), session_end=True))
                self._fields[ptr] = w
                self._add_row(form, label, w, [ptr])
            elif isinstance(v, (int, float)):
                self._number_row(form, label, ptr, key, v)
            elif isinstance(v, str):
                w = QLineEdit(v)
                w.setObjectName(f"field:{ptr}")
                w.editingFinished.connect(lambda w=w, ptr=ptr: self._set(ptr, w.text(), session_end=True))
                self._fields[ptr] = w
                self._updaters[ptr] = lambda val, w=w: w.setText(str(val))
                self._add_row(form, label, w, [ptr])
            elif isinstance(v, list) and v and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                   for x in v):
                self._vector_row(form, label, ptr, v, key, self._unit(key))
            elif isinstance(v, list) and v and all(isinstance(x, list) for x in v):
                form.addRow(QLabel(label))
                for i, row in enumerate(v):
                    self._vector_row(form, f"{'  ' * (depth + 1)}[{i}]", f"{ptr}/{i}", row, key, self._unit(key))
            elif isinstance(v, list) and key == "hold":
                form.addRow(label, QLabel(", ".join(map(str, v)) + "  (held during assembly)"))
            elif isinstance(v, list):
                form.addRow(QLabel(label))
                for i, item in enumerate(v):
                    if isinstance(item, dict):
                        self._dict_rows(form, f"{ptr}/{i}", item, coll, depth + 1)
            elif isinstance(v, dict):
                form.addRow(QLabel(f"<i>{label}</i>"))
                if key == "points" and coll == "bodies" and depth == 0:
                    for pname, pv in v.items():
                        self._body_point_row(form, value["name"], pname, f"{ptr}/{edit.join_pointer(pname)[1:]}", pv)
                elif key == "points":
                    for pname, pv in v.items():
                        self._vector_row(form, f"{'  ' * (depth + 1)}{pname}", f"{ptr}/{edit.join_pointer(pname)[1:]}",
                                         pv, "points", "m")
                else:
                    self._dict_rows(form, ptr, v, coll, depth + 1)

    # ---- element fields, from their declarations ------------------------------------------------------------
    def _element_rows(self, form: QFormLayout, pointer: str, item: dict[str, Any], coll: str) -> bool:
        """Rows of a joint, driver or force from its type's fields (module docstring); False for an unknown
        type (then the generic rows show the JSON)."""
        try:
            et = element_type(str(item.get("type")), coll)
        except UnknownNameError:
            return False
        self._name_row(form, coll, str(item.get("name", "")))
        type_label = QLabel(str(item.get("type")))
        type_label.setToolTip(et.editor.label)
        form.addRow("type", type_label)
        for f in et.fields:
            ptr = f"{pointer}/{edit.join_pointer(f.key)[1:]}"
            if isinstance(f, Number) and f.default is None:  # optional (unset: e.g. no friction)
                self._optional_number_row(form, f, ptr, item.get(f.key))
                continue
            if f.editor == "time_function" and f.default is None:  # optional (unset: e.g. a joint not driven)
                self._optional_number_row(form, f, ptr, item.get(f.key))
                if f.key in item:
                    self._time_function_rows(form, f"  {f.key}", ptr, item[f.key], unit=f.unit)
                continue
            if f.key in item:
                value = item[f.key]
            elif f.offered:
                value = list(f.default) if isinstance(f.default, tuple) else f.default
            else:
                continue
            self._field_row(form, f, ptr, value, item)
        for key, v in item.items():  # anything the type does not declare (the loader refuses it): as JSON
            if key not in ("name", "type") and key not in et.fields:
                self._dict_rows(form, pointer, {key: v}, coll, depth=1)
        return True

    def _field_row(self, form: QFormLayout, f: Field, ptr: str, value: Any, item: dict[str, Any]) -> None:
        """One declared field: its editor by kind (see the module docstring)."""
        label = f.key
        kind = f.editor
        choices = f.choices(self.document.model.data, item)
        if kind in ("body", "joint", "choice") or (kind == "point" and isinstance(value, str)):
            self._choice_row(form, label, ptr, str(value), choices or [])
        elif kind in ("number", "angle", "count"):
            self._add_row(form, label, self._spin(ptr, f.key, value, field=f), [ptr])
        elif kind == "flag":
            w = QCheckBox()
            w.setObjectName(f"field:{ptr}")
            w.setChecked(bool(value))
            w.toggled.connect(lambda on, ptr=ptr: self._set(ptr, bool(on), session_end=True))
            self._fields[ptr] = w
            self._updaters[ptr] = lambda val, w=w: w.setChecked(bool(val))
            self._add_row(form, label, w, [ptr])
        elif kind in ("point", "direction") and isinstance(value, list):
            self._vector_row(form, label, ptr, value, f.key, f.unit, field=f)
        elif kind in ("time_function", "time_functions"):
            self._time_function_rows(form, label, ptr, value, unit=f.unit)
        else:  # pragma: no cover - every field kind is handled above
            self._dict_rows(form, ptr.rsplit("/", 1)[0], {f.key: value}, "", depth=1)
        for p, w in self._fields.items():  # the field's description on its editors
            if (p == ptr or p.startswith(ptr + "/")) and not w.toolTip():
                w.setToolTip(f.description())

    def _body_point_row(self, form: QFormLayout, body: str, point: str, ptr: str, value: list[Any]) -> None:
        """A named point of a body: its name (editable: renaming updates every reference and the trace tick,
        ``mechstudio.gui.editor.traced_points.rename_point``) beside its body-frame coordinates."""
        name = QLineEdit(point)
        name.setObjectName(f"field:{ptr}#name")
        name.setToolTip(f"Name of the point {body}.{point}: type a new name to rename it (joints, forces and the "
                        "trace tick follow)")
        name.setMaximumWidth(max(name.fontMetrics().horizontalAdvance("M" * 8), 60))
        name.editingFinished.connect(lambda w=name, body=body, old=point, ptr=ptr: self._rename_point(body, old,
                                                                                                       w.text(), ptr))
        self._fields[ptr + "#name"] = name
        self._vector_row(form, name, ptr, value, "points", "m")  # type: ignore[arg-type] - a widget label
        self._errors[ptr + "#name"] = self._errors[f"{ptr}/0"]

    def _rename_point(self, body: str, old: str, new: str, ptr: str) -> None:
        self._busy += 1
        try:
            if new == old:
                self._accept(ptr + "#name")
                return
            try:
                model = traced_points.rename_point(self.document.base_model(), body, old, new)
            except ModelError as exc:
                self._refuse(ptr + "#name", [d.message for d in exc.diagnostics[:5]])
                return
            self._accept(ptr + "#name")
            self.document.push_edit(model, f"Rename point {body}.{old} to {new}")
        finally:
            self._busy -= 1

    def _optional_number_row(self, form: QFormLayout, f: Field, ptr: str, value: Any) -> None:
        """An optional number whose absence means something (no friction: ``friction_static`` omitted): a check
        box (``field:<ptr>:set``) that writes the field (its lower bound, or 0.5 for a friction coefficient) or
        removes it, one undo step each, and the number's field while it is written. The same for an optional
        time function (a joint's driver or load: omitted, the joint is free or unloaded): the box writes the
        constant 0, and the function's rows follow while it is written."""
        box = QCheckBox()
        box.setObjectName(f"field:{ptr}:set")
        box.setChecked(value is not None)
        box.setToolTip(f"{f.description()}; unticked: not in the model")
        row = QWidget()
        lay = QHBoxLayout(row)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(box)
        if value is not None and f.editor == "time_function":  # its rows follow this one
            lay.addWidget(QLabel("a function of time (below)"), 1)
        elif value is not None:
            lay.addWidget(self._spin(ptr, f.key, value, field=f), 1)
        else:
            lay.addWidget(QLabel("none"), 1)

        def toggled(on: bool, ptr: str = ptr, f: Field = f) -> None:
            if on:
                start = self._initial_value(f, ptr)
                owner = ptr.rsplit("/", 1)[0]
                missing = [c for c in getattr(f, "companions", ()) if edit.get_value(self.document.model,
                                                                                       f"{owner}/{c}", None) is None]
                if not missing:
                    self._set(ptr, start, session_end=True, rebuild=True, shown=format_number(start))
                    return
                self._add_with_companions(box, f, ptr, start, missing)
                return
            self._busy += 1  # (the rebuild waits for the event loop: this box is part of the form)
            try:
                try:
                    new = edit.delete_value(self.document.base_model(), ptr)
                except ModelError as exc:
                    self._refuse(ptr, [d.message for d in exc.diagnostics[:5]])
                    box.blockSignals(True)
                    box.setChecked(True)
                    box.blockSignals(False)
                    return
                self.document.push_edit(new, f"Remove {self.field_title(ptr)}", ("field", ptr, self._session))
                self._end_session()
                self.refresh(force=True)
            finally:
                self._busy -= 1
        box.toggled.connect(toggled)
        self._fields[f"{ptr}:set"] = box
        self._add_row(form, f.key, row, [ptr])

    def _initial_value(self, f: Field, ptr: str) -> float:
        """The value written when the optional number ``f`` is added: its declared ``initial``; else mu_s for a
        kinetic friction coefficient (at most mu_s), 0.5 for another friction coefficient, or its lower bound."""
        if getattr(f, "initial", None) is not None:
            return float(f.initial)
        if f.key == "friction_kinetic":
            mu_s = edit.get_value(self.document.model, ptr.rsplit("/", 1)[0] + "/friction_static", None)
            if mu_s is not None:
                return float(mu_s)
        return 0.5 if f.key.startswith("friction") else float(getattr(f, "ge", None) or 0.0)

    def _declared_fields(self, owner: str) -> list[Field]:
        """The declared fields of the element at the JSON pointer ``owner`` (``/joints/3``)."""
        item = edit.get_value(self.document.model, owner)
        return list(element_type(str(item.get("type")), owner.split("/")[1]).fields)

    def _add_with_companions(self, box: QCheckBox, f: Field, ptr: str, start: float, missing: list[str]) -> None:
        """Add the optional number ``f`` and the fields it needs (``missing`` companions, at their ``initial``) as
        one undo step; a refusal keeps the box unticked and says why."""
        owner = ptr.rsplit("/", 1)[0]
        fields = {g.key: g for g in self._declared_fields(owner)}
        self._busy += 1
        try:
            try:
                model = self.document.base_model()
                for key in missing:
                    model = edit.set_value(model, f"{owner}/{key}", self._initial_value(fields[key], f"{owner}/{key}"),
                                           validate=False)
                model = edit.set_value(model, ptr, start)
            except (ModelError, KeyError) as exc:
                why = [d.message for d in exc.diagnostics[:5]] if isinstance(exc, ModelError) else [str(exc)]
                self._refuse(ptr, why)
                box.blockSignals(True)
                box.setChecked(False)
                box.blockSignals(False)
                return
            names = ", ".join([f.key, *missing])
            self.document.push_edit(model, f"Add {names}", ("field", ptr, self._session))
            self._end_session()
            self.refresh(force=True)
        finally:
            self._busy -= 1

    def _unit(self, key: str) -> str:
        if key in ANGLE_KEYS:
            return "°" if self.angle_unit() == "deg" else "rad"
        if key in LENGTH_KEYS:
            return "m"
        return UNITS.get(key, "")

    def _spin(self, ptr: str, key: str, value: float, field: Field | None = None,
              angle: bool | None = None, unit: str | None = None) -> QDoubleSpinBox:
        """A number field bound to ``ptr``. With a declared ``field``: its unit, degrees for an angle, a whole
        number for a count, and its bounds refused at the field. ``angle``/``unit`` override the key's."""
        w = FieldSpinBox()
        w.setObjectName(f"field:{ptr}")
        w.setDecimals(6)
        w.setRange(-FIELD_RANGE, FIELD_RANGE)  # a minus sign is always accepted; _set refuses what is invalid
        w.setMinimumWidth(70)
        w.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        w.setKeyboardTracking(True)
        w.setAccelerated(True)
        is_angle = (field.editor == "angle" if field is not None else key in ANGLE_KEYS) if angle is None else angle
        degrees = is_angle and self.angle_unit() == "deg"
        if unit is None:
            unit = field.unit if field is not None else self._unit(key)
        if is_angle:
            unit = ("°" if degrees else "rad") + (unit[3:] if unit.startswith("rad/") else "")
        if unit:
            w.setSuffix(f" {unit}")
        to_view = (lambda x: math.degrees(x)) if degrees else (lambda x: x)
        to_file = (lambda x: math.radians(x)) if degrees else (lambda x: x)
        self._views[ptr] = (to_view, unit)
        w.setValue(to_view(float(value)))
        is_int = (field is not None and field.editor == "count") or (isinstance(value, int) and key in ("spokes",))
        if is_int:
            w.setDecimals(0)
        check = None
        if field is not None:
            view = (math.degrees(1.0), "°") if degrees else None
            check = lambda v, field=field, view=view: field.value_problem(v, view)  # noqa: E731
        w.valueChanged.connect(lambda x, ptr=ptr, w=w: self._set(ptr, int(x) if is_int else to_file(x),
                                                                 shown=f"{format_number(x)}{w.suffix()}",
                                                                 key=key, view_value=x, check=check))
        w.editingFinished.connect(self._end_session)
        w.installEventFilter(self)
        self._field_of[w] = ptr
        self._fields[ptr] = w
        self._updaters[ptr] = lambda val, w=w: w.setValue(to_view(float(val)))
        return w

    def _number_row(self, form: QFormLayout, label: str, ptr: str, key: str, value: float) -> None:
        self._add_row(form, label, self._spin(ptr, key, value), [ptr])

    def _vector_row(self, form: QFormLayout, label: str, ptr: str, value: list[Any], key: str, unit: str,
                    field: Field | None = None) -> None:
        """Components of a vector, each a number field; a declared direction ``field`` refuses a component that
        makes the vector zero."""
        row = QWidget()
        h = QHBoxLayout(row)
        h.setContentsMargins(0, 0, 0, 0)
        for i, x in enumerate(value):
            if isinstance(x, (int, float)) and not isinstance(x, bool):
                if field is not None:
                    w = self._spin(f"{ptr}/{i}", key, x, angle=False, unit=unit)
                    if field.editor == "direction":
                        self._checks[f"{ptr}/{i}"] = self._component_check(field, ptr, i)
                else:
                    w = self._spin(f"{ptr}/{i}", key if key in UNITS or key in ANGLE_KEYS or key in LENGTH_KEYS
                                   else "points", x)
                if not unit:
                    w.setSuffix("")
                h.addWidget(w)
            else:
                h.addWidget(QLabel(str(x)))
        self._add_row(form, label, row, [f"{ptr}/{i}" for i in range(len(value))])

    def _component_check(self, field: Field, ptr: str, i: int) -> Callable[[Any], str | None]:
        """The check of component ``i`` of the vector at ``ptr``: the vector with that component must pass
        the field's own check (a direction is never zero)."""
        def check(v: Any) -> str | None:
            vec = list(edit.get_value(self.document.model, ptr, []))
            if i < len(vec):
                vec[i] = v
            return field.value_problem(vec)
        return check

    def _choice_row(self, form: QFormLayout, label: str, ptr: str, value: str, choices: list[str]) -> None:
        w = FieldComboBox()
        w.setObjectName(f"field:{ptr}")
        w.addItems(choices if value in choices else [value] + choices)
        w.setCurrentText(value)
        w.currentTextChanged.connect(lambda text, ptr=ptr: self._set(ptr, text, session_end=True))
        self._fields[ptr] = w
        self._updaters[ptr] = lambda val, w=w: w.setCurrentText(str(val))
        self._add_row(form, label, w, [ptr])

    def _time_function_rows(self, form: QFormLayout, label: str, ptr: str, value: Any, unit: str | None = None) -> None:
        """A time function's type selector, its parameters (with the unit of the function's value ``unit``,
        when given: an angle in degrees, a speed per second) and a preview plot."""
        if isinstance(value, list):  # force / torque components
            for i, comp in enumerate(value):
                self._time_function_rows(form, f"{label}[{i}]", f"{ptr}/{i}", comp, unit)
            return
        kind = "constant" if isinstance(value, (int, float)) else value.get("type", "constant")
        combo = FieldComboBox()
        combo.setObjectName(f"field:{ptr}:type")
        combo.addItems(list(TIME_FUNCTION_DEFAULTS))
        combo.setCurrentText(kind)
        combo.currentTextChanged.connect(
            lambda k, ptr=ptr: self._set(ptr, TIME_FUNCTION_DEFAULTS[k], session_end=True, rebuild=True))
        self._add_row(form, f"{label} (f(t))", combo, [ptr])
        if isinstance(value, (int, float)):
            self._parameter_row(form, "value", ptr, "value", value, unit)
        else:
            for k, v in value.items():
                if k == "type":
                    continue
                sub = f"{ptr}/{k}"
                if isinstance(v, (int, float)):
                    self._parameter_row(form, k, sub, k if k in UNITS else "value", v, unit)
                elif isinstance(v, list):
                    self._vector_row(form, f"  {k}", sub, v, "value", "")
                else:
                    w = QLineEdit(str(v))
                    w.setObjectName(f"field:{sub}")
                    w.editingFinished.connect(lambda w=w, sub=sub: self._set(sub, w.text(), session_end=True))
                    self._fields[sub] = w
                    self._updaters[sub] = lambda val, w=w: w.setText(str(val))
                    self._add_row(form, f"  {k}", w, [sub])
        self._add_preview(form, ptr)

    def _parameter_row(self, form: QFormLayout, name: str, ptr: str, key: str, value: float, unit: str | None) -> None:
        """A number parameter of a time function: with the function's unit when known (module docstring)."""
        if unit is None or name not in VALUE_PARAMETERS + ("speed",):
            self._number_row(form, f"  {name}", ptr, key, value)
            return
        angle = unit == "rad"
        per_second = "/s" if name == "speed" else ""
        shown = ("rad" + per_second) if angle else (f"{unit}{per_second}" if unit else "")
        self._add_row(form, f"  {name}", self._spin(ptr, key, value, angle=angle, unit=shown), [ptr])

    def _add_preview(self, form: QFormLayout, ptr: str) -> None:
        try:
            import pyqtgraph as pg
        except ImportError:  # pragma: no cover - pyqtgraph is a dependency
            return
        plot = pg.PlotWidget(background="w")
        plot.setObjectName(f"preview:{ptr}")
        plot.setMinimumHeight(110)
        plot.setMaximumHeight(140)
        plot.showGrid(x=True, y=True, alpha=0.3)
        plot.setLabel("bottom", "t [s]")
        curve = plot.plot(pen=pg.mkPen("#0a7d32", width=2))
        form.addRow(plot)

        def update(_val: Any = None, ptr: str = ptr) -> None:
            from mechstudio.core.model.timefunc import ExpressionError, time_function
            try:
                spec = edit.get_value(self.document.model, ptr)
                f = time_function(spec)
            except (KeyError, ExpressionError, ValueError, TypeError):
                curve.setData([], [])
                return
            t_end = float(self.document.model.data.get("simulation", {}).get("t_end", 5.0))
            ts = [t_end * k / 200 for k in range(201)]
            try:
                curve.setData(ts, [f.value(t) for t in ts])
            except (ValueError, ZeroDivisionError, OverflowError):
                curve.setData([], [])
        update()
        self._updaters[f"{ptr}#preview"] = update
        self._plot = plot

    # ---- updating ------------------------------------------------------------------------------------------
    def _update_values(self, pointer: str, value: Any) -> None:
        for ptr, fn in self._updaters.items():
            if ptr.endswith("#preview"):
                fn(None)
                continue
            w = self._fields.get(ptr)
            if w is not None and w.hasFocus():
                continue
            try:
                val = edit.get_value(self.document.model, ptr)
            except KeyError:
                continue
            blocker = QSignalBlocker(w) if w is not None else None
            fn(val)
            del blocker

    # ---- edits ---------------------------------------------------------------------------------------------
    def _end_session(self) -> None:
        self._session = next(_sessions)

    def _set(self, ptr: str, value: Any, session_end: bool = False, rebuild: bool = False, *,
             shown: str | None = None, key: str | None = None, view_value: float | None = None,
             check: Callable[[Any], str | None] | None = None) -> None:
        self._busy += 1
        try:
            self._set_value(ptr, value, session_end, rebuild, shown, key, view_value, check or self._checks.get(ptr))
        finally:
            self._busy -= 1

    def _set_value(self, ptr: str, value: Any, session_end: bool, rebuild: bool, shown: str | None,
                   key: str | None, view_value: float | None, check: Callable[[Any], str | None] | None) -> None:
        current = edit.get_value(self.document.model, ptr, None)
        why = check(value) if check is not None and view_value is not None else None
        if why is not None:  # a declared field's bounds (in the unit shown)
            kept = "its value"
            if isinstance(current, (int, float)) and ptr in self._views:
                to_view, unit = self._views[ptr]
                kept = f"{format_number(to_view(float(current)))} {unit}".strip()
            text = why if why.startswith("the ") else f"the {why}"
            self._refuse(ptr, [f"T{text[1:]}: {shown} was not applied, the model keeps {kept}."])
            return
        if key in MINIMA and view_value is not None:
            bound, strict = MINIMA[key]
            if value < bound or (strict and value <= bound):
                unit = self._unit(key)
                need = f"greater than {format_number(bound)}" if strict else f"at least {format_number(bound)}"
                kept = f"{format_number(current)} {unit}".strip() if isinstance(current, (int, float)) else "its value"
                self._refuse(ptr, [f"The {key} must be {need} {unit}".rstrip() + f": {shown} was not applied, the "
                                   f"model keeps {kept}."])
                return
        try:
            if current == value:
                self._accept(ptr)
                return
            new = edit.set_value(self.document.base_model(), ptr, value, bar_follows=True)
        except ModelError as exc:
            self._refuse(ptr, [d.message for d in exc.diagnostics[:5]])
            return
        self._accept(ptr)
        what = self.field_title(ptr)
        text = f"Set {what} to {shown if shown is not None else self._value_text(value)}"
        self.document.push_edit(new, text, ("field", ptr, self._session))
        if session_end:
            self._end_session()
        if rebuild:
            self.refresh(force=True)

    @staticmethod
    def _value_text(value: Any) -> str:
        if isinstance(value, bool):
            return "on" if value else "off"
        if isinstance(value, (int, float)):
            return format_number(value)
        if isinstance(value, dict):
            return str(value.get("type", "a function")) if "type" in value else "a new value"
        text = str(value)
        return f"“{text[:40]}”" if isinstance(value, str) else text[:40]

    def field_title(self, ptr: str) -> str:
        """A field as a user names it: "crank.mass", "crank.points.a.x", "O.y", "model gravity.y"."""
        tokens = edit.split_pointer(ptr)
        prefix, start = "model ", 0
        if self._key is not None:
            coll, name = self._key
            base = edit.split_pointer(edit.element_pointer(self.document.model, coll, name))
            if tokens[:len(base)] == base:
                prefix, start = f"{name}.", len(base)
        node: Any = edit.get_value(self.document.model, edit.join_pointer(*tokens[:start]), None) if start \
            else self.document.model.data
        parts: list[str] = []
        for tok in tokens[start:]:
            if isinstance(node, list) and tok.isdigit():
                i = int(tok)
                numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in node)
                parts.append(COMPONENT_NAMES[i] if numeric and len(node) <= 3 else f"[{i}]")
                node = node[i] if i < len(node) else None
            else:
                parts.append(tok)
                node = node.get(tok) if isinstance(node, dict) else None
        return prefix + ".".join(parts).replace(".[", "[")

    def _refuse(self, ptr: str, messages: list[str]) -> None:
        """Show why the value of ``ptr`` was refused, right under its field; the model is unchanged."""
        w = self._fields.get(ptr)
        if w is not None:
            w.setStyleSheet(ERROR_STYLE)
        label = self._errors.get(ptr)
        if label is not None:
            label.setText("\n".join(messages))
            label.show()
            self.error_label = label
            self.ensureWidgetVisible(label)

    def _accept(self, ptr: str) -> None:
        w = self._fields.get(ptr)
        if w is not None and w.styleSheet():
            w.setStyleSheet("")
        label = self._errors.get(ptr)
        if label is not None and label.isVisible() and not any(
                self._errors.get(p) is label and self._fields.get(p) is not None and self._fields[p].styleSheet()
                for p in self._errors if p != ptr):
            label.clear()
            label.hide()

    def error_text(self, ptr: str) -> str:
        """The refusal message shown under field ``ptr`` ("" when none is shown)."""
        label = self._errors.get(ptr)
        return label.text() if label is not None and not label.isHidden() else ""

    def error_label_for(self, ptr: str) -> QLabel | None:
        """The message label under field ``ptr``."""
        return self._errors.get(ptr)

    # ---- context menu hook ---------------------------------------------------------------------------------
    def add_field_action(self, text: str, callback: Callable[[str], None]) -> None:
        """Add ``text`` to the right-click menu of every number field; ``callback(pointer)`` runs when chosen."""
        self._field_actions.append((text, callback))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt API
        if event.type() == QEvent.Type.ContextMenu and watched in self._field_of:
            ptr = self._field_of[watched]
            pos = event.globalPos() if isinstance(event, QContextMenuEvent) else QPoint()
            self.fieldContextMenuRequested.emit(ptr, pos)
            if (self._field_actions or self.field_menu_hooks) and isinstance(watched, QDoubleSpinBox):
                menu = watched.lineEdit().createStandardContextMenu()
                menu.addSeparator()
                for text, callback in self._field_actions:
                    menu.addAction(text, lambda cb=callback, p=ptr: cb(p))
                for hook in self.field_menu_hooks:
                    hook(menu, ptr)
                menu.exec(pos)
                menu.deleteLater()
                return True
        return super().eventFilter(watched, event)

    def _rename(self, coll: str, new: str) -> None:
        self._busy += 1
        try:
            self._rename_element(coll, new)
        finally:
            self._busy -= 1

    def _rename_element(self, coll: str, new: str) -> None:
        if self._key is None or new == self._key[1]:
            self._accept("name")
            return
        old = self._key[1]
        try:
            model = edit.rename(self.document.base_model(), coll, old, new)
            if coll == "bodies":
                model = traced_points.follow_body_rename(model, old, new)
        except ModelError as exc:
            self._refuse("name", [d.message for d in exc.diagnostics[:5]])
            return
        self._accept("name")
        self.document.push_edit(model, f"Rename {old} to {new}")
        self.document.set_selection([(coll, new)])

    def fields(self) -> dict[str, QWidget]:
        """Every editor widget of the form by its JSON pointer (or "name")."""
        return dict(self._fields)

    def field(self, ptr: str) -> QWidget | None:
        """The editor widget bound to JSON pointer ``ptr`` (or "name") — for tests."""
        return self._fields.get(ptr)
