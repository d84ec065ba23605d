"""Undo commands. Every edit swaps two immutable :class:`~core.model.Model` snapshots on the Document.

Commands never touch widgets (widgets follow ``Document.sig_model_changed``). Consecutive commands with the
same ``merge_key`` merge into one undo step (a whole drag, or a whole field-editing session, is one step);
edits of several elements are grouped by ``QUndoStack.beginMacro``/``endMacro`` (see :func:`macro`).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator

from PySide6.QtGui import QUndoCommand

from core.model import Model

if TYPE_CHECKING:
    from gui.document import Analysis, Document

MERGE_ID = 0x4D53  # one id for every mergeable snapshot command; mergeWith compares the merge keys


class SnapshotCommand(QUndoCommand):
    """redo(): document := new; undo(): document := old."""

    def __init__(self, document: "Document", old: Model, new: Model, text: str, merge_key: Any = None,
                 analysis: "Analysis | None" = None):
        super().__init__(text)
        self.document = document
        self.old, self.new = old, new
        self.merge_key = merge_key
        self._analysis = analysis

    def redo(self) -> None:
        self.document.replace(self.new, self._analysis)

    def undo(self) -> None:
        self.document.replace(self.old)

    def id(self) -> int:  # noqa: A003 - Qt API
        return MERGE_ID if self.merge_key is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt API
        if not isinstance(other, SnapshotCommand) or other.merge_key != self.merge_key:
            return False
        self.new = other.new
        self._analysis = other._analysis
        return True


@contextmanager
def macro(document: "Document", text: str) -> Iterator[None]:
    """Group the commands pushed inside the block into one undo step."""
    document.undo_stack.beginMacro(text)
    try:
        yield
    finally:
        document.undo_stack.endMacro()
