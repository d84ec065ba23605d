"""Spatial rigid bodies in coordinates (x, y, z, psi, theta, phi), and rolling disks on a moving plane.

Coordinates ([001], example): six per body, q[6k:6k+6] = (x, y, z, psi, theta, phi): the centre of mass
[m] and 3-1-3 Euler angles [rad] with orientation R = Rz(psi) Rx(theta) Rz(phi) (body-frame vector s' is R s'
in the global frame). Angular velocity (alpha = (psi, theta, phi)):

    body frame   omega_b = G_b alpha',  G_b = [[sin th sin ph, cos ph, 0], [sin th cos ph, -sin ph, 0], [cos th, 0, 1]]
    global frame omega   = psi' z + theta' e1 + phi' e3,  e1 = (cos psi, sin psi, 0),
                 e3 = R z = (sin psi sin th, -cos psi sin th, cos th)

Mass matrix and h, derived anew (virtual power with omega_b = G_b alpha'; independent check: finite differences
of the Lagrangian in tests/test_spatial_system.py):

    M = diag(m I3, G_b^T J G_b)
    h = (m g + F,  G_b^T (n_b - J (G_b' alpha') - omega_b x J omega_b))

with J the inertia tensor about the centre of mass in body axes, n_b the applied moment in body axes and
G_b' alpha' = (psi'(cos th sin ph th' + sin th cos ph ph') - th' sin ph ph',
               psi'(cos th cos ph th' - sin th sin ph ph') - th' cos ph ph',  -psi' sin th th').
M is singular at sin(theta) = 0 (the 3-1-3 gimbal lock); the rolling disk stays far from it.

Rolling disk of radius rho (body z axis = symmetry axis) on the horizontal plane z = z_p(t), which translates with
r_p(t) (v0 + a t by default, [001] section 5). The contact point is P = r + d, d = -rho u with
u = Rz(psi) Rx(theta) y = (-sin psi cos th, cos psi cos th, sin th) (the in-plane direction from P to the centre):

    holonomic      phi = z - rho sin(theta) - z_p(t) = 0,     Phi_q = (0,0,1, 0,-rho cos th,0),
                   gamma = -rho sin(theta) theta'^2 + z_p''(t)
    nonholonomic   (r' + omega x d - r_p'(t))_{x,y} = 0       (no slip)
                   eta = ((G_s' alpha') x d + omega x d' - r_p''(t))_{x,y},
                   G_s' alpha' = theta' psi' (z x e1) + phi' (psi' z + theta' e1) x e3,
                   d' = -rho (psi' z + theta' e1) x u

The three rows are the z, x, y components of the velocity of the contact point relative to the plane, so the
multipliers are directly the contact force (f_z, f_x, f_y) that the plane applies to the disk (README errata:
the source orders its rows z, y, x).

Speed: M, C, Phi (positions) and h, eta, the kinetic energy (velocities) come from two compiled kernels
(``mechstudio.core.systems.spatial_kernels``, numba; the same equations), each cached for the last state, and the plane's motion
for the last t; the reactions use closed forms. The ``*_reference`` methods keep the original vectorised code;
tests/test_performance_equivalence.py checks both give the same numbers to 1e-12. Applied loads and torques
still take the reference path.
"""
from __future__ import annotations

from typing import Any

import math

import numpy as np

from mechstudio.core.elements import element_type, of
from mechstudio.core.elements.base import UnsupportedElement
from mechstudio.core.model.document import GROUND, Model
from mechstudio.core.model.timefunc import TimeFunction, motion_evaluator, time_function
from mechstudio.core.systems.spatial_kernels import kernels as spatial_kernels
from mechstudio.core.systems.base import ConstrainedSystem, ConstraintInfo
from mechstudio.core.types import FloatArray

COORDS = ("x", "y", "z", "psi", "theta", "phi")
Z = np.array([0.0, 0.0, 1.0])


def cross(a: FloatArray, b: FloatArray) -> FloatArray:
    """a x b for 3-vectors (np.cross costs ~100x more for single vectors)."""
    return np.array((a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]))


