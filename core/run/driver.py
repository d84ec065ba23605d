"""The simulation driver: integrate, correct the drift, record output frames, emit them in blocks.

Procedure of a run (:class:`Driver`, headless and thread-agnostic; the GUI runs it on a worker):

1. assemble the file's rough positions (Newton-Raphson, held coordinates kept) and solve the velocities from
   the prescribed coordinate rates (C q' = -xi exactly): ``mechstudio.core.run.initial``;
2. integrate the formulation's state y together with the work W of the non-conservative and constraint forces
   (W' = P_nc + q'^T C^T lambda);
3. correct the drift (``mechstudio.core.dynamics.correction``) unless switched off, and record at every output time
   t_k = k dt a :class:`~core.run.frames.Frame`: q, q', q'', lambda, the reactions of every joint/driver/contact,
   the energies and ||Phi||, ||C q' + xi|| before and after the correction;
4. emit the frames in blocks (every ``block_frames`` frames or ``block_seconds`` of wall time).

Two integration modes ([001] allows the correction "after each step, or each output interval, restarting the
integrator"):

* continuous (DOP853, RK45: ``Integrator.continuous``): one stepper for the whole run. After every accepted step
  the step end is corrected (Newton on Phi with the mass-weighted step, then the velocity projection) and, only
  if that changed the state or the formulation asks for it (:meth:`~core.dynamics.base.Formulation.needs_restart`:
  the projection's kept basis grew too much, an angle set came near its singularity), the formulation re-packs
  the state and the stepper continues from it (derivative re-evaluated; a new stepper after a fresh SVD). Output
  times inside a step are taken from the step's dense output and the recorded state is the corrected copy of the
  interpolated one, so that ||Phi|| < 1e-12 holds at every recorded output; with the correction off nothing is
  touched and the drift shows. Compared with restarting at every output (at least one cold 12-stage DOP853 step
  per 0.01 s interval) this needs 5-15x fewer right-hand sides; the accuracy is then the requested rtol. More
  than ``MAX_STEPS_PER_OUTPUT`` steps without reaching the next output ends the run (a collapsing step size near
  a singularity would never end).
* intervals (RK4, ABM, Radau, BDF): integrate from one output to the next, correct, restart (``advance``).

When an evaluation raises :class:`~core.dynamics.base.RestartRequired` (the projection's kept basis became
degenerate) the driver calls :meth:`~core.dynamics.base.Formulation.refresh_basis` at the last accepted state and
restarts the integrator from there, once per state.

Failures are statuses: nothing numerical escapes a run. Assembly failure, a singular matrix, the integrator
giving up, Newton not converging, a non-finite state, and any numerical exception (``LinAlgError`` such as "SVD
did not converge", ``FloatingPointError``, ...) end the run with :attr:`~core.types.Status.FAILED` and a message
naming what failed and the time; the caller's cancel ends it with :attr:`~core.types.Status.CANCELLED`.
While the driver computes, numpy's floating-point errors raise (``FLOATING_POINT``): a state or a load that
overflows ends the run at once as such a failure, instead of printing a RuntimeWarning and going on with
infinities until the state is no longer finite (or LAPACK prints its ``DLASCL`` complaints). The caller's code
between blocks keeps its own numpy error settings. BLAS runs single-threaded during the run only
(``mechstudio.core.run.blas``).

Hooks of the caller (all optional, see :func:`iter_simulation`): ``cancel`` and ``flush_now`` at every recorded
frame (the *checkpoint*), ``stop_requested`` before every integrator step.

Kernels: a run of a formulation with a numpy and a compiled path starts on the numpy path and switches to the
compiled kernels at a step end when they pay and the cache holds them, compiled meanwhile in a background process
when it does not (``mechstudio.core.run.kernels``, the settings' ``kernels="auto"``); a kernel missing from the
cache after all sends the run back to the numpy path from its last accepted state. The driver's code runs under
the kernel policy of its current path (``mechstudio.core.jit``), set while the driver computes and reset whenever
it hands a block to the caller.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from mechstudio.core.contact.contacts import ContactModelError, contact_set
from mechstudio.core.contact.modes import ModeFailure, select_mode
from mechstudio.core.dynamics.base import (FastOutput, Formulation, OutputScalar, RestartRequired, SolverFailure,
                                get_formulation)
from mechstudio.core.dynamics.correction import correct
from mechstudio.core.dynamics.packed_output import unpack_frame
from mechstudio.core.integrate.base import Integrator, SegmentRequest, Stepper, get_integrator
from mechstudio.core.jit import KernelNotCached, reset_policy, set_policy
from mechstudio.core.run.blas import single_threaded_blas
from mechstudio.core.run.events import ContactRun, EventDriving
from mechstudio.core.run.frames import Frame, FrameBlock, Trajectory, concat_blocks
from mechstudio.core.run.initial import initial_state
from mechstudio.core.run.kernels import KernelChoice
from mechstudio.core.run.settings import SimulationSettings
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.types import FloatArray, Status

#: continuous stepping gives up (status FAILED, with the time) after this many steps without reaching the next
#: output time: a step size collapsing towards a singularity would otherwise take practically forever
MAX_STEPS_PER_OUTPUT = 2000

#: exceptions that are numerical trouble inside a run (they become a FAILED status with a message)
NUMERICAL_ERRORS = (np.linalg.LinAlgError, ArithmeticError, ValueError)
#: numpy's floating-point error handling while the driver computes (module docstring): overflow, division by zero
#: and invalid operations raise FloatingPointError (an ArithmeticError); code that expects one of them in a
#: masked computation says so with a local ``np.errstate``
FLOATING_POINT = dict(over="raise", divide="raise", invalid="raise")


@dataclass
class RunHooks:
    """The caller's hooks (see :func:`iter_simulation`)."""
    cancel: Callable[[], bool] | None = None  # at every checkpoint; True ends the run (may block: a paused GUI)
    flush_now: Callable[[], bool] | None = None  # at every checkpoint; True emits the pending frames now
    stop_requested: Callable[[], bool] | None = None  # before every integrator step; non-blocking

