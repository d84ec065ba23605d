"""The Linkage report and Modes dialogs with their canvas tools: the report's switches of the canvas overlays
(:mod:`mechstudio.gui.analysis.overlays`) and the Modes dialog's mode animation
(:mod:`mechstudio.gui.analysis.mode_animation`).
"""
from __future__ import annotations

from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QPushButton, QSpinBox

from mechstudio.core.analysis.modes import ModalAnalysis
from mechstudio.core.analysis.steady_motion import FloquetAnalysis
from mechstudio.gui.analysis.format import linkage_report, modes_report, num, steady_modes_report
from mechstudio.gui.analysis.jobs import Outcome, linkage_job, modes_job, steady_modes_job
from mechstudio.gui.analysis.mode_animation import DEFAULT_AMPLITUDE
from mechstudio.gui.analysis.panel import AnalysisDialog

#: the amplitude control's range [% of the mechanism's size]
AMPLITUDE_RANGE_PERCENT = (1, 50)


def bind_check_box(box: QCheckBox, action: QAction) -> None:
    """Keep ``box`` and the checkable ``action`` in step (either one switches both)."""
    box.setChecked(action.isChecked())
    box.setToolTip(action.toolTip())
    box.toggled.connect(action.setChecked)
    action.toggled.connect(box.setChecked)
    action.changed.connect(lambda: (box.setEnabled(action.isEnabled()), box.setToolTip(action.toolTip())))


class LinkageDialog(AnalysisDialog):
    """The Linkage report with check boxes for the canvas overlays; its result feeds the limit positions."""

    def __init__(self, window: Any):
        super().__init__(window, "Linkage report", "analysis_linkage", linkage_job, linkage_report)
        overlays = window.linkage_overlays
        row = QHBoxLayout()
        row.addWidget(QLabel("On the canvas:"))
        self.overlay_boxes: dict[str, QCheckBox] = {}
        for text, action in (("instant centres", overlays.act_centres), ("Kennedy lines", overlays.act_kennedy),
                             ("transmission angle", overlays.act_transmission),
                             ("limit positions", overlays.act_limits)):
            box = QCheckBox(text)
            box.setObjectName(f"linkage_{action.objectName()}")
            bind_check_box(box, action)
            box.setEnabled(action.isEnabled())
            row.addWidget(box)
            self.overlay_boxes[action.objectName()] = box
        row.addStretch(1)
        layout = self.panel.layout()
        layout.insertLayout(layout.count() - 1, row)
        self.sig_outcome.connect(overlays.offer_sweep)


