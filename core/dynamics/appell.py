"""Appell's equations with quasi-velocities ([002], §2.3), numeric: formulation ``"appell"``.

With f quasi-velocities u = F(q, t) q' + f0 (:mod:`mechstudio.core.symbolic.quasi`) and the velocity constraints
C q' + xi = 0, the generalized speeds are q' = H u + h0, where H is the unique n x f matrix with C H = 0 and
F H = I (it exists while [C; F] has full column rank n, i.e. while the choice is independent of the
constraints). We compute it from an orthonormal null-space basis N of C (SVD, rank-tolerant, so redundant
constraints are harmless):

    B = F N (f x f),   H = N B^-1,   h0 = p - H (F p + f0),   p = -C^+ xi.

Differentiating, q'' = H u' + a0 with a0 = H' u + h0'. Instead of differentiating H numerically, a0 is the
solution of the same two conditions one derivative up: C a0 = -eta and F a0 = -kappa (kappa = F' q' + f0',
from differentiating u = F q' + f0), so a0 = p2 - H (F p2 + kappa) with p2 = -C^+ eta. This is exact for
rheonomic constraints (xi, eta depend on t) and time-dependent choices.

Appell's equations dG/du' = Q~ with G = 1/2 q''^T M q'' (+ terms free of u') and Q~ = H^T h read

    (H^T M H) u' = H^T (h - M a0).

The integrated state is y = [u; q]; (q, q') are unpacked as q' = H u + h0. Reactions: base class
(lambda from C^T lambda = M q'' - h). The run stops with :class:`SolverFailure` naming the quasi-velocity that
became dependent when B = F N becomes (nearly) singular or changes the sign of its determinant relative to the
last (re)start; the message suggests a coordinate speed that would restore independence.

Options: ``choice`` (None: the file's choice, else automatic; "auto"; "file"; or an alternative's name),
``singular_tol`` (default 1e-5: smallest singular value of the row-normalised B), ``rank_rtol`` (1e-9).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from mechstudio.core.dynamics.base import Accelerations, Formulation, SolverFailure, register_formulation
from mechstudio.core.symbolic.quasi import QuasiVelocityChoice, QuasiVelocityError, load_choice, null_space
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.types import FloatArray

SINGULAR_TOL = 1e-5


class AppellKinematics:
    """H, h0, a0 of a quasi-velocity choice on a ConstrainedSystem (shared by both Appell formulations)."""

    def __init__(self, system: ConstrainedSystem, choice: QuasiVelocityChoice, singular_tol: float = SINGULAR_TOL,
                 rank_rtol: float = 1e-9):
        self.system = system
        self.choice = choice
        self.f = choice.f
        self.singular_tol = singular_tol
        self.rank_rtol = rank_rtol
        self.ref_sign: float | None = None  # orientation (see _orientation) at the last (re)start
        self.N_prev: FloatArray | None = None

    def basis(self, q: FloatArray, t: float) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """(C, F, N, H) at (q, t); raises SolverFailure when the choice is singular there."""
        sysm = self.system
        C = sysm.constraint_matrix(q, t)
        F = self.choice.F_num(q, t)
        N, rank, gap = self._null_space(C)
        if N.shape[1] != self.f:
            raise SolverFailure(
                f"at t = {t:.6g} s the constraints leave {N.shape[1]} velocity degrees of freedom "
                f"(n - rank C = {sysm.n} - {rank}) but the quasi-velocity choice has {self.f} "
                f"({', '.join(self.choice.names) or 'none'}): the mechanism is at a singular position")
        if gap < self.rank_rtol:
            raise SolverFailure(
                f"at t = {t:.6g} s the mechanism is at a singular position: the constraints gain a velocity "
                f"degree of freedom (singular value ratio {gap:.2e} of C); the {self.f} quasi-velocities "
                f"({', '.join(self.choice.names) or 'none'}) no longer determine q'")
        if self.f == 0:
            return C, F, N, np.zeros((sysm.n, 0))
        B = F @ N
        norms = np.linalg.norm(F, axis=1)
        norms[norms == 0] = 1.0
        Bs = B / norms[:, None]
        U, s, Vt = np.linalg.svd(Bs)
        sign = self._orientation(N, B)
        if s[-1] < self.singular_tol or (self.ref_sign is not None and sign != 0.0 and sign != self.ref_sign):
            raise SolverFailure(self._singular_message(q, t, N, U[:, -1], Vt[-1], float(s[-1])))
        return C, F, N, np.linalg.solve(B.T, N.T).T  # H = N B^-1

    def _singular_message(self, q: FloatArray, t: float, N: FloatArray, left: FloatArray, right: FloatArray,
                          smin: float) -> str:
        names = self.choice.names
        v = int(np.argmax(np.abs(left)))
        others = [n for k, n in enumerate(names) if k != v]
        # replacing row v by e_j^T restores rank when e_j^T N w != 0: suggest the coordinate speed with largest
        direction = np.abs(N @ right)
        taken = set(self.choice.auto_coordinates or [])
        for k in range(self.f):  # coordinates whose speed already is a quasi-velocity
            nz = np.flatnonzero(np.abs(self.choice.F_num(q, t)[k]) > 0)
            if nz.size == 1:
                taken.add(int(nz[0]))
        order = [int(j) for j in np.argsort(-direction) if int(j) not in taken]
        suggestion = f"d({self.system.coord_names[order[0]]})" if order else "another speed"
        return (f"the quasi-velocity {names[v]!r} became dependent on the constraints"
                + (f" and {', '.join(map(repr, others))}" if others else "")
                + f" at t = {t:.6g} s (smallest singular value of F N: {smin:.2e}); the choice "
                f"{self.choice.key!r} is singular here. Choose another quasi-velocity instead of {names[v]!r}, "
                f"e.g. the speed {suggestion} or one that stays independent (such as a speed along the path), "
                f"or use the automatic choice 'auto'.")

    def terms(self, q: FloatArray, t: float, u: FloatArray | None = None,
              v: FloatArray | None = None) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(q', H, a0) at q, t and either u (q' = H u + h0 is computed) or a consistent q' (one SVD)."""
        sysm = self.system
        C, F, N, H = self.basis(q, t)
        lstsq = np.linalg.lstsq
        if v is None:
            assert u is not None
            xi = sysm.xi(q, t)
            p = -lstsq(C, xi, rcond=None)[0] if C.shape[0] else np.zeros(sysm.n)
            v = p + H @ (u - F @ p - self.choice.f0_num(q, t))
        eta = sysm.eta(q, v, t)
        p2 = -lstsq(C, eta, rcond=None)[0] if C.shape[0] else np.zeros(sysm.n)
        a0 = p2 - H @ (F @ p2 + self.choice.kappa_num(q, v, t))
        return v, H, a0

    def velocities(self, u: FloatArray, q: FloatArray, t: float) -> FloatArray:
        """q' = H u + h0."""
        sysm = self.system
        C, F, N, H = self.basis(q, t)
        xi = sysm.xi(q, t)
        p = -np.linalg.lstsq(C, xi, rcond=None)[0] if C.shape[0] else np.zeros(sysm.n)
        return p + H @ (u - F @ p - self.choice.f0_num(q, t))

    def _null_space(self, C: FloatArray) -> tuple[FloatArray, int, float]:
        """(N, rank, gap): the f right singular vectors of C with the smallest singular values. The rank is
        n - f by construction (so drift of a redundant constraint, which makes a tiny singular value grow, is
        harmless); ``gap`` = sigma_(n-f) / sigma_max tells how far from a singular position (rank drop) we are.
        A rank above n - f (sigma_(n-f+1) not small) is reported as N with fewer columns."""
        n = self.system.n
        r = n - self.f
        if C.shape[0] == 0 or r == 0:
            N, rank = null_space(C, self.rank_rtol)
            return N, rank, 1.0
        _, s, vt = np.linalg.svd(C)
        smax = max(float(s[0]), 1e-300)
        if s.size < r:
            return vt[s.size:].T, int(s.size), 0.0
        if s.size > r and s[r] > 1e-4 * smax:  # more independent constraints than n - f
            rank = int(np.sum(s > self.rank_rtol * smax))
            return vt[rank:].T, rank, 1.0
        return vt[r:].T, r, float(s[r - 1]) / smax

    def _orientation(self, N: FloatArray, B: FloatArray) -> float:
        """sign det(F N) with N's orientation carried along continuously from evaluation to evaluation
        (the SVD's orientation of N is arbitrary): a change of sign means the integration stepped across a
        configuration where the choice is singular. When tracking starts (or N turned too far since the
        last evaluation to be followed) the current sign becomes the reference."""
        sign = float(np.sign(np.linalg.det(B)))
        d = float(np.linalg.det(self.N_prev.T @ N)) if self.N_prev is not None \
            and self.N_prev.shape == N.shape else 0.0
        if abs(d) < 0.5:
            self.N_prev, self.ref_sign = N, sign
            return sign
        if d < 0:  # flip the orientation of N to follow the previous one
            N = N.copy()
            N[:, 0] *= -1.0
            sign = -sign
        self.N_prev = N
        return sign

    def set_reference(self, q: FloatArray, t: float) -> None:
        """Restart the tracking of the choice's orientation (at a (re)start of the integration)."""
        self.ref_sign, self.N_prev = None, None
        self.basis(q, t)


