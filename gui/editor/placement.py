"""What happens when a palette element is dropped (or a second point clicked) on the canvas. No Qt here.

:func:`place` takes the current (posed) model, its :class:`~core.drawing.scene.SceneGeometry`, the palette kind
and the drop point [m], and returns either a :class:`Placed` edit (new model + undo text + the new element's
key), a :class:`Pending` connection (a joint or spring whose second end the next click gives), or a message
saying why nothing can be placed there. Joints connect the bodies under the drop point: ground points first,
then bodies in file order; a body point or ground point within the snap radius is reused, otherwise a named
point is added to the body.

Nothing moves when a joint pins a body to the ground at a new ground point (a click or drop on empty space): the
new ground point goes where the body's end is (revolute, weld), or onto the sliding line through it (prismatic,
pin in slot: the line runs along the global x axis, so the new point takes the click's x and the body's y). Where
two existing points that do not meet are joined, the assembly closes the gap, and :attr:`Placed.note` says so.

A gear pair or a rack and pinion couples two joints: dropped anywhere, it waits for a click on its first joint
(unless dropped on one), then for a click on the second; a click that misses keeps it waiting and says why
(:attr:`Pending.note`). :func:`prompt` is the status text of what a pending placement waits for.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from mechstudio.core.elements import element_type, element_types
from mechstudio.core.elements.base import CouplingEnds, ElementType
from mechstudio.core.elements.fields import JointRef
from mechstudio.core.model import GROUND, Model
from mechstudio.core.model import edit
from mechstudio.core.drawing.scene import SceneGeometry, Vec2

def _palette_elements() -> dict[str, ElementType]:
    """palette kind -> the element type whose entry it is (core/elements: ``editor.palette``; when several types
    share a kind, e.g. the joint-angle and joint-distance drivers, the first by ``editor.rank`` and name)."""
    out: dict[str, ElementType] = {}
    for et in sorted((et for et in element_types() if et.editor.palette), key=lambda et: (et.editor.rank, et.name)):
        out.setdefault(str(et.editor.palette), et)
    return out


#: the element type behind each element entry of the palette, in palette order
ELEMENTS = _palette_elements()
#: the contact pair is placed like a connector (the two bodies under the drop, or the next click's; empty space:
#: the ground, given a floor when it has no shapes)
PAIR_KIND = "contact_pair"
#: palette entries: kind -> (label, tooltip); element entries come from the element registry
PALETTE = {
    "bar": ("Bar", "A uniform bar, 1 m and 1 kg/m; drag its end handle to resize and rotate"),
    "disk": ("Disk", "A uniform disk, r = 0.25 m, 1 kg"),
    "block": ("Block", "A rectangular block (polygon body), 0.4 m x 0.2 m, 1 kg"),
    "ground": ("Ground point", "A fixed point of the ground"),
    **{kind: (et.editor.label, et.editor.tooltip) for kind, et in ELEMENTS.items()},
}
BODY_KINDS = ("bar", "disk", "block")


def _kinds(placement: str) -> tuple[str, ...]:
    return tuple(k for k, et in ELEMENTS.items() if et.editor.placement == placement)


def _joint_types(et: ElementType) -> tuple[str, ...]:
    """The joint types the element's joint fields accept, one per field (its first accepted type)."""
    return tuple(f.types[0] for f in et.fields if isinstance(f, JointRef) and f.types)


#: placed by clicking the two joints they couple (gear pair, rack and pinion ...): kind -> (first type, second)
COUPLING_KINDS = {k: _joint_types(ELEMENTS[k]) for k in _kinds("coupling")}
#: contact: two clicks, in order -- the disk's centre then a point of its line; the cam's centre then the
#: follower's point (body1 is the second click for the disk, the first for the cam)
CONTACT_KINDS = _kinds("contact")
#: two clicks joining two bodies (or a body and the ground); the contacts are placed that way too
CONNECTOR_KINDS = _kinds("connector") + CONTACT_KINDS
FLOOR_SIZE = (2.0, 0.1)  # [m] the floor box a contact pair with a shapeless ground gets (top at the click)
#: dropped on a joint: kind -> the joint types its elements act on (a rotational spring: revolute; a driver:
#: revolute for an angle, prismatic for a distance)
ON_JOINT_KINDS = {k: tuple(dict.fromkeys(t for et in element_types() if et.editor.palette == k
                                         for t in _joint_types(et))) for k in _kinds("on_joint")}
