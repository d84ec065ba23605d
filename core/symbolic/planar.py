"""Symbolic planar model: the same equations as :class:`mechstudio.core.systems.planar.PlanarSystem`, derived with sympy.

Coordinates (x, y, phi) of each body's centre of mass and frame angle ([003]), symbols ``x_body``,
``y_body``, ``phi_body`` with speeds ``xdot_body`` ... and accelerations ``xddot_body`` ...; time ``t``.
The rows of Phi and C_psi are in the order of ``PlanarSystem`` (joints in file order, drivers, knife edges)
and carry the same labels, so the two can be compared entry by entry.

* M = diag(m, m, J) per body (centre of mass as reference point).
* Q(q, q', t): gravity, spring-dampers (tension k (L - L0) + c L' along the line of the points),
  rotational spring-dampers, applied forces F(t) at body points, applied torques.
* Phi(q, t) by the local method ([003], errata in docs/references.md: r_i + A_i s_i - r_j - A_j s_j = 0 for a revolute
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

from mechstudio.core.elements.planar import constraint_entries, force_specs
from mechstudio.core.elements.primitives import HOLONOMIC, NONHOLONOMIC
from mechstudio.core.elements.primitives.forces import symbolic as force_symbolic
from mechstudio.core.model.document import GROUND, Model
from mechstudio.core.model.timefunc import T
from mechstudio.core.symbolic.quasi import coordinate_symbol

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
    # rows of an angle atan2(...) (gear mesh) stay unexpanded: expanding the second derivative of
    # the angle of a rotating vector multiplies out thousands of trigonometric products (minutes, no gain)
    return J, Pt, sp.Matrix([g if Phi[k].has(sp.atan2) else sp.expand(g) for k, g in enumerate(gamma)])


class PlanarSymbols:
    """The symbolic context the primitives' ``symbolic`` functions read (core/elements/primitives): positions,
    angles, body-fixed vectors and velocities of bodies (the ground: zero), file numbers as exact rationals,
    time functions as expressions, and the generalized forces Q being accumulated."""

    def __init__(self, ent: Any, q: list[sp.Symbol], qd: list[sp.Symbol]):
        self.index = {b.name: k for k, b in enumerate(ent.bodies)}
        self.com = {b.name: b.com[:2] for b in ent.bodies}
        self.com[GROUND] = (0.0, 0.0)
        self.q, self.qd = q, qd
        self.Q: list[sp.Expr] = [sp.Integer(0)] * len(q)
        self.num, self.rot, self.sqrt, self.matrix = num, rot, sp.sqrt, sp.Matrix
        self.atan2 = sp.atan2  # gear_mesh (gears)

    def r(self, body: str) -> sp.Matrix:
        if body == GROUND:
            return sp.Matrix([0, 0])
        k = self.index[body]
        return sp.Matrix([self.q[3 * k], self.q[3 * k + 1]])

    def ang(self, body: str) -> sp.Expr:
        return sp.Integer(0) if body == GROUND else self.q[3 * self.index[body] + 2]

    def rate(self, body: str) -> sp.Expr:
        return sp.Integer(0) if body == GROUND else self.qd[3 * self.index[body] + 2]

    def coordinate(self, body: str, coordinate: str) -> sp.Expr:
        return self.q[3 * self.index[body] + COORDS.index(coordinate)]

    def local(self, body: str, point: tuple[float, ...]) -> sp.Matrix:
        return sp.Matrix([num(point[0] - self.com[body][0]), num(point[1] - self.com[body][1])])

    def arm(self, body: str, point: tuple[float, ...]) -> sp.Matrix:
        return rot(self.ang(body)) * self.local(body, point)

    def vel(self, body: str, point: tuple[float, ...]) -> sp.Matrix:
        if body == GROUND:
            return sp.Matrix([0, 0])
        k = self.index[body]
        return sp.Matrix([self.qd[3 * k], self.qd[3 * k + 1]]) + perp(self.arm(body, point)) * self.qd[3 * k + 2]

    @staticmethod
    def unit(v: tuple[float, ...]) -> sp.Matrix:
        a = sp.Matrix([num(v[0]), num(v[1])])
        norm = sp.sqrt(a.dot(a))
        return (a / norm).applyfunc(sp.nsimplify) if norm.is_Rational else a / norm

    @staticmethod
    def function(f: Any) -> sp.Expr:
        """f(t) of a row: None -> 0, a float constant -> its rational, a TimeFunction -> its expression."""
        if f is None:
            return sp.Integer(0)
        return num(f) if isinstance(f, float) else f.expr

    def load(self, body: str, point: tuple[float, ...], F: sp.Matrix) -> None:
        if body == GROUND:
            return
        k = self.index[body]
        self.Q[3 * k] += F[0]
        self.Q[3 * k + 1] += F[1]
        self.Q[3 * k + 2] += cross2(self.arm(body, point), F)

    def torque(self, body: str, tau: sp.Expr) -> None:
        if body != GROUND:
            self.Q[3 * self.index[body] + 2] += tau


def planar_symbolic(model: Model) -> SymbolicModel:
    """Derive the symbolic planar model (uncached; use :func:`mechstudio.core.symbolic.appell.symbolic_model`).

    Every constraint and force element is looked up in the element registry (core/elements) and contributes
    the symbolic forms of its primitives, in the row order of :class:`~core.systems.planar.PlanarSystem`."""
    ent = model.entities
    names = [f"{b.name}.{c}" for b in ent.bodies for c in COORDS]
    q = [coordinate_symbol(c) for c in names]
    qd = [coordinate_symbol(c, 1) for c in names]
    qdd = [coordinate_symbol(c, 2) for c in names]
    S = PlanarSymbols(ent, q, qd)
    n = len(q)

    phi_rows: list[sp.Expr] = []
    velocity_rows: list[sp.Expr] = []
    labels: list[str] = []
    for e in constraint_entries(ent):
        rows: list[sp.Expr] = []
        for spec in e.specs:
            table = HOLONOMIC if spec.holonomic else NONHOLONOMIC
            rows += table[type(spec)][1](spec, S)
        (phi_rows if e.element.holonomic else velocity_rows).extend(rows)
        labels += [f"{e.name}.{c}" for c in e.components]
    Phi = sp.Matrix(phi_rows) if phi_rows else sp.zeros(0, 1)
    Phi_q, Phi_t, gamma = holonomic_terms(Phi, q, qd)

    cpsi = [[sp.expand(row.diff(s)) for s in qd] for row in velocity_rows]
    C_psi = sp.Matrix(cpsi) if cpsi else sp.zeros(0, n)
    xi_psi = sp.Matrix([sp.expand(row - sum(row.diff(s) * s for s in qd)) for row in velocity_rows]) \
        if velocity_rows else sp.zeros(0, 1)
    eta_psi = velocity_derivative(C_psi * sp.Matrix(qd) + xi_psi, q, qd).applyfunc(sp.expand)

    # mass matrix and applied forces
    diag = []
    for b in ent.bodies:
        diag += [num(b.mass), num(b.mass), num(b.inertia)]
    M = sp.diag(*diag)
    g = [num(c) for c in ent.gravity[:2]]
    for k, b in enumerate(ent.bodies):
        S.Q[3 * k] += num(b.mass) * g[0]
        S.Q[3 * k + 1] += num(b.mass) * g[1]
    for spec in force_specs(ent):
        force_symbolic(spec, S)
    Q = sp.Matrix(S.Q)
    return SymbolicModel(names, q, qd, qdd, M, Q, Phi, Phi_q, Phi_t, gamma, C_psi, xi_psi, eta_psi, labels)
