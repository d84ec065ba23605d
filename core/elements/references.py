"""The names one item of a model file refers to: the one interface between the element definitions and editing.

Delete (with dependents), copy (with what the copy needs), paste (renaming) and rename
(:mod:`mechstudio.core.model.edit`) learn which keys of an item name a body, a joint or a point only from
:func:`references`; nothing else in the editing code knows a key such as ``body1`` or ``joint2``. For the
elements (joints, drivers, forces) the answer comes from their types' field descriptors: a
:class:`~core.elements.fields.BodyRef`, :class:`~core.elements.fields.JointRef` or
:class:`~core.elements.fields.PointRef` field is a reference.

A :class:`Reference` is one such key: ``key`` (the item's key that holds the name, e.g. ``"joint2"``), ``kind``
(``"body"``, ``"joint"`` or ``"point"``), ``target`` (the name) and, for a point, ``body_key``: the item's key
of the body whose point it is (``"body1"`` for ``point1``; None for a shape of a body's or the ground's
``geometry``: the point then belongs to the body that holds the shape). A point given by coordinates instead
of a name refers to nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from mechstudio.core.elements import SECTIONS, element_type

Kind = Literal["body", "joint", "point"]

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
    if section in SECTIONS:  # from the element type's field descriptors (core/elements/fields.py)
        et = element_type(str(item.get("type")), section)
        return [Reference(f.key, *ref) for f in et.fields if f.key in item
                for ref in f.references(item[f.key], item)]
    try:
        keys = DOCUMENT_REFERENCES[section]
    except KeyError:
        valid = ", ".join(list(SECTIONS) + list(DOCUMENT_REFERENCES))
        raise ValueError(f"no references are known for section {section!r}; sections: {valid}") from None
    return [Reference(k, kind, item[k], body_key) for k, (kind, body_key) in keys.items()
            if isinstance(item.get(k), str)]


__all__ = ["Reference", "references", "Kind"]
