"""The element type: everything the program knows about one joint, driver, contact or force type, in one place.

An element module (core/elements/<type>.py) defines one :class:`ElementType` subclass instance ``ELEMENT``:

* ``name`` (the model file's ``type``), ``section`` (joints, drivers or forces), ``dimension`` (planar, spatial
  or both) and ``fields``: its model-file fields besides name and type, as typed descriptors
  (core/elements/fields.py). From them come the element's own frozen record type (:attr:`ElementType.record`,
  one attribute per field plus ``name``, ``type`` and ``index``, and the ``derived`` slots the loader fills in,
  e.g. a gear pair's carrier), its parsing with diagnostics (:meth:`ElementType.parse`), its schema branch
  (:meth:`ElementType.schema_branch`), the references that editing follows
  (:func:`mechstudio.core.elements.references.references`) and the inspector's editors;
* ``components``: labels of its constraint rows, in order (``revolute`` -> x, y);
* :meth:`ElementType.constraint_specs`: the equation primitives its rows are (core/elements/primitives), in
  the order of ``components``; :meth:`ElementType.force_specs` for force elements;
* :meth:`ElementType.bodies` and :meth:`ElementType.reaction_site`: the two bodies it connects, and where its
  reaction is reported (body, body-frame point about which the moment is taken, sign);
* ``editor``: the palette entry, icon, placement flow and drawing symbol the editor and drawing backends use.

Every backend looks the type up in the registry (:func:`mechstudio.core.elements.element_type`); an unknown type
raises :class:`~core.errors.UnknownNameError` naming it and the valid ones.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from mechstudio.core.elements.fields import GROUND, Field, ParseContext, PointRef

Vec = tuple[float, ...]
#: placement flows of the editor's palette (gui/editor/placement.py): two clicks joining two bodies
#: (``connector``), two clicks on a body then a line or follower (``contact``), two clicks on the joints an
#: element couples (``coupling``), a drop on a joint (``on_joint``) or on a body (``on_body``)
PLACEMENTS = ("connector", "contact", "coupling", "on_joint", "on_body")


class UnsupportedElement(ValueError):
    """A registered element type that this kind of model cannot use (e.g. a spatial joint in a planar model)."""


@dataclass(frozen=True)
class EditorInfo:
    """Editor and drawing metadata. ``palette``: the palette kind that creates the element (None: created
    elsewhere, ``no_palette`` says where); ``placement``: how the palette places it (one of
    :data:`PLACEMENTS`); ``rank``: its place in the palette (ascending); ``drawing``: the symbol the 2D/3D views
    draw (pin, weld, slider, slot, blade, spring, arc, arrow, motor, ball, disk, gears, rack, rolling, cam; an
    element that couples joints and brings its own sketch (:meth:`ElementType.coupling_sketch`) may name a
    symbol of its own)."""
    label: str
    tooltip: str
    drawing: str
    palette: str | None = None
    icon: str = ""
    no_palette: str = ""
    placement: str = ""
    rank: int = 0


@dataclass(frozen=True)
class Slot:
    """A derived attribute of an element's record: not in the file, filled in by the loader from other
    elements (:meth:`ElementType.resolve`; e.g. a gear pair's carrier). ``default`` until resolved."""
    key: str
    default: Any
    doc: str = ""
    annotation: str = "Any"


class Fields(tuple):  # type: ignore[type-arg]
    """An element's field descriptors in file order; ``"axis" in fields`` asks for a field by key."""

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            return any(f.key == key for f in self)
        return tuple.__contains__(self, key)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.key for f in self)

    def get(self, key: str) -> Field | None:
        return next((f for f in self if f.key == key), None)


@dataclass(frozen=True)
class Record:
    """Base of every element record: the element's ``name``, its ``type`` and its ``index`` in its section."""
    name: str
    type: str
    index: int


class OneBody:
    """Record mixin of elements on one body (field ``body``, optional ``point``): the two-body view the
    backends share -- body1 the ground (no point), body2 the body at its point."""

    @property
    def body1(self) -> str:
        return GROUND

    @property
    def point1(self) -> Vec:
        return ()

    @property
    def body2(self) -> str:
        return self.body  # type: ignore[attr-defined, no-any-return]

    @property
    def point2(self) -> Vec:
        return getattr(self, "point", ())


@dataclass(frozen=True)
class CouplingEnds:
    """What the 2D scene knows of the two joints an element couples, at the drawn pose: the carrier, each
    mounted body, its joint point and the carrier's point of that joint (global [m]), and the joints' global
    axes (prismatic joints; None for revolutes)."""
    carrier: str
    body1: str
    body2: str
    point1: tuple[float, float]
    point2: tuple[float, float]
    centre1: tuple[float, float]
    centre2: tuple[float, float]
    axis2: tuple[float, float] | None


@dataclass(frozen=True)
class CouplingSketch:
    """The 2D drawing of a coupling element: ``p2`` the marked point (the pitch point), its circles (centre,
    radius) drawn dashed, an optional rack line and axis, and polylines (e.g. a belt's spans)."""
    p2: tuple[float, float]
    circles: tuple[tuple[tuple[float, float], float], ...] = ()
    rack: tuple[tuple[float, float], tuple[float, float]] | None = None
    axis: tuple[float, float] | None = None
    polylines: tuple[tuple[tuple[float, float], ...], ...] = ()


