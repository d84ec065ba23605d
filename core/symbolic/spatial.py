"""Symbolic spatial model: free rigid bodies in (x, y, z, psi, theta, phi) and rolling disks on a moving plane.

The same coordinates, rows and labels as :class:`mechstudio.core.systems.spatial.SpatialSystem` ([001], section 5):
six coordinates per body, the centre of mass r = (x, y, z) and 3-1-3 Euler angles alpha = (psi, theta, phi) with
R = Rz(psi) Rx(theta) Rz(phi). Derived here independently of the numeric system:

* Angular velocity by composing the three elementary rotations (psi' about the global z, theta' about the line
  of nodes, phi' about the body z): in the intermediate frame Rz(psi) Rx(theta),
  w_i = Rx(theta)^T (psi' z) + theta' x + phi' z; in body axes w_b = Rz(phi)^T w_i; globally w = Rz(psi) Rx(theta) w_i.
* Angular acceleration eps_b = d/dt w_b (q'' symbols), the acceleration of the centre r''.
* The acceleration energy (Gibbs function) of each body, with J the inertia tensor about the centre of mass in
  body axes::

      S = 1/2 m r''.r'' + 1/2 eps_b^T J eps_b + eps_b . (w_b x J w_b)      (+ terms free of q'')

  dS/dq'' = M q'' + k(q, q') defines the mass matrix M (the q''-Hessian of S) and the velocity terms k, so that
  Appell's equations with q' = H u + h0, q'' = H u' + a0 read H^T (M (H u' + a0) + k) = H^T Q, i.e.
  dG/du' = Q~ ([002], eq. 2.3.19). Lagrange form: M q'' + k = Q + C^T lambda (numeric h = Q - k).
* Q: gravity m g on the centre, applied forces F(t) at body points and applied torques n(t) (global axes, or
  about z when one component is given), by virtual power F.(r' + w x R s) + n.w.
* Rolling disk of radius rho (symmetry axis = body z) on the plane z = z_p(t) translating with r_p(t)
  (ground ``motion``: ``position`` time functions, or ``velocity`` v0 and ``acceleration`` a, r_p = v0 t + a t^2/2):
  d = -rho Rz(psi) Rx(theta) y is the arm from the centre to the contact point; holonomic row
  z + d_z - z_p(t) = z - rho sin(theta) - z_p(t) = 0 (label ``name.z``); nonholonomic rows: the x, y components
  of the contact point's material velocity relative to the plane, r' + w x d - r_p'(t) = 0 (``name.x``,
  ``name.y``). gamma, eta_psi follow by differentiation (:func:`mechstudio.core.symbolic.planar.holonomic_terms`).
"""
from __future__ import annotations

from typing import Any

import sympy as sp

from mechstudio.core.model.document import GROUND, Model
from mechstudio.core.model.timefunc import T, time_function
from mechstudio.core.symbolic.planar import SymbolicModel, holonomic_terms, num, velocity_derivative
from mechstudio.core.symbolic.quasi import coordinate_symbol
from mechstudio.core.symbolic.unsupported import SymbolicUnsupported

COORDS = ("x", "y", "z", "psi", "theta", "phi")
EX, EY, EZ = sp.Matrix([1, 0, 0]), sp.Matrix([0, 1, 0]), sp.Matrix([0, 0, 1])


def rz(a: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(a), -sp.sin(a), 0], [sp.sin(a), sp.cos(a), 0], [0, 0, 1]])


def rx(a: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[1, 0, 0], [0, sp.cos(a), -sp.sin(a)], [0, sp.sin(a), sp.cos(a)]])


def cross(a: sp.Matrix, b: sp.Matrix) -> sp.Matrix:
    return a.cross(b)


