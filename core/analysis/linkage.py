"""Classic linkage outputs of planar mechanisms: instant centres, transmission angle, mechanical advantage, Grashof
class, and the limit (dead-centre) positions of a four-bar or slider-crank over a turn of its crank.

Coordinates are those of [003]: per body the centre of mass r = (x, y) [m] and the angle phi [rad]; the ground is
the world frame. perp(a) = (-a_y, a_x) turns a vector by +90 degrees.

**Instant centres** (derived here from the planar velocity field v_P = v + omega perp(P - r) of a body with centre
velocity v and angular velocity omega). The instant centre of body i relative to body j is the point P whose
velocities as a point of i and as a point of j agree:

    (omega_i - omega_j) perp(P) = -u,   u = v_i - v_j - omega_i perp(r_i) + omega_j perp(r_j)

(u is the relative velocity of the point at the world origin), hence ``P = perp(u) / (omega_i - omega_j)``; relative
to the ground (v_j = 0, omega_j = 0) this is ``P = r_i + perp(v_i) / omega_i``. When omega_i = omega_j the relative
motion is a translation and the centre lies at infinity, in the direction perp(u) (perpendicular to the relative
velocity); when there is no relative motion at all it is undefined. Kennedy's theorem (Aronhold-Kennedy): the
three relative centres of any three bodies lie on one line.

**Four-bar** (Norton's notation, R. L. Norton, *Design of Machinery*, ch. 4): crank a = |O2 A|, coupler b = |A B|,
rocker c = |O4 B|, ground d = |O2 O4|; theta2 the crank angle measured from the ground line O2 -> O4. The
transmission angle mu is the angle at B between the coupler and the rocker, mu = angle(B->A, B->O4) in [0, pi].
The diagonal z = |A O4| in the triangles O2 A O4 and A B O4 (law of cosines twice) gives

    z^2 = a^2 + d^2 - 2 a d cos(theta2) = b^2 + c^2 - 2 b c cos(mu)
    cos(mu) = (b^2 + c^2 - a^2 - d^2 + 2 a d cos(theta2)) / (2 b c).

**Slider-crank**: crank r = |O2 A|, rod l = |A B|, B slides on a line (the prismatic joint's axis through B);
offset e = signed distance of that line from O2 (positive to the left of the axis). The output "link" of a slider
is the normal to its path (the rocker of a four-bar whose pivot O4 went to infinity along that normal), so mu =
angle between the rod and the path's normal, in [0, pi/2]: 90 degrees when the rod pushes along the path.

**Mechanical advantage** of an ideal (lossless) linkage: input power = output power, T_in omega_in = T_out omega_out
(four-bar) or T_in omega_in = F_out v_out (slider-crank), so MA = T_out / T_in = omega_in / omega_out, or
F_out / T_in = omega_in / v_out [1/m]. It is infinite where the output is momentarily at rest.

**Grashof's condition** (s shortest, l longest, p, q the other two links): s + l < p + q Grashof (some link turns
fully relative to the others), = change point, > non-Grashof (triple rocker). With the shortest link the ground:
double-crank (drag link); the input: crank-rocker; the output: rocker-crank; the coupler: Grashof double-rocker.
A slider-crank's crank turns fully when r + |e| < l.

**Limit positions** (toggle, or the top/bottom dead centres of a slider-crank): the crank angles where the output's
velocity ratio omega_out / omega_in (v_out / omega_in for a slider) is zero, i.e. where crank and coupler are
collinear. They are found on a continuation sweep over one crank turn (the crank angle prescribed and the four
joints assembled by Newton-Raphson, core.kinematics.assembly): sign changes of the sampled ratio, refined by Brent's
method to ``ROOT_XTOL``. Where the crank cannot turn fully (the coupler and output become collinear: transmission
angle 0 or 180 degrees), the sweep stops there; those **stops** are refined by bisection to ``STOP_XTOL``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Iterator, Sequence

import numpy as np
from scipy.optimize import brentq

from mechstudio.core.elements.base import GROUND
from mechstudio.core.kinematics.assembly import assemble
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.systems.points import BodyFrames
from mechstudio.core.types import FloatArray

#: the first part of every column name this module writes: ``linkage.<quantity>``
COLUMN_PREFIX = "linkage"
#: a relative rotation rate below this fraction of |u| / L (L the model's length scale) counts as a translation:
#: the centre would lie more than L / INFINITY_RTOL away
INFINITY_RTOL = 1e-9
#: relative motion below this fraction of the mechanism's largest speed counts as none (undefined centre)
REST_RTOL = 1e-12
#: crank samples of one turn in :func:`crank_sweep`
SWEEP_SAMPLES = 360
#: Brent's tolerance on the crank angle of a limit position [rad]
ROOT_XTOL = 1e-12
#: a sampled velocity ratio below this fraction of the largest one is a limit position itself
ZERO_RATIO_RTOL = 1e-12
#: bisection tolerance on the crank angle of a stop (the Newton steps slow down next to the fold) [rad]
STOP_XTOL = 1e-9
#: relative tolerance of the equalities in Grashof's condition
GRASHOF_RTOL = 1e-9
#: the topologies recognised by :func:`linkage_topology`
FOUR_BAR, SLIDER_CRANK = "four-bar", "slider-crank"


class LinkageError(ValueError):
    """The model is not a linkage this module analyses (the message says what was found and what is expected)."""


def perp(a: FloatArray) -> FloatArray:
    """a turned by +90 degrees: (-a_y, a_x), over the last axis."""
    a = np.asarray(a, float)
    return np.stack([-a[..., 1], a[..., 0]], axis=-1)


def cross2(a: FloatArray, b: FloatArray) -> FloatArray:
    """The planar cross product a_x b_y - a_y b_x, over the last axis."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


