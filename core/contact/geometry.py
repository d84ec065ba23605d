"""Planar contact geometry: the shapes a contact pair touches with, their gap functions, contact points and normals,
and the two row kinds every contact point reduces to (closed-form code, no geometry library: the shapes are few
and simple, and the rows need exact derivatives, which a polygon library does not give).

Shapes (in a body's frame, taken from the body's ``geometry`` list of the model file, the ground's from
``ground.geometry``):

* ``disk`` -> a circle (centre, radius);
* ``bar`` -> a capsule: the segment from ``from`` to ``to`` with radius width/2 (round ends);
* ``box`` and ``polygon`` -> a convex polygon (vertices ordered counter-clockwise here; a non-convex polygon is
  refused with a message: split it into convex pieces);
* ``polyline`` -> one or more *chains* (terrain: a floor with a step, a ramp, a groove): an open chain of one-sided
  segments (radius 0), solid on the side ``side`` of the direction of travel (``"right"`` by default: a profile
  written with increasing x is solid below). The chain is stored with its solid on the left (reversed when solid
  on the right), so its outward normals are those of a counter-clockwise polygon, and it is split at its concave
  vertices (those that turn towards the free side) into convex chains, one shape each (:func:`shapes_from_geometry`):
  a disk in a V-groove touches both sides as two contact points. Within a convex chain the gap is the distance to
  the chain (edge regions and vertex disks, C1 in free space, as for a convex polygon), so a disk rolling over a
  convex vertex switches rows (edge, vertex, next edge) through the "nearest feature changes" event. Behind the
  chain (within the span between the normals at its two ends) the gap is the largest signed distance from its
  segments' lines, as inside a polygon; beyond the ends it is the distance to the end vertex. The chain's own
  candidate disks are its convex vertices and its true ends (a concave vertex cannot touch a convex shape without
  one of its segments touching too).

Features: a shape's *disks* are its circle, its capsule's two end circles, or its polygon's vertices (radius 0);
its *edges* are its polygon's sides (outward normal) or its capsule's segment (two-sided, radius r). A contact
pair's candidate contact points are every disk of one shape against the other shape (its edges and disks), and
every disk of the second shape against the first shape's edges only (so that no point is counted twice). The gap
of a candidate is the distance of its disk from the other shape (negative inside a polygon):

    edge region   g = n . (c - p) - rho_c - rho_e          (c the disk's centre, p a point of the edge, n its normal)
    disk region   g = |c - c'| - rho_c - rho'

Both are continuous across the regions' borders (the distance to a convex shape is C1 outside it), so the gaps'
zero crossings (impacts) can be found by root finding on the integrator's dense output.

Row kinds (``A`` the body of the disk, ``B`` the other; n the unit normal from B towards A; tau = -perp(n), so
that n = perp(tau); a_X = A_X s_X the rotated arm from X's centre of mass; omega = phi'; d = P_A - P_B):

* **point-line** (:class:`PointLine`): P_A the disk's centre, P_B a point of B's line (edge) with normal n fixed in B:

      g = n . d - rho,                    rho = rho_A + rho_B
      Gn: dr_A = n, dphi_A = n . perp(a_A), dr_B = -n, dphi_B = perp(n) . d - n . perp(a_B)
      g'' = Gn q'' + bn,  bn = -omega_B^2 n . d + 2 omega_B perp(n) . d' + n . d0,
      d0 = -omega_A^2 a_A + omega_B^2 a_B,  d' = v_A + omega_A perp(a_A) - v_B - omega_B perp(a_B)

  (the point-on-line equations of [003], the local method, as in core/elements/primitives/point_line.py). Sticking
  (rolling without slip) is the holonomic row psi = tau . d + rho_A (phi_A - phi_B) - c0, whose rate is the slip
  velocity of the contact point Q = P_A - rho_A n (the disk's rim point, also a point of B's surface at contact):
  grad: dr_A = tau, dphi_A = tau . perp(a_A) + rho_A, dr_B = -tau, dphi_B = n . d - tau . perp(a_B) - rho_A;
  psi'' = grad q'' + bt, bt = -omega_B^2 tau . d + 2 omega_B perp(tau) . d' + tau . d0 (the planar rolling disk's
  rolling row, core/elements/primitives/disk_on_line.py, generalised to a line of any body).
* **point-point** (:class:`PointPoint`): the two disks' centres, n = d / |d|:

      g = |d| - rho_A - rho_B
      Gn: dr_A = n, dphi_A = n . perp(a_A), dr_B = -n, dphi_B = -n . perp(a_B)
      bn = n . d0 + (|d'|^2 - (n . d')^2) / |d|

  (the distance constraint). Sticking: psi = -(rho_A + rho_B) theta + rho_A phi_A + rho_B phi_B - c0, theta the
  angle of d (the rolling of two circles on each other, as a gear pair), whose rate is the slip velocity while
  |d| = rho_A + rho_B; theta'' at zero accelerations = perp(d) . d0 / |d|^2 - 2 (d . d')(perp(d) . d') / |d|^4.

The slip velocity of the contact point, used for kinetic friction and for the slip-to-stick event, is
v_t = tau . (v_A(Q) - v_B(Q)) with v_X(Q) = v_X + omega_X perp(Q - r_X) (Q = P_A - rho_A n): its gradient
is Gt: dr_A = tau, dphi_A = -n . (Q - r_A), dr_B = -tau, dphi_B = n . (Q - r_B).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from mechstudio.core.types import FloatArray

#: the kinds of a contact shape and the model-file geometry types they come from
SHAPE_OF_GEOMETRY = {"disk": "circle", "bar": "capsule", "box": "polygon", "polygon": "polygon", "polyline": "chain"}
#: the sides of a polyline that can be solid (of its direction of travel)
POLYLINE_SIDES = ("right", "left")
#: a polygon is convex when every turn has the same sign; turns below this (relative to the squared size) are flat
CONVEX_TOL = 1e-12


class ShapeError(ValueError):
    """A geometry item that cannot be a contact shape (its message says why)."""


@dataclass(frozen=True)
class Shape:
    """A contact shape in its body's frame, relative to the body's centre of mass [m]."""
    kind: str  # circle | capsule | polygon | chain
    points: tuple[tuple[float, float], ...]  # circle: (centre,); capsule: (from, to); polygon: vertices (CCW);
    #                                          chain: vertices in order, solid on the left
    radius: float = 0.0  # circle, capsule
    ends: tuple[bool, bool] = (True, True)  # chain: whether its first/last vertex is an end of the polyline

    def disks(self) -> list[tuple[tuple[float, float], float]]:
        """(centre, radius) of the shape's candidate disks (module docstring)."""
        if self.kind == "polygon":
            return [(p, 0.0) for p in self.points]
        if self.kind == "chain":
            last = len(self.points) - 1
            return [(p, 0.0) for i, p in enumerate(self.points)
                    if (0 < i < last) or (i == 0 and self.ends[0]) or (i == last and self.ends[1])]
        return [(p, self.radius) for p in self.points]

    def extent(self) -> float:
        """The largest distance of a point of the shape from its body's centre of mass [m]."""
        return max(math.hypot(*p) for p in self.points) + self.radius


