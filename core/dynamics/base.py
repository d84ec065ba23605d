"""The contract every formulation of the equations of motion fulfils, and their registry.

A formulation turns a :class:`~core.systems.base.ConstrainedSystem` (M, h, C, xi, eta in the notation of [001],
docs/references.md) into a first-order ODE y' = f(t, y) for the integrators. Formulations may integrate their own
state (the projection method integrates z = [p; q], Appell integrates [u; q], Wittenburg [orientation; omega]) but
all of them map it to and from the physical (q, q'), so the simulation driver can correct drift, compute reactions,
energy and write results the same way for every method.

Hooks the simulation driver (``mechstudio.core.run.driver``) calls, all declared here with their defaults:

* :meth:`Formulation.restart` after a correction changed the state, or when :meth:`Formulation.needs_restart`
  says so (e.g. the projection's kept basis grew too much): re-pack (q, q') into a new integrator state;
* :meth:`Formulation.refresh_basis` when an evaluation raised :class:`RestartRequired`: rebuild whatever made the
  state representation degenerate, then the driver restarts from the last accepted state;
* :meth:`Formulation.fast_output`: an optional fused output frame (``None``: the driver's generic path);
* the counters ``rhs_evaluations`` and ``svd_count`` (a change of ``svd_count`` across a restart tells the
  driver that the state changed meaning, so the integrator forgets its history).

The built-in formulations are listed in :data:`FORMULATIONS` by name and import path, imported on first use
(``mechstudio.core.registry``); ``@register_formulation("name")`` adds another. ``get_formulation("bad")`` raises
:class:`~core.errors.UnknownNameError` listing the valid names. A new formulation is one file: see
docs/architecture.md, "Recipe: add a formulation".
"""
from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from mechstudio.core.registry import FORMULATIONS  # noqa: F401 - the registry of this layer (defined low, see there)
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.types import FloatArray


class SolverFailure(RuntimeError):
    """A numerical failure inside a right-hand side (singular matrix, singular quasi-velocity choice, ...).

    The simulation driver turns it into a run status and a message (with the time); it never reaches a user
    as a traceback.
    """


class RestartRequired(SolverFailure):
    """The integrated state can no longer represent the motion (e.g. the projection's kept null-space basis became
    degenerate). The driver calls :meth:`Formulation.refresh_basis` at the last accepted state and restarts the
    integrator from there (once per state; a second failure at the same state ends the run)."""


@dataclass
class Accelerations:
    """q'' and the multipliers lambda at one state ([001] sign convention, eq. (2.11): M q'' = h + C^T lambda)."""
    qdd: FloatArray
    lam: FloatArray | None = None
    lam_unique: bool = True  # False when C is rank deficient (redundant constraints): lambda is min-norm
    info: dict[str, Any] = field(default_factory=dict)


class OutputScalar(enum.IntEnum):
    """Positions in the scalars array of a fused output frame (:meth:`Formulation.fast_output`)."""
    KINETIC = 0  # kinetic energy [J]
    POTENTIAL = 1  # potential energy [J]
    POSITION_BEFORE = 2  # ||Phi|| before the drift correction
    POSITION_AFTER = 3  # ||Phi|| after it
    VELOCITY_BEFORE = 4  # ||C q' + xi|| before the correction
    VELOCITY_AFTER = 5  # ||C q' + xi|| after it
    NEWTON_ITERATIONS = 6  # iterations of the Newton-Raphson correction
    CONVERGED = 7  # 1.0 when the correction met its tolerance
    CHANGED = 8  # 1.0 when the correction changed q or q' (the integrator restarts from the corrected state)
    LAMBDA_UNIQUE = 9  # 1.0 unless C is rank deficient (then lambda is the minimum-norm one)
    NULL_SPACE_GROWTH = 10  # ||N||_2 of the projection's kept basis at the recorded state


#: a fused output frame: (q, q', q'', reactions (n_constraints, 6) [N, N m], scalars indexed by OutputScalar)
FastOutput = tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]


