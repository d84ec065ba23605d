"""Statics and inverse dynamics of a compiled mechanism (source 003: planar bodies in Cartesian coordinates; the
multipliers in the sign convention of [001] eq. (2.11), M q'' = h + C^T lambda).

Static equilibrium (q' = 0, q'' = 0) under gravity, springs and loads at time t:

    Q(q, 0, t) + C(q, t)^T lambda = 0,     Phi(q, t) = 0                                  (S1)

Q = h(q, 0, t) are the applied generalized forces (dampers give nothing at rest). Drivers are constraint rows
like any other: at time t they hold their coordinate at f(t), and their multiplier is the holding force or
torque. The search works on the constraint manifold: at an assembled q the multipliers are the least-squares
solution of C^T lambda = -Q, the residual r = Q + C^T lambda is the unbalanced force along the free motions,
and with N_P, N_C orthonormal bases of the null spaces of Phi_q and C the reduced equations are

    f(z) = N_C^T Q = 0,      K = -N_C^T (d/dq)(Q + C^T lambda)|_lambda N_P                   (S2)

K, the projected stiffness (the Hessian of the Lagrangian V - lambda^T Phi restricted to the tangent space when
the forces are conservative, by central finite differences), gives the Newton step K dz = f, dq = N_P dz,
followed by Newton-Raphson assembly back onto Phi = 0. Where K is not positive definite the step uses
K + mu I (mu shifts the spectrum positive), a direction along which the applied forces do positive work, so the
search slides down to a stable pose instead of climbing to an unstable one. A step is kept when the work of the
unbalanced force along it, 0.5 (r_0 + r_1) . (q_1 - q_0) (trapezoidal), is positive or the residual falls;
otherwise it is halved. The equilibrium is stable when K is positive definite (for a holonomic mechanism with at
least one degree of freedom; otherwise stability is not decided here).

Inverse dynamics of a fully driven (zero-DOF) mechanism: the kinematics from
:func:`mechstudio.core.kinematics.analysis.driven_motion`, then at every time

    C^T lambda = M q'' - h(q, q', t)                                                        (I1)

solved for lambda (:func:`mechstudio.core.dynamics.base.multipliers_from_accelerations`: unique when C is square
and regular, the minimum-norm least-squares solution with redundant constraints). The reactions of each joint
and driver come from the system's own mapping (``ConstrainedSystem.reactions``: the force and moment each
constraint applies to its second body, about the joint point on that body), as in a simulation run.

Failures are statuses with a message, never exceptions.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechstudio.core.dynamics.base import multipliers_from_accelerations
from mechstudio.core.kinematics.analysis import driven_motion
from mechstudio.core.kinematics.assembly import RANK_RTOL, assemble
from mechstudio.core.run.frames import REACTION_COMPONENTS, reaction_columns
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.types import FloatArray, Status

#: numerical failures that end an analysis with a status instead of an exception
NUMERICAL_ERRORS = (np.linalg.LinAlgError, ArithmeticError, ValueError)

#: relative tolerance of the force balance: ||Q + C^T lambda|| <= tol * max(||Q||, ||C^T lambda||)
STATICS_TOL = 1e-10
#: largest step of an angle-like coordinate in one iteration [rad]
MAX_ANGLE_STEP = 0.3
#: largest step of a translation in one iteration, as a fraction of the mechanism's size
MAX_LENGTH_STEP = 0.3


@dataclass(frozen=True)
class StaticResult:
    """A static equilibrium (see the module docstring, (S1)-(S2)).

    ``reactions`` maps every joint, driver and contact to the force and moment (Fx, Fy, Fz, Mx, My, Mz) [N, N m]
    it applies to its second body (global components, moment about the joint point on that body); ``drivers``
    is the part of it that belongs to drivers (the holding force or torque). ``stable`` is True/False where the
    projected stiffness decides it, None where it does not (no degree of freedom, nonholonomic rows, a zero
    eigenvalue, or no equilibrium found).
    """
    q: FloatArray  # (n,) the pose [m, rad]
    lam: FloatArray  # (m,) the multipliers
    reactions: dict[str, FloatArray]
    drivers: dict[str, FloatArray]
    residual: float  # ||Q + C^T lambda|| at q [N, N m mixed]
    force_scale: float  # max(||Q||, ||C^T lambda||), what the residual is relative to
    constraint_residual: float  # ||Phi(q, t)||
    dof: int  # degrees of freedom at q (n - rank Phi_q)
    stable: bool | None
    stiffness_eigenvalues: FloatArray  # eigenvalues of the (symmetric part of the) projected stiffness K
    lambda_unique: bool
    iterations: int
    t: float
    status: Status
    message: str = ""

    def reaction_array(self, system: ConstrainedSystem) -> FloatArray:
        """The reactions as an (n_constraints, 6) array in the order of ``system.constraints``."""
        R = np.zeros((len(system.constraints), 6))
        for i, c in enumerate(system.constraints):
            if c.name in self.reactions:
                R[i] = self.reactions[c.name]
        return R

    def columns(self, system: ConstrainedSystem) -> dict[str, FloatArray]:
        """One-row result table: ``q.<body>.<coord>``, the ``reaction.<constraint>.<component>`` columns of a
        simulation run (docs/results-csv.md), ``residual.force`` (||Q + C^T lambda||), ``violation.position``
        (||Phi||), ``dof`` and ``stable`` (1, 0, or NaN where not decided)."""
        cols: dict[str, FloatArray] = {"t": np.array([self.t])}
        for k, name in enumerate(system.coord_names):
            cols[f"q.{name}"] = self.q[k:k + 1]
        cols.update(reaction_columns(system, self.q[None, :], self.reaction_array(system)[None]))
        cols["residual.force"] = np.array([self.residual])
        cols["violation.position"] = np.array([self.constraint_residual])
        cols["dof"] = np.array([float(self.dof)])
        cols["stable"] = np.array([np.nan if self.stable is None else float(self.stable)])
        return cols


@dataclass(frozen=True)
class InverseDynamicsResult:
    """Driver forces and joint reactions of a driven mechanism over time ((I1) of the module docstring)."""
    t: FloatArray  # (k,) [s]
    q: FloatArray  # (k, n)
    v: FloatArray  # (k, n)
    a: FloatArray  # (k, n)
    lam: FloatArray  # (k, m)
    reactions: FloatArray  # (k, n_constraints, 6) [N, N m], order of system.constraints
    kinetic: FloatArray  # (k,) [J]
    potential: FloatArray  # (k,) [J]
    driver_power: FloatArray  # (k,) [W] power the drivers put into the mechanism, q'^T C_d^T lambda_d
    residual: FloatArray  # (k,) ||M q'' - h - C^T lambda|| [N, N m mixed]
    violation: FloatArray  # (k,) ||Phi|| after assembly
    lambda_unique: bool
    status: Status
    message: str = ""
    info: dict[str, Any] = field(default_factory=dict)

    def reaction(self, system: ConstrainedSystem, name: str) -> FloatArray:
        """(k, 6) history of the reaction of constraint ``name`` (KeyError naming the valid ones)."""
        names = [c.name for c in system.constraints]
        if name not in names:
            raise KeyError(f"no constraint {name!r}; the constraints are {', '.join(names)}")
        return self.reactions[:, names.index(name)]

    def columns(self, system: ConstrainedSystem) -> dict[str, FloatArray]:
        """The result table: ``t``, ``q.*``, ``v.*``, ``a.*``, the reaction columns of a simulation run
        (docs/results-csv.md), ``energy.kinetic``, ``energy.potential``, ``energy.total``, ``power.drivers``,
        ``residual.force`` and ``violation.position``."""
        cols: dict[str, FloatArray] = {"t": self.t}
        for prefix, arr in (("q", self.q), ("v", self.v), ("a", self.a)):
            for k, name in enumerate(system.coord_names):
                cols[f"{prefix}.{name}"] = arr[:, k]
        cols.update(reaction_columns(system, self.q, self.reactions))
        cols["energy.kinetic"] = self.kinetic
        cols["energy.potential"] = self.potential
        cols["energy.total"] = self.kinetic + self.potential
        cols["power.drivers"] = self.driver_power
        cols["residual.force"] = self.residual
        cols["violation.position"] = self.violation
        return cols


# --- helpers -------------------------------------------------------------------------------------------------
def driver_names(system: ConstrainedSystem) -> list[str]:
    """Names of the model's drivers, in the order of ``system.constraints``."""
    declared = {d.name for d in system.model.entities.drivers}
    return [c.name for c in system.constraints if c.name in declared]