ROLLER_RADIUS = 0.05  # [m] default roller of a new cam follower (at most a third of the cam-follower distance)


@dataclass(frozen=True)
class Attach:
    """One end of a connection: a body (or the ground), the point reference to write, its global position."""
    body: str
    ref: Any  # existing point name, or None when a new named point is to be created at ``world``
    world: Vec2


@dataclass(frozen=True)
class Placed:
    model: Model
    text: str
    key: tuple[str, str]
    note: str = ""  # for the status bar: what the assembly will do (a gap it closes)


@dataclass(frozen=True)
class Pending:
    """A placement that waits for a click: the second end of a connection, or a coupling's joints.

    ``first``: the first end (a coupling's: ``body`` "" and ``ref`` the first joint's name); None while a coupling
    still waits for its first joint. ``note``: why the last click did not complete it (shown with the prompt)."""
    kind: str
    first: Attach | None
    note: str = ""


def prompt(pending: Pending) -> str:
    """The status text of what ``pending`` waits for (the last miss first, then what to click; Esc cancels)."""
    label = PALETTE[pending.kind][0]
    if pending.kind in COUPLING_KINDS:
        first_type, second_type = COUPLING_KINDS[pending.kind]
        gear = pending.kind == "gear_pair"
        if pending.first is None:
            text = f"{label}: click the {first_type} joint of the {'first gear' if gear else 'pinion'}"
        else:
            text = (f"{label}: first joint {pending.first.ref}; click the {second_type} joint of the "
                    f"{'second gear' if gear else 'rack'}")
    elif pending.first is None:
        text = f"{label}: click where it goes"
    else:
        first = pending.first
        where = "the ground" if first.body == GROUND else first.body
        point = f" ({first.ref})" if isinstance(first.ref, str) else ""
        if pending.kind in CONTACT_KINDS:
            second = "a point of the line" if pending.kind == "planar_rolling_disk" else "the follower's roller centre"
            text = f"{label}: first click on {where}{point}; click {second}"
        else:
            text = f"{label}: first end on {where}{point}; click the second body or point (empty space: the ground)"
    text += " (Esc cancels)"
    return f"{pending.note} — {text}" if pending.note else text


def attachments_at(model: Model, sg: SceneGeometry, p: Vec2, tol: float) -> list[Attach]:
    """Ground point and bodies under ``p`` (ground first, then bodies in file order), one per body."""
    out: list[Attach] = []
    near = [(math.dist(p, v), k) for k, v in sg.ground.items() if math.dist(p, v) <= tol]
    if near:
        name = min(near)[1]
        out.append(Attach(GROUND, name, sg.ground[name]))
    for b in sg.bodies:
        pts = [(math.dist(p, v), k) for k, v in b.points.items() if math.dist(p, v) <= tol]
        if pts:
            name = min(pts)[1]
            out.append(Attach(b.name, name, b.points[name]))
        elif b.contains(p, tol):
            out.append(Attach(b.name, None, p))
    return out


def joint_at(sg: SceneGeometry, p: Vec2, tol: float, types: tuple[str, ...] | None = None) -> str | None:
    best = None
    for j in sg.joints:
        if types and j.type not in types:
            continue
        d = math.dist(p, j.p2)
        if d <= tol and (best is None or d < best[0]):
            best = (d, j.name)
    return best[1] if best else None


