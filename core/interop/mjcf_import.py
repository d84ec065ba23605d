"""MuJoCo MJCF to a spatial Mechanism Studio model (the reverse of :mod:`mechstudio.core.interop.mjcf`).

What is read (MuJoCo's XML reference, mujoco.readthedocs.io/en/stable/XMLreference.html):

* ``<compiler>``: ``angle`` (MuJoCo's default is **degree**: euler, axisangle, hinge ``range``, ``ref`` and
  ``springref`` are in degrees unless ``angle="radian"``), ``eulerseq`` (default ``xyz``; lower case: rotating
  axes, upper case: fixed axes), ``inertiafromgeom`` (``auto``: from the geoms of a body without ``<inertial>``;
  ``true``: always from the geoms; ``false``: never). ``coordinate="global"`` is refused.
* ``<option gravity>`` (default 0 0 -9.81; ``<flag gravity="disable">`` gives none).
* ``<default>`` classes, nested, with ``class`` and ``childclass``: the attributes of ``joint`` and ``geom``.
* ``<worldbody>`` and nested ``<body pos quat|axisangle|euler|xyaxes|zaxis>``, ``<frame>`` (its pose composed
  onto what it holds), ``<inertial pos quat mass diaginertia|fullinertia>``, ``<geom>`` shapes ``sphere``,
  ``capsule``, ``cylinder``, ``box``, ``ellipsoid`` (``size`` or ``fromto``; ``mass`` or ``density``, default
  1000 kg/m^3) for the mass properties and drawing; geoms of the world body are drawn on the ground.
* ``<joint type="hinge|slide|ball|free" pos axis ref stiffness springref damping>`` -> hinge, slider, spherical
  or a free body; ``<freejoint>``. A hinge's angle here is MuJoCo's qpos - ref (the model's configuration is
  every joint at ``ref``), so the spring's ``free_angle`` is springref - ref. A body without joints is welded to
  its parent: merged into it (core/interop/spatial_build.py). Two joints in one body: a hinge and a slide along
  the same axis through the same point become a ``cylindrical`` joint, two hinges with perpendicular axes through
  the same point a ``universal`` joint (MuJoCo composes them: the first axis stays fixed in the parent, the second
  in the child: a Cardan joint); other combinations are refused (our bodies need a mass, so no massless
  intermediate bodies).
* ``<equality><connect body1 body2 anchor>`` -> a spherical joint at the anchor (body1's frame), ``<weld body1
  body2>`` -> a fixed joint (loop closures).

Warnings: joint ``range`` (not modelled), ``armature`` and ``frictionloss`` (not modelled), a ball joint's spring
and damper, ``<actuator>``, ``<sensor>``, ``<tendon>``, ``<contact>``, ``<keyframe>`` (initial state: the model's
configuration at rest), mesh/plane/hfield geoms (no mass from them; not drawn). The initial velocity is zero.
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechstudio.core.interop.spatial_build import (EPS, JointSpec, LinkSpec, Names, ShapeSpec, build_document,
                                                   color_of, composite)
from mechstudio.core.interop.xmlsource import Report, XmlDocument, parse_xml
from mechstudio.core.types import FloatArray

#: MuJoCo's default geom density [kg/m^3]
DENSITY = 1000.0
IGNORED_SECTIONS = {"size", "visual", "asset", "statistic", "extension", "custom"}
DROPPED_SECTIONS = {"actuator": "actuators are not imported (no motors or servos)",
                    "sensor": "sensors are not imported",
                    "tendon": "tendons are not imported",
                    "contact": "contact pairs and exclusions are not imported (no contacts between these bodies)",
                    "keyframe": "keyframes are not imported (the initial state is the model's configuration at "
                                "rest)"}


def quat_matrix(q: FloatArray) -> FloatArray:
    """Rotation matrix of the unit quaternion (w, x, y, z) (normalised here)."""
    w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def axis_angle_matrix(axis: FloatArray, angle: float) -> FloatArray:
    """Rodrigues: the rotation by ``angle`` [rad] about ``axis`` (normalised here)."""
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


@dataclass
class Compiler:
    degrees: bool = True
    eulerseq: str = "xyz"
    inertiafromgeom: str = "auto"

    def angle(self, value: float) -> float:
        """``value`` in the file's angle unit -> rad."""
        return math.radians(value) if self.degrees else value


