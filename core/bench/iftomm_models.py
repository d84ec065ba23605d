"""Model documents of the benchmark problems; ``sample_models/benchmarks/*.json`` are written from them.

Every problem is an ordinary planar model file (core/model/schema.json) that the editor opens. The data and
sources are in ``sample_models/benchmarks/README.md``. :func:`write_sample_files` regenerates the files; a test
checks that the files on disk equal these builders' output.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from mechstudio.core.model.samples import samples_folder

BENCH_DIR = samples_folder() / "benchmarks"
#: the shared original of andrews_squeezer_data.json, when ``$MECHSTUDIO_SHARED_DATA`` names the folder holding
#: ``benchmarks/andrews_squeezer.json`` (a test compares the copy with it); None otherwise
ANDREWS_DATA: Path | None = (Path(os.environ["MECHSTUDIO_SHARED_DATA"]) / "benchmarks" / "andrews_squeezer.json"
                             if os.environ.get("MECHSTUDIO_SHARED_DATA") else None)


def _doc(name: str, description: str, gravity: list[float], bodies: list[dict], joints: list[dict],
         forces: list[dict] | None = None, ground_points: dict[str, list[float]] | None = None,
         initial_velocities: list[dict] | None = None, simulation: dict | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": "mechanism-studio-model", "version": 1, "name": name, "kind": "planar",
        "description": description, "gravity": gravity,
        "ground": {"points": ground_points or {}},
        "bodies": bodies, "joints": joints, "drivers": [], "forces": forces or [],
    }
    if initial_velocities:
        doc["initial_velocities"] = initial_velocities
    if simulation:
        doc["simulation"] = simulation
    return doc


def _bar(name: str, length: float, mass: float, x: float, y: float, phi: float, color: str,
         width: float = 0.04) -> dict[str, Any]:
    """A uniform bar from its frame origin 'a' = (0, 0) to 'b' = (length, 0)."""
    return {"name": name, "mass": mass, "inertia": mass * length ** 2 / 12.0, "com": [length / 2, 0.0],
            "points": {"a": [0.0, 0.0], "b": [length, 0.0]},
            "geometry": [{"type": "bar", "from": "a", "to": "b", "width": width}], "color": color,
            "initial": {"x": x, "y": y, "phi": phi}}


def _rev(name: str, b1: str, p1: str, b2: str, p2: str) -> dict[str, Any]:
    return {"name": name, "type": "revolute", "body1": b1, "point1": p1, "body2": b2, "point2": p2}


# --- A01 simple pendulum ------------------------------------------------------------------------------------
PENDULUM = {"mass": 1.0, "length": 1.0, "g": 9.81, "t_end": 2000.0}


def pendulum_model(t_end: float = PENDULUM["t_end"]) -> dict[str, Any]:
    L, m = PENDULUM["length"], PENDULUM["mass"]
    body = {"name": "pendulum", "mass": m, "inertia": 0.0, "com": [L, 0.0],
            "points": {"pivot": [0.0, 0.0], "mass": [L, 0.0]},
            "geometry": [{"type": "bar", "from": "pivot", "to": "mass", "width": 0.01},
                         {"type": "disk", "center": "mass", "radius": 0.05}],
            "color": "#4a90d9", "initial": {"x": 0.0, "y": 0.0, "phi": 0.0}}
    return _doc(
        "A01_simple_pendulum",
        "MBS benchmark A01: a point mass of 1 kg on a massless link of 1 m (zero rotational inertia), g = 9.81 "
        "m/s^2 along -y, released at rest from the horizontal (mass at x = +1 m). 2000 s; judged by the position "
        "of the mass against the exact solution (Jacobi elliptic functions). See README.md.",
        [0.0, -PENDULUM["g"]], [body], [_rev("pivot", "ground", "O", "pendulum", "pivot")],
        ground_points={"O": [0.0, 0.0]},
        simulation={"t_end": t_end, "dt": 0.5, "formulation": "projection", "integrator": "dop853",
                    "rtol": 1e-9, "atol": 1e-11, "correction": True})


# --- A02 N four-bar -------------------------------------------------------------------------------------------
NFOURBAR = {"N": 40, "mass": 1.0, "length": 1.0, "g": 9.81, "t_end": 20.0, "vx0": 1.0}


def nfourbar_model(N: int = NFOURBAR["N"], t_end: float = NFOURBAR["t_end"],
                   formulation: str = "projection") -> dict[str, Any]:
    L, m = NFOURBAR["length"], NFOURBAR["mass"]
    bodies, joints = [], []
    ground = {f"P{i}": [i * L, 0.0] for i in range(N + 1)}
    for i in range(N + 1):
        bodies.append(_bar(f"crank{i}", L, m, i * L, 0.0, math.pi / 2, "#d9534f"))
        joints.append(_rev(f"P{i}", "ground", f"P{i}", f"crank{i}", "a"))
    for i in range(1, N + 1):
        bodies.append(_bar(f"coupler{i}", L, m, (i - 1) * L, L, 0.0, "#5cb85c"))
        joints.append(_rev(f"A{i}", f"crank{i - 1}", "b", f"coupler{i}", "a"))
        joints.append(_rev(f"B{i}", f"crank{i}", "b", f"coupler{i}", "b"))
    return _doc(
        f"A02_N_four_bar_{N}",
        f"MBS benchmark A02: N = {N} parallelograms of 2N + 1 = {2 * N + 1} uniform links (1 m, 1 kg), ground "
        f"pivots at (i, 0), i = 0..{N}, cranks vertical at t = 0 and the first coupler point B0 (top of crank0) "
        "moving at 1 m/s along +x, gravity 9.81 m/s^2 along -y, 20 s. Every link passes the horizontal, where the "
        f"constraint Jacobian loses rank and the degrees of freedom jump from 1 to N + 1 = {N + 1}. See README.md.",
        [0.0, -NFOURBAR["g"]], bodies, joints, ground_points=ground,
        initial_velocities=[{"body": "coupler1", "coordinate": "x", "value": NFOURBAR["vx0"]}],
        simulation={"t_end": t_end, "dt": 0.01, "formulation": formulation, "integrator": "dop853",
                    "rtol": 1e-9, "atol": 1e-11, "correction": True})


# --- A03 Andrews' squeezing mechanism ------------------------------------------------------------------------
def andrews_data() -> dict[str, Any]:
    return json.loads((BENCH_DIR / "andrews_squeezer_data.json").read_text(encoding="utf-8"))


def andrews_model(t_end: float = 0.03) -> dict[str, Any]:
    data = andrews_data()
    p = data["parameters"]
    beta, Theta, gamma, Phi, delta, Omega, eps = data["initial_conditions"]["q"]
    xa, ya, xb, yb = p["xa"], p["ya"], p["xb"], p["yb"]

    def body(name: str, m: float, i: float, com: list[float], pts: dict[str, list[float]], x: float, y: float,
             phi: float, color: str, outline: list[str]) -> dict[str, Any]:
        geo = [{"type": "bar", "from": a, "to": b, "width": 0.002} for a, b in zip(outline[:-1], outline[1:])]
        return {"name": name, "mass": m, "inertia": i, "com": com, "points": pts, "geometry": geo, "color": color,
                "initial": {"x": x, "y": y, "phi": phi}}

    rr, d, ss, sd, sc, zt, e, zf, u = p["rr"], p["d"], p["ss"], p["sd"], p["sc"], p["zt"], p["e"], p["zf"], p["u"]
    bodies = [
        body("b1_crank", p["m1"], p["i1"], [p["ra"], 0.0], {"O": [0.0, 0.0], "F": [rr, 0.0]},
             0.0, 0.0, beta, "#d9534f", ["O", "F"]),
        body("b2_rod", p["m2"], p["i2"], [-p["da"], 0.0], {"F": [0.0, 0.0], "E": [-d, 0.0]},
             rr * math.cos(beta), rr * math.sin(beta), beta + Theta, "#f0ad4e", ["F", "E"]),
        body("b3_triangle", p["m3"], p["i3"], [p["sa"], -p["sb"]],
             {"B": [0.0, 0.0], "E": [0.0, -ss], "D": [sd, -sc]}, xb, yb, gamma, "#5bc0de", ["B", "E", "D", "B"]),
        body("b4", p["m4"], p["i4"], [0.0, -(e - p["ea"])], {"G": [0.0, 0.0], "E": [0.0, -e]},
             xa + zt * math.cos(delta), ya + zt * math.sin(delta), Phi + delta, "#5cb85c", ["G", "E"]),
        body("b5", p["m5"], p["i5"], [p["ta"], p["tb"]], {"A": [0.0, 0.0], "G": [zt, 0.0]},
             xa, ya, delta, "#4a90d9", ["A", "G"]),
        body("b6", p["m6"], p["i6"], [zf - p["fa"], 0.0], {"H": [0.0, 0.0], "E": [zf, 0.0]},
             xa + u * math.sin(eps), ya - u * math.cos(eps), Omega + eps, "#9b59b6", ["H", "E"]),
        body("b7", p["m7"], p["i7"], [p["ub"], -p["ua"]], {"A": [0.0, 0.0], "H": [0.0, -u]},
             xa, ya, eps, "#7f8c8d", ["A", "H"]),
    ]
    joints = [
        _rev("O", "ground", "O", "b1_crank", "O"),
        _rev("F", "b1_crank", "F", "b2_rod", "F"),
        _rev("B", "ground", "B", "b3_triangle", "B"),
        _rev("A5", "ground", "A", "b5", "A"),
        _rev("G", "b5", "G", "b4", "G"),
        _rev("A7", "ground", "A", "b7", "A"),
        _rev("H", "b7", "H", "b6", "H"),
        _rev("E3", "b2_rod", "E", "b3_triangle", "E"),
        _rev("E4", "b2_rod", "E", "b4", "E"),
        _rev("E6", "b2_rod", "E", "b6", "E"),
    ]
    forces = [
        {"name": "spring", "type": "spring_damper", "body1": "b3_triangle", "point1": "D", "body2": "ground",
         "point2": "C", "stiffness": p["c0"], "damping": 0.0, "free_length": p["l0"]},
        {"name": "drive", "type": "applied_torque", "body": "b1_crank", "torque": p["mom"]},
    ]
    return _doc(
        "A03_andrews_squeezer",
        "Andrews' squeezing mechanism (Hairer & Wanner II, VII.7; Test Set for IVP Solvers 'andrews'; MBS benchmark "
        "A03): 7 bodies, revolute joints (one 4-way joint at E: three point constraints on the rod b2), drive "
        "torque 0.033 N m on the crank, spring c0 = 4530 N/m from D to C, no gravity. Absolute angles: "
        "b1 = beta, b2 = beta + Theta, b3 = gamma, b4 = Phi + delta, b5 = delta, b6 = Omega + epsilon, "
        "b7 = epsilon. See README.md.",
        [0.0, 0.0], bodies, joints, forces,
        ground_points={k: list(v) for k, v in data["fixed_points"].items()},
        simulation={"t_end": t_end, "dt": 0.001, "formulation": "projection", "integrator": "dop853",
                    "rtol": 1e-12, "atol": 1e-14, "correction": True})


# --- stiff four-bar with a diagonal spring and damper ---------------------------------------------------------
STIFF_FOURBAR = {
    # the four-bar of sample_models/four_bar.json (source 003): ground O(0,0), D(4,0); crank OA 1 m,
    # coupler AB 3.5 m, rocker DB 3 m, uniform bars of 1 kg/m; plus a diagonal spring-damper O -> B
    "crank": 1.0, "coupler": 3.5, "rocker": 3.0, "ground": 4.0, "mass_per_length": 1.0,
    "k": 2.0e4, "c": 2.0e4, "free_length": 4.4, "theta0": math.pi / 3, "g": 9.81, "t_end": 2.0,
}


def stiff_fourbar_model() -> dict[str, Any]:
    d = STIFF_FOURBAR
    from mechstudio.core.bench.iftomm_reference import fourbar_closed_form  # the closed-form position analysis
    th, cp, rk = fourbar_closed_form(d["theta0"])
    a, b, c = d["crank"], d["coupler"], d["rocker"]
    mu = d["mass_per_length"]
    Ax, Ay = a * math.cos(th), a * math.sin(th)
    bodies = [_bar("crank", a, mu * a, 0.0, 0.0, th, "#d9534f", 0.06),
              _bar("coupler", b, mu * b, Ax, Ay, cp, "#5cb85c", 0.06),
              _bar("rocker", c, mu * c, d["ground"], 0.0, rk, "#4a90d9", 0.06)]
    bodies[0]["initial"]["hold"] = ["phi"]
    joints = [_rev("O", "ground", "O", "crank", "a"), _rev("A", "crank", "b", "coupler", "a"),
              _rev("B", "coupler", "b", "rocker", "b"), _rev("D", "ground", "D", "rocker", "a")]
    forces = [{"name": "diagonal", "type": "spring_damper", "body1": "ground", "point1": "O", "body2": "rocker",
               "point2": "b", "stiffness": d["k"], "damping": d["c"], "free_length": d["free_length"]}]
    return _doc(
        "stiff_four_bar_diagonal_spring",
        "Stiff four-bar: the four-bar of four_bar.json (crank OA 1 m, coupler AB 3.5 m, rocker DB 3 m, ground "
        "OD 4 m, uniform bars of 1 kg/m, gravity 9.81 m/s^2 along -y) with a diagonal spring-damper from the "
        "ground pivot O to the joint B: k = 2e4 N/m, c = 2e4 N s/m, free length 4.4 m (overdamped: eigenvalues about -1 and -1700 1/s). Released from rest at crank "
        "angle 60 deg; 2 s. Judged against the one-degree-of-freedom reference (closed-form position analysis, "
        "README.md).",
        [0.0, -d["g"]], bodies, joints, forces, ground_points={"O": [0.0, 0.0], "D": [d["ground"], 0.0]},
        simulation={"t_end": d["t_end"], "dt": 0.01, "formulation": "projection", "integrator": "radau",
                    "rtol": 1e-8, "atol": 1e-10, "correction": True})


def all_models() -> dict[str, dict[str, Any]]:
    return {
        "A01_simple_pendulum.json": pendulum_model(),
        "A02_N_four_bar.json": nfourbar_model(),
        "A03_andrews_squeezer.json": andrews_model(),
        "stiff_four_bar_diagonal_spring.json": stiff_fourbar_model(),
    }


def dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2) + "\n"


def write_sample_files(folder: Path = BENCH_DIR) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, doc in all_models().items():
        path = folder / name
        path.write_text(dumps(doc), encoding="utf-8")
        out.append(path)
    return out
