"""Pure edits of a model: each function takes a :class:`Model` and returns a new one (the input is untouched).

The editor (``gui/commands.py``) builds every undo step from these functions, so an edit is a swap of two
immutable snapshots and the whole editing logic is testable without Qt. Values are addressed by RFC 6901 JSON
pointers into the document (``/bodies/2/mass``) or by element name.

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
from typing import Any, Callable, Iterable

from mechstudio.core.elements import element_type
from mechstudio.core.model.document import GROUND, Model
from mechstudio.core.model.io import model_from_data

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


def set_value(model: Model, pointer: str, value: Any, *, validate: bool = True) -> Model:
    """Set (or create) the value at ``pointer``.

    A new length of a template bar (its end point ``b`` on the bar's x axis, or that point's x) is a resize:
    :func:`resize_bar`, so mass, centre of mass and inertia follow it as when the bar's end is dragged."""
    tokens = split_pointer(pointer)
    if not tokens:
        raise ValueError("cannot replace the whole document with set_value; build a new Model")
    bar = _bar_length(model, tokens, value)
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


def index_of(model: Model | Data, collection: str, name: str) -> int:
    try:
        return names(model, collection).index(name)
    except ValueError:
        raise KeyError(f"no {collection[:-1]} named {name!r}") from None


def element(model: Model | Data, collection: str, name: str) -> Data:
    data = model.data if isinstance(model, Model) else model
    return data[collection][index_of(data, collection, name)]


def element_pointer(model: Model | Data, collection: str, name: str) -> str:
    if collection == "ground_points":
        return join_pointer("ground", "points", name)
    return join_pointer(collection, index_of(model, collection, name))


def references(model: Model | Data, body: str) -> dict[str, list[str]]:
    """Names of the joints, drivers, forces and initial velocities that refer to ``body``.

    A driver or force that refers to a joint being removed with the body is included too.
    """
    data = model.data if isinstance(model, Model) else model
    out: dict[str, list[str]] = {"joints": [], "drivers": [], "forces": []}
    for j in data.get("joints", []):
        if body in (j.get("body1"), j.get("body2"), j.get("body")):
            out["joints"].append(j["name"])
    dead_joints = set(out["joints"])
    for d in data.get("drivers", []):
        if d.get("body") == body or d.get("joint") in dead_joints:
            out["drivers"].append(d["name"])
    for f in data.get("forces", []):
        if body in (f.get("body"), f.get("body1"), f.get("body2")) or f.get("joint") in dead_joints:
            out["forces"].append(f["name"])
    return out


# ---- adding and removing elements -----------------------------------------------------------------------------
def add_element(model: Model, collection: str, item: Data, *, validate: bool = True) -> Model:
    """Append a body, joint, driver or force (``item`` must carry a unique ``name``)."""
    if collection not in COLLECTIONS:
        raise ValueError(f"unknown collection {collection!r}; valid: {', '.join(COLLECTIONS)}")

    def fn(d: Data) -> None:
        d.setdefault(collection, []).append(copy.deepcopy(item))
    return transform(model, fn, validate=validate)


def add_elements(model: Model, items: Iterable[tuple[str, Data]], *, validate: bool = True) -> Model:
    """Append several elements at once (e.g. a pasted group of bodies and their joints)."""
    items = list(items)

    def fn(d: Data) -> None:
        for collection, item in items:
            if collection == "ground_points":
                d.setdefault("ground", {}).setdefault("points", {})[item["name"]] = list(item["position"])
            else:
                d.setdefault(collection, []).append(copy.deepcopy(item))
    return transform(model, fn, validate=validate)


def remove_element(model: Model, collection: str, name: str, *, validate: bool = True) -> Model:
    """Remove one element by name (no cascading; see :func:`remove_body`)."""
    if collection == "ground_points":
        return remove_ground_point(model, name, validate=validate)
    idx = index_of(model, collection, name)
    return transform(model, lambda d: d[collection].pop(idx), validate=validate)


def remove_body(model: Model, name: str, *, validate: bool = True) -> Model:
    """Remove a body and everything that refers to it (joints, their drivers and forces, initial velocities)."""
    refs = references(model, name)

    def fn(d: Data) -> None:
        d["bodies"] = [b for b in d.get("bodies", []) if b["name"] != name]
        for coll in ("joints", "drivers", "forces"):
            if coll in d:
                d[coll] = [e for e in d[coll] if e["name"] not in refs[coll]]
        if "initial_velocities" in d:
            d["initial_velocities"] = [v for v in d["initial_velocities"] if v["body"] != name]
    return transform(model, fn, validate=validate)


