"""Files in the editor: bad files open nothing and list their problems, read-only saves lose nothing, recent
files and layout are remembered (in MECHSTUDIO_CONFIG_DIR), autosave and crash recovery."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from mechstudio.core.model import load_model
from mechstudio.core.model import edit

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_models"
BAD = ROOT / "tests" / "data" / "bad_models"
EXPECTED = {  # file -> (JSON pointer, part of the message)
    "truncated.json": ("", "invalid JSON"),
    "missing_keys.json": ("/bodies/0", "'mass' is missing"),
    "wrong_types.json": ("/bodies/0/mass", "must be of type number"),
    "nan.json": ("/bodies/0/mass", "NaN"),
    "zero_mass.json": ("/bodies/0/mass", "greater than 0"),
    "negative_mass.json": ("/bodies/0/mass", "greater than 0"),
    "dangling_body.json": ("/joints/0/body2", "no body named 'nobody'"),
    "duplicate_names.json": ("/bodies/1/name", "duplicate body name"),
    "unknown_key.json": ("/bodies/0", "unknown key"),
    "newer_version.json": ("/version", "newer"),
}


def test_every_bad_file_is_listed() -> None:
    assert sorted(p.name for p in BAD.glob("*.json")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_file_shows_its_problems_and_leaves_the_document_untouched(window: Any, messenger: Any,
                                                                        name: str) -> None:
    assert window.open_file(str(SAMPLES / "four_bar.json"))
    doc = window.document
    doc.push_edit(edit.set_ground_point(doc.base_model(), "D", [4.1, 0.0]), "move D")  # unsaved work
    before, path, steps, title = doc.model, doc.path, doc.undo_stack.count(), window.windowTitle()
    assert not window.open_file(str(BAD / name))
    (title_shown, diagnostics), = messenger.diagnostic_calls
    assert name in title_shown
    pointer, words = EXPECTED[name]
    assert any(d.pointer == pointer and words in d.message for d in diagnostics), diagnostics
    assert doc.model is before and doc.path == path and doc.undo_stack.count() == steps and doc.modified
    assert window.windowTitle() == title
    assert not messenger.questions  # nothing asked: nothing was going to be replaced


def test_diagnostics_dialog_lists_every_problem(qtbot: Any) -> None:
    from mechstudio.core.errors import ModelError
    from mechstudio.gui.dialogs.diagnostics import DiagnosticsDialog
    with pytest.raises(ModelError) as info:
        load_model(BAD / "dangling_body.json")
    dlg = DiagnosticsDialog("Cannot open", info.value.diagnostics)
    qtbot.addWidget(dlg)
    assert dlg.lines() == [f"{d.pointer}: error: {d.message}" for d in info.value.diagnostics]


def test_saving_over_a_read_only_file_fails_and_loses_nothing(window: Any, messenger: Any, tmp_path: Path) -> None:
    target = tmp_path / "locked.json"
    target.write_text((SAMPLES / "pendulum.json").read_text())
    target.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    original = target.read_bytes()
    mine = tmp_path / "four_bar.json"  # a user's file (a sample would open as an untitled copy)
    mine.write_text((SAMPLES / "four_bar.json").read_text())
    assert window.open_file(str(mine))
    doc = window.document
    doc.push_edit(edit.set_ground_point(doc.base_model(), "D", [4.2, 0.0]), "move D")
    model = doc.model
    assert not window.save_as(str(target))
    assert messenger.errors and "read-only" in messenger.errors[-1][1]
    assert target.read_bytes() == original
    assert doc.model is model and doc.modified and doc.path.endswith("four_bar.json")
    # a path that cannot be written at all (its folder does not exist)
    assert not window.save_as(str(tmp_path / "no" / "such" / "dir.json"))
    assert len(messenger.errors) == 2 and doc.modified
    assert not list(tmp_path.glob("**/.*.tmp"))  # no temporary files left behind


def test_closing_with_unsaved_changes_asks(window: Any, messenger: Any) -> None:
    doc = window.document
    assert window.open_file(str(SAMPLES / "pendulum.json"))
    doc.push_edit(edit.set_value(doc.base_model(), "/name", "changed"), "rename")
    messenger.save_answer = "cancel"
    assert not window.close()
    assert messenger.questions[-1][0] == "save?"
    messenger.save_answer = "discard"
    assert window.close()


def test_recent_files_and_layout_are_remembered(qtbot: Any, messenger: Any, isolated_config: Path,
                                                tmp_path: Path) -> None:
    from mechstudio.gui.main_window import MainWindow
    w = MainWindow(messenger=messenger, restore_layout=False)
    qtbot.addWidget(w)
    for name in ("pendulum.json", "four_bar.json"):  # users' files: samples open as copies, not recent files
        (tmp_path / name).write_text((SAMPLES / name).read_text())
        assert w.open_file(str(tmp_path / name))
    w.show()
    w.dock_outline.hide()
    w.save_layout()
    w.close()
    assert (isolated_config / "settings.ini").exists()
    w2 = MainWindow(messenger=messenger)
    qtbot.addWidget(w2)
    w2.show()
    assert [Path(p).name for p in w2.recent_files()][:2] == ["four_bar.json", "pendulum.json"]
    assert [a.text() for a in w2.menu_recent.actions()][:2] == ["four_bar.json", "pendulum.json"]
    assert not w2.dock_outline.isVisible()


def test_autosave_writes_the_recovery_file_only_with_unsaved_changes(window: Any, isolated_config: Path) -> None:
    import json
    from mechstudio.core.model import loads_model
    from mechstudio.gui.recovery import find_recovery, own_slot
    assert window.open_file(str(SAMPLES / "four_bar.json"))
    assert not window.autosaver.autosave()  # nothing unsaved
    doc = window.document
    doc.push_edit(edit.set_ground_point(doc.base_model(), "D", [4.25, 0.0]), "move D")
    assert window.autosaver.autosave()
    slot = own_slot()  # this instance's recovery slot (a running instance's slot is never offered)
    assert loads_model(slot.model_file.read_text()) == doc.model
    assert json.loads(slot.meta_file.read_text())["path"] == doc.path
    assert find_recovery() is None
    assert window.autosaver.interval_ms == 60_000  # every minute by default


CRASHING_APP = textwrap.dedent("""
    import os, sys
    from mechstudio.gui.app import create_application
    from mechstudio.gui.main_window import MainWindow
    from mechstudio.core.model import edit
    app = create_application()
    w = MainWindow(autosave_ms=100)
    w.open_file(sys.argv[1], ask=False)
    doc = w.document
    doc.push_edit(edit.set_ground_point(doc.base_model(), "D", [4.4, 0.1]), "move D")
    w.show()
    print("edited", flush=True)
    app.exec()  # runs until the test kills it
