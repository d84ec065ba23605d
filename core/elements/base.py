"""The element type: everything the program knows about one joint, driver, contact or force type, in one place.

An element module (core/elements/<type>.py) defines one :class:`ElementType` subclass instance ``ELEMENT``:

* ``name`` (the model file's ``type``), ``section`` (joints, drivers or forces), ``dimension`` (planar or
  spatial) and ``fields``: the model fields it reads besides name and type (the schema's properties);
* ``components``: labels of its constraint rows, in order (``revolute`` -> x, y);
* :meth:`ElementType.constraint_specs`: the equation primitives its rows are (core/elements/primitives), in
  the order of ``components``; :meth:`ElementType.force_specs` for force elements;
* :meth:`ElementType.bodies` and :meth:`ElementType.reaction_site`: the two bodies it connects, and where its
  reaction is reported (body, body-frame point about which the moment is taken, sign);
* ``editor``: the palette entry, icon and drawing style the editor and drawing backends use.

Every backend looks the type up in the registry (:func:`mechstudio.core.elements.element_type`); an unknown type raises
:class:`~core.errors.UnknownNameError` naming it and the valid ones.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Vec = tuple[float, ...]
#: the reserved body name of the fixed (or prescribed-motion) frame; core.model re-exports it
GROUND = "ground"


class UnsupportedElement(ValueError):
    """A registered element type that this kind of model cannot use (e.g. a spatial joint in a planar model)."""


@dataclass(frozen=True)
class EditorInfo:
    """Editor and drawing metadata. ``palette``: the palette kind that creates the element (None: created
    elsewhere, ``no_palette`` says where); ``drawing``: the symbol the 2D/3D views draw (pin, weld, slider,
    slot, blade, spring, arc, arrow, motor, ball, disk)."""
    label: str
    tooltip: str
    drawing: str
    palette: str | None = None
    icon: str = ""
    no_palette: str = ""


@dataclass(frozen=True)
class ReactionSite:
    """Where a constraint's reaction is reported: on ``body`` (never the ground), moment about body-frame
    ``point`` (None: about the centre of mass), multiplied by ``sign`` (-1: what it applies to the ground is
    minus what it applies to ``body``).

    ``radial`` (gears): (carrier, n', tan(alpha)) turns the reported force F_t (a tangential tooth
    force) into the force along the pressure line, F = F_t + tan(alpha) |F_t| A_c n', n' a unit vector in the
    carrier's frame (the moment is left as the tangential force's: the radial part passes through the gear's
    centre)."""
    body: str
    point: Vec | None
    sign: float
    radial: tuple[str, Vec, float] | None = None


class ElementType:
    """Base class of element types (see module docstring). Subclasses set the class attributes."""

    name: str = ""
    section: str = "joints"
    dimension: str = "planar"
    fields: tuple[str, ...] = ()
    components: tuple[str, ...] = ()
    holonomic: bool = True
    editor: EditorInfo = EditorInfo("", "", "")

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
    fields = ("joint", "function")
    editor = EditorInfo("Driver", "Motor: drop on a revolute (angle) or prismatic (distance) joint", "motor",
                        palette="driver", icon="driver")

    def bodies(self, element: Any, entities: Any) -> tuple[str, str]:
        j = entities.joint(element.joint)
        return j.body1, j.body2

    def reaction_site(self, element: Any, entities: Any) -> ReactionSite:
        joint = entities.joint(element.joint)
        if joint.body2 == GROUND:
            return ReactionSite(joint.body1, None, -1.0)
        return ReactionSite(joint.body2, joint.point2, 1.0)
