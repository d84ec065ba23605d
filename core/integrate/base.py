"""The integrator contract: advance y' = f(t, y) from one output time to the next.

Two ways of driving an integrator:

* ``advance`` (every integrator): integrate from one output time to the next (t_k = k dt); the driver corrects
  the constraint drift and restarts at every output. Integrators keep what helps across restarts (the last step
  size, the history of a multistep method) unless told the state was re-parametrised (``reset``).
* ``start`` (integrators with ``continuous = True``: the explicit Runge-Kutta methods DOP853 and RK45): one
  :class:`Stepper` over the whole run, stepped one accepted step at a time, with the dense output of each step
  for the output times inside it, and ``set_state`` to continue from a corrected state after a step ([001]:
  the correction "after each step"). This avoids the restart cost at every output time (a restarted
  DOP853 spends at least 13 evaluations on a 0.01 s interval that a continued one crosses in a fraction of a
  step), which was most of the run time of the small models.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable

from mechstudio.core.registry import INTEGRATORS  # noqa: F401 - the registry of this layer (defined low, see there)
from mechstudio.core.types import FloatArray

RHS = Callable[[float, FloatArray], FloatArray]


@dataclass
class StepResult:
    y: FloatArray
    ok: bool
    message: str = ""
    steps: int = 0


class Stepper(ABC):
    """One continuous integration (see module docstring): ``t``, ``y`` of the last accepted step."""

    t: float
    y: FloatArray
    t_old: float
    h: float  # size of the last accepted step

    @abstractmethod
    def step(self) -> tuple[bool, str]:
        """Take one accepted step; (ok, message). ``ok`` False: the integrator gave up (message says why)."""

    @abstractmethod
    def dense(self) -> Callable[[FloatArray], FloatArray]:
        """Dense output of the last step: a callable of t (scalar -> (n,), array (k,) -> (n, k))."""

    @abstractmethod
    def set_state(self, y: FloatArray) -> None:
        """Continue from ``y`` at the current time (after a correction; the derivative is re-evaluated)."""

    def segment(self, request: "SegmentRequest") -> "Segment | None":
        """Many steps with their outputs and step-end corrections in one compiled call, when this stepper and the
        formulation's compiled outputs allow it (``mechstudio.core.integrate.dop853_kernels.dop853_segment``);
        None otherwise (the driver then steps one step at a time)."""
        return None


@dataclass(frozen=True, slots=True)
class SegmentRequest:
    """What the driver asks of :meth:`Stepper.segment`: the output times [s] and the index k of the next one,
    two times closer than ``eps`` [s] being the same; the drift correction on or off; the steps since the last
    output so far and the most allowed; at most ``max_steps`` steps, and a return once ``max_frames`` frames are
    recorded."""
    times: FloatArray
    k: int
    eps: float
    correction: bool
    since_output: int
    max_since_output: int
    max_steps: int
    max_frames: int


@dataclass(frozen=True, slots=True)
class Segment:
    """The result of :meth:`Stepper.segment`: ``steps`` accepted steps (the stepper is at their end); ``frames``
    rows [t_k, W, packed output frame] (``mechstudio.core.dynamics.packed_output``); ``end_frame`` the packed
    frame of the last step end (its corrected q, q'); the next output index ``k``; ``since_output`` steps since
    the last output; ``corrections`` made; ``declined``: the step after them needs the driver's own handling;
    ``refresh``: the formulation's basis grew too much at the last step end (the driver restarts it there)."""
    steps: int
    frames: FloatArray
    end_frame: FloatArray
    k: int
    since_output: int
    corrections: int
    declined: bool
    refresh: bool = False


class Integrator(ABC):
    name = ""
    adaptive = True
    #: True when :meth:`start` gives a :class:`Stepper` (continuous integration across output times)
    continuous = False

    def __init__(self, rtol: float = 1e-8, atol: float = 1e-10, step: float | None = None,
                 max_step: float | None = None):
        self.rtol, self.atol, self.step, self.max_step = rtol, atol, step, max_step
        self.steps = 0

    @abstractmethod
    def advance(self, fun: RHS, t0: float, y0: FloatArray, t1: float) -> StepResult:
        """Integrate from (t0, y0) to t1."""

    def reset(self) -> None:
        """Forget history (the state vector changed meaning, e.g. a new null-space basis)."""

    def start(self, fun: RHS, t0: float, y0: FloatArray, t_bound: float, compiled: Any = None) -> Stepper:
        """A :class:`Stepper` from (t0, y0) towards t_bound (only when ``continuous``). ``compiled``: the same
        right-hand side as a compiled function (``mechstudio.core.integrate.dop853_kernels.CompiledRHS``), which an
        integrator may use to step in compiled code; None when the formulation has none."""
        raise NotImplementedError(f"{self.name} integrates interval by interval (no continuous stepping)")




def register_integrator(name: str) -> Callable[[type[Integrator]], type[Integrator]]:
    """Class decorator: register an integrator under ``name`` (also sets its ``name`` attribute)."""
    return INTEGRATORS.register(name)


def get_integrator(name: str) -> type[Integrator]:
    """The integrator class registered as ``name`` (:class:`~core.errors.UnknownNameError` if none)."""
    return INTEGRATORS[name]