class ModesDialog(AnalysisDialog):
    """The Modes table with a mode chooser, an amplitude and *Animate* / *Stop* (mode_animation)."""

    def __init__(self, window: Any, title: str = "Modes", name: str = "analysis_modes", job: Any = modes_job,
                 report: Any = modes_report):
        super().__init__(window, title, name, job, report)
        self.animator = window.mode_animator
        self.mode_box = QComboBox()
        self.mode_box.setObjectName("modes_mode")
        self.mode_box.setToolTip("The mode to animate (the rows of the Modes table)")
        self.mode_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.mode_box.setMinimumContentsLength(16)
        self.amplitude_box = QSpinBox()
        self.amplitude_box.setObjectName("modes_amplitude")
        self.amplitude_box.setRange(*AMPLITUDE_RANGE_PERCENT)
        self.amplitude_box.setValue(round(DEFAULT_AMPLITUDE * 100))
        self.amplitude_box.setSuffix(" % of size")
        self.amplitude_box.setToolTip("The largest displacement of a point of the mechanism, in percent of the "
                                      "mechanism's size")
        self.amplitude_box.valueChanged.connect(lambda v: self.animator.set_fraction(v / 100.0))
        self.animate_button = QPushButton("&Animate")
        self.animate_button.setObjectName("modes_animate")
        self.animate_button.setAutoDefault(False)
        self.animate_button.setToolTip("Show the mechanism vibrating in the chosen mode on the canvas (and in the "
                                       "3D view); the model is not changed")
        self.animate_button.clicked.connect(lambda _c=False: self.animate())
        self.stop_button = QPushButton("S&top")
        self.stop_button.setObjectName("modes_stop")
        self.stop_button.setAutoDefault(False)
        self.stop_button.clicked.connect(lambda _c=False: self.animator.stop())
        self.animation_status = QLabel("")
        self.animation_status.setObjectName("modes_animation_status")
        self.animation_status.setWordWrap(True)
        row = QHBoxLayout()
        for w in (QLabel("Mode:"), self.mode_box, QLabel("Amplitude:"), self.amplitude_box, self.animate_button,
                  self.stop_button):
            row.addWidget(w)
        row.addStretch(1)
        layout = self.panel.layout()
        layout.insertLayout(layout.count() - 1, row)
        layout.insertWidget(layout.count() - 1, self.animation_status)
        self.animator.sig_state.connect(self._on_animation)
        self.sig_outcome.connect(self._fill_modes)
        self._fill_modes(None)

    def modal_result(self) -> Any:
        """The shown result when it has modes (a failure or refusal has none)."""
        out = self.outcome
        res = out.result if out is not None and not out.error else None
        return res if isinstance(res, ModalAnalysis) and res.modes and res.linearisation is not None else None

    def mode_label(self, k: int, mode: Any) -> str:
        what = f"{num(mode.frequency_hz, 4)} Hz" if mode.kind == "oscillating" else mode.kind
        return f"{k + 1}: {what}"

    def _fill_modes(self, _outcome: Outcome | None) -> None:
        self.animator.stop()
        self.mode_box.clear()
        res = self.modal_result()
        for k, m in enumerate(res.modes if res is not None else ()):
            self.mode_box.addItem(self.mode_label(k, m))
        if self.panel.tables:  # a click on a row of the table chooses that mode
            table = self.panel.tables[0]
            table.itemSelectionChanged.connect(
                lambda t=table: self.mode_box.setCurrentIndex(t.currentRow()) if t.currentRow() >= 0 else None)
        self.update_state()

    def update_state(self) -> None:
        super().update_state()
        if not hasattr(self, "animate_button"):  # the base class's constructor calls this before the controls exist
            return
        res = self.modal_result()
        ok = res is not None and self.current()
        self.animate_button.setEnabled(ok)
        self.mode_box.setEnabled(res is not None)
        self.stop_button.setEnabled(self.animator.running)
        if res is None:
            self.animate_button.setToolTip("No modes to animate")
        elif not self.current():
            self.animate_button.setToolTip("The model has changed since these modes: Run again first")
        else:
            self.animate_button.setToolTip("Show the mechanism vibrating in the chosen mode on the canvas (and in "
                                           "the 3D view); the model is not changed")

    def animate(self) -> str:
        """Animate the chosen mode; "" when it runs, else why not (also shown under the table)."""
        res = self.modal_result()
        if res is None or self.outcome is None or not self.current():
            why = "no modes of the current model: Run again"
            self._on_animation(why)
            return why
        k = max(self.mode_box.currentIndex(), 0)
        return self.start_animation(res, k)

    def start_animation(self, res: Any, k: int) -> str:
        assert self.outcome is not None
        return self.animator.start(self.outcome.system, res.linearisation, res.modes[k], k + 1,
                                   self.amplitude_box.value() / 100.0)

    def _on_animation(self, text: str) -> None:
        self.animation_status.setText(text)
        self.stop_button.setEnabled(self.animator.running)
        status = getattr(self.main_window, "statusBar", None)
        if status is not None and text:
            status().showMessage(text, 8000)

    def run(self) -> None:
        self.animator.stop()
        super().run()

    def hideEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        self.animator.stop()
        super().hideEvent(event)


class SteadyModesDialog(ModesDialog):
    """Modes about the periodic steady motion of a driven model (Floquet modes), with the same chooser and
    animation: *Animate* shows the mechanism running its steady motion with the chosen mode's perturbation on it."""

    def __init__(self, window: Any):
        super().__init__(window, "Modes about the steady motion", "analysis_steady_modes", steady_modes_job,
                         steady_modes_report)
        self.animate_button.setToolTip("Show the mechanism in its steady motion with the chosen mode on it (canvas "
                                       "and 3D view); the model is not changed")
        self.resize(760, 540)  # the details run to four lines

    def modal_result(self) -> FloquetAnalysis | None:
        out = self.outcome
        res = out.result if out is not None and not out.error else None
        return res if isinstance(res, FloquetAnalysis) and res.modes and res.monodromy is not None else None

    def mode_label(self, k: int, mode: Any) -> str:
        what = f"{num(mode.frequency_hz, 4)} Hz" if mode.kind == "oscillating" else mode.kind
        return f"{k + 1}: {what}{'' if mode.stable else ' (growing)'}"

    def start_animation(self, res: Any, k: int) -> str:
        assert self.outcome is not None
        return self.animator.start_steady(self.outcome.system, res, res.modes[k], k + 1,
                                          self.amplitude_box.value() / 100.0)


__all__ = ["AMPLITUDE_RANGE_PERCENT", "LinkageDialog", "ModesDialog", "SteadyModesDialog", "bind_check_box"]
