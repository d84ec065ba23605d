"""Point on a body-fixed line (1 row; prismatic joint's normal row, pin in a slot, joint-distance driver):
the offset of point P_j from point P_i along a direction fixed in body i is prescribed, [003] local method:

    Phi = v^T d - f(t) = 0,  v = A_i v'_i (unit),  d = r_j + A_j s_j - r_i - A_i s_i,
    Phi_q: d/dr_i = -v, d/dr_j = v, d/dphi_j = v^T perp(A_j s_j), d/dphi_i = perp(v)^T d - v^T perp(A_i s_i),
    Phi_t = -f'(t),
    gamma = phi_i'^2 v^T d - 2 phi_i' perp(v)^T d' - v^T (A_i s_i phi_i'^2 - A_j s_j phi_j'^2) + f''(t),
    d' = r_j' + perp(A_j s_j) phi_j' - r_i' - perp(A_i s_i) phi_i'.

With v the normal of a slot direction and f = 0, P_j stays on the slot's line through P_i (pin in slot); with
v along the sliding axis and f(t) a motion, the distance is driven.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from mechstudio.core.elements.primitives.base import INDEX, VECTOR, HolonomicGroup, TimeColumn
from mechstudio.core.elements.primitives.frame import BodyIndex, Vec, columns, dot, perp, positions, rotate
from mechstudio.core.types import FloatArray

COMPILED = "pl"  # core.systems.planar_kernels: the PlanarGeometry fields pl_* and their loops
#: its arrays there, in order: (name after the prefix, kind); the packed layout is generated from them
COMPILED_FIELDS = (("r", INDEX), ("bi", INDEX), ("bj", INDEX), ("si", VECTOR), ("sj", VECTOR), ("vi", VECTOR))


@dataclass(frozen=True)
class PointLineSpec:
    """v'^T (P2 - P1) = f(t) with v' = ``direction`` in body1's frame (normalised by the backends);
    ``function`` None means f = 0."""
    body1: str
    point1: Vec
    direction: Vec
    body2: str
    point2: Vec
    function: Any = None
    size: ClassVar[int] = 1
    holonomic: ClassVar[bool] = True


class PointLine(HolonomicGroup):
    """(A_i v'_i)^T (r_j + A_j s_j - r_i - A_i s_i) - f(t) = 0 (see module docstring)."""

    def __init__(self, rows: Sequence[int], bi: Sequence[int], si: Sequence[Sequence[float]],
                 vi: Sequence[Sequence[float]], bj: Sequence[int], sj: Sequence[Sequence[float]],
                 functions: Sequence[Any]):
        super().__init__(rows)
        self.bi, self.bj = np.asarray(bi, np.int64), np.asarray(bj, np.int64)
        self.si, self.sj = np.asarray(si, float).reshape(-1, 2), np.asarray(sj, float).reshape(-1, 2)
        v = np.asarray(vi, float).reshape(-1, 2)
        self.vi = v / np.linalg.norm(v, axis=1)[:, None]
        self.f = TimeColumn(functions)
        self.functions = self.f.functions

    @classmethod
    def from_specs(cls, rows: list[list[int]], specs: list[PointLineSpec], bodies: BodyIndex) -> "PointLine":
        return cls([rr[0] for rr in rows], [bodies(s.body1) for s in specs],
                   [bodies.local(s.body1, s.point1) for s in specs], [list(s.direction[:2]) for s in specs],
                   [bodies(s.body2) for s in specs], [bodies.local(s.body2, s.point2) for s in specs],
                   [s.function for s in specs])

    def compiled_fields(self, mh: int) -> dict[str, FloatArray]:
        """This group's arrays in ``mechstudio.core.systems.planar_kernels.PlanarGeometry`` (prefix ``COMPILED``)."""
        return {"pl_r": self.rows[:, 0], "pl_bi": self.bi, "pl_bj": self.bj, "pl_si": self.si, "pl_sj": self.sj,
                "pl_vi": self.vi}

    @property
    def rheonomic(self) -> bool:
        return bool(self.f.timed)

    def _geometry(self, qe: FloatArray) -> tuple[FloatArray, ...]:
        phi_i, phi_j = qe[3 * self.bi + 2], qe[3 * self.bj + 2]
        ai, aj, v = rotate(phi_i, self.si), rotate(phi_j, self.sj), rotate(phi_i, self.vi)
        d = positions(qe, self.bj) + aj - positions(qe, self.bi) - ai
        return ai, aj, v, d

    def phi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        _, _, v, d = self._geometry(qe)
        out[self.rows[:, 0]] = dot(v, d) - self.f.values(t, "value")

    def phi_t(self, t: float, out: FloatArray) -> None:
        if self.rheonomic:
            out[self.rows[:, 0]] = -self.f.values(t, "rate")

    def jacobian(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        ai, aj, v, d = self._geometry(qe)
        r = self.rows[:, 0]
        xi, yi, pi = columns(self.bi)
        xj, yj, pj = columns(self.bj)
        out[r, xi] = -v[:, 0]
        out[r, yi] = -v[:, 1]
        out[r, xj] = v[:, 0]
        out[r, yj] = v[:, 1]
        out[r, pj] = dot(v, perp(aj))
        out[r, pi] = dot(perp(v), d) - dot(v, perp(ai))

    def gamma(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        ai, aj, v, d = self._geometry(qe)
        wi, wj = ve[3 * self.bi + 2], ve[3 * self.bj + 2]
        dd = positions(ve, self.bj) + perp(aj) * wj[:, None] - positions(ve, self.bi) - perp(ai) * wi[:, None]
        quad = (-(wi ** 2) * dot(v, d) + 2 * wi * dot(perp(v), dd)
                + dot(v, ai * (wi ** 2)[:, None] - aj * (wj ** 2)[:, None]))
        out[self.rows[:, 0]] = -quad + self.f.values(t, "accel")


def symbolic(spec: PointLineSpec, S: Any) -> list[Any]:
    """The row of Phi as a sympy expression."""
    v = S.rot(S.ang(spec.body1)) * S.unit(spec.direction)
    d = S.r(spec.body2) + S.arm(spec.body2, spec.point2) - S.r(spec.body1) - S.arm(spec.body1, spec.point1)
    return [v.dot(d) - S.function(spec.function)]
