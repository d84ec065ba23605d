"""Pure edits of a model: each function takes a :class:`Model` and returns a new one (the input is untouched).

The editor (``gui/commands.py``) builds every undo step from these functions, so an edit is a swap of two
immutable snapshots and the whole editing logic is testable without Qt. Values are addressed by RFC 6901 JSON
pointers into the document (``/bodies/2/mass``) or by element name.

Deleting, copying, pasting and renaming follow the references between elements, which only
:func:`mechstudio.core.elements.references.references` knows (``body1``, ``joint2``, ``point1`` ...):
:func:`delete_with_dependents` (what refers to a deleted element goes too, transitively), :func:`copy_closure`
(a clipboard document of the elements and what they need), :func:`paste_renamed` (new names, references among
the pasted elements renamed) and :func:`rename` (every reference follows). Elements are addressed by keys
``(collection, name)``: bodies, joints, drivers, forces, ground_points, and ``points`` for a body's named point
(name ``"body.point"``).

Every function validates its result (JSON Schema + semantic checks, :func:`mechstudio.core.model.io.validate_data`) unless
called with ``validate=False``, and raises :class:`~core.errors.ModelError` listing the problems when the edit
would make an invalid model (a negative mass, a dangling name, ...). Nothing here imports Qt.

Element templates (:func:`bar_body`, :func:`disk_body`, :func:`block_body`, :func:`spatial_body`) produce exactly
the structure of the sample models, with uniform-density mass properties (bars: 1 kg per metre by default).
"""
from __future__ import annotations

import copy
import math
import re
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator

from mechstudio.core.elements import element_type
from mechstudio.core.elements.references import Reference
from mechstudio.core.elements.references import references as element_references
from mechstudio.core.errors import Diagnostic, ModelError, UnknownNameError
from mechstudio.core.model.document import GROUND, Model
from mechstudio.core.model.io import model_from_data, schema

Data = dict[str, Any]

#: collections of named elements in a document
COLLECTIONS = ("bodies", "joints", "drivers", "forces")
#: default colours given to new bodies in turn (the first three are the four-bar sample's)
BODY_COLORS = ("#d9534f", "#5cb85c", "#4a90d9", "#f0ad4e", "#9b59b6", "#1abc9c", "#e67e22", "#34495e")
#: linear density of new bars [kg/m]
BAR_DENSITY = 1.0
BAR_WIDTH = 0.06


# ---- JSON pointers --------------------------------------------------------------------------------------------
def split_pointer(pointer: str) -> list[str]:
    """RFC 6901 pointer -> list of unescaped tokens ("" -> [])."""
    if pointer in ("", "/"):
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"a JSON pointer starts with '/': {pointer!r}")
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def join_pointer(*tokens: Any) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


def _index(container: Any, token: str) -> Any:
    if isinstance(container, list):
        return int(token)
    return token


def get_value(data: Data | Model, pointer: str, default: Any = KeyError) -> Any:
    """The value at ``pointer`` (``default`` if given and the value is missing)."""
    node: Any = data.data if isinstance(data, Model) else data
    try:
        for tok in split_pointer(pointer):
            node = node[_index(node, tok)]
    except (KeyError, IndexError, ValueError, TypeError):
        if default is KeyError:
            raise KeyError(f"no value at {pointer!r}") from None
        return default
    return node


def _set_in(data: Data, tokens: list[str], value: Any) -> None:
    node: Any = data
    for tok in tokens[:-1]:
        key = _index(node, tok)
        if isinstance(node, dict) and key not in node:
            node[key] = {}
        node = node[key]
    last = tokens[-1]
    if isinstance(node, list):
        if last == "-":
            node.append(value)
        else:
            node[int(last)] = value
    else:
        node[last] = value


def _delete_in(data: Data, tokens: list[str]) -> None:
    node: Any = data
    for tok in tokens[:-1]:
        node = node[_index(node, tok)]
    last = tokens[-1]
    if isinstance(node, list):
        del node[int(last)]
    else:
        node.pop(last, None)


def _finish(data: Data, source: str, validate: bool) -> Model:
    return model_from_data(data, source) if validate else Model(data, source)


def transform(model: Model, fn: Callable[[Data], None], *, validate: bool = True) -> Model:
    """Apply ``fn`` to a deep copy of the document and return the new Model (the generic edit)."""
    data = model.copy_data()
    fn(data)
    return _finish(data, model.source, validate)


def set_value(model: Model, pointer: str, value: Any, *, validate: bool = True, bar_follows: bool = False) -> Model:
    """Set (or create) the value at ``pointer``.

    With ``bar_follows`` (the editor's typed values), a new length of a template bar (its end point ``b`` on the
    bar's x axis, or that point's x) is a resize: :func:`resize_bar`, so mass, centre of mass and inertia follow it
    as when the bar's end is dragged. Without it (sweeps and scripts, which name every value they change) only the
    value at ``pointer`` changes."""
    tokens = split_pointer(pointer)
    if not tokens:
        raise ValueError("cannot replace the whole document with set_value; build a new Model")
    bar = _bar_length(model, tokens, value) if bar_follows else None
    if bar is not None:
        return resize_bar(model, bar[0], bar[1], validate=validate)
    return transform(model, lambda d: _set_in(d, tokens, copy.deepcopy(value)), validate=validate)