@dataclass
class Context:
    report: Report
    compiler: Compiler
    defaults: dict[str, dict[str, dict[str, str]]]
    bodies: Names
    joints: Names
    links: list[LinkSpec] = field(default_factory=list)
    specs: list[JointSpec] = field(default_factory=list)
    ground_shapes: list[tuple[ShapeSpec, FloatArray, FloatArray]] = field(default_factory=list)
    frames: dict[str, tuple[FloatArray, FloatArray]] = field(default_factory=dict)  # file body name -> (R, p)
    ours: dict[str, str] = field(default_factory=dict)  # file body name -> our link name


def read_defaults(root: ET.Element, report: Report) -> dict[str, dict[str, dict[str, str]]]:
    """class -> tag -> attributes, nested classes inheriting their parent's (the top class is ``main``)."""
    out: dict[str, dict[str, dict[str, str]]] = {}

    def walk(el: ET.Element, inherited: dict[str, dict[str, str]], top: bool) -> None:
        name = el.get("class", "main" if top else "")
        if not name:
            report.error(el, "a nested <default> needs a class name")
            return
        mine = {tag: dict(attrs) for tag, attrs in inherited.items()}
        for child in el:
            if child.tag == "default":
                continue
            mine[child.tag] = {**mine.get(child.tag, {}), **child.attrib}
        out[name] = mine
        for child in el.findall("default"):
            walk(child, mine, False)

    for el in root.findall("default"):
        walk(el, {}, True)
    return out


def attrs(el: ET.Element, ctx: Context, childclass: str) -> dict[str, str]:
    """The attributes of ``el`` with its class's defaults (``class``, else the enclosing ``childclass``)."""
    cls = el.get("class", childclass)
    if cls not in ctx.defaults and cls != "main":
        ctx.report.error(el, f"unknown default class {cls!r}")
    base = ctx.defaults.get(cls, ctx.defaults.get("main", {})).get(el.tag, {})
    return {**base, **el.attrib}


def numbers(ctx: Context, el: ET.Element, values: dict[str, str], key: str, count: int | None,
            default: list[float] | None = None) -> FloatArray | None:
    """Attribute ``key`` (from ``values``, the element's with defaults) as numbers (Report.floats)."""
    probe = ET.Element(el.tag, {key: values[key]} if key in values else {})
    ctx.report.doc.lines[probe] = ctx.report.doc.line(el)
    ctx.report.doc.parents[probe] = ctx.report.doc.parents.get(el)  # type: ignore[assignment]
    if el.get("name"):
        probe.set("name", el.get("name", ""))
    return ctx.report.floats(probe, key, count, default)


def orientation(ctx: Context, el: ET.Element, values: dict[str, str]) -> FloatArray:
    """The frame rotation of an element (quat, axisangle, euler, xyaxes or zaxis; identity when none)."""
    given = [k for k in ("quat", "axisangle", "euler", "xyaxes", "zaxis") if k in values]
    if len(given) > 1:
        ctx.report.error(el, f"more than one orientation given ({', '.join(given)})")
        return np.eye(3)
    if not given:
        return np.eye(3)
    key = given[0]
    count = {"quat": 4, "axisangle": 4, "euler": 3, "xyaxes": 6, "zaxis": 3}[key]
    v = numbers(ctx, el, values, key, count)
    if v is None:
        return np.eye(3)
    if key == "quat":
        if np.linalg.norm(v) < EPS:
            ctx.report.error(el, "zero quaternion")
            return np.eye(3)
        return quat_matrix(v)
    if key == "axisangle":
        if np.linalg.norm(v[:3]) < EPS:
            ctx.report.error(el, "zero rotation axis")
            return np.eye(3)
        return axis_angle_matrix(v[:3], ctx.compiler.angle(v[3]))
    if key == "euler":
        R = np.eye(3)
        for ch, a in zip(ctx.compiler.eulerseq, v):
            Ri = axis_angle_matrix(np.eye(3)["xyz".index(ch.lower())], ctx.compiler.angle(a))
            R = R @ Ri if ch.islower() else Ri @ R  # rotating (intrinsic) or fixed (extrinsic) axes
        return R
    if key == "xyaxes":
        x, y = v[:3], v[3:]
        if np.linalg.norm(x) < EPS:
            ctx.report.error(el, "xyaxes: zero x axis")
            return np.eye(3)
        x = x / np.linalg.norm(x)
        y = y - (y @ x) * x
        if np.linalg.norm(y) < EPS:
            ctx.report.error(el, "xyaxes: y axis parallel to x")
            return np.eye(3)
        y = y / np.linalg.norm(y)
        return np.column_stack([x, y, np.cross(x, y)])
    z = v  # zaxis: the smallest rotation taking (0, 0, 1) to z
    if np.linalg.norm(z) < EPS:
        ctx.report.error(el, "zero zaxis")
        return np.eye(3)
    z = z / np.linalg.norm(z)
    c = np.cross([0.0, 0.0, 1.0], z)
    if np.linalg.norm(c) < 1e-12:
        return np.eye(3) if z[2] > 0 else axis_angle_matrix(np.array([1.0, 0, 0]), math.pi)
    return axis_angle_matrix(c, math.atan2(np.linalg.norm(c), z[2]))


