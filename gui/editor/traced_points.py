"""Which body points the user traces, and the point edits of the canvas (no Qt here).

The ticks are part of the document: the model file's free-form ``editor`` section (``core/model/schema.json``:
"free-form editor state; ignored by the solver") holds them as ``"editor": {"traces": ["coupler.P1", ...]}``,
each entry ``<body>.<point>`` naming a named point of a body. They are saved with the model and every change is
an ordinary undoable model edit (``Document.push_edit``). A tick whose body or point no longer exists is ignored
(:func:`traced`) and dropped by the next change of the ticks.

Point edits: :func:`add_point` adds an auto-named point (``P1``, ``P2``, …) to a planar body at a global position
(and ticks it, since a point is added in order to trace it); :func:`rename_point` renames a body point and every
reference to it (geometry, joints, forces, ticks); :func:`follow_body_rename` keeps the ticks of a
renamed body.
"""
from __future__ import annotations

from typing import Any, Iterable

from mechstudio.core.errors import Diagnostic, ModelError
from mechstudio.core.model import GROUND, Model
from mechstudio.core.model import edit

TRACES_KEY = "traces"  # in the model's "editor" section
POINT_PREFIX = "P"  # auto-named points: P1, P2, ...
#: (body key, point key) pairs by which elements name a point of a body
POINT_KEYS = (("body", "point"), ("body1", "point1"), ("body2", "point2"))
#: keys of a body's geometry items that hold a point reference (a name or coordinates)
GEOMETRY_POINT_KEYS = ("from", "to", "center")

PointKey = tuple[str, str]  # (body, point)


def label(key: PointKey) -> str:
    """``body.point``, the form the model file and the results' column names use."""
    return f"{key[0]}.{key[1]}"


def parse(text: str) -> PointKey | None:
    """``body.point`` -> (body, point); None when it has no dot (body names have none: see the name rule)."""
    body, dot, point = str(text).partition(".")
    return (body, point) if dot and body and point else None


def body_points(model: Model | dict[str, Any]) -> dict[str, list[str]]:
    """Named points of every body, in file order."""
    data = model.data if isinstance(model, Model) else model
    return {b["name"]: list(b.get("points", {})) for b in data.get("bodies", [])}


def traced(model: Model) -> list[PointKey]:
    """The ticked points of ``model`` that exist (file order of the ticks, no duplicates)."""
    existing = body_points(model)
    out: list[PointKey] = []
    for text in model.data.get("editor", {}).get(TRACES_KEY, []):
        key = parse(text)
        if key is not None and key[1] in existing.get(key[0], ()) and key not in out:
            out.append(key)
    return out


def is_traced(model: Model, key: PointKey) -> bool:
    return tuple(key) in traced(model)


def _write_ticks(data: dict[str, Any], keys: Iterable[PointKey]) -> None:
    keys = list(dict.fromkeys(tuple(k) for k in keys))
    editor = data.setdefault("editor", {})
    if keys:
        editor[TRACES_KEY] = [label(k) for k in keys]
    else:
        editor.pop(TRACES_KEY, None)
        if not editor:
            data.pop("editor")


def set_traced(model: Model, key: PointKey, on: bool) -> Model:
    """``model`` with point ``key`` ticked (``on``) or not; the model itself when nothing changes."""
    key = (str(key[0]), str(key[1]))
    if key[1] not in body_points(model).get(key[0], ()):
        raise ValueError(f"body {key[0]!r} has no point {key[1]!r}")
    current = traced(model)
    if (key in current) == on:
        return model
    keys = current + [key] if on else [k for k in current if k != key]
    return edit.transform(model, lambda d: _write_ticks(d, keys), validate=False)


def push_trace(document: Any, key: PointKey, on: bool) -> str | None:
    """Tick (or untick) ``key`` on ``document`` (``mechstudio.gui.document.Document``) as one undoable edit; the edit's text,
    or None when nothing changed. Raises ValueError when the body has no such point."""
    model = document.model
    new = set_traced(model, key, on)
    if new is model:
        return None
    text = f"{'Trace' if on else 'Stop tracing'} {label(key)}"
    document.push_edit(new, text, reassemble=False)  # the same mechanism: no re-assembly, poses unchanged
    return text


