"""What the spatial joints of maximal-coordinate models share (not an element type itself): their fields, their
rows and their joint coordinates, drivers and axis loads.

A spatial joint (``hinge``, ``slider``, ``cylindrical``, ``universal``, ``fixed_joint``; the names differ from
the planar ``revolute``, ``prismatic`` and ``weld``, which keep their planar meaning) joins ``body1`` at
``point1`` and ``body2`` at ``point2`` (3D; either body may be the ground) and carries an axis in each body's
frame, ``axis1`` and ``axis2``. Its constraint rows are those of
:data:`mechstudio.core.elements.primitives.spatial_rows.JOINT_ROWS` (the equations are in that module).

Joint coordinates (``angle`` about axis1 [rad], ``slide`` along axis1 [m]; spatial_rows' docstring): each may be

* driven: an optional time function (field ``angle`` or ``slide``) adds the row theta - f(t) = 0 (wrapped to
  (-pi, pi]) or s - f(t) = 0, component ``angle`` or ``slide`` after the joint's own rows;
* loaded: a spring-damper along or about the axis, tau = -k (theta - theta0) - c theta' + torque(t) (the wrapped
  theta - theta0) or F = -k (s - s0) - c s' + force(t), acting on body2 (minus on body1); generalized forces
  tau theta_q and F s_q.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mechstudio.core.elements.base import ElementType
from mechstudio.core.elements.fields import Angle, BodyRef, Direction, Field, Length, Number, PointRef, TimeFunction
from mechstudio.core.elements.primitives.spatial_rows import JOINT_ROWS


def end_fields() -> tuple[Field, ...]:
    """body1, point1, body2, point2 (3D points)."""
    return (BodyRef("body1"), PointRef("point1", body="body1"),
            BodyRef("body2", distinct_from="body1"), PointRef("point2", body="body2"))


def axis_fields(doc1: str, doc2: str, default1: tuple[float, float, float] = (0.0, 0.0, 1.0),
                default2: tuple[float, float, float] = (0.0, 0.0, 1.0)) -> tuple[Field, ...]:
    """axis1 (body1's frame) and axis2 (body2's frame): non-zero 3-vectors, length immaterial."""
    return (Direction("axis1", doc1, default=default1, dim=3, noun="axis1"),
            Direction("axis2", doc2, default=default2, dim=3, noun="axis2"))


@dataclass(frozen=True)
class AxisLoad:
    """The field keys of one joint coordinate's driver and spring-damper."""
    coordinate: str  # angle | slide
    driver: str
    spring: str
    damping: str
    free: str
    load: str


ROTATION = AxisLoad("angle", "angle", "spring", "damping", "free_angle", "torque")
SLIDE = AxisLoad("slide", "slide", "spring", "damping", "free_length", "force")
SLIDE_OF_CYLINDER = AxisLoad("slide", "slide", "linear_spring", "linear_damping", "free_length", "force")


def rotation_fields() -> tuple[Field, ...]:
    """Driver and rotational spring-damper of the rotation about axis1 (keys of :data:`ROTATION`)."""
    return (TimeFunction("angle", "prescribed joint angle theta(t) about axis1 (omitted: free)", units="rad",
                         default=None),
            Number("spring", "rotational spring about the axis", units="N m/rad", ge=0.0, default=0.0),
            Number("damping", "rotational damper about the axis", units="N m s/rad", ge=0.0, default=0.0),
            Angle("free_angle", "joint angle at which the spring is relaxed", default=0.0),
            TimeFunction("torque", "torque about axis1 on body2 (minus on body1)", units="N m", default=None))


def slide_fields(load: AxisLoad) -> tuple[Field, ...]:
    """Driver and linear spring-damper of the slide along axis1 (keys of ``load``)."""
    return (TimeFunction(load.driver, "prescribed slide s(t) along axis1 (omitted: free)", units="m", default=None),
            Number(load.spring, "linear spring along the axis", units="N/m", ge=0.0, default=0.0),
            Number(load.damping, "linear damper along the axis", units="N s/m", ge=0.0, default=0.0),
            Length(load.free, "slide at which the spring is relaxed", default=0.0),
            TimeFunction(load.load, "force along axis1 on body2 (minus on body1)", units="N", default=None))


class SpatialJointType(ElementType):
    """Base of the spatial joints (module docstring): rows from ``JOINT_ROWS[name]``, then one row per driven
    joint coordinate; ``axis_loads`` the joint coordinates it can drive and load."""

    dimension = "spatial"
    axis_loads: tuple[AxisLoad, ...] = ()

    @property
    def own_rows(self) -> tuple[str, ...]:
        return JOINT_ROWS[self.name]

    @property
    def components(self) -> tuple[str, ...]:  # type: ignore[override]
        return self.own_rows

    def row_components(self, element: Any) -> tuple[str, ...]:
        return self.own_rows + tuple(a.coordinate for a in self.axis_loads if getattr(element, a.driver) is not None)

    def joint_coordinates(self) -> tuple[str, ...]:
        """The joint coordinates reported in the results (angle, slide)."""
        return tuple(a.coordinate for a in self.axis_loads)


__all__ = ["AxisLoad", "ROTATION", "SLIDE", "SLIDE_OF_CYLINDER", "SpatialJointType", "axis_fields", "end_fields",
           "rotation_fields", "slide_fields"]
