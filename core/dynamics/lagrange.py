"""Lagrange multipliers: the augmented (KKT) system, the classical cross-check of the projection method.

    [ M   C^T ] [ q''     ]   [ h    ]
    [ C   0   ] [ -lambda ] = [ -eta ]       (unknowns q'' and mu = -lambda)

([001] sign convention M q'' = h + C^T lambda, C q'' + eta = 0). The matrix is symmetric and, for
independent constraints and M positive definite on null(C), nonsingular even when M itself is singular (a point
mass with zero rotational inertia), so M^-1 is never formed. With redundant constraints it is singular; then the
independent rows of C are kept (pivoted QR, RANK_RTOL), which gives the unique q'', and lambda is the
minimum-norm one (flagged as not unique). State y = [q; q'].
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from mechstudio.core.dynamics.base import (Accelerations, Formulation, SolverFailure, multipliers_from_accelerations,
                                register_formulation)
from mechstudio.core.kinematics.assembly import RANK_RTOL
from mechstudio.core.types import FloatArray


@register_formulation("lagrange")
class LagrangeFormulation(Formulation):
    """Direct solution of the KKT system above (redundant rows of C left out, chosen once and re-chosen when
    the reduced KKT matrix becomes singular)."""

    rows: FloatArray | None = None

    def accelerations(self, q: FloatArray, v: FloatArray, t: float) -> Accelerations:
        sys_ = self.system
        n, m = sys_.n, sys_.m
        M = sys_.mass_matrix(q, t)
        h = sys_.forces(q, v, t)
        if m == 0:
            return Accelerations(np.linalg.solve(M, h), np.zeros(0), info={"h": h})
        C = sys_.constraint_matrix(q, t)
        eta = sys_.eta(q, v, t)
        if self.rows is None:
            self.rows = _independent_rows(C)
        sol = _kkt_solve(M, C[self.rows], h, eta[self.rows])
        if sol is None:  # the kept row selection no longer independent: choose again here
            self.rows = _independent_rows(C)
            sol = _kkt_solve(M, C[self.rows], h, eta[self.rows])
            if sol is None:
                raise SolverFailure(f"the KKT matrix is singular at t = {t:.6g} s: the masses and constraints do "
                                    "not determine the accelerations")
        qdd = sol[:n]
        if len(self.rows) == m:
            return Accelerations(qdd, -sol[n:], True, info={"h": h})
        lam, _ = multipliers_from_accelerations(sys_, q, v, t, qdd)  # the minimum-norm lambda
        return Accelerations(qdd, lam, False, info={"h": h})


def _independent_rows(C: FloatArray) -> FloatArray:
    """Indices of rank(C) independent rows of C (all rows when C has full row rank), by pivoted QR of C^T."""
    _, R, piv = sla.qr(C.T, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    rank = int(np.sum(d > RANK_RTOL * max(d[0], 1e-300))) if d.size else 0
    return np.arange(C.shape[0]) if rank == C.shape[0] else np.sort(piv[:rank])


def _kkt_solve(M: FloatArray, C: FloatArray, h: FloatArray, eta: FloatArray) -> FloatArray | None:
    """Solve [M C^T; C 0][q''; mu] = [h; -eta]; None when the matrix is numerically singular."""
    n, m = M.shape[0], C.shape[0]
    K = np.zeros((n + m, n + m))
    K[:n, :n] = M
    K[:n, n:] = C.T
    K[n:, :n] = C
    lu, piv, info = _getrf(K)
    diag = np.abs(np.diag(lu))
    if info != 0 or not np.all(np.isfinite(diag)) or diag.min() <= 1e-13 * diag.max():
        return None
    x, _ = _getrs(lu, piv, np.concatenate((h, -eta)))
    return x


_getrf, _getrs = sla.get_lapack_funcs(("getrf", "getrs"), (np.zeros(1),))
