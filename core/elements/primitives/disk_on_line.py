"""Disk rolling without slipping on a body-fixed line (2 holonomic rows, planar rolling disk). The line goes
through P_i = r_i + A_i s_i along the unit direction v = A_i v'_i of body i; the disk of radius rho has its
centre at P_j = r_j + A_j s_j on body j; n = perp(v) is the line's normal on the disk's side,
d = P_j - P_i, a_i = A_i s_i, a_j = A_j s_j, omega = phi':

    normal row   Phi_n = n^T d - rho = 0                                   (the centre is rho from the line)
    rolling row  Phi_t = v^T d + rho (phi_j - phi_i) - c0 = 0               (arc rolled = distance travelled)

The rolling row is the integral of the no-slip condition: in body i's frame the contact point Q = P_j - rho n of
the disk has velocity (s' + rho (omega_j - omega_i)) v with s = v^T d, which must vanish ([002], rolling
without slipping of a disk on a line); c0 is its value at the model file's initial poses (the rolling is
measured from the initial contact). Both rows are point-on-line rows of the unit vectors n and v fixed in body
i ([003] local method), the second with the linear term rho (phi_j - phi_i):

    Phi_q (w = n or v):  d/dr_i = -w, d/dr_j = w, d/dphi_j = w^T perp(a_j) (+ rho),
                         d/dphi_i = perp(w)^T d - w^T perp(a_i) (- rho),
    gamma = -[-omega_i^2 w^T d + 2 omega_i perp(w)^T d' + w^T (a_i omega_i^2 - a_j omega_j^2)],
    d' = r_j' + perp(a_j) omega_j - r_i' - perp(a_i) omega_i.

The gradients in r_j are the unit vectors n and v, so the multipliers are the normal and the friction force
on the disk (along n and v, applied at the contact point: about the disk centre they give the moment
rho lambda_t).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from mechstudio.core.elements.primitives.base import INDEX, VECTOR, HolonomicGroup
from mechstudio.core.elements.primitives.frame import BodyIndex, Vec, columns, dot, perp, positions, rotate
from mechstudio.core.types import FloatArray

COMPILED = "dl"  # core.systems.planar_kernels: the PlanarGeometry fields dl_* and their loop
#: its arrays there, in order: (name after the prefix, kind); the packed layout is generated from them
COMPILED_FIELDS = (("rn", INDEX), ("rt", INDEX), ("bi", INDEX), ("bj", INDEX), ("si", VECTOR), ("sj", VECTOR),
                   ("vi", VECTOR), ("par", VECTOR))


@dataclass(frozen=True)
class DiskOnLineSpec:
    """Disk (``body2``, centre ``point2``, radius ``radius``) on the line of ``body1`` through ``point1`` along
    ``direction`` (body1's frame); ``offset`` c0 [m] of the rolling row."""
    size: ClassVar[int] = 2
    holonomic: ClassVar[bool] = True
    body1: str
    point1: Vec
    direction: Vec
    body2: str
    point2: Vec
    radius: float
    offset: float


class DiskOnLine(HolonomicGroup):
    """Rows (normal, rolling) per disk (see module docstring)."""

    rows_per_element = 2

    def __init__(self, rows: Sequence[Sequence[int]], bi: Sequence[int], si: Sequence[Sequence[float]],
                 vi: Sequence[Sequence[float]], bj: Sequence[int], sj: Sequence[Sequence[float]],
                 radius: Sequence[float], offset: Sequence[float]):
        super().__init__(rows)
        self.bi, self.bj = np.asarray(bi, np.int64), np.asarray(bj, np.int64)
        self.si, self.sj = np.asarray(si, float).reshape(-1, 2), np.asarray(sj, float).reshape(-1, 2)
        v = np.asarray(vi, float).reshape(-1, 2)
        self.vi = v / np.linalg.norm(v, axis=1)[:, None]
        self.params = np.column_stack((np.asarray(radius, float), np.asarray(offset, float))).reshape(-1, 2)

    @classmethod
    def from_specs(cls, rows: list[list[int]], specs: list[DiskOnLineSpec], bodies: BodyIndex) -> "DiskOnLine":
        return cls(rows, [bodies(s.body1) for s in specs], [bodies.local(s.body1, s.point1) for s in specs],
                   [list(s.direction[:2]) for s in specs], [bodies(s.body2) for s in specs],
                   [bodies.local(s.body2, s.point2) for s in specs], [s.radius for s in specs],
                   [s.offset for s in specs])

    def compiled_fields(self, mh: int) -> dict[str, FloatArray]:
        """This group's arrays in ``mechstudio.core.systems.planar_kernels.PlanarGeometry`` (prefix ``COMPILED``)."""
        return {"dl_rn": self.rows[:, 0], "dl_rt": self.rows[:, 1], "dl_bi": self.bi, "dl_bj": self.bj,
                "dl_si": self.si, "dl_sj": self.sj, "dl_vi": self.vi, "dl_par": self.params}

    def _geometry(self, qe: FloatArray) -> tuple[FloatArray, ...]:
        phi_i, phi_j = qe[3 * self.bi + 2], qe[3 * self.bj + 2]
        ai, aj, v = rotate(phi_i, self.si), rotate(phi_j, self.sj), rotate(phi_i, self.vi)
        d = positions(qe, self.bj) + aj - positions(qe, self.bi) - ai
        return ai, aj, v, perp(v), d

    def phi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        _, _, v, n, d = self._geometry(qe)
        rho, c0 = self.params[:, 0], self.params[:, 1]
        out[self.rows[:, 0]] = dot(n, d) - rho
        out[self.rows[:, 1]] = dot(v, d) + rho * (qe[3 * self.bj + 2] - qe[3 * self.bi + 2]) - c0

    def jacobian(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        ai, aj, v, n, d = self._geometry(qe)
        xi, yi, pi = columns(self.bi)
        xj, yj, pj = columns(self.bj)
        rho = self.params[:, 0]
        for k, w, roll in ((0, n, 0.0), (1, v, 1.0)):
            r = self.rows[:, k]
            out[r, xi] = -w[:, 0]
            out[r, yi] = -w[:, 1]
            out[r, xj] = w[:, 0]
            out[r, yj] = w[:, 1]
            out[r, pj] = dot(w, perp(aj)) + roll * rho
            out[r, pi] = dot(perp(w), d) - dot(w, perp(ai)) - roll * rho

    def gamma(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        """gamma = -w^T g for w = n, v with g = -omega_i^2 d - 2 omega_i perp(d') + a_i omega_i^2 - a_j omega_j^2
        (the module docstring's terms; perp(w)^T x = -w^T perp(x))."""
        ai, aj, v, n, d = self._geometry(qe)
        wi, wj = ve[3 * self.bi + 2][:, None], ve[3 * self.bj + 2][:, None]
        dd = positions(ve, self.bj) + perp(aj) * wj - positions(ve, self.bi) - perp(ai) * wi
        g = (ai - d) * wi ** 2 - 2 * wi * perp(dd) - aj * wj ** 2
        out[self.rows[:, 0]] = -dot(n, g)
        out[self.rows[:, 1]] = -dot(v, g)


def symbolic(spec: DiskOnLineSpec, S: Any) -> list[Any]:
    """The (normal, rolling) rows of Phi as sympy expressions."""
    v = S.rot(S.ang(spec.body1)) * S.unit(spec.direction)
    n = S.matrix([-v[1], v[0]])
    d = S.r(spec.body2) + S.arm(spec.body2, spec.point2) - S.r(spec.body1) - S.arm(spec.body1, spec.point1)
    rho = S.num(spec.radius)
    return [n.dot(d) - rho, v.dot(d) + rho * (S.ang(spec.body2) - S.ang(spec.body1)) - S.num(spec.offset)]
