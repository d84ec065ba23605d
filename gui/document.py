"""The editor's document: the current :class:`~core.model.Model` snapshot, its file path and its undo stack.

The model carries everything that is saved: the mechanism, its simulation settings (the ``simulation``
section, edited by *Simulation → Settings…* as an undoable change like any other) and the editor's state (the
``editor`` section: traced points). A save only gives the document its path (:meth:`Document.set_path`); the
views keep what they show (a run's results, the canvas's framing). Opening or starting another model is
:meth:`Document.reset`, which emits :attr:`Document.sig_reset` for whatever belonged to the previous one.

Widgets never hold model state: they read ``document.model`` / ``document.analysis`` and listen to
``sig_model_changed``; they change the model only by pushing commands (``mechstudio.gui.commands``) built from the pure
edit functions of ``mechstudio.core.model.edit``. After every change the document re-assembles the mechanism
(Newton-Raphson of ``mechstudio.core.kinematics.assembly``) and publishes an :class:`Analysis`: the assembled
configuration, the degrees of freedom, the redundant constraints, and — when it cannot be assembled — the
message and the offending constraint, so the canvas can highlight it. For a planar model that fails, the
configuration shown is the one of :func:`mechstudio.core.kinematics.assembly.diagnose_failure`: every other constraint
closed and the one named open, so the joint the status bar names is the gap the canvas draws.
"""
from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from mechstudio.core.model import Model, empty_model_data, model_from_data
from mechstudio.core.model import edit
from mechstudio.gui.commands import SnapshotCommand

log = logging.getLogger(__name__)

#: an assembled mechanism has ||Phi||_2 below this [m or rad]
ASSEMBLED_TOL = 1e-10


@dataclass(frozen=True)
class Analysis:
    """What the editor shows about the current model (computed by :func:`analyse`).

    ``posed`` is the model with the assembled body poses written into it (the model itself when assembly
    failed or is not available); the canvas draws it and edits start from it.
    """

    posed: Model
    state: str  # "assembled" | "failed" | "unavailable" | "empty"
    residual: float = 0.0
    message: str = ""
    dof: int | None = None
    redundant: tuple[str, ...] = ()
    offending: tuple[str, ...] = ()  # constraint names with the largest residual when assembly failed
    q: Any = None
    system: Any = field(default=None, repr=False)

    @property
    def assembled(self) -> bool:
        return self.state in ("assembled", "empty")


def analyse(model: Model, extra_hold: tuple[str, ...] = ()) -> Analysis:
    """Assemble ``model`` from its stored (rough) poses; never raises.

    ``extra_hold``: "body.coord" coordinates kept fixed in addition to the file's ``hold`` lists (e.g. the
    position of a body being dragged).
    """
    if not model.data.get("bodies"):
        return Analysis(model, "empty", dof=0)
    try:
        from mechstudio.core.kinematics.assembly import assemble, diagnose_failure, dof_report
        from mechstudio.core.systems.compile import compile_model
        system = compile_model(model)
    except Exception as exc:  # any compiler failure becomes a status, never a traceback in the editor
        log.warning("no assembly for model %r", model.name, exc_info=True)
        return Analysis(model, "unavailable", message=f"no assembly for this model: {exc}")
    try:
        hold = list(system.held_coordinates())
        names = list(getattr(system, "coord_names", []))
        hold += [names.index(c) for c in extra_hold if c in names]
        q0 = system.initial_guess()
        res = assemble(system, q0, 0.0, hold=sorted(set(hold)))
        if not res.status.ok and extra_hold:
            return analyse(model)
        rep = dof_report(system, res.q)
        dof = int(rep.dof_positions)
        redundant = tuple(rep.redundant)
        if not (res.status.ok and res.residual <= ASSEMBLED_TOL and np.all(np.isfinite(res.q))):
            diagnosis = diagnose_failure(system, q0, 0.0, hold=sorted(set(hold)))
    except Exception as exc:  # a numerical failure becomes a status, never a traceback in the editor
        log.warning("assembly error in model %r", model.name, exc_info=True)
        return Analysis(model, "unavailable", message=f"assembly error: {type(exc).__name__}: {exc}")
    if res.status.ok and res.residual <= ASSEMBLED_TOL and np.all(np.isfinite(res.q)):
        return Analysis(_with_poses(model, system, res.q), "assembled", res.residual, "", dof, redundant, (),
                        res.q, system)
    # show the configuration the diagnosis names: all other constraints closed, the culprit open
    shown = _with_poses(model, system, diagnosis.q) if diagnosis.isolated else model
    offending = (diagnosis.constraint,) if diagnosis.constraint else ()
    return Analysis(shown, "failed", diagnosis.residual, diagnosis.message, dof, redundant, offending,
                    diagnosis.q, system)


