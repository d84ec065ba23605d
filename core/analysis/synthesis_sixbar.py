"""Six-bar kinematics for dimensional synthesis: single-DOF six-bars made of a crank-driven four-bar and a dyad
(two binary links) hung between two of its links; the path point in closed form (two circle intersections), the
loop-closure equations through target points, the check that a driven crank reaches the targets in order on both
assembly branches.

Notation (R. L. Norton, *Design of Machinery*, ch. 2 and 4; K. J. Waldron & G. L. Kinzel, *Kinematics, Dynamics and
Design of Machinery*, ch. 5 (six-bar position analysis by successive dyads); angles in rad, counter-clockwise from
the world x axis). The **base four-bar** is that of core.analysis.synthesis_fourbar: ground pivots O2 = (x0, y0),
O4 = O2 + d u(gamma); crank a = |O2 A| (link 2), coupler b = |A B| (link 3), rocker c = |O4 B| (link 4). Each link
has a frame: ground the world; crank at O2, x axis towards A (angle theta, the driven crank angle); coupler at A,
x towards B (phi3); rocker at O4, x towards B (phi4). The **dyad** is link 5 from U to E (length e) and link 6 from
V to E (length f); U = (u1, u2) is a point of one link's frame and V = (v1, v2) of another's (the topology says
which); the **path point** P = (p, q) is in link 5's frame (at U, x towards E; angle phi5; link 6's angle phi6 is
that of V -> E). A six-bar is the vector

    g = (x0, y0, gamma, d, a, b, c, u1, u2, v1, v2, e, f, p, q)     (15 parameters)

and two assembly branches sigma1 (B) and sigma2 (E). Topologies (:data:`TOPOLOGIES`; the names of the inversions
differ between textbooks -- here as in Norton, fig. 2-14, the ternary links named):

* ``watt2`` Watt II: U on the rocker, V on the ground (O6): two four-bars in series, the first one's rocker (ternary:
  O4, B, U) is the input of the second, P on the second's coupler (link 5). Ternary links: ground, rocker (adjacent).
* ``stephenson3`` Stephenson III: U on the coupler (ternary: A, B, U), V on the ground (O6): the four-bar's coupler
  drives a dyad to ground, P on the dyad's link 5. Ternary links: ground, coupler (not adjacent).
* ``watt1`` Watt I: U on the coupler, V on the crank (ternary links crank and coupler, adjacent at A; the ground is
  binary), P on link 5.
* ``stephenson1`` Stephenson I: U on the crank, V on the rocker (ternary links crank and rocker, joined by the
  binary coupler and by the dyad; the ground is binary), P on link 5.

Stephenson II (the ground a binary link of the two-link path between the ternary links) is not dyad-solvable with
the crank on ground (its loop is a triad) and is not built.

**Closed form** (two circle intersections, each (F1) of core.analysis.synthesis_fourbar): at the crank angle theta,
A = O2 + a u(theta), B on the circles (A, b), (O4, c) on the side sigma1 of A -> O4 (F1); U and V from their links'
frames (a point w of a frame with origin o and x axis ex is o + w1 ex + w2 perp(ex)); then

    E on the circles (U, e) and (V, f), on the side sigma2 of the diagonal U -> V:
    z = |V - U|,  ev = (V - U)/z,  along = (e^2 - f^2 + z^2)/(2 z),  h2^2 = e^2 - along^2,
    E = U + along ev + sigma2 h2 perp(ev),   P = U + p e5 + q perp(e5),  e5 = (E - U)/e                    (S1)

The dyad closes where h2^2 >= 0, i.e. |e - f| <= |V(theta) - U(theta)| <= e + f                            (S2)

which has no closed form in theta (U and V move with the four-bar): a swept crank interval keeps both branches when
the four-bar's (F2) holds over it and h2^2 > 0 at samples no further apart than :data:`SWEEP_STEP` (the smallest
sampled value refined by bounded scalar minimisation). sigma2 changes only where h2 = 0 (links 5 and 6 collinear).

**Loop closure** (smooth, no square roots): unknowns g and, at each target T_j, the angles theta_j (or theta_1 with
prescribed timing, theta_j = theta_1 + delta_j), phi3_j, phi4_j, phi5_j, phi6_j:

    a u(theta_j) + b u(phi3_j) - d u(gamma) - c u(phi4_j) = 0                      (four-bar loop, 2 rows)
    U_j + e u(phi5_j) - V_j - f u(phi6_j) = 0                                     (dyad loop, 2 rows)
    U_j + R(phi5_j) (p, q) - T_j = 0                                              (path point, 2 rows)     (S3)

with U_j, V_j the points of their links' frames at target j (e.g. U_j = O2 + d u(gamma) + R(phi4_j) (u1, u2) on the
rocker). 6 N equations in 15 + 5 N unknowns (16 + 4 N with timing): exact solutions exist generically up to 15
targets without timing and 8 with it. Every term is R(angle) v with v a pair of parameters (or (length, 0)), so the
Jacobian is assembled term by term: d/d(angle) R v = perp(R v), d/dv R v = R.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Iterable

import numpy as np
from scipy.optimize import minimize_scalar

from mechstudio.core.analysis.synthesis_fourbar import (MIN_LINK_RATIO, TWO_PI, FourBarGeometry, circle_intersection,
                                                        coupler_points, crank_turn, ordered_path, reachable_arcs,
                                                        segment_distances, ordered_cost, unit)
from mechstudio.core.types import FloatArray


@dataclass(frozen=True)
class Topology:
    """A six-bar built as a four-bar and a dyad: ``u_link`` carries U (link 5's pivot), ``v_link`` carries V (link
    6's pivot); links are ``ground``, ``crank``, ``coupler``, ``rocker``."""
    name: str
    title: str
    u_link: str
    v_link: str


TOPOLOGIES = {t.name: t for t in (Topology("watt1", "Watt I", "coupler", "crank"),
                                  Topology("watt2", "Watt II", "rocker", "ground"),
                                  Topology("stephenson1", "Stephenson I", "crank", "rocker"),
                                  Topology("stephenson3", "Stephenson III", "coupler", "ground"))}
#: names of the parameter vector g
PARAMS = ("x0", "y0", "gamma", "d", "a", "b", "c", "u1", "u2", "v1", "v2", "e", "f", "p", "q")
N_PARAMS = len(PARAMS)
#: indices of the link lengths d, a, b, c, e, f in g
LENGTHS = np.array([3, 4, 5, 6, 11, 12])
#: per-target angle blocks of the loop-closure unknowns
ANGLES = ("theta", "phi3", "phi4", "phi5", "phi6")
#: a link's frame: (its angle block, the length that gives its angle a flip of pi when negative)
FRAME_OF = {"crank": (0, 4), "coupler": (1, 5), "rocker": (2, 6)}
#: largest crank step [rad] between samples of the dyad's closure (S2) along a swept interval
SWEEP_STEP = TWO_PI / 720
#: the dyad must stay this far from its stop: h2^2 > DYAD_MARGIN * (longest link)^2
DYAD_MARGIN = 1e-12


def link_point(link: str, w1: FloatArray, w2: FloatArray, O2: tuple[FloatArray, FloatArray],
               A: tuple[FloatArray, FloatArray], B: tuple[FloatArray, FloatArray],
               O4: tuple[FloatArray, FloatArray]) -> tuple[FloatArray, FloatArray]:
    """The point (w1, w2) of a link's frame (module docstring) in world coordinates, given the joints as (x, y)
    arrays (broadcast)."""
    if link == "ground":
        return w1 + 0.0 * A[0], w2 + 0.0 * A[1]
    origin, tip = {"crank": (O2, A), "coupler": (A, B), "rocker": (O4, B)}[link]
    ex, ey = tip[0] - origin[0], tip[1] - origin[1]
    n = np.sqrt(np.maximum(ex * ex + ey * ey, 1e-300))
    ex, ey = ex / n, ey / n
    return origin[0] + w1 * ex - w2 * ey, origin[1] + w1 * ey + w2 * ex


def sixbar_points(G: FloatArray, theta: FloatArray, topology: str, sigma1: float, sigma2: float,
                  with_joints: bool = False) -> tuple[FloatArray, ...]:
    """Path points (S1) of six-bars G (S, 15) at crank angles theta (S, ..., K): (P (S, ..., K, 2), assembled
    (S, ..., K)), and with ``with_joints`` a dict of the joints A, B, U, V, E ((S, ..., K, 2) each) and h2^2."""
    top = TOPOLOGIES[topology]
    G = np.asarray(G, float)
    theta = np.asarray(theta, float)
    extra = theta.ndim - 1
    col = [G[:, i].reshape((-1,) + (1,) * extra) for i in range(N_PARAMS)]
    x0, y0, gam, d, a, b, c, u1, u2, v1, v2, e, f, p, q = col
    _, ok1, A, B = coupler_points(G[:, :9], theta, sigma1, with_joints=True)
    Aj, Bj = (A[..., 0], A[..., 1]), (B[..., 0], B[..., 1])
    O2, O4 = (x0, y0), (x0 + d * np.cos(gam), y0 + d * np.sin(gam))
    Ux, Uy = link_point(top.u_link, u1, u2, O2, Aj, Bj, O4)
    Vx, Vy = link_point(top.v_link, v1, v2, O2, Aj, Bj, O4)
    Ex, Ey, ok2, h2 = circle_intersection(Ux, Uy, Vx, Vy, e, f, sigma2)
    cx, cy = (Ex - Ux) / e, (Ey - Uy) / e
    P = np.stack([Ux + p * cx - q * cy, Uy + p * cy + q * cx], -1)
    ok = ok1 & ok2
    if not with_joints:
        return P, ok
    joints = {"A": A, "B": B, "U": np.stack([Ux, Uy], -1), "V": np.stack([Vx, Vy], -1), "E": np.stack([Ex, Ey], -1),
              "h2": h2}
    return P, ok, joints


@dataclass(frozen=True)
class SixBarGeometry:
    """A six-bar path generator (module docstring): the topology's name, the 15 parameters of g [length; gamma in
    rad] and the assembly branches ``branch1`` (B, of the four-bar) and ``branch2`` (E, of the dyad)."""
    topology: str
    x0: float
    y0: float
    gamma: float
    d: float
    a: float
    b: float
    c: float
    u1: float
    u2: float
    v1: float
    v2: float
    e: float
    f: float
    p: float
    q: float
    branch1: int = 1
    branch2: int = 1

    @classmethod
    def from_vector(cls, topology: str, g: Iterable[float], branch1: int, branch2: int) -> "SixBarGeometry":
        v = [float(x) for x in g]
        return cls(topology, *v, branch1=1 if branch1 >= 0 else -1, branch2=1 if branch2 >= 0 else -1)

    def vector(self) -> FloatArray:
        return np.array([getattr(self, k) for k in PARAMS])

    @property
    def top(self) -> Topology:
        return TOPOLOGIES[self.topology]

    @property
    def base(self) -> FourBarGeometry:
        """The four-bar O2 A B O4 (its coupler point: U when U is on the coupler, else A)."""
        on_coupler = self.top.u_link == "coupler"
        return FourBarGeometry(self.x0, self.y0, self.gamma, self.d, self.a, self.b, self.c,
                               self.u1 if on_coupler else 0.0, self.u2 if on_coupler else 0.0, self.branch1)

    @property
    def O2(self) -> FloatArray:
        return self.base.O2

    @property
    def O4(self) -> FloatArray:
        return self.base.O4

    @property
    def lengths(self) -> dict[str, float]:
        """The binary link lengths: the base four-bar's ground d (O2 O4), crank a, coupler b, rocker c, then link5 e
        (U E) and link6 f (V E)."""
        return {**self.base.lengths, "link5": self.e, "link6": self.f}

    @property
    def link_scale(self) -> float:
        """The longest of the six links: the errors are measured against it."""
        return max(self.lengths.values())

    def joints(self, theta: FloatArray) -> tuple[dict[str, FloatArray], FloatArray]:
        """(joints A, B, U, V, E, P (K, 2) and h2^2 (K,), assembled (K,)) at crank angles theta (K,) by (S1)."""
        theta = np.atleast_1d(np.asarray(theta, float))
        P, ok, J = sixbar_points(self.vector()[None], theta[None], self.topology, self.branch1, self.branch2,
                                 with_joints=True)
        out = {k: v[0] for k, v in J.items()}
        out["P"] = P[0]
        return out, ok[0]

    def positions(self, theta: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(P (K, 2), assembled (K,)) at crank angles theta (K,)."""
        J, ok = self.joints(theta)
        return J["P"], ok

    def coupler_point(self, theta: FloatArray) -> FloatArray:
        """The path point P at crank angles theta: (K, 2)."""
        return self.positions(theta)[0]

    def angles(self, theta: FloatArray) -> FloatArray:
        """The link angles (5, K): theta, phi3 (A -> B), phi4 (O4 -> B), phi5 (U -> E), phi6 (V -> E)."""
        J, _ = self.joints(theta)
        theta = np.atleast_1d(np.asarray(theta, float))

        def ang(v: FloatArray) -> FloatArray:
            return np.arctan2(v[:, 1], v[:, 0])
        return np.stack([theta, ang(J["B"] - J["A"]), ang(J["B"] - self.O4), ang(J["E"] - J["U"]),
                         ang(J["E"] - J["V"])])

    def dyad_clearance(self, theta: FloatArray) -> FloatArray:
        """h2^2 / (longest link)^2 of the dyad at crank angles theta (negative: it does not close, (S2))."""
        J, _ = self.joints(theta)
        return J["h2"] / self.link_scale ** 2

    def sweep_reachable(self, theta_from: float, theta_to: float) -> bool:
        """Whether the crank turned from one angle to the other keeps both loops assembled on their branches: (F2)
        for the four-bar, (S2) with a margin for the dyad (module docstring)."""
        if not self.base.sweep_reachable(theta_from, theta_to):
            return False
        count = max(3, int(math.ceil(abs(theta_to - theta_from) / SWEEP_STEP)) + 1)
        th = np.linspace(theta_from, theta_to, count)
        h = self.dyad_clearance(th)
        if not np.all(np.isfinite(h)) or h.min() <= DYAD_MARGIN:
            return False
        k = int(np.argmin(h))
        lo, hi = th[max(k - 1, 0)], th[min(k + 1, count - 1)]
        if lo == hi:
            return True
        res = minimize_scalar(lambda t: float(self.dyad_clearance(np.array([t]))[0]), bounds=tuple(sorted((lo, hi))),
                              method="bounded", options={"xatol": 1e-10})
        return bool(res.fun > DYAD_MARGIN)

    def reachable_run(self, theta: FloatArray, samples: int) -> FloatArray:
        """Crank angles (K,) of the unbroken assembled run of the curve that contains the crank angles theta (in the
        order of theta), sampled ``samples`` times over the four-bar's reachable interval (for drawing)."""
        lo, hi = float(min(theta[0], theta[-1])), float(max(theta[0], theta[-1]))
        for a, b in self.base.reachable_intervals():
            k = math.floor((lo - a) / TWO_PI)
            if a + k * TWO_PI <= lo + 1e-9 and hi <= b + k * TWO_PI + 1e-9:
                a, b = a + k * TWO_PI, b + k * TWO_PI
                if b - a >= TWO_PI - 1e-12:  # a full turn: centred on the traversal
                    mid = 0.5 * (lo + hi)
                    a, b = mid - math.pi, mid + math.pi
                th = np.linspace(a, b, samples)
                ok = self.positions(th)[1] & (self.dyad_clearance(th) > 0)
                i = int(np.clip(np.searchsorted(th, lo), 0, samples - 1))
                j = int(np.clip(np.searchsorted(th, hi), 0, samples - 1))
                bad = np.flatnonzero(~ok)
                start = bad[bad < i].max() + 1 if np.any(bad < i) else 0
                end = bad[bad > j].min() if np.any(bad > j) else samples
                run = th[start:end]
                return run if theta[-1] >= theta[0] else run[::-1]
        return np.array(theta, float)

    def transformed(self, scale: float, offset: FloatArray) -> "SixBarGeometry":
        """The same linkage scaled by ``scale`` about the origin, then moved by ``offset`` (a point on the ground,
        V, moves too)."""
        v = self.vector() * scale
        v[2] = self.gamma
        v[0] += float(offset[0])
        v[1] += float(offset[1])
        if self.top.v_link == "ground":
            v[9] += float(offset[0])
            v[10] += float(offset[1])
        if self.top.u_link == "ground":
            v[7] += float(offset[0])
            v[8] += float(offset[1])
        return replace(self, **{k: float(x) for k, x in zip(PARAMS, v)})


# --- loop closure (S3) ---------------------------------------------------------------------------------------------

# a term: (sign, angle, vector): angle None (no rotation), "gamma", or an angle block index; vector (i, k): the
# parameters (g[i], g[k]), k None for (g[i], 0)
Term = tuple[float, object, tuple[int, int | None]]


def point_terms(link: str, w: tuple[int, int]) -> list[Term]:
    """The terms of a point w of a link's frame (module docstring)."""
    if link == "ground":
        return [(1.0, None, w)]
    if link == "crank":
        return [(1.0, None, (0, 1)), (1.0, 0, w)]
    if link == "coupler":
        return [(1.0, None, (0, 1)), (1.0, 0, (4, None)), (1.0, 1, w)]
    return [(1.0, None, (0, 1)), (1.0, "gamma", (3, None)), (1.0, 2, w)]


def negated(terms: list[Term]) -> list[Term]:
    return [(-s, a, v) for s, a, v in terms]


class SixBarSystem:
    """The loop-closure equations (S3) of a six-bar of one topology through targets T (N, 2); with ``delta`` (N,)
    the crank angles are theta_1 + delta_j. The unknown vector is x = [g (15), theta (N) or theta_1 (1), phi3 (N),
    phi4 (N), phi5 (N), phi6 (N)]."""

    #: where the link lengths are in x
    length_index = LENGTHS

    def __init__(self, targets: FloatArray, topology: str, delta: FloatArray | None = None):
        self.T = np.asarray(targets, float)
        self.N = len(self.T)
        self.topology = topology
        self.delta = None if delta is None else np.asarray(delta, float)
        self.n_theta = self.N if self.delta is None else 1
        self.size = N_PARAMS + self.n_theta + 4 * self.N
        top = TOPOLOGIES[topology]
        U, V = point_terms(top.u_link, (7, 8)), point_terms(top.v_link, (9, 10))
        self.equations: list[list[Term]] = [
            [(1.0, 0, (4, None)), (1.0, 1, (5, None)), (-1.0, "gamma", (3, None)), (-1.0, 2, (6, None))],
            U + [(1.0, 3, (11, None))] + negated(V) + [(-1.0, 4, (12, None))],
            U + [(1.0, 3, (13, 14))]]

    def angles(self, x: FloatArray) -> FloatArray:
        """The angle blocks (5, N) of x (theta expanded with timing)."""
        k = N_PARAMS + self.n_theta
        th = x[N_PARAMS:k]
        th = th.copy() if self.delta is None else th[0] + self.delta
        return np.vstack([th[None], x[k:].reshape(4, self.N)])

    def thetas(self, x: FloatArray) -> FloatArray:
        return self.angles(x)[0]

    def column(self, block: int) -> FloatArray:
        """The columns of an angle block's unknowns, one per target (N,)."""
        if block == 0:
            return N_PARAMS + (np.arange(self.N) if self.delta is None else np.zeros(self.N, int))
        return N_PARAMS + self.n_theta + (block - 1) * self.N + np.arange(self.N)

    def state(self, geometry: SixBarGeometry, theta: FloatArray) -> FloatArray:
        """x of a linkage at crank angles theta (N,) (with timing, theta_1 = theta[0])."""
        ang = np.unwrap(geometry.angles(theta), axis=1)
        ang[0] = np.asarray(theta, float)
        th = ang[0] if self.delta is None else ang[0, :1]
        return np.concatenate([geometry.vector(), th, ang[1:].ravel()])

    def evaluate(self, x: FloatArray, T: FloatArray | None = None,
                 jacobian: bool = False) -> tuple[FloatArray, FloatArray | None]:
        """(residuals (6 N,), Jacobian (6 N, size) or None): rows are [loop x, loop y, dyad x, dyad y, path x,
        path y], N each."""
        T = self.T if T is None else T
        N = self.N
        g = x[:N_PARAMS]
        ang = self.angles(x)
        r = np.zeros((3, 2, N))
        J = np.zeros((6 * N, self.size)) if jacobian else None
        rows = np.arange(N)
        for eq, terms in enumerate(self.equations):
            for sign, angle, (i, k) in terms:
                vx, vy = g[i], (g[k] if k is not None else 0.0)
                if angle is None:
                    cs, sn = np.ones(N), np.zeros(N)
                elif angle == "gamma":
                    cs, sn = np.full(N, math.cos(g[2])), np.full(N, math.sin(g[2]))
                else:
                    cs, sn = np.cos(ang[angle]), np.sin(ang[angle])
                wx, wy = cs * vx - sn * vy, sn * vx + cs * vy
                r[eq, 0] += sign * wx
                r[eq, 1] += sign * wy
                if J is None:
                    continue
                rx, ry = 2 * eq * N + rows, (2 * eq + 1) * N + rows
                if angle == "gamma":
                    J[rx, 2] += -sign * wy
                    J[ry, 2] += sign * wx
                elif angle is not None:
                    cols = self.column(int(angle))  # type: ignore[arg-type]
                    np.add.at(J, (rx, cols), -sign * wy)
                    np.add.at(J, (ry, cols), sign * wx)
                J[rx, i] += sign * cs
                J[ry, i] += sign * sn
                if k is not None:
                    J[rx, k] += -sign * sn
                    J[ry, k] += sign * cs
        r[2, 0] -= T[:, 0]
        r[2, 1] -= T[:, 1]
        return r.reshape(-1), J

    def residuals(self, x: FloatArray, T: FloatArray | None = None) -> FloatArray:
        return self.evaluate(x, T)[0]

    def jacobian(self, x: FloatArray) -> FloatArray:
        J = self.evaluate(x, jacobian=True)[1]
        assert J is not None
        return J


def normalise_sixbar_state(system: SixBarSystem, x: FloatArray) -> FloatArray:
    """The same linkage with positive link lengths: a negative length is its link turned by pi (its frame's points
    change sign)."""
    x = x.copy()
    top = TOPOLOGIES[system.topology]
    ang_cols = {b: system.column(b) for b in range(5)}
    if x[3] < 0:  # ground: O4 = O2 + d u(gamma)
        x[3], x[2] = -x[3], x[2] + math.pi
    for link, (block, length) in FRAME_OF.items():
        if x[length] < 0:
            x[length] = -x[length]
            cols = np.unique(ang_cols[block])
            x[cols] += math.pi
            for mounted, idx in ((top.u_link, (7, 8)), (top.v_link, (9, 10))):
                if mounted == link:
                    x[list(idx)] = -x[list(idx)]
    if x[11] < 0:  # link 5: its frame carries P
        x[11] = -x[11]
        x[ang_cols[3]] += math.pi
        x[13], x[14] = -x[13], -x[14]
    if x[12] < 0:
        x[12] = -x[12]
        x[ang_cols[4]] += math.pi
    x[2] = math.remainder(x[2], TWO_PI)
    return x


@dataclass(frozen=True)
class SixBarTraversal:
    """A six-bar that passes through the targets on its branches: ``theta`` (N,) the crank angles in the targets'
    order, unwrapped along the crank's motion (``direction`` +1 counter-clockwise, -1 clockwise)."""
    geometry: SixBarGeometry
    theta: FloatArray
    direction: int


def check_sixbar(system: SixBarSystem, x: FloatArray, min_link_ratio: float = MIN_LINK_RATIO,
                 direction: int | None = None) -> tuple[SixBarTraversal | None, str]:
    """Whether the solution x of (S3) is a six-bar whose crank, driven one way, reaches every target in order on one
    branch of each loop, with no link shorter than ``min_link_ratio`` of the longest: (traversal, "") or (None,
    why)."""
    x = normalise_sixbar_state(system, x)
    if not np.all(np.isfinite(x)):
        return None, "not finite"
    g = x[:N_PARAMS]
    lengths = g[LENGTHS]
    if lengths.min() < min_link_ratio * lengths.max():
        return None, f"a link shorter than {min_link_ratio:g} of the longest"
    ang = system.angles(x)
    # the joints from the loop-closure unknowns (not the closed form): the branches they are on
    geometry = SixBarGeometry.from_vector(system.topology, g, 1, 1)
    O2, O4 = geometry.O2, geometry.O4
    A = O2 + g[4] * unit(ang[0])
    B = A + g[5] * unit(ang[1])
    top = geometry.top

    def mounted(link: str, w: FloatArray) -> FloatArray:
        if link == "ground":
            return np.broadcast_to(w, A.shape)
        origin, phi = {"crank": (O2, ang[0]), "coupler": (A, ang[1]), "rocker": (O4, ang[2])}[link]
        return origin + w[0] * unit(phi) + w[1] * unit(phi + 0.5 * math.pi)
    U, V = mounted(top.u_link, g[7:9]), mounted(top.v_link, g[9:11])
    E = U + g[11] * unit(ang[3])
    tiny = 1e-9 * lengths.max() ** 2
    branches = []
    for base, diag, joint in ((A, np.broadcast_to(O4, A.shape), B), (U, V, E)):
        side = (diag[:, 0] - base[:, 0]) * (joint[:, 1] - base[:, 1]) - \
            (diag[:, 1] - base[:, 1]) * (joint[:, 0] - base[:, 0])
        signs = {int(np.sign(s)) for s in side if abs(s) > tiny}
        if len(signs) > 1:
            return None, "the targets lie on both assembly branches"
        branches.append(signs.pop() if signs else 1)
    geometry = replace(geometry, branch1=branches[0], branch2=branches[1])
    turn = crank_turn(ang[0], system.delta is not None, geometry.sweep_reachable, direction)
    if turn is None:
        return None, "the crank cannot reach the targets in order without leaving the branches"
    return SixBarTraversal(geometry, *turn), ""


# --- many linkages at once: the evolution's fitness ----------------------------------------------------------------

BRANCHES = ((1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0))


def sixbar_curves(G: FloatArray, T: FloatArray, topology: str, samples: int
                  ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """For each six-bar, branch pair and arc of the four-bar's reachable crank angles: (D (S, 4, 2, N, K-1) squared
    target-segment distances, inf off the curve; t (same) positions on the segments; breaks (S, 4, 2, K-1) segments
    off the curve; theta (S, 2, K) the arcs' crank angles)."""
    theta, _ = reachable_arcs(G[:, :9], samples)
    Ds, ts, Bs = [], [], []
    for s1, s2 in BRANCHES:
        P, ok = sixbar_points(G, theta, topology, s1, s2)
        bad = ~ok | np.isnan(theta)
        D, t = segment_distances(T, P)
        seg_bad = bad[..., :-1] | bad[..., 1:]
        Ds.append(np.where(seg_bad[..., None, :] | ~np.isfinite(D), np.inf, D))
        ts.append(t)
        Bs.append(seg_bad)
    return np.stack(Ds, 1), np.stack(ts, 1), np.stack(Bs, 1), theta


def sixbar_ordered_fit(G: FloatArray, T: FloatArray, topology: str, samples: int) -> FloatArray:
    """The rms distance (S,) of the targets T (N, 2) from each six-bar's sampled path, the targets visited in order
    (or reversed) along one unbroken run of one branch pair (inf where nothing closes)."""
    D, _, breaks, _ = sixbar_curves(G, T, topology, samples)
    best = np.minimum(ordered_cost(D, breaks), ordered_cost(D[..., ::-1, :], breaks))
    return np.sqrt(best.reshape(len(G), -1).min(axis=-1) / len(T))


def sixbar_assignment(g: FloatArray, T: FloatArray, topology: str, samples: int
                      ) -> tuple[float, tuple[int, int], FloatArray] | None:
    """The best ordered assignment of the targets to one six-bar's path: (rms distance, branches, crank angles
    (N,)); None when nothing closes."""
    D, tpos, breaks, theta = sixbar_curves(np.asarray(g, float)[None], T, topology, samples)
    best: tuple[float, tuple[int, int], FloatArray] | None = None
    for bi, (s1, s2) in enumerate(BRANCHES):
        for arc in range(2):
            th = theta[0, arc]
            if not np.isfinite(th[0]):
                continue
            for reverse in (False, True):
                sl = slice(None, None, -1) if reverse else slice(None)
                found = ordered_path(D[0, bi, arc][sl], tpos[0, bi, arc][sl], th, breaks[0, bi, arc])
                if found is None or (best is not None and found[0] >= best[0]):
                    continue
                best = (found[0], (int(s1), int(s2)), found[1][::-1] if reverse else found[1])
    return best


def timed_fit(G: FloatArray, T: FloatArray, delta: FloatArray, topology: str) -> FloatArray:
    """The rms distance (S,) of the path points at theta_1 + delta_j (theta_1: G's 16th column) from the targets,
    on the better branch pair (inf where a pose does not close)."""
    theta = G[:, N_PARAMS:N_PARAMS + 1] + delta[None, :]
    best = np.full(len(G), np.inf)
    for s1, s2 in BRANCHES:
        P, ok = sixbar_points(G[:, :N_PARAMS], theta, topology, s1, s2)
        d2 = np.sum((P - T[None]) ** 2, -1)
        best = np.minimum(best, np.sqrt(np.where(ok.all(-1), d2.mean(-1), np.inf)))
    return best


class SixBarFamily:
    """The six-bar's kinematics for the shared local searches (core.analysis.synthesis_search.continue_from_curve,
    add_targets): one topology."""

    def __init__(self, topology: str):
        self.topology = topology

    def system(self, T: FloatArray, delta: FloatArray | None = None) -> SixBarSystem:
        return SixBarSystem(T, self.topology, delta)

    def curve(self, geometry: SixBarGeometry, theta: FloatArray) -> tuple[FloatArray, FloatArray]:
        return geometry.positions(theta)

    def check(self, system: SixBarSystem, x: FloatArray, min_link_ratio: float,
              direction: int | None = None) -> tuple[SixBarTraversal | None, str]:
        return check_sixbar(system, x, min_link_ratio, direction)


__all__ = ["N_PARAMS", "PARAMS", "SixBarFamily", "SixBarGeometry", "SixBarSystem", "SixBarTraversal", "TOPOLOGIES",
           "Topology", "check_sixbar", "sixbar_assignment", "sixbar_ordered_fit", "sixbar_points", "timed_fit"]


# --- six-bars that trace a four-bar's coupler curve: starts for the search -----------------------------------------

def riding_dyad(fourbar: FourBarGeometry, topology: str, rng: np.random.Generator,
                theta: FloatArray) -> SixBarGeometry | None:
    """A six-bar of the topology whose link 5 moves rigidly with the four-bar's coupler, so that its path point traces
    the four-bar's coupler curve (a start for continuation). Link 5 rides on the coupler when its two joints are
    coupler points each at a constant distance from their other link: a point of the coupler itself, or the joint
    the coupler shares with that link (A with the crank, B with the rocker), or a circle point of the coupler's
    motion about a ground pivot (A about O2, B about O4). Per topology (random points w of the coupler frame):

    * stephenson3: U = w, E = B with V = O4 (f = c), or E = A with V = O2 (f = a);
    * watt2: none (U would be B, E = A, V = O2: the dyad folds where the rocker reverses); see
      :func:`watt2_on_drag_link`;
    * watt1: U = w, V = A on the crank, E = another coupler point w';
    * stephenson1: U = A on the crank, V = B on the rocker, E = w.

    The dyad's branch is the one that puts E where the coupler has it at the crank angles theta (N,); None when no
    branch does at all of them (links 5 and 6 fold over between them) or a link of the dyad would be shorter than
    MIN_LINK_RATIO of the longest."""
    g = fourbar
    b = g.b
    w = np.array([b * rng.uniform(-0.5, 1.5), b * rng.uniform(-0.8, 0.8)])
    w2 = np.array([b * rng.uniform(-0.5, 1.5), b * rng.uniform(-0.8, 0.8)])
    A_cf, B_cf = np.zeros(2), np.array([b, 0.0])
    O4 = g.O4
    if topology == "stephenson3":
        if rng.random() < 0.5:
            U_cf, E_cf, u, v, f = w, B_cf, w, O4, g.c
        else:
            U_cf, E_cf, u, v, f = w, A_cf, w, g.O2, g.a
    elif topology == "watt2":
        return None  # the dyad would fold where the rocker reverses: see watt2_on_drag_link
    elif topology == "watt1":
        U_cf, E_cf, u, v = w, w2, w, np.array([g.a, 0.0])
        f = float(np.linalg.norm(w2 - A_cf))
    elif topology == "stephenson1":
        U_cf, E_cf, u, v = A_cf, w, np.array([g.a, 0.0]), np.array([g.c, 0.0])
        f = float(np.linalg.norm(w - B_cf))
    else:
        raise ValueError(f"unknown six-bar topology {topology!r}")
    to_E = E_cf - U_cf
    e = float(np.linalg.norm(to_E))
    alpha = math.atan2(to_E[1], to_E[0])
    P = rotate_vector(np.array([g.p, g.q]) - U_cf, -alpha)
    lengths = [g.d, g.a, g.b, g.c, e, f]
    if min(lengths) < MIN_LINK_RATIO * max(lengths):
        return None
    vec = [g.x0, g.y0, g.gamma, g.d, g.a, g.b, g.c, u[0], u[1], v[0], v[1], e, f, P[0], P[1]]
    target = g.coupler_point(theta)
    best, out = math.inf, None
    for s2 in (1, -1):
        six = SixBarGeometry.from_vector(topology, vec, g.branch, s2)
        P6, ok = six.positions(theta)
        if ok.all() and float(np.max(np.abs(P6 - target))) < best:
            best, out = float(np.max(np.abs(P6 - target))), six
    return out if best <= 1e-9 * g.link_scale else None


def rotate_vector(v: FloatArray, t: float) -> FloatArray:
    """A 2-vector turned by t [rad]."""
    c, s = math.cos(t), math.sin(t)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def watt2_on_drag_link(fourbar: FourBarGeometry, theta: FloatArray, rng: np.random.Generator
                       ) -> tuple[SixBarGeometry, FloatArray] | None:
    """A Watt II six-bar whose second loop is the given four-bar (its crank O2' A' is the rocker's arm O4 U, its
    coupler link 5, its rocker link 6 with V = O4') driven by a first loop that is a drag link (ground the shortest:
    the rocker turns fully, the same way as the crank): its path is the four-bar's coupler curve. Returns (the
    six-bar, crank angles (N,) at which the rocker puts the four-bar's crank at theta (N,)), or None where the
    drag link's rocker angle cannot be inverted in order."""
    g = fourbar
    s = g.a * rng.uniform(0.8, 1.5)
    d, a, b, c = 0.3 * s, s, s * rng.uniform(1.05, 1.3), s * rng.uniform(0.9, 1.1)
    gamma = rng.uniform(-math.pi, math.pi)
    beta = rng.uniform(-math.pi, math.pi)  # U's direction in the rocker frame
    O4 = g.O2
    O2 = O4 - d * unit(gamma)
    vec = [O2[0], O2[1], gamma, d, a, b, c, g.a * math.cos(beta), g.a * math.sin(beta), *g.O4, g.b, g.c, g.p, g.q]
    direction = 1.0 if theta[-1] >= theta[0] else -1.0
    for s1 in (1, -1):
        six = SixBarGeometry.from_vector("watt2", vec, s1, g.branch)
        # the rocker angle over two crank turns, unwrapped: a drag link's rocker turns once per crank turn
        th = np.linspace(-2 * math.pi, 2 * math.pi, 1441)
        phi4 = np.unwrap(six.angles(th)[2]) + beta
        if not np.all(np.diff(phi4) > 0):
            continue
        want = theta - 0.0
        k0 = math.floor((want[0] - phi4[0]) / TWO_PI) + 1
        want = want - (k0 - 1) * TWO_PI
        if want.min() < phi4[0] or want.max() > phi4[-1]:
            want = want - TWO_PI * math.floor((want.min() - phi4[0]) / TWO_PI)
        if want.max() > phi4[-1]:
            continue
        crank = np.interp(want, phi4, th)
        for _ in range(3):  # Newton on the interpolated inverse: phi4(crank) = want
            got = np.unwrap(six.angles(crank)[2]) + beta
            got = got + TWO_PI * np.round((want - got) / TWO_PI)
            h = 1e-7
            slope = (np.unwrap(six.angles(crank + h)[2]) - np.unwrap(six.angles(crank - h)[2])) / (2 * h)
            crank = crank - (got - want) / slope
        if np.max(np.abs(six.coupler_point(crank) - g.coupler_point(theta))) > 1e-9 * g.link_scale:
            continue
        if direction * (crank[-1] - crank[0]) <= 0:
            continue
        return six, crank
    return None
