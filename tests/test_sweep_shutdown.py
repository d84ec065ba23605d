"""Local Dask clusters of sweeps end cleanly: two at once take different free ports (no warning about Dask's default
port 8787), a cancelled sweep stops the run in progress in its worker process (which then closes without Dask's
"Worker process still alive after 4.0 seconds, killing"), and no process outlives the cluster or the command.

Each cluster has one worker process (starting processes is the slow part); the runs are the pendulum's.
"""
from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import dask
import psutil
import pytest

from conftest import ROOT, SAMPLES
from mechstudio.core.sweep import prepare, run_plan
from mechstudio.core.sweep.execute import connect, dashboard_available, dashboard_link

PENDULUM = SAMPLES / "pendulum.json"


def dask_warnings(records: list[logging.LogRecord]) -> list[str]:
    return [r.getMessage() for r in records if r.levelno >= logging.WARNING and r.name.startswith("distributed")]


def child_processes() -> dict[int, str]:
    """This process's descendants, without multiprocessing's resource tracker (one per process, started with the
    first worker process and ending with this process, by design)."""
    out = {}
    for p in psutil.Process().children(recursive=True):
        try:
            cmd = " ".join(p.cmdline())
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            continue
        if "multiprocessing.resource_tracker" not in cmd:
            out[p.pid] = cmd
    return out


def test_two_sweeps_at_once_a_cancel_stops_the_run_in_progress_and_nothing_is_left(caplog: pytest.LogCaptureFixture
                                                                                   ) -> None:
    caplog.set_level(logging.INFO)
    before = child_processes()
    short = prepare(PENDULUM, {"bar.mass": [1.0, 2.0]}, ["top=max(q.bar.phi)"], {"t_end": 0.05})
    # about 10^4 s of motion: minutes of computing, unless the stop reaches the run
    long = prepare(PENDULUM, {"bar.mass": [1.0]}, ["top=max(q.bar.phi)"], {"t_end": 1e4, "dt": 0.5})
    stopped_in_worker: dict[str, list[str]] = {}
    with connect(workers=1) as first, connect(workers=1) as second:
        links = [dashboard_link(first), dashboard_link(second)]
        if dashboard_available():
            assert all(link and link.startswith("http://127.0.0.1:") for link in links)
            assert links[0] != links[1]  # each on a free port of its own
        else:
            assert links == [None, None]
        rows: list[dict] = []
        done = run_plan(short, client=first, sink=rows.extend)
        assert done.rows == 2 and sorted(r["status"] for r in rows) == ["finished", "finished"]
        started = time.monotonic()
        outcome = run_plan(long, client=second, cancel=lambda: time.monotonic() - started > 3.0)
        assert outcome.cancelled and outcome.rows == 0
        from mechstudio.core.sweep import runner
        stopped_in_worker = second.run(lambda: sorted(runner.STOPPED_SWEEPS))
        profiling = first.run(lambda: dask.config.get("distributed.worker.profile.enabled"))
        assert list(profiling.values()) == [False]  # the local workers run without Dask's sampling profiler
    assert len(stopped_in_worker) == 1 and all(len(ids) == 1 for ids in stopped_in_worker.values())
    assert dask_warnings(caplog.records) == []  # no port 8787 warning, no worker killed
    after = child_processes()
    assert set(after) <= set(before), after  # every worker process has ended


def test_the_command_leaves_no_process_and_prints_no_warning(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MECHSTUDIO_NO_NUMBA": "1", "MECHSTUDIO_TEST_MARKER": marker}
    out = tmp_path / "s.parquet"
    cmd = [sys.executable, "-m", "mechstudio", "sweep", str(PENDULUM), "--vary", "bar.mass=1,2", "--metric",
           "top=max(q.bar.phi)", "--t-end", "0.05", "--workers", "1", "--out", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == f"2 of 2 runs in {out}"
    lines = [line for line in res.stderr.splitlines() if not line.startswith(("dashboard: ", "note: "))]
    assert lines == [], res.stderr  # nothing but the dashboard line: no warning, no traceback
    left = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get("MECHSTUDIO_TEST_MARKER") == marker:
                left.append(" ".join(proc.cmdline()))
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    assert left == []


def test_the_workers_stop_their_heartbeats_before_they_are_closed() -> None:
    """A heartbeat in flight while the scheduler drops a closing worker is logged by the worker as an error with a
    traceback (on the sweep's standard error): connect() stops the heartbeats first. Checked on the worker itself,
    before and after quiet_heartbeats."""
    from mechstudio.core.sweep.execute import quiet_heartbeats

    def beating(dask_worker: Any) -> bool:
        return bool(dask_worker.periodic_callbacks["heartbeat"].is_running())

    with connect(workers=1) as client:
        assert list(client.run(beating).values()) == [True]
        quiet_heartbeats(client)
        assert list(client.run(beating).values()) == [False]