#: the leading OutputScalar fields a fused output frame's scalars are unpacked into (KINETIC .. LAMBDA_UNIQUE),
#: as a plain int: it is used once per output
N_OUTPUT_FLAGS = int(OutputScalar.NULL_SPACE_GROWTH)
_POSITION_AFTER, _ITERATIONS = int(OutputScalar.POSITION_AFTER), int(OutputScalar.NEWTON_ITERATIONS)
_CONVERGED, _CHANGED = int(OutputScalar.CONVERGED), int(OutputScalar.CHANGED)
#: a compiled segment of a continuous run (``Stepper.segment``) takes at most this many steps (one when the caller
#: asks ``stop_requested`` before every step), and returns once it has recorded this many frames (one when the
#: caller's hooks look at every frame: a paused editor)
SEGMENT_STEPS, SEGMENT_FRAMES = 64, 64


class RunEnded(Exception):
    """Raised inside :class:`Driver` to end the run with ``status`` and ``message`` (caught by the driver)."""

    def __init__(self, status: Status, message: str):
        super().__init__(message)
        self.status, self.message = status, message


@dataclass
class RunState:
    """The mutable data of one run (the compiled system and the settings are never modified)."""
    t: float = 0.0  # time of the last accepted state [s]
    q: FloatArray = field(default_factory=lambda: np.zeros(0))
    v: FloatArray = field(default_factory=lambda: np.zeros(0))
    work: float = 0.0  # cumulative work of the non-conservative and constraint forces [J]
    y: FloatArray = field(default_factory=lambda: np.zeros(0))  # the formulation's integrator state at t
    k: int = 1  # index of the next output time t_k = k dt
    stepper: Stepper | None = None  # continuous mode: the integrator's stepper
    accepted: tuple = ()  # continuous mode: (q, q', t, W) of the last accepted (corrected) step end
    retried_at: float = -1.0  # continuous mode: time of the last restart after RestartRequired [s]
    steps_since_output: int = 0  # continuous mode: accepted steps since the last recorded output
    phase: str = "validating the settings"  # what the driver is doing (named in failure messages)
    pending: list[Frame] = field(default_factory=list)  # recorded frames not yet emitted
    last_emit: float = 0.0  # perf_counter of the last emitted block [s]
    stats: dict[str, Any] = field(default_factory=dict)
    cpu0: float = 0.0  # process_time at the start [s]
    wall0: float = 0.0  # perf_counter at the start [s]
    last_frame_t: float = -1.0  # time of the last recorded output frame [s]
    numpy_t0: float = 0.0  # simulated time where the current numpy phase began [s]
    numpy_cpu0: float = 0.0  # process_time when it began [s]
    numpy_cpu: float = 0.0  # CPU seconds of the finished numpy phases [s]
    retired: tuple[int, int] = (0, 0)  # (right-hand sides, SVDs) of the formulations replaced by a path switch


@dataclass(slots=True)
class Settled:
    """An integrator state unpacked at t and corrected (unless the correction is off)."""
    q: FloatArray
    v: FloatArray
    changed: bool  # the correction changed q or q': the integrator must restart from them
    frame: Frame | None  # the output frame, when one was asked for


