"""The contacts of a planar model and the system of one contact mode (docs/contact.md).

A :class:`ContactSet` lists the model's contact points, grouped by the element they belong to
(:class:`ContactGroup`):

* *row contacts*: an element whose own constraint rows are a contact (a cam and follower, a planar rolling disk)
  and that its type declares as unilateral and/or frictional (``ElementType.contact_options``): its normal row is
  the gap (the cam's row, the disk's normal row: both are the signed distance of the surfaces, positive apart),
  its tangential row (the disk's rolling row, whose rate is the slip velocity of the contact point) holds while
  it sticks;
* *pair contacts*: a ``contact_pair`` element between two body shapes; its candidate points and their rows come
  from the shapes (core/contact/geometry.py).

A *mode* (:class:`PointMode` per point) says which points are closed, and for a closed point whether its group
sticks (the tangential row holds, with the offset c0 of the instant it began to stick) or slips (in the fixed
direction ``slip`` = sign of the slip velocity: a kinetic friction force -mu_k N slip acts along the slip
velocity's gradient Gt, as a load). :class:`ActiveSystem` is the constrained system of one mode: the base
system's rows that are no contact, then the closed points' normal rows and the sticking points' tangential rows
(all holonomic), then the base system's nonholonomic rows. Between two events the mode is fixed and any
formulation integrates this system.

Kinetic friction depends on the normal force N, itself a multiplier: the loads of slipping points and the
multipliers are solved together, from the augmented (non-symmetric) system of the mode

    M q'' - (C + D)^T lambda = h,   C q'' = -eta,    D[row of N_k] = -mu_k,k slip_k Gt_k              (1)

(least squares, so that redundant rows -- two corners of a block sticking on one line -- get the minimum-norm
split); ``forces`` returns h + D^T lambda, so that the formulation, which treats the constraints as ideal, gets
the same q'' and lambda. Their power q'^T D^T lambda = -sum mu_k N_k |v_t,k| is the friction's, reported by
``nonconservative_power`` and so carried in the run's work W.

*Joints with friction* (a revolute, prismatic or pin in slot with ``friction_static``; core/contact/joint_friction.py)
are frictional groups of one always-closed point: their stick row is the joint's relative coordinate s - c0, and
while slipping their kinetic load -mu_k sigma L(lambda) G^T depends on the joint's own multipliers through the load
L = r |B lambda| (r |F| of a revolute, |N| of a slide); with it eq. (1) becomes

    M q'' - (C + D)^T lambda - sum_j c_j L_j(lambda) G_j^T = h,   C q'' = -eta,   c_j = -mu_k,j sigma_j       (2)

solved by Newton's method (:meth:`ActiveSystem._joint_friction_solve`); ``forces`` adds the joints' loads too, and
``reactions`` adds each joint's friction to its reported reaction.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy.linalg import get_lapack_funcs

from mechstudio.core.contact.geometry import (GROUND_STATE, BodyState, PointLine, PointPoint, Row, Shape,
                                              ShapeError, nearest_row, shapes_from_geometry)
from mechstudio.core.contact.joint_friction import JointFriction
from mechstudio.core.elements import element_type
from mechstudio.core.systems.base import ConstrainedSystem, ConstraintInfo
from mechstudio.core.types import FloatArray

GROUND = "ground"
#: joint friction (eq. (2)): the Newton iteration ends when the force directions change by less than this
JOINT_TOL = 1e-13
#: ... or fails after this many steps
JOINT_ITERATIONS = 40
#: a mode's square system is solved by LU when LAPACK's estimate of its reciprocal condition number (1-norm) is
#: above this; else by least squares (rcond 1e-12: the minimum-norm split of redundant rows). Above it the singular
#: values are all above 1e-12 of the largest for systems of fewer than 100 rows (sigma_min / sigma_max >=
#: 1 / (size kappa_1)), so least squares would truncate none of them and both give the same solution.
LU_RCOND = 1e-10


def factor_mode(K: FloatArray) -> tuple[FloatArray, FloatArray] | None:
    """The LU factors of the square K when it is well conditioned (LAPACK's estimate of the reciprocal condition
    number above LU_RCOND), else None."""
    if not K.shape[0]:
        return None
    lu, piv, info = _getrf(K)
    if info != 0:
        return None
    rc, _ = _gecon(lu, float(np.abs(K).sum(axis=0).max()), norm="1")
    return (lu, piv) if rc > LU_RCOND else None


def solve_mode(K: FloatArray, rhs: FloatArray) -> tuple[FloatArray, int]:
    """(x, rank) of K x = rhs (square): by LU when K is well conditioned (LU_RCOND), else the least-squares solution
    with rcond 1e-12 (rank-deficient or inconsistent systems: redundant rows, a joint that cannot stick)."""
    lu = factor_mode(K)
    if lu is not None:
        x, info = _getrs(lu[0], lu[1], rhs)
        if info == 0:
            return x, K.shape[0]
    x, _, rank, _ = np.linalg.lstsq(K, rhs, rcond=1e-12)
    return x, int(rank)


_getrf, _getrs, _gecon = get_lapack_funcs(("getrf", "getrs", "gecon"), (np.zeros(1),))


class ContactModelError(ValueError):
    """A contact element that cannot be set up (the message names the element and its JSON pointer)."""


class ModeFailure(RuntimeError):
    """No consistent contact mode at a state (the message says why)."""


@dataclass(frozen=True)
class ContactGroup:
    """One contact element: its points, friction and restitution; ``constraint`` its index in the system's
    constraint list; ``unilateral`` False for an element whose normal row always holds (only its friction can let
    go); ``site`` (body index, sign) where its reaction is reported (about the body's centre of mass); ``kind``
    "row" (a cam, a rolling disk), "pair" (a contact pair) or "joint" (a joint with friction)."""
    name: str
    constraint: int
    points: tuple[int, ...]
    mu_s: float
    mu_k: float
    restitution: float
    unilateral: bool
    frictional: bool
    site: tuple[int, float] = (-1, 1.0)
    kind: str = "row"


@dataclass(frozen=True)
class ContactPoint:
    """One contact point: a row contact's base rows (``normal_row``, ``tangent_row``), or a pair candidate (the
    disk ``disk`` = (body-frame centre, radius) of body ``body_a`` against ``shape`` of ``body_b``; body -1: the
    ground; ``with_disks``: the shape's disks count too)."""
    group: int
    label: str
    normal_row: int = -1
    tangent_row: int = -1
    body_a: int = -1
    body_b: int = -1
    disk: tuple[tuple[float, float], float] = ((0.0, 0.0), 0.0)
    shape: Shape | None = None
    with_disks: bool = True
    joint: JointFriction | None = None  # a joint with friction (core/contact/joint_friction.py)


@dataclass(frozen=True)
class PointMode:
    """A point's mode: closed or open; for a closed one stick (row with offset c0) or slip (direction +-1); a
    pair point's row (its feature) fixed while closed."""
    closed: bool = False
    stick: bool = False
    slip: float = 0.0
    c0: float = 0.0
    row: Row | None = None


@dataclass(frozen=True)
class PointRows:
    """A point's rows at a state, full width: gap [m], normal row Gn and bn (g'' = Gn q'' + bn), slip velocity
    gradient Gt (v_t = Gt q'), stick row value (without c0), gradient Gs and bs, the normal (world) and the
    contact point (world; the row contacts': NaN)."""
    gap: float
    gn: FloatArray
    bn: float
    gt: FloatArray
    stick: float
    gs: FloatArray
    bs: float
    normal: FloatArray
    point: FloatArray


def _contact_options(et: Any, item: Any) -> dict[str, Any] | None:
    options = getattr(et, "contact_options", None)
    return None if options is None else options(item)


class ContactSet:
    """The contact points of a planar system (module docstring); built by :func:`contact_set`."""

    def __init__(self, base: ConstrainedSystem, groups: list[ContactGroup], points: list[ContactPoint]):
        self.base = base
        self.groups = groups
        self.points = points
        self.managed = sorted({r for p in points for r in (p.normal_row, p.tangent_row) if r >= 0})
        self._memo_q: tuple | None = None
        self._memo_v: tuple | None = None
        self._memo_phi: tuple | None = None

    def __len__(self) -> int:
        return len(self.points)

    # ---- states of the bodies ------------------------------------------------------------------------------------
    def body_state(self, k: int, q: FloatArray, v: FloatArray) -> BodyState:
        if k < 0:
            return GROUND_STATE
        return BodyState(q[3 * k:3 * k + 2], float(q[3 * k + 2]), v[3 * k:3 * k + 2], float(v[3 * k + 2]))

    def nearest(self, k: int, q: FloatArray) -> tuple[float, Row | None]:
        """A pair point's gap [m] at q and the row of its nearest feature (inf, None: not in reach)."""
        p = self.points[k]
        zero = np.zeros_like(q)
        A, B = self.body_state(p.body_a, q, zero), self.body_state(p.body_b, q, zero)
        s, rho = p.disk
        c = A.r + np.array([math.cos(A.phi) * s[0] - math.sin(A.phi) * s[1],
                            math.sin(A.phi) * s[0] + math.cos(A.phi) * s[1]])
        return nearest_row(c, rho, s, A, p.shape, B, p.with_disks)

    def rows(self, k: int, mode: PointMode, q: FloatArray, v: FloatArray, t: float,
             base: tuple[FloatArray, FloatArray, FloatArray] | None = None, *, values: bool = True,
             quad: bool = True) -> PointRows:
        """Point k's rows at (q, q', t) with the row of ``mode`` (a pair point's nearest feature when none);
        ``base``: (Phi, C, gamma) of the base system when already evaluated. A row contact's values (gap, stick)
        are left 0 without ``values`` and its quadratic terms (bn, bs) without ``quad``: the base system's Phi and
        gamma are then not evaluated (a cam's row costs a Newton solve per evaluation; the gradients alone need
        C only)."""
        p = self.points[k]
        n = self.base.n
        if p.joint is not None:  # always closed; its relative coordinate is the stick row
            value, G, b = p.joint.relative(q, v)
            nan = np.full(2, np.nan)
            return PointRows(0.0, np.zeros(n), 0.0, G, value, G, b, nan, nan)
        if p.normal_row >= 0:
            nr, tr = p.normal_row, p.tangent_row
            if base is not None:
                phi, C, gamma = base
            else:
                C = self.base_matrix(q, t)
                phi = self.base_phi(q, t) if values else None
                gamma = self.base_gamma(q, v, t) if quad else None
            gt = C[tr] if tr >= 0 else np.zeros(n)
            nan = np.full(2, np.nan)
            gap = float(phi[nr]) if values else 0.0
            stick = float(phi[tr]) if values and tr >= 0 else 0.0
            bn = float(-gamma[nr]) if quad else 0.0
            bs = float(-gamma[tr]) if quad and tr >= 0 else 0.0
            return PointRows(gap, C[nr], bn, gt, stick, gt, bs, nan, nan)
        row = mode.row if mode.row is not None else self.nearest(k, q)[1]
        A, B = self.body_state(p.body_a, q, v), self.body_state(p.body_b, q, v)
        if row is None:  # out of reach: no rows (the gap is infinite)
            z = np.zeros(n)
            return PointRows(math.inf, z, 0.0, z, 0.0, z, 0.0, np.zeros(2), np.zeros(2))
        rv = row.values(A, B)
        gn, gt, gs = np.zeros(n + 3), np.zeros(n + 3), np.zeros(n + 3)  # + a dummy ground block
        ia = 3 * p.body_a if p.body_a >= 0 else n
        ib = 3 * p.body_b if p.body_b >= 0 else n
        for g, a, b in ((gn, rv.gn_a, rv.gn_b), (gt, rv.gt_a, rv.gt_b), (gs, rv.gs_a, rv.gs_b)):
            g[ia:ia + 3] += a
            g[ib:ib + 3] += b
        return PointRows(rv.gap, gn[:n], rv.bn, gt[:n], rv.stick, gs[:n], rv.bs, rv.normal, rv.point)

    def base_arrays(self, q: FloatArray, v: FloatArray, t: float) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(Phi (m_h,), C (m, n), gamma (m_h,)) of the base system at (q, q', t), each memoised for the last
        state it was asked at (a cam's row costs a Newton solve per evaluation)."""
        return self.base_phi(q, t), self.base_matrix(q, t), self.base_gamma(q, v, t)

    def base_phi(self, q: FloatArray, t: float) -> FloatArray:
        """Phi of the base system at (q, t), memoised for the last state."""
        key = (t, q.tobytes())
        if self._memo_phi is None or self._memo_phi[0] != key:
            self._memo_phi = (key, self.base.phi(q, t))
        return self._memo_phi[1]

    def base_matrix(self, q: FloatArray, t: float) -> FloatArray:
        """C of the base system at (q, t), memoised for the last state."""
        key = (t, q.tobytes())
        if self._memo_q is None or self._memo_q[0] != key:
            self._memo_q = (key, self.base.constraint_matrix(q, t))
        return self._memo_q[1]

    def base_gamma(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        """gamma of the base system at (q, q', t), memoised for the last state."""
        key = (t, q.tobytes(), v.tobytes())
        if self._memo_v is None or self._memo_v[0] != key:
            self._memo_v = (key, self.base.gamma(q, v, t))
        return self._memo_v[1]

    def initial_mode(self) -> list[PointMode]:
        """Every row contact closed and sticking (how the base system assembles them), every pair point open."""
        return [PointMode(closed=True, stick=True) if p.normal_row >= 0 or p.joint is not None else PointMode()
                for p in self.points]


def contact_set(system: ConstrainedSystem) -> ContactSet | None:
    """The contacts of ``system`` (a planar system), or None when it has none that can let go (then the run is the
    usual one). :class:`ContactModelError` for a contact pair whose shapes cannot touch."""
    model = getattr(system, "model", None)
    if model is None or model.kind != "planar" or not hasattr(system, "entries"):
        return None
    groups: list[ContactGroup] = []
    points: list[ContactPoint] = []
    joints = {j.name: j for j in model.entities.joints}
    for ci, (info, entry) in enumerate(zip(system.constraints, system.entries)):
        item = joints.get(info.name)
        friction = None if item is None else _joint_friction(entry.element, item)
        if friction is not None:
            groups.append(ContactGroup(info.name, ci, (len(points),), friction["friction_static"],
                                       friction["friction_kinetic"], 0.0, False, True,
                                       (system.index[entry.site.body] if entry.site.body != GROUND else -1,
                                        entry.site.sign), "joint"))
            points.append(ContactPoint(len(groups) - 1, info.name, joint=_joint(system, item, info, friction)))
            continue
        opts = None if item is None else _contact_options(entry.element, item)
        if opts is None:
            continue
        mu_s, mu_k, frictional = _friction(opts)
        normal = info.rows[opts["normal"]]
        tangent = info.rows[opts["tangent"]] if opts.get("tangent") is not None else -1
        unilateral = bool(opts.get("unilateral", False))
        if not unilateral and (tangent < 0 or not frictional):
            continue  # bilateral and without friction: an ordinary constraint
        gi = len(groups)
        site = entry.site
        groups.append(ContactGroup(info.name, ci, (len(points),), mu_s, mu_k, float(opts.get("restitution", 0.0)),
                                   unilateral, frictional and tangent >= 0,
                                   (system.index[site.body] if site.body != GROUND else -1, site.sign)))
        # a unilateral disk without friction data rolls without slipping while it touches: its rolling row holds
        points.append(ContactPoint(gi, info.name, normal, tangent))
    for item in model.entities.forces:
        et = element_type(item.type, "forces")
        opts = _contact_options(et, item)
        if opts is None or not opts.get("pair"):
            continue
        mu_s, mu_k, frictional = _friction(opts)
        gi = len(groups)
        pts = _pair_points(system, model, item, gi)
        site = et.reaction_site(item, model.entities)
        groups.append(ContactGroup(item.name, -1, tuple(range(len(points), len(points) + len(pts))), mu_s, mu_k,
                                   float(opts.get("restitution", 0.0)), True, frictional,
                                   (system.index[site.body] if site.body != GROUND else -1, site.sign), "pair"))
        points.extend(pts)
    if not groups:
        return None
    return ContactSet(system, groups, points)


def _joint_friction(et: Any, item: Any) -> dict[str, Any] | None:
    hook = getattr(et, "joint_friction", None)
    return None if hook is None else hook(item)


def _joint(system: Any, item: Any, info: ConstraintInfo, friction: dict[str, Any]) -> JointFriction:
    """The friction of joint ``item`` (core/contact/joint_friction.py)."""
    ends = []
    for body, point in ((item.body1, item.point1), (item.body2, item.point2)):
        if body == GROUND:
            ends.append((-1, (float(point[0]), float(point[1]))))
        else:
            s = system.bodies.local(body, point)
            ends.append((system.index[body], (float(s[0]), float(s[1]))))
    axis = friction.get("axis") or (1.0, 0.0)
    size = math.hypot(axis[0], axis[1])
    return JointFriction(friction["kind"], tuple(info.rows), ends[0][0], ends[1][0], ends[0][1], ends[1][1],
                         (axis[0] / size, axis[1] / size), float(friction["radius"]))


def _friction(opts: dict[str, Any]) -> tuple[float, float, bool]:
    """(mu_s, mu_k, frictional) of an element's contact options."""
    mu_s = opts.get("friction_static")
    mu_k = opts.get("friction_kinetic")
    mu_s_v = float(mu_s or 0.0)
    return mu_s_v, mu_s_v if mu_k is None else float(mu_k), mu_s is not None


def _pair_points(system: Any, model: Any, item: Any, gi: int) -> list[ContactPoint]:
    """The candidate points of a contact pair between its shapes (geometry module docstring)."""
    pointer = f"{model.source or 'model'}:/forces/{item.index}"
    shapes = []
    for side in (1, 2):
        body = getattr(item, f"body{side}")
        index = int(getattr(item, f"shape{side}"))
        if body == GROUND:
            geometry = model.data.get("ground", {}).get("geometry", [])
            pts = model.data.get("ground", {}).get("points", {})
            com = (0.0, 0.0)
        else:
            raw = next(b for b in model.data.get("bodies", []) if b.get("name") == body)
            geometry, pts, com = raw.get("geometry", []), raw.get("points", {}), raw.get("com", [0.0, 0.0])
        chosen = range(len(geometry)) if index < 0 else [index]
        if index >= len(geometry):
            raise ContactModelError(f"{pointer}/shape{side}: {body!r} has {len(geometry)} shapes in its geometry; "
                                    f"shape {index} does not exist")
        found, why = [], []
        for s in chosen:
            try:
                found.extend(shapes_from_geometry(geometry[s], pts, com))
            except ShapeError as exc:
                if index >= 0:
                    raise ContactModelError(f"{pointer}/shape{side}: shape {s} of {body!r}: {exc}") from None
                why.append(f"shape {s}: {exc}")
        if not found:
            raise ContactModelError(f"{pointer}/shape{side}: {body!r} has no shape that can touch (disk, bar, box, "
                                    f"convex polygon or polyline in its geometry){': ' if why else ''}{'; '.join(why)}")
        shapes.append((system.index[body] if body != GROUND else -1, found))
    (b1, shapes1), (b2, shapes2) = shapes
    out: list[ContactPoint] = []
    for s1 in shapes1:
        for s2 in shapes2:
            for disk in s2.disks():  # body2's disks against body1's shape (its edges and its disks)
                out.append(ContactPoint(gi, f"{item.name}.{len(out)}", body_a=b2, body_b=b1, disk=disk, shape=s1,
                                        with_disks=True))
            if s2.kind != "circle":
                for disk in s1.disks():  # body1's disks against body2's edges only (its disks are counted above)
                    out.append(ContactPoint(gi, f"{item.name}.{len(out)}", body_a=b1, body_b=b2, disk=disk,
                                            shape=s2, with_disks=False))
    return out


# ---- the system of one mode ----------------------------------------------------------------------------------------
@dataclass
class Dynamics:
    """q'', the multipliers of the active rows and the kinetic friction load at one state (eq. (1))."""
    qdd: FloatArray
    lam: FloatArray
    friction: FloatArray  # D^T lambda (n,) [N, N m]
    rows: list[PointRows | None] = field(default_factory=list)  # the closed points' rows (None: open)
    unique: bool = True
    loads: dict[int, float] = field(default_factory=dict)  # joints with friction: r |F| [N m, N] (eq. (2))
    residual: float = 0.0  # of the solve, relative: ~1e-16 when the mode's rows can all hold, else O(1)


class ActiveSystem(ConstrainedSystem):
    """The constrained system of one contact mode (module docstring)."""

    def __init__(self, cset: ContactSet, mode: list[PointMode]):
        base = cset.base
        self.cset, self.base, self.mode = cset, base, list(mode)
        self.model = base.model
        self.n = base.n
        self.coord_names = base.coord_names
        self.diagonal_mass = getattr(base, "diagonal_mass", False)
        if self.diagonal_mass:
            self.mass_diagonal = base.mass_diagonal
        managed = set(cset.managed)
        mh = base.m_holonomic
        self.keep = np.array([r for r in range(mh) if r not in managed], np.int64)
        #: (point, "n" or "s") of each contact row, after the kept base rows
        self.custom = [(k, "n") for k, pm in enumerate(self.mode) if pm.closed and cset.points[k].joint is None]
        self.custom += [(k, "s") for k, pm in enumerate(self.mode) if pm.closed and pm.stick
                        and self._has_tangent(k)]
        self.m_holonomic = len(self.keep) + len(self.custom)
        self.m_nonholonomic = base.m_nonholonomic
        self.normal_index = {k: len(self.keep) + i for i, (k, kind) in enumerate(self.custom) if kind == "n"}
        self.stick_index = {k: len(self.keep) + i for i, (k, kind) in enumerate(self.custom) if kind == "s"}
        self.slipping = [k for k, pm in enumerate(self.mode) if pm.closed and not pm.stick and pm.slip != 0.0
                         and cset.groups[cset.points[k].group].mu_k > 0.0]
        new_row = {int(r): i for i, r in enumerate(self.keep)}
        new_row.update({mh + j: self.m_holonomic + j for j in range(base.m_nonholonomic)})
        #: joints with friction: point -> the multipliers' indices of the joint's own rows
        self.joint_lam = {k: np.array([new_row[r] for r in p.joint.rows], np.int64)
                          for k, p in enumerate(cset.points) if p.joint is not None}
        self.constraints = []
        group_of = {g.constraint: gi for gi, g in enumerate(cset.groups)}
        for ci, c in enumerate(base.constraints):
            rows = tuple(new_row[r] for r in c.rows if r in new_row)
            if ci in group_of:
                pts = set(cset.groups[group_of[ci]].points)
                rows += tuple(len(self.keep) + i for i, (k, _) in enumerate(self.custom) if k in pts)
            self.constraints.append(ConstraintInfo(c.name, c.type, rows, tuple(f"r{i}" for i in range(len(rows))),
                                                   c.holonomic, c.body1, c.body2))
        self._memo: tuple | None = None
        self._rows_memo: dict[tuple, list[PointRows | None]] = {}
        self._directions: dict[int, FloatArray] = {}  # the slipping joints' force directions of the last solve

    def _has_tangent(self, k: int) -> bool:
        p = self.cset.points[k]
        return p.tangent_row >= 0 or (p.normal_row < 0 and self.cset.groups[p.group].frictional)

    def joint_loads(self, C: FloatArray, lam: FloatArray) -> dict[int, float]:
        """r |F| [N m, N] of every joint with friction from the multipliers (core/contact/joint_friction.py)."""
        return {k: self.cset.points[k].joint.load(C, lam, idx) for k, idx in self.joint_lam.items()}

    # ---- rows ------------------------------------------------------------------------------------------------------
    def point_rows(self, q: FloatArray, v: FloatArray, t: float, values: bool = True,
                   quad: bool = True) -> list[PointRows | None]:
        """The rows of the closed points at (q, q', t) (None for the open ones), memoised for the last few states
        (phi, C, gamma and the dynamics ask for them at the same state); ``values``, ``quad``: as
        :meth:`ContactSet.rows` (the full rows of a state serve a request for fewer parts)."""
        key = (t, q.tobytes(), v.tobytes())
        memo = self._rows_memo
        if not self.cset.managed:  # only the base system's row contacts have parts to leave out
            values = quad = True
        for parts in ((True, True), (values, quad)):
            found = memo.get((key, parts))
            if found is not None:
                return found
        rows = [self.cset.rows(k, pm, q, v, t, values=values, quad=quad) if pm.closed else None
                for k, pm in enumerate(self.mode)]
        if len(memo) >= 8:
            memo.pop(next(iter(memo)))
        memo[(key, (values, quad))] = rows
        return rows

    def _custom(self, q: FloatArray, v: FloatArray, t: float, values: bool = True,
                quad: bool = True) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(values, gradients, quadratic terms) of the contact rows (``values``, ``quad``: :meth:`point_rows`)."""
        rows = self.point_rows(q, v, t, values, quad)
        vals, grads, quad = [], [], []
        for k, kind in self.custom:
            r = rows[k]
            if kind == "n":
                vals.append(r.gap)
                grads.append(r.gn)
                quad.append(r.bn)
            else:
                vals.append(r.stick - self.mode[k].c0)
                grads.append(r.gs)
                quad.append(r.bs)
        n = self.n
        return np.array(vals, float), np.array(grads, float).reshape(-1, n), np.array(quad, float)

    def phi(self, q: FloatArray, t: float) -> FloatArray:
        zero = np.zeros(self.n)
        return np.concatenate((self.cset.base_phi(q, t)[self.keep], self._custom(q, zero, t, quad=False)[0]))

    def constraint_matrix(self, q: FloatArray, t: float) -> FloatArray:
        C = self.cset.base_matrix(q, t)
        mh = self.base.m_holonomic
        return np.vstack((C[self.keep], self._custom(q, np.zeros(self.n), t, False, False)[1], C[mh:]))

    def phi_q(self, q: FloatArray, t: float) -> FloatArray:
        return self.constraint_matrix(q, t)[:self.m_holonomic]

    def phi_t(self, q: FloatArray, t: float) -> FloatArray:
        return self.xi(q, t)[:self.m_holonomic]

    def xi(self, q: FloatArray, t: float) -> FloatArray:
        x = self.base.xi(q, t)
        mh = self.base.m_holonomic
        return np.concatenate((x[self.keep], np.zeros(len(self.custom)), x[mh:]))

    def gamma(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        return np.concatenate((self.cset.base_gamma(q, v, t)[self.keep], -self._custom(q, v, t, False)[2]))

    def eta(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        base = self.base
        if not base.m_nonholonomic:  # the base's eta would evaluate its gamma again
            return -self.gamma(q, v, t)
        return np.concatenate((-self.gamma(q, v, t), base.eta(q, v, t)[base.m_holonomic:]))

    @property
    def rheonomic(self) -> bool:
        return self.base.rheonomic

    # ---- dynamics ----------------------------------------------------------------------------------------------------
    def mass_matrix(self, q: FloatArray, t: float) -> FloatArray:
        return self.base.mass_matrix(q, t)

    def dynamics(self, q: FloatArray, v: FloatArray, t: float) -> Dynamics:
        """Eq. (1) of the module docstring at (q, q', t), cached for the last state."""
        key = (t, q.tobytes(), v.tobytes())
        if self._memo is not None and self._memo[0] == key:
            return self._memo[1]
        n = self.n
        M = self.base.mass_matrix(q, t)
        h = self.base.forces(q, v, t)
        C = self.constraint_matrix(q, t)
        eta = self.eta(q, v, t)
        m = C.shape[0]
        rows = self.point_rows(q, v, t)
        D = np.zeros((m, n))
        joints = []  # the slipping joints: (point, -mu_k sigma, G)
        for k in self.slipping:
            g = self.cset.groups[self.cset.points[k].group]
            if self.cset.points[k].joint is not None:
                joints.append((k, -g.mu_k * self.mode[k].slip, rows[k].gt))
                continue
            D[self.normal_index[k]] -= g.mu_k * self.mode[k].slip * rows[k].gt
        K = np.zeros((n + m, n + m))
        K[:n, :n] = M
        K[:n, n:] = -(C + D).T
        K[n:, :n] = C
        rhs = np.concatenate((h, -eta))
        if joints:
            sol, rank, K = self._joint_friction_solve(K, rhs, C, joints, t)
        else:
            sol, rank = solve_mode(K, rhs)
        residual = float(np.linalg.norm(K @ sol - rhs)) / max(float(np.linalg.norm(rhs)) + float(
            np.linalg.norm(K) * np.linalg.norm(sol)), 1e-300)
        qdd, lam = sol[:n], sol[n:]
        friction = D.T @ lam
        loads = self.joint_loads(C, lam)
        for k, c, G in joints:
            friction = friction + c * loads[k] * G
        dyn = Dynamics(qdd, lam, friction, rows, bool(rank == n + m), loads, residual)
        self._memo = (key, dyn)
        return dyn

    def _joint_friction_solve(self, K: FloatArray, rhs: FloatArray, C: FloatArray,
                              joints: list[tuple[int, float, FloatArray]], t: float
                              ) -> tuple[FloatArray, int, FloatArray]:
        """Eq. (2) of the module docstring by Newton's method: the load r |F| = r F^T B lambda / |F| is positively
        homogeneous in lambda, so its linearization at an iterate is exact along the iterate's force direction,
        and each Newton step is the linear system of eq. (1) with D_j = -mu_k sigma r G_j (F/|F|)^T B_j at the
        directions of the previous iterate. It starts from the directions of this mode's previous solve (the
        state changes little from one evaluation to the next: two or three solves, one for a slide, whose
        direction is +-n) or, the first time, from the solution without the joints' friction, and ends when the
        solution's own directions differ from those it was solved with by at most JOINT_TOL (then it solves eq.
        (2) itself: the residual of eq. (2) is c r (F/|F| - d)^T B lambda G). :class:`ModeFailure` when it does
        not converge (a friction large enough to jam the mechanism)."""
        n = self.n
        maps = [(k, c, G, self.joint_lam[k], self.cset.points[k].joint.force_map(C, self.joint_lam[k]),
                 self.cset.points[k].joint.radius) for k, c, G in joints]
        fast = self._joint_friction_woodbury(K, rhs, maps)
        if fast is not None:
            return fast
        dirs = self._directions
        if any(k not in dirs for k, _, _ in joints):
            sol, _ = solve_mode(K, rhs)
            dirs = self._force_directions(maps, sol[n:])
        for _ in range(JOINT_ITERATIONS):
            Kj = K.copy()
            for k, c, G, idx, B, r in maps:
                Kj[:n, n + idx] -= c * r * np.outer(G, dirs[k] @ B)
            sol, rank = solve_mode(Kj, rhs)
            new = self._force_directions(maps, sol[n:])
            change = max(float(np.max(np.abs(new[k] - dirs[k]))) for k, _, _ in joints)
            dirs = new
            if change <= JOINT_TOL:
                self._directions = dirs
                return sol, rank, Kj
        self._directions = {}
        raise ModeFailure(f"the joint friction does not converge at t = {t:.6g} s (friction in "
                          f"{', '.join(self.cset.points[k].label for k, _, _ in joints)}: the joint forces and the "
                          "friction they cause have no consistent solution)")

    def _joint_friction_woodbury(self, K: FloatArray, rhs: FloatArray, maps: list[tuple]
                                 ) -> tuple[FloatArray, int, FloatArray] | None:
        """The Newton iteration of :meth:`_joint_friction_solve` with one factorization of K: a step's matrix is
        K - U W^T, U = [c_j r_j G_j; 0] (fixed), W_j = the direction's row d_j^T B_j in joint j's multipliers'
        columns, so (Sherman-Morrison-Woodbury) its solution is x0 + Z (I - W^T Z)^-1 W^T x0 with x0 = K^-1 rhs,
        Z = K^-1 U. None when K or the small matrix is ill-conditioned (then the loop solves each step's system)."""
        n, size, J = self.n, K.shape[0], len(maps)
        lu = factor_mode(K)
        if lu is None:
            return None
        U = np.zeros((size, J + 1))
        U[:, J] = rhs
        for j, (_, c, G, _, _, r) in enumerate(maps):
            U[:n, j] = c * r * G
        X, info = _getrs(lu[0], lu[1], U)
        if info != 0:
            return None
        Z, x0 = X[:, :J], X[:, J]
        dirs = self._directions
        if any(m[0] not in dirs for m in maps):
            dirs = self._force_directions(maps, x0[n:])
        Wt = np.zeros((J, size))
        for _ in range(JOINT_ITERATIONS):
            for j, (k, _, _, idx, B, _) in enumerate(maps):
                Wt[j] = 0.0
                Wt[j, n + idx] = dirs[k] @ B
            WZ = Wt @ Z
            if J == 1:
                s1 = 1.0 - float(WZ[0, 0])
                if abs(s1) * (1.0 / LU_RCOND) <= 1.0 + abs(float(WZ[0, 0])):
                    return None  # the step's matrix is (nearly) singular
                sol = x0 + Z[:, 0] * (float(Wt[0] @ x0) / s1)
            else:
                S = np.eye(J) - WZ
                try:
                    Si = np.linalg.inv(S)
                except np.linalg.LinAlgError:
                    return None
                if np.abs(S).sum(axis=0).max() * np.abs(Si).sum(axis=0).max() > 1.0 / LU_RCOND:
                    return None  # the step's matrix is (nearly) singular
                sol = x0 + Z @ (Si @ (Wt @ x0))
            new = self._force_directions(maps, sol[n:])
            change = max(float(np.max(np.abs(new[m[0]] - dirs[m[0]]))) for m in maps)
            dirs = new
            if change <= JOINT_TOL:
                self._directions = dirs
                return sol, size, K - U[:, :J] @ Wt
        return None

    @staticmethod
    def _force_directions(maps: list[tuple], lam: FloatArray) -> dict[int, FloatArray]:
        """F/|F| of every slipping joint from the multipliers (0 where F = 0: no load)."""
        out = {}
        for k, _, _, idx, B, _ in maps:
            F = B @ lam[idx]
            size = math.hypot(float(F[0]), float(F[1]))
            out[k] = F / size if size > 0.0 else np.zeros(2)
        return out

    def forces(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        h = self.base.forces(q, v, t)
        if not self.slipping:
            return h
        return h + self.dynamics(q, v, t).friction

    def friction_power(self, q: FloatArray, v: FloatArray, t: float) -> float:
        """Power [W] of the kinetic friction of the slipping points (<= 0)."""
        if not self.slipping:
            return 0.0
        return float(v @ self.dynamics(q, v, t).friction)

    def nonconservative_power(self, q: FloatArray, v: FloatArray, t: float) -> float:
        return self.base.nonconservative_power(q, v, t) + self.friction_power(q, v, t)

    def kinetic_energy(self, q: FloatArray, v: FloatArray, t: float) -> float:
        return self.base.kinetic_energy(q, v, t)

    def potential_energy(self, q: FloatArray, t: float) -> float:
        return self.base.potential_energy(q, t)

    def normal_forces(self, dyn: Dynamics) -> dict[int, float]:
        """N [N] of every closed point (its normal row's multiplier; positive: pushing); a joint with friction: its
        load r |F| [N m, N] (core/contact/joint_friction.py)."""
        return {**{k: float(dyn.lam[i]) for k, i in self.normal_index.items()}, **dyn.loads}

    def tangential_forces(self, dyn: Dynamics) -> dict[int, float]:
        """The friction force [N] on body A along tau of every closed point (sticking: its row's multiplier;
        slipping: -mu_k N slip)."""
        out = {}
        N = self.normal_forces(dyn)
        for k, i in self.stick_index.items():
            out[k] = float(dyn.lam[i])
        for k in self.slipping:
            g = self.cset.groups[self.cset.points[k].group]
            out[k] = -g.mu_k * N[k] * self.mode[k].slip
        return out

    # ---- results -----------------------------------------------------------------------------------------------------
    def reactions(self, q: FloatArray, lam: FloatArray, t: float) -> dict[str, FloatArray]:
        """The base system's reactions with the contact rows' multipliers in their places (a slipping row contact's
        tangential row gets the equivalent -mu_k N slip); a contact pair is no constraint of the base system: its
        force is in :meth:`pair_force`."""
        base, cset = self.base, self.cset
        mh, n = base.m_holonomic, self.n
        full = np.zeros(base.m)
        nk = len(self.keep)
        full[self.keep] = lam[:nk]
        full[mh:] = lam[self.m_holonomic:]
        for i, (k, kind) in enumerate(self.custom):
            p = cset.points[k]
            value = float(lam[nk + i])
            if p.normal_row >= 0:
                full[p.normal_row if kind == "n" else p.tangent_row] = value
                if kind == "n" and k in self.slipping:
                    full[p.tangent_row] = -cset.groups[p.group].mu_k * value * self.mode[k].slip
        out = base.reactions(q, full, t) if base.m else {c.name: np.zeros(6) for c in base.constraints}
        if self.joint_lam:
            self._joint_reactions(q, lam, t, out)
        return out

    def joint_friction_forces(self, q: FloatArray, lam: FloatArray, t: float) -> dict[int, float]:
        """The friction [N m, N] of every joint with friction on body2 along its relative coordinate (sticking:
        its row's multiplier; slipping: -mu_k sigma r |F|)."""
        C = self.constraint_matrix(q, t)
        loads = self.joint_loads(C, lam)
        out = {}
        for k in self.joint_lam:
            if k in self.stick_index:
                out[k] = float(lam[self.stick_index[k]])
            elif k in self.slipping:
                out[k] = -self.cset.groups[self.cset.points[k].group].mu_k * self.mode[k].slip * loads[k]
            else:
                out[k] = 0.0
        return out

    def _joint_reactions(self, q: FloatArray, lam: FloatArray, t: float, out: dict[str, FloatArray]) -> None:
        """Add the joints' friction to their reported reactions: the generalized friction f G^T on the reported
        body's coordinates, times the site's sign, its moment moved from the centre of mass to the site's point
        (as the base system reports a row's force)."""
        zero = np.zeros(self.n)
        for k, f in self.joint_friction_forces(q, lam, t).items():
            p = self.cset.points[k]
            g = self.cset.groups[p.group]
            body, sign = g.site
            if body < 0 or f == 0.0:
                continue
            gen = f * p.joint.relative(q, zero)[1][3 * body:3 * body + 3] * sign
            entry = self.base.entries[g.constraint]
            site = entry.site
            moment = gen[2]
            if site.point is not None:
                arm = self.base.bodies.local(site.body, site.point)
                phi = float(q[3 * body + 2])
                c, s = math.cos(phi), math.sin(phi)
                ax, ay = c * arm[0] - s * arm[1], s * arm[0] + c * arm[1]
                moment -= ax * gen[1] - ay * gen[0]
            r = out[g.name]
            r[0] += gen[0]
            r[1] += gen[1]
            r[5] += moment

    def pair_force(self, gi: int, q: FloatArray, v: FloatArray, t: float, dyn: Dynamics) -> FloatArray:
        """(Fx, Fy, Mz) [N, N m] that contact pair group ``gi`` applies to its reported body (about its centre of
        mass): the sum over its closed points of the normal and friction forces."""
        cset = self.cset
        g = cset.groups[gi]
        gen = np.zeros(self.n + 3)
        N, Ft = self.normal_forces(dyn), self.tangential_forces(dyn)
        for k in g.points:
            if k in N:
                r = dyn.rows[k]
                gen[:self.n] += r.gn * N[k] + (r.gs if k in self.stick_index else r.gt) * Ft.get(k, 0.0)
        body, sign = g.site
        if body < 0:
            return np.zeros(3)
        return gen[3 * body:3 * body + 3] * sign

    def initial_guess(self) -> FloatArray:
        return self.base.initial_guess()

    def initial_velocity_specs(self) -> list[tuple[int, float]]:
        return self.base.initial_velocity_specs()

    def held_coordinates(self) -> list[int]:
        return self.base.held_coordinates()

    def contact_columns(self, q: FloatArray, reactions: FloatArray) -> dict[str, FloatArray]:
        hook = getattr(self.base, "contact_columns", None)
        return hook(q, reactions) if hook is not None else {}


__all__ = ["ActiveSystem", "ContactGroup", "ContactModelError", "ContactPoint", "ModeFailure", "ContactSet", "Dynamics",
           "PointMode", "PointRows", "contact_set"]
