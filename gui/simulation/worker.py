"""SimulationWorker: runs ``mechstudio.core.simulate.iter_simulation`` for a QThread and emits blocks of frames
(through :func:`~gui.simulation.contact_stream.iter_run`, which adds the contact columns and events of each block
of a run with contacts: ``sig_contacts``, right before the block's ``sig_block``).

On Linux the integration itself runs in a forked child process and the QThread relays its blocks: Python's
GIL would otherwise make every Python call of the GUI thread (each pyqtgraph paint, each PyOpenGL call) queue
behind the CPU-bound integrator, and the window would stall for hundreds of ms under load. Elsewhere (no fork)
it runs in the thread itself with a short GIL switch interval. Either way the worker is fed only immutable
inputs (the compiled system, frozen settings, optional initial state) and owns no GUI
object. Pause, resume, single step and stop are thread-safe. The driver passes a checkpoint after every
recorded output frame: it asks ``flush_now()`` whether to emit the pending frames at once, then calls
``cancel()``. While paused, ``flush_now`` says yes, so the frames computed so far are delivered immediately, and
``cancel`` blocks (releasing the GIL) until a step lets exactly one more output frame through (which is then
delivered on its own), until resume, or until stop (it then returns True and the run ends as CANCELLED). A pause
that arrives between the two calls takes hold at the next frame, so no computed frame is ever held back while
the run waits. Stop is also seen before every integrator step (``stop_requested``), so a run crawling between two
frames stops at once; a solver process that does not answer a stop within ``STOP_GRACE_S`` (busy compiling its
kernels, say) is ended, and the run ends as CANCELLED. Errors never escape: a failed run ends with ``sig_finished`` carrying its status and message (and
an unexpected exception becomes a FAILED outcome too).

The solver process never outlives the app, however the app ends (:func:`detach_from_app`, first thing in the
child): the kernel kills it when the thread that forked it dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)`` on Linux,
a SIGKILL of the app included), and a watchdog thread ends it when its parent process is gone (the parent's pid
changes when it is re-parented) where there is no such call. Everything else the fork copied is let go: every
inherited file descriptor but the result pipe and the standard streams is pointed at ``/dev/null`` (so the
child holds neither the app's X connection — a dead app's window would stay on screen — nor the recovery
slot's lock file, whose lock would keep the crashed session's recovery from being offered), and the default
signal dispositions are restored (SIGTERM ends it).
"""
from __future__ import annotations

import ctypes
import logging
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
import traceback
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from mechstudio.core.simulate import SimulationSettings
from mechstudio.core.types import Status
from mechstudio.gui.simulation.contact_stream import ContactBlock, iter_run

log = logging.getLogger(__name__)


CHILD_NICE = 4  # the simulation process yields the CPU to the GUI
SWITCH_INTERVAL = 0.0001  # [s] GIL switch interval while a run is going
WATCHDOG_S = 0.2  # [s] how often the solver process checks that the app is still there
#: [s] after a stop, how long the relay waits for the solver process's own cancelled outcome before it ends the
#: process: a process busy where it does not look at the stop event (compiling kernels, one long factorisation)
#: must not keep the thread, and with it a closing window, waiting
STOP_GRACE_S = 0.5
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
#: signals whose default disposition the solver process restores (the app may have handlers or ignore them)
DEFAULT_SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")
                        if hasattr(signal, n))


