"""Shared fixtures. BLAS threads are limited by importing core first (see core/__init__.py).

Parallel runs (pytest-xdist, ``scripts/run-tests.sh``): every worker process gets an X server of its own
(``Xvfb -displayfd``, a free display number), started here before anything imports Qt. Two workers' windows on
one display take the keyboard focus from each other, and a test that presses a shortcut then finds its window
inactive.
"""
from __future__ import annotations

import atexit
import os
import shutil
import subprocess
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# the suite's runs take the compiled kernels from the start unless a test asks otherwise (tests/test_startup.py
# checks the default "auto" choice of a run: mechstudio.core.run.kernels)
os.environ.setdefault("MECHSTUDIO_KERNELS", "compiled")


def _private_display() -> None:
    """Start an Xvfb for this xdist worker and point DISPLAY at it (nothing outside a worker or without Xvfb)."""
    if not os.environ.get("PYTEST_XDIST_WORKER") or not os.environ.get("DISPLAY") or not shutil.which("Xvfb"):
        return
    read, write = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    if not number:
        proc.terminate()
        return
    os.environ["DISPLAY"] = f":{number}"
    os.environ.pop("XAUTHORITY", None)  # our own server has no authorization file
    atexit.register(proc.terminate)


_private_display()

import mechstudio.core  # noqa: E402,F401
import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_models"


@pytest.fixture
def samples_dir() -> Path:
    return SAMPLES
