"""Optional numba compilation of the numerical kernels, shared by every module that has some.

A kernel is written once as plain Python with numpy semantics (so it also runs, slowly, without numba) and
compiled here for exactly one signature of C-contiguous arrays, eagerly, ``nogil`` and cached on disk
(``scripts/warm_kernels.py`` fills the cache right after installing). Without numba, or with
``MECHSTUDIO_NO_NUMBA=1`` in the environment, :func:`compile_kernel` returns None and callers take their numpy
path, which the tests check equal to the kernels.

The on-disk cache lives in ``core/__pycache__/numba-<digest>``, the digest taken over the source of the kernel
modules (those that use this module) and of the core modules they import (helpers, and constants such as the
correction's tolerances, which a compiled kernel freezes). Numba checks only the timestamp of a kernel's own file,
but a compiled kernel contains the code of the helpers it calls, which may live in other files
(``core.dynamics.projection_fused``): after a change there a stale kernel could otherwise be loaded. Caches of
other digests are removed. A ``NUMBA_CACHE_DIR`` set in the environment is respected.
"""
from __future__ import annotations

import ast
import hashlib
import os
import shutil
from pathlib import Path
from typing import Any, Callable

_NUMBA: Any = None
_CORE = Path(__file__).resolve().parent


def _imported_core_files(tree: ast.AST) -> set[Path]:
    """Files of the ``core`` modules a module imports (``from core.x import y``: core/x.py or core/x/__init__.py,
    and core/x/y.py when y is a module)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "core":
            base = _CORE.parent.joinpath(*node.module.split("."))
            out.update({base.with_suffix(".py"), base / "__init__.py"} | {base / f"{a.name}.py" for a in node.names})
    return {p for p in out if p.is_file()}


def kernel_sources() -> list[Path]:
    """The kernel modules of ``core`` (every module that mentions ``core.jit``) and the core modules they import."""
    files = set()
    for path in _CORE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "core.jit" in text and path.name != "jit.py":
            files.add(path)
            files.update(_imported_core_files(ast.parse(text)))
    return sorted(files | {Path(__file__).resolve()})


def source_digest() -> str:
    """A digest of the kernel sources (names and contents, see :func:`kernel_sources`)."""
    h = hashlib.sha1()
    for path in kernel_sources():
        h.update(str(path.relative_to(_CORE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _use_source_keyed_cache() -> None:
    """Point numba's cache at core/__pycache__/numba-<digest> and remove caches of other digests."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    root = _CORE / "__pycache__"
    here = root / f"numba-{source_digest()}"
    try:
        here.mkdir(parents=True, exist_ok=True)
        for old in root.glob("numba-*"):
            if old != here:
                shutil.rmtree(old, ignore_errors=True)
    except OSError:  # a read-only install: numba's default cache locations
        return
    os.environ["NUMBA_CACHE_DIR"] = str(here)


def numba_module() -> Any:
    """The numba module, or None when it is unavailable or switched off."""
    global _NUMBA
    if _NUMBA is None:
        if os.environ.get("MECHSTUDIO_NO_NUMBA"):
            _NUMBA = False
        else:
            try:
                _use_source_keyed_cache()
                import numba
                if os.environ.get("NUMBA_CACHE_DIR"):
                    numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]  # numba imported earlier by others
                _NUMBA = numba
            except ImportError:  # pragma: no cover - numba is a dependency
                _NUMBA = False
    return _NUMBA or None


def compile_kernel(func: Callable[..., Any], signature: Any) -> Callable[..., Any] | None:
    """``func`` compiled by numba for ``signature`` (eager, cached, nogil), or None without numba."""
    numba = numba_module()
    if numba is None:
        return None
    return numba.njit(signature, cache=True, nogil=True)(func)


def compile_helper(func: Callable[..., Any]) -> Callable[..., Any]:
    """A helper that compiled kernels call (lazily typed, cached); the function itself without numba."""
    numba = numba_module()
    if numba is None or hasattr(func, "py_func"):
        return func
    return numba.njit(cache=True, nogil=True)(func)


def kernel_set(build: Callable[[], Any]) -> Callable[[], Any]:
    """Decorator for a module's builder of compiled kernels: build once, on the first call, and return the same
    object afterwards; None (the numpy paths) without numba."""
    built: list[Any] = []

    def get() -> Any:
        if not built:
            built.append(build() if numba_module() is not None else None)
        return built[0]
    get.__doc__ = build.__doc__
    return get


def array_types() -> tuple[Any, ...]:
    """(float64[::1], float64[:, ::1], float64[:, :, ::1], int64[::1], int32[::1], boolean) numba types."""
    nb = numba_module()
    return (nb.float64[::1], nb.float64[:, ::1], nb.float64[:, :, ::1], nb.int64[::1], nb.int32[::1],
            nb.boolean)
