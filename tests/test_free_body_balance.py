"""Free-body balance of every planar element type from the reported results (tests/free_body.py).

Every planar sample and a small purpose-built model per element type (offset slots, a slot in a moving body
over a ground pin, off-pitch-line rack guides, non-zero pressure angles, racks and gears and belts on moving
carriers, fixed racks and gears, drivers reported on either body, ...) are simulated; at every output frame the
reported reactions (the CSV columns, read back from the CSV text), gravity, springs and applied loads on every
body must sum to m a and J alpha, with a and alpha the reported accelerations q'' of the result frames (the
CSV has no acceleration columns; finite differences of the velocities would add their own error). The test
enumerates the element registry: a planar element type that no case uses fails ("element X has no free-body
case"), and so does one whose reaction has no reporting convention in tests/free_body.py.

The check is shown to fail: changing one reported column (Fx, Fy or Mz of each element of each purpose-built
case in turn) by 1e-3 of the element's reported load (its largest force, or its largest moment over 0.1 m, the
models' typical arm; Mz by that load times 0.1 m) breaks the balance.

Tolerance: 1e-8 relative to the largest single force of the run (moments: to the largest moment or force x
arm). The reactions come from lambda with C^T lambda = M q'' - h (docs/results-csv.md), solved in double
precision: its residual and the round-off of turning C^T lambda into forces and moments at points are ~1e-13 of
the largest force (measured: at most 1.2e-13 over these runs, projection and Lagrange formulations); the CSV
keeps full double precision (%.17g). 1e-8 leaves a margin of almost 10^5 over that, while the perturbations (1e-3 of an
element's load, each load at least 1e-3 of the case's largest) show at 1.1e-5 or more, 10^3 above it, and a
wrong report (a missing radial tooth force: tan(20 deg) = 0.36 of the tooth force; a tooth force at the wrong
point: its moment offset x F) at 1e-3 to 1e-1.
"""
from __future__ import annotations

import copy
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from mechstudio.core.elements import element_types
from mechstudio.core.model import load_model, model_from_data
from mechstudio.core.simulate import simulate
from mechstudio.core.types import Status

from tests.free_body import FORCE_TYPES, REPORTED, Run, imbalance, reaction_size

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(p for p in (ROOT / "sample_models").glob("*.json") if load_model(p).entities.kind == "planar")
TOL = 1e-8  # relative to the largest force / moment of the run (module docstring)
RUN = {"t_end": 0.6, "dt": 0.05}
G = [0.0, -9.81]
HARMONIC = {"type": "harmonic", "amplitude": 0.5, "frequency": 3.0, "offset": -1.2}


def body(name: str, mass: float, inertia: float, com: tuple[float, float], points: dict[str, Any],
         x: float = 0.0, y: float = 0.0, phi: float = 0.0) -> dict[str, Any]:
    return {"name": name, "mass": mass, "inertia": inertia, "com": list(com), "points": points,
            "initial": {"x": x, "y": y, "phi": phi}}


def model(name: str, ground: dict[str, Any], bodies: list[dict], joints: list[dict], drivers: tuple = (),
          forces: tuple = (), gravity: list[float] = G, **extra: Any) -> dict[str, Any]:
    return {"format": "mechanism-studio-model", "version": 1, "name": name, "kind": "planar", "gravity": gravity,
            "ground": {"points": ground}, "bodies": bodies, "joints": joints, "drivers": list(drivers),
            "forces": list(forces), "simulation": dict(RUN), **extra}


def revolute(name: str, b1: str, p1: Any, b2: str, p2: Any) -> dict[str, Any]:
    return {"name": name, "type": "revolute", "body1": b1, "point1": p1, "body2": b2, "point2": p2}


def expression(text: str) -> dict[str, str]:
    return {"type": "expression", "expression": text}


