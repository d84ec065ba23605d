"""A spherical-joint tree in maximal coordinates: the cross-check :class:`ConstrainedSystem` of Wittenburg's formulation.

Coordinates, 7 per body (file order): q[7k:7k+7] = (x, y, z, q0, q1, q2, q3), the centre of mass r [m] in world
components and the Euler parameters p (scalar first) of the body -> world rotation A. Constraints (all holonomic):

* spherical joint between parent P (or body 0) and child K, 3 rows, the joint points coincide:
      Phi = r_P + A(p_P) c_P - r_K - A(p_K) c_K = 0        (body 0: r0(t) + A0(t) c_0 instead of r_P + A c_P)
  with A(p) = (p0^2 - v.v) E + 2 v v^T + 2 p0 v~ (v = (p1, p2, p3)), a quadratic form of p, so that
  d(A c)/dp0 = 2 (p0 c + v x c), d(A c)/dv = 2 ((v.c) E + v c^T - c v^T - p0 c~) and
  gamma = -2 A(p'_P) c_P + 2 A(p'_K) c_K - (base point acceleration);
* one row per body, the norm of the Euler parameters: (p.p - 1)/2 = 0, row p^T, gamma = -p'.p'.

Dynamics from the Lagrangian L = T - V (derived here and checked against finite differences of L in
tests/test_tree_maximal.py; implemented once for every maximal-coordinate system in
:class:`mechstudio.core.systems.maximal_bodies.MaximalBodies`):

    T = sum_k 1/2 m |r'|^2 + 1/2 w^T J w + 2 alpha (p.p')^2,    w = 2 G(p) p'  (body-frame angular velocity)

G(p) = [[-p1, p0, p3, -p2], [-p2, -p3, p0, p1], [-p3, p2, -p1, p0]]. The last term vanishes on the constraint
manifold (p.p' = 0) and only makes M regular (alpha = trace(J)/3): M = diag(m E, 4 G^T J G + 4 alpha p p^T).
With G(p) p' = -G(p') p and w' = 2 G(p) p'' (since G(p') p' = 0), Lagrange's equations give

    h_r = F,    h_p = 2 E(p)^T n - 4 G(p')^T J w - 4 alpha |p'|^2 p

where F, n are the applied force and moment about the centre of mass (world components; the virtual rotation
is 2 E(p) dp). Applied loads: gravity, applied_force at a body point, applied_torque, and the joint moment
Y = -k phi - c (w_K - w_P) + torque(t) that a spherical joint's spring/damper/torque applies to the child
(-Y to the parent), phi = the rotation vector of A_P^T A_K in world components (potential k |phi|^2 / 2, zero
when the two body frames are aligned). Cost: O(n) per evaluation of M, h, C (dense matrices of size 7n).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from mechstudio.core.model.document import GROUND, Model
from mechstudio.core.systems.base import ConstraintInfo
from mechstudio.core.systems.base_motion import BaseMotion
from mechstudio.core.systems.maximal_bodies import COORDS, MaximalBodies
from mechstudio.core.numerics.orientation import (matrix_to_quat, quat_conj, quat_E, quat_mul, quat_to_matrix,
                                   rotation_vector)
from mechstudio.core.model.tree_topology import TreeData, build_tree
from mechstudio.core.types import FloatArray


def _quad(p: FloatArray, c: FloatArray) -> FloatArray:
    """A(p) c with the quadratic (unnormalised) A(p), batched (k, 4), (k, 3) -> (k, 3)."""
    w, v = p[:, :1], p[:, 1:]
    return ((w * w - np.sum(v * v, 1, keepdims=True)) * c + 2 * np.sum(v * c, 1, keepdims=True) * v
            + 2 * w * np.cross(v, c))


def _dquad(p: FloatArray, c: FloatArray) -> FloatArray:
    """d(A(p) c)/dp, (k, 3, 4)."""
    w, v = p[:, 0], p[:, 1:]
    out = np.empty((p.shape[0], 3, 4))
    out[:, :, 0] = 2 * (w[:, None] * c + np.cross(v, c))
    vc = np.sum(v * c, 1)
    cs = np.zeros((p.shape[0], 3, 3))
    cs[:, 0, 1], cs[:, 0, 2], cs[:, 1, 2] = -c[:, 2], c[:, 1], -c[:, 0]
    cs[:, 1, 0], cs[:, 2, 0], cs[:, 2, 1] = c[:, 2], -c[:, 1], c[:, 0]
    out[:, :, 1:] = 2 * (vc[:, None, None] * np.eye(3) + v[:, :, None] * c[:, None, :]
                         - c[:, :, None] * v[:, None, :] - w[:, None, None] * cs)
    return out


class TreeKinematics:
    """Positions, velocities, accelerations of the centres of mass from orientations and angular velocities.

    r_k = P_root(t) - sum_{i <= k} d_ik  ([004], eq. (20)): with g_k = P(t) for root-level bodies and
    g_k = -A_parent e_k otherwise, the inboard joint points are J = T^T g and r = J - A c_in. Cost O(n^2)
    (the product with the path matrix), O(n) with the tree recursion for large n.
    """

    def __init__(self, tree: TreeData, base: BaseMotion):
        self.tree, self.base = tree, base
        self.nonroot = tree.parent >= 0
        self.par = np.where(self.nonroot, tree.parent, 0)
        self.Tt = np.ascontiguousarray(tree.T.T)

    def points(self, A: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(c_in, e) in world components for orientations A (n, 3, 3)."""
        tr = self.tree
        cin = np.einsum("kij,kj->ki", A, tr.c_in)
        e = np.einsum("kij,kj->ki", A[self.par], tr.e)
        e[~self.nonroot] = 0.0
        return cin, e

    def state(self, A: FloatArray, w: FloatArray, t: float, wd: FloatArray | None = None
              ) -> tuple[FloatArray, ...]:
        """r, r' (and r'' if wd is given), each (n, 3)."""
        tr = self.tree
        cin, e = self.points(A)
        roots = ~self.nonroot
        P, Pd, Pdd = self.base.point(tr.c_out[roots], t)
        g = -e
        g[roots] = P
        r = self.Tt @ g - cin
        wp = w[self.par]
        gd = -np.cross(wp, e)
        gd[roots] = Pd
        ve = np.cross(w, cin)
        rd = self.Tt @ gd - ve
        if wd is None:
            return r, rd
        gdd = -(np.cross(wd[self.par], e) + np.cross(wp, -gd))
        gdd[roots] = Pdd
        rdd = self.Tt @ gdd - (np.cross(wd, cin) + np.cross(w, ve))
        return r, rd, rdd