def geom_shape(ctx: Context, el: ET.Element, values: dict[str, str]
               ) -> tuple[ShapeSpec | None, float, FloatArray]:
    """(drawing shape, mass [kg], principal inertia about its centre [kg m^2]) of a geom in its body frame.

    Solid bodies, MuJoCo's formulas: sphere m = rho 4/3 pi r^3, I = 2/5 m r^2; box (half sizes a, b, c)
    m = 8 rho a b c, I_x = m (b^2 + c^2)/3; cylinder (radius r, half length h) m = rho pi r^2 2h, I_z = m r^2/2,
    I_x = m (3 r^2 + 4 h^2)/12; capsule: that cylinder plus a sphere of radius r split at its ends, I_x += m_s
    (2/5 r^2 + h^2 + 3 r h/4), I_z += 2/5 m_s r^2; ellipsoid m = rho 4/3 pi a b c, I_x = m (b^2 + c^2)/5."""
    report = ctx.report
    kind = values.get("type", "sphere")
    none = (None, 0.0, np.zeros(3))
    if kind in ("mesh", "hfield", "sdf", "plane"):
        report.add(el, f"{kind} geom not drawn and without mass here (MuJoCo computes a mesh's mass from its "
                       "triangles; a plane or height field is static scenery)")
        return none
    if kind not in ("sphere", "capsule", "cylinder", "box", "ellipsoid"):
        report.error(el, f"unknown geom type {kind!r}")
        return none
    size = numbers(ctx, el, values, "size", None, [])
    if size is None:
        return none
    R = orientation(ctx, el, values)
    p = numbers(ctx, el, values, "pos", 3, [0.0, 0.0, 0.0])
    p = np.zeros(3) if p is None else p
    if "fromto" in values:
        if kind not in ("capsule", "cylinder"):
            report.error(el, f"fromto on a {kind} geom is not supported (capsule and cylinder only)")
            return none
        ft = numbers(ctx, el, values, "fromto", 6)
        if ft is None:
            return none
        d = ft[3:] - ft[:3]
        if np.linalg.norm(d) < EPS:
            report.error(el, "fromto: the two ends coincide")
            return none
        p = (ft[:3] + ft[3:]) / 2
        z = d / np.linalg.norm(d)
        c = np.cross([0.0, 0.0, 1.0], z)
        R = (np.eye(3) if z[2] > 0 else axis_angle_matrix(np.array([1.0, 0, 0]), math.pi)) \
            if np.linalg.norm(c) < 1e-12 else axis_angle_matrix(c, math.atan2(np.linalg.norm(c), z[2]))
        size = np.array([size[0] if len(size) else 0.0, np.linalg.norm(d) / 2])
    need = {"sphere": 1, "capsule": 2, "cylinder": 2, "box": 3, "ellipsoid": 3}[kind]
    if len(size) < need or np.any(size[:need] <= 0):
        report.error(el, f"{kind} geom: size needs {need} positive number{'s' if need > 1 else ''}")
        return none
    s = size[:need]
    if kind == "sphere":
        vol = 4 / 3 * math.pi * s[0] ** 3
        unit = np.full(3, 2 / 5 * s[0] ** 2) * vol
        shape = ShapeSpec("sphere", R, p, el, radius=float(s[0]))
    elif kind == "box":
        a, b, c = s
        vol = 8 * a * b * c
        unit = vol / 3 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
        shape = ShapeSpec("box", R, p, el, size=2 * s)
    elif kind == "ellipsoid":
        a, b, c = s
        vol = 4 / 3 * math.pi * a * b * c
        unit = vol / 5 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
        shape = ShapeSpec("sphere", R, p, el, radius=float(max(s)))
        report.add(el, "ellipsoid drawn as a sphere of its largest semi-axis (mass properties exact)")
    else:
        r, h = s
        vc = math.pi * r * r * 2 * h
        ix = vc * (3 * r * r + 4 * h * h) / 12
        iz = vc * r * r / 2
        vol = vc
        if kind == "capsule":
            vs = 4 / 3 * math.pi * r ** 3
            ix += vs * (2 / 5 * r * r + h * h + 3 * r * h / 4)
            iz += vs * 2 / 5 * r * r
            vol += vs
        unit = np.array([ix, ix, iz])
        shape = ShapeSpec("cylinder", R, p, el, radius=float(r), half_length=float(h))
    if "mass" in values:
        m = numbers(ctx, el, values, "mass", 1)
        mass = 0.0 if m is None else float(m[0])
        density = mass / vol
    else:
        dens = numbers(ctx, el, values, "density", 1, [DENSITY])
        density = DENSITY if dens is None else float(dens[0])
        mass = density * vol
    if mass < 0:
        report.error(el, f"negative geom mass {mass}")
        return none
    return shape, mass, unit * density