CASES: dict[str, dict[str, Any]] = {
    # a crank's pin in a slot of a rocker, the slot line 0.03 m off the rocker's pivot; the rocker's pivot with
    # the ground as its second body; a rotational spring-damper and a torque on the crank
    "offset_slot": model(
        "offset_slot", {"O": [0.0, 0.0], "Q": [0.4, 0.0]},
        [body("crank", 1.0, 0.01, (0.05, 0.0), {"o": [0.0, 0.0], "pin": [0.15, 0.0]}, phi=0.5),
         body("rocker", 2.0, 0.05, (-0.1, 0.0), {"o": [0.0, 0.0], "s": [-0.2, 0.03]}, 0.4, 0.0, -0.3)],
        [revolute("crank_axle", "ground", "O", "crank", "o"), revolute("rocker_axle", "rocker", "o", "ground", "Q"),
         {"name": "slot", "type": "pin_in_slot", "body1": "rocker", "point1": "s", "body2": "crank",
          "point2": "pin", "axis": [1.0, 0.0], "length": 0.4}],
        forces=({"name": "coil", "type": "rotational_spring_damper", "joint": "crank_axle", "stiffness": 3.0,
                 "damping": 0.1, "free_angle": 0.2},
                {"name": "drive", "type": "applied_torque", "body": "crank", "torque": expression("2 + sin(3*t)")})),
    # a slotted link on a crank, its slot (0.02 m off its axis) sliding over a pin fixed to the ground
    "slot_over_ground_pin": model(
        "slot_over_ground_pin", {"O": [0.0, 0.0], "G": [0.35, 0.05]},
        [body("crank", 1.0, 0.01, (0.05, 0.0), {"o": [0.0, 0.0], "tip": [0.1, 0.0]}, phi=0.3),
         body("link", 1.5, 0.02, (0.15, 0.0), {"o": [0.0, 0.0], "s": [0.25, 0.02], "f": [0.3, 0.0]},
              0.0955, 0.0296, 0.0)],
        [revolute("crank_axle", "ground", "O", "crank", "o"), revolute("knuckle", "crank", "tip", "link", "o"),
         {"name": "slot", "type": "pin_in_slot", "body1": "link", "point1": "s", "body2": "ground",
          "point2": "G", "axis": [1.0, 0.0]}],
        forces=({"name": "push", "type": "applied_force", "body": "link", "point": "f",
                 "force": [1.0, expression("2*cos(t)")]},
                {"name": "drive", "type": "applied_torque", "body": "crank", "torque": 1.5})),
    # a slider on an inclined ground rail driven along it, an arm welded to it at an angle, a spring on the arm
    # and a pendulum hanging from the arm
    "driven_slider_weld": model(
        "driven_slider_weld", {"S": [0.0, 0.0], "A": [-0.3, 0.4]},
        [body("slider", 1.0, 0.01, (0.0, 0.0), {"o": [0.0, 0.0], "w": [0.02, 0.01]}, 0.08, 0.06),
         body("arm", 0.8, 0.02, (0.15, 0.05), {"w": [0.0, 0.0], "tip": [0.3, 0.0]}, 0.1, 0.07, 0.4),
         body("bob", 0.5, 0.005, (0.0, -0.1), {"o": [0.0, 0.0]}, 0.33, 0.2)],
        [{"name": "rail", "type": "prismatic", "body1": "ground", "point1": "S", "body2": "slider", "point2": "o",
          "axis": [0.8, 0.6], "angle": 0.0},
         {"name": "fix", "type": "weld", "body1": "slider", "point1": "w", "body2": "arm", "point2": "w",
          "angle": 0.4},
         revolute("hang", "arm", "tip", "bob", "o")],
        drivers=({"name": "stroke", "type": "joint_distance", "joint": "rail",
                  "function": {"type": "harmonic", "amplitude": 0.1, "frequency": 3.0, "offset": 0.1}},),
        forces=({"name": "spring", "type": "spring_damper", "body1": "ground", "point1": "A", "body2": "arm",
                 "point2": "tip", "stiffness": 50.0, "damping": 0.5, "free_length": 0.3},
                {"name": "load", "type": "applied_force", "body": "arm", "point": "tip", "force": [0.0, -3.0]})),
    # a motor-driven upper arm; the elbow's second body is the upper arm; a spring and a torque on the forearm
    "driven_double_pendulum": model(
        "driven_double_pendulum", {"O": [0.0, 0.0]},
        [body("upper", 1.0, 0.02, (0.15, 0.0), {"o": [0.0, 0.0], "tip": [0.3, 0.0]}, phi=-1.2),
         body("fore", 0.7, 0.01, (0.1, 0.0), {"o": [0.0, 0.0]}, 0.109, -0.28, -0.9)],
        [revolute("shoulder", "ground", "O", "upper", "o"), revolute("elbow", "fore", "o", "upper", "tip")],
        drivers=({"name": "motor", "type": "joint_angle", "joint": "shoulder", "function": HARMONIC},),
        forces=({"name": "coil", "type": "rotational_spring_damper", "joint": "elbow", "stiffness": 2.0,
                 "damping": 0.05, "free_angle": 0.3},
                {"name": "twist", "type": "applied_torque", "body": "fore", "torque": expression("0.5*sin(2*t)")})),
    # a cart moved by coordinate drivers with a pendulum on it; a second pendulum whose pivot has the ground as
    # its second body, driven by a joint-angle driver (reported on the pendulum about its centre of mass)
    "coordinate_cart": model(
        "coordinate_cart", {"P": [1.0, 0.0]},
        [body("cart", 2.0, 0.05, (0.0, 0.0), {"h": [0.05, -0.02]}),
         body("pend", 0.5, 0.004, (0.0, -0.15), {"o": [0.0, 0.0]}, 0.05, -0.02, 0.2),
         body("swing", 0.6, 0.006, (0.0, -0.12), {"o": [0.0, 0.0]}, 1.0, 0.0)],
        [revolute("hinge", "pend", "o", "cart", "h"), revolute("pivot", "swing", "o", "ground", "P")],
        drivers=({"name": "cart_x", "type": "coordinate", "body": "cart", "coordinate": "x",
                  "function": {"type": "harmonic", "amplitude": 0.2, "frequency": 2.0}},
                 {"name": "cart_y", "type": "coordinate", "body": "cart", "coordinate": "y",
                  "function": expression("0.05*t*t")},
                 {"name": "cart_phi", "type": "coordinate", "body": "cart", "coordinate": "phi",
                  "function": expression("0.3*t")},
                 {"name": "rock", "type": "joint_angle", "joint": "pivot", "function": expression("0.3*sin(4*t)")})),
    # a sleigh on a knife edge pushed and turned
    "knife_edge": model(
        "knife_edge", {},
        [body("sleigh", 2.0, 0.05, (0.1, 0.0), {"k": [0.0, 0.0], "f": [0.2, 0.05]}, phi=0.5)],
        [{"name": "blade", "type": "knife_edge", "body": "sleigh", "point": "k", "axis": [1.0, 0.0]}],
        forces=({"name": "push", "type": "applied_force", "body": "sleigh", "point": "f", "force": [3.0, 1.0]},
                {"name": "turn", "type": "applied_torque", "body": "sleigh", "torque": expression("sin(t)")}),
        initial_velocities=[{"body": "sleigh", "coordinate": "phi", "value": 1.0}]),
    # a disk rolling on a seesaw (the line on a moving body), the seesaw held by a spring
    "disk_on_seesaw": model(
        "disk_on_seesaw", {"O": [0.0, 0.0], "A": [0.5, -0.5]},
        [body("beam", 3.0, 0.3, (0.05, 0.0), {"c": [0.0, 0.0], "end": [0.5, 0.0]}),
         body("disk", 1.0, 0.005, (0.0, 0.0), {"c": [0.0, 0.0]}, 0.3, 0.12)],
        [revolute("fulcrum", "ground", "O", "beam", "c"),
         {"name": "roll", "type": "planar_rolling_disk", "body1": "beam", "point1": [0.0, 0.02],
          "axis": [1.0, 0.0], "body2": "disk", "point2": "c", "radius": 0.1}],
        forces=({"name": "spring", "type": "spring_damper", "body1": "ground", "point1": "A", "body2": "beam",
                 "point2": "end", "stiffness": 200.0, "damping": 1.0, "free_length": 0.5},)),
    # two gears on a swinging plate (the carrier), pressure angle 25 degrees; gear 2's bearing reported on the
    # plate (its second body)
    "gears_on_swinging_carrier": model(
        "gears_on_swinging_carrier", {"O": [0.0, 0.0]},
        [body("plate", 2.0, 0.1, (0.1, -0.05), {"o": [0.0, 0.0], "a": [-0.1, 0.0], "b": [0.2, 0.0]}),
         body("gear1", 0.5, 0.003, (0.0, 0.0), {"c": [0.0, 0.0]}, -0.1, 0.0),
         body("gear2", 1.0, 0.02, (0.03, 0.0), {"c": [0.0, 0.0]}, 0.2, 0.0)],
        [revolute("hinge", "ground", "O", "plate", "o"), revolute("b1", "plate", "a", "gear1", "c"),
         revolute("b2", "gear2", "c", "plate", "b"),
         {"name": "mesh", "type": "gear_pair", "joint1": "b1", "joint2": "b2", "radius1": 0.1, "radius2": 0.2,
          "pressure_angle": math.radians(25.0)}],
        forces=({"name": "drive", "type": "applied_torque", "body": "gear1",
                 "torque": expression("1 + 0.5*sin(3*t)")},)),
    # a planet inside a ring gear fixed to the ground (gear 1 = the ground), on a swinging arm
    "planet_in_fixed_ring": model(
        "planet_in_fixed_ring", {"O": [0.0, 0.0]},
        [body("arm", 2.0, 0.1, (0.2, 0.0), {"o": [0.0, 0.0], "p": [0.5, 0.0]}, phi=-0.3),
         body("planet", 1.0, 0.03, (0.05, 0.0), {"c": [0.0, 0.0]}, 0.478, -0.148)],
        [revolute("RC", "ground", "O", "arm", "o"), revolute("RD", "arm", "p", "planet", "c"),
         {"name": "mesh", "type": "gear_pair", "joint1": "RC", "joint2": "RD", "radius1": 0.8, "radius2": 0.3,
          "internal": True}]),
    # a planet outside a fixed sun (external, pressure angle 0.35 rad), the arm driven by a torque
    "planet_on_fixed_sun": model(
        "planet_on_fixed_sun", {"O": [0.0, 0.0]},
        [body("arm", 1.0, 0.02, (0.1, 0.0), {"o": [0.0, 0.0], "p": [0.3, 0.0]}, phi=0.4),
         body("planet", 0.6, 0.004, (0.02, 0.0), {"c": [0.0, 0.0]}, 0.276, 0.117)],
        [revolute("RC", "ground", "O", "arm", "o"), revolute("RD", "arm", "p", "planet", "c"),
         {"name": "mesh", "type": "gear_pair", "joint1": "RC", "joint2": "RD", "radius1": 0.2, "radius2": 0.1,
          "pressure_angle": 0.35}],
        forces=({"name": "drive", "type": "applied_torque", "body": "arm", "torque": 2.0},)),
    # a rack on an inclined ground guide whose point lies 0.07 m off the pitch line, on the pinion's left
    "rack_off_pitch_line": model(
        "rack_off_pitch_line", {"O": [0.0, 0.0], "R": [-0.102, 0.136], "A": [0.5, 0.6]},
        [body("pinion", 1.0, 0.01, (0.0, 0.0), {"c": [0.0, 0.0]}),
         body("rack", 1.2, 0.05, (0.1, 0.0), {"g": [0.0, 0.0], "e": [0.3, 0.0]}, -0.102, 0.136,
              math.atan2(0.6, 0.8))],
        [revolute("axle", "ground", "O", "pinion", "c"),
         {"name": "guide", "type": "prismatic", "body1": "ground", "point1": "R", "body2": "rack", "point2": "g",
          "axis": [0.8, 0.6], "angle": math.atan2(0.6, 0.8)},
         {"name": "mesh", "type": "rack_pinion", "joint1": "axle", "joint2": "guide", "radius": 0.1,
          "side": "left"}],
        forces=({"name": "spring", "type": "spring_damper", "body1": "ground", "point1": "A", "body2": "rack",
                 "point2": "e", "stiffness": 30.0, "damping": 0.2, "free_length": 0.2},
                {"name": "drive", "type": "applied_torque", "body": "pinion",
                 "torque": expression("0.3*sin(2*t)")})),
    # a rack sliding on a swinging arm (the prismatic's first body is the rack, its second the arm), its guide
    # 0.03 m off the pitch line, pressure angle 14.5 degrees
    "rack_on_moving_carrier": model(
        "rack_on_moving_carrier", {"O": [0.0, 0.0], "A": [0.6, 0.3]},
        [body("arm", 2.0, 0.1, (0.2, 0.0), {"o": [0.0, 0.0], "p": [0.3, 0.0], "q": [0.2, -0.08]}),
         body("pinion", 0.4, 0.001, (0.0, 0.0), {"c": [0.0, 0.0]}, 0.3, 0.0),
         body("rack", 0.5, 0.02, (0.05, 0.01), {"g": [0.0, 0.0], "e": [0.1, 0.0]}, 0.2, -0.08)],
        [revolute("hinge", "ground", "O", "arm", "o"), revolute("pa", "arm", "p", "pinion", "c"),
         {"name": "slide", "type": "prismatic", "body1": "rack", "point1": "g", "body2": "arm", "point2": "q",
          "axis": [1.0, 0.0], "angle": 0.0},
         {"name": "mesh", "type": "rack_pinion", "joint1": "pa", "joint2": "slide", "radius": 0.05,
          "offset": -0.1, "pressure_angle": math.radians(14.5)}],
        forces=({"name": "spring", "type": "spring_damper", "body1": "ground", "point1": "A", "body2": "rack",
                 "point2": "e", "stiffness": 20.0, "damping": 0.0, "free_length": 0.2},
                {"name": "drive", "type": "applied_torque", "body": "pinion", "torque": 0.2})),
    # a fixed rack (the ground) and a trolley on a ground rail carrying the pinion: the rack is the ground, so
    # the tooth force is reported on the pinion; gravity along the rail
    "trolley_on_fixed_rack": model(
        "trolley_on_fixed_rack", {"R": [0.0, 0.0]},
        [body("trolley", 3.0, 0.05, (0.0, 0.05), {"o": [0.0, 0.0], "a": [0.0, 0.12]}),
         body("pinion", 0.5, 0.0025, (0.0, 0.0), {"c": [0.0, 0.0]}, 0.0, 0.12)],
        [{"name": "rail", "type": "prismatic", "body1": "ground", "point1": "R", "body2": "trolley",
          "point2": "o", "axis": [1.0, 0.0], "angle": 0.0},
         revolute("pt", "trolley", "a", "pinion", "c"),
         {"name": "mesh", "type": "rack_pinion", "joint1": "pt", "joint2": "rail", "radius": 0.1}],
        forces=({"name": "brake", "type": "applied_torque", "body": "pinion", "torque": expression("-0.1*t")},),
        gravity=[1.5, -9.81]),
    # an open belt between equal pulleys on a swinging plate (no force across the line of centres from the row)
    "belt_equal_on_carrier": model(
        "belt_equal_on_carrier", {"O": [0.0, 0.0]},
        [body("plate", 2.0, 0.1, (0.05, -0.05), {"o": [0.0, 0.0], "a": [-0.2, 0.0], "b": [0.2, 0.0]}),
         body("p1", 0.3, 0.001, (0.0, 0.0), {"c": [0.0, 0.0]}, -0.2, 0.0),
         body("p2", 0.6, 0.002, (0.02, 0.0), {"c": [0.0, 0.0]}, 0.2, 0.0)],
        [revolute("hinge", "ground", "O", "plate", "o"), revolute("b1", "plate", "a", "p1", "c"),
         revolute("b2", "plate", "b", "p2", "c"),
         {"name": "belt", "type": "belt_drive", "joint1": "b1", "joint2": "b2", "radius1": 0.06, "radius2": 0.06}],
        forces=({"name": "drive", "type": "applied_torque", "body": "p1",
                 "torque": expression("0.2 + 0.5*sin(2*t)")},)),
    # a crossed belt from a pulley fixed to the ground to a pulley on a swinging arm
    "belt_crossed_fixed_pulley": model(
        "belt_crossed_fixed_pulley", {"O": [0.0, 0.0]},
        [body("arm", 1.5, 0.05, (0.2, 0.0), {"o": [0.0, 0.0], "p": [0.5, 0.0]}, phi=-0.2),
         body("pulley", 0.8, 0.004, (0.03, 0.0), {"c": [0.0, 0.0]}, 0.49, -0.099)],
        [revolute("RC", "ground", "O", "arm", "o"), revolute("RD", "arm", "p", "pulley", "c"),
         {"name": "belt", "type": "belt_drive", "joint1": "RC", "joint2": "RD", "radius1": 0.2, "radius2": 0.1,
          "crossed": True}]),
}


