"""Knife edge (1 nonholonomic row): the velocity of body point P has no component along the blade's normal
n = A(phi) n' (the ice skate of [002], written as a velocity constraint C_psi q' + xi_psi = 0 as in [001]):

    n^T (r' + B s' phi') = 0,   C_psi = [n^T, n^T perp(A s')],   xi_psi = 0,
    eta = C_psi' q' = phi' perp(n)^T r' + phi'^2 [perp(n)^T perp(A s') - n^T A s'].
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from mechstudio.core.elements.primitives.base import INDEX, VECTOR
from mechstudio.core.elements.primitives.frame import BodyIndex, Vec, columns, dot, perp, positions, rotate
from mechstudio.core.types import FloatArray

COMPILED = "kn"  # core.systems.planar_kernels: the PlanarGeometry fields kn_* and their loops
#: its arrays there, in order: (name after the prefix, kind); the packed layout is generated from them
COMPILED_FIELDS = (("r", INDEX), ("b", INDEX), ("s", VECTOR), ("n", VECTOR))


@dataclass(frozen=True)
class KnifeEdgeSpec:
    """Point ``point`` of ``body`` cannot move across the blade direction ``axis`` (body frame)."""
    body: str
    point: Vec
    axis: Vec
    size: ClassVar[int] = 1
    holonomic: ClassVar[bool] = False


class KnifeEdge:
    """Nonholonomic rows n^T (r' + B s' phi') = 0; ``rows`` index the nonholonomic block."""

    def __init__(self, rows: Sequence[int], body: Sequence[int], s: Sequence[Sequence[float]],
                 axis: Sequence[Sequence[float]]):
        self.rows = np.asarray(rows, np.int64)
        self.body = np.asarray(body, np.int64)
        self.s = np.asarray(s, float).reshape(-1, 2)
        a = np.asarray(axis, float).reshape(-1, 2)
        a = a / np.linalg.norm(a, axis=1)[:, None]
        self.normal = perp(a)  # n' in the body frame

    @classmethod
    def from_specs(cls, rows: list[list[int]], specs: list[KnifeEdgeSpec], bodies: BodyIndex) -> "KnifeEdge":
        return cls([rr[0] for rr in rows], [bodies(s.body) for s in specs],
                   [bodies.local(s.body, s.point) for s in specs], [list(s.axis[:2]) for s in specs])

    def compiled_fields(self, mh: int) -> dict[str, FloatArray]:
        """This group's arrays in ``mechstudio.core.systems.planar_kernels.PlanarGeometry`` (prefix ``COMPILED``; rows of C)."""
        return {"kn_r": self.rows + mh, "kn_b": self.body, "kn_s": self.s, "kn_n": self.normal}

    def matrix(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        phi = qe[3 * self.body + 2]
        n, As = rotate(phi, self.normal), rotate(phi, self.s)
        x, y, p = columns(self.body)
        out[self.rows, x] = n[:, 0]
        out[self.rows, y] = n[:, 1]
        out[self.rows, p] = dot(n, perp(As))

    def xi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        """xi_psi = 0 for a knife edge on the fixed plane."""

    def eta(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        phi, w = qe[3 * self.body + 2], ve[3 * self.body + 2]
        n, As = rotate(phi, self.normal), rotate(phi, self.s)
        bn = perp(n)
        vr = positions(ve, self.body)
        out[self.rows] = w * dot(bn, vr) + w ** 2 * (dot(bn, perp(As)) - dot(n, As))


def symbolic(spec: KnifeEdgeSpec, S: Any) -> list[Any]:
    """The velocity expression C_psi q' + xi_psi of the row (sympy)."""
    ax = S.unit(spec.axis)
    nvec = S.rot(S.ang(spec.body)) * S.matrix([-ax[1], ax[0]])
    return [nvec.dot(S.vel(spec.body, spec.point))]
