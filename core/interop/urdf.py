"""URDF (the ROS Unified Robot Description Format) to a spatial Mechanism Studio model.

What is read (the URDF specification, wiki.ros.org/urdf/XML):

* ``<link>``: ``<inertial>`` with ``<origin xyz rpy>`` (the centre of mass and the axes of the inertia tensor in
  the link frame), ``<mass value>`` and ``<inertia ixx ixy ixz iyy iyz izz>`` (about the centre of mass, in the
  inertial frame: rotated into the link frame as R I R^T); ``<visual>`` (or, for a link without visuals,
  ``<collision>``) shapes ``box``, ``cylinder`` (along its frame's z), ``sphere`` for drawing; ``<mesh>`` is
  skipped with a note. A link without ``<inertial>`` has no mass.
* ``<joint>``: ``<parent link>``, ``<child link>``, ``<origin xyz rpy>`` (the child link frame in the parent link
  frame at joint position 0), ``<axis xyz>`` (default 1 0 0, in the child frame); ``revolute`` and
  ``continuous`` -> ``hinge``, ``prismatic`` -> ``slider``, ``fixed`` -> ``fixed_joint`` (a child without mass is
  merged into its parent instead: core/interop/spatial_build.py); ``<dynamics damping>`` -> the joint's damper.
  ``floating`` and ``planar`` joints are refused.
* rpy are fixed-axis roll, pitch, yaw: R = Rz(yaw) Ry(pitch) Rx(roll) (URDF's convention).

Warnings (the model is still written): position limits (not modelled: the joint moves freely), effort and
velocity limits (ignored: no actuators), ``<dynamics friction>``, ``<mimic>`` (the joints move independently),
``<transmission>``, ``<gazebo>`` and other elements, meshes. The root link is fixed to the ground (URDF's
convention; a mobile base would need a floating joint); its mass does not matter and its shapes are drawn on the
ground. Initial pose: every joint at 0 (body frames parallel to the world, core/interop/spatial_build.py).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import numpy as np

from mechstudio.core.interop.spatial_build import (EPS, JointSpec, LinkSpec, Names, ShapeSpec, build_document,
                                                   color_of)
from mechstudio.core.interop.xmlsource import Report, XmlDocument, parse_xml
from mechstudio.core.types import FloatArray

JOINT_TYPES = {"revolute": "hinge", "continuous": "hinge", "prismatic": "slider", "fixed": "fixed_joint"}


def rpy_matrix(rpy: FloatArray) -> FloatArray:
    """URDF's rotation of ``rpy`` = (roll, pitch, yaw) [rad]: Rz(yaw) Ry(pitch) Rx(roll) (fixed axes x, y, z)."""
    r, p, y = (float(a) for a in rpy)
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    Rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    Ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    Rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


def origin_of(el: ET.Element | None, report: Report) -> tuple[FloatArray, FloatArray]:
    """(R, p) of an ``<origin>`` child of ``el`` (identity when absent)."""
    o = el.find("origin") if el is not None else None
    if o is None:
        return np.eye(3), np.zeros(3)
    xyz = report.floats(o, "xyz", 3, [0.0, 0.0, 0.0])
    rpy = report.floats(o, "rpy", 3, [0.0, 0.0, 0.0])
    return rpy_matrix(rpy if rpy is not None else np.zeros(3)), xyz if xyz is not None else np.zeros(3)


def read_inertial(link: ET.Element, spec: LinkSpec, report: Report) -> None:
    inertial = link.find("inertial")
    if inertial is None:
        return
    R, p = origin_of(inertial, report)
    mass_el = inertial.find("mass")
    mass = report.number(mass_el, "value", None) if mass_el is not None else None
    if mass is None:
        report.error(inertial, "inertial without <mass value=...>")
        return
    if mass < 0:
        report.error(mass_el, f"negative mass {mass}")
        return
    i_el = inertial.find("inertia")
    vals = {}
    for key in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"):
        v = report.number(i_el, key, 0.0) if i_el is not None else 0.0
        vals[key] = 0.0 if v is None else v
    if i_el is None and mass > 0:
        report.add(inertial, "no <inertia>: a point mass (zero inertia tensor) is assumed")
    I = np.array([[vals["ixx"], vals["ixy"], vals["ixz"]],
                  [vals["ixy"], vals["iyy"], vals["iyz"]],
                  [vals["ixz"], vals["iyz"], vals["izz"]]])
    spec.mass, spec.com, spec.inertia = mass, p, R @ I @ R.T


