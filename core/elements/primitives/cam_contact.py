"""Cam and follower contact (1 holonomic row): a disk cam on body i, profile r(theta) in polar form about the cam
centre O = r_i + A_i s_i (theta from body i's x axis), touches a follower on body j. Notation: a_i = A_i s_i,
a_j = A_j s_j, d = r_j + a_j - r_i - a_i (cam centre to the follower point), perp(v) = (-v_y, v_x), omega = phi'.
The profile is evaluated from its quintic Hermite table (core/elements/primitives/cam_profile.py); the contact
angle theta* is found by Newton's method from the best of START_NODES table nodes.

Flat-faced follower (a line of body j through P_j = r_j + a_j; u = A_j u' its unit normal pointing away from
the cam). The face is tangent to the cam when its distance from O equals the cam's support function
h(psi) = max_theta r(theta) cos(theta - psi) at the face normal's angle in the cam frame psi = ang(u) - phi_i:

    Phi = u^T d - h(psi) = 0                                                                        (1)
    theta*: g = r' cos(alpha) - r sin(alpha) = 0,  alpha = theta* - psi,
            g_theta = (r'' - r) cos(alpha) - 2 r' sin(alpha) < 0  (a maximum: the cam is convex)
    h = r cos(alpha),  h' = dh/dpsi = r sin(alpha)  (envelope theorem: the partial derivative in psi),
    h'' = -(r' sin(alpha) + r cos(alpha))^2 / g_theta - r cos(alpha)  (d theta*/d psi = -g_psi / g_theta),
    Phi_q: d/dr_i = -u, d/dr_j = u, d/dphi_j = perp(u)^T d + u^T perp(a_j) - h', d/dphi_i = h' - u^T perp(a_i),
    gamma = -[-omega_j^2 u^T d + 2 omega_j perp(u)^T d' + u^T (a_i omega_i^2 - a_j omega_j^2)
              - h'' (omega_j - omega_i)^2],
    d' = r_j' + perp(a_j) omega_j - r_i' - perp(a_i) omega_i.
For an eccentric circle (radius R, centre at distance e from O) h(psi) = R + e cos(psi): a translating flat
follower lifts by e sin(theta) exactly (tests/test_cam_follower.py).

Roller follower (a circle of radius rho about the roller centre C = r_j + a_j). In the cam frame c = A_i^T d;
the distance from c to the profile curve P(theta) = r(theta) (cos theta, sin theta) equals rho:

    Phi = D(c) - rho = 0,  D(c) = min_theta |c - P(theta)| = |w|,  w = c - P(theta*),  m = w / D     (2)
    theta*: E'(theta) = -w^T P' = 0,  E'' = |P'|^2 - w^T P'' > 0,
            P' = r' e + r e_perp,  P'' = (r'' - r) e + 2 r' e_perp,  e = (cos, sin)(theta),
    grad_c D = m (envelope theorem), Hessian of D: kappa_D t t^T, t = perp(m),
            kappa_D = -(w^T P'') / (D E'')  (1 / (R + D) for a circle of radius R),
    Phi_q (m_w = A_i m): d/dr_i = -m_w, d/dr_j = m_w, d/dphi_j = m_w^T perp(a_j), d/dphi_i = -m_w^T perp(d + a_i),
    c' = A_i^T c_w',  c_w' = d' - omega_i perp(d),
    gamma = -[kappa_D (perp(m_w)^T c_w')^2 + m_w^T (d''_0 - omega_i perp(d') - omega_i perp(c_w'))],
    d''_0 = a_i omega_i^2 - a_j omega_j^2.

The row's gradient in r_j is a unit vector (u, or m_w), so its multiplier is the contact force along the contact
normal (positive: the cam pushes the follower; the contact is bilateral, a negative value means the follower
would lift off). The symbolic form (:func:`symbolic`) is independent of the table and of the formulas above:
sympy derives Phi_q and gamma of the kinematics (d, u, psi, c = A_i^T d) by the chain rule, and h, h', h''
(or D, grad D, Hessian of D) are evaluated on the exact profile expression (sympy's r', r''), not the table.
"""
from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Sequence

