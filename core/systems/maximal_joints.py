"""Spatial multibody systems in maximal coordinates with any graph of spatial joints (trees or closed loops).

Coordinates and body dynamics: :class:`~mechstudio.core.systems.maximal_bodies.MaximalBodies` (7 per body: the
centre of mass r and the Euler parameters p; M, h of the Lagrangian there). Constraints, all holonomic:

* each joint in file order (``spherical``, ``hinge``, ``slider``, ``cylindrical``, ``universal``,
  ``fixed_joint``): its rows of :data:`~mechstudio.core.elements.primitives.spatial_rows.JOINT_ROWS`, then one row
  per driven joint coordinate (theta - f(t) wrapped to (-pi, pi], or s - f(t)); Phi, Phi_q, xi = Phi_t and
  gamma from :mod:`mechstudio.core.elements.primitives.spatial_rows` (equations there);
* one row per body, the norm of its Euler parameters: (p.p - 1)/2 = 0, row p^T, gamma = -p'.p'.

A closed loop needs nothing special: its joints' rows all stay in Phi, and the projection formulation ([001])
integrates on the constraint manifold as for planar loops (redundant rows are handled there as least squares).

Loads besides :class:`MaximalBodies`' gravity and applied forces and torques: the spring-damper of a joint
coordinate x (theta or s; core/elements/spatial_joint.py), tau = -k (x - x0) - c x' + f(t), with generalized force
tau x_q (x_q the coordinate's gradient, spatial_rows), potential k (x - x0)^2 / 2 (theta - theta0 wrapped to
(-pi, pi]) and power (-c x' + f(t)) x'.

Reactions: the generalized constraint force of a joint's rows (the driver row included) on body 2, C_rows^T lambda,
as force F = its r part and moment about the centre of mass n = E(p) g_p / (2 p.p), then the moment about the
joint point on body 2 (n - (A s') x F); world components (``reaction.<name>.Fx`` ... ``Mz``, like every system)
and, as extra result columns, in body 1's frame (``reaction.<name>.Fx_body1`` ... ``Mz_body1``: A_1^T F, A_1^T M;
the ground's frame is the world). When body 2 is the ground: what the joint applies to the ground, about
point1 (sign -1, as elsewhere). Joint coordinates are result columns ``joint.<name>.angle`` [rad] (unwrapped
along the run) and ``joint.<name>.slide`` [m]; :meth:`MaximalJointSystem.joint_coordinates` gives them with
their rates.

The ground is fixed (a moving ground is refused by the loader for these joints). Evaluation: every row, driver
row and loaded coordinate of every joint at once by one
:class:`~mechstudio.core.elements.primitives.spatial_rows.RowBatch` (index arrays, no loop over the joints, or
its numba kernel on the compiled path; the last state's values kept, so that C(q) and then gamma(q, q') and
h(q, q') at the same state share the positions), the joint coordinates of the result frames by another, over all
frames at once. Cost: dense matrices of size 7n (meant for models of tens of bodies).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mechstudio.core.elements import element_type
from mechstudio.core.elements.primitives.spatial_rows import (JOINT_COORDINATES, JOINT_ROWS, ROW_EQUATIONS, Equation,
                                                              JointGeometry, RowBatch, cross_rows)
from mechstudio.core.model.document import GROUND, Model
from mechstudio.core.numerics.orientation import quat_E, quat_to_matrix
from mechstudio.core.systems.base import ConstraintInfo
from mechstudio.core.systems.maximal_bodies import MaximalBodies
from mechstudio.core.types import FloatArray

#: joint types these systems compile
JOINT_TYPES = tuple(JOINT_ROWS)
#: joint types that only these systems compile (a spatial model with one of them is compiled here)
NEW_JOINT_TYPES = tuple(t for t in JOINT_TYPES if t != "spherical")


@dataclass(frozen=True)
class AxisDrive:
    """A driven or loaded joint coordinate: ``coordinate`` (angle, slide), the driver f(t) (None: free), spring k,
    damper c, free value x0 and load f(t) (None: none)."""
    coordinate: str
    driver: Any
    spring: float
    damping: float
    free: float
    load: Any

    @property
    def loaded(self) -> bool:
        return bool(self.spring or self.damping or self.load is not None)


@dataclass(frozen=True)
class JointEntry:
    """One compiled joint: its bodies (index, -1 the ground), geometry, row labels and first row."""
    name: str
    type: str
    body1: str
    body2: str
    i: int
    j: int
    geo: JointGeometry
    rows: tuple[str, ...]
    drives: tuple[AxisDrive, ...]
    first: int
    point1: tuple[float, ...]
    point2: tuple[float, ...]

    @property
    def driven(self) -> tuple[AxisDrive, ...]:
        return tuple(d for d in self.drives if d.driver is not None)


class MaximalJointSystem(MaximalBodies):
    """Spatial bodies joined by any graph of spatial joints, in maximal coordinates (module docstring)."""

    def __init__(self, model: Model):
        ent = model.entities
        self.model = model
        bodies = list(ent.bodies)
        nb = len(bodies)
        self.setup_bodies(ent, np.array([b.mass for b in bodies], float),
                          np.array([0.5 * (np.asarray(b.inertia, float) + np.asarray(b.inertia, float).T)
                                    for b in bodies]).reshape(nb, 3, 3),
                          np.array([np.asarray(b.com, float)[:3] for b in bodies]).reshape(nb, 3))
        entries: list[JointEntry] = []
        infos: list[ConstraintInfo] = []
        row = 0
        for jt in ent.joints:
            if jt.type not in JOINT_TYPES:
                raise ValueError(f"joint {jt.name!r}: type {jt.type} is not a spatial joint of maximal-coordinate "
                                 f"models ({', '.join(JOINT_TYPES)})")
            et = element_type(jt.type, "joints")
            i, j = self.body_number(jt.body1), self.body_number(jt.body2)
            s1 = np.asarray(jt.point1, float)[:3] - (self.com[i] if i >= 0 else 0.0)
            s2 = np.asarray(jt.point2, float)[:3] - (self.com[j] if j >= 0 else 0.0)
            axis1 = getattr(jt, "axis1", (0.0, 0.0, 1.0))
            axis2 = getattr(jt, "axis2", (0.0, 0.0, 1.0))
            drives = tuple(AxisDrive(a.coordinate, getattr(jt, a.driver), float(getattr(jt, a.spring)),
                                     float(getattr(jt, a.damping)), float(getattr(jt, a.free)), getattr(jt, a.load))
                           for a in getattr(et, "axis_loads", ()))
            labels = et.row_components(jt)
            entry = JointEntry(jt.name, jt.type, jt.body1, jt.body2, i, j, JointGeometry.of(s1, s2, axis1, axis2),
                               labels, drives, row, tuple(jt.point1), tuple(jt.point2))
            entries.append(entry)
            infos.append(ConstraintInfo(jt.name, jt.type, tuple(range(row, row + len(labels))), labels, True,
                                        jt.body1, jt.body2))
            row += len(labels)
        self.joints = entries
        self.m_joint_rows = row
        for k, nm in enumerate(self.body_names):
            infos.append(ConstraintInfo(f"{nm}.unit_quaternion", "quaternion_norm", (row + k,), ("norm",), True,
                                        nm, nm))
        self.constraints = infos
        self.m_holonomic = row + nb
        self.m_nonholonomic = 0
        self.loaded = [(e, d) for e in entries for d in e.drives if d.loaded]
        self._rheonomic = any(not d.driver.is_constant for e in entries for d in e.driven)
        self.compile_batches()

    def body_number(self, name: str) -> int:
        """Index of body ``name`` in file order, -1 for the ground."""
        return -1 if name == GROUND else self.index[name]

    @property
    def rheonomic(self) -> bool:
        return self._rheonomic

    # --- the joints' scalars, batched --------------------------------------------------------------------------
    def compile_batches(self) -> None:
        """The :class:`RowBatch` of every joint row, driver row and loaded coordinate (in that order: the first
        ``m_joint_rows`` terms are the rows of Phi), of every joint coordinate (for the result columns), and the
        index arrays that put their Jacobians into C and h."""
        joints = [(e.geo, e.i, e.j) for e in self.joints]
        terms: list[tuple[int, Equation]] = []
        driver_rows: list[int] = []
        for jn, e in enumerate(self.joints):
            terms += [(jn, ROW_EQUATIONS[c]) for c in JOINT_ROWS[e.type]]
            for d in e.driven:
                driver_rows.append(len(terms))
                terms.append((jn, JOINT_COORDINATES[d.coordinate]))
        assert len(terms) == self.m_joint_rows
        number = {id(e): jn for jn, e in enumerate(self.joints)}
        terms += [(number[id(e)], JOINT_COORDINATES[d.coordinate]) for e, d in self.loaded]
        self.rows = RowBatch(self.nb, joints, terms)
        self.driver_rows = np.array(driver_rows, dtype=np.int64)
        self.driver_list = [d for e in self.joints for d in e.driven]
        self.driver_angle = np.array([d.coordinate == "angle" for d in self.driver_list], bool)
        coords = [(jn, e, d) for jn, e in enumerate(self.joints) for d in e.drives]
        self.coordinate_names = [f"{e.name}.{d.coordinate}" for _, e, d in coords]
        self.coordinate_angle = np.array([d.coordinate == "angle" for _, _, d in coords], bool)
        self.coordinates = RowBatch(self.nb, joints, [(jn, JOINT_COORDINATES[d.coordinate]) for jn, _, d in coords])
        # columns of every term's Jacobian in C (a row's, term number = row number) and h (a loaded coordinate's):
        # body i's 7 from Jacobian column 0, body j's from column 7; the ground's none
        term_joint = np.repeat(np.arange(len(self.joints)), [len(JOINT_ROWS[e.type]) + len(e.driven)
                                                             for e in self.joints])
        loaded_joint = np.array([number[id(e)] for e, _ in self.loaded], dtype=np.int64)
        seven = np.arange(7)
        self.row_places, self.load_places = [], []  # per side: (terms, their columns (T, 7), Jacobian columns)
        for side in (0, 1):
            body_of = np.array([(e.i, e.j)[side] for e in self.joints], dtype=np.int64)
            for joint_of, places in ((term_joint, self.row_places), (loaded_joint, self.load_places)):
                body = body_of[joint_of] if len(joint_of) else np.zeros(0, dtype=np.int64)
                which = np.flatnonzero(body >= 0)
                places.append((which, 7 * body[which, None] + seven, slice(7 * side, 7 * side + 7)))
        self.loaded_spring = np.array([d.spring for _, d in self.loaded], float)
        self.loaded_damping = np.array([d.damping for _, d in self.loaded], float)
        self.loaded_free = np.array([d.free for _, d in self.loaded], float)
        self.loaded_angle = np.array([d.coordinate == "angle" for _, d in self.loaded], bool)
        self.loaded_terms = np.arange(self.m_joint_rows, self.m_joint_rows + len(self.loaded))
        self.norm_rows = self.m_joint_rows + np.arange(self.nb)
        self.norm_cols = 7 * np.arange(self.nb)[:, None] + np.arange(3, 7)
        # reactions: the side of the joint's body2 (body1 for a ground body2), its sign and the point from its com
        self.joint_first = np.array([e.first for e in self.joints], dtype=np.int64)
        on2 = np.array([e.j >= 0 for e in self.joints], bool)
        self.reaction_body = np.array([e.j if e.j >= 0 else e.i for e in self.joints], dtype=np.int64)
        self.reaction_side = np.where(on2, 1, 0)
        self.reaction_sign = np.where(on2, 1.0, -1.0)
        self.reaction_arm = np.array([np.asarray(e.point2 if e.j >= 0 else e.point1, float)[:3]
                                      - self.com[k] for e, k in zip(self.joints, self.reaction_body)]).reshape(-1, 3)
        self.body1 = np.array([e.i if e.i >= 0 else self.nb for e in self.joints], dtype=np.int64)

    def place_rows(self, jac: FloatArray, C: FloatArray) -> None:
        """Put the joint rows' Jacobians ``jac`` (m_joint_rows, 14) into C (m, n) at their bodies' columns (a row's
        two bodies' columns are disjoint: assignment)."""
        for rows, cols, part in self.row_places:
            C[rows[:, None], cols] = jac[rows, part]

    def add_loads(self, weighted: FloatArray, h: FloatArray) -> None:
        """Add the loaded coordinates' weighted Jacobians (L, 14) (tau x_q) into h (n,) at their bodies' columns."""
        for which, cols, part in self.load_places:
            np.add.at(h, cols, weighted[which, part])

    # --- constraints -------------------------------------------------------------------------------------------
    def phi(self, q: FloatArray, t: float) -> FloatArray:
        out = np.empty(self.m)
        mj = self.m_joint_rows
        out[:mj] = self.rows.scalars(q).value[:mj]
        if len(self.driver_rows):
            r = self.driver_rows
            x = out[r] - np.array([d.driver.value(t) for d in self.driver_list])
            out[r] = np.where(self.driver_angle, np.arctan2(np.sin(x), np.cos(x)), x)
        _, p = self.split(q)
        out[mj:] = 0.5 * (np.sum(p * p, 1) - 1.0)
        return out

    def constraint_matrix(self, q: FloatArray, t: float) -> FloatArray:
        C = np.zeros((self.m, self.n))
        self.place_rows(self.rows.scalars(q).jac[:self.m_joint_rows], C)
        _, p = self.split(q)
        C[self.norm_rows[:, None], self.norm_cols] = p
        return C

    def phi_q(self, q: FloatArray, t: float) -> FloatArray:
        return self.constraint_matrix(q, t)

    def xi(self, q: FloatArray, t: float) -> FloatArray:
        out = np.zeros(self.m)
        if len(self.driver_rows):
            out[self.driver_rows] = [-d.driver.rate(t) for d in self.driver_list]
        return out

    def phi_t(self, q: FloatArray, t: float) -> FloatArray:
        return self.xi(q, t)

    def gamma(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        out = np.empty(self.m)
        mj = self.m_joint_rows
        bias = self.rows.scalars(q, v).bias
        assert bias is not None
        out[:mj] = -bias[:mj]
        if len(self.driver_rows):
            out[self.driver_rows] += [d.driver.accel(t) for d in self.driver_list]
        _, pd = self.split(v)
        out[mj:] = -np.sum(pd * pd, 1)
        return out

    def eta(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        return -self.gamma(q, v, t)

    # --- joint loads -------------------------------------------------------------------------------------------
    def loaded_values(self, q: FloatArray, v: FloatArray | None) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(x - x0 (an angle wrapped to (-pi, pi]), x', x_q (L, 14)) of the loaded joint coordinates at (q, q')
        (x' zero without v)."""
        sc = self.rows.scalars(q, v)
        lt = self.loaded_terms
        x = sc.value[lt] - self.loaded_free
        stretch = np.where(self.loaded_angle, np.arctan2(np.sin(x), np.cos(x)), x)
        rate = sc.rate[lt] if sc.rate is not None else np.zeros(len(lt))
        return stretch, rate, sc.jac[lt]

    def loads_of(self, t: float) -> FloatArray:
        """The loads f(t) of the loaded joint coordinates [N m or N]."""
        return np.array([d.load.value(t) if d.load is not None else 0.0 for _, d in self.loaded], float)

    def forces(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        h = super().forces(q, v, t)
        if self.loaded:
            stretch, rate, jac = self.loaded_values(q, v)
            tau = -self.loaded_spring * stretch - self.loaded_damping * rate + self.loads_of(t)
            self.add_loads(tau[:, None] * jac, h)
        return h

    def potential_energy(self, q: FloatArray, t: float) -> float:
        e = self.gravity_potential(q)
        if self.loaded:
            stretch, _, _ = self.loaded_values(q, None)
            e += float(0.5 * self.loaded_spring @ (stretch * stretch))
        return e

    def nonconservative_power(self, q: FloatArray, v: FloatArray, t: float) -> float:
        P = self.load_power(q, v, t)
        if self.loaded:
            _, rate, _ = self.loaded_values(q, v)
            P += float((-self.loaded_damping * rate + self.loads_of(t)) @ rate)
        return P

    # --- results -----------------------------------------------------------------------------------------------
    def reactions(self, q: FloatArray, lam: FloatArray, t: float) -> dict[str, FloatArray]:
        """Force and moment each joint (its driver rows included) applies to its body2, world components, the
        moment about the joint point on body2 (module docstring). The unit-quaternion rows are not reported."""
        mj = self.m_joint_rows
        jac = self.rows.scalars(q).jac[:mj]
        gen = np.add.reduceat(jac * lam[:mj, None], self.joint_first, axis=0).reshape(-1, 2, 7)
        g = gen[np.arange(len(self.joints)), self.reaction_side] * self.reaction_sign[:, None]  # (J, 7)
        _, p = self.split(q)
        pk = p[self.reaction_body]
        force = g[:, :3]
        moment = np.einsum("kij,kj->ki", quat_E(pk), g[:, 3:]) / (2 * np.sum(pk * pk, 1))[:, None]
        arm = np.einsum("kij,kj->ki", quat_to_matrix(pk), self.reaction_arm)
        both = np.concatenate([force, moment - cross_rows(arm, force)], 1)
        return {e.name: both[k] for k, e in enumerate(self.joints)}

    def contact_columns(self, q: FloatArray, reactions: FloatArray) -> dict[str, FloatArray]:
        """Extra result columns for frames q (F, n) and reactions (F, n_constraints, 6): each joint's reaction in
        body1's frame (``reaction.<name>.Fx_body1`` ... ``Mz_body1``) and its joint coordinates
        (``joint.<name>.angle`` [rad], unwrapped along the frames; ``joint.<name>.slide`` [m])."""
        q = np.atleast_2d(q)
        nj = len(self.joints)
        p1 = self.rows.states(q)[:, self.body1, 3:]  # (F, J, 4), the ground's (1, 0, 0, 0)
        R1 = quat_to_matrix(p1.reshape(-1, 4)).reshape(len(q), nj, 3, 3)
        body1 = np.einsum("fjki,fjkc->fjic", R1, reactions[:, :nj, :].reshape(len(q), nj, 2, 3).swapaxes(2, 3))
        cols: dict[str, FloatArray] = {}
        for c_idx, e in enumerate(self.joints):
            for a, comp in enumerate(("Fx", "Fy", "Fz")):
                cols[f"reaction.{e.name}.{comp}_body1"] = body1[:, c_idx, a, 0]
            for a, comp in enumerate(("Mx", "My", "Mz")):
                cols[f"reaction.{e.name}.{comp}_body1"] = body1[:, c_idx, a, 1]
        for name, values in self.joint_coordinates(q).items():
            cols[f"joint.{name}"] = values
        return cols

    def joint_coordinates(self, q: FloatArray, v: FloatArray | None = None) -> dict[str, FloatArray]:
        """``<joint>.angle`` [rad] (unwrapped along the frames) and ``<joint>.slide`` [m] of every hinge, slider and
        cylindrical joint over frames q (F, n); with rates v (F, n) also ``<joint>.angle_rate`` [rad/s] and
        ``<joint>.slide_rate`` [m/s]."""
        q = np.atleast_2d(q)
        values, rates = self.coordinates.values(q, None if v is None else np.atleast_2d(v))
        out: dict[str, FloatArray] = {}
        for k, name in enumerate(self.coordinate_names):
            out[name] = np.unwrap(values[:, k]) if self.coordinate_angle[k] else values[:, k]
            if rates is not None:
                out[f"{name}_rate"] = rates[:, k]
        return out

    # --- initial state -----------------------------------------------------------------------------------------
    def initial_poses(self) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """(centres of mass, quaternions, centre velocities, world angular velocities) of the file's rough
        initial poses: ``initial.x, y, z`` the body-frame origin [m], ``quaternion`` or 3-1-3 Euler angles
        ``psi, theta, phi`` [rad], ``velocity`` of the centre of mass [m/s], ``omega`` [rad/s] (world)."""
        pq, w = self.initial_orientations()
        A = quat_to_matrix(pq)
        r = np.zeros((self.nb, 3))
        rd = np.zeros((self.nb, 3))
        for k, b in enumerate(self.entities.bodies):
            init = b.initial
            r[k] = np.array([float(init.get(a, 0.0)) for a in ("x", "y", "z")]) + A[k] @ self.com[k]
            rd[k] = np.asarray(init.get("velocity", [0.0, 0.0, 0.0]), float)
        return r, pq, rd, w

    def initial_guess(self) -> FloatArray:
        r, pq, _, _ = self.initial_poses()
        return np.concatenate([r, pq], 1).ravel()

    def initial_velocity_specs(self) -> list[tuple[int, float]]:
        """Every coordinate's rate from the file's ``velocity`` and ``omega`` (p' = E(p)^T omega / 2), fitted
        onto the velocity constraints by the run's initial state."""
        _, pq, rd, w = self.initial_poses()
        pd = 0.5 * np.einsum("kji,kj->ki", quat_E(pq), w)
        v = np.concatenate([rd, pd], 1).ravel()
        return [(i, float(x)) for i, x in enumerate(v)]

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(kind="spatial_joints", bodies=self.nb, joints=len(self.joints),
                 coordinates="x y z q0 q1 q2 q3 per body")
        return d


__all__ = ["JOINT_TYPES", "NEW_JOINT_TYPES", "AxisDrive", "JointEntry", "MaximalJointSystem"]
