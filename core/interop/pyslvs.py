"""Import of Pyslvs mechanism expressions (planar linkages) into a Mechanism Studio model document.

The format (written from Pyslvs' public description and grammar; Pyslvs itself is AGPL and none of its code is
used)::

    M[
      J[R, color[Green], P[0.0, 0.0], L[ground, link_0]],
      J[RP, A[30.0], color[(255, 130, 0)], P[40.0, 0.0], L[ground, link_1, link_2]],
      ...
    ]

One ``J[...]`` per joint: its type ``R`` (revolute), ``P`` (prismatic) or ``RP`` (a pin sliding in a slot); for P
and RP the slot angle ``A[degrees]`` (required, the slot's direction in the global frame as drawn); an optional
colour ``color[Name]`` (one of :data:`PYSLVS_COLORS`, any case) or ``color[(r, g, b)]`` (integers 0-255); the
position ``P[x, y]``; the links it connects ``L[...]`` (``ground`` is the frame). ``#`` starts a comment to the end
of the line, ``#[ ... #]`` a block comment (closed at its first ``#]``; the rest of that line is comment too).

Semantics (as Pyslvs 22.07 solves them: VPoint in pyslvs/expression.pyx, SolverSystem in pyslvs/bfgs.pyx): at
an ``R`` joint every listed link shares the point. At a ``P`` or ``RP`` joint the first link carries the slot, a
line through the joint's point along A fixed to that link; every other link is pinned to one common pin that stays
on the slot line. At an ``RP`` joint the pin links turn freely (about the pin, relative to the slot and to each
other); at a ``P`` joint they keep their angle to the slot (so several pin links move as one). A joint on a single
link is a point of that link; a joint on no link a fixed point.

Conversion (:func:`model_from_expression`): every link becomes a body whose frame is at its first joint with
phi = 0 (so body-frame point coordinates are the expression's coordinates minus that origin), carrying a point
``J<k>`` per joint k, bars between consecutive points, and mass properties of uniform slender bars of
``LINEAR_DENSITY`` kg/m along those bars (Pyslvs models have no masses). Coordinates are multiplied by ``scale``
(default 0.001: Pyslvs drawings are usually in mm; the model is in m); a joint farther than ``MAX_COORDINATE_M``
from the origin after scaling is refused. Joints:

* ``R`` of links (a, b, c, ...): revolute joints a-b, a-c, ... named ``J<k>`` (one pair) or ``J<k>_0``, ``J<k>_1``;
* ``P`` of links (s, a, b, ...): a prismatic joint s-a with the axis (cos A, sin A) in s's frame, and welds a-b,
  ... (``J<k>`` alone, or ``J<k>_0`` the prismatic and ``J<k>_1``... the welds);
* ``RP`` of links (s, a, b, ...): one light slider body ``J<k>_slider`` (a block drawn in the joint's colour) on a
  prismatic joint ``J<k>_slot`` along the slot of s, pinned by revolute joints to every other link (``J<k>_pin``,
  or ``J<k>_pin_0``, ``J<k>_pin_1``, ...).

Colours: Pyslvs colours joints (``color[...]``, Green when absent) and gives every link of an expression its link
colour Blue. Link bodies get that Blue, a slider block its joint's colour, and every joint's colour is kept in the
model's free-form ``editor`` section as ``"pyslvs_joint_colors": {"J<k>": "#rrggbb"}``.

Inputs (:func:`add_input_driver`, Pyslvs' input pairs): a pair (b, d) of joint indices turns the line from joint b
to joint d at a constant rate: the link that carries both is driven (a joint_angle driver on its revolute joint to
the ground at b, else its absolute angle); a pair (b, b) moves the pin of the P/RP joint b along its slot (a
joint_distance driver).
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
SLIDER_SIZE = (0.03, 0.02)  # m, length along the slot and width of the slider block (drawing and inertia)
POINT_MASS = 0.01  # kg, a link with one joint only (a tracer point)
BAR_WIDTH = 0.01  # m, drawn width of the bars
MAX_EXPRESSION_CHARS = 200_000
MAX_COORDINATE_M = 1e3  # m, the largest |x|, |y| of a joint after scaling (beyond: refused; keeps the bars' mass
# properties within the model's number range)
JOINT_COLORS_KEY = "pyslvs_joint_colors"  # in the model's "editor" section: {"J<k>": "#rrggbb"}

#: Pyslvs' named colours (the names its expression grammar accepts, any case) as RGB; e.g. in pyslvs 22.07,
#: pyslvs/expression_parser.py. "dark-cyan" is (128, 0, 128) there, and so it is here.
PYSLVS_COLORS: dict[str, tuple[int, int, int]] = {
    "red": (172, 68, 68), "green": (110, 190, 30), "blue": (68, 120, 172), "cyan": (0, 255, 255),
    "magenta": (255, 0, 255), "brick-red": (255, 130, 130), "yellow": (255, 255, 0), "gray": (160, 160, 160),
    "orange": (225, 165, 0), "pink": (225, 192, 230), "black": (0, 0, 0), "white": (255, 255, 255),
    "dark-red": (128, 0, 0), "dark-green": (0, 128, 0), "dark-blue": (0, 0, 128), "dark-cyan": (128, 0, 128),
    "dark-magenta": (255, 0, 255), "dark-yellow": (128, 128, 0), "dark-gray": (128, 128, 128),
    "dark-orange": (225, 140, 0), "dark-pink": (225, 20, 147),
}
DEFAULT_JOINT_COLOR = "green"  # what Pyslvs gives a joint written without color[...]
LINK_COLOR = "blue"  # what Pyslvs gives every link of an expression

_TOKEN = re.compile(r"\s*(?:(?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
                    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z]+)*)"
                    r"|(?P<punct>[\[\],()])|(?P<comment>#\[[\s\S]*?#\][^\n]*|#[^\n]*))")
_NAME_OK = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_NAME_CHARS = 60  # leaves room for the suffixes of generated names within the model's 80


def hex_color(rgb: tuple[int, int, int]) -> str:
    """``#rrggbb`` of an (r, g, b) triple of 0-255 integers."""
    return "#{:02x}{:02x}{:02x}".format(*rgb)