def shape_from_geometry(item: dict[str, Any], points: dict[str, Sequence[float]], com: Sequence[float]) -> Shape:
    """The contact shape of one model-file geometry ``item`` of a body with named ``points`` and centre of mass
    ``com`` (body frame [m]); :class:`ShapeError` when it cannot be one."""
    kind = item.get("type")
    if kind not in SHAPE_OF_GEOMETRY:
        raise ShapeError(f"a {kind!r} shape cannot touch: contact shapes are {', '.join(SHAPE_OF_GEOMETRY)}")

    def ref(r: Any) -> tuple[float, float]:
        if isinstance(r, str):
            if r not in points:
                raise ShapeError(f"the body has no point named {r!r}")
            r = points[r]
        return float(r[0]) - float(com[0]), float(r[1]) - float(com[1])

    if kind == "polyline":
        chains = shapes_from_geometry(item, points, com)
        if len(chains) > 1:
            raise ShapeError("the polyline has concave vertices: it is several contact shapes "
                             "(shapes_from_geometry)")
        return chains[0]
    if kind == "disk":
        return Shape("circle", (ref(item.get("center", [0.0, 0.0])),), float(item["radius"]))
    if kind == "bar":
        return Shape("capsule", (ref(item["from"]), ref(item["to"])), 0.5 * float(item.get("width", 0.05)))
    if kind == "box":
        cx, cy = ref(item.get("center", [0.0, 0.0]))
        sx, sy = 0.5 * float(item["size"][0]), 0.5 * float(item["size"][1])
        verts = [(cx - sx, cy - sy), (cx + sx, cy - sy), (cx + sx, cy + sy), (cx - sx, cy + sy)]
    else:
        verts = [ref(v) for v in item["vertices"]]
    return Shape("polygon", convex_ccw(verts))


