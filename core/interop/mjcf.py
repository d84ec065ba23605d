"""Export of spatial trees of spherical joints (``kind: spatial``) to MuJoCo's MJCF.

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
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import numpy as np
from scipy.spatial.transform import Rotation

from mechstudio.core.errors import Diagnostic, ModelError
from mechstudio.core.model.document import GROUND, Model
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
