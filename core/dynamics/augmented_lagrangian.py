"""Augmented Lagrangian formulations, robust through singular configurations and redundant constraints.

Two methods of Bayo and co-workers, written in the notation of [001] (M q'' = h + C^T lambda,
C q' + xi = 0, C q'' + eta = 0):

Status: method 2 (ALI3-P) carries the N four-bar (MBS benchmark A02) through all its singular configurations
and is used by ``mechstudio bench --suite iftomm``. Method 1 is EXPERIMENTAL and deliberately not registered in
core/dynamics/base.py: its fixed-point iteration stagnates on badly scaled systems (Andrews' mechanism: inertias
of 4e-7 kg m^2) and it has not been validated; import the module to register it.

1. ``augmented_lagrangian`` (formulation, state y = [q; q'], any of the driver's integrators): the
   index-1 augmented Lagrangian of Bayo, Garcia de Jalon and Serna (1988) with Baumgarte-type penalty terms,

       M q'' + C^T alpha (C q'' + eta + 2 xi_b omega Phi' + omega^2 Phi) + C^T lambda* = h,
       lambda*_{i+1} = lambda*_i + alpha (C q'' + eta + 2 xi_b omega Phi' + omega^2 Phi)_{i+1},

   i.e. (M + alpha C^T C) q''_{i+1} = h - C^T lambda*_i - alpha C^T (eta + 2 xi_b omega Phi' + omega^2 Phi),
   iterated until q'' stops changing (lambda* warm-started from the previous evaluation). The leading matrix
   M + alpha C^T C is symmetric positive definite whenever M is positive definite on null(C): it stays so when
   C loses rank (singular configurations, where the degrees of freedom jump) and with redundant constraints,
   so no row selection is ever needed. The iteration converges to the q'' of the constrained equations (in the
   least-squares sense on range(C) when C is rank deficient); lambda = -lambda* ([001] sign).

2. ``mechstudio.core.run.ali3p.simulate_ali3p`` (a driver of its own, in the simulation layer): the index-3 augmented
   Lagrangian with mass-orthogonal projections (ALI3-P, Bayo and Ledesma 1996; Cuadrado et al. 2000), the method
   of the MBS benchmark papers. Trapezoidal rule with fixed step dt_s, Newton iteration on the positions of

       M q'' + Phi_q^T (lambda* + alpha Phi) = h,   lambda*_{i+1} = lambda*_i + alpha Phi_{i+1},
       q'' = 4/dt^2 q - (4/dt^2 q_n + 4/dt q'_n + q''_n),   q' = 2/dt q - (2/dt q_n + q'_n),

   with the tangent  M + dt^2/4 (alpha Phi_q^T Phi_q + K_spring) + dt/2 C_damping  (K, C of springs/dampers by
   finite differences of h, evaluated once per step), then mass-orthogonal projections of the velocities and
   accelerations onto the constraint manifold's tangent:

       P q' = M q'* - dt^2/4 alpha Phi_q^T Phi_t,    P q'' = M q''* - dt^2/4 alpha Phi_q^T (Phi_q' q' + Phi_qt),
       P = M + dt^2/4 alpha Phi_q^T Phi_q.

   It returns a :class:`~core.simulate.Trajectory` like :func:`mechstudio.core.simulate.run` (frames at the output times,
   stats with rhs_evaluations = evaluations of h, svd_count = 0 since no SVD is used).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as sla

from mechstudio.core.dynamics.base import (Accelerations, Formulation, SolverFailure, multipliers_from_accelerations,
                                register_formulation)
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.types import FloatArray

PENALTY = 1e7  # alpha relative to the largest mass-matrix entry (Bayo's typical 1e7 for unit masses)
BAUMGARTE_OMEGA = 10.0
BAUMGARTE_XI = 1.0
MAX_ITER = 30
ALI3P_PENALTY = 1e3
ITER_RTOL = 1e-12


def dense_mass_matrix(system: ConstrainedSystem, q: FloatArray, t: float) -> FloatArray:
    """M(q, t) as a dense matrix (also for systems that keep a diagonal M as a vector)."""
    if system.diagonal_mass:
        return np.diag(system.mass_diagonal)
    return system.mass_matrix(q, t)


@register_formulation("augmented_lagrangian")
class AugmentedLagrangianFormulation(Formulation):
    """Index-1 augmented Lagrangian with penalty stabilisation (module docstring, method 1).

    Options: ``alpha`` (penalty; default PENALTY * max |M|), ``omega`` and ``xi_b`` (Baumgarte terms; default
    10 rad/s and 1), ``max_iter`` (30), ``iter_rtol`` (1e-13).
    """

    def __init__(self, system: ConstrainedSystem, **options: Any):
        super().__init__(system, **options)
        q0 = np.zeros(system.n)
        mmax = float(np.max(np.abs(dense_mass_matrix(system, q0, 0.0)))) if system.n else 1.0
        self.alpha = float(options.get("alpha", PENALTY * max(mmax, 1e-300)))
        self.omega = float(options.get("omega", BAUMGARTE_OMEGA))
        self.xi_b = float(options.get("xi_b", BAUMGARTE_XI))
        self.max_iter = int(options.get("max_iter", MAX_ITER))
        self.iter_rtol = float(options.get("iter_rtol", ITER_RTOL))
        self._lam = np.zeros(system.m)  # lambda* warm start
        self.iterations = 0
        self.unconverged = 0

    def accelerations(self, q: FloatArray, v: FloatArray, t: float) -> Accelerations:
        sys_ = self.system
        h = sys_.forces(q, v, t)
        M = dense_mass_matrix(sys_, q, t)
        if sys_.m == 0:
            return Accelerations(np.linalg.solve(M, h), np.zeros(0), info={"h": h})
        C = sys_.constraint_matrix(q, t)
        eta = sys_.eta(q, v, t)
        stab = eta + 2 * self.xi_b * self.omega * (C @ v + sys_.xi(q, t))
        mh = sys_.m_holonomic
        if mh:
            stab[:mh] += self.omega ** 2 * sys_.phi(q, t)
        a = self.alpha
        try:
            cho = sla.cho_factor(M + a * (C.T @ C), lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            raise SolverFailure(f"M + alpha C^T C is not positive definite at t = {t:.6g} s: the masses do not "
                                "determine the motion (a massless body the constraints leave free?)") from None
        # lambda* starts from zero at every evaluation, so that q'' is a function of the state alone (a warm
        # start would make the right-hand side depend on the integrator's history)
        lam = np.zeros(sys_.m)
        base = h - a * (C.T @ stab)
        qdd = sla.cho_solve(cho, base, check_finite=False)
        scale = max(float(np.max(np.abs(stab))), 1e-300)
        for it in range(self.max_iter):
            r = C @ qdd + stab
            self.iterations += 1
            if float(np.max(np.abs(r))) <= self.iter_rtol * (scale + float(np.max(np.abs(C @ np.abs(qdd))))):
                break
            lam = lam + a * r
            qdd = sla.cho_solve(cho, base - C.T @ lam, check_finite=False)
        else:
            self.unconverged += 1
        if not np.all(np.isfinite(qdd)):
            raise SolverFailure(f"the augmented Lagrangian iteration diverged at t = {t:.6g} s")
        self._lam = lam
        # M q'' = h - C^T (lambda* + alpha r) with r ~ 0: lambda ([001] sign) = -lambda*
        return Accelerations(qdd, -lam, True, info={"h": h, "Mqdd": M @ qdd})

    def reactions(self, q: FloatArray, v: FloatArray, t: float) -> Accelerations:
        acc = self.accelerations(q, v, t)
        acc.lam, acc.lam_unique = multipliers_from_accelerations(self.system, q, v, t, acc.qdd)
        return acc


__all__ = ["ALI3P_PENALTY", "AugmentedLagrangianFormulation", "dense_mass_matrix"]
