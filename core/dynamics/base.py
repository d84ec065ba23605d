"""The contract every formulation of the equations of motion fulfils, and their registry.

A formulation turns a :class:`~core.system.ConstrainedSystem` (M, h, C, xi, eta in the notation of source 001)
into a first-order ODE y' = f(t, y) for the integrators. Formulations may integrate their own state (the
projection method integrates z = [p; q], Appell integrates [u; q], Wittenburg [orientation; omega]) but all of
them map it to and from the physical (q, q'), so the simulation driver can correct drift, compute reactions,
energy and write results the same way for every method.

Register a formulation with ``@register_formulation("name")``; ``get_formulation("bad")`` raises
:class:`~core.errors.UnknownNameError` listing the valid names.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from core.errors import UnknownNameError
from core.system import ConstrainedSystem
from core.types import FloatArray


class SolverFailure(RuntimeError):
    """A numerical failure inside a right-hand side (singular matrix, singular quasi-velocity choice, ...).

    The simulation driver turns it into a run status and a message (with the time); it never reaches a user
    as a traceback.
    """


@dataclass
class Accelerations:
    """q'' and the multipliers lambda at one state (source 001 sign convention: M q'' = h + C^T lambda)."""
    qdd: FloatArray
    lam: FloatArray | None = None
    lam_unique: bool = True  # False when C is rank deficient (redundant constraints): lambda is min-norm
    info: dict[str, Any] = field(default_factory=dict)


class Formulation(ABC):
    """One way to write and solve the equations of motion of a ConstrainedSystem."""

    #: registry name, set by :func:`register_formulation`
    name: str = ""

    def __init__(self, system: ConstrainedSystem, **options: Any):
        self.system = system
        self.options = options
        self.rhs_evaluations = 0
        self.svd_count = 0

    # --- physics at one state -----------------------------------------------------------------------------
    @abstractmethod
    def accelerations(self, q: FloatArray, v: FloatArray, t: float) -> Accelerations:
        """q'' (and lambda, when the formulation computes it) at the consistent state (q, q', t)."""

    def reactions(self, q: FloatArray, v: FloatArray, t: float) -> Accelerations:
        """q'' with the multipliers lambda = E^T (M q'' - h) (corrected eq. 4.2 of source 001)."""
        acc = self.accelerations(q, v, t)
        if acc.lam is None:
            acc.lam, acc.lam_unique = multipliers_from_accelerations(self.system, q, v, t, acc.qdd)
        return acc

    # --- the integrated state -----------------------------------------------------------------------------
    def pack(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        """The integrator state y of a consistent (q, q'). Default: y = [q; q']."""
        return np.concatenate((q, v))

    def unpack(self, y: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        """(q, q') of an integrator state y."""
        n = self.system.n
        return y[:n], y[n:2 * n]

    def rhs(self, t: float, y: FloatArray) -> FloatArray:
        """y' = f(t, y)."""
        return self.rhs_and_power(t, y)[0]

    def rhs_and_power(self, t: float, y: FloatArray) -> tuple[FloatArray, float]:
        """y' = f(t, y) and the power [W] of the non-conservative forces plus the constraint forces,
        P = P_nc(q, q', t) + q'^T (M q'' - h), whose integral is the work that makes
        E_total - W constant (energy bookkeeping). Default for y = [q; q']: [q'; q'']."""
        q, v = self.unpack(y, t)
        self.rhs_evaluations += 1
        acc = self.accelerations(q, v, t)
        return np.concatenate((v, acc.qdd)), self.power(q, v, t, acc)

    def rhs_augmented(self, t: float, yy: FloatArray) -> FloatArray:
        """[y'; P] for the integrators, yy = [y; W] (the work W integrated alongside the state)."""
        ydot, power = self.rhs_and_power(t, yy[:-1])
        return np.append(ydot, power)

    def fast_output(self, y: FloatArray, t: float, correction: bool) -> Any:
        """An optional fused output frame of integrator state y (see ``core.dynamics.projection_spatial``):
        (q, q', q'', reactions (n_constraints, 6), scalars) or None, then the driver's generic path runs."""
        return None

    def power(self, q: FloatArray, v: FloatArray, t: float, acc: Accelerations) -> float:
        """P_nc + q'^T C^T lambda, the latter as q'^T (M q'' - h) (uses ``acc.info['h']`` when present)."""
        h = acc.info.get("h")
        if h is None:
            h = self.system.forces(q, v, t)
        Mqdd = acc.info.get("Mqdd")
        if Mqdd is None:
            Mqdd = self.system.mass_matrix(q, t) @ acc.qdd
        return float(self.system.nonconservative_power(q, v, t) + v @ (Mqdd - h))

    def restart(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        """Called when the driver restarts integration from (q, q') (after a correction); returns y."""
        return self.pack(q, v, t)


def multipliers_from_accelerations(system: ConstrainedSystem, q: FloatArray, v: FloatArray, t: float,
                                   qdd: FloatArray) -> tuple[FloatArray, bool]:
    """lambda from C^T lambda = M q'' - h, least squares (the minimum-norm one when C is rank deficient).

    This equals E^T (M q'' - h) with E = V1 D^-1 U^T, the pseudo-inverse of C (README errata for eq. 4.2).
    Returns (lambda, unique).
    """
    C = system.constraint_matrix(q, t)
    if C.shape[0] == 0:
        return np.zeros(0), True
    rhs = system.mass_matrix(q, t) @ qdd - system.forces(q, v, t)
    lam, _, rank, _ = np.linalg.lstsq(C.T, rhs, rcond=None)
    return lam, bool(rank == C.shape[0])


FORMULATIONS: dict[str, type[Formulation]] = {}


def register_formulation(name: str) -> Callable[[type[Formulation]], type[Formulation]]:
    def deco(cls: type[Formulation]) -> type[Formulation]:
        cls.name = name
        FORMULATIONS[name] = cls
        return cls
    return deco


def _load_builtin() -> None:
    # importing registers them; modules that are not written yet are skipped
    import importlib
    for mod in ("core.dynamics.projection", "core.dynamics.lagrange", "core.dynamics.appell",
                "core.dynamics.appell_symbolic", "core.tree.wittenburg"):
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name is None or not mod.startswith(exc.name):
                raise


def get_formulation(name: str) -> type[Formulation]:
    _load_builtin()
    if name not in FORMULATIONS:
        raise UnknownNameError("formulation", name, list(FORMULATIONS))
    return FORMULATIONS[name]
