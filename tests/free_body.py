"""Free-body balance of a planar run from its reported results (tests/test_free_body_balance.py).

For every body and output frame, the forces and moments that the result table reports or implies are summed
about the body's centre of mass and compared with m a and J alpha:

* reactions: the ``reaction.<name>.Fx``, ``.Fy``, ``.Mz`` columns, read as docs/results-csv.md states them --
  the force and moment (about the reported point A) that the joint, contact, coupling or driver applies to its
  **second** body; its first body gets the opposite force and moment about the same point (Newton's third law:
  both act along one line). A is the element's point on the second body (point2), or, when the second body is
  the ground, its point on the first body (point1); the centre of mass for a coordinate driver, and for a joint
  driver whose joint's second body is the ground. Elements that couple two joints on a carrier (gear pair, rack
  and pinion, belt drive) act between the two bodies they mount (their first and second body), never on the
  carrier;
* gravity m g, and the force elements evaluated from the reported coordinates and velocities (``q.*``, ``v.*``)
  and the model file: spring-dampers (tension k (L - L0) + c L' along the line of their points), rotational
  spring-dampers (-k (theta - theta0) - c theta' on the joint's body 2, theta = phi2 - phi1, opposite on body
  1), applied forces (global components at their point) and torques;
* m a, J alpha from the reported accelerations q'' of the result frames (``Trajectory.frames.a``; the CSV has no
  acceleration columns). Coordinates are the centres of mass, so M = diag(m, m, J) with J about the centre of
  mass.

Everything here is written from the model file's data and the documented columns, not from the program's
reaction sites or constraint equations, so a wrong report (a force at the wrong point, a missing component)
shows as an imbalance.
"""
from __future__ import annotations

import io
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from mechstudio.core.run.results import columns_to_csv

GROUND = "ground"
#: how each constraint type's reported reaction acts: a function (entities, record) -> (first body, second
#: body, (body, body-frame point) of the reported point A, or (body, None) for its centre of mass)
Site = tuple[str, str, tuple[str, Any]]


def _joint_like(entities: Any, j: Any) -> Site:
    """Two-body joints, contacts and couplings: point2 on body2, or point1 on body1 when body2 is the ground."""
    if j.body2 == GROUND:
        return j.body1, j.body2, (j.body1, j.point1)
    return j.body1, j.body2, (j.body2, j.point2)


def _joint_driver(entities: Any, d: Any) -> Site:
    """Joint drivers: the joint's bodies; the joint's point2 on its body2, or body1's centre of mass."""
    j = entities.joint(d.joint)
    if j.body2 == GROUND:
        return j.body1, j.body2, (j.body1, None)
    return j.body1, j.body2, (j.body2, j.point2)


REPORTED: dict[str, Callable[[Any, Any], Site]] = {
    "revolute": _joint_like, "prismatic": _joint_like, "weld": _joint_like, "pin_in_slot": _joint_like,
    "planar_rolling_disk": _joint_like, "cam_follower": _joint_like,
    "gear_pair": _joint_like, "rack_pinion": _joint_like, "belt_drive": _joint_like,
    "knife_edge": lambda entities, k: (GROUND, k.body, (k.body, k.point)),
    "coordinate": lambda entities, c: (GROUND, c.body, (c.body, None)),
    "joint_angle": _joint_driver, "joint_distance": _joint_driver,
}
#: the force element types this module evaluates
FORCE_TYPES = ("spring_damper", "rotational_spring_damper", "applied_force", "applied_torque")


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Planar cross product a x b of (k, 2) arrays."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