def _resolve(data: dict[str, Any], a: Attach, taken: set[str]) -> Any:
    """Point reference for ``a``, adding a named point to the body (or a ground point) when needed."""
    if a.ref is not None:
        return a.ref
    if a.body == GROUND:
        name = edit.unique_name(data, "G", "ground_points", taken)
        taken.add(name)
        data.setdefault("ground", {}).setdefault("points", {})[name] = [float(a.world[0]), float(a.world[1])]
        return name
    body = edit.element(data, "bodies", a.body)
    pts = body.setdefault("points", {})
    k = 1
    while f"p{k}" in pts:
        k += 1
    local = edit.to_body_frame(body, a.world)
    pts[f"p{k}"] = [round(v, 12) for v in local]
    return f"p{k}"


def stretch_bar(model: Model, body: str, end: Vec2) -> Model | None:
    """Bar ``body`` turned about its end ``a`` and resized so that its end ``b`` lies at ``end`` [m] (what dragging
    its end handle does; mass, inertia and centre of mass follow the length: ``edit.resize_bar``). None when
    ``end`` is at the bar's end ``a``."""
    x0, y0, _ = edit.body_pose(edit.element(model, "bodies", body))
    length = math.hypot(end[0] - x0, end[1] - y0)
    if length < 1e-3:
        return None
    phi = math.atan2(end[1] - y0, end[0] - x0)
    return edit.resize_bar(edit.set_poses(model, {body: (x0, y0, phi)}, validate=False), body, round(length, 10))


def _phi(data: dict[str, Any], body: str) -> float:
    return 0.0 if body == GROUND else edit.body_pose(edit.element(data, "bodies", body))[2]


#: joints whose two points coincide, and joints whose second point slides on a line (global x) through the first
COINCIDENT_KINDS = ("revolute", "weld")
SLIDING_KINDS = ("prismatic", "pin_in_slot")
GAP_TOL = 1e-9  # [m] two points closer than this meet


def _new_ground(a: Attach) -> bool:
    return a.body == GROUND and a.ref is None


def keep_in_place(kind: str, a: Attach, b: Attach) -> tuple[Attach, Attach]:
    """The two ends of a new joint, a new ground point moved so that nothing else has to (module docstring):
    at the body's end (revolute, weld), or onto the line through it along the global x axis (prismatic, pin in
    slot). Other ends are returned as they are."""
    for new, other in ((a, b), (b, a)):
        if _new_ground(new) and other.body != GROUND:
            if kind in COINCIDENT_KINDS:
                moved = Attach(GROUND, None, other.world)
            elif kind in SLIDING_KINDS:
                moved = Attach(GROUND, None, (new.world[0], other.world[1]))
            else:
                continue
            return (moved, other) if new is a else (other, moved)
    return a, b


def gap_note(kind: str, a: Attach, b: Attach) -> str:
    """What the assembly does when the joint's two (existing) points do not meet; "" when they do."""
    if kind in COINCIDENT_KINDS:
        gap = math.dist(a.world, b.world)
        what = "apart"
    elif kind in SLIDING_KINDS:
        gap = abs(a.world[1] - b.world[1])
        what = "off the sliding line (along x)"
    else:
        return ""
    if gap <= GAP_TOL:
        return ""
    mover = b.body if b.body != GROUND else a.body
    return f"the joint's points are {gap:.3g} m {what}: the assembly moves {mover} to close the gap"


