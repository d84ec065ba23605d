"""The solver process of a run ends with the app, however the app ends, and holds nothing of it.

The app is a real process (the editor's main window with the live view, started in a subprocess) that runs a long
simulation; the solver runs in a process forked from it. The app is then killed with SIGKILL (a crash): the
solver process must be gone within 2 s, and the next start must offer the crashed session's recovery (the solver
held neither the recovery slot's lock nor the app's X connection). Also: SIGTERM ends a solver process (the
default disposition, whatever the app installed), and a solver process forked by a thread ends with the app when
the app is gone before it could arm its death signal (the watchdog).
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, SAMPLES

pytestmark = pytest.mark.gui

#: the app: open a long-running pendulum, make an unsaved change, autosave it, run; report the pids
APP = textwrap.dedent("""
    import os, signal, sys
    from PySide6.QtCore import QTimer
    from mechstudio.core.model import model_from_data
    from mechstudio.gui.app import build_window, create_application
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # an app that ignores SIGTERM: its solver must not inherit that
    app = create_application([])
    window = build_window(sys.argv[1], offer_recovery=False)
    window.show()
    data = window.document.model.copy_data()
    data["name"] = "crashed while running"
    window.document.push_edit(model_from_data(data), "rename")
    assert window.autosaver.autosave()
    c = window.live.controller

    def report():
        if len(c.buffer) >= 2:
            print("running", os.getpid(), flush=True)
        else:
            QTimer.singleShot(50, report)

    window.live.act_run.trigger()
    QTimer.singleShot(50, report)
    app.exec()
""")


def read_line(proc: subprocess.Popen, timeout_s: float = 120.0) -> str:
    """The next line of ``proc``'s stdout; '' when it ends or says nothing for ``timeout_s`` (a hung app must
    fail the test, not hang it)."""
    ready, _w, _x = select.select([proc.stdout], [], [], timeout_s)
    return proc.stdout.readline() if ready else ""


def children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper that never comes is dead)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] not in ("Z", "X")


def fd_targets(pid: int) -> list[str]:
    out = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            out.append(os.readlink(fd))
        except OSError:
            pass
    return out


@pytest.fixture
def long_pendulum(tmp_path: Path) -> Path:
    data = json.loads((SAMPLES / "pendulum.json").read_text())
    data.setdefault("simulation", {}).update(t_end=5000.0, dt=0.01)
    path = tmp_path / "long_pendulum.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def fresh_recovery_state(monkeypatch: pytest.MonkeyPatch) -> Any:
    import mechstudio.gui.recovery as recovery
    monkeypatch.setattr(recovery, "_own", None)
    monkeypatch.setattr(recovery, "_claimed", [])
    return recovery


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_killing_the_app_during_a_run_ends_the_solver_and_recovery_is_offered(
        qtbot: Any, isolated_config: Path, long_pendulum: Path, fresh_recovery_state: Any, messenger: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    if not os.environ.get("DISPLAY"):
        pytest.skip("the app needs an X display with OpenGL (run under xvfb-run with QT_QPA_PLATFORM=xcb)")
    env = dict(os.environ, MECHSTUDIO_CONFIG_DIR=str(isolated_config), PYTHONPATH=str(ROOT),
               QT_QPA_PLATFORM="xcb")
    env.pop("MECHSTUDIO_NO_LIVE_VIEW", None)
    env.pop("MECHSTUDIO_SIM_IN_THREAD", None)
    app = subprocess.Popen([sys.executable, "-c", APP, str(long_pendulum)], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    solvers: list[int] = []
    try:
        line = read_line(app)
        assert line.startswith("running"), app.stderr.read() if app.poll() is not None else "the app hung"
        solvers = children(app.pid)
        assert len(solvers) == 1, solvers
        solver = solvers[0]
        # the solver holds nothing of the app: no lock file, no socket (the X connection), only the result pipe,
        # the standard streams and /dev/null
        targets = fd_targets(solver)
        assert not [t for t in targets if t.endswith(".lock") or t.startswith("socket:")], targets
        assert not [t for t in targets if "mechstudio.log" in t], targets
        app.send_signal(signal.SIGKILL)
        app.wait(120)  # (a large app on a loaded machine takes a while to be torn down)
        deadline = time.monotonic() + 2.0
        while alive(solver) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not alive(solver), "the solver process outlived the app by more than 2 s"
    finally:
        if app.poll() is None:
            app.kill()
            app.wait(10)
        for pid in solvers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    # the next start offers the crashed session's model
    monkeypatch.setenv("MECHSTUDIO_NO_LIVE_VIEW", "1")
    from mechstudio.gui.main_window import MainWindow
    w = MainWindow(messenger=messenger, restore_layout=False)
    qtbot.addWidget(w)
    assert w.offer_recovery()
    assert messenger.questions and messenger.questions[0][0] == "Recover unsaved changes?"
    assert w.document.model.name == "crashed while running"
    w.document.undo_stack.setClean()


#: a solver-like child forked by a thread of a process that ignores SIGTERM, as the worker forks it
FORKER = textwrap.dedent("""
    import os, signal, sys, threading, time
    from mechstudio.gui.simulation.worker import detach_from_app
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    mode = sys.argv[1]

    def fork():
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:
            if mode == "late":
                time.sleep(0.5)  # the app is gone before the child arms anything
            detach_from_app(parent)
            while True:
                time.sleep(0.01)
        print(pid, flush=True)
        time.sleep(120)

    threading.Thread(target=fork, daemon=True).start()
    time.sleep(120)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork and /proc")
@pytest.mark.parametrize("mode", ["sigterm", "late"])
def test_solver_process_obeys_sigterm_and_ends_when_the_app_died_early(mode: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    app = subprocess.Popen([sys.executable, "-c", FORKER, mode], env=env, stdout=subprocess.PIPE, text=True)
    line = read_line(app, 60.0)
    assert line.strip().isdigit(), "the forking process did not start"
    child = int(line)
    try:
        if mode == "sigterm":
            time.sleep(0.3)
            os.kill(child, signal.SIGTERM)  # the app ignores SIGTERM; its solver must not
        else:
            app.kill()  # before the child armed its death signal: the parent pid it checks has changed
            app.wait(10)
        deadline = time.monotonic() + 2.0
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not alive(child)
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)
        app.kill()
        app.wait(10)
