"""Model documents of spatial-joint mechanisms for the tests (and the samples' geometry): hinge pendulum, Cardan
shaft, double Cardan with a sliding intermediate shaft, RSSR four-bar. Every body's frame origin is given in the
file's ``initial`` (x, y, z), its orientation as a quaternion."""
from __future__ import annotations

import math
from typing import Any

import numpy as np


def rod(name: str, mass: float, length: float, axis: int = 2, color: str = "#4a90d9", radius: float = 0.02,
        com: tuple[float, float, float] = (0.0, 0.0, 0.0), points: dict[str, list[float]] | None = None,
        initial: dict[str, Any] | None = None) -> dict[str, Any]:
    """A slender rod of ``length`` along body axis ``axis`` centred on ``com``: inertia m L^2/12 across, a small
    axial moment m r^2/2."""
    J = [[mass * length ** 2 / 12.0] * 3 for _ in range(3)]
    inertia = [[J[r][c] if r == c else 0.0 for c in range(3)] for r in range(3)]
    inertia[axis][axis] = mass * radius ** 2 / 2.0
    e = np.zeros(3)
    e[axis] = length / 2
    c = np.asarray(com, float)
    return {"name": name, "mass": mass, "inertia": inertia, "com": list(com), "points": points or {},
            "geometry": [{"type": "cylinder", "from": list(c - e), "to": list(c + e), "radius": radius}],
            "color": color, "initial": initial or {}}


def document(name: str, bodies: list[dict[str, Any]], joints: list[dict[str, Any]], ground_points: dict[str, Any],
             gravity: tuple[float, float, float] = (0.0, 0.0, -9.81), forces: list[dict[str, Any]] | None = None,
             **simulation: Any) -> dict[str, Any]:
    sim = {"t_end": 1.0, "dt": 0.01, "formulation": "projection", "integrator": "dop853", "rtol": 1e-10,
           "atol": 1e-12}
    sim.update(simulation)
    return {"format": "mechanism-studio-model", "version": 1, "name": name, "kind": "spatial",
            "gravity": list(gravity), "ground": {"points": ground_points}, "bodies": bodies, "joints": joints,
            "forces": forces or [], "simulation": sim}


def quat_axis(axis: tuple[float, float, float], angle: float) -> list[float]:
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    return [math.cos(angle / 2), *(math.sin(angle / 2) * a)]


def hinge_pendulum(theta0: float, mass: float = 2.0, length: float = 1.0, J: float = 0.2) -> dict[str, Any]:
    """A rod hanging from the ground point O by a hinge about y, its centre of mass length/2 below the pivot,
    released at rest at theta0 (rotation about +y)."""
    h = length / 2
    body = {"name": "rod", "mass": mass, "inertia": [[J, 0, 0], [0, J, 0], [0, 0, 0.01]], "com": [0, 0, 0],
            "points": {"top": [0, 0, h]},
            "initial": {"x": -h * math.sin(theta0), "y": 0.0, "z": -h * math.cos(theta0),
                        "quaternion": quat_axis((0, 1, 0), theta0)}}
    joint = {"name": "H", "type": "hinge", "body1": "ground", "point1": "O", "body2": "rod", "point2": "top",
             "axis1": [0, 1, 0], "axis2": [0, 1, 0]}
    return document("hinge_pendulum", [body], [joint], {"O": [0, 0, 0]})