def connect(model: Model, kind: str, a: Attach, b: Attach) -> Placed | str:
    """A joint (revolute, prismatic, weld, pin in slot) or spring-damper between two attachments."""
    if a.body == b.body:
        return "pick two different bodies"
    if kind in CONTACT_KINDS:
        return connect_contact(model, kind, a, b)
    if kind == PAIR_KIND:
        return connect_pair(model, a, b)
    order = {GROUND: -1, **{n: i for i, n in enumerate(edit.names(model, "bodies"))}}
    a, b = sorted(keep_in_place(kind, a, b), key=lambda x: order.get(x.body, 0))
    data = model.copy_data()
    taken: set[str] = set()
    r1, r2 = _resolve(data, a, taken), _resolve(data, b, taken)
    if kind == "spring":
        name = edit.unique_name(data, "S", "forces")
        item = {"name": name, "type": "spring_damper", "body1": a.body, "point1": r1, "body2": b.body,
                "point2": r2, "stiffness": 100.0, "damping": 1.0,
                "free_length": round(math.dist(a.world, b.world), 12)}
        data.setdefault("forces", []).append(item)
        return Placed(edit.model_from_data(data, model.source), f"Add spring-damper {name}", ("forces", name))
    name = edit.unique_name(data, "J", "joints", taken)
    extra: dict[str, Any] = {}
    if kind in ("weld", "prismatic"):
        extra["angle"] = _phi(data, b.body) - _phi(data, a.body)
    if "axis" in element_type(kind, "joints").fields:  # prismatic, pin in slot: along the global x axis
        phi1 = _phi(data, a.body)
        extra["axis"] = [math.cos(-phi1), math.sin(-phi1)]  # global x in body1's frame
    data.setdefault("joints", []).append(edit.joint_item(name, kind, a.body, r1, b.body, r2, **extra))
    return Placed(edit.model_from_data(data, model.source), f"Add {kind} joint {name}", ("joints", name),
                  gap_note(kind, a, b))


def connect_pair(model: Model, a: Attach, b: Attach) -> Placed | str:
    """A contact pair between the bodies of ``a`` and ``b`` (the ground first when it is one of them), every shape
    of each (``shape1`` = ``shape2`` = -1), plastic (restitution 0) and frictionless: the inspector edits them. A
    ground without shapes gets a floor box (:data:`FLOOR_SIZE`) whose top runs through the click, under the body."""
    order = {GROUND: -1, **{n: i for i, n in enumerate(edit.names(model, "bodies"))}}
    a, b = sorted((a, b), key=lambda x: order.get(x.body, 0))
    data = model.copy_data()
    for end in (a, b):
        if end.body != GROUND and not edit.element(data, "bodies", end.body).get("geometry"):
            return f"{end.body} has no shape that can touch (a disk, bar, box or polygon in its geometry)"
    note = ""
    if a.body == GROUND and not data.get("ground", {}).get("geometry"):
        w, h = FLOOR_SIZE
        x, y = float(a.world[0]), float(a.world[1])
        data.setdefault("ground", {})["geometry"] = [{"type": "box", "center": [round(x, 12), round(y - h / 2, 12)],
                                                      "size": [w, h]}]
        note = f"a floor ({w:g} m wide) was added to the ground, its top at y = {y:.4g} m"
    name = edit.unique_name(data, "C", "forces")
    data.setdefault("forces", []).append({"name": name, "type": PAIR_KIND, "body1": a.body, "shape1": -1,
                                          "body2": b.body, "shape2": -1, "restitution": 0.0})
    return Placed(edit.model_from_data(data, model.source), f"Add contact {name}", ("forces", name), note)


def connect_contact(model: Model, kind: str, first: Attach, second: Attach) -> Placed | str:
    """A planar rolling disk (``first``: the disk's centre; ``second``: a point of the line, which runs along the
    global x axis, the disk on its side; radius: the centre's distance from the line) or a cam and roller
    follower (``first``: the cam's centre; ``second``: the roller's centre; the profile a circle about the cam's
    centre touching the roller, r = distance - roller radius)."""
    if first.body == GROUND:
        return f"click the {'disk' if kind == 'planar_rolling_disk' else 'cam'} (a moving body) first"
    data = model.copy_data()
    taken: set[str] = set()
    r1, r2 = _resolve(data, first, taken), _resolve(data, second, taken)
    name = edit.unique_name(data, "J", "joints", taken)
    dist = math.dist(first.world, second.world)
    if kind == "planar_rolling_disk":
        dy = first.world[1] - second.world[1]
        if abs(dy) < 1e-6:
            return "the disk's centre must be above or below the line's point (the line runs along x)"
        phi1 = _phi(data, second.body)
        sign = 1.0 if dy > 0 else -1.0  # the disk on the line's left side
        item = edit.joint_item(name, kind, second.body, r2, first.body, r1, radius=round(abs(dy), 12),
                               axis=[sign * math.cos(-phi1), sign * math.sin(-phi1)])
    else:
        rho = min(ROLLER_RADIUS, dist / 3)
        if dist < 1e-6:
            return "click the cam's centre, then the follower's roller centre away from it"
        item = edit.joint_item(name, kind, first.body, r1, second.body, r2, profile=round(dist - rho, 12),
                               follower="roller", radius=round(rho, 12))
    data.setdefault("joints", []).append(item)
    return Placed(edit.model_from_data(data, model.source), f"Add {PALETTE[kind][0].lower()} {name}",
                  ("joints", name))


