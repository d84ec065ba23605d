"""Planar constraint equations by the local method (source 003), vectorised per element kind.

Coordinates: body k owns q[3k:3k+3] = (x, y, phi): the position of its centre of mass [m] and the angle of its
body frame [rad]. A body-fixed vector s' (body frame, measured from the centre of mass) is A(phi) s' in the
global frame, with the planar rotation matrix A(phi) = [[cos, -sin], [sin, cos]] and B(phi) = dA/dphi, so that
B s' = perp(A s') where perp(v) = (-v_y, v_x).

The ground is padded as an extra body with index ``nb`` whose coordinates are always (0, 0, 0): elements address
it like any body and its Jacobian columns are sliced away (see ``q_ext``).

Elements (each a group of K equations of one kind, evaluated with numpy in one go). For every element the
holonomic equation Phi(q, t) = 0, its Jacobian Phi_q, Phi_t and the acceleration right-hand side
gamma = -(Phi_q q')_q q' - 2 Phi_qt q' - Phi_tt (so that Phi_q q'' = gamma) are analytic:

* :class:`PointCoincidence` (2 rows; revolute joint, weld):  r_i + A_i s_i - r_j - A_j s_j = 0,
  gamma = A_i s_i phi_i'^2 - A_j s_j phi_j'^2.
* :class:`PointLine` (1 row; prismatic joint, joint-distance driver): v^T d - f(t) = 0 with v = A_i v'
  (a body-i-fixed direction) and d = r_j + A_j s_j - r_i - A_i s_i;
  gamma = phi_i'^2 v^T d - 2 phi_i' (B_i v')^T d' - v^T (A_i s_i phi_i'^2 - A_j s_j phi_j'^2) + f''(t).
* :class:`RelativeAngle` (1 row; weld, prismatic, joint-angle driver): phi_j - phi_i - f(t) = 0, gamma = f''.
* :class:`CoordinateDriver` (1 row): q_k - f(t) = 0, gamma = f''.

Nonholonomic (linear in velocities, C_psi q' + xi_psi = 0), with eta = C_psi' q' + xi_psi':

* :class:`KnifeEdge` (1 row): the velocity of body point P has no component along n = A(phi) n', the blade's
  normal: n^T (r' + B s' phi') = 0; eta = phi' (B n')^T r' + phi'^2 [(B n')^T B s' - n^T A s'].
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from core.model.timefunc import TimeFunction
from core.types import FloatArray


def q_ext(q: FloatArray) -> FloatArray:
    """q with the ground's (0, 0, 0) appended, so that body index nb addresses the ground."""
    return np.concatenate((q, (0.0, 0.0, 0.0)))


def rotate(phi: FloatArray, s: FloatArray) -> FloatArray:
    """A(phi) s for arrays phi (K,) and s (K, 2) -> (K, 2)."""
    c, sn = np.cos(phi), np.sin(phi)
    out = np.empty((len(phi), 2))
    out[:, 0] = c * s[:, 0] - sn * s[:, 1]
    out[:, 1] = sn * s[:, 0] + c * s[:, 1]
    return out


def perp(v: FloatArray) -> FloatArray:
    """Rotate (K, 2) vectors by +90 degrees: (-v_y, v_x); B(phi) s = perp(A(phi) s)."""
    out = np.empty_like(v)
    out[:, 0] = -v[:, 1]
    out[:, 1] = v[:, 0]
    return out


def _xy(qe: FloatArray, body: FloatArray) -> FloatArray:
    """Positions (K, 2) of bodies ``body`` from the padded coordinate vector."""
    out = np.empty((len(body), 2))
    out[:, 0] = qe[3 * body]
    out[:, 1] = qe[3 * body + 1]
    return out