def next_point_name(body: dict[str, Any]) -> str:
    """The first free ``P<k>`` of a body."""
    pts = body.get("points", {})
    k = 1
    while f"{POINT_PREFIX}{k}" in pts:
        k += 1
    return f"{POINT_PREFIX}{k}"


def add_point(model: Model, body: str, world: tuple[float, float], *, trace: bool = True) -> tuple[Model, str]:
    """A new auto-named point of planar ``body`` at global position ``world`` [m] (its body-frame coordinates
    from the body's stored pose), ticked for tracing when ``trace``. Returns the new model and the point name."""
    if model.kind != "planar":
        raise ValueError("points of spatial bodies have three coordinates: add them in the Properties panel")
    if body == GROUND:
        raise ValueError("the ground does not move: add a ground point from the palette instead")
    b = edit.element(model, "bodies", body)
    name = next_point_name(b)
    local = [round(v, 12) for v in edit.to_body_frame(b, world)]
    new = edit.add_body_point(model, body, name, local)
    if trace:
        new = set_traced(new, (body, name), True)
    return new, name


def _rename_ref(value: Any, old: str, new: str) -> Any:
    return new if value == old else value


def rename_point(model: Model, body: str, old: str, new: str) -> Model:
    """Rename point ``old`` of ``body`` to ``new`` and every reference to it; raises ModelError (naming the JSON
    pointer) when ``new`` is taken or not a valid name."""
    if old == new:
        return model
    b = edit.element(model, "bodies", body)
    pointer = edit.element_pointer(model, "bodies", body) + "/points"
    if old not in b.get("points", {}):
        raise ModelError([Diagnostic(model.source, pointer, f"body {body!r} has no point {old!r}")])
    if new in b.get("points", {}):
        raise ModelError([Diagnostic(model.source, pointer + edit.join_pointer(new),
                                     f"body {body!r} already has a point named {new!r}")])
    ticks = [(body, new) if k == (body, old) else k for k in traced(model)]

    def fn(d: dict[str, Any]) -> None:
        bd = edit.element(d, "bodies", body)
        bd["points"] = {(new if k == old else k): v for k, v in bd["points"].items()}
        for g in bd.get("geometry", []):
            for k in GEOMETRY_POINT_KEYS:
                if k in g:
                    g[k] = _rename_ref(g[k], old, new)
            if isinstance(g.get("vertices"), list):
                g["vertices"] = [_rename_ref(v, old, new) for v in g["vertices"]]
        for coll in edit.COLLECTIONS:
            if coll == "bodies":
                continue
            for e in d.get(coll, []):
                for bk, pk in POINT_KEYS:
                    if e.get(bk) == body and pk in e:
                        e[pk] = _rename_ref(e[pk], old, new)
        if ticks or d.get("editor", {}).get(TRACES_KEY):
            _write_ticks(d, ticks)
    return edit.transform(model, fn)  # validated: the new name must follow the name rule


def follow_body_rename(model: Model, old: str, new: str) -> Model:
    """The ticks of body ``old`` moved to body ``new`` (after ``mechstudio.core.model.edit.rename`` of a body)."""
    raw = [parse(t) for t in model.data.get("editor", {}).get(TRACES_KEY, [])]
    if not any(k is not None and k[0] == old for k in raw):
        return model
    keys = [(new, k[1]) if k[0] == old else k for k in raw if k is not None]
    return edit.transform(model, lambda d: _write_ticks(d, keys), validate=False)


def same_but_editor_state(a: Model | None, b: Model | None) -> bool:
    """True when two models differ at most in their ``editor`` section (the solver ignores it)."""
    if a is None or b is None:
        return False
    da, db = a.data, b.data
    keys = (set(da) | set(db)) - {"editor"}
    return all(da.get(k) == db.get(k) for k in keys)