def place(model: Model, sg: SceneGeometry, kind: str, p: Vec2, tol: float) -> Placed | Pending | str:
    """Drop palette element ``kind`` at ``p`` (see module docstring)."""
    if kind not in PALETTE:
        return f"unknown palette element {kind!r}"
    spatial = model.kind == "spatial"
    if spatial and kind != "ground":
        return "the planar palette edits planar models; use the spherical tree editor for this spatial model"
    data = model.copy_data()
    x, y = float(p[0]), float(p[1])
    if kind in BODY_KINDS:
        prefix = {"bar": "bar", "disk": "disk", "block": "block"}[kind]
        name = edit.unique_name(data, prefix)
        color = edit.next_color(data)
        maker = {"bar": edit.bar_body, "disk": edit.disk_body, "block": edit.block_body}[kind]
        data.setdefault("bodies", []).append(maker(name, pose=(x, y, 0.0), color=color))
        return Placed(edit.model_from_data(data, model.source), f"Add {kind} {name}", ("bodies", name))
    if kind == "ground":
        name = edit.unique_name(data, "G", "ground_points")
        data.setdefault("ground", {}).setdefault("points", {})[name] = [x, y]
        return Placed(edit.model_from_data(data, model.source), f"Add ground point {name}", ("ground_points", name))
    if kind in CONTACT_KINDS:  # the first click: the disk's or the cam's centre, on the topmost body
        hits = [h for h in attachments_at(model, sg, p, tol) if h.body != GROUND]
        return Pending(kind, hits[-1]) if hits else f"click the {PALETTE[kind][0].lower()}'s body first"
    if kind in CONNECTOR_KINDS:
        hits = attachments_at(model, sg, p, tol)
        if len(hits) >= 2 and kind != "spring":
            return connect(model, kind, hits[0], hits[1])
        if hits:
            return Pending(kind, hits[0])
        return Pending(kind, Attach(GROUND, None, (x, y)))
    if kind in ON_JOINT_KINDS:
        types = ON_JOINT_KINDS[kind]
        jname = joint_at(sg, p, tol * 1.5, types)
        if jname is None:
            return f"drop the {PALETTE[kind][0].lower()} on a {' or '.join(types)} joint"
        j = edit.element(data, "joints", jname)
        rel = _phi(data, j["body2"]) - _phi(data, j["body1"])
        if kind == "rotational_spring":
            name = edit.unique_name(data, "RS", "forces")
            data.setdefault("forces", []).append({"name": name, "type": "rotational_spring_damper", "joint": jname,
                                                  "stiffness": 10.0, "damping": 0.1, "free_angle": rel})
            return Placed(edit.model_from_data(data, model.source), f"Add rotational spring {name}",
                          ("forces", name))
        name = edit.unique_name(data, "M", "drivers")
        if j["type"] == "revolute":
            drv = {"name": name, "type": "joint_angle", "joint": jname,
                   "function": {"type": "constant_speed", "initial": rel, "speed": 1.0}}
        else:
            jg = next(g for g in sg.joints if g.name == jname)
            ax = jg.axis or (1.0, 0.0)
            dist = ax[0] * (jg.p2[0] - jg.p1[0]) + ax[1] * (jg.p2[1] - jg.p1[1])
            drv = {"name": name, "type": "joint_distance", "joint": jname,
                   "function": {"type": "constant_speed", "initial": dist, "speed": 0.1}}
        data.setdefault("drivers", []).append(drv)
        return Placed(edit.model_from_data(data, model.source), f"Add driver {name}", ("drivers", name))
    if kind in COUPLING_KINDS:  # gear pair, rack and pinion: the first joint (now or next click), then the second
        return first_coupled_joint(sg, Pending(kind, None), p, tol)
    # force, torque, knife edge: on a body
    hits = [h for h in attachments_at(model, sg, p, tol) if h.body != GROUND]
    if not hits:
        return f"drop the {PALETTE[kind][0].lower()} on a body"
    h = hits[-1]
    if kind == "torque":
        name = edit.unique_name(data, "T", "forces")
        data.setdefault("forces", []).append({"name": name, "type": "applied_torque", "body": h.body, "torque": 1.0})
        return Placed(edit.model_from_data(data, model.source), f"Add torque {name}", ("forces", name))
    ref = _resolve(data, h, set())
    if kind == "force":
        name = edit.unique_name(data, "F", "forces")
        data.setdefault("forces", []).append({"name": name, "type": "applied_force", "body": h.body, "point": ref,
                                              "force": [0.0, -10.0]})
        return Placed(edit.model_from_data(data, model.source), f"Add force {name}", ("forces", name))
    name = edit.unique_name(data, "K", "joints")
    data.setdefault("joints", []).append({"name": name, "type": "knife_edge", "body": h.body, "point": ref,
                                          "axis": [1.0, 0.0]})
    return Placed(edit.model_from_data(data, model.source), f"Add knife edge {name}", ("joints", name))


