"""Time limits and cancellation inside the synthesis' work items.

A generation's local searches (core.analysis.synthesis_search) can each take seconds (a four-bar search inside a
six-bar's start, a least-squares fit); a budget checked only between generations would be overrun by a generation,
and a Stop would wait for it. The work items therefore run under a :class:`Deadline` (a wall-clock instant, and in
the calling process an optional ``stop()`` callback), and the inner loops (Newton's method, the continuation, the
nested searches) call :func:`check_time`, which raises :class:`OutOfTime` once it has passed; the item then ends as
a failed item. Deadlines nest: an inner one never extends the outer one.

The deadline travels to Dask workers as its instant only (``time.time()``, seconds since the epoch: the same clock
in every process of the machine); the ``stop`` callback stays in the calling process.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator


class OutOfTime(Exception):
    """Raised by :func:`check_time` inside a work item whose deadline has passed (or that was stopped)."""


@dataclass(frozen=True)
class Deadline:
    """Work until ``at`` (``time.time()`` seconds; None: no limit) or until ``stop()`` returns True (in this
    process only: the callback is not pickled)."""
    at: float | None = None
    stop: Callable[[], bool] | None = field(default=None, compare=False)

    def passed(self) -> bool:
        if self.at is not None and time.time() >= self.at:
            return True
        return self.stop is not None and bool(self.stop())

    def __reduce__(self) -> tuple[Any, ...]:
        return (Deadline, (self.at,))


_CURRENT: ContextVar[Deadline | None] = ContextVar("synthesis_deadline", default=None)


def earlier(first: Deadline | None, second: Deadline | None) -> Deadline | None:
    """The deadline that holds both: the earlier instant, either stop callback."""
    if first is None or second is None:
        return first if second is None else second
    ats = [t for t in (first.at, second.at) if t is not None]
    stops = [s for s in (first.stop, second.stop) if s is not None]
    stop = None if not stops else stops[0] if len(stops) == 1 else (lambda: any(s() for s in stops))
    return Deadline(min(ats) if ats else None, stop)


@contextmanager
def working_until(deadline: Deadline | None) -> Iterator[None]:
    """Run the block under ``deadline`` (and under any deadline already in force)."""
    token = _CURRENT.set(earlier(_CURRENT.get(), deadline))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def check_time() -> None:
    """Raise :class:`OutOfTime` when the deadline in force has passed (a no-op outside :func:`working_until`)."""
    deadline = _CURRENT.get()
    if deadline is not None and deadline.passed():
        raise OutOfTime


def time_left() -> float | None:
    """Seconds until the deadline in force (None: none)."""
    deadline = _CURRENT.get()
    return None if deadline is None or deadline.at is None else deadline.at - time.time()


__all__ = ["Deadline", "OutOfTime", "check_time", "earlier", "time_left", "working_until"]