def solve_reduced(Mr: FloatArray, br: FloatArray, names: list[str], t: float) -> FloatArray:
    if Mr.shape[0] == 0:
        return np.zeros(0)
    try:
        c = np.linalg.cond(Mr)
        if not np.isfinite(c) or c > 1e13:
            raise np.linalg.LinAlgError
        return np.linalg.solve(Mr, br)
    except np.linalg.LinAlgError:
        raise SolverFailure(f"the reduced mass matrix H^T M H of the quasi-velocities {', '.join(names)} is "
                            f"singular at t = {t:.6g} s: some quasi-velocity moves no mass") from None


class AppellBase(Formulation):
    """State y = [u; q] and the pack/unpack of both Appell formulations."""

    def __init__(self, system: ConstrainedSystem, **options: Any):
        super().__init__(system, **options)
        try:
            self.choice = load_choice(system, options.get("choice"), options.get("q0"), options.get("t0", 0.0))
        except QuasiVelocityError as exc:
            raise SolverFailure(str(exc)) from None
        self.kin = AppellKinematics(system, self.choice, options.get("singular_tol", SINGULAR_TOL),
                                    options.get("rank_rtol", 1e-9))
        self.f = self.choice.f

    def pack(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        self.kin.set_reference(q, t)
        return np.concatenate((self.choice.values(q, v, t), q))

    def unpack(self, y: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        u, q = y[:self.f], y[self.f:]
        return q, self.kin.velocities(u, q, t)

    def evaluate(self, q: FloatArray, t: float, u: FloatArray | None = None,
                 v: FloatArray | None = None) -> tuple[FloatArray, FloatArray, FloatArray, dict[str, Any]]:
        """(u', q', q'', info) at q, t and u (or a consistent q')."""
        raise NotImplementedError

    def accelerations(self, q: FloatArray, v: FloatArray, t: float) -> Accelerations:
        ud, _, qdd, info = self.evaluate(q, t, v=v)
        info.update(u_dot=ud, quasi_velocities=list(self.choice.names))
        return Accelerations(qdd, info=info)

    def rhs(self, t: float, y: FloatArray) -> FloatArray:
        self.rhs_evaluations += 1
        ud, v, _, _ = self.evaluate(y[self.f:], t, u=y[:self.f])
        return np.concatenate((ud, v))

    def rhs_and_power(self, t: float, y: FloatArray) -> tuple[FloatArray, float]:
        """[u'; q'] and the power of the non-conservative and constraint forces (energy bookkeeping)."""
        self.rhs_evaluations += 1
        q = y[self.f:]
        ud, v, qdd, info = self.evaluate(q, t, u=y[:self.f])
        return np.concatenate((ud, v)), self.power(q, v, t, Accelerations(qdd, info=info))

    def power(self, q: FloatArray, v: FloatArray, t: float, acc: Accelerations) -> float:
        """P_nc + q'^T (M q'' - h) (the constraint forces' power; zero for scleronomic constraints)."""
        h = acc.info.get("h")
        if h is None:
            h = self.system.forces(q, v, t)
        Mqdd = self.system.mass_matrix(q, t) @ acc.qdd
        return float(self.system.nonconservative_power(q, v, t) + v @ (Mqdd - h))


@register_formulation("appell")
class AppellFormulation(AppellBase):
    """Numeric Appell equations (H^T M H) u' = H^T (h - M a0) (module docstring)."""

    def evaluate(self, q: FloatArray, t: float, u: FloatArray | None = None,
                 v: FloatArray | None = None) -> tuple[FloatArray, FloatArray, FloatArray, dict[str, Any]]:
        sysm = self.system
        v, H, a0 = self.kin.terms(q, t, u, v)
        M = sysm.mass_matrix(q, t)
        h = sysm.forces(q, v, t)
        ud = solve_reduced(H.T @ M @ H, H.T @ (h - M @ a0), self.choice.names, t)
        return ud, v, H @ ud + a0, {"h": h}
