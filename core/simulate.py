"""Running a simulation: settings, the interval-by-interval driver, frames and the trajectory.

Procedure of :func:`iter_simulation` (headless, thread-agnostic; the GUI runs it on a worker thread):

1. assemble the file's rough positions (Newton-Raphson, held coordinates kept) and solve the velocities from
   the prescribed coordinate rates (C q' = -xi exactly);
2. integrate the formulation's state y together with the work W of the non-conservative and constraint forces
   (W' = P_nc + q'^T C^T lambda);
3. correct the drift (``core.dynamics.correction``) unless switched off, and record at every output time
   t_k = k dt: q, q', q'', lambda, the reactions of every joint/driver/contact, the energies and ||Phi||,
   ||C q' + xi|| before and after the correction;
4. emit the frames in blocks (every ``block_frames`` frames or ``block_seconds`` of wall time).

Two integration modes (source 001 allows the correction "after each step, or each output interval, restarting
the integrator"):

* continuous (DOP853, RK45: ``Integrator.continuous``): one stepper for the whole run. After every accepted step
  the step end is corrected (Newton on Phi with the mass-weighted step, then the velocity projection) and, only
  if that changed the state or the formulation asks for it (``needs_restart``: the projection's kept basis grew
  too much, an angle set came near its singularity), the formulation re-packs the state and the stepper continues
  from it (derivative re-evaluated; a new stepper after a fresh SVD). Output times inside a step are taken from
  the step's dense output and the recorded state is the corrected copy of the interpolated one, so that
  ||Phi|| < 1e-12 holds at every recorded output as before; with the correction off nothing is touched and the
  drift shows. Compared with restarting at every output (at least one cold 12-stage DOP853 step per 0.01 s
  interval) this needs 5-15x fewer right-hand sides; the accuracy is then the requested rtol (restarting at
  every output made the steps, and the error, artificially small). More than ``MAX_STEPS_PER_OUTPUT`` steps
  without reaching the next output ends the run (a collapsing step size near a singularity would never end).
* intervals (RK4, ABM, Radau, BDF): integrate from one output to the next, correct, restart (``advance``).

Numerical trouble never raises: the run ends with a :class:`~core.types.Status` and a message naming the cause
and the time (assembly failure, singular matrix, integrator giving up, Newton not converging, cancel).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator

import numpy as np

from core.dynamics.base import SolverFailure, get_formulation
from core.dynamics.correction import correct
from core.integrate.base import get_integrator
from core.kinematics.assembly import assemble, solve_velocities
from core.model.document import Model
from core.system import ConstrainedSystem, compile_model
from core.types import FloatArray, Status

REACTION_COMPONENTS = ("Fx", "Fy", "Fz", "Mx", "My", "Mz")
#: continuous stepping gives up (status FAILED, with the time) after this many steps without reaching the next
#: output time: a step size collapsing towards a singularity would otherwise take practically forever
MAX_STEPS_PER_OUTPUT = 2000


@dataclass(frozen=True)
class SimulationSettings:
    """How to run: times in s; tolerances of adaptive integrators; fixed step for rk4/abm."""
    t_end: float = 5.0
    dt: float = 0.01  # output interval [s]
    formulation: str = "projection"
    integrator: str = "dop853"
    rtol: float = 1e-8
    atol: float = 1e-10
    correction: bool = True
    step: float | None = None  # fixed-step integrators: step [s] (default dt/10)
    max_step: float | None = None
    parametrization: str | None = None  # spherical trees (Wittenburg)
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_model(cls, model: Model, **overrides: Any) -> "SimulationSettings":
        sim = dict(model.data.get("simulation", {}))
        known = {f for f in cls.__dataclass_fields__}
        kw = {k: v for k, v in sim.items() if k in known}
        kw.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**kw)

    def validate(self) -> None:
        if not (self.t_end > 0 and self.dt > 0 and math.isfinite(self.t_end) and math.isfinite(self.dt)):
            raise ValueError("t_end and dt must be positive and finite")
        get_formulation(self.formulation)
        get_integrator(self.integrator)


@dataclass
class FrameBlock:
    """Consecutive output frames (arrays copied, never modified after emission)."""
    t: FloatArray  # (k,)
    q: FloatArray  # (k, n)
    v: FloatArray  # (k, n)
    a: FloatArray  # (k, n)
    reactions: FloatArray  # (k, n_constraints, 6) [N, N m]
    kinetic: FloatArray
    potential: FloatArray
    work: FloatArray  # cumulative work of non-conservative and constraint forces [J]
    violation_position_before: FloatArray
    violation_position: FloatArray
    violation_velocity_before: FloatArray
    violation_velocity: FloatArray

    @property
    def total(self) -> FloatArray:
        return self.kinetic + self.potential

    def __len__(self) -> int:
        return len(self.t)


_FRAME_FIELDS = [f for f in FrameBlock.__dataclass_fields__]


@dataclass
class Trajectory:
    """A finished (or stopped) run: all frames plus status, message and statistics."""
    system: ConstrainedSystem
    settings: SimulationSettings
    frames: FrameBlock
    status: Status
    message: str
    stats: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        if name in _FRAME_FIELDS or name == "total":
            return getattr(self.frames, name)
        raise AttributeError(name)

    def columns(self) -> dict[str, FloatArray]:
        """The documented CSV columns (docs/results-csv.md)."""
        f, s = self.frames, self.system
        cols: dict[str, FloatArray] = {"t": f.t}
        for k, name in enumerate(s.coord_names):
            cols[f"q.{name}"] = f.q[:, k]
        for k, name in enumerate(s.coord_names):
            cols[f"v.{name}"] = f.v[:, k]
        planar = s.model.kind == "planar"
        comps = ("Fx", "Fy", "Mz") if planar else REACTION_COMPONENTS
        for c_idx, c in enumerate(s.constraints):
            for comp in comps:
                cols[f"reaction.{c.name}.{comp}"] = f.reactions[:, c_idx, REACTION_COMPONENTS.index(comp)]
        cols["energy.kinetic"] = f.kinetic
        cols["energy.potential"] = f.potential
        cols["energy.total"] = f.kinetic + f.potential
        cols["work.nonconservative"] = f.work
        cols["violation.position"] = f.violation_position
        cols["violation.velocity"] = f.violation_velocity
        cols["violation.position_before"] = f.violation_position_before
        cols["violation.velocity_before"] = f.violation_velocity_before
        return cols

    def to_csv(self, path: str) -> None:
        from core.results import write_csv
        write_csv(path, self.columns())

    def coordinate(self, name: str) -> FloatArray:
        """Time history of coordinate ``body.coord``."""
        return self.frames.q[:, self.system.coord_names.index(name)]


def concat_blocks(blocks: list[FrameBlock], n: int, nc: int) -> FrameBlock:
    if not blocks:
        z = np.zeros(0)
        return FrameBlock(z, np.zeros((0, n)), np.zeros((0, n)), np.zeros((0, n)), np.zeros((0, nc, 6)),
                          z, z, z, z, z, z, z)
    return FrameBlock(**{k: np.concatenate([getattr(b, k) for b in blocks]) for k in _FRAME_FIELDS})


@dataclass
class InitialState:
    q: FloatArray
    v: FloatArray
    status: Status
    message: str


def initial_state(system: ConstrainedSystem, t0: float = 0.0) -> InitialState:
    """Assembled positions and consistent velocities of the file's initial conditions."""
    res = assemble(system, system.initial_guess(), t0, hold=system.held_coordinates())
    if not res.status.ok:
        return InitialState(res.q, np.zeros(system.n), res.status, res.message)
    v, vres = solve_velocities(system, res.q, t0, system.initial_velocity_specs())
    if not np.all(np.isfinite(v)) or vres > 1e-8:
        return InitialState(res.q, v, Status.FAILED, f"no consistent initial velocities (residual {vres:.3g})")
    return InitialState(res.q, v, Status.CONVERGED, "")


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
    outcome = {} if outcome is None else outcome
    outcome.update(status=Status.FAILED, message="", stats={})
    try:
        settings.validate()
    except (ValueError, KeyError) as exc:
        outcome["message"] = str(exc.args[0] if isinstance(exc, KeyError) else exc)
        return
    n, nc = system.n, len(system.constraints)
    t = 0.0
    if q0 is None:
        init = initial_state(system, t)
        if not init.status.ok:
            outcome["message"] = init.message
            return
        q, v = init.q, init.v
    else:
        q, v = np.asarray(q0, float), np.zeros(n) if v0 is None else np.asarray(v0, float)
    opts = dict(settings.options)
    if settings.parametrization:
        opts["parametrization"] = settings.parametrization
    try:
        form = get_formulation(settings.formulation)(system, **opts)
    except (SolverFailure, ValueError, NotImplementedError) as exc:
        outcome["message"] = f"the {settings.formulation} formulation cannot run this model: {exc}"
        return
    integ = get_integrator(settings.integrator)(rtol=settings.rtol, atol=settings.atol, step=settings.step,
                                                max_step=settings.max_step)
    n_out = int(round(settings.t_end / settings.dt))
    times = np.linspace(0.0, n_out * settings.dt, n_out + 1)
    stats = {"rhs_evaluations": 0, "svd_count": 0, "steps": 0, "corrections": 0, "basis_restarts": 0,
             "lambda_unique": True, "mode": "continuous" if integ.continuous else "intervals"}
    clock0 = time.process_time()
    wall0 = time.perf_counter()
    work = 0.0
    buf: list[dict[str, Any]] = []
    last_emit = [time.perf_counter()]
    names = [c.name for c in system.constraints]

    def make_frame(q: FloatArray, v: FloatArray, t: float, work: float, pb: float, pa: float, vb: float,
                   va: float) -> tuple:
        """The output frame of a (corrected) state: q'', lambda and the reactions, the energies."""
        acc = form.reactions(q, v, t)
        stats["lambda_unique"] = stats["lambda_unique"] and acc.lam_unique
        reac = system.reactions(q, acc.lam, t) if acc.lam is not None and acc.lam.size else {}
        R = np.zeros((nc, 6))
        if reac:
            for i, name in enumerate(names):
                r = reac.get(name)
                if r is not None:
                    R[i] = r
        return (t, q.copy(), v.copy(), acc.qdd.copy(), R, system.kinetic_energy(q, v, t),
                system.potential_energy(q, t), work, pb, pa, vb, va)

    def settle(y: FloatArray, t: float, work: float, frame_wanted: bool
               ) -> tuple[str | None, FloatArray, FloatArray, bool, tuple | None]:
        """Unpack integrator state y at t and correct it (unless switched off); with ``frame_wanted`` also its
        output frame. Returns (failure message or None, q, q', changed by the correction, frame or None)."""
        fast = form.fast_output(y, t, settings.correction)
        if fast is not None:  # the fused compiled path (the same algorithm: core.dynamics.projection_spatial)
            q, v, qdd, R, sc = fast
            if settings.correction:
                stats["corrections"] += 1
                if not sc[7]:
                    return (f"the constraint correction (Newton-Raphson) did not converge at t = {t:.6g} s: "
                            f"||Phi|| = {sc[3]:.3g} after {int(sc[6])} iterations"), q, v, False, None
            if not frame_wanted:
                return None, q, v, bool(sc[8]), None
            stats["lambda_unique"] = stats["lambda_unique"] and bool(sc[9])
            return None, q, v, bool(sc[8]), (t, q, v, qdd, R, sc[0], sc[1], work, sc[2], sc[3], sc[4], sc[5])
        q, v = form.unpack(y, t)
        if settings.correction:
            cr = correct(system, q, v, t)
            stats["corrections"] += 1
            if not cr.converged:
                return newton_failed(cr, t), q, v, False, None
            q, v, changed = cr.q, cr.v, cr.changed
            viol = (cr.position_before, cr.position_after, cr.velocity_before, cr.velocity_after)
        else:
            changed = False
            pb, vb = violations(q, v, t) if frame_wanted else (0.0, 0.0)
            viol = (pb, pb, vb, vb)
        return None, q, v, changed, (make_frame(q, v, t, work, *viol) if frame_wanted else None)

    def flush() -> FrameBlock:
        cols = list(zip(*buf))
        block = FrameBlock(**{k: np.array(c) for k, c in zip(_FRAME_FIELDS, cols)})
        buf.clear()
        return block

    def due() -> bool:
        """A block is due (frame count or wall time since the last one)."""
        if len(buf) >= block_frames or time.perf_counter() - last_emit[0] > block_seconds:
            last_emit[0] = time.perf_counter()
            return True
        return False

    cancelled = [False]

    def checkpoint() -> Iterator[FrameBlock]:
        """After a recorded frame: emit the pending block if due (or asked for), then ask ``cancel``."""
        if buf and (due() or (flush_now is not None and flush_now())):
            last_emit[0] = time.perf_counter()
            yield flush()
        if cancel is not None and cancel():
            cancelled[0] = True

    def violations(q: FloatArray, v: FloatArray, t: float) -> tuple[float, float]:
        phi = system.phi(q, t)
        C = system.constraint_matrix(q, t)
        vel = C @ v + system.xi(q, t) if C.shape[0] else np.zeros(0)
        return (float(np.linalg.norm(phi)) if phi.size else 0.0, float(np.linalg.norm(vel)) if vel.size else 0.0)

    def finish(status: Status, message: str) -> None:
        stats.update(rhs_evaluations=form.rhs_evaluations, svd_count=form.svd_count, steps=integ.steps,
                     cpu_seconds=time.process_time() - clock0, wall_seconds=time.perf_counter() - wall0,
                     simulated_seconds=float(t))
        outcome.update(status=status, message=message, stats=stats)

    def end(status: Status, message: str) -> Iterator[FrameBlock]:
        """End the run: emit the pending frames, then store the status, message and statistics."""
        if buf:
            yield flush()
        finish(status, message)

    def end_cancelled() -> Iterator[FrameBlock]:
        yield from end(Status.CANCELLED, f"cancelled at t = {t:.6g} s")

    def newton_failed(cr: Any, t: float) -> str:
        return (f"the constraint correction (Newton-Raphson) did not converge at t = {t:.6g} s: "
                f"||Phi|| = {cr.position_after:.3g} after {cr.iterations} iterations")

    fun = form.rhs_augmented  # y' = f(t, y) of the state and the work [y; W]

    needs_restart = getattr(form, "needs_restart", None)

    try:
        y = form.restart(q, v, t)
        pa, va = violations(q, v, t)
        buf.append(make_frame(q, v, t, work, pa, pa, va, va))
        yield from checkpoint()
        if cancelled[0]:
            yield from end_cancelled()
            return

        if integ.continuous:
            # --- continuous stepping (explicit Runge-Kutta): see the module docstring ------------------------
            t_final = float(times[-1])
            eps = 1e-9 * settings.dt
            stepper = integ.start(fun, t, np.append(y, work), t_final)
            q_acc, v_acc, t_acc, w_acc = q, v, t, work  # the last accepted (corrected) step end
            retried = -1.0
            k = 1
            steps_since_output = 0
            while k <= n_out:
                if stop_requested is not None and stop_requested():
                    yield from end_cancelled()
                    return
                try:
                    ok, msg = stepper.step()
                except SolverFailure as exc:
                    if (type(exc).__name__ == "BasisDegenerate" and hasattr(form, "refresh_basis")
                            and retried != t_acc):
                        retried = t_acc  # a fresh SVD at the last accepted state, then the step again
                        form.refresh_basis(q_acc, t_acc)
                        integ.reset()
                        stats["basis_restarts"] += 1
                        stepper = integ.start(fun, t_acc, np.append(form.pack(q_acc, v_acc, t_acc), w_acc), t_final)
                        continue
                    raise
                if not ok:
                    yield from end(Status.FAILED, msg)
                    return
                t_new = stepper.t
                y_new = stepper.y
                steps_since_output += 1
                if steps_since_output > MAX_STEPS_PER_OUTPUT and times[k] > t_new + eps:
                    t = t_new
                    yield from end(Status.FAILED, f"{integ.name} gave up at t = {t_new:.6g} s: more than "
                                                  f"{MAX_STEPS_PER_OUTPUT} steps since the last output (step size "
                                                  f"{stepper.h:.3g} s; a singularity, or a stiff model: try radau)")
                    return
                # outputs strictly inside the step: dense output, then the correction of the recorded copy
                inside = []
                while k <= n_out and times[k] < t_new - eps:
                    inside.append(k)
                    k += 1
                if inside:
                    steps_since_output = 0
                    Y = np.ascontiguousarray(stepper.dense()(times[inside]).T)  # (outputs, len(y) + 1)
                    for j, kk in enumerate(inside):
                        tk = float(times[kk])
                        failure, _, _, _, frame = settle(Y[j, :-1], tk, float(Y[j, -1]), True)
                        t = tk
                        if failure is not None:
                            yield from end(Status.FAILED, failure)
                            return
                        buf.append(frame)
                        yield from checkpoint()
                        if cancelled[0]:
                            yield from end_cancelled()
                            return
                # the step end: correction after each step (source 001), restart only when something changed
                t = t_new
                work = float(y_new[-1])
                at_output = k <= n_out and abs(times[k] - t_new) <= eps
                failure, q, v, changed, frame = settle(y_new[:-1], t_new, work, at_output)
                if failure is not None:
                    yield from end(Status.FAILED, failure)
                    return
                if changed or (needs_restart is not None and needs_restart(q, v, t_new)):
                    svd_before = form.svd_count
                    y = form.restart(q, v, t_new)
                    if form.svd_count != svd_before:
                        integ.reset()
                        stepper = integ.start(fun, t_new, np.append(y, work), t_final)
                    else:
                        stepper.set_state(np.append(y, work))
                q_acc, v_acc, t_acc, w_acc = q, v, t_new, work
                if at_output:
                    steps_since_output = 0
                    buf.append((float(times[k]),) + frame[1:])
                    k += 1
                    yield from checkpoint()
                    if cancelled[0]:
                        yield from end_cancelled()
                        return
            yield from end(Status.FINISHED, f"finished at t = {t:.6g} s")
            return

        # --- interval by interval (fixed-step and implicit integrators) ---------------------------------------
        for k in range(1, n_out + 1):
            if stop_requested is not None and stop_requested():
                yield from end_cancelled()
                return
            t1 = float(times[k])
            svd_before = form.svd_count
            try:
                res = integ.advance(fun, t, np.append(y, work), t1)
            except SolverFailure as exc:
                if type(exc).__name__ == "BasisDegenerate" and hasattr(form, "refresh_basis"):
                    form.refresh_basis(q, t)
                    integ.reset()
                    stats["basis_restarts"] += 1
                    y = form.pack(q, v, t)
                    res = integ.advance(fun, t, np.append(y, work), t1)
                else:
                    raise
            if not res.ok:
                yield from end(Status.FAILED, res.message)
                return
            y, work = res.y[:-1], float(res.y[-1])
            t = t1
            failure, q, v, _, frame = settle(y, t, work, True)
            if failure is not None:
                yield from end(Status.FAILED, failure)
                return
            y = form.restart(q, v, t)
            if form.svd_count != svd_before:
                integ.reset()
            buf.append(frame)
            yield from checkpoint()
            if cancelled[0]:
                yield from end_cancelled()
                return
        yield from end(Status.FINISHED, f"finished at t = {t:.6g} s")
    except SolverFailure as exc:
        yield from end(Status.FAILED, str(exc))
    except (np.linalg.LinAlgError, FloatingPointError, ValueError, ZeroDivisionError, OverflowError) as exc:
        yield from end(Status.FAILED, f"numerical failure near t = {t:.6g} s: {type(exc).__name__}: {exc}")


def run(system: ConstrainedSystem, settings: SimulationSettings, **kwargs: Any) -> Trajectory:
    """Run to the end (or failure) and return the whole :class:`Trajectory`."""
    outcome: dict[str, Any] = {}
    blocks = list(iter_simulation(system, settings, outcome=outcome, **kwargs))
    frames = concat_blocks(blocks, system.n, len(system.constraints))
    return Trajectory(system, settings, frames, outcome["status"], outcome["message"], outcome["stats"])


def simulate(model: Model | str, **settings: Any) -> Trajectory:
    """Convenience: load (if a path), compile and run with the model's settings overridden by ``settings``.

    >>> traj = simulate("sample_models/pendulum.json", t_end=1.0)
    >>> traj.status, traj.frames.q.shape
    """
    if not isinstance(model, Model):
        from core.model.io import load_model
        model = load_model(model)
    system = compile_model(model)
    return run(system, SimulationSettings.from_model(model, **settings))


__all__ = ["FrameBlock", "SimulationSettings", "Trajectory", "iter_simulation", "run", "simulate", "replace"]