class Driver(EventDriving):
    """One run of ``system`` with ``settings`` (module docstring). :meth:`blocks` yields the frame blocks; then
    :attr:`status`, :attr:`message` and :attr:`stats` say how it ended. A model with contacts that can let go
    (unilateral contacts, friction: ``mechstudio.core.contact``) runs event by event on the numpy path
    (``mechstudio.core.run.events``)."""

    def __init__(self, system: ConstrainedSystem, settings: SimulationSettings, hooks: RunHooks | None = None, *,
                 q0: FloatArray | None = None, v0: FloatArray | None = None, block_frames: int = 50,
                 block_seconds: float = 0.05, segments: bool = True):
        self.system = system
        self.settings = settings
        self.hooks = hooks or RunHooks()
        self.q0, self.v0 = q0, v0
        self.block_frames, self.block_seconds = block_frames, block_seconds
        self.status = Status.FAILED
        self.message = ""
        self.stats: dict[str, Any] = {}
        self.constraint_names = [c.name for c in system.constraints]
        self.form: Formulation | None = None
        self.integ: Integrator | None = None
        self.times = np.zeros(0)  # the output times t_k = k dt [s]
        self.t_final = 0.0  # the last output time [s]
        self.eps = 1e-9 * settings.dt  # two times closer than this are the same output time [s]
        self.correction = bool(settings.correction)  # drift correction after each step and at each output
        self.state = RunState()
        self.kernels = KernelChoice(system, settings)  # numpy or compiled path, and when to switch
        self.segments = segments  # continuous mode: compiled segments of steps when the stepper offers them

    # --- the run -----------------------------------------------------------------------------------------------
    def blocks(self) -> Iterator[FrameBlock]:
        """Run; yield the recorded frames in blocks. Never raises for numerical trouble (module docstring). The
        driver computes under the kernel policy of its path; the caller's code between blocks does not."""
        inner = self._blocks()
        try:
            while True:
                token = set_policy(self.kernels.policy)
                try:
                    with np.errstate(**FLOATING_POINT):
                        block = next(inner)
                except StopIteration:
                    return
                finally:
                    reset_policy(token)
                yield block
        finally:
            inner.close()

    def _blocks(self) -> Iterator[FrameBlock]:
        st = self.state
        try:
            self.settings.validate()
        except (ValueError, KeyError) as exc:
            self.message = str(exc.args[0] if isinstance(exc, KeyError) else exc)
            return
        st.cpu0, st.wall0 = time.process_time(), time.perf_counter()
        with single_threaded_blas():
            try:
                if self._start():
                    if self._keep(self._initial_frame()):
                        yield self._flush()
                    self._check_cancel()
                    if self.contact is not None:
                        yield from self._run_events()
                    elif self.integ.continuous:
                        yield from self._run_continuous()
                    else:
                        yield from self._run_intervals()
                    raise RunEnded(Status.FINISHED, f"finished at t = {st.t:.6g} s")
            except RunEnded as end:
                yield from self._end(end.status, end.message)
            except (SolverFailure, ModeFailure) as exc:
                yield from self._end(Status.FAILED, str(exc))
            except NUMERICAL_ERRORS as exc:
                yield from self._end(Status.FAILED, self._numerical_failure(exc))

    def _start(self) -> bool:
        """Initial state, formulation and integrator; False (status and message set) when the run cannot start."""
        st, settings, system = self.state, self.settings, self.system
        st.phase = "assembling the initial state"
        if self.q0 is None:
            init = initial_state(system, st.t)
            if not init.status.ok:
                self.message = init.message
                return False
            st.q, st.v = init.q, init.v
        else:
            st.q = np.asarray(self.q0, float)
            st.v = np.zeros(system.n) if self.v0 is None else np.asarray(self.v0, float)
        try:
            contacts = contact_set(system)
        except ContactModelError as exc:
            self.message = f"the contacts cannot be set up: {exc}"
            return False
        if contacts is not None:  # event-driven, on the numpy path (mechstudio.core.run.events)
            self.kernels.mode, self.kernels.compiled, self.kernels.gave_up = "numpy", False, True
            refusal = get_formulation(settings.formulation).no_contact_modes
            if refusal:
                self.message = (f"the {settings.formulation} formulation cannot run a model with contacts that can "
                                f"let go: {refusal}; use 'projection' or 'appell'")
                return False
        st.phase = f"setting up the {settings.formulation} formulation"  # once per run
        try:
            self.form = self._formulation(self.kernels.initial_compiled())
        except (SolverFailure, ValueError, NotImplementedError) as exc:
            self.message = f"the {settings.formulation} formulation cannot run this model: {exc}"
            return False
        self.integ = get_integrator(settings.integrator)(rtol=settings.rtol, atol=settings.atol,
                                                         step=settings.step, max_step=settings.max_step)
        self.times = np.linspace(0.0, settings.output_count * settings.dt, settings.output_count + 1)
        st.stats = {"rhs_evaluations": 0, "svd_count": 0, "steps": 0, "corrections": 0, "basis_restarts": 0,
                    "lambda_unique": True, "mode": "continuous" if self.integ.continuous else "intervals"}
        st.cpu0, st.wall0 = time.process_time(), time.perf_counter()
        st.numpy_t0, st.numpy_cpu0 = st.t, st.cpu0
        st.last_emit = time.perf_counter()
        if contacts is not None:
            st.stats["mode"] = "events"
            self.t_final = float(self.times[-1])
            self.contact = ContactRun(contacts)
            st.phase = "choosing the initial contact mode"
            mode = select_mode(contacts, contacts.initial_mode(), st.q, st.v, st.t)
            self._enter_mode(mode, st.q, st.v, st.t, st.work)
        return True

    def _formulation(self, compiled: bool) -> Formulation:
        """A new formulation of the run on the numpy (False) or compiled (True) path."""
        return get_formulation(self.settings.formulation)(self.system, **self.kernels.formulation_options(compiled))

    def _initial_frame(self) -> Frame:
        st = self.state
        st.phase = "recording the initial state"
        st.y = self.form.restart(st.q, st.v, st.t)
        self.kernels.learn_key(self.form)
        pa, va = self._violations(st.q, st.v, st.t)
        return self._make_frame(st.q, st.v, st.t, st.work, pa, pa, va, va)

    # --- continuous stepping (explicit Runge-Kutta): see the module docstring ---------------------------------
    def _run_continuous(self) -> Iterator[FrameBlock]:
        st = self.state
        self.t_final = float(self.times[-1])
        st.accepted = (st.q, st.v, st.t, st.work)
        if self.kernels.due_at_start():
            self._switch_to_compiled()
        if st.stepper is None:
            st.stepper = self._new_stepper(st.t, st.y, st.work)
        n_out = self.settings.output_count
        times, eps = self.times, self.eps
        while st.k <= n_out:
            self._check_stop()
            if self.segments and (yield from self._run_segment()):
                continue
            try:
                if not self._take_step():
                    continue  # restarted after RestartRequired: the step again
                if times[st.k] < st.stepper.t - eps:
                    yield from self._outputs_inside_step()
                frame = self._settle_step_end()
            except KernelNotCached:
                self._back_to_numpy()
                continue
            if frame is not None:
                if self._keep(frame):
                    yield self._flush()
                self._check_cancel()
            if st.k <= n_out and self._switch_due():
                self._switch_to_compiled()

    def _run_segment(self) -> Iterator[FrameBlock]:
        """Steps, their outputs and step-end corrections in compiled calls when the stepper offers them
        (``Stepper.segment``; module docstring): the same steps and frames as :meth:`_take_step`,
        :meth:`_outputs_inside_step` and :meth:`_settle_step_end`. Returns True when it advanced and the next step
        may be a segment again; False when the next step is the driver's own (no segment offered, or the stepper
        left that step to the driver: a failure to report, a restart)."""
        st = self.state
        hooks = self.hooks
        per_frame = hooks.cancel is not None or hooks.flush_now is not None
        request = SegmentRequest(self.times, st.k, self.eps, self.correction, st.steps_since_output,
                                 MAX_STEPS_PER_OUTPUT, 1 if hooks.stop_requested is not None else SEGMENT_STEPS,
                                 1 if per_frame else SEGMENT_FRAMES)
        st.phase = "in an integrator step"
        try:
            seg = st.stepper.segment(request)
        except KernelNotCached:  # the driver's own steps for the rest of the run (they use cached kernels)
            self.segments = False
            return False
        if seg is None or not seg.steps:
            return False
        n = self.system.n
        st.t, st.work = float(st.stepper.t), float(st.stepper.y[-1])
        st.q, st.v = seg.end_frame[:n].copy(), seg.end_frame[n:2 * n].copy()
        st.accepted = (st.q, st.v, st.t, st.work)
        st.k, st.steps_since_output = seg.k, seg.since_output
        st.stats["corrections"] += seg.corrections
        if seg.refresh:
            self._continue_from(st.t, True)
        t_end = st.t
        for row in seg.frames:
            frame = self._fast_frame(unpack_frame(row[2:], n, len(self.constraint_names)), float(row[0]),
                                     float(row[1]))
            if self._keep(frame):
                yield self._flush()
            st.t = frame.t  # a cancel here is reported at this frame's time
            self._check_cancel()
        st.t = t_end
        return not seg.declined

    def _new_stepper(self, t: float, y: FloatArray, work: float) -> Stepper:
        if self.contact is not None:
            return self._contact_stepper(t, y, work)
        return self.integ.start(self.form.rhs_augmented, t, np.append(y, work), self.t_final,
                                compiled=self.form.compiled_rhs())

    def _take_step(self) -> bool:
        """One accepted step (True), or a restart after :class:`RestartRequired` (False); ends the run when the
        integrator gives up or crawls (MAX_STEPS_PER_OUTPUT)."""
        st = self.state
        st.phase = "in an integrator step"
        try:
            ok, msg = st.stepper.step()
        except RestartRequired:
            q_acc, v_acc, t_acc, w_acc = st.accepted
            if st.retried_at == t_acc:
                raise
            st.retried_at = t_acc  # a fresh basis at the last accepted state, then the step again
            self.form.refresh_basis(q_acc, t_acc)
            self.integ.reset()
            st.stats["basis_restarts"] += 1
            st.stepper = self._new_stepper(t_acc, self.form.pack(q_acc, v_acc, t_acc), w_acc)
            return False
        if not ok:
            raise RunEnded(Status.FAILED, msg)
        t_new = st.stepper.t
        self._check_finite(st.stepper.y, t_new)
        st.steps_since_output += 1
        if st.steps_since_output > MAX_STEPS_PER_OUTPUT and self.times[st.k] > t_new + self.eps:
            st.t = t_new
            raise RunEnded(Status.FAILED, f"{self.integ.name} gave up at t = {t_new:.6g} s: more than "
                                          f"{MAX_STEPS_PER_OUTPUT} steps since the last output (step size "
                                          f"{st.stepper.h:.3g} s; a singularity, or a stiff model: try radau)")
        return True

    def _outputs_inside_step(self, t_bound: float | None = None) -> Iterator[FrameBlock]:
        """The output times strictly inside the last step (before ``t_bound`` when given: a contact event): dense
        output, then the correction of the recorded copy (the integrator's state is not touched)."""
        st, times, n_out = self.state, self.times, self.settings.output_count
        t_new = st.stepper.t if t_bound is None else t_bound
        inside = []
        while st.k <= n_out and times[st.k] < t_new - self.eps:
            inside.append(st.k)
            st.k += 1
        if not inside:
            return
        st.steps_since_output = 0
        st.phase = "recording an output inside a step"
        Y = np.ascontiguousarray(st.stepper.dense()(times[inside]).T)  # (outputs, len(y) + 1)
        batch = self.form.fast_outputs(Y[:, :-1], times[inside], self.correction)  # all at once, when offered
        for j, kk in enumerate(inside):
            tk = float(times[kk])
            st.t = tk
            self.form.growth_wanted = False  # no basis refresh is asked at these states (Formulation.growth_wanted)
            try:
                settled = self._settle(Y[j, :-1], tk, float(Y[j, -1]), True, None if batch is None else batch[j])
            finally:
                self.form.growth_wanted = True
            if self._keep(settled.frame):
                yield self._flush()
            self._check_cancel()

    def _settle_step_end(self) -> Frame | None:
        """The step end: correction after each step ([001]), restart only when something changed; the output frame
        when the step ended on an output time."""
        st = self.state
        t_new, y_new = st.stepper.t, st.stepper.y
        st.t = t_new
        st.work = float(y_new[-1])
        at_output = st.k <= self.settings.output_count and abs(self.times[st.k] - t_new) <= self.eps
        st.phase = "correcting the step end"
        settled = self._settle(y_new[:-1], t_new, st.work, at_output)
        st.q, st.v = settled.q, settled.v
        self._continue_from(t_new, settled.changed)
        st.accepted = (st.q, st.v, t_new, st.work)
        if not at_output:
            return None
        st.steps_since_output = 0
        frame = settled.frame._replace(t=float(self.times[st.k]))
        st.k += 1
        return frame

    def _continue_from(self, t: float, changed: bool) -> None:
        """Continue the stepper from the corrected step end (q, q') at t when the correction changed it or the
        formulation asks for a restart (a refreshed basis: a new stepper after a new SVD)."""
        st, form = self.state, self.form
        if changed or form.needs_restart(st.q, st.v, t):
            svd_before = form.svd_count
            y = form.restart(st.q, st.v, t)
            if form.svd_count != svd_before:
                self.integ.reset()
                if t < self.t_final - self.eps:  # nothing left to integrate at t_end: no new stepper
                    st.stepper = self._new_stepper(t, y, st.work)
            else:
                st.stepper.set_state(np.append(y, st.work))

    # --- interval by interval (fixed-step and implicit integrators) -------------------------------------------
    def _run_intervals(self) -> Iterator[FrameBlock]:
        st = self.state
        if self.kernels.due_at_start():
            self._switch_to_compiled()
        for k in range(1, self.settings.output_count + 1):
            self._check_stop()
            st.accepted = (st.q, st.v, st.t, st.work)
            try:
                frame = self._interval(float(self.times[k]))
            except KernelNotCached:
                self._back_to_numpy()
                frame = self._interval(float(self.times[k]))
            if self._keep(frame):
                yield self._flush()
            self._check_cancel()
            if k < self.settings.output_count and self._switch_due():
                self._switch_to_compiled()

    # --- the kernel path: numpy or compiled (module docstring; mechstudio.core.run.kernels) ------------------------
    def _switch_due(self) -> bool:
        """Ask the kernel choice at a step end (nothing to ask once it has switched or given up: no clock read)."""
        if not self.kernels.watching:
            return False
        st = self.state
        return self.kernels.due(st.t, st.numpy_t0, time.process_time() - st.numpy_cpu0)

    def _switch_to_compiled(self) -> None:
        """Continue from the last accepted (corrected) state on the compiled path; on the numpy path still when a
        kernel is not in the cache."""
        st, old = self.state, self.form
        c0 = time.process_time()
        set_policy("cached")  # reset with the policy of the whole resumption (blocks())
        try:
            self.form = form = self._formulation(True)
            y = form.restart(st.q, st.v, st.t)
            self.integ.reset()
            stepper = None
            if self.integ.continuous and st.t < float(self.times[-1]) - self.eps:
                stepper = self._new_stepper(st.t, y, st.work)  # its first derivative: the compiled path's
        except KernelNotCached:
            self.form = old
            set_policy("numpy")
            self.kernels.missing()
            return
        self._retire(old, form)
        st.y, st.stepper = y, stepper
        st.numpy_cpu += c0 - st.numpy_cpu0
        self.kernels.switched(st.t, time.process_time() - c0)

    def _back_to_numpy(self) -> None:
        """A kernel was missing from the cache (``jit.KernelNotCached``): continue on the numpy path from the last
        accepted state; the outputs after the last recorded frame are computed again."""
        st = self.state
        set_policy("numpy")
        self.kernels.missing()
        q, v, t, work = st.accepted
        form = self._formulation(False)
        self._retire(self.form, form)
        st.q, st.v, st.t, st.work = q, v, t, work
        st.y = form.restart(q, v, t)
        st.k = int(np.searchsorted(self.times, st.last_frame_t + self.eps, side="right"))
        st.numpy_t0, st.numpy_cpu0 = t, time.process_time()
        self._restart_integrator()

    def _retire(self, old: Formulation, new: Formulation) -> None:
        rhs, svd = self.state.retired
        self.state.retired = (rhs + old.rhs_evaluations, svd + old.svd_count)
        self.form = new

    def _restart_integrator(self) -> None:
        st = self.state
        self.integ.reset()
        st.stepper = None
        if self.integ.continuous and st.t < float(self.times[-1]) - self.eps:
            st.stepper = self._new_stepper(st.t, st.y, st.work)

    def _interval(self, t1: float) -> Frame:
        """Integrate from the current state to the output time t1, correct, restart; the output frame at t1."""
        st, form, integ = self.state, self.form, self.integ
        st.phase = "integrating to the next output"
        svd_before = form.svd_count
        try:
            res = integ.advance(form.rhs_augmented, st.t, np.append(st.y, st.work), t1)
        except RestartRequired:
            form.refresh_basis(st.q, st.t)
            integ.reset()
            st.stats["basis_restarts"] += 1
            st.y = form.pack(st.q, st.v, st.t)
            res = integ.advance(form.rhs_augmented, st.t, np.append(st.y, st.work), t1)
        if not res.ok:
            raise RunEnded(Status.FAILED, res.message)
        self._check_finite(res.y, t1)
        y, st.work = res.y[:-1], float(res.y[-1])
        st.t = t1
        st.phase = "correcting the interval end"
        settled = self._settle(y, t1, st.work, True)
        st.q, st.v = settled.q, settled.v
        st.y = form.restart(st.q, st.v, t1)
        if form.svd_count != svd_before:
            integ.reset()
        return settled.frame

    # --- one state: correction and output frame ---------------------------------------------------------------
    def _settle(self, y: FloatArray, t: float, work: float, frame_wanted: bool,
                fast: FastOutput | None = None) -> Settled:
        """Unpack integrator state y at t and correct it (unless switched off); with ``frame_wanted`` also its
        output frame. A correction that does not converge ends the run. ``fast``: the formulation's fused output
        of this state when already computed (``Formulation.fast_outputs``)."""
        correction, stats = self.correction, self.state.stats
        if fast is None:
            fast = self.form.fast_output(y, t, correction)
        if fast is not None:  # the fused compiled path (the same algorithm: core.dynamics.projection_spatial)
            q, v, sc = fast[0], fast[1], fast[4]
            if correction:
                stats["corrections"] += 1
                if not sc[_CONVERGED]:
                    raise RunEnded(Status.FAILED, self._newton_failed(float(sc[_POSITION_AFTER]),
                                                                      int(sc[_ITERATIONS]), t))
            changed = bool(sc[_CHANGED])
            return Settled(q, v, changed, self._fast_frame(fast, t, work) if frame_wanted else None)
        q, v = self.form.unpack(y, t)
        if correction:
            cr = correct(self.system, q, v, t)
            stats["corrections"] += 1
            if not cr.converged:
                raise RunEnded(Status.FAILED, self._newton_failed(cr.position_after, cr.iterations, t))
            q, v, changed = cr.q, cr.v, cr.changed
            viol = (cr.position_before, cr.position_after, cr.velocity_before, cr.velocity_after)
        else:
            changed = False
            pb, vb = self._violations(q, v, t) if frame_wanted else (0.0, 0.0)
            viol = (pb, pb, vb, vb)
        return Settled(q, v, changed, self._make_frame(q, v, t, work, *viol) if frame_wanted else None)

    def _fast_frame(self, fast: FastOutput, t: float, work: float) -> Frame:
        """The output frame of a fused output (q, q', q'', reactions, scalars) at t, with the work W [J]."""
        q, v, qdd, R, sc = fast
        # the scalars as Python floats in one call, named in OutputScalar's order (this runs once per output)
        (kinetic, potential, position_before, position_after, velocity_before, velocity_after, _, _, _,
         lambda_unique) = sc[:N_OUTPUT_FLAGS].tolist()
        if not lambda_unique:
            self.state.stats["lambda_unique"] = False
        return Frame(t, q, v, qdd, R, kinetic, potential, work, position_before, position_after, velocity_before,
                     velocity_after)

    def _make_frame(self, q: FloatArray, v: FloatArray, t: float, work: float, pb: float, pa: float, vb: float,
                    va: float) -> Frame:
        """The output frame of a (corrected) state: q'', lambda and the reactions, the energies."""
        system, stats = self.system, self.state.stats
        acc = self.form.reactions(q, v, t)
        stats["lambda_unique"] = stats["lambda_unique"] and acc.lam_unique
        reac = system.reactions(q, acc.lam, t) if acc.lam is not None and acc.lam.size else {}
        R = np.zeros((len(self.constraint_names), 6))
        if reac:
            for i, name in enumerate(self.constraint_names):
                r = reac.get(name)
                if r is not None:
                    R[i] = r
        return Frame(t, q.copy(), v.copy(), acc.qdd.copy(), R, system.kinetic_energy(q, v, t),
                     system.potential_energy(q, t), work, pb, pa, vb, va)

    def _violations(self, q: FloatArray, v: FloatArray, t: float) -> tuple[float, float]:
        """(||Phi||, ||C q' + xi||) at (q, q', t)."""
        system = self.system
        phi = system.phi(q, t)
        C = system.constraint_matrix(q, t)
        vel = C @ v + system.xi(q, t) if C.shape[0] else np.zeros(0)
        return (float(np.linalg.norm(phi)) if phi.size else 0.0, float(np.linalg.norm(vel)) if vel.size else 0.0)

    def _numerical_failure(self, exc: Exception) -> str:
        """The message of a numerical exception: what the driver was doing, with which methods, and when."""
        st, where = self.state, self.state.phase
        if self.integ is not None and where in ("in an integrator step", "integrating to the next output"):
            where += f" ({self.integ.name}, {self.settings.formulation} formulation)"
        return f"numerical failure {where} near t = {st.t:.6g} s: {type(exc).__name__}: {exc}"

    @staticmethod
    def _newton_failed(position_after: float, iterations: int, t: float) -> str:
        return (f"the constraint correction (Newton-Raphson) did not converge at t = {t:.6g} s: "
                f"||Phi|| = {position_after:.3g} after {iterations} iterations")

    def _check_finite(self, y: FloatArray, t: float) -> None:
        """End the run when the integrated state [y; W] is no longer finite."""
        if not np.isfinite(y).all():
            self.state.t = t
            raise RunEnded(Status.FAILED, f"the state became non-finite (NaN or infinity) at t = {t:.6g} s "
                                          f"in {self.integ.name} integration")

    # --- frames, blocks, hooks ----------------------------------------------------------------------------------
    # Recording a frame is two plain calls at each call site, ``if self._keep(frame): yield self._flush()`` then
    # ``self._check_cancel()`` (not a generator per output frame): the consumer gets a due block before ``cancel``
    # is asked, so that a caller stepping frame by frame stops right after the frame it asked for.
    def _keep(self, frame: Frame) -> bool:
        """Keep a recorded frame; True when a block is due (frame count, wall time since the last block, or the
        caller's ``flush_now``)."""
        st, hooks = self.state, self.hooks
        if self.contact is not None:
            self._contact_columns(frame)
        st.pending.append(frame)
        st.last_frame_t = frame.t
        if (len(st.pending) >= self.block_frames or time.perf_counter() - st.last_emit > self.block_seconds
                or (hooks.flush_now is not None and hooks.flush_now())):
            st.last_emit = time.perf_counter()
            return True
        return False

    def _check_cancel(self) -> None:
        if self.hooks.cancel is not None and self.hooks.cancel():
            raise RunEnded(Status.CANCELLED, f"cancelled at t = {self.state.t:.6g} s")

    def _check_stop(self) -> None:
        if self.hooks.stop_requested is not None and self.hooks.stop_requested():
            raise RunEnded(Status.CANCELLED, f"cancelled at t = {self.state.t:.6g} s")

    def _flush(self) -> FrameBlock:
        block = FrameBlock.of_frames(self.state.pending)
        self.state.pending.clear()
        return block

    def _end(self, status: Status, message: str) -> Iterator[FrameBlock]:
        """End the run: emit the pending frames, then store the status, message and statistics."""
        st = self.state
        if st.pending:
            yield self._flush()
        self._contact_stats()
        form, integ, kernels = self.form, self.integ, self.kernels
        now = time.process_time()
        if form is not None and not kernels.compiled:
            st.numpy_cpu += now - st.numpy_cpu0
        kernels.finished(st.numpy_cpu, form, status == Status.FINISHED)
        st.stats.update(rhs_evaluations=(form.rhs_evaluations if form else 0) + st.retired[0],
                        svd_count=(form.svd_count if form else 0) + st.retired[1], steps=integ.steps if integ else 0,
                        cpu_seconds=now - st.cpu0, wall_seconds=time.perf_counter() - st.wall0,
                        simulated_seconds=float(st.t), kernels=kernels.describe(),
                        kernel_switch_cpu_seconds=kernels.switch_cpu)
        self.status, self.message, self.stats = status, message, st.stats