def rotation(psi: float, theta: float, phi: float) -> FloatArray:
    """R = Rz(psi) Rx(theta) Rz(phi)."""
    cp, sp, ct, st, cf, sf = np.cos(psi), np.sin(psi), np.cos(theta), np.sin(theta), np.cos(phi), np.sin(phi)
    rz1 = np.array([[cp, -sp, 0], [sp, cp, 0], [0, 0, 1.0]])
    rx = np.array([[1.0, 0, 0], [0, ct, -st], [0, st, ct]])
    rz2 = np.array([[cf, -sf, 0], [sf, cf, 0], [0, 0, 1.0]])
    return rz1 @ rx @ rz2


def g_body(theta: float, phi: float) -> FloatArray:
    """G_b with omega_b = G_b (psi', theta', phi')."""
    st, ct, sf, cf = np.sin(theta), np.cos(theta), np.sin(phi), np.cos(phi)
    return np.array([[st * sf, cf, 0.0], [st * cf, -sf, 0.0], [ct, 0.0, 1.0]])


def g_space(psi: float, theta: float) -> FloatArray:
    """G_s with omega = G_s (psi', theta', phi') in the global frame: columns z, e1, e3."""
    sp, cp, st, ct = np.sin(psi), np.cos(psi), np.sin(theta), np.cos(theta)
    return np.array([[0.0, cp, sp * st], [0.0, sp, -cp * st], [1.0, 0.0, ct]])


def g_body_dot_alpha(theta: float, phi: float, rates: FloatArray) -> FloatArray:
    """G_b' alpha' (the velocity-product part of omega_b')."""
    dpsi, dth, dph = rates
    st, ct, sf, cf = np.sin(theta), np.cos(theta), np.sin(phi), np.cos(phi)
    return np.array([dpsi * (ct * sf * dth + st * cf * dph) - dth * sf * dph,
                     dpsi * (ct * cf * dth - st * sf * dph) - dth * cf * dph,
                     -dpsi * st * dth])


#: element types (core/elements) this system compiles; anything else raises UnsupportedElement
SUPPORTED = ("rolling_disk", "applied_force", "applied_torque")
ROLLING_DISK = element_type("rolling_disk")

def plane_quadratic(plane: list[TimeFunction]) -> tuple | None:
    """The plane's motion r_p(t) = c0 + c1 t + c2 t^2 as coefficient vectors (c0, c1, c2, 2 c2, still) when every
    component is a polynomial of degree <= 2 in t (a still plane, the velocity/acceleration form of
    ``ground.motion``), else None; ``still`` is the constant (z_p, r_p', r_p'') of a plane that does not move
    (else None). :meth:`SpatialSystem.plane_arrays` then evaluates the motion from these coefficients instead
    of the generic compiled expressions (the same values to round-off, a few microseconds less per call)."""
    import sympy as sp  # only for a moving plane's motion: other models never import sympy (start-up time)

    from mechstudio.core.model.timefunc import T as TIME  # creating the symbol imports sympy: see the line above
    coeffs = np.zeros((3, 3))
    for i, f in enumerate(plane):
        expr = sp.sympify(f.expr)
        if expr.free_symbols - {TIME} or not expr.is_polynomial(TIME):
            return None
        poly = sp.Poly(expr, TIME)
        if poly.degree() > 2:
            return None
        for (power,), c in poly.terms():
            coeffs[power, i] = float(c)
    c0, c1, c2 = (np.ascontiguousarray(c) for c in coeffs)
    still = (float(c0[2]), np.zeros(3), np.zeros(3)) if not (c1.any() or c2.any()) else None
    return c0, c1, c2, 2.0 * c2, still


