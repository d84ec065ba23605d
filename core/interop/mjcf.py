"""Export of spatial models to MuJoCo's MJCF: spherical-joint trees and models of spatial joints.

The tree becomes nested ``<body>`` elements, one ``type="ball"`` joint each, in the model's initial configuration:
every body's frame is placed relative to its parent from the assembled initial state (the file gives orientations
only; positions follow from the joints), so all ball-joint quaternions are the identity at the reference
configuration and the initial motion is a keyframe ``initial`` whose ``qvel`` holds each joint's relative angular
velocity in the child body's frame, R_B^T (omega_B - omega_P) (MuJoCo's convention for ball joints), with
omega = 2 vec(p' * conj(p)) from the quaternion rates of the initial state (p maps body to world, scalar first,
as MuJoCo's ``quat``). Mass, centre of mass and the full inertia tensor (about the centre of mass, body axes) go
into ``<inertial>``; geometry is drawn (cylinders, spheres, boxes) but has no mass and no contacts
(``inertiafromgeom="false"``, ``contype="0" conaffinity="0"``). Gravity and a fixed-step RK4 integrator
(``timestep``) are set in ``<option>``.

Refused (a :class:`~core.errors.ModelError` naming the entry): planar models, joints other than spherical, a
moving ground, forces and drivers (MJCF equivalents exist, but a model using them would not run the same).

Models of spatial joints (``hinge``, ``slider``, ``cylindrical``, ``universal``, ``fixed_joint``, ``spherical``;
:func:`maximal_to_mjcf`): a spanning tree from the ground becomes the nesting of bodies, placed as above from the
assembled initial state; each tree joint becomes joints of the child body at its point: hinge -> ``hinge``, slider
-> ``slide``, cylindrical -> ``hinge`` and ``slide`` (``<name>_slide``) on the same axis, universal -> two
``hinge``s ``<name>_1`` (the parent's cross axis) and ``<name>_2`` (the child's: MuJoCo composes the joints of a
body in order, so the first axis stays fixed in the parent and the second in the child, a Cardan joint),
spherical -> ``ball``, fixed_joint -> none (a MuJoCo body without joints is welded to its parent). Axes point along
axis1 as seen from the child, so MuJoCo's qpos is our joint coordinate minus its initial value: a spring's
``springref`` is free_angle (free_length) minus the initial angle (slide); the keyframe's qvel holds the joint
rates. A body the ground does not reach gets a ``freejoint``. A loop-closing spherical joint becomes an
``<equality><connect>`` at point1, a loop-closing hinge two connects on its axis (HINGE_CONNECT_SPAN apart); both
are soft in MuJoCo (``solref`` 0.5 ms: the loop closes to about 1e-6 of the motion, not exactly). Refused: driven
joint coordinates, joint torques and forces (time functions), force elements, other loop-closing joints.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import numpy as np
from scipy.spatial.transform import Rotation

from mechstudio.core.errors import Diagnostic, ModelError
from mechstudio.core.model.document import GROUND, Model
from mechstudio.core.model.spatial_joints import uses_maximal_joints
from mechstudio.core.simulate import initial_state
from mechstudio.core.systems.compile import compile_model

DEFAULT_TIMESTEP_S = 1e-4


def _fmt(values: Any) -> str:
    return " ".join(repr(float(v)) for v in np.ravel(values))


def _wxyz(rotation: np.ndarray) -> np.ndarray:
    x, y, z, w = Rotation.from_matrix(rotation).as_quat()
    return np.array([w, x, y, z])


def _check(model: Model) -> list[Diagnostic]:
    data, src = model.data, model.source
    out = []
    if model.kind != "spatial":
        out.append(Diagnostic(src, "/kind", "MJCF export handles spatial trees of spherical joints; this model is "
                                            f"{model.kind}"))
    for k, j in enumerate(data.get("joints", [])):
        if j.get("type") != "spherical":
            out.append(Diagnostic(src, f"/joints/{k}/type", f"joint type {j.get('type')!r} is not exported (only "
                                                            "spherical)"))
    for key in ("forces", "drivers"):
        if data.get(key):
            out.append(Diagnostic(src, f"/{key}", f"{key} are not exported to MJCF"))
    if data.get("ground", {}).get("motion"):
        out.append(Diagnostic(src, "/ground/motion", "a moving ground is not exported to MJCF"))
    return out


def _geoms(parent: ET.Element, body: dict[str, Any], rgba: str) -> None:
    points = body.get("points", {})

    def at(ref: Any) -> list[float]:  # a point name or coordinates
        return list(points[ref]) if isinstance(ref, str) else list(ref)

    for g in body.get("geometry", []):
        common = {"contype": "0", "conaffinity": "0", "mass": "0", "rgba": rgba}
        if g["type"] == "cylinder":
            ET.SubElement(parent, "geom", type="cylinder", fromto=_fmt(at(g["from"]) + at(g["to"])),
                          size=_fmt([g["radius"]]), **common)
        elif g["type"] == "sphere":
            ET.SubElement(parent, "geom", type="sphere", pos=_fmt(at(g.get("center", [0, 0, 0]))),
                          size=_fmt([g["radius"]]), **common)
        elif g["type"] == "box" and "size" in g:
            ET.SubElement(parent, "geom", type="box", pos=_fmt(at(g.get("center", [0, 0, 0]))),
                          size=_fmt(np.asarray(g["size"], float) / 2), **common)


def _rgba(color: str | None) -> str:
    if color and len(color) == 7 and color.startswith("#"):
        return _fmt([int(color[i:i + 2], 16) / 255 for i in (1, 3, 5)] + [1.0])
    return "0.6 0.6 0.6 1"


def to_mjcf(model: Model, timestep: float = DEFAULT_TIMESTEP_S) -> str:
    """The MJCF text of ``model`` (see module docstring); raises ModelError for what cannot be exported."""
    if uses_maximal_joints(model.data):
        return maximal_to_mjcf(model, timestep)
    problems = _check(model)
    if problems:
        raise ModelError(problems)
    system = compile_model(model)
    state = initial_state(system)
    if not state.status.ok:
        raise ModelError([Diagnostic(model.source, "", f"the initial state does not assemble: {state.message}")])
    bodies = {b["name"]: b for b in model.data["bodies"]}
    frames = {name: system.body_frame_pose(state.q, name) for name in bodies}
    omega = {}
    for name in bodies:
        k = system.coord_names.index(f"{name}.q0")
        p, pd = state.q[k:k + 4] / np.linalg.norm(state.q[k:k + 4]), state.v[k:k + 4]
        # omega_world = 2 vec(p' * conj(p)) (Hamilton product, scalar first)
        w0, v0 = pd[0], pd[1:]
        w1, v1 = p[0], -p[1:]
        omega[name] = 2 * (w0 * v1 + w1 * v0 + np.cross(v0, v1))
    omega[GROUND] = np.zeros(3)
    root = ET.Element("mujoco", model=model.name or "mechanism")
    ET.SubElement(root, "compiler", angle="radian", inertiafromgeom="false")
    ET.SubElement(root, "option", gravity=_fmt(model.data.get("gravity", [0, 0, -9.81])), timestep=repr(timestep),
                  integrator="RK4")
    world = ET.SubElement(root, "worldbody")
    elements: dict[str, ET.Element] = {GROUND: world}
    qvel: dict[str, np.ndarray] = {}
    pending = list(model.data["joints"])
    while pending:
        progressed = False
        for j in list(pending):
            parent, child = j["body1"], j["body2"]
            if parent not in elements:
                continue
            if child in elements:
                raise ModelError([Diagnostic(model.source, "/joints", f"body {child!r} has two parent joints: not "
                                                                      "a tree")])
            r_c, A_c = frames[child]
            if parent == GROUND:
                r_p, A_p = np.zeros(3), np.eye(3)
            else:
                r_p, A_p = frames[parent]
            el = ET.SubElement(elements[parent], "body", name=child, pos=_fmt(A_p.T @ (r_c - r_p)),
                               quat=_fmt(_wxyz(A_p.T @ A_c)))
            point2 = j["point2"]
            ET.SubElement(el, "joint", name=j["name"], type="ball",
                          pos=_fmt(bodies[child]["points"][point2] if isinstance(point2, str) else point2),
                          damping="0", armature="0")
            b = bodies[child]
            inertia = np.asarray(b["inertia"], float)
            ET.SubElement(el, "inertial", pos=_fmt(b.get("com", [0, 0, 0])), mass=repr(float(b["mass"])),
                          fullinertia=_fmt([inertia[0, 0], inertia[1, 1], inertia[2, 2], inertia[0, 1],
                                            inertia[0, 2], inertia[1, 2]]))
            _geoms(el, b, _rgba(b.get("color")))
            qvel[child] = A_c.T @ (omega[child] - omega[parent])
            elements[child] = el
            pending.remove(j)
            progressed = True
        if not progressed:
            raise ModelError([Diagnostic(model.source, "/joints", "some bodies are not connected to the ground")])
    order = [el.get("name") for el in world.iter("body")]  # MuJoCo numbers the joints depth-first, as written
    keyframe = ET.SubElement(root, "keyframe")
    ET.SubElement(keyframe, "key", name="initial", qpos=_fmt([1.0, 0.0, 0.0, 0.0] * len(order)),
                  qvel=_fmt([qvel[name] for name in order]))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode") + "\n"


# --- models of spatial joints in maximal coordinates ------------------------------------------------------------------
#: length [m] between the two connect points that close a loop at a hinge
HINGE_CONNECT_SPAN = 0.1


def _maximal_check(model: Model) -> list[Diagnostic]:
    data, src = model.data, model.source
    out = []
    for k, j in enumerate(data.get("joints", [])):
        for key in ("angle", "slide"):
            if j.get(key) is not None:
                out.append(Diagnostic(src, f"/joints/{k}/{key}", f"joint {j['name']!r}: a driven joint coordinate "
                                                                  "is not exported (MuJoCo has no prescribed "
                                                                  "motion; an actuator would not run the same)"))
        for key in ("torque", "force"):
            if j.get(key) is not None and j.get("type") != "spherical":
                out.append(Diagnostic(src, f"/joints/{k}/{key}", f"joint {j['name']!r}: a joint {key} (time "
                                                                  "function) is not exported"))
    if data.get("forces"):
        out.append(Diagnostic(src, "/forces", "forces are not exported to MJCF"))
    return out


def _spanning_tree(model: Model) -> tuple[list[tuple[dict[str, Any], str, str]], list[dict[str, Any]]]:
    """(tree joints as (joint, parent, child) from the ground outwards, loop-closing joints)."""
    joints = list(model.data["joints"])
    reached = {GROUND}
    tree: list[tuple[dict[str, Any], str, str]] = []
    progressed = True
    while progressed:
        progressed = False
        for j in joints:
            if any(j is t[0] for t in tree):
                continue
            a, b = j["body1"], j["body2"]
            if (a in reached) != (b in reached):
                parent, child = (a, b) if a in reached else (b, a)
                tree.append((j, parent, child))
                reached.add(child)
                progressed = True
    loops = [j for j in joints if not any(j is t[0] for t in tree) and not (j["body1"] not in reached
                                                                               and j["body2"] not in reached)]
    # joints among bodies the ground does not reach: a free sub-tree, its first body free
    for j in joints:
        if not any(j is t[0] for t in tree) and j not in loops:
            loops.append(j)
    return tree, loops


def maximal_to_mjcf(model: Model, timestep: float = DEFAULT_TIMESTEP_S) -> str:
    """MJCF of a spatial model with hinge, slider, cylindrical, universal, fixed and spherical joints (module
    docstring of this section: :func:`to_mjcf`)."""
    problems = _maximal_check(model)
    if model.data.get("ground", {}).get("motion"):
        problems.append(Diagnostic(model.source, "/ground/motion", "a moving ground is not exported to MJCF"))
    if problems:
        raise ModelError(problems)
    system = compile_model(model)
    state = initial_state(system)
    if not state.status.ok:
        raise ModelError([Diagnostic(model.source, "", f"the initial state does not assemble: {state.message}")])
    src = model.source
    bodies = {b["name"]: b for b in model.data["bodies"]}
    index = {j["name"]: k for k, j in enumerate(model.data["joints"])}
    frames = {name: system.body_frame_pose(state.q, name) for name in bodies}
    frames[GROUND] = (np.zeros(3), np.eye(3))
    coords = system.joint_coordinates(state.q[None], state.v[None])
    omega: dict[str, np.ndarray] = {GROUND: np.zeros(3)}
    vel: dict[str, np.ndarray] = {}
    for name in bodies:
        k = system.coord_names.index(f"{name}.x")
        p, pd = state.q[k + 3:k + 7], state.v[k + 3:k + 7]
        w0, v0, w1, v1 = pd[0], pd[1:], p[0], -p[1:]
        omega[name] = 2 * (w0 * v1 + w1 * v0 + np.cross(v0, v1)) / (p @ p)  # 2 vec(p' conj(p))
        r_o, A = frames[name]
        vel[name] = state.v[k:k + 3] - np.cross(omega[name], state.q[k:k + 3] - r_o)  # the frame origin's
    tree, loops = _spanning_tree(model)

    def point(body: str, ref: Any) -> np.ndarray:
        pts = model.data.get("ground", {}).get("points", {}) if body == GROUND else bodies[body].get("points", {})
        return np.asarray(pts[ref] if isinstance(ref, str) else ref, float)[:3]

    def unit(v: Any) -> np.ndarray:
        a = np.asarray(v, float)
        return a / np.linalg.norm(a)

    root = ET.Element("mujoco", model=model.name or "mechanism")
    ET.SubElement(root, "compiler", angle="radian", inertiafromgeom="false")
    ET.SubElement(root, "option", gravity=_fmt(model.data.get("gravity", [0, 0, -9.81])), timestep=repr(timestep),
                  integrator="RK4")
    world = ET.SubElement(root, "worldbody")
    elements: dict[str, ET.Element] = {GROUND: world}
    qpos: dict[str, list[float]] = {}
    qvel: dict[str, list[float]] = {}

    def add_body(parent: str, child: str) -> ET.Element:
        r_c, A_c = frames[child]
        r_p, A_p = frames[parent]
        el = ET.SubElement(elements[parent], "body", name=child, pos=_fmt(A_p.T @ (r_c - r_p)),
                           quat=_fmt(_wxyz(A_p.T @ A_c)))
        b = bodies[child]
        J = np.asarray(b["inertia"], float)
        ET.SubElement(el, "inertial", pos=_fmt(b.get("com", [0, 0, 0])), mass=repr(float(b["mass"])),
                      fullinertia=_fmt([J[0, 0], J[1, 1], J[2, 2], J[0, 1], J[0, 2], J[1, 2]]))
        _geoms(el, b, _rgba(b.get("color")))
        elements[child] = el
        qpos[child], qvel[child] = [], []
        return el

    for j, parent, child in tree:
        el = add_body(parent, child)
        forward = j["body1"] == parent
        A_c = frames[child][1]
        here = point(child, j["point2"] if forward else j["point1"])
        h1 = frames[j["body1"]][1] @ unit(j.get("axis1", [0, 0, 1]))
        h2 = frames[j["body2"]][1] @ unit(j.get("axis2", [0, 0, 1]))
        sign = 1.0 if forward else -1.0
        w_rel = omega[child] - omega[parent]
        name, kind = j["name"], j["type"]
        if kind in ("hinge", "cylindrical"):
            attrs = {"name": name, "type": "hinge", "pos": _fmt(here), "axis": _fmt(A_c.T @ (sign * h1))}
            theta = float(coords[f"{name}.angle"][0])
            if j.get("spring") or j.get("damping"):
                attrs.update(stiffness=repr(float(j.get("spring", 0.0))), damping=repr(float(j.get("damping", 0.0))),
                             springref=repr(float(j.get("free_angle", 0.0)) - theta))
            ET.SubElement(el, "joint", **attrs)
            qpos[child].append(0.0)
            qvel[child].append(float(coords[f"{name}.angle_rate"][0]))
        if kind in ("slider", "cylindrical"):
            lin = "linear_" if kind == "cylindrical" else ""
            attrs = {"name": name if kind == "slider" else f"{name}_slide", "type": "slide", "pos": _fmt(here),
                     "axis": _fmt(A_c.T @ (sign * h1))}
            s = float(coords[f"{name}.slide"][0])
            if j.get(f"{lin}spring") or j.get(f"{lin}damping"):
                attrs.update(stiffness=repr(float(j.get(f"{lin}spring", 0.0))),
                             damping=repr(float(j.get(f"{lin}damping", 0.0))),
                             springref=repr(float(j.get("free_length", 0.0)) - s))
            ET.SubElement(el, "joint", **attrs)
            qpos[child].append(0.0)
            qvel[child].append(float(coords[f"{name}.slide_rate"][0]))
        if kind == "universal":
            first, second = (h1, h2) if forward else (h2, h1)  # MuJoCo: the first axis is fixed in the parent
            for suffix, axis in (("_1", first), ("_2", second)):
                ET.SubElement(el, "joint", name=name + suffix, type="hinge", pos=_fmt(here), axis=_fmt(A_c.T @ axis))
                qpos[child].append(0.0)
                qvel[child].append(float(axis @ w_rel))
        if kind == "spherical":
            ET.SubElement(el, "joint", name=name, type="ball", pos=_fmt(here))
            qpos[child].extend([1.0, 0.0, 0.0, 0.0])
            qvel[child].extend(A_c.T @ w_rel)
        # fixed_joint: no joint element (a MuJoCo body without joints is welded to its parent)
    for name in bodies:
        if name not in elements:  # not reached from the ground: a free body (its joints, if any, close loops)
            el = add_body(GROUND, name)
            r_c, A_c = frames[name]
            ET.SubElement(el, "freejoint", name=f"{name}_free")
            qpos[name].extend([*r_c, *_wxyz(A_c)])
            qvel[name].extend([*vel[name], *(A_c.T @ omega[name])])
            # move the free body's frame to the world origin: its pose is in qpos
            el.set("pos", "0 0 0")
            el.set("quat", "1 0 0 0")
    free_subtrees = [j for j in loops if j["body1"] not in {t[2] for t in tree} | {GROUND}
                     and j["body2"] not in {t[2] for t in tree} | {GROUND}]
    equality = None
    closing = []
    for j in loops:
        k = index[j["name"]]
        b1, b2 = j["body1"], j["body2"]
        anchor = point(b1, j["point1"])
        if j["type"] == "spherical":
            closing.append({"name": j["name"], "body1": b1, "body2": b2, "anchor": _fmt(anchor)})
        elif j["type"] == "hinge":
            a1 = unit(j.get("axis1", [0, 0, 1]))
            closing.append({"name": f"{j['name']}_a", "body1": b1, "body2": b2, "anchor": _fmt(anchor)})
            closing.append({"name": f"{j['name']}_b", "body1": b1, "body2": b2,
                            "anchor": _fmt(anchor + HINGE_CONNECT_SPAN * a1)})
        else:
            problems.append(Diagnostic(src, f"/joints/{k}", f"joint {j['name']!r} ({j['type']}) closes a loop: only "
                                                            "spherical and hinge joints close loops in the export "
                                                            "(as MuJoCo <connect> constraints)"))
    if free_subtrees:
        problems.append(Diagnostic(src, f"/joints/{index[free_subtrees[0]['name']]}",
                                   "bodies joined to each other but not to the ground are not exported"))
    if problems:
        raise ModelError(problems)
    if closing:
        equality = ET.SubElement(root, "equality")
        for c in closing:
            if c["body1"] == GROUND:
                c["body1"] = "world"
            if c["body2"] == GROUND:
                c["body2"] = "world"
            ET.SubElement(equality, "connect", solref="0.0005 1", **c)
    order = [el.get("name") for el in world.iter("body")]  # MuJoCo numbers the joints depth-first, as written
    keyframe = ET.SubElement(root, "keyframe")
    ET.SubElement(keyframe, "key", name="initial", qpos=_fmt([x for n in order for x in qpos[n]]),
                  qvel=_fmt([x for n in order for x in qvel[n]]))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode") + "\n"