def shapes_from_geometry(item: dict[str, Any], points: dict[str, Sequence[float]],
                         com: Sequence[float]) -> list[Shape]:
    """The contact shapes of one model-file geometry ``item`` (as :func:`shape_from_geometry`): one shape, or a
    polyline's convex chains (module docstring)."""
    if item.get("type") != "polyline":
        return [shape_from_geometry(item, points, com)]
    pts = [(float(v[0]) - float(com[0]), float(v[1]) - float(com[1])) for v in item["points"]]
    side = item.get("side", "right")
    if side not in POLYLINE_SIDES:
        raise ShapeError(f"side must be one of {', '.join(POLYLINE_SIDES)}, not {side!r}")
    if len(pts) < 2:
        raise ShapeError("a polyline needs at least 2 points")
    if any(pts[i] == pts[i + 1] for i in range(len(pts) - 1)):
        raise ShapeError("a polyline has two equal consecutive points")
    if side == "right":
        pts = pts[::-1]
    return convex_chains(pts)


def convex_chains(pts: Sequence[tuple[float, float]]) -> list[Shape]:
    """The open chain ``pts`` (solid on the left) split at its concave vertices (right turns) into convex chains."""
    chains: list[Shape] = []
    start = 0
    for i in range(1, len(pts) - 1):
        ax, ay = pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1]
        bx, by = pts[i + 1][0] - pts[i][0], pts[i + 1][1] - pts[i][1]
        if ax * by - ay * bx < -CONVEX_TOL * (ax * ax + ay * ay) ** 0.5 * (bx * bx + by * by) ** 0.5:
            chains.append(Shape("chain", tuple(pts[start:i + 1]), ends=(start == 0, False)))
            start = i
    chains.append(Shape("chain", tuple(pts[start:]), ends=(start == 0, True)))
    return chains


def convex_ccw(verts: Sequence[tuple[float, float]]) -> tuple[tuple[float, float], ...]:
    """The vertices counter-clockwise; :class:`ShapeError` unless they form a convex polygon of positive area."""
    v = np.asarray(verts, float)
    area2 = float(np.sum(v[:, 0] * np.roll(v[:, 1], -1) - np.roll(v[:, 0], -1) * v[:, 1]))
    size2 = float(np.max(np.sum((v - v.mean(axis=0)) ** 2, axis=1)))
    if abs(area2) <= CONVEX_TOL * size2:
        raise ShapeError("the polygon has no area")
    if area2 < 0:
        v = v[::-1]
    e = np.roll(v, -1, axis=0) - v
    turns = e[:, 0] * np.roll(e[:, 1], -1) - e[:, 1] * np.roll(e[:, 0], -1)
    if np.any(turns < -CONVEX_TOL * size2):
        raise ShapeError("the polygon is not convex: split it into convex polygons (one contact pair each, or "
                         "all of them with shape -1)")
    return tuple((float(x), float(y)) for x, y in v)


# ---- rows ----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BodyState:
    """Position r (centre of mass), angle, velocity and angular velocity of one body (zeros: the ground)."""
    r: FloatArray
    phi: float
    v: FloatArray
    omega: float


GROUND_STATE = BodyState(np.zeros(2), 0.0, np.zeros(2), 0.0)