@dataclass
class Run:
    """What the balance reads from one run: the model's entities, the result columns (parsed back from the CSV
    text) and the reported accelerations."""
    entities: Any
    cols: dict[str, np.ndarray]
    accel: dict[str, np.ndarray]  # body -> (k, 3) reported q'' (x, y, phi)

    @classmethod
    def of(cls, traj: Any) -> "Run":
        text = columns_to_csv(traj.columns(points=()))
        header, body = text.split("\n", 1)
        table = np.loadtxt(io.StringIO(body), delimiter=",", ndmin=2)
        cols = {name: table[:, k] for k, name in enumerate(header.strip().split(","))}
        s = traj.system
        accel = {b.name: traj.frames.a[:, 3 * s.index[b.name]:3 * s.index[b.name] + 3]
                 for b in traj.system.model.entities.bodies}
        return cls(traj.system.model.entities, cols, accel)

    def copy(self) -> "Run":
        return Run(self.entities, {k: v.copy() for k, v in self.cols.items()}, self.accel)

    # ---- kinematics from the reported columns ----------------------------------------------------------------
    def pose(self, body: str) -> tuple[np.ndarray, np.ndarray]:
        """(centre of mass (k, 2), angle (k,))."""
        c = self.cols
        return np.stack([c[f"q.{body}.x"], c[f"q.{body}.y"]], axis=1), c[f"q.{body}.phi"]

    def rates(self, body: str) -> tuple[np.ndarray, np.ndarray]:
        c = self.cols
        return np.stack([c[f"v.{body}.x"], c[f"v.{body}.y"]], axis=1), c[f"v.{body}.phi"]

    def arm(self, body: str, point: Any) -> np.ndarray:
        """A (s' - c'): from the centre of mass to a body-frame point, global components (k, 2)."""
        com = np.asarray(self.entities.body(body).com[:2], float)
        s = np.asarray(point[:2], float) - com
        _, phi = self.pose(body)
        c, sn = np.cos(phi), np.sin(phi)
        return np.stack([c * s[0] - sn * s[1], sn * s[0] + c * s[1]], axis=1)

    def position(self, body: str, point: Any) -> np.ndarray:
        """Global position (k, 2) of a body-frame point (of the ground: the point itself)."""
        k = len(self.cols["t"])
        if body == GROUND:
            return np.tile(np.asarray(point[:2], float), (k, 1))
        return self.pose(body)[0] + self.arm(body, point)

    def velocity(self, body: str, point: Any) -> np.ndarray:
        if body == GROUND:
            return np.zeros((len(self.cols["t"]), 2))
        v, w = self.rates(body)
        a = self.arm(body, point)
        return v + np.stack([-a[:, 1], a[:, 0]], axis=1) * w[:, None]

    def angle(self, body: str) -> tuple[np.ndarray, np.ndarray]:
        k = len(self.cols["t"])
        if body == GROUND:
            return np.zeros(k), np.zeros(k)
        return self.pose(body)[1], self.rates(body)[1]


@dataclass
class Loads:
    """Per body: the summed force (k, 2) and moment about the centre of mass (k,), and the size of the largest
    single force [N], moment [N m] and arm [m] (from a centre of mass to a force's point) added: the scales of
    the balance."""
    run: Run

    def __post_init__(self) -> None:
        k = len(self.run.cols["t"])
        self.force = {b.name: np.zeros((k, 2)) for b in self.run.entities.bodies}
        self.moment = {b.name: np.zeros(k) for b in self.run.entities.bodies}
        self.force_scale = self.moment_scale = self.arm_scale = 0.0

    def add(self, body: str, force: np.ndarray, moment: np.ndarray | float, at: np.ndarray | None) -> None:
        """Force (k, 2) and moment (k,) about the global point ``at`` (k, 2) (None: the centre of mass)."""
        if body == GROUND:
            return
        force = np.asarray(force, float) * np.ones((len(self.run.cols["t"]), 1))
        moment = np.asarray(moment, float) * np.ones(len(self.run.cols["t"]))
        if at is not None:
            arm = at - self.run.pose(body)[0]
            moment = moment + cross(arm, force)
            self.arm_scale = max(self.arm_scale, float(np.max(np.hypot(arm[:, 0], arm[:, 1]), initial=0.0)))
        self.force[body] += force
        self.moment[body] += moment
        self.force_scale = max(self.force_scale, float(np.max(np.abs(force), initial=0.0)))
        self.moment_scale = max(self.moment_scale, float(np.max(np.abs(moment), initial=0.0)))