class Formulation(ABC):
    """One way to write and solve the equations of motion of a ConstrainedSystem."""

    #: registry name, set by :func:`register_formulation`
    name: str = ""
    #: True when the formulation takes the option ``kernels="numba"`` (compiled kernels, the default when it is
    #: constructed directly) or ``kernels="numpy"`` (its numpy path; the same numbers, tested equal): the driver
    #: then starts a run on the numpy path and switches when the compiled one pays (``mechstudio.core.run.kernels``)
    kernel_paths: bool = False
    #: why the formulation cannot run a model with contacts that can let go (an event-driven run hands it the
    #: system of each contact mode: ``mechstudio.core.run.events``); empty when it can
    no_contact_modes: str = ""

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
        """q'' with the multipliers lambda = E^T (M q'' - h) ([001] eq. (4.2), corrected: docs/references.md)."""
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

    def compiled_rhs(self) -> Any:
        """:meth:`rhs_augmented` as a compiled function for an integrator that steps in compiled code
        (``mechstudio.core.integrate.dop853_kernels.CompiledRHS``), or None (default): the integrator calls
        :meth:`rhs_augmented`. Asked once per stepper, i.e. again after every change of basis."""
        return None

    #: False while the driver records outputs inside an integrator step (no ``needs_restart`` follows at those
    #: states): :meth:`fast_output` may then skip the null-space growth scalar (NaN). The driver sets it.
    growth_wanted: bool = True

    def fast_output(self, y: FloatArray, t: float, correction: bool) -> FastOutput | None:
        """An optional fused output frame of integrator state y (:data:`FastOutput`: the corrected state, q'', the
        reactions and the scalars of :class:`OutputScalar`; see ``mechstudio.core.dynamics.projection_spatial``), or None:
        then the driver unpacks, corrects and evaluates on the generic path. Default: None."""
        return None

    def fast_outputs(self, Y: FloatArray, times: FloatArray, correction: bool) -> list[FastOutput | None] | None:
        """Optional: :meth:`fast_output` of the states Y[j] (rows) at times[j] at once, for the outputs inside an
        integrator step (no ||N||_2: the growth scalar NaN, as with ``growth_wanted`` False); None where an entry
        is not available (the driver then asks :meth:`fast_output`). Default: None (ask one at a time)."""
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

    # --- hooks of the simulation driver (see module docstring) -------------------------------------------------
    def restart(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        """Called when the driver restarts integration from (q, q') (after a correction); returns y."""
        return self.pack(q, v, t)

    def needs_restart(self, q: FloatArray, v: FloatArray, t: float) -> bool:
        """True when the driver should call :meth:`restart` after an accepted step even though the correction
        left the state unchanged. Default: never."""
        return False

    def refresh_basis(self, q: FloatArray, t: float) -> None:
        """Rebuild the state representation at (q, t) after :class:`RestartRequired`. Default: nothing to do."""

    def kernel_key(self) -> str | None:
        """The name of the compiled path this formulation takes for its system (which kernel families, not which
        model), under which the background compiler records that the on-disk cache holds its kernels; asked after
        the first :meth:`restart`. None without :attr:`kernel_paths`. Default: formulation and system class."""
        if not self.kernel_paths:
            return None
        return f"{self.name}-{type(self.system).__name__}"


def multipliers_from_accelerations(system: ConstrainedSystem, q: FloatArray, v: FloatArray, t: float,
                                   qdd: FloatArray) -> tuple[FloatArray, bool]:
    """lambda from C^T lambda = M q'' - h, least squares (the minimum-norm one when C is rank deficient).

    This equals E^T (M q'' - h) with E = V1 D^-1 U^T, the pseudo-inverse of C ([001] eq. (4.2) as corrected in
    docs/references.md).
    Returns (lambda, unique).
    """
    C = system.constraint_matrix(q, t)
    if C.shape[0] == 0:
        return np.zeros(0), True
    rhs = system.mass_matrix(q, t) @ qdd - system.forces(q, v, t)
    lam, _, rank, _ = np.linalg.lstsq(C.T, rhs, rcond=None)
    return lam, bool(rank == C.shape[0])




def register_formulation(name: str) -> Callable[[type[Formulation]], type[Formulation]]:
    """Class decorator: register a formulation under ``name`` (also sets its ``name`` attribute)."""
    return FORMULATIONS.register(name)


def get_formulation(name: str) -> type[Formulation]:
    """The formulation class registered as ``name`` (:class:`~core.errors.UnknownNameError` if none)."""
    return FORMULATIONS[name]