@dataclass(frozen=True)
class RowValues:
    """One contact point's rows at a state (module docstring): gap [m], unit normal n (from B to A) and contact
    point Q (world), the normal row's gradients (A's and B's (x, y, phi) columns) and its quadratic term bn; the
    slip velocity's gradients; the stick row's value (without c0), gradients and quadratic term."""
    gap: float
    normal: FloatArray
    point: FloatArray
    gn_a: FloatArray
    gn_b: FloatArray
    bn: float
    gt_a: FloatArray
    gt_b: FloatArray
    stick: float
    gs_a: FloatArray
    gs_b: FloatArray
    bs: float


def _separation(A: BodyState, B: BodyState, aax: float, aay: float, abx: float,
                aby: float) -> tuple[float, float, float, float, float, float]:
    """d = (r_A + a_A) - (r_B + a_B) [m] for the body arms a (world components), its rate d' [m/s] and the
    centripetal part of d'' [m/s^2] (-w_A^2 a_A + w_B^2 a_B: d'' without the angular and linear accelerations)."""
    wa, wb = A.omega, B.omega
    dx = A.r[0] + aax - B.r[0] - abx
    dy = A.r[1] + aay - B.r[1] - aby
    ddx = A.v[0] - wa * aay - B.v[0] + wb * aby
    ddy = A.v[1] + wa * aax - B.v[1] - wb * abx
    return dx, dy, ddx, ddy, -wa * wa * aax + wb * wb * abx, -wa * wa * aay + wb * wb * aby


def _arm(phi: float, s: Sequence[float]) -> tuple[float, float, float, float]:
    """(cos phi, sin phi, A s) of a body angle and a body-frame vector."""
    c, sn = math.cos(phi), math.sin(phi)
    return c, sn, c * s[0] - sn * s[1], sn * s[0] + c * s[1]


def _values(gap: float, n: tuple[float, float], q: tuple[float, float], gn_a: tuple, gn_b: tuple, bn: float,
            gt_a: tuple, gt_b: tuple, stick: float, gs_a: tuple, gs_b: tuple, bs: float) -> RowValues:
    arr = np.array
    return RowValues(gap, arr(n), arr(q), arr(gn_a), arr(gn_b), bn, arr(gt_a), arr(gt_b), stick, arr(gs_a),
                     arr(gs_b), bs)


@dataclass(frozen=True)
class PointLine:
    """Disk (centre ``s_a``, radius ``rho_a``) of body A against the line of body B through ``p_b`` with unit normal
    ``n_b`` (B's frame, relative to B's centre of mass), B's surface ``rho_b`` beyond the line (a capsule)."""
    s_a: tuple[float, float]
    rho_a: float
    p_b: tuple[float, float]
    n_b: tuple[float, float]
    rho_b: float = 0.0

    def values(self, A: BodyState, B: BodyState) -> RowValues:
        _, _, aax, aay = _arm(A.phi, self.s_a)
        cb, sb, abx, aby = _arm(B.phi, self.p_b)
        nx, ny = cb * self.n_b[0] - sb * self.n_b[1], sb * self.n_b[0] + cb * self.n_b[1]
        tx, ty = ny, -nx
        wa, wb = A.omega, B.omega
        dx, dy, ddx, ddy, d0x, d0y = _separation(A, B, aax, aay, abx, aby)
        nd = nx * dx + ny * dy
        ra = self.rho_a
        gap = nd - ra - self.rho_b
        qx, qy = A.r[0] + aax - ra * nx, A.r[1] + aay - ra * ny
        gn_a = (nx, ny, -nx * aay + ny * aax)
        gn_b = (-nx, -ny, -ny * dx + nx * dy - (-nx * aby + ny * abx))
        bn = -wb * wb * nd + 2.0 * wb * (-ny * ddx + nx * ddy) + nx * d0x + ny * d0y
        gt_a = (tx, ty, -(nx * (qx - A.r[0]) + ny * (qy - A.r[1])))
        gt_b = (-tx, -ty, nx * (qx - B.r[0]) + ny * (qy - B.r[1]))
        td = tx * dx + ty * dy
        stick = td + ra * (A.phi - B.phi)
        gs_a = (tx, ty, -tx * aay + ty * aax + ra)
        gs_b = (-tx, -ty, nd - (-tx * aby + ty * abx) - ra)
        bs = -wb * wb * td + 2.0 * wb * (-ty * ddx + tx * ddy) + tx * d0x + ty * d0y
        return _values(gap, (nx, ny), (qx, qy), gn_a, gn_b, bn, gt_a, gt_b, stick, gs_a, gs_b, bs)


