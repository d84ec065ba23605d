"""A spatial model document from a robot description: the frames, mass properties, joints and shapes that the URDF
and MJCF readers (:mod:`~mechstudio.core.interop.urdf`, :mod:`~mechstudio.core.interop.mjcf_import`) collect, in
the world at the file's reference configuration (every joint coordinate zero).

Body frames. Each body's frame has its origin at the origin of its link (URDF) or body (MJCF) frame and is
**parallel to the world** at the reference configuration (initial quaternion (1, 0, 0, 0)). A rotation R of the
link frame (link -> world) is applied to the file's data: centre of mass R c, inertia about the centre of mass
R I R^T, points and shapes rotated likewise. So both ends of a joint give the same axis vector in their frames
(axis1 = axis2 = the world axis at the reference configuration), and the joint coordinate of every hinge and
slider (core/elements/spatial_joint.py: theta = atan2(f2.g1, f2.f1), s = h1.d) is zero there and equals the
file's joint position (revolute angle, prismatic displacement) at every pose, with the file's sign.

Merged links. A link attached by a weld whose child has no mass (a URDF ``fixed`` joint to a frame-only link, an
MJCF body without joints) is merged into its parent: masses add, the centre of mass is the mass-weighted mean and
the inertia about it follows the parallel-axis theorem (Steiner: I = sum_k [R_k I_k R_k^T + m_k (|d_k|^2 E - d_k
d_k^T)], d_k from the composite centre of mass to link k's). A merged link's shapes are drawn on its parent.
Merging into the ground is how a fixed base is handled.

Massless bodies. A moving body needs a positive mass (the mass matrix is singular otherwise): a massless leaf is
dropped with a warning; a massless body that carries others is an error.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechstudio.core.interop.xmlsource import Report
from mechstudio.core.types import FloatArray

GROUND = "ground"
#: zero below this (rotation entries that should be 0 or 1, masses)
EPS = 1e-12


@dataclass
class ShapeSpec:
    """A drawing shape in its link's frame: ``box`` (full edge lengths ``size``), ``sphere`` (``radius``) or
    ``cylinder`` (``radius``, ``half_length`` along the shape frame's z); frame (R, p) in the link frame."""
    type: str
    R: FloatArray
    p: FloatArray
    el: ET.Element | None
    size: FloatArray | None = None
    radius: float = 0.0
    half_length: float = 0.0


@dataclass
class LinkSpec:
    """A link (URDF) or body (MJCF): world pose (R link -> world, origin p) at the reference configuration; mass
    [kg], centre of mass and inertia about it in the link frame [m, kg m^2]; shapes; colour ``#rrggbb``."""
    name: str
    el: ET.Element | None
    R: FloatArray
    p: FloatArray
    mass: float = 0.0
    com: FloatArray = field(default_factory=lambda: np.zeros(3))
    inertia: FloatArray = field(default_factory=lambda: np.zeros((3, 3)))
    shapes: list[ShapeSpec] = field(default_factory=list)
    color: str | None = None


@dataclass
class JointSpec:
    """A joint between ``parent`` (a link name, or None for the ground) and ``child``: ``type`` one of ours
    (hinge, slider, cylindrical, universal, fixed_joint, spherical) or ``merge`` (the child is merged into the
    parent); ``anchor`` the joint point and ``axis`` (``axis2`` for a universal joint's second cross axis) in world
    components at the reference configuration; ``fields`` extra joint fields (spring, damping, free_angle, ...)."""
    name: str
    el: ET.Element | None
    type: str
    parent: str | None
    child: str
    anchor: FloatArray
    axis: FloatArray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    axis2: FloatArray | None = None
    fields: dict[str, Any] = field(default_factory=dict)


def clean_name(text: str) -> str:
    """A valid model name (a letter or _ then letters, digits, _ or -; at most 80 characters) from ``text``."""
    name = re.sub(r"[^A-Za-z0-9_\-]", "_", text or "")
    if not name or not (name[0].isalpha() or name[0] == "_"):
        name = "_" + name
    return name[:80]


class Names:
    """Unique valid names; a change is reported as a warning on the element."""

    def __init__(self, report: Report, what: str, reserved: tuple[str, ...] = ()):
        self.report, self.what = report, what
        self.used: set[str] = set(reserved)

    def take(self, wanted: str, el: ET.Element | None) -> str:
        name = base = clean_name(wanted)
        k = 2
        while name in self.used:
            name = f"{base[:75]}_{k}"
            k += 1
        self.used.add(name)
        if wanted and name != wanted:
            self.report.add(el, f"{self.what} {wanted!r} renamed {name!r} (model names are letters, digits, _ and "
                                f"-, unique, not 'ground')")
        return name


def vec(a: FloatArray) -> list[float]:
    """A JSON list of floats, tiny rounding noise (|x| < 1e-15) written as 0."""
    return [0.0 if abs(float(x)) < 1e-15 else float(x) for x in np.ravel(a)]


def color_of(rgba: FloatArray | None) -> str | None:
    if rgba is None or len(rgba) < 3:
        return None
    c = np.clip(np.asarray(rgba[:3], float), 0.0, 1.0)
    return "#" + "".join(f"{int(round(x * 255)):02x}" for x in c)


def shape_json(s: ShapeSpec, R: FloatArray, p: FloatArray, report: Report) -> dict[str, Any] | None:
    """Shape ``s`` of a link at (R, p) (link -> the body's world-parallel frame) as a model shape, or None with a
    note (a box turned against the body axes: our boxes are aligned with them)."""
    Rs, ps = R @ s.R, R @ s.p + p
    if s.type == "sphere":
        return {"type": "sphere", "center": vec(ps), "radius": float(s.radius)}
    if s.type == "cylinder":
        h = Rs[:, 2] * s.half_length
        return {"type": "cylinder", "from": vec(ps - h), "to": vec(ps + h), "radius": float(s.radius)}
    if s.type == "box" and s.size is not None:
        A = np.abs(Rs)
        if np.all((A < 1e-9) | (np.abs(A - 1.0) < 1e-9)):  # a signed permutation: still axis-aligned
            return {"type": "box", "center": vec(ps), "size": vec(np.round(A) @ s.size)}
        report.add(s.el, "box not drawn: it is turned against its body's axes (boxes are drawn axis-aligned)")
    return None


def composite(links: list[LinkSpec], origin: FloatArray) -> tuple[float, FloatArray, FloatArray]:
    """Mass, centre of mass (world-parallel, from ``origin``) and inertia about it of rigidly joined links
    (module docstring, Steiner)."""
    m = sum(lk.mass for lk in links)
    if m <= EPS:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    c = sum(lk.mass * (lk.R @ lk.com + lk.p) for lk in links) / m
    J = np.zeros((3, 3))
    for lk in links:
        d = lk.R @ lk.com + lk.p - c
        J += lk.R @ lk.inertia @ lk.R.T + lk.mass * (d @ d * np.eye(3) - np.outer(d, d))
    return m, c - origin, 0.5 * (J + J.T)


def build_document(name: str, description: str, links: list[LinkSpec], joints: list[JointSpec],
                   ground_shapes: list[tuple[ShapeSpec, FloatArray, FloatArray]], gravity: FloatArray,
                   report: Report) -> dict[str, Any]:
    """The spatial model document (module docstring). ``ground_shapes``: (shape, R, p) of shapes fixed to the
    world. Errors go to ``report`` (the caller raises them)."""
    by_name = {lk.name: lk for lk in links}
    owner: dict[str, str | None] = {lk.name: lk.name for lk in links}
    # merges, parents first (joints are listed from the root outwards)
    for j in joints:
        if j.type == "merge":
            owner[j.child] = owner[j.parent] if j.parent is not None else None
    members: dict[str | None, list[LinkSpec]] = {}
    for lk in links:
        members.setdefault(owner[lk.name], []).append(lk)
    moving = [j for j in joints if j.type != "merge"]
    # massless bodies: leaves are dropped, others refused
    dropped: set[str] = set()
    for body in [b for b in members if b is not None]:
        m = sum(lk.mass for lk in members[body])
        if m > EPS:
            continue
        carries = [j for j in moving if j.parent is not None and owner[j.parent] == body]
        el = by_name[body].el
        if carries:
            report.error(el, f"body {body!r} has no mass but carries other bodies (joint {carries[0].name!r}): "
                             "Mechanism Studio's moving bodies need a positive mass (give it an inertial)")
        else:
            report.add(el, f"body {body!r} dropped: it has no mass and carries nothing (a massless moving body "
                           "makes the mass matrix singular)")
            dropped.add(body)
    moving = [j for j in moving if owner[j.child] not in dropped]

    def body_of(link: str | None) -> str:
        o = owner[link] if link is not None else None
        return GROUND if o is None else o

    ground_points: dict[str, list[float]] = {}
    ground_geometry: list[dict[str, Any]] = []
    for s, R, p in ground_shapes:
        g = shape_json(s, R, p, report)
        if g is not None:
            ground_geometry.append(g)
    bodies: dict[str, dict[str, Any]] = {}
    for body, group in members.items():
        for lk in group:
            if body is None:
                g_list = ground_geometry
                base = np.zeros(3)
            else:
                base = by_name[body].p
                g_list = None
            for s in lk.shapes:
                g = shape_json(s, lk.R, lk.p - base, report)
                if g is None:
                    continue
                if g_list is not None:
                    g_list.append(g)
                else:
                    bodies.setdefault(body, {"geometry": []})["geometry"].append(g)
    out_bodies = []
    for lk in links:
        if owner[lk.name] != lk.name or lk.name in dropped:
            continue
        m, c, J = composite(members[lk.name], lk.p)
        body = {"name": lk.name, "mass": m, "inertia": [vec(row) for row in J], "com": vec(c), "points": {},
                "geometry": bodies.get(lk.name, {}).get("geometry", []),
                "initial": {"x": float(lk.p[0]), "y": float(lk.p[1]), "z": float(lk.p[2]),
                            "quaternion": [1.0, 0.0, 0.0, 0.0]}}
        color = next((x.color for x in members[lk.name] if x.color), None)
        if color:
            body["color"] = color
        out_bodies.append(body)
    body_json = {b["name"]: b for b in out_bodies}

    def point(body: str, label: str, world: FloatArray) -> str:
        if body == GROUND:
            ground_points[label] = vec(world)
        else:
            body_json[body]["points"][label] = vec(world - by_name[body].p)
        return label

    out_joints = []
    for j in moving:
        b1, b2 = body_of(j.parent), body_of(j.child)
        if b1 == b2:
            report.error(j.el, f"joint {j.name!r} joins body {b1!r} to itself (after merging welded links)")
            continue
        item: dict[str, Any] = {"name": j.name, "type": j.type, "body1": b1, "point1": point(b1, j.name, j.anchor),
                                "body2": b2, "point2": point(b2, j.name, j.anchor)}
        if j.type != "spherical":
            a1 = j.axis / np.linalg.norm(j.axis)
            a2 = a1 if j.axis2 is None else j.axis2 / np.linalg.norm(j.axis2)
            item["axis1"], item["axis2"] = vec(a1), vec(a2)
        item.update(j.fields)
        out_joints.append(item)
    return {"format": "mechanism-studio-model", "version": 1, "name": clean_name(name), "kind": "spatial",
            "description": description, "gravity": vec(gravity),
            "ground": {"points": ground_points, "geometry": ground_geometry},
            "bodies": out_bodies, "joints": out_joints,
            "simulation": {"t_end": 1.0, "dt": 0.01, "formulation": "projection", "integrator": "dop853",
                           "rtol": 1e-10, "atol": 1e-12}}


__all__ = ["EPS", "GROUND", "JointSpec", "LinkSpec", "Names", "ShapeSpec", "build_document", "clean_name",
           "color_of", "composite", "shape_json", "vec"]
