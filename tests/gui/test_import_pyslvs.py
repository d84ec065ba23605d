"""File > Import Pyslvs mechanism: the menu entry builds an untitled planar model from a pasted expression.

The conversion itself (parser, closed-form slider-crank check) is tested in tests/test_interop_pyslvs.py; this
checks the editor's side: the menu action, the result as an untitled document that assembles with one degree of
freedom, and a bad expression refused with its problem listed while the open model stays as it was.
"""
from __future__ import annotations

from typing import Any

import numpy as np

# a crank-rocker four-bar, lengths in mm (Pyslvs' unit): ground pivots at (0, 0) and (90, 0)
FOUR_BAR = ("M[J[R, color[Green], P[0.0, 0.0], L[ground, link_0]], J[R, color[Green], P[12.92, 32.53], "
            "L[link_0, link_1]], J[R, color[Green], P[73.28, 67.97], L[link_1, link_2]], "
            "J[R, color[Green], P[90.0, 0.0], L[ground, link_2]]]")


def test_import_menu_builds_an_untitled_assembled_four_bar(window: Any, messenger: Any, qtbot: Any) -> None:
    messenger.next_text = FOUR_BAR
    action = window.act_import_pyslvs
    from mechstudio.gui.widgets.menu_actions import menu_actions
    assert ("File", action) in list(menu_actions(window.menuBar()))  # listed in the File menu
    action.trigger()
    doc = window.document
    assert doc.path is None  # untitled: Save asks where
    assert sorted(b["name"] for b in doc.model.data["bodies"]) == ["link_0", "link_1", "link_2"]
    analysis = doc.analysis
    assert analysis.dof == 1, analysis
    # the crank: pivot (0, 0) to pin (12.92, 32.53) mm, in metres
    crank = next(b for b in doc.model.data["bodies"] if b["name"] == "link_0")
    lengths = [np.hypot(*np.subtract(a, b)) for a in crank["points"].values() for b in crank["points"].values()]
    assert abs(max(lengths) - np.hypot(12.92, 32.53) / 1000) < 1e-12


def test_a_bad_expression_is_refused_and_the_model_kept(window: Any, messenger: Any) -> None:
    before = window.document.model
    messenger.next_text = "M[J[R, P[0, 0], L[ground, a]"  # unclosed
    assert not window.import_pyslvs()
    assert window.document.model is before
    (title, diagnostics), = messenger.diagnostic_calls
    assert "Cannot import" in title and "line 1, column" in diagnostics[0].format()