def remove_elements(model: Model, keys: Iterable[tuple[str, str]], *, validate: bool = True) -> Model:
    """Remove several (collection, name) elements; bodies cascade as in :func:`remove_body`."""
    out = model
    for collection, name in keys:
        if name not in names(out, collection):
            continue  # already gone with a body
        if collection == "bodies":
            out = remove_body(out, name, validate=False)
        else:
            out = remove_element(out, collection, name, validate=False)
    return _finish(out.copy_data(), model.source, validate) if validate else out


def ground_point_users(model: Model | Data, point: str) -> list[str]:
    data = model.data if isinstance(model, Model) else model
    out = []
    for coll in ("joints", "forces"):
        for e in data.get(coll, []):
            for b, p in (("body1", "point1"), ("body2", "point2")):
                if e.get(b) == GROUND and e.get(p) == point:
                    out.append(e["name"])
    return out


def set_ground_point(model: Model, name: str, position: Iterable[float], *, validate: bool = True) -> Model:
    """Add or move a ground point [m]."""
    pos = [float(x) for x in position]

    def fn(d: Data) -> None:
        d.setdefault("ground", {}).setdefault("points", {})[name] = pos
    return transform(model, fn, validate=validate)


def remove_ground_point(model: Model, name: str, *, validate: bool = True) -> Model:
    """Remove a ground point and the joints and forces attached to it."""
    users = set(ground_point_users(model, name))

    def fn(d: Data) -> None:
        d.get("ground", {}).get("points", {}).pop(name, None)
        for coll in ("joints", "forces"):
            if coll in d:
                d[coll] = [e for e in d[coll] if e["name"] not in users]
        dead = users
        if "drivers" in d:
            d["drivers"] = [e for e in d["drivers"] if e.get("joint") not in dead]
        if "forces" in d:
            d["forces"] = [e for e in d["forces"] if e.get("joint") not in dead]
    return transform(model, fn, validate=validate)


def rename(model: Model, collection: str, old: str, new: str, *, validate: bool = True) -> Model:
    """Rename an element and every reference to it."""
    if old == new:
        return model
    if new in all_names(model):
        from mechstudio.core.errors import Diagnostic, ModelError
        raise ModelError([Diagnostic(model.source, element_pointer(model, collection, old) + "/name",
                                     f"the name {new!r} is already used")])

    def fn(d: Data) -> None:
        if collection == "ground_points":
            pts = d["ground"]["points"]
            d["ground"]["points"] = {(new if k == old else k): v for k, v in pts.items()}
            for coll in ("joints", "forces"):
                for e in d.get(coll, []):
                    for b, p in (("body1", "point1"), ("body2", "point2")):
                        if e.get(b) == GROUND and e.get(p) == old:
                            e[p] = new
            return
        element(d, collection, old)["name"] = new
        if collection == "bodies":
            for coll in ("joints", "drivers", "forces", "initial_velocities"):
                for e in d.get(coll, []):
                    for key in ("body", "body1", "body2"):
                        if e.get(key) == old:
                            e[key] = new
            qv = d.get("quasi_velocities", {})
            lists = [qv.get("choice", [])] + [a.get("choice", []) for a in qv.get("alternatives", {}).values()]
            for q in (q for lst in lists for q in lst):
                if "coefficients" in q:
                    q["coefficients"] = {re.sub(rf"^{re.escape(old)}\.", f"{new}.", k): v
                                         for k, v in q["coefficients"].items()}
                if "expression" in q:
                    q["expression"] = re.sub(rf"\b{re.escape(old)}\.", f"{new}.", q["expression"])
        elif collection == "joints":
            for coll in ("drivers", "forces"):
                for e in d.get(coll, []):
                    if e.get("joint") == old:
                        e["joint"] = new
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
        from mechstudio.core.errors import Diagnostic, ModelError
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
            out.setdefault(j["body1"], []).append((j["name"], j["body2"]))
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
                from mechstudio.core.errors import Diagnostic, ModelError
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
                from mechstudio.core.errors import Diagnostic, ModelError
                raise ModelError([Diagnostic(model.source, "/kind", "a rolling disk needs a spatial model")])
            d["kind"] = "spatial"
            d["gravity"] = [0.0, 0.0, -9.81]
        d.setdefault("bodies", []).append(body)
        d.setdefault("joints", []).append({"name": unique_name(d, "contact", "joints"), "type": "rolling_disk",
                                           "body": name, "radius": float(radius)})
    return transform(model, fn, validate=validate)