class TreeMaximalSystem(MaximalBodies):
    """A spherical-joint tree in maximal coordinates (see the module docstring); the body dynamics are
    :class:`~mechstudio.core.systems.maximal_bodies.MaximalBodies`'."""

    def __init__(self, model: Model):
        ent = model.entities
        self.model = model
        self.tree = tree = build_tree(ent)
        self.setup_bodies(ent, tree.mass, tree.J, tree.com)
        self.base = BaseMotion(ent.ground_motion)
        self.kin = TreeKinematics(tree, self.base)
        nb = self.nb
        # constraints: joints in file order (3 rows each), then the quaternion norms
        joints = [j for j in ent.joints if j.type == "spherical"]
        self.joint_child = np.array([int(np.flatnonzero(tree.joint_index == j.index)[0]) for j in joints], int)
        infos = []
        for a, j in enumerate(joints):
            infos.append(ConstraintInfo(j.name, "spherical", (3 * a, 3 * a + 1, 3 * a + 2), ("x", "y", "z"),
                                        True, j.body1, j.body2))
        for k, nm in enumerate(tree.names):
            infos.append(ConstraintInfo(f"{nm}.unit_quaternion", "quaternion_norm", (3 * nb + k,), ("norm",),
                                        True, nm, nm))
        self.constraints = infos
        self.m_holonomic = 4 * nb
        self.m_nonholonomic = 0
        # row/column index arrays of the joint blocks, in tree numbering (row block of child k)
        kc = self.joint_child
        self.row_of_child = np.empty((nb, 3), int)
        self.row_of_child[kc] = 3 * np.arange(nb)[:, None] + np.arange(3)[None, :]
        self.nonroot = tree.parent >= 0
        self.par = np.where(self.nonroot, tree.parent, 0)
        # joint moments: spring, damping, torque functions (tree orientation: moment on the child)
        jl = {j.index: j for j in joints}
        self.spring = np.array([jl[tree.joint_index[k]].spring for k in range(nb)])
        self.damping = np.array([jl[tree.joint_index[k]].damping for k in range(nb)])
        self.torque_fns = [(k, jl[tree.joint_index[k]].torque, tree.flipped[k]) for k in range(nb)
                           if jl[tree.joint_index[k]].torque]
        self.has_joint_moments = bool(np.any(self.spring) or np.any(self.damping) or self.torque_fns)

    # ------------------------------------------------------------------------------------------------------
    @property
    def rheonomic(self) -> bool:
        return self.base.moving

    def base_quaternion(self, t: float) -> FloatArray:
        return matrix_to_quat(self.base.A(t)[None])[0]

    # --- loads --------------------------------------------------------------------------------------------
    def joint_moments(self, A: FloatArray, pq: FloatArray, w: FloatArray, t: float) -> FloatArray:
        """Y_k (n, 3): moment joint k applies to its child k (world components); -Y_k acts on the parent."""
        nb = self.nb
        Y = np.zeros((nb, 3))
        if not self.has_joint_moments:
            return Y
        roots = ~self.nonroot
        pp = pq[self.par].copy()
        wp = w[self.par].copy()
        if np.any(roots):
            pp[roots] = self.base_quaternion(t)
            wp[roots] = self.base.w(t)
        Ap = quat_to_matrix(pp)
        if np.any(self.spring):
            rel = quat_mul(quat_conj(pp), pq)
            phi = np.einsum("kij,kj->ki", Ap, rotation_vector(rel))
            Y -= self.spring[:, None] * phi
        if np.any(self.damping):
            Y -= self.damping[:, None] * (w - wp)
        for k, fns, sign in self.torque_fns:
            Y[k] += sign * np.array([f.value(t) for f in fns])
        return Y

    def applied(self, A: FloatArray, pq: FloatArray, w: FloatArray, t: float
                ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(F, n, Y): applied force and moment about the centre of mass on each body (world), joint moments."""
        F, n = self.body_loads(A, w, t)
        Y = self.joint_moments(A, pq, w, t)
        if self.has_joint_moments:
            n += Y
            np.add.at(n, self.par[self.nonroot], -Y[self.nonroot])
        return F, n, Y

    def total_loads(self, A: FloatArray, p: FloatArray, w: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        F, n, _ = self.applied(A, p, w, t)
        return F, n

    # --- constraints --------------------------------------------------------------------------------------
    def _joint_points(self, q: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        """(parent-side point, child-side point) of every joint in tree numbering, (n, 3) each."""
        tr = self.tree
        r, p = self.split(q)
        child = r + _quad(p, tr.c_in)
        par = r[self.par] + _quad(p[self.par], tr.c_out)
        roots = ~self.nonroot
        if np.any(roots):
            par[roots] = self.base.point(tr.c_out[roots], t)[0]
        return par, child

    def phi(self, q: FloatArray, t: float) -> FloatArray:
        par, child = self._joint_points(q, t)
        out = np.empty(self.m)
        out[self.row_of_child.ravel()] = (par - child).ravel()
        _, p = self.split(q)
        out[3 * self.nb:] = 0.5 * (np.sum(p * p, 1) - 1.0)
        return out

    def phi_q(self, q: FloatArray, t: float) -> FloatArray:
        return self.constraint_matrix(q, t)

    def constraint_matrix(self, q: FloatArray, t: float) -> FloatArray:
        tr, nb = self.tree, self.nb
        _, p = self.split(q)
        C = np.zeros((self.m, self.n))
        Dc = _dquad(p, tr.c_in)
        Dp = _dquad(p[self.par], tr.c_out)
        eye = np.eye(3)
        for k in range(nb):
            rows = self.row_of_child[k]
            C[rows, 7 * k:7 * k + 3] = -eye
            C[rows[0]:rows[0] + 3, 7 * k + 3:7 * k + 7] = -Dc[k]
            if self.nonroot[k]:
                j = self.par[k]
                C[rows[0]:rows[0] + 3, 7 * j:7 * j + 3] += eye
                C[rows[0]:rows[0] + 3, 7 * j + 3:7 * j + 7] += Dp[k]
            C[3 * nb + k, 7 * k + 3:7 * k + 7] = p[k]
        return C

    def phi_t(self, q: FloatArray, t: float) -> FloatArray:
        return self.xi(q, t)

    def xi(self, q: FloatArray, t: float) -> FloatArray:
        out = np.zeros(self.m)
        roots = np.flatnonzero(~self.nonroot)
        if self.base.moving and roots.size:
            Pd = self.base.point(self.tree.c_out[roots], t)[1]
            out[self.row_of_child[roots].ravel()] = Pd.ravel()
        return out

    def gamma(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        tr, nb = self.tree, self.nb
        _, pd = self.split(v)
        g = 2 * _quad(pd, tr.c_in) - 2 * _quad(pd[self.par], tr.c_out)
        roots = np.flatnonzero(~self.nonroot)
        if roots.size:
            g[roots] = 2 * _quad(pd[roots], tr.c_in[roots])
            if self.base.moving:
                g[roots] -= self.base.point(tr.c_out[roots], t)[2]
        out = np.empty(self.m)
        out[self.row_of_child.ravel()] = g.ravel()
        out[3 * nb:] = -np.sum(pd * pd, 1)
        return out

    def eta(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        return -self.gamma(q, v, t)

    # --- energy -------------------------------------------------------------------------------------------
    def potential_energy(self, q: FloatArray, t: float) -> float:
        _, p = self.split(q)
        e = self.gravity_potential(q)
        if np.any(self.spring):
            pp = p[self.par].copy()
            roots = ~self.nonroot
            if np.any(roots):
                pp[roots] = self.base_quaternion(t)
            phi = rotation_vector(quat_mul(quat_conj(pp), p))
            e += float(0.5 * self.spring @ np.sum(phi * phi, 1))
        return e

    def nonconservative_power(self, q: FloatArray, v: FloatArray, t: float) -> float:
        """Power of the applied loads, the joint dampers and torques, and of the joint moments on a rotating
        base (the base's work through a root joint's spring/damper/torque)."""
        P = self.load_power(q, v, t)
        if self.has_joint_moments:
            _, p = self.split(q)
            A = quat_to_matrix(p)
            w, _ = self.omegas(q, v)
            wp = w[self.par].copy()
            roots = ~self.nonroot
            w0 = self.base.w(t)
            wp[roots] = w0
            Yd = -self.damping[:, None] * (w - wp)
            for k, fns, sign in self.torque_fns:
                Yd[k] += sign * np.array([f.value(t) for f in fns])
            P += float(np.sum(Yd * (w - wp)))
            if self.base.rotating:
                Y = self.joint_moments(A, p, w, t)
                P += float(np.sum(Y[roots] @ w0))
        return P

    # --- results ------------------------------------------------------------------------------------------
    def reactions(self, q: FloatArray, lam: FloatArray, t: float) -> dict[str, FloatArray]:
        """Force and moment each spherical joint applies to its body2 (global components, moment about the
        joint point on body2; zero up to round-off for an ideal spherical joint). The unit-quaternion rows are
        not physical constraints and are not reported."""
        C = self.constraint_matrix(q, t)
        r, p = self.split(q)
        out: dict[str, FloatArray] = {}
        joints = {j.name: j for j in self.entities.joints}
        for c in self.constraints:
            if c.type != "spherical":
                continue
            rows = list(c.rows)
            gen = C[rows].T @ lam[rows]
            j = joints[c.name]
            body, point, sign = j.body2, j.point2, 1.0
            if body == GROUND:
                body, point, sign = j.body1, j.point1, -1.0
            k = self.index[body]
            g = gen[7 * k:7 * k + 7] * sign
            force = g[:3]
            pk = p[k]
            moment = quat_E(pk[None])[0] @ g[3:] / (2 * pk @ pk)
            arm = quat_to_matrix(pk[None])[0] @ (np.asarray(point, float)[:3] - self.tree.com[k])
            out[c.name] = np.concatenate([force, moment - np.cross(arm, force)])
        return out

    def state_from_orientations(self, A: FloatArray, w: FloatArray, t: float,
                                pq: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
        """Consistent (q, q') from orientations A (n, 3, 3) (or quaternions pq) and world angular velocities."""
        pq = matrix_to_quat(A) if pq is None else pq
        A = quat_to_matrix(pq)
        r, rd = self.kin.state(A, w, t)
        pd = 0.5 * np.einsum("kji,kj->ki", quat_E(pq), w)
        q = np.concatenate([r, pq], 1).ravel()
        v = np.concatenate([rd, pd], 1).ravel()
        return q, v

    def consistent_state(self, t: float = 0.0) -> tuple[FloatArray, FloatArray]:
        pq, w = self.initial_orientations()
        return self.state_from_orientations(None, w, t, pq=pq)  # type: ignore[arg-type]

    def initial_guess(self) -> FloatArray:
        return self.consistent_state(0.0)[0]

    def initial_velocity_specs(self) -> list[tuple[int, float]]:
        _, v = self.consistent_state(0.0)
        return [(i, float(x)) for i, x in enumerate(v)]

    def ground_point(self, point: FloatArray, t: float) -> FloatArray:
        """World position of a ground point on the (possibly moving) base at time t."""
        return self.base.point(np.asarray(point, float)[:3], t)[0][0]

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(kind="spherical_tree", bodies=self.nb, coordinates="x y z q0 q1 q2 q3 per body")
        return d