# --- instant centres -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class InstantCentre:
    """The instant centre of body ``bodies[0]``'s motion relative to ``bodies[1]`` (``ground``: absolute).

    Finite: ``point`` (x, y) [m]. At infinity (a relative translation): ``point`` None, ``direction`` the unit
    vector towards it (perpendicular to the relative velocity; -direction names the same point). Undefined (no
    relative motion): both None."""
    bodies: tuple[str, str]
    point: tuple[float, float] | None
    direction: tuple[float, float] | None = None

    @property
    def at_infinity(self) -> bool:
        return self.point is None and self.direction is not None

    @property
    def defined(self) -> bool:
        return self.point is not None or self.direction is not None


def length_scale(model: Any) -> float:
    """A length [m] of the model: the largest distance of a body or ground point from its frame's origin (1 m
    for a model without points); scales the tolerances of the instant centres."""
    values = [float(np.hypot(*p[:2])) for p in model.entities.ground_points.values()]
    for b in model.bodies:
        values += [float(np.hypot(*p[:2])) for p in b.points.values()] + [float(np.hypot(*b.com[:2]))]
    scale = max(values, default=0.0)
    return scale if scale > 0 else 1.0


def body_motion(system: ConstrainedSystem, q: FloatArray, v: FloatArray,
                bodies: Sequence[str]) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(r (F, B, 2) [m], v (F, B, 2) [m/s], omega (F, B) [rad/s]) of the bodies' centres of mass for frames q, v
    (F, n) of a planar system; the ground's are zero."""
    frames = BodyFrames.of_system(system)
    if frames.kind != "planar":
        raise LinkageError("instant centres are defined for planar models only")
    Q, V = np.atleast_2d(np.asarray(q, float)), np.atleast_2d(np.asarray(v, float))
    r = frames.centres(Q, list(bodies))
    vel = frames.centres(V, list(bodies))  # the same coordinates of q'
    omega = np.zeros((Q.shape[0], len(bodies)))
    for k, b in enumerate(bodies):
        if b != GROUND:
            omega[:, k] = V[:, frames.orientation_first[b]]
    return r, vel, omega


