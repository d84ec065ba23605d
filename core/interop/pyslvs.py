"""Import of Pyslvs mechanism expressions (planar linkages) into a Mechanism Studio model document.

The format (written from its public description; Pyslvs itself is AGPL and none of its code is used)::

    M[
      J[R, color[Green], P[0.0, 0.0], L[ground, link_0]],
      J[RP, A[30.0], color[Green], P[40.0, 0.0], L[ground, link_1]],
      ...
    ]

One ``J[...]`` per joint: its type ``R`` (revolute), ``P`` (prismatic: the links slide without turning) or ``RP``
(a pin sliding in a slot), for P and RP the slot angle ``A[degrees]`` (global frame), an optional ``color[...]``
(ignored), the position ``P[x, y]`` and the links it connects ``L[...]`` (``ground`` is the frame; a joint on a
single link is just a point of that link). Several links at one R joint are pinned to the first one.

Conversion (:func:`model_from_expression`): every link becomes a body whose frame is at its first joint with
phi = 0 (so body-frame point coordinates are the expression's coordinates minus that origin), carrying a point per
joint, bars between consecutive points, and mass properties of uniform slender bars of ``LINEAR_DENSITY`` kg/m
along those bars (Pyslvs models have no masses). Coordinates are multiplied by ``scale`` (default 0.001: Pyslvs
drawings are usually in mm; the model is in m). An ``R`` joint of links (a, b, c...) gives revolute joints a-b,
a-c...; a ``P`` joint gives prismatic joints with the axis (cos A, sin A) on the first link (the slot link); an
``RP`` joint adds a light slider body that slides on the first link and is pinned to each other link.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from mechstudio.core.errors import Diagnostic, ModelError
from mechstudio.core.model.document import FORMAT_NAME, FORMAT_VERSION, GROUND

LINEAR_DENSITY = 1.0  # kg/m of the bars a link is made of
SLIDER_MASS = 0.01  # kg, the slider block of an RP joint
POINT_MASS = 0.01  # kg, a link with one joint only (a tracer point)
MAX_EXPRESSION_CHARS = 200_000
_TOKEN = re.compile(r"\s*(?:(?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                    r"|(?P<punct>[\[\],()])|(?P<comment>#[^\n]*))")
_NAME_OK = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


@dataclass
class PyslvsJoint:
    """One ``J[...]`` entry: type (R, P, RP), slot angle [deg], position (x, y) and link names."""
    kind: str
    angle_deg: float
    position: tuple[float, float]
    links: list[str] = field(default_factory=list)


class _Parser:
    def __init__(self, text: str, source: str):
        self.source, self.text = source, text
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                rest = text[pos:]
                if rest.strip() == "":
                    break
                bad = pos + len(rest) - len(rest.lstrip())
                self.fail(f"unexpected character {text[bad]!r}", bad)
            kind = m.lastgroup
            if kind and kind != "comment":
                self.tokens.append((kind, m.group(kind), m.start(kind)))
            pos = m.end()
        self.i = 0

    def fail(self, message: str, offset: int | None = None) -> None:
        if offset is None:
            offset = self.tokens[self.i][2] if self.i < len(self.tokens) else len(self.text)
        line = self.text.count("\n", 0, offset) + 1
        col = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        raise ModelError([Diagnostic(self.source, "", f"line {line}, column {col}: {message}")])

    def peek(self) -> str | None:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None, kind: str | None = None) -> str:
        if self.i >= len(self.tokens):
            self.fail(f"unexpected end of the expression (expected {expected or kind})")
        k, value, _ = self.tokens[self.i]
        if (expected is not None and value != expected) or (kind is not None and k != kind):
            self.fail(f"expected {expected or kind}, found {value!r}")
        self.i += 1
        return value

    def number(self) -> float:
        value = float(self.take(kind="num"))
        if not math.isfinite(value):
            self.fail("number out of range")
        return value

    def skip_bracketed(self) -> None:
        """Skip a balanced [...] (the colour, whatever its form)."""
        self.take("[")
        depth = 1
        while depth:
            value = self.take()
            depth += {"[": 1, "]": -1}.get(value, 0)

    def mechanism(self) -> list[PyslvsJoint]:
        self.take("M")
        self.take("[")
        joints = []
        while self.peek() != "]":
            joints.append(self.joint())
            if self.peek() == ",":
                self.take(",")
            elif self.peek() != "]":
                self.fail(f"expected ',' or ']' after a joint, found {self.peek()!r}")
        self.take("]")
        if self.i != len(self.tokens):
            self.fail("text after the end of the mechanism")
        return joints

    def joint(self) -> PyslvsJoint:
        self.take("J")
        self.take("[")
        kind = self.take(kind="name")
        if kind not in ("R", "P", "RP"):
            self.fail(f"unknown joint type {kind!r} (R, P or RP)", self.tokens[self.i - 1][2])
        angle, position, links = 0.0, None, None
        while self.peek() == ",":
            self.take(",")
            key = self.take(kind="name")
            key_at = self.tokens[self.i - 1][2]
            if key == "A":
                self.take("[")
                angle = self.number()
                self.take("]")
            elif key == "color":
                self.skip_bracketed()
            elif key == "P":
                self.take("[")
                x = self.number()
                self.take(",")
                y = self.number()
                self.take("]")
                position = (x, y)
            elif key == "L":
                self.take("[")
                links = []
                while self.peek() != "]":
                    links.append(self.take(kind="name"))
                    if self.peek() == ",":
                        self.take(",")
                self.take("]")
            else:
                self.fail(f"unknown joint attribute {key!r} (A, color, P or L)", key_at)
        self.take("]")
        if position is None or links is None:
            self.fail("a joint needs a position P[x, y] and links L[...]")
        return PyslvsJoint(kind, angle, position, links)  # type: ignore[arg-type]


def parse_expression(text: str, source: str = "<pyslvs>") -> list[PyslvsJoint]:
    """The joints of a Pyslvs mechanism expression; raises ModelError (line and column) on a syntax error."""
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ModelError([Diagnostic(source, "", f"expression longer than {MAX_EXPRESSION_CHARS} characters")])
    return _Parser(text, source).mechanism()


def _body(name: str, points: dict[str, list[float]], order: list[str]) -> dict[str, Any]:
    """A body of uniform slender bars between consecutive points (mass, centre of mass, inertia about it)."""
    bars = list(zip(order, order[1:]))
    if len(order) > 2:
        bars.append((order[-1], order[0]))
    if not bars:
        mass, com, inertia = POINT_MASS, points[order[0]], POINT_MASS * 1e-4
    else:
        pieces = []
        for a, b in bars:
            (xa, ya), (xb, yb) = points[a], points[b]
            length = math.hypot(xb - xa, yb - ya)
            pieces.append((max(LINEAR_DENSITY * length, 1e-6), ((xa + xb) / 2, (ya + yb) / 2), length))
        mass = sum(m for m, _, _ in pieces)
        com = [sum(m * c[k] for m, c, _ in pieces) / mass for k in (0, 1)]
        # slender bar about its middle: m L^2 / 12; parallel-axis theorem to the body's centre of mass
        inertia = sum(m * L ** 2 / 12 + m * ((c[0] - com[0]) ** 2 + (c[1] - com[1]) ** 2) for m, c, L in pieces)
        inertia = max(inertia, mass * 1e-6)
    return {"name": name, "mass": mass, "inertia": inertia, "com": list(com), "points": points,
            "geometry": [{"type": "bar", "from": a, "to": b, "width": 0.01} for a, b in bars]}


def model_from_expression(text: str, name: str = "pyslvs_import", scale: float = 0.001,
                          source: str = "<pyslvs>") -> dict[str, Any]:
    """A planar model document (see module docstring) from a Pyslvs mechanism expression."""
    joints = parse_expression(text, source)
    if not joints:
        raise ModelError([Diagnostic(source, "", "the mechanism has no joints")])
    problems = []
    for k, j in enumerate(joints):
        for link in j.links:
            if not _NAME_OK.match(link) or len(link) > 60:
                problems.append(Diagnostic(source, "", f"joint {k}: link name {link!r} is not usable"))
        if not j.links:
            problems.append(Diagnostic(source, "", f"joint {k} connects no link"))
        if len(set(j.links)) != len(j.links):
            problems.append(Diagnostic(source, "", f"joint {k} names a link twice"))
    if problems:
        raise ModelError(problems)
    links: dict[str, list[tuple[str, tuple[float, float]]]] = {}
    for k, j in enumerate(joints):
        pos = (j.position[0] * scale, j.position[1] * scale)
        for link in j.links:
            links.setdefault(link, []).append((f"J{k}", pos))
    bodies, ground_points = [], {}
    origin: dict[str, tuple[float, float]] = {}
    for link, pts in links.items():
        if link == GROUND:
            ground_points.update({p: [x, y] for p, (x, y) in pts})
            continue
        ox, oy = pts[0][1]
        origin[link] = (ox, oy)
        local = {p: [x - ox, y - oy] for p, (x, y) in pts}
        body = _body(link, local, [p for p, _ in pts])
        body["initial"] = {"x": ox, "y": oy, "phi": 0.0}
        bodies.append(body)
    out_joints: list[dict[str, Any]] = []
    for k, j in enumerate(joints):
        point = f"J{k}"
        first, others = j.links[0], j.links[1:]
        axis = [math.cos(math.radians(j.angle_deg)), math.sin(math.radians(j.angle_deg))]
        for m, other in enumerate(others):
            tag = f"J{k}" if len(others) == 1 else f"J{k}_{m}"
            if j.kind == "R":
                out_joints.append({"name": tag, "type": "revolute", "body1": first, "point1": point,
                                   "body2": other, "point2": point})
            elif j.kind == "P":
                out_joints.append({"name": tag, "type": "prismatic", "body1": first, "point1": point,
                                   "body2": other, "point2": point, "axis": axis})
            else:  # RP: a slider block slides on the first link and is pinned to the other
                slider = f"{tag}_slider"
                x, y = j.position[0] * scale, j.position[1] * scale
                bodies.append({"name": slider, "mass": SLIDER_MASS, "inertia": SLIDER_MASS * 1e-4,
                               "com": [0.0, 0.0], "points": {"c": [0.0, 0.0]}, "geometry": [],
                               "initial": {"x": x, "y": y, "phi": 0.0}})
                out_joints.append({"name": f"{tag}_slot", "type": "prismatic", "body1": first, "point1": point,
                                   "body2": slider, "point2": "c", "axis": axis})
                out_joints.append({"name": f"{tag}_pin", "type": "revolute", "body1": slider, "point1": "c",
                                   "body2": other, "point2": point})
    return {"format": FORMAT_NAME, "version": FORMAT_VERSION, "name": name, "kind": "planar",
            "description": f"imported from a Pyslvs mechanism expression ({len(joints)} joints, scale {scale:g} "
                           "m per unit; uniform bars of 1 kg/m)",
            "gravity": [0.0, -9.81], "ground": {"points": ground_points}, "bodies": bodies, "joints": out_joints,
            "drivers": [], "forces": []}


def add_speed_driver(doc: dict[str, Any], joint: str, speed: float) -> None:
    """Drive the revolute joint ``joint`` at ``speed`` rad/s from its imported angle (a joint_angle driver)."""
    names = [j["name"] for j in doc["joints"] if j["type"] == "revolute"]
    if joint not in names:
        raise ModelError([Diagnostic("<pyslvs>", "", f"no revolute joint {joint!r} to drive; revolute joints: "
                                                     f"{', '.join(names)}")])
    doc["drivers"].append({"name": f"drive_{joint}", "type": "joint_angle", "joint": joint,
                           "function": {"type": "constant_speed", "initial": 0.0, "speed": speed}})