@dataclass(frozen=True)
class Coupling:
    """An element that couples two joints on a common carrier (gear pair, rack and pinion, belt drive): its force
    acts between ``body1`` (mounted on the carrier by ``joint1``) and ``body2`` (by ``joint2``) only, never on
    the carrier.

    Its constraint row's generalized forces C^T lambda are a statically equivalent system that may differ from
    that force: they omit the radial tooth force (the pressure angle) and may put a moment on the carrier (a
    rack's row takes the tooth force at the rack's joint point instead of on the pitch line). The element's
    reported reaction is the physical force on body2 (minus it on body1); what it differs by from the row's
    generalized force on each mounted body is reported by that body's joint instead (its bearing or guide),
    so that the reported forces on every body still sum to its m a and J alpha: on body k the joint's
    reaction gains -D_k, D_k = (the element's reported force on body k) - (its row's generalized force on body
    k), and the carrier gains D_1 + D_2, which is the row's generalized force on the carrier (the row is
    invariant under a rigid motion of the three bodies together, so its three generalized forces sum to zero).

    ``pitch``: (body, body-frame point, carrier-frame offset): the point P = r + A s' + A_c o' where the force
    acts -- the reported moment is then taken as (P - A) x F about the site's point A (a rack's pitch point on
    the pitch line); None: the row's own moment is kept (gears and belts: the force's moment about the
    wheel's centre, the radial part passing through it)."""
    joint1: str
    joint2: str
    body1: str
    body2: str
    carrier: str
    pitch: tuple[str, Vec, Vec] | None = None


@dataclass(frozen=True)
class ReactionSite:
    """Where a constraint's reaction is reported: on ``body`` (never the ground), moment about body-frame
    ``point`` (None: about the centre of mass), multiplied by ``sign`` (-1: what it applies to the ground is
    minus what it applies to ``body``).

    ``radial`` (gears, racks, belts): (carrier, n', k_F, k_M) adds to the reported force F_t (the row's force,
    e.g. a tangential tooth force) the radial force (k_F |F_t| + k_M |M|) A_c n', n' a unit vector in the
    carrier's frame and M the reported moment (a gear's tooth force along the pressure line: k_F = tan(alpha);
    a belt's pull along its span: k_M |M| from the belt's torque). The moment is left as the row's: the radial
    part passes through the reported point (or is taken at ``coupling.pitch``).

    ``coupling``: elements that couple two joints report the difference to their row's generalized forces
    through those joints (:class:`Coupling`)."""
    body: str
    point: Vec | None
    sign: float
    radial: tuple[str, Vec, float, float] | None = None
    coupling: Coupling | None = None