def cardan(beta: float, omega: float = 2 * math.pi, t_end: float = 1.0, dt: float = 0.01) -> dict[str, Any]:
    """Input shaft along x (hinge to the ground, driven at theta1 = omega t), output shaft along
    (cos beta, sin beta, 0) (hinge to the ground), a universal joint at the origin: cross axis y on the input
    shaft, z on the output shaft (the input yoke lies in the plane of the shafts at theta1 = 0). Body frames at
    the origin, aligned with the world at t = 0."""
    u = [math.cos(beta), math.sin(beta), 0.0]
    s1 = rod("input", 1.0, 1.0, axis=0, com=(-0.5, 0.0, 0.0), points={"bearing": [-1.0, 0, 0], "cross": [0, 0, 0]},
             color="#d9534f", initial={"x": 0, "y": 0, "z": 0, "quaternion": [1, 0, 0, 0]})
    s2 = rod("output", 1.0, 1.0, axis=0, com=(0.5 * u[0], 0.5 * u[1], 0.0),
             points={"bearing": [u[0], u[1], 0.0], "cross": [0, 0, 0]}, color="#5cb85c",
             initial={"x": 0, "y": 0, "z": 0, "quaternion": [1, 0, 0, 0]})
    s2["inertia"] = [[0.09, 0, 0], [0, 0.09, 0], [0, 0, 0.09]]  # a round shaft: any axis through the centre
    s2["geometry"] = [{"type": "cylinder", "from": [0, 0, 0], "to": u, "radius": 0.02}]
    joints = [
        {"name": "in_bearing", "type": "hinge", "body1": "ground", "point1": "A", "body2": "input",
         "point2": "bearing", "axis1": [1, 0, 0], "axis2": [1, 0, 0], "angle": {"type": "constant_speed", "initial": 0.0, "speed": omega}},
        {"name": "cross", "type": "universal", "body1": "input", "point1": "cross", "body2": "output",
         "point2": "cross", "axis1": [0, 1, 0], "axis2": [0, 0, 1]},
        {"name": "out_bearing", "type": "hinge", "body1": "ground", "point1": "B", "body2": "output",
         "point2": "bearing", "axis1": u, "axis2": u},
    ]
    return document("cardan_shaft", [s1, s2], joints, {"A": [-1.0, 0, 0], "B": u}, t_end=t_end, dt=dt)


def double_cardan(beta: float, omega: float = 2 * math.pi, length: float = 0.8, t_end: float = 1.0,
                  dt: float = 0.01) -> dict[str, Any]:
    """Two Cardan joints in a Z arrangement: the input shaft along x (driven hinge), the intermediate shaft from the
    origin along (cos beta, sin beta, 0) to C = length (cos beta, sin beta, 0), made of two bodies joined by a
    slider along its axis (the sliding spline that keeps the loop free of redundant rows), and the output shaft
    from C along x (hinge). Phased: the intermediate shaft holds both crosses by arms along z (its yokes in one
    plane), so the input and output turn alike."""
    u = np.array([math.cos(beta), math.sin(beta), 0.0])
    C = length * u
    ident = {"x": 0, "y": 0, "z": 0, "quaternion": [1, 0, 0, 0]}

    def shaft(name: str, a: np.ndarray, b: np.ndarray, color: str, points: dict[str, list[float]]) -> dict[str, Any]:
        e = (b - a) / np.linalg.norm(b - a)
        L = float(np.linalg.norm(b - a))
        m, r = 1.0, 0.02
        J = m * L ** 2 / 12 * (np.eye(3) - np.outer(e, e)) + m * r ** 2 / 2 * np.outer(e, e)
        return {"name": name, "mass": m, "inertia": J.tolist(), "com": list((a + b) / 2), "points": points,
                "geometry": [{"type": "cylinder", "from": list(a), "to": list(b), "radius": r}], "color": color,
                "initial": dict(ident)}

    X = np.array([1.0, 0, 0])
    half = C / 2
    bodies = [
        shaft("input", -X, np.zeros(3), "#d9534f", {"bearing": [-1.0, 0, 0], "cross": [0, 0, 0]}),
        shaft("mid_a", np.zeros(3), half, "#f0ad4e", {"cross": [0, 0, 0], "spline": list(half)}),
        shaft("mid_b", half, C, "#f7c46c", {"spline": list(half), "cross": list(C)}),
        shaft("output", C, C + X, "#5cb85c", {"cross": list(C), "bearing": list(C + X)}),
    ]
    joints = [
        {"name": "in_bearing", "type": "hinge", "body1": "ground", "point1": "A", "body2": "input",
         "point2": "bearing", "axis1": [1, 0, 0], "axis2": [1, 0, 0],
         "angle": {"type": "constant_speed", "initial": 0.0, "speed": omega}},
        {"name": "cross1", "type": "universal", "body1": "input", "point1": "cross", "body2": "mid_a",
         "point2": "cross", "axis1": [0, 1, 0], "axis2": [0, 0, 1]},
        {"name": "spline", "type": "slider", "body1": "mid_a", "point1": "spline", "body2": "mid_b",
         "point2": "spline", "axis1": list(u), "axis2": list(u)},
        {"name": "cross2", "type": "universal", "body1": "mid_b", "point1": "cross", "body2": "output",
         "point2": "cross", "axis1": [0, 0, 1], "axis2": [0, 1, 0]},
        {"name": "out_bearing", "type": "hinge", "body1": "ground", "point1": "B", "body2": "output",
         "point2": "bearing", "axis1": [1, 0, 0], "axis2": [1, 0, 0]},
    ]
    return document("double_cardan", bodies, joints, {"A": [-1.0, 0, 0], "B": list(C + X)}, t_end=t_end, dt=dt)


