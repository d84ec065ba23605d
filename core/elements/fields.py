"""Typed field descriptors: what one field of an element means, declared once in the element's module.

An element module (core/elements/<type>.py) lists its model-file fields as a tuple of the descriptors below
(besides ``name`` and ``type``, which every element has). From that one declaration the program derives

* the element's own frozen record type and its parsing with diagnostics (:meth:`Field.parse`, appending
  (JSON pointer, message) problems to the :class:`ParseContext`);
* the element's branch of the model schema (:meth:`Field.schema`, a JSON-Schema 2020-12 fragment);
* the references that delete, copy, paste and rename follow (:meth:`Field.references`);
* the inspector's editor: its unit, the degree display of angles, its bounds, and for references a chooser
  listing only the valid targets (:attr:`Field.editor`, :meth:`Field.value_problem`, :meth:`Field.choices`).

Kinds: :class:`BodyRef`, :class:`PointRef` (a named point, or coordinates, of the body another field names),
:class:`JointRef` (with the joint types it accepts), :class:`Length`, :class:`Angle`, :class:`Direction` (a
non-zero vector), :class:`Count`, :class:`Choice`, :class:`Flag`, :class:`Number` (with its unit),
:class:`TimeFunction` and :class:`TimeFunctions` (a list of them).

Units are SI: lengths in m, angles in rad (shown in degrees by the inspector), time in s. Time functions are
compiled by the loader (``ParseContext.time_function``), which keeps this layer free of the model layer.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

#: the reserved body name of the fixed (or prescribed-motion) frame
GROUND = "ground"
Vec = tuple[float, ...]
Problems = list[tuple[str, str]]


class _Required:
    """The default of a field the file must give."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass
class ParseContext:
    """What parsing one element needs from the rest of the model, and where its problems go.

    ``body_points``: the named points of every body (the ground's included) [m, body frame];
    ``joint_types``: joint name -> type for every joint of the file; ``time_function(spec)`` compiles a time
    function (raising ValueError, TypeError or KeyError subclasses on a bad one). ``item``, ``values`` and
    ``ok`` describe the element being parsed: its JSON object, the values of its fields parsed so far, and
    the keys whose value parsed without a problem (a point reference is resolved only on a valid body)."""
    kind: str
    body_points: dict[str, dict[str, Vec]]
    joint_types: dict[str, str]
    time_function: Callable[[Any], Any]
    problems: Problems = field(default_factory=list)
    item: dict[str, Any] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)
    ok: set[str] = field(default_factory=set)

    @property
    def dim(self) -> int:
        return 3 if self.kind == "spatial" else 2

    def problem(self, pointer: str, message: str) -> None:
        self.problems.append((pointer, message))

    @property
    def what(self) -> str:
        """The element being parsed, as messages name it: "gear_pair 'GP'"."""
        return f"{self.item.get('type', '?')} {self.item.get('name', '?')!r}"

    def body_names(self) -> str:
        return ", ".join([GROUND] + [b for b in self.body_points if b != GROUND])


def vector(value: Any, dim: int) -> Vec:
    """``value`` as a tuple of ``dim`` floats (truncated, or padded with zeros)."""
    out = [float(x) for x in value][:dim]
    return tuple(out + [0.0] * (dim - len(out)))


