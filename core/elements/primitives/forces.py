"""Force primitives of planar elements: what a force element contributes to the applied forces h(q, q', t).

Generalized forces on body k's (x, y, phi) from a force F at body point P = r + A s' ([003] coordinates):
Q = (F, (A s') x F). Each spec below is built by its element module (core/elements/); the vectorised numeric
evaluation groups them in :class:`mechstudio.core.systems.planar.PlanarSystem` (``_build_forces``, ``forces``), the
compiled one in ``mechstudio.core.systems.planar_kernels.k_velocity_terms`` (``PlanarForces`` fields), and ``symbolic`` adds the
same terms to the symbolic Q:

* :class:`SpringSpec`: tension T = k (L - L0) + c L' along u = (P2 - P1)/L: +T u on P1, -T u on P2;
  V = k (L - L0)^2 / 2, dissipated power c L'^2.
* :class:`RotationalSpringSpec`: torque -k (theta - theta0) - c theta' on body 2, opposite on body 1,
  theta = phi_2 - phi_1; V = k (theta - theta0)^2 / 2.
* :class:`PointLoadSpec`: F(t) at a body point;  :class:`BodyTorqueSpec`: T(t) on a body.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mechstudio.core.elements.primitives.base import INDEX, NUMBER, VECTOR
from mechstudio.core.elements.primitives.frame import Vec

#: the force primitives' arrays in ``mechstudio.core.systems.planar_kernels.PlanarForces``: prefix -> (name after the
#: prefix, kind) in order -- spring-dampers (bodies, arms, k, c, L0), rotational spring-dampers (bodies, k, c,
#: theta0), applied forces (body, arm) and applied torques (body); the packed layout is generated from them
COMPILED_FIELDS = {
    "sp": (("b1", INDEX), ("b2", INDEX), ("s1", VECTOR), ("s2", VECTOR), ("k", NUMBER), ("c", NUMBER),
           ("l0", NUMBER)),
    "rt": (("b1", INDEX), ("b2", INDEX), ("k", NUMBER), ("c", NUMBER), ("th0", NUMBER)),
    "ld": (("b", INDEX), ("s", VECTOR)),
    "tq": (("b", INDEX),),
}


@dataclass(frozen=True)
class SpringSpec:
    body1: str
    point1: Vec
    body2: str
    point2: Vec
    stiffness: float  # [N/m]
    damping: float  # [N s/m]
    free_length: float  # [m]


@dataclass(frozen=True)
class RotationalSpringSpec:
    body1: str
    body2: str
    stiffness: float  # [N m/rad]
    damping: float  # [N m s/rad]
    free_angle: float  # [rad]


@dataclass(frozen=True)
class PointLoadSpec:
    body: str
    point: Vec
    components: tuple[Any, ...]  # TimeFunctions F_x(t), F_y(t) [N]


@dataclass(frozen=True)
class BodyTorqueSpec:
    body: str
    torque: Any  # TimeFunction T(t) [N m]


def symbolic(spec: Any, S: Any) -> None:
    """Add the spec's generalized forces to the symbolic Q held by ``S`` (core.symbolic.planar.PlanarSymbols)."""
    if isinstance(spec, SpringSpec):
        p1 = S.r(spec.body1) + S.arm(spec.body1, spec.point1)
        p2 = S.r(spec.body2) + S.arm(spec.body2, spec.point2)
        d = p2 - p1
        length = S.sqrt(d.dot(d))
        rate = d.dot(S.vel(spec.body2, spec.point2) - S.vel(spec.body1, spec.point1)) / length
        tension = S.num(spec.stiffness) * (length - S.num(spec.free_length)) + S.num(spec.damping) * rate
        f1 = d / length * tension
        S.load(spec.body1, spec.point1, f1)
        S.load(spec.body2, spec.point2, -f1)
    elif isinstance(spec, RotationalSpringSpec):
        theta = S.ang(spec.body2) - S.ang(spec.body1)
        rate = S.rate(spec.body2) - S.rate(spec.body1)
        torque = -S.num(spec.stiffness) * (theta - S.num(spec.free_angle)) - S.num(spec.damping) * rate
        S.torque(spec.body2, torque)
        S.torque(spec.body1, -torque)
    elif isinstance(spec, PointLoadSpec):
        S.load(spec.body, spec.point, S.matrix([c.expr for c in spec.components[:2]]))
    elif isinstance(spec, BodyTorqueSpec):
        S.torque(spec.body, spec.torque.expr)
    else:
        raise TypeError(f"no symbolic form for force primitive {type(spec).__name__}")
