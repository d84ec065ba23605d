"""Model documents of spatial-joint trees for tests/test_joint_tree.py (and the gyroscope sample): a mixed arm (hinge,
slider, universal mounted the other way round, cylindrical), the gyroscope on gimbals and a heavy symmetric top on
a universal joint and a hinge. Body frames at the world origin, aligned with the world at t = 0 (points and
centres of mass in body coordinates are then world coordinates), unless said otherwise."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from spatial_joint_models import document, quat_axis

IDENT = {"x": 0.0, "y": 0.0, "z": 0.0, "quaternion": [1.0, 0.0, 0.0, 0.0]}


def body(name: str, mass: float, com: list[float], inertia: list[list[float]], points: dict[str, list[float]],
         omega: list[float] | None = None, color: str = "#4a90d9", radius: float = 0.03) -> dict[str, Any]:
    init: dict[str, Any] = dict(IDENT)
    if omega is not None:
        init["omega"] = omega
    return {"name": name, "mass": mass, "inertia": inertia, "com": com, "points": points,
            "geometry": [{"type": "sphere", "center": com, "radius": radius}], "color": color, "initial": init}


def mixed_arm(driven: bool = False, springs: bool = True, dampers: bool = False) -> dict[str, Any]:
    """Four links: l1 on a hinge about z at the origin; l2 on a slider along l1's x axis (a spring); l3 joined to
    l2 by a universal joint whose body1 is l3 (the joint mounted outward-in); l4 on a cylindrical joint along an
    oblique axis of l3. ``driven``: the hinge's angle and the cylindrical joint's slide follow time functions.
    ``dampers``: a damper and a torque on the hinge, a damper and a force on the slider."""
    a = np.array([0.3, 0.2, 1.0])
    a_hat = a / np.linalg.norm(a)
    c3 = np.array([0.8, 0.3, 0.3])
    c4 = c3 + 0.05 * a_hat
    J = lambda d, o: [[d[0], o, 0.3 * o], [o, d[1], -0.5 * o], [0.3 * o, -0.5 * o, d[2]]]  # noqa: E731
    bodies = [
        body("l1", 1.0, [0.25, 0.0, 0.0], J((0.002, 0.02, 0.02), 0.001), {"O": [0, 0, 0], "rail": [0.5, 0, 0]},
             omega=[0.0, 0.0, 1.5], color="#d9534f"),
        body("l2", 0.6, [0.7, 0.0, 0.05], J((0.003, 0.004, 0.005), 0.0005), {"car": [0.6, 0, 0],
                                                                            "u": [0.8, 0, 0.1]},
             omega=[0.3, -0.2, 1.0], color="#f0ad4e"),
        body("l3", 0.8, [0.8, 0.15, 0.2], J((0.01, 0.006, 0.008), 0.001), {"u": [0.8, 0, 0.1], "c": list(c3)},
             omega=[1.0, 0.5, -0.7], color="#5cb85c"),
        body("l4", 0.4, list(c4 + np.array([0.1, 0.05, -0.05])), J((0.002, 0.003, 0.0025), 0.0003),
             {"c": list(c4)}, omega=[0.2, 2.0, 0.4], color="#337ab7"),
    ]
    hinge: dict[str, Any] = {"name": "base", "type": "hinge", "body1": "ground", "point1": "O", "body2": "l1",
                             "point2": "O", "axis1": [0, 0, 1], "axis2": [0, 0, 1]}
    slider: dict[str, Any] = {"name": "rail", "type": "slider", "body1": "l1", "point1": "rail", "body2": "l2",
                              "point2": "car", "axis1": [1, 0, 0], "axis2": [1, 0, 0]}
    if springs:
        slider.update(spring=20.0, free_length=0.05)
        hinge.update(spring=2.0, free_angle=0.3)
    if dampers:
        hinge.update(damping=0.05, torque={"type": "harmonic", "amplitude": 0.3, "frequency": 2.0})
        slider.update(damping=0.4, force=0.5)
    cyl: dict[str, Any] = {"name": "sleeve", "type": "cylindrical", "body1": "l3", "point1": "c", "body2": "l4",
                           "point2": "c", "axis1": list(a), "axis2": list(a)}
    if driven:
        hinge["angle"] = {"type": "harmonic", "amplitude": 0.7, "frequency": 1.5, "phase": 0.2}
        cyl["slide"] = {"type": "polynomial", "coefficients": [0.05, 0.1, -0.2]}
        cyl.pop("linear_spring", None)
    joints = [hinge, slider,
              {"name": "cross", "type": "universal", "body1": "l3", "point1": "u", "body2": "l2", "point2": "u",
               "axis1": [1, 0, 0], "axis2": [0, 1, 1]},
              cyl]
    return document("mixed_arm", bodies, joints, {"O": [0, 0, 0]}, rtol=1e-11, atol=1e-13)


def gyroscope(spin: float = 60.0, t_end: float = 1.0, dt: float = 0.01) -> dict[str, Any]:
    """A gyroscope on gimbals: the outer gimbal on a hinge about the vertical z at the origin, the inner gimbal on
    a hinge about the outer one's x axis, the rotor on a hinge about the inner one's y axis spinning at ``spin``
    [rad/s]; a weight on the inner gimbal (its centre of mass 4 cm above and 2 cm beside the centre) makes gravity
    tip the spin axis, so the gimbals precess and nod."""
    outer = body("outer_gimbal", 0.3, [0, 0, 0], [[0.02, 0, 0], [0, 0.02, 0], [0, 0, 0.03]], {"centre": [0, 0, 0]},
                 color="#777777", radius=0.15)
    outer["geometry"] = [{"type": "cylinder", "from": [0, 0, -0.16], "to": [0, 0, 0.16], "radius": 0.01},
                         {"type": "cylinder", "from": [-0.14, 0, 0], "to": [0.14, 0, 0], "radius": 0.01}]
    inner = body("inner_gimbal", 0.25, [0, 0.02, 0.04], [[0.008, 0, 0], [0, 0.006, 0], [0, 0, 0.008]],
                 {"centre": [0, 0, 0]}, color="#f0ad4e")
    inner["geometry"] = [{"type": "cylinder", "from": [-0.13, 0, 0], "to": [0.13, 0, 0], "radius": 0.008},
                         {"type": "cylinder", "from": [0, -0.12, 0], "to": [0, 0.12, 0], "radius": 0.008},
                         {"type": "sphere", "center": [0, 0.02, 0.04], "radius": 0.025}]
    rotor = body("rotor", 0.5, [0, 0, 0], [[0.005, 0, 0], [0, 0.009, 0], [0, 0, 0.005]], {"centre": [0, 0, 0]},
                 omega=[0.0, spin, 0.0], color="#d9534f")
    rotor["geometry"] = [{"type": "cylinder", "from": [0, -0.02, 0], "to": [0, 0.02, 0], "radius": 0.1}]
    joints = [
        {"name": "outer_pivot", "type": "hinge", "body1": "ground", "point1": "O", "body2": "outer_gimbal",
         "point2": "centre", "axis1": [0, 0, 1], "axis2": [0, 0, 1]},
        {"name": "inner_pivot", "type": "hinge", "body1": "outer_gimbal", "point1": "centre", "body2": "inner_gimbal",
         "point2": "centre", "axis1": [1, 0, 0], "axis2": [1, 0, 0]},
        {"name": "spin_axle", "type": "hinge", "body1": "inner_gimbal", "point1": "centre", "body2": "rotor",
         "point2": "centre", "axis1": [0, 1, 0], "axis2": [0, 1, 0]},
    ]
    data = document("gyroscope_gimbals", [outer, inner, rotor], joints, {"O": [0, 0, 0]}, t_end=t_end, dt=dt,
                    rtol=1e-11, atol=1e-13)
    data["simulation"]["formulation"] = "wittenburg"
    return data


#: the heavy symmetric top of :func:`symmetric_top`: mass [kg], centre of mass from the pivot [m], transverse
#: and axial central moments [kg m^2], the yoke's (spherical) moment, tilt theta [rad] and spin psi' [rad/s]
TOP = {"m": 1.2, "l": 0.08, "I1c": 0.004, "I3": 0.006, "Iy": 0.0007, "theta": math.radians(55.0), "spin": 80.0}


def top_precession_rate() -> float:
    """The slow steady precession rate Omega [rad/s] of :data:`TOP`: the root of
    m g l = Omega (I3 psi' - (I1 - I3) Omega cos theta), I1 = I1c + m l^2 about the pivot (closed form, docstring of
    tests/test_joint_tree.py)."""
    m, l, I1c, I3, th, s = (TOP[k] for k in ("m", "l", "I1c", "I3", "theta", "spin"))
    I1 = I1c + m * l ** 2
    a, b, c = (I1 - I3) * math.cos(th), -I3 * s, m * 9.81 * l  # a W^2 + b W + c = 0
    return (-b - math.sqrt(b * b - 4 * a * c)) / (2 * a)


def symmetric_top(omega: float | None = None, t_end: float = 1.0, dt: float = 0.01) -> dict[str, Any]:
    """The heavy symmetric top of :data:`TOP` carried by a yoke: a universal joint at the pivot (cross axes: the
    vertical z in the ground, the yoke's x), the top on a hinge about the yoke's z axis. The yoke's centre of mass
    is the pivot and its inertia spherical (Iy E): its kinetic energy Iy (a'^2 + b'^2)/2 in the universal joint's
    angles (a about z, b about the turned x; A = Rz(a) Rx(b) Rz(psi) are 3-1-3 Euler angles of the top) leaves the
    steady precession of the top unchanged. Tilted by theta about x, precessing at ``omega`` (default the steady
    rate), spinning at psi' about its axis."""
    m, l, I1c, I3, Iy, th, s = (TOP[k] for k in ("m", "l", "I1c", "I3", "Iy", "theta", "spin"))
    W = top_precession_rate() if omega is None else omega
    n = np.array([0.0, -math.sin(th), math.cos(th)])
    q = quat_axis((1, 0, 0), th)
    w_top = W * np.array([0.0, 0.0, 1.0]) + s * n
    yoke = {"name": "yoke", "mass": 0.05, "inertia": [[Iy, 0, 0], [0, Iy, 0], [0, 0, Iy]], "com": [0, 0, 0],
            "points": {"pivot": [0, 0, 0]},
            "geometry": [{"type": "cylinder", "from": [-0.03, 0, 0], "to": [0.03, 0, 0], "radius": 0.005}],
            "color": "#777777", "initial": {"x": 0, "y": 0, "z": 0, "quaternion": q, "omega": [0, 0, W]}}
    top = {"name": "top", "mass": m, "inertia": [[I1c, 0, 0], [0, I1c, 0], [0, 0, I3]], "com": [0, 0, l],
           "points": {"tip": [0, 0, 0]},
           "geometry": [{"type": "cylinder", "from": [0, 0, l - 0.01], "to": [0, 0, l + 0.01], "radius": 0.06},
                        {"type": "cylinder", "from": [0, 0, 0], "to": [0, 0, 2 * l], "radius": 0.005}],
           "color": "#d9534f", "initial": {"x": 0, "y": 0, "z": 0, "quaternion": q, "omega": list(w_top),
                                           "velocity": list(np.cross(w_top, l * n))}}
    joints = [
        {"name": "gimbal", "type": "universal", "body1": "ground", "point1": "O", "body2": "yoke", "point2": "pivot",
         "axis1": [0, 0, 1], "axis2": [1, 0, 0]},
        {"name": "spin_axle", "type": "hinge", "body1": "yoke", "point1": "pivot", "body2": "top", "point2": "tip",
         "axis1": [0, 0, 1], "axis2": [0, 0, 1]},
    ]
    return document("symmetric_top", [yoke, top], joints, {"O": [0, 0, 0]}, t_end=t_end, dt=dt, rtol=1e-12,
                    atol=1e-14)
