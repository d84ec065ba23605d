"""Linearisation about an equilibrium and the modes of vibration: natural frequencies, damping ratios, mode shapes.

The equations of motion of a holonomic, scleronomic :class:`~mechstudio.core.systems.base.ConstrainedSystem` in
its Cartesian coordinates q (n of them, v = q') are Lagrange's equations of the first kind ([001] eq. (2.11))

    M(q) q'' = h(q, q') + Phi_q(q)^T lambda,      Phi(q) = 0,

h the applied generalized forces (gravity, springs, dampers, loads) with the velocity-quadratic terms. They are
linearised about an equilibrium (q*, v = 0) in independent coordinates of the null-space projection ([001] §2):

* **Basis.** The SVD of Phi_q(q*) = U S W^T splits R^n into V (n x f, the right singular vectors of the zero
  singular values: an orthonormal basis of the null space of Phi_q, the motions the joints allow) and U_c (the
  r = rank columns spanning the rows of Phi_q; rank by :data:`~mechstudio.core.kinematics.assembly.RANK_RTOL`, so
  redundant constraints are allowed).
* **Chart.** q(z) = q* + V z + U_c w(z), with w(z) the Newton solution of Phi(q(z)) = 0 (the second-order
  correction that keeps the joints closed; w = O(|z|^2) because V^T U_c = 0 and Phi_q V = 0). Its tangent basis is
  exact: J(z) = dq/dz = V + U_c w_z with w_z = -(Phi_q U_c)^+ Phi_q V (the derivative of Phi(q(z)) = 0), so that
  Phi_q(q(z)) J(z) = 0 and J(0) = V. The constraint forces do no work along J, and the reduced equations are

      J^T M J z'' + (terms quadratic in z') = Q_r(z, z') = J(z)^T h(q(z), J(z) z').

* **Linear model.** About z = z' = 0:

      M_r z'' + D_r z' + K_r z = 0,   M_r = V^T M(q*) V,   K_r = -dQ_r/dz (0, 0),   D_r = -dQ_r/dz' (0, 0).

  K_r and D_r are central finite differences of the full nonlinear model (step :data:`FD_STEP` in z), every
  perturbed pose projected back onto Phi = 0. **The geometric stiffness is included** because the differentiated
  quantity is the *projected* force J(z)^T h along the constraint manifold, with the basis J(z) following the
  pose: with h = -Phi_q^T lambda at the equilibrium and Phi_q J = 0 differentiated once,

      K_r = -V^T h_q V - sum_i lambda_i V^T (d^2 Phi_i / dq^2) V,

  the second sum being the stiffness of the constraint curvature under the reaction lambda (for a pendulum in
  Cartesian coordinates it is all there is: h_q = 0 and K_r = m g d from the rod's tension). Differentiating
  V^T h with V frozen would miss it. tests/test_analysis_modes.py checks the two forms against each other.
  The velocity-quadratic terms of h and J' z' vanish to first order at v = 0, so D_r is the dampers' part.
* **Modes.** Undamped: K_r x = w^2 M_r x (symmetric K_r: ``scipy.linalg.eigh``, x M_r-normalised; a
  non-symmetric K_r from follower loads: the general problem). w^2 < 0 is an **unstable** equilibrium: the mode
  grows like exp(s t), s = sqrt(-w^2) [1/s] (an imaginary frequency), reported, never dropped. Modal damping
  ratio of an undamped mode: zeta_k = x_k^T D_r x_k / (2 w_k) (exact for proportional damping). Damped: the
  eigenvalues s of the first-order form y' = A y, y = [z; z'], A = [[0, I], [-M_r^-1 K_r, -M_r^-1 D_r]];
  a pair s = -zeta w_n +- i w_n sqrt(1 - zeta^2) gives w_n = |s|, zeta = -Re(s) / |s|, the damped frequency Im(s).
  Mode shapes in all coordinates: V x (and V y_z for the damped ones).

**Equilibrium.** :func:`find_equilibrium` checks a given pose (the model's assembled initial pose by default):
the residual is ||V^T h(q, 0)|| relative to ||h(q, 0)|| (the projected force over the force the joints carry).
When asked, it searches from there with the package's equilibrium search
(:func:`mechstudio.core.analysis.statics.static_equilibrium`), which goes downhill in the potential and so
prefers a stable equilibrium; the pose it reaches is checked here with the same residual. The modes show when the
equilibrium is not stable.

Not covered (a clear failure status says so): nonholonomic constraints (the null space of C is not the tangent
space of a configuration manifold), time-dependent constraints (drivers, a moving base: no equilibrium at rest; their
periodic steady motions are :mod:`mechstudio.core.analysis.steady_motion`'s),
a mass matrix singular on the allowed motions. Time-dependent applied loads are evaluated at the given time t.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from mechstudio.core.analysis.statics import static_equilibrium
from mechstudio.core.kinematics.assembly import RANK_RTOL, assemble
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.types import FloatArray, Status

#: central-difference step in the independent coordinates z (m or rad along an orthonormal basis): the truncation
#: error ~ FD_STEP^2 * (third derivatives) ~ 1e-10 relative, the rounding error ~ 1e-16 / FD_STEP ~ 1e-11 relative
FD_STEP = 1e-5
#: Newton tolerance of the chart's projection back onto Phi = 0 (units of Phi)
PROJECTION_TOL = 1e-14
#: a pose is an equilibrium when ||V^T h|| <= EQUILIBRIUM_RTOL * ||h|| + EQUILIBRIUM_ATOL (N or N m)
EQUILIBRIUM_RTOL = 1e-7
EQUILIBRIUM_ATOL = 1e-12
#: w^2 within ZERO_RTOL * max|w^2| of 0 counts as a zero-frequency (rigid-body) mode
ZERO_RTOL = 1e-8
#: parts of a damped eigenvalue s below SNAP_RTOL * max|s| are rounding (eigenvalues of A are accurate to about
#: 1e-16 ||A|| plus the finite-difference noise of K_r, D_r ~1e-10 relative): they are set to 0, so that an
#: undamped mode is neither "growing" nor "decaying" by a rounding error
SNAP_RTOL = 1e-9
#: K_r counts as symmetric when ||K_r - K_r^T|| <= SYMMETRY_RTOL * ||K_r|| (finite-difference noise is ~1e-9)
SYMMETRY_RTOL = 1e-6


def row_space_split(A: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(U_c (n, r), V (n, n - r)): orthonormal bases of the row space of the (m, n) matrix ``A`` and of its null
    space, from the SVD A = U S W^T (rank r by :data:`~mechstudio.core.kinematics.assembly.RANK_RTOL`)."""
    n = A.shape[1]
    if A.shape[0] == 0:
        return np.zeros((n, 0)), np.eye(n)
    _, sv, Wt = np.linalg.svd(A)
    tol = RANK_RTOL * max(float(sv[0]) if sv.size else 0.0, 1e-300)
    r = int(np.sum(sv > tol))
    return Wt[:r].T.copy(), Wt[r:].T.copy()


