"""Rank analysis, assembly (position), velocity and acceleration analysis of constrained systems.

* :func:`rank_analysis`: rank of a constraint matrix by SVD. A singular value counts when
  sigma > RANK_RTOL * sigma_max (RANK_RTOL = 1e-9; the Jacobian columns mix metres and radians, so the
  tolerance is relative to the largest singular value, well above machine precision times the dimension and
  well below the smallest singular values of ordinary mechanisms away from singular positions). Redundant
  rows are found greedily in file order: a row is redundant when its component orthogonal to the rows kept
  so far is below the same relative tolerance, so the constraint named is the last one that adds nothing.
* :func:`assemble`: Newton-Raphson on Phi(q, t) = 0 from rough positions. Each step is the minimum-norm
  solution of Phi_q dq = -Phi (lstsq; valid with redundant constraints), optionally mass-weighted
  (dq = -W^-1 Phi_q^T (Phi_q W^-1 Phi_q^T)^+ Phi, the step (4.10) of source 001, W = diag(M) restricted to
  positive entries), with a backtracking line search on ||Phi||. Never raises: returns a result with a Status
  and a message naming the constraint with the largest residual norm ||Phi_c|| when it fails.
* :func:`constraint_residuals`: ||Phi_c(q, t)||_2 of every holonomic constraint c (a joint's gap in m, or m and
  rad mixed for joints with angle rows), largest first.
* :func:`diagnose_failure`: which constraint keeps a mechanism from assembling. Each constraint in turn, largest
  residual at the rough positions first, is left out and the others are assembled; the first one whose
  omission lets everything else assemble is the culprit, and the configuration returned has every other
  constraint closed, so the culprit's residual is by construction the largest there (what an editor draws and
  names). If no single constraint is to blame, the rough positions and their largest residual are reported.
* :func:`solve_velocities`: C q' = -xi plus the user's prescribed coordinate rates, least squares.
* :func:`solve_accelerations`: Phi_q q'' = gamma (driven, zero-DOF analysis).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from mechstudio.core.systems.base import ConstrainedSystem, ConstraintInfo
from mechstudio.core.types import FloatArray, Status

RANK_RTOL = 1e-9
ASSEMBLY_TOL = 1e-12


@dataclass(frozen=True)
class RankInfo:
    rank: int
    singular_values: FloatArray
    redundant_rows: tuple[int, ...]  # rows (of the analysed matrix) that add nothing to the earlier rows


def rank_analysis(J: FloatArray, rtol: float = RANK_RTOL) -> RankInfo:
    """Rank of J by SVD and the redundant rows in file order (see module docstring)."""
    m = J.shape[0]
    if m == 0 or J.size == 0:
        return RankInfo(0, np.zeros(0), ())
    sv = np.linalg.svd(J, compute_uv=False)
    smax = float(sv[0]) if sv.size else 0.0
    tol = rtol * max(smax, 1e-300)
    rank = int(np.sum(sv > tol))
    basis: list[FloatArray] = []
    redundant = []
    for r in range(m):
        row = J[r].astype(float)
        for b in basis:  # modified Gram-Schmidt, twice for stability
            row = row - (b @ row) * b
        for b in basis:
            row = row - (b @ row) * b
        norm = float(np.linalg.norm(row))
        if norm > tol:
            basis.append(row / norm)
        else:
            redundant.append(r)
    return RankInfo(rank, sv, tuple(redundant))


@dataclass(frozen=True)
class NewtonResult:
    q: FloatArray
    status: Status
    iterations: int
    residual: float  # ||Phi||_2 at q
    message: str = ""
    history: tuple[float, ...] = field(default=(), repr=False)


def _step(J: FloatArray, phi: FloatArray, weights: FloatArray | None) -> FloatArray:
    if weights is None:
        return -np.linalg.lstsq(J, phi, rcond=None)[0]
    w_inv = np.where(weights > 0, 1.0 / np.where(weights > 0, weights, 1.0), 0.0)
    Jw = J * w_inv[None, :]
    y = np.linalg.lstsq(Jw @ J.T, phi, rcond=None)[0]
    dq = -w_inv * (J.T @ y)
    if np.any(weights <= 0):  # coordinates with no mass: move them by the plain minimum-norm step
        free = weights <= 0
        resid = phi + J @ dq
        dq[free] -= np.linalg.lstsq(J[:, free], resid, rcond=None)[0]
    return dq


def assemble(system: ConstrainedSystem, q0: FloatArray, t: float = 0.0, *, tol: float = ASSEMBLY_TOL,
             max_iter: int = 60, weights: FloatArray | None = None,
             hold: list[int] | None = None, rows: Sequence[int] | None = None) -> NewtonResult:
    """Newton-Raphson on the holonomic constraints Phi(q, t) = 0 from ``q0`` (see module docstring).

    Coordinates listed in ``hold`` keep their value (e.g. the crank angle a user set). ``rows``: solve only
    these rows of Phi (all holonomic rows when None); :func:`diagnose_failure` leaves one constraint out.
    """
    q = np.array(q0, dtype=float)
    free = np.ones(system.n, dtype=bool)
    if hold:
        free[list(hold)] = False
    sel = np.arange(system.m_holonomic) if rows is None else np.asarray(list(rows), dtype=int)
    if sel.size == 0:
        return NewtonResult(q, Status.CONVERGED, 0, 0.0)
    phi = system.phi(q, t)[sel]
    res = float(np.linalg.norm(phi))
    history = [res]
    stall = 0
    for it in range(1, max_iter + 1):
        if not np.isfinite(res):
            return NewtonResult(q, Status.DIVERGED, it, res, "the constraint residual is not finite",
                                tuple(history))
        if res <= tol:
            return NewtonResult(q, Status.CONVERGED, it - 1, res, "", tuple(history))
        J = system.phi_q(q, t)[sel]
        dq = np.zeros(system.n)
        dq[free] = _step(J[:, free], phi, None if weights is None else weights[free])
        alpha = 1.0
        while True:
            q_try = q + alpha * dq
            phi_try = system.phi(q_try, t)[sel]
            res_try = float(np.linalg.norm(phi_try))
            if res_try < res or alpha < 1e-3:
                break
            alpha *= 0.5
        if res_try >= res * (1 - 1e-6):
            stall += 1
        else:
            stall = 0
        q, phi, res = q_try, phi_try, res_try
        history.append(res)
        if stall >= 6:
            break
    if res <= tol:
        return NewtonResult(q, Status.CONVERGED, len(history) - 1, res, "", tuple(history))
    status = Status.MAX_ITER if stall < 6 else Status.DIVERGED
    solved = set(sel.tolist())
    included = {c.name for c in system.constraints if solved.intersection(c.rows)}
    ranked = [(name, r) for name, r in constraint_residuals(system, q, t) if name in included]
    worst = f" (largest in {ranked[0][0]!r}: {ranked[0][1]:.3g})" if ranked else ""
    msg = (f"the mechanism cannot be assembled at t = {t:g} s: the constraint residual stays at {res:.3g}"
           f"{worst}; check the link lengths and driver ranges")
    return NewtonResult(q, status, len(history) - 1, res, msg, tuple(history))


def holonomic_rows(constraint: ConstraintInfo, m_holonomic: int) -> list[int]:
    """The rows of ``constraint`` that belong to Phi (its position-level rows)."""
    return [r for r in constraint.rows if r < m_holonomic]


def constraint_residuals(system: ConstrainedSystem, q: FloatArray, t: float = 0.0) -> list[tuple[str, float]]:
    """(name, ||Phi_c(q, t)||_2) of every constraint with holonomic rows, largest first (ties: file order)."""
    phi = system.phi(q, t)
    out = []
    for c in system.constraints:
        rows = holonomic_rows(c, system.m_holonomic)
        if rows:
            out.append((c.name, float(np.linalg.norm(phi[rows]))))
    return sorted(out, key=lambda item: -item[1] if np.isfinite(item[1]) else -np.inf)


@dataclass(frozen=True)
class AssemblyDiagnosis:
    """Why a mechanism does not assemble (see :func:`diagnose_failure`)."""

    constraint: str  # the constraint to blame: the largest residual at ``q``
    residual: float  # its ||Phi_c|| at q
    q: FloatArray  # the configuration to show
    isolated: bool  # True: every other constraint is closed at q (||Phi_other|| <= tol)
    residuals: tuple[tuple[str, float], ...]  # every constraint's ||Phi_c|| at q, largest first
    message: str


def diagnose_failure(system: ConstrainedSystem, q0: FloatArray, t: float = 0.0, *, hold: list[int] | None = None,
                     tol: float = ASSEMBLY_TOL) -> AssemblyDiagnosis:
    """The constraint that keeps the mechanism from assembling, and a configuration showing it (module doc)."""
    q0 = np.array(q0, dtype=float)
    m = system.m_holonomic
    order = constraint_residuals(system, q0, t)
    by_name = {c.name: c for c in system.constraints}
    for name, _r0 in order:
        left_out = set(holonomic_rows(by_name[name], m))
        others = [r for r in range(m) if r not in left_out]
        res = assemble(system, q0, t, tol=tol, hold=hold, rows=others)
        if res.status.ok and np.all(np.isfinite(res.q)):
            ranked = tuple(constraint_residuals(system, res.q, t))
            gap = dict(ranked)[name]
            msg = (f"{name} cannot be closed while everything else is assembled (its residual stays at {gap:.3g}); "
                   f"check the lengths and the driver ranges around {name}")
            return AssemblyDiagnosis(name, gap, res.q, True, ranked, msg)
    ranked = tuple(order)
    name, gap = ranked[0] if ranked else ("", 0.0)
    msg = (f"no single constraint is to blame; the largest residual at the given positions is {name} ({gap:.3g})"
           if ranked else "the mechanism has no position constraints")
    return AssemblyDiagnosis(name, gap, q0, False, ranked, msg)


def solve_velocities(system: ConstrainedSystem, q: FloatArray, t: float,
                     prescribed: list[tuple[int, float]] | None = None) -> tuple[FloatArray, float]:
    """Velocities satisfying C q' + xi = 0 and, as far as consistent, the prescribed coordinate rates.

    The constraint rows are enforced exactly (minimum-norm correction of the least-squares fit of the
    prescribed rates onto the constraint manifold). Returns (q', ||C q' + xi||).
    """
    C, xi = system.constraint_matrix(q, t), system.xi(q, t)
    n = system.n
    v = np.zeros(n)
    if prescribed:
        rows = np.zeros((len(prescribed), n))
        vals = np.zeros(len(prescribed))
        for k, (idx, val) in enumerate(prescribed):
            rows[k, idx] = 1.0
            vals[k] = val
        A = np.vstack((C, rows))
        b = np.concatenate((-xi, vals))
        v = np.linalg.lstsq(A, b, rcond=None)[0]
    if C.shape[0]:
        v = v - np.linalg.lstsq(C, C @ v + xi, rcond=None)[0]
        return v, float(np.linalg.norm(C @ v + xi))
    return v, 0.0


def solve_accelerations(system: ConstrainedSystem, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
    """Minimum-norm q'' of Phi_q q'' = gamma (for a driven mechanism with zero DOF it is the unique one)."""
    return np.linalg.lstsq(system.constraint_matrix(q, t), -system.eta(q, v, t), rcond=None)[0]


@dataclass(frozen=True)
class DofReport:
    n: int
    m_holonomic: int
    m_nonholonomic: int
    rank_holonomic: int
    rank_all: int
    dof_positions: int  # n - rank(Phi_q)
    dof_velocities: int  # n - rank(C)
    redundant: tuple[str, ...]  # "constraint.component" labels of redundant rows
    singular_values: FloatArray


def dof_report(system: ConstrainedSystem, q: FloatArray, t: float = 0.0) -> DofReport:
    """Degrees of freedom d = n - rank (source 003) and the redundant constraints, at configuration q."""
    C = system.constraint_matrix(q, t)
    hol = rank_analysis(C[:system.m_holonomic])
    full = rank_analysis(C)
    labels = system.row_labels()
    return DofReport(system.n, system.m_holonomic, system.m_nonholonomic, hol.rank, full.rank,
                     system.n - hol.rank, system.n - full.rank, tuple(labels[r] for r in full.redundant_rows),
                     full.singular_values)
