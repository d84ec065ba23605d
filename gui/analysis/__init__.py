"""The editor's *Analysis* menu: *Static equilibrium…*, *Linkage report…*, *Modes…*, *Modes about the steady
motion…* and *Synthesize linkage…*; the canvas's linkage overlays (*View → Linkage overlays*) and the mode
animation.

:func:`install_analysis` is called once by the main window with its (empty) ``menu_analysis``; each action opens
its non-modal dialog (created on first use, kept by the window) and analyses the document's current model on a
worker thread (:mod:`mechstudio.gui.analysis.panel`). The computations are the core's
(:mod:`mechstudio.core.analysis`, called by :mod:`mechstudio.gui.analysis.jobs`); the wording and tables are
:mod:`mechstudio.gui.analysis.format`'s.

*Apply pose* of the static equilibrium writes the equilibrium's body poses into the model as the initial pose,
one undoable edit (planar models). The Linkage report's check boxes switch the canvas overlays
(:mod:`mechstudio.gui.analysis.overlays`: instant centres, Kennedy lines, transmission angle, limit positions); the
Modes dialog animates a mode in the views (:mod:`mechstudio.gui.analysis.mode_animation`). Neither edits the
document. *Synthesize linkage…* (:mod:`mechstudio.gui.analysis.synthesis_panel`) does path generation (a four-bar or
a six-bar) from target points clicked on the canvas or typed (with or without crank timing) and function generation,
and opens the synthesized linkage as a new document.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtGui import QAction

from mechstudio.core.model import edit
from mechstudio.gui.analysis.dialogs import LinkageDialog, ModesDialog, SteadyModesDialog
from mechstudio.gui.analysis.format import equilibrium_poses, statics_report
from mechstudio.gui.analysis.jobs import statics_job
from mechstudio.gui.analysis.mode_animation import ModeAnimator
from mechstudio.gui.analysis.overlays import install_overlays
from mechstudio.gui.analysis.panel import AnalysisDialog
from mechstudio.gui.analysis.synthesis_panel import synthesis_dialog

#: undo text of *Apply pose*
APPLY_POSE_TEXT = "Apply equilibrium pose"


class StaticsDialog(AnalysisDialog):
    """The static equilibrium, with *Apply pose*."""

    def __init__(self, window: Any):
        super().__init__(window, "Static equilibrium", "analysis_statics", statics_job, statics_report)
        self.apply_button = self.panel.add_button("&Apply pose", "analysis_apply_pose", self.apply_pose, index=2)
        self.apply_button.setEnabled(False)

    def update_state(self) -> None:
        super().update_state()
        poses = equilibrium_poses(self.outcome) if self.outcome is not None else {}
        self.apply_button.setEnabled(bool(poses) and self.current())
        if self.outcome is not None and not poses and not self.outcome.error:
            self.apply_button.setToolTip("Only the body poses of planar models can be set from here")
        else:
            self.apply_button.setToolTip("Make the equilibrium the model's initial pose (Ctrl+Z undoes it)")

    def apply_pose(self) -> bool:
        """Write the equilibrium pose into the model as one undoable edit; False when there is nothing to apply
        (no result, a failure, a changed model, or the model is in that pose already)."""
        if self.outcome is None or not self.current():
            return False
        poses = equilibrium_poses(self.outcome)
        if not poses:
            return False
        return self.document.push_edit(edit.set_poses(self.document.model, poses), APPLY_POSE_TEXT)


DIALOGS: dict[str, Any] = {
    "statics": StaticsDialog,
    "linkage": LinkageDialog,
    "modes": ModesDialog,
    "steady_modes": SteadyModesDialog,
}


def analysis_dialog(window: Any, key: str) -> AnalysisDialog:
    """The window's dialog ``key`` ("statics", "linkage", "modes", "steady_modes"), created on first use, shown,
    raised and running on the current model."""
    dialog = window.analysis_dialogs.get(key)
    if dialog is None:
        dialog = window.analysis_dialogs[key] = DIALOGS[key](window)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    dialog.run()
    return dialog


def install_analysis(window: Any) -> None:
    """Fill the window's ``menu_analysis``, add *View → Linkage overlays* and the mode animator (see the module
    docstring)."""
    window.analysis_dialogs = {}
    overlays = install_overlays(window)
    window.mode_animator = ModeAnimator(window)
    overlays.velocity_sources.append(window.mode_animator.velocity)  # instant centres of an animated mode
    entries = (
        ("statics", "&Static equilibrium…", "act_static_equilibrium",
         "Where the mechanism comes to rest under gravity, springs and loads: joint forces, drivers' holding "
         "torque, stability; Apply pose makes it the initial pose"),
        ("linkage", "&Linkage report…", "act_linkage_report",
         "Grashof class, limit positions and transmission angle of a four-bar or slider-crank"),
        ("modes", "&Modes…", "act_modes",
         "Natural frequencies, periods and damping ratios about the equilibrium"),
        ("steady_modes", "Modes about the steady m&otion…", "act_steady_modes",
         "Floquet multipliers, frequencies and damping ratios about the periodic steady motion of a driven model "
         "(e.g. a rotor at constant speed)"),
    )
    for key, text, name, tip in entries:
        action = QAction(text, window)
        action.setObjectName(name)
        action.setStatusTip(tip)
        action.setToolTip(tip)
        action.triggered.connect(lambda _c=False, k=key: analysis_dialog(window, k))
        setattr(window, name, action)
        window.menu_analysis.addAction(action)
    window.menu_analysis.addSeparator()
    tip = ("Click target points on the canvas (or type them, or a function): a four-bar or a six-bar that passes them "
           "is searched, and the best one opens as a new model")
    action = QAction("S&ynthesize linkage…", window)
    action.setObjectName("act_synthesize_linkage")
    action.setStatusTip(tip)
    action.setToolTip(tip)
    action.triggered.connect(lambda _c=False: synthesis_dialog(window))
    window.act_synthesize_linkage = action
    window.menu_analysis.addAction(action)
    window.menu_analysis.setToolTipsVisible(True)


__all__ = ["APPLY_POSE_TEXT", "StaticsDialog", "analysis_dialog", "install_analysis"]
