"""The simulation settings dialog: formulation, integrator, tolerances, end time, output interval, correction (and
the orientation coordinates of a spatial model).

The settings belong to the document: the dialog shows the model's ``simulation`` section and its caller writes
the accepted values back into the model as one undoable edit (``LiveView.edit_settings``), so they are saved
with the file and another model keeps its own. Times are typed as text (``5``, ``0.01``, ``1e6``); a value that
cannot be run is refused with its reason under the form (OK stays disabled), never clamped
(:mod:`mechstudio.gui.simulation.settings_values`). Only the formulations that apply to the model are offered.
"""
from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import (QAbstractSpinBox, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox,
                               QFormLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget)

from mechstudio.core.dynamics.base import FORMULATIONS, get_formulation
from mechstudio.core.integrate.base import INTEGRATORS, get_integrator
from mechstudio.core.model import Model
from mechstudio.core.simulate import SimulationSettings
from mechstudio.gui.simulation.settings_values import (PARAMETRIZATIONS, format_seconds, formulation_problem,
                                                       formulations_for, model_words, parse_seconds, times_check)

BAD_FIELD = "QLineEdit { border: 1px solid #c00; background: #fff0f0 }"
BAD_BOX = "QAbstractSpinBox { border: 1px solid #c00; background: #fff0f0 }"


class SecondsBox(QDoubleSpinBox):
    """A spin box of seconds that reads what people type: ``1e6``, ``2.5e-3``, ``100000``, ``0.01 s``. The value
    is taken on Enter or when the box loses the focus. A value outside the range is not clamped: while it is typed
    the box is red and its tooltip says why; left like that, the box goes back to its value and ``refused`` is
    emitted with the reason (the dialog shows it). The text shows the value with the digits it needs."""

    refused = Signal(str)

    def __init__(self, minimum: float, maximum: float, value: float = 1.0, parent: QWidget | None = None):
        super().__init__(parent)
        self.setDecimals(12)
        self.setRange(minimum, maximum)
        self.setSuffix(" s")
        self.setValue(value)
        self.setKeyboardTracking(False)
        self.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToPreviousValue)
        self.lineEdit().textEdited.connect(self._check)
        self._tip = ""

    def textFromValue(self, value: float) -> str:
        return format_seconds(value)

    def valueFromText(self, text: str) -> float:
        try:
            return parse_seconds(text)
        except ValueError:
            return self.value()

    def problem(self, text: str) -> str | None:
        """Why ``text`` is not a value of this box, or None."""
        try:
            value = parse_seconds(text)
        except ValueError as exc:
            return str(exc)
        if not self.minimum() <= value <= self.maximum():
            return (f"{format_seconds(value)} s is outside {format_seconds(self.minimum())} s to "
                    f"{format_seconds(self.maximum())} s")
        return None

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:  # noqa: D102 - Qt API
        state = QValidator.State.Acceptable if self.problem(text) is None else QValidator.State.Intermediate
        return state, text, pos

    def _check(self, text: str) -> None:
        problem = self.problem(text)
        self.setStyleSheet(BAD_BOX if problem else "")
        if problem and not self._tip:
            self._tip = self.toolTip() or " "
        self.setToolTip(sentence(problem) if problem else (self._tip.strip() if self._tip else self.toolTip()))
        if not problem:
            self._tip = ""

    def focusOutEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        problem = self.problem(self.lineEdit().text())
        super().focusOutEvent(event)
        self._check(self.lineEdit().text())
        if problem:
            self.refused.emit(sentence(f"{problem}; the value stays {format_seconds(self.value())} s"))


