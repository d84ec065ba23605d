"""A planar model's constraints and forces as registry entries: the one place that walks the model's
elements for every planar backend (numeric system, compiled path, symbolic model, reactions).

:func:`constraint_entries` lists every constraint element (joints, then drivers, in file order; holonomic
elements first, then the nonholonomic ones, which is the row order of C = [Phi_q; C_psi]) with its row labels,
its primitive specs, the bodies it connects and its reaction site -- all from its element type
(core/elements/<type>.py). :func:`force_specs` lists the force primitives of the force elements.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mechstudio.core.elements import of
from mechstudio.core.elements.base import ElementType, ReactionSite, UnsupportedElement


@dataclass(frozen=True)
class ConstraintEntry:
    """One constraint element of a model, resolved through its element type."""
    name: str
    element: ElementType
    components: tuple[str, ...]
    specs: tuple[Any, ...]
    body1: str
    body2: str
    site: ReactionSite


def _specs(et: ElementType, item: Any, entities: Any, method: str) -> list[Any]:
    try:
        return getattr(et, method)(item, entities)
    except NotImplementedError as exc:
        raise UnsupportedElement(f"{item.name!r}: {exc}") from None


def constraint_entries(entities: Any) -> list[ConstraintEntry]:
    """Every constraint element of a planar model in row order (see module docstring)."""
    out: list[ConstraintEntry] = []
    for section, items in (("joints", entities.joints), ("drivers", entities.drivers)):
        for item in items:
            et = of(item, section)
            specs = tuple(_specs(et, item, entities, "constraint_specs"))
            comps = et.row_components(item)
            if sum(s.size for s in specs) != len(comps):
                raise ValueError(f"element type {et.name}: {len(comps)} components but its primitives give "
                                 f"{sum(s.size for s in specs)} rows")
            b1, b2 = et.bodies(item, entities)
            out.append(ConstraintEntry(item.name, et, comps, specs, b1, b2, et.reaction_site(item, entities)))
    return [e for e in out if e.element.holonomic] + [e for e in out if not e.element.holonomic]


def force_specs(entities: Any) -> list[Any]:
    """The force primitives of every force element of a planar model, in file order."""
    return [s for f in entities.forces for s in _specs(of(f, "forces"), f, entities, "force_specs")]
