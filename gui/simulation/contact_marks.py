"""Where a run's contacts touch at one frame, and the contact force there: what the canvas draws (no Qt here).

For every contact element that can let go (``mechstudio.core.contact.contact_set``: contact pairs, unilateral or
frictional cams and rolling disks) :func:`contact_marks` returns a :class:`ContactMark` at the configuration q
with the frame's contact columns (``contact.<name>.state`` / ``.normal`` / ``.friction``, a pair's ``.Fx`` /
``.Fy`` / ``.Mz``, docs/results-csv.md) and reactions:

* a **contact pair**: its closed points are the candidate points (``ContactSet.nearest``, the rows the engine
  uses) whose gap is at most :data:`TOUCH_GAP`; the contact point is that point's ``RowValues.point``, and with
  several closed points (a block resting on two corners, a bar on both ends) the centre of pressure, the point of
  the segment between them through which the resultant (Fx, Fy) passes with moment Mz about the reporting body's
  centre of mass (clamped to the segment); the force is (Fx, Fy), split into its normal part along the contact
  normal and the friction part across it;
* a **rolling disk**: the point of its rim nearest the line (the disk's centre minus r times the line's normal
  toward the disk); a **cam**: the roller's (or the flat face's) point nearest the drawn profile; the force is the
  element's reaction (Fx, Fy) on the follower or disk, split the same way.

The force is the one acting on the moving body the engine reports it on (body2 of a pair, body1 when body2 is the
ground; the disk; the follower): an arrow that pushes the body away from the contact.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from mechstudio.core.contact.contacts import ContactModelError, ContactSet, contact_set
from mechstudio.core.drawing.scene import SceneGeometry

TOUCH_GAP = 1e-6  # [m] a pair's candidate point this close counts as touching (closed points sit at gap ~1e-9)
STATE_OPEN = 0


@dataclass(frozen=True)
class ContactMark:
    """One contact element at one frame: ``points`` the touching points [m] (empty: open), ``at`` the point the
    force arrow starts from [m], ``normal`` the unit normal (pointing into the body the force acts on), ``force``
    (Fx, Fy) [N] on that body, ``normal_force`` its part along ``normal`` (a vector [N]) and ``friction`` the rest
    (a vector [N]), ``state`` the contact state column (0 open, 1 stick, 2 slip, 3 closed)."""
    name: str
    state: int
    points: tuple[tuple[float, float], ...]
    at: tuple[float, float] | None
    normal: tuple[float, float]
    force: tuple[float, float]
    normal_force: tuple[float, float]
    friction: tuple[float, float]


_SETS: dict[int, tuple[Any, ContactSet | None]] = {}


def cached_contact_set(system: Any) -> ContactSet | None:
    """:func:`contact_set` of ``system``, built once per system (None: no contacts, or they cannot be set up)."""
    key = id(system)
    hit = _SETS.get(key)
    if hit is not None and hit[0] is system:
        return hit[1]
    try:
        cset = contact_set(system)
    except (ContactModelError, ValueError, KeyError, AttributeError):
        cset = None
    if len(_SETS) > 8:
        _SETS.clear()
    _SETS[key] = (system, cset)
    return cset


def _split(force: Sequence[float], n: Sequence[float]) -> tuple[tuple[float, float], tuple[float, float]]:
    fn = force[0] * n[0] + force[1] * n[1]
    nf = (fn * n[0], fn * n[1])
    return nf, (force[0] - nf[0], force[1] - nf[1])


def _cross(a: Sequence[float], b: Sequence[float]) -> float:
    return a[0] * b[1] - a[1] * b[0]


def centre_of_pressure(points: list[tuple[float, float]], force: Sequence[float], moment: float,
                       com: Sequence[float]) -> tuple[float, float]:
    """The point of the segment between the first and the last of ``points`` through which ``force`` (Fx, Fy)
    [N] has the moment ``moment`` [N m] about ``com`` (clamped to the segment; its middle when the force runs along
    it or vanishes)."""
    if len(points) == 1:
        return points[0]
    p0, p1 = np.asarray(points[0], float), np.asarray(points[-1], float)
    d = p1 - p0
    den = _cross(d, force)
    if abs(den) <= 1e-12 * max(float(np.hypot(*d)) * float(np.hypot(*force)), 1e-300):
        m = (p0 + p1) / 2
        return (float(m[0]), float(m[1]))
    s = (moment - _cross(p0 - np.asarray(com, float), force)) / den
    s = min(max(s, 0.0), 1.0)
    p = p0 + s * d
    return (float(p[0]), float(p[1]))


def _pair_mark(cset: ContactSet, gi: int, q: np.ndarray, values: dict[str, float], state: int) -> ContactMark:
    g = cset.groups[gi]
    name = g.name
    force = (values.get(f"contact.{name}.Fx", 0.0), values.get(f"contact.{name}.Fy", 0.0))
    moment = values.get(f"contact.{name}.Mz", 0.0)
    zero = np.zeros_like(q)
    site_body, _sign = g.site
    touching: list[tuple[tuple[float, float], tuple[float, float]]] = []
    for k in g.points:
        gap, row = cset.nearest(k, q)
        if row is None or gap > TOUCH_GAP:
            continue
        p = cset.points[k]
        rv = row.values(cset.body_state(p.body_a, q, zero), cset.body_state(p.body_b, q, zero))
        n = (float(rv.normal[0]), float(rv.normal[1]))  # from body_b to body_a
        if p.body_a != site_body:  # into the body the force acts on
            n = (-n[0], -n[1])
        touching.append(((float(rv.point[0]), float(rv.point[1])), n))
    if state == STATE_OPEN or not touching:
        return ContactMark(name, state, (), None, (0.0, 1.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0))
    points = [pt for pt, _n in touching]
    if len(points) > 1:  # along the line of the touching points
        order = np.argsort([np.dot(np.subtract(pt, points[0]), np.subtract(points[-1], points[0])) for pt in points])
        points = [points[i] for i in order]
    com = q[3 * site_body:3 * site_body + 2] if site_body >= 0 else np.zeros(2)
    at = centre_of_pressure(points, force, moment, com)
    n = tuple(np.mean([nn for _p, nn in touching], axis=0))
    length = math.hypot(*n) or 1.0
    n = (n[0] / length, n[1] / length)
    nf, ft = _split(force, n)
    return ContactMark(name, state, tuple(points), at, n, force, nf, ft)


def _nearest_on_polyline(p: Sequence[float], line: Sequence[Sequence[float]]) -> tuple[float, float]:
    best, best_d = (float(line[0][0]), float(line[0][1])), math.inf
    for a, b in zip(line[:-1], line[1:]):
        ax, ay, bx, by = float(a[0]), float(a[1]), float(b[0]), float(b[1])
        dx, dy = bx - ax, by - ay
        L2 = dx * dx + dy * dy
        s = 0.0 if L2 == 0 else min(max(((p[0] - ax) * dx + (p[1] - ay) * dy) / L2, 0.0), 1.0)
        c = (ax + s * dx, ay + s * dy)
        d = math.dist(p, c)
        if d < best_d:
            best, best_d = c, d
    return best


def _row_geometry(sg: SceneGeometry, name: str, item: dict[str, Any]) -> tuple[tuple[float, float],
                                                                                 tuple[float, float]] | None:
    """(contact point, unit normal into the disk or follower) of a rolling disk or cam at the posed scene."""
    jg = next((j for j in sg.joints if j.name == name), None)
    if jg is None:
        return None
    if item.get("type") == "planar_rolling_disk":
        u = jg.axis or (1.0, 0.0)
        L = math.hypot(*u) or 1.0
        u = (u[0] / L, u[1] / L)
        rel = (jg.p2[0] - jg.p1[0], jg.p2[1] - jg.p1[1])
        side = 1.0 if _cross(u, rel) >= 0 else -1.0
        n = (-u[1] * side, u[0] * side)
        r = float(item.get("radius", 0.0))
        return (jg.p2[0] - r * n[0], jg.p2[1] - r * n[1]), n
    if not jg.polylines:
        return None
    profile = jg.polylines[0]
    if item.get("follower") == "roller":
        c = _nearest_on_polyline(jg.p2, profile)
        d = (jg.p2[0] - c[0], jg.p2[1] - c[1])
        L = math.hypot(*d) or 1.0
        n = (d[0] / L, d[1] / L)
        rho = float(item.get("radius", 0.0))
        return (jg.p2[0] - rho * n[0], jg.p2[1] - rho * n[1]), n
    u = jg.axis or (1.0, 0.0)
    L = math.hypot(*u) or 1.0
    u = (u[0] / L, u[1] / L)
    n = (-u[1], u[0])
    toward = (jg.p2[0] - jg.p1[0]) * n[0] + (jg.p2[1] - jg.p1[1]) * n[1]
    if toward < 0:
        n = (-n[0], -n[1])
    # the profile's point farthest toward the face: the flat face touches it
    c = max(profile, key=lambda v: v[0] * n[0] + v[1] * n[1])
    return (float(c[0]), float(c[1])), n


def contact_marks(system: Any, q: Any, values: dict[str, float], reactions: dict[str, tuple[float, float]],
                  scene: SceneGeometry | None) -> list[ContactMark]:
    """The marks of every contact element of ``system`` at q (n,) (module docstring). ``values``: the frame's
    contact columns by name; ``reactions``: (Fx, Fy) [N] of each constraint by name (the cams' and disks'
    reported reactions); ``scene``: the posed scene at q (for cams and rolling disks)."""
    cset = cached_contact_set(system)
    if cset is None:
        return []
    q = np.asarray(q, float)
    items = {j["name"]: j for j in system.model.data.get("joints", [])}
    out = []
    for gi, g in enumerate(cset.groups):
        state = int(round(values.get(f"contact.{g.name}.state", STATE_OPEN)))
        if g.kind == "pair":
            out.append(_pair_mark(cset, gi, q, values, state))
            continue
        geo = _row_geometry(scene, g.name, items.get(g.name, {})) if scene is not None else None
        if state == STATE_OPEN or geo is None:
            out.append(ContactMark(g.name, state, (), None, (0.0, 1.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)))
            continue
        point, n = geo
        normal = values.get(f"contact.{g.name}.normal", 0.0)
        force = reactions.get(g.name, (n[0] * normal, n[1] * normal))
        if force[0] * n[0] + force[1] * n[1] < 0 and normal > 0:  # reported on the other body: the follower's is -R
            force = (-force[0], -force[1])
        item = items.get(g.name, {})
        size = math.hypot(*force)
        if not g.frictional and size > 0 and item.get("type") == "cam_follower" and item.get("follower") != "roller":
            # a frictionless flat face: the force is along the face's normal, and it touches the profile's point
            # farthest that way
            n = (force[0] / size, force[1] / size)
            jg = next(j for j in scene.joints if j.name == g.name)
            c = max(jg.polylines[0], key=lambda v: v[0] * n[0] + v[1] * n[1])
            point = (float(c[0]), float(c[1]))
        nf, ft = _split(force, n)
        out.append(ContactMark(g.name, state, (point,), point, n, (float(force[0]), float(force[1])), nf, ft))
    return out


__all__ = ["ContactMark", "TOUCH_GAP", "cached_contact_set", "centre_of_pressure", "contact_marks"]