class Chart:
    """The chart q(z) = q* + V z + U_c w(z) of the constraint manifold about ``q0`` (module docstring)."""

    def __init__(self, system: ConstrainedSystem, q0: FloatArray, t: float):
        self.system, self.q0, self.t = system, np.array(q0, dtype=float), t
        A = system.phi_q(self.q0, t) if system.m_holonomic else np.zeros((0, system.n))
        #: the range of Phi_q^T (n, r) and the null space V (n, f), both orthonormal
        self.range, self.basis = row_space_split(A)

    @property
    def dof(self) -> int:
        return self.basis.shape[1]

    def pose(self, z: FloatArray) -> tuple[FloatArray, float]:
        """q(z) on Phi = 0 by Newton in w, and the remaining ||Phi||."""
        s, U = self.system, self.range
        q = self.q0 + self.basis @ z
        if not s.m_holonomic or U.shape[1] == 0:
            return q, 0.0
        res = np.inf
        for _ in range(30):
            phi = s.phi(q, self.t)
            res = float(np.linalg.norm(phi))
            if res <= PROJECTION_TOL or not np.isfinite(res):
                break
            q = q - U @ np.linalg.lstsq(s.phi_q(q, self.t) @ U, phi, rcond=None)[0]
        return q, res

    def tangent(self, q: FloatArray) -> FloatArray:
        """J = dq/dz at the chart pose q: V + U_c w_z, w_z = -(Phi_q U_c)^+ Phi_q V (Phi_q J = 0)."""
        s, U, V = self.system, self.range, self.basis
        if not s.m_holonomic or U.shape[1] == 0:
            return V
        A = s.phi_q(q, self.t)
        return V - U @ np.linalg.lstsq(A @ U, A @ V, rcond=None)[0]

    def reduced_force(self, z: FloatArray, zd: FloatArray | None = None) -> FloatArray:
        """Q_r(z, z') = J(z)^T h(q(z), J(z) z') [N or N m per unit of z]."""
        q, _ = self.pose(z)
        J = self.tangent(q)
        v = np.zeros(self.system.n) if zd is None else J @ zd
        return J.T @ self.system.forces(q, v, self.t)