def driver_rows(system: ConstrainedSystem) -> list[int]:
    """Rows of C that belong to drivers."""
    names = set(driver_names(system))
    return [r for c in system.constraints if c.name in names for r in c.rows]


def reaction_array(system: ConstrainedSystem, q: FloatArray, lam: FloatArray, t: float) -> FloatArray:
    """(n_constraints, 6) reactions of ``system.reactions`` in the order of ``system.constraints`` (as a run's
    output frame holds them)."""
    R = np.zeros((len(system.constraints), 6))
    if lam.size == 0:
        return R
    reac = system.reactions(q, lam, t)
    for i, c in enumerate(system.constraints):
        r = reac.get(c.name)
        if r is not None:
            R[i] = r
    return R


def null_basis(J: FloatArray, n: int) -> FloatArray:
    """Orthonormal basis (n, d) of the null space of J (rank with the assembly's relative tolerance)."""
    if J.shape[0] == 0:
        return np.eye(n)
    _, s, vt = np.linalg.svd(J)
    rank = int(np.sum(s > RANK_RTOL * s[0])) if s.size and s[0] > 0 else 0
    return vt[rank:].T.copy()


def angle_mask(system: ConstrainedSystem) -> FloatArray:
    """True for coordinates that are not translations (names not ending in .x, .y or .z)."""
    return np.array([not name.endswith((".x", ".y", ".z")) for name in system.coord_names], dtype=bool)