def iter_simulation(system: ConstrainedSystem, settings: SimulationSettings, *,
                    cancel: Callable[[], bool] | None = None, flush_now: Callable[[], bool] | None = None,
                    stop_requested: Callable[[], bool] | None = None,
                    q0: FloatArray | None = None, v0: FloatArray | None = None, block_frames: int = 50,
                    block_seconds: float = 0.05, outcome: dict[str, Any] | None = None) -> Iterator[FrameBlock]:
    """Yield FrameBlocks of the run; the final status/message/stats are stored in ``outcome``.

    After every recorded output frame (the initial one included) the driver passes a *checkpoint*: the pending
    frames are emitted as a block when one is due (``block_frames`` frames or ``block_seconds`` of wall time) or
    when ``flush_now()`` says so (a paused GUI stepping one frame at a time), and then ``cancel()`` is called;
    True ends the run as CANCELLED. ``cancel`` may block (a paused run waits there, between two frames).
    ``stop_requested()`` (non-blocking, no side effects) is also asked before every integrator step, so that a
    run crawling between two outputs (a collapsing step size) still stops at once.
    """
    driver = Driver(system, settings, RunHooks(cancel, flush_now, stop_requested), q0=q0, v0=v0,
                    block_frames=block_frames, block_seconds=block_seconds)
    yield from driver_blocks(driver, outcome)