@dataclass(frozen=True)
class Linearisation:
    """M_r z'' + D_r z' + K_r z = 0 about the equilibrium ``q`` (module docstring); q = q* + V z to first order."""
    q: FloatArray  # the equilibrium pose (n,)
    t: float  # the time the loads were evaluated at [s]
    basis: FloatArray  # V (n, f), orthonormal
    mass: FloatArray  # M_r (f, f)
    stiffness: FloatArray  # K_r (f, f)
    damping: FloatArray  # D_r (f, f)
    residual: float  # ||V^T h(q, 0)|| at q [N, N m]: zero at an exact equilibrium
    force_norm: float  # ||h(q, 0)||, the scale of the residual
    coord_names: tuple[str, ...]

    @property
    def dof(self) -> int:
        return self.basis.shape[1]

    @property
    def state_matrix(self) -> FloatArray:
        """A of y' = A y, y = [z; z'] (2f, 2f)."""
        f = self.dof
        Minv_K = np.linalg.solve(self.mass, self.stiffness)
        Minv_D = np.linalg.solve(self.mass, self.damping)
        return np.block([[np.zeros((f, f)), np.eye(f)], [-Minv_K, -Minv_D]])


def unsupported(system: ConstrainedSystem) -> str:
    """Why the linearisation cannot treat ``system`` ("" when it can)."""
    if system.m_nonholonomic:
        return ("the model has nonholonomic constraints (rolling, knife edges): its allowed velocities are not the "
                "tangents of a configuration manifold, so it has no modes about an equilibrium pose")
    if system.rheonomic:
        return ("the model has time-dependent constraints (drivers or a moving base): it has no equilibrium at "
                "rest; analyse the modes about its steady motion instead (mechstudio modes --steady), or remove the "
                "drivers")
    return ""


def linearise(system: ConstrainedSystem, q: FloatArray, t: float = 0.0, *, step: float = FD_STEP) -> Linearisation:
    """Linearise ``system`` about the pose ``q`` (on Phi = 0) at rest, time ``t``; see the module docstring.

    ``q`` should be an equilibrium (``residual`` tells); the caller checks :func:`unsupported` first. Raises
    ``numpy.linalg.LinAlgError`` only for a non-finite model."""
    chart = Chart(system, q, t)
    V, f, n = chart.basis, chart.dof, system.n
    M = system.mass_matrix(chart.q0, t)
    Mr = V.T @ M @ V
    Mr = 0.5 * (Mr + Mr.T)
    K = np.zeros((f, f))
    D = np.zeros((f, f))
    for k in range(f):
        e = np.zeros(f)
        e[k] = step
        K[:, k] = -(chart.reduced_force(e) - chart.reduced_force(-e)) / (2 * step)
        h_plus = system.forces(chart.q0, V @ e, t)
        h_minus = system.forces(chart.q0, -V @ e, t)
        D[:, k] = -(V.T @ (h_plus - h_minus)) / (2 * step)
    h0 = system.forces(chart.q0, np.zeros(n), t)
    return Linearisation(chart.q0, t, V, Mr, K, D, float(np.linalg.norm(V.T @ h0)), float(np.linalg.norm(h0)),
                         tuple(system.coord_names))


def is_equilibrium(lin: Linearisation) -> bool:
    return lin.residual <= EQUILIBRIUM_RTOL * lin.force_norm + EQUILIBRIUM_ATOL


@dataclass(frozen=True)
class Equilibrium:
    """An equilibrium pose ``q`` (``status`` ok) or the best pose reached and why it is none (``message``)."""
    q: FloatArray
    status: Status
    iterations: int
    residual: float  # ||V^T h(q, 0)|| [N, N m]
    force_norm: float  # ||h(q, 0)||
    message: str = ""