def _bar_length(model: Model, tokens: list[str], value: Any) -> tuple[str, float] | None:
    """(body, length [m]) when ``value`` at ``tokens`` sets the length of a template bar (one bar from point
    ``a`` at the origin to ``b`` on the x axis, :func:`bar_body`), else None."""
    if len(tokens) not in (4, 5) or tokens[0] != "bodies" or tokens[2:4] != ["points", "b"] \
            or not tokens[1].isdigit():
        return None
    bodies = model.data.get("bodies", [])
    i = int(tokens[1])
    if i >= len(bodies):
        return None
    b = bodies[i]
    pts = b.get("points", {})
    geo = b.get("geometry", [])
    template = (len(geo) == 1 and geo[0].get("type") == "bar" and geo[0].get("from") == "a"
                and geo[0].get("to") == "b" and list(pts.get("a", [None])) == [0.0, 0.0]
                and len(pts.get("b", [])) == 2 and pts["b"][1] == 0.0 and isinstance(b.get("mass"), (int, float)))
    if not template:
        return None
    if len(tokens) == 5:
        length = value if tokens[4] == "0" else None
    else:
        length = value[0] if isinstance(value, (list, tuple)) and len(value) == 2 and value[1] == 0.0 else None
    if isinstance(length, bool) or not isinstance(length, (int, float)) or not length > 0:
        return None
    return b["name"], float(length)


def delete_value(model: Model, pointer: str, *, validate: bool = True) -> Model:
    """Remove the key or list item at ``pointer``."""
    tokens = split_pointer(pointer)
    return transform(model, lambda d: _delete_in(d, tokens), validate=validate)


# ---- names and lookups -----------------------------------------------------------------------------------------
def names(model: Model | Data, collection: str) -> list[str]:
    data = model.data if isinstance(model, Model) else model
    if collection == "ground_points":
        return list(data.get("ground", {}).get("points", {}))
    return [e["name"] for e in data.get(collection, [])]


def all_names(model: Model | Data) -> set[str]:
    out = {GROUND}
    for c in COLLECTIONS + ("ground_points",):
        out.update(names(model, c))
    return out


def unique_name(model: Model | Data, prefix: str, collection: str | None = None, taken: Iterable[str] = ()) -> str:
    """``prefix`` + the smallest number >= 1 not used yet (in ``collection``, or anywhere in the model)."""
    used = set(names(model, collection)) if collection else all_names(model)
    used.update(taken)
    k = 1
    while f"{prefix}{k}" in used:
        k += 1
    return f"{prefix}{k}"


def collection_word(collection: str) -> str:
    """One element of ``collection`` in words: "bodies" -> "body", "ground_points" -> "ground point"."""
    return {"bodies": "body", "ground_points": "ground point"}.get(collection, collection.removesuffix("s"))


def index_of(model: Model | Data, collection: str, name: str) -> int:
    try:
        return names(model, collection).index(name)
    except ValueError:
        raise KeyError(f"no {collection_word(collection)} named {name!r}") from None


def element(model: Model | Data, collection: str, name: str) -> Data:
    data = model.data if isinstance(model, Model) else model
    return data[collection][index_of(data, collection, name)]


def element_pointer(model: Model | Data, collection: str, name: str) -> str:
    if collection == "ground_points":
        return join_pointer("ground", "points", name)
    return join_pointer(collection, index_of(model, collection, name))


# ---- adding and removing elements -----------------------------------------------------------------------------
def add_element(model: Model, collection: str, item: Data, *, validate: bool = True) -> Model:
    """Append a body, joint, driver or force (``item`` must carry a unique ``name``)."""
    if collection not in COLLECTIONS:
        raise ValueError(f"unknown collection {collection!r}; valid: {', '.join(COLLECTIONS)}")

    def fn(d: Data) -> None:
        d.setdefault(collection, []).append(copy.deepcopy(item))
    return transform(model, fn, validate=validate)


def add_elements(model: Model, items: Iterable[tuple[str, Data]], *, validate: bool = True) -> Model:
    """Append several elements at once (a ground point: ``("ground_points", {"name", "position"})``)."""
    items = list(items)

    def fn(d: Data) -> None:
        for collection, item in items:
            if collection == "ground_points":
                d.setdefault("ground", {}).setdefault("points", {})[item["name"]] = list(item["position"])
            else:
                d.setdefault(collection, []).append(copy.deepcopy(item))
    return transform(model, fn, validate=validate)


def set_ground_point(model: Model, name: str, position: Iterable[float], *, validate: bool = True) -> Model:
    """Add or move a ground point [m]."""
    pos = [float(x) for x in position]

    def fn(d: Data) -> None:
        d.setdefault("ground", {}).setdefault("points", {})[name] = pos
    return transform(model, fn, validate=validate)


def remove_element(model: Model, collection: str, name: str, *, validate: bool = True) -> Model:
    """Remove one element by name, nothing else (what refers to it makes the model invalid: see
    :func:`delete_with_dependents`)."""
    if collection == "ground_points":
        return transform(model, lambda d: d["ground"]["points"].pop(name), validate=validate)
    idx = index_of(model, collection, name)
    return transform(model, lambda d: d[collection].pop(idx), validate=validate)


def remove_body(model: Model, name: str, *, validate: bool = True) -> Model:
    """Remove a body and everything that depends on it (:func:`delete_with_dependents`)."""
    return delete_with_dependents(model, [("bodies", name)], validate=validate)[0]


def remove_ground_point(model: Model, name: str, *, validate: bool = True) -> Model:
    """Remove a ground point and everything attached to it (:func:`delete_with_dependents`)."""
    return delete_with_dependents(model, [("ground_points", name)], validate=validate)[0]


def remove_elements(model: Model, keys: Iterable[tuple[str, str]], *, validate: bool = True) -> Model:
    """Remove several (collection, name) elements with their dependents (:func:`delete_with_dependents`)."""
    return delete_with_dependents(model, keys, validate=validate)[0]


# ---- references between elements --------------------------------------------------------------------------------
#: the key collection of a body's named point: its name is "<body>.<point>" (a body name has no dot)
POINTS = "points"
INITIAL_VELOCITIES = "initial_velocities"
QUASI_VELOCITIES = "quasi_velocities"
#: the sections whose items refer to bodies, joints and points (see mechstudio.core.elements.references)
REFERRING = ("joints", "drivers", "forces")
#: ``format`` of a clipboard document (:func:`copy_closure`)
CLIPBOARD_FORMAT = "mechanism-studio-clipboard"
#: ``(collection, name)``: ("bodies", "crank"), ("ground_points", "O"), ("points", "crank.a"), ("joints", "O")
Key = tuple[str, str]