def read_inertial(ctx: Context, el: ET.Element) -> tuple[float, FloatArray, FloatArray] | None:
    """(mass, centre of mass, inertia about it) of an ``<inertial>``, body frame."""
    values = dict(el.attrib)
    m = numbers(ctx, el, values, "mass", 1)
    p = numbers(ctx, el, values, "pos", 3)
    if m is None or p is None:
        if "mass" not in values or "pos" not in values:
            ctx.report.error(el, "inertial needs mass and pos")
        return None
    R = orientation(ctx, el, values)
    if "fullinertia" in values:
        f = numbers(ctx, el, values, "fullinertia", 6)
        if f is None:
            return None
        J = np.array([[f[0], f[3], f[4]], [f[3], f[1], f[5]], [f[4], f[5], f[2]]])
    else:
        d = numbers(ctx, el, values, "diaginertia", 3)
        if d is None:
            if "diaginertia" not in values:
                ctx.report.error(el, "inertial needs diaginertia or fullinertia")
            return None
        J = np.diag(d)
    if m[0] < 0:
        ctx.report.error(el, f"negative mass {m[0]}")
        return None
    return float(m[0]), p, R @ J @ R.T


def read_joint(ctx: Context, el: ET.Element, values: dict[str, str], body: str, R: FloatArray, p: FloatArray
               ) -> dict[str, Any] | None:
    """One ``<joint>``: type, world anchor and axis, springs (dict), or None after an error."""
    report = ctx.report
    kind = "free" if el.tag == "freejoint" else values.get("type", "hinge")
    if kind not in ("hinge", "slide", "ball", "free"):
        report.error(el, f"unknown joint type {kind!r}")
        return None
    name = ctx.joints.take(el.get("name") or f"{body}_{kind}", el if el.get("name") else None)
    pos = numbers(ctx, el, values, "pos", 3, [0.0, 0.0, 0.0])
    axis = numbers(ctx, el, values, "axis", 3, [0.0, 0.0, 1.0])
    if pos is None or axis is None:
        return None
    if kind in ("hinge", "slide") and np.linalg.norm(axis) < EPS:
        report.error(el, "zero joint axis")
        return None
    j = {"el": el, "name": name, "kind": kind, "anchor": R @ pos + p, "axis": R @ axis / np.linalg.norm(axis),
         "fields": {}}
    if kind == "free":
        return j
    angle = ctx.compiler.angle if kind in ("hinge", "ball") else (lambda x: x)
    num = {k: numbers(ctx, el, values, k, 1, [0.0]) for k in ("stiffness", "damping", "springref", "ref",
                                                                "armature", "frictionloss")}
    val = {k: 0.0 if v is None else float(v[0]) for k, v in num.items()}
    for k in ("armature", "frictionloss"):
        if val[k]:
            report.add(el, f"joint {name!r}: {k} {val[k]:g} is not modelled (dropped)")
    if "range" in values and values.get("limited", "auto") != "false":
        report.add(el, f"joint {name!r}: range {values['range']} is not modelled (the joint moves freely)")
    if kind == "ball":
        if val["stiffness"] or val["damping"]:
            report.add(el, f"joint {name!r}: a ball joint's stiffness and damping are not imported (dropped)")
        return j
    if val["stiffness"] < 0 or val["damping"] < 0:
        report.error(el, "negative stiffness or damping")
        return None
    free = angle(val["springref"]) - angle(val["ref"])
    if kind == "hinge":
        j["fields"] = {"spring": val["stiffness"], "damping": val["damping"], "free_angle": free}
    else:
        j["fields"] = {"spring": val["stiffness"], "damping": val["damping"], "free_length": free}
    j["fields"] = {k: v for k, v in j["fields"].items() if v}
    return j