@dataclass(frozen=True)
class Field:
    """One field of an element (see module docstring). ``default``: the value the record holds when the file
    omits the field (:data:`REQUIRED`: the file must give it); ``offer``: the inspector shows the field with its
    default when the file omits it; ``doc``: what the field is, in a user's words."""
    key: str
    doc: str = ""
    default: Any = REQUIRED
    offer: bool = True
    #: the inspector's editor: number, angle, count, flag, choice, body, joint, point, direction, time_function,
    #: time_functions
    editor: ClassVar[str] = "text"
    #: the record attribute's type (annotation text)
    annotation: ClassVar[str] = "Any"

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def unit(self) -> str:
        return ""

    @property
    def offered(self) -> bool:
        """True when the inspector shows the field with its default while the file omits it."""
        return self.offer and not self.required and self.default is not None and self.default != ()

    def description(self) -> str:
        unit = f" [{self.unit}]" if self.unit else ""
        default = "" if self.required or self.default in (None, ()) else f" (default {self.default_text()})"
        return f"{self.doc}{unit}{default}".strip()

    def default_text(self) -> str:
        return json_text(self.default)

    def schema(self) -> dict[str, Any]:
        """This field's JSON-Schema fragment (the element's schema branch holds it under ``key``)."""
        frag = self.schema_type()
        text = self.description()
        return {**frag, "description": text} if text else frag

    def schema_type(self) -> dict[str, Any]:
        raise NotImplementedError

    def parse(self, value: Any, ctx: ParseContext, pointer: str) -> Any:
        """The record value of the file's ``value``; problems appended to ``ctx`` as (pointer, message)."""
        return value

    def absent(self, ctx: ParseContext) -> Any:
        """The record value when the file omits the field (its default; an empty value when required)."""
        return None if self.required else self.default

    def value_problem(self, value: Any) -> str | None:
        """Why ``value`` (file units) is refused for this field, or None: the inspector refuses it at the field."""
        return None

    def references(self, value: Any, item: dict[str, Any]) -> list[tuple[str, str, str | None]]:
        """(kind, name, body key) of what this field's ``value`` names: ("body", name, None), ("joint", name,
        None) or ("point", name, the key of the field naming its body); a point given by coordinates names
        nothing (core/elements/references.py)."""
        return []

    def choices(self, model_data: dict[str, Any], item: dict[str, Any]) -> list[str] | None:
        """The values a chooser offers (None: not a chooser)."""
        return None


def json_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


# ---- references ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BodyRef(Field):
    """The name of a body, or ``ground`` unless ``moving``; ``distinct_from``: another body field of the element
    that must name a different body (a joint connects two bodies)."""
    moving: bool = False
    distinct_from: str = ""
    editor: ClassVar[str] = "body"
    annotation: ClassVar[str] = "str"

    def description(self) -> str:
        what = "a moving body (not the ground)" if self.moving else "a body, or the ground"
        return f"{self.doc}: {what}" if self.doc else what

    def schema_type(self) -> dict[str, Any]:
        return {"$ref": "#/$defs/name"}

    def parse(self, value: Any, ctx: ParseContext, pointer: str) -> Any:
        name = str(value)
        if name not in ctx.body_points:
            ctx.problem(pointer, f"no body named {name!r}; bodies: {ctx.body_names()}")
            return name
        if self.moving and name == GROUND:
            ctx.problem(pointer, f"{ctx.what}: {self.key} must be a moving body, not the ground")
            return name
        other = self.distinct_from
        if other and other in ctx.ok and ctx.values.get(other) == name:
            ctx.problem(pointer, f"a joint must connect two different bodies, both are {name!r}")
            return name
        ctx.ok.add(self.key)
        return name

    def absent(self, ctx: ParseContext) -> Any:
        return "" if self.required else self.default

    def references(self, value: Any, item: dict[str, Any]) -> list[tuple[str, str, str | None]]:
        return [("body", value, None)] if isinstance(value, str) else []

    def choices(self, model_data: dict[str, Any], item: dict[str, Any]) -> list[str]:
        bodies = [str(b.get("name")) for b in model_data.get("bodies", [])]
        return bodies if self.moving else [GROUND] + bodies


