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
* contact pairs (``contact_pair``, a force element): the ``contact.<name>.Fx``, ``.Fy``, ``.Mz`` columns, read as
  docs/results-csv.md states them -- the contact force on body2 and its moment about body2's centre of mass, or,
  when body2 is the ground, the force on the ground and its moment about body1's centre of mass. Body1 gets the
  opposite force and moment about the same point (the shapes touch at their contact points, where the forces on
  both bodies act). Cam followers and rolling disks that can let go report in their ``reaction.*`` columns like
  any joint (zero while they are open);
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

The contact columns that enter no balance -- ``contact.<name>.normal``, ``.friction``, ``.gap``, ``.state`` and a
cam's or rolling disk's ``reaction.<name>.normal``, ``.friction``, ``.contact`` -- are checked against the
reported contact force and Coulomb's law (:func:`contact_law`): the force on body2 decomposed along the contact
normal n (from body1 towards body2, taken from the model's geometry and the reported poses, not from the program)
and tau = -perp(n) gives the reported normal and friction forces; an open contact (state 0) carries nothing and
has a gap >= 0; a closed one has a zero gap and a normal force >= 0; a sticking one (1) a friction within
mu_s N; a slipping one (2) the kinetic friction mu_k N against the reported slip velocity of its contact point;
a frictionless one (3) no friction.
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
#: the force element types this module evaluates (a contact pair from its reported columns)
FORCE_TYPES = ("spring_damper", "rotational_spring_damper", "applied_force", "applied_torque", "contact_pair")


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Planar cross product a x b of (k, 2) arrays."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


@dataclass
class Run:
    """What the balance reads from one run: the model's entities, the result columns (parsed back from the CSV
    text), the reported accelerations and the contact events (``stats["events"]``, docs/contact.md)."""
    entities: Any
    cols: dict[str, np.ndarray]
    accel: dict[str, np.ndarray]  # body -> (k, 3) reported q'' (x, y, phi)
    events: tuple[dict[str, Any], ...] = ()

    @classmethod
    def of(cls, traj: Any) -> "Run":
        text = columns_to_csv(traj.columns(points=()))
        header, body = text.split("\n", 1)
        table = np.loadtxt(io.StringIO(body), delimiter=",", ndmin=2)
        cols = {name: table[:, k] for k, name in enumerate(header.strip().split(","))}
        s = traj.system
        accel = {b.name: traj.frames.a[:, 3 * s.index[b.name]:3 * s.index[b.name] + 3]
                 for b in traj.system.model.entities.bodies}
        return cls(traj.system.model.entities, cols, accel, tuple((traj.stats or {}).get("events", ())))

    def copy(self) -> "Run":
        return Run(self.entities, {k: v.copy() for k, v in self.cols.items()}, self.accel, self.events)

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

    def turn(self, body: str, vector: Any) -> np.ndarray:
        """A body-frame vector in global components (k, 2) (the ground's: itself)."""
        phi = self.angle(body)[0]
        c, sn = np.cos(phi), np.sin(phi)
        return np.stack([c * vector[0] - sn * vector[1], sn * vector[0] + c * vector[1]], axis=1)

    def to_body(self, body: str, world: np.ndarray) -> np.ndarray:
        """Body-frame coordinates (k, 2) of global points (k, 2) (the ground's frame: global)."""
        if body == GROUND:
            return np.asarray(world, float)
        d = world - self.position(body, (0.0, 0.0))
        phi = self.pose(body)[1]
        c, sn = np.cos(phi), np.sin(phi)
        return np.stack([c * d[:, 0] + sn * d[:, 1], -sn * d[:, 0] + c * d[:, 1]], axis=1)

    def to_world(self, body: str, local: np.ndarray) -> np.ndarray:
        """Global positions (k, 2) of body-frame points (k, 2), one per frame."""
        if body == GROUND:
            return np.asarray(local, float)
        phi = self.pose(body)[1]
        c, sn = np.cos(phi), np.sin(phi)
        rotated = np.stack([c * local[:, 0] - sn * local[:, 1], sn * local[:, 0] + c * local[:, 1]], axis=1)
        return self.position(body, (0.0, 0.0)) + rotated

    def velocity_at(self, body: str, world: np.ndarray) -> np.ndarray:
        """Global velocity (k, 2) of the body's material points at the global positions ``world`` (k, 2)."""
        if body == GROUND:
            return np.zeros_like(np.asarray(world, float))
        v, w = self.rates(body)
        a = world - self.pose(body)[0]
        return v + np.stack([-a[:, 1], a[:, 0]], axis=1) * w[:, None]


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
        elif f.type == "contact_pair":
            force = np.stack([c[f"contact.{f.name}.Fx"], c[f"contact.{f.name}.Fy"]], axis=1)
            at = run.pose(f.body1 if f.body2 == GROUND else f.body2)[0]
            out.add(f.body2, force, c[f"contact.{f.name}.Mz"], at)
            out.add(f.body1, -force, -c[f"contact.{f.name}.Mz"], at)
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


# ---- the contact columns against the reported contact force and Coulomb's law (module docstring) -------------------
#: a closed contact's gap is at most this in size, an open one's at least its negative [m] (the corrected states'
#: constraint residuals are ~1e-12 m and below)
GAP_TOL = 1e-9
#: a slipping contact whose reported slip speed is below this [m/s] has no direction to check (a frame right at a
#: stick-to-slip event, where the slip velocity starts from zero)
SLIP_SPEED = 1e-7
#: the ``contact.<name>.state`` values (docs/results-csv.md)
OPEN, STICK, SLIP, CLOSED = 0.0, 1.0, 2.0, 3.0


@dataclass(frozen=True)
class Flat:
    """Where a contact pair touches: a flat side of ``body`` (the line through ``point`` with outward unit normal
    ``normal``, in the body's frame; the ground's: global) under the disks of the other body (``disks``: (centre,
    radius) in its frame; a polygon's corners with radius 0, a capsule's end circles). The contact point is the foot
    of the disk nearest to the line (with two disks on the line the other body does not turn on it, and both
    slip alike)."""
    body: str
    point: tuple[float, float]
    normal: tuple[float, float]
    disks: tuple[tuple[tuple[float, float], float], ...]


@dataclass(frozen=True)
class DiskOn:
    """Where a contact pair touches: a disk of ``body`` (centre ``centre`` in the body's frame, ``radius`` [m]) against
    the other body's convex polygon (``outline``: its vertices in that body's frame), capsule (its segment's two
    ends, ``other_radius`` its radius) or disk (its centre alone and its radius); the contact point is the
    outline's point nearest to the disk's centre (:func:`nearest_on_outline`), the normal points from there to the
    centre."""
    body: str
    centre: tuple[float, float]
    radius: float
    outline: tuple[tuple[float, float], ...]
    other_radius: float = 0.0


def _unit(a: np.ndarray) -> np.ndarray:
    return a / np.hypot(a[:, 0], a[:, 1])[:, None]


def nearest_on_outline(points: np.ndarray, outline: Any, radius: float = 0.0) -> np.ndarray:
    """The points (k, 2) of an outline nearest to ``points`` (k, 2) outside it, all in one frame: the outline is a
    convex polygon (vertices ``outline``), a segment (two) or a point (one), rounded by ``radius`` (a disk: its
    centre and radius; a capsule: its segment and radius)."""
    v = np.asarray(outline, float)
    if len(v) == 1:
        return v[0] + radius * _unit(points - v[0])
    best, out = np.full(len(points), np.inf), np.zeros_like(points)
    for a, b in zip(v, np.roll(v, -1, axis=0)):
        e = b - a
        s = np.clip((points - a) @ e / (e @ e), 0.0, 1.0)
        p = a + s[:, None] * e
        d = np.hypot(points[:, 0] - p[:, 0], points[:, 1] - p[:, 1])
        closer = d < best
        best[closer], out[closer] = d[closer], p[closer]
    return out + radius * _unit(points - out) if radius else out


@dataclass
class ContactView:
    """One contact element as its columns and the model describe it: the force on body2 (k, 2), the columns that
    report its normal and friction forces, the contact normal n from body1 towards body2 (k, 2; None for a roller,
    whose force passes through its centre, so that |F| is its normal force), a point (k, 2) where the contact
    slips, its friction coefficients and the states it may report."""
    name: str
    body1: str
    body2: str
    force: np.ndarray
    normals: dict[str, np.ndarray]
    frictions: dict[str, np.ndarray]
    n: np.ndarray | None
    point: np.ndarray | None
    mu_s: float | None
    mu_k: float | None
    states: tuple[float, ...]
    gap: np.ndarray | None = None  # (k,) [m] from the model's geometry (None: a cam, whose gap needs its profile)


def _mu(item: Any) -> tuple[float | None, float | None]:
    """(mu_s, mu_k) of a contact element (mu_k defaults to mu_s)."""
    mu_k = item.friction_kinetic if item.friction_kinetic is not None else item.friction_static
    return item.friction_static, mu_k


def contact_views(run: Run, pairs: dict[str, Flat | DiskOn] | None = None) -> list[ContactView]:
    """The contacts of ``run`` that report contact columns: cam followers and rolling disks from their fields, contact
    pairs from ``pairs`` (pair name -> where it touches)."""
    e, c = run.entities, run.cols
    pairs = pairs or {}
    out = []
    for j in e.joints:
        if f"contact.{j.name}.state" not in c:
            continue
        force = np.stack([c[f"reaction.{j.name}.Fx"], c[f"reaction.{j.name}.Fy"]], axis=1)
        if j.type == "planar_rolling_disk":
            axis = np.asarray(j.axis[:2], float) / math.hypot(*j.axis[:2])
            n = run.turn(j.body1, (-axis[1], axis[0]))  # perp(axis): the line's side where the disk is
            centre = run.position(j.body2, j.point2)
            point = centre - j.radius * n
            gap = np.sum(n * (centre - run.position(j.body1, j.point1)), axis=1) - j.radius
            mu_s, mu_k = _mu(j)
            # without friction data it rolls whenever it touches (unlimited friction: it sticks)
            states = (STICK, SLIP) if mu_s is not None else (STICK,)
            out.append(ContactView(j.name, j.body1, j.body2, force,
                                   {k: c[f"{k}.{j.name}.normal"] for k in ("contact", "reaction")},
                                   {k: c[f"{k}.{j.name}.friction"] for k in ("contact", "reaction")}, n, point,
                                   mu_s, mu_k, states + ((OPEN,) if j.unilateral else ()), gap))
        elif j.type == "cam_follower":
            n = None
            if j.follower == "flat":  # the face's normal, pointing away from the cam's centre
                axis = np.asarray(j.axis[:2], float) / math.hypot(*j.axis[:2])
                n = run.turn(j.body2, (-axis[1], axis[0]))
                away = np.sum(n * (run.position(j.body2, j.point2) - run.position(j.body1, j.point1)), axis=1)
                n = n * np.where(away < 0.0, -1.0, 1.0)[:, None]
            out.append(ContactView(j.name, j.body1, j.body2, force,
                                   {"contact": c[f"contact.{j.name}.normal"],
                                    "reaction": c[f"reaction.{j.name}.contact"]},
                                   {"contact": c[f"contact.{j.name}.friction"]}, n, None, None, None, (OPEN, CLOSED)))
        else:
            raise KeyError(f"contact element type {j.type!r} is not described by tests/free_body.py")
    for f in e.forces:
        if f.type != "contact_pair":
            continue
        if f.name not in pairs:
            raise KeyError(f"contact pair {f.name!r}: say where it touches (Flat or DiskOn)")
        where = pairs[f.name]
        other = f.body2 if where.body == f.body1 else f.body1
        if isinstance(where, Flat):
            n = run.turn(where.body, where.normal)
            on_line = run.position(where.body, where.point)
            feet = []
            for centre, radius in where.disks:
                c_world = run.position(other, centre)
                feet.append((np.sum(n * (c_world - on_line), axis=1) - radius, c_world - radius * n))
            nearest = np.argmin(np.stack([gap for gap, _ in feet]), axis=0)
            frames = np.arange(len(nearest))
            gap = np.stack([gap for gap, _ in feet])[nearest, frames]
            point = np.stack([foot for _, foot in feet])[nearest, frames]
            n = n * (1.0 if where.body == f.body1 else -1.0)
        else:
            centre = run.position(where.body, where.centre)
            point = run.to_world(other, nearest_on_outline(run.to_body(other, centre), where.outline,
                                                           where.other_radius))
            gap = np.hypot(*(centre - point).T) - where.radius
            n = _unit(centre - point) * (1.0 if where.body == f.body2 else -1.0)
        mu_s, mu_k = _mu(f)
        states = (OPEN, STICK, SLIP) if mu_s is not None else (OPEN, CLOSED)
        out.append(ContactView(f.name, f.body1, f.body2,
                               np.stack([c[f"contact.{f.name}.Fx"], c[f"contact.{f.name}.Fy"]], axis=1),
                               {"contact": c[f"contact.{f.name}.normal"]}, {"contact": c[f"contact.{f.name}.friction"]},
                               n, point, mu_s, mu_k, states, gap))
    return out


@dataclass(frozen=True)
class LawBreach:
    """The largest departure of the contact columns from the reported contact force and Coulomb's law, relative to
    the element's largest reported force (``force``), the largest gap departure [m] (``gap``), and where each is."""
    force: float
    gap: float
    where: str
    where_gap: str


def contact_law(run: Run, pairs: dict[str, Flat | DiskOn] | None = None) -> LawBreach:
    """The contact columns of ``run`` against the reported contact forces and Coulomb's law (module docstring);
    ``pairs``: where each contact pair touches."""
    c, t = run.cols, run.cols["t"]
    worst = {"force": (0.0, ""), "gap": (0.0, "")}

    def note(kind: str, value: np.ndarray, mask: np.ndarray, what: str) -> None:
        if np.any(mask):
            v = np.where(mask, value, -np.inf)
            k = int(np.argmax(v))
            if v[k] > worst[kind][0]:
                worst[kind] = (float(v[k]), f"{what} at t = {t[k]:.6g} s")

    for cv in contact_views(run, pairs):
        state, gap = c[f"contact.{cv.name}.state"], c[f"contact.{cv.name}.gap"]
        size = np.hypot(cv.force[:, 0], cv.force[:, 1])
        load = max([float(np.max(np.abs(a))) for a in (size, *cv.normals.values(), *cv.frictions.values())]
                   + [1e-300])
        is_open, closed = state == OPEN, state != OPEN
        note("force", np.full(len(t), np.inf), ~np.isin(state, cv.states), f"{cv.name}: a state not among {cv.states}")
        note("gap", np.abs(gap), closed, f"{cv.name}: the gap of a closed contact")
        note("gap", -gap, is_open, f"{cv.name}: the gap of an open contact")
        if cv.gap is not None:
            note("gap", np.abs(cv.gap - gap), np.ones(len(t), bool), f"{cv.name}: the gap is not the model's")
        note("force", size / load, is_open, f"{cv.name}: a force while open")
        tau = None if cv.n is None else np.stack([cv.n[:, 1], -cv.n[:, 0]], axis=1)  # -perp(n)
        along_n = size if cv.n is None else np.sum(cv.force * cv.n, axis=1)
        for label, N in cv.normals.items():
            note("force", -N / load, closed, f"{cv.name}: {label}.normal negative")
            note("force", np.abs(N) / load, is_open, f"{cv.name}: {label}.normal while open")
            note("force", np.abs(N - along_n) / load, closed, f"{cv.name}: {label}.normal is not the force along n")
        normal = cv.normals["contact"]
        for label, Ft in cv.frictions.items():
            note("force", np.abs(Ft) / load, is_open | (state == CLOSED), f"{cv.name}: {label}.friction while open "
                                                                            "or frictionless")
            if tau is not None:
                note("force", np.abs(Ft - np.sum(cv.force * tau, axis=1)) / load, closed,
                     f"{cv.name}: {label}.friction is not the force along tau")
            if cv.mu_s is not None:
                note("force", (np.abs(Ft) - cv.mu_s * normal) / load, state == STICK,
                     f"{cv.name}: {label}.friction beyond mu_s N while sticking")
            slip = state == SLIP
            if np.any(slip) and tau is not None and cv.mu_k is not None:
                vt = np.sum((run.velocity_at(cv.body2, cv.point) - run.velocity_at(cv.body1, cv.point)) * tau, axis=1)
                note("force", np.abs(np.abs(Ft) - cv.mu_k * normal) / load, slip,
                     f"{cv.name}: {label}.friction is not mu_k N while slipping")
                note("force", np.abs(Ft + cv.mu_k * normal * np.sign(vt)) / load, slip & (np.abs(vt) > SLIP_SPEED),
                     f"{cv.name}: {label}.friction is not -mu_k N sign(v_slip)")
    (force, where), (gap, where_gap) = worst["force"], worst["gap"]
    return LawBreach(force, gap, where, where_gap)