def _with_poses(model: Model, system: Any, q: Any) -> Model:
    """``model`` with the body poses of configuration ``q`` written in (planar models; others unchanged)."""
    if model.kind != "planar" or not hasattr(system, "body_frame_pose"):
        return model
    poses = {b: system.body_frame_pose(q, b) for b in system.body_names}
    if any(_pose_differs(edit.body_pose(edit.element(model, "bodies", b)), p) for b, p in poses.items()):
        return edit.set_poses(model, poses, validate=False)
    return model


def _pose_differs(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    return any(not math.isclose(x, y, rel_tol=0.0, abs_tol=1e-14) for x, y in zip(a, b))


class Document(QObject):
    """Current model + path + undo stack (see module docstring)."""

    sig_model_changed = Signal(object)
    """Emitted with the new :class:`Model` after every change (edit, undo, redo, open, new)."""
    sig_analysis_changed = Signal(object)
    """Emitted with the new :class:`Analysis` right after ``sig_model_changed``."""
    sig_selection_changed = Signal(list)
    """Emitted with the selected ``(collection, name)`` keys; selection is not undoable."""
    sig_path_changed = Signal(str)
    """Emitted when the file path changes (open, new, and a save under a new name)."""
    sig_reset = Signal()
    """Emitted when the document starts over with another model (open, new, import, recovery): what belongs
    to the previous model (a run's results, the view's framing) goes. Saving never emits it."""

    def __init__(self, model: Model | None = None, path: str | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self._model = model if model is not None else model_from_data(empty_model_data())
        self._path = path
        self._selection: list[tuple[str, str]] = []
        self._analysis = analyse(self._model)

    # ---- state ------------------------------------------------------------------------------------------
    @property
    def model(self) -> Model:
        return self._model

    @property
    def analysis(self) -> Analysis:
        return self._analysis

    @property
    def path(self) -> str | None:
        return self._path

    @property
    def modified(self) -> bool:
        return not self.undo_stack.isClean()

    @property
    def display_name(self) -> str:
        if self._path:
            return os.path.basename(self._path)
        return self._model.name or "untitled"

    # ---- replacing the model (used by commands and by open/new) ------------------------------------------
    def replace(self, model: Model, analysis: Analysis | None = None) -> None:
        """Make ``model`` current and publish it (commands call this from redo/undo)."""
        self._model = model
        self._analysis = analysis if analysis is not None and analysis.posed is model else analyse(model)
        known = {(c, n) for c in edit.COLLECTIONS + ("ground_points",) for n in edit.names(model, c)}
        if any(k not in known for k in self._selection):
            self._selection = [k for k in self._selection if k in known]
            self.sig_selection_changed.emit(list(self._selection))
        self.sig_model_changed.emit(model)
        self.sig_analysis_changed.emit(self._analysis)

    def reset(self, model: Model, path: str | None) -> None:
        """Start over with ``model`` (open, new): clears the undo history and the selection."""
        self.undo_stack.clear()
        self._path = path
        self._selection = []
        self.replace(model)
        self.undo_stack.setClean()
        self.sig_selection_changed.emit([])
        self.sig_reset.emit()
        self.sig_path_changed.emit(path or "")

    def set_path(self, path: str) -> None:
        """The document now lives in ``path`` (after a save): the model, its run and its view stay."""
        if path != self._path:
            self._path = path
            self.sig_path_changed.emit(path)

    # ---- edits ------------------------------------------------------------------------------------------
    def assembled(self, model: Model, extra_hold: tuple[str, ...] = ()) -> tuple[Model, Analysis]:
        """``model`` with the re-assembled poses written in (unchanged if it cannot be assembled)."""
        a = analyse(model, extra_hold)
        return a.posed, a

    def push_edit(self, new_model: Model, text: str, merge_key: Any = None, *, reassemble: bool = True,
                  extra_hold: tuple[str, ...] = ()) -> bool:
        """Push one undoable edit from the current model to ``new_model`` (re-assembled first).

        ``merge_key``: consecutive edits with the same (hashable, non-None) key merge into one undo step —
        callers use one key per drag gesture or per field-editing session. Returns False for a no-op.
        """
        analysis = None
        if reassemble:
            new_model, analysis = self.assembled(new_model, extra_hold)
        if new_model == self._model:
            return False
        self.undo_stack.push(SnapshotCommand(self, self._model, new_model, text, merge_key, analysis))
        return True

    def base_model(self) -> Model:
        """The model edits start from: the current model with its assembled poses."""
        return self._analysis.posed

    # ---- selection --------------------------------------------------------------------------------------
    @property
    def selection(self) -> list[tuple[str, str]]:
        return list(self._selection)

    def set_selection(self, keys: list[tuple[str, str]]) -> None:
        keys = list(dict.fromkeys(keys))
        if keys != self._selection:
            self._selection = keys
            self.sig_selection_changed.emit(list(keys))