# the same with a zero pressure angle: only the tooth force's place (on the pitch line, 0.03 m from the guide's
# point) is left to get right -- a rack tooth force reported at the guide's point puts a moment on the arm
CASES["rack_zero_pressure_angle_on_arm"] = copy.deepcopy(CASES["rack_on_moving_carrier"])
CASES["rack_zero_pressure_angle_on_arm"]["joints"][3]["pressure_angle"] = 0.0
CASES["rack_zero_pressure_angle_on_arm"]["name"] = "rack_zero_pressure_angle_on_arm"


@lru_cache(maxsize=None)
def run_of(key: str, formulation: str = "projection") -> Run:
    """The run of a purpose-built case (``CASES``) or of a sample (its file name), simulated once."""
    if key in CASES:
        traj = simulate(model_from_data(copy.deepcopy(CASES[key])), formulation=formulation)
    else:
        traj = simulate(str(ROOT / "sample_models" / key), formulation=formulation, **RUN)
    assert traj.status == Status.FINISHED, f"{key}: {traj.message}"
    assert len(traj.frames.t) >= 2
    return Run.of(traj)


def used_types(data: dict[str, Any]) -> set[str]:
    return {item["type"] for section in ("joints", "drivers", "forces") for item in data.get(section, [])}


def test_every_planar_element_type_has_a_free_body_case():
    """The registry enumerated: every planar element type appears in a case and has its reporting convention."""
    covered = set().union(*(used_types(d) for d in CASES.values()))
    covered |= set().union(*(used_types(load_model(p).data) for p in SAMPLES))
    planar = [et for et in element_types() if et.dimension in ("planar", "both")]
    assert planar
    missing = [f"element {et.name} has no free-body case" for et in planar if et.name not in covered]
    assert not missing, "; ".join(missing)
    unknown = [f"element {et.name} has no reporting convention in tests/free_body.py" for et in planar
               if et.name not in (REPORTED if et.is_constraint else FORCE_TYPES)]
    assert not unknown, "; ".join(unknown)