def step_limits(system: ConstrainedSystem, q: FloatArray) -> FloatArray:
    """Largest change of each coordinate in one iteration: MAX_ANGLE_STEP for angles, MAX_LENGTH_STEP times the
    size of the mechanism (spread and distance from the origin of the body positions) for translations."""
    ang = angle_mask(system)
    trans = q[~ang]
    size = max(float(np.max(np.abs(trans))) if trans.size else 0.0, float(np.ptp(trans)) if trans.size else 0.0,
               1e-3)
    return np.where(ang, MAX_ANGLE_STEP, MAX_LENGTH_STEP * size)


def balance(system: ConstrainedSystem, q: FloatArray, t: float) -> tuple[FloatArray, FloatArray, FloatArray, float]:
    """(Q, lambda, r = Q + C^T lambda, scale) at q: lambda the least-squares solution of C^T lambda = -Q."""
    Q = system.forces(q, np.zeros(system.n), t)
    C = system.constraint_matrix(q, t)
    if C.shape[0]:
        lam = np.linalg.lstsq(C.T, -Q, rcond=None)[0]
        ct = C.T @ lam
    else:
        lam, ct = np.zeros(0), np.zeros(system.n)
    scale = max(float(np.linalg.norm(Q)), float(np.linalg.norm(ct)))
    return Q, lam, Q + ct, scale


def force_jacobian(system: ConstrainedSystem, q: FloatArray, lam: FloatArray, t: float,
                   rel_step: float = 1e-6) -> FloatArray:
    """G = d(Q + C^T lambda)/dq at fixed lambda, by central differences (step rel_step * max(1, |q_i|))."""
    n = system.n
    zero = np.zeros(n)

    def g(x: FloatArray) -> FloatArray:
        out = system.forces(x, zero, t)
        if lam.size:
            out = out + system.constraint_matrix(x, t).T @ lam
        return out

    G = np.zeros((n, n))
    for i in range(n):
        h = rel_step * max(1.0, abs(float(q[i])))
        e = np.zeros(n)
        e[i] = h
        G[:, i] = (g(q + e) - g(q - e)) / (2 * h)
    return G


def projected_stiffness(system: ConstrainedSystem, q: FloatArray, lam: FloatArray,
                        t: float) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """(K, N_P, N_C, G) of (S2) at q."""
    NP = null_basis(system.phi_q(q, t), system.n)
    NC = null_basis(system.constraint_matrix(q, t), system.n)
    G = force_jacobian(system, q, lam, t)
    return -NC.T @ G @ NP, NP, NC, G


