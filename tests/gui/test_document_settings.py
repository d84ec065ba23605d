"""Simulation settings belong to the document: the settings dialog (opened from the Simulation menu by click,
driven by keys) writes the model's ``simulation`` section as an undoable edit that marks it modified; they are
saved in the file and read back; another model keeps its own (Wittenburg chosen for a chain does not reach the
next planar model, nor does a 1e6 s end time); times take scientific notation and a value that cannot be run is
refused with its reason, never clamped."""
from __future__ import annotations

import json
import shutil
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.gui.conftest import SAMPLES
from tests.gui.document_helpers import (click, click_menu_entry, click_menu_title, press, start_window, type_into,
                                        when_modal)

pytestmark = pytest.mark.gui
CTRL = Qt.KeyboardModifier.ControlModifier


def edit_settings(qtbot: Any, w: Any, act: Any) -> list[bool]:
    """Simulation → Settings… by mouse; ``act(dialog)`` runs on the modal dialog (it must close it)."""
    done = when_modal(act, "sim_settings_dialog")
    click_menu_title(qtbot, w, w.menu_simulation)
    click_menu_entry(qtbot, w.menu_simulation, "act_sim_settings")
    qtbot.waitUntil(lambda: bool(done), timeout=10_000)
    return done


def formulations(dialog: Any) -> list[str]:
    return [dialog.formulation.itemText(i) for i in range(dialog.formulation.count())]


def test_settings_are_the_documents_saved_undoable_and_not_carried_over(qtbot: Any, messenger: Any,
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Any) -> None:
    chain = tmp_path / "chain.json"
    shutil.copy(SAMPLES / "spherical_chain_3.json", chain)
    w = start_window(qtbot, messenger, monkeypatch, (1366, 768), str(chain))
    c = w.live.controller
    seen: dict[str, Any] = {}

    def long_run(d: Any) -> None:
        seen["formulations"] = formulations(d)
        seen["formulation"] = d.formulation.currentText()
        type_into(d.t_end, "1e6")  # 1e8 frames at 0.01 s: refused, with the reason and the way out
        seen["refused"] = (d.ok_button.isEnabled(), d.problem_label.text())
        type_into(d.dt, "1")
        seen["accepted"] = (d.ok_button.isEnabled(), d.problem_label.text())
        click(d.ok_button)
    edit_settings(qtbot, w, long_run)
    assert "wittenburg" in seen["formulations"] and seen["formulation"] == "wittenburg"
    ok, reason = seen["refused"]
    assert not ok and "1e+08 output frames" in reason and "at least 1 s" in reason
    assert seen["accepted"] == (True, "")
    s = c.effective_settings()
    assert (s.t_end, s.dt, s.formulation) == (1e6, 1.0, "wittenburg")  # 1e6 is one million seconds, not 16
    assert w.document.modified and w.isWindowModified()
    assert w.document.undo_stack.undoText() == "Simulation settings: end time 1e+06 s, output interval 1 s"
    press(w.canvas, Qt.Key.Key_S, CTRL)  # saved into the file's simulation section
    qtbot.waitUntil(lambda: not w.document.modified)
    saved = json.loads(chain.read_text())["simulation"]
    assert saved["t_end"] == 1e6 and saved["dt"] == 1.0 and saved["formulation"] == "wittenburg"

    # another model: its own settings (no Wittenburg offered for a planar model, the file's end time)
    messenger.next_open = str(SAMPLES / "four_bar.json")
    press(w.canvas, Qt.Key.Key_O, CTRL)
    qtbot.waitUntil(lambda: w.document.model.kind == "planar")
    s = c.effective_settings()
    assert (s.t_end, s.dt, s.formulation) == (5.0, 0.01, "projection")

    def planar(d: Any) -> None:
        seen["planar"] = formulations(d)
        seen["planar_t_end"] = d.t_end.text()
        type_into(d.t_end, "2.5")
        click(d.ok_button)
    edit_settings(qtbot, w, planar)
    assert "wittenburg" not in seen["planar"] and seen["planar_t_end"] == "5"
    assert c.effective_settings().t_end == 2.5 and w.document.modified
    press(w.canvas, Qt.Key.Key_Z, CTRL)  # undo: the file's settings again, unmodified
    qtbot.waitUntil(lambda: not w.document.modified)
    assert c.effective_settings().t_end == 5.0
    assert c.start() and c.state == "running"  # the planar model runs (projection), not Wittenburg
    c.stop()
    c.shutdown()

    # the chain file again: its saved settings
    messenger.next_open = str(chain)
    press(w.canvas, Qt.Key.Key_O, CTRL)
    qtbot.waitUntil(lambda: w.document.path == str(chain))
    s = c.effective_settings()
    assert (s.t_end, s.dt, s.formulation) == (1e6, 1.0, "wittenburg")
    c.shutdown()
    w.document.undo_stack.setClean()


def test_a_clamped_or_mistyped_time_is_refused_with_its_reason(qtbot: Any, messenger: Any,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    w = start_window(qtbot, messenger, monkeypatch, None, str(SAMPLES / "pendulum.json"))
    seen: list[tuple[str, bool, str]] = []

    def typing(d: Any) -> None:
        for field, text in ((d.t_end, "1000000"), (d.t_end, "abc"), (d.t_end, "-3"), (d.t_end, "100000"),
                            (d.dt, "0.1"), (d.dt, "2e5")):
            type_into(field, text)
            seen.append((text, d.ok_button.isEnabled(), d.problem_label.text()))
        type_into(d.dt, "0.1")
        press(d, Qt.Key.Key_Escape)  # cancelled: nothing changes
    edit_settings(qtbot, w, typing)
    results = {text: (ok, reason) for text, ok, reason in seen}
    assert results["1000000"][0] is False and "output frames" in results["1000000"][1]
    assert results["abc"] == (False, "The end time: 'abc' is not a number (write e.g. 5, 0.01 or 1e6).")
    assert results["-3"] == (False, "The end time must be a positive number of seconds.")
    assert results["100000"][0] is False  # 1e7 frames at 0.01 s
    assert results["0.1"] == (True, "")  # 100 000 s at 0.1 s: accepted as typed, not clamped
    assert results["2e5"][0] is False and "longer than the end time" in results["2e5"][1]
    assert not w.document.modified and w.live.controller.effective_settings().t_end == 5.0
    w.live.controller.shutdown()


def test_a_file_asking_for_wittenburg_on_a_planar_model_is_refused_in_user_words(
        qtbot: Any, messenger: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    data = json.loads((SAMPLES / "four_bar.json").read_text())
    data["simulation"]["formulation"] = "wittenburg"
    path = tmp_path / "planar_wittenburg.json"
    path.write_text(json.dumps(data))
    w = start_window(qtbot, messenger, monkeypatch, None, str(path))
    press(w.canvas, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: bool(messenger.errors), timeout=10_000)
    title, text = messenger.errors[-1]
    assert "Wittenburg formulation is for spatial trees" in text and "planar model" in text
    assert "System" not in text and w.live.controller.state == "failed"
    QTest.qWait(50)
    w.live.controller.shutdown()
