"""Gear mesh (1 row; gear pair): the pitch circles of two gears roll on each other without slipping.

Gear 1 (body i, centre O_1 = r_i + A_i s_i, pitch radius r_1) and gear 2 (body j, centre O_2 = r_j + A_j s_j,
pitch radius r_2) turn about revolute joints on a common carrier c, which holds O_2 - O_1 = d at the fixed
centre distance |r_1 + rho_2|, rho_2 = +r_2 for external gearing, -r_2 for internal gearing. Written with the
angle theta of the line of centres (the gear constraint of Nikravesh, "Computer-Aided Analysis of Mechanical
Systems", sec. 9.3: the arcs rolled off the two pitch circles relative to the line of centres are equal):

    Phi = r_1 (phi_i - phi_c) + rho_2 (phi_j - phi_c) - k delta = 0,   k = r_1 + rho_2   [m],
    delta = atan2(e x d, e . d),   e = A_c e'   (e' the unit line of centres in the carrier's frame),

delta being the angle of the line of centres from its place in the carrier (0 while the revolutes hold): on
the constraint manifold Phi = 0 is r_1 (phi_1 - phi_c) = -rho_2 (phi_2 - phi_c), i.e. r_1 (phi_1 - phi_c) =
-+ r_2 (phi_2 - phi_c) (external / internal). Since delta = angle(d) - phi_c - const, phi_c cancels:

    Phi_q:  d/dr_i = k g,  d/dr_j = -k g,  d/dphi_i = r_1 + k g . perp(A_i s_i),
            d/dphi_j = rho_2 - k g . perp(A_j s_j),  d/dphi_c = 0,        g = perp(d) / |d|^2,
    gamma = k [d x (A_i s_i phi_i'^2 - A_j s_j phi_j'^2) / |d|^2 - 2 (d x d') (d . d') / |d|^4],
    d' = r_j' + perp(A_j s_j) phi_j' - r_i' - perp(A_i s_i) phi_i'.

Why this form and not the angles alone: Phi_q^T lambda is then the force -lambda k g = -lambda t (t = perp(e),
|t| = 1 on the manifold) at O_2 with the torque rho_2 lambda, i.e. exactly the tangential tooth force F_t = -
lambda t acting on gear 2 at the pitch point (and +lambda t on gear 1): lambda [N] is the tangential tooth force
and the revolute joints carry it to the carrier, as the bearings of real gears do.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from mechstudio.core.elements.primitives.base import INDEX, VECTOR, HolonomicGroup
from mechstudio.core.elements.primitives.frame import BodyIndex, Vec, columns, dot, perp, positions, rotate
from mechstudio.core.types import FloatArray

COMPILED = "gm"  # core.systems.planar_kernels: the PlanarGeometry fields gm_* and their loops
#: its arrays there, in order: (name after the prefix, kind); the packed layout is generated from them
COMPILED_FIELDS = (("r", INDEX), ("bi", INDEX), ("bj", INDEX), ("bc", INDEX), ("si", VECTOR), ("sj", VECTOR),
                   ("e", VECTOR), ("radii", VECTOR))


@dataclass(frozen=True)
class GearMeshSpec:
    """Gear ``body1`` (centre ``point1``, pitch radius ``radius1`` [m]) meshing with gear ``body2`` (centre
    ``point2``, signed pitch radius ``radius2``: > 0 external, < 0 internal gearing) on ``carrier``, whose
    frame holds the line of centres along ``direction`` (from gear 1's centre to gear 2's)."""
    body1: str
    point1: Vec
    body2: str
    point2: Vec
    carrier: str
    direction: Vec
    radius1: float
    radius2: float
    size: ClassVar[int] = 1
    holonomic: ClassVar[bool] = True


def cross(a: FloatArray, b: FloatArray) -> FloatArray:
    """Row-wise planar cross product a x b of (K, 2) arrays."""
    return a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]


class GearMesh(HolonomicGroup):
    """r_1 (phi_i - phi_c) + rho_2 (phi_j - phi_c) - k delta = 0 (see module docstring)."""

    def __init__(self, rows: Sequence[int], bi: Sequence[int], si: Sequence[Sequence[float]], bj: Sequence[int],
                 sj: Sequence[Sequence[float]], bc: Sequence[int], e: Sequence[Sequence[float]],
                 radii: Sequence[Sequence[float]]):
        super().__init__(rows)
        self.bi, self.bj, self.bc = (np.asarray(b, np.int64) for b in (bi, bj, bc))
        self.si, self.sj = np.asarray(si, float).reshape(-1, 2), np.asarray(sj, float).reshape(-1, 2)
        e = np.asarray(e, float).reshape(-1, 2)
        self.e = e / np.linalg.norm(e, axis=1)[:, None]
        self.radii = np.asarray(radii, float).reshape(-1, 2)  # (r_1, rho_2)
        self.k = self.radii.sum(axis=1)

    @classmethod
    def from_specs(cls, rows: list[list[int]], specs: list[GearMeshSpec], bodies: BodyIndex) -> "GearMesh":
        return cls([rr[0] for rr in rows], [bodies(s.body1) for s in specs],
                   [bodies.local(s.body1, s.point1) for s in specs], [bodies(s.body2) for s in specs],
                   [bodies.local(s.body2, s.point2) for s in specs], [bodies(s.carrier) for s in specs],
                   [list(s.direction[:2]) for s in specs], [(s.radius1, s.radius2) for s in specs])

    def compiled_fields(self, mh: int) -> dict[str, FloatArray]:
        """This group's arrays in ``mechstudio.core.systems.planar_kernels.PlanarGeometry`` (prefix ``COMPILED``)."""
        return {"gm_r": self.rows[:, 0], "gm_bi": self.bi, "gm_bj": self.bj, "gm_bc": self.bc, "gm_si": self.si,
                "gm_sj": self.sj, "gm_e": self.e, "gm_radii": self.radii}

    def _geometry(self, qe: FloatArray) -> tuple[FloatArray, ...]:
        ai, aj = rotate(qe[3 * self.bi + 2], self.si), rotate(qe[3 * self.bj + 2], self.sj)
        d = positions(qe, self.bj) + aj - positions(qe, self.bi) - ai
        return ai, aj, d

    def phi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        _, _, d = self._geometry(qe)
        e = rotate(qe[3 * self.bc + 2], self.e)
        delta = np.arctan2(cross(e, d), dot(e, d))
        pc = qe[3 * self.bc + 2]
        r1, rho2 = self.radii[:, 0], self.radii[:, 1]
        out[self.rows[:, 0]] = r1 * (qe[3 * self.bi + 2] - pc) + rho2 * (qe[3 * self.bj + 2] - pc) - self.k * delta

    def jacobian(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        ai, aj, d = self._geometry(qe)
        kg = perp(d) * (self.k / dot(d, d))[:, None]
        r = self.rows[:, 0]
        xi, yi, pi = columns(self.bi)
        xj, yj, pj = columns(self.bj)
        out[r, xi] = kg[:, 0]
        out[r, yi] = kg[:, 1]
        out[r, xj] = -kg[:, 0]
        out[r, yj] = -kg[:, 1]
        out[r, pi] = self.radii[:, 0] + dot(kg, perp(ai))
        out[r, pj] = self.radii[:, 1] - dot(kg, perp(aj))

    def gamma(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        ai, aj, d = self._geometry(qe)
        wi, wj = ve[3 * self.bi + 2], ve[3 * self.bj + 2]
        dd = positions(ve, self.bj) + perp(aj) * wj[:, None] - positions(ve, self.bi) - perp(ai) * wi[:, None]
        d2 = dot(d, d)
        centripetal = ai * (wi ** 2)[:, None] - aj * (wj ** 2)[:, None]
        out[self.rows[:, 0]] = self.k * (cross(d, centripetal) / d2 - 2.0 * cross(d, dd) * dot(d, dd) / d2 ** 2)


def symbolic(spec: GearMeshSpec, S: Any) -> list[Any]:
    """The row of Phi as a sympy expression."""
    d = S.r(spec.body2) + S.arm(spec.body2, spec.point2) - S.r(spec.body1) - S.arm(spec.body1, spec.point1)
    e = S.rot(S.ang(spec.carrier)) * S.unit(spec.direction)
    delta = S.atan2(e[0] * d[1] - e[1] * d[0], e.dot(d))
    r1, rho2 = S.num(spec.radius1), S.num(spec.radius2)
    pc = S.ang(spec.carrier)
    return [r1 * (S.ang(spec.body1) - pc) + rho2 * (S.ang(spec.body2) - pc) - (r1 + rho2) * delta]
