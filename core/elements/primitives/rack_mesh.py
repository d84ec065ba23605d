"""Rack mesh (1 row; rack and pinion): a rack's travel along its axis follows the pinion's rotation.

The pinion (body p, centre O_p = r_p + A_p s_p, pitch radius r) turns about a revolute joint on the carrier c;
the rack (body b, reference point P_b = r_b + A_b s_b) slides on a prismatic joint of the same carrier along the
unit axis u = A_c u' (u' in the carrier's frame). The rack's travel s = u . (P_b - O_p) follows the pinion's
angle relative to the carrier:

    Phi = u . d - rho (phi_p - phi_c) - s_0 = 0,   d = P_b - O_p,   rho = +r or -r   [m],

rho = +r when the rack's pitch line lies on the right of u seen from the pinion's centre (pitch point
P = O_p - r perp(u): a counter-clockwise pinion drives the rack along +u), rho = -r on the left; s_0 [m] is the
travel at phi_p = phi_c (the row's constant f). With d' = r_b' + perp(A_b s_b) phi_b' - r_p' - perp(A_p s_p) phi_p'
([003] local method, as the point-line primitive with the direction on a third body):

    Phi_q:  d/dr_b = u,  d/dr_p = -u,  d/dphi_b = u . perp(A_b s_b),  d/dphi_p = -u . perp(A_p s_p) - rho,
            d/dphi_c = perp(u) . d + rho,
    gamma = phi_c'^2 u . d - 2 phi_c' perp(u) . d' + u . (A_b s_b phi_b'^2 - A_p s_p phi_p'^2) + f''.

Phi_q^T lambda is the force lambda u on the rack (at P_b, along the axis) and -lambda u at the pinion's centre
with the torque -rho lambda about it: the tangential tooth force -lambda u acting on the pinion at its pitch
point. lambda [N] is the tooth force along the rack's axis.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from mechstudio.core.elements.primitives.base import INDEX, VECTOR, HolonomicGroup, TimeColumn
from mechstudio.core.elements.primitives.frame import BodyIndex, Vec, columns, dot, perp, positions, rotate
from mechstudio.core.types import FloatArray

COMPILED = "rk"  # core.systems.planar_kernels: the PlanarGeometry fields rk_* and their loops
#: its arrays there, in order: (name after the prefix, kind); the packed layout is generated from them
COMPILED_FIELDS = (("r", INDEX), ("bc", INDEX), ("bp", INDEX), ("bb", INDEX), ("u", VECTOR), ("sp", VECTOR),
                   ("sb", VECTOR), ("rho", VECTOR))


@dataclass(frozen=True)
class RackMeshSpec:
    """Rack ``rack`` (point ``rack_point``) travels along ``axis`` (carrier frame) by ``ratio`` (phi_pinion -
    phi_carrier) + ``function`` [m] from the centre ``pinion_point`` of ``pinion``; ``ratio`` = rho [m]."""
    carrier: str
    axis: Vec
    pinion: str
    pinion_point: Vec
    rack: str
    rack_point: Vec
    ratio: float
    function: float = 0.0
    size: ClassVar[int] = 1
    holonomic: ClassVar[bool] = True


class RackMesh(HolonomicGroup):
    """u . (P_b - O_p) - rho (phi_p - phi_c) - s_0 = 0 (see module docstring)."""

    def __init__(self, rows: Sequence[int], bc: Sequence[int], u: Sequence[Sequence[float]], bp: Sequence[int],
                 sp: Sequence[Sequence[float]], bb: Sequence[int], sb: Sequence[Sequence[float]],
                 ratio: Sequence[float], offsets: Sequence[float]):
        super().__init__(rows)
        self.bc, self.bp, self.bb = (np.asarray(b, np.int64) for b in (bc, bp, bb))
        u = np.asarray(u, float).reshape(-1, 2)
        self.u = u / np.linalg.norm(u, axis=1)[:, None]
        self.sp, self.sb = np.asarray(sp, float).reshape(-1, 2), np.asarray(sb, float).reshape(-1, 2)
        self.ratio = np.asarray(ratio, float).ravel()
        self.f = TimeColumn([float(s) for s in offsets])  # constant s_0: the row's f, as in the compiled path
        self.functions = self.f.functions

    @classmethod
    def from_specs(cls, rows: list[list[int]], specs: list[RackMeshSpec], bodies: BodyIndex) -> "RackMesh":
        return cls([rr[0] for rr in rows], [bodies(s.carrier) for s in specs], [list(s.axis[:2]) for s in specs],
                   [bodies(s.pinion) for s in specs], [bodies.local(s.pinion, s.pinion_point) for s in specs],
                   [bodies(s.rack) for s in specs], [bodies.local(s.rack, s.rack_point) for s in specs],
                   [s.ratio for s in specs], [s.function for s in specs])

    def compiled_fields(self, mh: int) -> dict[str, FloatArray]:
        """This group's arrays in ``mechstudio.core.systems.planar_kernels.PlanarGeometry`` (prefix ``COMPILED``); the ratio rides
        in the second column of ``rk_rho`` (first column: 0) to keep every float field a (K, 2) array."""
        rho = np.zeros((self.count, 2))
        rho[:, 1] = self.ratio
        return {"rk_r": self.rows[:, 0], "rk_bc": self.bc, "rk_bp": self.bp, "rk_bb": self.bb, "rk_u": self.u,
                "rk_sp": self.sp, "rk_sb": self.sb, "rk_rho": rho}

    def bodies_touched(self) -> tuple[np.ndarray, ...]:
        return (self.bc, self.bp, self.bb)

    def _geometry(self, qe: FloatArray) -> tuple[FloatArray, ...]:
        ap, ab = rotate(qe[3 * self.bp + 2], self.sp), rotate(qe[3 * self.bb + 2], self.sb)
        u = rotate(qe[3 * self.bc + 2], self.u)
        d = positions(qe, self.bb) + ab - positions(qe, self.bp) - ap
        return ap, ab, u, d

    def phi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        _, _, u, d = self._geometry(qe)
        turn = qe[3 * self.bp + 2] - qe[3 * self.bc + 2]
        out[self.rows[:, 0]] = dot(u, d) - self.ratio * turn - self.f.values(t, "value")

    def jacobian(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        ap, ab, u, d = self._geometry(qe)
        r = self.rows[:, 0]
        xc, yc, pc = columns(self.bc)
        xp, yp, pp = columns(self.bp)
        xb, yb, pb = columns(self.bb)
        out[r, xb] = u[:, 0]
        out[r, yb] = u[:, 1]
        out[r, xp] = -u[:, 0]
        out[r, yp] = -u[:, 1]
        out[r, pb] = dot(u, perp(ab))
        out[r, pp] = -dot(u, perp(ap)) - self.ratio
        out[r, pc] = dot(perp(u), d) + self.ratio

    def gamma(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        ap, ab, u, d = self._geometry(qe)
        wc, wp, wb = ve[3 * self.bc + 2], ve[3 * self.bp + 2], ve[3 * self.bb + 2]
        dd = positions(ve, self.bb) + perp(ab) * wb[:, None] - positions(ve, self.bp) - perp(ap) * wp[:, None]
        out[self.rows[:, 0]] = (wc ** 2 * dot(u, d) - 2.0 * wc * dot(perp(u), dd)
                                + dot(u, ab * (wb ** 2)[:, None] - ap * (wp ** 2)[:, None])
                                + self.f.values(t, "accel"))


def symbolic(spec: RackMeshSpec, S: Any) -> list[Any]:
    """The row of Phi as a sympy expression."""
    u = S.rot(S.ang(spec.carrier)) * S.unit(spec.axis)
    d = S.r(spec.rack) + S.arm(spec.rack, spec.rack_point) - S.r(spec.pinion) - S.arm(spec.pinion, spec.pinion_point)
    turn = S.ang(spec.pinion) - S.ang(spec.carrier)
    return [u.dot(d) - S.num(spec.ratio) * turn - S.function(spec.function)]
