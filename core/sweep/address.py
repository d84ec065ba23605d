"""Parameter addresses of a sweep: ``NAME.FIELD`` names one numeric value of a named element of a model.

``NAME`` is the name of a body, joint, driver or force (``crank``, ``spring``, ``driver1``); ``FIELD`` is the
dotted path inside that element's JSON object (``mass``, ``stiffness``, ``initial.phi``, ``function.speed``;
list items by index: ``com.0``). An address resolves to an RFC 6901 pointer into the document
(``crank.initial.phi`` -> ``/bodies/0/initial/phi``) and values are applied with the public pure edits of
:mod:`mechstudio.core.model.edit`, so every modified model is validated exactly like an edit in the editor.

An address whose name or field does not exist is refused (:class:`AddressError`) with the valid names or the
element's numeric fields. A field absent from the file but allowed by the schema (a damping left at its
default) is accepted when setting it gives a valid model.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from mechstudio.core.errors import ModelError
from mechstudio.core.model.document import Model
from mechstudio.core.model.edit import COLLECTIONS, element_pointer, get_value, join_pointer, names, set_value, split_pointer
from mechstudio.core.model.io import model_from_data


#: the singular of each collection, for messages
KIND = {"bodies": "body", "joints": "joint", "drivers": "driver", "forces": "force"}


class AddressError(ValueError):
    """A ``NAME.FIELD`` address that does not name a numeric value of the model; the message lists valid ones."""


@dataclass(frozen=True)
class Address:
    """A resolved parameter address: ``text`` as the user wrote it and its JSON ``pointer``."""
    text: str
    collection: str
    name: str
    field: tuple[str, ...]
    pointer: str


def numeric_fields(node: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Dotted paths of the numeric leaves (not booleans) of a JSON value, depth first."""
    if isinstance(node, bool):
        return
    if isinstance(node, (int, float)):
        yield prefix
    elif isinstance(node, dict):
        for key, value in node.items():
            if key != "name":
                yield from numeric_fields(value, prefix + (str(key),))
    elif isinstance(node, list):
        for k, value in enumerate(node):
            yield from numeric_fields(value, prefix + (str(k),))


def element_names(model: Model) -> dict[str, str]:
    """Every named element of the model: name -> collection (bodies, joints, drivers, forces)."""
    out: dict[str, str] = {}
    for collection in COLLECTIONS:
        for name in names(model, collection):
            out.setdefault(name, collection)
    return out


def sweepable_fields(model: Model, name: str) -> list[str]:
    """The ``NAME.FIELD`` addresses of the numeric values present in element ``name``."""
    collection = element_names(model)[name]
    node = get_value(model, element_pointer(model, collection, name))
    return [".".join((name,) + f) for f in numeric_fields(node)]


def _collections_of(model: Model, name: str) -> list[str]:
    return [c for c in COLLECTIONS if name in names(model, c)]


def resolve(model: Model, text: str, probe: float | None = None) -> Address:
    """Resolve ``NAME.FIELD`` against ``model``; raise :class:`AddressError` naming the valid choices.

    ``probe``: a value used to test a field that is absent from the file (must give a valid model).
    """
    name, _, field = text.partition(".")
    known = element_names(model)
    if not name or name not in known:
        raise AddressError(f"parameter {text!r}: no element named {name!r}; names: {', '.join(sorted(known))}")
    holders = _collections_of(model, name)
    if len(holders) > 1:
        raise AddressError(f"parameter {text!r}: the name {name!r} is used by several kinds of element "
                           f"({', '.join(holders)}); rename one of them to sweep it")
    collection = holders[0]
    valid = sweepable_fields(model, name)
    if not field:
        raise AddressError(f"parameter {text!r}: give a field after the name; fields of {name!r}: "
                           f"{', '.join(f.partition('.')[2] for f in valid)}")
    tokens = tuple(field.split("."))
    pointer = element_pointer(model, collection, name) + join_pointer(*tokens)
    address = Address(text, collection, name, tokens, pointer)
    present = get_value(model, pointer, None)
    if text in valid:
        return address
    reason = "is not a number" if present is not None else "does not exist"
    if present is None and probe is not None and _settable(model, pointer, probe):
        return address
    raise AddressError(f"parameter {text!r}: the field {field!r} of {KIND[collection]} {name!r} {reason}; "
                       f"numeric fields of {name!r}: {', '.join(f.partition('.')[2] for f in valid) or 'none'}")


def _settable(model: Model, pointer: str, value: float) -> bool:
    parent = "".join("/" + t for t in split_pointer(pointer)[:-1])
    if not isinstance(get_value(model, parent, None), dict):
        return False
    try:
        set_value(model, pointer, value)
    except (ModelError, ValueError, KeyError, IndexError, TypeError):
        return False
    return True


def address_of_pointer(model: Model, pointer: str) -> str | None:
    """``NAME.FIELD`` of a JSON pointer into a named element (``/bodies/0/mass`` -> ``crank.mass``), else None."""
    tokens = split_pointer(pointer)
    if len(tokens) < 3 or tokens[0] not in COLLECTIONS:
        return None
    item = get_value(model, join_pointer(*tokens[:2]), None)
    if not isinstance(item, dict) or "name" not in item:
        return None
    return ".".join([str(item["name"])] + tokens[2:])


def sweepable_addresses(model: Model) -> list[str]:
    """Every ``NAME.FIELD`` address of a numeric value present in the model's named elements."""
    return [a for name in element_names(model) for a in sweepable_fields(model, name)]


def apply_values(model: Model, pointers: Iterable[str], values: Iterable[float], *, share: bool = False) -> Model:
    """The model with each pointer's value replaced, validated once (the document of
    :func:`~mechstudio.core.model.edit.set_value` applied pointer by pointer: :func:`apply_edits`; raises
    :class:`ModelError` when invalid, with the same diagnostics).

    The document is copied once; with ``share`` only the objects on the pointers' paths are copied and the new
    document shares every other part with ``model``'s (a Model is never mutated: ``mechstudio.core.model.document``),
    which spares a sweep run the deep copy of the whole document."""
    items = list(zip(pointers, values))
    if not items:
        return model
    data: Any = dict(model.data) if share else model.copy_data()
    for pointer, value in items:
        tokens = split_pointer(pointer)
        if not tokens:
            raise ValueError("cannot replace the whole document with a parameter value")
        node = data
        for tok in tokens[:-1]:
            key: Any = int(tok) if isinstance(node, list) else tok
            child = node[key] if isinstance(node, list) or key in node else {}
            if share or not isinstance(node, list) and key not in node:
                child = list(child) if isinstance(child, list) else dict(child)
                node[key] = child
            node = child
        last = tokens[-1]
        if isinstance(node, list):
            node[int(last)] = float(value)
        else:
            node[last] = float(value)
    return model_from_data(data, model.source)


def apply_edits(model: Model, pointers: Iterable[str], values: Iterable[float]) -> Model:
    """What :func:`apply_values` computes, as a chain of :func:`~mechstudio.core.model.edit.set_value` edits (each
    a deep copy of the document; validated after the last): the uncached path of a sweep run (``RunSpec.reuse``
    False, the benchmark's baseline)."""
    out = model
    items = list(zip(pointers, values))
    for k, (pointer, value) in enumerate(items):
        out = set_value(out, pointer, float(value), validate=k == len(items) - 1)
    return out
