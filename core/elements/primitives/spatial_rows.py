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
(tests/test_spatial_joints.py checks every Jacobian and bias against finite differences.)

Evaluation. Each row label and joint coordinate is declared once, as an :class:`Equation` over named world vectors
(:data:`ROW_EQUATIONS`, :data:`JOINT_COORDINATES`). Two evaluations read these declarations:

* :class:`RowBatch`, what the systems use: all terms of all joints at once with index arrays (the body states
  gathered once per call, D(p) of every body-fixed vector by one batched product with the constant form of A(p)
  (``QUAT_MATRIX_FORM``), every dot's value, rate and bias as one product); over one state with Jacobians, or over
  many states (result frames) without;
* :func:`evaluate` on a :class:`Pair`, one joint and one vector at a time: the reference the batched evaluation is
  tested against (tests/test_spatial_rows_batched.py, to 1e-13) and timed against (``mechstudio bench --suite
  spatial``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from mechstudio.core.elements.primitives import spatial_rows_kernels
from mechstudio.core.numerics.orientation import QUAT_MATRIX_FORM, cross3
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


class Equation(NamedTuple):
    """One scalar of a joint, declared by the world vectors it is made of (names: ``h1``, ``f1``, ``g1`` of body i,
    ``h2``, ``f2``, ``g2`` of body j, ``d`` = P_j - P_i):

    * ``component``: operands (X, k), the k-th world component of X;
    * ``dot``: operands (X, Y), X . Y;
    * ``angle``: operands ((Xs, Ys), (Xc, Yc)), atan2(Xs . Ys, Xc . Yc).

    :func:`evaluate` evaluates it for one joint (the reference), :class:`RowBatch` for many at once."""
    kind: str
    operands: tuple


#: each row label's equation (module docstring)
ROW_EQUATIONS: dict[str, Equation] = {
    "x": Equation("component", ("d", 0)),
    "y": Equation("component", ("d", 1)),
    "z": Equation("component", ("d", 2)),
    "perp1": Equation("dot", ("f1", "h2")),
    "perp2": Equation("dot", ("g1", "h2")),
    "line1": Equation("dot", ("f1", "d")),
    "line2": Equation("dot", ("g1", "d")),
    "twist": Equation("dot", ("g1", "f2")),
    "cross": Equation("dot", ("h1", "h2")),
}

#: joint coordinates: the rotation angle about h_i [rad] and the slide along h_i [m] (module docstring)
JOINT_COORDINATES: dict[str, Equation] = {
    "angle": Equation("angle", (("f2", "g1"), ("f2", "f1"))),
    "slide": Equation("dot", ("h1", "d")),
}


def evaluate(eq: Equation, P: Pair) -> Scalar:
    """The scalar of equation ``eq`` for one joint's pair ``P``, one vector at a time (the reference of
    :class:`RowBatch`)."""
    if eq.kind == "component":
        name, k = eq.operands
        return component(P.vector(name), k)
    if eq.kind == "dot":
        x, y = eq.operands
        return dot(P.vector(x), P.vector(y))
    (xs, ys), (xc, yc) = eq.operands
    return angle(dot(P.vector(xs), P.vector(ys)), dot(P.vector(xc), P.vector(yc)))


def cross_rows(a: FloatArray, b: FloatArray) -> FloatArray:
    """a x b over the last axis of broadcastable (..., 3) arrays (numpy.cross's axis handling costs more)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out = np.empty(a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape))
    out[..., 0] = a1 * b2 - a2 * b1
    out[..., 1] = a2 * b0 - a0 * b2
    out[..., 2] = a0 * b1 - a1 * b0
    return out


def quad_rows(p: FloatArray, c: FloatArray) -> FloatArray:
    """A(p) c over the last axis of broadcastable (..., 4), (..., 3) arrays (:func:`quad`)."""
    w, v = p[..., :1], p[..., 1:]
    return ((w * w - np.sum(v * v, -1, keepdims=True)) * c + 2 * np.sum(v * c, -1, keepdims=True) * v
            + 2 * w * cross_rows(v, c))


def polar_rows(p: FloatArray, s: FloatArray, c: FloatArray) -> FloatArray:
    """The polar form B(p, s) c of A(p) c = B(p, p) c (symmetric, bilinear in p and s), so that
    d(A(p) c)/dt = 2 B(p, p') c; over the last axis of broadcastable arrays."""
    w, v = p[..., :1], p[..., 1:]
    ws, vs = s[..., :1], s[..., 1:]
    return ((w * ws - np.sum(v * vs, -1, keepdims=True)) * c + np.sum(v * c, -1, keepdims=True) * vs
            + np.sum(vs * c, -1, keepdims=True) * v + w * cross_rows(vs, c) + ws * cross_rows(v, c))


class BatchScalars(NamedTuple):
    """The scalars of a :class:`RowBatch` (R of them, in the order of its terms) at one state: values (R,),
    Jacobians (R, 14) over [r_i, p_i, r_j, p_j] (the ground's columns zero), rates and biases (R,) (None without
    rates); :class:`Scalar` for each."""
    value: FloatArray
    jac: FloatArray
    rate: FloatArray | None
    bias: FloatArray | None


class RowBatch:
    """The scalars of many joints evaluated at once, by index arrays over the body states instead of a Python loop
    over the joints. Generated from the :class:`Equation` declarations (:data:`ROW_EQUATIONS`,
    :data:`JOINT_COORDINATES`): nothing here knows a joint type.

    ``joints``: (geometry, body i, body j) per joint (body numbers in file order, -1 the ground); ``terms``: (joint
    number, equation) per scalar, in output order. Compiling them:

    * every body-fixed vector a' (h', f', g') and point s' that a term needs, once per joint, is an *instance*
      (body, constant c', point or vector): X = A(p) c' (+ r), X' = D(p) p' (+ r'), bias 2 A(p') c';
    * every world vector a term needs, once per joint, is a *slot*: one instance, or for d the difference of the
      instances s'_j and s'_i; its Jacobian (3, 14) [r_i, p_i, r_j, p_j] is the instances' [E, D(p)] or [0, D(p)];
    * then all ``component`` terms at once, all ``dot`` terms (those of the ``angle`` terms included) at once, and
      all ``angle`` terms at once from their dots, with the formulas of the module docstring.

    :meth:`scalars` gives values, Jacobians, rates and biases at one state (the last state's are kept: the
    projection formulation asks for C(q) and then gamma(q, q') at the same q); :meth:`values` gives values and
    rates at many states at once (frames (F, n)), without Jacobians.
    """

    def __init__(self, nb: int, joints: list[tuple[JointGeometry, int, int]], terms: list[tuple[int, Equation]]):
        self.nb = nb
        self.joints = list(joints)
        self.terms = list(terms)
        instances: dict[tuple[int, str], int] = {}
        body: list[int] = []
        const: list[FloatArray] = []
        point: list[bool] = []
        side: list[int] = []
        moving: list[bool] = []

        def instance(jn: int, name: str) -> int:
            key = (jn, name)
            if key not in instances:
                geo, i, j = joints[jn]
                k = i if name.endswith("1") else j
                instances[key] = len(body)
                body.append(nb if k < 0 else k)
                const.append(np.asarray(getattr(geo, name), float))
                point.append(name.startswith("s"))
                side.append(0 if name.endswith("1") else 1)
                moving.append(k >= 0)
            return instances[key]

        slots: dict[tuple[int, str], int] = {}
        plus: list[int] = []
        minus: list[tuple[int, int]] = []  # (slot, instance subtracted)

        def slot(jn: int, name: str) -> int:
            key = (jn, name)
            if key not in slots:
                slots[key] = len(plus)
                if name == "d":
                    plus.append(instance(jn, "s2"))
                    minus.append((slots[key], instance(jn, "s1")))
                else:
                    plus.append(instance(jn, name))
            return slots[key]

        comps: list[tuple[int, int]] = []
        dots: list[tuple[int, int]] = []
        angles: list[tuple[int, int]] = []
        where: list[tuple[int, int]] = []  # (kind 0 component / 1 dot / 2 angle, index in its kind)
        for jn, eq in terms:
            if eq.kind == "component":
                name, k = eq.operands
                where.append((0, len(comps)))
                comps.append((slot(jn, name), int(k)))
            elif eq.kind == "dot":
                x, y = eq.operands
                where.append((1, len(dots)))
                dots.append((slot(jn, x), slot(jn, y)))
            elif eq.kind == "angle":
                (xs, ys), (xc, yc) = eq.operands
                where.append((2, len(angles)))
                angles.append((len(dots), len(dots) + 1))
                dots += [(slot(jn, xs), slot(jn, ys)), (slot(jn, xc), slot(jn, yc))]
            else:
                raise ValueError(f"unknown equation kind {eq.kind!r}")
        offset = (0, len(comps), len(comps) + len(dots))
        self.order = np.array([offset[kind] + n for kind, n in where], dtype=np.int64)
        ii = lambda rows, col: np.array([r[col] for r in rows], dtype=np.int64)  # noqa: E731
        self.c_slot, self.c_comp = ii(comps, 0), ii(comps, 1)
        self.d_x, self.d_y = ii(dots, 0), ii(dots, 1)
        self.a_s, self.a_c = ii(angles, 0), ii(angles, 1)
        self.body = np.array(body, dtype=np.int64)
        self.const = np.array(const, float).reshape(-1, 3)
        self.point = np.array(point, float)[:, None]
        self.plus = np.array(plus, dtype=np.int64)
        self.minus_slot, self.minus = ii(minus, 0), ii(minus, 1)
        self.plus_side = np.array(side, dtype=np.int64)[self.plus]
        self.minus_side = np.array(side, dtype=np.int64)[self.minus]
        mov = np.array(moving, float)[:, None, None]
        self.moving = mov
        # D(p)_ka = 2 sum_b p_b Q_abk(c) with A(p) c = sum_ab p_a p_b Q_abk(c) (QUAT_MATRIX_FORM): per instance
        # the (4, 12) matrix taking p to D(p) (ravelled k-major)
        Q = QUAT_MATRIX_FORM.reshape(4, 4, 3, 3) @ self.const.T  # (a, b, k, instance)
        self.dquad_form = np.ascontiguousarray(2 * Q.transpose(3, 1, 2, 0).reshape(len(body), 4, 12))
        self.point_jac = np.zeros((len(body), 3, 7))  # [E, 0] of points of moving bodies
        self.point_jac[:, :, :3] = np.eye(3) * (self.point[:, :, None] * mov)
        self.comp_flat = 3 * self.c_slot + self.c_comp  # component terms in the slots' (..., 3 L, K)
        # the same, flat, for the compiled kernel (spatial_rows_kernels): each slot's subtracted instance (-1: none)
        self.slot_minus = np.full(len(plus), -1, dtype=np.int64)
        self.slot_minus[self.minus_slot] = self.minus
        self.slot_minus_side = np.zeros(len(plus), dtype=np.int64)
        self.slot_minus_side[self.minus_slot] = self.minus_side
        self.point_flat = np.ascontiguousarray(self.point[:, 0])
        self.moving_flat = np.ascontiguousarray(self.moving[:, 0, 0])
        self.n_terms = len(terms)
        self.n_slots = len(plus)
        self._positions: tuple[bytes, BatchPositions] | None = None
        self._rates: tuple[bytes, BatchScalars] | None = None

    def clear_cache(self) -> None:
        """Forget the kept last state (the next evaluation computes afresh: for timings)."""
        self._positions = self._rates = None

    # --- states -----------------------------------------------------------------------------------------------
    def states(self, q: FloatArray, rates: bool = False) -> FloatArray:
        """(..., nb + 1, 7): the bodies' (r, p) (or (r', p') with ``rates``) of q (..., 7 nb), the ground last."""
        lead = q.shape[:-1]
        S = np.zeros(lead + (self.nb + 1, 7))
        S[..., :self.nb, :] = q.reshape(lead + (self.nb, 7))
        if not rates:
            S[..., self.nb, 3] = 1.0
        return S

    def slots(self, x: FloatArray) -> FloatArray:
        """Slot vectors (..., L, 3, K) of instance vectors (..., N, 3, K) (K: value, rate, bias; a slot d:
        P_j - P_i)."""
        out = x[..., self.plus, :, :]
        if len(self.minus):
            out[..., self.minus_slot, :, :] -= x[..., self.minus, :, :]
        return out

    # --- evaluation -------------------------------------------------------------------------------------------
    def values(self, q: FloatArray, v: FloatArray | None = None) -> tuple[FloatArray, FloatArray | None]:
        """(values, rates) (..., R) of the terms at states q, v (..., 7 nb); rates None without v."""
        X = self.states(q)[..., self.body, :]
        p = X[..., 3:]
        value = quad_rows(p, self.const) + self.point * X[..., :3]
        if v is None:
            return self.combine(self.slots(value[..., None]))[..., 0], None
        Xd = self.states(v, rates=True)[..., self.body, :]
        rate = 2 * polar_rows(p, Xd[..., 3:], self.const) + self.point * Xd[..., :3]
        out = self.combine(self.slots(np.stack((value, rate), -1)))
        return out[..., 0], out[..., 1]

    def positions(self, q: FloatArray) -> "BatchPositions":
        """Values and Jacobians of the terms at one state q (7 nb,) (the last state's are kept)."""
        key = q.tobytes()
        got = self._positions
        if got is not None and got[0] == key:
            return got[1]
        X = self.states(q)[self.body]
        D = (X[:, None, 3:] @ self.dquad_form).reshape(-1, 3, 4)  # D(p) = d(A(p) c)/dp, linear in p
        iv = 0.5 * (D @ X[:, 3:, None])[:, :, 0] + self.point * X[:, :3]  # A(p) c = D(p) p / 2 (degree 2)
        J7 = self.point_jac.copy()
        J7[:, :, 3:] = D * self.moving
        sj = np.zeros((self.n_slots, 3, 2, 7))
        sj[np.arange(self.n_slots), :, self.plus_side, :] = J7[self.plus]
        if len(self.minus):
            sj[self.minus_slot, :, self.minus_side, :] -= J7[self.minus]
        sj = sj.reshape(self.n_slots, 3, 14)
        sv = self.slots(iv[:, :, None])[:, :, 0]  # (L, 3)
        # components; dots X . Y with Jacobians Y^T X_q + X^T Y_q; angles atan2(s, c), (c s_q - s c_q) / rho
        Xv, Yv = sv[self.d_x, None, :], sv[self.d_y, None, :]  # (Rd, 1, 3)
        dv = (Xv @ Yv.swapaxes(1, 2))[:, 0, 0]
        dj = (Yv @ sj[self.d_x] + Xv @ sj[self.d_y])[:, 0]
        values = [sv.ravel()[self.comp_flat], dv]
        jacs = [sj.reshape(-1, 14)[self.comp_flat], dj]
        if len(self.a_s):
            sa, ca = dv[self.a_s], dv[self.a_c]
            values.append(np.arctan2(sa, ca))
            jacs.append((ca[:, None] * dj[self.a_s] - sa[:, None] * dj[self.a_c]) / (sa * sa + ca * ca)[:, None])
        value = np.concatenate(values)[self.order]
        jac = np.concatenate(jacs, 0)[self.order]
        value.flags.writeable = jac.flags.writeable = False  # shared with the next caller at the same state
        out = BatchPositions(value, jac, D, iv)
        self._positions = (key, out)
        return out

    def scalars(self, q: FloatArray, v: FloatArray | None = None) -> BatchScalars:
        """Values, Jacobians, rates and biases of the terms at one state (q, v (7 nb,)); the last result is kept.
        By the compiled kernel when the kernel policy gives it (spatial_rows_kernels), else by numpy."""
        compiled = spatial_rows_kernels.kernel()
        if compiled is not None:
            return self.compiled_scalars(compiled, q, v)
        pos = self.positions(q)
        if v is None:
            return BatchScalars(pos.value, pos.jac, None, None)
        key = q.tobytes() + v.tobytes()
        got = self._rates
        if got is not None and got[0] == key:
            return got[1]
        Xd = self.states(v, rates=True)[self.body]
        pd = Xd[:, 3:]
        inst = np.empty((len(pd), 3, 3))  # value, rate D(p) p' (+ r'), bias 2 A(p') c = D(p') p'
        inst[:, :, 0] = pos.iv
        inst[:, :, 1:2] = pos.D @ pd[:, :, None]
        inst[:, :, 1] += self.point * Xd[:, :3]
        inst[:, :, 2:] = (pd[:, None, :] @ self.dquad_form).reshape(-1, 3, 4) @ pd[:, :, None]
        both = self.combine(self.slots(inst))
        rate, bias = both[:, 1], both[:, 2]
        rate.flags.writeable = bias.flags.writeable = False
        out = BatchScalars(pos.value, pos.jac, rate, bias)
        self._rates = (key, out)
        return out

    def compiled_scalars(self, compiled: Any, q: FloatArray, v: FloatArray | None) -> BatchScalars:
        """:meth:`scalars` by the compiled kernel ``compiled`` (spatial_rows_kernels.k_row_terms)."""
        key = q.tobytes() + (b"" if v is None else v.tobytes())
        got = self._rates
        if got is not None and got[0] == key:
            return got[1]
        S = self.states(q)
        Sd = self.states(v, rates=True) if v is not None else np.zeros_like(S)
        value, jac, rate, bias = compiled(S, Sd, v is not None, self.body, self.dquad_form, self.point_flat,
                                          self.moving_flat, self.plus, self.plus_side, self.slot_minus,
                                          self.slot_minus_side, self.c_slot, self.c_comp, self.d_x, self.d_y,
                                          self.a_s, self.a_c, self.order)
        for a in (value, jac, rate, bias):
            a.flags.writeable = False
        out = BatchScalars(value, jac, rate if v is not None else None, bias if v is not None else None)
        self._rates = (key, out)
        return out

    def combine(self, S: FloatArray) -> FloatArray:
        """The terms (..., R, K) from the slots (..., L, 3, K), K = 1 (values), 2 (and rates) or 3 (and biases):
        the formulas of the module docstring, each kind of term at once. A dot's value, rate and bias are the
        products X_a . Y_b (a, b over value, rate, bias) weighted by :data:`DOT_PRODUCTS`."""
        K = S.shape[-1]
        M = S[..., self.d_x, :, :].swapaxes(-1, -2) @ S[..., self.d_y, :, :]  # (..., Rd, K, K): X_a . Y_b
        dots = M.reshape(M.shape[:-2] + (K * K,)) @ DOT_PRODUCTS[K]
        parts = [S.reshape(S.shape[:-3] + (-1, K))[..., self.comp_flat, :], dots]
        if len(self.a_s):
            sa, ca = dots[..., self.a_s, :], dots[..., self.a_c, :]
            s0, c0 = sa[..., 0], ca[..., 0]
            ang = np.empty(sa.shape)
            ang[..., 0] = np.arctan2(s0, c0)
            if K > 1:
                rho = s0 * s0 + c0 * c0
                rate = ang[..., 1] = (c0 * sa[..., 1] - s0 * ca[..., 1]) / rho
                if K > 2:
                    drho = 2 * (c0 * ca[..., 1] + s0 * sa[..., 1])
                    ang[..., 2] = (c0 * sa[..., 2] - s0 * ca[..., 2]) / rho - rate * drho / rho
            parts.append(ang)
        return np.concatenate(parts, -2)[..., self.order, :]


def _dot_products() -> dict[int, FloatArray]:
    """Weights W (K^2, K) with (X . Y, (X . Y)', bias) = sum_ab (X_a . Y_b) W[a K + b] for K = 1, 2, 3:
    value X.Y; rate X'.Y + X.Y'; bias X_b.Y + X.Y_b + 2 X'.Y' (module docstring)."""
    out = {}
    for K in (1, 2, 3):
        W = np.zeros((K, K, K))
        W[0, 0, 0] = 1.0
        if K > 1:
            W[1, 0, 1] = W[0, 1, 1] = 1.0
        if K > 2:
            W[2, 0, 2] = W[0, 2, 2] = 1.0
            W[1, 1, 2] = 2.0
        out[K] = W.reshape(K * K, K)
    return out


#: the products' weights of :meth:`RowBatch.combine`
DOT_PRODUCTS = _dot_products()


class BatchPositions(NamedTuple):
    """A :class:`RowBatch`'s terms at one state's positions: values, Jacobians, and what their rates need:
    D(p) (N, 3, 4) and A(p) c' (+ r) (N, 3) of the instances."""
    value: FloatArray
    jac: FloatArray
    D: FloatArray
    iv: FloatArray


def wrap(x: float) -> float:
    """x wrapped to (-pi, pi] [rad]."""
    return float(np.arctan2(np.sin(x), np.cos(x)))


__all__ = ["BatchPositions", "BatchScalars", "BodyState", "DOT_PRODUCTS", "Equation", "GROUND_STATE",
           "JOINT_COORDINATES", "JOINT_ROWS", "JointGeometry", "PAIR_COLUMNS", "Pair", "ROW_EQUATIONS", "RowBatch",
           "Scalar", "Vector", "angle", "axis_frame", "body_vector", "component", "cross_rows", "dot", "dquad",
           "evaluate", "polar_rows", "quad", "quad_rows", "wrap"]
