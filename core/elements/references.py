"""The names one item of a model file refers to: the one interface between the element definitions and editing.

Delete (with dependents), copy (with what the copy needs), paste (renaming) and rename
(:mod:`mechstudio.core.model.edit`) learn which keys of an item name a body, a joint or a point only from
:func:`references`; nothing else in the editing code knows a key such as ``body1`` or ``joint2``.

A :class:`Reference` is one such key: ``key`` (the item's key that holds the name, e.g. ``"joint2"``), ``kind``
(``"body"``, ``"joint"`` or ``"point"``), ``target`` (the name) and, for a point, ``body_key``: the item's key
of the body whose point it is (``"body1"`` for ``point1``; None for a shape of a body's or the ground's
``geometry``: the point then belongs to the body that holds the shape). A point given by coordinates instead
of a name refers to nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from mechstudio.core.elements import BUILT_INS, element_type

Kind = Literal["body", "joint", "point"]

#: element field -> what it names (a point: of the body named by the field given)
BODY_FIELDS = ("body", "body1", "body2")
JOINT_FIELDS = ("joint", "joint1", "joint2")
POINT_FIELDS = {"point": "body", "point1": "body1", "point2": "body2"}
#: the other items of a model file that name something (not element types): key -> (kind, body key of a point)
DOCUMENT_REFERENCES: dict[str, dict[str, tuple[Kind, str | None]]] = {
    "initial_velocities": {"body": ("body", None)},
    "geometry": {"from": ("point", None), "to": ("point", None), "center": ("point", None)},
}


@dataclass(frozen=True)
class Reference:
    """One name an item refers to (see the module docstring)."""

    key: str
    kind: Kind
    target: str
    body_key: str | None = None


def references(section: str, item: dict[str, Any]) -> list[Reference]:
    """The references the raw model item ``item`` of ``section`` makes, in the order of its element's fields.

    ``section``: ``joints``, ``drivers`` or ``forces`` (the item's ``type`` is an element type of that section),
    or ``initial_velocities`` (an initial velocity names its body) or ``geometry`` (a shape of a body's or the
    ground's geometry names the points it is drawn through). A key missing from the item, or a point given by
    coordinates, gives no reference. An unknown element type raises
    :class:`~core.errors.UnknownNameError` naming the valid ones.
    """
    if section in BUILT_INS:
        fields: tuple[str, ...] = element_type(str(item.get("type")), section).fields
        out: list[Reference] = []
        for f in fields:
            value = item.get(f)
            if not isinstance(value, str):
                continue
            if f in BODY_FIELDS:
                out.append(Reference(f, "body", value))
            elif f in JOINT_FIELDS:
                out.append(Reference(f, "joint", value))
            elif f in POINT_FIELDS:
                out.append(Reference(f, "point", value, POINT_FIELDS[f]))
        return out
    try:
        keys = DOCUMENT_REFERENCES[section]
    except KeyError:
        valid = ", ".join(list(BUILT_INS) + list(DOCUMENT_REFERENCES))
        raise ValueError(f"no references are known for section {section!r}; sections: {valid}") from None
    return [Reference(k, kind, item[k], body_key) for k, (kind, body_key) in keys.items()
            if isinstance(item.get(k), str)]


__all__ = ["Reference", "references", "Kind"]