def find_equilibrium(system: ConstrainedSystem, q0: FloatArray | None = None, t: float = 0.0, *,
                     search: bool = True, max_iter: int = 200) -> Equilibrium:
    """The pose ``q0`` (default: the file's rough positions) assembled onto Phi = 0 and checked for equilibrium;
    with ``search``, the equilibrium reached downhill from it by :func:`mechstudio.core.analysis.statics.
    static_equilibrium` (the one equilibrium search of the package). Never raises for numerical trouble."""
    why = unsupported(system)
    q_start = system.initial_guess() if q0 is None else np.asarray(q0, dtype=float)
    if why:
        return Equilibrium(q_start, Status.FAILED, 0, np.nan, np.nan, why)
    iterations, message = 0, ""
    if search:
        found = static_equilibrium(system, q_start, t, max_iter=max_iter)
        q, iterations, message = found.q, found.iterations, found.message
        ok = found.status.ok
    else:
        asm = assemble(system, q_start, t)
        if not asm.status.ok:
            return Equilibrium(asm.q, asm.status, 0, np.nan, np.nan, asm.message)
        q, ok = asm.q, True
    try:
        with np.errstate(all="raise", under="ignore"):
            lin = linearise(system, q, t)
    except (FloatingPointError, np.linalg.LinAlgError, ValueError) as exc:
        return Equilibrium(q, Status.FAILED, iterations, np.nan, np.nan,
                           f"the equilibrium check failed numerically: {exc}")
    if ok and is_equilibrium(lin):
        return Equilibrium(q, Status.CONVERGED, iterations, lin.residual, lin.force_norm)
    if not search:
        message = (f"the pose is not an equilibrium: the projected force ||V^T h|| = {lin.residual:.3g} "
                   f"(||h|| = {lin.force_norm:.3g}); search for one or give an equilibrium pose")
    return Equilibrium(q, Status.FAILED if not search else Status.MAX_ITER, iterations, lin.residual,
                       lin.force_norm, message or f"no equilibrium found near the start: the projected force stays "
                                                   f"at {lin.residual:.3g} (||h|| = {lin.force_norm:.3g})")


@dataclass(frozen=True)
class NaturalMode:
    """One mode of the undamped problem K_r x = w^2 M_r x."""
    omega_squared: float  # w^2 [rad^2/s^2]; < 0: unstable
    reduced_shape: FloatArray  # x (f,), x^T M_r x = 1
    shape: FloatArray  # V x (n,), scaled so that its largest component is +1
    damping_ratio: float  # x^T D_r x / (2 w) (nan for zero-frequency and unstable modes)
    kind: str  # "oscillating", "zero" (rigid-body motion, w = 0) or "unstable"

    @property
    def omega(self) -> float:
        """w [rad/s] (0 for zero and unstable modes)."""
        return float(np.sqrt(self.omega_squared)) if self.kind == "oscillating" else 0.0

    @property
    def frequency_hz(self) -> float:
        return self.omega / (2 * np.pi)

    @property
    def period_s(self) -> float:
        return 2 * np.pi / self.omega if self.omega > 0 else float("inf")

    @property
    def growth_rate(self) -> float:
        """sqrt(-w^2) [1/s] of an unstable mode (its imaginary frequency), else 0."""
        return float(np.sqrt(-self.omega_squared)) if self.kind == "unstable" else 0.0


@dataclass(frozen=True)
class DampedMode:
    """An eigenvalue s of the first-order form (one of each complex-conjugate pair, Im s >= 0)."""
    eigenvalue: complex  # s [1/s]; exactly 0 for a zero-frequency mode (|s|^2 within ZERO_RTOL max|w^2| of 0)
    shape: np.ndarray  # complex (n,): V times the z part of the eigenvector, largest component 1

    @property
    def natural_frequency_hz(self) -> float:
        return abs(self.eigenvalue) / (2 * np.pi)

    @property
    def damped_frequency_hz(self) -> float:
        return abs(self.eigenvalue.imag) / (2 * np.pi)

    @property
    def damping_ratio(self) -> float:
        """-Re(s)/|s| (1 for a real decaying s, -1 for a real growing one, nan for s = 0)."""
        a = abs(self.eigenvalue)
        return -self.eigenvalue.real / a + 0.0 if a > 0 else float("nan")  # + 0.0: no "-0"

    @property
    def stable(self) -> bool:
        return self.eigenvalue.real <= 0


@dataclass(frozen=True)
class ModalAnalysis:
    """The result of :func:`modal_analysis`: ``status`` ok with the modes, or the failure's ``message``."""
    status: Status
    message: str
    equilibrium: Equilibrium
    linearisation: Linearisation | None = None
    modes: tuple[NaturalMode, ...] = ()  # by w^2 ascending: unstable first
    damped: tuple[DampedMode, ...] = ()  # by |s| ascending
    symmetric_stiffness: bool = True

    @property
    def stable(self) -> bool:
        return all(m.kind != "unstable" for m in self.modes) and all(d.stable for d in self.damped)


