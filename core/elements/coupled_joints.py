"""Shared checks of elements that couple two joints on a common carrier (gear_pair, rack_pinion): the joints
exist and have the right types, share exactly one body (the carrier), and each one's other body moves on it.

:func:`joints_on_carrier` returns the carrier and, per joint, (other body, its point, the carrier's point), or
None after appending (JSON pointer, message) problems that name the field and the joints. A joint that already
has a problem (one at or under its JSON pointer, e.g. a zero sliding axis) is not coupled: the element is left
unresolved, and the joint's own problem says what is wrong.
"""
from __future__ import annotations

from typing import Any, NamedTuple

Vec = tuple[float, ...]


class Mounted(NamedTuple):
    """A body turning or sliding on the carrier through a joint: the body, its joint point (body frame), the
    joint's point on the carrier (carrier frame) and the joint."""
    body: str
    point: Vec
    carrier_point: Vec
    joint: Any


def has_problems(joint: Any, problems: list[tuple[str, str]]) -> bool:
    """Whether a problem is already reported at or under the joint's JSON pointer (``/joints/<index>``)."""
    own = f"/joints/{joint.index}"
    return any(p == own or p.startswith(own + "/") for p, _ in problems)


def joints_on_carrier(element: Any, joints: dict[str, Any], pointer: str, needs: tuple[str, str],
                      problems: list[tuple[str, str]]) -> tuple[str, Mounted, Mounted] | None:
    """(carrier, mounted by joint1, mounted by joint2) of ``element``; ``needs`` the two joint types."""
    found = []
    for field, need in zip(("joint1", "joint2"), needs):
        name = getattr(element, field)
        j = joints.get(name)
        if j is None:
            problems.append((f"{pointer}/{field}", f"{element.type} {element.name!r}: no joint named {name!r}"))
        elif j.type != need:
            problems.append((f"{pointer}/{field}", f"{element.type} {element.name!r}: {field} must be a {need} "
                                                   f"joint; {name!r} is {j.type}"))
        elif not has_problems(j, problems):
            found.append(j)
    if len(found) < 2:
        return None
    j1, j2 = found
    if j1.name == j2.name:
        problems.append((f"{pointer}/joint2", f"{element.type} {element.name!r}: joint1 and joint2 are both "
                                              f"{j1.name!r}; they must be two joints"))
        return None
    common = {j1.body1, j1.body2} & {j2.body1, j2.body2}
    if len(common) != 1:
        problems.append((f"{pointer}/joint2", f"{element.type} {element.name!r}: joint1 {j1.name!r} "
                                              f"({j1.body1}-{j1.body2}) and joint2 {j2.name!r} "
                                              f"({j2.body1}-{j2.body2}) must share exactly one body, the carrier"))
        return None
    carrier = common.pop()

    def mounted(j: Any) -> Mounted:
        if j.body1 == carrier:
            return Mounted(j.body2, j.point2, j.point1, j)
        return Mounted(j.body1, j.point1, j.point2, j)
    return carrier, mounted(j1), mounted(j2)
