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

Contacts that can let go (docs/contact.md). Purpose-built cases put every contact element in every mode
(``REACHES`` asserts that each case shows its modes and events, so none silently stops testing them): contact
pairs -- a box on the floor pushed until it slides (the pair written with the ground as body2), a disk rolling
over a ground polygon's corner (a feature switch), slipping, leaving the hill and landing, a block on a ramp
tilted fast (a pair between two moving bodies) sticking then sliding, a disk rolling on a turning wheel,
slipping and flying off; a unilateral roller follower in contact and after lift-off (contact force 0, the
follower flying on its spring); a rolling disk on a platform shaken by a driver, rolling, slipping both ways
(kinetic friction reported), rolling again, leaving the platform and landing; a ball landing plastically. The
contact samples run too (the cam follower that jumps and lands, the disk that rolls then slips, the bar that
bounces and slides, the block on the tilting incline, the bouncing ball). The balance holds at every output
frame of every mode with the reported forces alone: a pair's ``contact.<name>.Fx/.Fy/.Mz`` on both of its
bodies, a cam's or rolling disk's ``reaction.<name>.*`` (zero while open).

Frames at events. An impact is an impulse, not a force: it changes the velocities in no time and appears in no
reported force or acceleration. The driver records an output time that falls on an event (within 1e-9 dt) after
the event: the velocities after the impact, and the q'' and forces of the mode chosen there (the accelerations
are those of the mode active at that output, e.g. a ball at rest, a = 0 and N = m g after a plastic landing;
test_a_frame_at_an_impact_records_the_state_and_forces_after_it). Outputs between events belong to the mode of
their step. So no frame is skipped: every frame, at an event or not, balances with the forces of its own mode.

