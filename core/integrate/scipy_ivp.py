"""Adaptive integrators of scipy's ``solve_ivp``: DOP853, RK45 (explicit), Radau, BDF (implicit, for stiff
spring models).

``advance``: each output interval is one ``solve_ivp`` call that starts with the last accepted step size.

``start`` (DOP853 and RK45 only, ``continuous = True``): a :class:`RKStepper` around scipy's own solver class
(``scipy.integrate.DOP853`` / ``RK45``), stepped one accepted step at a time: the very same step-size control,
error estimate and dense output as ``solve_ivp`` (which is a loop over ``solver.step()``). After a step the
driver may replace the state by a corrected one (``set_state``): the solver's y is replaced and its derivative
f(t, y) -- which an explicit Runge-Kutta method with the first-same-as-last property takes as the first stage
of the next step -- is re-evaluated, so the next step starts exactly as a restarted ``solve_ivp`` would, but
with the current step size instead of a cold start (no initial-step selection, no step truncated at an output
time). Radau and BDF keep their Newton/history data between steps and are always driven by ``advance``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from scipy.integrate import DOP853 as _SciDOP853, RK45 as _SciRK45, solve_ivp
from scipy.integrate._ivp.rk import Dop853DenseOutput

from mechstudio.core.integrate import dop853_kernels
from mechstudio.core.integrate.base import (RHS, Integrator, Segment, SegmentRequest, Stepper, StepResult,
                                            register_integrator)
from mechstudio.core.integrate.dop853_kernels import TABLEAU, CompiledRHS, Specialized
from mechstudio.core.types import FloatArray


class RKStepper(Stepper):
    """Continuous stepping with a scipy explicit Runge-Kutta solver (see module docstring)."""

    def __init__(self, cls: type, fun: RHS, t0: float, y0: FloatArray, t_bound: float, rtol: float,
                 atol: float, max_step: float | None, first_step: float | None, name: str):
        opts = {"rtol": rtol, "atol": atol}
        if max_step:
            opts["max_step"] = max_step
        if first_step is not None and first_step > 0:
            opts["first_step"] = min(first_step, t_bound - t0)
        self.name = name
        self.solver = cls(fun, t0, np.asarray(y0, float), t_bound, **opts)
        self.t = self.t_old = float(t0)
        self.y = self.solver.y
        self.h = float(self.solver.h_abs)

    def step(self) -> tuple[bool, str]:
        s = self.solver
        if s.status != "running":
            return False, f"{self.name}: integration already finished at t = {s.t:.6g} s"
        msg = s.step()
        if s.status == "failed":
            return False, f"{self.name} gave up at t = {s.t:.6g} s: {msg}"
        return self._accepted()

    def _accepted(self) -> tuple[bool, str]:
        """Take over the solver's accepted step (t, y, its size); (False, why) when the state is not finite."""
        s = self.solver
        if not np.all(np.isfinite(s.y)):
            return False, f"{self.name}: the state became non-finite before t = {s.t:.6g} s"
        self.t_old, self.t, self.y = float(s.t_old), float(s.t), s.y
        self.h = self.t - self.t_old
        return True, ""

    def dense(self) -> Callable[[FloatArray], FloatArray]:
        return self.solver.dense_output()

    def set_state(self, y: FloatArray) -> None:
        s = self.solver
        s.y = np.asarray(y, float).copy()
        s.f = s.fun(s.t, s.y)
        self.y = s.y


class CompiledDop853DenseOutput(Dop853DenseOutput):
    """scipy's DOP853 dense output of one step evaluated by a compiled loop
    (``dop853_kernels.dop853_dense_values``: the same operations, the same values, without numpy's per-call
    overhead on a few small arrays)."""

    def _call_impl(self, t: FloatArray) -> FloatArray:
        times = np.ascontiguousarray(np.atleast_1d(t), dtype=float)
        values = dop853_kernels.dense_values_kernel()(float(self.t_old), float(self.h),
                                                      np.ascontiguousarray(self.y_old, dtype=float),
                                                      np.ascontiguousarray(self.F), times)
        return values[0] if np.ndim(t) == 0 else values.T


#: rows of a segment's frame buffer beyond its ``max_frames``: the output times inside its last step (a step with
#: more of them than this is left to the driver's own loop)
SEGMENT_SPARE_ROWS = 32