@dataclass
class PyslvsJoint:
    """One ``J[...]`` entry: type (R, P, RP), slot angle [deg], position (x, y), link names, colour (r, g, b) and
    where it starts in the text (line, column)."""
    kind: str
    angle_deg: float
    position: tuple[float, float]
    links: list[str] = field(default_factory=list)
    color: tuple[int, int, int] = PYSLVS_COLORS[DEFAULT_JOINT_COLOR]
    where: tuple[int, int] = (1, 1)


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

    def where(self, offset: int) -> tuple[int, int]:
        line = self.text.count("\n", 0, offset) + 1
        return line, offset - (self.text.rfind("\n", 0, offset) + 1) + 1

    def fail(self, message: str, offset: int | None = None) -> None:
        if offset is None:
            offset = self.tokens[self.i][2] if self.i < len(self.tokens) else len(self.text)
        line, col = self.where(offset)
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
            self.fail("number out of range", self.tokens[self.i - 1][2])
        return value

    def color(self) -> tuple[int, int, int]:
        """``[Name]`` or ``[(r, g, b)]`` after ``color``."""
        self.take("[")
        if self.peek() == "(":
            self.take("(")
            rgb = []
            for k in range(3):
                if k:
                    self.take(",")
                at = self.tokens[self.i][2] if self.i < len(self.tokens) else len(self.text)
                text = self.take(kind="num")
                if not re.fullmatch(r"\d+", text) or int(text) > 255:
                    self.fail(f"colour component {text!r} is not an integer from 0 to 255", at)
                rgb.append(int(text))
            self.take(")")
            value = (rgb[0], rgb[1], rgb[2])
        else:
            at = self.tokens[self.i][2] if self.i < len(self.tokens) else len(self.text)
            name = self.take(kind="name")
            if name.lower() not in PYSLVS_COLORS:
                self.fail(f"unknown colour {name!r}; Pyslvs colours: {', '.join(sorted(PYSLVS_COLORS))}, "
                          "or (r, g, b)", at)
            value = PYSLVS_COLORS[name.lower()]
        self.take("]")
        return value

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
        start = self.tokens[self.i][2] if self.i < len(self.tokens) else len(self.text)
        self.take("J")
        self.take("[")
        kind = self.take(kind="name")
        if kind not in ("R", "P", "RP"):
            self.fail(f"unknown joint type {kind!r} (R, P or RP)", self.tokens[self.i - 1][2])
        angle: float | None = None
        position: tuple[float, float] | None = None
        links: list[str] | None = None
        color = PYSLVS_COLORS[DEFAULT_JOINT_COLOR]
        seen: set[str] = set()
        while self.peek() == ",":
            self.take(",")
            key = self.take(kind="name")
            key_at = self.tokens[self.i - 1][2]
            if key in seen:
                self.fail(f"{key}[...] given twice in one joint", key_at)
            seen.add(key)
            if key == "A":
                self.take("[")
                angle = self.number()
                self.take("]")
            elif key == "color":
                color = self.color()
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
                    elif self.peek() != "]":
                        self.fail(f"expected ',' or ']' in the link list, found {self.peek()!r}")
                self.take("]")
            else:
                self.fail(f"unknown joint attribute {key!r} (A, color, P or L)", key_at)
        self.take("]")
        if position is None or links is None:
            self.fail("a joint needs a position P[x, y] and links L[...]", start)
        if kind != "R" and angle is None:
            self.fail(f"a {kind} joint needs its slot angle A[degrees]", start)
        return PyslvsJoint(kind, angle or 0.0, position, links, color, self.where(start))  # type: ignore[arg-type]