class ElementType:
    """Base class of element types (see module docstring). Subclasses set the class attributes; ``fields`` is
    checked when the subclass is defined (unique keys, a point after the body it belongs to)."""

    name: str = ""
    section: str = "joints"
    dimension: str = "planar"
    fields: Fields = Fields()
    derived: tuple[Slot, ...] = ()
    record_bases: tuple[type, ...] = ()
    components: tuple[str, ...] = ()
    holonomic: bool = True
    editor: EditorInfo = EditorInfo("", "", "")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = Fields(cls.__dict__.get("fields", cls.fields))
        keys = fields.names
        if len(set(keys)) != len(keys):
            raise TypeError(f"{cls.__name__}: duplicate field keys in {keys}")
        for k, f in enumerate(fields):
            if not isinstance(f, Field):
                raise TypeError(f"{cls.__name__}.fields[{k}] is {f!r}, not a field descriptor (core/elements/fields.py)")
            if isinstance(f, PointRef) and f.body not in keys[:k]:
                raise TypeError(f"{cls.__name__}: point field {f.key!r} names body field {f.body!r}, which must "
                                "come before it")
        cls.fields = fields

    # ---- the record, from the fields -------------------------------------------------------------------------
    @cached_property
    def record(self) -> type:
        """This type's frozen record class: ``name``, ``type``, ``index``, one attribute per field (the parsed
        value: coordinates for a point, compiled functions for time functions) and the ``derived`` slots."""
        own = [(f.key, f.annotation) for f in self.fields]
        slots = [(s.key, s.annotation, dataclasses.field(default=s.default)) for s in self.derived]
        cls_name = "".join(p.title() for p in self.name.split("_")) + "Record"
        return dataclasses.make_dataclass(cls_name, own + slots, bases=(Record, *self.record_bases), frozen=True,
                                          namespace={"__doc__": f"A parsed {self.name} element (core/elements/"
                                                                f"{self.name}.py)."})

    def parse(self, item: dict[str, Any], ctx: ParseContext, pointer: str, index: int) -> Any:
        """The record of the file's ``item`` (at JSON ``pointer``, ``index`` in its section): each field parsed
        by its descriptor in order, then :meth:`check`; problems appended to ``ctx.problems``."""
        ctx.item, ctx.values, ctx.ok = item, {}, set()
        for f in self.fields:
            if f.key in item:
                ctx.values[f.key] = f.parse(item[f.key], ctx, f"{pointer}/{f.key}")
            else:
                if f.required:
                    ctx.problem(pointer, f"'{f.key}' is missing (required)")
                ctx.values[f.key] = f.absent(ctx)
        record = self.record(name=str(item.get("name", "")), type=self.name, index=index, **ctx.values)
        self.check(record, ctx, pointer)
        return record

    def check(self, element: Any, ctx: ParseContext, pointer: str) -> None:
        """Checks across fields (after each field's own); problems appended with ``ctx.problem``."""

    def schema_branch(self) -> dict[str, Any]:
        """This type's branch of its section's schema: if ``type`` is this type, then exactly these fields."""
        props: dict[str, Any] = {"name": {"$ref": "#/$defs/name"}, "type": True}
        props.update({f.key: f.schema() for f in self.fields})
        return {"if": {"properties": {"type": {"const": self.name}}},
                "then": {"additionalProperties": False, "required": [f.key for f in self.fields if f.required],
                         "properties": props}}

    @property
    def info_type(self) -> str:
        """The type shown in constraint listings: drivers are all 'driver'."""
        return "driver" if self.section == "drivers" else self.name

    @property
    def is_constraint(self) -> bool:
        return self.section != "forces"

    def row_components(self, element: Any) -> tuple[str, ...]:
        """Labels of this element's rows (``components`` unless they depend on the element's fields)."""
        return self.components

    def constraint_specs(self, element: Any, entities: Any) -> list[Any]:
        """Primitive specs of the element's rows (planar models)."""
        raise NotImplementedError(f"{self.name} is a {self.dimension} element: a planar model cannot use it")

    def force_specs(self, element: Any, entities: Any) -> list[Any]:
        """Force primitive specs of a force element (planar models)."""
        raise NotImplementedError(f"{self.name} is a {self.dimension} element: a planar model cannot use it")

    def resolve(self, element: Any, joints: dict[str, Any], pointer: str, problems: list[tuple[str, str]]) -> Any:
        """The parsed element with what it takes from other joints filled in (elements that couple joints, e.g.
        gear_pair: its gears and centres from its revolutes); problems appended as (JSON pointer, message).
        Called by the loader once every joint is parsed; default: the element unchanged."""
        return element

    def bodies(self, element: Any, entities: Any) -> tuple[str, str]:
        """(body1, body2) the element connects (single-body elements: the ground and the body)."""
        return element.body1, element.body2

    def coupling_sketch(self, item: dict[str, Any], ends: CouplingEnds) -> CouplingSketch | None:
        """Elements that couple two joints: their 2D drawing from the file's ``item`` and the joints' places
        (None: nothing to draw)."""
        return None

    def wheel_radii(self, element: Any) -> tuple[float | None, float | None]:
        """Elements that couple two joints: the radius [m] of the wheel (gear, pulley) at each of the two
        mounted ends, for the 3D view's rings (None: no wheel at that end)."""
        return None, None

    def coupling_item(self, name: str, joint1: str, joint2: str, ends: CouplingEnds) -> dict[str, Any] | str:
        """Elements placed by clicking two joints (placement ``coupling``): the new file item coupling
        ``joint1`` and ``joint2`` at their drawn places, or why it cannot be placed there."""
        raise NotImplementedError(f"{self.name} is not placed by clicking two joints")

    def contact_components(self, element: Any, point: Any, reaction: Any) -> dict[str, float]:
        """Contacts: named scalar parts of the reported reaction (Fx, Fy, .., Mz), e.g. the normal and
        friction force [N]; ``point(body, body_frame_point)`` gives a point's global position at the frame's
        state. Default: none."""
        return {}

    def reaction_site(self, element: Any, entities: Any) -> ReactionSite:
        """Two-body joints: on body2 about point2; when body2 is the ground, on body1 about point1, sign -1."""
        if element.body2 == GROUND:
            return ReactionSite(element.body1, element.point1, -1.0)
        return ReactionSite(element.body2, element.point2, 1.0)


class JointDriverType(ElementType):
    """A driver acting on a joint (field ``joint``): it connects the joint's bodies; its reaction is reported on
    the joint's second body at the joint's point (when that is the ground: on body1 about its centre of mass,
    sign -1)."""

    section = "drivers"
    editor = EditorInfo("Driver", "Motor: drop on a revolute (angle) or prismatic (distance) joint", "motor",
                        palette="driver", icon="driver", placement="on_joint", rank=70)

    def bodies(self, element: Any, entities: Any) -> tuple[str, str]:
        j = entities.joint(element.joint)
        return j.body1, j.body2

    def reaction_site(self, element: Any, entities: Any) -> ReactionSite:
        joint = entities.joint(element.joint)
        if joint.body2 == GROUND:
            return ReactionSite(joint.body1, None, -1.0)
        return ReactionSite(joint.body2, joint.point2, 1.0)
