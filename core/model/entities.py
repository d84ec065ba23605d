"""Typed, defaulted views of a model document, and the semantic checks that need them.

``parse_entities(data, problems)`` turns the (schema-valid) JSON document into frozen dataclasses with every
point reference resolved to body-frame coordinates and every time function compiled. Problems a schema cannot
see (dangling names, duplicate names, a driver on the wrong joint type, a bad expression ...) are appended to
``problems`` as ``(json_pointer, message)`` pairs; the loader turns them into Diagnostics. With no problems the
result is what the compiler (``mechstudio.core.systems.base``) consumes.

Conventions: body points and the centre of mass are given in the body frame, whose pose is (x, y, phi) [m, m,
rad] in planar models. Lengths in m, masses in kg, inertia in kg m², angles in rad, time in s.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from mechstudio.core.elements import element_type
from mechstudio.core.elements.primitives.cam_profile import profile_problems
from mechstudio.core.elements.base import GROUND
from mechstudio.core.model.timefunc import ExpressionError, TimeFunction, time_function
from mechstudio.core.model.tree_topology import tree_problems

Vec = tuple[float, ...]
Problems = list[tuple[str, str]]
#: gear_pair / rack_pinion pressure angle when the file gives none: 20 degrees [rad]
DEFAULT_PRESSURE_ANGLE = 0.3490658503988659


@dataclass(frozen=True)
class Shape:
    """Drawing geometry of a body, in the body frame."""
    type: str  # bar | disk | polygon | box | sphere | cylinder
    points: tuple[Vec, ...] = ()  # bar/cylinder: (from, to); disk/box/sphere: (center,); polygon: vertices
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
class Joint:
    """Any joint or contact (the types of core/elements, section joints)."""
    name: str
    type: str
    body1: str = GROUND
    point1: Vec = ()
    body2: str = ""
    point2: Vec = ()
    axis: Vec = ()  # prismatic: sliding direction, pin_in_slot: slot direction, in body1's frame; knife_edge: blade
    angle: float = 0.0  # prismatic/weld: phi2 - phi1 held constant [rad]
    radius: float = 0.0  # rolling disk [m]
    length: float = 0.0  # pin_in_slot: slot length for drawing [m] (0: not drawn to length)
    spring: float = 0.0  # spherical joint rotational spring [N m/rad]
    damping: float = 0.0  # spherical joint rotational damper [N m s/rad]
    torque: tuple[TimeFunction, ...] = ()
    index: int = 0
    # gear_pair, rack_pinion: the joints they couple and the carrier they share (resolved by the
    # element type from the two joints; body1/point1, body2/point2 then hold gear 1 / the pinion and gear 2 /
    # the rack with their centre / reference point), radius2 of gear 2 [m] (radius: gear 1's or the pinion's)
    joint1: str = ""
    joint2: str = ""
    carrier: str = ""
    radius2: float = 0.0
    internal: bool = False  # gear_pair: internal gearing (one gear is a ring gear)
    pressure_angle: float = 0.0  # [rad]
    side: str = ""  # rack_pinion: "right" or "left", the rack's side of its axis seen from the pinion
    offset: float = 0.0  # rack_pinion: the rack's travel at zero pinion angle [m]
    profile: TimeFunction | None = None  # cam_follower: profile radius r(theta) [m], theta written as t
    follower: str = ""  # cam_follower: "flat" or "roller"

    @property
    def body(self) -> str:  # single-body elements (knife edge, rolling disk) keep the body in body2
        return self.body2

    @property
    def point(self) -> Vec:
        return self.point2


@dataclass(frozen=True)
class Driver:
    name: str
    type: str  # joint_angle | joint_distance | coordinate
    function: TimeFunction
    joint: str = ""
    body: str = ""
    coordinate: str = ""
    index: int = 0


@dataclass(frozen=True)
class Force:
    name: str
    type: str  # spring_damper | rotational_spring_damper | applied_force | applied_torque
    body1: str = ""
    point1: Vec = ()
    body2: str = ""
    point2: Vec = ()
    stiffness: float = 0.0
    damping: float = 0.0
    free_length: float = 0.0
    joint: str = ""
    free_angle: float = 0.0
    force: tuple[TimeFunction, ...] = ()
    torque: tuple[TimeFunction, ...] = ()
    index: int = 0


@dataclass(frozen=True)
class Entities:
    kind: str
    gravity: Vec
    ground_points: dict[str, Vec]
    ground_motion: dict[str, Any]
    bodies: tuple[Body, ...]
    joints: tuple[Joint, ...]
    drivers: tuple[Driver, ...]
    forces: tuple[Force, ...]
    initial_velocities: tuple[tuple[str, str, float], ...]
    simulation: dict[str, Any] = field(default_factory=dict)

    def body(self, name: str) -> Body:
        for b in self.bodies:
            if b.name == name:
                return b
        raise KeyError(f"no body named {name!r}; bodies: {', '.join(b.name for b in self.bodies)}")

    def joint(self, name: str) -> Joint:
        for j in self.joints:
            if j.name == name:
                return j
        raise KeyError(f"no joint named {name!r}; joints: {', '.join(j.name for j in self.joints)}")


def _dim(kind: str) -> int:
    return 3 if kind == "spatial" else 2


def _vec(v: Any, dim: int) -> Vec:
    out = [float(x) for x in v][:dim]
    return tuple(out + [0.0] * (dim - len(out)))


def _tf(spec: Any, pointer: str, problems: Problems) -> TimeFunction:
    try:
        return time_function(spec)
    except (ExpressionError, KeyError, TypeError, ValueError) as exc:
        problems.append((pointer, f"invalid time function: {exc}"))
        return time_function(0.0)


def _contact_fields(j: dict[str, Any], ptr: str, problems: Problems) -> dict[str, Any]:
    """Fields of the contact joints (planar rolling disk, cam and follower): radius, profile, follower; the cam
    profile is checked for its follower (positive, convex for a flat face, resolved by its table)."""
    out: dict[str, Any] = {"radius": float(j.get("radius", 0.0))}
    if j["type"] == "planar_rolling_disk" and j.get("body2") == GROUND:
        problems.append((f"{ptr}/body2", "the rolling disk must be a moving body, not the ground"))
    if j["type"] != "cam_follower":
        return out
    follower = out["follower"] = j["follower"]
    if follower == "flat" and "axis" not in j:
        problems.append((ptr, "a flat-faced follower needs 'axis', the face direction in body2's frame"))
    if follower == "roller" and "radius" not in j:
        problems.append((ptr, "a roller follower needs 'radius', the roller radius [m]"))
    before = len(problems)
    profile = out["profile"] = _tf(j["profile"], f"{ptr}/profile", problems)
    if len(problems) == before:
        problems.extend((f"{ptr}/profile", f"cam profile r(theta): {p}") for p in profile_problems(profile, follower))
    return out


def parse_entities(data: dict[str, Any], problems: Problems | None = None) -> Entities:
    """Parse a schema-valid document; append semantic problems to ``problems`` (see module docstring)."""
    problems = [] if problems is None else problems
    kind = data.get("kind", "planar")
    dim = _dim(kind)
    gravity = _vec(data.get("gravity", [0.0, -9.81] if dim == 2 else [0.0, 0.0, -9.81]), dim)
    ground = data.get("ground", {})
    ground_points = {k: _vec(v, dim) for k, v in ground.get("points", {}).items()}

    bodies: list[Body] = []
    seen: dict[str, str] = {}
    for i, b in enumerate(data.get("bodies", [])):
        ptr = f"/bodies/{i}"
        name = b["name"]
        if name == GROUND:
            problems.append((f"{ptr}/name", f"'{GROUND}' is reserved for the fixed frame"))
        elif name in seen:
            problems.append((f"{ptr}/name", f"duplicate body name {name!r} (also at {seen[name]})"))
        seen.setdefault(name, ptr)
        points = {k: _vec(v, dim) for k, v in b.get("points", {}).items()}
        inertia = b.get("inertia", 0.0 if dim == 2 else [[0.0] * 3 for _ in range(3)])
        if dim == 2 and not isinstance(inertia, (int, float)):
            problems.append((f"{ptr}/inertia", "a planar body's inertia is one number [kg m^2]"))
            inertia = 0.0
        if dim == 3:
            if isinstance(inertia, (int, float)):
                inertia = [[float(inertia) if r == c else 0.0 for c in range(3)] for r in range(3)]
            inertia = tuple(tuple(float(x) for x in row) for row in inertia)
        shapes = []
        for k, s in enumerate(b.get("geometry", [])):
            shapes.append(_shape(s, points, dim, f"{ptr}/geometry/{k}", problems))
        bodies.append(Body(name=name, mass=float(b["mass"]), inertia=inertia if dim == 3 else float(inertia),
                           com=_vec(b.get("com", [0.0] * dim), dim), points=points, geometry=tuple(shapes),
                           color=b.get("color", "#4a90d9"), initial=dict(b.get("initial", {})), index=i))
    body_points = {b.name: b.points for b in bodies}
    body_points[GROUND] = ground_points

    def body_ref(name: str, pointer: str) -> bool:
        if name not in body_points:
            problems.append((pointer, f"no body named {name!r}; bodies: "
                                      f"{', '.join([GROUND] + [b.name for b in bodies])}"))
            return False
        return True

    def point_ref(body: str, ref: Any, pointer: str) -> Vec:
        if isinstance(ref, list):
            return _vec(ref, dim)
        pts = body_points.get(body, {})
        if ref not in pts:
            problems.append((pointer, f"body {body!r} has no point named {ref!r}; its points: "
                                      f"{', '.join(pts) or '(none)'}"))
            return (0.0,) * dim
        return pts[ref]

    constraint_names: dict[str, str] = {}

    def unique(name: str, pointer: str, registry: dict[str, str], what: str) -> None:
        if name in registry:
            problems.append((pointer, f"duplicate {what} name {name!r} (also at {registry[name]})"))
        registry.setdefault(name, pointer)

    joints: list[Joint] = []
    for i, j in enumerate(data.get("joints", [])):
        ptr = f"/joints/{i}"
        unique(j["name"], f"{ptr}/name", constraint_names, "joint/driver")
        jt = j["type"]
        fields = element_type(jt, "joints").fields
        if "joint1" in fields:  # couples two other joints (gear_pair, rack_pinion): bodies resolved below
            joints.append(Joint(name=j["name"], type=jt, joint1=j["joint1"], joint2=j["joint2"],
                                radius=float(j.get("radius1", j.get("radius", 0.0))),
                                radius2=float(j.get("radius2", 0.0)), internal=bool(j.get("internal", False)),
                                pressure_angle=float(j.get("pressure_angle", DEFAULT_PRESSURE_ANGLE)),
                                side=str(j.get("side", "right")), offset=float(j.get("offset", 0.0)), index=i))
            continue
        if "body" in fields:  # single-body elements (knife edge, rolling disk)
            ok = body_ref(j["body"], f"{ptr}/body")
            if ok and j["body"] == GROUND:
                problems.append((f"{ptr}/body", f"a {jt} needs a moving body, not the ground"))
            pt = point_ref(j["body"], j["point"], f"{ptr}/point") if ok and "point" in j else (0.0,) * dim
            axis = _vec(j.get("axis", [1.0, 0.0]), 2)
            if "axis" in fields and axis[0] ** 2 + axis[1] ** 2 < 1e-24:
                problems.append((f"{ptr}/axis", "the blade direction must not be the zero vector"))
            joints.append(Joint(name=j["name"], type=jt, body1=GROUND, body2=j["body"], point2=pt, axis=axis,
                                radius=float(j.get("radius", 0.0)), index=i))
            continue
        ok1 = body_ref(j["body1"], f"{ptr}/body1")
        ok2 = body_ref(j["body2"], f"{ptr}/body2")
        p1 = point_ref(j["body1"], j["point1"], f"{ptr}/point1") if ok1 else (0.0,) * dim
        p2 = point_ref(j["body2"], j["point2"], f"{ptr}/point2") if ok2 else (0.0,) * dim
        if ok1 and ok2 and j["body1"] == j["body2"]:
            problems.append((f"{ptr}/body2", f"a joint must connect two different bodies, both are {j['body1']!r}"))
        axis = _vec(j.get("axis", [1.0, 0.0]), 2)
        if "axis" in fields and axis[0] ** 2 + axis[1] ** 2 < 1e-24:
            what = "slot direction" if jt == "pin_in_slot" else "sliding axis"
            problems.append((f"{ptr}/axis", f"the {what} must not be the zero vector"))
        torque = tuple(_tf(s, f"{ptr}/torque/{k}", problems) for k, s in enumerate(j.get("torque", [])))
        contact = _contact_fields(j, ptr, problems)  # planar rolling disk, cam and follower
        joints.append(Joint(name=j["name"], type=jt, body1=j["body1"], point1=p1, body2=j["body2"], point2=p2,
                            axis=axis, angle=float(j.get("angle", 0.0)), length=float(j.get("length", 0.0)),
                            spring=float(j.get("spring", 0.0)),
                            damping=float(j.get("damping", 0.0)), torque=torque, index=i, **contact))
    by_name = {j.name: j for j in joints}
    for k, j in enumerate(joints):  # elements that couple joints (gear_pair, rack_pinion) take their bodies
        joints[k] = element_type(j.type, "joints").resolve(j, by_name, f"/joints/{j.index}", problems)
    if kind == "spatial" and any(j.type == "spherical" for j in joints):  # spherical-joint tree
        raw_forces = [SimpleNamespace(name=f["name"], type=f["type"], index=i)
                      for i, f in enumerate(data.get("forces", []))]
        problems.extend(tree_problems(SimpleNamespace(bodies=bodies, joints=joints, forces=raw_forces)))
    joint_types = {j.name: j.type for j in joints}

    drivers: list[Driver] = []
    for i, d in enumerate(data.get("drivers", [])):
        ptr = f"/drivers/{i}"
        unique(d["name"], f"{ptr}/name", constraint_names, "joint/driver")
        fn = _tf(d["function"], f"{ptr}/function", problems)
        if d["type"] in ("joint_angle", "joint_distance"):
            need = "revolute" if d["type"] == "joint_angle" else "prismatic"
            jt = joint_types.get(d["joint"])
            if jt is None:
                problems.append((f"{ptr}/joint", f"no joint named {d['joint']!r}"))
            elif jt != need:
                problems.append((f"{ptr}/joint", f"a {d['type']} driver needs a {need} joint; "
                                                 f"{d['joint']!r} is {jt}"))
            drivers.append(Driver(name=d["name"], type=d["type"], function=fn, joint=d["joint"], index=i))
        else:
            if body_ref(d["body"], f"{ptr}/body") and d["body"] == GROUND:
                problems.append((f"{ptr}/body", "the ground has no coordinates to drive"))
            drivers.append(Driver(name=d["name"], type="coordinate", function=fn, body=d["body"],
                                  coordinate=d["coordinate"], index=i))

    forces: list[Force] = []
    force_names: dict[str, str] = {}
    for i, f in enumerate(data.get("forces", [])):
        ptr = f"/forces/{i}"
        unique(f["name"], f"{ptr}/name", force_names, "force")
        ft = f["type"]
        if ft == "spring_damper":
            ok1 = body_ref(f["body1"], f"{ptr}/body1")
            ok2 = body_ref(f["body2"], f"{ptr}/body2")
            forces.append(Force(
                name=f["name"], type=ft, body1=f["body1"], body2=f["body2"],
                point1=point_ref(f["body1"], f["point1"], f"{ptr}/point1") if ok1 else (0.0,) * dim,
                point2=point_ref(f["body2"], f["point2"], f"{ptr}/point2") if ok2 else (0.0,) * dim,
                stiffness=float(f.get("stiffness", 0.0)), damping=float(f.get("damping", 0.0)),
                free_length=float(f.get("free_length", 0.0)), index=i))
        elif ft == "rotational_spring_damper":
            jt = joint_types.get(f["joint"])
            if jt is None:
                problems.append((f"{ptr}/joint", f"no joint named {f['joint']!r}"))
            elif jt != "revolute":
                problems.append((f"{ptr}/joint", f"a rotational spring-damper needs a revolute joint; "
                                                 f"{f['joint']!r} is {jt}"))
            forces.append(Force(name=f["name"], type=ft, joint=f["joint"], stiffness=float(f.get("stiffness", 0.0)),
                                damping=float(f.get("damping", 0.0)), free_angle=float(f.get("free_angle", 0.0)),
                                index=i))
        elif ft == "applied_force":
            ok = body_ref(f["body"], f"{ptr}/body")
            pt = point_ref(f["body"], f.get("point", [0.0] * dim), f"{ptr}/point") if ok else (0.0,) * dim
            comps = tuple(_tf(s, f"{ptr}/force/{k}", problems) for k, s in enumerate(f["force"]))
            if len(comps) != dim:
                problems.append((f"{ptr}/force", f"a {kind} model needs {dim} force components, got {len(comps)}"))
            forces.append(Force(name=f["name"], type=ft, body1=f["body"], point1=pt, force=comps, index=i))
        else:  # applied_torque
            body_ref(f["body"], f"{ptr}/body")
            spec = f["torque"]
            specs = spec if isinstance(spec, list) else [spec]
            comps = tuple(_tf(s, f"{ptr}/torque" + (f"/{k}" if isinstance(spec, list) else ""), problems)
                          for k, s in enumerate(specs))
            forces.append(Force(name=f["name"], type=ft, body1=f["body"], torque=comps, index=i))

    init_v = []
    for i, v in enumerate(data.get("initial_velocities", [])):
        if body_ref(v["body"], f"/initial_velocities/{i}/body") and v["body"] == GROUND:
            problems.append((f"/initial_velocities/{i}/body", "the ground's velocity is not an initial condition"))
        init_v.append((v["body"], v["coordinate"], float(v["value"])))

    ents = Entities(kind=kind, gravity=gravity, ground_points=ground_points,
                    ground_motion=dict(ground.get("motion", {})), bodies=tuple(bodies), joints=tuple(joints),
                    drivers=tuple(drivers), forces=tuple(forces), initial_velocities=tuple(init_v),
                    simulation=dict(data.get("simulation", {})))
    # quasi-velocity choices need the compiled system: core.systems.compile.compile_model checks them
    return ents


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
    return Shape(t, tuple(_vec(v, dim) for v in s["vertices"]))
