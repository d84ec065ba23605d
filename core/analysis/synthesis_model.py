"""A synthesized four-bar as a model file, and the dynamic criteria of a candidate computed by the solver.

**The model** (``four_bar_model_data``): planar bodies ``crank`` (frame at O2, x axis towards A), ``coupler`` (frame at
A, x axis towards B; named points ``A``, ``B`` and the coupler point ``P``) and ``rocker`` (frame at O4, x axis
towards B); ground points ``O2`` and ``O4``; revolute joints ``O2``, ``A``, ``B``, ``O4``; a ``joint_angle`` driver
``motor`` on ``O2`` turning the crank at a constant speed from its angle at the first target (the joint angle
phi_crank - phi_ground is the crank's world angle), in the direction that reaches the targets in order. The bodies
start exactly at the pose of the first target, so the assembly keeps the synthesized branch. The model's
``simulation`` section runs from the first to the last target (t_end = |theta_N - theta_1| / speed).

Mass properties: every link is a uniform bar of line density ``density`` [kg/m] (``m = density L``,
``I = m L^2 / 12`` about its centre); the coupler is the triangle of bars A-B, B-P, P-A, its centre of mass and
moment of inertia those of the three bars (parallel-axis theorem, I = sum(I_i + m_i |c_i - c|^2)).

**Dynamic criteria** (``dynamic_criteria``): the model is run by the inverse dynamics of
:mod:`mechstudio.core.analysis.statics` (C^T lambda = M q'' - h at every sample of a crank turn at constant speed,
or of the swept range where the crank only rocks): ``peak_torque`` is max |M_z| of the driver's reaction [N m],
``peak_bearing_force`` max sqrt(F_x^2 + F_y^2) over the four revolute joints [N]. They are independent of the
synthesis' closed form: a model that does not assemble or move is reported as a failure.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from mechstudio.core.analysis.statics import inverse_dynamics
from mechstudio.core.analysis.synthesis_fourbar import TWO_PI, FourBarGeometry
from mechstudio.core.model.io import model_from_data
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import FloatArray, Status

#: default crank speed [rad/s] of the model's driver: one turn per second
DEFAULT_SPEED = TWO_PI
#: default line density of the links [kg/m]
DEFAULT_DENSITY = 1.0
DEFAULT_GRAVITY = (0.0, -9.81)
#: the bars' drawn width as a fraction of the longest link
BAR_WIDTH_RATIO = 0.03
#: names of the joints and of the driver in the model
JOINTS = ("O2", "A", "B", "O4")
DRIVER = "motor"
COUPLER_POINT = "coupler.P"
#: criteria computed by :func:`dynamic_criteria`
CRITERIA = ("peak_torque", "peak_bearing_force")
#: crank samples of the criteria's run (a full turn; fewer for a short swept range)
CRITERIA_SAMPLES = 73


def bar(length: float, density: float) -> tuple[float, float]:
    """(mass [kg], moment of inertia about its centre [kg m^2]) of a uniform bar."""
    m = density * length
    return m, m * length * length / 12.0


def coupler_mass(b: float, p: float, q: float, density: float) -> tuple[float, FloatArray, float]:
    """(mass, centre of mass in the coupler frame, moment of inertia about it) of the triangle of bars A-B, B-P, P-A
    (A = (0, 0), B = (b, 0), P = (p, q)); bars of zero length are left out."""
    return polygon_mass([np.zeros(2), np.array([b, 0.0]), np.array([p, q])], density, b)


def polygon_mass(points: list[FloatArray], density: float, scale: float) -> tuple[float, FloatArray, float]:
    """(mass, centre of mass, moment of inertia about it) of the closed polygon of uniform bars through the points
    (a bar for two points, a triangle for three) in the body frame; bars shorter than 1e-12 ``scale`` are left out
    (parallel-axis theorem, I = sum(I_i + m_i |c_i - c|^2))."""
    pts = [np.asarray(p, float) for p in points]
    bars = [(pts[0], pts[1])] if len(pts) == 2 else [(pts[k], pts[(k + 1) % len(pts)]) for k in range(len(pts))]
    parts = [(bar(float(np.linalg.norm(e - s)), density), 0.5 * (s + e)) for s, e in bars
             if np.linalg.norm(e - s) > 1e-12 * scale]
    mass = sum(mi for (mi, _), _ in parts)
    com = sum(mi * c for (mi, _), c in parts) / mass
    inertia = sum(Ii + mi * float((c - com) @ (c - com)) for (mi, Ii), c in parts)
    return mass, com, inertia


def pose_at(geometry: FourBarGeometry, theta: float) -> dict[str, tuple[float, float, float]]:
    """Body-frame origins and angles (x, y, phi) of crank, coupler and rocker at the crank angle theta."""
    A, B, _, ok = geometry.positions(np.array([theta]))
    if not ok[0]:
        raise ValueError(f"the linkage does not assemble at the crank angle {theta:.6g} rad")
    A, B = A[0], B[0]
    O2, O4 = geometry.O2, geometry.O4
    phi_c = math.atan2(B[1] - A[1], B[0] - A[0])
    phi_r = math.atan2(B[1] - O4[1], B[0] - O4[0])
    return {"crank": (float(O2[0]), float(O2[1]), float(theta)), "coupler": (float(A[0]), float(A[1]), phi_c),
            "rocker": (float(O4[0]), float(O4[1]), phi_r)}


def four_bar_model_data(geometry: FourBarGeometry, theta_start: float, theta_end: float, *, name: str = "four_bar",
                        description: str = "", speed: float = DEFAULT_SPEED, density: float = DEFAULT_DENSITY,
                        gravity: tuple[float, float] = DEFAULT_GRAVITY, samples: int = 360) -> dict[str, Any]:
    """The model document (module docstring) of a four-bar driven from the crank angle ``theta_start`` to
    ``theta_end`` [rad, world angles, unwrapped along the motion] at ``speed`` [rad/s]; the simulation section
    records ``samples`` output intervals over that motion."""
    if not (speed > 0 and math.isfinite(speed)):
        raise ValueError(f"the crank speed must be a positive number of rad/s, got {speed!r}")
    if not (density > 0 and math.isfinite(density)):
        raise ValueError(f"the line density must be a positive number of kg/m, got {density!r}")
    g = geometry
    pose = pose_at(g, theta_start)
    width = BAR_WIDTH_RATIO * g.link_scale
    m_crank, i_crank = bar(g.a, density)
    m_rocker, i_rocker = bar(g.c, density)
    m_coupler, c_coupler, i_coupler = coupler_mass(g.b, g.p, g.q, density)

    def body(name: str, mass: float, inertia: float, com: FloatArray, points: dict[str, list[float]],
             geometry_items: list[dict[str, Any]], color: str) -> dict[str, Any]:
        x, y, phi = pose[name]
        return {"name": name, "mass": mass, "inertia": inertia, "com": [float(com[0]), float(com[1])],
                "points": points, "geometry": geometry_items, "color": color,
                "initial": {"x": x, "y": y, "phi": phi}}

    def bars(*pairs: tuple[str, str]) -> list[dict[str, Any]]:
        return [{"type": "bar", "from": s, "to": e, "width": width} for s, e in pairs]

    coupler_points = {"A": [0.0, 0.0], "B": [g.b, 0.0], "P": [g.p, g.q]}
    coupler_bars = [("A", "B")] + [(s, e) for s, e in (("B", "P"), ("P", "A"))
                                   if math.dist(coupler_points[s], coupler_points[e]) > 1e-12 * g.b]
    bodies = [
        body("crank", m_crank, i_crank, np.array([g.a / 2, 0.0]), {"O2": [0.0, 0.0], "A": [g.a, 0.0]},
             bars(("O2", "A")), "#d9534f"),
        body("coupler", m_coupler, i_coupler, c_coupler, coupler_points, bars(*coupler_bars), "#5cb85c"),
        body("rocker", m_rocker, i_rocker, np.array([g.c / 2, 0.0]), {"O4": [0.0, 0.0], "B": [g.c, 0.0]},
             bars(("O4", "B")), "#4a90d9"),
    ]
    joints = [
        {"name": "O2", "type": "revolute", "body1": "ground", "point1": "O2", "body2": "crank", "point2": "O2"},
        {"name": "A", "type": "revolute", "body1": "crank", "point1": "A", "body2": "coupler", "point2": "A"},
        {"name": "B", "type": "revolute", "body1": "coupler", "point1": "B", "body2": "rocker", "point2": "B"},
        {"name": "O4", "type": "revolute", "body1": "ground", "point1": "O4", "body2": "rocker", "point2": "O4"},
    ]
    ground = {"O2": [float(g.x0), float(g.y0)], "O4": [float(g.O4[0]), float(g.O4[1])]}
    return driven_document(name, description, gravity, ground, bodies, joints, theta_start, theta_end, speed,
                           samples)


def driven_document(name: str, description: str, gravity: tuple[float, float], ground: dict[str, list[float]],
                    bodies: list[dict[str, Any]], joints: list[dict[str, Any]], theta_start: float, theta_end: float,
                    speed: float, samples: int) -> dict[str, Any]:
    """A planar model document whose joint ``O2`` (ground - crank) is driven by the joint-angle driver ``motor``
    at ``speed`` [rad/s] from ``theta_start`` towards ``theta_end`` [rad]; the simulation section covers that motion
    in ``samples`` output intervals (a full turn when the two are equal)."""
    direction = 1.0 if theta_end >= theta_start else -1.0
    t_end = abs(theta_end - theta_start) / speed
    if t_end <= 0:
        t_end = TWO_PI / speed
    return {
        "format": "mechanism-studio-model", "version": 1, "name": name, "kind": "planar",
        "description": description, "gravity": [float(gravity[0]), float(gravity[1])],
        "ground": {"points": ground},
        "bodies": bodies, "joints": joints,
        "drivers": [{"name": DRIVER, "type": "joint_angle", "joint": "O2",
                     "function": {"type": "constant_speed", "initial": float(theta_start),
                                  "speed": float(direction * speed)}}],
        "forces": [],
        "simulation": {"t_end": t_end, "dt": t_end / max(int(samples), 1), "formulation": "projection",
                       "integrator": "dop853", "rtol": 1e-08, "atol": 1e-10, "correction": True},
    }


@dataclass(frozen=True)
class CriteriaResult:
    """The dynamic criteria of a candidate (module docstring): ``values`` maps each of :data:`CRITERIA` to its
    value [N m or N] (empty when the run failed); ``status`` and ``message`` say how the run ended."""
    values: dict[str, float]
    status: Status
    message: str = ""


def criteria_range(geometry: FourBarGeometry, theta_start: float, theta_end: float) -> tuple[float, float]:
    """The crank angles the criteria run covers: a full turn from theta_start when the crank turns fully (in the
    direction of the motion), else the swept range theta_start..theta_end."""
    if geometry.full_turn():
        return theta_start, theta_start + math.copysign(TWO_PI, theta_end - theta_start or 1.0)
    return theta_start, theta_end


def dynamic_criteria(geometry: FourBarGeometry, theta_start: float, theta_end: float, *,
                     speed: float = DEFAULT_SPEED, density: float = DEFAULT_DENSITY,
                     gravity: tuple[float, float] = DEFAULT_GRAVITY,
                     samples: int = CRITERIA_SAMPLES) -> CriteriaResult:
    """Peak driver torque and peak bearing force of the four-bar driven over :func:`criteria_range` at ``speed``,
    by the inverse dynamics of its model (module docstring)."""
    start, end = criteria_range(geometry, theta_start, theta_end)
    try:
        data = four_bar_model_data(geometry, start, end, speed=speed, density=density, gravity=gravity,
                                   name="criteria")
        system = compile_model(model_from_data(data))
    except (ValueError, ArithmeticError) as exc:
        return CriteriaResult({}, Status.FAILED, f"the candidate does not make a model: {exc}")
    t_end = abs(end - start) / speed
    times = np.linspace(0.0, t_end, max(int(samples), 2))
    res = inverse_dynamics(system, times)
    if not res.status.ok or len(res.t) < len(times):
        return CriteriaResult({}, Status.FAILED, f"the inverse dynamics stopped: {res.message}")
    torque = float(np.max(np.abs(res.reaction(system, DRIVER)[:, 5])))
    force = max(float(np.max(np.hypot(res.reaction(system, j)[:, 0], res.reaction(system, j)[:, 1])))
                for j in JOINTS)
    return CriteriaResult({"peak_torque": torque, "peak_bearing_force": force}, Status.CONVERGED)


__all__ = ["COUPLER_POINT", "CRITERIA", "CriteriaResult", "DEFAULT_DENSITY", "DEFAULT_GRAVITY", "DEFAULT_SPEED",
           "DRIVER", "JOINTS", "coupler_mass", "criteria_range", "driven_document", "dynamic_criteria",
           "four_bar_model_data", "polygon_mass"]