def total_derivative(e: sp.Expr | sp.Matrix, q: list[sp.Symbol], qd: list[sp.Symbol],
                     qdd: list[sp.Symbol]) -> Any:
    """d/dt of e(q, q', t) including the q'' terms."""
    if isinstance(e, sp.MatrixBase):
        return e.applyfunc(lambda x: total_derivative(x, q, qd, qdd))
    out = e.diff(T)
    for a, b, c in zip(q, qd, qdd):
        out += e.diff(a) * b + e.diff(b) * c
    return sp.expand(out)


class RigidBodyTerms:
    """Kinematics and acceleration energy of one free body with coordinates q6 = (x, y, z, psi, theta, phi)."""

    def __init__(self, q6: list[sp.Symbol], qd6: list[sp.Symbol], qdd6: list[sp.Symbol], m: sp.Expr,
                 J: sp.Matrix):
        self.q, self.qd, self.qdd = q6, qd6, qdd6
        psi, th, ph = q6[3:]
        dpsi, dth, dph = qd6[3:]
        self.Rnode = rz(psi) * rx(th)  # the intermediate (line of nodes) frame
        self.R = self.Rnode * rz(ph)
        w_i = rx(th).T * (EZ * dpsi) + EX * dth + EZ * dph
        self.w_body = (rz(ph).T * w_i).applyfunc(sp.expand)
        self.w = (self.Rnode * w_i).applyfunc(lambda e: sp.expand(sp.trigsimp(sp.expand(e))))
        self.eps_body = total_derivative(self.w_body, q6, qd6, qdd6)
        acc = sp.Matrix(qdd6[:3])
        self.m, self.J = m, J
        jw = J * self.w_body
        self.gibbs = sp.expand(m * acc.dot(acc) / 2 + (self.eps_body.T * J * self.eps_body)[0, 0] / 2
                               + self.eps_body.dot(cross(self.w_body, jw)))

    def mass_and_velocity_terms(self) -> tuple[sp.Matrix, sp.Matrix]:
        """(M, k) with dS/dq'' = M q'' + k (S = the acceleration energy, module docstring)."""
        grad = sp.Matrix([self.gibbs.diff(s) for s in self.qdd])
        M = grad.jacobian(self.qdd).applyfunc(lambda e: sp.trigsimp(sp.factor_terms(sp.expand(e))))
        k = grad.subs({s: 0 for s in self.qdd}).applyfunc(lambda e: sp.expand(sp.trigsimp(sp.factor_terms(
            sp.expand(e)))))
        return M, k


def disk_contact(body: RigidBodyTerms, rho: sp.Expr, rp: sp.Matrix) -> tuple[sp.Expr, sp.Matrix]:
    """(holonomic row Phi, nonholonomic velocity rows (2,)) of a disk of radius rho on the plane r_p(t)."""
    psi, th = body.q[3], body.q[4]
    d = -rho * (rz(psi) * rx(th) * EY)
    phi_row = body.q[2] + d[2] - rp[2]
    vel = sp.Matrix(body.qd[:3]) + cross(body.w, d) - rp.diff(T)
    return phi_row, vel[:2, 0].applyfunc(lambda e: sp.expand(sp.trigsimp(sp.expand(e))))


def plane_motion(motion: dict[str, Any]) -> sp.Matrix:
    """r_p(t) of the ground plane from the model's ``ground.motion``."""
    if "position" in motion:
        return sp.Matrix([time_function(s).expr for s in motion["position"]][:3])
    v0 = motion.get("velocity", [0.0, 0.0, 0.0])
    a0 = motion.get("acceleration", [0.0, 0.0, 0.0])
    return sp.Matrix([num(v) * T + num(a) * T ** 2 / 2 for v, a in zip(v0, a0)][:3])