def sentence(text: str) -> str:
    """``text`` as a sentence: capital first letter, full stop."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


class SettingsDialog(QDialog):
    """``settings``: what the model's run uses now; ``model``: the document's model (which formulations apply)."""

    def __init__(self, settings: SimulationSettings, parent: QWidget | None = None, model: Model | None = None):
        super().__init__(parent)
        self.setObjectName("sim_settings_dialog")
        self.setWindowTitle("Simulation settings")
        self.model = model
        get_formulation(settings.formulation if settings.formulation in FORMULATIONS else "projection")
        get_integrator("dop853")
        lay = QVBoxLayout(self)
        form = QFormLayout()
        lay.addLayout(form)
        self.formulation = QComboBox()
        self.formulation.setObjectName("sim_formulation")
        choices = formulations_for(model)
        self.formulation.addItems(choices)
        if settings.formulation not in choices:  # the file names one that does not apply: shown, refused below
            self.formulation.addItem(settings.formulation)
        self.formulation.setCurrentText(settings.formulation)
        self.integrator = QComboBox()
        self.integrator.setObjectName("sim_integrator")
        self.integrator.addItems(sorted(INTEGRATORS))
        self.integrator.setCurrentText(settings.integrator)
        self.rtol = QLineEdit(f"{settings.rtol:g}")
        self.rtol.setObjectName("sim_rtol")
        self.atol = QLineEdit(f"{settings.atol:g}")
        self.atol.setObjectName("sim_atol")
        self.t_end = QLineEdit(format_seconds(settings.t_end))
        self.t_end.setObjectName("sim_t_end")
        self.t_end.setToolTip("End time in seconds: 5, 0.5, 3600 or 1e6")
        self.dt = QLineEdit(format_seconds(settings.dt))
        self.dt.setObjectName("sim_dt")
        self.dt.setToolTip("Time between two recorded frames (output interval) in seconds: 0.01, 1e-3")
        self.correction = QCheckBox("correct the constraint drift at every output")
        self.correction.setChecked(settings.correction)
        self.parametrization: QComboBox | None = None
        form.addRow("Formulation", self.formulation)
        form.addRow("Integrator", self.integrator)
        form.addRow("Relative tolerance", self.rtol)
        form.addRow("Absolute tolerance", self.atol)
        form.addRow("End time [s]", self.t_end)
        form.addRow("Output interval [s]", self.dt)
        if model is not None and model.kind == "spatial":
            self.parametrization = QComboBox()
            self.parametrization.setObjectName("sim_parametrization")
            self.parametrization.addItems(list(PARAMETRIZATIONS))
            self.parametrization.setCurrentText(settings.parametrization or "quaternion")
            self.parametrization.setToolTip("orientation coordinates of the spatial bodies")
            form.addRow("Orientation coordinates", self.parametrization)
        form.addRow("", self.correction)
        note = QLabel(f"These settings are saved with the model ({model_words(model)}); an edit of them can be "
                      "undone like any other." if model is not None else "")
        note.setWordWrap(True)
        note.setStyleSheet("color: #555")
        lay.addWidget(note)
        self.problem_label = QLabel("")
        self.problem_label.setObjectName("sim_settings_problem")
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet("color: #c00")
        lay.addWidget(self.problem_label)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        for edit in (self.rtol, self.atol, self.t_end, self.dt):
            edit.textChanged.connect(lambda _t: self.check())
        self.formulation.currentTextChanged.connect(lambda _t: self.check())
        self._tips = {edit: edit.toolTip() for edit in (self.rtol, self.atol, self.t_end, self.dt)}
        self.setMinimumWidth(self.fontMetrics().horizontalAdvance("m") * 46)
        self.check()

    @property
    def ok_button(self) -> QPushButton:
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    def problem(self) -> str | None:
        """Why the values as typed cannot be accepted (the first problem), or None."""
        problems = self._problems()
        return next(iter(problems.values()), None)

    def _problems(self) -> dict[QWidget, str]:
        out: dict[QWidget, str] = {}
        times: dict[str, float] = {}
        for edit, what in ((self.t_end, "end time"), (self.dt, "output interval")):
            try:
                times[what] = parse_seconds(edit.text())
            except ValueError as exc:
                out[edit] = sentence(f"the {what}: {exc}")
        if len(times) == 2:
            check = times_check(times["end time"], times["output interval"])
            if check is not None:
                out[self.t_end if check[0] == "t_end" else self.dt] = sentence(check[1])
        for edit, what in ((self.rtol, "relative tolerance"), (self.atol, "absolute tolerance")):
            try:
                value = float(edit.text().strip())
                if not (math.isfinite(value) and value > 0):
                    raise ValueError
            except ValueError:
                out[edit] = f"The {what} must be a positive number, e.g. 1e-8 (not {edit.text().strip()!r})."
        problem = formulation_problem(self.formulation.currentText(), self.model)
        if problem is not None:
            out[self.formulation] = sentence(problem)
        return out

    def check(self) -> bool:
        """Mark the refused fields, show the first reason, enable OK only when every value can be run."""
        problems = self._problems()
        for edit in (self.rtol, self.atol, self.t_end, self.dt):
            edit.setStyleSheet(BAD_FIELD if edit in problems else "")
            edit.setToolTip(problems.get(edit, self._tips.get(edit, "")))
        self.problem_label.setText(next(iter(problems.values()), ""))
        self.ok_button.setEnabled(not problems)
        return not problems

    def accept(self) -> None:
        if self.check():
            super().accept()

    def values(self) -> dict[str, Any]:
        """The accepted values (``parametrization`` None for a planar model). Call after :meth:`check`."""
        return dict(formulation=self.formulation.currentText(), integrator=self.integrator.currentText(),
                    rtol=float(self.rtol.text()), atol=float(self.atol.text()),
                    t_end=parse_seconds(self.t_end.text()), dt=parse_seconds(self.dt.text()),
                    correction=self.correction.isChecked(),
                    parametrization=self.parametrization.currentText() if self.parametrization else None)
