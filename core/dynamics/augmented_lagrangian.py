"""Augmented Lagrangian formulations, robust through singular configurations and redundant constraints.

Two methods of Bayo and co-workers, written in the notation of source 001 (M q'' = h + C^T lambda,
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
   least-squares sense on range(C) when C is rank deficient); lambda = -lambda* (source 001 sign).

2. :func:`simulate_ali3p`: the index-3 augmented Lagrangian with mass-orthogonal projections (ALI3-P, Bayo and
   Ledesma 1996; Cuadrado et al. 2000), the method of the MBS benchmark papers. Trapezoidal rule with fixed
   step dt_s, Newton iteration on the positions of

       M q'' + Phi_q^T (lambda* + alpha Phi) = h,   lambda*_{i+1} = lambda*_i + alpha Phi_{i+1},
       q'' = 4/dt^2 q - (4/dt^2 q_n + 4/dt q'_n + q''_n),   q' = 2/dt q - (2/dt q_n + q'_n),

   with the tangent  M + dt^2/4 (alpha Phi_q^T Phi_q + K_spring) + dt/2 C_damping  (K, C of springs/dampers by
   finite differences of h, evaluated once per step), then mass-orthogonal projections of the velocities and
   accelerations onto the constraint manifold's tangent:

       P q' = M q'* - dt^2/4 alpha Phi_q^T Phi_t,    P q'' = M q''* - dt^2/4 alpha Phi_q^T (Phi_q' q' + Phi_qt),
       P = M + dt^2/4 alpha Phi_q^T Phi_q.

   It returns a :class:`~core.simulate.Trajectory` like :func:`core.simulate.run` (frames at the output times,
   stats with rhs_evaluations = evaluations of h, svd_count = 0 since no SVD is used).
"""
from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import scipy.linalg as sla

from core.dynamics.base import Accelerations, Formulation, SolverFailure, register_formulation
from core.system import ConstrainedSystem
from core.types import FloatArray

PENALTY = 1e7  # alpha relative to the largest mass-matrix entry (Bayo's typical 1e7 for unit masses)
BAUMGARTE_OMEGA = 10.0
BAUMGARTE_XI = 1.0
MAX_ITER = 30
ALI3P_PENALTY = 1e3
ITER_RTOL = 1e-12


def _mass(system: ConstrainedSystem, q: FloatArray, t: float) -> FloatArray:
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
        mmax = float(np.max(np.abs(_mass(system, q0, 0.0)))) if system.n else 1.0
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
        M = _mass(sys_, q, t)
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
        # M q'' = h - C^T (lambda* + alpha r) with r ~ 0: lambda (source 001 sign) = -lambda*
        return Accelerations(qdd, -lam, True, info={"h": h, "Mqdd": M @ qdd})

    def reactions(self, q: FloatArray, v: FloatArray, t: float) -> Accelerations:
        acc = self.accelerations(q, v, t)
        from core.dynamics.base import multipliers_from_accelerations
        acc.lam, acc.lam_unique = multipliers_from_accelerations(self.system, q, v, t, acc.qdd)
        return acc


# ------------------------------------------------------------------------------------------------------------
# ALI3-P: index-3 augmented Lagrangian, trapezoidal rule, mass-orthogonal projections
# ------------------------------------------------------------------------------------------------------------

def _force_jacobians(system: ConstrainedSystem, q: FloatArray, v: FloatArray, t: float, h0: FloatArray
                     ) -> tuple[FloatArray, FloatArray]:
    """K = -dh/dq and Cd = -dh/dq' by forward differences (springs and dampers; zero for gravity only)."""
    n = system.n
    K = np.zeros((n, n))
    D = np.zeros((n, n))
    for j in range(n):
        e = 1e-7 * max(1.0, abs(q[j]))
        qp = q.copy()
        qp[j] += e
        K[:, j] = -(system.forces(qp, v, t) - h0) / e
        ev = 1e-7 * max(1.0, abs(v[j]))
        vp = v.copy()
        vp[j] += ev
        D[:, j] = -(system.forces(q, vp, t) - h0) / ev
    return K, D


