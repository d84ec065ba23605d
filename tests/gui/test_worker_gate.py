"""The worker's checkpoint rules (issue 7, Pause / Step are single frames), for both worker paths.

The driver (``mechstudio.core.simulate.iter_simulation``) passes a checkpoint after every recorded output frame: it calls
``flush_now()`` when frames are pending and a block is not due anyway, emits the pending frames when that says
yes, then calls ``cancel()``. These tests drive that protocol directly, without a solver or a display:
- while paused, ``flush_now`` is True (computed frames are delivered at once) and ``cancel`` blocks;
- a step releases exactly one checkpoint (one frame), resume releases them all, stop makes ``cancel`` True;
- a pause that lands between ``flush_now`` (answered "running") and ``cancel`` must not block there, because
  frames would be held back; it takes hold at the next checkpoint.
"""
from __future__ import annotations

import multiprocessing as mp
import threading
from typing import Any, Callable

import pytest

from mechstudio.gui.simulation.worker import ProcessGate, SimulationWorker


class ThreadSide:
    """The in-thread path: the worker's own methods."""

    def __init__(self) -> None:
        self.w = SimulationWorker(None, None, use_process=False)  # type: ignore[arg-type]
        self.flush_now, self.cancel = self.w._flush_now, self.w._cancel
        self.stop_requested = self.w._stop_requested
        self.pause, self.resume, self.step, self.stop = self.w.pause, self.w.resume, self.w.step, self.w.stop


class ProcessSide:
    """The forked-process path: the GUI side's worker controls, the child's gate on the shared objects."""

    def __init__(self) -> None:
        if "fork" not in mp.get_all_start_methods():
            pytest.skip("no fork on this platform")
        self.w = SimulationWorker(None, None, use_process=True)  # type: ignore[arg-type]
        gate = ProcessGate(self.w._p_stop, self.w._p_pause, self.w._p_steps, poll=0.002)
        self.flush_now, self.cancel = gate.flush_now, gate.cancel
        self.stop_requested = gate.stop_requested
        self.pause, self.resume, self.step, self.stop = self.w.pause, self.w.resume, self.w.step, self.w.stop


@pytest.fixture(params=["thread", "process"])
def side(request: pytest.FixtureRequest) -> Any:
    return ThreadSide() if request.param == "thread" else ProcessSide()


def call_async(fn: Callable[[], bool]) -> tuple[threading.Thread, list[bool]]:
    out: list[bool] = []
    th = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    th.start()
    return th, out


def assert_blocks(th: threading.Thread, ms: float = 250) -> None:
    th.join(ms / 1000)
    assert th.is_alive(), "cancel() returned while paused without a step"


def test_running_checkpoints_pass(side: Any) -> None:
    for _ in range(3):
        assert side.flush_now() is False  # no early flush while running: frames go out in blocks
        assert side.cancel() is False


def test_paused_flushes_and_blocks_step_lets_one_frame_through(side: Any) -> None:
    side.pause()
    assert side.flush_now() is True  # the frames computed before the pause are delivered now
    th, out = call_async(side.cancel)
    assert_blocks(th)
    side.step()
    th.join(2.0)
    assert not th.is_alive() and out == [False]  # one frame may be computed
    # the next checkpoint: that one frame is delivered at once, and the run holds again
    assert side.flush_now() is True
    th, out = call_async(side.cancel)
    assert_blocks(th)
    side.step(2)  # two steps: two checkpoints pass, the third holds
    th.join(2.0)
    assert out == [False]
    assert side.flush_now() is True
    assert side.cancel() is False
    assert side.flush_now() is True
    th, out = call_async(side.cancel)
    assert_blocks(th)
    side.resume()
    th.join(2.0)
    assert out == [False]
    assert side.flush_now() is False


def test_stop_while_paused_cancels(side: Any) -> None:
    side.pause()
    side.flush_now()
    th, out = call_async(side.cancel)
    assert_blocks(th)
    side.stop()
    th.join(2.0)
    assert out == [True]


def test_pause_between_flush_and_cancel_holds_at_the_next_frame(side: Any) -> None:
    assert side.flush_now() is False  # the driver keeps the pending frames (a block is not due yet)
    side.pause()  # ... and the pause lands now
    th, out = call_async(side.cancel)  # must not wait here with frames held back (a wait would last until stop)
    th.join(10.0)  # (a bound for a machine under any load, not a latency claim)
    assert not th.is_alive() and out == [False]
    assert side.flush_now() is True  # next frame: everything pending goes out
    th, _out = call_async(side.cancel)
    assert_blocks(th)
    side.stop()
    th.join(2.0)


def test_cancel_without_flush_question_blocks_when_paused(side: Any) -> None:
    """No frames pending (or a block was due and went out): the driver does not ask flush_now; cancel holds."""
    side.pause()
    th, out = call_async(side.cancel)
    assert_blocks(th)
    side.stop()
    th.join(2.0)
    assert out == [True]


def test_steps_before_a_pause_are_dropped(side: Any) -> None:
    side.step(3)  # while running (a stray click): no meaning once paused
    side.pause()
    assert side.flush_now() is True
    th, _out = call_async(side.cancel)
    assert_blocks(th)
    side.stop()
    th.join(2.0)


def test_stop_requested_between_integrator_steps(side: Any) -> None:
    """The non-blocking question asked before every integrator step: False while running or paused, True after
    stop (a run crawling between two output frames stops at once)."""
    assert side.stop_requested() is False
    side.pause()
    assert side.stop_requested() is False
    side.resume()
    side.stop()
    assert side.stop_requested() is True
    assert side.cancel() is True
