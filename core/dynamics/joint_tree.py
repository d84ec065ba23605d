"""Trees of hinge, slider, cylindrical, universal, fixed and spherical joints in minimal coordinates: the
formulation "wittenburg" of a :class:`~mechstudio.core.systems.maximal_joints.MaximalJointSystem` without loops.

Coordinates. Every joint of the tree (the ground its root; each body has one inboard joint) has its own joint
coordinates theta_j (hinge: the angle about axis1; slider: the slide along axis1; cylindrical: angle, slide;
universal: the two angles (a, b) of the cross, A_rel = Rz(a) Rx(b); fixed: none; spherical: Bryant angles
x-y-z of a local chart). The integrated state is y = [theta; theta'] of the coordinates that are not driven; a
driven coordinate (the joint's ``angle`` or ``slide`` time function) is rheonomic: theta = f(t), theta' = f'(t),
theta'' = f''(t) are fed in and its driver's generalized force tau_d is reported through the reactions.

Joint kinematics, with body1's axis frame C1 = [f1 g1 h1] and body2's C2 (core/elements/primitives/spatial_rows.py,
:func:`~mechstudio.core.elements.primitives.spatial_rows.axis_frame`) and the relative rotation R(theta) of the
joint frame, a product of elementary rotations R = R_k1(x1) R_k2(x2) ...:

    A_2 = A_1 C1 R(theta) D C2^T,        P_2 - P_1 = A_1 C1 (0, 0, s)            (s: the slide, else 0)

D is a constant rotation taken from the state whenever the formulation (re)packs it (D = R(theta)^T C1^T A_1^T
A_2 C2 with the measured hinge angle, a driven angle's f(t), the universal's first angle and b = 0, a spherical
chart's zero angles): it absorbs the joint's fixed offsets (an axis2 mounted the other way round, the cross of a
universal joint, the orientation of a spherical one) and the drift the correction left. The hinge angle of this
parametrisation is the maximal system's atan2(f_2 . g_1, f_2 . f_1) (D maps e_x to e_x). A spherical joint's
chart restarts at zero at every (re)pack and :meth:`JointTreeFormulation.needs_restart` asks for a repack when its
middle angle leaves |sin b| < 0.8 (a chart never reaches its singularity at b = +-pi/2).

The space-fixed angular velocity of R is S(theta) theta' with columns S_k = R_<k e_k (R_<k the product of the
rotations before k), and d(S theta')/dt = S theta'' + sum_k (omega_<k x S_k) theta'_k (omega_<k = sum_{i<k} S_i
theta'_i). For a joint whose body1 is the parent the child's rotation, angular velocity and centre of mass in
the parent's frame are G = C1 R D C2^T, rho = C1 S theta', u = s1 + C1 t - G s2; for a joint whose body2 is the
parent G = (C1 R D C2^T)^T, rho = -C2 D^T R^T S theta', u = s2 - G (s1 + C1 t). Their derivatives give the
recursion outward from the ground (world components, A_P the parent's rotation, U = A_P u):

    omega_K = omega_P + A_P rho                W_K = W_P + [A_P H_rho]                   (partial angular velocities)
    v_K = v_P + omega_P x U + A_P u'           V_K = V_P - U~ W_P + [A_P H_u]            (partial velocities)
    alpha_K = alpha_P + omega_P x A_P rho + A_P rho'
    a_K = a_P + alpha_P x U + omega_P x (omega_P x U) + 2 omega_P x A_P u' + A_P u''

This is Kane's method (Kane & Levinson, *Dynamics: Theory and Applications*, 1985, ch. 6; in Wittenburg's
notation [004] the partial velocities are the columns of the path-weighted joint axes of eqs. (20)-(25), for a
spherical tree they reduce to his eq. (59)): with the accelerations a0, alpha0 at theta'' = 0,

    M = sum_K m_K V_K^T V_K + W_K^T J_K W_K,      J_K = A_K J'_K A_K^T
    f = sum_K V_K^T (F_K - m_K a0_K) + W_K^T (n_K - J_K alpha0_K - omega_K x J_K omega_K) + Q_joint

M theta'' = f, solved by Cholesky on the free coordinates (F, n: gravity and applied loads about the centres of
mass, :meth:`~mechstudio.core.systems.maximal_bodies.MaximalBodies.body_loads`; Q_joint the axis spring-damper
tau = -k (x - x0) - c x' + f(t) on its coordinate). Cost: O(n^2) per evaluation (dense partial velocities,
n bodies; a Python loop over the joints).

Results are those of the maximal-coordinate system: :meth:`JointTreeFormulation.unpack` gives the centres of
mass, the Euler parameters (p_K = p_P (x) q(G): continuous in theta) and their rates; the reactions come from the
multipliers lambda of C^T lambda = M q'' - h (the base class's least squares: unique for a tree), so the CSV
columns (``reaction.<j>.*``, ``_body1`` frames, ``joint.<j>.angle/slide``, energies) are the projection's.
tests/test_joint_tree.py checks every tree against the projection formulation in maximal coordinates.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from mechstudio.core.dynamics import joint_tree_kernels
from mechstudio.core.dynamics.base import Accelerations, Formulation, SolverFailure
from mechstudio.core.elements.primitives.spatial_rows import wrap
from mechstudio.core.integrate.dop853_kernels import CompiledRHS
from mechstudio.core.numerics.orientation import matrix_to_quat, quat_E, quat_to_matrix
from mechstudio.core.systems.maximal_joints import AxisDrive, JointEntry, MaximalJointSystem
from mechstudio.core.types import FloatArray

#: elementary rotation axes of each joint type's R(theta) (0 x, 1 y, 2 z of the joint frame C1)
ROTATIONS: dict[str, tuple[int, ...]] = {"hinge": (2,), "slider": (), "cylindrical": (2,), "universal": (2, 0),
                                         "spherical": (0, 1, 2), "fixed_joint": ()}
#: joint types with a slide along axis1 (the coordinate after the rotations)
SLIDES = ("slider", "cylindrical")
#: |sin b| of a spherical joint's chart above which the formulation asks for a repack
CHART_LIMIT = 0.8


def elementary(axis: int, x: float) -> FloatArray:
    """Rotation matrix about body axis ``axis`` by x [rad]."""
    c, s = np.cos(x), np.sin(x)
    if axis == 0:
        return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])
    if axis == 1:
        return np.array([[c, 0, s], [0, 1.0, 0], [-s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def qmul(a: FloatArray, b: FloatArray) -> FloatArray:
    """Hamilton product of two quaternions (scalar first): A(a b) = A(a) A(b)."""
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def conj(a: FloatArray) -> FloatArray:
    return a * np.array([1.0, -1.0, -1.0, -1.0])


def cross(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def tilde(a: FloatArray) -> FloatArray:
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def quat_of(A: FloatArray) -> FloatArray:
    return matrix_to_quat(A[None])[0]


@dataclass
class TreeJoint:
    """One joint of the tree: its entry, parent and child body (index, -1 the ground), direction (``forward``:
    body1 is the parent), coordinates [first, first + size) with ``nr`` rotations, axis frames and points, and the
    constants D, q(C1), q(D C2^T) of the current pack (module docstring)."""
    entry: JointEntry
    parent: int
    child: int
    forward: bool
    first: int
    nr: int
    slide: bool
    C1: FloatArray
    C2: FloatArray
    s1: FloatArray
    s2: FloatArray
    qC1: FloatArray
    D: FloatArray = field(default_factory=lambda: np.eye(3))
    qB2: FloatArray = field(default_factory=lambda: np.array([1.0, 0, 0, 0]))
    driven: dict[int, AxisDrive] = field(default_factory=dict)  # local coordinate -> its driver
    loaded: list[tuple[int, AxisDrive]] = field(default_factory=list)

    @property
    def size(self) -> int:
        return self.nr + int(self.slide)

    @property
    def axes(self) -> tuple[int, ...]:
        return ROTATIONS[self.entry.type]

    def rotation(self, th: FloatArray, thd: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """(R, q(R), S (3, nr), d(S)/dt theta') of the joint's rotation at its coordinates and rates."""
        R = np.eye(3)
        q = np.array([1.0, 0, 0, 0])
        S = np.zeros((3, self.nr))
        wacc = np.zeros(3)
        sd = np.zeros(3)
        for k, ax in enumerate(self.axes):
            col = R[:, ax].copy()
            S[:, k] = col
            sd += cross(wacc, col) * thd[k]
            wacc += col * thd[k]
            R = R @ elementary(ax, th[k])
            e = np.zeros(4)
            e[0] = np.cos(0.5 * th[k])
            e[1 + ax] = np.sin(0.5 * th[k])
            q = qmul(q, e)
        return R, q, S, sd

    def angles(self, Rm: FloatArray) -> FloatArray:
        """The rotation coordinates of R(theta) = Rm (this joint type's angle set)."""
        t = self.entry.type
        if t in ("hinge", "cylindrical"):
            return np.array([np.arctan2(Rm[1, 0], Rm[0, 0])])
        if t == "universal":
            return np.array([np.arctan2(Rm[1, 0], Rm[0, 0]), np.arctan2(Rm[2, 1], Rm[2, 2])])
        if t == "spherical":
            return np.array([np.arctan2(-Rm[1, 2], Rm[2, 2]), np.arcsin(np.clip(Rm[0, 2], -1.0, 1.0)),
                             np.arctan2(-Rm[0, 1], Rm[0, 0])])
        return np.zeros(0)


@dataclass
class Kinematics:
    """The tree's bodies at (theta, theta', t): rotations A (nb, 3, 3), Euler parameters p, centres r, angular
    velocities w, velocities v, partials W, V (nb, 3, nc) and the accelerations at theta'' = 0 (alpha0, a0)."""
    A: FloatArray
    p: FloatArray
    r: FloatArray
    w: FloatArray
    v: FloatArray
    W: FloatArray
    V: FloatArray
    al0: FloatArray
    a0: FloatArray


class JointTreeFormulation(Formulation):
    """Minimal-coordinate equations of a tree of spatial joints (module docstring). Registered through the
    "wittenburg" formulation, which hands a :class:`MaximalJointSystem` here."""

    name = "wittenburg"
    kernel_paths = True  # kernels="numba" (the compiled right-hand side, joint_tree_kernels) or "numpy"

    def __init__(self, system: MaximalJointSystem, **options: Any):
        super().__init__(system, **options)
        if not isinstance(system, MaximalJointSystem):
            raise SolverFailure(f"joint trees need a MaximalJointSystem (got a {type(system).__name__})")
        self.sys = system
        nb = system.nb
        inboard: dict[int, JointEntry] = {}
        adj: dict[int, list[JointEntry]] = {}
        for e in system.joints:
            if e.i == e.j:
                raise SolverFailure(f"joint {e.name!r} joins a body to itself")
            adj.setdefault(e.i, []).append(e)
            adj.setdefault(e.j, []).append(e)
        order: list[TreeJoint] = []
        seen = {-1}
        frontier = [-1]
        first = 0
        while frontier:
            nxt = []
            for b in frontier:
                for e in adj.get(b, []):
                    other = e.j if e.i == b else e.i
                    if e.name in {j.entry.name for j in order}:
                        continue
                    if other in seen:
                        raise SolverFailure(f"joint {e.name!r} closes a loop: the wittenburg formulation runs trees "
                                            "of joints only (use the projection formulation)")
                    seen.add(other)
                    inboard[other] = e
                    order.append(self._tree_joint(e, b, other, first))
                    first += order[-1].size
                    nxt.append(other)
            frontier = nxt
        missing = [system.body_names[k] for k in range(nb) if k not in seen]
        if missing:
            raise SolverFailure(f"bodies {', '.join(map(repr, missing))} are not joined to the ground by a chain of "
                                "joints: the wittenburg formulation needs every body in the tree")
        self.tree = order
        self.nc = first
        drv = [j.first + k for j in order for k in j.driven]
        self.drv = np.array(sorted(drv), dtype=int)
        self.free = np.array([c for c in range(first) if c not in set(drv)], dtype=int)
        self.nf = len(self.free)
        self.has_chart = any(j.entry.type == "spherical" for j in order)
        self._th_drv = np.zeros(self.nc)
        # the compiled right-hand side (joint_tree_kernels.k_rhs_joint_tree) where its scope allows (module
        # docstring of joint_tree_kernels); kernels="numpy" keeps the numpy path
        self.kernel_scope = (not self.drv.size and not system.loads and not system.torques
                             and all(d.load is None for j in order for _, d in j.loaded))
        kernels = str(options.get("kernels", "numba"))
        self._kernel = joint_tree_kernels.timed_kernel() if kernels == "numba" and self.kernel_scope else None
        self._kernel_data: tuple[FloatArray, FloatArray] | None = None  # (I, F), renewed at every pack

    def _tree_joint(self, e: JointEntry, parent: int, child: int, first: int) -> TreeJoint:
        g = e.geo
        C1 = np.column_stack([g.f1, g.g1, g.h1])
        C2 = np.column_stack([g.f2, g.g2, g.h2])
        nr = len(ROTATIONS[e.type])
        j = TreeJoint(e, parent, child, e.i == parent, first, nr, e.type in SLIDES, C1, C2, g.s1, g.s2, quat_of(C1))
        for d in e.drives:
            k = 0 if d.coordinate == "angle" else nr
            if d.driver is not None:
                j.driven[k] = d
            if d.loaded:
                j.loaded.append((k, d))
        return j

    # --- coordinates from a maximal state ---------------------------------------------------------------------
    def _bodies(self, q: FloatArray, v: FloatArray | None) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray,
                                                                     FloatArray]:
        sysm = self.sys
        r, p = sysm.split(q)
        p = p / np.linalg.norm(p, axis=1, keepdims=True)
        A = quat_to_matrix(p)
        if v is None:
            return r, p, A, np.zeros((sysm.nb, 3)), np.zeros((sysm.nb, 3))
        rd, pd = sysm.split(v)
        w = 2 * np.einsum("kij,kj->ki", quat_E(p), pd)
        return r, p, A, w, rd

    def measure(self, q: FloatArray, v: FloatArray, t: float, reset: bool) -> tuple[FloatArray, FloatArray]:
        """(theta, theta') of every coordinate (driven ones from their drivers) at the maximal state (q, q');
        ``reset``: take the joints' constants D and q(D C2^T) anew from this state (a pack)."""
        r, p, A, w, rd = self._bodies(q, v)
        I3, z3 = np.eye(3), np.zeros(3)
        th = np.zeros(self.nc)
        thd = np.zeros(self.nc)
        for j in self.tree:
            e = j.entry
            A1, A2 = (A[e.i] if e.i >= 0 else I3), (A[e.j] if e.j >= 0 else I3)
            Y = j.C1.T @ A1.T @ A2 @ j.C2
            sl = slice(j.first, j.first + j.nr)
            if reset:
                ang = np.zeros(j.nr)
                if e.type in ("hinge", "cylindrical"):
                    ang[0] = np.arctan2(Y[1, 0], Y[0, 0])
                elif e.type == "universal":
                    ang[0] = np.arctan2(Y[1, 2], Y[0, 2])
                for k, d in j.driven.items():
                    if k < j.nr:
                        ang[k] = d.driver.value(t)
                R, _, _, _ = j.rotation(ang, np.zeros(j.nr))
                j.D = R.T @ Y
                th[sl] = ang
            else:
                th[sl] = j.angles(Y @ j.D.T)
            w1, w2 = (w[e.i] if e.i >= 0 else z3), (w[e.j] if e.j >= 0 else z3)
            if j.nr:
                _, _, S, _ = j.rotation(th[sl], np.zeros(j.nr))
                thd[sl] = np.linalg.lstsq(S, j.C1.T @ (A1.T @ (w2 - w1)), rcond=None)[0]
            if j.slide:
                P1 = (r[e.i] + A1 @ j.s1) if e.i >= 0 else j.s1
                P2 = (r[e.j] + A2 @ j.s2) if e.j >= 0 else j.s2
                v1 = (rd[e.i] + cross(w1, A1 @ j.s1)) if e.i >= 0 else z3
                v2 = (rd[e.j] + cross(w2, A2 @ j.s2)) if e.j >= 0 else z3
                d = P2 - P1
                h1 = A1 @ j.C1[:, 2]
                th[j.first + j.nr] = h1 @ d
                thd[j.first + j.nr] = h1 @ (v2 - v1 - cross(w1, d))
            for k, dr in j.driven.items():
                th[j.first + k] = dr.driver.value(t)
                thd[j.first + k] = dr.driver.rate(t)
        if reset:  # q(D C2^T) with the sign that reproduces the state's Euler parameters
            for j in self.tree:
                j.qB2 = quat_of(j.D @ j.C2.T)
            kin = self.kinematics(th, thd, t, need_partials=False)
            for j in self.tree:  # in tree order: a flip of a parent's q(B2) flips its children's predictions too
                if kin.p[j.child] @ p[j.child] < 0:
                    j.qB2 = -j.qB2
                    kin = self.kinematics(th, thd, t, need_partials=False)
        return th, thd

    # --- the recursion ----------------------------------------------------------------------------------------
    def kinematics(self, th: FloatArray, thd: FloatArray, t: float, need_partials: bool = True) -> Kinematics:
        """The bodies' poses, velocities, partial velocities and accelerations at theta'' = 0 (module docstring)."""
        nb, nc = self.sys.nb, self.nc
        A = np.zeros((nb, 3, 3))
        p = np.zeros((nb, 4))
        r = np.zeros((nb, 3))
        w = np.zeros((nb, 3))
        v = np.zeros((nb, 3))
        W = np.zeros((nb, 3, nc))
        V = np.zeros((nb, 3, nc))
        al0 = np.zeros((nb, 3))
        a0 = np.zeros((nb, 3))
        I3, z3, zW = np.eye(3), np.zeros(3), np.zeros((3, nc))
        q1 = np.array([1.0, 0, 0, 0])
        for j in self.tree:
            P, K = j.parent, j.child
            sl = slice(j.first, j.first + j.size)
            tj, tdj = th[sl], thd[sl]
            R, qR, S, sd = j.rotation(tj, tdj)
            s = tj[j.nr] if j.slide else 0.0
            sdot = tdj[j.nr] if j.slide else 0.0
            Hr = np.zeros((3, j.size))
            B2 = j.D @ j.C2.T
            h1 = j.C1[:, 2]
            if j.forward:
                G = j.C1 @ R @ B2
                Hr[:, :j.nr] = j.C1 @ S
                kappa = j.C1 @ sd
                rho = Hr @ tdj
                Gs = G @ j.s2
                u = j.s1 + h1 * s - Gs
                Hu = tilde(Gs) @ Hr
                if j.slide:
                    Hu[:, j.nr] += h1
                mu = -cross(kappa, Gs) - cross(rho, cross(rho, Gs))
                qG = qmul(qmul(j.qC1, qR), j.qB2)
            else:
                RtB = B2.T @ R.T
                G = RtB @ j.C1.T
                Hr[:, :j.nr] = -RtB @ S
                kappa = -RtB @ sd
                rho = Hr @ tdj
                Gw = G @ (j.s1 + h1 * s)
                Gh = G @ h1
                u = j.s2 - Gw
                Hu = tilde(Gw) @ Hr
                if j.slide:
                    Hu[:, j.nr] -= Gh
                mu = -cross(kappa, Gw) - cross(rho, cross(rho, Gw)) - 2 * cross(rho, Gh * sdot)
                qG = qmul(qmul(conj(j.qB2), conj(qR)), conj(j.qC1))
            if P >= 0:
                AP, pP, rP, wP, vP, WP, VP, alP, aP = A[P], p[P], r[P], w[P], v[P], W[P], V[P], al0[P], a0[P]
            else:
                AP, pP, rP, wP, vP, WP, VP, alP, aP = I3, q1, z3, z3, z3, zW, zW, z3, z3
            U = AP @ u
            ud = AP @ (Hu @ tdj)
            rw = AP @ rho
            A[K] = AP @ G
            p[K] = qmul(pP, qG)
            r[K] = rP + U
            w[K] = wP + rw
            v[K] = vP + cross(wP, U) + ud
            if need_partials:
                W[K] = WP
                W[K][:, sl] += AP @ Hr
                V[K] = VP - tilde(U) @ WP
                V[K][:, sl] += AP @ Hu
                al0[K] = alP + cross(wP, rw) + AP @ kappa
                a0[K] = aP + cross(alP, U) + cross(wP, cross(wP, U)) + 2 * cross(wP, ud) + AP @ mu
        return Kinematics(A, p, r, w, v, W, V, al0, a0)

    def maximal(self, kin: Kinematics) -> tuple[FloatArray, FloatArray]:
        """(q, q') of the maximal system: centres, Euler parameters and their rates p' = E(p)^T omega / 2."""
        pd = 0.5 * np.einsum("kji,kj->ki", quat_E(kin.p), kin.w)
        return np.concatenate([kin.r, kin.p], 1).ravel(), np.concatenate([kin.v, pd], 1).ravel()

    # --- the equations of motion ------------------------------------------------------------------------------
    def equations(self, th: FloatArray, thd: FloatArray, t: float) -> tuple[Kinematics, FloatArray, FloatArray,
                                                                             FloatArray]:
        """(kinematics, M, f, theta'' with the driven coordinates' f''(t) and zeros elsewhere) of every coordinate:
        M theta'' = f + tau on the free coordinates (tau = 0 there), f with the driven coordinates' accelerations
        already moved to the right-hand side (a0, alpha0 include them)."""
        sysm = self.sys
        kin = self.kinematics(th, thd, t)
        tdd = np.zeros(self.nc)
        for j in self.tree:
            for k, d in j.driven.items():
                tdd[j.first + k] = d.driver.accel(t)
        if self.drv.size:
            kin.a0 = kin.a0 + kin.V[:, :, self.drv] @ tdd[self.drv]
            kin.al0 = kin.al0 + kin.W[:, :, self.drv] @ tdd[self.drv]
        F, n = sysm.body_loads(kin.A, kin.w, t)
        Jw = kin.A @ sysm.Jb @ np.swapaxes(kin.A, 1, 2)
        Jwd = np.einsum("kij,kj->ki", Jw, kin.w)
        fl = F - sysm.mass[:, None] * kin.a0
        nl = n - np.einsum("kij,kj->ki", Jw, kin.al0) - np.cross(kin.w, Jwd)
        f = np.einsum("kic,ki->c", kin.V, fl) + np.einsum("kic,ki->c", kin.W, nl)
        for j in self.tree:
            for k, d in j.loaded:
                x, xd = th[j.first + k], thd[j.first + k]
                stretch = wrap(x - d.free) if d.coordinate == "angle" else x - d.free
                f[j.first + k] += -d.spring * stretch - d.damping * xd + (d.load.value(t) if d.load is not None
                                                                          else 0.0)
        M = np.einsum("k,kic,kid->cd", sysm.mass, kin.V, kin.V) + np.einsum("kic,kid->cd", kin.W, Jw @ kin.W)
        return kin, M, f, tdd

    def dynamics(self, th: FloatArray, thd: FloatArray, t: float) -> tuple[Kinematics, FloatArray, FloatArray]:
        """(kinematics with a0, alpha0 including the driven accelerations, theta'' of every coordinate, the
        drivers' generalized forces tau_d (driven coordinates' order) [N m or N])."""
        kin, M, f, tdd = self.equations(th, thd, t)
        fr = self.free
        if self.nf:
            try:
                tdd[fr] = cho_solve(cho_factor(M[np.ix_(fr, fr)]), f[fr])
            except np.linalg.LinAlgError as exc:
                raise SolverFailure(f"the joint tree's mass matrix is singular at t = {t:.6g} s ({exc})") from exc
        tau = M[np.ix_(self.drv, fr)] @ tdd[fr] - f[self.drv] if self.drv.size else np.zeros(0)
        return kin, tdd, tau

    # --- Formulation ------------------------------------------------------------------------------------------
    def pack(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        th, thd = self.measure(q, v, t, reset=True)
        self._kernel_data = None  # the joints' D changed
        return np.concatenate([th[self.free], thd[self.free]])

    def full(self, y: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        """(theta, theta') of every coordinate from the state y and the drivers at t."""
        th = np.zeros(self.nc)
        thd = np.zeros(self.nc)
        th[self.free] = y[:self.nf]
        thd[self.free] = y[self.nf:2 * self.nf]
        for j in self.tree:
            for k, d in j.driven.items():
                th[j.first + k] = d.driver.value(t)
                thd[j.first + k] = d.driver.rate(t)
        return th, thd

    def unpack(self, y: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        th, thd = self.full(y, t)
        return self.maximal(self.kinematics(th, thd, t, need_partials=False))

    def restart(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        return self.pack(q, v, t)

    def needs_restart(self, q: FloatArray, v: FloatArray, t: float) -> bool:
        """True when a spherical joint's chart angle b has come to |sin b| > :data:`CHART_LIMIT`."""
        if not self.has_chart:
            return False
        _, _, A, _, _ = self._bodies(q, None)
        I3 = np.eye(3)
        for j in self.tree:
            if j.entry.type == "spherical":
                e = j.entry
                A1, A2 = (A[e.i] if e.i >= 0 else I3), (A[e.j] if e.j >= 0 else I3)
                Rm = j.C1.T @ A1.T @ A2 @ j.C2 @ j.D.T
                if abs(Rm[0, 2]) > CHART_LIMIT:
                    return True
        return False

    def joint_power(self, th: FloatArray, thd: FloatArray, kin: Kinematics, tau: FloatArray, t: float) -> float:
        """Power [W] of the applied loads (gravity excluded), the joints' dampers and loads and the drivers."""
        sysm = self.sys
        P = 0.0
        for k, s, comps in sysm.loads:
            fv = np.array([c.value(t) for c in comps])
            P += float(fv @ (kin.v[k] + cross(kin.w[k], kin.A[k] @ s)))
        for k, comps in sysm.torques:
            P += float(np.array([0.0 if c is None else c.value(t) for c in comps]) @ kin.w[k])
        for j in self.tree:
            for k, d in j.loaded:
                xd = thd[j.first + k]
                P += (-d.damping * xd + (d.load.value(t) if d.load is not None else 0.0)) * xd
        if self.drv.size:
            P += float(tau @ thd[self.drv])
        return P

    def rhs_and_power(self, t: float, y: FloatArray) -> tuple[FloatArray, float]:
        self.rhs_evaluations += 1
        th, thd = self.full(y, t)
        kin, tdd, tau = self.dynamics(th, thd, t)
        return np.concatenate([thd[self.free], tdd[self.free]]), self.joint_power(th, thd, kin, tau, t)

    def kernel_data(self) -> tuple[FloatArray, FloatArray]:
        """(I, F) of ``joint_tree_kernels.k_rhs_joint_tree`` with the joints' D of the current pack (that module's
        docstring; every coordinate free: only in :attr:`kernel_scope`)."""
        if self._kernel_data is None:
            sysm, tree = self.sys, self.tree
            joints = np.array([[j.parent, j.child, int(j.forward), j.first, j.nr, int(j.slide)] for j in tree],
                              dtype=np.int64)
            axes = np.full((len(tree), 3), -1, dtype=np.int64)
            for r, j in enumerate(tree):
                axes[r, :j.nr] = j.axes
            lidx = [j.first + k for j in tree for k, _ in j.loaded]
            lkind = [int(d.coordinate == "angle") for j in tree for _, d in j.loaded]
            lpar = np.array([[d.spring, d.damping, d.free] for j in tree for _, d in j.loaded], float).reshape(-1, 3)
            stack = lambda name: np.array([getattr(j, name) for j in tree], float)  # noqa: E731
            self._kernel_data = joint_tree_kernels.pack_joint_tree((
                np.array([sysm.nb, self.nc, len(lidx)]), joints, axes, np.array(lidx, np.int64),
                np.array(lkind, np.int64), stack("C1"), stack("C2"), stack("s1"), stack("s2"), stack("D"),
                sysm.mass, sysm.Jb, sysm.gravity, lpar))
        return self._kernel_data

    def rhs_augmented(self, t: float, yy: FloatArray) -> FloatArray:
        """[y'; P] for the integrators, yy = [y; W]: the compiled kernel when in use, else the base class's."""
        if self._kernel is not None:
            I, F = self.kernel_data()
            status, out = self._kernel(t, np.ascontiguousarray(yy, dtype=float), I, F)
            if status == 0:
                self.rhs_evaluations += 1
                return out
        return super().rhs_augmented(t, yy)

    def compiled_rhs(self) -> CompiledRHS | None:
        """:meth:`rhs_augmented` compiled (``Formulation.compiled_rhs``; ``joint_tree_kernels.k_rhs_joint_tree``)
        for the compiled DOP853 step, in :attr:`kernel_scope` with the kernels in use; None otherwise."""
        if self._kernel is None:
            return None

        def counted(n: int) -> None:
            self.rhs_evaluations += n
        return CompiledRHS(self._kernel, self.kernel_data, counted)

    def kernel_key(self) -> str | None:
        """The compiled path's key (``Formulation.kernel_key``): the joint trees' own kernel; None outside
        :attr:`kernel_scope` (no compiled path to wait for)."""
        return f"{self.name}-joint-tree" if self.kernel_scope else None

    def accelerations(self, q: FloatArray, v: FloatArray, t: float) -> Accelerations:
        """q'' of the maximal coordinates at (q, q'): r'' = a, p'' = (E(p')^T omega + E(p)^T omega') / 2."""
        th, thd = self.measure(q, v, t, reset=False)
        kin, tdd, tau = self.dynamics(th, thd, t)
        free = self.free
        a = kin.a0 + kin.V[:, :, free] @ tdd[free]
        al = kin.al0 + kin.W[:, :, free] @ tdd[free]
        pd = 0.5 * np.einsum("kji,kj->ki", quat_E(kin.p), kin.w)
        pdd = 0.5 * (np.einsum("kji,kj->ki", quat_E(pd), kin.w) + np.einsum("kji,kj->ki", quat_E(kin.p), al))
        # the measured angles may differ from the integrated ones by 2 pi: p of the recursion then has the other sign
        _, p_state = self.sys.split(q)
        pdd *= np.where(np.sum(p_state * kin.p, 1) < 0, -1.0, 1.0)[:, None]
        qdd = np.concatenate([a, pdd], 1).ravel()
        return Accelerations(qdd, None, True, info={"theta": th, "theta_rate": thd, "theta_accel": tdd,
                                                    "driver_forces": tau})

    def power(self, q: FloatArray, v: FloatArray, t: float, acc: Accelerations) -> float:
        th, thd = acc.info["theta"], acc.info["theta_rate"]
        kin = self.kinematics(th, thd, t, need_partials=False)
        return self.joint_power(th, thd, kin, acc.info["driver_forces"], t)


def is_joint_tree(system: Any) -> bool:
    """True for a :class:`MaximalJointSystem` whose joints form a tree rooted at the ground (as many joints as
    bodies, every body reached from the ground)."""
    if not isinstance(system, MaximalJointSystem) or len(system.joints) != system.nb:
        return False
    adj: dict[int, list[int]] = {}
    for e in system.joints:
        adj.setdefault(e.i, []).append(e.j)
        adj.setdefault(e.j, []).append(e.i)
    seen, stack = {-1}, [-1]
    while stack:
        for o in adj.get(stack.pop(), []):
            if o not in seen:
                seen.add(o)
                stack.append(o)
    return len(seen) == system.nb + 1


__all__ = ["CHART_LIMIT", "JointTreeFormulation", "Kinematics", "ROTATIONS", "SLIDES", "TreeJoint", "elementary",
           "is_joint_tree"]