@dataclass(frozen=True)
class PointPoint:
    """Disk (``s_a``, ``rho_a``) of body A against disk (``s_b``, ``rho_b``) of body B (frames as in PointLine)."""
    s_a: tuple[float, float]
    rho_a: float
    s_b: tuple[float, float]
    rho_b: float

    def values(self, A: BodyState, B: BodyState) -> RowValues:
        _, _, aax, aay = _arm(A.phi, self.s_a)
        _, _, abx, aby = _arm(B.phi, self.s_b)
        wa, wb = A.omega, B.omega
        dx, dy, ddx, ddy, d0x, d0y = _separation(A, B, aax, aay, abx, aby)
        L = max(math.hypot(dx, dy), 1e-300)
        nx, ny = dx / L, dy / L
        tx, ty = ny, -nx
        ra, rb = self.rho_a, self.rho_b
        gap = L - ra - rb
        qx, qy = A.r[0] + aax - ra * nx, A.r[1] + aay - ra * ny
        gn_a = (nx, ny, -nx * aay + ny * aax)
        gn_b = (-nx, -ny, -(-nx * aby + ny * abx))
        ndd = nx * ddx + ny * ddy
        bn = nx * d0x + ny * d0y + (ddx * ddx + ddy * ddy - ndd * ndd) / L
        gt_a = (tx, ty, -(nx * (qx - A.r[0]) + ny * (qy - A.r[1])))
        gt_b = (-tx, -ty, nx * (qx - B.r[0]) + ny * (qy - B.r[1]))
        rs = ra + rb
        stick = -rs * math.atan2(dy, dx) + ra * A.phi + rb * B.phi
        k = rs / L  # d theta / d d = perp(d) / L^2 = -tau / L
        gs_a = (k * tx, k * ty, k * (-tx * aay + ty * aax) + ra)
        gs_b = (-k * tx, -k * ty, -k * (-tx * aby + ty * abx) + rb)
        pd0 = -dy * d0x + dx * d0y
        theta0 = pd0 / L ** 2 - 2.0 * (dx * ddx + dy * ddy) * (-dy * ddx + dx * ddy) / L ** 4
        return _values(gap, (nx, ny), (qx, qy), gn_a, gn_b, bn, gt_a, gt_b, stick, gs_a, gs_b, -rs * theta0)


Row = PointLine | PointPoint


def _edges(shape: Shape) -> list[tuple[float, float, float, float, float, float, float, bool]]:
    """(p0x, p0y, tx, ty, length, radius, two-sided, ...) of the shape's non-degenerate edges in its body frame
    (start p0, unit direction t), memoised per shape."""
    found = _EDGES.get(shape)
    if found is not None:
        return found
    if shape.kind == "polygon":
        p = [np.asarray(v, float) for v in shape.points]
        raw = [(p[i], p[(i + 1) % len(p)], 0.0, False) for i in range(len(p))]
    elif shape.kind == "capsule":
        raw = [(np.asarray(shape.points[0], float), np.asarray(shape.points[1], float), shape.radius, True)]
    else:
        raw = []
    out = []
    for p0, p1, radius, two_sided in raw:
        e = p1 - p0
        length = math.hypot(e[0], e[1])
        if length == 0.0:
            continue
        t = e / length
        out.append((float(p0[0]), float(p0[1]), float(t[0]), float(t[1]), length, radius, two_sided))
    _EDGES[shape] = out
    return out


_EDGES: dict[Shape, list[tuple]] = {}


