"""What the 3D view's camera frames: a region that holds the mechanism for the whole run (plain numpy, no Qt).

A camera fitted to the initial pose loses any mechanism that moves away from it: a 10-link chain released
horizontally swings down out of a view fitted to the horizontal line. Two bounds fix that:

* **Reach** (:func:`reach_fit`): when the bodies hang from fixed ground points through a tree of joints that keep
  distances (revolute, spherical, weld), every point of a body stays within a ball around the root pivot of its
  branch, whose radius is the sum of the distances between joint points along the branch plus the body's own
  size around its joint (e.g. a chain hanging from a pivot: the sum of the link lengths). The union of these
  balls holds the mechanism in every configuration, whatever the run does: the camera is fitted once and never
  moves. A planar model's balls are discs in the plane (its bodies turn about z, so their z extent stays).
* **Growth** (:meth:`Fit.grown`): any other model (closed loops, sliders, free bodies, a moving base) starts with
  the initial pose and grows the region, with headroom, when frames of the run leave it; the view then refits
  the camera a few times per run, never back and forth (the region never shrinks during a run).

A :class:`Fit` is the box the camera must show: tightly for a reach bound, with the view's usual room for motion
otherwise (the planar top camera fits a width and a height, the spatial camera a sphere).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from mechstudio.core.model.document import GROUND

#: joints that hold a point of each body together (the joint points coincide): a tree of them bounds the reach
DISTANCE_KEEPING = ("revolute", "spherical", "weld", "hinge", "universal", "fixed_joint")
HEADROOM = 0.15  # a growth adds this fraction of the new span on each side


@dataclass(frozen=True)
class Fit:
    """What the camera must show: the box [``lo``, ``hi``] of the mechanism.

    ``tight`` (a reach bound): the box holds every configuration, and ``sphere`` (the radius of a sphere around
    the centre holding it) is exact: the camera shows just the box, or the sphere. Otherwise (a pose, or the
    frames seen so far) the camera leaves the view's usual room for motion: the planar top camera shows a square
    of half the box's diagonal around its centre, the spatial camera a sphere of that radius.
    """

    lo: np.ndarray
    hi: np.ndarray
    tight: bool = False
    sphere: float = 0.0

    @property
    def center(self) -> np.ndarray:
        return (self.lo + self.hi) / 2

    @property
    def radius(self) -> float:
        """The radius of the sphere the spatial camera shows."""
        if self.tight and self.sphere > 0:
            return self.sphere
        return float(np.linalg.norm(self.hi - self.lo)) / 2

    @property
    def half(self) -> np.ndarray:
        """The half sizes of the box the planar top camera shows."""
        if self.tight:
            return (self.hi - self.lo) / 2
        return np.full(3, float(np.linalg.norm(self.hi - self.lo)) / 2)

    def contains(self, lo: np.ndarray, hi: np.ndarray, planar: bool = False) -> bool:
        """The box [lo, hi] is inside what the camera shows (x-y only for a planar model)."""
        c = self.center
        if planar:
            h = self.half
            return bool(np.all(lo[:2] >= c[:2] - h[:2] - 1e-12) and np.all(hi[:2] <= c[:2] + h[:2] + 1e-12))
        corners = np.array([[a[0], b[1], d[2]] for a in (lo, hi) for b in (lo, hi) for d in (lo, hi)])
        return bool(np.all(np.linalg.norm(corners - c, axis=1) <= self.radius + 1e-12))

    def grown(self, lo: np.ndarray, hi: np.ndarray, headroom: float = HEADROOM) -> "Fit":
        """The fit grown to hold [lo, hi] too, with ``headroom`` of the new span on each side."""
        a, b = np.minimum(self.lo, lo), np.maximum(self.hi, hi)
        pad = headroom * (b - a).max()
        return Fit(a - pad, b + pad)


def pose_fit(points: np.ndarray, min_extent: float = 0.2) -> Fit:
    """The fit of one pose's points (n, 3) (what the view always showed: the box, with room for motion)."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    d = float(np.linalg.norm(hi - lo))
    if d < min_extent:
        c = (lo + hi) / 2
        lo, hi = c - min_extent / (2 * np.sqrt(3)), c + min_extent / (2 * np.sqrt(3))
    return Fit(lo, hi)


