"""``mechstudio sweep`` against a separately started cluster: one ``dask scheduler`` and two ``dask worker``
processes (subprocesses bound to 127.0.0.1, no dashboards, always torn down), through ``--scheduler`` and
through $DASK_SCHEDULER_ADDRESS; the results equal serial runs of the modified files to 1e-12 (see
test_sweep_dask.py for the tolerance). Ctrl+C (SIGINT to the command's process group) ends cleanly with a valid
file, and ``--resume`` completes it.
"""
from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from mechstudio.core.sweep.store import read_metadata
from test_sweep_helpers import FOUR_BAR, ROOT, assert_rows_match_serial

DASK = str(Path(sys.executable).with_name("dask"))
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ENV.pop("DASK_SCHEDULER_ADDRESS", None)


def start(args: list[str], log: Path) -> subprocess.Popen:
    with open(log, "w") as fh:
        return subprocess.Popen(args, stdout=fh, stderr=subprocess.STDOUT, env=ENV, cwd=ROOT,
                                start_new_session=True)


def stop(procs: list[subprocess.Popen]) -> None:
    """SIGTERM each started process group (ours, by id), then SIGKILL what is left after 20 s."""
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    deadline = time.monotonic() + 20
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


class ClusterFiles:
    """Files of the module's cluster (set by the fixture)."""
    scheduler_file = ""


@pytest.fixture(scope="module")
def scheduler_address(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dask")
    sched_file = folder / "scheduler.json"
    procs = [start([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                    "--scheduler-file", str(sched_file)], folder / "scheduler.log")]
    try:
        deadline = time.monotonic() + 120
        while not sched_file.exists():
            assert procs[0].poll() is None, (folder / "scheduler.log").read_text()
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.2)
        for k in range(2):
            procs.append(start([DASK, "worker", "--scheduler-file", str(sched_file), "--nworkers", "1",
                                "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard", "--name", f"w{k}"],
                               folder / f"worker{k}.log"))
        address = json.loads(sched_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        from distributed import Client
        with Client(address, timeout="60s") as c:
            c.wait_for_workers(2, timeout=180)
            assert all(w.startswith("tcp://127.0.0.1:") for w in c.scheduler_info()["workers"])
        ClusterFiles.scheduler_file = str(sched_file)  # for the --scheduler-file check
        yield address
    finally:
        stop(procs)


class Terminal:
    """A pseudo-terminal for a child's standard error; a thread collects what the child writes to it."""

    def __init__(self) -> None:
        self.master, self.slave = pty.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))  # 120 columns for the bar
        self.chunks: list[bytes] = []
        self.reader = threading.Thread(target=self._read, daemon=True)

    def started(self) -> None:
        os.close(self.slave)  # the child holds its copy
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:  # EIO: every writer has closed
                return
            if not data:
                return
            self.chunks.append(data)

    def text(self) -> str:
        return b"".join(self.chunks).decode(errors="replace").replace("\r", "\n")

    def close(self) -> None:
        self.reader.join(timeout=10)
        os.close(self.master)


def sweep_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "mechstudio.core", "sweep", str(FOUR_BAR), *args]


METRICS = {"peak": ("absmax", "reaction.D.Fx"), "speed": ("rms", "v.coupler.phi"), "top": ("max", "q.rocker.y")}
METRIC_ARGS = [a for k, (r, c) in METRICS.items() for a in ("--metric", f"{k}={r}({c})")]


def test_cli_sweep_through_scheduler_equals_serial_runs(scheduler_address, tmp_path):
    out = tmp_path / "grid.parquet"
    res = subprocess.run(sweep_command("--vary", "crank.mass=1:2:2", "--vary", "rocker.initial.phi=1.75,1.85",
                                       *METRIC_ARGS, "--t-end", "0.3", "--rtol", "1e-9", "--out", str(out),
                                       "--scheduler", scheduler_address),
                         capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=600)
    assert res.returncode == 0, res.stderr
    assert "4 of 4 runs" in res.stdout
    # stderr is not a terminal: no progress bar; the scheduler was started with --no-dashboard
    assert res.stderr == "note: the Dask scheduler serves no dashboard\n"
    df = pd.read_parquet(out).sort_values("run")
    assert df[["param.crank.mass", "param.rocker.initial.phi"]].to_numpy().tolist() == [
        [1, 1.75], [1, 1.85], [2, 1.75], [2, 1.85]]
    meta = read_metadata(out)
    assert meta["sweep"]["design"]["vary"] == ["crank.mass=1.0:2.0:2", "rocker.initial.phi=1.75,1.85"]
    assert meta["settings"]["rtol"] == 1e-9 and meta["settings"]["t_end"] == 0.3
    assert assert_rows_match_serial(df, FOUR_BAR, METRICS, tmp_path, t_end=0.3, rtol=1e-9) == 4


