"""The compiled numeric description of a model: :class:`ConstrainedSystem` (built by
:func:`mechstudio.core.systems.compile.compile_model`).

A ConstrainedSystem is immutable after compilation and holds everything the formulations need, in the
notation of [001] (Lagrange's equations of the first kind, eq. 2.11):

    M(q, t) q'' = h(q, q', t) + C(q, t)^T lambda
    C(q, t) q' + xi(q, t) = 0          (2.3)   holonomic rows C_phi = Phi_q, xi_phi = Phi_t,
                                               then the linear nonholonomic rows C_psi, xi_psi
    C(q, t) q'' + eta(q, q', t) = 0    (2.4)   eta = C' q' + xi'  (= -gamma for holonomic rows)

``h`` holds the applied forces (gravity, springs, dampers, loads) and the gyroscopic/centrifugal terms.
Per-run mutable data lives elsewhere (``mechstudio.core.simulate``); a System can be shared between threads.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mechstudio.core.model.document import Model
from mechstudio.core.types import FloatArray


@dataclass(frozen=True)
class ConstraintInfo:
    """One named constraint (joint, driver, contact) and its rows in C."""
    name: str
    type: str  # revolute, prismatic, weld, knife_edge, rolling_disk, spherical, joint_angle, ...
    rows: tuple[int, ...]
    components: tuple[str, ...]  # label of each row, e.g. ("x", "y")
    holonomic: bool
    body1: str
    body2: str


class ConstrainedSystem:
    """Abstract base: the numeric model M, h, Phi, C, xi, eta of a mechanism (see module docstring).

    Subclasses: :class:`mechstudio.core.systems.planar.PlanarSystem` and the spatial systems. Shapes: q, v (n,);
    Phi (m_h,); C (m, n) with m = m_h + m_nh.
    """

    n: int
    m_holonomic: int
    m_nonholonomic: int
    coord_names: list[str]  # "body.coord" for each coordinate
    constraints: list[ConstraintInfo]
    model: Model
    #: True when M is constant and diagonal (``mass_diagonal`` then holds it), enabling cheaper algebra
    diagonal_mass: bool = False
    mass_diagonal: FloatArray

    @property
    def m(self) -> int:
        return self.m_holonomic + self.m_nonholonomic

    @property
    def rheonomic(self) -> bool:
        """True when some constraint depends explicitly on time (drivers, moving ground)."""
        return False

    # --- dynamics ---------------------------------------------------------------------------------------
    def mass_matrix(self, q: FloatArray, t: float) -> FloatArray:
        raise NotImplementedError

    def forces(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        """h(q, q', t): applied generalized forces plus gyroscopic/centrifugal terms, (n,)."""
        raise NotImplementedError

    # --- holonomic constraints ---------------------------------------------------------------------------
    def phi(self, q: FloatArray, t: float) -> FloatArray:
        raise NotImplementedError

    def phi_q(self, q: FloatArray, t: float) -> FloatArray:
        raise NotImplementedError

    def phi_t(self, q: FloatArray, t: float) -> FloatArray:
        raise NotImplementedError

    def gamma(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        """Right-hand side of Phi_q q'' = gamma."""
        raise NotImplementedError

    # --- all velocity-level constraints ------------------------------------------------------------------
    def constraint_matrix(self, q: FloatArray, t: float) -> FloatArray:
        """C = [Phi_q; C_psi], (m, n)."""
        raise NotImplementedError

    def xi(self, q: FloatArray, t: float) -> FloatArray:
        """xi = [Phi_t; xi_psi], (m,)."""
        raise NotImplementedError

    def eta(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        """eta = C' q' + xi' = [-gamma; eta_psi], (m,)."""
        raise NotImplementedError

    # --- energy and results ------------------------------------------------------------------------------
    def kinetic_energy(self, q: FloatArray, v: FloatArray, t: float) -> float:
        return float(0.5 * v @ self.mass_matrix(q, t) @ v)

    def potential_energy(self, q: FloatArray, t: float) -> float:
        raise NotImplementedError

    def nonconservative_power(self, q: FloatArray, v: FloatArray, t: float) -> float:
        """Power [W] of dampers and applied loads (the forces not in the potential)."""
        raise NotImplementedError

    def reactions(self, q: FloatArray, lam: FloatArray, t: float) -> dict[str, FloatArray]:
        """Force and moment (Fx, Fy, Fz, Mx, My, Mz) [N, N m] each constraint applies to its second body,
        global components, the moment taken about the joint point on that body."""
        raise NotImplementedError

    def initial_guess(self) -> FloatArray:
        """The rough positions of the file, as coordinates q."""
        raise NotImplementedError

    def initial_velocity_specs(self) -> list[tuple[int, float]]:
        """(coordinate index, value) pairs of the file's prescribed initial velocities."""
        raise NotImplementedError

    def held_coordinates(self) -> list[int]:
        """Coordinates that assembly keeps at their initial value."""
        return []

    def row_labels(self) -> list[str]:
        labels = [""] * self.m
        for c in self.constraints:
            for r, comp in zip(c.rows, c.components):
                labels[r] = f"{c.name}.{comp}"
        return labels

    def describe(self) -> dict[str, Any]:
        return {"n": self.n, "m_holonomic": self.m_holonomic, "m_nonholonomic": self.m_nonholonomic}
