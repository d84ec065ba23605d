"""Removal of constraint drift ([001], section 4), done by the driver after each step (continuous
integration) or after each output interval (restarting integrators), and on each recorded output.

Positions: Newton-Raphson on the holonomic constraints Phi(q, t) = 0 with the mass-weighted minimum-norm step

    minimise 1/2 dq^T M dq  subject to  C_phi dq = -Phi,

whose solution for a nonsingular M is dq = -M^-1 C_phi^T (C_phi M^-1 C_phi^T)^-1 Phi, eq. (4.10) of [001]
(valid, see the errata in docs/references.md). In general we solve the equivalent KKT system
[M C_phi^T; C_phi 0][dq; mu] = [0; -Phi], which stays valid when M is singular but positive definite on null(C_phi)
(a point mass with zero rotational inertia); least squares covers redundant constraints.

Velocities: the matching projection onto C q' + xi = 0, minimise 1/2 dv^T M dv subject to C (v + dv) = -xi.

Speed (exact, same solutions): when the system's M is constant, diagonal and strictly positive
(``diagonal_mass``, every planar model without a massless body) the minimum-M-norm steps are computed as
eq. (4.10) itself, dq = -M^-1 C^T W^-1 r with the Cholesky factor of W = C M^-1 C^T (m x m instead of a dense
(n + m) square LU; the same unique solution when C has full row rank). When W is numerically singular
(redundant constraints: a Cholesky pivot below 1e-6 of the largest) the KKT/least-squares path above is taken.
Nothing is done when there is nothing to correct: no Newton iteration when ||Phi|| <= ``tol`` already, no
velocity projection when ||C q' + xi|| <= VELOCITY_TOL (round-off; the projection formulation's q' satisfies
C q' + xi = 0 by construction). ``CorrectionResult.changed`` says whether (q, q') were modified, so that the
driver restarts its integrator only then.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.types import FloatArray

POSITION_TOL = 1e-13  # ||Phi||_2 target; the four-bar acceptance asks for < 1e-12
VELOCITY_TOL = 1e-14  # ||C q' + xi||_2 below which the velocity projection is skipped (round-off level)
MAX_ITER = 10
CHOL_PIVOT_RTOL = 1e-6  # W = C M^-1 C^T is taken as singular (redundant rows) below this pivot ratio

KKT_PIVOT_RTOL = 1e-12  # the KKT matrix is taken as singular (redundant constraints) below this LU pivot ratio
LSTSQ_RCOND = 1e-12  # singular values below this fraction of the largest are cut in the least-squares steps

_potrf, _potrs, _getrf, _getrs = sla.get_lapack_funcs(("potrf", "potrs", "getrf", "getrs"), (np.zeros(1),))


@dataclass(frozen=True)
class CorrectionResult:
    q: FloatArray
    v: FloatArray
    position_before: float
    position_after: float
    velocity_before: float  # ||C q' + xi|| of the incoming state
    velocity_after: float
    iterations: int
    converged: bool
    changed: bool = True  # False: q and q' were returned unchanged (nothing above the tolerances)


def _kkt_step(M: FloatArray, C: FloatArray, rhs: FloatArray) -> FloatArray:
    """min 1/2 dx^T M dx subject to C dx = rhs from [M C^T; C 0] [dx; mu] = [0; rhs]: LU with partial pivoting,
    or least squares (the minimum-norm solution; C dx = rhs in the least-squares sense) when a pivot falls below
    KKT_PIVOT_RTOL of the largest. Redundant rows make the KKT matrix singular; an LU solve of it rounds to a
    huge spurious step whenever rhs has a component outside range(C) (a state off the manifold)."""
    n, m = M.shape[0], C.shape[0]
    K = np.zeros((n + m, n + m))
    K[:n, :n] = M
    K[:n, n:] = C.T
    K[n:, :n] = C
    b = np.concatenate((np.zeros(n), rhs))
    lu, piv, info = _getrf(K)  # LAPACK directly (as np.linalg.solve, without its overhead)
    d = np.abs(np.diagonal(lu))
    sol = None
    if info == 0 and d.min() > KKT_PIVOT_RTOL * d.max():
        sol, _ = _getrs(lu, piv, b)
    if sol is None or not np.all(np.isfinite(sol)):
        sol = np.linalg.lstsq(K, b, rcond=LSTSQ_RCOND)[0]
    return sol[:n]


def _diag_step(minv: FloatArray, C: FloatArray, rhs: FloatArray) -> FloatArray | None:
    """min 1/2 dx^T M dx s.t. C dx = rhs for M = diag(1/minv): M^-1 C^T (C M^-1 C^T)^-1 rhs (eq. 4.10);
    None when C M^-1 C^T is numerically singular (redundant rows)."""
    CM = C * minv
    W = CM @ C.T
    chol, info = _potrf(W, lower=0, clean=0, overwrite_a=1)
    if info != 0:
        return None
    d = np.abs(np.diagonal(chol))
    if not (d.min() > CHOL_PIVOT_RTOL * d.max()):
        return None
    y, _ = _potrs(chol, rhs, lower=0)
    return y @ CM


class _Steps:
    """The minimum-M-norm step of the system: eq. (4.10) for a positive diagonal M, else KKT (see docstring)."""

    def __init__(self, system: ConstrainedSystem, q: FloatArray, t: float):
        self.system, self.t = system, t
        self.minv = None
        if getattr(system, "diagonal_mass", False):
            md = np.asarray(system.mass_diagonal, float)
            if md.size and np.all(md > 0):
                self.minv = 1.0 / md
        self.M = None if self.minv is not None else system.mass_matrix(q, t)

    def step(self, q: FloatArray, C: FloatArray, rhs: FloatArray) -> FloatArray:
        if self.minv is not None:
            dx = _diag_step(self.minv, C, rhs)
            if dx is not None:
                return dx
            return _weighted_lstsq_step(self.minv, C, rhs)
        M = self.M if self.M is not None else self.system.mass_matrix(q, self.t)
        return _kkt_step(M, C, rhs)


def _weighted_lstsq_step(minv: FloatArray, C: FloatArray, rhs: FloatArray) -> FloatArray:
    """min 1/2 dx^T M dx subject to C dx = rhs in the least-squares sense, for M = diag(1/minv) > 0 and C with
    (nearly) redundant rows: dx = M^-1/2 pinv(C M^-1/2) rhs, from an m x n problem instead of the (n + m) square
    KKT one. Singular values of C M^-1/2 below CHOL_PIVOT_RTOL of the largest are cut: the scale on which
    :func:`_diag_step` found W = C M^-1 C^T singular (its Cholesky pivots are of the order of those singular
    values); keeping them would divide the residual by them (steps 100x the offset, tested)."""
    w = np.sqrt(minv)
    return w * np.linalg.lstsq(C * w, rhs, rcond=CHOL_PIVOT_RTOL)[0]


def correct(system: ConstrainedSystem, q: FloatArray, v: FloatArray, t: float, *,
            tol: float = POSITION_TOL, max_iter: int = MAX_ITER) -> CorrectionResult:
    """Project (q, q') back onto Phi = 0 and C q' + xi = 0 (see module docstring)."""
    q0 = q
    phi = system.phi(q, t)
    before = float(np.sqrt(phi @ phi)) if phi.size else 0.0
    C0 = system.constraint_matrix(q, t)
    xi0 = system.xi(q, t) if C0.shape[0] else np.zeros(0)
    vres = C0 @ v + xi0 if C0.shape[0] else np.zeros(0)
    vbefore = float(np.sqrt(vres @ vres)) if vres.size else 0.0
    res, it = before, 0
    steps: _Steps | None = None
    if res > tol:
        q = q.copy()
        steps = _Steps(system, q, t)
        while res > tol and it < max_iter:
            dq = steps.step(q, system.phi_q(q, t), -phi)
            q += dq
            phi = system.phi(q, t)
            new = float(np.sqrt(phi @ phi))
            it += 1
            if not np.isfinite(new) or (new > 0.5 * res and new > tol):
                res = new
                break
            res = new
        steps.M = None  # M(q) of the corrected q for the velocities
    if it:
        C, xi = system.constraint_matrix(q, t), system.xi(q, t)
        vres = C @ v + xi if C.shape[0] else np.zeros(0)
        vnorm = float(np.sqrt(vres @ vres)) if vres.size else 0.0
    else:
        C, vnorm = C0, vbefore
    changed = q is not q0
    vafter = vnorm
    if vres.size and vnorm > VELOCITY_TOL:
        if steps is None:
            steps = _Steps(system, q, t)
        v = v + steps.step(q, C, -vres)
        r = C @ v + (xi if it else xi0)
        vafter = float(np.sqrt(r @ r))
        changed = True
    return CorrectionResult(q, v, before, res, vbefore, vafter, it, res <= max(tol, 1e-10), changed)