def stability(K: FloatArray, G: FloatArray, holonomic: bool) -> tuple[bool | None, FloatArray, str]:
    """(stable, eigenvalues, note) of the projected stiffness K (square for holonomic systems)."""
    if K.size == 0:
        return None, np.zeros(0), "no degree of freedom: the pose is fixed by the constraints and drivers"
    if not holonomic or K.shape[0] != K.shape[1]:
        return None, np.zeros(0), "nonholonomic constraints: stability is not decided"
    eig = np.linalg.eigvalsh(0.5 * (K + K.T))
    zero = 1e-7 * max(float(np.linalg.norm(G, 2)), 1e-300)
    if abs(float(eig[0])) <= zero:
        return None, eig, "neutral: the projected stiffness has a zero eigenvalue"
    if eig[0] > 0:
        return True, eig, "stable: the projected stiffness is positive definite"
    return False, eig, f"unstable: the projected stiffness has {int(np.sum(eig < -zero))} negative eigenvalue(s)"


def newton_direction(K: FloatArray, f: FloatArray, square: bool) -> FloatArray:
    """Step dz of K dz = f; K shifted to positive definite (symmetric part) where it is not (see module doc)."""
    if not square:
        return np.linalg.lstsq(K, f, rcond=None)[0]
    S = 0.5 * (K + K.T)
    eig = np.linalg.eigvalsh(S)
    size = max(float(np.max(np.abs(eig))), 1e-300)
    if eig[0] > 1e-8 * size:
        return np.linalg.solve(K, f)
    mu = -float(eig[0]) + 1e-2 * size
    return np.linalg.solve(S + mu * np.eye(len(f)), f)


# --- static equilibrium ----------------------------------------------------------------------------------------
def static_equilibrium(system: ConstrainedSystem, q0: FloatArray | None = None, t: float = 0.0, *,
                       tol: float = STATICS_TOL, max_iter: int = 200) -> StaticResult:
    """The pose of static equilibrium nearest (downhill) from ``q0`` (default: the file's rough positions,
    assembled with the held coordinates kept) at time ``t`` [s]; see the module docstring.

    ``tol``: relative force balance ||Q + C^T lambda|| <= tol * max(||Q||, ||C^T lambda||).
    """
    try:
        return _equilibrium(system, q0, float(t), tol, max_iter)
    except NUMERICAL_ERRORS as exc:
        q = system.initial_guess() if q0 is None else np.asarray(q0, float)
        return _failed(system, q, t, Status.FAILED, f"numerical failure in the equilibrium search: "
                                                    f"{type(exc).__name__}: {exc}")


def _failed(system: ConstrainedSystem, q: FloatArray, t: float, status: Status, message: str,
            iterations: int = 0) -> StaticResult:
    return StaticResult(np.array(q, float), np.zeros(system.m), {}, {}, float("nan"), float("nan"), float("nan"),
                        0, None, np.zeros(0), False, iterations, t, status, message)


