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

The ground is fixed (a moving ground is refused by the loader for these joints). Cost: dense matrices of size 7n
and a Python loop over the joints per evaluation (meant for models of tens of bodies).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mechstudio.core.elements import element_type
from mechstudio.core.elements.primitives.spatial_rows import (GROUND_STATE, JOINT_COORDINATES, JOINT_ROWS, BodyState,
                                                              JointGeometry, Pair, ROW_EQUATIONS, Scalar, wrap)
from mechstudio.core.model.document import GROUND, Model
from mechstudio.core.numerics.orientation import Euler313, matrix_to_quat, quat_E, quat_to_matrix
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

    def body_number(self, name: str) -> int:
        """Index of body ``name`` in file order, -1 for the ground."""
        return -1 if name == GROUND else self.index[name]

    @property
    def rheonomic(self) -> bool:
        return self._rheonomic

    # --- the joints' scalars -----------------------------------------------------------------------------------
    def body_state(self, k: int, q: FloatArray, v: FloatArray | None) -> BodyState:
        if k < 0:
            return GROUND_STATE
        x = q[7 * k:7 * k + 7]
        xd = np.zeros(7) if v is None else v[7 * k:7 * k + 7]
        return BodyState(x[:3], x[3:], xd[:3], xd[3:], True)

    def pair(self, e: JointEntry, q: FloatArray, v: FloatArray | None) -> Pair:
        return Pair(e.geo, self.body_state(e.i, q, v), self.body_state(e.j, q, v))

    def joint_scalars(self, q: FloatArray, v: FloatArray | None, t: float
                      ) -> list[tuple[JointEntry, list[Scalar], list[tuple[AxisDrive, Scalar]]]]:
        """Per joint: the scalars of its own rows and of its driven coordinates (driver rows: (drive, x))."""
        out = []
        for e in self.joints:
            P = self.pair(e, q, v)
            own = [ROW_EQUATIONS[c](P) for c in JOINT_ROWS[e.type]]
            out.append((e, own, [(d, JOINT_COORDINATES[d.coordinate](P)) for d in e.driven]))
        return out

    def scatter(self, e: JointEntry, jac: FloatArray, out: FloatArray) -> None:
        """Add a pair's Jacobian row(s) (..., 14) into ``out`` (..., n) at the joint's bodies' columns."""
        if e.i >= 0:
            out[..., 7 * e.i:7 * e.i + 7] += jac[..., :7]
        if e.j >= 0:
            out[..., 7 * e.j:7 * e.j + 7] += jac[..., 7:]

    # --- constraints -------------------------------------------------------------------------------------------
    def phi(self, q: FloatArray, t: float) -> FloatArray:
        out = np.empty(self.m)
        for e, own, driven in self.joint_scalars(q, None, t):
            vals = [s.value for s in own]
            for d, x in driven:
                f = d.driver.value(t)
                vals.append(wrap(x.value - f) if d.coordinate == "angle" else x.value - f)
            out[e.first:e.first + len(vals)] = vals
        _, p = self.split(q)
        out[self.m_joint_rows:] = 0.5 * (np.sum(p * p, 1) - 1.0)
        return out

    def constraint_matrix(self, q: FloatArray, t: float) -> FloatArray:
        C = np.zeros((self.m, self.n))
        for e, own, driven in self.joint_scalars(q, None, t):
            rows = np.array([s.jac for s in own] + [x.jac for _, x in driven])
            self.scatter(e, rows, C[e.first:e.first + len(rows)])
        _, p = self.split(q)
        for k in range(self.nb):
            C[self.m_joint_rows + k, 7 * k + 3:7 * k + 7] = p[k]
        return C

    def phi_q(self, q: FloatArray, t: float) -> FloatArray:
        return self.constraint_matrix(q, t)

    def xi(self, q: FloatArray, t: float) -> FloatArray:
        out = np.zeros(self.m)
        for e in self.joints:
            for k, d in enumerate(e.driven):
                out[e.first + len(JOINT_ROWS[e.type]) + k] = -d.driver.rate(t)
        return out

    def phi_t(self, q: FloatArray, t: float) -> FloatArray:
        return self.xi(q, t)

    def gamma(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        out = np.empty(self.m)
        for e, own, driven in self.joint_scalars(q, v, t):
            vals = [-s.bias for s in own] + [d.driver.accel(t) - x.bias for d, x in driven]
            out[e.first:e.first + len(vals)] = vals
        _, pd = self.split(v)
        out[self.m_joint_rows:] = -np.sum(pd * pd, 1)
        return out

    def eta(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        return -self.gamma(q, v, t)

    # --- joint loads -------------------------------------------------------------------------------------------
    def axis_values(self, q: FloatArray, v: FloatArray | None) -> list[tuple[JointEntry, AxisDrive, Scalar]]:
        """The loaded joint coordinates (joint, drive, coordinate scalar) at (q, q')."""
        return [(e, d, JOINT_COORDINATES[d.coordinate](self.pair(e, q, v))) for e, d in self.loaded]

    @staticmethod
    def stretch(d: AxisDrive, x: Scalar) -> float:
        """x - x0 of a spring (an angle wrapped to (-pi, pi])."""
        return wrap(x.value - d.free) if d.coordinate == "angle" else x.value - d.free

    def forces(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        h = super().forces(q, v, t)
        for e, d, x in self.axis_values(q, v):
            tau = -d.spring * self.stretch(d, x) - d.damping * x.rate + (d.load.value(t) if d.load is not None
                                                                         else 0.0)
            self.scatter(e, tau * x.jac, h)
        return h

    def potential_energy(self, q: FloatArray, t: float) -> float:
        e = self.gravity_potential(q)
        for _, d, x in self.axis_values(q, None):
            if d.spring:
                e += 0.5 * d.spring * self.stretch(d, x) ** 2
        return e

    def nonconservative_power(self, q: FloatArray, v: FloatArray, t: float) -> float:
        P = self.load_power(q, v, t)
        for _, d, x in self.axis_values(q, v):
            P += (-d.damping * x.rate + (d.load.value(t) if d.load is not None else 0.0)) * x.rate
        return P

    # --- results -----------------------------------------------------------------------------------------------
    def reactions(self, q: FloatArray, lam: FloatArray, t: float) -> dict[str, FloatArray]:
        """Force and moment each joint (its driver rows included) applies to its body2, world components, the
        moment about the joint point on body2 (module docstring). The unit-quaternion rows are not reported."""
        C = self.constraint_matrix(q, t)
        _, p = self.split(q)
        out: dict[str, FloatArray] = {}
        for e, c in zip(self.joints, self.constraints):
            rows = list(c.rows)
            gen = C[rows].T @ lam[rows]
            k, point, sign = e.j, e.point2, 1.0
            if k < 0:
                k, point, sign = e.i, e.point1, -1.0
            g = gen[7 * k:7 * k + 7] * sign
            force = g[:3]
            pk = p[k]
            moment = quat_E(pk[None])[0] @ g[3:] / (2 * pk @ pk)
            arm = quat_to_matrix(pk[None])[0] @ (np.asarray(point, float)[:3] - self.com[k])
            out[e.name] = np.concatenate([force, moment - np.cross(arm, force)])
        return out

    def body1_rotations(self, q: FloatArray, e: JointEntry) -> FloatArray:
        """A_1 (F, 3, 3) of the joint's body1 over frames q (F, n) (the identity for the ground)."""
        if e.i < 0:
            return np.broadcast_to(np.eye(3), (len(q), 3, 3))
        return quat_to_matrix(q[:, 7 * e.i + 3:7 * e.i + 7])

    def contact_columns(self, q: FloatArray, reactions: FloatArray) -> dict[str, FloatArray]:
        """Extra result columns for frames q (F, n) and reactions (F, n_constraints, 6): each joint's reaction in
        body1's frame (``reaction.<name>.Fx_body1`` ... ``Mz_body1``) and its joint coordinates
        (``joint.<name>.angle`` [rad], unwrapped along the frames; ``joint.<name>.slide`` [m])."""
        q = np.atleast_2d(q)
        cols: dict[str, FloatArray] = {}
        for c_idx, e in enumerate(self.joints):
            R1 = self.body1_rotations(q, e)
            F = np.einsum("fji,fj->fi", R1, reactions[:, c_idx, :3])
            M = np.einsum("fji,fj->fi", R1, reactions[:, c_idx, 3:])
            for a, comp in enumerate(("Fx", "Fy", "Fz")):
                cols[f"reaction.{e.name}.{comp}_body1"] = F[:, a]
            for a, comp in enumerate(("Mx", "My", "Mz")):
                cols[f"reaction.{e.name}.{comp}_body1"] = M[:, a]
        for name, values in self.joint_coordinates(q).items():
            cols[f"joint.{name}"] = values
        return cols

    def joint_coordinates(self, q: FloatArray, v: FloatArray | None = None) -> dict[str, FloatArray]:
        """``<joint>.angle`` [rad] (unwrapped along the frames) and ``<joint>.slide`` [m] of every hinge, slider and
        cylindrical joint over frames q (F, n); with rates v (F, n) also ``<joint>.angle_rate`` [rad/s] and
        ``<joint>.slide_rate`` [m/s]."""
        q = np.atleast_2d(q)
        vv = None if v is None else np.atleast_2d(v)
        out: dict[str, FloatArray] = {}
        for e in self.joints:
            for d in e.drives:
                xs = [JOINT_COORDINATES[d.coordinate](self.pair(e, q[f], None if vv is None else vv[f]))
                      for f in range(len(q))]
                vals = np.array([x.value for x in xs])
                out[f"{e.name}.{d.coordinate}"] = np.unwrap(vals) if d.coordinate == "angle" else vals
                if vv is not None:
                    out[f"{e.name}.{d.coordinate}_rate"] = np.array([x.rate for x in xs])
        return out

    # --- initial state -----------------------------------------------------------------------------------------
    def initial_poses(self) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """(centres of mass, quaternions, centre velocities, world angular velocities) of the file's rough
        initial poses: ``initial.x, y, z`` the body-frame origin [m], ``quaternion`` or 3-1-3 Euler angles
        ``psi, theta, phi`` [rad], ``velocity`` of the centre of mass [m/s], ``omega`` [rad/s] (world)."""
        r = np.zeros((self.nb, 3))
        pq = np.zeros((self.nb, 4))
        rd = np.zeros((self.nb, 3))
        w = np.zeros((self.nb, 3))
        for k, b in enumerate(self.entities.bodies):
            init = b.initial
            if "quaternion" in init:
                qq = np.asarray(init["quaternion"], float)
                pq[k] = qq / np.linalg.norm(qq)
            else:
                ang = np.array([[float(init.get(a, 0.0)) for a in ("psi", "theta", "phi")]])
                pq[k] = matrix_to_quat(Euler313().to_matrix(ang))[0]
            A = quat_to_matrix(pq[k:k + 1])[0]
            r[k] = np.array([float(init.get(a, 0.0)) for a in ("x", "y", "z")]) + A @ self.com[k]
            rd[k] = np.asarray(init.get("velocity", [0.0, 0.0, 0.0]), float)
            w[k] = np.asarray(init.get("omega", [0.0, 0.0, 0.0]), float)
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