def spatial_symbolic(model: Model) -> SymbolicModel:
    """Derive the symbolic spatial model (free bodies + rolling disks); raises SymbolicUnsupported otherwise."""
    ent = model.entities
    other = [f"{j.name} ({j.type})" for j in ent.joints if j.type != "rolling_disk"]
    other += [f"{d.name} (driver)" for d in ent.drivers]
    other += [f"{f.name} ({f.type})" for f in ent.forces if f.type not in ("applied_force", "applied_torque")]
    if other:
        raise SymbolicUnsupported("symbolic derivation of spatial models covers free bodies with rolling disks, "
                                  "applied forces and torques only; not: " + ", ".join(other))
    names = [f"{b.name}.{c}" for b in ent.bodies for c in COORDS]
    q = [coordinate_symbol(c) for c in names]
    qd = [coordinate_symbol(c, 1) for c in names]
    qdd = [coordinate_symbol(c, 2) for c in names]
    n = len(q)
    index = {b.name: k for k, b in enumerate(ent.bodies)}
    bodies: list[RigidBodyTerms] = []
    M = sp.zeros(n, n)
    k_vec = sp.zeros(n, 1)
    Qv = [sp.Integer(0)] * n
    g = [num(c) for c in ent.gravity[:3]]
    gibbs = sp.Integer(0)
    for kb, b in enumerate(ent.bodies):
        c = 6 * kb
        J = sp.Matrix(3, 3, [num(x) for row in b.inertia for x in row])
        body = RigidBodyTerms(q[c:c + 6], qd[c:c + 6], qdd[c:c + 6], num(b.mass), J)
        bodies.append(body)
        Mb, kb_vec = body.mass_and_velocity_terms()
        M[c:c + 6, c:c + 6] = Mb
        k_vec[c:c + 6, 0] = kb_vec
        gibbs += body.gibbs
        for i in range(3):
            Qv[c + i] += num(b.mass) * g[i]
    com = {b.name: b.com[:3] for b in ent.bodies}
    for f in ent.forces:
        if f.body == GROUND:
            continue
        kb = index[f.body]
        body, c = bodies[kb], 6 * kb
        if f.type == "applied_force":
            s = sp.Matrix([num(p - o) for p, o in zip(f.point[:3], com[f.body])])
            F = sp.Matrix([comp.expr for comp in f.force[:3]])
            power = F.dot(sp.Matrix(body.qd[:3]) + cross(body.w, body.R * s))
        else:
            comps = [comp.expr for comp in f.torque]
            nvec = sp.Matrix(comps[:3]) if len(comps) == 3 else sp.Matrix([0, 0, comps[0]])
            power = nvec.dot(body.w)
        for i in range(6):
            Qv[c + i] += sp.expand(power.diff(body.qd[i]))
    rp = plane_motion(ent.ground_motion)
    phi_rows: list[sp.Expr] = []
    nh_rows: list[sp.Expr] = []
    labels_h: list[str] = []
    labels_n: list[str] = []
    for j in ent.joints:
        body = bodies[index[j.body]]
        row, vel = disk_contact(body, num(j.radius), rp)
        phi_rows.append(row)
        nh_rows += list(vel)
        labels_h.append(f"{j.name}.z")
        labels_n += [f"{j.name}.x", f"{j.name}.y"]
    Phi = sp.Matrix(phi_rows) if phi_rows else sp.zeros(0, 1)
    Phi_q, Phi_t, gamma = holonomic_terms(Phi, q, qd)
    if nh_rows:
        vel = sp.Matrix(nh_rows)
        C_psi = vel.jacobian(qd)
        xi_psi = vel.subs({s: 0 for s in qd}).applyfunc(sp.expand)
    else:
        C_psi, xi_psi = sp.zeros(0, n), sp.zeros(0, 1)
    eta_psi = velocity_derivative(C_psi * sp.Matrix(qd) + xi_psi, q, qd).applyfunc(sp.expand)
    extra = {"inertial": k_vec, "gibbs": gibbs, "plane": rp}
    return SymbolicModel(names, q, qd, qdd, M, sp.Matrix(Qv), Phi, Phi_q, Phi_t, gamma, C_psi, xi_psi, eta_psi,
                         labels_h + labels_n, kind="spatial", extra=extra)