def first_coupled_joint(sg: SceneGeometry, pending: Pending, p: Vec2, tol: float) -> Pending:
    """A coupling's first joint from the click at ``p``: waiting for the second joint, or still for the first one
    (with a note) when no joint of the right type is there."""
    first = COUPLING_KINDS[pending.kind][0]
    jname = joint_at(sg, p, tol * 1.5, (first,))
    if jname is None:
        any_joint = joint_at(sg, p, tol * 1.5)
        note = f"{any_joint} is not a {first} joint" if any_joint else f"no {first} joint there"
        return Pending(pending.kind, None, note)
    return Pending(pending.kind, Attach("", jname, next(g.p2 for g in sg.joints if g.name == jname)))


def complete(model: Model, sg: SceneGeometry, pending: Pending, p: Vec2, tol: float) -> Placed | Pending | str:
    """Go on with a pending placement by the click at ``p``: a connection's second end (on nothing: a new ground
    point, see :func:`keep_in_place`); a coupling's first or second joint (a miss keeps it pending)."""
    if pending.kind in COUPLING_KINDS:
        if pending.first is None:
            return first_coupled_joint(sg, pending, p, tol)
        result = couple(model, sg, pending, p, tol)
        return Pending(pending.kind, pending.first, result) if isinstance(result, str) else result
    if pending.first is None:
        return place(model, sg, pending.kind, p, tol)
    hits = [h for h in attachments_at(model, sg, p, tol) if h.body != pending.first.body]
    second = hits[0] if hits else Attach(GROUND, None, (float(p[0]), float(p[1])))
    if pending.first.body == GROUND and second.body == GROUND:
        return "connect at least one moving body"
    return connect(model, pending.kind, pending.first, second)