The contact columns that enter no balance are checked against the reported contact force and Coulomb's law
(tests/free_body.py, ``contact_law``: normal and friction = the force along the contact normal n and tau, n taken
from the model's shapes and the reported poses; nothing while open; |F_t| <= mu_s N while sticking; F_t =
-mu_k N sign(v_slip) with the slip velocity of the contact point from the reported velocities; the gap zero while
closed and equal to the model's geometry). Tolerance 1e-8 of the element's largest reported force, like the
balance (measured: 4.5e-14 at most over the contact cases, projection and Lagrange), and 1e-9 m for the gaps
(measured: 7.4e-14 m; the corrected states' constraint residuals).

Shown to fail for contacts: each contact column of each contact case changed in the frames of one mode only --
a force by 1e-3 of the element's load (its largest force; Mz by that times 0.1 m), a gap by 1e-6 m -- is found,
the force and moment columns by the balance (smallest: 1.5e-5, a block's Mz while it slides), the normal and
friction columns by the contact law (1e-3), the gaps by theirs (1e-6 m); and friction columns changed together
with the force along tau (so that the columns agree) beyond mu_s N, off mu_k N, or along the slip, by Coulomb's
law.
"""
from __future__ import annotations

import copy
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mechstudio.core.elements import element_types
from mechstudio.core.model import load_model, model_from_data
from mechstudio.core.simulate import simulate
from mechstudio.core.types import Status

from tests.free_body import (CLOSED, FORCE_TYPES, GAP_TOL, OPEN, REPORTED, SLIP, STICK, DiskOn, Flat, Run,
                             contact_law, contact_views, imbalance, reaction_size)

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(p for p in (ROOT / "sample_models").glob("*.json") if load_model(p).entities.kind == "planar")
TOL = 1e-8  # relative to the largest force / moment of the run (module docstring)
RUN = {"t_end": 0.6, "dt": 0.05}
G = [0.0, -9.81]
HARMONIC = {"type": "harmonic", "amplitude": 0.5, "frequency": 3.0, "offset": -1.2}


def body(name: str, mass: float, inertia: float, com: tuple[float, float], points: dict[str, Any],
         x: float = 0.0, y: float = 0.0, phi: float = 0.0, **extra: Any) -> dict[str, Any]:
    return {"name": name, "mass": mass, "inertia": inertia, "com": list(com), "points": points,
            "initial": {"x": x, "y": y, "phi": phi}, **extra}


def model(name: str, ground: dict[str, Any], bodies: list[dict], joints: list[dict], drivers: tuple = (),
          forces: tuple = (), gravity: list[float] = G, ground_geometry: tuple = (), **extra: Any) -> dict[str, Any]:
    return {"format": "mechanism-studio-model", "version": 1, "name": name, "kind": "planar", "gravity": gravity,
            "ground": {"points": ground, **({"geometry": list(ground_geometry)} if ground_geometry else {})},
            "bodies": bodies, "joints": joints, "drivers": list(drivers), "forces": list(forces),
            "simulation": dict(RUN), **extra}


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


# ---- contacts that can let go (docs/contact.md): every mode of every contact element --------------------------------
BOX = ((-0.1, -0.05), (0.1, -0.05), (0.1, 0.05), (-0.1, 0.05))  # a 0.2 m x 0.1 m box about its centre
FLOOR = ((-1.0, -0.2), (1.0, -0.2), (1.0, 0.0), (-1.0, 0.0))  # a ground box whose top is y = 0
HILL = ((-1.0, -1.0), (1.0, -1.0), (1.0, -math.tan(math.radians(40.0))), (0.0, 0.0), (-1.0, 0.0))
#: the drop height [m] of a ball of radius 0.1 m that lands at t = 0.3 s, an output time
LANDS_AT_AN_OUTPUT = 0.1 + 0.5 * 9.81 * 0.3 ** 2


def polygon(vertices: tuple) -> dict[str, Any]:
    return {"type": "polygon", "vertices": [list(v) for v in vertices]}


def disk(radius: float) -> dict[str, Any]:
    return {"type": "disk", "center": [0.0, 0.0], "radius": radius}


def pair(name: str, b1: str, b2: str, **options: Any) -> dict[str, Any]:
    return {"name": name, "type": "contact_pair", "body1": b1, "body2": b2, **options}


CONTACT_CASES: dict[str, dict[str, Any]] = {
    # a box on the floor pushed by a growing force above its centre (and pressed down): it sticks, then slides at
    # 20 t = mu_s (m g + 2), t = 0.295 s, on two corners whose normal forces differ; the pair names the box as
    # body1 and the ground as body2 (its force is then reported on the ground about the box's centre of mass)
    "box_pushed_on_floor": model(
        "box_pushed_on_floor", {}, [body("box", 1.0, 0.05 / 12, (0.0, 0.0), {"f": [-0.1, 0.03]}, 0.0, 0.05,
                                         geometry=[polygon(BOX)])], [],
        forces=(pair("floor", "box", "ground", friction_static=0.5, friction_kinetic=0.3),
                {"name": "push", "type": "applied_force", "body": "box", "point": "f",
                 "force": [expression("20*t"), -2.0]}),
        ground_geometry=(polygon(FLOOR),), simulation={"t_end": 0.45, "dt": 0.015}),
    # a disk rolling on a ground polygon over a convex corner onto a 40 degree slope: it rolls on the top face and
    # round the corner (the point's row switches from the face to the vertex: a feature event), slips, leaves
    # the hill, lands on the slope with a few impacts and slides
    "disk_over_polygon_corner": model(
        "disk_over_polygon_corner", {}, [body("disk", 1.0, 0.005, (0.0, 0.0), {}, -0.3, 0.1, geometry=[disk(0.1)])],
        [], forces=(pair("hill", "ground", "disk", friction_static=0.3, friction_kinetic=0.2, restitution=0.3),),
        ground_geometry=(polygon(HILL),), simulation={"t_end": 0.8, "dt": 0.02},
        initial_velocities=[{"body": "disk", "coordinate": "x", "value": 0.8},
                            {"body": "disk", "coordinate": "phi", "value": -8.0}]),
    # a block on a ramp hinged to the ground and tilted at 1 rad/s (a pair between two moving bodies): it sticks
    # until the friction it needs (gravity less the ramp's centrifugal effect) exceeds mu_s N, then slides
    "block_on_fast_tilting_ramp": model(
        "block_on_fast_tilting_ramp", {"O": [0.0, 0.0]},
        [body("ramp", 5.0, 1.6708333333333334, (1.0, -0.05), {"O": [0.0, 0.0]},
              geometry=[{"type": "box", "center": [1.0, -0.05], "size": [2.0, 0.1]}]),
         body("block", 1.0, 0.05 / 12, (0.0, 0.0), {}, 1.5, 0.05, geometry=[polygon(BOX)])],
        [revolute("hinge", "ground", "O", "ramp", "O")],
        drivers=({"name": "tilt", "type": "joint_angle", "joint": "hinge",
                  "function": {"type": "constant_speed", "initial": 0.0, "speed": 1.0}},),
        forces=(pair("friction", "ramp", "block", friction_static=0.5, friction_kinetic=0.4),),
        simulation={"t_end": 0.7, "dt": 0.02}),
    # a disk on top of a wheel that turns on a damped axle (two disks, both moving): it rolls on the wheel, slips
    # and flies off
    "disk_on_pinned_wheel": model(
        "disk_on_pinned_wheel", {"O": [0.0, 0.0]},
        [body("wheel", 2.0, 0.04, (0.0, 0.0), {"o": [0.0, 0.0]}, geometry=[disk(0.2)]),
         body("disk", 0.5, 0.0025, (0.0, 0.0), {}, 0.3 * math.sin(0.1), 0.3 * math.cos(0.1), geometry=[disk(0.1)])],
        [revolute("axle", "ground", "O", "wheel", "o")],
        forces=(pair("rim", "wheel", "disk", friction_static=0.6, friction_kinetic=0.5, restitution=0.2),
                {"name": "bearing", "type": "rotational_spring_damper", "joint": "axle", "stiffness": 0.0,
                 "damping": 0.05, "free_angle": 0.0}),
        simulation={"t_end": 1.0, "dt": 0.02}),
    # a rolling disk (unilateral, with friction) on a platform shaken up and down ever harder by a driver, spun
    # by a torque: it rolls, slips (both ways), rolls again, leaves the platform when it drops faster than g, and
    # lands with impacts
    "disk_on_shaking_platform": model(
        "disk_on_shaking_platform", {"O": [0.0, 0.0]},
        [body("platform", 2.0, 0.2, (0.0, 0.0), {"o": [0.0, 0.0]}),
         body("disk", 1.0, 0.005, (0.0, 0.0), {"c": [0.0, 0.0]}, 0.0, 0.1)],
        [{"name": "guide", "type": "prismatic", "body1": "ground", "point1": "O", "body2": "platform",
          "point2": "o", "axis": [0.0, 1.0]},
         {"name": "roll", "type": "planar_rolling_disk", "body1": "platform", "point1": [0.0, 0.0],
          "axis": [1.0, 0.0], "body2": "disk", "point2": "c", "radius": 0.1, "unilateral": True,
          "friction_static": 0.3, "friction_kinetic": 0.25, "restitution": 0.3}],
        drivers=({"name": "shake", "type": "joint_distance", "joint": "guide",
                  "function": expression("0.05*t*t*sin(25*t)")},),
        forces=({"name": "spin", "type": "applied_torque", "body": "disk", "torque": expression("0.6*sin(8*t)")},),
        simulation={"t_end": 0.7, "dt": 0.02}),
    # a unilateral roller follower on an eccentric cam at 100 rad/s, above its jump speed: it follows the cam,
    # lifts off where the contact force reaches zero and flies under its spring
    "cam_roller_jump": model(
        "cam_roller_jump", {"O": [0.0, 0.0], "T": [0.0, 0.3]},
        [body("cam", 0.5, 0.0007, (0.0, 0.0), {"O": [0.0, 0.0]}),
         body("follower", 0.2, 0.0005, (0.0, 0.05), {"r": [0.0, 0.0], "top": [0.0, 0.1]}, 0.0, 0.08)],
        [revolute("shaft", "ground", "O", "cam", "O"),
         {"name": "guide", "type": "prismatic", "body1": "ground", "point1": "O", "body2": "follower",
          "point2": "r", "axis": [0.0, 1.0]},
         {"name": "contact", "type": "cam_follower", "body1": "cam", "point1": "O",
          "profile": expression("0.01*cos(t) + sqrt(0.05**2 - 0.01**2*sin(t)**2)"), "follower": "roller",
          "body2": "follower", "point2": "r", "radius": 0.02, "unilateral": True, "restitution": 0.3}],
        drivers=({"name": "motor", "type": "joint_angle", "joint": "shaft",
                  "function": {"type": "constant_speed", "initial": 0.0, "speed": 100.0}},),
        forces=({"name": "spring", "type": "spring_damper", "body1": "ground", "point1": "T", "body2": "follower",
                 "point2": "top", "stiffness": 200.0, "damping": 0.0, "free_length": 0.17},),
        simulation={"t_end": 0.016, "dt": 0.002}),
    # a ball dropped so that it lands plastically exactly at an output time (t = 0.3 s), then rests on the floor
    "ball_lands_on_an_output_time": model(
        "ball_lands_on_an_output_time", {},
        [body("ball", 1.0, 0.004, (0.0, 0.0), {}, 0.0, LANDS_AT_AN_OUTPUT, geometry=[disk(0.1)])], [],
        forces=(pair("floor", "ground", "ball"),), ground_geometry=(polygon(FLOOR),),
        simulation={"t_end": 0.5, "dt": 0.05}),
}
CASES.update(CONTACT_CASES)
#: where each contact pair touches (tests/free_body.py: Flat, DiskOn), by case or sample
PAIRS: dict[str, dict[str, Flat | DiskOn]] = {
    "box_pushed_on_floor": {"floor": Flat("ground", (0.0, 0.0), (0.0, 1.0), tuple((c, 0.0) for c in BOX))},
    "disk_over_polygon_corner": {"hill": DiskOn("disk", (0.0, 0.0), 0.1, HILL)},
    "block_on_fast_tilting_ramp": {"friction": Flat("ramp", (0.0, 0.0), (0.0, 1.0), tuple((c, 0.0) for c in BOX))},
    "disk_on_pinned_wheel": {"rim": DiskOn("disk", (0.0, 0.0), 0.1, ((0.0, 0.0),), 0.2)},
    "ball_lands_on_an_output_time": {"floor": DiskOn("ball", (0.0, 0.0), 0.1, FLOOR)},
    "bouncing_ball.json": {"floor": DiskOn("ball", (0.0, 0.0), 0.1, FLOOR)},
    "contact_pair.json": {"floor": Flat("ground", (0.0, 0.0), (0.0, 1.0),
                                        (((-0.3, 0.0), 0.025), ((0.3, 0.0), 0.025)))},
    "block_on_tilting_incline.json": {"friction": Flat("ramp", (0.0, 0.0), (0.0, 1.0),
                                                       tuple((c, 0.0) for c in BOX))},
}
#: the modes (``state`` values) and event kinds each contact case must show, so that none stops testing them
REACHES: dict[str, tuple[dict[str, set[float]], set[str]]] = {
    "box_pushed_on_floor": ({"floor": {STICK, SLIP}}, {"slip"}),
    "disk_over_polygon_corner": ({"hill": {OPEN, STICK, SLIP}}, {"feature", "slip", "liftoff", "impact"}),
    "block_on_fast_tilting_ramp": ({"friction": {STICK, SLIP}}, {"slip"}),
    "disk_on_pinned_wheel": ({"rim": {OPEN, STICK, SLIP}}, {"slip", "liftoff"}),
    "disk_on_shaking_platform": ({"roll": {OPEN, STICK, SLIP}}, {"slip", "stop", "liftoff", "impact"}),
    "cam_roller_jump": ({"contact": {OPEN, CLOSED}}, {"liftoff"}),
    "ball_lands_on_an_output_time": ({"floor": {OPEN, CLOSED}}, {"impact"}),
    "bouncing_ball.json": ({"floor": {OPEN}}, {"impact"}),
    "contact_pair.json": ({"floor": {OPEN, STICK, SLIP}}, {"impact", "stop"}),
    "block_on_tilting_incline.json": ({"friction": {STICK}}, set()),
    "cam_follower_jump.json": ({"contact": {OPEN, CLOSED}}, {"liftoff", "impact"}),
    "disk_rolls_then_slips.json": ({"roll": {STICK, SLIP}}, {"slip"}),
}
#: run settings of the samples with contacts whose events come later than RUN's end (or need finer outputs)
SAMPLE_RUN = {"cam_follower_jump.json": {"t_end": 0.05, "dt": 0.005},
              "contact_pair.json": {"t_end": 1.0, "dt": 0.05},
              "disk_rolls_then_slips.json": {"t_end": 0.95, "dt": 0.05}}


@lru_cache(maxsize=None)
def run_of(key: str, formulation: str = "projection") -> Run:
    """The run of a purpose-built case (``CASES``) or of a sample (its file name), simulated once."""
    if key in CASES:
        traj = simulate(model_from_data(copy.deepcopy(CASES[key])), formulation=formulation)
    else:
        traj = simulate(str(ROOT / "sample_models" / key), formulation=formulation, **SAMPLE_RUN.get(key, RUN))
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
    # the types that can let go: each in a contact case whose modes are checked (REACHES, test_contact_columns_...)
    contact_cases = set().union(*(used_types(CASES[k] if k in CASES else load_model(ROOT / "sample_models" / k).data)
                                  for k in REACHES))
    letting_go = [et.name for et in planar if getattr(et, "contact_options", None) is not None]
    assert "contact_pair" in letting_go
    idle = [f"contact element {name} has no contact case" for name in letting_go if name not in contact_cases]
    assert not idle, "; ".join(idle)


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


# ---- contacts: the modes reached, the contact columns, a frame at an impact ---------------------------------------
@pytest.mark.parametrize("key", list(REACHES))
def test_contact_cases_reach_their_modes(key):
    """Each contact case shows the modes and events it is there for (a changed model or engine that no longer
    slips, lifts off or lands would leave them untested)."""
    run = run_of(key)
    modes, events = REACHES[key]
    for name, states in modes.items():
        shown = set(run.cols[f"contact.{name}.state"].tolist())
        assert states <= shown, f"{key}: {name} shows the states {sorted(shown)}, not all of {sorted(states)}"
    kinds = {ev["kind"] for ev in run.events}
    assert events <= kinds, f"{key}: events {sorted(kinds)}, not all of {sorted(events)}"


@pytest.mark.parametrize("key", list(REACHES))
def test_contact_columns_match_the_contact_force_and_coulombs_law(key):
    """normal and friction columns = the reported contact force along n and tau; nothing while open; friction
    within mu_s N while sticking, -mu_k N sign(v_slip) while slipping; gaps zero while closed, >= 0 while open
    (tests/free_body.py, :func:`contact_law`)."""
    found = contact_law(run_of(key), PAIRS.get(key))
    assert found.force <= TOL, f"{key}: {found}"
    assert found.gap <= GAP_TOL, f"{key}: {found}"


@pytest.mark.parametrize("key", ["disk_over_polygon_corner", "block_on_fast_tilting_ramp", "disk_on_pinned_wheel",
                                 "disk_on_shaking_platform"])
def test_contacts_balance_with_another_formulation(key):
    """The Lagrange formulation integrates the same contact modes (its own q'' and multipliers)."""
    run = run_of(key, "lagrange")
    found = imbalance(run)
    assert found.worst <= TOL, f"{key}: {found}"
    law = contact_law(run, PAIRS.get(key))
    assert law.force <= TOL and law.gap <= GAP_TOL, f"{key}: {law}"


def test_a_frame_at_an_impact_records_the_state_and_forces_after_it():
    """The ball lands plastically at t = 0.3 s, an output time. The driver records an output within 1e-9 dt of an
    event after the event (docs/contact.md): the velocities after the impact, and the q'' and forces of the mode
    chosen there -- the impulse acts in no time and enters neither. So that frame balances with the resting
    force N = m g and a = 0 (test_reported_forces_balance_every_body checks it like every other frame)."""
    run = run_of("ball_lands_on_an_output_time")
    c, t = run.cols, run.cols["t"]
    (impact,) = [ev for ev in run.events if ev["kind"] == "impact"]
    k = int(np.argmin(np.abs(t - impact["t"])))
    assert abs(t[k] - impact["t"]) <= 1e-9 * (t[1] - t[0]), "the impact is not at an output time: nothing tested"
    assert c["contact.floor.state"][k - 1] == OPEN and c["contact.floor.state"][k] == CLOSED
    assert c["v.ball.y"][k - 1] < -2.0 and abs(c["v.ball.y"][k]) <= 1e-12
    assert math.isclose(c["contact.floor.normal"][k], 9.81, rel_tol=1e-9)
    assert abs(run.accel["ball"][k, 1]) <= 1e-9
    assert imbalance(run).worst <= TOL


# ---- contacts: a changed contact column is found ------------------------------------------------------------------
GAP_CHANGE = 1e-6  # [m] a changed gap, 10^3 GAP_TOL


def contact_columns(data: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(element, column, the check that must find a change) of every contact element of a case's model."""
    out = []
    for j in data.get("joints", []):
        if j["type"] == "planar_rolling_disk" and (j.get("unilateral") or "friction_static" in j):
            comps = ("reaction.{}.normal", "reaction.{}.friction")
        elif j["type"] == "cam_follower" and j.get("unilateral"):
            comps = ("reaction.{}.contact",)
        else:
            continue
        out += [(j["name"], f"reaction.{j['name']}.{c}", "balance") for c in ("Fx", "Fy", "Mz")]
        out += [(j["name"], col.format(j["name"]), "law") for col in
                ("contact.{}.normal", "contact.{}.friction", *comps)]
        # a cam's gap has no independent value here while open (it needs the profile's support function)
        out.append((j["name"], f"contact.{j['name']}.gap", "gap" if j["type"] != "cam_follower" else "closed gap"))
    for f in data.get("forces", []):
        if f["type"] == "contact_pair":
            out += [(f["name"], f"contact.{f['name']}.{c}", "balance") for c in ("Fx", "Fy", "Mz")]
            out += [(f["name"], f"contact.{f['name']}.{c}", "law") for c in ("normal", "friction")]
            out.append((f["name"], f"contact.{f['name']}.gap", "gap"))
    return out


def contact_perturbations() -> list[tuple[str, str, float]]:
    """(case, column, state) for every contact column of every contact case, changed in the frames of one of the
    modes the case reaches."""
    return [(key, column, state) for key in CONTACT_CASES for name, column, check in contact_columns(CASES[key])
            for state in sorted(REACHES[key][0][name]) if not (check == "closed gap" and state == OPEN)]


def contact_load(run: Run, name: str) -> float:
    """The size [N] of contact ``name``'s reported force: its largest |F|, normal or friction force."""
    c = run.cols
    prefix = "contact" if f"contact.{name}.Fx" in c else "reaction"
    force = np.hypot(c[f"{prefix}.{name}.Fx"], c[f"{prefix}.{name}.Fy"])
    return float(max(np.max(force), np.max(np.abs(c[f"contact.{name}.normal"])),
                     np.max(np.abs(c[f"contact.{name}.friction"]))))


@pytest.mark.parametrize("key,column,state", contact_perturbations())
def test_one_changed_contact_column_is_found(key, column, state):
    """A contact column changed in the frames of one mode only -- a force by 1e-3 of the element's load (Mz by
    that times ARM), a gap by GAP_CHANGE -- is found: the force and moment columns by the balance, the normal and
    friction columns by the contact law, the gap by its check."""
    run = run_of(key)
    name, _, check = next(x for x in contact_columns(CASES[key]) if x[1] == column)
    frames = run.cols[f"contact.{name}.state"] == state
    assert np.any(frames)
    size = contact_load(run, name)
    assert size > 0.0, f"{key}: {name} reports no force; the change would not test it"
    changed = run.copy()
    change = GAP_CHANGE if check.endswith("gap") else 1e-3 * size * (ARM if column.endswith(".Mz") else 1.0)
    changed.cols[column] = run.cols[column] + np.where(frames, change, 0.0)
    if check == "balance":
        found = imbalance(changed)
        assert found.worst > TOL, f"{key}: changing {column} in state {state:g} went unnoticed ({found})"
    else:
        law = contact_law(changed, PAIRS.get(key))
        value = law.force / TOL if check == "law" else law.gap / GAP_TOL
        assert value > 1.0, f"{key}: changing {column} in state {state:g} went unnoticed ({law})"


@pytest.mark.parametrize("key,name,breach", [
    ("box_pushed_on_floor", "floor", "stick"), ("box_pushed_on_floor", "floor", "mu_k"),
    ("box_pushed_on_floor", "floor", "direction"), ("disk_on_shaking_platform", "roll", "stick"),
    ("disk_on_shaking_platform", "roll", "mu_k"), ("disk_on_shaking_platform", "roll", "direction")])
def test_a_friction_against_coulombs_law_is_found(key, name, breach):
    """Friction columns changed together with the force along tau (so that the columns agree with the force): a
    sticking friction 1e-3 of the load beyond mu_s N, a kinetic friction 1e-3 larger than mu_k N, or one along the
    slip instead of against it -- Coulomb's law in :func:`contact_law` finds each."""
    run = run_of(key)
    cv = next(v for v in contact_views(run, PAIRS.get(key)) if v.name == name)
    c = run.cols
    state, friction = c[f"contact.{name}.state"], c[f"contact.{name}.friction"]
    size = contact_load(run, name)
    if breach == "stick":
        frames = state == STICK
        new = np.sign(friction) * (cv.mu_s * c[f"contact.{name}.normal"] + 1e-3 * size)
    else:
        frames = state == SLIP
        new = friction * (1.0 + 1e-3) if breach == "mu_k" else -friction
    assert np.any(frames)
    delta = np.where(frames, new - friction, 0.0)
    tau = np.stack([cv.n[:, 1], -cv.n[:, 0]], axis=1)
    changed = run.copy()
    prefix = "contact" if f"contact.{name}.Fx" in c else "reaction"
    changed.cols[f"{prefix}.{name}.Fx"] = c[f"{prefix}.{name}.Fx"] + delta * tau[:, 0]
    changed.cols[f"{prefix}.{name}.Fy"] = c[f"{prefix}.{name}.Fy"] + delta * tau[:, 1]
    for label in cv.frictions:
        changed.cols[f"{label}.{name}.friction"] = c[f"{label}.{name}.friction"] + delta
    law = contact_law(changed, PAIRS.get(key))
    expected = {"stick": "mu_s", "mu_k": "mu_k", "direction": "sign(v_slip)"}[breach]
    assert law.force > TOL and expected in law.where, f"{key}: {breach} went unnoticed ({law})"