def joint_of_body(ctx: Context, el: ET.Element, parent: str | None, child: str, joints: list[dict[str, Any]]
                  ) -> JointSpec | None:
    """Our joint for the MuJoCo joints of one body (module docstring), None for a free body."""
    report = ctx.report
    if not joints:
        return JointSpec(f"{child}_weld", el, "merge", parent, child, np.zeros(3))
    if len(joints) == 1:
        j = joints[0]
        if j["kind"] == "free":
            if parent is not None:
                report.error(j["el"], "a free joint is allowed only in a body of the world body")
            return None
        kind = {"hinge": "hinge", "slide": "slider", "ball": "spherical"}[j["kind"]]
        return JointSpec(j["name"], j["el"], kind, parent, child, j["anchor"], j["axis"], fields=j["fields"])
    kinds = sorted(j["kind"] for j in joints)
    a, b = joints[0], joints[1]
    same_point = len(joints) == 2 and np.linalg.norm(a["anchor"] - b["anchor"]) < 1e-9
    if kinds == ["hinge", "slide"] and same_point and abs(abs(a["axis"] @ b["axis"]) - 1) < 1e-9:
        h, s = (a, b) if a["kind"] == "hinge" else (b, a)
        fields = dict(h["fields"])
        for key, ours in (("spring", "linear_spring"), ("damping", "linear_damping"), ("free_length", "free_length")):
            if key in s["fields"]:
                fields[ours] = s["fields"][key] * (1.0 if key != "free_length" else float(s["axis"] @ h["axis"]))
        # the slide is measured along the hinge's axis: a reversed slide axis flips the free length's sign
        report.add(el, f"joints {h['name']!r} (hinge) and {s['name']!r} (slide) on one axis imported as one "
                       f"cylindrical joint {h['name']!r} (its slide along the hinge axis)")
        return JointSpec(h["name"], el, "cylindrical", parent, child, h["anchor"], h["axis"], fields=fields)
    if kinds == ["hinge", "hinge"] and same_point and abs(a["axis"] @ b["axis"]) < 1e-9:
        if a["fields"] or b["fields"]:
            report.add(el, "stiffness and damping of a universal joint's hinges are not imported (dropped)")
        report.add(el, f"hinges {a['name']!r} and {b['name']!r} with perpendicular axes through one point "
                       f"imported as one universal joint {a['name']!r}")
        return JointSpec(a["name"], el, "universal", parent, child, a["anchor"], a["axis"], axis2=b["axis"])
    report.error(el, f"{len(joints)} joints in one body ({', '.join(j['kind'] for j in joints)}): MuJoCo composes "
                     "them through massless intermediate frames, which Mechanism Studio's bodies cannot be "
                     "(supported: a hinge and a slide on one axis, two perpendicular hinges through one point)")
    return None


def walk(ctx: Context, el: ET.Element, parent: str | None, R0: FloatArray, p0: FloatArray,
         childclass: str) -> None:
    """Read the children of body (or frame) ``el`` whose frame is (R0, p0) in the world; ``parent`` our link
    name of the enclosing body (None: the world)."""
    for child in el:
        if child.tag in ("body", "frame"):
            values = dict(child.attrib)
            pos = numbers(ctx, child, values, "pos", 3, [0.0, 0.0, 0.0])
            R = R0 @ orientation(ctx, child, values)
            p = R0 @ (np.zeros(3) if pos is None else pos) + p0
            cls = child.get("childclass", childclass)
            if child.tag == "frame":
                walk(ctx, child, parent, R, p, cls)
            else:
                read_body(ctx, child, parent, R, p, cls)
        elif child.tag == "geom" and parent is None:
            shape, _, _ = geom_shape(ctx, child, attrs(child, ctx, childclass))
            if shape is not None:
                ctx.ground_shapes.append((shape, R0, p0))
        elif child.tag in ("composite", "flexcomp", "flex", "replicate", "attach"):
            ctx.report.error(child, f"<{child.tag}> is not supported by the import")
        elif child.tag in ("joint", "freejoint", "inertial", "geom"):
            continue  # the body's own (read_body)
        elif child.tag not in ("site", "camera", "light", "plugin"):
            ctx.report.add(child, f"<{child.tag}> ignored")


