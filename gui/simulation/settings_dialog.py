"""The simulation settings dialog: formulation, integrator, tolerance, end time, output rate, correction."""
from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout,
                               QLineEdit, QWidget)

from mechstudio.core.dynamics.base import FORMULATIONS, get_formulation
from mechstudio.core.integrate.base import INTEGRATORS, get_integrator
from mechstudio.core.simulate import SimulationSettings


class SettingsDialog(QDialog):
    def __init__(self, settings: SimulationSettings, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Simulation settings")
        get_formulation(settings.formulation if settings.formulation in FORMULATIONS else "projection")
        get_integrator("dop853")
        form = QFormLayout(self)
        self.formulation = QComboBox()
        self.formulation.addItems(sorted(FORMULATIONS))
        self.formulation.setCurrentText(settings.formulation)
        self.integrator = QComboBox()
        self.integrator.addItems(sorted(INTEGRATORS))
        self.integrator.setCurrentText(settings.integrator)
        self.rtol = QLineEdit(f"{settings.rtol:g}")
        self.atol = QLineEdit(f"{settings.atol:g}")
        self.t_end = QDoubleSpinBox(decimals=3, minimum=0.001, maximum=1e5, value=settings.t_end, suffix=" s")
        self.dt = QDoubleSpinBox(decimals=4, minimum=0.0001, maximum=10.0, value=settings.dt, suffix=" s",
                                 singleStep=0.005)
        self.correction = QCheckBox("correct the constraint drift at every output")
        self.correction.setChecked(settings.correction)
        form.addRow("Formulation", self.formulation)
        form.addRow("Integrator", self.integrator)
        form.addRow("Relative tolerance", self.rtol)
        form.addRow("Absolute tolerance", self.atol)
        form.addRow("End time", self.t_end)
        form.addRow("Output interval", self.dt)
        form.addRow("", self.correction)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def values(self) -> dict[str, Any]:
        def num(edit: QLineEdit) -> float | None:
            try:
                return float(edit.text())
            except ValueError:
                return None
        return dict(formulation=self.formulation.currentText(), integrator=self.integrator.currentText(),
                    rtol=num(self.rtol), atol=num(self.atol), t_end=self.t_end.value(), dt=self.dt.value(),
                    correction=self.correction.isChecked())
