"""The live plots (reactions, violation, energy, coordinates), their curves and their figure exports.

Importing the package guards pyqtgraph's ``LabelItem.sizeHint`` (see :func:`apply_label_size_hint_guard`).
"""
from __future__ import annotations

from typing import Any


def apply_label_size_hint_guard() -> None:
    """Make pyqtgraph's ``LabelItem.sizeHint`` answer (0, 0) when the item has no ``_sizeHint`` table.

    Qt can lay out a plot's title label while its Python wrapper is being torn down (the garbage collector has
    already cleared the wrapper's attributes, the C++ item still sits in a layout of a closed plot that is being
    deleted). pyqtgraph's sizeHint then raises AttributeError inside Qt's layout pass, which surfaces as an
    exception in whatever runs next (seen in the test suite after many plot widgets were created and dropped).
    pyqtgraph itself answers (0, 0) for a hint it has no entry for; an item without the table gets that answer
    too. Idempotent.
    """
    from pyqtgraph.graphicsItems.LabelItem import LabelItem
    original = LabelItem.sizeHint
    if getattr(original, "_mechstudio_guarded", False):
        return
    from PySide6.QtCore import QSizeF

    def size_hint(self: Any, hint: Any, constraint: Any) -> QSizeF:
        if "_sizeHint" not in self.__dict__:
            return QSizeF(0, 0)
        return original(self, hint, constraint)

    size_hint._mechstudio_guarded = True  # type: ignore[attr-defined]
    LabelItem.sizeHint = size_hint


apply_label_size_hint_guard()