def normalised(shape: np.ndarray) -> np.ndarray:
    """``shape`` divided by its largest-modulus component (that component becomes +1)."""
    k = int(np.argmax(np.abs(shape)))
    return shape / shape[k] if abs(shape[k]) > 0 else shape


def modes_of(lin: Linearisation) -> tuple[tuple[NaturalMode, ...], tuple[DampedMode, ...], bool]:
    """(undamped modes, damped eigenvalues, K_r symmetric?) of a linearisation (module docstring)."""
    Mr, K, D, V = lin.mass, lin.stiffness, lin.damping, lin.basis
    f = lin.dof
    if f == 0:
        return (), (), True
    knorm = float(np.linalg.norm(K))
    symmetric = float(np.linalg.norm(K - K.T)) <= SYMMETRY_RTOL * knorm + 1e-300 or knorm == 0.0
    if symmetric:
        w2, X = scipy.linalg.eigh(0.5 * (K + K.T), Mr)
    else:
        w2c, X = scipy.linalg.eig(K, Mr)
        w2 = w2c.real
        X = X.real
        X = X / np.sqrt(np.abs(np.einsum("ik,ij,jk->k", X, Mr, X)))[None, :]
    order = np.argsort(w2)
    w2, X = w2[order], X[:, order]
    zero_tol = ZERO_RTOL * max(float(np.max(np.abs(w2))), 1e-300)
    modes = []
    for k in range(f):
        x = X[:, k]
        if abs(w2[k]) <= zero_tol:
            kind, zeta = "zero", float("nan")
        elif w2[k] < 0:
            kind, zeta = "unstable", float("nan")
        else:
            kind, zeta = "oscillating", float(x @ D @ x / (2 * np.sqrt(w2[k]))) + 0.0
        shape = normalised(V @ x)
        modes.append(NaturalMode(float(w2[k]), x, shape.real, zeta, kind))
    s, Y = np.linalg.eig(lin.state_matrix)
    scale = max(float(np.max(np.abs(s))), 1e-300)
    keep = [k for k in range(2 * f) if s[k].imag >= -SNAP_RTOL * scale]
    keep.sort(key=lambda k: (abs(s[k]), s[k].real))
    damped = []
    for k in keep:
        re = s[k].real if abs(s[k].real) > SNAP_RTOL * scale else 0.0
        value = complex(re, abs(s[k].imag) if abs(s[k].imag) > SNAP_RTOL * scale else 0.0)
        if abs(value) ** 2 <= zero_tol:  # a zero-frequency mode: a double (defective) 0, split ~sqrt(noise)
            value = 0j
        damped.append(DampedMode(value, normalised(V @ Y[:f, k])))
    return tuple(modes), tuple(damped), symmetric


def modal_analysis(system: ConstrainedSystem, q0: FloatArray | None = None, t: float = 0.0, *,
                   search: bool = True) -> ModalAnalysis:
    """Equilibrium (:func:`find_equilibrium`), linearisation (:func:`linearise`) and modes (:func:`modes_of`)
    of ``system`` about the pose ``q0`` (default: the file's initial pose). Never raises for numerical
    trouble or unsupported models: the status and message say what failed."""
    eq = find_equilibrium(system, q0, t, search=search)
    if not eq.status.ok:
        return ModalAnalysis(eq.status, eq.message, eq)
    try:
        with np.errstate(all="raise", under="ignore"):
            lin = linearise(system, eq.q, t)
            if lin.dof == 0:
                return ModalAnalysis(Status.CONVERGED, "the mechanism has no degree of freedom: no modes", eq, lin)
            eig_m = np.linalg.eigvalsh(lin.mass)
            if not eig_m[0] > 1e-12 * max(float(eig_m[-1]), 1e-300):
                return ModalAnalysis(Status.SINGULAR, "the mass matrix restricted to the allowed motions is singular "
                                     "(a degree of freedom without mass or inertia): no finite frequencies", eq, lin)
            modes, damped, symmetric = modes_of(lin)
    except (FloatingPointError, np.linalg.LinAlgError, ValueError) as exc:
        return ModalAnalysis(Status.FAILED, f"the linearisation failed numerically: {exc}", eq)
    return ModalAnalysis(Status.CONVERGED, "", eq, lin, modes, damped, symmetric)


__all__ = ["Chart", "DampedMode", "Equilibrium", "Linearisation", "ModalAnalysis", "NaturalMode", "find_equilibrium",
           "is_equilibrium", "linearise", "modal_analysis", "modes_of", "normalised", "row_space_split",
           "unsupported"]
