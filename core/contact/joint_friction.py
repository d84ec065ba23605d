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


def _perp(x: FloatArray) -> FloatArray:
    return np.array([-x[1], x[0]])


def _rot(phi: float, s: tuple[float, float]) -> FloatArray:
    c, sn = math.cos(phi), math.sin(phi)
    return np.array([c * s[0] - sn * s[1], sn * s[0] + c * s[1]])


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

    def _state(self, body: int, q: FloatArray, v: FloatArray) -> tuple[FloatArray, float, FloatArray, float]:
        if body < 0:
            return np.zeros(2), 0.0, np.zeros(2), 0.0
        return q[3 * body:3 * body + 2], float(q[3 * body + 2]), v[3 * body:3 * body + 2], float(v[3 * body + 2])

    def relative(self, q: FloatArray, v: FloatArray) -> tuple[float, FloatArray, float]:
        """(s, G (n,), b) at (q, q'): the relative coordinate [rad or m], its rate's gradient and the quadratic
        term of s'' = G q'' + b (module docstring)."""
        n = len(q)
        G = np.zeros(n)
        r1, p1, v1, w1 = self._state(self.body1, q, v)
        r2, p2, v2, w2 = self._state(self.body2, q, v)
        if self.kind == "turn":
            if self.body1 >= 0:
                G[3 * self.body1 + 2] = -1.0
            if self.body2 >= 0:
                G[3 * self.body2 + 2] = 1.0
            return p2 - p1, G, 0.0
        a1, a2 = _rot(p1, self.s1), _rot(p2, self.s2)
        u = _rot(p1, self.axis)
        nrm = _perp(u)
        d = r2 + a2 - r1 - a1
        dd = v2 + w2 * _perp(a2) - v1 - w1 * _perp(a1)
        if self.body1 >= 0:
            k = 3 * self.body1
            G[k:k + 2] = -u
            G[k + 2] = nrm @ d - u @ _perp(a1)
        if self.body2 >= 0:
            k = 3 * self.body2
            G[k:k + 2] = u
            G[k + 2] = u @ _perp(a2)
        b = 2.0 * w1 * (nrm @ dd) - w1 * w1 * (u @ d) + u @ (w1 * w1 * a1 - w2 * w2 * a2)
        return float(u @ d), G, float(b)

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
