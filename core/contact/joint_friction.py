"""Coulomb friction in planar joints (docs/contact.md, "Joint friction"): the relative coordinate a joint's friction
acts along, and the load its size is proportional to.

A joint with friction (revolute, prismatic, pin in slot with ``friction_static``; core/elements/joint_friction.py)
is one frictional, always closed point of the contact set (``mechstudio.core.contact.contacts``). Its *relative
coordinate* s(q) and its rate s' = G q' are

* revolute ("turn"): s = phi2 - phi1, G = e_phi2 - e_phi1 (s'' = G q'');
* prismatic, pin in slot ("slide"): s = u^T (P2 - P1), the position of body2's point P2 = r2 + A2 s2' along the
  axis u = A1 a' through body1's point P1 = r1 + A1 s1' (a' the unit axis in body1's frame). With d = P2 - P1,
  n = perp(u) (perp(x, y) = (-y, x)) and d' = r2' + w2 perp(A2 s2') - r1' - w1 perp(A1 s1'):

      s' = u^T d' + w1 n^T d,
      G = [r1: -u^T,  phi1: n^T d - u^T perp(A1 s1'),  r2: u^T,  phi2: u^T perp(A2 s2')],
      s'' = G q'' + b,   b = 2 w1 n^T d' - w1^2 u^T d + u^T (w1^2 A1 s1' - w2^2 A2 s2')

  (differentiating u' = w1 n, n' = -w1 u, (A s')' = w perp(A s')). s' is the relative velocity of the coincident
  material points along u, u^T (v2(P2) - v1(P2)), so a force f u on body2 at P2 and -f u on body1 at P2 is the
  generalized force f G^T; a moment M on body2 and -M on body1 is M G^T for the revolute.

While the joint sticks, s - c0 = 0 (c0 its value when it began to stick) is an extra row of the mode; the friction
is that row's multiplier. While it slips in direction sigma = sign(s'), the friction load is

    Q = -mu_k sigma r |F| G^T,

F the force of the joint's own rows on body2 (the pin's reaction force of a revolute, r its pin radius; the
guide's normal force of a prismatic or a slot, r = 1): for the prismatic, the force of its angle row is a pure
moment (the guide's reaction moment), which carries no friction (docs/contact.md explains the choice).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mechstudio.core.types import FloatArray


@dataclass(frozen=True)
class JointFriction:
    """One joint's friction: ``kind`` "turn" or "slide"; the joint's base rows ``rows``; its bodies' indices
    (-1: the ground) and points (vector from the centre of mass, body frame; the ground's: global); the slide's
    unit axis in body1's frame; the arm ``radius`` [m] of the load (the pin radius; 1 for a slide)."""
    kind: str
    rows: tuple[int, ...]
    body1: int
    body2: int
    s1: tuple[float, float]
    s2: tuple[float, float]
    axis: tuple[float, float]
    radius: float

    def relative(self, q: FloatArray, v: FloatArray) -> tuple[float, FloatArray, float]:
        """(s, G (n,), b) at (q, q'): the relative coordinate [rad or m], its rate's gradient and the quadratic
        term of s'' = G q'' + b (module docstring; written out in scalars: it is evaluated at every state)."""
        G = np.zeros(len(q))
        i, j = self.body1, self.body2
        if self.kind == "turn":
            p1 = float(q[3 * i + 2]) if i >= 0 else 0.0
            p2 = float(q[3 * j + 2]) if j >= 0 else 0.0
            if i >= 0:
                G[3 * i + 2] = -1.0
            if j >= 0:
                G[3 * j + 2] = 1.0
            return p2 - p1, G, 0.0
        x1, y1, p1, vx1, vy1, w1 = ((float(q[3 * i]), float(q[3 * i + 1]), float(q[3 * i + 2]), float(v[3 * i]),
                                     float(v[3 * i + 1]), float(v[3 * i + 2])) if i >= 0 else (0.0,) * 6)
        x2, y2, p2, vx2, vy2, w2 = ((float(q[3 * j]), float(q[3 * j + 1]), float(q[3 * j + 2]), float(v[3 * j]),
                                     float(v[3 * j + 1]), float(v[3 * j + 2])) if j >= 0 else (0.0,) * 6)
        c1, s1 = math.cos(p1), math.sin(p1)
        c2, s2 = math.cos(p2), math.sin(p2)
        a1x, a1y = c1 * self.s1[0] - s1 * self.s1[1], s1 * self.s1[0] + c1 * self.s1[1]
        a2x, a2y = c2 * self.s2[0] - s2 * self.s2[1], s2 * self.s2[0] + c2 * self.s2[1]
        ux, uy = c1 * self.axis[0] - s1 * self.axis[1], s1 * self.axis[0] + c1 * self.axis[1]
        nx, ny = -uy, ux
        dx, dy = x2 + a2x - x1 - a1x, y2 + a2y - y1 - a1y
        ddx = vx2 - w2 * a2y - vx1 + w1 * a1y
        ddy = vy2 + w2 * a2x - vy1 - w1 * a1x
        if i >= 0:
            G[3 * i] = -ux
            G[3 * i + 1] = -uy
            G[3 * i + 2] = nx * dx + ny * dy - (-ux * a1y + uy * a1x)
        if j >= 0:
            G[3 * j] = ux
            G[3 * j + 1] = uy
            G[3 * j + 2] = -ux * a2y + uy * a2x
        b = (2.0 * w1 * (nx * ddx + ny * ddy) - w1 * w1 * (ux * dx + uy * dy)
             + ux * (w1 * w1 * a1x - w2 * w2 * a2x) + uy * (w1 * w1 * a1y - w2 * w2 * a2y))
        return ux * dx + uy * dy, G, b

    def force_map(self, C: FloatArray, lam_index: FloatArray) -> FloatArray:
        """B (2, len(rows)): the force [N] of the joint's rows on body2 (on body1, reversed, when body2 is the
        ground: the same size) is B lambda[lam_index], from the constraint matrix C (rows in the multipliers'
        order)."""
        body = self.body2 if self.body2 >= 0 else self.body1
        return C[lam_index][:, 3 * body:3 * body + 2].T

    def load(self, C: FloatArray, lam: FloatArray, lam_index: FloatArray) -> float:
        """r |F| [N m or N]: the load whose mu-multiple bounds the friction."""
        return self.radius * float(np.linalg.norm(self.force_map(C, lam_index) @ lam[lam_index]))


__all__ = ["JointFriction"]