class SimulationWorker(QObject):
    """See the module docstring. Move it to a QThread and connect ``thread.started`` to :meth:`run`."""

    sig_block = Signal(object)
    """A :class:`~core.simulate.FrameBlock` (arrays copied; the worker never touches it again)."""
    sig_contacts = Signal(object)
    """A :class:`~gui.simulation.contact_stream.ContactBlock`: the contact columns of the frames of the
    ``sig_block`` that follows it, and the events found since the last one (runs with contacts only)."""
    sig_finished = Signal(object)
    """The outcome dict: status (:class:`~core.types.Status`), message, stats."""

    def __init__(self, system: Any, settings: SimulationSettings, *, block_seconds: float = 0.04,
                 block_frames: int = 25, start_paused: bool = False, use_process: bool | None = None):
        super().__init__()
        self.system, self.settings = system, settings
        self.block_seconds, self.block_frames = block_seconds, block_frames
        self._cond = threading.Condition()
        self._paused = start_paused
        self._stop = False
        self._steps = 0
        self._asked_paused: bool | None = None  # what flush_now answered at the current checkpoint
        if use_process is None:
            use_process = sys.platform.startswith("linux") and "fork" in mp.get_all_start_methods() \
                and not os.environ.get("MECHSTUDIO_SIM_IN_THREAD")
        self.use_process = use_process
        self.child_pid: int | None = None  # the solver process while it runs (process path)
        if use_process:
            ctx = mp.get_context("fork")
            self._ctx = ctx
            self._p_stop, self._p_pause = ctx.Event(), ctx.Event()
            self._p_steps = ctx.Value("i", 0)
            if start_paused:
                self._p_pause.set()

    # ---- control (any thread) ----------------------------------------------------------------------------
    def pause(self) -> None:
        """Stop at the next output frame (the frames computed so far are delivered). Drops pending steps."""
        with self._cond:
            self._paused = True
            self._steps = 0
        if self.use_process:
            with self._p_steps.get_lock():
                self._p_steps.value = 0
            self._p_pause.set()

    def resume(self) -> None:
        with self._cond:
            self._paused = False
            self._steps = 0
            self._cond.notify_all()
        if self.use_process:
            self._p_pause.clear()
            with self._p_steps.get_lock():
                self._p_steps.value = 0

    def step(self, n: int = 1) -> None:
        """While paused: let ``n`` more output frames through, each delivered as soon as it is computed."""
        with self._cond:
            self._steps += n
            self._cond.notify_all()
        if self.use_process:
            with self._p_steps.get_lock():
                self._p_steps.value += n

    def stop(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self.use_process:
            self._p_stop.set()

    @property
    def paused(self) -> bool:
        return self._paused

    def _stop_requested(self) -> bool:
        """Asked before every integrator step (never blocks): a run crawling between two frames stops at once."""
        return self._stop

    def _flush_now(self) -> bool:
        """The driver's question after a frame (with frames pending): emit them now? Yes while paused."""
        with self._cond:
            self._asked_paused = self._paused
            return self._paused

    def _cancel(self) -> bool:
        """The driver's checkpoint after a frame: block while paused (one step = one frame), True to stop."""
        with self._cond:
            asked, self._asked_paused = self._asked_paused, None
            if asked is False:  # paused after flush_now said "running": frames may be pending; hold at the next frame
                return self._stop
            while self._paused and not self._stop and self._steps == 0:
                self._cond.wait(0.1)
            if self._paused and self._steps > 0 and not self._stop:
                self._steps -= 1
            return self._stop

    # ---- the run (worker thread) -------------------------------------------------------------------------
    @Slot()
    def run(self) -> None:
        if self.use_process:
            self._run_process()
        else:
            self._run_thread()

    def _run_process(self) -> None:
        t0 = time.perf_counter()
        parent, child = self._ctx.Pipe(duplex=False)
        proc = self._ctx.Process(target=_child_main, name="mechstudio-simulation", daemon=True,
                                 args=(child, self.system, self.settings, self._p_stop, self._p_pause, self._p_steps,
                                       self.block_frames, self.block_seconds, os.getpid()))
        outcome: dict[str, Any] | None = None
        try:
            proc.start()
            self.child_pid = proc.pid
            child.close()
            stopped_at: float | None = None
            while outcome is None:
                if self._stop:
                    stopped_at = stopped_at or time.perf_counter()
                    if time.perf_counter() - stopped_at > STOP_GRACE_S:
                        outcome = dict(status=Status.CANCELLED, stats={},
                                       message="stopped (the solver process was ended)")
                        break
                if parent.poll(0.05):
                    try:
                        kind, payload = parent.recv()
                    except (EOFError, OSError):
                        break
                    if kind == "block":
                        self.sig_block.emit(payload)
                    elif kind == "contacts":
                        self.sig_contacts.emit(payload)
                    else:
                        outcome = payload
                elif not proc.is_alive() and not parent.poll(0):
                    break
        except Exception as exc:  # noqa: BLE001 (the relay must end the run with a status, never hang the window)
            log.exception("relaying the simulation process failed")
            outcome = dict(status=Status.FAILED, message=f"internal error: {type(exc).__name__}: {exc}", stats={})
        finally:
            proc.join(0.0 if self._stop else 2.0)
            if proc.is_alive():
                proc.terminate()
                proc.join(2.0)
            if proc.is_alive():
                proc.kill()
                proc.join(2.0)
            parent.close()
            self.child_pid = None
        if outcome is None:
            outcome = dict(status=Status.FAILED, stats={},
                           message=f"the simulation process ended unexpectedly (exit code {proc.exitcode})")
        outcome["wall_seconds"] = time.perf_counter() - t0
        self.sig_finished.emit(outcome)

    def _run_thread(self) -> None:
        outcome: dict[str, Any] = {}
        t0 = time.perf_counter()
        # The GUI thread calls into Python for every pyqtgraph paint; with the default 5 ms switch interval a
        # CPU-bound worker makes each of those calls wait for the GIL (a convoy of up to 5 ms per call, seconds
        # per repaint). A short interval keeps the GUI responsive at a small cost to the worker.
        old_interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH_INTERVAL)
        try:
            for block in iter_run(self.system, self.settings, cancel=self._cancel, flush_now=self._flush_now,
                                  stop_requested=self._stop_requested, outcome=outcome,
                                  block_frames=self.block_frames, block_seconds=self.block_seconds):
                if isinstance(block, ContactBlock):
                    self.sig_contacts.emit(block)
                else:
                    self.sig_block.emit(block)
        except Exception as exc:  # noqa: BLE001 (a bug in a formulation must not take the window down)
            log.exception("the simulation failed with an internal error")
            outcome.update(status=Status.FAILED, message=f"internal error: {type(exc).__name__}: {exc}",
                           traceback=traceback.format_exc())
        finally:
            sys.setswitchinterval(old_interval)
        outcome.setdefault("status", Status.FAILED)
        outcome.setdefault("message", "")
        outcome.setdefault("stats", {})
        outcome["wall_seconds"] = time.perf_counter() - t0
        self.sig_finished.emit(outcome)