@dataclass(frozen=True)
class PointRef(Field):
    """A point of the body named by field ``body``: the name of one of its points, or its coordinates in the
    body frame [m]. The record holds the coordinates."""
    body: str = "body1"
    editor: ClassVar[str] = "point"
    annotation: ClassVar[str] = "tuple[float, ...]"

    @property
    def unit(self) -> str:
        return "m"

    def description(self) -> str:
        return self.doc or f"a point of {self.body}: its name, or its coordinates in {self.body}'s frame [m]"

    def schema(self) -> dict[str, Any]:
        return {"$ref": "#/$defs/point_ref", "description": self.description()}

    def default_text(self) -> str:
        return "its origin" if self.default in ((0.0, 0.0), (0.0, 0.0, 0.0)) else str(self.default)

    def parse(self, value: Any, ctx: ParseContext, pointer: str) -> Any:
        zero = (0.0,) * ctx.dim
        if self.body not in ctx.ok:  # the body is reported already
            return zero
        if isinstance(value, list):
            ctx.ok.add(self.key)
            return vector(value, ctx.dim)
        body = ctx.values[self.body]
        points = ctx.body_points.get(body, {})
        if value not in points:
            ctx.problem(pointer, f"body {body!r} has no point named {value!r}; its points: "
                                 f"{', '.join(points) or '(none)'}")
            return zero
        ctx.ok.add(self.key)
        return points[value]

    def absent(self, ctx: ParseContext) -> Any:
        return (0.0,) * ctx.dim

    def references(self, value: Any, item: dict[str, Any]) -> list[tuple[str, str, str | None]]:
        return [("point", value, self.body)] if isinstance(value, str) else []

    def choices(self, model_data: dict[str, Any], item: dict[str, Any]) -> list[str]:
        """The named points of the body the element's ``body`` field names."""
        body = item.get(self.body)
        if body == GROUND:
            return list(model_data.get("ground", {}).get("points", {}))
        found = next((b for b in model_data.get("bodies", []) if b.get("name") == body), {})
        return list(found.get("points", {}))


@dataclass(frozen=True)
class JointRef(Field):
    """The name of a joint of one of the ``types`` (empty: any joint type)."""
    types: tuple[str, ...] = ()
    editor: ClassVar[str] = "joint"
    annotation: ClassVar[str] = "str"

    def description(self) -> str:
        kinds = " or ".join(self.types) if self.types else "any"
        return f"{self.doc} ({kinds} joint)".strip() if self.doc else f"a {kinds} joint"

    def schema_type(self) -> dict[str, Any]:
        return {"$ref": "#/$defs/name"}

    def parse(self, value: Any, ctx: ParseContext, pointer: str) -> Any:
        name = str(value)
        jt = ctx.joint_types.get(name)
        if jt is None:
            ctx.problem(pointer, f"{ctx.what}: no joint named {name!r}; joints: "
                                 f"{', '.join(ctx.joint_types) or '(none)'}")
        elif self.types and jt not in self.types:
            ctx.problem(pointer, f"{ctx.what}: {self.key} must be a {' or '.join(self.types)} joint; "
                                 f"{name!r} is {jt}")
        else:
            ctx.ok.add(self.key)
        return name

    def absent(self, ctx: ParseContext) -> Any:
        return "" if self.required else self.default

    def references(self, value: Any, item: dict[str, Any]) -> list[tuple[str, str, str | None]]:
        return [("joint", value, None)] if isinstance(value, str) else []

    def choices(self, model_data: dict[str, Any], item: dict[str, Any]) -> list[str]:
        return [str(j.get("name")) for j in model_data.get("joints", [])
                if (not self.types or j.get("type") in self.types) and j.get("name") != item.get("name")]