#: RSSR geometry: crank hinge at O about z, crank radius a; rocker hinge at Q about x, rocker radius c (the rocker
#: arm along +z at phi = 0); the coupler's length closes the loop at theta = phi = 0
RSSR = {"a": 0.3, "c": 0.45, "Q": (0.5, 0.6, 0.1)}


def rssr_points(theta: float, phi: float) -> tuple[np.ndarray, np.ndarray]:
    """(A, B): the crank's and the rocker's spherical joint centres at crank angle theta and rocker angle phi."""
    a, c, Q = RSSR["a"], RSSR["c"], np.array(RSSR["Q"])
    return (np.array([a * math.cos(theta), a * math.sin(theta), 0.0]),
            Q + c * np.array([0.0, -math.sin(phi), math.cos(phi)]))


def rssr_coupler_length() -> float:
    A, B = rssr_points(0.0, 0.0)
    return float(np.linalg.norm(B - A))


def rssr(omega: float | None = 2 * math.pi, t_end: float = 1.0, dt: float = 0.01,
         gravity: tuple[float, float, float] = (0.0, 0.0, -9.81), crank_spin: float = 0.0) -> dict[str, Any]:
    """The RSSR four-bar: crank (hinge at O about z; driven at theta = omega t, or free when omega is None, then
    starting at the angular velocity ``crank_spin``), coupler (spherical joints at both ends), rocker (hinge at Q
    about x). Body frames at the hinge points (the coupler's at A), aligned with the world at t = 0."""
    a, c, Q = RSSR["a"], RSSR["c"], np.array(RSSR["Q"])
    A0, B0 = rssr_points(0.0, 0.0)
    d = B0 - A0
    L = float(np.linalg.norm(d))
    e = d / L
    m, r = 0.8, 0.015
    Jc = m * L ** 2 / 12 * (np.eye(3) - np.outer(e, e)) + m * r ** 2 / 2 * np.outer(e, e)
    crank = rod("crank", 0.5, a, axis=0, com=(a / 2, 0, 0), points={"pivot": [0, 0, 0], "A": [a, 0, 0]},
                color="#d9534f", initial={"x": 0, "y": 0, "z": 0, "quaternion": [1, 0, 0, 0],
                                          "omega": [0, 0, crank_spin]})
    coupler = {"name": "coupler", "mass": m, "inertia": Jc.tolist(), "com": list(d / 2),
               "points": {"A": [0, 0, 0], "B": list(d)},
               "geometry": [{"type": "cylinder", "from": [0, 0, 0], "to": list(d), "radius": r}], "color": "#f0ad4e",
               "initial": {"x": A0[0], "y": A0[1], "z": A0[2], "quaternion": [1, 0, 0, 0]}}
    rocker = rod("rocker", 0.6, c, axis=2, com=(0, 0, c / 2), points={"pivot": [0, 0, 0], "B": [0, 0, c]},
                 color="#5cb85c", initial={"x": Q[0], "y": Q[1], "z": Q[2], "quaternion": [1, 0, 0, 0]})
    crank_hinge = {"name": "crank_hinge", "type": "hinge", "body1": "ground", "point1": "O", "body2": "crank",
                   "point2": "pivot", "axis1": [0, 0, 1], "axis2": [0, 0, 1]}
    if omega is not None:
        crank_hinge["angle"] = {"type": "constant_speed", "initial": 0.0, "speed": omega}
    joints = [crank_hinge,
              {"name": "ball_A", "type": "spherical", "body1": "crank", "point1": "A", "body2": "coupler",
               "point2": "A"},
              {"name": "ball_B", "type": "spherical", "body1": "coupler", "point1": "B", "body2": "rocker",
               "point2": "B"},
              {"name": "rocker_hinge", "type": "hinge", "body1": "ground", "point1": "Q", "body2": "rocker",
               "point2": "pivot", "axis1": [1, 0, 0], "axis2": [1, 0, 0]}]
    return document("rssr_linkage", [crank, coupler, rocker], joints, {"O": [0, 0, 0], "Q": list(Q)},
                    gravity=gravity, t_end=t_end, dt=dt)


