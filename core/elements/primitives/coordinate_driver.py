"""Coordinate driver (1 row): a body coordinate prescribed as a function of time, [003]:

    Phi = q_k - f(t) = 0,  Phi_q: d/dq_k = 1,  Phi_t = -f'(t),  gamma = f''(t).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from mechstudio.core.elements.primitives.base import INDEX, HolonomicGroup, TimeColumn
from mechstudio.core.elements.primitives.frame import BodyIndex
from mechstudio.core.types import FloatArray

COMPILED = "cd"  # core.systems.planar_kernels: the PlanarGeometry fields cd_* and their loops
#: its arrays there, in order: (name after the prefix, kind); the packed layout is generated from them
COMPILED_FIELDS = (("r", INDEX), ("k", INDEX))
COORDS = ("x", "y", "phi")


@dataclass(frozen=True)
class CoordinateDriverSpec:
    """Coordinate ``coordinate`` (x, y or phi of the centre of mass) of ``body`` equals ``function`` (t)."""
    body: str
    coordinate: str
    function: Any
    size: ClassVar[int] = 1
    holonomic: ClassVar[bool] = True


class CoordinateDriver(HolonomicGroup):
    """q_k - f(t) = 0: a body coordinate prescribed as a function of time."""

    constant_jacobian = True

    def __init__(self, rows: Sequence[int], coords: Sequence[int], functions: Sequence[Any]):
        super().__init__(rows)
        self.coords = np.asarray(coords, np.int64)
        self.f = TimeColumn(functions)
        self.functions = self.f.functions

    @classmethod
    def from_specs(cls, rows: list[list[int]], specs: list[CoordinateDriverSpec],
                   bodies: BodyIndex) -> "CoordinateDriver":
        return cls([rr[0] for rr in rows], [3 * bodies(s.body) + COORDS.index(s.coordinate) for s in specs],
                   [s.function for s in specs])

    def compiled_fields(self, mh: int) -> dict[str, FloatArray]:
        """This group's arrays in ``mechstudio.core.systems.planar_kernels.PlanarGeometry`` (prefix ``COMPILED``)."""
        return {"cd_r": self.rows[:, 0], "cd_k": self.coords}

    @property
    def rheonomic(self) -> bool:
        return True  # f(t) is evaluated even when constant (Phi_t = -f' = 0 then)

    def phi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        out[self.rows[:, 0]] = qe[self.coords] - self.f.values(t, "value")

    def phi_t(self, t: float, out: FloatArray) -> None:
        out[self.rows[:, 0]] = -self.f.values(t, "rate")

    def jacobian(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        out[self.rows[:, 0], self.coords] = 1.0

    def gamma(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        out[self.rows[:, 0]] = self.f.values(t, "accel")


def symbolic(spec: CoordinateDriverSpec, S: Any) -> list[Any]:
    """The row of Phi as a sympy expression."""
    return [S.coordinate(spec.body, spec.coordinate) - S.function(spec.function)]