import numpy as np

from mechstudio.core.elements.primitives.base import INDEX, TABLE, VECTOR, HolonomicGroup
from mechstudio.core.elements.primitives.cam_profile import TABLE_NODES, profile_table
from mechstudio.core.elements.primitives.frame import BodyIndex, Vec
from mechstudio.core.types import FloatArray

COMPILED = "cm"  # core.systems.planar_kernels: the PlanarGeometry fields cm_* and their loop
#: its arrays there, in order: (name after the prefix, kind); the packed layout is generated from them
COMPILED_FIELDS = (("r", INDEX), ("bi", INDEX), ("bj", INDEX), ("kind", INDEX), ("off", INDEX), ("n", INDEX),
                   ("si", VECTOR), ("sj", VECTOR), ("u", VECTOR), ("par", VECTOR), ("tab", TABLE))
FOLLOWERS = ("flat", "roller")
NEWTON_ITERATIONS = 30
#: Newton's method starts from the best of this many uniformly spaced table nodes
START_NODES = 256


@dataclass(frozen=True)
class CamContactSpec:
    """Cam ``body1`` (centre ``point1``, ``profile`` r(theta) a TimeFunction of t = theta) and a ``follower``
    ("flat": face normal ``normal`` in body2's frame, pointing away from the cam; "roller": radius ``rho``) on
    ``body2`` at ``point2``."""
    body1: str
    point1: Vec
    body2: str
    point2: Vec
    profile: Any = field(compare=False)
    follower: str
    normal: Vec = (0.0, 1.0)
    rho: float = 0.0
    size: ClassVar[int] = 1
    holonomic: ClassVar[bool] = True


