"""Null-space projection by SVD (source 001, sections 2-3), with the SVD kept between evaluations.

Equations (source 001; sign convention M q'' = h + C^T lambda, eq. 2.11):

* C = U [D 0] V^T (2.5), V = [V1 V2] (2.6); V2 spans the null space of C (2.8); p = V2^T q' (2.9).
* q'' = K h + (K M - I) E eta (3.5), K = V2 (V2^T M V2)^-1 V2^T (3.6), E = V1 D^-1 U^T (3.7).
* The integrated state is z = [p; q] (3.9).

The SVD is costly, so it is computed only at (re)starts and kept while A = [C; V2^T] stays well conditioned
(source 001, section 3). With a kept V2, eq. (3.5) is no longer exact (V2 is not the null space of the
*current* C); we use the form of the errata (shared/sources/README.md), which is:

    A = [C_r; V2^T]  (n x n, invertible while the kept basis is valid)
    q' = A^-1 [-xi_r; p]                           (2.10)
    N  = A^-1 [0; I]   spans null(C(q, t)) exactly
    q''_0 = A^-1 [-eta_r; 0]
    (N^T M N) p' = N^T (h - M q''_0),   q'' = q''_0 + N p'

so C q'' + eta = 0 holds to round-off at every evaluation. C_r are the r rows of C found independent at the
last SVD (rank r by sigma > RANK_RTOL sigma_max; redundant rows are dropped, since they add nothing while the
rank stays r). N^T M N is invertible whenever the constraints make the motion determinate, even with a singular
M (a point mass modelled with zero rotational inertia), so M^-1 is never used.

When is the kept basis still good? The integrator controls the error of p, and q' = A^-1 [-xi; p] amplifies
an error in p by ||N||_2 (exactly 1 right after an SVD, since then N = V2 is orthonormal). The basis is
refreshed at a restart (every output time) when ||N||_2 > NULL_GROWTH_REFRESH = 2, so the integrator's tolerance
on p is never loosened by more than a factor 2 on q'. Within an interval, an evaluation raises
:class:`BasisDegenerate` when a pivot of the LU factors of A falls below 1/COND_FAIL (1e-8) of the largest, and
the driver restarts the interval from the last output with a fresh SVD. Reactions use lambda = E^T (M q'' - h) (corrected eq. 4.2), least squares with the
full C (the minimum-norm lambda when constraints are redundant).
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from core.dynamics.base import Accelerations, Formulation, SolverFailure, register_formulation
from core.kinematics.assembly import RANK_RTOL
from core.system import ConstrainedSystem
from core.types import FloatArray

NULL_GROWTH_REFRESH = 2.0
COND_FAIL = 1e8


class BasisDegenerate(SolverFailure):
    """[C; V2^T] became (nearly) singular with the kept SVD: restart with a fresh one."""


@register_formulation("projection")
class ProjectionFormulation(Formulation):
    """SVD null-space projection with the reduced state z = [p; q] (see module docstring)."""

    def __init__(self, system: ConstrainedSystem, **options: object):
        super().__init__(system, **options)
        self.V2: FloatArray | None = None
        self.rows: FloatArray | None = None  # independent rows of C kept from the last SVD
        self.rank = 0
        self.basis_changes = 0

    # --- basis ------------------------------------------------------------------------------------------
    def refresh_basis(self, q: FloatArray, t: float) -> None:
        """SVD of the current C; keep V2 and the independent rows."""
        C = self.system.constraint_matrix(q, t)
        n = self.system.n
        self.svd_count += 1
        if C.shape[0] == 0:
            self.V2, self.rows, self.rank = np.eye(n), np.zeros(0, np.int64), 0
            return
        U, sv, Vt = np.linalg.svd(C)
        rank = int(np.sum(sv > RANK_RTOL * max(sv[0], 1e-300)))
        self.V2 = Vt[rank:].T.copy()
        self.rank = rank
        if rank == C.shape[0]:
            self.rows = np.arange(C.shape[0])
        else:  # pick r independent rows (pivoted QR of C^T)
            _, _, piv = sla.qr(C.T, mode="economic", pivoting=True)
            self.rows = np.sort(piv[:rank])

    def _factor(self, q: FloatArray, t: float) -> tuple[FloatArray, tuple[FloatArray, FloatArray], FloatArray]:
        """C(q, t), the LU factors of A = [C_r; V2^T] (LAPACK getrf), and A."""
        C = self.system.constraint_matrix(q, t)
        A = np.vstack((C[self.rows], self.V2.T))
        lu, piv, info = _getrf(A)
        if info != 0 or not np.all(np.isfinite(lu)):
            raise BasisDegenerate(f"[C; V2^T] is singular at t = {t:.6g} s")
        return C, (lu, piv), A

    def basis_condition(self, q: FloatArray, t: float) -> float:
        if self.V2 is None:
            return np.inf
        try:
            _, lu, A = self._factor(q, t)
        except BasisDegenerate:
            return np.inf
        return _cond_estimate(lu, A)

    # --- state ------------------------------------------------------------------------------------------
    def pack(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        if self.V2 is None:
            self.refresh_basis(q, t)
        return np.concatenate((self.V2.T @ v, q))

    def null_space_growth(self, q: FloatArray, t: float) -> float:
        """||N||_2 with N = A^-1 [0; I]: how much a unit change of p changes q' (1 for a fresh SVD)."""
        if self.V2 is None:
            return np.inf
        if self.V2.shape[1] == 0:
            return 1.0
        try:
            _, lu, _ = self._factor(q, t)
        except BasisDegenerate:
            return np.inf
        r, k = len(self.rows), self.V2.shape[1]
        rhs = np.zeros((self.system.n, k))
        rhs[r:] = np.eye(k)
        N = _getrs(lu, rhs)
        return float(np.sqrt(np.linalg.eigvalsh(N.T @ N)[-1]))

    def restart(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        if self.V2 is None or self.null_space_growth(q, t) > NULL_GROWTH_REFRESH:
            if self.V2 is not None:
                self.basis_changes += 1
            self.refresh_basis(q, t)
        return self.pack(q, v, t)

    def unpack(self, y: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        k = self.V2.shape[1]
        p, q = y[:k], y[k:]
        _, lu, _ = self._factor(q, t)
        xi = self.system.xi(q, t)
        v = _getrs(lu, np.concatenate((-xi[self.rows], p)))
        return q, v

    # --- dynamics -----------------------------------------------------------------------------------------
    def _solve(self, q: FloatArray, p: FloatArray | None, v: FloatArray | None, t: float
               ) -> tuple[FloatArray, FloatArray, FloatArray, Accelerations]:
        sys_ = self.system
        if self.V2 is None:
            self.refresh_basis(q, t)
        _, lu, _ = self._factor(q, t)
        diag = np.abs(np.diag(lu[0]))
        if diag.min() < diag.max() / COND_FAIL:  # cheap degeneracy test on the pivots
            raise BasisDegenerate(f"[C; V2^T] ill-conditioned at t = {t:.6g} s")
        r, k = len(self.rows), self.V2.shape[1]
        if v is None:
            xi = sys_.xi(q, t)
            v = _getrs(lu, np.concatenate((-xi[self.rows], p)))
        eta = sys_.eta(q, v, t)
        rhs = np.zeros((sys_.n, k + 1))
        rhs[:r, 0] = -eta[self.rows]
        rhs[r:, 1:] = np.eye(k)
        sol = _getrs(lu, rhs)
        qdd0, N = sol[:, 0], sol[:, 1:]
        h = sys_.forces(q, v, t)
        if sys_.diagonal_mass:
            Md = sys_.mass_diagonal
            MN = Md[:, None] * N
            Mqdd0 = Md * qdd0
        else:
            M = sys_.mass_matrix(q, t)
            MN = M @ N
            Mqdd0 = M @ qdd0
        red = N.T @ MN
        if k == 0:  # zero degrees of freedom (fully driven): q'' follows from the constraints alone
            return v, np.zeros(0), qdd0, Accelerations(qdd0, info={"h": h, "Mqdd": Mqdd0})
        chol, info = _potrf(red, lower=1)
        if info != 0:
            raise SolverFailure(f"the reduced mass matrix N^T M N is singular at t = {t:.6g} s: the masses do "
                                "not determine the motion (a massless body that the constraints leave free?)")
        pd, _ = _potrs(chol, N.T @ (h - Mqdd0), lower=1)
        qdd = qdd0 + N @ pd
        Mqdd = Mqdd0 + MN @ pd
        return v, pd, qdd, Accelerations(qdd, info={"h": h, "Mqdd": Mqdd})

    def accelerations(self, q: FloatArray, v: FloatArray, t: float) -> Accelerations:
        return self._solve(q, None, v, t)[3]

    def rhs_and_power(self, t: float, y: FloatArray) -> tuple[FloatArray, float]:
        self.rhs_evaluations += 1
        k = self.V2.shape[1]
        p, q = y[:k], y[k:]
        v, pd, _, acc = self._solve(q, p, None, t)
        return np.concatenate((pd, v)), self.power(q, v, t, acc)


_getrf, _lapack_getrs, _potrf, _potrs = sla.get_lapack_funcs(("getrf", "getrs", "potrf", "potrs"), (np.zeros(1),))


def _getrs(lu: tuple[FloatArray, FloatArray], b: FloatArray) -> FloatArray:
    x, info = _lapack_getrs(lu[0], lu[1], b)
    return x


def _cond_estimate(lu: tuple, A: FloatArray) -> float:
    """1-norm condition estimate of A from its LU factors (LAPACK gecon)."""
    gecon = sla.get_lapack_funcs("gecon", (lu[0],))
    anorm = np.abs(A).sum(axis=0).max()
    rcond, info = gecon(lu[0], anorm, norm="1")
    return np.inf if rcond == 0 else 1.0 / rcond
