"""World-space geometry of a model for drawing and picking on the planar canvas (no Qt here), and for the
drawings exported to SVG and DXF (core.drawing; this module was gui/editor/geometry.py).

:func:`scene_geometry` turns a posed :class:`~core.model.Model` (body poses stored in ``initial``) into plain
records in global coordinates [m]: body outlines, named points, ground points, joints, forces and drivers. The
canvas draws these records and hit-tests against them, so picking never depends on graphics items (which are
rebuilt after every edit).

Spatial models are shown in a front view: the canvas plane is the global x–z plane (gravity points down the
screen), the projection of the 3D body poses.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechstudio.core.elements import element_type
from mechstudio.core.elements.base import CouplingEnds
from mechstudio.core.model import GROUND, Model
from mechstudio.core.model.timefunc import ExpressionError, time_function

Vec2 = tuple[float, float]


@dataclass
class BodyGeom:
    name: str
    color: str
    pose: tuple[float, float, float]  # frame origin x, y [m] and angle [rad] (canvas plane)
    bars: list[tuple[Vec2, Vec2, float]] = field(default_factory=list)  # from, to, width [m]
    disks: list[tuple[Vec2, float, int]] = field(default_factory=list)  # centre, radius, spokes
    polygons: list[list[Vec2]] = field(default_factory=list)
    polylines: list[list[Vec2]] = field(default_factory=list)  # open chains (geometry type polyline), global
    points: dict[str, Vec2] = field(default_factory=dict)  # named body points, global
    is_bar: bool = False  # a template bar (points a, b; the b handle resizes it)
    com: Vec2 = (0.0, 0.0)
    frame3d: Any = None  # spatial models: (r (3,), R (3, 3)) of the body frame

    def contains(self, p: Vec2, tol: float) -> bool:
        for a, b, w in self.bars:
            if dist_segment(p, a, b) <= w / 2 + tol:
                return True
        for c, r, _ in self.disks:
            if math.dist(p, c) <= r + tol:
                return True
        for poly in self.polygons:
            if _in_polygon(p, poly) or any(dist_segment(p, poly[i - 1], poly[i]) <= tol
                                           for i in range(len(poly))):
                return True
        for line in self.polylines:
            if any(dist_segment(p, line[i - 1], line[i]) <= tol for i in range(1, len(line))):
                return True
        if not (self.bars or self.disks or self.polygons or self.polylines):
            return any(math.dist(p, q) <= tol * 2 for q in list(self.points.values()) + [self.com])
        return False

    def bounds(self) -> list[Vec2]:
        pts = list(self.points.values()) + [self.com]
        for a, b, w in self.bars:
            pts += [a, b]
        for c, r, _ in self.disks:
            pts += [(c[0] - r, c[1] - r), (c[0] + r, c[1] + r)]
        for poly in self.polygons + self.polylines:
            pts += poly
        return pts


@dataclass
class JointGeom:
    name: str
    type: str
    body1: str
    body2: str
    p1: Vec2
    p2: Vec2
    axis: Vec2 | None = None  # prismatic / slot / knife edge direction, global
    symbol: str = ""  # the element type's drawing symbol (core/elements: editor.drawing)
    slot: tuple[Vec2, Vec2] | None = None  # pin in slot with a length: the slot's ends, global
    # gear pair, rack and pinion: the joints coupled, pitch circles (centre, radius), rack pitch line
    couples: tuple[str, str] | None = None
    circles: tuple[tuple[Vec2, float], ...] = ()
    rack: tuple[Vec2, Vec2] | None = None
    polylines: list[list[Vec2]] = field(default_factory=list)  # contacts: line, disk rim, cam profile, follower


@dataclass
class ForceGeom:
    name: str
    type: str
    p1: Vec2
    p2: Vec2 | None = None
    vector: Vec2 | None = None


@dataclass
class DriverGeom:
    name: str
    type: str
    at: Vec2


@dataclass
class SceneGeometry:
    kind: str
    bodies: list[BodyGeom]
    ground: dict[str, Vec2]
    joints: list[JointGeom]
    forces: list[ForceGeom]
    drivers: list[DriverGeom]

    def body(self, name: str) -> BodyGeom | None:
        for b in self.bodies:
            if b.name == name:
                return b
        return None

    def bounds(self) -> tuple[float, float, float, float]:
        pts: list[Vec2] = list(self.ground.values())
        for b in self.bodies:
            pts += b.bounds()
        if not pts:
            return (-1.0, -1.0, 4.0, 3.0)
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        return (min(xs), min(ys), max(xs), max(ys))

    def point_of(self, body: str, ref: Any) -> Vec2 | None:
        """Global position of a point reference (name or body-frame coordinates) of a body or the ground."""
        if body == GROUND:
            if isinstance(ref, list):
                if self.kind == "planar":
                    return (float(ref[0]), float(ref[1]))
                return (float(ref[0]), float(ref[2]) if len(ref) > 2 else 0.0)
            return self.ground.get(ref)
        b = self.body(body)
        if b is None:
            return None
        if isinstance(ref, str):
            return b.points.get(ref)
        if b.frame3d is not None:
            r, R = b.frame3d
            p = r + R @ np.array((list(ref) + [0.0] * 3)[:3], float)
            return (float(p[0]), float(p[2]))
        return _to_global(b.pose, (float(ref[0]), float(ref[1])))


def _rot(phi: float, v: Vec2) -> Vec2:
    c, s = math.cos(phi), math.sin(phi)
    return (c * v[0] - s * v[1], s * v[0] + c * v[1])


def _to_global(pose: tuple[float, float, float], v: Vec2) -> Vec2:
    r = _rot(pose[2], v)
    return (pose[0] + r[0], pose[1] + r[1])


def dist_segment(p: Vec2, a: Vec2, b: Vec2) -> float:
    ax, ay = b[0] - a[0], b[1] - a[1]
    L2 = ax * ax + ay * ay
    t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * ax + (p[1] - a[1]) * ay) / L2))
    return math.dist(p, (a[0] + t * ax, a[1] + t * ay))


def _in_polygon(p: Vec2, poly: list[Vec2]) -> bool:
    inside = False
    n = len(poly)
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i - 1], poly[i]
        if (y1 > p[1]) != (y2 > p[1]):
            x = x1 + (p[1] - y1) * (x2 - x1) / (y2 - y1)
            if p[0] < x:
                inside = not inside
    return inside


def quaternion_matrix(q: Any) -> np.ndarray:
    """Rotation matrix of a unit quaternion (w, x, y, z), scalar first."""
    w, x, y, z = (float(v) for v in q)
    n = math.sqrt(w * w + x * x + y * y + z * z) or 1.0
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _spatial_pose(b: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    init = b.get("initial", {})
    r = np.array([float(init.get("x", 0.0)), float(init.get("y", 0.0)), float(init.get("z", 0.0))])
    if "quaternion" in init:
        R = quaternion_matrix(init["quaternion"])
    else:  # Euler angles z-x-z: R = Rz(psi) Rx(theta) Rz(phi) (core.systems.spatial's convention)
        psi, theta, phi = (float(init.get(k, 0.0)) for k in ("psi", "theta", "phi"))
        R = _rz(psi) @ _rx(theta) @ _rz(phi)
    return r, R


def _rz(a: float) -> np.ndarray:
    return np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])


def _rx(a: float) -> np.ndarray:
    return np.array([[1.0, 0.0, 0.0], [0.0, math.cos(a), -math.sin(a)], [0.0, math.sin(a), math.cos(a)]])


def scene_geometry(model: Model, frames: dict[str, tuple[np.ndarray, np.ndarray]] | None = None) -> SceneGeometry:
    """Global geometry of ``model`` as posed (see module docstring).

    ``frames``: for spatial models, the assembled body frames (origin (3,), rotation (3, 3)) from the solver;
    without them the stored poses are used (tree bodies hang from their parents' hinge points).
    """
    data = model.data
    kind = data.get("kind", "planar")
    if kind == "spatial":
        return _spatial_geometry(data, frames)
    ground = {k: (float(v[0]), float(v[1])) for k, v in data.get("ground", {}).get("points", {}).items()}
    bodies = []
    for b in data.get("bodies", []):
        init = b.get("initial", {})
        pose = (float(init.get("x", 0.0)), float(init.get("y", 0.0)), float(init.get("phi", 0.0)))
        local = {k: (float(v[0]), float(v[1])) for k, v in b.get("points", {}).items()}

        def ref(r: Any) -> Vec2:
            if isinstance(r, str):
                return local.get(r, (0.0, 0.0))
            return (float(r[0]), float(r[1]))
        g = BodyGeom(b["name"], b.get("color", "#4a90d9"), pose,
                     points={k: _to_global(pose, v) for k, v in local.items()},
                     com=_to_global(pose, ref(b.get("com", [0.0, 0.0]))))
        for s in b.get("geometry", []):
            t = s["type"]
            if t in ("bar", "cylinder"):
                w = float(s.get("width", 2 * s.get("radius", 0.025)))
                g.bars.append((_to_global(pose, ref(s["from"])), _to_global(pose, ref(s["to"])), w))
            elif t in ("disk", "sphere"):
                g.disks.append((_to_global(pose, ref(s.get("center", [0.0, 0.0]))), float(s["radius"]),
                                int(s.get("spokes", 0 if t == "sphere" else 6))))
            elif t == "polygon":
                g.polygons.append([_to_global(pose, ref(v)) for v in s["vertices"]])
            elif t == "polyline":
                g.polylines.append([_to_global(pose, ref(v)) for v in s["points"]])
            elif t == "box":
                c = ref(s.get("center", [0.0, 0.0]))
                sx, sy = float(s["size"][0]) / 2, float(s["size"][1]) / 2
                g.polygons.append([_to_global(pose, (c[0] + dx, c[1] + dy))
                                   for dx, dy in ((-sx, -sy), (sx, -sy), (sx, sy), (-sx, sy))])
        geo = b.get("geometry", [])
        g.is_bar = (len(geo) == 1 and geo[0].get("type") == "bar" and geo[0].get("from") == "a"
                    and geo[0].get("to") == "b")
        bodies.append(g)
    sg = SceneGeometry("planar", bodies, ground, [], [], [])
    for j in data.get("joints", []):
        et = element_type(j["type"], "joints")  # an unknown type raises, naming the valid ones
        builder = JOINT_BUILDERS.get(et.editor.drawing) or (_coupling_joint if et.editor.placement == "coupling"
                                                            else None)
        if builder is None:
            raise ValueError(f"joint {j['name']!r}: no 2D drawing for symbol {et.editor.drawing!r} of type "
                             f"{et.name}; known: {', '.join(sorted(JOINT_BUILDERS))}")
        sg.joints.append(builder(sg, j, et.editor.drawing))
    joints = {jg.name: jg for jg in sg.joints}
    for jg, j in zip(sg.joints, data.get("joints", [])):  # gears: drawn from their joints, once all are built
        if jg.couples is not None:
            _gear_drawing(sg, joints, jg, j)
    for f in data.get("forces", []):
        t = element_type(f["type"], "forces").name
        if t == "spring_damper":
            sg.forces.append(ForceGeom(f["name"], t, sg.point_of(f["body1"], f["point1"]) or (0, 0),
                                       sg.point_of(f["body2"], f["point2"]) or (0, 0)))
        elif t == "rotational_spring_damper" and f["joint"] in joints:
            sg.forces.append(ForceGeom(f["name"], t, joints[f["joint"]].p2))
        elif t == "applied_force":
            b = sg.body(f["body"])
            p = sg.point_of(f["body"], f.get("point", [0.0, 0.0])) or (b.com if b else (0.0, 0.0))
            comps = [c if isinstance(c, (int, float)) else 1.0 for c in f["force"][:2]]
            sg.forces.append(ForceGeom(f["name"], t, p, vector=(float(comps[0]), float(comps[1]))))
        elif t == "applied_torque":
            b = sg.body(f["body"])
            sg.forces.append(ForceGeom(f["name"], t, b.com if b else (0.0, 0.0)))
        elif t == "contact_pair":  # marked at the moving body's centre of mass (body2's, body1's on the ground)
            b = sg.body(f["body2"]) or sg.body(f["body1"])
            sg.forces.append(ForceGeom(f["name"], t, b.com if b else (0.0, 0.0)))
    for d in data.get("drivers", []):
        if element_type(d["type"], "drivers").name == "coordinate":
            b = sg.body(d["body"])
            at = b.com if b else (0.0, 0.0)
        else:
            at = joints[d["joint"]].p2 if d["joint"] in joints else (0.0, 0.0)
        sg.drivers.append(DriverGeom(d["name"], d["type"], at))
    return sg


def _angle_of(sg: SceneGeometry, body: str) -> float:
    b = sg.body(body)
    return 0.0 if body == GROUND or b is None else b.pose[2]


def _single_body_joint(sg: SceneGeometry, j: dict[str, Any], symbol: str) -> JointGeom:
    """Knife edge, rolling disk: at the body's point (or centre of mass), blade axis rotated with the body."""
    b = sg.body(j["body"])
    p = sg.point_of(j["body"], j.get("point", [0.0, 0.0])) or (b.com if b else (0.0, 0.0))
    axis = None
    if "axis" in j and b is not None:
        axis = _rot(b.pose[2], (float(j["axis"][0]), float(j["axis"][1])))
    return JointGeom(j["name"], j["type"], GROUND, j["body"], p, p, axis, symbol)


def _two_body_joint(sg: SceneGeometry, j: dict[str, Any], symbol: str) -> JointGeom:
    """Revolute, weld, spherical, prismatic: both attachment points; a slider's axis in global axes."""
    p1 = sg.point_of(j["body1"], j["point1"]) or (0.0, 0.0)
    p2 = sg.point_of(j["body2"], j["point2"]) or p1
    axis = None
    if "axis" in j:
        axis = _rot(_angle_of(sg, j["body1"]), (float(j["axis"][0]), float(j["axis"][1])))
    return JointGeom(j["name"], j["type"], j["body1"], j["body2"], p1, p2, axis, symbol)


def _slot_outline(a: Vec2, b: Vec2, width: float, n: int = 8) -> list[Vec2]:
    """A slot's outline (two straight sides and round ends of diameter ``width``) from end centre a to b."""
    ux, uy = b[0] - a[0], b[1] - a[1]
    base = math.atan2(uy, ux)
    r = width / 2
    out: list[Vec2] = []
    for centre, start in ((b, base - math.pi / 2), (a, base + math.pi / 2)):
        out += [(centre[0] + r * math.cos(start + math.pi * k / n), centre[1] + r * math.sin(start + math.pi * k / n))
                for k in range(n + 1)]
    return out


def _slot_joint(sg: SceneGeometry, j: dict[str, Any], symbol: str) -> JointGeom:
    """Pin in slot: the pin at point2; the slot through point1 along the (unit, global) axis, its ends when a
    length is given -- also drawn as an outlined slot on the slotted body (a ground slot has no body outline:
    its JointGeom.slot is all the canvas gets)."""
    jg = _two_body_joint(sg, j, symbol)
    n = math.hypot(*jg.axis) or 1.0
    jg.axis = (jg.axis[0] / n, jg.axis[1] / n)
    if "length" in j:
        h = float(j["length"]) / 2
        jg.slot = ((jg.p1[0] - h * jg.axis[0], jg.p1[1] - h * jg.axis[1]),
                   (jg.p1[0] + h * jg.axis[0], jg.p1[1] + h * jg.axis[1]))
        body = sg.body(j["body1"])
        if body is not None:
            body.polygons.append(_slot_outline(jg.slot[0], jg.slot[1], SLOT_WIDTH))
    return jg


def _coupling_joint(sg: SceneGeometry, j: dict[str, Any], symbol: str) -> JointGeom:
    """Gear pair, rack and pinion: a record naming the two joints; :func:`_gear_drawing` fills it in."""
    return JointGeom(j["name"], j["type"], GROUND, GROUND, (0.0, 0.0), (0.0, 0.0), None, symbol,
                     couples=(str(j.get("joint1", "")), str(j.get("joint2", ""))))


def _gear_drawing(sg: SceneGeometry, joints: dict[str, JointGeom], jg: JointGeom, j: dict[str, Any]) -> None:
    """An element that couples two joints (gear pair, rack and pinion, belt drive ...): the ends from its two
    joints where the carrier holds them (p1: the first mounted body's centre), the rest from its element type's
    sketch (:meth:`~core.elements.base.ElementType.coupling_sketch`: pitch circles, rack line, belt spans, the
    pitch point p2). Nothing when the joints are missing or share no single carrier."""
    g1, g2 = joints.get(jg.couples[0]), joints.get(jg.couples[1])
    if g1 is None or g2 is None:
        return
    common = {g1.body1, g1.body2} & {g2.body1, g2.body2}
    if len(common) != 1:
        return
    carrier = common.pop()

    def mounted(g: JointGeom) -> tuple[str, Vec2, Vec2]:  # (body, its joint point, the carrier's point)
        return (g.body2, g.p2, g.p1) if g.body1 == carrier else (g.body1, g.p1, g.p2)
    (b1, p1, c1), (b2, p2, c2) = mounted(g1), mounted(g2)  # centres: where the carrier holds them
    jg.body1, jg.body2, jg.p1 = b1, b2, c1
    sketch = element_type(jg.type, "joints").coupling_sketch(j, CouplingEnds(carrier, b1, b2, p1, p2, c1, c2,
                                                                               g2.axis))
    if sketch is None:
        return
    jg.p2, jg.circles, jg.rack = sketch.p2, sketch.circles, sketch.rack
    if sketch.axis is not None:
        jg.axis = sketch.axis
    jg.polylines = [list(line) for line in sketch.polylines]
# contact: planar rolling disk ("rolling") and cam and follower ("cam")
def _circle(c: Vec2, r: float, n: int = 48) -> list[Vec2]:
    return [(c[0] + r * math.cos(2 * math.pi * k / n), c[1] + r * math.sin(2 * math.pi * k / n)) for k in range(n + 1)]


def _along(p: Vec2, axis: Vec2, half: float) -> list[Vec2]:
    n = math.hypot(*axis) or 1.0
    return [(p[0] - half * axis[0] / n, p[1] - half * axis[1] / n), (p[0] + half * axis[0] / n, p[1] + half * axis[1] / n)]


ROLLING_LINE_HALF = 1.5  # [m] the drawn rolling line reaches at least this far each way from its point


def _rolling_joint(sg: SceneGeometry, j: dict[str, Any], symbol: str) -> JointGeom:
    """Planar rolling disk: the line through point1 along the (global) axis, ROLLING_LINE_HALF or 8 radii each
    way, and the disk's rim about its centre point2."""
    jg = _two_body_joint(sg, j, symbol)
    r = float(j["radius"])
    jg.polylines = [_along(jg.p1, jg.axis or (1.0, 0.0), max(8 * r, ROLLING_LINE_HALF, math.dist(jg.p1, jg.p2) + 2 * r)),
                    _circle(jg.p2, r)]
    return jg


def _cam_joint(sg: SceneGeometry, j: dict[str, Any], symbol: str) -> JointGeom:
    """Cam and follower: the profile r(theta) about point1 turned with the cam, and the follower at point2 (the
    flat face along the global axis, 2.5 max r long, or the roller's circle); a profile that cannot be evaluated
    is drawn as nothing (the model check reports it)."""
    jg = _two_body_joint(sg, j, symbol)
    try:
        profile = time_function(j["profile"])
        theta = [2 * math.pi * k / 180 for k in range(181)]
        radii = [profile.value(t) for t in theta]
    except (ExpressionError, ValueError, TypeError, KeyError, ZeroDivisionError, OverflowError):
        return jg
    a = _angle_of(sg, j["body1"])
    jg.polylines = [[(jg.p1[0] + r * math.cos(t + a), jg.p1[1] + r * math.sin(t + a)) for t, r in zip(theta, radii)]]
    if j.get("follower") == "roller":
        jg.polylines.append(_circle(jg.p2, float(j.get("radius", 0.0))))
    else:
        jg.polylines.append(_along(jg.p2, jg.axis or (1.0, 0.0), 1.25 * max(radii)))
    return jg


SLOT_WIDTH = 0.04  # [m] drawn width of a slot
#: drawing symbol of an element type (core/elements: editor.drawing) -> builder of its JointGeom record
JOINT_BUILDERS = {"pin": _two_body_joint, "weld": _two_body_joint, "ball": _two_body_joint,
                  "slider": _two_body_joint, "slot": _slot_joint, "blade": _single_body_joint,
                  "disk": _single_body_joint}
JOINT_BUILDERS.update({"gears": _coupling_joint, "rack": _coupling_joint})
JOINT_BUILDERS.update({"rolling": _rolling_joint, "cam": _cam_joint})  # contact


def _spatial_geometry(data: dict[str, Any], solved: dict[str, Any] | None = None) -> SceneGeometry:
    def xz(v: np.ndarray) -> Vec2:
        return (float(v[0]), float(v[2]))

    ground = {k: xz(np.array(list(v) + [0.0] * (3 - len(v)), float))
              for k, v in data.get("ground", {}).get("points", {}).items()}
    bodies, frames = [], {}
    by_name = {b["name"]: b for b in data.get("bodies", [])}
    ground3 = {k: np.array((list(v) + [0.0] * 3)[:3], float) for k, v in data.get("ground", {}).get("points", {}).items()}

    def local_point(body: dict[str, Any], ref: Any) -> np.ndarray:
        if isinstance(ref, str):
            return np.array((list(body.get("points", {}).get(ref, [0.0, 0.0, 0.0])) + [0.0] * 3)[:3], float)
        return np.array((list(ref) + [0.0] * 3)[:3], float)

    for b in data.get("bodies", []):
        frames[b["name"]] = _spatial_pose(b)
    # bodies of a spherical tree without a stored position hang from their parent's hinge point
    placed = {n for n, b in by_name.items() if any(k in b.get("initial", {}) for k in ("x", "y", "z"))}
    for _ in range(len(by_name)):
        changed = False
        for j in data.get("joints", []):
            if j.get("type") != "spherical" or j["body2"] in placed or j["body2"] not in by_name:
                continue
            parent = j["body1"]
            if parent == "ground":
                hinge = ground3.get(j["point1"]) if isinstance(j["point1"], str) else local_point({}, j["point1"])
            elif parent in placed:
                r_p, R_p = frames[parent]
                hinge = r_p + R_p @ local_point(by_name[parent], j["point1"])
            else:
                continue
            if hinge is None:
                continue
            _, R_c = frames[j["body2"]]
            frames[j["body2"]] = (hinge - R_c @ local_point(by_name[j["body2"]], j["point2"]), R_c)
            placed.add(j["body2"])
            changed = True
        if not changed:
            break
    if solved:
        frames.update({k: v for k, v in solved.items() if k in frames})
    for b in data.get("bodies", []):
        r, R = frames[b["name"]]
        local = {k: np.array(list(v) + [0.0] * (3 - len(v)), float) for k, v in b.get("points", {}).items()}

        def glob(v: Any, r: np.ndarray = r, R: np.ndarray = R, local: dict = local) -> np.ndarray:
            vec = local[v] if isinstance(v, str) and v in local else np.array(
                (list(v) + [0.0] * 3)[:3] if isinstance(v, list) else [0.0, 0.0, 0.0], float)
            return r + R @ vec
        com = glob(b.get("com", [0.0, 0.0, 0.0]))
        g = BodyGeom(b["name"], b.get("color", "#4a90d9"), (float(r[0]), float(r[2]), 0.0),
                     points={k: xz(glob(k)) for k in local}, com=xz(com), frame3d=(r, R))
        for s in b.get("geometry", []):
            t = s["type"]
            if t in ("bar", "cylinder"):
                w = float(s.get("width", 2 * s.get("radius", 0.02)))
                g.bars.append((xz(glob(s["from"])), xz(glob(s["to"])), w))
            elif t == "sphere":
                g.disks.append((xz(glob(s.get("center", [0.0, 0.0, 0.0]))), float(s["radius"]), 0))
            elif t == "disk":  # a circle in the body's x-y plane, projected: an ellipse in general
                c = s.get("center", [0.0, 0.0, 0.0])
                c = local[c] if isinstance(c, str) and c in local else np.array((list(c) + [0.0] * 3)[:3], float)
                rad = float(s["radius"])
                ring = [xz(r + R @ (c + rad * np.array([math.cos(a), math.sin(a), 0.0])))
                        for a in np.linspace(0.0, 2 * math.pi, 48, endpoint=False)]
                g.polygons.append(ring)
                n = int(s.get("spokes", 6))
                for k in range(n):
                    a = 2 * math.pi * k / n
                    g.bars.append((xz(r + R @ c), xz(r + R @ (c + rad * np.array([math.cos(a), math.sin(a), 0.0]))),
                                   0.003))
            elif t == "box":
                c = glob(s.get("center", [0.0, 0.0, 0.0]))
                size = list(s["size"]) + [0.0] * 3
                corners = [c + R @ (np.array([sx * size[0], sy * size[1], sz * size[2]]) / 2)
                           for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
                pts = [xz(p) for p in corners]
                xs, zs = [p[0] for p in pts], [p[1] for p in pts]
                g.polygons.append([(min(xs), min(zs)), (max(xs), min(zs)), (max(xs), max(zs)), (min(xs), max(zs))])
        if not (g.bars or g.disks or g.polygons) and len(g.points) >= 2:  # no drawing geometry: a stick figure
            pts = list(g.points.values())
            for a, c in zip(pts, pts[1:]):
                g.bars.append((a, c, 0.04))
        bodies.append(g)
    sg = SceneGeometry("spatial", bodies, ground, [], [], [])
    for j in data.get("joints", []):
        symbol = element_type(j["type"], "joints").editor.drawing
        if "body1" in j:
            p1 = sg.point_of(j["body1"], j["point1"]) or (0.0, 0.0)
            p2 = sg.point_of(j["body2"], j["point2"]) or p1
            sg.joints.append(JointGeom(j["name"], j["type"], j["body1"], j["body2"], p1, p2, symbol=symbol))
        else:
            b = sg.body(j["body"])
            p = b.com if b else (0.0, 0.0)
            sg.joints.append(JointGeom(j["name"], j["type"], GROUND, j["body"], p, p, symbol=symbol))
    return sg
