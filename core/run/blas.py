"""BLAS threads during a run: one thread while the run computes, the caller's setting restored afterwards.

Our matrices are small (tens to a few hundred rows): a multi-threaded BLAS only adds thread wake-ups, and on a
machine whose cores are busy its spinning threads make each small solve ~100x slower (measured: 2 ms instead of
20 us per LU solve). Importing ``core`` leaves the process's BLAS alone (a user's own numpy work keeps its
threads); :func:`single_threaded_blas` limits it for the duration of a run only (``threadpoolctl``).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import scipy.linalg  # noqa: F401  (loads scipy's own OpenBLAS, so that the controller below finds it)
import threadpoolctl

_controller: list[threadpoolctl.ThreadpoolController] = []


def blas_controller() -> threadpoolctl.ThreadpoolController:
    """The thread-pool controller of the BLAS libraries loaded in this process, made on first use (finding the
    libraries costs ~4 ms; limiting through a kept controller ~0.05 ms, so every run can afford it)."""
    if not _controller:
        _controller.append(threadpoolctl.ThreadpoolController())
    return _controller[0]


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Limit every loaded BLAS (numpy's and scipy's OpenBLAS, MKL, ...) to one thread inside the block; the
    previous limits are restored on exit, also when the block raises."""
    with blas_controller().limit(limits=1, user_api="blas"):
        yield


__all__ = ["single_threaded_blas"]
