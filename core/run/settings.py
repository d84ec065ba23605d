"""How to run a simulation: :class:`SimulationSettings` (times in s, integrator tolerances, the formulation)."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechstudio.core.dynamics.base import get_formulation
from mechstudio.core.integrate.base import get_integrator
from mechstudio.core.model.document import SIMULATION_DEFAULTS, Model

#: values of :attr:`SimulationSettings.kernels`
KERNEL_CHOICES = ("auto", "compiled", "numpy")
#: the environment variable that sets the kernel choice of runs whose settings leave it open (None)
KERNELS_ENV = "MECHSTUDIO_KERNELS"
#: the smallest relative tolerance accepted: 100 machine epsilons, below which the step-size controllers (scipy's
#: and our compiled DOP853) cannot reach the requested accuracy and scipy raises it with a warning
RTOL_MIN = 100 * float(np.finfo(float).eps)


@dataclass(frozen=True)
class SimulationSettings:
    """How to run: times in s; tolerances of adaptive integrators; fixed step for rk4/abm."""
    t_end: float = SIMULATION_DEFAULTS["t_end"]
    dt: float = SIMULATION_DEFAULTS["dt"]  # output interval [s]
    formulation: str = "projection"
    integrator: str = "dop853"
    rtol: float = 1e-8
    atol: float = 1e-10
    correction: bool = True
    step: float | None = None  # fixed-step integrators: step [s] (default dt/10)
    max_step: float | None = None
    parametrization: str | None = None  # spherical trees (Wittenburg)
    options: dict[str, Any] = field(default_factory=dict)
    #: "auto" (start on the numpy path, switch to the compiled kernels when they pay: ``mechstudio.core.run.kernels``),
    #: "compiled" (numba kernels from the start, compiled now if the cache lacks them) or "numpy"; None: the
    #: environment's ``MECHSTUDIO_KERNELS``, else "auto". An explicit ``options["kernels"]`` ("numba" or "numpy")
    #: of the formulation overrides it
    kernels: str | None = None

    @classmethod
    def from_model(cls, model: Model, **overrides: Any) -> "SimulationSettings":
        """The model's ``simulation`` section, with ``overrides`` (those not None) on top."""
        sim = dict(model.data.get("simulation", {}))
        known = {f for f in cls.__dataclass_fields__}
        kw = {k: v for k, v in sim.items() if k in known}
        kw.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**kw)

    @property
    def output_count(self) -> int:
        """Number of output intervals: t_end / dt rounded (the outputs are t_k = k dt, k = 0 .. output_count)."""
        return int(round(self.t_end / self.dt))

    def formulation_options(self) -> dict[str, Any]:
        """Keyword options of the formulation (``options`` and the ``parametrization`` of spherical trees)."""
        opts = dict(self.options)
        if self.parametrization:
            opts["parametrization"] = self.parametrization
        return opts

    def kernel_choice(self) -> str:
        """:attr:`kernels` resolved: the setting, else ``MECHSTUDIO_KERNELS``, else "auto" (ValueError when the
        environment's value is not one of :data:`KERNEL_CHOICES`)."""
        if self.kernels is not None:
            return self.kernels
        value = os.environ.get(KERNELS_ENV, "").strip() or "auto"
        if value not in KERNEL_CHOICES:
            raise ValueError(f"{KERNELS_ENV} must be one of {', '.join(KERNEL_CHOICES)}, not {value!r}")
        return value

    def validate(self) -> None:
        """Raise ValueError (bad times, kernels) or :class:`~core.errors.UnknownNameError` (unknown method names)."""
        if not (self.t_end > 0 and self.dt > 0 and math.isfinite(self.t_end) and math.isfinite(self.dt)):
            raise ValueError("t_end and dt must be positive and finite")
        if not (self.rtol >= RTOL_MIN and math.isfinite(self.rtol)):
            raise ValueError(f"rtol must be at least {RTOL_MIN:.3g} (100 machine epsilons: no integrator can honour "
                             f"less) and finite, not {self.rtol!r}")
        if not (self.atol > 0 and math.isfinite(self.atol)):
            raise ValueError(f"atol must be positive and finite, not {self.atol!r}")
        if self.kernels not in KERNEL_CHOICES + (None,):
            raise ValueError(f"kernels must be one of {', '.join(KERNEL_CHOICES)}, not {self.kernels!r}")
        self.kernel_choice()
        get_formulation(self.formulation)
        get_integrator(self.integrator)


__all__ = ["KERNELS_ENV", "KERNEL_CHOICES", "RTOL_MIN", "SimulationSettings"]
