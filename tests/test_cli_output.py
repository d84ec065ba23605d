"""Unix conventions of the command line's output: a reader that goes away ends the command with 141 and no summary
(also when the output fitted into the pipe), nothing on standard output before an error, file errors that name
the file asked for (never a temporary file), and temporary files of killed writers removed by the next write.
"""
from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_helpers import run_cli
from conftest import ROOT, SAMPLES
from mechstudio.core.host import files
from mechstudio.core.commands.output import wait_for_reader

PENDULUM = str(SAMPLES / "pendulum.json")


def cli_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "MECHSTUDIO_NO_NUMBA": "1"}



# ---- a reader that goes away ---------------------------------------------------------------------------------
def test_a_reader_that_leaves_after_100_bytes_ends_simulate_with_141_and_no_summary() -> None:
    """``mechstudio simulate MODEL --out - | head -c 100``: the CSV (about 40 kB here, less than a pipe holds, so
    every write succeeds) is not read to its end; the reader closes the pipe after 100 bytes."""
    cmd = [sys.executable, "-m", "mechstudio.core", "simulate", PENDULUM, "--t-end", "1", "--out", "-"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(), cwd=ROOT)
    head = proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert head.startswith(b"t,q.bar.x")
    assert proc.returncode == 141, err
    assert "finished" not in err and "energy balance" not in err and "Traceback" not in err


def test_a_reader_that_takes_everything_gets_exit_status_0() -> None:
    cmd = [sys.executable, "-m", "mechstudio.core", "simulate", PENDULUM, "--t-end", "1", "--out", "-"]
    res = subprocess.run(cmd, capture_output=True, text=True, env=cli_env(), cwd=ROOT, timeout=120)
    assert res.returncode == 0, res.stderr
    assert len(res.stdout.splitlines()) == 1 + 101 and "finished" in res.stderr


def test_wait_for_reader_on_a_pipe() -> None:
    """Read to the end: returns; closed with unread bytes: BrokenPipeError; unread and still open: returns after the
    wait (the output stays in the pipe for a reader that comes later)."""
    read, write = os.pipe()
    try:
        os.write(write, b"x" * 1000)
        assert os.read(read, 1000) == b"x" * 1000
        wait_for_reader(write, timeout_s=10.0)  # nothing unread: at once
        os.write(write, b"y" * 10)
        wait_for_reader(write, timeout_s=0.05)  # unread, reader still there: gives up waiting, no error
        os.close(read)
        read = -1
        with pytest.raises(BrokenPipeError):
            wait_for_reader(write, timeout_s=10.0)
    finally:
        for fd in (read, write):
            if fd >= 0:
                os.close(fd)


# ---- nothing on standard output before an error --------------------------------------------------------------
def test_bench_with_an_unknown_suite_prints_nothing_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run_cli(["bench", "--suite", "speed", "--suite", "nope"], capsys)
    assert rc == 2 and out == ""
    assert "unknown benchmark suite 'nope'" in err


# ---- file errors name the target -----------------------------------------------------------------------------
def test_a_missing_folder_is_named_not_the_temporary_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "no_such_folder" / "run.csv"
    rc, out, err = run_cli(["simulate", PENDULUM, "--t-end", "0.02", "--out", str(target)], capsys)
    assert rc == 2 and out == ""
    assert err.strip() == f"error: {target}: No such file or directory"


def test_a_full_disk_is_reported_with_the_target_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """ENOSPC arrives without a file name (from fsync, or a write); the message names the file asked for, the old
    file is kept and no temporary file is left."""
    target = tmp_path / "run.csv"
    target.write_text("old results\n")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(files.os, "fsync", full)
    rc, out, err = run_cli(["simulate", PENDULUM, "--t-end", "0.02", "--out", str(target)], capsys)
    assert rc == 2
    assert err.strip() == f"error: {target}: {os.strerror(errno.ENOSPC)}"
    assert target.read_text() == "old results\n"
    assert [p.name for p in tmp_path.iterdir()] == ["run.csv"]


def test_oserror_of_the_atomic_writer_keeps_its_kind_and_names_the_target(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(tmp_path / ".x.tmp"))
    monkeypatch.setattr(files.os, "replace", denied)
    with pytest.raises(PermissionError) as info:
        files.atomic_write_text(tmp_path / "model.json", "{}")
    assert info.value.filename == str(tmp_path / "model.json") and info.value.errno == errno.EACCES


# ---- temporary files of killed writers -------------------------------------------------------------------------
def dead_pid() -> int:
    """The id of a process that has ended (a child that exited and was reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_stale_temporaries_are_removed_by_the_next_write_into_the_folder(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    host, old = files.host_tag(), time.time() - 2 * files.STALE_AGE_S
    killed = tmp_path / f".results.csv.{host}-{dead_pid()}-abcd1234.tmp"  # a writer that was killed
    live = tmp_path / f".other.csv.{host}-{os.getpid()}-efgh5678.tmp"  # a writer still running (this process)
    foreign_young = tmp_path / f".other.csv.0123abcd-{dead_pid()}-ijkl9012.tmp"  # another host: only by age
    foreign_old = tmp_path / f".other.csv.0123abcd-{dead_pid()}-mnop3456.tmp"
    old_style = tmp_path / ".run.csv.k2j4h5g6.tmp"  # mkstemp's names before: the same target, an hour old
    old_style_other = tmp_path / ".notes.txt.k2j4h5g6.tmp"  # not ours to judge: another file's name
    users_file = tmp_path / ".hidden.tmp"  # a file of the user's that merely looks hidden and temporary
    for p in (killed, live, foreign_young, foreign_old, old_style, old_style_other, users_file):
        p.write_bytes(b"x" * 100)
    for p in (foreign_old, old_style, old_style_other, users_file):
        os.utime(p, (old, old))
    rc, out, err = run_cli(["simulate", PENDULUM, "--t-end", "0.02", "--out", str(tmp_path / "run.csv")], capsys)
    assert rc == 0, err
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["run.csv", live.name, foreign_young.name, old_style_other.name, users_file.name])


def test_the_temporary_file_names_its_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    real_replace = os.replace

    def spy(src: str, dst: object) -> None:
        seen.append(Path(src).name)
        real_replace(src, dst)
    monkeypatch.setattr(files.os, "replace", spy)
    files.atomic_write_text(tmp_path / "m.json", "{}")
    (name,) = seen
    assert name.startswith(f".m.json.{files.host_tag()}-{os.getpid()}-") and name.endswith(".tmp")
    assert files.is_stale(tmp_path / "m.json") is False  # the target itself is never a temporary file
