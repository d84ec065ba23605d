"""Dialogs speak the user's words: no command-line options (``--metric``) and no class names (``PlanarSystem``)."""
from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from mechstudio.gui.dialogs.wording import sweep_words, user_words
from tests.gui.conftest import SAMPLES

pytestmark = pytest.mark.gui


@pytest.mark.parametrize("engine, words", [
    ("the wittenburg formulation needs a tree of bodies joined by spherical joints (got a PlanarSystem)",
     "the wittenburg formulation needs a tree of bodies joined by spherical joints (got a planar model)"),
    ("SpatialSystem has no tree", "spatial model has no tree"),
    ("got an TreeMaximalSystem", "got a spatial tree of spherical joints"),
])
def test_class_names_become_model_kinds(engine: str, words: str) -> None:
    assert user_words(engine) == words


@pytest.mark.parametrize("engine, words", [
    ("give at least one --metric LABEL=REDUCER(COLUMN)",
     "add at least one metric (Metrics: Add metric, then choose a reducer and a result column)"),
    ("give at least one --vary NAME.FIELD=...",
     "add at least one parameter (Parameters: Add parameter, or right-click a field in Properties → Sweep this)"),
    ("--metric peak=absmax(x): the results have no column 'x'; columns: t, q.a.x",
     "metric peak=absmax(x): the results have no column 'x'; columns: t, q.a.x"),
    ("--metric p=foo(t): unknown reducer 'foo'; reducers: max, min",
     "metric p=foo(t): unknown reducer 'foo'; reducers: max, min"),
    ("the sobol design needs --samples N (N >= 1)", "the sobol design needs a number of samples (1 or more)"),
    ("--vary crank.mass is given more than once", "the parameter crank.mass is listed more than once"),
])
def test_sweep_messages_name_the_dialogs_parts(engine: str, words: str) -> None:
    assert sweep_words(engine) == words
    assert "--" not in sweep_words(engine)


def test_a_sweep_without_metrics_says_so_in_the_dialogs_words(qtbot: Any, window: Any) -> None:
    assert window.open_file(str(SAMPLES / "four_bar.json"), ask=False)
    window.act_parameter_sweep.trigger()
    dialog = window.sweep_dialog
    qtbot.waitUntil(lambda: dialog.isVisible())
    dialog.add_parameter("crank.mass", 1.0, 2.0, 2)
    QTest.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.state == "failed", timeout=60_000)
    text = dialog.status.text()
    assert "add at least one metric" in text and "--" not in text, text
    dialog.close()
