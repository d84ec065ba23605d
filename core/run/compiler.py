"""The background compiler: a run's numba kernels compiled in a separate, low-priority process while the run goes
on on its numpy path (``mechstudio.core.run.kernels``).

:func:`request` starts ``python -m mechstudio.core.run.compiler_child`` (once per compiled path and process) and
sends it the job on its standard input: the model's data, the run's settings and the path's key. The child

* watches its standard input in a thread and exits at once when it reaches end-of-file: the parent keeps the pipe
  open while it lives, so the child never outlives it, however the parent ends (normal exit, ``os._exit`` of a
  forked worker, a crash, SIGKILL);
* lowers its priority (``nice`` +10: the run in the foreground keeps the cores on a small machine);
* takes the kernel cache's compile lock (``flock`` on ``<cache>/compile.lock``), so that two processes do not
  compile the same kernels at the same time (numba writes each cache file atomically; the lock only saves CPU);
* runs the model for ``WARM_OUTPUTS`` output intervals with ``kernels="compiled"``: numba compiles every kernel
  of the path and caches it;
* writes the path's marker (``jit.mark_path_ready``), which the run's driver polls, and exits.

Its messages go to ``<kernel cache>/compiler.log``.

At the parent's exit a compiler still at work is terminated (``atexit``); the kernels it had finished stay in the
cache, and the next run that asks for them continues from there. ``MECHSTUDIO_NO_NUMBA=1`` runs never ask.
"""
from __future__ import annotations

import atexit
import contextlib
import json
import logging
import subprocess
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from mechstudio.core import jit
from mechstudio.core.run.settings import SimulationSettings
from mechstudio.core.systems.base import ConstrainedSystem

#: output intervals the compiler runs (enough for every kernel of a path: steps, outputs inside a step and at a
#: step end, the drift correction)
WARM_OUTPUTS = 10
#: the compiler's niceness increment
NICE = 10
#: seconds a terminated compiler gets before it is killed
TERMINATE_WAIT_S = 2.0

log = logging.getLogger(__name__)

_JOBS: dict[str, subprocess.Popen] = {}
_LOCK = threading.Lock()
_ATEXIT: list[bool] = []


def job_for(system: ConstrainedSystem, settings: SimulationSettings, key: str) -> dict[str, Any] | None:
    """The compiler's job for a run (JSON-able), or None when the system has no model to compile from."""
    model = getattr(system, "model", None)
    data = getattr(model, "data", None)
    if not isinstance(data, dict):
        return None
    fields = asdict(settings)
    fields.update(kernels="compiled", t_end=min(settings.t_end, WARM_OUTPUTS * settings.dt))
    fields["options"] = {k: v for k, v in fields["options"].items() if k != "kernels"}
    try:
        return json.loads(json.dumps({"model": data, "source": str(getattr(model, "source", "") or ""),
                                      "settings": fields, "key": key}))
    except (TypeError, ValueError):  # options that are not JSON: no background compilation for this run
        return None


def compiler_log() -> Path:
    """The file the background compilers write their messages to (``<kernel cache>/compiler.log``)."""
    path = jit.kernel_cache_dir() / "compiler.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def request(system: ConstrainedSystem, settings: SimulationSettings, key: str) -> bool:
    """Start compiling the kernels of path ``key`` in the background (nothing if already started by this
    process); False when that is not possible (no model, no process)."""
    with _LOCK:
        if key in _JOBS:
            return True
        job = job_for(system, settings, key)
        if job is None:
            return False
        try:
            with open(compiler_log(), "ab") as err:  # the child's messages (a failed compilation says why there)
                proc = subprocess.Popen([sys.executable, "-m", "mechstudio.core.run.compiler_child"],
                                        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err, close_fds=True)
            proc.stdin.write((json.dumps(job) + "\n").encode())
            proc.stdin.flush()
        except OSError as exc:
            log.info("background kernel compiler not started: %s", exc)
            return False
        _JOBS[key] = proc
        if not _ATEXIT:
            atexit.register(stop)
            _ATEXIT.append(True)
        log.info("compiling the kernels of %s in the background (pid %d)", key, proc.pid)
        return True


def state(key: str) -> str | None:
    """"running", "done" (exited 0), "failed" or None (not started by this process)."""
    proc = _JOBS.get(key)
    if proc is None:
        return None
    code = proc.poll()
    return "running" if code is None else "done" if code == 0 else "failed"


def pids() -> list[int]:
    """Process ids of the compilers this process started (running or not)."""
    return [p.pid for p in _JOBS.values()]


def wait(timeout: float | None = None) -> bool:
    """Wait until every compiler this process started has exited; False when ``timeout`` [s] ran out first."""
    end = None if timeout is None else time.monotonic() + timeout
    for proc in list(_JOBS.values()):
        try:
            proc.wait(None if end is None else max(end - time.monotonic(), 0.0))
        except subprocess.TimeoutExpired:
            return False
    return True


def stop() -> None:
    """Terminate the compilers still running (at exit: the module docstring)."""
    procs = list(_JOBS.values())
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(TERMINATE_WAIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        with contextlib.suppress(OSError):
            proc.stdin.close()


__all__ = ["NICE", "TERMINATE_WAIT_S", "WARM_OUTPUTS", "compiler_log", "job_for", "pids", "request", "state", "stop",
           "wait"]
