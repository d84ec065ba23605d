"""A synthesized six-bar (core.analysis.synthesis_sixbar) as a model file.

Bodies (each frame as in the kinematics): ``crank`` (at O2, x towards A; points ``O2``, ``A``), ``coupler`` (at A,
x towards B; ``A``, ``B``), ``rocker`` (at O4, x towards B; ``O4``, ``B``), ``link5`` (at U, x towards E; ``U``,
``E`` and the path point **``P``**: traced as ``link5.P``), ``link6`` (at V, x towards E; ``V``, ``E``). The link
that carries U (or V) gets the point ``U`` (``V``) too, so it is a ternary link; a V on the ground is the ground
point ``O6``. Revolute joints ``O2``, ``A``, ``B``, ``O4``, ``U``, ``E`` and ``V`` (``O6`` on the ground); a
``joint_angle`` driver ``motor`` on ``O2`` turning the crank at constant speed from the first target's crank angle
in the direction that reaches the targets in order (core.analysis.synthesis_model.driven_document). The bodies start
at the exact pose of the first target, so the assembly keeps both synthesized branches. Mass: uniform bars of line
density ``density`` [kg/m] around each body's points (core.analysis.synthesis_model.polygon_mass).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechstudio.core.analysis.synthesis_model import (BAR_WIDTH_RATIO, DEFAULT_DENSITY, DEFAULT_GRAVITY,
                                                      DEFAULT_SPEED, driven_document, polygon_mass)
from mechstudio.core.analysis.synthesis_sixbar import SixBarGeometry
from mechstudio.core.types import FloatArray

#: the traced path point
PATH_POINT = "link5.P"
#: the six-bar's revolute joints (``V`` is named ``O6`` when V is on the ground)
SIXBAR_JOINTS = ("O2", "A", "B", "O4", "U", "E", "V")
COLORS = {"crank": "#d9534f", "coupler": "#5cb85c", "rocker": "#4a90d9", "link5": "#f0ad4e", "link6": "#9b59b6"}


def sixbar_pose(geometry: SixBarGeometry, theta: float) -> tuple[dict[str, tuple[float, float, float]],
                                                                 dict[str, FloatArray]]:
    """(body-frame origins and angles (x, y, phi) of the five moving bodies, the joints) at the crank angle theta."""
    J, ok = geometry.joints(np.array([theta]))
    if not ok[0]:
        raise ValueError(f"the six-bar does not assemble at the crank angle {theta:.6g} rad")
    J = {k: v[0] for k, v in J.items()}
    ang = geometry.angles(np.array([theta]))[:, 0]
    O2, O4 = geometry.O2, geometry.O4
    pose = {"crank": (O2, ang[0]), "coupler": (J["A"], ang[1]), "rocker": (O4, ang[2]), "link5": (J["U"], ang[3]),
            "link6": (J["V"], ang[4])}
    return {k: (float(o[0]), float(o[1]), float(phi)) for k, (o, phi) in pose.items()}, J


def sixbar_model_data(geometry: SixBarGeometry, theta_start: float, theta_end: float, *, name: str = "six_bar",
                      description: str = "", speed: float = DEFAULT_SPEED, density: float = DEFAULT_DENSITY,
                      gravity: tuple[float, float] = DEFAULT_GRAVITY, samples: int = 360) -> dict[str, Any]:
    """The model document (module docstring) of a six-bar driven from the crank angle ``theta_start`` to
    ``theta_end`` [rad, world angles, unwrapped along the motion] at ``speed`` [rad/s]."""
    if not (speed > 0 and math.isfinite(speed)):
        raise ValueError(f"the crank speed must be a positive number of rad/s, got {speed!r}")
    if not (density > 0 and math.isfinite(density)):
        raise ValueError(f"the line density must be a positive number of kg/m, got {density!r}")
    g = geometry
    top = g.top
    pose, _ = sixbar_pose(g, theta_start)
    width = BAR_WIDTH_RATIO * g.link_scale
    points: dict[str, dict[str, list[float]]] = {
        "crank": {"O2": [0.0, 0.0], "A": [g.a, 0.0]},
        "coupler": {"A": [0.0, 0.0], "B": [g.b, 0.0]},
        "rocker": {"O4": [0.0, 0.0], "B": [g.c, 0.0]},
        "link5": {"U": [0.0, 0.0], "E": [g.e, 0.0], "P": [g.p, g.q]},
        "link6": {"V": [0.0, 0.0], "E": [g.f, 0.0]},
    }
    ground = {"O2": [float(g.x0), float(g.y0)], "O4": [float(g.O4[0]), float(g.O4[1])]}
    for host, label, w in ((top.u_link, "U", (g.u1, g.u2)), (top.v_link, "V", (g.v1, g.v2))):
        if host == "ground":
            ground["O6" if label == "V" else "O5"] = [float(w[0]), float(w[1])]
        else:
            points[host][label] = [float(w[0]), float(w[1])]
    bodies = []
    for body, pts in points.items():
        coords = [np.array(v, float) for v in pts.values()]
        mass, com, inertia = polygon_mass(coords, density, g.link_scale)
        names = list(pts)
        pairs = [(names[0], names[1])] if len(names) == 2 else \
            [(names[k], names[(k + 1) % len(names)]) for k in range(len(names))]
        bars = [{"type": "bar", "from": s, "to": e, "width": width} for s, e in pairs
                if math.dist(pts[s], pts[e]) > 1e-12 * g.link_scale]
        x, y, phi = pose[body]
        bodies.append({"name": body, "mass": mass, "inertia": inertia, "com": [float(com[0]), float(com[1])],
                       "points": pts, "geometry": bars, "color": COLORS[body],
                       "initial": {"x": x, "y": y, "phi": phi}})

    def revolute(name: str, body1: str, point1: str, body2: str, point2: str) -> dict[str, Any]:
        return {"name": name, "type": "revolute", "body1": body1, "point1": point1, "body2": body2,
                "point2": point2}
    joints = [revolute("O2", "ground", "O2", "crank", "O2"), revolute("A", "crank", "A", "coupler", "A"),
              revolute("B", "coupler", "B", "rocker", "B"), revolute("O4", "ground", "O4", "rocker", "O4"),
              revolute("U", top.u_link, "O5" if top.u_link == "ground" else "U", "link5", "U"),
              revolute("E", "link5", "E", "link6", "E"),
              revolute("O6" if top.v_link == "ground" else "V", top.v_link,
                       "O6" if top.v_link == "ground" else "V", "link6", "V")]
    return driven_document(name, description, gravity, ground, bodies, joints, theta_start, theta_end, speed,
                           samples)


__all__ = ["PATH_POINT", "SIXBAR_JOINTS", "sixbar_model_data", "sixbar_pose"]