def _equilibrium(system: ConstrainedSystem, q0: FloatArray | None, t: float, tol: float,
                 max_iter: int) -> StaticResult:
    guess = system.initial_guess() if q0 is None else np.asarray(q0, float)
    hold = system.held_coordinates() if q0 is None else []
    first = assemble(system, guess, t, hold=hold)
    if not first.status.ok and hold:  # a held coordinate may contradict a driver at t: let the drivers decide
        first = assemble(system, guess, t)
    if not first.status.ok:
        return _failed(system, first.q, t, first.status, first.message)
    q = first.q
    holonomic = system.m_nonholonomic == 0
    limits = step_limits(system, q)
    Q, lam, r, scale = balance(system, q, t)
    iterations = 0
    while np.linalg.norm(r) > tol * scale:
        if iterations >= max_iter:
            return _failed(system, q, t, Status.MAX_ITER,
                           f"no static equilibrium found in {max_iter} iterations: the unbalanced force stays at "
                           f"{np.linalg.norm(r):.3g} (relative {np.linalg.norm(r) / scale:.3g})", iterations)
        iterations += 1
        K, NP, NC, _ = projected_stiffness(system, q, lam, t)
        f = NC.T @ Q
        dq = NP @ newton_direction(K, f, holonomic and K.shape[0] == K.shape[1])
        ratio = float(np.max(np.abs(dq) / limits)) if dq.size else 0.0
        alpha = 1.0 / ratio if ratio > 1.0 else 1.0
        for _ in range(30):
            trial = assemble(system, q + alpha * dq, t)
            if trial.status.ok:
                Q1, lam1, r1, scale1 = balance(system, trial.q, t)
                work = 0.5 * float((r + r1) @ (trial.q - q))
                if work > 0 or np.linalg.norm(r1) < (1 - 1e-4) * np.linalg.norm(r):
                    break
            alpha *= 0.5
        else:
            return _failed(system, q, t, Status.DIVERGED,
                           f"the equilibrium search stalled: no step along the free motions lowers the unbalanced "
                           f"force {np.linalg.norm(r):.3g} (relative {np.linalg.norm(r) / scale:.3g})", iterations)
        q, Q, lam, r, scale = trial.q, Q1, lam1, r1, scale1
    K, _, _, G = projected_stiffness(system, q, lam, t)
    stable, eig, note = stability(K, G, holonomic)
    C = system.constraint_matrix(q, t)
    unique = bool(C.shape[0] == 0 or np.linalg.matrix_rank(C) == C.shape[0])
    reac = system.reactions(q, lam, t) if lam.size else {}
    reactions = {k: np.asarray(v, float) for k, v in reac.items()}
    drivers = {name: reactions[name] for name in driver_names(system) if name in reactions}
    dof = system.n - int(np.linalg.matrix_rank(system.phi_q(q, t))) if system.m_holonomic else system.n
    message = note if unique else note + "; redundant constraints: the multipliers are the minimum-norm ones"
    phi = system.phi(q, t)
    return StaticResult(q, lam, reactions, drivers, float(np.linalg.norm(r)), scale,
                        float(np.linalg.norm(phi)) if phi.size else 0.0, dof, stable, eig, unique, iterations, t,
                        Status.CONVERGED, message)


# --- inverse dynamics ------------------------------------------------------------------------------------------
def inverse_dynamics(system: ConstrainedSystem, times: FloatArray, q0: FloatArray | None = None) -> InverseDynamicsResult:
    """Driver forces/torques and joint reactions of a fully driven mechanism at ``times`` [s] ((I1)).

    A mechanism with degrees of freedom left (d > 0) is refused with status FAILED and a message; a failure of
    the kinematics part way ends the result there with its status (the rows computed so far are kept).
    """
    times = np.asarray(times, float)
    kin = driven_motion(system, times, q0)
    k, n, m = len(kin.t), system.n, system.m
    nc = len(system.constraints)
    lam = np.zeros((k, m))
    R = np.zeros((k, nc, 6))
    kinetic, potential, power, residual = (np.zeros(k) for _ in range(4))
    unique = True
    drows = driver_rows(system)
    status, message = kin.status, kin.message
    done = 0
    try:
        for i in range(k):
            t, q, v, a = float(kin.t[i]), kin.q[i], kin.v[i], kin.a[i]
            lam_i, uniq = multipliers_from_accelerations(system, q, v, t, a)
            unique = unique and uniq
            lam[i] = lam_i
            R[i] = reaction_array(system, q, lam_i, t)
            C = system.constraint_matrix(q, t)
            h = system.forces(q, v, t)
            residual[i] = float(np.linalg.norm(system.mass_matrix(q, t) @ a - h - C.T @ lam_i))
            power[i] = float(v @ (C[drows].T @ lam_i[drows])) if drows else 0.0
            kinetic[i] = system.kinetic_energy(q, v, t)
            potential[i] = system.potential_energy(q, t)
            done = i + 1
    except NUMERICAL_ERRORS as exc:
        status = Status.FAILED
        message = f"numerical failure in the inverse dynamics at t = {kin.t[done]:.6g} s: {type(exc).__name__}: {exc}"
    if status.ok and not unique:
        message = ("redundant constraints: the reactions are the minimum-norm solution of C^T lambda = M q'' - h "
                   "(the split among the redundant joints is not determined by rigid-body statics)")
    s = slice(0, done)
    return InverseDynamicsResult(kin.t[s], kin.q[s], kin.v[s], kin.a[s], lam[s], R[s], kinetic[s], potential[s],
                                 power[s], residual[s], kin.residual[s], unique, status, message,
                                 {"drivers": driver_names(system)})


__all__ = ["InverseDynamicsResult", "REACTION_COMPONENTS", "StaticResult", "driver_names", "inverse_dynamics",
           "reaction_array", "static_equilibrium"]