def point_key(body: str, point: str) -> Key:
    """The key of point ``point`` of body ``body``."""
    return (POINTS, f"{body}.{point}")


def split_point_name(name: str) -> tuple[str, str]:
    """``"body.point"`` -> (body, point)."""
    body, _dot, point = name.partition(".")
    return body, point


def key_label(key: Key) -> str:
    """How a key is named to the user (e.g. in "Deleting the selection also deletes ...")."""
    coll, name = key
    if coll == INITIAL_VELOCITIES:
        return f"initial velocity {name}"
    if coll == QUASI_VELOCITIES:
        return ("the file's quasi-velocity choice" if name == "choice"
                else f"quasi-velocity alternative {name.split('/', 1)[-1]!r}")
    return name


def _point_owner(item: Data, ref: Reference) -> str | None:
    """The body whose point ``ref`` of joint, driver or force ``item`` names (its body field)."""
    return item.get(ref.body_key) if ref.body_key is not None else None


def _mention(body: str) -> re.Pattern[str]:
    """``body.`` followed by a coordinate, as quasi-velocity keys and expressions write it (``sleigh.phi``)."""
    return re.compile(rf"(?<![A-Za-z0-9_\-.]){re.escape(body)}\.(?=[A-Za-z_])")


def _quasi_lists(data: Data) -> list[tuple[str, list[Data]]]:
    """(label, list) of the file's quasi-velocity choices: ("choice", ...), ("alternatives/<name>", ...)."""
    qv = data.get(QUASI_VELOCITIES, {})
    out = [("choice", qv["choice"])] if "choice" in qv else []
    out += [(f"alternatives/{k}", a.get("choice", [])) for k, a in qv.get("alternatives", {}).items()]
    return out


def _map_strings(node: Any, fn: Callable[[str], str]) -> Any:
    """``node`` with ``fn`` applied to every string and dict key in it, except names and descriptions."""
    if isinstance(node, str):
        return fn(node)
    if isinstance(node, list):
        return [_map_strings(v, fn) for v in node]
    if isinstance(node, dict):
        return {fn(k): (v if k in ("name", "description") else _map_strings(v, fn)) for k, v in node.items()}
    return node


