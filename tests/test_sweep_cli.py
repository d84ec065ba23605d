"""``mechstudio sweep`` on standard error and in its errors: the dashboard's address (or how to get it), the progress
bar only on a terminal, ``--quiet``, and errors attributed to their cause (the result file, named; the cluster).

The sweeps here run on an in-process Dask cluster (one worker thread, no processes to start: fast) put in place
of the command's local cluster; two runs of the pendulum for 0.05 s each.
"""
from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from pathlib import Path
from typing import Any, Iterator

import pandas as pd
import pytest

from conftest import SAMPLES
from mechstudio.core.cli import main
from mechstudio.core.sweep import api, execute

ARGS = ["sweep", str(SAMPLES / "pendulum.json"), "--vary", "bar.mass=1,2", "--metric", "top=max(q.bar.phi)",
        "--t-end", "0.05"]


@contextlib.contextmanager
def threads_cluster(workers: int | None = None, scheduler: str | None = None, scheduler_file: str | None = None,
                    dashboard: bool = True) -> Iterator[Any]:
    """A stand-in for :func:`mechstudio.core.sweep.execute.connect`: one worker thread in this process, its HTTP
    server on a free port like the command's (``dashboard=False``: as without bokeh)."""
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, scheduler_kwargs={"dashboard": dashboard},
                      dashboard_address=execute.LOCAL_DASHBOARD_ADDRESS) as cluster, Client(cluster) as client:
        yield client


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "connect", threads_cluster)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def sweep_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_dashboard_address_and_summary_without_a_bar_off_a_terminal(in_process: None, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "s.parquet"
    rc, out, err = sweep_cli([*ARGS, "--out", str(out_file)], capsys)
    assert rc == 0, err
    assert out.strip() == f"2 of 2 runs in {out_file}"
    if execute.dashboard_available():  # bokeh installed (the dashboard extra)
        assert err.startswith("dashboard: http://") and err.rstrip().endswith("/status") and len(err.splitlines()) == 1
    else:
        assert err.strip() == f"note: {execute.DASHBOARD_HINT}"
    assert "sweep:" not in err and "run/s" not in err  # stderr is not a terminal: no progress bar
    assert len(pd.read_parquet(out_file)) == 2


def test_without_bokeh_the_command_says_how_to_get_the_dashboard(in_process: None, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "connect", lambda *a, **k: threads_cluster(*a, **k, dashboard=False))
    rc, out, err = sweep_cli([*ARGS, "--out", str(tmp_path / "s.parquet")], capsys)
    assert rc == 0, err
    assert err.strip() == "note: the Dask dashboard needs bokeh: pip install 'mechanism-studio[dashboard]'"
    assert "http" not in err


def test_progress_bar_on_a_terminal_and_quiet_prints_nothing(in_process: None, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main([*ARGS, "--out", str(tmp_path / "a.parquet")]) == 0
    assert "sweep:" in term.getvalue() and "2/2" in term.getvalue()
    assert capsys.readouterr().out.startswith("2 of 2 runs")
    quiet = Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    assert main([*ARGS, "--design", "random", "--samples", "2", "--vary", "bar.inertia=0.1:0.2", "--quiet",
                 "--out", str(tmp_path / "b.parquet")]) == 0
    assert quiet.getvalue() == ""  # no dashboard line, no design seed, no bar
    assert capsys.readouterr().out == ""  # no summary
    assert len(pd.read_parquet(tmp_path / "b.parquet")) == 2


def test_an_output_that_cannot_be_written_is_named_not_blamed_on_the_cluster(in_process: None, tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str],
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    target = blocker / "s.parquet"  # its folder is a file
    rc, out, err = sweep_cli([*ARGS, "--out", str(target)], capsys)
    assert rc == 2 and out == ""
    assert err.splitlines()[-1] == f"error: {target}: Not a directory"
    assert "Dask" not in err

    read_only = tmp_path / "read_only" / "s.parquet"  # as root, chmod does not stop a write: say "read-only" here
    read_only.parent.mkdir()
    real_mkdir = Path.mkdir

    def refuse(self: Path, *args: Any, **kwargs: Any) -> None:
        if self.parent == read_only.parent:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))
        real_mkdir(self, *args, **kwargs)
    monkeypatch.setattr(Path, "mkdir", refuse)
    rc, out, err = sweep_cli([*ARGS, "--out", str(read_only)], capsys)
    assert rc == 2 and err.splitlines()[-1] == f"error: {read_only}: {os.strerror(errno.EROFS)}"


def test_a_cluster_that_cannot_start_is_reported_as_the_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import distributed

    def no_cluster(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.EADDRINUSE, "no free port")
    monkeypatch.setattr(distributed, "LocalCluster", no_cluster)
    rc, out, err = sweep_cli([*ARGS, "--out", str(tmp_path / "s.parquet"), "--workers", "1"], capsys)
    assert rc == 2 and out == ""
    assert err.splitlines()[-1].startswith("error: Dask cluster: cannot start a local Dask cluster of 1 worker")
