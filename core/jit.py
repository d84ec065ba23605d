"""Optional numba compilation of the numerical kernels, shared by every module that has some.

A kernel is written once as plain Python with numpy semantics (so it also runs, slowly, without numba) and
compiled here for exactly one signature of C-contiguous arrays, eagerly, ``nogil`` and cached on disk
(``__pycache__``; ``scripts/warm_kernels.py`` fills the cache right after installing). Without numba, or with
``MECHSTUDIO_NO_NUMBA=1`` in the environment, :func:`compile_kernel` returns None and callers take their numpy
path, which the tests check equal to the kernels.
"""
from __future__ import annotations

import os
from typing import Any, Callable

_NUMBA: Any = None


def numba_module() -> Any:
    """The numba module, or None when it is unavailable or switched off."""
    global _NUMBA
    if _NUMBA is None:
        if os.environ.get("MECHSTUDIO_NO_NUMBA"):
            _NUMBA = False
        else:
            try:
                import numba
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
