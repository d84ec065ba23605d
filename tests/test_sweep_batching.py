"""Guided batching of a sweep's runs into Dask tasks (core.sweep.execute.guided_batch_size)."""
from __future__ import annotations

import pytest

from mechstudio.core.sweep.execute import MAX_BATCH, guided_batch_size


def task_sizes(n_runs: int, n_workers: int) -> list[int]:
    """The task sizes execute() submits for n_runs runs, in order."""
    sizes, left = [], n_runs
    while left:
        size = min(left, guided_batch_size(left, n_workers))
        sizes.append(size)
        left -= size
    return sizes


@pytest.mark.parametrize("n_runs, n_workers", [(1, 1), (7, 16), (1000, 1), (1000, 16), (100_000, 8)])
def test_tasks_cover_the_runs_and_shrink_to_single_runs(n_runs: int, n_workers: int) -> None:
    sizes = task_sizes(n_runs, n_workers)
    assert sum(sizes) == n_runs
    assert all(1 <= s <= MAX_BATCH for s in sizes)
    assert sizes == sorted(sizes, reverse=True)  # never a larger task after a smaller one
    assert sizes[-1] == 1
    # the tail: once fewer runs are left than one task per worker, tasks hold single runs
    assert all(s == 1 for s in task_sizes(n_workers, n_workers))


def test_tasks_are_large_while_much_is_left() -> None:
    """1000 runs on 16 workers: the first tasks hold 32 runs (1000 / 32), far fewer tasks than runs."""
    sizes = task_sizes(1000, 16)
    assert sizes[0] == 32
    assert len(sizes) < 1000 / 4
