"""Optional numba compilation of the numerical kernels, shared by every module that has some.

A kernel is written once as plain Python with numpy semantics (so it also runs, slowly, without numba) and
compiled here for exactly one signature of C-contiguous arrays, eagerly, ``nogil`` and cached on disk
(``scripts/warm_kernels.py`` fills the cache right after installing). Without numba, or with
``MECHSTUDIO_NO_NUMBA=1`` in the environment, :func:`compile_kernel` returns None and callers take their numpy
path, which the tests check equal to the kernels.

The on-disk cache lives in the user's cache folder, ``<cache>/numba-<digest>`` (``mechstudio.core.host.userdirs.user_cache_dir``:
``~/.cache/mechstudio`` on Linux, ``$XDG_CACHE_HOME`` and ``$MECHSTUDIO_CACHE_DIR`` respected), never inside the
installed package, the digest taken over the source of the kernel
modules (those that use this module) and of the core modules they import (helpers, and constants such as the
correction's tolerances, which a compiled kernel freezes). Numba checks only the timestamp of a kernel's own file,
but a compiled kernel contains the code of the helpers it calls, which may live in other files
(``mechstudio.core.dynamics.projection_fused``): after a change there a stale kernel could otherwise be loaded. Several installed versions
share the cache folder, so caches of other digests are kept while in use: each use touches its folder, and folders
unused for ``CACHE_MAX_AGE_DAYS`` are removed. A ``NUMBA_CACHE_DIR`` set in the environment is respected.
"""
from __future__ import annotations

import ast
import hashlib
import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any, Callable

from mechstudio.core.host.userdirs import user_cache_dir

_NUMBA: Any = None
_CORE = Path(__file__).resolve().parent
#: a kernel cache folder unused for this long is removed (another installed version may still use younger ones)
CACHE_MAX_AGE_DAYS = 30

log = logging.getLogger(__name__)


def _imported_core_files(tree: ast.AST) -> set[Path]:
    """Files of the ``core`` modules a module imports (``from mechstudio.core.x import y``: core/x.py or core/x/__init__.py,
    and core/x/y.py when y is a module)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mechstudio.core."):
            base = _CORE.joinpath(*node.module.split(".")[2:])
            out.update({base.with_suffix(".py"), base / "__init__.py"} | {base / f"{a.name}.py" for a in node.names})
    return {p for p in out if p.is_file()}


def kernel_sources() -> list[Path]:
    """The kernel modules of ``core`` (every module that mentions ``mechstudio.core.jit``) and the core modules they import."""
    files = set()
    for path in _CORE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "mechstudio.core.jit" in text and path.name != "jit.py":
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


def kernel_cache_dir() -> Path:
    """``<user cache>/numba-<digest>`` (see module docstring)."""
    return user_cache_dir() / f"numba-{source_digest()}"


def prune_kernel_caches(root: Path, keep: Path, max_age_days: float = CACHE_MAX_AGE_DAYS) -> list[Path]:
    """Remove the ``numba-*`` folders of ``root`` other than ``keep`` not modified for ``max_age_days``;
    return the removed folders."""
    limit = time.time() - max_age_days * 86400.0
    removed = []
    for old in root.glob("numba-*"):
        try:
            if old != keep and old.stat().st_mtime < limit:
                shutil.rmtree(old)
                removed.append(old)
        except OSError as exc:  # another process removing it, or no permission: leave it
            log.info("kernel cache %s not pruned: %s", old, exc)
    return removed


def _use_source_keyed_cache() -> None:
    """Point numba's cache at the user cache folder's numba-<digest>, mark it used, prune unused old ones."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    here = kernel_cache_dir()
    try:
        here.mkdir(parents=True, exist_ok=True)
        os.utime(here)
        prune_kernel_caches(here.parent, here)
    except OSError as exc:  # no writable cache folder: numba's default cache locations
        log.warning("numba kernel cache folder %s not usable (%s); kernels may be recompiled", here, exc)
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
                import numba  # only when kernels are wanted: MECHSTUDIO_NO_NUMBA runs without numba
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