def _strings(node: Any) -> Iterator[str]:
    """Every string and dict key in ``node``, except names and descriptions."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v)
    elif isinstance(node, dict):
        for k, v in node.items():
            yield k
            if k not in ("name", "description"):
                yield from _strings(v)


def _mentions(node: Any, bodies: Iterable[str]) -> bool:
    """True when a string of ``node`` mentions a coordinate of one of ``bodies``."""
    patterns = [_mention(b) for b in bodies]
    return any(p.search(s) for s in _strings(node) for p in patterns)


def _require(model: Model | Data, key: Key) -> None:
    """Raise KeyError when ``key`` names nothing in the model."""
    data = model.data if isinstance(model, Model) else model
    coll, name = key
    if coll == POINTS:
        body, point = split_point_name(name)
        if point not in element(data, "bodies", body).get("points", {}):
            raise KeyError(f"body {body!r} has no point named {point!r}")
    elif coll == INITIAL_VELOCITIES:
        if name not in [f"{v['body']}.{v['coordinate']}" for v in data.get(INITIAL_VELOCITIES, [])]:
            raise KeyError(f"no initial velocity {name!r}")
    elif coll == QUASI_VELOCITIES:
        if name not in [label for label, _ in _quasi_lists(data)]:
            raise KeyError(f"no quasi-velocity choice {name!r}")
    elif coll == "ground_points":
        if name not in names(data, coll):
            raise KeyError(f"no ground point named {name!r}")
    elif coll in COLLECTIONS:
        index_of(data, coll, name)
    else:
        raise KeyError(f"unknown collection {coll!r}")


def _is_tree(data: Data) -> bool:
    """A spherical-joint tree: a spatial model with spherical joints, where every body hangs from the ground by a
    path of joints (the loader's rule, mechstudio.core.model.entities / tree_topology)."""
    return data.get("kind") == "spatial" and any(j.get("type") == "spherical" for j in data.get("joints", []))


def _joint_bodies(item: Data) -> list[str]:
    return [r.target for r in element_references("joints", item) if r.kind == "body"]


def _paths_to_ground(data: Data, gone: frozenset[Key] | set[Key] = frozenset()) -> dict[str, tuple[str, str]]:
    """Body -> (joint, parent body) of the bodies the joints not in ``gone`` connect to the ground (breadth
    first from the ground)."""
    links = [(j["name"], _joint_bodies(j)) for j in data.get("joints", []) if ("joints", j["name"]) not in gone]
    parent: dict[str, tuple[str, str]] = {}
    frontier = [GROUND]
    while frontier:
        nxt = []
        for u in frontier:
            for name, bodies in links:
                if u in bodies:
                    for v in bodies:
                        if v != u and v != GROUND and v not in parent and ("bodies", v) not in gone:
                            parent[v] = (name, u)
                            nxt.append(v)
        frontier = nxt
    return parent


def dependents(model: Model | Data, keys: Iterable[Key]) -> list[Key]:
    """Everything that goes when ``keys`` are deleted: the keys themselves (those that exist are checked:
    KeyError otherwise), then, transitively, every joint, driver and force that refers to a deleted body, joint,
    ground point or body point (a gear pair whose revolute goes goes too), in a spherical-joint tree the links
    no longer connected to the ground, the initial velocities of deleted bodies and the quasi-velocity choices
    that mention one. Order: ``keys``, then the rest as found."""
    data = model.data if isinstance(model, Model) else model
    keys = list(dict.fromkeys(keys))
    for key in keys:
        _require(data, key)
    out = list(keys)
    gone = set(keys)
    bodies = {n for c, n in keys if c == "bodies"}
    joints = {n for c, n in keys if c == "joints"}
    points = {(GROUND, n) for c, n in keys if c == "ground_points"}
    points |= {split_point_name(n) for c, n in keys if c == POINTS}

    def hit(section: str, item: Data) -> bool:
        for r in element_references(section, item):
            if (r.kind == "body" and r.target in bodies) or (r.kind == "joint" and r.target in joints):
                return True
            if r.kind == "point" and (_point_owner(item, r), r.target) in points:
                return True
        return False

    tree = _is_tree(data)
    changed = True
    while changed:
        changed = False
        for section in REFERRING:
            for item in data.get(section, []):
                key = (section, item["name"])
                if key not in gone and hit(section, item):
                    gone.add(key)
                    out.append(key)
                    if section == "joints":
                        joints.add(item["name"])
                    changed = True
        if tree:  # the links that hung from a deleted link
            held = _paths_to_ground(data, gone)
            for b in data.get("bodies", []):
                key = ("bodies", b["name"])
                if key not in gone and b["name"] not in held:
                    gone.add(key)
                    out.append(key)
                    bodies.add(b["name"])
                    changed = True
    for v in data.get(INITIAL_VELOCITIES, []):
        key = (INITIAL_VELOCITIES, f"{v['body']}.{v['coordinate']}")
        if key not in gone and hit(INITIAL_VELOCITIES, v):
            gone.add(key)
            out.append(key)
    for label, lst in _quasi_lists(data):
        key = (QUASI_VELOCITIES, label)
        if key not in gone and bodies and _mentions(lst, bodies):
            gone.add(key)
            out.append(key)
    return out


def _inline_points(shapes: list[Data], points: dict[str, Any], dead: set[str]) -> None:
    """Geometry shapes drawn through a deleted point keep its coordinates instead of its name."""
    for shape in shapes:
        for r in element_references("geometry", shape):
            if r.target in dead and r.target in points:
                shape[r.key] = list(points[r.target])


def _delete(d: Data, gone: set[Key]) -> None:
    for coll in COLLECTIONS:
        if coll in d:
            d[coll] = [e for e in d[coll] if (coll, e["name"]) not in gone]
    ground = d.get("ground", {})
    dead_ground = {n for c, n in gone if c == "ground_points"}
    if dead_ground:
        _inline_points(ground.get("geometry", []), ground.get("points", {}), dead_ground)
        ground["points"] = {k: v for k, v in ground.get("points", {}).items() if k not in dead_ground}
    dead_points: dict[str, set[str]] = {}
    for c, n in gone:
        if c == POINTS:
            body, point = split_point_name(n)
            dead_points.setdefault(body, set()).add(point)
    for b in d.get("bodies", []):
        if b["name"] in dead_points:
            _inline_points(b.get("geometry", []), b.get("points", {}), dead_points[b["name"]])
            b["points"] = {k: v for k, v in b.get("points", {}).items() if k not in dead_points[b["name"]]}
    if INITIAL_VELOCITIES in d:
        d[INITIAL_VELOCITIES] = [v for v in d[INITIAL_VELOCITIES]
                                 if (INITIAL_VELOCITIES, f"{v['body']}.{v['coordinate']}") not in gone]
    qv = d.get(QUASI_VELOCITIES)
    if qv is not None:
        if (QUASI_VELOCITIES, "choice") in gone:
            qv.pop("choice", None)
        alts = {k: a for k, a in qv.get("alternatives", {}).items()
                if (QUASI_VELOCITIES, f"alternatives/{k}") not in gone}
        if "alternatives" in qv:
            qv["alternatives"] = alts
            if not alts:
                del qv["alternatives"]
        if "choice" not in qv and "alternatives" not in qv:
            del d[QUASI_VELOCITIES]


def delete_with_dependents(model: Model, keys: Iterable[Key], *, validate: bool = True) -> tuple[Model, list[Key]]:
    """Delete ``keys`` and everything that depends on them (:func:`dependents`); returns the new model and the
    list of what was deleted (``keys`` first), so that an editor can ask "also delete ...?".

    A deleted body takes its points with it; geometry drawn through a deleted body point or ground point keeps
    the point's coordinates. Raises KeyError for a key that names nothing, and ModelError when the rest is not a
    valid model (e.g. a spherical-joint tree cut in two)."""
    deleted = dependents(model, keys)
    gone = set(deleted)
    return transform(model, lambda d: _delete(d, gone), validate=validate), deleted


# ---- copy, paste, rename ---------------------------------------------------------------------------------------
def copy_closure(model: Model, keys: Iterable[Key]) -> Data:
    """A clipboard document of the elements ``keys`` plus what they need and what lies between them.

    Needed: the bodies, joints and ground points the copied elements refer to (a gear pair brings its
    revolutes, their gears and ground points; a link of a spherical-joint tree its path to the ground).
    Between: every joint, driver and force whose bodies and joints are all copied or the ground (the joints
    pinning a copied body to the ground come along, the joints to a body left behind do not), and the initial
    velocities of copied bodies. ``{"format": CLIPBOARD_FORMAT,
    "kind": planar|spatial, "items": [[collection, item], ...]}``; a ground point is ``{"name", "position"}``.
    Plain JSON: it goes through the system clipboard as text."""
    data = model.data
    keys = list(dict.fromkeys(keys))
    for key in keys:
        _require(data, key)
    chosen: set[Key] = set()
    for coll, name in keys:
        if coll == POINTS:
            chosen.add(("bodies", split_point_name(name)[0]))
        elif coll == INITIAL_VELOCITIES:
            chosen.add(("bodies", split_point_name(name)[0]))
        elif coll != QUASI_VELOCITIES:
            chosen.add((coll, name))

    def needs(section: str, item: Data) -> list[Key]:
        out: list[Key] = []
        for r in element_references(section, item):
            if r.kind == "body" and r.target != GROUND:
                out.append(("bodies", r.target))
            elif r.kind == "joint":
                out.append(("joints", r.target))
            elif r.kind == "point" and _point_owner(item, r) == GROUND:
                out.append(("ground_points", r.target))
        return out

    def between(section: str, item: Data) -> bool:
        named = [r for r in element_references(section, item) if r.kind in ("body", "joint") and r.target != GROUND]
        return bool(named) and all((("bodies" if r.kind == "body" else "joints"), r.target) in chosen for r in named)

    paths = _paths_to_ground(data) if _is_tree(data) else {}
    changed = True
    while changed:
        changed = False
        for body in [n for c, n in chosen if c == "bodies" and n in paths]:  # a tree link needs its inboard path
            joint, parent = paths[body]
            for need in (("joints", joint), ("bodies", parent)):
                if need[1] != GROUND and need not in chosen:
                    chosen.add(need)
                    changed = True
        for section in REFERRING:
            for item in data.get(section, []):
                key = (section, item["name"])
                if key not in chosen and between(section, item):
                    chosen.add(key)
                    changed = True
                if key in chosen:
                    for need in needs(section, item):
                        if need not in chosen:
                            chosen.add(need)
                            changed = True
    items: list[list[Any]] = []
    for name, pos in data.get("ground", {}).get("points", {}).items():
        if ("ground_points", name) in chosen:
            items.append(["ground_points", {"name": name, "position": list(pos)}])
    for coll in COLLECTIONS:
        items += [[coll, copy.deepcopy(e)] for e in data.get(coll, []) if (coll, e["name"]) in chosen]
    items += [[INITIAL_VELOCITIES, dict(v)] for v in data.get(INITIAL_VELOCITIES, [])
              if ("bodies", v["body"]) in chosen]
    return {"format": CLIPBOARD_FORMAT, "kind": model.kind, "items": items}


def _clipboard_items(model: Model, clipboard: Any) -> list[tuple[str, Data]]:
    """The clipboard's items, checked for shape (ModelError naming ``<clipboard>`` and the JSON pointer)."""
    def bad(pointer: str, message: str) -> ModelError:
        return ModelError([Diagnostic("<clipboard>", pointer, message)])

    if not isinstance(clipboard, dict) or not isinstance(clipboard.get("items"), list):
        raise bad("", "not a Mechanism Studio clipboard: an object with a list 'items'")
    if clipboard.get("format", CLIPBOARD_FORMAT) != CLIPBOARD_FORMAT:
        raise bad("/format", f"not a Mechanism Studio clipboard: 'format' is {clipboard.get('format')!r}")
    kind = clipboard.get("kind", model.kind)
    if kind != model.kind:
        raise ModelError([Diagnostic(model.source, "/kind", f"cannot paste {kind} elements into a {model.kind} "
                                                            "model")])
    out: list[tuple[str, Data]] = []
    for i, entry in enumerate(clipboard["items"]):
        ok = (isinstance(entry, (list, tuple)) and len(entry) == 2 and isinstance(entry[1], dict)
              and entry[0] in COLLECTIONS + ("ground_points", INITIAL_VELOCITIES))
        if not ok:
            raise bad(f"/items/{i}", "an item is [collection, element] with a collection of "
                                     f"{', '.join(COLLECTIONS + ('ground_points', INITIAL_VELOCITIES))}")
        coll, item = entry
        if coll != INITIAL_VELOCITIES and not isinstance(item.get("name"), str):
            raise bad(f"/items/{i}/1/name", "the element has no name")
        if coll in REFERRING:
            try:
                element_references(coll, item)
            except UnknownNameError as exc:
                raise bad(f"/items/{i}/1/type", str(exc)) from None
        out.append((coll, copy.deepcopy(item)))
    return out


def paste_renamed(model: Model, clipboard: Any, offset: Iterable[float] = (0.3, -0.3), *,
                  validate: bool = True) -> tuple[Model, list[Key]]:
    """Add the clipboard's elements (:func:`copy_closure`) to ``model`` under new unique names, every reference
    among them renamed; bodies and ground points moved by ``offset`` [m] (x, y or x, y, z). References to names
    the clipboard does not hold are kept. Returns the new model and the keys of the pasted elements."""
    items = _clipboard_items(model, clipboard)
    shift = [float(v) for v in offset]
    renames: dict[str, dict[str, str]] = {c: {} for c in COLLECTIONS + ("ground_points",)}
    taken: set[str] = set()
    for coll in COLLECTIONS + ("ground_points",):  # element names before ground points: "O" -> joint "O1"
        for c, e in items:
            if c == coll:
                new = unique_name(model, e["name"].rstrip("0123456789") or coll[:1], None, taken)
                taken.add(new)
                renames[coll][e["name"]] = new
    pasted: list[Key] = []
    for c, e in items:
        if c in REFERRING or c == INITIAL_VELOCITIES:
            for r in element_references(c, e):
                if r.kind == "body":
                    e[r.key] = renames["bodies"].get(r.target, r.target)
                elif r.kind == "joint":
                    e[r.key] = renames["joints"].get(r.target, r.target)
                elif _point_owner(e, r) == GROUND:  # body fields are renamed after their points: GROUND stays
                    e[r.key] = renames["ground_points"].get(r.target, r.target)
        if c == INITIAL_VELOCITIES:
            continue
        e["name"] = renames[c][e["name"]]
        pasted.append((c, e["name"]))
        if c == "ground_points":
            e["position"] = [float(x) + (shift[k] if k < len(shift) else 0.0) for k, x in enumerate(e["position"])]
        elif c == "bodies":
            init = e.setdefault("initial", {})
            axes = ("x", "y") if model.kind == "planar" else tuple(a for a in ("x", "y", "z") if a in init)
            for k, a in enumerate(("x", "y", "z")[:len(shift)]):
                if a in axes:
                    init[a] = float(init.get(a, 0.0)) + shift[k]

    def fn(d: Data) -> None:
        for c, e in items:
            if c == "ground_points":
                d.setdefault("ground", {}).setdefault("points", {})[e["name"]] = e["position"]
            else:
                d.setdefault(c, []).append(e)
    return transform(model, fn, validate=validate), pasted


@lru_cache(maxsize=1)
def _name_rule() -> tuple[re.Pattern[str], int]:
    rule = schema()["$defs"]["name"]
    return re.compile(rule["pattern"]), int(rule["maxLength"])


def name_problem(name: Any) -> str | None:
    """Why ``name`` cannot name an element (None: it can): the model file's name rule, matched whole."""
    pattern, longest = _name_rule()
    if not isinstance(name, str) or not pattern.fullmatch(name) or len(name) > longest:
        return (f"{name!r} is not a valid name: a letter or '_', then letters, digits, '_' or '-' "
                f"(at most {longest} characters)")
    return None


def rename(model: Model, collection: str, old: str, new: str, *, validate: bool = True) -> Model:
    """Rename an element and every reference to it.

    ``collection``: bodies, joints, drivers, forces, ground_points, or ``points`` with ``old`` = "body.point" and
    ``new`` the point's new name. The new name must follow the name rule and be unused (a body point: among its
    body's points; anything else: anywhere in the model, and never ``ground``); ModelError otherwise, naming the
    JSON pointer of the name. A body's name in quasi-velocity keys and expressions (``crank.phi``) follows it; the
    editor's own state (the ``editor`` section) is left to the editor."""
    if old == new:
        return model
    try:
        _require(model, (collection, old))
    except KeyError as exc:
        raise ModelError([Diagnostic(model.source, "", str(exc.args[0]))]) from None
    if collection == POINTS:
        body, point = split_point_name(old)
        pointer = element_pointer(model, "bodies", body) + join_pointer("points", point)
        used = set(element(model, "bodies", body).get("points", {}))
    else:
        pointer = element_pointer(model, collection, old) + ("" if collection == "ground_points" else "/name")
        used = all_names(model)
    problem = name_problem(new)
    if problem is None and new == GROUND and collection != POINTS:
        problem = f"the name {GROUND!r} is reserved for the fixed frame"
    if problem is None and new in used:
        problem = f"the name {new!r} is already used"
    if problem:
        raise ModelError([Diagnostic(model.source, pointer, problem)])

    def refs(d: Data) -> Iterator[tuple[Data, Reference]]:
        for section in REFERRING + (INITIAL_VELOCITIES,):
            for item in d.get(section, []):
                for r in element_references(section, item):
                    yield item, r

    def fn(d: Data) -> None:
        if collection in (POINTS, "ground_points"):
            body, point = split_point_name(old) if collection == POINTS else (GROUND, old)
            holder = d["ground"] if body == GROUND else element(d, "bodies", body)
            holder["points"] = {(new if k == point else k): v for k, v in holder["points"].items()}
            for shape in holder.get("geometry", []):
                for r in element_references("geometry", shape):
                    if r.target == point:
                        shape[r.key] = new
            for item, r in list(refs(d)):
                if r.kind == "point" and r.target == point and _point_owner(item, r) == body:
                    item[r.key] = new
            return
        element(d, collection, old)["name"] = new
        kind = {"bodies": "body", "joints": "joint"}.get(collection)
        for item, r in list(refs(d)):
            if r.kind == kind and r.target == old:
                item[r.key] = new
        if collection == "bodies":
            pattern = _mention(old)
            for _label, lst in _quasi_lists(d):
                lst[:] = _map_strings(lst, lambda s: pattern.sub(f"{new}.", s))
    return transform(model, fn, validate=validate)


# ---- poses, points, geometry -----------------------------------------------------------------------------------
def set_poses(model: Model, poses: dict[str, tuple[float, float, float]], *, validate: bool = True) -> Model:
    """Write planar body-frame poses (x, y, phi) [m, m, rad] into the bodies' ``initial`` blocks.

    Other keys of ``initial`` (``hold``, velocities) are kept. Used to store an assembled configuration.
    """
    def fn(d: Data) -> None:
        for b in d.get("bodies", []):
            if b["name"] in poses:
                x, y, phi = poses[b["name"]]
                init = b.setdefault("initial", {})
                init["x"], init["y"], init["phi"] = float(x), float(y), float(phi)
    return transform(model, fn, validate=validate)


def body_pose(body: Data) -> tuple[float, float, float]:
    init = body.get("initial", {})
    return float(init.get("x", 0.0)), float(init.get("y", 0.0)), float(init.get("phi", 0.0))


def to_body_frame(body: Data, xy: Iterable[float]) -> list[float]:
    """Global planar point -> coordinates in the body frame (using the body's stored pose)."""
    x0, y0, phi = body_pose(body)
    px, py = (float(v) for v in list(xy)[:2])
    dx, dy = px - x0, py - y0
    c, s = math.cos(phi), math.sin(phi)
    return [c * dx + s * dy, -s * dx + c * dy]


def to_global(body: Data, local: Iterable[float]) -> list[float]:
    x0, y0, phi = body_pose(body)
    lx, ly = (float(v) for v in list(local)[:2])
    c, s = math.cos(phi), math.sin(phi)
    return [x0 + c * lx - s * ly, y0 + s * lx + c * ly]


def add_body_point(model: Model, body: str, name: str, local: Iterable[float], *, validate: bool = True) -> Model:
    pt = [float(v) for v in local]

    def fn(d: Data) -> None:
        element(d, "bodies", body).setdefault("points", {})[name] = pt
    return transform(model, fn, validate=validate)


def resize_bar(model: Model, body: str, length: float, *, validate: bool = True) -> Model:
    """Set the length [m] of a bar body (point ``b`` = (length, 0)) keeping its linear density.

    Mass, centre of mass and moment of inertia (uniform slender bar, m L^2 / 12) follow the new length.
    """
    if not length > 0:
        raise ModelError([Diagnostic(model.source, element_pointer(model, "bodies", body),
                                     f"a bar's length must be positive, got {length!r}")])

    def fn(d: Data) -> None:
        b = element(d, "bodies", body)
        old = float(b.get("points", {}).get("b", [1.0, 0.0])[0]) or 1.0
        density = float(b["mass"]) / abs(old)
        b.setdefault("points", {})["b"] = [float(length), 0.0]
        b["mass"] = density * length
        b["com"] = [length / 2.0, 0.0]
        b["inertia"] = b["mass"] * length ** 2 / 12.0
    return transform(model, fn, validate=validate)


# ---- element templates ------------------------------------------------------------------------------------------
def next_color(model: Model | Data) -> str:
    data = model.data if isinstance(model, Model) else model
    return BODY_COLORS[len(data.get("bodies", [])) % len(BODY_COLORS)]


def bar_body(name: str, length: float = 1.0, *, pose: tuple[float, float, float] = (0.0, 0.0, 0.0),
             density: float = BAR_DENSITY, color: str = BODY_COLORS[0], width: float = BAR_WIDTH) -> Data:
    """A uniform slender bar from point ``a`` (frame origin) to point ``b`` = (length, 0)."""
    mass = density * length
    return {"name": name, "mass": mass, "inertia": mass * length ** 2 / 12.0, "com": [length / 2.0, 0.0],
            "points": {"a": [0.0, 0.0], "b": [float(length), 0.0]},
            "geometry": [{"type": "bar", "from": "a", "to": "b", "width": width}], "color": color,
            "initial": {"x": float(pose[0]), "y": float(pose[1]), "phi": float(pose[2])}}


def disk_body(name: str, radius: float = 0.25, *, mass: float = 1.0,
              pose: tuple[float, float, float] = (0.0, 0.0, 0.0), color: str = BODY_COLORS[0]) -> Data:
    """A uniform disk centred on the frame origin (point ``c``)."""
    return {"name": name, "mass": mass, "inertia": mass * radius ** 2 / 2.0, "com": [0.0, 0.0],
            "points": {"c": [0.0, 0.0]},
            "geometry": [{"type": "disk", "center": "c", "radius": radius, "spokes": 6}], "color": color,
            "initial": {"x": float(pose[0]), "y": float(pose[1]), "phi": float(pose[2])}}


def block_body(name: str, width: float = 0.4, height: float = 0.2, *, mass: float = 1.0,
               pose: tuple[float, float, float] = (0.0, 0.0, 0.0), color: str = BODY_COLORS[0]) -> Data:
    """A uniform rectangular block (polygon) centred on the frame origin (point ``c``)."""
    w, h = width / 2.0, height / 2.0
    return {"name": name, "mass": mass, "inertia": mass * (width ** 2 + height ** 2) / 12.0, "com": [0.0, 0.0],
            "points": {"c": [0.0, 0.0]},
            "geometry": [{"type": "polygon", "vertices": [[-w, -h], [w, -h], [w, h], [-w, h]]}], "color": color,
            "initial": {"x": float(pose[0]), "y": float(pose[1]), "phi": float(pose[2])}}


def joint_item(name: str, type_: str, body1: str, point1: Any, body2: str, point2: Any, **extra: Any) -> Data:
    item = {"name": name, "type": type_, "body1": body1, "point1": point1, "body2": body2, "point2": point2}
    if "axis" in element_type(type_, "joints").fields:  # prismatic, pin in slot
        item["axis"] = list(extra.pop("axis", [1.0, 0.0]))
    item.update(extra)
    return item


# ---- spatial (3D) templates and inertia helpers ----------------------------------------------------------------
def inertia_rod(mass: float, length: float, axis: int = 2) -> list[list[float]]:
    """Slender uniform rod along body axis ``axis`` (0 x, 1 y, 2 z), about its centre [kg m^2]."""
    i = mass * length ** 2 / 12.0
    return [[0.0 if (r != c or r == axis) else i for c in range(3)] for r in range(3)]


def inertia_box(mass: float, a: float, b: float, c: float) -> list[list[float]]:
    """Uniform box with edges a, b, c along x, y, z, about its centre [kg m^2]."""
    d = (mass * (b * b + c * c) / 12.0, mass * (a * a + c * c) / 12.0, mass * (a * a + b * b) / 12.0)
    return [[d[r] if r == c_ else 0.0 for c_ in range(3)] for r in range(3)]


def inertia_cylinder(mass: float, radius: float, length: float, axis: int = 2) -> list[list[float]]:
    """Uniform solid cylinder with its axis along body axis ``axis``, about its centre [kg m^2]."""
    ia = mass * radius ** 2 / 2.0
    it = mass * (3 * radius ** 2 + length ** 2) / 12.0
    return [[(ia if r == axis else it) if r == c else 0.0 for c in range(3)] for r in range(3)]


def inertia_sphere(mass: float, radius: float) -> list[list[float]]:
    """Uniform solid sphere about its centre [kg m^2]."""
    i = 2.0 * mass * radius ** 2 / 5.0
    return [[i if r == c else 0.0 for c in range(3)] for r in range(3)]


INERTIA_HELPERS = {"rod": inertia_rod, "box": inertia_box, "cylinder": inertia_cylinder, "sphere": inertia_sphere}


def spherical_tree(model: Model | Data) -> dict[str, list[tuple[str, str]]]:
    """Parent -> [(joint, child)] of the spherical joints (the tree the editor's outline shows)."""
    data = model.data if isinstance(model, Model) else model
    out: dict[str, list[tuple[str, str]]] = {}
    for j in data.get("joints", []):
        if j.get("type") == "spherical":
            parent, child = _joint_bodies(j)
            out.setdefault(parent, []).append((j["name"], child))
    return out


def quaternion_from_rotation_vector(rv: Iterable[float]) -> list[float]:
    """Unit quaternion (w, x, y, z), scalar first, of the rotation vector ``rv`` [rad] (axis * angle)."""
    v = [float(x) for x in rv]
    theta = math.sqrt(sum(x * x for x in v))
    if theta == 0.0:
        return [1.0, 0.0, 0.0, 0.0]
    s = math.sin(theta / 2) / theta
    return [math.cos(theta / 2)] + [x * s for x in v]


TREE_ROD_RADIUS = 0.02  # [m] drawing radius of tree links; the joint ball is 1.8 times larger


def tree_body(name: str, mass: float, inertia: list[list[float]], *, in_point: Iterable[float],
              out_point: Iterable[float] | None = None, radius: float = TREE_ROD_RADIUS,
              quaternion: Iterable[float] = (1.0, 0.0, 0.0, 0.0), omega: Iterable[float] | None = None,
              color: str = BODY_COLORS[0]) -> Data:
    """A spatial link of a spherical-joint tree, as in ``sample_models/spherical_chain_3.json``.

    The body frame is at the centre of mass; ``in`` is the hinge to the parent, the optional ``out`` the hinge
    for a child. Drawn as a rod from ``in`` to ``out`` (to the centre when there is no ``out``) and a ball at
    the centre.
    """
    points = {"in": [float(x) for x in in_point]}
    if out_point is not None:
        points["out"] = [float(x) for x in out_point]
    init: Data = {"quaternion": [float(x) for x in quaternion]}
    if omega is not None:
        init["omega"] = [float(x) for x in omega]
    return {"name": name, "mass": float(mass), "inertia": [[float(x) for x in row] for row in inertia],
            "com": [0.0, 0.0, 0.0], "points": points,
            "geometry": [{"type": "cylinder", "from": "in", "to": "out" if out_point is not None else [0.0, 0.0, 0.0],
                          "radius": radius},
                         {"type": "sphere", "center": [0.0, 0.0, 0.0], "radius": radius * 1.8}],
            "color": color, "initial": init}


def add_tree_body(model: Model, parent: str, parent_point: str, child: Data, *,
                  parent_point_coords: Iterable[float] | None = None, joint_name: str | None = None,
                  validate: bool = True) -> Model:
    """Hang ``child`` (see :func:`tree_body`) from ``parent``'s point ``parent_point`` by a spherical joint.

    A missing parent point is created at ``parent_point_coords`` (default: the origin of the parent's frame);
    a tree link that gains its ``out`` point gets its rod redrawn to it. An empty planar document becomes a
    spatial one first (3D gravity, 3D ground points).
    """
    coords = [float(x) for x in (parent_point_coords if parent_point_coords is not None else (0.0, 0.0, 0.0))]

    def fn(d: Data) -> None:
        if d.get("kind", "planar") != "spatial":
            if d.get("bodies"):
                raise ModelError([Diagnostic(model.source, "/kind",
                                             "spherical joints need a spatial model; this one is planar")])
            d["kind"] = "spatial"
            g = d.get("gravity", [0.0, -9.81])
            if len(g) == 2:
                d["gravity"] = [0.0, 0.0, -math.hypot(float(g[0]), float(g[1]))]
            pts = d.setdefault("ground", {}).setdefault("points", {})
            for k, v in pts.items():
                pts[k] = (list(v) + [0.0, 0.0, 0.0])[:3]
        if parent == GROUND:
            d.setdefault("ground", {}).setdefault("points", {}).setdefault(parent_point, coords)
        else:
            pb = element(d, "bodies", parent)
            pts = pb.setdefault("points", {})
            if parent_point not in pts:
                pts[parent_point] = coords
                for s in pb.get("geometry", []):
                    if (parent_point == "out" and s.get("type") == "cylinder" and s.get("from") == "in"
                            and isinstance(s.get("to"), list)):
                        s["to"] = "out"
        d.setdefault("bodies", []).append(copy.deepcopy(child))
        name = joint_name or unique_name(d, "J", "joints")
        d.setdefault("joints", []).append({"name": name, "type": "spherical", "body1": parent,
                                           "point1": parent_point, "body2": child["name"], "point2": "in"})
    return transform(model, fn, validate=validate)


def add_rolling_disk(model: Model, name: str, *, radius: float = 0.3, mass: float = 1.0,
                     width: float = 0.02, center: Iterable[float] = (0.0, 0.0, 0.3),
                     quaternion: Iterable[float] = (1.0, 0.0, 0.0, 0.0), omega: Iterable[float] | None = None,
                     color: str = BODY_COLORS[2], validate: bool = True) -> Model:
    """Add a uniform disk (axis = body z) rolling without slipping on the ground plane z = 0."""
    inertia = inertia_cylinder(mass, radius, width, axis=2)
    init: Data = {"x": float(list(center)[0]), "y": float(list(center)[1]), "z": float(list(center)[2]),
                  "quaternion": [float(x) for x in quaternion]}
    if omega is not None:
        init["omega"] = [float(x) for x in omega]
    body = {"name": name, "mass": float(mass), "inertia": inertia, "com": [0.0, 0.0, 0.0],
            "geometry": [{"type": "disk", "center": [0.0, 0.0, 0.0], "radius": float(radius), "spokes": 6,
                          "thickness": float(width)}], "color": color, "initial": init}

    def fn(d: Data) -> None:
        if d.get("kind", "planar") != "spatial":
            if d.get("bodies"):
                raise ModelError([Diagnostic(model.source, "/kind", "a rolling disk needs a spatial model")])
            d["kind"] = "spatial"
            d["gravity"] = [0.0, 0.0, -9.81]
        d.setdefault("bodies", []).append(body)
        d.setdefault("joints", []).append({"name": unique_name(d, "contact", "joints"), "type": "rolling_disk",
                                           "body": name, "radius": float(radius)})
    return transform(model, fn, validate=validate)
