"""The integrator contract: advance y' = f(t, y) from one output time to the next.

The simulation driver integrates interval by interval (output times t_k = k dt), so that it can correct the
constraint drift and restart at every output; integrators keep what helps across restarts (the last step size,
the history of a multistep method) unless told the state was re-parametrised (``reset``).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Callable

from core.errors import UnknownNameError
from core.types import FloatArray

RHS = Callable[[float, FloatArray], FloatArray]


@dataclass
class StepResult:
    y: FloatArray
    ok: bool
    message: str = ""
    steps: int = 0


class Integrator(ABC):
    name = ""
    adaptive = True

    def __init__(self, rtol: float = 1e-8, atol: float = 1e-10, step: float | None = None,
                 max_step: float | None = None):
        self.rtol, self.atol, self.step, self.max_step = rtol, atol, step, max_step
        self.steps = 0

    @abstractmethod
    def advance(self, fun: RHS, t0: float, y0: FloatArray, t1: float) -> StepResult:
        """Integrate from (t0, y0) to t1."""

    def reset(self) -> None:
        """Forget history (the state vector changed meaning, e.g. a new null-space basis)."""


INTEGRATORS: dict[str, type[Integrator]] = {}


def register_integrator(name: str) -> Callable[[type[Integrator]], type[Integrator]]:
    def deco(cls: type[Integrator]) -> type[Integrator]:
        cls.name = name
        INTEGRATORS[name] = cls
        return cls
    return deco


def get_integrator(name: str) -> type[Integrator]:
    import core.integrate.fixed  # noqa: F401  (registers rk4, abm)
    import core.integrate.scipy_ivp  # noqa: F401  (registers dop853, rk45, radau, bdf)
    if name not in INTEGRATORS:
        raise UnknownNameError("integrator", name, list(INTEGRATORS))
    return INTEGRATORS[name]