def _cols(body: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    return 3 * body, 3 * body + 1, 3 * body + 2


@dataclass
class Labels:
    """Which constraint (name) and which equation (component) each row belongs to."""
    names: list[str] = field(default_factory=list)
    components: list[str] = field(default_factory=list)


class HolonomicElements:
    """Base class of a group of holonomic equations. ``rows`` are the group's rows in the full Phi."""

    rows_per_element = 1

    def __init__(self, rows: Sequence[int]):
        self.rows = np.asarray(rows, dtype=np.int64).reshape(-1, self.rows_per_element)

    @property
    def count(self) -> int:
        return int(self.rows.shape[0])

    def phi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        raise NotImplementedError

    def jacobian(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        raise NotImplementedError

    def phi_t(self, t: float, out: FloatArray) -> None:
        """Only rheonomic elements write; default: Phi_t = 0."""

    def gamma(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        raise NotImplementedError


class PointCoincidence(HolonomicElements):
    """r_i + A_i s_i - r_j - A_j s_j = 0 for K pairs (i, j) of bodies and body-fixed points s_i, s_j."""

    rows_per_element = 2

    def __init__(self, rows: Sequence[int], bi: Sequence[int], si: Sequence[Sequence[float]],
                 bj: Sequence[int], sj: Sequence[Sequence[float]]):
        super().__init__(rows)
        self.bi, self.bj = np.asarray(bi, np.int64), np.asarray(bj, np.int64)
        self.si, self.sj = np.asarray(si, float).reshape(-1, 2), np.asarray(sj, float).reshape(-1, 2)

    def _terms(self, qe: FloatArray) -> tuple[FloatArray, FloatArray]:
        return rotate(qe[3 * self.bi + 2], self.si), rotate(qe[3 * self.bj + 2], self.sj)

    def phi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        ai, aj = self._terms(qe)
        ri = _xy(qe, self.bi)
        rj = _xy(qe, self.bj)
        out[self.rows] = ri + ai - rj - aj

    def jacobian(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        ai, aj = self._terms(qe)
        bsi, bsj = perp(ai), perp(aj)
        rx, ry = self.rows[:, 0], self.rows[:, 1]
        xi, yi, pi = _cols(self.bi)
        xj, yj, pj = _cols(self.bj)
        out[rx, xi] = 1.0
        out[ry, yi] = 1.0
        out[rx, pi] = bsi[:, 0]
        out[ry, pi] = bsi[:, 1]
        out[rx, xj] = -1.0
        out[ry, yj] = -1.0
        out[rx, pj] = -bsj[:, 0]
        out[ry, pj] = -bsj[:, 1]

    def gamma(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        ai, aj = self._terms(qe)
        wi, wj = ve[3 * self.bi + 2], ve[3 * self.bj + 2]
        out[self.rows] = ai * (wi ** 2)[:, None] - aj * (wj ** 2)[:, None]


class PointLine(HolonomicElements):
    """(A_i v'_i)^T (r_j + A_j s_j - r_i - A_i s_i) - f(t) = 0: the offset of point P_j from point P_i along a
    direction fixed in body i is prescribed (0 for a prismatic joint's normal, f(t) for a distance driver)."""

    def __init__(self, rows: Sequence[int], bi: Sequence[int], si: Sequence[Sequence[float]],
                 vi: Sequence[Sequence[float]], bj: Sequence[int], sj: Sequence[Sequence[float]],
                 functions: Sequence[TimeFunction | None]):
        super().__init__(rows)
        self.bi, self.bj = np.asarray(bi, np.int64), np.asarray(bj, np.int64)
        self.si, self.sj = np.asarray(si, float).reshape(-1, 2), np.asarray(sj, float).reshape(-1, 2)
        v = np.asarray(vi, float).reshape(-1, 2)
        self.vi = v / np.linalg.norm(v, axis=1)[:, None]
        self.functions = list(functions)
        self.rheonomic = [k for k, f in enumerate(self.functions) if f is not None]

    def _f(self, t: float, which: str) -> FloatArray:
        out = np.zeros(self.count)
        for k in self.rheonomic:
            f = self.functions[k]
            out[k] = getattr(f, which)(t)
        return out

    def _geometry(self, qe: FloatArray) -> tuple[FloatArray, ...]:
        phi_i, phi_j = qe[3 * self.bi + 2], qe[3 * self.bj + 2]
        ai, aj, v = rotate(phi_i, self.si), rotate(phi_j, self.sj), rotate(phi_i, self.vi)
        ri = _xy(qe, self.bi)
        rj = _xy(qe, self.bj)
        d = rj + aj - ri - ai
        return ai, aj, v, d

    def phi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        _, _, v, d = self._geometry(qe)
        out[self.rows[:, 0]] = np.einsum("ka,ka->k", v, d) - self._f(t, "value")

    def phi_t(self, t: float, out: FloatArray) -> None:
        if self.rheonomic:
            out[self.rows[:, 0]] = -self._f(t, "rate")

    def jacobian(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        ai, aj, v, d = self._geometry(qe)
        r = self.rows[:, 0]
        xi, yi, pi = _cols(self.bi)
        xj, yj, pj = _cols(self.bj)
        out[r, xi] = -v[:, 0]
        out[r, yi] = -v[:, 1]
        out[r, xj] = v[:, 0]
        out[r, yj] = v[:, 1]
        out[r, pj] = np.einsum("ka,ka->k", v, perp(aj))
        out[r, pi] = np.einsum("ka,ka->k", perp(v), d) - np.einsum("ka,ka->k", v, perp(ai))

    def gamma(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        ai, aj, v, d = self._geometry(qe)
        wi, wj = ve[3 * self.bi + 2], ve[3 * self.bj + 2]
        vri = _xy(ve, self.bi)
        vrj = _xy(ve, self.bj)
        dd = vrj + perp(aj) * wj[:, None] - vri - perp(ai) * wi[:, None]
        quad = (-(wi ** 2) * np.einsum("ka,ka->k", v, d) + 2 * wi * np.einsum("ka,ka->k", perp(v), dd)
                + np.einsum("ka,ka->k", v, ai * (wi ** 2)[:, None] - aj * (wj ** 2)[:, None]))
        out[self.rows[:, 0]] = -quad + self._f(t, "accel")


class RelativeAngle(HolonomicElements):
    """phi_j - phi_i - f(t) = 0 (weld, prismatic: f constant; joint-angle driver: f(t))."""

    def __init__(self, rows: Sequence[int], bi: Sequence[int], bj: Sequence[int],
                 functions: Sequence[TimeFunction | float]):
        super().__init__(rows)
        self.bi, self.bj = np.asarray(bi, np.int64), np.asarray(bj, np.int64)
        self.functions = list(functions)
        self.const = np.array([f if isinstance(f, float) else 0.0 for f in self.functions])
        self.rheonomic = [k for k, f in enumerate(self.functions) if not isinstance(f, float)]

    def _f(self, t: float, which: str) -> FloatArray:
        out = self.const.copy() if which == "value" else np.zeros(self.count)
        for k in self.rheonomic:
            out[k] = getattr(self.functions[k], which)(t)
        return out

    def phi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        out[self.rows[:, 0]] = qe[3 * self.bj + 2] - qe[3 * self.bi + 2] - self._f(t, "value")

    def phi_t(self, t: float, out: FloatArray) -> None:
        if self.rheonomic:
            out[self.rows[:, 0]] = -self._f(t, "rate")

    def jacobian(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        r = self.rows[:, 0]
        out[r, 3 * self.bi + 2] = -1.0
        out[r, 3 * self.bj + 2] = 1.0

    def gamma(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        out[self.rows[:, 0]] = self._f(t, "accel")


class CoordinateDriver(HolonomicElements):
    """q_k - f(t) = 0: a body coordinate prescribed as a function of time."""

    def __init__(self, rows: Sequence[int], coords: Sequence[int], functions: Sequence[TimeFunction]):
        super().__init__(rows)
        self.coords = np.asarray(coords, np.int64)
        self.functions = list(functions)

    def _f(self, t: float, which: str) -> FloatArray:
        return np.array([getattr(f, which)(t) for f in self.functions])

    def phi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        out[self.rows[:, 0]] = qe[self.coords] - self._f(t, "value")

    def phi_t(self, t: float, out: FloatArray) -> None:
        out[self.rows[:, 0]] = -self._f(t, "rate")

    def jacobian(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        out[self.rows[:, 0], self.coords] = 1.0

    def gamma(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        out[self.rows[:, 0]] = self._f(t, "accel")


class KnifeEdge:
    """Nonholonomic rows n^T (r' + B s' phi') = 0 (see module docstring); ``rows`` index the nonholonomic block."""

    def __init__(self, rows: Sequence[int], body: Sequence[int], s: Sequence[Sequence[float]],
                 axis: Sequence[Sequence[float]]):
        self.rows = np.asarray(rows, np.int64)
        self.body = np.asarray(body, np.int64)
        self.s = np.asarray(s, float).reshape(-1, 2)
        a = np.asarray(axis, float).reshape(-1, 2)
        a = a / np.linalg.norm(a, axis=1)[:, None]
        self.normal = perp(a)  # n' in the body frame

    def matrix(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        phi = qe[3 * self.body + 2]
        n, As = rotate(phi, self.normal), rotate(phi, self.s)
        x, y, p = _cols(self.body)
        out[self.rows, x] = n[:, 0]
        out[self.rows, y] = n[:, 1]
        out[self.rows, p] = np.einsum("ka,ka->k", n, perp(As))

    def xi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        """xi_psi = 0 for a knife edge on the fixed plane."""

    def eta(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        phi, w = qe[3 * self.body + 2], ve[3 * self.body + 2]
        n, As = rotate(phi, self.normal), rotate(phi, self.s)
        bn = perp(n)
        vr = _xy(ve, self.body)
        out[self.rows] = (w * np.einsum("ka,ka->k", bn, vr)
                          + w ** 2 * (np.einsum("ka,ka->k", bn, perp(As)) - np.einsum("ka,ka->k", n, As)))
