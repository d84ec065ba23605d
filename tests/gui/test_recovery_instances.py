"""Per-instance recovery slots (issue 18): two running instances never overwrite each other's autosave; a slot is
offered only when its instance is gone (its QLockFile can be taken), and the crashed instance's model is the one
offered. The instances are real processes, killed with SIGKILL (a crash)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLES

INSTANCE = textwrap.dedent("""
    import sys, time
    from PySide6.QtCore import QCoreApplication
    from mechstudio.core.model import load_model, model_from_data
    from mechstudio.gui.recovery import Autosaver
    app = QCoreApplication([])
    model = load_model(sys.argv[1])
    data = dict(model.data, name=sys.argv[2])

    class Document:
        modified, path, model = True, sys.argv[1], model_from_data(data)

    saver = Autosaver(Document(), interval_ms=3_600_000)
    assert saver.autosave()
    print("saved", flush=True)
    time.sleep(120)
""")


def start_instance(name: str, config: Path) -> subprocess.Popen:
    env = dict(os.environ, MECHSTUDIO_CONFIG_DIR=str(config), PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    proc = subprocess.Popen([sys.executable, "-c", INSTANCE, str(SAMPLES / "four_bar.json"), name], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.strip() == "saved", proc.stderr.read() if proc.poll() is not None else line
    return proc


@pytest.fixture
def fresh_recovery_state(monkeypatch):
    import mechstudio.gui.recovery as recovery
    monkeypatch.setattr(recovery, "_own", None)
    monkeypatch.setattr(recovery, "_claimed", [])
    return recovery


def test_two_instances_keep_separate_slots_and_only_a_crashed_ones_is_offered(isolated_config, fresh_recovery_state):
    recovery = fresh_recovery_state
    a = start_instance("instance A", isolated_config)
    b = start_instance("instance B", isolated_config)
    try:
        models = sorted((isolated_config / "recovery").glob("instance-*[0-9].json"))
        assert len(models) == 2  # one slot each: nobody overwrote the other
        assert sorted(json.loads(p.read_text())["name"] for p in models) == ["instance A", "instance B"]
        assert recovery.find_recovery() is None  # both alive: their locks are held
        a.send_signal(signal.SIGKILL)
        a.wait(10)
        rec = recovery.find_recovery()
        assert rec is not None and rec.model.data["name"] == "instance A"
        assert rec.original_path == str(SAMPLES / "four_bar.json")
        assert recovery.find_recovery() is None  # claimed by this instance: not offered twice
        recovery.clear_recovery()  # offered and taken (or declined): its files go
        left = [json.loads(p.read_text())["name"] for p in (isolated_config / "recovery").glob("instance-*[0-9].json")]
        assert left == ["instance B"]  # the running instance's slot is untouched
    finally:
        for p in (a, b):
            p.kill()
            p.wait(10)
    time.sleep(0.1)
    rec = recovery.find_recovery()  # B has now crashed too: its model is offered at the next start
    assert rec is not None and rec.model.data["name"] == "instance B"
