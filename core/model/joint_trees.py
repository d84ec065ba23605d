"""Whether a model document's joints form a tree rooted at the ground (data level, no compiling): the models the
formulation "wittenburg" runs in joint coordinates (core/dynamics/joint_tree.py) when they have a hinge, slider,
cylindrical, universal or fixed joint."""
from __future__ import annotations

from typing import Any

from mechstudio.core.model.document import GROUND
from mechstudio.core.model.spatial_joints import uses_maximal_joints


def joints_form_tree(data: dict[str, Any]) -> bool:
    """True when every body of ``data`` hangs from the ground by exactly one chain of joints: as many joints as
    bodies, none joining a body to itself, and every body reached from the ground."""
    bodies = {b.get("name") for b in data.get("bodies", []) if isinstance(b, dict)}
    joints = [j for j in data.get("joints", []) if isinstance(j, dict)]
    if len(joints) != len(bodies):
        return False
    adj: dict[Any, list[Any]] = {}
    for j in joints:
        a, b = j.get("body1"), j.get("body2")
        if a == b:
            return False
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    seen, stack = {GROUND}, [GROUND]
    while stack:
        for other in adj.get(stack.pop(), []):
            if other not in seen:
                seen.add(other)
                stack.append(other)
    return bodies <= seen


def is_spatial_joint_tree(data: dict[str, Any]) -> bool:
    """A spatial model with a hinge, slider, cylindrical, universal or fixed joint whose joints form a tree."""
    return uses_maximal_joints(data) and joints_form_tree(data)


__all__ = ["is_spatial_joint_tree", "joints_form_tree"]