class CompiledDOP853Stepper(RKStepper):
    """:class:`RKStepper` of scipy's DOP853 whose steps and dense outputs run compiled
    (``mechstudio.core.integrate.dop853_kernels``: the same algorithm, scipy's tableau) with the formulation's compiled
    right-hand side. scipy's solver object keeps the state: it is built as usual (first derivative, initial
    step size), the compiled step writes its results back into it, and a step the compiled right-hand side
    declines (status 2) is taken by the solver's own Python ``step`` (the formulation's generic path then
    raises the right failure or re-chooses its basis)."""

    def __init__(self, fun: RHS, t0: float, y0: FloatArray, t_bound: float, rtol: float, atol: float,
                 max_step: float | None, first_step: float | None, name: str, compiled: CompiledRHS,
                 kernels: Specialized):
        super().__init__(_SciDOP853, fun, t0, y0, t_bound, rtol, atol, max_step, first_step, name)
        self.compiled = compiled
        self.k_step, self.k_dense, self.k_segment = kernels.step, kernels.dense, kernels.segment
        self._last_compiled = False  # the last step was the compiled one (its stages are in K_extended)

    def step(self) -> tuple[bool, str]:
        s = self.solver
        if s.status != "running" or s.t == s.t_bound:
            self._last_compiled = False
            return super().step()
        I, F = self.compiled.data()
        A, B, C, E3, E5, _ = TABLEAU
        try:
            status, t_new, y_new, f_new, h_abs, h, nfev = self.k_step(
                float(s.t), np.ascontiguousarray(s.y), np.ascontiguousarray(s.f, dtype=float),
                float(s.h_abs), float(s.t_bound), float(s.rtol), float(s.atol), float(s.max_step), s.K_extended,
                I, F, A, B, C, E3, E5)
        except (np.linalg.LinAlgError, ArithmeticError):  # raised inside the compiled right-hand side
            status, nfev = 2, 0
        self.compiled.counted(int(nfev))
        if status == 2:  # the compiled right-hand side declined: scipy's step on the Python path
            self._last_compiled = False
            return super().step()
        if status == 1:
            s.status = "failed"
            return False, f"{self.name} gave up at t = {s.t:.6g} s: {s.TOO_SMALL_STEP}"
        s.h_previous, s.y_old, s.t_old = h, s.y, s.t
        s.t, s.y, s.h_abs, s.f = t_new, y_new, h_abs, f_new
        if s.t - s.t_bound >= 0:
            s.status = "finished"
        self._last_compiled = True
        return self._accepted()

    def dense(self) -> Callable[[FloatArray], FloatArray]:
        s = self.solver
        if not self._last_compiled:
            return s.dense_output()
        I, F = self.compiled.data()
        A, _, C, _, _, D = TABLEAU
        try:
            status, coef, nfev = self.k_dense(float(s.t_old), float(s.h_previous), s.y_old, s.y,
                                              np.ascontiguousarray(s.f, dtype=float), s.K_extended, I, F, A, C, D)
        except (np.linalg.LinAlgError, ArithmeticError):
            status, nfev = 2, 0
        self.compiled.counted(int(nfev))
        if status != 0:
            return s.dense_output()
        return CompiledDop853DenseOutput(s.t_old, s.t, s.y_old, coef)

    def set_state(self, y: FloatArray) -> None:
        super().set_state(y)
        self._last_compiled = False  # the stages no longer belong to the state

    def segment(self, request: SegmentRequest) -> Segment | None:
        """Steps in one compiled call (``dop853_kernels.dop853_segment``) when the formulation's outputs are
        compiled; the solver object takes over the state at their end, as after :meth:`step`."""
        s, compiled = self.solver, self.compiled
        if self.k_segment is None or s.status != "running" or s.t == s.t_bound:
            return None
        I, F = compiled.data()
        frames = np.empty((request.max_frames + SEGMENT_SPARE_ROWS, 2 + compiled.frame_width))
        end_frame = np.empty(compiled.frame_width)
        flags = np.array(compiled.frame_flags, np.int64)
        try:
            (status, t, y, f, h_abs, t_old, y_old, h_last, k, since, steps, nfev, corrections,
             count) = self.k_segment(
                float(s.t), np.ascontiguousarray(s.y), np.ascontiguousarray(s.f, dtype=float), float(s.h_abs),
                float(s.t_bound), float(s.rtol), float(s.atol), float(s.max_step), s.K_extended, I, F, *TABLEAU,
                request.times, request.k, request.eps, request.correction, request.since_output,
                request.max_since_output, request.max_steps, request.max_frames, frames, end_frame, flags,
                float(compiled.growth_limit))
        except (np.linalg.LinAlgError, ArithmeticError):  # raised inside a compiled kernel: the driver's own step
            return Segment(0, frames[:0], end_frame, request.k, request.since_output, 0, True)
        compiled.counted(int(nfev))
        self._last_compiled = False  # K holds the stages of a step that may have been declined
        if steps:
            s.h_previous, s.y_old, s.t_old = h_last, y_old, t_old
            s.t, s.y, s.h_abs, s.f = t, y, h_abs, f
            if s.t - s.t_bound >= 0:
                s.status = "finished"
            self.t_old, self.t, self.y = float(t_old), float(t), y
            self.h = self.t - self.t_old
        return Segment(int(steps), frames[:count], end_frame, int(k), int(since), int(corrections), status == 3,
                       status == 4)