def body_points(bv: Any) -> np.ndarray:
    """Every drawn point of a body in its frame: mesh vertices, line ends, centre of mass (n, 3)."""
    pts = [bv.mesh.vertices.reshape(-1, 3), np.asarray(bv.lines, float).reshape(-1, 3), bv.com.reshape(1, 3)]
    return np.vstack([p for p in pts if len(p)])


def reach_balls(model: Any, spec: Any) -> list[tuple[np.ndarray, float, float, float]] | None:
    """Per body, a ball (centre, radius) that holds all its points in every configuration, and the z range of its
    points in its frame (planar models); None when the bodies do not all hang from fixed ground points through a
    tree of distance-keeping joints (see the module docstring)."""
    ent = model.entities
    if ent.ground_motion or not ent.bodies:
        return None
    names = {b.name for b in ent.bodies}
    adj: dict[str, list[tuple[str, np.ndarray, np.ndarray]]] = {n: [] for n in names | {GROUND}}
    for j in ent.joints:
        ends = [b for b in (j.body1, j.body2) if b]
        if j.type not in DISTANCE_KEEPING or len(ends) != 2:
            return None  # a slider, a knife edge or a rolling contact: no bound from joint distances
        p1, p2 = _v3(j.point1), _v3(j.point2)
        adj[j.body1].append((j.body2, p1, p2))
        adj[j.body2].append((j.body1, p2, p1))
    pts = {bv.name: body_points(bv) for bv in spec.bodies}
    balls: dict[str, tuple[np.ndarray, float, float, float]] = {}
    # breadth first from the ground: (body, its joint point in its frame, ball holding that point's position)
    queue: deque[tuple[str, str, np.ndarray, np.ndarray, float]] = deque()
    for other, p_ground, p_body in adj[GROUND]:
        queue.append((other, GROUND, p_body, p_ground, 0.0))
    while queue:
        body, parent, at, center, rho = queue.popleft()
        if body in balls:
            return None  # reached twice: a closed loop (or two supports) — joint distances bound it loosely
        P = pts.get(body, np.zeros((1, 3)))
        balls[body] = (center, rho + float(np.linalg.norm(P - at, axis=1).max()), float(P[:, 2].min()),
                       float(P[:, 2].max()))
        for other, p_self, p_other in adj[body]:
            if other == parent and np.allclose(p_self, at):
                continue  # the joint it hangs from
            if other == GROUND:
                return None  # a second support: a closed loop through the ground
            queue.append((other, body, p_other, center, rho + float(np.linalg.norm(p_self - at))))
    return balls if set(balls) == names else None


def reach_fit(model: Any, spec: Any) -> Fit | None:
    """The fit holding every reachable configuration (see the module docstring), or None."""
    balls = reach_balls(model, spec)
    if balls is None:
        return None
    planar = spec.kind == "planar"
    los, his = [], []
    for c, r, z0, z1 in balls.values():
        if planar:
            los.append([c[0] - r, c[1] - r, z0])
            his.append([c[0] + r, c[1] + r, z1])
        else:
            los.append(c - r)
            his.append(c + r)
    if not spec.ground.empty:
        los.append(spec.ground.vertices.min(axis=0))
        his.append(spec.ground.vertices.max(axis=0))
    lo, hi = np.min(los, axis=0), np.max(his, axis=0)
    center = (lo + hi) / 2
    if planar:
        radius = float(np.linalg.norm(hi - lo) / 2)
    else:  # the sphere around the box's centre that holds every ball (tighter than the box's corners)
        radius = max(float(np.linalg.norm(c - center)) + r for c, r, _z0, _z1 in balls.values())
        if not spec.ground.empty:
            radius = max(radius, float(np.linalg.norm(spec.ground.vertices - center, axis=1).max()))
    return Fit(lo, hi, tight=True, sphere=radius)


def _v3(p: Any) -> np.ndarray:
    a = np.zeros(3)
    p = list(p)[:3]
    a[:len(p)] = p
    return a
