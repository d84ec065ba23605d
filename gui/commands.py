"""Undo commands. Every edit swaps two immutable :class:`~core.model.Model` snapshots on a model holder.

Commands never touch widgets (widgets follow ``Document.sig_model_changed``). Consecutive commands with the
same ``merge_key`` merge into one undo step (a whole drag, or a whole field-editing session, is one step; the
merged step takes the text of the latest command, so "Set crank.mass to 2 kg" names the value finally typed);
edits of several elements are grouped by ``QUndoStack.beginMacro``/``endMacro`` (see :func:`macro`).

This module does not import :mod:`mechstudio.gui.document` (the document imports it): a command only needs an object with
``replace(model, analysis)`` (:class:`ModelHolder`), and :func:`macro` one with an ``undo_stack``.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, Protocol

from PySide6.QtGui import QUndoCommand, QUndoStack

from mechstudio.core.model import Model

MERGE_ID = 0x4D53  # one id for every mergeable snapshot command; mergeWith compares the merge keys


class ModelHolder(Protocol):
    """What a command changes: the document (``mechstudio.gui.document.Document``)."""

    undo_stack: QUndoStack

    def replace(self, model: Model, analysis: Any = None) -> None: ...


class SnapshotCommand(QUndoCommand):
    """redo(): holder := new; undo(): holder := old. ``analysis`` is the new model's precomputed analysis."""

    def __init__(self, holder: ModelHolder, old: Model, new: Model, text: str, merge_key: Any = None,
                 analysis: Any = None):
        super().__init__(text)
        self.holder = holder
        self.old, self.new = old, new
        self.merge_key = merge_key
        self.analysis = analysis

    def redo(self) -> None:
        self.holder.replace(self.new, self.analysis)

    def undo(self) -> None:
        self.holder.replace(self.old)

    def id(self) -> int:  # noqa: A003 - Qt API
        return MERGE_ID if self.merge_key is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt API
        if not isinstance(other, SnapshotCommand) or other.merge_key != self.merge_key:
            return False
        self.new = other.new
        self.analysis = other.analysis
        self.setText(other.text())
        return True


@contextmanager
def macro(holder: ModelHolder, text: str) -> Iterator[None]:
    """Group the commands pushed inside the block into one undo step."""
    holder.undo_stack.beginMacro(text)
    try:
        yield
    finally:
        holder.undo_stack.endMacro()
