"""Shared parts of elements that couple two joints on a common carrier (gear_pair, rack_pinion, belt_drive): the
derived slots their records carry, and the check that the joints share exactly one body (the carrier) on which
each one's other body moves. That the joints exist and have the right types is their JointRef fields' check.

:func:`joints_on_carrier` returns the carrier and, per joint, (other body, its point, the carrier's point), or
None after appending (JSON pointer, message) problems that name the field and the joints. A joint that already
has a problem (one at or under its JSON pointer, e.g. a zero sliding axis) is not coupled: the element is left
unresolved, and the joint's own problem says what is wrong.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from mechstudio.core.elements.base import Coupling, Slot

Vec = tuple[float, ...]

#: what the loader fills in from the two joints (:meth:`~core.elements.base.ElementType.resolve`)
COUPLED_SLOTS = (Slot("body1", "", "the body turning on joint1 (gear 1, the pinion, pulley 1)", "str"),
                 Slot("point1", (), "its centre: its point of joint1, in its frame [m]", "tuple[float, ...]"),
                 Slot("body2", "", "the body on joint2 (gear 2, the rack, pulley 2)", "str"),
                 Slot("point2", (), "its point of joint2, in its frame [m]", "tuple[float, ...]"),
                 Slot("carrier", "", "the body (or the ground) both joints share", "str"),
                 Slot("axis", (), "unit direction in the carrier's frame (the line of centres from joint1's "
                                  "centre to joint2's, or the rack's axis)", "tuple[float, ...]"))


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
    """(carrier, mounted by joint1, mounted by joint2) of ``element``; ``needs`` the two joint types (a joint
    missing or of another type was reported by the element's fields, and a joint with a problem of its own, e.g. a
    zero axis, is not coupled: None, nothing appended)."""
    j1, j2 = joints.get(element.joint1), joints.get(element.joint2)
    if j1 is None or j2 is None or (j1.type, j2.type) != needs:
        return None
    if has_problems(j1, problems) or has_problems(j2, problems):
        return None
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


def coupling(element: Any, pitch: tuple[str, Vec, Vec] | None = None) -> Coupling:
    """The reaction site's :class:`~core.elements.base.Coupling` of a resolved element: its joints, its mounted
    bodies and its carrier (``pitch``: where its force acts, see there)."""
    return Coupling(element.joint1, element.joint2, element.body1, element.body2, element.carrier, pitch)


def carrier_points(element: Any, entities: Any) -> tuple[Vec, Vec]:
    """The carrier's points [m] (its frame) of the element's two joints: the wheels' centres on the carrier."""
    out = []
    for name in (element.joint1, element.joint2):
        j = entities.joint(name)
        out.append(j.point1 if j.body1 == element.carrier else j.point2)
    return out[0], out[1]