def read_body(ctx: Context, el: ET.Element, parent: str | None, R: FloatArray, p: FloatArray,
              childclass: str) -> None:
    report = ctx.report
    file_name = el.get("name") or f"body{len(ctx.links) + 1}"
    name = ctx.bodies.take(file_name, el if el.get("name") else None)
    spec = LinkSpec(name, el, R, p)
    ctx.links.append(spec)
    ctx.frames[file_name] = (R, p)
    ctx.ours[file_name] = name
    if el.get("mocap") == "true":
        report.add(el, f"mocap body {file_name!r} is fixed to the ground (moved by the user in MuJoCo)")
    # mass properties
    inertial = el.find("inertial")
    parts: list[LinkSpec] = []
    for g in el.findall("geom"):
        shape, mass, unit = geom_shape(ctx, g, attrs(g, ctx, childclass))
        if shape is None:
            continue
        spec.shapes.append(shape)
        values = attrs(g, ctx, childclass)
        if "rgba" in values and spec.color is None:
            spec.color = color_of(numbers(ctx, g, values, "rgba", 4))
        parts.append(LinkSpec("", g, shape.R, shape.p, mass, np.zeros(3), np.diag(unit)))
    mode = ctx.compiler.inertiafromgeom
    if mode == "true" or (mode == "auto" and inertial is None):
        spec.mass, spec.com, spec.inertia = composite(parts, np.zeros(3)) if parts else (0.0, np.zeros(3),
                                                                                        np.zeros((3, 3)))
        if inertial is not None:
            report.add(inertial, "inertial ignored: inertiafromgeom=\"true\" takes the mass from the geoms")
    elif inertial is not None:
        got = read_inertial(ctx, inertial)
        if got is not None:
            spec.mass, spec.com, spec.inertia = got
    # joints
    joints = []
    for j in el:
        if j.tag in ("joint", "freejoint"):
            got_j = read_joint(ctx, j, attrs(j, ctx, childclass) if j.tag == "joint" else dict(j.attrib), name, R,
                               p)
            if got_j is not None:
                joints.append(got_j)
    if el.get("mocap") == "true":
        joints = []
        spec_joint: JointSpec | None = JointSpec(f"{name}_mocap", el, "merge", None, name, p)
    else:
        spec_joint = joint_of_body(ctx, el, parent, name, joints)
    if spec_joint is not None:
        ctx.specs.append(spec_joint)
    walk(ctx, el, name, R, p, childclass)


def read_equality(ctx: Context, eq: ET.Element) -> None:
    for c in eq:
        values = attrs(c, ctx, "main")
        b1, b2 = values.get("body1"), values.get("body2", "world")
        if c.tag not in ("connect", "weld"):
            ctx.report.add(c, f"equality <{c.tag}> not imported (connect and weld are)")
            continue
        if c.tag == "connect" and ("site1" in values or "body1" not in values):
            ctx.report.error(c, "connect: only the body1/body2/anchor form is supported")
            continue
        if c.tag == "weld" and ("site1" in values or "body1" not in values or "relpose" in values):
            ctx.report.error(c, "weld: only the body1/body2 form without relpose is supported")
            continue
        frames = [ctx.frames.get(b) if b != "world" else (np.eye(3), np.zeros(3)) for b in (b1, b2)]
        if frames[0] is None or frames[1] is None:
            ctx.report.error(c, f"{c.tag}: unknown body {b1 if frames[0] is None else b2!r}")
            continue
        R1, p1 = frames[0]
        anchor = numbers(ctx, c, values, "anchor", 3, [0.0, 0.0, 0.0])
        if anchor is None:
            continue
        if "solref" in values or "solimp" in values:
            ctx.report.add(c, f"{c.tag}: solref/solimp ignored (the constraint is exact here)")
        name = ctx.joints.take(c.get("name") or f"{c.tag}_{b1}_{b2}", c if c.get("name") else None)
        parent = None if b1 == "world" else ctx.ours[b1 or ""]
        child = None if b2 == "world" else ctx.ours[b2]
        if child is None:
            parent, child = child, parent
        kind = "spherical" if c.tag == "connect" else "fixed_joint"
        ctx.specs.append(JointSpec(name, c, kind, parent, child or "", R1 @ anchor + p1))


