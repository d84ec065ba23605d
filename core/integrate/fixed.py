"""Fixed-step integrators: classical RK4 and the 4th-order Adams-Bashforth-Moulton predictor-corrector (PECE)
that [001] suggests. The step is ``step`` (default: the output interval / 10); output times are hit
exactly (the last step of an interval is shortened if needed).

ABM4:  predictor  y* = y_n + h/24 (55 f_n - 59 f_n-1 + 37 f_n-2 - 9 f_n-3)
       corrector  y_n+1 = y_n + h/24 (9 f(t_n+1, y*) + 19 f_n - 5 f_n-1 + f_n-2)
started (and restarted after ``reset`` or a step-size change) with RK4 steps.
"""
from __future__ import annotations

import numpy as np

from mechstudio.core.integrate.base import RHS, Integrator, StepResult, register_integrator
from mechstudio.core.types import FloatArray


def _rk4(fun: RHS, t: float, y: FloatArray, h: float, f0: FloatArray | None = None) -> FloatArray:
    k1 = fun(t, y) if f0 is None else f0
    k2 = fun(t + h / 2, y + h / 2 * k1)
    k3 = fun(t + h / 2, y + h / 2 * k2)
    k4 = fun(t + h, y + h * k3)
    return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def _substeps(t0: float, t1: float, step: float | None) -> tuple[int, float]:
    span = t1 - t0
    h = step if step else span / 10
    n = max(1, int(np.ceil(span / h - 1e-9)))
    return n, span / n


@register_integrator("rk4")
class RK4(Integrator):
    adaptive = False

    def advance(self, fun: RHS, t0: float, y0: FloatArray, t1: float) -> StepResult:
        n, h = _substeps(t0, t1, self.step)
        y = y0
        for i in range(n):
            y = _rk4(fun, t0 + i * h, y, h)
            if not np.all(np.isfinite(y)):
                return StepResult(y0, False, f"rk4: the state became non-finite at t = {t0 + (i + 1) * h:.6g} s", i)
        self.steps += n
        return StepResult(y, True, "", n)


@register_integrator("abm")
class ABM4(Integrator):
    adaptive = False

    def __init__(self, *args: object, **kwargs: object):
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._hist: list[FloatArray] = []  # f_n, f_n-1, f_n-2, f_n-3 (newest first)
        self._h = 0.0

    def reset(self) -> None:
        self._hist = []

    def advance(self, fun: RHS, t0: float, y0: FloatArray, t1: float) -> StepResult:
        n, h = _substeps(t0, t1, self.step)
        if abs(h - self._h) > 1e-12 * h:
            self._hist, self._h = [], h
        y, t = y0, t0
        f = fun(t, y)
        if self._hist:
            self._hist[0] = f  # the state may have been corrected at the restart
        else:
            self._hist = [f]
        for i in range(n):
            if len(self._hist) < 4:
                y = _rk4(fun, t, y, h, self._hist[0])
            else:
                f0, f1, f2, f3 = self._hist
                yp = y + h / 24 * (55 * f0 - 59 * f1 + 37 * f2 - 9 * f3)
                y = y + h / 24 * (9 * fun(t + h, yp) + 19 * f0 - 5 * f1 + f2)
            t = t0 + (i + 1) * h
            if not np.all(np.isfinite(y)):
                return StepResult(y0, False, f"abm: the state became non-finite at t = {t:.6g} s", i)
            self._hist = [fun(t, y)] + self._hist[:3]
        self.steps += n
        return StepResult(y, True, "", n)
