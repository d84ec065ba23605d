"""Point coincidence (2 rows; revolute joint, weld): two body-fixed points stay together, the local method's
revolute equation of [003] (with the sign convention of the errata in docs/references.md):

    Phi = r_i + A_i s_i - r_j - A_j s_j = 0,
    Phi_q: d/dr_i = I, d/dphi_i = B_i s_i = perp(A_i s_i), d/dr_j = -I, d/dphi_j = -perp(A_j s_j),
    gamma = A_i s_i phi_i'^2 - A_j s_j phi_j'^2   (Phi_t = 0).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from mechstudio.core.elements.primitives.base import INDEX, VECTOR, HolonomicGroup
from mechstudio.core.elements.primitives.frame import BodyIndex, Vec, columns, perp, positions, rotate
from mechstudio.core.types import FloatArray

COMPILED = "co"  # core.systems.planar_kernels: the PlanarGeometry fields co_* and their loops
#: its arrays there, in order: (name after the prefix, kind); the packed layout is generated from them
COMPILED_FIELDS = (("rx", INDEX), ("ry", INDEX), ("bi", INDEX), ("bj", INDEX), ("si", VECTOR), ("sj", VECTOR))


@dataclass(frozen=True)
class PointCoincidenceSpec:
    """Point ``point1`` of ``body1`` coincides with ``point2`` of ``body2`` (body-frame points [m])."""
    body1: str
    point1: Vec
    body2: str
    point2: Vec
    size: ClassVar[int] = 2
    holonomic: ClassVar[bool] = True


class PointCoincidence(HolonomicGroup):
    """r_i + A_i s_i - r_j - A_j s_j = 0 for K pairs (i, j) of bodies and body-fixed points s_i, s_j."""

    rows_per_element = 2

    def __init__(self, rows: Sequence[int], bi: Sequence[int], si: Sequence[Sequence[float]],
                 bj: Sequence[int], sj: Sequence[Sequence[float]]):
        super().__init__(rows)
        self.bi, self.bj = np.asarray(bi, np.int64), np.asarray(bj, np.int64)
        self.si, self.sj = np.asarray(si, float).reshape(-1, 2), np.asarray(sj, float).reshape(-1, 2)

    @classmethod
    def from_specs(cls, rows: list[list[int]], specs: list[PointCoincidenceSpec],
                   bodies: BodyIndex) -> "PointCoincidence":
        return cls([r for rr in rows for r in rr], [bodies(s.body1) for s in specs],
                   [bodies.local(s.body1, s.point1) for s in specs], [bodies(s.body2) for s in specs],
                   [bodies.local(s.body2, s.point2) for s in specs])

    def compiled_fields(self, mh: int) -> dict[str, FloatArray]:
        """This group's arrays in ``mechstudio.core.systems.planar_kernels.PlanarGeometry`` (prefix ``COMPILED``)."""
        return {"co_rx": self.rows[:, 0], "co_ry": self.rows[:, 1], "co_bi": self.bi, "co_bj": self.bj,
                "co_si": self.si, "co_sj": self.sj}

    def _terms(self, qe: FloatArray) -> tuple[FloatArray, FloatArray]:
        return rotate(qe[3 * self.bi + 2], self.si), rotate(qe[3 * self.bj + 2], self.sj)

    def phi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        ai, aj = self._terms(qe)
        out[self.rows] = positions(qe, self.bi) + ai - positions(qe, self.bj) - aj

    def jacobian(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        ai, aj = self._terms(qe)
        bsi, bsj = perp(ai), perp(aj)
        rx, ry = self.rows[:, 0], self.rows[:, 1]
        xi, yi, pi = columns(self.bi)
        xj, yj, pj = columns(self.bj)
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


def symbolic(spec: PointCoincidenceSpec, S: Any) -> list[Any]:
    """The two rows of Phi as sympy expressions."""
    d = S.r(spec.body1) + S.arm(spec.body1, spec.point1) - S.r(spec.body2) - S.arm(spec.body2, spec.point2)
    return [d[0], d[1]]
