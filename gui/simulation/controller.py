"""SimulationController: compiles on the GUI thread, runs the worker on a QThread, feeds the buffer, and drives
the 3D view (display timer, up to 60 fps, interpolating between output frames) and the plots (plot timer).

States: ``idle`` (no results) → ``running`` ⇄ ``paused`` → ``finished`` | ``stopped`` | ``failed``. The run
never touches the Document: an edit during (or after) a run only marks the results ``stale`` (a change of the
model's ``editor`` section only, such as ticking a traced point, does not; undoing back to the run's mechanism
makes them valid again); opening another file stops the run and clears them. A failure (compile error, unassemblable model, Newton divergence, integrator
giving up) reaches the user through ``report_error`` and the window stays usable.

Frame by frame (:meth:`SimulationController.step`, :meth:`step_back`): on a run that has results, a step moves the
shown time to the next (or previous) output frame that is already there; only at the newest frame of a paused run
does Step ask the solver for one more. Neither ever drops results or starts a new run (Step with no results starts
a paused run). ``solve_seconds`` counts the wall time the solver ran (pauses excluded) for the progress rate.
"""
from __future__ import annotations

import gc
import logging
import time
from typing import Any, Callable

import numpy as np
from PySide6.QtCore import QObject, Qt, QThread, QTimer, Signal

from mechstudio.core.simulate import SimulationSettings
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status
from mechstudio.gui.dialogs.wording import user_words
from mechstudio.gui.simulation.buffer import TrajectoryBuffer
from mechstudio.gui.simulation.playback import PlaybackClock
from mechstudio.gui.simulation.settings_values import settings_problem
from mechstudio.gui.simulation.worker import SimulationWorker
from mechstudio.gui.view3d.geometry import Poser

log = logging.getLogger(__name__)


def same_mechanism(a: Any, b: Any) -> bool:
    """True when two models differ at most in their ``editor`` and ``simulation`` sections: a run of one is a
    run of the other (the run's own settings are kept with its results)."""
    if a is None or b is None:
        return False
    da, db = a.data, b.data
    return all(da.get(k) == db.get(k) for k in (set(da) | set(db)) - {"editor", "simulation"})


def _ptr(obj: Any) -> int:
    from shiboken6 import getCppPointer
    return int(getCppPointer(obj)[0])


#: every simulation thread with its worker, referenced until the thread has ended: a controller deleted mid-run
#: (its window deleted without its close handler) must not let Python destroy a running QThread, which makes Qt
#: abort the process; the controller's deletion stops the run instead (see :meth:`SimulationController.start`)
RUNNING_THREADS: set[tuple[QThread, Any]] = set()


def prune_running_threads() -> None:
    """Forget the threads that have ended (or whose C++ object is gone)."""
    for pair in list(RUNNING_THREADS):
        try:
            ended = pair[0].isFinished() or not pair[0].isRunning()
        except RuntimeError:  # deleted by its deleteLater
            ended = True
        if ended:
            RUNNING_THREADS.discard(pair)


DISPLAY_MS = 16  # ~60 fps
PLOT_MS = 60  # per tick one of the four plots gets new curves (each ~4 Hz); all four time cursors move


