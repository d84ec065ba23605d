"""BLAS threads during a run: one thread while the run computes, the caller's setting restored afterwards.

Our matrices are small (tens to a few hundred rows): a multi-threaded BLAS only adds thread wake-ups, and on a
machine whose cores are busy its spinning threads make each small solve ~100x slower (measured: 2 ms instead of
20 us per LU solve). Importing ``core`` leaves the process's BLAS alone (a user's own numpy work keeps its
threads); :func:`single_threaded_blas` limits it for the duration of a run only (``threadpoolctl``).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import threadpoolctl


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Limit every loaded BLAS (numpy's and scipy's OpenBLAS, MKL, ...) to one thread inside the block; the
    previous limits are restored on exit, also when the block raises."""
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        yield


__all__ = ["single_threaded_blas"]
