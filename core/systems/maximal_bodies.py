"""Spatial rigid bodies in maximal coordinates: the body dynamics the maximal-coordinate systems share.

Coordinates, 7 per body (file order): q[7k:7k+7] = (x, y, z, q0, q1, q2, q3), the centre of mass r [m] in world
components and the Euler parameters p (scalar first) of the body -> world rotation A(p). The dynamics come from
the Lagrangian L = T - V (derived in :mod:`mechstudio.core.systems.tree_maximal`'s docstring and checked against
finite differences of L in tests/test_tree_maximal.py and tests/test_spatial_joints.py):

    T = sum_k 1/2 m |r'|^2 + 1/2 w^T J w + 2 alpha (p.p')^2,    w = 2 G(p) p'  (body-frame angular velocity)

    M = diag(m E, 4 G^T J G + 4 alpha p p^T),   h_r = F,   h_p = 2 E(p)^T n - 4 G(p')^T J w - 4 alpha |p'|^2 p

with F, n the applied force and the moment about the centre of mass (world components): gravity,
``applied_force`` at a body point and ``applied_torque``. The joints and their loads are the subclasses' own:
:class:`~mechstudio.core.systems.tree_maximal.TreeMaximalSystem` (spherical-joint trees) and
:class:`~mechstudio.core.systems.maximal_joints.MaximalJointSystem` (any graph of spatial joints).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from mechstudio.core.model.document import GROUND
from mechstudio.core.numerics.orientation import Euler313, cross3, matrix_to_quat, quat_E, quat_G, quat_to_matrix
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.types import FloatArray

COORDS = ("x", "y", "z", "q0", "q1", "q2", "q3")
_EYE3 = np.eye(3)
#: E(p) = (p @ QUAT_E_FORM).reshape(3, 4) and G(p) likewise: E and G are linear in p (quat_E, quat_G)
QUAT_E_FORM = quat_E(np.eye(4)).reshape(4, 12)
QUAT_G_FORM = quat_G(np.eye(4)).reshape(4, 12)


def quat_E_of(p: FloatArray) -> FloatArray:
    """E(p) (n, 3, 4) of quaternions (n, 4) by one product (quat_E builds it entry by entry)."""
    return (p @ QUAT_E_FORM).reshape(-1, 3, 4)


def quat_G_of(p: FloatArray) -> FloatArray:
    """G(p) (n, 3, 4) of quaternions (n, 4) by one product."""
    return (p @ QUAT_G_FORM).reshape(-1, 3, 4)


class MaximalBodies(ConstrainedSystem):
    """Rigid bodies in maximal coordinates (module docstring): M, h of the bodies and their applied loads,
    kinetic and gravity energies, poses. Subclasses call :meth:`setup_bodies` and add their constraints."""

    nb: int
    entities: Any

    def setup_bodies(self, ent: Any, mass: FloatArray, J: FloatArray, com: FloatArray) -> None:
        """Body data in file order: masses [kg], central inertia tensors (nb, 3, 3) [kg m^2] in body axes and
        the centres of mass (nb, 3) [m] in the body frames; the applied loads of ``ent.forces``."""
        self.entities = ent
        names = [b.name for b in ent.bodies]
        nb = self.nb = len(names)
        self.body_names = names
        self.index = {nm: k for k, nm in enumerate(names)}
        self.n = 7 * nb
        self.coord_names = [f"{b}.{c}" for b in names for c in COORDS]
        self.mass = np.asarray(mass, float)
        self.Jb = np.asarray(J, float)
        self.alpha = np.trace(self.Jb, axis1=1, axis2=2) / 3.0
        self.com = np.asarray(com, float).reshape(nb, 3)
        self.gravity = np.array(ent.gravity[:3], float)
        self.loads: list[tuple[int, FloatArray, Any]] = []
        self.torques: list[tuple[int, Any]] = []
        for f in ent.forces:
            if f.type == "applied_force":
                k = self.index[f.body]
                self.loads.append((k, np.asarray(f.point, float)[:3] - self.com[k], f.force))
            elif f.type == "applied_torque":
                comps = f.torque if len(f.torque) == 3 else (None, None, f.torque[0])
                self.torques.append((self.index[f.body], comps))

    # --- state ------------------------------------------------------------------------------------------------
    def split(self, q: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(centres of mass (nb, 3), Euler parameters (nb, 4)) of q (views)."""
        Q = q.reshape(self.nb, 7)
        return Q[:, :3], Q[:, 3:]

    def omegas(self, q: FloatArray, v: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(world, body) angular velocities (n, 3) of the coordinates and rates: 2 E(p) p', 2 G(p) p'."""
        _, p = self.split(q)
        _, pd = self.split(v)
        pd = pd[:, :, None]
        return 2 * (quat_E_of(p) @ pd)[:, :, 0], 2 * (quat_G_of(p) @ pd)[:, :, 0]

    # --- loads ------------------------------------------------------------------------------------------------
    def body_loads(self, A: FloatArray, w: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        """(F, n) (nb, 3) each: gravity and the applied forces and torques on every body, force and moment about
        the centre of mass, world components."""
        F = self.mass[:, None] * self.gravity[None, :]
        n = np.zeros((self.nb, 3))
        for k, s, comps in self.loads:
            f = np.array([c.value(t) for c in comps])
            F[k] += f
            n[k] += cross3(A[k] @ s, f)
        for k, comps in self.torques:
            n[k] += np.array([0.0 if c is None else c.value(t) for c in comps])
        return F, n

    def total_loads(self, A: FloatArray, p: FloatArray, w: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        """(F, n) acting on every body (default :meth:`body_loads`; a subclass adds the moments of its joints)."""
        return self.body_loads(A, w, t)

    def load_power(self, q: FloatArray, v: FloatArray, t: float) -> float:
        """Power [W] of the applied forces and torques (gravity excluded: it is in the potential)."""
        if not self.loads and not self.torques:
            return 0.0
        _, p = self.split(q)
        rd, _ = self.split(v)
        A = quat_to_matrix(p)
        w, _ = self.omegas(q, v)
        P = 0.0
        for k, s, comps in self.loads:
            f = np.array([c.value(t) for c in comps])
            P += float(f @ (rd[k] + cross3(w[k], A[k] @ s)))
        for k, comps in self.torques:
            P += float(np.array([0.0 if c is None else c.value(t) for c in comps]) @ w[k])
        return P

    # --- dynamics ---------------------------------------------------------------------------------------------
    def mass_matrix(self, q: FloatArray, t: float) -> FloatArray:
        _, p = self.split(q)
        G = quat_G_of(p)
        Mpp = 4 * np.swapaxes(G, 1, 2) @ self.Jb @ G + 4 * self.alpha[:, None, None] * p[:, :, None] * p[:, None, :]
        M = np.zeros((self.n, self.n))
        blocks = M.reshape(self.nb, 7, self.nb, 7)  # a view: blocks[k, :, k, :] is body k's diagonal block
        k = np.arange(self.nb)
        blocks[k, :3, k, :3] = self.mass[:, None, None] * _EYE3
        blocks[k, 3:, k, 3:] = Mpp
        return M

    def forces(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        _, p = self.split(q)
        _, pd = self.split(v)
        A = quat_to_matrix(p)
        E = quat_E_of(p)
        wb = 2 * (quat_G_of(p) @ pd[:, :, None])  # (nb, 3, 1)
        F, n = self.total_loads(A, p, 2 * (E @ pd[:, :, None])[:, :, 0], t)
        hp = (2 * (E.swapaxes(1, 2) @ n[:, :, None]) - 4 * (quat_G_of(pd).swapaxes(1, 2) @ (self.Jb @ wb)))[:, :, 0]
        out = np.empty((self.nb, 7))
        out[:, :3] = F
        out[:, 3:] = hp - 4 * (self.alpha * np.sum(pd * pd, 1))[:, None] * p
        return out.ravel()

    # --- energy -----------------------------------------------------------------------------------------------
    def kinetic_energy(self, q: FloatArray, v: FloatArray, t: float) -> float:
        rd, _ = self.split(v)
        _, wb = self.omegas(q, v)
        return float(0.5 * self.mass @ np.sum(rd * rd, 1) + 0.5 * np.sum(wb * (self.Jb @ wb[:, :, None])[:, :, 0]))

    def gravity_potential(self, q: FloatArray) -> float:
        """-sum m g . r [J]."""
        r, _ = self.split(q)
        return -float(self.mass @ (r @ self.gravity))

    # --- initial poses ----------------------------------------------------------------------------------------
    def initial_orientations(self) -> tuple[FloatArray, FloatArray]:
        """(quaternions (n, 4), world angular velocities (n, 3)) of the file's initial poses.

        ``initial.quaternion`` = (q0, q1, q2, q3) of the body -> world rotation, or Euler angles 3-1-3
        ``psi``, ``theta``, ``phi`` (A = R3(psi) R1(theta) R3(phi)); ``omega`` in world components."""
        pq = np.zeros((self.nb, 4))
        w = np.zeros((self.nb, 3))
        for k, b in enumerate(self.entities.bodies):
            init = b.initial
            if "quaternion" in init:
                qq = np.asarray(init["quaternion"], float)
                pq[k] = qq / np.linalg.norm(qq)
            else:
                ang = np.array([[float(init.get("psi", 0.0)), float(init.get("theta", 0.0)),
                                 float(init.get("phi", 0.0))]])
                pq[k] = matrix_to_quat(Euler313().to_matrix(ang))[0]
            w[k] = np.asarray(init.get("omega", [0.0, 0.0, 0.0]), float)
        return pq, w

    # --- poses ------------------------------------------------------------------------------------------------
    def body_frame_pose(self, q: FloatArray, body: str) -> tuple[FloatArray, FloatArray]:
        """(origin of the body frame, rotation matrix body -> world)."""
        k = self.index[body]
        r, p = self.split(q)
        A = quat_to_matrix(p[k:k + 1])[0]
        return r[k] - A @ self.com[k], A

    def ground_point(self, point: FloatArray, t: float) -> FloatArray:
        """World position of a ground point (a fixed ground: the point itself)."""
        return np.asarray(point, float)[:3]

    def point_position(self, q: FloatArray, body: str, point: tuple[float, ...]) -> FloatArray:
        if body == GROUND:
            return self.ground_point(np.asarray(point, float)[:3], 0.0)
        k = self.index[body]
        r, p = self.split(q)
        return r[k] + quat_to_matrix(p[k:k + 1])[0] @ (np.asarray(point, float)[:3] - self.com[k])


__all__ = ["COORDS", "QUAT_E_FORM", "QUAT_G_FORM", "MaximalBodies", "quat_E_of", "quat_G_of"]
