"""Adaptive integrators of scipy's ``solve_ivp``: DOP853, RK45 (explicit), Radau, BDF (implicit, for stiff
spring models). Each output interval is one ``solve_ivp`` call that starts with the last accepted step size."""
from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

from core.integrate.base import RHS, Integrator, StepResult, register_integrator
from core.types import FloatArray


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


@register_integrator("dop853")
class DOP853(_ScipyIntegrator):
    method = "DOP853"


@register_integrator("rk45")
class RK45(_ScipyIntegrator):
    method = "RK45"


@register_integrator("radau")
class Radau(_ScipyIntegrator):
    method = "Radau"


@register_integrator("bdf")
class BDF(_ScipyIntegrator):
    method = "BDF"
