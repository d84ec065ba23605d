"""Checks of spatial models with the joints of maximal-coordinate systems (core/systems/maximal_joints.py).

A spatial model with a ``hinge``, ``slider``, ``cylindrical``, ``universal`` or ``fixed_joint`` is compiled in
maximal coordinates and may contain any graph of these joints and ``spherical`` ones (trees and closed loops). The
loader appends these problems, as (JSON pointer, message) pairs, instead of the spherical-tree checks
(core/model/tree_topology.py):

* the ground does not move (``ground.motion`` is not supported with these joints);
* a spherical joint has no spring, damper or torque here (those are the spherical trees' own);
* no drivers section items (a spatial joint is driven by its own ``angle`` or ``slide`` time function);
* forces are ``applied_force`` or ``applied_torque`` (a joint's axis spring-damper is part of the joint).
"""
from __future__ import annotations

from typing import Any

#: joint types that make a spatial model a maximal-coordinate joint model
MAXIMAL_JOINTS = ("hinge", "slider", "cylindrical", "universal", "fixed_joint")
#: force types these models support
SUPPORTED_FORCES = ("applied_force", "applied_torque")


def uses_maximal_joints(data: dict[str, Any]) -> bool:
    """True for a spatial document with one of :data:`MAXIMAL_JOINTS`."""
    return data.get("kind") == "spatial" and any(j.get("type") in MAXIMAL_JOINTS for j in data.get("joints", []))


def maximal_joint_problems(data: dict[str, Any], joints: tuple[Any, ...]) -> list[tuple[str, str]]:
    """Problems of a spatial model with maximal-coordinate joints (module docstring): ``data`` the document,
    ``joints`` its parsed joint records."""
    problems: list[tuple[str, str]] = []
    kinds = ", ".join(MAXIMAL_JOINTS)
    if data.get("ground", {}).get("motion"):
        problems.append(("/ground/motion", f"a moving ground is not supported in a model with {kinds} joints "
                                           "(remove ground.motion, or drive a body with a hinge or slider)"))
    for j in joints:
        if j.type == "spherical":
            for key in ("spring", "damping"):
                if getattr(j, key):
                    problems.append((f"/joints/{j.index}/{key}",
                                     f"spherical joint {j.name!r}: a {key} is supported in spherical-joint trees "
                                     f"only, not in a model with {kinds} joints (remove it)"))
            if j.torque:
                problems.append((f"/joints/{j.index}/torque",
                                 f"spherical joint {j.name!r}: a joint torque is supported in spherical-joint "
                                 f"trees only, not in a model with {kinds} joints (use applied_torque)"))
    for i, d in enumerate(data.get("drivers", [])):
        problems.append((f"/drivers/{i}", f"driver {d.get('name')!r}: a spatial joint is driven by its own "
                                          "'angle' (hinge, cylindrical) or 'slide' (slider, cylindrical) time "
                                          "function, not by a driver element"))
    for i, f in enumerate(data.get("forces", [])):
        if f.get("type") not in SUPPORTED_FORCES:
            problems.append((f"/forces/{i}/type",
                             f"force {f.get('name')!r} ({f.get('type')}) is not supported in a model with {kinds} "
                             f"joints; use {' or '.join(SUPPORTED_FORCES)}, or a joint's spring and damping"))
    return problems


__all__ = ["MAXIMAL_JOINTS", "SUPPORTED_FORCES", "maximal_joint_problems", "uses_maximal_joints"]