def loads(run: Run) -> Loads:
    """Every reported or implied force on every body (module docstring)."""
    e, c = run.entities, run.cols
    out = Loads(run)
    t = c["t"]
    g = np.asarray(e.gravity[:2], float)
    for b in e.bodies:
        out.add(b.name, b.mass * g, 0.0, None)
    for section, items in (("joints", e.joints), ("drivers", e.drivers)):
        for item in items:
            if item.type not in REPORTED:
                raise KeyError(f"element type {item.type!r} ({section}) has no reporting convention in "
                               "tests/free_body.py")
            body1, body2, (on, point) = REPORTED[item.type](e, item)
            force = np.stack([c[f"reaction.{item.name}.Fx"], c[f"reaction.{item.name}.Fy"]], axis=1)
            moment = c[f"reaction.{item.name}.Mz"]
            at = run.pose(on)[0] if point is None else run.position(on, point)
            out.add(body2, force, moment, at)
            out.add(body1, -force, -moment, at)
    for f in e.forces:
        if f.type == "spring_damper":
            p1, p2 = run.position(f.body1, f.point1), run.position(f.body2, f.point2)
            d = p2 - p1
            length = np.hypot(d[:, 0], d[:, 1])
            u = d / length[:, None]
            rate = np.sum(u * (run.velocity(f.body2, f.point2) - run.velocity(f.body1, f.point1)), axis=1)
            tension = f.stiffness * (length - f.free_length) + f.damping * rate
            out.add(f.body1, tension[:, None] * u, 0.0, p1)
            out.add(f.body2, -tension[:, None] * u, 0.0, p2)
        elif f.type == "rotational_spring_damper":
            j = e.joint(f.joint)
            (a1, w1), (a2, w2) = run.angle(j.body1), run.angle(j.body2)
            torque = -f.stiffness * (a2 - a1 - f.free_angle) - f.damping * (w2 - w1)
            out.add(j.body2, np.zeros(2), torque, None)
            out.add(j.body1, np.zeros(2), -torque, None)
        elif f.type == "applied_force":
            force = np.array([[comp.value(tk) for comp in f.force[:2]] for tk in t])
            out.add(f.body, force, 0.0, run.position(f.body, f.point))
        elif f.type == "applied_torque":
            out.add(f.body, np.zeros(2), np.array([f.torque[0].value(tk) for tk in t]), None)
        else:
            raise KeyError(f"force type {f.type!r} is not evaluated by tests/free_body.py")
    return out


@dataclass(frozen=True)
class Imbalance:
    """The largest residual |sum F - m a| [N] and |sum M - J alpha| [N m] over bodies and frames, relative to the
    largest single force of the run and to the largest single moment or force x arm of the run (a model whose
    moments all vanish, e.g. a pendulum of a point mass, still has a scale), and where it is."""
    force: float
    moment: float
    where: str

    @property
    def worst(self) -> float:
        return max(self.force, self.moment)


def imbalance(run: Run) -> Imbalance:
    """The free-body residuals of ``run`` (module docstring)."""
    ld = loads(run)
    worst_f = worst_m = worst = 0.0
    where = ""
    for b in run.entities.bodies:
        a = run.accel[b.name]
        f_in, m_in = b.mass * a[:, :2], float(b.inertia) * a[:, 2]
        fs = max(ld.force_scale, float(np.max(np.abs(f_in), initial=0.0)), 1e-300)
        ms = max(ld.moment_scale, ld.force_scale * ld.arm_scale, float(np.max(np.abs(m_in), initial=0.0)), 1e-300)
        rf = float(np.max(np.abs(ld.force[b.name] - f_in), initial=0.0)) / fs
        rm = float(np.max(np.abs(ld.moment[b.name] - m_in), initial=0.0)) / ms
        if max(rf, rm) >= worst:
            worst, where = max(rf, rm), f"body {b.name!r}"
        worst_f, worst_m = max(worst_f, rf), max(worst_m, rm)
    return Imbalance(worst_f, worst_m, where)


def reaction_size(run: Run, name: str) -> tuple[float, float]:
    """The largest |(Fx, Fy)| [N] and |Mz| [N m] that constraint ``name`` reports over the run."""
    c = run.cols
    f = float(np.max(np.hypot(c[f"reaction.{name}.Fx"], c[f"reaction.{name}.Fy"])))
    return f, float(np.max(np.abs(c[f"reaction.{name}.Mz"])))


def rotation(angle: float) -> np.ndarray:
    return np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