# ---- numbers ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Number(Field):
    """A number in ``units`` (e.g. "N/m"), within the bounds given: ``gt``/``ge`` (greater than / at least)
    and ``lt``/``le``. An optional number (``default=None``: its absence means something, e.g. no friction) may
    name the value the editor writes when the user adds it (``initial``) and the other optional fields it needs
    (``companions``: keys of the same element, added with their own ``initial`` in the same edit)."""
    units: str = ""
    gt: float | None = None
    ge: float | None = None
    lt: float | None = None
    le: float | None = None
    initial: float | None = None
    companions: tuple[str, ...] = ()
    editor: ClassVar[str] = "number"
    annotation: ClassVar[str] = "float"
    integer: ClassVar[bool] = False

    @property
    def unit(self) -> str:
        return self.units

    def schema_type(self) -> dict[str, Any]:
        frag: dict[str, Any] = {"type": "integer" if self.integer else "number"}
        for bound, key in ((self.gt, "exclusiveMinimum"), (self.ge, "minimum"), (self.lt, "exclusiveMaximum"),
                           (self.le, "maximum")):
            if bound is not None:
                frag[key] = bound
        return frag

    def parse(self, value: Any, ctx: ParseContext, pointer: str) -> Any:
        number = int(value) if self.integer else float(value)
        why = self.value_problem(number)
        if why is not None:
            ctx.problem(pointer, f"{why}, got {self.shown(number)}{' ' + self.unit if self.unit else ''}")
        else:
            ctx.ok.add(self.key)
        return number

    def value_problem(self, value: Any, view: tuple[float, str] | None = None) -> str | None:
        """Why ``value`` (file units) is refused: a bound it breaks, shown in the file's unit or, with
        ``view`` = (scale, unit), in the unit the user sees (an angle in degrees: (180/pi, "°"))."""
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return f"{self.key} must be a finite number"
        scale, unit = view if view is not None else (1.0, self.unit)
        sep = "" if unit in ("°", "") else " "
        for bound, broken, words in ((self.gt, lambda b: not value > b, "greater than"),
                                     (self.ge, lambda b: not value >= b, "at least"),
                                     (self.lt, lambda b: not value < b, "less than"),
                                     (self.le, lambda b: not value <= b, "at most")):
            if bound is not None and broken(bound):
                return f"{self.key} must be {words} {self.shown(bound * scale)}{sep}{unit}".rstrip()
        return None

    @staticmethod
    def shown(value: float) -> str:
        return f"{value:.6g}"


@dataclass(frozen=True)
class Length(Number):
    """A length [m]."""
    units: str = "m"


@dataclass(frozen=True)
class Angle(Number):
    """An angle [rad] (the inspector shows degrees when the View menu says so)."""
    units: str = "rad"
    editor: ClassVar[str] = "angle"

    def default_text(self) -> str:
        return f"{self.default:.6g} rad = {math.degrees(self.default):.6g} degrees"


@dataclass(frozen=True)
class Count(Number):
    """A whole number (``ge`` bound, default 0 or more)."""
    editor: ClassVar[str] = "count"
    annotation: ClassVar[str] = "int"
    integer: ClassVar[bool] = True

    def value_problem(self, value: Any, view: tuple[float, str] | None = None) -> str | None:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{self.key} must be a whole number"
        return super().value_problem(value, view)


# ---- choices, flags, directions ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Choice(Field):
    """One of ``values`` (strings)."""
    values: tuple[str, ...] = ()
    editor: ClassVar[str] = "choice"
    annotation: ClassVar[str] = "str"

    def schema_type(self) -> dict[str, Any]:
        return {"enum": list(self.values)}

    def parse(self, value: Any, ctx: ParseContext, pointer: str) -> Any:
        why = self.value_problem(value)
        if why is not None:
            ctx.problem(pointer, f"{why}, got {value!r}")
        else:
            ctx.ok.add(self.key)
        return str(value)

    def value_problem(self, value: Any) -> str | None:
        return None if value in self.values else f"{self.key} must be one of {', '.join(self.values)}"

    def choices(self, model_data: dict[str, Any], item: dict[str, Any]) -> list[str]:
        return list(self.values)


@dataclass(frozen=True)
class Flag(Field):
    """true or false."""
    editor: ClassVar[str] = "flag"
    annotation: ClassVar[str] = "bool"

    def schema_type(self) -> dict[str, Any]:
        return {"type": "boolean"}

    def parse(self, value: Any, ctx: ParseContext, pointer: str) -> Any:
        ctx.ok.add(self.key)
        return bool(value)