def relative_centres(r_i: FloatArray, v_i: FloatArray, w_i: FloatArray, r_j: FloatArray, v_j: FloatArray,
                     w_j: FloatArray, scale: float, speed: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(points (F, 2), directions (F, 2)) of the centres of i relative to j over F frames (module docstring):
    points NaN where the centre is at infinity or undefined, directions NaN where it is finite or undefined.
    ``scale`` [m] is the model's length, ``speed`` (F,) [m/s] the mechanism's speed scale per frame."""
    u = v_i - v_j - w_i[:, None] * perp(r_i) + w_j[:, None] * perp(r_j)
    w = w_i - w_j
    un = np.linalg.norm(u, axis=-1)
    rest = (un <= REST_RTOL * speed) & (np.abs(w) * scale <= REST_RTOL * speed)
    infinite = ~rest & (np.abs(w) * scale <= INFINITY_RTOL * un)
    finite = ~rest & ~infinite
    points = np.full(u.shape, np.nan)
    dirs = np.full(u.shape, np.nan)
    points[finite] = perp(u[finite]) / w[finite][:, None]
    dirs[infinite] = perp(u[infinite]) / un[infinite][:, None]
    return points, dirs


def _speed_scale(vel: FloatArray, omega: FloatArray, scale: float) -> FloatArray:
    s = np.max(np.linalg.norm(vel, axis=-1) + np.abs(omega) * scale, axis=-1)
    return np.where(s > 0, s, 1.0)


def body_pairs(system: ConstrainedSystem) -> list[tuple[str, str]]:
    """Every (body, ground) pair, then every pair (i, j) of moving bodies in file order."""
    names = [b.name for b in system.model.bodies]
    return [(b, GROUND) for b in names] + list(combinations(names, 2))


def _pair_centres(system: ConstrainedSystem, q: FloatArray, v: FloatArray,
                  pairs: Sequence[tuple[str, str]] | None) -> Iterator[tuple[tuple[str, str], FloatArray, FloatArray]]:
    """For each pair (default :func:`body_pairs`): the pair, the centres (F, 2) [m] and the directions (F, 2) of
    the centres at infinity, by :func:`relative_centres` over the states q, v ((n,) or (F, n))."""
    pairs = body_pairs(system) if pairs is None else list(pairs)
    bodies = sorted({b for p in pairs for b in p})
    index = {b: k for k, b in enumerate(bodies)}
    r, vel, omega = body_motion(system, q, v, bodies)
    scale = length_scale(system.model)
    speed = _speed_scale(vel, omega, scale)
    for i, j in pairs:
        a, b = index[i], index[j]
        pts, dirs = relative_centres(r[:, a], vel[:, a], omega[:, a], r[:, b], vel[:, b], omega[:, b], scale, speed)
        yield (i, j), pts, dirs


def instant_centres(system: ConstrainedSystem, q: FloatArray, v: FloatArray,
                    pairs: Sequence[tuple[str, str]] | None = None) -> dict[tuple[str, str], InstantCentre]:
    """The instant centres at one state (q, q') of a planar system: pair (i, j) -> centre of i relative to j;
    ``pairs`` defaults to :func:`body_pairs` (every body relative to the ground, then every pair of bodies)."""
    out: dict[tuple[str, str], InstantCentre] = {}
    for (i, j), pts, dirs in _pair_centres(system, q, v, pairs):
        p, d = pts[0], dirs[0]
        out[(i, j)] = InstantCentre((i, j), None if np.isnan(p[0]) else (float(p[0]), float(p[1])),
                                    None if np.isnan(d[0]) else (float(d[0]), float(d[1])))
    return out


def centre_name(pair: tuple[str, str]) -> str:
    """``linkage.ic.<body>`` (relative to the ground) or ``linkage.ic.<i>.<j>``: the stem of a centre's columns
    (body names never hold a dot)."""
    i, j = pair
    return f"{COLUMN_PREFIX}.ic.{i}" if j == GROUND else f"{COLUMN_PREFIX}.ic.{i}.{j}"


def instant_centre_columns(system: ConstrainedSystem, q: FloatArray, v: FloatArray,
                           pairs: Sequence[tuple[str, str]] | None = None) -> dict[str, FloatArray]:
    """Columns of the instant centres over frames q, v (F, n): ``<stem>.x``, ``<stem>.y`` [m] (NaN where the
    centre is at infinity or undefined) and, for a centre at infinity in some frame, ``<stem>.ux``, ``<stem>.uy``
    (its unit direction there, NaN elsewhere); stems by :func:`centre_name`."""
    cols: dict[str, FloatArray] = {}
    for (i, j), pts, dirs in _pair_centres(system, q, v, pairs):
        stem = centre_name((i, j))
        cols[f"{stem}.x"], cols[f"{stem}.y"] = pts[:, 0], pts[:, 1]
        if np.any(np.isfinite(dirs[:, 0])):
            cols[f"{stem}.ux"], cols[f"{stem}.uy"] = dirs[:, 0], dirs[:, 1]
    return cols


# --- Grashof ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GrashofClass:
    """Grashof class of a four-bar (module docstring). ``kind``: crank-rocker, rocker-crank, double-crank,
    double-rocker, change-point or triple-rocker; ``condition``: Grashof, change point or non-Grashof;
    ``shortest``: the role (ground, input, coupler, output) of the shortest link; ``input_turns``: whether the
    input link can make full turns."""
    kind: str
    condition: str
    shortest: str
    s_plus_l: float
    p_plus_q: float
    input_turns: bool

    def describe(self) -> str:
        names = {"crank-rocker": "crank-rocker", "rocker-crank": "rocker-crank (the output turns fully)",
                 "double-crank": "double-crank (drag link)", "double-rocker": "Grashof double-rocker",
                 "change-point": "change-point (s + l = p + q)",
                 "triple-rocker": "non-Grashof triple rocker"}
        return (f"{names.get(self.kind, self.kind)}: s + l = {self.s_plus_l:.6g} "
                f"{'<' if self.condition == 'Grashof' else '=' if self.condition == 'change point' else '>'} "
                f"p + q = {self.p_plus_q:.6g}, shortest link: {self.shortest}")


def grashof_class(input_length: float, coupler: float, output: float, ground: float,
                  rtol: float = GRASHOF_RTOL) -> GrashofClass:
    """Grashof class of a four-bar from its link lengths [m] (any unit; module docstring)."""
    lengths = {"ground": float(ground), "input": float(input_length), "coupler": float(coupler),
               "output": float(output)}
    if min(lengths.values()) <= 0:
        raise LinkageError(f"link lengths must be positive, got {lengths}")
    ordered = sorted(lengths.values())
    s_l, p_q = ordered[0] + ordered[3], ordered[1] + ordered[2]
    shortest = min(lengths, key=lambda k: (lengths[k], ("ground", "input", "output", "coupler").index(k)))
    if abs(s_l - p_q) <= rtol * ordered[3]:
        return GrashofClass("change-point", "change point", shortest, s_l, p_q, True)
    if s_l > p_q:
        return GrashofClass("triple-rocker", "non-Grashof", shortest, s_l, p_q, False)
    kind = {"ground": "double-crank", "input": "crank-rocker", "output": "rocker-crank",
            "coupler": "double-rocker"}[shortest]
    return GrashofClass(kind, "Grashof", shortest, s_l, p_q, shortest in ("ground", "input"))


def slider_crank_class(crank: float, rod: float, offset: float, rtol: float = GRASHOF_RTOL) -> GrashofClass:
    """Whether a slider-crank's crank turns fully (r + |e| < l), is a change point (=) or rocks (>)."""
    s_l, p_q = float(crank) + abs(float(offset)), float(rod)
    if abs(s_l - p_q) <= rtol * max(s_l, p_q):
        return GrashofClass("change-point", "change point", "input", s_l, p_q, True)
    if s_l > p_q:
        return GrashofClass("rocker-slider", "non-Grashof", "input", s_l, p_q, False)
    return GrashofClass("crank-slider", "Grashof", "input", s_l, p_q, True)


# --- topology --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LinkageTopology:
    """A four-bar or slider-crank recognised in a model: its bodies (input = crank, coupler, output = rocker or
    slider), its joints (records of the model) and link lengths [m] (four-bar: a, b, c, d; slider-crank: r, l and
    the offset e, measured when assembled)."""
    kind: str
    input: str
    coupler: str
    output: str
    input_pivot: Any  # ground - input revolute
    input_joint: Any  # input - coupler revolute (A)
    output_joint: Any  # coupler - output revolute (B)
    output_pivot: Any  # ground - output revolute (four-bar) or prismatic (slider-crank)
    lengths: dict[str, float]
    driver: str | None = None

    @property
    def grashof(self) -> GrashofClass:
        L = self.lengths
        if self.kind == FOUR_BAR:
            return grashof_class(L["a"], L["b"], L["c"], L["d"])
        return slider_crank_class(L["r"], L["l"], L.get("e", 0.0))

    def describe(self) -> str:
        links = ", ".join(f"{k} = {v:.6g} m" for k, v in self.lengths.items())
        return (f"{self.kind}: input (crank) {self.input!r}, coupler {self.coupler!r}, output "
                f"{'(rocker)' if self.kind == FOUR_BAR else '(slider)'} {self.output!r}; {links}")


def point_on(joint: Any, body: str) -> tuple[float, ...]:
    """The body-frame point [m] of ``joint`` on ``body`` (one of its two bodies)."""
    return joint.point1 if joint.body1 == body else joint.point2


def other_body(joint: Any, body: str) -> str:
    return joint.body2 if joint.body1 == body else joint.body1


def linkage_topology(model: Any) -> LinkageTopology:
    """Recognise a four-bar (ground, three moving links, four revolute joints in one loop) or a slider-crank
    (three revolute joints and a prismatic joint between the ground and the output) in a planar model; raise
    :class:`LinkageError` saying what is there otherwise.

    The input (crank) is the ground-pivoted link of a joint_angle driver, or of a ``coordinate`` driver on its
    ``phi``; else the slider-crank's crank, or the link on the four-bar's first ground joint in the file."""
    what = f"{model.source}: not a four-bar or slider-crank"
    expected = ("(expected: three moving bodies joined to the ground and to each other by four revolute joints in "
                "one loop, or a slider-crank whose prismatic joint connects the output to the ground)")
    if model.kind != "planar":
        raise LinkageError(f"{what}: the model is {model.kind}; linkage analysis is planar {expected}")
    bodies = [b.name for b in model.bodies]
    if len(bodies) != 3:
        raise LinkageError(f"{what}: it has {len(bodies)} moving bodies ({', '.join(bodies) or 'none'}) {expected}")
    joints = list(model.joints)
    others = [j for j in joints if j.type not in ("revolute", "prismatic")]
    if others:
        raise LinkageError(f"{what}: joint {others[0].name!r} is a {others[0].type} joint {expected}")
    if len(joints) != 4:
        raise LinkageError(f"{what}: it has {len(joints)} joints ({', '.join(j.name for j in joints) or 'none'}) "
                           f"{expected}")
    degree = {b: [j for j in joints if b in (j.body1, j.body2)] for b in [GROUND] + bodies}
    odd = [b for b, js in degree.items() if len(js) != 2]
    if odd:
        b = odd[0]
        raise LinkageError(f"{what}: {b!r} has {len(degree[b])} joints ({', '.join(j.name for j in degree[b])}), "
                           f"a single loop needs two per link {expected}")
    # walk the loop ground -> input side -> coupler -> output side -> ground
    g0 = degree[GROUND][0]
    order = [GROUND, other_body(g0, GROUND)]
    path = [g0]
    while order[-1] != GROUND and len(order) < 6:
        j = next(jj for jj in degree[order[-1]] if jj is not path[-1])
        path.append(j)
        order.append(other_body(j, order[-1]))
    if len(order) != 5 or order[-1] != GROUND:
        raise LinkageError(f"{what}: the joints do not form one loop through the ground and all three bodies "
                           f"{expected}")
    prismatic = [j for j in path if j.type == "prismatic"]
    if len(prismatic) > 1:
        raise LinkageError(f"{what}: it has {len(prismatic)} prismatic joints "
                           f"({', '.join(j.name for j in prismatic)}) {expected}")
    if prismatic:
        kind = SLIDER_CRANK
        if prismatic[0] is path[0]:  # slider on the first ground joint: walk the loop the other way
            path, order = path[::-1], order[::-1]
        if prismatic[0] is not path[-1]:
            raise LinkageError(f"{what}: prismatic joint {prismatic[0].name!r} joins {prismatic[0].body1!r} and "
                               f"{prismatic[0].body2!r}, not the output to the ground (an inverted slider-crank "
                               f"is not analysed) {expected}")
    else:
        kind = FOUR_BAR
    driver = None
    driven = _driven_input(model, {path[0].name: order[1], path[-1].name: order[3]}, bodies)
    if driven is not None:
        driver, body = driven
        if kind == FOUR_BAR and body == order[3]:
            path, order = path[::-1], order[::-1]
    crank, coupler, output = order[1], order[2], order[3]
    pivot_in, joint_a, joint_b, pivot_out = path
    return LinkageTopology(kind, crank, coupler, output, pivot_in, joint_a, joint_b, pivot_out,
                           _link_lengths(model, kind, crank, coupler, output, path), driver)


def _driven_input(model: Any, ground_joints: dict[str, str], bodies: list[str]) -> tuple[str, str] | None:
    """(driver name, driven ground-pivoted body) of the first driver that turns a ground-pivoted link."""
    revolute = {j.name for j in model.joints if j.type == "revolute"}
    for d in model.drivers:
        if d.type == "joint_angle" and d.joint in ground_joints and d.joint in revolute:
            return d.name, ground_joints[d.joint]
        if d.type == "coordinate" and getattr(d, "coordinate", "") == "phi" and d.body in ground_joints.values():
            pivots = [n for n, b in ground_joints.items() if b == d.body and n in revolute]
            if pivots:
                return d.name, d.body
    return None


def _link_lengths(model: Any, kind: str, crank: str, coupler: str, output: str, path: list[Any]) -> dict[str, float]:
    pivot_in, joint_a, joint_b, pivot_out = path

    def dist(p: Sequence[float], q: Sequence[float]) -> float:
        return float(math.hypot(p[0] - q[0], p[1] - q[1]))
    lengths = {"a" if kind == FOUR_BAR else "r": dist(point_on(pivot_in, crank), point_on(joint_a, crank)),
               "b" if kind == FOUR_BAR else "l": dist(point_on(joint_a, coupler), point_on(joint_b, coupler))}
    if kind == FOUR_BAR:
        lengths["c"] = dist(point_on(joint_b, output), point_on(pivot_out, output))
        lengths["d"] = dist(point_on(pivot_in, GROUND), point_on(pivot_out, GROUND))
    names = {"a": "crank", "r": "crank", "b": "coupler", "l": "coupler", "c": "rocker", "d": "ground link"}
    for k, v in lengths.items():
        if v <= 1e-12 * length_scale(model):
            raise LinkageError(f"{model.source}: the {names[k]}'s two joints are at the same point (length {k} = 0)")
    return lengths


# --- poses and ratios ------------------------------------------------------------------------------------------

class Linkage:
    """A recognised linkage on its compiled planar system: world points of its joints, crank and output angles,
    transmission angle, velocity ratio and mechanical advantage for frames q (F, n) (and q'), and the crank sweep.
    Angles in rad; theta2 and theta4 are measured from the ground line O2 -> O4 (four-bar) or from the slide axis
    (slider-crank)."""

    def __init__(self, system: ConstrainedSystem, topology: LinkageTopology | None = None,
                 q0: FloatArray | None = None):
        self.system = system
        self.topology = linkage_topology(system.model) if topology is None else topology
        self.frames = BodyFrames.of_system(system)
        topo = self.topology
        self.k_in = self.frames.orientation_first[topo.input]
        self.k_out = self.frames.orientation_first[topo.output]
        names = {topo.input_pivot.name, topo.input_joint.name, topo.output_joint.name, topo.output_pivot.name}
        self.rows = sorted(r for c in system.constraints if c.name in names for r in c.rows
                           if r < system.m_holonomic)
        self.O2 = np.asarray(point_on(topo.input_pivot, GROUND)[:2], float)
        if q0 is None:
            start = assemble(system, system.initial_guess(), 0.0, hold=system.held_coordinates(), rows=self.rows)
            if not start.status.ok:
                raise LinkageError(f"{system.model.source}: the linkage does not assemble: {start.message}")
            q0 = start.q
        self.q0 = np.asarray(q0, float)
        if topo.kind == FOUR_BAR:
            self.O4 = np.asarray(point_on(topo.output_pivot, GROUND)[:2], float)
            line = self.O4 - self.O2
        else:
            pj = topo.output_pivot
            phi1 = 0.0 if pj.body1 == GROUND else float(self.q0[self.frames.orientation_first[pj.body1]])
            c, s = math.cos(phi1), math.sin(phi1)
            axis = np.array([c * pj.axis[0] - s * pj.axis[1], s * pj.axis[0] + c * pj.axis[1]])
            line = axis
            B0 = self.points(self.q0)[1]
            offset = float(cross2(line / np.linalg.norm(line), B0 - self.O2))
            lengths = dict(topo.lengths, e=offset)
            self.topology = topo = LinkageTopology(topo.kind, topo.input, topo.coupler, topo.output, topo.input_pivot,
                                                   topo.input_joint, topo.output_joint, topo.output_pivot, lengths,
                                                   topo.driver)
        self.axis = line / np.linalg.norm(line)  # unit ground-line direction (four-bar) or slide direction
        self.normal = perp(self.axis)

    # world points of the joints A (input-coupler) and B (coupler-output)
    def points(self, q: FloatArray) -> FloatArray:
        """World positions [m] of A and B, shape (F, 2, 2) ((2, 2) for one state q)."""
        t = self.topology
        local = [point_on(t.input_joint, t.input)[:2], point_on(t.output_joint, t.output)[:2]]
        return self.frames.world(q, [t.input, t.output], np.array(local, float))

    def point_velocities(self, q: FloatArray, v: FloatArray) -> FloatArray:
        """World velocities [m/s] of A (on the input) and B (on the output), shape (F, 2, 2)."""
        t = self.topology
        Q, V = np.atleast_2d(q), np.atleast_2d(v)
        AB = self.points(Q)
        r, vel, omega = body_motion(self.system, Q, V, [t.input, t.output])
        return vel + omega[..., None] * perp(AB - r)

    def crank_angle(self, q: FloatArray) -> FloatArray:
        """theta2 [rad]: the direction of O2 -> A from the ground line, in (-pi, pi]."""
        d = self.points(np.atleast_2d(q))[:, 0] - self.O2
        out = np.arctan2(cross2(self.axis, d), d @ self.axis)
        return out[0] if np.ndim(q) == 1 else out

    def output_coordinate(self, q: FloatArray) -> FloatArray:
        """theta4 [rad] (direction of O4 -> B from the ground line) of a four-bar, or the slider's position s [m]
        (B projected on the slide axis, measured from O2's projection)."""
        P = self.points(np.atleast_2d(q))
        B = P[:, 1]
        if self.topology.kind == FOUR_BAR:
            d = B - self.O4
            out = np.arctan2(cross2(self.axis, d), d @ self.axis)
        else:
            out = (B - self.O2) @ self.axis
        return out[0] if np.ndim(q) == 1 else out

    def signed_transmission(self, q: FloatArray) -> FloatArray:
        """sin(mu) with the sign of the assembly branch: zero where coupler and output are collinear."""
        P = self.points(np.atleast_2d(q))
        A, B = P[:, 0], P[:, 1]
        BA = A - B
        other = (self.O4 - B) if self.topology.kind == FOUR_BAR else np.broadcast_to(self.normal, BA.shape)
        out = cross2(BA, other) / (np.linalg.norm(BA, axis=-1) * np.linalg.norm(other, axis=-1))
        return out[0] if np.ndim(q) == 1 else out

    def transmission_angle(self, q: FloatArray) -> FloatArray:
        """mu [rad]: angle(B->A, B->O4) in [0, pi] (four-bar); angle between the rod and the slide's normal in
        [0, pi/2] (slider-crank)."""
        P = self.points(np.atleast_2d(q))
        A, B = P[:, 0], P[:, 1]
        BA = A - B
        if self.topology.kind == FOUR_BAR:
            BO = self.O4 - B
            out = np.arctan2(np.abs(cross2(BA, BO)), np.einsum("fi,fi->f", BA, BO))
        else:
            out = np.arctan2(np.abs(BA @ self.axis), np.abs(BA @ self.normal))
        return out[0] if np.ndim(q) == 1 else out

    def rates(self, q: FloatArray, v: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(omega_in [rad/s], output rate: omega_out [rad/s] or the slider's speed along the axis [m/s])."""
        Q, V = np.atleast_2d(q), np.atleast_2d(v)
        w_in = V[:, self.k_in]
        if self.topology.kind == FOUR_BAR:
            return w_in, V[:, self.k_out]
        return w_in, self.point_velocities(Q, V)[:, 1] @ self.axis

    def velocity_ratio(self, q: FloatArray, v: FloatArray) -> FloatArray:
        """omega_out / omega_in (four-bar) or v_out / omega_in [m/rad] (slider-crank); NaN where the input rests."""
        w_in, out = self.rates(q, v)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(w_in != 0, out / np.where(w_in != 0, w_in, 1.0), np.nan)

    def mechanical_advantage(self, q: FloatArray, v: FloatArray) -> FloatArray:
        """T_out / T_in = omega_in / omega_out (four-bar), F_out / T_in = omega_in / v_out [1/m] (slider-crank) of
        the lossless linkage; +-inf where the output rests, NaN where both rest."""
        w_in, out = self.rates(q, v)
        with np.errstate(divide="ignore", invalid="ignore"):
            return w_in / out

    def columns(self, q: FloatArray, v: FloatArray) -> dict[str, FloatArray]:
        """The linkage columns over frames q, v (F, n) (docs/analysis-linkage.md)."""
        Q, V = np.atleast_2d(q), np.atleast_2d(v)
        p = COLUMN_PREFIX
        cols = {f"{p}.crank_angle": self.crank_angle(Q)}
        cols[f"{p}.output_angle" if self.topology.kind == FOUR_BAR else f"{p}.output_position"] = \
            self.output_coordinate(Q)
        cols[f"{p}.transmission_angle"] = self.transmission_angle(Q)
        cols[f"{p}.velocity_ratio"] = self.velocity_ratio(Q, V)
        cols[f"{p}.mechanical_advantage"] = self.mechanical_advantage(Q, V)
        cols.update(instant_centre_columns(self.system, Q, V))
        return cols

    # --- the crank sweep --------------------------------------------------------------------------------------
    def tangent(self, q: FloatArray) -> FloatArray:
        """dq/dphi_in at q: the linkage's velocities per unit input rate (joint rows only, input held)."""
        J = self.system.phi_q(q, 0.0)[self.rows]
        free = np.ones(self.system.n, bool)
        free[self.k_in] = False
        x = np.zeros(self.system.n)
        x[self.k_in] = 1.0
        x[free] = np.linalg.lstsq(J[:, free], -J[:, self.k_in], rcond=None)[0]
        return x

    def pose_at(self, phi: float, q_near: FloatArray) -> FloatArray | None:
        """The assembled q with the input's angle phi [rad] (model coordinate), on the branch of ``q_near``; None
        where the joints cannot be closed there (beyond a stop) or the solution left the branch."""
        guess = q_near + self.tangent(q_near) * (phi - q_near[self.k_in])
        guess[self.k_in] = phi
        res = assemble(self.system, guess, 0.0, hold=[self.k_in], rows=self.rows)
        if not res.status.ok:
            return None
        s0, s1 = float(self.signed_transmission(q_near)), float(self.signed_transmission(res.q))
        if s0 * s1 < 0 or (s1 == 0.0 and s0 != 0.0):
            return None
        return res.q

    def ratio_at(self, q: FloatArray) -> float:
        """The velocity ratio (:meth:`velocity_ratio`) at q, from the tangent."""
        return float(self.velocity_ratio(q, self.tangent(q))[0])

    def sweep(self, samples: int = SWEEP_SAMPLES) -> "CrankSweep":
        """One turn of the input from its assembled angle (forward, then backward from the start when a stop ends
        the turn early), with the limit positions and the stops (module docstring)."""
        phi0 = float(self.q0[self.k_in])
        step = 2 * math.pi / samples
        fwd, stop_hi = self._walk(self.q0, step, samples)
        stops: list[FloatArray] = []
        if stop_hi is not None:
            back, stop_lo = self._walk(self.q0, -step, samples - len(fwd) + 1)
            qs = back[::-1] + fwd[1:]
            stops = [s for s in (stop_lo, stop_hi) if s is not None]
        else:
            qs = fwd
        Q = np.array(qs)
        phis = Q[:, self.k_in]
        ratios = np.array([self.ratio_at(q) for q in qs])
        limits: list[LinkagePosition] = []
        zero = ZERO_RATIO_RTOL * float(np.max(np.abs(ratios)))
        for k in range(len(qs)):
            if abs(ratios[k]) <= zero:  # a sample on the limit position itself
                limits.append(self.position("limit", qs[k]))
            elif k + 1 < len(qs) and abs(ratios[k + 1]) > zero and ratios[k] * ratios[k + 1] < 0:
                qk = qs[k]

                def g(phi: float, qk: FloatArray = qk) -> float:
                    q = self.pose_at(phi, qk)
                    return math.nan if q is None else self.ratio_at(q)
                root = brentq(g, phis[k], phis[k + 1], xtol=ROOT_XTOL)
                q_root = self.pose_at(root, qk)
                if q_root is not None:
                    limits.append(self.position("limit", q_root))
        limits = _distinct(limits)
        stop_positions = [self.position("stop", q) for q in stops]
        return CrankSweep(phis, Q, ratios, self.transmission_angle(Q), tuple(limits), tuple(stop_positions),
                          not stops and abs(phis[-1] - phi0 - 2 * math.pi) < 1e-9)

    def _walk(self, q0: FloatArray, step: float, count: int) -> tuple[list[FloatArray], FloatArray | None]:
        """Poses at phi0 + k step, k = 0..count, until one fails; then the last pose before the stop, its angle
        found by bisection to STOP_XTOL (None when all ``count`` steps succeed)."""
        qs = [q0]
        phi0 = float(q0[self.k_in])
        for k in range(1, count + 1):
            q = self.pose_at(phi0 + k * step, qs[-1])
            if q is None:
                lo, hi = phi0 + (k - 1) * step, phi0 + k * step
                q_lo = qs[-1]
                while abs(hi - lo) > STOP_XTOL:
                    mid = 0.5 * (lo + hi)
                    q_mid = self.pose_at(mid, q_lo)
                    if q_mid is None:
                        hi = mid
                    else:
                        lo, q_lo = mid, q_mid
                return qs, q_lo
            qs.append(q)
        return qs, None

    def position(self, kind: str, q: FloatArray) -> "LinkagePosition":
        return LinkagePosition(kind, float(q[self.k_in]), float(self.crank_angle(q)),
                               float(self.output_coordinate(q)), float(self.transmission_angle(q)),
                               self.ratio_at(q), q.copy())


def _distinct(positions: list["LinkagePosition"], tol: float = 1e-9) -> list["LinkagePosition"]:
    """The positions without repeats of the same input angle modulo a turn (a root found from both sides)."""
    out: list[LinkagePosition] = []
    for p in positions:
        if all(abs(math.remainder(p.input_angle - o.input_angle, 2 * math.pi)) > tol for o in out):
            out.append(p)
    return out


@dataclass(frozen=True)
class LinkagePosition:
    """A special position: ``kind`` ``limit`` (output velocity ratio zero: crank and coupler collinear) or
    ``stop`` (the input cannot go further: coupler and output collinear). ``input_angle`` is the input body's
    phi [rad], ``crank_angle`` theta2 [rad] from the ground line, ``output`` theta4 [rad] or the slider's
    position [m], ``transmission_angle`` [rad], ``velocity_ratio`` there (zero at a limit)."""
    kind: str
    input_angle: float
    crank_angle: float
    output: float
    transmission_angle: float
    velocity_ratio: float
    q: FloatArray = field(repr=False, compare=False)


@dataclass(frozen=True)
class CrankSweep:
    """One turn (or the reachable range) of the input: sampled input angles phi [rad], poses q, velocity ratios,
    transmission angles [rad]; the refined limit positions and stops; ``full_turn`` whether the turn closed."""
    input_angle: FloatArray
    q: FloatArray
    velocity_ratio: FloatArray
    transmission_angle: FloatArray
    limits: tuple[LinkagePosition, ...]
    stops: tuple[LinkagePosition, ...]
    full_turn: bool


__all__ = ["COLUMN_PREFIX", "FOUR_BAR", "SLIDER_CRANK", "CrankSweep", "GrashofClass", "InstantCentre", "Linkage",
           "LinkageError", "LinkagePosition", "LinkageTopology", "body_pairs", "centre_name", "grashof_class",
           "instant_centre_columns", "instant_centres", "length_scale", "linkage_topology", "perp",
           "slider_crank_class"]