def simulate_ali3p(system: ConstrainedSystem, settings: Any, *, step: float | None = None,
                   alpha: float | None = None, newton_tol: float = 1e-11, max_newton: int = 50,
                   accept_tol: float = 1e-6,
                   q0: FloatArray | None = None, v0: FloatArray | None = None,
                   cancel: Any = None) -> Any:
    """Run ALI3-P (module docstring, method 2) from the file's initial state with a fixed step ``step``
    (default settings.step or settings.dt / 10); output every settings.dt. Returns a Trajectory."""
    from core.simulate import FrameBlock, InitialState, Trajectory, concat_blocks, initial_state  # noqa: F401
    from core.types import Status
    n, nc = system.n, len(system.constraints)
    if q0 is None:
        init = initial_state(system, 0.0)
        if not init.status.ok:
            return Trajectory(system, settings, concat_blocks([], n, nc), Status.FAILED, init.message, {})
        q, v = init.q.copy(), init.v.copy()
    else:
        q, v = np.asarray(q0, float).copy(), np.asarray(v0, float).copy()
    dt = float(step or settings.step or settings.dt / 10)
    n_out = int(round(settings.t_end / settings.dt))
    sub = max(1, int(round(settings.dt / dt)))
    dt = settings.dt / sub
    M = _mass(system, q, 0.0)
    # alpha dt^2/4 = ALI3P_PENALTY * max|M|: the multiplier update then contracts by ~1/ALI3P_PENALTY per iteration
    a = float(alpha if alpha is not None else ALI3P_PENALTY * float(np.max(np.abs(M))) * 4 / dt ** 2)
    has_forces = bool(getattr(system, "spring_k", np.zeros(0)).size or getattr(system, "rot_k", np.zeros(0)).size)
    stats: dict[str, Any] = {"rhs_evaluations": 0, "svd_count": 0, "steps": 0, "newton_iterations": 0, "newton_unconverged": 0,
                             "corrections": 0, "basis_restarts": 0, "lambda_unique": False}
    clock0, wall0 = time.process_time(), time.perf_counter()
    mh = system.m_holonomic

    def h_of(q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        stats["rhs_evaluations"] += 1
        return system.forces(q, v, t)

    def project(q: FloatArray, vstar: FloatArray, astar: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        Pq = system.phi_q(q, t)
        P = M + (dt * dt / 4) * a * (Pq.T @ Pq)
        cho = sla.cho_factor(P, lower=True, check_finite=False)
        vel = sla.cho_solve(cho, M @ vstar - (dt * dt / 4) * a * (Pq.T @ system.phi_t(q, t)), check_finite=False)
        # Phi_q q'' = gamma  ->  Phi'' = Phi_q q'' - gamma: project onto it
        acc = sla.cho_solve(cho, M @ astar + (dt * dt / 4) * a * (Pq.T @ system.gamma(q, vel, t)),
                            check_finite=False)
        return vel, acc

    # consistent initial accelerations (KKT / least squares), lambda* = 0
    h = h_of(q, v, 0.0)
    Pq = system.phi_q(q, 0.0)
    cho0 = sla.cho_factor(M + a * Pq.T @ Pq, lower=True, check_finite=False)
    lam = np.zeros(mh)
    acc = sla.cho_solve(cho0, h + a * Pq.T @ system.gamma(q, v, 0.0), check_finite=False)
    for _ in range(MAX_ITER):
        lam = lam + a * (Pq @ acc - system.gamma(q, v, 0.0))
        new = sla.cho_solve(cho0, h - Pq.T @ lam + a * Pq.T @ system.gamma(q, v, 0.0), check_finite=False)
        if np.max(np.abs(new - acc)) <= 1e-14 * max(np.max(np.abs(new)), 1.0):
            acc = new
            break
        acc = new
    lam = np.zeros(mh)  # index-3 multipliers (position level) start from zero
    frames: list[dict[str, Any]] = []

    def record(t: float, q: FloatArray, v: FloatArray, acc: FloatArray) -> None:
        phi = system.phi(q, t)
        C = system.constraint_matrix(q, t)
        pv = float(np.linalg.norm(phi)) if phi.size else 0.0
        vv = float(np.linalg.norm(C @ v + system.xi(q, t))) if C.shape[0] else 0.0
        frames.append(dict(t=t, q=q.copy(), v=v.copy(), a=acc.copy(), reactions=np.zeros((nc, 6)),
                           kinetic=system.kinetic_energy(q, v, t), potential=system.potential_energy(q, t),
                           work=np.nan, violation_position_before=pv, violation_position=pv,
                           violation_velocity_before=vv, violation_velocity=vv))

    record(0.0, q, v, acc)
    t = 0.0
    status, message = Status.FINISHED, ""
    try:
        for k in range(1, n_out + 1):
            if cancel is not None and cancel():
                status, message = Status.CANCELLED, f"cancelled at t = {t:.6g} s"
                break
            for s in range(sub):
                t1 = (k - 1) * settings.dt + (s + 1) * dt
                qhat_v = 2 / dt * q + v
                qhat_a = 4 / dt ** 2 * q + 4 / dt * v + acc
                qn = q + dt * v + dt * dt / 2 * acc  # predictor
                vn = 2 / dt * qn - qhat_v
                an = 4 / dt ** 2 * qn - qhat_a
                hn = h_of(qn, vn, t1)
                if has_forces:
                    K, D = _force_jacobians(system, qn, vn, t1, hn)
                    stats["rhs_evaluations"] += 2 * n
                else:
                    K = D = None
                converged = False
                phi = system.phi(qn, t1)
                for it in range(max_newton):
                    Pq = system.phi_q(qn, t1)
                    f = (dt * dt / 4) * (M @ an + Pq.T @ (lam + a * phi) - hn)
                    T = M + (dt * dt / 4) * a * (Pq.T @ Pq)
                    if K is not None:
                        T = T + (dt * dt / 4) * K + (dt / 2) * D
                    dq = -np.linalg.solve(T, f)
                    qn = qn + dq
                    vn = 2 / dt * qn - qhat_v
                    an = 4 / dt ** 2 * qn - qhat_a
                    hn = h_of(qn, vn, t1)
                    phi = system.phi(qn, t1)
                    lam = lam + a * phi  # lambda*_{i+1} = lambda*_i + alpha Phi_{i+1}
                    stats["newton_iterations"] += 1
                    if np.max(np.abs(dq)) <= newton_tol * max(1.0, float(np.max(np.abs(qn)))):
                        converged = True
                        break
                if not converged:
                    # near a singular configuration the multiplier update contracts slowly in the directions
                    # where Phi_q loses rank; a small last correction is accepted (and counted)
                    big = np.max(np.abs(dq)) > accept_tol * max(1.0, float(np.max(np.abs(qn))))
                    if big or not np.all(np.isfinite(qn)):
                        raise SolverFailure(f"ALI3-P: Newton did not converge at t = {t1:.6g} s "
                                            f"(last correction {np.max(np.abs(dq)):.3g})")
                    stats["newton_unconverged"] += 1
                v, acc = project(qn, vn, an, t1)
                q = qn
                t = t1
                stats["steps"] += 1
            record(k * settings.dt, q, v, acc)
        else:
            message = f"finished at t = {t:.6g} s"
    except (SolverFailure, np.linalg.LinAlgError) as exc:
        status, message = Status.FAILED, str(exc)
    stats.update(cpu_seconds=time.process_time() - clock0, wall_seconds=time.perf_counter() - wall0,
                 simulated_seconds=t, alpha=a, step=dt)
    block = FrameBlock(**{key: np.array([f[key] for f in frames]) for key in FrameBlock.__dataclass_fields__})
    return Trajectory(system, settings, block, status, message, stats)


__all__ = ["AugmentedLagrangianFormulation", "simulate_ali3p"]
