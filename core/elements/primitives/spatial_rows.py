"""Constraint rows of the spatial joints between two bodies in maximal coordinates, each joint type's rows declared
once in :data:`JOINT_ROWS`.

Coordinates of a body (core/systems/maximal_bodies.py): the centre of mass r and the Euler parameters p, with the
quadratic (unnormalised) rotation A(p) = (p0^2 - v.v) E + 2 v v^T + 2 p0 v~ (v = (p1, p2, p3)); the norm row
(p.p - 1)/2 = 0 is the system's. The ground is a body with r = 0, p = (1, 0, 0, 0) and no coordinates. A joint
joins body i (``body1``) and body j (``body2``) at the points s'_i, s'_j (body frames, from the centre of mass)
and carries in each body's frame a unit axis h' and two unit vectors f', g' = h' x f' perpendicular to it
(:func:`axis_frame`). World vectors and points are

    a = A(p) a'           (a' one of h', f', g')           P = r + A(p) s'           d_ij = P_j - P_i

The basic constraints of Haug (Computer Aided Kinematics and Dynamics of Mechanical Systems, 1989, ch. 9) and
Nikravesh (Computer-Aided Analysis of Mechanical Systems, 1988, ch. 11) are

    dot-1      Phi^d1(a_i, a_j)  = a_i . a_j  = 0      (two body-fixed vectors stay perpendicular)
    dot-2      Phi^d2(a_i, d_ij) = a_i . d_ij = 0      (a body-fixed vector stays perpendicular to d_ij)
    spherical  Phi^s             = d_ij       = 0      (3 rows: x, y, z of d_ij in world components)

and the joints are sets of them (:data:`JOINT_ROWS`; components in the order of the rows):

    spherical     x, y, z                                      d_ij = 0
    hinge         x, y, z, perp1, perp2                        + f_i . h_j = 0, g_i . h_j = 0   (h_j || h_i)
    slider        line1, line2, perp1, perp2, twist            f_i . d = 0, g_i . d = 0 (P_j on the line of h_i),
                                                               f_i . h_j = 0, g_i . h_j = 0, g_i . f_j = 0
    cylindrical   line1, line2, perp1, perp2                   the slider without ``twist``
    universal     x, y, z, cross                               d_ij = 0, h_i . h_j = 0 (the cross axes)
    fixed_joint   x, y, z, perp1, perp2, twist                 d_ij = 0 and the hinge's and slider's axis rows

Joint coordinates: the rotation angle theta = atan2(f_j . g_i, f_j . f_i) about h_i (zero when f_j = f_i, so for
axis1 = axis2 the relative rotation of the two body frames about the axis) and the slide s = h_i . d_ij along h_i
(zero when the two joint points coincide). A driver row is theta - f(t) (wrapped to (-pi, pi]) or s - f(t).

Derivatives. Every quantity above is a polynomial of degree <= 2 in p (A(p) a' is a homogeneous quadratic form
Q(p)), so for a vector X in {a, P} of one body

    X_q = [E, D(p)] (points) or [0, D(p)] (vectors),   D(p) = d(A(p) c)/dp,
    d(A c)/dp0 = 2 (p0 c + v x c),   d(A c)/dv = 2 ((v.c) E + v c^T - c v^T - p0 c~)
    X'' = X_q q'' + 2 A(p') c              (Q(p)'' = D(p) p'' + 2 Q(p'))

and each row is evaluated as a :class:`Scalar` (value, Jacobian w.r.t. the 14 coordinates [r_i, p_i, r_j, p_j],
rate Phi' = Phi_q q', bias b with Phi'' = Phi_q q'' + b): for Phi = X . Y,

    Phi_q = Y^T X_q + X^T Y_q,    b = b_X . Y + X . b_Y + 2 X' . Y'

and for theta = atan2(s, c), rho = c^2 + s^2: theta_q = (c s_q - s c_q) / rho, b = (c b_s - s b_c) / rho -
theta' rho' / rho, rho' = 2 (c c' + s s'). The system's gamma = -(Phi_q q')_q q' - 2 Phi_qt q' - Phi_tt is then
-b (+ f''(t) for a driver row), xi = Phi_t = -f'(t) for a driver row and 0 otherwise.
(tests/test_spatial_rows.py checks every Jacobian and bias against finite differences.)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

from mechstudio.core.numerics.orientation import cross3
from mechstudio.core.types import FloatArray

#: columns of a pair's Jacobian: [r_i (3), p_i (4), r_j (3), p_j (4)]
PAIR_COLUMNS = 14
#: the rows of each joint type (component labels, in row order); the equation of each label in :data:`ROW_EQUATIONS`
JOINT_ROWS: dict[str, tuple[str, ...]] = {
    "spherical": ("x", "y", "z"),
    "hinge": ("x", "y", "z", "perp1", "perp2"),
    "slider": ("line1", "line2", "perp1", "perp2", "twist"),
    "cylindrical": ("line1", "line2", "perp1", "perp2"),
    "universal": ("x", "y", "z", "cross"),
    "fixed_joint": ("x", "y", "z", "perp1", "perp2", "twist"),
}


class Scalar(NamedTuple):
    """A scalar function of the pair's coordinates: value, Jacobian (14,), rate (= jac . q'), and the bias b of
    its second derivative (= jac . q'' + b)."""
    value: float
    jac: FloatArray
    rate: float
    bias: float


class Vector(NamedTuple):
    """A world vector (3,) of the pair's coordinates with its Jacobian (3, 14), rate and bias (see :class:`Scalar`)."""
    value: FloatArray
    jac: FloatArray
    rate: FloatArray
    bias: FloatArray

    def __sub__(self, other: "Vector") -> "Vector":  # type: ignore[override]
        return Vector(self.value - other.value, self.jac - other.jac, self.rate - other.rate, self.bias - other.bias)