def read_shapes(link: ET.Element, spec: LinkSpec, materials: dict[str, str], report: Report) -> None:
    items = link.findall("visual") or link.findall("collision")
    for v in items:
        R, p = origin_of(v, report)
        g = v.find("geometry")
        shape = g[0] if g is not None and len(g) else None
        if shape is None:
            report.add(v, "no geometry: nothing drawn")
            continue
        if shape.tag == "box":
            size = report.floats(shape, "size", 3)
            if size is not None:
                spec.shapes.append(ShapeSpec("box", R, p, shape, size=size))
        elif shape.tag == "sphere":
            r = report.number(shape, "radius", None)
            if r is not None and r > 0:
                spec.shapes.append(ShapeSpec("sphere", R, p, shape, radius=r))
        elif shape.tag == "cylinder":
            r, length = report.number(shape, "radius", None), report.number(shape, "length", None)
            if r is not None and length is not None and r > 0:
                spec.shapes.append(ShapeSpec("cylinder", R, p, shape, radius=r, half_length=length / 2))
        else:
            report.add(shape, f"{shape.tag} not drawn: only box, cylinder and sphere shapes are imported")
        mat = v.find("material")
        if mat is not None and spec.color is None:
            c = mat.find("color")
            if c is not None:
                spec.color = color_of(report.floats(c, "rgba", 4))
            else:
                spec.color = materials.get(mat.get("name", ""))


def read_joint(el: ET.Element, name: str, report: Report) -> tuple[str | None, dict[str, Any]]:
    """Our joint type for ``el`` (None after an error) and its extra fields; warnings for what is dropped."""
    kind = el.get("type")
    if kind in ("floating", "planar"):
        report.error(el, f"joint type {kind!r} is not supported (a {kind} joint gives the child "
                         f"{'6' if kind == 'floating' else '3'} degrees of freedom; Mechanism Studio's spatial "
                         "joints are hinge, slider, cylindrical, universal, spherical and fixed_joint)")
        return None, {}
    if kind not in JOINT_TYPES:
        report.error(el, f"unknown joint type {kind!r} (URDF: revolute, continuous, prismatic, fixed, floating, "
                         "planar)")
        return None, {}
    fields: dict[str, Any] = {}
    limit = el.find("limit")
    if limit is not None and kind != "fixed":
        if kind != "continuous" and (limit.get("lower") is not None or limit.get("upper") is not None):
            report.add(limit, f"joint {name!r}: position limits lower={limit.get('lower', '0')} "
                              f"upper={limit.get('upper', '0')} are not modelled (the joint moves freely)")
        dropped = [k for k in ("effort", "velocity") if limit.get(k) is not None]
        if dropped:
            report.add(limit, f"joint {name!r}: {' and '.join(dropped)} limits ignored (no actuators are "
                              "imported)")
    elif kind == "revolute" or kind == "prismatic":
        report.add(el, f"joint {name!r}: a {kind} joint without <limit> (URDF requires one); imported as free")
    dyn = el.find("dynamics")
    if dyn is not None and kind != "fixed":
        damping = report.number(dyn, "damping", 0.0)
        if damping:
            if damping < 0:
                report.error(dyn, f"negative damping {damping}")
            else:
                fields["damping"] = damping
        if report.number(dyn, "friction", 0.0):
            report.add(dyn, f"joint {name!r}: Coulomb friction is not modelled for spatial joints (dropped)")
    for tag, why in (("mimic", "the joint moves on its own; a mimic coupling is not modelled"),
                     ("calibration", "calibration data is not used"),
                     ("safety_controller", "safety-controller limits are not modelled")):
        sub = el.find(tag)
        if sub is not None:
            report.add(sub, f"joint {name!r}: <{tag}> ignored: {why}")
    return JOINT_TYPES[kind], fields


def model_from_urdf(text: str, source: str = "<urdf>", name: str | None = None
                    ) -> tuple[dict[str, Any], list[Any]]:
    """The model document of URDF ``text`` and the import's warnings (Diagnostic records: file:line, element
    path, message). Errors raise one ModelError (core/interop/xmlsource.py)."""
    return urdf_document(parse_xml(text, source), name)


