"""Scene geometry of a model for the 3D view, in plain numpy (no Qt, no OpenGL).

:func:`build_scene` turns a :class:`~core.model.Model` into body-frame triangle meshes (with per-face colours)
and line segments (disk spokes and rims, outlines), plus the joint markers, springs, ground points, the moving
ground plane and the gravity direction. :class:`Poser` maps coordinates q of a compiled system to each body's
frame pose (origin (3,), rotation (3, 3)) for the three system kinds (planar, spatial rigid bodies with rolling
disks, spherical trees), so the view only sets one transform per body per frame.

All lengths in m. Planar models live in the plane z = 0 (body z axis out of the plane).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechstudio.core.elements import element_type
from mechstudio.core.elements.spatial_joint import SpatialJointType
from mechstudio.core.model.document import GROUND, Model

FloatArray = np.ndarray

JOINT_COLOR = (0.20, 0.20, 0.22, 1.0)
GROUND_COLOR = (0.45, 0.45, 0.48, 1.0)


def hex_rgba(color: str, alpha: float = 1.0) -> tuple[float, float, float, float]:
    """'#rrggbb' -> (r, g, b, a) in [0, 1]."""
    c = (color or "#888888").lstrip("#")
    try:
        return (int(c[0:2], 16) / 255.0, int(c[2:4], 16) / 255.0, int(c[4:6], 16) / 255.0, alpha)
    except (ValueError, IndexError):
        return (0.55, 0.55, 0.55, alpha)


def darker(rgba: tuple[float, ...], f: float = 0.55) -> tuple[float, float, float, float]:
    return (rgba[0] * f, rgba[1] * f, rgba[2] * f, 1.0)


def _v3(p: Any) -> FloatArray:
    a = np.zeros(3)
    p = list(p)[:3]
    a[:len(p)] = p
    return a


def _frame_along(d: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Unit axis e along d and two unit vectors u, w orthogonal to it."""
    n = np.linalg.norm(d)
    e = d / n if n > 1e-12 else np.array([0.0, 0.0, 1.0])
    a = np.array([1.0, 0.0, 0.0]) if abs(e[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = np.cross(e, a)
    u /= np.linalg.norm(u)
    return e, u, np.cross(e, u)


# ---- meshes ----------------------------------------------------------------------------------------------
@dataclass
class Mesh:
    """Triangles: vertices (n, 3), faces (m, 3) int, face colours (m, 4)."""
    vertices: FloatArray = field(default_factory=lambda: np.zeros((0, 3)))
    faces: FloatArray = field(default_factory=lambda: np.zeros((0, 3), int))
    colors: FloatArray = field(default_factory=lambda: np.zeros((0, 4)))

    def add(self, v: FloatArray, f: FloatArray, rgba: tuple[float, ...]) -> None:
        off = len(self.vertices)
        self.vertices = np.vstack((self.vertices, v))
        self.faces = np.vstack((self.faces, np.asarray(f, int) + off))
        self.colors = np.vstack((self.colors, np.tile(np.asarray(rgba, float), (len(f), 1))))

    @property
    def empty(self) -> bool:
        return len(self.faces) == 0


def cylinder_mesh(p0: FloatArray, p1: FloatArray, r: float, n: int = 20) -> tuple[FloatArray, FloatArray]:
    """Closed cylinder of radius r from p0 to p1."""
    e, u, w = _frame_along(p1 - p0)
    ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ring = np.cos(ang)[:, None] * u + np.sin(ang)[:, None] * w
    v = np.vstack((p0 + r * ring, p1 + r * ring, p0, p1))
    c0, c1 = 2 * n, 2 * n + 1
    f = []
    for i in range(n):
        j = (i + 1) % n
        f += [(i, j, n + i), (j, n + j, n + i), (c0, j, i), (c1, n + i, n + j)]
    return v, np.array(f)


def sphere_mesh(c: FloatArray, r: float, rows: int = 10, cols: int = 18) -> tuple[FloatArray, FloatArray]:
    th = np.linspace(0, np.pi, rows + 1)
    ph = np.linspace(0, 2 * np.pi, cols, endpoint=False)
    v = np.array([[np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)] for t in th for p in ph]) * r + c
    f = []
    for i in range(rows):
        for j in range(cols):
            a, b = i * cols + j, i * cols + (j + 1) % cols
            f += [(a, b, a + cols), (b, b + cols, a + cols)]
    return v, np.array(f)


def box_mesh(center: FloatArray, size: FloatArray, R: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    h = np.asarray(size, float) / 2
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float) * h
    if R is not None:
        corners = corners @ R.T
    v = corners + center
    f = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1), (2, 3, 7), (2, 7, 6),
         (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
    return v, np.array(f)


def prism_mesh(poly: FloatArray, z0: float, z1: float) -> tuple[FloatArray, FloatArray]:
    """Extruded planar polygon (fan-triangulated caps: fine for the convex-ish shapes of models)."""
    n = len(poly)
    bot = np.column_stack((poly, np.full(n, z0)))
    top = np.column_stack((poly, np.full(n, z1)))
    v = np.vstack((bot, top))
    f = []
    for i in range(1, n - 1):
        f += [(0, i + 1, i), (n, n + i, n + i + 1)]
    for i in range(n):
        j = (i + 1) % n
        f += [(i, j, n + i), (j, n + j, n + i)]
    return v, np.array(f)


# ---- the scene -------------------------------------------------------------------------------------------
@dataclass
class BodyVisual:
    name: str
    color: tuple[float, float, float, float]
    mesh: Mesh
    lines: FloatArray  # (k, 2, 3) segments in the body frame (spokes, rims, outlines)
    com: FloatArray  # (3,) centre of mass in the body frame


@dataclass
class SceneSpec:
    kind: str  # planar | spatial
    bodies: list[BodyVisual]
    ground: Mesh  # fixed markers in the world frame
    ground_lines: FloatArray
    springs: list[tuple[str, FloatArray, str, FloatArray]]  # (body1, local point, body2, local point)
    joint_points: dict[str, tuple[str, FloatArray]]  # constraint name -> (body, local point) where it acts
    disk_contacts: dict[str, tuple[str, float]]  # rolling-disk constraint -> (body, radius)
    plane: bool  # draw the (possibly moving) ground plane z = 0
    gravity: FloatArray
    extent: float  # rough size of the mechanism [m]
    center: FloatArray
    axes: list["JointAxis"] = field(default_factory=list)  # the spatial joints' axes (joint_axes)


#: colour of each spatial joint type's axis lines (RGBA in [0, 1]); a universal joint's two cross axes share it
AXIS_COLORS = {"hinge": (0.80, 0.05, 0.30, 1.0), "slider": (0.10, 0.45, 0.90, 1.0),
               "cylindrical": (0.05, 0.60, 0.50, 1.0), "universal": (0.65, 0.20, 0.75, 1.0),
               "fixed_joint": (0.40, 0.40, 0.45, 1.0)}
AXIS_LENGTH = 0.18  # an axis arrow's length, times the mechanism's extent
SLIDE_LENGTH = 0.2  # half the sliding line of a slider or cylindrical joint, times the extent


@dataclass
class JointAxis:
    """The axis lines of one spatial joint on one body: segments (k, 2, 3) in that body's frame (the ground's:
    world), drawn in ``color`` and moved with the body."""
    joint: str
    type: str
    body: str
    segments: FloatArray
    color: tuple[float, float, float, float]


def arrow(p: FloatArray, a: FloatArray, back: float, forward: float) -> FloatArray:
    """Segments (3, 2, 3) of an arrow along direction ``a`` through point ``p``: the shaft from p - back a to
    p + forward a and a two-stroke head at the tip [m]."""
    e, u, _w = _frame_along(np.asarray(a, float))
    tip = p + forward * e
    head = 0.22 * max(forward, back)
    return np.array([[p - back * e, tip], [tip, tip - head * e + 0.4 * head * u],
                     [tip, tip - head * e - 0.4 * head * u]])


def joint_axes(j: Any, extent: float) -> list[JointAxis]:
    """The axis lines of spatial joint ``j`` (docs/spatial-joints.md, "In the editor"): a hinge's, a fixed
    joint's axis as an arrow through point1 along axis1 (on body1); a slider's and a cylindrical joint's sliding
    line through point1 along axis1; a universal joint's two cross axes, axis1 through point1 on body1 and axis2
    through point2 on body2. Other joints: none."""
    et = element_type(j.type, "joints")
    if not isinstance(et, SpatialJointType) or not j.point1:
        return []
    color = AXIS_COLORS.get(j.type, (0.3, 0.3, 0.3, 1.0))
    L = AXIS_LENGTH * extent
    p1 = _v3(j.point1)
    if j.type in ("slider", "cylindrical"):
        S = SLIDE_LENGTH * extent
        return [JointAxis(j.name, j.type, j.body1, arrow(p1, _v3(j.axis1), S, S), color)]
    if j.type == "universal":
        out = [JointAxis(j.name, j.type, j.body1, arrow(p1, _v3(j.axis1), 0.7 * L, 0.7 * L), color)]
        if j.point2:
            out.append(JointAxis(j.name, j.type, j.body2, arrow(_v3(j.point2), _v3(j.axis2), 0.7 * L, 0.7 * L),
                                 color))
        return out
    return [JointAxis(j.name, j.type, j.body1, arrow(p1, _v3(j.axis1), 0.5 * L, L), color)]


def _thickness(kind: str, scale: float) -> float:
    return 0.04 * scale if kind == "planar" else 0.02 * scale


# ---- joint markers, by drawing symbol (core/elements: editor.drawing) ------------------------------------------
Marker = tuple[FloatArray, FloatArray]


def _pin_marker(j: Any, end: int, body: str, p: FloatArray, kind: str, jr: float, extent: float) -> Marker:
    """Revolute (planar: an axle along z) and spherical (a ball) joints, at both ends."""
    if kind == "planar":
        return cylinder_mesh(p - [0, 0, 0.06 * extent], p + [0, 0, 0.06 * extent], jr)
    return sphere_mesh(p, 1.4 * jr, 8, 12)


def _dot_marker(j: Any, end: int, body: str, p: FloatArray, kind: str, jr: float, extent: float) -> Marker:
    """Welds, knife edges: a small sphere at the attachment point."""
    return sphere_mesh(p, jr, 6, 10)


def _slider_marker(j: Any, end: int, body: str, p: FloatArray, kind: str, jr: float, extent: float) -> Marker:
    """Prismatic joint: a rail along the axis on the ground, a small sphere on a moving body."""
    if body == GROUND and j.axis:
        a = _v3(j.axis)
        a /= max(np.linalg.norm(a), 1e-12)
        return cylinder_mesh(p - a * 0.6 * extent, p + a * 0.6 * extent, 0.4 * jr)
    return sphere_mesh(p, jr, 6, 10)


def _slot_marker(j: Any, end: int, body: str, p: FloatArray, kind: str, jr: float, extent: float) -> Marker:
    """Pin in slot: on body 1 (or the ground) a flat slot bar along the axis (body 1's frame) of the given
    length (else 1.2 extent), centred on point1; on body 2 the pin, an axle along z."""
    if end == 1:
        return cylinder_mesh(p - [0, 0, 0.08 * extent], p + [0, 0, 0.08 * extent], 0.8 * jr)
    a = _v3(j.axis)
    a /= max(np.linalg.norm(a), 1e-12)
    length = j.length or 1.2 * extent
    ang = float(np.arctan2(a[1], a[0]))
    return box_mesh(p, np.array([length, 2.2 * jr, 0.5 * jr]), rot_z(ang))


def ring_mesh(c: FloatArray, r: float, width: float, height: float, n: int = 48) -> Marker:
    """A flat ring (annulus of radial ``width`` and axial ``height``) of mid radius r about c, in the x-y plane."""
    ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
    cs = np.stack((np.cos(ang), np.sin(ang), np.zeros(n)), axis=1)
    z = np.array([0.0, 0.0, height / 2])
    ri, ro = max(r - width / 2, 0.0), r + width / 2
    v = np.vstack((c + ri * cs - z, c + ro * cs - z, c + ro * cs + z, c + ri * cs + z))  # 4 loops of n
    f = []
    for i in range(n):
        j = (i + 1) % n
        for a, b in ((0, 1), (1, 2), (2, 3), (3, 0)):  # bottom, outer, top, inner faces
            f += [(a * n + i, b * n + i, b * n + j), (a * n + i, b * n + j, a * n + j)]
    return v, np.array(f)


def _gear_marker(j: Any, end: int, body: str, p: FloatArray, kind: str, jr: float, extent: float) -> Marker:
    """Gear pair, and any element coupling two joints that has wheels (a belt drive's pulleys): each wheel's
    (pitch) circle as a thin ring about its centre (its body's frame), radii from its element type; a small
    sphere at an end without a wheel."""
    r = element_type(j.type, "joints").wheel_radii(j)[end]
    if r is None:
        return sphere_mesh(p, jr, 6, 10)
    return ring_mesh(p, r, 0.8 * jr, 0.5 * jr)


def _rack_marker(j: Any, end: int, body: str, p: FloatArray, kind: str, jr: float, extent: float) -> Marker:
    """Rack and pinion: the pinion's pitch circle as a ring; on the rack a flat bar along its axis
    (the carrier-frame axis turned into the rack's frame by the held angle phi_rack - phi_carrier)."""
    if end == 0:
        return ring_mesh(p, j.radius, 0.8 * jr, 0.5 * jr)
    c, s = np.cos(-j.angle), np.sin(-j.angle)
    ax = (c * j.axis[0] - s * j.axis[1], s * j.axis[0] + c * j.axis[1])
    length = max(8.0 * j.radius, 0.6 * extent)
    return box_mesh(p, np.array([length, 1.6 * jr, 0.5 * jr]), rot_z(float(np.arctan2(ax[1], ax[0]))))
# contact: planar rolling disk ("rolling") and cam and follower ("cam")
def _rolling_marker(j: Any, end: int, body: str, p: FloatArray, kind: str, jr: float, extent: float) -> Marker:
    """Planar rolling disk: the line on body 1 (or the ground), a flat bar 1.2 extent long along the axis through
    point1; on the disk a thin ring of the disk's radius about its centre."""
    if end == 1:
        ring = np.array([[j.radius * np.cos(a), j.radius * np.sin(a)] for a in np.linspace(0, 2 * np.pi, 48,
                                                                                           endpoint=False)])
        return prism_mesh(ring + p[:2], 0.03 * extent, 0.05 * extent)
    a = _v3(j.axis)
    ang = float(np.arctan2(a[1], a[0]))
    return box_mesh(p, np.array([1.2 * extent, 0.6 * jr, 0.6 * jr]), rot_z(ang))


def _cam_marker(j: Any, end: int, body: str, p: FloatArray, kind: str, jr: float, extent: float) -> Marker:
    """Cam and follower: on the cam the profile r(theta) about point1, extruded; on the follower the flat face
    (a bar along the axis, 2.5 max r long) or the roller (a cylinder of its radius about point2)."""
    theta = np.linspace(0, 2 * np.pi, 120, endpoint=False)
    r = np.array([j.profile.value(t) for t in theta])
    if end == 0:
        return prism_mesh(np.column_stack((r * np.cos(theta), r * np.sin(theta))) + p[:2], 0.04 * extent,
                          0.07 * extent)
    if j.follower == "roller":
        return cylinder_mesh(p + [0, 0, 0.04 * extent], p + [0, 0, 0.07 * extent], j.radius, n=32)
    a = _v3(j.axis)
    ang = float(np.arctan2(a[1], a[0]))
    return box_mesh(p, np.array([2.5 * float(r.max()), 0.4 * jr, 0.06 * extent]), rot_z(ang))


#: drawing symbol -> mesh of the joint at one end (in that body's frame); "disk" (rolling disks) is drawn as
#: a contact, not a marker
JOINT_MARKERS = {"pin": _pin_marker, "ball": _pin_marker, "weld": _dot_marker, "blade": _dot_marker,
                 "slider": _slider_marker, "slot": _slot_marker}
JOINT_MARKERS.update({"gears": _gear_marker, "rack": _rack_marker})
JOINT_MARKERS.update({"rolling": _rolling_marker, "cam": _cam_marker})  # contact


def build_scene(model: Model) -> SceneSpec:
    """Body meshes and lines in body frames, joints, springs, plane and gravity of ``model``."""
    ent = model.entities
    kind = "planar" if model.kind == "planar" else "spatial"
    pts_all = [_v3(p) for b in ent.bodies for p in list(b.points.values()) + [s for g in b.geometry for s in g.points]]
    pts_all += [_v3(p) for p in ent.ground_points.values()]
    # rough size: spread of the bodies' initial positions and their geometry
    init = [_v3([b.initial.get(c, 0.0) for c in ("x", "y", "z")]) for b in ent.bodies]
    cloud = np.array(pts_all + init) if (pts_all or init) else np.zeros((1, 3))
    extent = float(max(np.ptp(cloud, axis=0).max(), 0.5))
    for b in ent.bodies:
        for g in b.geometry:
            extent = max(extent, 2 * g.radius)
    jr = 0.025 * extent  # joint marker radius
    bodies: list[BodyVisual] = []
    for b in ent.bodies:
        rgba = hex_rgba(b.color)
        dark = darker(rgba)
        mesh = Mesh()
        lines: list[tuple[FloatArray, FloatArray]] = []
        for g in b.geometry:
            P = [_v3(p) for p in g.points]
            if g.type == "bar":
                p0, p1 = P
                w = g.width or 0.05 * extent
                d = p1 - p0
                L = float(np.linalg.norm(d))
                if L < 1e-12:
                    continue
                if kind == "planar":
                    ang = np.arctan2(d[1], d[0])
                    R = np.array([[np.cos(ang), -np.sin(ang), 0], [np.sin(ang), np.cos(ang), 0], [0, 0, 1.0]])
                    v, f = box_mesh((p0 + p1) / 2, (L + w, w, 0.5 * w), R)
                    mesh.add(v, f, rgba)
                else:
                    v, f = cylinder_mesh(p0, p1, w / 2)
                    mesh.add(v, f, rgba)
            elif g.type == "cylinder":
                p0, p1 = P
                r = g.radius or 0.02 * extent
                v, f = cylinder_mesh(p0, p1, r)
                mesh.add(v, f, rgba)
                if kind == "spatial":  # a stripe along the cylinder shows its spin
                    e, u, _w = _frame_along(p1 - p0)
                    lines.append((p0 + 1.02 * r * u, p1 + 1.02 * r * u))
            elif g.type == "disk":
                c, r = P[0], g.radius
                t = g.width or (_thickness(kind, r) if kind == "spatial" else 0.06 * r)
                z = np.array([0.0, 0.0, 1.0])
                v, f = cylinder_mesh(c - z * t / 2, c + z * t / 2, r, n=48)
                mesh.add(v, f, rgba)
                ang = np.linspace(0, 2 * np.pi, 49)
                for side in (-1, 1):
                    zz = c + z * side * (t / 2 + 0.002 * r)
                    rim = [zz + 0.97 * r * np.array([np.cos(a), np.sin(a), 0]) for a in ang]
                    lines += [(rim[i], rim[i + 1]) for i in range(48)]
                    for k in range(max(g.spokes, 0)):
                        a = 2 * np.pi * k / g.spokes
                        lines.append((zz, zz + 0.97 * r * np.array([np.cos(a), np.sin(a), 0])))
                # a hub so the centre reads
                v, f = cylinder_mesh(c - z * (t / 2 + 0.01 * r), c + z * (t / 2 + 0.01 * r), 0.08 * r, n=16)
                mesh.add(v, f, dark)
            elif g.type == "sphere":
                v, f = sphere_mesh(P[0], g.radius or 0.05 * extent)
                mesh.add(v, f, rgba)
            elif g.type == "box":
                size = _v3(g.size)
                if kind == "planar" or len(g.size) == 2:
                    size[2] = 0.4 * min(size[0], size[1])
                v, f = box_mesh(P[0], size)
                mesh.add(v, f, rgba)
            elif g.type == "polygon" and len(P) >= 3:
                poly = np.array([p[:2] for p in P])
                t = 0.03 * extent
                v, f = prism_mesh(poly, -t / 2, t / 2)
                mesh.add(v, f, rgba)
                top = [np.array([p[0], p[1], t / 2 + 1e-4]) for p in poly]
                lines += [(top[i], top[(i + 1) % len(top)]) for i in range(len(top))]
        if mesh.empty and not lines:  # no geometry: a small sphere at the centre of mass
            v, f = sphere_mesh(_v3(b.com), 0.05 * extent)
            mesh.add(v, f, rgba)
        bodies.append(BodyVisual(b.name, rgba, mesh, np.array(lines, float).reshape(-1, 2, 3), _v3(b.com)))
    by_name = {bv.name: bv for bv in bodies}
    ground = Mesh()
    ground_lines: list[tuple[FloatArray, FloatArray]] = []
    joint_points: dict[str, tuple[str, FloatArray]] = {}
    disk_contacts: dict[str, tuple[str, float]] = {}
    for j in ent.joints:
        symbol = element_type(j.type, "joints").editor.drawing  # an unknown type raises, naming the valid ones
        if symbol == "disk":
            disk_contacts[j.name] = (j.body2 or getattr(j, "body", ""), j.radius)
            continue
        marker = JOINT_MARKERS.get(symbol) or (_gear_marker if element_type(j.type).editor.placement == "coupling"
                                               else None)
        if marker is None:
            raise ValueError(f"joint {j.name!r}: no 3D marker for symbol {symbol!r} of type {j.type}; known: "
                             f"{', '.join(sorted(JOINT_MARKERS))} and disk")
        if j.body2 and j.point2:
            joint_points[j.name] = (j.body2, _v3(j.point2))
        for end, (body, point) in enumerate(((j.body1, j.point1), (j.body2, j.point2))):
            if not point:
                continue
            v, f = marker(j, end, body, _v3(point), kind, jr, extent)
            if body == GROUND:
                ground.add(v, f, GROUND_COLOR)
            elif body in by_name:
                by_name[body].mesh.add(v, f, JOINT_COLOR)
    for p in ent.ground_points.values():
        p = _v3(p)
        if kind == "planar":  # a small triangle "support" under each ground point
            s = 0.05 * extent
            tri = np.array([[p[0], p[1]], [p[0] - s, p[1] - 1.5 * s], [p[0] + s, p[1] - 1.5 * s]])
            v, f = prism_mesh(tri, -0.01 * extent - 0.02 * extent, -0.02 * extent)
            ground.add(v, f, GROUND_COLOR)
    springs = []
    for fo in ent.forces:
        if fo.type == "spring_damper" and fo.point1 and fo.point2:
            springs.append((fo.body1, _v3(fo.point1), fo.body2, _v3(fo.point2)))
    plane = kind == "spatial" and (bool(disk_contacts) or bool(ent.ground_motion.get("velocity"))
                                   or bool(ent.ground_motion.get("acceleration")))
    center = cloud.mean(axis=0)
    axes = [a for j in ent.joints for a in joint_axes(j, extent)] if kind == "spatial" else []
    return SceneSpec(kind, bodies, ground, np.array(ground_lines, float).reshape(-1, 2, 3), springs, joint_points,
                     disk_contacts, plane, _v3(ent.gravity), extent, center, axes)


# ---- poses -----------------------------------------------------------------------------------------------
def rot_z(a: float) -> FloatArray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


class Poser:
    """Body frame poses (origin, R) from coordinates q of a compiled system (any of the three kinds)."""

    def __init__(self, system: Any):
        self.system = system
        self.names: list[str] = list(system.body_names)
        model = system.model
        self.kind = "planar" if model.kind == "planar" else ("spatial" if hasattr(system, "body_pose") else "tree")
        self.com = {b.name: _v3(b.com) for b in model.entities.bodies}
        names = list(system.coord_names)
        # groups of quaternion coordinates (renormalised after interpolation)
        self.quat_slices = [slice(i, i + 4) for i, n in enumerate(names) if n.endswith(".q0")]
        self.has_plane = hasattr(system, "plane_position")

    def poses(self, q: FloatArray) -> dict[str, tuple[FloatArray, FloatArray]]:
        s = self.system
        out: dict[str, tuple[FloatArray, FloatArray]] = {}
        for b in self.names:
            if self.kind == "planar":
                x, y, phi = s.body_frame_pose(q, b)
                out[b] = (np.array([x, y, 0.0]), rot_z(phi))
            elif self.kind == "spatial":
                c, R = s.body_pose(q, b)
                out[b] = (c - R @ self.com[b], R)
            else:
                o, A = s.body_frame_pose(q, b)
                out[b] = (np.asarray(o, float), np.asarray(A, float))
        return out

    def plane_position(self, t: float) -> FloatArray:
        if self.has_plane:
            return _v3(self.system.plane_position(t))
        return np.zeros(3)

    def interpolate(self, q0: FloatArray, q1: FloatArray, s: float) -> FloatArray:
        q = (1.0 - s) * q0 + s * q1
        for sl in self.quat_slices:
            n = np.linalg.norm(q[sl])
            if n > 0:
                q[sl] /= n
        return q


def world(pose: tuple[FloatArray, FloatArray], p: FloatArray) -> FloatArray:
    return pose[0] + pose[1] @ p


def disk_contact_point(pose: tuple[FloatArray, FloatArray], com: FloatArray, radius: float,
                       plane_z: float = 0.0) -> FloatArray:
    """Lowest rim point of a disk (body z = symmetry axis): the contact point with a horizontal plane."""
    c = world(pose, com)
    n = pose[1][:, 2]
    down = np.array([0.0, 0.0, -1.0])
    d = down - (down @ n) * n
    nd = np.linalg.norm(d)
    return c + (radius * d / nd if nd > 1e-9 else np.zeros(3))


def coil(p0: FloatArray, p1: FloatArray, radius: float, turns: int = 10, per_turn: int = 12) -> FloatArray:
    """Polyline (k, 3) of a helical spring from p0 to p1 with straight end leads."""
    e, u, w = _frame_along(p1 - p0)
    L = float(np.linalg.norm(p1 - p0))
    lead = 0.1 * L
    s = np.linspace(0, 1, turns * per_turn + 1)
    ang = 2 * np.pi * turns * s
    body = p0 + e * (lead + s[:, None] * (L - 2 * lead)) + radius * (np.cos(ang)[:, None] * u + np.sin(ang)[:, None] * w)
    return np.vstack((p0, body, p1))