def parse_expression(text: str, source: str = "<pyslvs>") -> list[PyslvsJoint]:
    """The joints of a Pyslvs mechanism expression; raises ModelError (line and column) on a syntax error."""
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ModelError([Diagnostic(source, "", f"expression longer than {MAX_EXPRESSION_CHARS} characters")])
    return _Parser(text, source).mechanism()


def _body(name: str, points: dict[str, list[float]], order: list[str], color: str) -> dict[str, Any]:
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
            "geometry": [{"type": "bar", "from": a, "to": b, "width": BAR_WIDTH} for a, b in bars],
            "color": color}


def _slider_body(name: str, position: tuple[float, float], angle: float, color: str) -> dict[str, Any]:
    """The slider block of an RP joint: frame and centre of mass at the pin, a rectangle along the slot."""
    length, width = SLIDER_SIZE
    c, s = math.cos(angle), math.sin(angle)
    corners = [(u * length / 2, v * width / 2) for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    # a uniform rectangle about its centre: m (a^2 + b^2) / 12
    return {"name": name, "mass": SLIDER_MASS, "inertia": SLIDER_MASS * (length ** 2 + width ** 2) / 12,
            "com": [0.0, 0.0], "points": {"c": [0.0, 0.0]},
            "geometry": [{"type": "polygon", "vertices": [[c * u - s * v, s * u + c * v] for u, v in corners]}],
            "color": color, "initial": {"x": position[0], "y": position[1], "phi": 0.0}}


def _check_names(joints: list[PyslvsJoint], source: str) -> None:
    problems = []
    for k, j in enumerate(joints):
        at = f"line {j.where[0]}, column {j.where[1]}: joint {k}"
        for link in j.links:
            if not _NAME_OK.fullmatch(link) or len(link) > MAX_NAME_CHARS:
                problems.append(Diagnostic(source, "", f"{at}: link name {link!r} is not usable (letters, digits "
                                                       f"and _, at most {MAX_NAME_CHARS} characters)"))
        if len(set(j.links)) != len(j.links):
            problems.append(Diagnostic(source, "", f"{at} names a link twice"))
    if problems:
        raise ModelError(problems)


def _unique(name: str, taken: set[str]) -> str:
    out, n = name, 1
    while out in taken:
        out, n = f"{name}{n}", n + 1
    taken.add(out)
    return out


def model_from_expression(text: str, name: str = "pyslvs_import", scale: float = 0.001,
                          source: str = "<pyslvs>") -> dict[str, Any]:
    """A planar model document (see module docstring) from a Pyslvs mechanism expression."""
    joints = parse_expression(text, source)
    if not joints:
        raise ModelError([Diagnostic(source, "", "the mechanism has no joints")])
    _check_names(joints, source)
    if not (math.isfinite(scale) and scale > 0):
        raise ModelError([Diagnostic(source, "", f"the scale must be a positive number of metres, not {scale!r}")])
    pos = [(j.position[0] * scale, j.position[1] * scale) for j in joints]
    far = [Diagnostic(source, "", f"line {j.where[0]}, column {j.where[1]}: joint {k}: position P[{j.position[0]:g}, "
                                  f"{j.position[1]:g}] at scale {scale:g} m is beyond {MAX_COORDINATE_M:g} m")
           for k, j in enumerate(joints) if max(abs(pos[k][0]), abs(pos[k][1])) > MAX_COORDINATE_M]
    if far:
        raise ModelError(far)
    links: dict[str, list[int]] = {}
    for k, j in enumerate(joints):
        for link in j.links:
            links.setdefault(link, []).append(k)
    link_color = hex_color(PYSLVS_COLORS[LINK_COLOR])
    bodies: list[dict[str, Any]] = []
    ground_points = {f"J{k}": list(pos[k]) for k, j in enumerate(joints) if not j.links}  # fixed free points
    for link, ks in links.items():
        if link == GROUND:
            ground_points.update({f"J{k}": list(pos[k]) for k in ks})
            continue
        ox, oy = pos[ks[0]]
        local = {f"J{k}": [pos[k][0] - ox, pos[k][1] - oy] for k in ks}
        body = _body(link, local, [f"J{k}" for k in ks], link_color)
        body["initial"] = {"x": ox, "y": oy, "phi": 0.0}
        bodies.append(body)
    body_names = set(links) - {GROUND}
    out_joints: list[dict[str, Any]] = []
    for k, j in enumerate(joints):
        point = f"J{k}"
        if len(j.links) < 2:
            continue  # a point of one link (or a fixed point): no joint
        first, others = j.links[0], j.links[1:]
        theta = math.radians(j.angle_deg)
        axis = [math.cos(theta), math.sin(theta)]
        if j.kind == "R":
            for m, other in enumerate(others):
                out_joints.append({"name": point if len(others) == 1 else f"{point}_{m}", "type": "revolute",
                                   "body1": first, "point1": point, "body2": other, "point2": point})
        elif j.kind == "P":  # the pin links slide without turning: the first on the slot, the rest welded to it
            out_joints.append({"name": point if len(others) == 1 else f"{point}_0", "type": "prismatic",
                               "body1": first, "point1": point, "body2": others[0], "point2": point,
                               "axis": axis})
            for m, other in enumerate(others[1:], start=1):
                out_joints.append({"name": f"{point}_{m}", "type": "weld", "body1": others[0], "point1": point,
                                   "body2": other, "point2": point})
        else:  # RP: one slider on the slot, every pin link pinned to it
            slider = _unique(f"{point}_slider", body_names)
            bodies.append(_slider_body(slider, pos[k], theta, hex_color(j.color)))
            out_joints.append({"name": f"{point}_slot", "type": "prismatic", "body1": first, "point1": point,
                               "body2": slider, "point2": "c", "axis": axis})
            for m, other in enumerate(others):
                out_joints.append({"name": f"{point}_pin" if len(others) == 1 else f"{point}_pin_{m}",
                                   "type": "revolute", "body1": slider, "point1": "c",
                                   "body2": other, "point2": point})
    return {"format": FORMAT_NAME, "version": FORMAT_VERSION, "name": name, "kind": "planar",
            "description": f"imported from a Pyslvs mechanism expression ({len(joints)} joints, scale {scale:g} "
                           "m per unit; uniform bars of 1 kg/m)",
            "gravity": [0.0, -9.81], "ground": {"points": ground_points}, "bodies": bodies, "joints": out_joints,
            "drivers": [], "forces": [],
            "editor": {JOINT_COLORS_KEY: {f"J{k}": hex_color(j.color) for k, j in enumerate(joints)}}}


def add_speed_driver(doc: dict[str, Any], joint: str, speed: float, source: str = "<pyslvs>") -> str:
    """Drive the joint ``joint`` of ``doc`` from its imported position at a constant rate: a revolute joint's
    angle at ``speed`` rad/s (joint_angle), a prismatic joint's travel at ``speed`` m/s (joint_distance). Returns
    the driver's name."""
    kinds = {j["name"]: j["type"] for j in doc["joints"] if j["type"] in ("revolute", "prismatic")}
    if joint not in kinds:
        raise ModelError([Diagnostic(source, "", f"no revolute or prismatic joint {joint!r} to drive; "
                                                 f"joints: {', '.join(kinds)}")])
    return _add_driver(doc, "joint_angle" if kinds[joint] == "revolute" else "joint_distance",
                       {"joint": joint}, f"drive_{joint}", speed)


def _add_driver(doc: dict[str, Any], kind: str, target: dict[str, str], name: str, speed: float,
                initial: float = 0.0) -> str:
    taken = {j["name"] for j in doc["joints"]} | {d["name"] for d in doc["drivers"]}
    name = _unique(name, taken)
    doc["drivers"].append({"name": name, "type": kind, **target,
                           "function": {"type": "constant_speed", "initial": initial, "speed": speed}})
    return name


def add_input_driver(doc: dict[str, Any], expression: str, base: int, drive: int, speed: float,
                     source: str = "<pyslvs>") -> str:
    """Drive Pyslvs' input pair (``base``, ``drive``) (joint indices of ``expression``, from which ``doc`` was
    made by :func:`model_from_expression`): the line from joint ``base`` to joint ``drive`` turns at ``speed``
    rad/s counter-clockwise; for ``base == drive`` (a P or RP joint) the pin moves along the slot direction A at
    ``speed`` m/s. Returns the driver's name; raises ModelError naming the pair when it cannot be driven."""
    joints = parse_expression(expression, source)
    pair = f"input pair ({base}, {drive})"

    def fail(message: str) -> ModelError:
        return ModelError([Diagnostic(source, "", f"{pair}: {message}")])

    if not (0 <= base < len(joints) and 0 <= drive < len(joints)):
        raise fail(f"the mechanism has joints 0 to {len(joints) - 1}")
    jb, jd = joints[base], joints[drive]
    if base == drive:
        if jb.kind == "R" or len(jb.links) < 2:
            raise fail(f"joint {base} is not a P or RP joint between two links (a slider input)")
        slot = f"J{base}_slot" if jb.kind == "RP" else (f"J{base}" if len(jb.links) == 2 else f"J{base}_0")
        return _add_driver(doc, "joint_distance", {"joint": slot}, f"input_{base}_{drive}", speed)

    def fixed_on(j: PyslvsJoint, link: str) -> bool:  # the joint's point (its pin, for P/RP) is fixed on the link
        return j.kind == "R" or link != j.links[0]

    common = [link for link in jb.links if link in jd.links and fixed_on(jb, link) and fixed_on(jd, link)]
    if not common:
        raise fail(f"joints {base} and {drive} share no link that carries both points")
    link = common[0]
    if link == GROUND:
        raise fail(f"joints {base} and {drive} are both on the ground")
    for j in doc["joints"]:  # a revolute joint to the ground at the base: drive its angle (sign: phi2 - phi1)
        if j["type"] == "revolute" and j["point1"] == f"J{base}" and {j["body1"], j["body2"]} == {GROUND, link}:
            sign = 1.0 if j["body2"] == link else -1.0
            return _add_driver(doc, "joint_angle", {"joint": j["name"]}, f"input_{base}_{drive}", sign * speed)
    return _add_driver(doc, "coordinate", {"body": link, "coordinate": "phi"}, f"input_{base}_{drive}", speed)
