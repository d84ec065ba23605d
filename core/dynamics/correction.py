"""Removal of constraint drift (source 001, section 4), done by the driver after each output interval.

Positions: Newton-Raphson on the holonomic constraints Phi(q, t) = 0 with the mass-weighted minimum-norm step

    minimise 1/2 dq^T M dq  subject to  C_phi dq = -Phi,

whose solution for a nonsingular M is dq = -M^-1 C_phi^T (C_phi M^-1 C_phi^T)^-1 Phi, eq. (4.10) (valid, see the
errata). We solve the equivalent KKT system [M C_phi^T; C_phi 0][dq; mu] = [0; -Phi] instead, which stays
valid when M is singular but positive definite on null(C_phi) (a point mass with zero rotational inertia);
least squares covers redundant constraints.

Velocities: the matching projection onto C q' + xi = 0, minimise 1/2 dv^T M dv subject to C (v + dv) = -xi.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.system import ConstrainedSystem
from core.types import FloatArray

POSITION_TOL = 1e-13  # ||Phi||_2 target; the four-bar acceptance asks for < 1e-12
MAX_ITER = 10


@dataclass(frozen=True)
class CorrectionResult:
    q: FloatArray
    v: FloatArray
    position_before: float
    position_after: float
    velocity_before: float
    velocity_after: float
    iterations: int
    converged: bool


def _kkt_step(M: FloatArray, C: FloatArray, rhs: FloatArray) -> FloatArray:
    n, m = M.shape[0], C.shape[0]
    K = np.zeros((n + m, n + m))
    K[:n, :n] = M
    K[:n, n:] = C.T
    K[n:, :n] = C
    b = np.concatenate((np.zeros(n), rhs))
    try:
        sol = np.linalg.solve(K, b)
        if not np.all(np.isfinite(sol)):
            raise np.linalg.LinAlgError
    except np.linalg.LinAlgError:
        sol = np.linalg.lstsq(K, b, rcond=1e-12)[0]
    return sol[:n]


def correct(system: ConstrainedSystem, q: FloatArray, v: FloatArray, t: float, *,
            tol: float = POSITION_TOL, max_iter: int = MAX_ITER) -> CorrectionResult:
    """Project (q, q') back onto Phi = 0 and C q' + xi = 0 (see module docstring)."""
    M = system.mass_matrix(q, t)
    q = q.copy()
    phi = system.phi(q, t)
    before = float(np.linalg.norm(phi)) if phi.size else 0.0
    res, it = before, 0
    while res > tol and it < max_iter:
        dq = _kkt_step(M, system.phi_q(q, t), -phi)
        q += dq
        phi = system.phi(q, t)
        new = float(np.linalg.norm(phi))
        it += 1
        if not np.isfinite(new) or (new > 0.5 * res and new > tol):
            res = new
            break
        res = new
    C, xi = system.constraint_matrix(q, t), system.xi(q, t)
    vres = C @ v + xi if C.shape[0] else np.zeros(0)
    vbefore = float(np.linalg.norm(vres)) if vres.size else 0.0
    v = v.copy()
    if vres.size and vbefore > 0:
        v += _kkt_step(system.mass_matrix(q, t), C, -vres)
    vafter = float(np.linalg.norm(C @ v + xi)) if C.shape[0] else 0.0
    return CorrectionResult(q, v, before, res, vbefore, vafter, it, res <= max(tol, 1e-10))
