"""``mechstudio warm`` compiles every family of numba kernels: the short runs of its cases build every kernel set of
the core (each function decorated with ``mechstudio.core.jit.kernel_set``). Checked without compiling anything: in
a subprocess, the ``numba`` module is replaced by a stand-in whose ``njit`` returns the Python function, and the
kernel-set builders that the cases call are recorded; a new kernel family that no case reaches fails here, naming it.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from mechstudio.core.cli import main

CORE = ROOT / "core"

RECORDER = """
import json, sys, types


class AnyType:  # numba.float64[::1], numba.config and friends
    def __getitem__(self, key): return self
    def __call__(self, *args, **kwargs): return self


def njit(*args, **kwargs):  # numba.njit(signature, cache=..., nogil=...)(f) -> f; numba.njit(f) -> f
    if args and callable(args[0]) and not kwargs:
        return args[0]
    return lambda f: f


no_compiler = types.ModuleType("numba")
no_compiler.njit = njit
no_compiler.__path__ = []  # a package (the import system iterates __path__; an AnyType would never end)
no_compiler.__getattr__ = lambda name: AnyType()
events = types.ModuleType("numba.core.event")  # the cache guard's listener (mechstudio.core.jit)
events.Listener = object
events.register = lambda kind, listener: None
core = types.ModuleType("numba.core")
core.__path__ = []
core.event = events
sys.modules.update({"numba": no_compiler, "numba.core": core, "numba.core.event": events})  # before any import

import mechstudio.core.jit as jit
built = set()
plain = jit.kernel_set
def recording(build):
    get = plain(build)
    def wrapper():
        built.add(f"{build.__module__}.{build.__name__}")
        return get()
    return wrapper
jit.kernel_set = recording  # before any kernel module is imported

from mechstudio.core.commands.warm import CASES, warm_case
for case in CASES:
    warm_case(case)
print(json.dumps(sorted(built)))
"""


def kernel_set_builders() -> set[str]:
    """``module.function`` of every function in core decorated with ``kernel_set`` (found in the source)."""
    out = set()
    for path in CORE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = "mechstudio.core." + ".".join(path.relative_to(CORE).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and any(
                    (isinstance(d, ast.Name) and d.id == "kernel_set") for d in node.decorator_list):
                out.add(f"{module}.{node.name}")
    return out


def test_the_warm_cases_build_every_kernel_set(tmp_path: Path) -> None:
    expected = kernel_set_builders()
    assert len(expected) >= 10  # the scan finds the kernel modules (12 kernel sets when this test was written)
    env = {k: v for k, v in os.environ.items() if k not in ("MECHSTUDIO_NO_NUMBA", "NUMBA_CACHE_DIR")}
    env.update(PYTHONPATH=str(ROOT), MECHSTUDIO_CACHE_DIR=str(tmp_path))  # the user's kernel cache is not touched
    res = subprocess.run([sys.executable, "-c", RECORDER], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr
    built = set(json.loads(res.stdout.strip().splitlines()[-1]))
    assert expected - built == set(), "kernel sets no case of mechstudio warm builds"


def test_warm_without_numba_says_there_is_nothing_to_compile(capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import mechstudio.core.commands.warm as warm
    monkeypatch.setattr(warm, "numba_module", lambda: None)
    assert main(["warm"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "nothing to compile" in err
    assert main(["warm", "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")


def test_warm_runs_every_case_and_names_the_cache(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """With numba (here: a stand-in, nothing compiled), every case runs once, in one process for --jobs 1."""
    import mechstudio.core.commands.warm as warm
    ran: list[tuple[str, str]] = []
    monkeypatch.setattr(warm, "numba_module", lambda: object())
    monkeypatch.setattr(warm, "warm_case", lambda case: ran.append(case) or case[0])
    monkeypatch.setenv("MECHSTUDIO_CACHE_DIR", str(tmp_path))
    assert main(["warm", "--jobs", "1"]) == 0
    assert ran == list(warm.CASES)
    err = capsys.readouterr().err
    assert f"numba kernels compiled and cached in {tmp_path}" in err


def test_the_old_script_is_a_wrapper_of_the_command() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MECHSTUDIO_NO_NUMBA": "1"}
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "warm_kernels.py")], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and "nothing to compile" in res.stderr, res.stderr
