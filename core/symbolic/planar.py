"""Symbolic planar model: the same equations as :class:`core.planar_system.PlanarSystem`, derived with sympy.

Coordinates (x, y, phi) of each body's centre of mass and frame angle (source 003), symbols ``x_body``,
``y_body``, ``phi_body`` with speeds ``xdot_body`` ... and accelerations ``xddot_body`` ...; time ``t``.
The rows of Phi and C_psi are in the order of ``PlanarSystem`` (joints in file order, drivers, knife edges)
and carry the same labels, so the two can be compared entry by entry.

* M = diag(m, m, J) per body (centre of mass as reference point).
* Q(q, q', t): gravity, spring-dampers (tension k (L - L0) + c L' along the line of the points),
  rotational spring-dampers, applied forces F(t) at body points, applied torques.
* Phi(q, t) by the local method (README errata for 003: r_i + A_i s_i - r_j - A_j s_j = 0 for a revolute
  joint), Phi_q, Phi_t and gamma = -(d/dt)(Phi_q q' + Phi_t) |_(q''=0), so that Phi_q q'' = gamma.
* Knife edges: C_psi q' + xi_psi = 0 with n^T (r' + B s' phi') = 0, eta_psi = d/dt(C_psi q' + xi_psi)|_(q''=0).

File numbers are turned into exact rationals where they are (to 1e-12) a fraction with a small denominator
(9.81 -> 981/100, 1/12), so that simplification is exact; everything else stays a float.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy as sp

from core.model.document import GROUND, Model
from core.model.timefunc import T
from core.symbolic.quasi import coordinate_symbol

COORDS = ("x", "y", "phi")


def num(x: float) -> sp.Expr:
    """A file number as an exact rational when it is one to 1e-12 (denominator <= 1000), else a Float."""
    x = float(x)
    if x == int(x) and abs(x) < 1e15:
        return sp.Integer(int(x))
    fr = Fraction(x).limit_denominator(1000)
    if abs(float(fr) - x) <= 1e-12 * abs(x):
        return sp.Rational(fr.numerator, fr.denominator)
    return sp.Float(x)


def rot(phi: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(phi), -sp.sin(phi)], [sp.sin(phi), sp.cos(phi)]])


def perp(v: sp.Matrix) -> sp.Matrix:
    return sp.Matrix([-v[1], v[0]])


def cross2(a: sp.Matrix, b: sp.Matrix) -> sp.Expr:
    return a[0] * b[1] - a[1] * b[0]


@dataclass
class SymbolicModel:
    """Symbolic M, Q, Phi, Phi_q, Phi_t, gamma, C_psi, xi_psi, eta_psi of a model (see module docstring)."""
    coord_names: list[str]
    q: list[sp.Symbol]
    qd: list[sp.Symbol]
    qdd: list[sp.Symbol]
    M: sp.Matrix
    Q: sp.Matrix
    Phi: sp.Matrix
    Phi_q: sp.Matrix
    Phi_t: sp.Matrix
    gamma: sp.Matrix
    C_psi: sp.Matrix
    xi_psi: sp.Matrix
    eta_psi: sp.Matrix
    row_labels: list[str]  # holonomic rows, then nonholonomic rows
    kind: str = "planar"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.q)

    @property
    def C(self) -> sp.Matrix:
        return self.Phi_q.col_join(self.C_psi)

    @property
    def xi(self) -> sp.Matrix:
        return self.Phi_t.col_join(self.xi_psi)

    @property
    def eta(self) -> sp.Matrix:
        return (-self.gamma).col_join(self.eta_psi)


def velocity_derivative(expr: sp.Matrix, q: list[sp.Symbol], qd: list[sp.Symbol]) -> sp.Matrix:
    """d/dt of expr(q, q', t) with q'' = 0: (d expr/dq) q' + d expr/dt (the velocity-dependent part)."""
    if expr.shape[0] == 0:
        return sp.zeros(0, 1)
    return expr.jacobian(q) * sp.Matrix(qd) + expr.diff(T)


def holonomic_terms(Phi: sp.Matrix, q: list[sp.Symbol], qd: list[sp.Symbol]) -> tuple[sp.Matrix, ...]:
    """(Phi_q, Phi_t, gamma) of Phi(q, t)."""
    n = len(q)
    if Phi.shape[0] == 0:
        return sp.zeros(0, n), sp.zeros(0, 1), sp.zeros(0, 1)
    J = Phi.jacobian(q)
    Pt = Phi.diff(T)
    gamma = -velocity_derivative(J * sp.Matrix(qd) + Pt, q, qd)
    return J, Pt, gamma.applyfunc(sp.expand)


def planar_symbolic(model: Model) -> SymbolicModel:
    """Derive the symbolic planar model (uncached; use :func:`core.symbolic.appell.symbolic_model`)."""
    ent = model.entities
    names = [f"{b.name}.{c}" for b in ent.bodies for c in COORDS]
    q = [coordinate_symbol(c) for c in names]
    qd = [coordinate_symbol(c, 1) for c in names]
    qdd = [coordinate_symbol(c, 2) for c in names]
    index = {b.name: k for k, b in enumerate(ent.bodies)}
    com = {b.name: b.com[:2] for b in ent.bodies}
    com[GROUND] = (0.0, 0.0)
    zero = sp.Integer(0)

    def r(body: str) -> sp.Matrix:
        if body == GROUND:
            return sp.Matrix([0, 0])
        k = index[body]
        return sp.Matrix([q[3 * k], q[3 * k + 1]])

    def ang(body: str) -> sp.Expr:
        return zero if body == GROUND else q[3 * index[body] + 2]

    def local(body: str, point: tuple[float, ...]) -> sp.Matrix:
        return sp.Matrix([num(point[0] - com[body][0]), num(point[1] - com[body][1])])

    def arm(body: str, point: tuple[float, ...]) -> sp.Matrix:
        return rot(ang(body)) * local(body, point)

    def vel(body: str, point: tuple[float, ...]) -> sp.Matrix:
        if body == GROUND:
            return sp.Matrix([0, 0])
        k = index[body]
        return sp.Matrix([qd[3 * k], qd[3 * k + 1]]) + perp(arm(body, point)) * qd[3 * k + 2]

    def unit(v: tuple[float, ...]) -> sp.Matrix:
        a = sp.Matrix([num(v[0]), num(v[1])])
        norm = sp.sqrt(a.dot(a))
        return (a / norm).applyfunc(sp.nsimplify) if norm.is_Rational else a / norm

    phi_rows: list[sp.Expr] = []
    labels: list[str] = []
    joints = {j.name: j for j in ent.joints}
    for j in ent.joints:
        if j.type in ("knife_edge", "spherical", "rolling_disk"):
            continue
        b1, b2 = j.body1, j.body2
        if j.type in ("revolute", "weld"):
            d = r(b1) + arm(b1, j.point1) - r(b2) - arm(b2, j.point2)
            phi_rows += [d[0], d[1]]
            labels += [f"{j.name}.x", f"{j.name}.y"]
            if j.type == "weld":
                phi_rows.append(ang(b2) - ang(b1) - num(j.angle))
                labels.append(f"{j.name}.angle")
        elif j.type == "prismatic":
            phi_rows.append(ang(b2) - ang(b1) - num(j.angle))
            labels.append(f"{j.name}.angle")
            ax = unit(j.axis)
            v = rot(ang(b1)) * sp.Matrix([-ax[1], ax[0]])
            d = r(b2) + arm(b2, j.point2) - r(b1) - arm(b1, j.point1)
            phi_rows.append(v.dot(d))
            labels.append(f"{j.name}.normal")
    for drv in ent.drivers:
        fn = drv.function.expr
        if drv.type == "coordinate":
            phi_rows.append(q[3 * index[drv.body] + COORDS.index(drv.coordinate)] - fn)
            labels.append(f"{drv.name}.{drv.coordinate}")
            continue
        j = joints[drv.joint]
        b1, b2 = j.body1, j.body2
        if drv.type == "joint_angle":
            phi_rows.append(ang(b2) - ang(b1) - fn)
            labels.append(f"{drv.name}.angle")
        else:
            v = rot(ang(b1)) * unit(j.axis)
            d = r(b2) + arm(b2, j.point2) - r(b1) - arm(b1, j.point1)
            phi_rows.append(v.dot(d) - fn)
            labels.append(f"{drv.name}.distance")
    Phi = sp.Matrix(phi_rows) if phi_rows else sp.zeros(0, 1)
    Phi_q, Phi_t, gamma = holonomic_terms(Phi, q, qd)

    cpsi: list[list[sp.Expr]] = []
    for j in ent.joints:
        if j.type != "knife_edge":
            continue
        ax = unit(j.axis)
        nvec = rot(ang(j.body)) * sp.Matrix([-ax[1], ax[0]])
        row_expr = nvec.dot(vel(j.body, j.point))
        cpsi.append([sp.expand(row_expr.diff(s)) for s in qd])
        labels.append(f"{j.name}.normal")
    n = len(q)
    C_psi = sp.Matrix(cpsi) if cpsi else sp.zeros(0, n)
    xi_psi = sp.zeros(C_psi.shape[0], 1)
    eta_psi = velocity_derivative(C_psi * sp.Matrix(qd) + xi_psi, q, qd).applyfunc(sp.expand)

    # mass matrix and applied forces
    diag = []
    for b in ent.bodies:
        diag += [num(b.mass), num(b.mass), num(b.inertia)]
    M = sp.diag(*diag)
    g = [num(c) for c in ent.gravity[:2]]
    Qv = [zero] * n
    for k, b in enumerate(ent.bodies):
        Qv[3 * k] += num(b.mass) * g[0]
        Qv[3 * k + 1] += num(b.mass) * g[1]

    def load(body: str, point: tuple[float, ...], F: sp.Matrix) -> None:
        if body == GROUND:
            return
        k = index[body]
        Qv[3 * k] += F[0]
        Qv[3 * k + 1] += F[1]
        Qv[3 * k + 2] += cross2(arm(body, point), F)

    for f in ent.forces:
        if f.type == "spring_damper":
            p1 = r(f.body1) + arm(f.body1, f.point1)
            p2 = r(f.body2) + arm(f.body2, f.point2)
            d = p2 - p1
            L = sp.sqrt(d.dot(d))
            rate = d.dot(vel(f.body2, f.point2) - vel(f.body1, f.point1)) / L
            tension = num(f.stiffness) * (L - num(f.free_length)) + num(f.damping) * rate
            F1 = d / L * tension
            load(f.body1, f.point1, F1)
            load(f.body2, f.point2, -F1)
        elif f.type == "rotational_spring_damper":
            j = joints[f.joint]
            theta = ang(j.body2) - ang(j.body1)
            rate = (zero if j.body2 == GROUND else qd[3 * index[j.body2] + 2]) \
                - (zero if j.body1 == GROUND else qd[3 * index[j.body1] + 2])
            torque = -num(f.stiffness) * (theta - num(f.free_angle)) - num(f.damping) * rate
            if j.body2 != GROUND:
                Qv[3 * index[j.body2] + 2] += torque
            if j.body1 != GROUND:
                Qv[3 * index[j.body1] + 2] -= torque
        elif f.type == "applied_force":
            load(f.body1, f.point1, sp.Matrix([c.expr for c in f.force[:2]]))
        elif f.type == "applied_torque":
            if f.body1 != GROUND:
                Qv[3 * index[f.body1] + 2] += f.torque[0].expr
    Q = sp.Matrix(Qv)
    return SymbolicModel(names, q, qd, qdd, M, Q, Phi, Phi_q, Phi_t, gamma, C_psi, xi_psi, eta_psi, labels)
