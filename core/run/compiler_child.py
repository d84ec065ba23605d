"""The background compiler's process (``python -m mechstudio.core.run.compiler_child``; started by
``mechstudio.core.run.compiler.request``, whose module docstring describes the job and the process's life)."""
from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import threading
import time
from typing import Any, Iterator

from mechstudio.core import jit
from mechstudio.core.model.io import model_from_data
from mechstudio.core.run.compiler import NICE
from mechstudio.core.run.driver import compile_runs
from mechstudio.core.run.settings import SimulationSettings
from mechstudio.core.systems.compile import compile_model

log = logging.getLogger(__name__)


def exit_with_parent(fd: int) -> None:
    """Block on the file descriptor of standard input; its end means the parent has gone: exit at once. (Raw
    ``os.read``: a thread blocked in the buffered ``sys.stdin`` would hold its lock at interpreter shutdown.)"""
    with contextlib.suppress(OSError):
        while os.read(fd, 4096):
            pass
    os._exit(0)


@contextlib.contextmanager
def compile_lock() -> Iterator[None]:
    """The kernel cache's compile lock (``flock`` on ``<cache>/compile.lock``); nothing where ``fcntl`` is
    missing."""
    try:
        import fcntl  # POSIX only: elsewhere two compilers may run side by side (wasting CPU, nothing else)
    except ImportError:
        yield
        return
    path = jit.kernel_cache_dir() / "compile.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def compile_job(job: dict[str, Any]) -> int:
    """Run a job of ``compiler.job_for``; 0 when the path's kernels are compiled and its marker written."""
    key = job["key"]
    with compile_lock():
        if jit.path_ready(key) is not None:  # another compiler did it while this one waited for the lock
            return 0
        system = compile_model(model_from_data(job["model"], job.get("source") or "<background compiler>"))
        c0 = time.process_time()
        driver = compile_runs(system, SimulationSettings(**job["settings"]))
        if not driver.status.ok:
            log.warning("background compilation of %s: the run ended %s: %s", key, driver.status.value,
                        driver.message)
            return 3
        info = {"compile_cpu_s": round(time.process_time() - c0, 3)}
        jit.mark_path_ready(key, **info)
        got = driver.form.kernel_key() if driver.form is not None else None
        if got and got != key:
            jit.mark_path_ready(got, **info)
    return 0


def main() -> int:
    line = sys.stdin.buffer.readline()
    if not line:
        return 0
    threading.Thread(target=exit_with_parent, args=(sys.stdin.fileno(),), daemon=True).start()
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICE)
    return compile_job(json.loads(line))


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # not a normal shutdown: the watchdog thread is blocked reading standard input


__all__ = ["compile_job", "compile_lock", "exit_with_parent", "main"]