def cam_row(kind, tab, off, n, qi, qj, vi, vj, si, sj, u, rho):  # noqa: ANN001, ANN201, C901
    """(Phi, dPhi/d(x_i, y_i, phi_i), dPhi/d(x_j, y_j, phi_j), Phi'' at q'' = 0) of one cam contact (module
    docstring, eqs. (1) and (2)); kind 0 flat, 1 roller; tab[off:off + n] the (r, r', r'') table; qi, qj, vi, vj
    the coordinates and velocities (x, y, phi) of the cam and the follower; si, sj the body-frame arms from the
    centres of mass; u the flat face's normal (follower frame); rho the roller radius. Plain Python with numpy
    semantics: the numeric group calls it, the compiled kernels its numba-compiled version."""
    ci, sni = math.cos(qi[2]), math.sin(qi[2])
    cj, snj = math.cos(qj[2]), math.sin(qj[2])
    aix, aiy = ci * si[0] - sni * si[1], sni * si[0] + ci * si[1]
    ajx, ajy = cj * sj[0] - snj * sj[1], snj * sj[0] + cj * sj[1]
    wi, wj = vi[2], vj[2]
    dx = qj[0] + ajx - qi[0] - aix
    dy = qj[1] + ajy - qi[1] - aiy
    ddx = vj[0] - ajy * wj - vi[0] + aiy * wi  # d'
    ddy = vj[1] + ajx * wj - vi[1] - aix * wi
    d0x = aix * wi * wi - ajx * wj * wj  # d'' at q'' = 0
    d0y = aiy * wi * wi - ajy * wj * wj
    ux = uy = ca = sa = f2 = wx = wy = vx = vy = 0.0
    if kind == 0:  # the angle psi of the face normal in the cam frame
        ux, uy = cj * u[0] - snj * u[1], snj * u[0] + cj * u[1]
        px, py = ci * ux + sni * uy, -sni * ux + ci * uy
    else:  # the roller centre in the cam frame
        px, py = ci * dx + sni * dy, -sni * dx + ci * dy
    # start: the best table node
    best, th = -1e300, 0.0
    for k in range(0, n, max(1, n // START_NODES)):
        t = 2.0 * math.pi * k / n
        rk = tab[off + k, 0]
        ex, ey = math.cos(t), math.sin(t)
        score = rk * (ex * px + ey * py) if kind == 0 else -((px - rk * ex) ** 2 + (py - rk * ey) ** 2)
        if score > best:
            best, th = score, t
    h = 2.0 * math.pi / n
    r = dr = ddr = 0.0
    for it in range(NEWTON_ITERATIONS + 1):
        # the quintic Hermite interpolant of the table at th (cam_profile.py)
        uu = (th % (2.0 * math.pi)) / h
        k = int(math.floor(uu))
        if k >= n:
            k = n - 1
        s = uu - k
        a, b = off + k, off + (k + 1) % n
        p0, q0, e0 = tab[a, 0], tab[a, 1] * h, tab[a, 2] * h * h
        p1, q1, e1 = tab[b, 0], tab[b, 1] * h, tab[b, 2] * h * h
        s2 = s * s
        s3 = s2 * s
        s4 = s3 * s
        s5 = s4 * s
        r = (p0 * (1.0 - 10.0 * s3 + 15.0 * s4 - 6.0 * s5) + q0 * (s - 6.0 * s3 + 8.0 * s4 - 3.0 * s5)
             + e0 * (0.5 * s2 - 1.5 * s3 + 1.5 * s4 - 0.5 * s5) + e1 * (0.5 * s3 - s4 + 0.5 * s5)
             + q1 * (-4.0 * s3 + 7.0 * s4 - 3.0 * s5) + p1 * (10.0 * s3 - 15.0 * s4 + 6.0 * s5))
        dr = (p0 * (-30.0 * s2 + 60.0 * s3 - 30.0 * s4) + q0 * (1.0 - 18.0 * s2 + 32.0 * s3 - 15.0 * s4)
              + e0 * (s - 4.5 * s2 + 6.0 * s3 - 2.5 * s4) + e1 * (1.5 * s2 - 4.0 * s3 + 2.5 * s4)
              + q1 * (-12.0 * s2 + 28.0 * s3 - 15.0 * s4) + p1 * (30.0 * s2 - 60.0 * s3 + 30.0 * s4)) / h
        ddr = (p0 * (-60.0 * s + 180.0 * s2 - 120.0 * s3) + q0 * (-36.0 * s + 96.0 * s2 - 60.0 * s3)
               + e0 * (1.0 - 9.0 * s + 18.0 * s2 - 10.0 * s3) + e1 * (3.0 * s - 12.0 * s2 + 10.0 * s3)
               + q1 * (-24.0 * s + 84.0 * s2 - 60.0 * s3) + p1 * (60.0 * s - 180.0 * s2 + 120.0 * s3)) / (h * h)
        ex, ey = math.cos(th), math.sin(th)
        if kind == 0:
            ca, sa = ex * px + ey * py, ey * px - ex * py  # cos, sin of alpha = theta - psi
            f1 = dr * ca - r * sa
            f2 = (ddr - r) * ca - 2.0 * dr * sa
        else:
            wx, wy = px - r * ex, py - r * ey
            tx, ty = dr * ex - r * ey, dr * ey + r * ex  # P'
            vx, vy = (ddr - r) * ex - 2.0 * dr * ey, (ddr - r) * ey + 2.0 * dr * ex  # P''
            f1 = -(wx * tx + wy * ty)
            f2 = tx * tx + ty * ty - (wx * vx + wy * vy)
        step = f1 / f2 if f2 != 0.0 else 0.0
        if it == NEWTON_ITERATIONS or abs(step) <= 1e-15 * (1.0 + abs(th)):
            break
        th -= step
    if kind == 0:
        hv = r * ca
        h1 = r * sa
        h2 = -(dr * sa + r * ca) ** 2 / f2 - r * ca
        phi = ux * dx + uy * dy - hv
        gi = (-ux, -uy, h1 - (ux * -aiy + uy * aix))
        gj = (ux, uy, (-uy * dx + ux * dy) + (ux * -ajy + uy * ajx) - h1)
        rel = wj - wi
        quad = (-wj * wj * (ux * dx + uy * dy) + 2.0 * wj * (-uy * ddx + ux * ddy) + ux * d0x + uy * d0y
                - h2 * rel * rel)
        return phi, gi, gj, quad
    dist = math.sqrt(wx * wx + wy * wy)
    mx, my = wx / dist, wy / dist
    kap = -(wx * vx + wy * vy) / (dist * f2)
    mwx, mwy = ci * mx - sni * my, sni * mx + ci * my  # m in the world frame
    phi = dist - rho
    gi = (-mwx, -mwy, -(mwx * -(dy + aiy) + mwy * (dx + aix)))
    gj = (mwx, mwy, mwx * -ajy + mwy * ajx)
    cwx, cwy = ddx + wi * dy, ddy - wi * dx  # c_w' = d' - omega_i perp(d)
    tc = -mwy * cwx + mwx * cwy
    quad = kap * tc * tc + mwx * (d0x + wi * ddy + wi * cwy) + mwy * (d0y - wi * ddx - wi * cwx)
    return phi, gi, gj, quad


class CamContact(HolonomicGroup):
    """Phi = u^T d - h(psi) (flat) or D(c) - rho (roller) per cam (see module docstring); the profile tables of all
    cams are stacked in ``table`` ((K N, 3): r, r', r'' at N nodes each)."""

    def __init__(self, rows: Sequence[int], bi: Sequence[int], si: Sequence[Sequence[float]],
                 bj: Sequence[int], sj: Sequence[Sequence[float]], kind: Sequence[int],
                 normal: Sequence[Sequence[float]], rho: Sequence[float], tables: Sequence[FloatArray]):
        super().__init__(rows)
        self.bi, self.bj = np.asarray(bi, np.int64), np.asarray(bj, np.int64)
        self.si, self.sj = np.asarray(si, float).reshape(-1, 2), np.asarray(sj, float).reshape(-1, 2)
        self.kind = np.asarray(kind, np.int64)
        u = np.asarray(normal, float).reshape(-1, 2)
        self.normal = u / np.linalg.norm(u, axis=1)[:, None]
        self.params = np.column_stack((np.asarray(rho, float), np.zeros(len(rho)))).reshape(-1, 2)
        self.count_nodes = np.array([len(t) for t in tables], np.int64)
        self.offset = np.concatenate(([0], np.cumsum(self.count_nodes)[:-1])).astype(np.int64)
        self.table = np.ascontiguousarray(np.vstack(tables)) if len(tables) else np.zeros((0, 3))

    @classmethod
    def from_specs(cls, rows: list[list[int]], specs: list[CamContactSpec], bodies: BodyIndex) -> "CamContact":
        return cls([rr[0] for rr in rows], [bodies(s.body1) for s in specs],
                   [bodies.local(s.body1, s.point1) for s in specs], [bodies(s.body2) for s in specs],
                   [bodies.local(s.body2, s.point2) for s in specs],
                   [FOLLOWERS.index(s.follower) for s in specs], [list(s.normal[:2]) for s in specs],
                   [s.rho for s in specs], [profile_table(s.profile) for s in specs])

    def compiled_fields(self, mh: int) -> dict[str, FloatArray]:
        """This group's arrays in ``mechstudio.core.systems.planar_kernels.PlanarGeometry`` (prefix ``COMPILED``)."""
        return {"cm_r": self.rows[:, 0], "cm_bi": self.bi, "cm_bj": self.bj, "cm_kind": self.kind,
                "cm_off": self.offset, "cm_n": self.count_nodes, "cm_si": self.si, "cm_sj": self.sj,
                "cm_u": self.normal, "cm_par": self.params, "cm_tab": self.table}

    def _rows(self, qe: FloatArray, ve: FloatArray) -> list[tuple[Any, ...]]:
        out = []
        for e in range(self.count):
            i, j = self.bi[e], self.bj[e]
            out.append(cam_row(int(self.kind[e]), self.table, int(self.offset[e]), int(self.count_nodes[e]),
                               qe[3 * i:3 * i + 3], qe[3 * j:3 * j + 3], ve[3 * i:3 * i + 3], ve[3 * j:3 * j + 3],
                               self.si[e], self.sj[e], self.normal[e], float(self.params[e, 0])))
        return out

    def phi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        for e, row in enumerate(self._rows(qe, np.zeros_like(qe))):
            out[self.rows[e, 0]] = row[0]

    def jacobian(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        for e, (_, gi, gj, _) in enumerate(self._rows(qe, np.zeros_like(qe))):
            r, i, j = self.rows[e, 0], self.bi[e], self.bj[e]
            out[r, 3 * i:3 * i + 3] = gi  # ground columns (index nb) are sliced away by the caller
            out[r, 3 * j:3 * j + 3] = gj

    def gamma(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        for e, row in enumerate(self._rows(qe, ve)):
            out[self.rows[e, 0]] = -row[3]


# ---- symbolic form: the exact profile, support/distance functions as sympy functions of the cam-frame inputs ----
_NAMES = itertools.count()


def _opaque(name: str, nargs: int, value: Any, derivatives: tuple[Any, ...] = ()) -> type:
    """A sympy function of ``nargs`` arguments evaluated by ``value`` (for lambdify) whose partial derivative in
    argument k is derivatives[k - 1] (another such function, applied to the same arguments)."""
    import sympy as sp  # symbolic work only: a model without symbolic use never imports sympy (start-up time)

    def fdiff(self: Any, argindex: int = 1) -> Any:
        if not derivatives:
            raise sp.ArgumentIndexError(self, argindex)
        return derivatives[argindex - 1](*self.args)

    return type(f"{name}_{next(_NAMES)}", (sp.Function,), {"nargs": nargs, "fdiff": fdiff,
                                                            "_imp_": staticmethod(value)})


def _radii(fr: Any, grid: FloatArray) -> FloatArray:
    """r at the angles ``grid`` from an exact-profile function (vectorised; a constant broadcast)."""
    return np.broadcast_to(np.asarray(fr(grid)[0], float), grid.shape)


def _newton(score: Any, step: Any) -> float:
    """Newton's method (step function ``step``) from the best of TABLE_NODES uniform angles by ``score``."""
    grid = np.arange(TABLE_NODES) * (2 * math.pi / TABLE_NODES)
    th = float(grid[int(np.argmax(score(grid)))])
    for _ in range(60):
        dx = float(step(th))
        th -= dx
        if abs(dx) < 1e-15:
            break
    return th


def exact_profile(profile: Any) -> Any:
    """theta -> [r, r', r''] of the exact profile expression (sympy derivatives; its variable is written t)."""
    import sympy as sp  # symbolic work only: a model without symbolic use never imports sympy (start-up time)
    e = profile.expr
    if not e.free_symbols:
        return lambda x: [float(e), 0.0, 0.0]
    (t,) = e.free_symbols
    return sp.lambdify(t, [e, sp.diff(e, t), sp.diff(e, t, 2)], "numpy")


def exact_support(profile: Any) -> tuple[Any, Any, Any]:
    """h(psi), h'(psi), h''(psi) of the exact profile (module docstring, eq. (1); no table)."""
    fr = exact_profile(profile)

    @functools.lru_cache(maxsize=8)  # h, h', h'' at the same psi: one solve
    def contact(p: float) -> tuple[float, ...]:
        def step(x: float) -> float:
            r, a, b = fr(x)
            return (a * math.cos(x - p) - r * math.sin(x - p)) / ((b - r) * math.cos(x - p) - 2 * a * math.sin(x - p))
        th = _newton(lambda g: _radii(fr, g) * np.cos(g - p), step)
        r, a, b = fr(th)
        al = th - p
        return r, a, b, math.cos(al), math.sin(al)

    def h(p: float) -> float:
        r, _, _, ca, _ = contact(float(p))
        return r * ca

    def h1(p: float) -> float:
        r, _, _, _, sa = contact(float(p))
        return r * sa

    def h2(p: float) -> float:
        r, a, b, ca, sa = contact(float(p))
        return -(a * sa + r * ca) ** 2 / ((b - r) * ca - 2 * a * sa) - r * ca

    return h, h1, h2


def exact_distance(profile: Any) -> tuple[Any, Any, Any]:
    """D(c), grad D (2 functions), Hessian of D (4 functions) of the exact profile (eq. (2); no table)."""
    fr = exact_profile(profile)

    @functools.lru_cache(maxsize=8)  # D, grad D, Hessian at the same c: one solve
    def contact(x0: float, y0: float) -> tuple[float, ...]:
        def parts(x: float) -> tuple[float, ...]:
            r, a, b = fr(x)
            ex, ey = math.cos(x), math.sin(x)
            return (x0 - r * ex, y0 - r * ey, a * ex - r * ey, a * ey + r * ex,
                    (b - r) * ex - 2 * a * ey, (b - r) * ey + 2 * a * ex)

        def step(x: float) -> float:
            wx, wy, tx, ty, vx, vy = parts(x)
            return -(wx * tx + wy * ty) / (tx * tx + ty * ty - (wx * vx + wy * vy))
        th = _newton(lambda g: -np.hypot(x0 - _radii(fr, g) * np.cos(g), y0 - _radii(fr, g) * np.sin(g)), step)
        wx, wy, tx, ty, vx, vy = parts(th)
        dist = math.hypot(wx, wy)
        kap = -(wx * vx + wy * vy) / (dist * (tx * tx + ty * ty - (wx * vx + wy * vy)))
        return dist, wx / dist, wy / dist, kap

    def dist(x: float, y: float) -> float:
        return contact(float(x), float(y))[0]

    def grad(k: int) -> Any:
        return lambda x, y: contact(float(x), float(y))[1 + k]

    def hess(k: int, j: int) -> Any:
        def f(x: float, y: float) -> float:
            _, mx, my, kap = contact(float(x), float(y))
            t = (-my, mx)
            return kap * t[k] * t[j]
        return f

    return dist, (grad(0), grad(1)), tuple(hess(k, j) for k in range(2) for j in range(2))




def symbolic(spec: CamContactSpec, S: Any) -> list[Any]:
    """The row of Phi as a sympy expression: the kinematics in sympy, the cam's support function h(psi) (flat) or
    distance function D(c) (roller) and their derivatives as sympy functions evaluated on the exact profile
    (:func:`exact_support`, :func:`exact_distance`; tests check them against finite differences)."""
    import sympy as sp  # symbolic work only: a model without symbolic use never imports sympy (start-up time)
    d = S.r(spec.body2) + S.arm(spec.body2, spec.point2) - S.r(spec.body1) - S.arm(spec.body1, spec.point1)
    if spec.follower == "flat":
        h, h1, h2 = exact_support(spec.profile)
        H2 = _opaque("cam_support_dd", 1, h2)
        H1 = _opaque("cam_support_d", 1, h1, (H2,))
        H = _opaque("cam_support", 1, h, (H1,))
        un = S.unit(spec.normal)
        u = S.rot(S.ang(spec.body2)) * un
        psi = S.ang(spec.body2) + sp.atan2(un[1], un[0]) - S.ang(spec.body1)
        return [u.dot(d) - H(psi)]
    dist, grad, hess = exact_distance(spec.profile)
    Hxx, Hxy, Hyx, Hyy = (_opaque("cam_distance_dd", 2, f) for f in hess)
    Dx = _opaque("cam_distance_dx", 2, grad[0], (Hxx, Hxy))
    Dy = _opaque("cam_distance_dy", 2, grad[1], (Hyx, Hyy))
    D = _opaque("cam_distance", 2, dist, (Dx, Dy))
    c = S.rot(-S.ang(spec.body1)) * d
    return [D(c[0], c[1]) - S.num(spec.rho)]