class BodyState(NamedTuple):
    """One body's coordinates and rates (r, p, r', p'); ``moving`` False for the ground (no columns)."""
    r: FloatArray
    p: FloatArray
    rd: FloatArray
    pd: FloatArray
    moving: bool


GROUND_STATE = BodyState(np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]), np.zeros(3), np.zeros(4), False)


def quad(p: FloatArray, c: FloatArray) -> FloatArray:
    """A(p) c with the quadratic A(p) (module docstring)."""
    w, v = p[0], p[1:]
    return (w * w - v @ v) * c + 2 * (v @ c) * v + 2 * w * cross3(v, c)


def dquad(p: FloatArray, c: FloatArray) -> FloatArray:
    """D(p) = d(A(p) c)/dp (3, 4)."""
    w, v = p[0], p[1:]
    out = np.empty((3, 4))
    out[:, 0] = 2 * (w * c + cross3(v, c))
    cs = np.array([[0.0, -c[2], c[1]], [c[2], 0.0, -c[0]], [-c[1], c[0], 0.0]])
    out[:, 1:] = 2 * ((v @ c) * np.eye(3) + np.outer(v, c) - np.outer(c, v) - w * cs)
    return out


def body_vector(b: BodyState, c: FloatArray, column: int, point: bool) -> Vector:
    """A(p) c (``point`` False) or r + A(p) c (True) of body state ``b`` whose coordinates start at ``column``
    (0: body i, 7: body j) of the pair's 14."""
    D = dquad(b.p, c)
    jac = np.zeros((3, PAIR_COLUMNS))
    value = quad(b.p, c)
    rate = D @ b.pd
    if b.moving:
        jac[:, column + 3:column + 7] = D
        if point:
            jac[:, column:column + 3] = np.eye(3)
    if point:
        value = value + b.r
        rate = rate + b.rd
    return Vector(value, jac, rate, 2 * quad(b.pd, c))


def dot(X: Vector, Y: Vector) -> Scalar:
    """X . Y (module docstring)."""
    return Scalar(float(X.value @ Y.value), Y.value @ X.jac + X.value @ Y.jac,
                  float(X.rate @ Y.value + X.value @ Y.rate),
                  float(X.bias @ Y.value + X.value @ Y.bias + 2 * X.rate @ Y.rate))


def component(X: Vector, k: int) -> Scalar:
    """The k-th world component of X."""
    return Scalar(float(X.value[k]), X.jac[k], float(X.rate[k]), float(X.bias[k]))