def _traced(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Report the handler's (name, start, end) to ``self.trace`` when one is set (the view benchmark)."""
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(self: "SimulationController", *args: Any, **kwargs: Any) -> Any:
            if self.trace is None:
                return fn(self, *args, **kwargs)
            t0 = time.perf_counter()
            try:
                return fn(self, *args, **kwargs)
            finally:
                self.trace(name, t0, time.perf_counter())
        wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
        return wrapper
    return deco


class SimulationController(QObject):
    """See the module docstring."""

    sig_state_changed = Signal(str)
    sig_time_changed = Signal(float)  # displayed time [s]
    sig_progress = Signal(float, float, float)  # (t simulated, t_end, real-time factor)
    sig_failed = Signal(str)
    sig_finished = Signal(object)  # outcome dict
    sig_events = Signal(object)  # the run's contact events so far (buffer.events), when they change

    def __init__(self, document: Any, view: Any, plots: Any, parent: QObject | None = None,
                 report_error: Callable[[str, str], None] | None = None):
        super().__init__(parent)
        self.document, self.view, self.plots = document, view, plots
        self.report_error = report_error or (lambda title, text: None)
        self.buffer = TrajectoryBuffer()
        self.clock = PlaybackClock()
        self.overrides: dict[str, Any] = {}
        self.system: Any = None
        self.settings: SimulationSettings | None = None
        self.model: Any = None
        self.poser: Poser | None = None
        self.state = "idle"
        self.stale = False
        self.outcome: dict[str, Any] = {}
        self.last_error = ""
        self.sim_thread: QThread | None = None
        self.worker: SimulationWorker | None = None
        self.block_log: list[tuple[bool, int, float]] = []  # (arrived on the GUI thread, frames, wall time)
        self._solved_s = 0.0  # wall time the solver ran before the current running stretch [s]
        self._running_since: float | None = None  # start of the current running stretch (perf_counter) or None
        self._dirty = True
        self.trace: Callable[[str, float, float], None] | None = None  # (what, start, end) of each GUI-thread handler
        self.display_timer = QTimer(self)
        self.display_timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.display_timer.setInterval(DISPLAY_MS)
        self.display_timer.timeout.connect(self._on_display_tick)
        self.plot_timer = QTimer(self)
        self.plot_timer.setInterval(PLOT_MS)
        self.plot_timer.timeout.connect(self._on_plot_tick)
        # Plot work is done right after a frame of the 3D view reached the screen (see _on_plot_tick)
        self._plot_due = False
        self._cursors_due = False
        self._last_swap = 0.0
        swapped = getattr(view, "frameSwapped", None)
        if swapped is not None:
            swapped.connect(self._on_frame_swapped)
        self._gc_frozen = False
        document.sig_model_changed.connect(self._on_document_model_changed)
        document.sig_reset.connect(self._on_document_reset)
        self.show_model()

    # ---- state -------------------------------------------------------------------------------------------
    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
        self.sig_state_changed.emit(state)

    @property
    def active(self) -> bool:
        """A worker thread exists (running, paused or stopping)."""
        return self.sim_thread is not None

    def effective_settings(self, model: Any = None) -> SimulationSettings:
        """The settings a run of ``model`` (default: the document's) uses: its ``simulation`` section, under
        :attr:`overrides`."""
        model = model or self.document.model
        return SimulationSettings.from_model(model, **self.overrides)

    def set_overrides(self, **kw: Any) -> None:
        """Settings over the document's ``simulation`` section for scripts, tests and the view benchmark: not
        saved, and dropped when the document starts over (open, new). The settings dialog edits the document
        itself (an undoable change of its ``simulation`` section)."""
        self.overrides.update({k: v for k, v in kw.items() if v is not None})

    # ---- the model preview ----------------------------------------------------------------------------------
    def show_model(self) -> None:
        """Draw the document's model in its assembled initial pose (no run)."""
        model = self.document.model
        self.model = model
        a = getattr(self.document, "analysis", None)
        system, q = None, None
        try:
            if a is not None and a.system is not None and a.q is not None and np.all(np.isfinite(a.q)):
                system, q = a.system, np.asarray(a.q, float)
            elif model.data.get("bodies"):
                system = compile_model(model)
                q = system.initial_guess()
        except Exception as exc:  # noqa: BLE001 (any compile failure): the preview is skipped, the editor says why
            log.info("no 3D preview of the model: %s", exc)
            self.last_error = f"cannot draw the model: {exc}"
            system, q = None, None
        self.system, self.poser = system, (Poser(system) if system is not None else None)
        try:
            self.view.set_model(model, system, q, 0.0)
        except Exception as exc:  # noqa: BLE001 (drawing must never break the editor)
            log.warning("cannot draw the model", exc_info=True)
            self.view.spec = None
            self.last_error = f"cannot draw the model: {exc}"
        self.plots.set_system(system)
        try:  # imports the formulation and integrator modules now, not when Run is pressed
            self.effective_settings(model).validate()
        except (ValueError, TypeError, KeyError) as exc:  # Run reports it (start() validates again)
            log.info("simulation settings of the model are not valid yet: %s", exc)
        self.buffer.reset(system.n if system else 0, len(system.constraints) if system else 0)
        self.sig_events.emit([])
        self.plots.refresh(self.buffer, force=True)
        self.clock.pause()
        self.clock.seek(0.0)
        self.stale = False
        self._set_state("idle")

    def _on_document_model_changed(self, model: Any) -> None:
        if same_mechanism(model, self.model):  # ticks of traced points, view state, settings: same mechanism
            self.model = model  # (also an undo back to the run's mechanism: its results are valid again)
            self.stale = False
            self.sig_state_changed.emit(self.state)
            return
        if self.active or self.state in ("finished", "stopped", "paused") and len(self.buffer):
            self.stale = True
            self.sig_state_changed.emit(self.state)
        else:
            self.show_model()

    def _on_document_reset(self) -> None:
        """Another model was opened (or a new one started): its own settings, no results. A save keeps both."""
        self.overrides.clear()
        self.reset()

    # ---- commands ----------------------------------------------------------------------------------------
    def start(self, *, paused: bool = False) -> bool:
        """Start a new run of the document's current model; False (and a message) when it cannot start."""
        if self.active:
            if self.worker is not None and self.worker.paused and not paused:
                self.resume()
            return False
        model = self.document.model
        a = getattr(self.document, "analysis", None)
        try:
            if not model.data.get("bodies"):
                raise ValueError("the model has no bodies")
            if a is not None and a.system is not None and self.document.model is model and a.q is not None:
                system = a.system  # compiled from this very model by the document's analysis
            else:
                system = compile_model(model)
            settings = self.effective_settings(model)
            settings.validate()
            problem = settings_problem(settings, model)
            if problem is not None:
                raise ValueError(problem)
        except Exception as exc:  # noqa: BLE001 (any compile/settings failure becomes a message)
            log.info("cannot start the simulation", exc_info=True)
            self._fail(f"cannot start the simulation: {exc}")
            return False
        same_scene = model is self.model and system is self.system and getattr(self.view, "spec", None) is not None
        self.model, self.system, self.settings = model, system, settings
        self.poser = Poser(system)
        q_preview = system.initial_guess()
        if a is not None and a.system is not None and a.q is not None and len(a.q) == system.n:
            q_preview = np.asarray(a.q, float)
        if same_scene:  # keep the GL items (rebuilding them stalls the window); just pose them
            self.view.poser = self.poser
            self.view.clear_trails()
            if not getattr(self.view, "_user_camera", False):
                self.view._fit_to(q_preview)
                self.view.reset_camera()
            self.view.set_state(q_preview, 0.0)
        else:
            self.view.set_model(model, system, q_preview, 0.0)
        self.plots.set_system(system)
        self.plots.set_time_range(settings.t_end)
        self.buffer.reset(system.n, len(system.constraints))
        self.sig_events.emit([])
        self.block_log = []
        self.outcome = {}
        self.stale = False
        self.last_error = ""
        self.worker = SimulationWorker(system, settings, start_paused=paused)
        self.sim_thread = QThread()
        self.sim_thread.setObjectName("simulation")
        prune_running_threads()
        RUNNING_THREADS.add((self.sim_thread, self.worker))
        self.destroyed.connect(self.worker.stop)  # deleted mid-run: the run stops, its thread ends by itself
        self.worker.moveToThread(self.sim_thread)
        self.sim_thread.started.connect(self.worker.run)
        self.worker.sig_block.connect(self._on_block)
        self.worker.sig_contacts.connect(self._on_contacts)
        self.worker.sig_finished.connect(self._on_finished)
        self._solved_s = 0.0
        self._running_since = None if paused else time.perf_counter()
        self.clock.seek(0.0)  # the clock starts playing with the first frames (_on_display_tick): starting it now
        self.clock.pause()    # would let it catch up with the solver's first block and stall
        self._hold_gc()
        self.display_timer.start()
        self.plot_timer.start()
        self.sim_thread.start()
        self._set_state("paused" if paused else "running")
        return True

    def _solver_stops(self) -> None:
        if self._running_since is not None:
            self._solved_s += time.perf_counter() - self._running_since
            self._running_since = None

    @property
    def solve_seconds(self) -> float:
        """Wall time the solver of the current run has been running [s] (pauses excluded)."""
        extra = time.perf_counter() - self._running_since if self._running_since is not None else 0.0
        return self._solved_s + extra

    def pause(self) -> None:
        if self.worker is not None and self.state == "running":
            self.worker.pause()
            self.clock.pause()
            self._solver_stops()
            self._set_state("paused")
        elif self.state in ("finished", "stopped", "failed") and self.clock.playing:
            self.clock.pause()
            self.sig_state_changed.emit(self.state)

    def resume(self) -> None:
        if self.worker is not None and self.state == "paused":
            self.worker.resume()
            self.clock.play()
            self._running_since = time.perf_counter()
            self._set_state("running")

    def run_or_resume(self) -> None:
        if self.state == "paused":
            self.resume()
        else:
            self.start()

    def step(self) -> float | None:
        """One output frame forward; the time it shows, or None when it waits for the solver's next frame.

        With results: the next frame already there (a finished, stopped or failed run, or a paused run whose view
        is behind its newest frame); at the newest frame of a paused (or running: it pauses) run, the solver
        computes one more. With no results (idle): a paused run starts. Results are never dropped."""
        if self.state == "running":
            self.pause()
        if len(self.buffer):
            t_next = self.buffer.time_after(self.clock.t)
            if t_next is not None:
                self.show_time(t_next)
                return t_next
            if not self.active:
                return self.clock.t  # the last frame of a run that ended: stay there
        elif not self.active:
            if not self.start(paused=True):
                return None
        assert self.worker is not None
        self.worker.step()
        return None

    def step_back(self) -> float | None:
        """One output frame back (a running run pauses); the time it shows, None without results."""
        if self.state == "running":
            self.pause()
        if not len(self.buffer):
            return None
        t_prev = self.buffer.time_before(self.clock.t)
        self.show_time(t_prev if t_prev is not None else float(self.buffer.t[0]))
        return self.clock.t

    def show_time(self, t: float) -> None:
        """Show the output frame at (or the interpolated state at) time ``t``, paused: view, plots' cursors, slider."""
        if self.clock.playing:
            self.clock.pause()
            self.sig_state_changed.emit(self.state)  # Pause of a replay is no longer available
        self.seek(t)

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.stop()
        self.clock.pause()

    def wait(self, ms: int = 10000) -> bool:
        """Block until the worker thread ended (tests, shutdown)."""
        if self.sim_thread is None:
            return True
        ok = bool(self.sim_thread.wait(ms))
        return ok

    def reset(self) -> None:
        """Stop any run, drop the results and show the model's initial pose."""
        self.shutdown()
        self.display_timer.stop()
        self.plot_timer.stop()
        self._release_gc()
        self.show_model()

    def shutdown(self) -> None:
        """Stop the worker and join its thread (window close)."""
        if self.worker is not None:
            self.worker.stop()
        if self.sim_thread is not None:
            self.sim_thread.quit()
            self.sim_thread.wait(15000)
            self._release_thread()
        self._release_gc()

    def _release_thread(self) -> None:
        if self.worker is not None:
            try:
                self.worker.sig_block.disconnect(self._on_block)
                self.worker.sig_contacts.disconnect(self._on_contacts)
                self.worker.sig_finished.disconnect(self._on_finished)
            except (RuntimeError, TypeError):
                pass
        running = self.sim_thread is not None and self.sim_thread.isRunning()
        if not running:  # a thread still running stays referenced in RUNNING_THREADS until it ends by itself
            if self.worker is not None:
                self.worker.deleteLater()
            if self.sim_thread is not None:
                self.sim_thread.deleteLater()
        self.worker, self.sim_thread = None, None

    def replay(self) -> None:
        """Play the animation of the finished run from the start."""
        if len(self.buffer):
            self.clock.seek(0.0)
            self.clock.play()
            self._hold_gc()
            self.display_timer.start()
            self.plot_timer.start()

    def seek(self, t: float) -> None:
        """Scrub: show time ``t`` (the mechanism and the plots' cursor move together)."""
        self.clock.pause()
        self.clock.seek(min(max(t, 0.0), self.buffer.t_latest))
        self._dirty = True
        self._on_display_tick()
        self.plots.set_cursor(self.clock.t)
        self.sig_time_changed.emit(self.clock.t)

    def set_speed(self, speed: float) -> None:
        self.clock.speed = float(speed)

    # ---- worker → GUI (queued, GUI thread) ---------------------------------------------------------------
    def _from_current_worker(self) -> bool:
        """Ignore signals still queued from a worker of an earlier run."""
        sender = self.sender()
        return self.worker is not None and (sender is None or _ptr(sender) == _ptr(self.worker))

    @_traced("block")
    def _on_block(self, block: Any) -> None:
        if not self._from_current_worker():
            return
        on_gui = _ptr(QThread.currentThread()) == _ptr(QObject.thread(self))
        self.block_log.append((on_gui, len(block), time.perf_counter()))
        self.buffer.append(block)
        include = getattr(self.view, "include_frames", None)
        if include is not None:  # the camera's region grows ahead of the animation when the frames leave it
            include(block.q)
        if self.state == "paused":  # single steps: show the newest frame
            self.clock.seek(self.buffer.t_latest)
            self._dirty = True
        if self.state != "running":  # single steps of a paused run: no progress rate (the solver waits)
            return
        elapsed = max(self.solve_seconds, 1e-9)
        t_end = self.settings.t_end if self.settings else 0.0
        self.sig_progress.emit(self.buffer.t_latest, t_end, self.buffer.t_latest / elapsed)

    def _on_contacts(self, block: Any) -> None:
        """The contact columns of the next block's frames and the events found meanwhile (runs with contacts)."""
        if not self._from_current_worker():
            return
        self.buffer.append_contacts(block)
        if block.events:
            self.sig_events.emit(self.buffer.events)

    def _on_finished(self, outcome: dict[str, Any]) -> None:
        if not self._from_current_worker():
            return
        self.outcome = outcome
        stats = outcome.get("stats") or {}
        if "events" in stats or "columns" in stats:  # the complete record (a stopped run's last events too)
            self.buffer.set_contact_results(stats.get("columns") or {}, stats.get("events") or [])
            self.sig_events.emit(self.buffer.events)
        self._solver_stops()
        if self.sim_thread is not None:
            self.sim_thread.quit()
            self.sim_thread.wait(5000)
        self._release_thread()
        status = outcome.get("status", Status.FAILED)
        self._dirty = True
        self.plots.fit_time(self.buffer.t_latest)  # a run that stopped early fills its plots
        self.plot_timer.start()  # the remaining plots catch up one per tick
        if status == Status.CANCELLED:
            self._set_state("stopped")
        elif getattr(status, "ok", False) or status == Status.FINISHED:
            if self.state == "running" and not self.clock.playing and len(self.buffer):
                self.clock.play()  # a run that ended before a display tick started the animation: play it
                self.display_timer.start()
            self._set_state("finished")
        else:
            self._fail(outcome.get("message") or "the simulation failed")
        self.sig_finished.emit(outcome)

    def _fail(self, message: str) -> None:
        message = user_words(message)
        self.last_error = message
        self.clock.pause()
        self._set_state("failed")
        self.sig_failed.emit(message)
        self.report_error("Simulation failed", message + "\n\nThe model is unchanged.")

    # ---- timers ------------------------------------------------------------------------------------------
    @_traced("display tick")
    def _on_display_tick(self) -> None:
        if not len(self.buffer) or self.poser is None:
            return
        changed = self.clock.tick(self.buffer.t_latest)
        if self.state in ("finished", "stopped") and self.clock.playing and self.clock.t >= self.buffer.t_latest:
            self.clock.pause()
        if self.state == "running" and not self.clock.playing:
            self.clock.play()
        if changed or self._dirty:
            self._dirty = False
            self.render_at(self.clock.t)
            self.sig_time_changed.emit(self.clock.t)

    def render_at(self, t: float) -> None:
        b = self.buffer
        i, j, s = b.index_at(t)
        q = b.field("q")
        qt = self.poser.interpolate(q[i], q[j], s) if self.poser else q[i]
        names = [c.name for c in self.system.constraints] if self.system is not None else None
        self.view.set_state(qt, t, b.field("reactions")[i], names, present=True)

    def _on_plot_tick(self) -> None:
        """While the 3D view presents frames, the plot work waits for the next swap (see _on_frame_swapped)."""
        if time.perf_counter() - self._last_swap < 3 * DISPLAY_MS / 1000:
            self._plot_due = True
        else:
            self.plots.flush_paint()
            self._plot_work()

    def _on_frame_swapped(self) -> None:
        """A frame of the 3D view reached the screen: the next one is due in a display interval, so this is when
        plot work (several ms with a software renderer) delays no frame. The work of a plot tick is split over
        three such gaps: the new curves of one plot are set after one frame, that plot is painted after the
        next, and all four time cursors move (a thin strip repainted per plot) after the third."""
        self._last_swap = time.perf_counter()
        if self.plots.paint_pending():
            self.plots.flush_paint()
            self._cursors_due = True
        elif self._cursors_due:
            self._cursors_due = False
            self._move_cursors()
        elif self._plot_due:
            self._plot_due = False
            self._plot_work(defer_paint=True)

    @_traced("plot tick")
    def _plot_work(self, defer_paint: bool = False) -> None:
        # one plot per tick gets its curves: painted at once, with every plot's time cursor moved to the
        # animation's time, or (defer_paint) painted after the next frame, the cursors after the one after
        if defer_paint:
            self.plots.refresh(self.buffer, defer_paint=True)
            if not self.plots.paint_pending():  # no plot had new data: the cursors move now
                self._move_cursors()
        else:
            self.plots.refresh(self.buffer, cursor=self.clock.t)
        if not self.active and not self.clock.playing and self.plots.up_to_date(self.buffer):
            self.plots.flush_paint()
            self.plots.set_cursor(self.clock.t)
            self._cursors_due = False
            self.plot_timer.stop()
            self.display_timer.stop() if not self._dirty else None
            self._release_gc()

    @_traced("plot cursors")
    def _move_cursors(self) -> None:
        self.plots.set_cursor(self.clock.t)

    # ---- garbage collector -------------------------------------------------------------------------------
    def _hold_gc(self) -> None:
        """While a run or an animation goes on, the objects that existed before it are kept out of the garbage
        collector (``gc.freeze``): a full collection of the window's heap (~170k objects) takes 120-160 ms with
        this app, which would stall several frames; frozen, it only scans what the run allocated. Right before
        the worker forks the solver process, this also keeps the child from touching the parent's pages."""
        if not self._gc_frozen:
            self._gc_unfreeze = gc.get_freeze_count() == 0  # don't thaw what someone else froze (nested use)
            gc.freeze()
            self._gc_frozen = True

    def _release_gc(self) -> None:
        """The run and its animation are over (the app is idle): hand the objects back to the collector."""
        if self._gc_frozen:
            self._gc_frozen = False
            if self._gc_unfreeze:
                gc.unfreeze()

    # ---- results -----------------------------------------------------------------------------------------
    def trajectory(self) -> Any:
        """The buffered frames as a :class:`~core.simulate.Trajectory` (for the exports)."""
        if self.system is None or self.settings is None or not len(self.buffer):
            raise ValueError("there are no results to export: run the simulation first")
        o = self.outcome
        return self.buffer.to_trajectory(self.system, self.settings, o.get("status", Status.FINISHED),
                                         o.get("message", ""), o.get("stats", {}))