class ProcessGate:
    """The driver's ``flush_now`` / ``cancel`` pair in the simulation process, steered by the GUI side's shared
    ``stop`` and ``pause`` events and ``steps`` counter (the same rules as the thread path's, see the module
    docstring)."""

    def __init__(self, stop: Any, pause: Any, steps: Any, poll: float = 0.005):
        self.stop, self.pause, self.steps, self.poll = stop, pause, steps, poll
        self._asked: bool | None = None  # what flush_now answered at the current checkpoint

    def stop_requested(self) -> bool:
        return self.stop.is_set()

    def flush_now(self) -> bool:
        self._asked = self.pause.is_set()
        return self._asked

    def cancel(self) -> bool:
        asked, self._asked = self._asked, None
        if asked is False:  # paused after flush_now said "running": frames may be pending; hold at the next frame
            return self.stop.is_set()
        while self.pause.is_set() and not self.stop.is_set():
            with self.steps.get_lock():
                if self.steps.value > 0:
                    self.steps.value -= 1
                    break
            time.sleep(self.poll)
        return self.stop.is_set()


def detach_from_app(parent_pid: int, keep_fds: tuple[int, ...] = ()) -> None:
    """In a process forked from the app: end with the app, and let go of everything the fork copied.

    * Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` — the kernel kills this process when the thread that forked it
      ends, however it ends (a SIGKILL of the app included). If the app died before the call took effect, the
      parent pid has already changed: exit now.
    * Everywhere: a daemon watchdog thread exits when the parent pid changes (the app is gone and this process was
      re-parented), every :data:`WATCHDOG_S`.
    * Every inherited file descriptor except 0, 1, 2 and ``keep_fds`` is pointed at ``/dev/null`` (``dup2``:
      the descriptor numbers stay taken, so an inherited Python object that closes one later closes nothing of
      ours): the app's X connection (a crashed app's window would otherwise stay on screen while this process
      lives), the recovery slot's lock file (its lock would keep the crashed session's recovery from being
      offered), the log file, sockets.
    * The default dispositions of :data:`DEFAULT_SIGNALS` and an empty signal mask: SIGTERM ends this process.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
                log.warning("prctl(PR_SET_PDEATHSIG) failed: errno %d", ctypes.get_errno())
        except (OSError, AttributeError):
            log.warning("prctl is not available: the solver process relies on its watchdog", exc_info=True)
    if os.getppid() != parent_pid:  # the app died before (or while) the death signal was armed
        os._exit(1)
    for sig in DEFAULT_SIGNALS:
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):  # ValueError: not the main thread (cannot happen right after a fork)
            pass
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
    _null_inherited_fds(set(keep_fds) | {0, 1, 2})
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="app-watchdog", daemon=True).start()


def _watch_parent(parent_pid: int) -> None:
    while True:
        time.sleep(WATCHDOG_S)
        if os.getppid() != parent_pid:
            os._exit(1)


def inherited_fds() -> list[int]:
    """The open file descriptors of this process (Linux: /proc/self/fd; elsewhere: probed up to 256)."""
    try:
        return sorted(int(n) for n in os.listdir("/proc/self/fd"))
    except OSError:
        out = []
        for fd in range(256):
            try:
                os.fstat(fd)
            except OSError:
                continue
            out.append(fd)
        return out


def _null_inherited_fds(keep: set[int]) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in inherited_fds():
            if fd in keep or fd == null:
                continue
            try:
                os.dup2(null, fd, inheritable=False)
            except OSError:  # (the listing's own descriptor, closed by now)
                pass
    finally:
        os.close(null)


def _child_main(conn: Any, system: Any, settings: SimulationSettings, stop: Any, pause: Any, steps: Any,
                block_frames: int, block_seconds: float, parent_pid: int) -> None:
    """The forked simulation process: run, send ("block", FrameBlock)... (each preceded by ("contacts",
    ContactBlock) in a run with contacts) then ("done", outcome).

    It first detaches itself from the app (:func:`detach_from_app`: it ends with the app and holds nothing of
    it), then lowers its own scheduling priority so that the window (same user, same cores) always gets the CPU
    first: the run may slow down, the GUI never stalls. Its log goes to stderr (the app's log file is not its to
    write; a failure's traceback reaches the app in the outcome)."""
    detach_from_app(parent_pid, keep_fds=(conn.fileno(),))
    _log_to_stderr()
    try:
        os.nice(CHILD_NICE)
    except (OSError, AttributeError):
        pass
    gate = ProcessGate(stop, pause, steps)
    outcome: dict[str, Any] = {}
    try:
        for block in iter_run(system, settings, cancel=gate.cancel, flush_now=gate.flush_now,
                              stop_requested=gate.stop_requested, outcome=outcome,
                              block_frames=block_frames, block_seconds=block_seconds):
            conn.send(("contacts" if isinstance(block, ContactBlock) else "block", block))
    except (BrokenPipeError, EOFError):  # the app stopped listening (it is closing): nothing left to do
        os._exit(0)
    except Exception as exc:  # noqa: BLE001 (a bug in a formulation must not take the window down)
        log.exception("the simulation process failed with an internal error")
        outcome.update(status=Status.FAILED, message=f"internal error: {type(exc).__name__}: {exc}",
                       traceback=traceback.format_exc())
    outcome.setdefault("status", Status.FAILED)
    outcome.setdefault("message", "")
    outcome.setdefault("stats", {})
    try:
        conn.send(("done", outcome))
    except (BrokenPipeError, EOFError):
        pass
    finally:
        conn.close()


def _log_to_stderr() -> None:
    """The root logger of the solver process: stderr only (the inherited handlers' files are /dev/null now)."""
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("mechstudio-simulation: %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