def angle(s: Scalar, c: Scalar) -> Scalar:
    """atan2(s, c) (module docstring)."""
    rho = c.value ** 2 + s.value ** 2
    rate = (c.value * s.rate - s.value * c.rate) / rho
    drho = 2 * (c.value * c.rate + s.value * s.rate)
    return Scalar(float(np.arctan2(s.value, c.value)), (c.value * s.jac - s.value * c.jac) / rho, rate,
                  (c.value * s.bias - s.value * c.bias) / rho - rate * drho / rho)


def axis_frame(axis: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(h, f, g): the unit axis, the unit vector f perpendicular to it made from the body axis e (x, y or z, the
    first with the smallest |h_k|) by f = (e - (e.h) h)/|...|, and g = h x f. For h = z: f = x, g = y."""
    h = np.asarray(axis, float)
    h = h / np.linalg.norm(h)
    e = np.zeros(3)
    e[int(np.argmin(np.abs(h)))] = 1.0
    f = e - (e @ h) * h
    f /= np.linalg.norm(f)
    return h, f, cross3(h, f)


@dataclass(frozen=True)
class JointGeometry:
    """The body-frame data of one joint: points s'_i, s'_j (from each centre of mass) and the axis frames
    (h', f', g') of each body [m, unit vectors]."""
    s1: FloatArray
    s2: FloatArray
    h1: FloatArray
    f1: FloatArray
    g1: FloatArray
    h2: FloatArray
    f2: FloatArray
    g2: FloatArray

    @classmethod
    def of(cls, s1: FloatArray, s2: FloatArray, axis1: FloatArray, axis2: FloatArray) -> "JointGeometry":
        return cls(np.asarray(s1, float), np.asarray(s2, float), *axis_frame(axis1), *axis_frame(axis2))


class Pair:
    """The world vectors of one joint at the states of its two bodies (computed on first use)."""

    def __init__(self, geo: JointGeometry, b1: BodyState, b2: BodyState):
        self.geo, self.b1, self.b2 = geo, b1, b2
        self._cache: dict[str, Vector] = {}

    def vector(self, name: str) -> Vector:
        """h1, f1, g1, h2, f2 (world axes) or d (P_j - P_i)."""
        got = self._cache.get(name)
        if got is None:
            g = self.geo
            if name == "d":
                got = body_vector(self.b2, g.s2, 7, True) - body_vector(self.b1, g.s1, 0, True)
            elif name.endswith("1"):
                got = body_vector(self.b1, getattr(g, name), 0, False)
            else:
                got = body_vector(self.b2, getattr(g, name), 7, False)
            self._cache[name] = got
        return got


#: each row label's equation (module docstring)
ROW_EQUATIONS: dict[str, Callable[[Pair], Scalar]] = {
    "x": lambda P: component(P.vector("d"), 0),
    "y": lambda P: component(P.vector("d"), 1),
    "z": lambda P: component(P.vector("d"), 2),
    "perp1": lambda P: dot(P.vector("f1"), P.vector("h2")),
    "perp2": lambda P: dot(P.vector("g1"), P.vector("h2")),
    "line1": lambda P: dot(P.vector("f1"), P.vector("d")),
    "line2": lambda P: dot(P.vector("g1"), P.vector("d")),
    "twist": lambda P: dot(P.vector("g1"), P.vector("f2")),
    "cross": lambda P: dot(P.vector("h1"), P.vector("h2")),
}

#: joint coordinates: the rotation angle about h_i [rad] and the slide along h_i [m] (module docstring)
JOINT_COORDINATES: dict[str, Callable[[Pair], Scalar]] = {
    "angle": lambda P: angle(dot(P.vector("f2"), P.vector("g1")), dot(P.vector("f2"), P.vector("f1"))),
    "slide": lambda P: dot(P.vector("h1"), P.vector("d")),
}


def wrap(x: float) -> float:
    """x wrapped to (-pi, pi] [rad]."""
    return float(np.arctan2(np.sin(x), np.cos(x)))


__all__ = ["BodyState", "GROUND_STATE", "JOINT_COORDINATES", "JOINT_ROWS", "JointGeometry", "PAIR_COLUMNS", "Pair",
           "ROW_EQUATIONS", "Scalar", "Vector", "angle", "axis_frame", "body_vector", "component", "dot", "dquad",
           "quad", "wrap"]