RUNS, T_END = 128, 1.0


def test_ctrl_c_keeps_finished_runs_and_resume_completes(scheduler_address, tmp_path):
    """Through $DASK_SCHEDULER_ADDRESS; SIGINT once some runs are done; then --resume. Standard error is a terminal
    (a pseudo-terminal), as for a person pressing Ctrl+C: the progress bar counts the runs done. RUNS runs of
    T_END s take several seconds on a fast machine with warm kernels (about 15 runs/s on four workers), so the
    interrupt arrives while runs are left."""
    out = tmp_path / "sobol.parquet"
    args = sweep_command("--vary", "crank.mass=0.5:2", "--vary", "coupler.initial.phi=0.5:0.7", "--design", "sobol",
                         "--samples", str(RUNS), "--seed", "7", *METRIC_ARGS, "--t-end", str(T_END),
                         "--out", str(out),
                         "--batch-size", "1")
    env = {**ENV, "DASK_SCHEDULER_ADDRESS": scheduler_address}
    err = Terminal()
    # the default SIGINT disposition, as in a terminal: a test run started in the background of a shell (bash
    # ignores SIGINT in its background jobs, and the ignored disposition is inherited) would otherwise pass it on
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err.slave, text=True, env=env, cwd=ROOT,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # noqa: PLW1509
    err.started()
    try:
        deadline = time.monotonic() + 300
        while max(map(int, re.findall(rf"\| (\d+)/{RUNS}", err.text())), default=0) < 3:  # a few runs done
            assert proc.poll() is None, err.text()
            assert time.monotonic() < deadline, err.text()
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl+C in a terminal does
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        err.close()
    assert proc.returncode == 130, err.text()
    assert "--resume continues" in err.text() and "Traceback" not in err.text()
    kept = pd.read_parquet(out)
    assert 3 <= len(kept) < RUNS and kept["run"].is_unique
    assert not Path(str(out) + ".parts").exists()
    res = subprocess.run(args + ["--resume"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert res.returncode == 0, res.stderr
    full = pd.read_parquet(out).sort_values("run").reset_index(drop=True)
    assert full["run"].tolist() == list(range(RUNS)) and (full["status"] == "finished").all()
    merged = full.set_index("run").loc[kept["run"]]
    assert merged["wall_s"].tolist() == kept["wall_s"].tolist()  # not run again
    # the interrupted and resumed sweep is the same design as a fresh one (reproducible from the seed)
    from mechstudio.core.sweep import build_design, parse_vary
    design = build_design([parse_vary("crank.mass=0.5:2"), parse_vary("coupler.initial.phi=0.5:0.7")], "sobol",
                          RUNS, 7)
    assert full[["param.crank.mass", "param.coupler.initial.phi"]].to_numpy().tolist() == design.to_numpy().tolist()
    # spot-check two of the runs done after the resume against serial runs
    later = full[~full["run"].isin(kept["run"])].head(2)
    assert assert_rows_match_serial(later, FOUR_BAR, METRICS, tmp_path, t_end=T_END) == 2


def test_environment_address_and_scheduler_file_reach_the_cluster(scheduler_address, monkeypatch):
    from mechstudio.core.sweep.execute import connect
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", scheduler_address)
    with connect() as client:
        assert client.scheduler.address == scheduler_address
        assert len(client.scheduler_info()["workers"]) == 2
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS")
    with connect(scheduler_file=ClusterFiles.scheduler_file) as client:
        assert client.scheduler.address == scheduler_address