def couple(model: Model, sg: SceneGeometry, pending: Pending, p: Vec2, tol: float) -> Placed | str:
    """A gear pair (two revolutes) or rack and pinion (a revolute, then a prismatic) coupling the joint of the
    pending click with the joint at ``p``, both on one carrier. Gear pair: external, equal pitch radii half the
    centre distance. Rack and pinion: pitch radius the distance of the pinion's centre from the rack's sliding
    line (0.1 m when the line passes through it), on that line's side, offset so the mechanism stays as posed."""
    second = COUPLING_KINDS[pending.kind][1]
    name2 = joint_at(sg, p, tol * 1.5, (second,))
    if name2 is None or name2 == pending.first.ref:
        return f"click the {second} joint of the {'second gear' if pending.kind == 'gear_pair' else 'rack'}"
    g1 = next(g for g in sg.joints if g.name == pending.first.ref)
    g2 = next(g for g in sg.joints if g.name == name2)
    common = {g1.body1, g1.body2} & {g2.body1, g2.body2}
    if len(common) != 1:
        return "the two joints must share one body (the carrier, or the ground)"
    carrier = common.pop()

    def on_carrier(g: Any) -> Vec2:
        return g.p1 if g.body1 == carrier else g.p2
    data = model.copy_data()
    if type(ELEMENTS[pending.kind]).coupling_item is not ElementType.coupling_item:  # the item its type writes
        return _coupling(model, data, pending.kind, g1, g2, carrier)
    if pending.kind == "gear_pair":
        half = round(math.dist(on_carrier(g1), on_carrier(g2)) / 2, 12)
        if half <= 0.0:
            return "the two revolute joints are at the same place: gears need distinct centres"
        name = edit.unique_name(data, "GP", "joints")
        data.setdefault("joints", []).append({"name": name, "type": "gear_pair", "joint1": g1.name,
                                              "joint2": g2.name, "radius1": half, "radius2": half})
        return Placed(edit.model_from_data(data, model.source), f"Add gear pair {name}", ("joints", name))
    ax = g2.axis or (1.0, 0.0)
    n = math.hypot(*ax)
    u = (ax[0] / n, ax[1] / n)
    centre = g1.p2 if g1.body1 == carrier else g1.p1  # the pinion's point
    line = on_carrier(g2)
    h = -u[1] * (line[0] - centre[0]) + u[0] * (line[1] - centre[1])  # perp(u) . (line - centre)
    radius = round(abs(h), 12) if abs(h) > 1e-9 else 0.1
    side = "right" if h <= 0.0 else "left"
    rho = radius if side == "right" else -radius
    pinion = g1.body2 if g1.body1 == carrier else g1.body1
    rack_point = g2.p2 if g2.body1 == carrier else g2.p1
    travel = u[0] * (rack_point[0] - centre[0]) + u[1] * (rack_point[1] - centre[1])
    offset = travel - rho * (_phi(data, pinion) - _phi(data, carrier))
    name = edit.unique_name(data, "RP", "joints")
    data.setdefault("joints", []).append({"name": name, "type": "rack_pinion", "joint1": g1.name, "joint2": g2.name,
                                          "radius": radius, "side": side, "offset": round(offset, 12)})
    return Placed(edit.model_from_data(data, model.source), f"Add rack and pinion {name}", ("joints", name))


def _coupling(model: Model, data: dict[str, Any], kind: str, g1: Any, g2: Any, carrier: str) -> Placed | str:
    """An element coupling joints ``g1`` and ``g2`` (scene records) on ``carrier``, as its element type writes it
    (:meth:`~core.elements.base.ElementType.coupling_item`), named after its label's initials."""
    def mounted(g: Any) -> tuple[str, Vec2, Vec2]:  # (body, its joint point, the carrier's point)
        return (g.body2, g.p2, g.p1) if g.body1 == carrier else (g.body1, g.p1, g.p2)
    (b1, p1, c1), (b2, p2, c2) = mounted(g1), mounted(g2)
    et = ELEMENTS[kind]
    prefix = "".join(w[0] for w in et.editor.label.split()).upper()
    name = edit.unique_name(data, prefix, "joints")
    item = et.coupling_item(name, g1.name, g2.name, CouplingEnds(carrier, b1, b2, p1, p2, c1, c2, g2.axis))
    if isinstance(item, str):
        return item
    data.setdefault("joints", []).append(item)
    return Placed(edit.model_from_data(data, model.source), f"Add {et.editor.label.lower()} {name}", ("joints", name))