def model_from_mjcf(text: str, source: str = "<mjcf>", name: str | None = None
                    ) -> tuple[dict[str, Any], list[Any]]:
    """The model document of MJCF ``text`` and the import's warnings (Diagnostic records: file:line, element
    path, message). Errors raise one ModelError (core/interop/xmlsource.py)."""
    return mjcf_document(parse_xml(text, source), name)


def mjcf_document(doc: XmlDocument, name: str | None = None) -> tuple[dict[str, Any], list[Any]]:
    """:func:`model_from_mjcf` of a parsed file."""
    report, root = Report.of_root(doc, "mujoco", "an MJCF")
    compiler = Compiler()
    for c in root.findall("compiler"):
        if c.get("angle") is not None:
            if c.get("angle") not in ("degree", "radian"):
                report.error(c, f"compiler angle={c.get('angle')!r}: degree or radian")
            compiler.degrees = c.get("angle") != "radian"
        seq = c.get("eulerseq")
        if seq is not None:
            if len(seq) != 3 or any(ch not in "xyzXYZ" for ch in seq):
                report.error(c, f"compiler eulerseq={seq!r}: three of x, y, z, X, Y, Z")
            else:
                compiler.eulerseq = seq
        if c.get("inertiafromgeom") is not None:
            compiler.inertiafromgeom = c.get("inertiafromgeom", "auto")
        if c.get("coordinate", "local") != "local":
            report.error(c, "compiler coordinate=\"global\" is not supported (MuJoCo 2.3 removed it too)")
    for inc in root.iter("include"):
        report.error(inc, "<include> is not supported: merge the included file into this one")
    report.raise_errors()
    gravity = np.array([0.0, 0.0, -9.81])
    for opt in root.findall("option"):
        g = report.floats(opt, "gravity", 3)
        if g is not None:
            gravity = g
        flag = opt.find("flag")
        if flag is not None and flag.get("gravity") == "disable":
            gravity = np.zeros(3)
    ctx = Context(report, compiler, read_defaults(root, report), Names(report, "body", ("ground", "world")),
                  Names(report, "joint"))
    for child in root:
        if child.tag in DROPPED_SECTIONS and len(child):
            report.add(child, f"<{child.tag}> ignored: {DROPPED_SECTIONS[child.tag]}")
        elif child.tag not in IGNORED_SECTIONS | set(DROPPED_SECTIONS) | {"compiler", "option", "default",
                                                                          "worldbody", "equality", "include"}:
            report.add(child, f"<{child.tag}> ignored")
    for wb in root.findall("worldbody"):
        walk(ctx, wb, None, np.eye(3), np.zeros(3), "main")
    for eq in root.findall("equality"):
        read_equality(ctx, eq)
    free = [b for b in ctx.links if b.name not in {j.child for j in ctx.specs}]
    if free and not any(j.type in ("hinge", "slider", "cylindrical", "universal", "fixed_joint") for j in ctx.specs):
        report.error(free[0].el, f"free body {free[0].name!r}: free bodies are supported in models with hinge, "
                                 "slide or welded (equality weld) joints (maximal coordinates); a model of free "
                                 "bodies and ball joints only is not (its systems have no free bodies, or 3-1-3 "
                                 "Euler angles singular at the reference orientation)")
    report.raise_errors()
    model_name = name or root.get("model") or "mjcf_import"
    doc_json = build_document(model_name, f"Imported from the MJCF file {doc.source} (model {root.get('model')!r}), "
                                          "at its reference configuration, at rest.",
                              ctx.links, ctx.specs, ctx.ground_shapes, gravity, report)
    report.raise_errors()
    return doc_json, report.items


__all__ = ["Compiler", "axis_angle_matrix", "mjcf_document", "model_from_mjcf", "quat_matrix"]