def collar_pendulum(t_end: float = 3.0, dt: float = 0.01) -> dict[str, Any]:
    """A collar on a vertical post (a cylindrical joint along z with a linear spring-damper, a constant lift force,
    a rotational damper and a small drive torque) carrying a pendulum on a hinge about the collar's y axis (a
    torsion spring and damper), with a bob fixed to the pendulum's end (a fixed joint)."""
    collar = {"name": "collar", "mass": 0.5, "inertia": [[0.002, 0, 0], [0, 0.002, 0], [0, 0, 0.003]],
              "com": [0, 0, 0], "points": {"centre": [0, 0, 0], "ear": [0.1, 0, 0]},
              "geometry": [{"type": "cylinder", "from": [0, 0, -0.05], "to": [0, 0, 0.05], "radius": 0.04}],
              "color": "#777777", "initial": {"x": 0, "y": 0, "z": 0, "quaternion": [1, 0, 0, 0],
                                              "omega": [0, 0, 2.0]}}
    swing = 0.6
    arm = rod("arm", 0.3, 0.4, axis=2, com=(0, 0, -0.2), points={"top": [0, 0, 0], "end": [0, 0, -0.4]},
              color="#d9534f", initial={"x": 0.1, "y": 0, "z": 0, "quaternion": quat_axis((0, 1, 0), swing)})
    tip = np.array([0.1 - 0.4 * math.sin(swing), 0.0, -0.4 * math.cos(swing)])
    bob = {"name": "bob", "mass": 0.4, "inertia": [[0.0004, 0, 0], [0, 0.0004, 0], [0, 0, 0.0004]], "com": [0, 0, 0],
           "points": {"mount": [0, 0, 0.05]}, "geometry": [{"type": "sphere", "center": [0, 0, 0], "radius": 0.05}],
           "color": "#337ab7",
           "initial": {"x": float(tip[0] - 0.05 * math.sin(swing)), "y": 0.0, "z": float(tip[2] - 0.05 * math.cos(swing)),
                       "quaternion": quat_axis((0, 1, 0), swing)}}
    joints = [
        {"name": "post", "type": "cylindrical", "body1": "ground", "point1": "base", "body2": "collar",
         "point2": "centre", "axis1": [0, 0, 1], "axis2": [0, 0, 1], "damping": 0.002,
         "torque": {"type": "harmonic", "amplitude": 0.01, "frequency": 3.0}, "spring": 0.0, "free_angle": 0.0,
         "linear_spring": 60.0, "linear_damping": 0.3, "free_length": 0.0, "force": 5.0},
        {"name": "pivot", "type": "hinge", "body1": "collar", "point1": "ear", "body2": "arm", "point2": "top",
         "axis1": [0, 1, 0], "axis2": [0, 1, 0], "spring": 0.4, "damping": 0.004, "free_angle": 0.0},
        {"name": "weld", "type": "fixed_joint", "body1": "arm", "point1": "end", "body2": "bob", "point2": "mount",
         "axis1": [0, 0, 1], "axis2": [0, 0, 1]},
    ]
    return document("collar_pendulum", [collar, arm, bob], joints, {"base": [0, 0, 0]}, t_end=t_end, dt=dt)


def every_field_model() -> dict[str, Any]:
    """A model whose spatial joints use every field of their types: drivers, springs, dampers and loads (it loads;
    it is no meaningful mechanism)."""
    data = collar_pendulum()
    A = {"type": "harmonic", "amplitude": 0.2, "frequency": 1.0}
    data["joints"][1].update(angle=A, torque=0.1)
    data["joints"][0].update(angle=A, slide=A)
    data["joints"].append({"name": "rail", "type": "slider", "body1": "ground", "point1": "base", "body2": "bob",
                           "point2": "mount", "axis1": [1, 0, 0], "axis2": [1, 0, 0], "slide": A, "spring": 3.0,
                           "damping": 0.1, "free_length": 0.2, "force": 1.0})
    return data
