"""ALI3-P: the index-3 augmented Lagrangian with mass-orthogonal projections (Bayo and Ledesma 1996; Cuadrado
et al. 2000), the method of the MBS benchmark papers, as a driver of its own (fixed step, trapezoidal rule).

The equations are in the docstring of ``mechstudio.core.dynamics.augmented_lagrangian`` (method 2), written in the notation
of [001] (docs/references.md). :func:`simulate_ali3p` returns a :class:`~core.run.frames.Trajectory` like
:func:`mechstudio.core.simulate.run` (frames at the output times, stats with rhs_evaluations = evaluations of h,
svd_count = 0 since no SVD is used); ``mechstudio bench --suite iftomm`` uses it.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.linalg as sla

from mechstudio.core.dynamics.augmented_lagrangian import ALI3P_PENALTY, MAX_ITER, dense_mass_matrix
from mechstudio.core.dynamics.base import SolverFailure
from mechstudio.core.run.frames import FRAME_FIELDS, FrameBlock, Trajectory, concat_blocks
from mechstudio.core.run.initial import initial_state
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.types import FloatArray, Status


def force_jacobians(system: ConstrainedSystem, q: FloatArray, v: FloatArray, t: float, h0: FloatArray
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
    M = dense_mass_matrix(system, q, 0.0)
    # alpha dt^2/4 = ALI3P_PENALTY * max|M|: the multiplier update then contracts by ~1/ALI3P_PENALTY per iteration
    a = float(alpha if alpha is not None else ALI3P_PENALTY * float(np.max(np.abs(M))) * 4 / dt ** 2)
    has_forces = bool(getattr(system, "spring_k", np.zeros(0)).size or getattr(system, "rot_k", np.zeros(0)).size)
    stats: dict[str, Any] = {"rhs_evaluations": 0, "svd_count": 0, "steps": 0, "newton_iterations": 0,
                             "newton_unconverged": 0,
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
                    K, D = force_jacobians(system, qn, vn, t1, hn)
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
    block = FrameBlock(**{key: np.array([f[key] for f in frames]) for key in FRAME_FIELDS})
    return Trajectory(system, settings, block, status, message, stats)


__all__ = ["force_jacobians", "simulate_ali3p"]