def driver_blocks(driver: "Driver", outcome: dict[str, Any] | None = None) -> Iterator[FrameBlock]:
    """The FrameBlocks of ``driver``'s run; its final status/message/stats are stored in ``outcome`` (also when
    the caller stops iterating early). A caller that reads the driver between blocks (the live view's contact
    columns) iterates this instead of :func:`iter_simulation`."""
    outcome = {} if outcome is None else outcome
    outcome.update(status=Status.FAILED, message="", stats={})
    try:
        yield from driver.blocks()
    finally:
        outcome.update(status=driver.status, message=driver.message, stats=driver.stats)


def compile_runs(system: ConstrainedSystem, settings: SimulationSettings) -> Driver:
    """Run ``system`` with ``settings`` twice, with compiled segments of steps and without (the driver's own
    steps, which a run takes after a segment leaves it a step), so that a caller allowed to compile (the
    background compiler, ``mechstudio warm``) caches the kernels of both; the first run's driver, its status
    set."""
    drivers = (Driver(system, settings), Driver(system, settings, segments=False))
    for driver in drivers:
        for _ in driver.blocks():
            pass
    return drivers[0]


def run(system: ConstrainedSystem, settings: SimulationSettings, **kwargs: Any) -> Trajectory:
    """Run to the end (or failure) and return the whole :class:`~core.run.frames.Trajectory`."""
    outcome: dict[str, Any] = {}
    blocks = list(iter_simulation(system, settings, outcome=outcome, **kwargs))
    frames = concat_blocks(blocks, system.n, len(system.constraints))
    return Trajectory(system, settings, frames, outcome["status"], outcome["message"], outcome["stats"])


__all__ = ["MAX_STEPS_PER_OUTPUT", "NUMERICAL_ERRORS", "Driver", "RunEnded", "RunHooks", "RunState",
           "compile_runs", "driver_blocks", "iter_simulation", "run"]