def nearest_row(centre: FloatArray, rho: float, s_local: tuple[float, float], A: BodyState, shape: Shape,
                B: BodyState, with_disks: bool = True) -> tuple[float, Row | None]:
    """The gap of the disk (world ``centre``, radius ``rho``, body-frame ``s_local`` on body A) from ``shape`` on
    body B and the row of its nearest feature (None when ``with_disks`` is False and no edge region holds the
    disk: the other candidate covers it). Inside a convex polygon: the edge with the largest (negative) gap.
    Written out in scalars (it is evaluated for every candidate point at every event sample); the row of the
    winning feature is made at the end."""
    cb, sb = math.cos(-B.phi), math.sin(-B.phi)
    wx, wy = float(centre[0] - B.r[0]), float(centre[1] - B.r[1])
    cx, cy = cb * wx - sb * wy, sb * wx + cb * wy  # the disk's centre in B's frame (relative to its centre of mass)
    if shape.kind == "chain":
        return _nearest_on_chain(np.array([cx, cy]), rho, s_local, shape, with_disks)
    best_gap, best = math.inf, None  # best: (p0x, p0y, nx, ny, radius) of an edge, or a disk's (centre, radius)
    best_disk = False
    polygon = shape.kind == "polygon"
    inside = polygon
    deepest_gap, deepest = -math.inf, None
    for p0x, p0y, tx, ty, length, radius, two_sided in _edges(shape):
        nx, ny = ty, -tx  # outward for a counter-clockwise polygon
        dx, dy = cx - p0x, cy - p0y
        dist = nx * dx + ny * dy
        if two_sided and dist < 0.0:
            nx, ny, dist = -nx, -ny, -dist
        if dist > 0.0:
            inside = False
        along = tx * dx + ty * dy
        if polygon and dist - rho > deepest_gap:
            deepest_gap, deepest = dist - rho, (p0x, p0y, nx, ny, radius)
        if dist >= 0.0 and 0.0 <= along <= length and dist - rho - radius < best_gap:
            best_gap, best = dist - rho - radius, (p0x, p0y, nx, ny, radius)
    if inside:
        if deepest is None:
            return deepest_gap, None
        return deepest_gap, PointLine(s_local, rho, (deepest[0], deepest[1]), (deepest[2], deepest[3]), deepest[4])
    if with_disks:
        for ds, r in shape.disks():
            gap = math.hypot(cx - ds[0], cy - ds[1]) - rho - r
            if gap < best_gap:
                best_gap, best, best_disk = gap, (ds, r), True
    if best is None:
        return best_gap, None
    if best_disk:
        return best_gap, PointPoint(s_local, rho, best[0], best[1])
    return best_gap, PointLine(s_local, rho, (best[0], best[1]), (best[2], best[3]), best[4])


def _nearest_on_chain(c: FloatArray, rho: float, s_local: tuple[float, float], shape: Shape,
                      with_disks: bool) -> tuple[float, Row | None]:
    """:func:`nearest_row` for a convex chain (solid on the left; module docstring), ``c`` in B's frame."""
    p = [np.asarray(v, float) for v in shape.points]
    best: tuple[float, Row | None] = (math.inf, None)
    deepest: tuple[float, Row | None] = (-math.inf, None)
    behind = True
    first_along = last_along = 0.0
    for i in range(len(p) - 1):
        e = p[i + 1] - p[i]
        length = math.hypot(e[0], e[1])
        t = e / length
        n = np.array([t[1], -t[0]])  # outward: the solid is on the left
        dist = float(n @ (c - p[i]))
        along = float(t @ (c - p[i]))
        if i == 0:
            first_along = along
        last_along = along - length
        row = PointLine(s_local, rho, (float(p[i][0]), float(p[i][1])), (float(n[0]), float(n[1])), 0.0)
        if dist > 0.0:
            behind = False
        if dist - rho > deepest[0]:
            deepest = (dist - rho, row)
        if dist >= 0.0 and 0.0 <= along <= length and dist - rho < best[0]:
            best = (dist - rho, row)
    if behind and first_along >= 0.0 and last_along <= 0.0:
        return deepest
    if with_disks:
        for v in shape.points:
            gap = math.hypot(c[0] - v[0], c[1] - v[1]) - rho
            if gap < best[0]:
                best = (gap, PointPoint(s_local, rho, v, 0.0))
    return best


__all__ = ["BodyState", "GROUND_STATE", "POLYLINE_SIDES", "PointLine", "PointPoint", "Row", "RowValues",
           "SHAPE_OF_GEOMETRY", "Shape",
           "ShapeError", "convex_ccw", "convex_chains", "nearest_row", "shape_from_geometry", "shapes_from_geometry"]