@dataclass(frozen=True)
class Direction(Field):
    """A direction: a non-zero vector of ``dim`` components (its length does not matter), in the frame the
    element's docs name; ``noun`` names it in messages ("sliding axis")."""
    dim: int = 2
    noun: str = "direction"
    editor: ClassVar[str] = "direction"
    annotation: ClassVar[str] = "tuple[float, ...]"

    def schema_type(self) -> dict[str, Any]:
        return {"$ref": f"#/$defs/vec{self.dim}"}

    def parse(self, value: Any, ctx: ParseContext, pointer: str) -> Any:
        v = vector(value, self.dim)
        why = self.value_problem(v)
        if why is not None:
            ctx.problem(pointer, why)
        else:
            ctx.ok.add(self.key)
        return v

    def absent(self, ctx: ParseContext) -> Any:
        return tuple(self.default) if isinstance(self.default, (list, tuple)) else (1.0,) + (0.0,) * (self.dim - 1)

    def value_problem(self, value: Any) -> str | None:
        if sum(float(x) ** 2 for x in value) < 1e-24:
            return f"the {self.noun} must not be the zero vector"
        return None


# ---- time functions --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TimeFunction(Field):
    """A function of time f(t) (a number, or one of the forms of core/model/timefunc.py) in ``units`` of its
    value; ``time``: what the argument t stands for when it is not the time (a cam profile's theta [rad])."""
    units: str = ""
    editor: ClassVar[str] = "time_function"
    annotation: ClassVar[str] = "Any"

    @property
    def unit(self) -> str:
        return self.units

    def schema_type(self) -> dict[str, Any]:
        return {"$ref": "#/$defs/time_function"}

    def parse(self, value: Any, ctx: ParseContext, pointer: str) -> Any:
        compiled = compile_time_function(value, ctx, pointer)
        if compiled is not None:
            ctx.ok.add(self.key)
            return compiled
        return ctx.time_function(0.0)

    def absent(self, ctx: ParseContext) -> Any:
        return None if self.default is REQUIRED or self.default is None else ctx.time_function(self.default)


def compile_time_function(value: Any, ctx: ParseContext, pointer: str) -> Any:
    """The compiled time function of ``value``, or None after appending 'invalid time function: ...'."""
    try:
        return ctx.time_function(value)
    except (ValueError, KeyError, TypeError) as exc:
        ctx.problem(pointer, f"invalid time function: {exc}")
        return None


@dataclass(frozen=True)
class TimeFunctions(Field):
    """A list of time functions (components of a force or torque, in ``units``): ``count`` of them (0: the
    model's dimension, 2 or 3, checked by the loader), or, with ``scalar``, also a single one (a planar torque).
    The record holds a tuple of compiled functions."""
    units: str = ""
    count: int = 0
    scalar: bool = False
    editor: ClassVar[str] = "time_functions"
    annotation: ClassVar[str] = "tuple[Any, ...]"

    @property
    def unit(self) -> str:
        return self.units

    def schema_type(self) -> dict[str, Any]:
        lo, hi = (self.count, self.count) if self.count else (2, 3)
        array = {"type": "array", "items": {"$ref": "#/$defs/time_function"}, "minItems": lo, "maxItems": hi}
        return {"oneOf": [{"$ref": "#/$defs/time_function"}, array]} if self.scalar else array

    def parse(self, value: Any, ctx: ParseContext, pointer: str) -> Any:
        items = value if isinstance(value, list) else [value]
        where = (lambda k: f"{pointer}/{k}") if isinstance(value, list) else (lambda k: pointer)
        before = len(ctx.problems)
        comps = tuple(compile_time_function(s, ctx, where(k)) or ctx.time_function(0.0) for k, s in enumerate(items))
        if not self.count and not self.scalar and len(comps) != ctx.dim:
            ctx.problem(pointer, f"a {ctx.kind} model needs {ctx.dim} {self.key} components, got {len(comps)}")
        if len(ctx.problems) == before:
            ctx.ok.add(self.key)
        return comps

    def absent(self, ctx: ParseContext) -> Any:
        return ()


__all__ = ["Angle", "BodyRef", "Choice", "Count", "Direction", "Field", "Flag", "GROUND", "JointRef", "Length",
           "Number", "ParseContext", "PointRef", "REQUIRED", "TimeFunction", "TimeFunctions", "json_text", "vector"]