class _ScipyIntegrator(Integrator):
    method = ""

    def __init__(self, *args: object, **kwargs: object):
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._h: float | None = None

    def advance(self, fun: RHS, t0: float, y0: FloatArray, t1: float) -> StepResult:
        span = t1 - t0
        first = None if self._h is None else min(self._h, span)
        opts = {"rtol": self.rtol, "atol": self.atol}
        if self.max_step:
            opts["max_step"] = self.max_step
        sol = solve_ivp(fun, (t0, t1), y0, method=self.method, first_step=first, **opts)
        steps = max(len(sol.t) - 1, 0)
        self.steps += steps
        if len(sol.t) >= 3:  # remember a step size that is not the truncated last one
            self._h = float(sol.t[-2] - sol.t[-3])
        elif len(sol.t) == 2 and self._h is None:
            self._h = float(span)
        if sol.status != 0:
            return StepResult(y0, False, f"{self.name} gave up at t = {sol.t[-1]:.6g} s: {sol.message}", steps)
        y = sol.y[:, -1]
        if not np.all(np.isfinite(y)):
            return StepResult(y0, False, f"{self.name}: the state became non-finite before t = {t1:.6g} s", steps)
        return StepResult(y, True, "", steps)

    def reset(self) -> None:
        pass  # the step size stays a good first guess

    def start(self, fun: RHS, t0: float, y0: FloatArray, t_bound: float,
              compiled: CompiledRHS | None = None) -> Stepper:
        if not self.continuous:
            return super().start(fun, t0, y0, t_bound)
        kernels = (dop853_kernels.specialized(compiled.kernel, compiled.prepare, compiled.outputs)
                   if compiled is not None and self.solver_class is _SciDOP853 else None)
        if kernels is not None and np.ndim(self.atol) == 0 and np.ndim(self.rtol) == 0:
            st: RKStepper = CompiledDOP853Stepper(fun, t0, y0, t_bound, self.rtol, self.atol, self.max_step,
                                                  self._h, self.name, compiled, kernels)
        else:
            st = RKStepper(self.solver_class, fun, t0, y0, t_bound, self.rtol, self.atol, self.max_step, self._h,
                           self.name)
        return _CountingStepper(st, self)


class _CountingStepper(Stepper):
    """Counts accepted steps into the integrator's ``steps`` and remembers the step size for restarts."""

    def __init__(self, inner: RKStepper, owner: _ScipyIntegrator):
        self.inner, self.owner = inner, owner

    @property
    def t(self) -> float:  # type: ignore[override]
        return self.inner.t

    @property
    def t_old(self) -> float:  # type: ignore[override]
        return self.inner.t_old

    @property
    def y(self) -> FloatArray:  # type: ignore[override]
        return self.inner.y

    @property
    def h(self) -> float:  # type: ignore[override]
        return self.inner.h

    def step(self) -> tuple[bool, str]:
        ok, msg = self.inner.step()
        if ok:
            self._count(1)
        return ok, msg

    def _count(self, steps: int) -> None:
        """Add accepted steps to the integrator's count; remember the last one's size unless it was the step
        truncated at the end."""
        self.owner.steps += steps
        if self.inner.t < self.inner.solver.t_bound:
            self.owner._h = self.inner.h

    def dense(self) -> Callable[[FloatArray], FloatArray]:
        return self.inner.dense()

    def set_state(self, y: FloatArray) -> None:
        self.inner.set_state(y)

    def segment(self, request: SegmentRequest) -> Segment | None:
        got = self.inner.segment(request)
        if got is not None and got.steps:
            self._count(got.steps)
        return got


@register_integrator("dop853")
class DOP853(_ScipyIntegrator):
    method = "DOP853"
    continuous = True
    solver_class = _SciDOP853


@register_integrator("rk45")
class RK45(_ScipyIntegrator):
    method = "RK45"
    continuous = True
    solver_class = _SciRK45


@register_integrator("radau")
class Radau(_ScipyIntegrator):
    method = "Radau"


@register_integrator("bdf")
class BDF(_ScipyIntegrator):
    method = "BDF"