@pytest.mark.parametrize("key", list(CASES) + [p.name for p in SAMPLES])
def test_reported_forces_balance_every_body(key):
    run = run_of(key)
    found = imbalance(run)
    assert found.worst <= TOL, f"{key}: {found}"


@pytest.mark.parametrize("key", ["gears_on_swinging_carrier", "rack_on_moving_carrier", "trolley_on_fixed_rack",
                                 "belt_crossed_fixed_pulley", "offset_slot", "knife_edge"])
def test_reported_forces_balance_with_another_formulation(key):
    """The Lagrange formulation: its own q'' and the generic reaction path (the system's vectorised reactions
    instead of the projection's fused output frame)."""
    found = imbalance(run_of(key, "lagrange"))
    assert found.worst <= TOL, f"{key}: {found}"


def perturbations() -> list[tuple[str, str, str]]:
    """(case, constraint, column) for every constraint element of every purpose-built case and each of its
    reported columns."""
    out = []
    for key, data in CASES.items():
        for section in ("joints", "drivers"):
            for item in data.get(section, []):
                out += [(key, item["name"], comp) for comp in ("Fx", "Fy", "Mz")]
    return out


ARM = 0.1  # [m] the models' typical lever arm: a moment M counts as a force M / ARM


def load_of(run: Run, name: str) -> float:
    """The size [N] of what constraint ``name`` reports: its largest force, or its largest moment over ARM."""
    force, moment = reaction_size(run, name)
    return max(force, moment / ARM)


@pytest.mark.parametrize("key,name,comp", perturbations())
def test_one_changed_reported_column_breaks_the_balance(key, name, comp):
    """Fx or Fy changed by 1e-3 of the element's load (:func:`load_of`), or Mz by that times ARM, in the
    reported columns of one element: the balance check fails."""
    run = run_of(key)
    size = load_of(run, name)
    largest = max(load_of(run, other) for case, other, _ in perturbations() if case == key)
    assert size > 1e-3 * largest, f"{key}: {name} carries almost nothing; the perturbation would not test it"
    assert imbalance(run).worst <= TOL
    changed = run.copy()
    changed.cols[f"reaction.{name}.{comp}"] += 1e-3 * size * (ARM if comp == "Mz" else 1.0)
    found = imbalance(changed)
    assert found.worst > TOL, f"{key}: changing reaction.{name}.{comp} went unnoticed ({found})"
