"""Typed, defaulted views of a model document, and the semantic checks that need them.

``parse_entities(data, problems)`` turns the (schema-valid) JSON document into frozen records with every
point reference resolved to body-frame coordinates and every time function compiled: the bodies first, then
each joint, driver and force by its element type (core/elements/<type>.py), whose field descriptors parse it
into the type's own record; elements that take something from other joints (a gear pair's carrier and gears)
are resolved once every joint is parsed. Problems a schema cannot see (dangling names, duplicate names, a
driver on the wrong joint type, a bad expression ...) are appended to ``problems`` as ``(json_pointer,
message)`` pairs; the loader turns them into Diagnostics. With no problems the result is what the compiler
(``mechstudio.core.systems.base``) consumes.

Conventions: body points and the centre of mass are given in the body frame, whose pose is (x, y, phi) [m, m,
rad] in planar models. Lengths in m, masses in kg, inertia in kg m², angles in rad, time in s.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from mechstudio.core.elements import element_type
from mechstudio.core.elements.base import GROUND
from mechstudio.core.elements.fields import ParseContext
from mechstudio.core.model.timefunc import time_function
from mechstudio.core.model.spatial_joints import maximal_joint_problems, uses_maximal_joints
from mechstudio.core.model.tree_topology import tree_problems

Vec = tuple[float, ...]
Problems = list[tuple[str, str]]


@dataclass(frozen=True)
class Shape:
    """Drawing geometry of a body, in the body frame."""
    type: str  # bar | disk | polygon | polyline | box | sphere | cylinder
    points: tuple[Vec, ...] = ()  # bar/cylinder: (from, to); disk/box/sphere: (center,); polygon/polyline: vertices
    radius: float = 0.0
    width: float = 0.0
    size: Vec = ()
    spokes: int = 0


@dataclass(frozen=True)
class Body:
    name: str
    mass: float
    inertia: Any  # planar: float about the CM [kg m^2]; spatial: 3x3 tuple in body axes
    com: Vec
    points: dict[str, Vec]
    geometry: tuple[Shape, ...]
    color: str
    initial: dict[str, Any]
    index: int  # position in the file's body list

    def point(self, name: str) -> Vec:
        return self.points[name]


@dataclass(frozen=True)
class Entities:
    kind: str
    gravity: Vec
    ground_points: dict[str, Vec]
    ground_motion: dict[str, Any]
    bodies: tuple[Body, ...]
    joints: tuple[Any, ...]  # records of their element types (core/elements/<type>.py), file order
    drivers: tuple[Any, ...]
    forces: tuple[Any, ...]
    initial_velocities: tuple[tuple[str, str, float], ...]
    simulation: dict[str, Any] = field(default_factory=dict)

    def body(self, name: str) -> Body:
        for b in self.bodies:
            if b.name == name:
                return b
        raise KeyError(f"no body named {name!r}; bodies: {', '.join(b.name for b in self.bodies)}")

    def joint(self, name: str) -> Any:
        for j in self.joints:
            if j.name == name:
                return j
        raise KeyError(f"no joint named {name!r}; joints: {', '.join(j.name for j in self.joints)}")


def _dim(kind: str) -> int:
    return 3 if kind == "spatial" else 2


def _vec(v: Any, dim: int) -> Vec:
    out = [float(x) for x in v][:dim]
    return tuple(out + [0.0] * (dim - len(out)))


def parse_entities(data: dict[str, Any], problems: Problems | None = None) -> Entities:
    """Parse a schema-valid document; append semantic problems to ``problems`` (see module docstring)."""
    problems = [] if problems is None else problems
    kind = data.get("kind", "planar")
    dim = _dim(kind)
    gravity = _vec(data.get("gravity", [0.0, -9.81] if dim == 2 else [0.0, 0.0, -9.81]), dim)
    ground = data.get("ground", {})
    ground_points = {k: _vec(v, dim) for k, v in ground.get("points", {}).items()}
    for k, item in enumerate(ground.get("geometry", []) or []):  # drawing only; checked for its problems
        _shape(item, ground_points, dim, f"/ground/geometry/{k}", problems)
    bodies = _parse_bodies(data.get("bodies", []), dim, problems)
    body_points = {GROUND: ground_points, **{b.name: b.points for b in bodies}}
    ctx = ParseContext(kind, body_points, {str(j.get("name")): str(j.get("type")) for j in data.get("joints", [])},
                       time_function, problems)
    constraint_names: dict[str, str] = {}
    joints = _resolve_joints(_parse_items(data, "joints", ctx, constraint_names), problems)
    if uses_maximal_joints(data):  # any graph of spatial joints, in maximal coordinates
        problems.extend(maximal_joint_problems(data, joints))
    elif kind == "spatial" and any(j.type == "spherical" for j in joints):  # spherical-joint tree
        raw_forces = [SimpleNamespace(name=f["name"], type=f["type"], index=i)
                      for i, f in enumerate(data.get("forces", []))]
        problems.extend(tree_problems(SimpleNamespace(bodies=bodies, joints=joints, forces=raw_forces)))
    drivers = tuple(rec for rec, _ in _parse_items(data, "drivers", ctx, constraint_names))
    forces = tuple(rec for rec, _ in _parse_items(data, "forces", ctx, {}))
    # quasi-velocity choices need the compiled system: core.systems.compile.compile_model checks them
    return Entities(kind=kind, gravity=gravity, ground_points=ground_points,
                    ground_motion=dict(ground.get("motion", {})), bodies=tuple(bodies), joints=joints,
                    drivers=drivers, forces=forces,
                    initial_velocities=_initial_velocities(data.get("initial_velocities", []), ctx),
                    simulation=dict(data.get("simulation", {})))


def _parse_bodies(items: list[dict[str, Any]], dim: int, problems: Problems) -> list[Body]:
    bodies: list[Body] = []
    seen: dict[str, str] = {}
    for i, b in enumerate(items):
        ptr = f"/bodies/{i}"
        name = b["name"]
        if name == GROUND:
            problems.append((f"{ptr}/name", f"'{GROUND}' is reserved for the fixed frame"))
        elif name in seen:
            problems.append((f"{ptr}/name", f"duplicate body name {name!r} (also at {seen[name]})"))
        seen.setdefault(name, ptr)
        points = {k: _vec(v, dim) for k, v in b.get("points", {}).items()}
        shapes = tuple(_shape(s, points, dim, f"{ptr}/geometry/{k}", problems)
                       for k, s in enumerate(b.get("geometry", [])))
        bodies.append(Body(name=name, mass=float(b["mass"]), inertia=_inertia(b, dim, ptr, problems),
                           com=_vec(b.get("com", [0.0] * dim), dim), points=points, geometry=shapes,
                           color=b.get("color", "#4a90d9"), initial=dict(b.get("initial", {})), index=i))
    return bodies


def _inertia(b: dict[str, Any], dim: int, ptr: str, problems: Problems) -> Any:
    """A planar body's inertia about its centre of mass [kg m^2]; a spatial body's 3x3 tuple (a number: that
    times the identity)."""
    inertia = b.get("inertia", 0.0 if dim == 2 else [[0.0] * 3 for _ in range(3)])
    if dim == 2:
        if not isinstance(inertia, (int, float)):
            problems.append((f"{ptr}/inertia", "a planar body's inertia is one number [kg m^2]"))
            return 0.0
        return float(inertia)
    if isinstance(inertia, (int, float)):
        inertia = [[float(inertia) if r == c else 0.0 for c in range(3)] for r in range(3)]
    return tuple(tuple(float(x) for x in row) for row in inertia)


def _parse_items(data: dict[str, Any], section: str, ctx: ParseContext,
                 names: dict[str, str]) -> list[tuple[Any, bool]]:
    """(record, parsed without a problem) of each item of ``section``, by its element type; names checked
    unique in ``names`` (joints and drivers share one namespace, forces have their own)."""
    what = "force" if section == "forces" else "joint/driver"
    out = []
    for i, item in enumerate(data.get(section, [])):
        ptr = f"/{section}/{i}"
        name = item["name"]
        if name in names:
            ctx.problem(f"{ptr}/name", f"duplicate {what} name {name!r} (also at {names[name]})")
        names.setdefault(name, ptr)
        before = len(ctx.problems)
        record = element_type(item["type"], section).parse(item, ctx, ptr, i)
        out.append((record, len(ctx.problems) == before))
    return out


def _resolve_joints(parsed: list[tuple[Any, bool]], problems: Problems) -> tuple[Any, ...]:
    """Joints that take something from other joints (gear_pair, rack_pinion ...: their gears and carrier) filled
    in once every joint is parsed (those whose own fields parsed cleanly)."""
    by_name = {j.name: j for j, _ in parsed}
    return tuple(element_type(j.type, "joints").resolve(j, by_name, f"/joints/{j.index}", problems) if clean else j
                 for j, clean in parsed)


def _initial_velocities(items: list[dict[str, Any]], ctx: ParseContext) -> tuple[tuple[str, str, float], ...]:
    out = []
    for i, v in enumerate(items):
        ptr = f"/initial_velocities/{i}/body"
        if v["body"] not in ctx.body_points:
            ctx.problem(ptr, f"no body named {v['body']!r}; bodies: {ctx.body_names()}")
        elif v["body"] == GROUND:
            ctx.problem(ptr, "the ground's velocity is not an initial condition")
        out.append((v["body"], v["coordinate"], float(v["value"])))
    return tuple(out)


def _shape(s: dict[str, Any], points: dict[str, Vec], dim: int, pointer: str, problems: Problems) -> Shape:
    def ref(r: Any, key: str) -> Vec:
        if isinstance(r, list):
            return _vec(r, dim)
        if r not in points:
            problems.append((f"{pointer}/{key}", f"the body has no point named {r!r}"))
            return (0.0,) * dim
        return points[r]

    t = s["type"]
    if t in ("bar", "cylinder"):
        return Shape(t, (ref(s["from"], "from"), ref(s["to"], "to")), radius=float(s.get("radius", 0.0)),
                     width=float(s.get("width", 0.05)))
    if t in ("disk", "sphere", "box"):
        center = ref(s.get("center", [0.0] * dim), "center")
        return Shape(t, (center,), radius=float(s.get("radius", 0.0)),
                     size=tuple(float(x) for x in s.get("size", ())), spokes=int(s.get("spokes", 6)),
                     width=float(s.get("thickness", 0.0)))
    if t == "polyline":
        pts = tuple(_vec(v, dim) for v in s["points"])
        for i in range(1, len(pts)):
            if pts[i] == pts[i - 1]:
                problems.append((f"{pointer}/points/{i}", f"the polyline repeats its point {i - 1} "
                                 f"({', '.join(f'{x:g}' for x in pts[i])}): consecutive points must differ"))
        return Shape(t, pts)
    return Shape(t, tuple(_vec(v, dim) for v in s["vertices"]))