""")


def test_crash_recovery_offers_the_autosaved_model(qtbot: Any, messenger: Any, isolated_config: Path,
                                                   tmp_path: Path) -> None:
    def recovery_files() -> list[Path]:
        return [p for p in (isolated_config / "recovery").glob("*.json") if not p.name.endswith(".meta.json")]

    env = dict(os.environ, MECHSTUDIO_CONFIG_DIR=str(isolated_config), PYTHONPATH=str(ROOT))
    mine = tmp_path / "four_bar.json"  # a user's file (a sample would open as an untitled copy)
    mine.write_text((SAMPLES / "four_bar.json").read_text())
    proc = subprocess.Popen([sys.executable, "-c", CRASHING_APP, str(mine)], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not recovery_files() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert recovery_files(), proc.stderr.read() if proc.poll() is not None else "no autosave within 30 s"
        time.sleep(0.2)
    finally:
        proc.kill()  # the crash
        proc.wait(10)
    (recovery,) = recovery_files()  # the crashed instance's slot
    from mechstudio.gui.main_window import MainWindow
    w = MainWindow(messenger=messenger, restore_layout=False)
    qtbot.addWidget(w)
    messenger.answer = True
    assert w.offer_recovery()
    assert "Recover" in messenger.questions[-1][0]
    doc = w.document
    assert doc.model.data["ground"]["points"]["D"] == [4.4, 0.1]
    assert doc.path == str(mine) and doc.modified
    doc.undo_stack.undo()  # the recovered changes are one step on top of the file on disk
    assert doc.model == load_model(SAMPLES / "four_bar.json")
    doc.undo_stack.setClean()
    w.close()  # a normal exit removes the recovery file: nothing is offered next time
    assert not recovery.exists()
    w3 = MainWindow(messenger=messenger, restore_layout=False)
    qtbot.addWidget(w3)
    assert not w3.offer_recovery()
