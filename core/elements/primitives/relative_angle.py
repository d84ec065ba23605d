"""Relative angle (1 row; weld, prismatic joint, joint-angle driver), [003] local method:

    Phi = phi_j - phi_i - f(t) = 0,  Phi_q: d/dphi_i = -1, d/dphi_j = 1,  Phi_t = -f'(t),  gamma = f''(t).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from mechstudio.core.elements.primitives.base import INDEX, HolonomicGroup, TimeColumn
from mechstudio.core.elements.primitives.frame import BodyIndex
from mechstudio.core.types import FloatArray

COMPILED = "an"  # core.systems.planar_kernels: the PlanarGeometry fields an_* and their loops
#: its arrays there, in order: (name after the prefix, kind); the packed layout is generated from them
COMPILED_FIELDS = (("r", INDEX), ("bi", INDEX), ("bj", INDEX))


@dataclass(frozen=True)
class RelativeAngleSpec:
    """phi(body2) - phi(body1) = ``function`` (a float constant [rad] or a TimeFunction)."""
    body1: str
    body2: str
    function: Any
    size: ClassVar[int] = 1
    holonomic: ClassVar[bool] = True


class RelativeAngle(HolonomicGroup):
    """phi_j - phi_i - f(t) = 0 (weld, prismatic: f constant; joint-angle driver: f(t))."""

    constant_jacobian = True

    def __init__(self, rows: Sequence[int], bi: Sequence[int], bj: Sequence[int], functions: Sequence[Any]):
        super().__init__(rows)
        self.bi, self.bj = np.asarray(bi, np.int64), np.asarray(bj, np.int64)
        self.f = TimeColumn(functions)
        self.functions = self.f.functions
        self.const = self.f.const

    @classmethod
    def from_specs(cls, rows: list[list[int]], specs: list[RelativeAngleSpec],
                   bodies: BodyIndex) -> "RelativeAngle":
        return cls([rr[0] for rr in rows], [bodies(s.body1) for s in specs], [bodies(s.body2) for s in specs],
                   [s.function for s in specs])

    def compiled_fields(self, mh: int) -> dict[str, FloatArray]:
        """This group's arrays in ``mechstudio.core.systems.planar_kernels.PlanarGeometry`` (prefix ``COMPILED``)."""
        return {"an_r": self.rows[:, 0], "an_bi": self.bi, "an_bj": self.bj}

    @property
    def rheonomic(self) -> bool:
        return bool(self.f.timed)

    def phi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        out[self.rows[:, 0]] = qe[3 * self.bj + 2] - qe[3 * self.bi + 2] - self.f.values(t, "value")

    def phi_t(self, t: float, out: FloatArray) -> None:
        if self.rheonomic:
            out[self.rows[:, 0]] = -self.f.values(t, "rate")

    def jacobian(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        r = self.rows[:, 0]
        out[r, 3 * self.bi + 2] = -1.0
        out[r, 3 * self.bj + 2] = 1.0

    def gamma(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        out[self.rows[:, 0]] = self.f.values(t, "accel")


def symbolic(spec: RelativeAngleSpec, S: Any) -> list[Any]:
    """The row of Phi as a sympy expression."""
    return [S.ang(spec.body2) - S.ang(spec.body1) - S.function(spec.function)]