def urdf_document(doc: XmlDocument, name: str | None = None) -> tuple[dict[str, Any], list[Any]]:
    """:func:`model_from_urdf` of a parsed file."""
    report, robot = Report.of_root(doc, "robot", "a URDF")
    materials = {}
    for m in robot.findall("material"):
        c = m.find("color")
        if c is not None and m.get("name"):
            materials[m.get("name", "")] = color_of(report.floats(c, "rgba", 4))
    for child in robot:
        if child.tag not in ("link", "joint", "material"):
            report.add(child, f"<{child.tag}> ignored (not part of the mechanism's dynamics)")
    body_names = Names(report, "link", reserved=("ground",))
    link_els: dict[str, ET.Element] = {}
    ours: dict[str, str] = {}
    for el in robot.findall("link"):
        nm = el.get("name")
        if not nm:
            report.error(el, "link without a name")
            continue
        if nm in link_els:
            report.error(el, f"link {nm!r} defined twice")
            continue
        link_els[nm] = el
        ours[nm] = body_names.take(nm, el)
    joint_names = Names(report, "joint")
    children: dict[str, list[ET.Element]] = {}
    parent_of: dict[str, ET.Element] = {}
    for el in robot.findall("joint"):
        p_el, c_el = el.find("parent"), el.find("child")
        parent, child = (p_el.get("link") if p_el is not None else None), (c_el.get("link") if c_el is not None
                                                                           else None)
        if parent is None or child is None:
            report.error(el, "joint without <parent link=...> and <child link=...>")
            continue
        missing = [x for x in (parent, child) if x not in link_els]
        if missing:
            report.error(el, f"joint refers to undefined link {missing[0]!r}")
            continue
        if child in parent_of:
            report.error(el, f"link {child!r} is the child of two joints ({parent_of[child].get('name')!r} and "
                             f"{el.get('name')!r}): URDF describes trees")
            continue
        parent_of[child] = el
        children.setdefault(parent, []).append(el)
    report.raise_errors()
    roots = [nm for nm in link_els if nm not in parent_of]
    if len(roots) != 1:
        report.error(robot, f"expected one root link (a link that is no joint's child), found "
                            f"{len(roots)}: {', '.join(roots) if roots else 'none (a loop of joints)'}")
        report.raise_errors()
    root = roots[0]
    report.add(link_els[root], f"root link {root!r} is fixed to the ground (URDF convention): its mass is not "
                               "used; its shapes are drawn on the ground")
    links: list[LinkSpec] = []
    joints: list[JointSpec] = []
    stack: list[tuple[str, FloatArray, FloatArray]] = [(root, np.eye(3), np.zeros(3))]
    while stack:
        nm, R, p = stack.pop(0)
        spec = LinkSpec(ours[nm], link_els[nm], R, p)
        read_inertial(link_els[nm], spec, report)
        read_shapes(link_els[nm], spec, materials, report)
        links.append(spec)
        if nm == root:
            joints.append(JointSpec("base", link_els[nm], "merge", None, spec.name, p))
        for el in children.get(nm, []):
            child = el.find("child").get("link")  # type: ignore[union-attr]
            jname = joint_names.take(el.get("name") or f"{child}_joint", el)
            Ro, po = origin_of(el, report)
            Rc, pc = R @ Ro, R @ po + p
            kind, fields = read_joint(el, jname, report)
            stack.append((child, Rc, pc))
            if kind is None:
                continue
            axis = report.floats(el.find("axis"), "xyz", 3, [1.0, 0.0, 0.0]) if el.find("axis") is not None \
                else np.array([1.0, 0.0, 0.0])
            if axis is None:
                continue
            if np.linalg.norm(axis) < EPS and kind != "fixed_joint":
                report.error(el.find("axis"), "zero joint axis")
                continue
            if kind == "fixed_joint":
                child_mass = link_els[child].find("inertial")
                axis = np.array([0.0, 0.0, 1.0])
                if child_mass is None or (report.number(child_mass.find("mass"), "value", 0.0)
                                          if child_mass.find("mass") is not None else 0.0) == 0.0:
                    kind = "merge"
                    report.add(el, f"fixed joint {jname!r}: link {child!r} has no mass; merged into "
                                   f"{el.find('parent').get('link')!r}")  # type: ignore[union-attr]
            joints.append(JointSpec(jname, el, kind, ours[nm], ours[child], pc, Rc @ axis, fields=fields))
    report.raise_errors()
    doc_json = build_document(name or robot.get("name") or "urdf_import",
                              f"Imported from the URDF file {doc.source} (robot {robot.get('name')!r}); every "
                              "joint at 0; the root link fixed to the ground.",
                              links, joints, [], np.array([0.0, 0.0, -9.81]), report)
    report.raise_errors()
    report.add(robot, "gravity (0, 0, -9.81) m/s^2 assumed (URDF does not give one)")
    return doc_json, report.items


__all__ = ["JOINT_TYPES", "model_from_urdf", "rpy_matrix", "urdf_document"]