class SpatialSystem(ConstrainedSystem):
    """Free 3D rigid bodies plus rolling-disk contacts (see module docstring)."""

    diagonal_mass = False

    def __init__(self, model: Model):
        ent = model.entities
        self.model, self.entities = model, ent
        unsupported = [f"{x.name} ({of(x, section).name})" for section in ("joints", "drivers", "forces")
                       for x in getattr(ent, section) if of(x, section).name not in SUPPORTED]
        if unsupported:
            raise UnsupportedElement("a spatial model without spherical joints supports "
                                     f"{', '.join(SUPPORTED)}; not: {', '.join(unsupported)}")
        self.body_names = [b.name for b in ent.bodies]
        self.nb = len(ent.bodies)
        self.n = 6 * self.nb
        self.coord_names = [f"{b}.{c}" for b in self.body_names for c in COORDS]
        self.index = {name: k for k, name in enumerate(self.body_names)}
        self.mass = np.array([b.mass for b in ent.bodies])
        self.inertia = [np.array(b.inertia, float) for b in ent.bodies]
        self.com = {b.name: np.array(b.com[:3]) for b in ent.bodies}
        self.gravity = np.array(ent.gravity[:3])
        motion = ent.ground_motion
        if "position" in motion:
            self.plane = [time_function(s) for s in motion["position"]]
        else:
            v0 = motion.get("velocity", [0.0, 0.0, 0.0])
            a0 = motion.get("acceleration", [0.0, 0.0, 0.0])
            self.plane = [time_function({"type": "polynomial", "coefficients": [0.0, float(v), 0.5 * float(a)]})
                          for v, a in zip(v0, a0)]
        self._rheonomic = any(not f.is_constant for f in self.plane)
        disks = [j for j in ent.joints if j.type == "rolling_disk"]
        self.disk_body = np.array([self.index[j.body] for j in disks], np.int64)
        self.disk_radius = np.array([j.radius for j in disks])
        self.m_holonomic = len(disks)
        self.m_nonholonomic = 2 * len(disks)
        self.constraints = []
        for k, j in enumerate(disks):
            rows = (k, self.m_holonomic + 2 * k, self.m_holonomic + 2 * k + 1)
            self.constraints.append(ConstraintInfo(j.name, "rolling_disk", rows, ROLLING_DISK.components, True,
                                                   GROUND, j.body))
        self.loads = [(self.index[f.body], np.array(f.point[:3]) - self.com[f.body], f.force)
                      for f in ent.forces if f.type == "applied_force"]
        self.torques = [(self.index[f.body], f.torque) for f in ent.forces if f.type == "applied_torque"]
        self._compile_fast()

    # ------------------------------------------------------------------------------------------------------
    @property
    def rheonomic(self) -> bool:
        return self._rheonomic

    def _plane(self, t: float, which: str) -> FloatArray:
        return np.array([getattr(f, which)(t) for f in self.plane])

    def mass_matrix_reference(self, q: FloatArray, t: float) -> FloatArray:
        M = np.zeros((self.n, self.n))
        for k in range(self.nb):
            c = 6 * k
            M[c:c + 3, c:c + 3] = self.mass[k] * np.eye(3)
            G = g_body(q[c + 4], q[c + 5])
            M[c + 3:c + 6, c + 3:c + 6] = G.T @ self.inertia[k] @ G
        return M

    def _loads(self, q: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        """Applied forces F (nb, 3) and moments about the centres of mass n (nb, 3), global frame."""
        F = np.zeros((self.nb, 3))
        n = np.zeros((self.nb, 3))
        for b, s, comps in self.loads:
            f = np.array([c.value(t) for c in comps])
            c = 6 * b
            arm = rotation(*q[c + 3:c + 6]) @ s
            F[b] += f
            n[b] += cross(arm, f)
        for b, comps in self.torques:
            n[b] += np.array([c.value(t) for c in comps]) if len(comps) == 3 else np.array([0, 0, comps[0].value(t)])
        return F, n

    def forces_reference(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        h = np.zeros(self.n)
        F, nmom = self._loads(q, t)
        for k in range(self.nb):
            c = 6 * k
            psi, th, ph = q[c + 3:c + 6]
            rates = v[c + 3:c + 6]
            G = g_body(th, ph)
            J = self.inertia[k]
            w = G @ rates
            nb = rotation(psi, th, ph).T @ nmom[k]
            h[c:c + 3] = self.mass[k] * self.gravity + F[k]
            h[c + 3:c + 6] = G.T @ (nb - J @ g_body_dot_alpha(th, ph, rates) - cross(w, J @ w))
        return h

    def kinetic_energy_reference(self, q: FloatArray, v: FloatArray, t: float) -> float:
        e = 0.0
        for k in range(self.nb):
            c = 6 * k
            w = g_body(q[c + 4], q[c + 5]) @ v[c + 3:c + 6]
            e += 0.5 * self.mass[k] * float(v[c:c + 3] @ v[c:c + 3]) + 0.5 * float(w @ self.inertia[k] @ w)
        return e

    def potential_energy(self, q: FloatArray, t: float) -> float:
        return -float(sum(self.mass[k] * self.gravity @ q[6 * k:6 * k + 3] for k in range(self.nb)))

    def nonconservative_power_reference(self, q: FloatArray, v: FloatArray, t: float) -> float:
        F, nmom = self._loads(q, t)
        p = 0.0
        for k in range(self.nb):
            c = 6 * k
            w = g_space(q[c + 3], q[c + 4]) @ v[c + 3:c + 6]
            p += float(F[k] @ v[c:c + 3] + nmom[k] @ w)
        return p

    # --- rolling contact ------------------------------------------------------------------------------------
    def _disk(self, q: FloatArray, k: int) -> tuple[int, float, FloatArray, FloatArray, FloatArray, FloatArray]:
        b = int(self.disk_body[k])
        c = 6 * b
        psi, th = q[c + 3], q[c + 4]
        rho = float(self.disk_radius[k])
        u = np.array([-np.sin(psi) * np.cos(th), np.cos(psi) * np.cos(th), np.sin(th)])
        e1 = np.array([np.cos(psi), np.sin(psi), 0.0])
        e3 = np.array([np.sin(psi) * np.sin(th), -np.cos(psi) * np.sin(th), np.cos(th)])
        return c, rho, u, e1, e3, -rho * u

    def phi_reference(self, q: FloatArray, t: float) -> FloatArray:
        zp = self._plane(t, "value")[2]
        return np.array([q[6 * b + 2] - r * np.sin(q[6 * b + 4]) - zp
                         for b, r in zip(self.disk_body, self.disk_radius)])

    def phi_q_reference(self, q: FloatArray, t: float) -> FloatArray:
        return self.constraint_matrix_reference(q, t)[:self.m_holonomic]

    def phi_t_reference(self, q: FloatArray, t: float) -> FloatArray:
        return np.full(self.m_holonomic, -self._plane(t, "rate")[2])

    def gamma_reference(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        zpdd = self._plane(t, "accel")[2]
        return np.array([-r * np.sin(q[6 * b + 4]) * v[6 * b + 4] ** 2 + zpdd
                         for b, r in zip(self.disk_body, self.disk_radius)])

    def constraint_matrix_reference(self, q: FloatArray, t: float) -> FloatArray:
        C = np.zeros((self.m, self.n))
        mh = self.m_holonomic
        for k in range(len(self.disk_body)):
            c, rho, u, e1, e3, d = self._disk(q, k)
            C[k, c + 2] = 1.0
            C[k, c + 4] = -rho * np.cos(q[c + 4])
            rows = slice(mh + 2 * k, mh + 2 * k + 2)
            C[rows, c:c + 2] = np.eye(2)
            C[rows, c + 3] = cross(Z, d)[:2]
            C[rows, c + 4] = cross(e1, d)[:2]
            C[rows, c + 5] = cross(e3, d)[:2]
        return C

    def xi_reference(self, q: FloatArray, t: float) -> FloatArray:
        vp = self._plane(t, "rate")
        out = np.zeros(self.m)
        out[:self.m_holonomic] = -vp[2]
        for k in range(len(self.disk_body)):
            out[self.m_holonomic + 2 * k:self.m_holonomic + 2 * k + 2] = -vp[:2]
        return out

    def eta_reference(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        out = np.zeros(self.m)
        out[:self.m_holonomic] = -self.gamma_reference(q, v, t)
        ap = self._plane(t, "accel")
        for k in range(len(self.disk_body)):
            c, rho, u, e1, e3, d = self._disk(q, k)
            dpsi, dth, dph = v[c + 3:c + 6]
            w = dpsi * Z + dth * e1 + dph * e3
            frame_w = dpsi * Z + dth * e1  # angular velocity of the (e1, u, e3) frame
            gdot = dth * dpsi * cross(Z, e1) + dph * cross(frame_w, e3)
            ddot = -rho * cross(frame_w, u)
            out[self.m_holonomic + 2 * k:self.m_holonomic + 2 * k + 2] = (cross(gdot, d) + cross(w, ddot)
                                                                           - ap)[:2]
        return out


    # --- fast path (module docstring, "Speed"): scalar math per body/disk; the *_reference methods above are the
    # original vectorised forms, kept as the specification (tests/test_performance_equivalence.py) -----------
    def _compile_fast(self) -> None:
        self._disks = [(int(b), float(r)) for b, r in zip(self.disk_body, self.disk_radius)]
        self._plane_const = [f.is_constant for f in self.plane]
        self._plane_cache: tuple | None = None
        self._pos_cache: tuple | None = None
        self._vel_cache: tuple | None = None
        self._plane_arrays_cache: tuple | None = None
        self._plane_motion = motion_evaluator(self.plane)  # t -> [r_p, r_p', r_p''] (9 floats)
        self._plane_quadratic = plane_quadratic(self.plane)
        self._xi_cache: tuple | None = None
        self._J3 = np.ascontiguousarray(np.array(self.inertia, float).reshape(self.nb, 3, 3))
        self._mg3 = np.ascontiguousarray(self.mass[:, None] * self.gravity[None, :]).reshape(self.nb, 3)
        self._k_pos = self._k_vel = None  # bound at the first evaluation, under the kernel policy of the run
        mask = np.ones((self.m, self.n), bool)
        mh = self.m_holonomic
        for k, (b, _) in enumerate(self._disks):
            c = 6 * b
            mask[k, c + 4] = False
            mask[mh + 2 * k:mh + 2 * k + 2, c + 3:c + 6] = False
        #: True where an entry of C never changes (used by the projection to pick C_u)
        self.jacobian_constant_mask = mask

    def _plane_all(self, t: float) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
        """(r_p, r_p', r_p'') of the plane at t, cached for the last t."""
        cache = self._plane_cache
        if cache is not None and cache[0] == t:
            return cache[1]
        vals = self._plane_motion(float(t))
        val = (tuple(vals[0:3]), tuple(vals[3:6]), tuple(vals[6:9]))
        self._plane_cache = (t, val)
        return val

    def plane_arrays(self, t: float) -> tuple[float, FloatArray, FloatArray]:
        """(z_p(t) [m], r_p'(t) (3,) [m/s], r_p''(t) (3,) [m/s^2]) of the plane, cached for the last t."""
        cache = self._plane_arrays_cache
        if cache is not None and cache[0] == t:
            return cache[1]
        quad = self._plane_quadratic
        if quad is not None:  # r_p = c0 + c1 t + c2 t^2 (a still, uniformly moving or accelerating plane)
            c0, c1, c2, twice_c2, still = quad
            if still is not None:
                return still
            t = float(t)
            val = (float(c0[2] + t * (c1[2] + t * c2[2])), c1 + t * twice_c2, twice_c2)
            self._plane_arrays_cache = (t, val)
            return val
        vals = np.array(self._plane_motion(float(t)))
        val = (float(vals[2]), vals[3:6], vals[6:9])
        self._plane_arrays_cache = (t, val)
        return val

    def _position_terms(self, q: FloatArray, t: float) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(M, C, Phi) at (q, t) from the compiled kernel, cached for the last (q, z_p(t)); read-only use."""
        key = q.tobytes()
        zp = self._plane_all(t)[0][2]
        cache = self._pos_cache
        if cache is not None and cache[0] == key and cache[1] == zp:
            return cache[2]
        if self._k_pos is None:
            self._k_pos, self._k_vel = spatial_kernels()
        val = self._k_pos(np.ascontiguousarray(q, dtype=float), self.mass, self._J3, self.disk_body,
                          self.disk_radius, float(zp))
        self._pos_cache = (key, zp, val)
        return val

    def _velocity_terms(self, q: FloatArray, v: FloatArray, t: float) -> tuple[FloatArray, FloatArray, float]:
        """(h without applied loads, eta, kinetic energy) at (q, q', t), cached for the last state."""
        ap = self._plane_all(t)[2]
        key = (q.tobytes(), v.tobytes(), ap)
        cache = self._vel_cache
        if cache is not None and cache[0] == key:
            return cache[1]
        if self._k_vel is None:
            self._k_pos, self._k_vel = spatial_kernels()
        val = self._k_vel(np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(v, dtype=float), self.mass,
                          self._J3, self._mg3, self.disk_body, self.disk_radius, np.array(ap))
        self._vel_cache = (key, val)
        return val

    def mass_matrix(self, q: FloatArray, t: float) -> FloatArray:
        return self._position_terms(q, t)[0].copy()

    def kinetic_energy(self, q: FloatArray, v: FloatArray, t: float) -> float:
        return float(self._velocity_terms(q, v, t)[2])

    def forces(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        if self.loads or self.torques:
            return self.forces_reference(q, v, t)
        return self._velocity_terms(q, v, t)[0].copy()

    def nonconservative_power(self, q: FloatArray, v: FloatArray, t: float) -> float:
        if self.loads or self.torques:
            return self.nonconservative_power_reference(q, v, t)
        return 0.0

    def phi(self, q: FloatArray, t: float) -> FloatArray:
        return self._position_terms(q, t)[2].copy()

    def phi_q(self, q: FloatArray, t: float) -> FloatArray:
        return self._position_terms(q, t)[1][:self.m_holonomic].copy()

    def phi_t(self, q: FloatArray, t: float) -> FloatArray:
        return np.full(self.m_holonomic, -self._plane_all(t)[1][2])

    def gamma(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        return -self._velocity_terms(q, v, t)[1][:self.m_holonomic]

    def constraint_matrix(self, q: FloatArray, t: float) -> FloatArray:
        return self._position_terms(q, t)[1].copy()

    def constraint_matrix_shared(self, q: FloatArray, t: float) -> FloatArray:
        """C(q) itself (cached; callers must not modify it)."""
        return self._position_terms(q, t)[1]

    def xi(self, q: FloatArray, t: float) -> FloatArray:
        cache = self._xi_cache
        if cache is not None and cache[0] == t:
            return cache[1].copy()
        vp = self._plane_all(t)[1]
        nd = len(self._disks)
        out = np.array([-vp[2]] * nd + [-vp[0], -vp[1]] * nd) if nd else np.zeros(0)
        self._xi_cache = (t, out)
        return out.copy()

    def eta(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        return self._velocity_terms(q, v, t)[1].copy()

    # ------------------------------------------------------------------------------------------------------
    def reactions(self, q: FloatArray, lam: FloatArray, t: float) -> dict[str, FloatArray]:
        """Force [N] and moment about the contact point [N m] that the plane applies to each disk (global axes).

        The generalized force of a contact is g = C_rows^T lambda_rows; its translational part is the force f
        (C has I3 there: f = (lambda_x, lambda_y, lambda_z)), its rotational part G_s^T m_cm with m_cm the moment
        about the centre of mass. m_cm = G_s^-T g_rot in closed form (det G_s = -sin theta; least squares at
        the gimbal lock), and the moment about the contact point is m_cm - d x f (zero up to round-off for a
        frictionless point contact: the check that the three rows act at the contact point).
        """
        C = self._position_terms(q, t)[1]
        out: dict[str, FloatArray] = {}
        for k, info in enumerate(self.constraints):
            rows = list(info.rows)
            b = int(self.disk_body[k])
            c, rho = 6 * b, float(self.disk_radius[k])
            lk = lam[rows]
            g = C[rows, c:c + 6].T @ lk
            fx, fy, fz = float(g[0]), float(g[1]), float(g[2])
            g0, g1, g2 = float(g[3]), float(g[4]), float(g[5])
            psi, th = float(q[c + 3]), float(q[c + 4])
            sp, cp, st, ct = math.sin(psi), math.cos(psi), math.sin(th), math.cos(th)
            if abs(st) > 1e-6:  # G_s^T m = g_rot: m_z = g0, cp m_x + sp m_y = g1, st (sp m_x - cp m_y) + ct m_z = g2
                a = (g2 - ct * g0) / st
                mx, my, mz = cp * g1 + sp * a, sp * g1 - cp * a, g0
            else:
                mx, my, mz = np.linalg.lstsq(g_space(psi, th).T, g[3:6], rcond=None)[0]
            dx, dy, dz = rho * sp * ct, -rho * cp * ct, -rho * st  # d = contact point - centre
            out[info.name] = np.array((fx, fy, fz, mx - (dy * fz - dz * fy), my - (dz * fx - dx * fz),
                                       mz - (dx * fy - dy * fx)))
        return out

    def reactions_reference(self, q: FloatArray, lam: FloatArray, t: float) -> dict[str, FloatArray]:
        C = self.constraint_matrix_reference(q, t)
        out: dict[str, FloatArray] = {}
        for k, info in enumerate(self.constraints):
            rows = list(info.rows)
            g = C[rows].T @ lam[rows]
            c, rho, u, e1, e3, d = self._disk(q, k)
            force = g[c:c + 3]
            Gs = g_space(q[c + 3], q[c + 4])
            if abs(math.sin(float(q[c + 4]))) > 1e-6:  # G_s regular (det = -sin theta): the exact solution
                moment_cm = np.linalg.solve(Gs.T, g[c + 3:c + 6])
            else:
                moment_cm = np.linalg.lstsq(Gs.T, g[c + 3:c + 6], rcond=None)[0]
            moment = moment_cm - cross(d, force)  # about the contact point
            out[info.name] = np.concatenate((force, moment))
        return out

    def initial_guess(self) -> FloatArray:
        q = np.zeros(self.n)
        for k, b in enumerate(self.entities.bodies):
            init = b.initial
            ang = np.array([float(init.get(a, 0.0)) for a in ("psi", "theta", "phi")])
            origin = np.array([float(init.get(a, 0.0)) for a in ("x", "y", "z")])
            q[6 * k:6 * k + 3] = origin + rotation(*ang) @ self.com[b.name]
            q[6 * k + 3:6 * k + 6] = ang
        return q

    def held_coordinates(self) -> list[int]:
        return [6 * k + COORDS.index(c) for k, b in enumerate(self.entities.bodies) for c in b.initial.get("hold", [])
                if c in COORDS]

    def initial_velocity_specs(self) -> list[tuple[int, float]]:
        return [(6 * self.index[b] + COORDS.index(c), v) for b, c, v in self.entities.initial_velocities
                if c in COORDS]

    def body_pose(self, q: FloatArray, body: str) -> tuple[FloatArray, FloatArray]:
        """(centre of mass position (3,), rotation matrix (3, 3)) of a body."""
        c = 6 * self.index[body]
        return q[c:c + 3].copy(), rotation(*q[c + 3:c + 6])

    def plane_position(self, t: float) -> FloatArray:
        """Translation r_p(t) [m] of the ground plane."""
        return self._plane(t, "value")

    def describe(self) -> dict[str, Any]:
        return {"n": self.n, "bodies": self.body_names, "rolling_disks": len(self.disk_body)}
