"""Compilation of a planar model into a :class:`~core.systems.base.ConstrainedSystem`.

The constraint rows and force terms come from the element registry (core/elements): each joint, driver and
force element contributes equation primitives (core/elements/primitives), grouped here by kind and evaluated
vectorised; reactions are reported at each element's registry site.

Coordinates ([003]): three per body, q[3k:3k+3] = (x, y, phi) with (x, y) the centre of mass [m] and phi
the body-frame angle [rad]. With the centre of mass as reference point the mass matrix is constant and diagonal,
M = diag(m_k, m_k, J_k), and there are no velocity-dependent inertia terms, so h holds only applied forces:

* gravity:               Q_r = m g
* spring-damper P1-P2:   tension T = k (L - L0) + c L', force +T u on P1 and -T u on P2, u = (P2 - P1)/L
* rotational spring-damper at a revolute joint: torque -k (theta - theta0) - c theta' on body 2, opposite on
  body 1, theta = phi_2 - phi_1
* applied force F(t) at body point s':  Q = (F, (A s') x F);  applied torque T(t): Q_phi = T

A generalized force on body k's coordinates (Fx, Fy, Mz about the centre of mass) maps back to the force and
moment about a point P = r + A s' of the body as (Fx, Fy, Mz - (A s') x F): that is how ``reactions`` turns
the constraint forces C^T lambda into the physical force and moment each joint applies to its second body.
Elements that couple two joints on a carrier (gears, racks, belts) report the physical force between their two
bodies (the radial tooth force added, a rack's tooth force on its pitch line, a belt's span pull), and the joints
they couple report the difference to their rows' generalized forces (``core.elements.base.Coupling``,
``planar_kernels.couple_reactions``): the reported forces on every body still sum to m a and J alpha.

Speed (the same formulas, evaluated with fewer numpy operations; ``*_reference`` methods keep the original
element-by-element code and tests/test_performance_equivalence.py checks equality to 1e-12):

* C = [Phi_q; C_psi] is a constant pattern plus a few varying entries. The constant ones (the +-1 of point
  coincidences, relative angles, coordinate drivers) are written once; the angle columns of all point
  coincidences are one gather of precomputed cos/sin and one scatter; point-line elements and knife edges use
  their element code. ``jacobian_constant_mask`` tells the projection formulation which entries never change.
* cos/sin of the body angles and the rotated points A s' are computed once per q and shared by C, Phi, gamma
  and reactions (cached for the last q: the driver asks for C, Phi and the reactions at the same state several
  times). C is cached for the last q (C depends on q only) and returned as a copy
  (``constraint_matrix_shared`` gives the cached array itself to read-only callers).
* springs and rotational springs scatter their forces with one ``np.bincount``; reactions are computed for
  all constraints at once.

Sharing: a compiled system may be used by several runs and threads at once. Its memos of the last q (and the
last t for ``time_arrays``) are immutable (key, value) tuples replaced by one assignment and their arrays are
never written after they are stored, so a reader always gets a consistent pair (concurrent runs only lose hits);
``fused_data`` and the reaction sites are build-once data (a concurrent first call builds equal data twice).
tests/test_shared_system.py runs threads on one system against private ones.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from mechstudio.core.elements.base import UnsupportedElement
from mechstudio.core.elements.planar import constraint_entries, force_specs
from mechstudio.core.elements.primitives import HOLONOMIC
from mechstudio.core.elements.primitives.forces import BodyTorqueSpec, PointLoadSpec, RotationalSpringSpec, SpringSpec
from mechstudio.core.elements.primitives.frame import BodyIndex, perp, positions, q_ext, rotate
from mechstudio.core.elements.primitives.knife_edge import KnifeEdge, KnifeEdgeSpec
from mechstudio.core.elements.primitives.point_coincidence import PointCoincidence
from mechstudio.core.model.document import GROUND, Model
from mechstudio.core.systems.planar_kernels import (GEOMETRY_LAYOUT, PlanarForces, PlanarGeometry, PlanarReactions,
                                                    PlanarTime, checked_fields, couple_reactions, coupling_forces,
                                                    empty_array)
from mechstudio.core.model.timefunc import motion_evaluator
from mechstudio.core.systems import planar_time
from mechstudio.core.systems.base import ConstrainedSystem, ConstraintInfo
from mechstudio.core.types import FloatArray

COORDS = ("x", "y", "phi")


def _cross2(a: FloatArray, b: FloatArray) -> FloatArray:
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


class PlanarSystem(ConstrainedSystem):
    """A planar multibody system in body coordinates (x, y, phi); see the module docstring."""

    diagonal_mass = True

    def __init__(self, model: Model):
        ent = model.entities
        self.model = model
        self.entities = ent
        self.body_names = [b.name for b in ent.bodies]
        self.nb = len(ent.bodies)
        self.n = 3 * self.nb
        self.coord_names = [f"{b}.{c}" for b in self.body_names for c in COORDS]
        self.index = {name: k for k, name in enumerate(self.body_names)}
        self.index[GROUND] = self.nb
        self.com = {b.name: np.array(b.com[:2]) for b in ent.bodies}
        self.com[GROUND] = np.zeros(2)
        self.bodies = BodyIndex(self.index, self.com)
        self.mass = np.array([b.mass for b in ent.bodies])
        self.inertia = np.array([b.inertia for b in ent.bodies])
        self.mass_diagonal = np.repeat(self.mass, 3)
        self.mass_diagonal[2::3] = self.inertia
        self.gravity = np.array(ent.gravity[:2])
        self._mass = np.diag(self.mass_diagonal)
        self._build_constraints()
        self._build_forces()
        self._compile_fast()

    # ------------------------------------------------------------------------------------------------------
    def _local(self, body: str, point: tuple[float, ...]) -> list[float]:
        """Body-frame point (relative to the frame origin) -> vector from the centre of mass."""
        return self.bodies.local(body, point)

    def _build_constraints(self) -> None:
        """Rows, labels and primitive groups of every constraint element, through the element registry."""
        self.entries = constraint_entries(self.entities)
        infos: list[ConstraintInfo] = []
        specs: dict[type, tuple[list[list[int]], list[Any]]] = {}
        row = 0
        self.m_holonomic = sum(len(e.components) for e in self.entries if e.element.holonomic)
        for e in self.entries:
            rows = tuple(range(row, row + len(e.components)))
            row += len(e.components)
            infos.append(ConstraintInfo(e.name, e.element.info_type, rows, e.components, e.element.holonomic,
                                        e.body1, e.body2))
            first = rows[0] - (0 if e.element.holonomic else self.m_holonomic)
            for spec in e.specs:
                rr, ss = specs.setdefault(type(spec), ([], []))
                rr.append(list(range(first, first + spec.size)))
                ss.append(spec)
                first += spec.size
        self.m_nonholonomic = row - self.m_holonomic
        self.constraints = infos
        self._rheonomic = any(not getattr(getattr(s, "function", None), "is_constant", True)
                              for e in self.entries for s in e.specs)
        self.groups = [group.from_specs(*specs[kind], self.bodies) for kind, (group, _, _) in HOLONOMIC.items()
                       if kind in specs]
        knife_spec = KnifeEdgeSpec
        unknown = set(specs) - set(HOLONOMIC) - {knife_spec}
        if unknown:
            raise UnsupportedElement(f"no planar numeric form for the primitives {sorted(k.__name__ for k in unknown)}")
        self.knife = KnifeEdge.from_specs(*specs[knife_spec], self.bodies) if knife_spec in specs else None

    def _build_forces(self) -> None:
        """Arrays of the force primitives of every force element (through the element registry)."""
        specs = force_specs(self.entities)
        springs = [s for s in specs if isinstance(s, SpringSpec)]
        self.spring_b1 = np.array([self.index[f.body1] for f in springs], np.int64)
        self.spring_b2 = np.array([self.index[f.body2] for f in springs], np.int64)
        self.spring_s1 = np.array([self._local(f.body1, f.point1) for f in springs]).reshape(-1, 2)
        self.spring_s2 = np.array([self._local(f.body2, f.point2) for f in springs]).reshape(-1, 2)
        self.spring_k = np.array([f.stiffness for f in springs])
        self.spring_c = np.array([f.damping for f in springs])
        self.spring_l0 = np.array([f.free_length for f in springs])
        rot = [s for s in specs if isinstance(s, RotationalSpringSpec)]
        self.rot_b1 = np.array([self.index[f.body1] for f in rot], np.int64)
        self.rot_b2 = np.array([self.index[f.body2] for f in rot], np.int64)
        self.rot_k = np.array([f.stiffness for f in rot])
        self.rot_c = np.array([f.damping for f in rot])
        self.rot_theta0 = np.array([f.free_angle for f in rot])
        self.loads = [(self.index[f.body], np.array(self._local(f.body, f.point)), f.components)
                      for f in specs if isinstance(f, PointLoadSpec)]
        self.torques = [(self.index[f.body], f.torque) for f in specs if isinstance(f, BodyTorqueSpec)]
        self._gravity_force = np.zeros(self.n)
        self._gravity_force[0::3] = self.mass * self.gravity[0]
        self._gravity_force[1::3] = self.mass * self.gravity[1]
        b1, b2 = self.spring_b1, self.spring_b2
        self._spring_idx = np.concatenate((3 * b1, 3 * b1 + 1, 3 * b1 + 2, 3 * b2, 3 * b2 + 1, 3 * b2 + 2))
        self._rot_idx = np.concatenate((3 * self.rot_b2 + 2, 3 * self.rot_b1 + 2))

    # ------------------------------------------------------------------------------------------------------
    @property
    def rheonomic(self) -> bool:
        return self._rheonomic

    def mass_matrix(self, q: FloatArray, t: float) -> FloatArray:
        return self._mass

    def _spring_state(self, qe: FloatArray, ve: FloatArray) -> tuple[FloatArray, ...]:
        b1, b2 = self.spring_b1, self.spring_b2
        a1, a2 = rotate(qe[3 * b1 + 2], self.spring_s1), rotate(qe[3 * b2 + 2], self.spring_s2)
        p1 = positions(qe, b1) + a1
        p2 = positions(qe, b2) + a2
        v1 = positions(ve, b1) + perp(a1) * ve[3 * b1 + 2][:, None]
        v2 = positions(ve, b2) + perp(a2) * ve[3 * b2 + 2][:, None]
        d = p2 - p1
        length = np.maximum(np.linalg.norm(d, axis=1), 1e-300)
        u = d / length[:, None]
        rate = np.einsum("ka,ka->k", u, v2 - v1)
        return a1, a2, u, length, rate

    def forces_reference(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        h = self._gravity_force.copy()
        he = np.concatenate((h, np.zeros(3)))
        if self.spring_k.size:
            qe, ve = q_ext(q), q_ext(v)
            a1, a2, u, length, rate = self._spring_state(qe, ve)
            tension = self.spring_k * (length - self.spring_l0) + self.spring_c * rate
            f1 = u * tension[:, None]  # force on P1; -f1 on P2
            for b, a, f in ((self.spring_b1, a1, f1), (self.spring_b2, a2, -f1)):
                np.add.at(he, 3 * b, f[:, 0])
                np.add.at(he, 3 * b + 1, f[:, 1])
                np.add.at(he, 3 * b + 2, _cross2(a, f))
        if self.rot_k.size:
            qe, ve = q_ext(q), q_ext(v)
            theta = qe[3 * self.rot_b2 + 2] - qe[3 * self.rot_b1 + 2]
            rate = ve[3 * self.rot_b2 + 2] - ve[3 * self.rot_b1 + 2]
            torque = -self.rot_k * (theta - self.rot_theta0) - self.rot_c * rate
            np.add.at(he, 3 * self.rot_b2 + 2, torque)
            np.add.at(he, 3 * self.rot_b1 + 2, -torque)
        for b, s, comps in self.loads:
            f = np.array([c.value(t) for c in comps])
            a = rotate(np.array([q[3 * b + 2]]), s[None, :])[0]
            he[3 * b:3 * b + 2] += f
            he[3 * b + 2] += a[0] * f[1] - a[1] * f[0]
        for b, c in self.torques:
            he[3 * b + 2] += c.value(t)
        return he[:self.n]

    def potential_energy(self, q: FloatArray, t: float) -> float:
        e = -float(self.mass @ (q[0::3] * self.gravity[0] + q[1::3] * self.gravity[1]))
        if self.spring_k.size:
            qe = q_ext(q)
            _, _, _, length, _ = self._spring_state(qe, np.zeros_like(qe))
            e += float(0.5 * self.spring_k @ (length - self.spring_l0) ** 2)
        if self.rot_k.size:
            qe = q_ext(q)
            theta = qe[3 * self.rot_b2 + 2] - qe[3 * self.rot_b1 + 2]
            e += float(0.5 * self.rot_k @ (theta - self.rot_theta0) ** 2)
        return e

    def nonconservative_power(self, q: FloatArray, v: FloatArray, t: float) -> float:
        p = 0.0
        if self.spring_c.size:
            _, _, _, _, rate = self._spring_state(q_ext(q), q_ext(v))
            p -= float(self.spring_c @ rate ** 2)
        if self.rot_c.size:
            ve = q_ext(v)
            rate = ve[3 * self.rot_b2 + 2] - ve[3 * self.rot_b1 + 2]
            p -= float(self.rot_c @ rate ** 2)
        for b, s, comps in self.loads:
            f = np.array([c.value(t) for c in comps])
            a = rotate(np.array([q[3 * b + 2]]), s[None, :])[0]
            vp = v[3 * b:3 * b + 2] + v[3 * b + 2] * np.array([-a[1], a[0]])
            p += float(f @ vp)
        for b, c in self.torques:
            p += c.value(t) * v[3 * b + 2]
        return p

    # ------------------------------------------------------------------------------------------------------
    def phi_reference(self, q: FloatArray, t: float) -> FloatArray:
        out = np.empty(self.m_holonomic)
        qe = q_ext(q)
        for g in self.groups:
            g.phi(qe, t, out)
        return out

    def phi_q_reference(self, q: FloatArray, t: float) -> FloatArray:
        out = np.zeros((self.m_holonomic, self.n + 3))
        qe = q_ext(q)
        for g in self.groups:
            g.jacobian(qe, t, out)
        return out[:, :self.n]

    def gamma_reference(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        out = np.empty(self.m_holonomic)
        qe, ve = q_ext(q), q_ext(v)
        for g in self.groups:
            g.gamma(qe, ve, t, out)
        return out

    def constraint_matrix_reference(self, q: FloatArray, t: float) -> FloatArray:
        out = np.zeros((self.m, self.n + 3))
        qe = q_ext(q)
        for g in self.groups:
            g.jacobian(qe, t, out)
        if self.knife is not None:
            self.knife.matrix(qe, t, out[self.m_holonomic:])
        return out[:, :self.n]

    def xi_reference(self, q: FloatArray, t: float) -> FloatArray:
        out = np.zeros(self.m)
        for g in self.groups:
            g.phi_t(t, out)
        return out

    def eta_reference(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        out = np.empty(self.m)
        out[:self.m_holonomic] = -self.gamma_reference(q, v, t)
        if self.knife is not None:
            self.knife.eta(q_ext(q), q_ext(v), t, out[self.m_holonomic:])
        return out

    # ------------------------------------------------------------------------------------------------------
    def reactions_reference(self, q: FloatArray, lam: FloatArray, t: float) -> dict[str, FloatArray]:
        """Element by element: the generalized force C_rows^T lambda_rows on the reported body's (x, y, phi),
        times the site's sign, its moment moved to the site's point (see the module docstring)."""
        C = self.constraint_matrix_reference(q, t)
        out: dict[str, FloatArray] = {}
        for c, e in zip(self.constraints, self.entries):
            rows = list(c.rows)
            generalized = C[rows].T @ lam[rows]  # (n,) force of this constraint on all coordinates
            k = self.index[e.site.body]
            g = generalized[3 * k:3 * k + 3] * e.site.sign
            force, moment = g[:2], g[2]
            if e.site.point is not None:
                arm = rotate(np.array([q[3 * k + 2]]), np.array([self._local(e.site.body, e.site.point)]))[0]
                moment = moment - (arm[0] * force[1] - arm[1] * force[0])
            if e.site.radial is not None:  # gears, racks, belts: the radial part (ReactionSite.radial)
                carrier, normal, k_force, k_moment = e.site.radial
                n = rotate(np.array([self._angle(q, carrier)]), np.array([normal[:2]], float))[0]
                force = force + (k_force * np.hypot(force[0], force[1]) + k_moment * abs(moment)) * n
            out[c.name] = np.array([force[0], force[1], 0.0, 0.0, 0.0, moment])
        self._couple_reference(q, C, lam, out)
        return out

    def _angle(self, q: FloatArray, body: str) -> float:
        return 0.0 if body == GROUND else float(q[3 * self.index[body] + 2])

    def _site_position(self, q: FloatArray, site: Any) -> FloatArray:
        """Global position [m] of a reaction site's point (its body's centre of mass when it has none)."""
        if site.point is None:
            k = self.index[site.body]
            return np.asarray(q[3 * k:3 * k + 2], float)
        return self.point_position(q, site.body, site.point)

    def _couple_reference(self, q: FloatArray, C: FloatArray, lam: FloatArray, out: dict[str, FloatArray]) -> None:
        """The couplings' part of the reactions, element by element (core.elements.base.Coupling; the same
        formulas as ``planar_kernels.couple_reactions``): wrenches as (Fx, Fy, moment about the origin)."""
        def cross(a: FloatArray, b: FloatArray) -> float:
            return float(a[0] * b[1] - a[1] * b[0])
        sites = {e.name: e.site for e in self.entries if e.element.section == "joints"}
        for c, e in zip(self.constraints, self.entries):
            cp = e.site.coupling
            if cp is None:
                continue
            rows = list(c.rows)
            gen = C[rows].T @ lam[rows]  # the rows' generalized force on every coordinate
            G: dict[str, FloatArray] = {}
            for b in (cp.body1, cp.body2, cp.carrier):
                if b != GROUND:
                    k = self.index[b]
                    f = gen[3 * k:3 * k + 2]
                    G[b] = np.array([f[0], f[1], gen[3 * k + 2] + cross(q[3 * k:3 * k + 2], f)])
            if GROUND in (cp.body1, cp.body2, cp.carrier):  # invariance: the three sum to zero
                G[GROUND] = -sum(G.values())
            r = out[c.name]
            A, F = self._site_position(q, e.site), r[:2].copy()
            if cp.pitch is not None:
                body, point, offset = cp.pitch
                P = self.point_position(q, body, point) + rotate(np.array([self._angle(q, cp.carrier)]),
                                                                 np.array([offset[:2]], float))[0]
                r[5] = cross(P - A, F)
            W = np.array([F[0], F[1], r[5] + cross(A, F)])
            D = {cp.body2: W - G[cp.body2], cp.body1: -W - G[cp.body1]}
            for joint, mounted in ((cp.joint1, cp.body1), (cp.joint2, cp.body2)):
                site = sites[joint]
                d = (-site.sign if site.body == mounted else site.sign) * D[mounted]
                out[joint][:2] += d[:2]
                out[joint][5] += d[2] - cross(self._site_position(q, site), d[:2])

    # --- fast path (see the module docstring, "Speed"): the *_reference methods above are the element-by-element
    # originals, kept as the specification the fast ones are tested against (tests/test_performance_equivalence.py)
    def _compile_fast(self) -> None:
        n, m = self.n, self.m
        mh = self.m_holonomic
        self._co = next((g for g in self.groups if isinstance(g, PointCoincidence)), None)
        self._other = [g for g in self.groups if not (g is self._co or g.constant_jacobian)]
        self._other_rows = np.sort(np.concatenate([g.rows.ravel() for g in self._other]
                                                  + ([self.knife.rows + mh] if self.knife is not None else [])
                                                  + [np.zeros(0, np.int64)]).astype(np.int64))
        self._rheo_groups = [g for g in self.groups if g.rheonomic]
        # constant entries of C: the x, y columns of point coincidences, relative angles, coordinate drivers
        W = n + 3
        base = np.zeros((m, W))
        varying = np.zeros((m, W), bool)
        zero = np.zeros(W)
        for g in self.groups:
            if g.constant_jacobian:
                g.jacobian(zero, 0.0, base)
            elif isinstance(g, PointCoincidence):
                tmp = np.zeros((m, W))
                g.jacobian(zero, 0.0, tmp)
                rx, ry = g.rows[:, 0], g.rows[:, 1]
                for b in (g.bi, g.bj):
                    base[rx, 3 * b] = tmp[rx, 3 * b]
                    base[ry, 3 * b + 1] = tmp[ry, 3 * b + 1]
                    varying[rx, 3 * b + 2] = varying[ry, 3 * b + 2] = True
            else:  # e.g. point-line (prismatic, distance driver): every entry of its bodies may vary
                r = g.rows[:, 0]
                for b in g.bodies_touched():
                    for c in range(3):
                        varying[r, 3 * b + c] = True
        if self.knife is not None:
            r = self.knife.rows + mh
            for c in range(3):
                varying[r, 3 * self.knife.body + c] = True
        #: True where an entry of C = [Phi_q; C_psi] never changes (used by the projection to pick C_u)
        self.jacobian_constant_mask = ~varying[:, :n]
        self._C_base = np.append(base[:, :n].ravel(), 0.0)  # + one dummy slot for the ground's entries
        if self._co is not None:
            g = self._co
            K = g.count
            self._co_b = np.concatenate((g.bi, g.bj))
            self._co_sx = np.ascontiguousarray(np.concatenate((g.si[:, 0], g.sj[:, 0])))
            self._co_sy = np.ascontiguousarray(np.concatenate((g.si[:, 1], g.sj[:, 1])))
            rx, ry = g.rows[:, 0], g.rows[:, 1]
            pcol = 3 * self._co_b + 2
            dummy = m * n

            def flat(rows: FloatArray, cols: FloatArray) -> FloatArray:
                return np.where(cols < n, np.concatenate((rows, rows)) * n + cols, dummy)
            # C[rx, p_i] = -a_iy, C[rx, p_j] = a_jy, C[ry, p_i] = a_ix, C[ry, p_j] = -a_jx
            self._co_idx = np.concatenate((flat(rx, pcol), flat(ry, pcol)))
            one = np.ones(K)
            self._co_sgn = np.concatenate((-one, one, one, -one))
            self._co_rx, self._co_ry = rx, ry
            self._co_K = K
        self._fused_data: tuple | None = None
        self._cache_q: tuple | None = None  # (q bytes, (cos, sin, ax, ay)) of the last q
        self._cache_C: tuple | None = None  # (q bytes, C) of the last q (C is independent of t here)
        self._react = None
        self._radial: tuple | None = None  # gears', racks' and belts' radial data (_radial_sites)
        self._couplings: tuple | None = None  # elements that couple two joints (_coupling_sites)

    def _rot(self, q: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """cos, sin of every body angle (ground appended: 1, 0) and the rotated points A s' of the point
        coincidences (x and y components, i-points then j-points); cached for the last q."""
        key = q.tobytes()
        cache = self._cache_q
        if cache is not None and cache[0] == key:
            return cache[1]
        phi = q[2::3]
        c = np.empty(self.nb + 1)
        s = np.empty(self.nb + 1)
        np.cos(phi, out=c[:-1])
        np.sin(phi, out=s[:-1])
        c[-1], s[-1] = 1.0, 0.0
        if self._co is not None:
            cb, sb = c[self._co_b], s[self._co_b]
            ax = cb * self._co_sx - sb * self._co_sy
            ay = sb * self._co_sx + cb * self._co_sy
        else:
            ax = ay = None
        val = (c, s, ax, ay)
        self._cache_q = (key, val)
        return val

    def constraint_matrix(self, q: FloatArray, t: float) -> FloatArray:
        return self.constraint_matrix_shared(q, t).copy()

    def constraint_matrix_shared(self, q: FloatArray, t: float) -> FloatArray:
        """C(q, t) without the defensive copy: the cached array itself, which the caller must not modify."""
        key = q.tobytes()
        cache = self._cache_C
        if cache is not None and cache[0] == key:
            return cache[1]
        m, n = self.m, self.n
        flat = self._C_base.copy()
        if self._co is not None:
            _, _, ax, ay = self._rot(q)
            flat[self._co_idx] = np.concatenate((ay, ax)) * self._co_sgn
        C = flat[:m * n].reshape(m, n)
        if self._other_rows.size:
            out = np.zeros((m, n + 3))
            qe = q_ext(q)
            for g in self._other:
                g.jacobian(qe, t, out)
            if self.knife is not None:
                self.knife.matrix(qe, t, out[self.m_holonomic:])
            C[self._other_rows] = out[self._other_rows, :n]
        self._cache_C = (key, C)
        return C

    def phi_q(self, q: FloatArray, t: float) -> FloatArray:
        return self.constraint_matrix(q, t)[:self.m_holonomic]

    def phi(self, q: FloatArray, t: float) -> FloatArray:
        out = np.empty(self.m_holonomic)
        if self._co is not None:
            _, _, ax, ay = self._rot(q)
            b, K = self._co_b, self._co_K
            qe = q_ext(q)
            x = qe[3 * b] + ax
            y = qe[3 * b + 1] + ay
            out[self._co_rx] = x[:K] - x[K:]
            out[self._co_ry] = y[:K] - y[K:]
        qe = None
        for g in self.groups:
            if g is not self._co:
                if qe is None:
                    qe = q_ext(q)
                g.phi(qe, t, out)
        return out

    def phi_t(self, q: FloatArray, t: float) -> FloatArray:
        out = np.zeros(self.m_holonomic)
        for g in self._rheo_groups:
            g.phi_t(t, out)
        return out

    def xi(self, q: FloatArray, t: float) -> FloatArray:
        out = np.zeros(self.m)
        if not self._rheo_groups:
            return out
        for g in self._rheo_groups:
            g.phi_t(t, out)
        return out

    def gamma(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        out = np.empty(self.m_holonomic)
        self._gamma_into(q, v, t, out)
        return out

    def _gamma_into(self, q: FloatArray, v: FloatArray, t: float, out: FloatArray) -> None:
        ve = None
        if self._co is not None:
            _, _, ax, ay = self._rot(q)
            K = self._co_K
            ve = q_ext(v)
            w2 = ve[3 * self._co_b + 2]
            w2 = w2 * w2
            gx = ax * w2
            gy = ay * w2
            out[self._co_rx] = gx[:K] - gx[K:]
            out[self._co_ry] = gy[:K] - gy[K:]
        qe = None
        for g in self.groups:
            if g is not self._co:
                if qe is None:
                    qe = q_ext(q)
                    ve = q_ext(v) if ve is None else ve
                g.gamma(qe, ve, t, out)

    def eta(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        out = np.empty(self.m)
        mh = self.m_holonomic
        self._gamma_into(q, v, t, out)
        np.negative(out[:mh], out=out[:mh])
        if self.knife is not None:
            self.knife.eta(q_ext(q), q_ext(v), t, out[mh:])
        return out

    def forces(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        if not (self.spring_k.size or self.rot_k.size or self.loads or self.torques):
            return self._gravity_force.copy()
        n = self.n
        he = np.zeros(n + 3)
        he[:n] = self._gravity_force
        if self.spring_k.size:
            qe, ve = q_ext(q), q_ext(v)
            a1, a2, u, length, rate = self._spring_state(qe, ve)
            tension = self.spring_k * (length - self.spring_l0) + self.spring_c * rate
            f1 = u * tension[:, None]  # force on P1; -f1 on P2
            vals = np.concatenate((f1[:, 0], f1[:, 1], _cross2(a1, f1), -f1[:, 0], -f1[:, 1], -_cross2(a2, f1)))
            he += np.bincount(self._spring_idx, weights=vals, minlength=n + 3)
        if self.rot_k.size:
            qe, ve = q_ext(q), q_ext(v)
            theta = qe[3 * self.rot_b2 + 2] - qe[3 * self.rot_b1 + 2]
            rate = ve[3 * self.rot_b2 + 2] - ve[3 * self.rot_b1 + 2]
            torque = -self.rot_k * (theta - self.rot_theta0) - self.rot_c * rate
            he += np.bincount(self._rot_idx, weights=np.concatenate((torque, -torque)), minlength=n + 3)
        for b, s, comps in self.loads:
            f = np.array([c.value(t) for c in comps])
            a = rotate(np.array([q[3 * b + 2]]), s[None, :])[0]
            he[3 * b:3 * b + 2] += f
            he[3 * b + 2] += a[0] * f[1] - a[1] * f[0]
        for b, c in self.torques:
            he[3 * b + 2] += c.value(t)
        return he[:n]

    def kinetic_energy(self, q: FloatArray, v: FloatArray, t: float) -> float:
        return float(0.5 * (v * self.mass_diagonal) @ v)

    def reactions(self, q: FloatArray, lam: FloatArray, t: float) -> dict[str, FloatArray]:
        """Vectorised over the constraints (same formulas as :meth:`reactions_reference`)."""
        R = self._react
        if R is None:  # build-once data (see "Sharing" in the module docstring)
            R = self._react = self._compile_reactions()
        rows, cols, sign, body, arm, names = R
        C = np.zeros((self.m + 1, self.n + 3))  # a zero row for the padding, zero columns for the ground
        C[:self.m, :self.n] = self.constraint_matrix(q, t)
        lam_p = np.append(lam, 0.0)[rows]  # (nc, 3)
        g = np.einsum("cr,crj->cj", lam_p, C[rows[:, :, None], cols[:, None, :]]) * sign[:, None]
        c, s, _, _ = self._rot(q)
        cb, sb = c[body], s[body]
        ax = cb * arm[:, 0] - sb * arm[:, 1]
        ay = sb * arm[:, 0] + cb * arm[:, 1]
        moment = g[:, 2] - (ax * g[:, 1] - ay * g[:, 0])
        out = np.zeros((len(names), 6))
        out[:, 0], out[:, 1], out[:, 5] = g[:, 0], g[:, 1], moment
        rb, rn, rt, rm = self._radial_sites()
        if rt.any() or rm.any():  # gears, racks, belts: the radial part (ReactionSite.radial)
            cb, sb = c[rb], s[rb]
            size = rt * np.hypot(g[:, 0], g[:, 1]) + rm * np.abs(moment)
            out[:, 0] += size * (cb * rn[:, 0] - sb * rn[:, 1])
            out[:, 1] += size * (sb * rn[:, 0] + cb * rn[:, 1])
        cp = self._coupling_sites()
        if len(cp[0]):  # the elements that couple two joints (same code as the compiled path)
            react = (rows, sign, body, arm, rb, rn, rt, rm, *cp)
            couple_reactions(q, coupling_forces(C[:self.m, :self.n], lam, react), react, out)
        return dict(zip(names, out))

    def _radial_sites(self) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """(carrier index (nc,), unit n' in the carrier's frame (nc, 2), k_F (nc,), k_M (nc,)) of every
        constraint's ReactionSite.radial (gears, racks, belts; 0 elsewhere), build-once data."""
        R = self._radial
        if R is None:  # build-once data (see "Sharing" in the module docstring)
            nc = len(self.entries)
            body, normal = np.full(nc, self.nb, np.int64), np.zeros((nc, 2))
            k_force, k_moment = np.zeros(nc), np.zeros(nc)
            for i, e in enumerate(self.entries):
                if e.site.radial is not None:
                    carrier, n, kf, km = e.site.radial
                    body[i], normal[i], k_force[i], k_moment[i] = self.index[carrier], n[:2], kf, km
            R = self._radial = (body, normal, k_force, k_moment)
        return R

    def _coupling_sites(self) -> tuple[FloatArray, ...]:
        """The couplings' arrays of PlanarReactions (cp_e, cp_j1, cp_j2, cp_b1, cp_b2, cp_bc, cp_pitch, cp_pb,
        cp_ps, cp_po; core.elements.base.Coupling), one entry per element that couples two joints; build-once
        data."""
        R = self._couplings
        if R is None:  # build-once data (see "Sharing" in the module docstring)
            joints = {e.name: i for i, e in enumerate(self.entries) if e.element.section == "joints"}
            found = [(i, e.site.coupling) for i, e in enumerate(self.entries) if e.site.coupling is not None]
            ints = np.zeros((6, len(found)), np.int64)
            pitch, pb = np.zeros(len(found)), np.full(len(found), self.nb, np.int64)
            ps, po = np.zeros((len(found), 2)), np.zeros((len(found), 2))
            for k, (i, cp) in enumerate(found):
                ints[:, k] = (i, joints[cp.joint1], joints[cp.joint2], self.index[cp.body1], self.index[cp.body2],
                              self.index[cp.carrier])
                if cp.pitch is not None:
                    body, point, offset = cp.pitch
                    pitch[k], pb[k], ps[k], po[k] = 1.0, self.index[body], self._local(body, point), offset[:2]
            R = self._couplings = (*(np.ascontiguousarray(a) for a in ints), pitch, pb, ps, po)
        return R

    def _compile_reactions(self) -> tuple:
        """(rows, cols, sign, body, arm, names) of every constraint from its element's reaction site: its rows
        (padded with m, a zero row), the reported body's columns, the sign and the arm s' of the site's point."""
        nc = len(self.constraints)
        rows = np.full((nc, 3), self.m, np.int64)
        cols = np.zeros((nc, 3), np.int64)
        sign = np.ones(nc)
        body = np.zeros(nc, np.int64)
        arm = np.zeros((nc, 2))
        for i, (c, e) in enumerate(zip(self.constraints, self.entries)):
            rows[i, :len(c.rows)] = c.rows
            k = self.index[e.site.body]
            cols[i] = 3 * k + np.arange(3)
            sign[i], body[i] = e.site.sign, k
            if e.site.point is not None:
                arm[i] = self._local(e.site.body, e.site.point)
        return rows, cols, sign, body, arm, [c.name for c in self.constraints]

    def contact_columns(self, q: FloatArray, reactions: FloatArray) -> dict[str, FloatArray]:
        """Contacts: ``reaction.<name>.<part>`` time series of the elements that decompose their
        reaction (ElementType.contact_components: a rolling disk's normal and friction force, a cam's contact
        force [N]) for frames q (k, n) and reactions (k, n_constraints, 6)."""
        cols: dict[str, FloatArray] = {}
        joints = {j.name: j for j in self.entities.joints}
        for c_idx, e in enumerate(self.entries):
            joint = joints.get(e.name)
            for k in range(len(q) if joint is not None else 0):
                parts = e.element.contact_components(joint, lambda b, p, k=k: self.point_position(q[k], b, p),
                                                     reactions[k, c_idx])
                if not parts:  # not a contact
                    break
                for part, value in parts.items():
                    cols.setdefault(f"reaction.{e.name}.{part}", np.zeros(len(q)))[k] = value
        return cols

    # --- data of the compiled terms (core.systems.planar_kernels) for the fused projection path ------------------------
    def fused_data(self) -> tuple[tuple, tuple, tuple]:
        """(geo, frc, react): the element data ``mechstudio.core.systems.planar_kernels`` reads, built once, as plain tuples in the
        field order of its PlanarGeometry, PlanarForces and PlanarReactions (see its docstring; wrap them,
        e.g. ``PlanarGeometry(*geo)``, for access by name)."""
        data = self._fused_data
        if data is None:  # build-once data (see "Sharing" in the module docstring)
            data = self._fused_data = self._build_fused_data()
        return data

    def _build_fused_data(self) -> tuple[tuple, tuple, tuple]:
        i8 = lambda x: np.ascontiguousarray(np.asarray(x, np.int64).ravel())  # noqa: E731
        f2 = lambda x: np.ascontiguousarray(np.asarray(x, float).reshape(-1, 2))  # noqa: E731
        f1 = lambda x: np.ascontiguousarray(np.asarray(x, float).ravel())  # noqa: E731
        fields: dict[str, Any] = {}  # each primitive group's arrays, under its COMPILED prefix
        for g in (*self.groups, *([self.knife] if self.knife is not None else [])):
            fields.update(checked_fields(g, g.compiled_fields(self.m_holonomic)))
        geo = PlanarGeometry(self.nb, self.m, self.m_holonomic,
                             **{name: np.ascontiguousarray(fields[name]) if name in fields else empty_array(kind)
                                for name, kind in GEOMETRY_LAYOUT[3:]})
        frc = PlanarForces(mass_diagonal=f1(self.mass_diagonal), gravity_force=f1(self._gravity_force),
                           sp_b1=i8(self.spring_b1), sp_b2=i8(self.spring_b2), sp_s1=f2(self.spring_s1),
                           sp_s2=f2(self.spring_s2), sp_k=f1(self.spring_k), sp_c=f1(self.spring_c),
                           sp_l0=f1(self.spring_l0), rt_b1=i8(self.rot_b1), rt_b2=i8(self.rot_b2),
                           rt_k=f1(self.rot_k), rt_c=f1(self.rot_c), rt_th0=f1(self.rot_theta0),
                           ld_b=i8([b for b, _, _ in self.loads]), ld_s=f2([s for _, s, _ in self.loads]),
                           tq_b=i8([b for b, _ in self.torques]))
        rows, cols, sign, body, arm, _ = self._compile_reactions()
        rb, rn, rt, rm = self._radial_sites()
        cp = self._coupling_sites()
        react = PlanarReactions(np.ascontiguousarray(rows), f1(sign), i8(body), f2(arm), i8(rb), f2(rn), f1(rt),
                                f1(rm), *(i8(a) for a in cp[:6]), f1(cp[6]), i8(cp[7]), f2(cp[8]), f2(cp[9]))
        # time functions: one evaluator for the rheonomic rows, the load components and the torques
        fval = np.zeros(self.m_holonomic)
        timed: list[tuple[int, Any]] = []
        for g in self.groups:
            column = getattr(g, "f", None)  # the TimeColumn of groups whose rows have an f(t)
            if column is not None:
                fval[g.rows[:, 0]] = column.const
                timed += [(int(g.rows[k, 0]), column.functions[k]) for k in column.timed]
        functions = [f for _, f in timed] + [c for _, _, comps in self.loads for c in comps[:2]] + \
            [c for _, c in self.torques]
        self._timed_rows = np.array([r for r, _ in timed], np.int64)
        self._time_eval = motion_evaluator(functions) if functions else None
        self._time_constant = all(getattr(f, "is_constant", False) for f in functions)
        self._n_timed, self._n_functions = len(timed), len(functions)
        self._time_base = fval
        self._time_cache: tuple | None = None
        slots: list[tuple[int, int, Any]] = []  # (destination, index, function) of planar_time.pack
        for r, f in timed:
            slots += [(planar_time.FVAL, r, f), (planar_time.XI, r, f), (planar_time.FACCEL, r, f)]
        slots += [(planar_time.LOAD, 2 * i + c, f) for i, (_, _, comps) in enumerate(self.loads)
                  for c, f in enumerate(comps[:2])]
        slots += [(planar_time.TORQUE, i, f) for i, (_, f) in enumerate(self.torques)]
        self._time_slots = [s for s in slots if not getattr(s[2], "is_constant", True)]
        self._packed_time: list[Any] = []
        return tuple(geo), tuple(frc), tuple(react)

    def packed_time(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(TI, TF): the time arrays of :meth:`time_arrays` as compiled programs for compiled code
        (``mechstudio.core.systems.planar_time``: the values of the functions that do not depend on t, a program per
        function that does), or None when one of them has no compiled form; build-once data."""
        self.fused_data()
        if not self._packed_time:  # build-once data (see "Sharing" in the module docstring)
            base = tuple(np.array(a, dtype=float) for a in self.time_arrays(0.0))
            counts = (self.m_holonomic, self.m, len(self.loads), len(self.torques))
            self._packed_time = [planar_time.pack(counts, base, self._time_slots)]
        return self._packed_time[0]

    def time_independent(self) -> bool:
        """True when nothing in the model depends on t (every driver and load a constant): the time arrays of
        :meth:`time_arrays` are then constant."""
        self.fused_data()
        return self._time_constant

    def time_arrays(self, t: float) -> tuple[FloatArray, ...]:
        """(f(t) per holonomic row, f''(t) per holonomic row, xi (m,), applied forces (L, 2) [N], applied torques
        (T,) [N m]) at t for ``mechstudio.core.systems.planar_kernels``, a plain tuple in PlanarTime's field order; cached for the
        last t (constant when nothing depends on t)."""
        self.fused_data()
        cache = self._time_cache
        if cache is not None and (cache[0] == t or self._time_eval is None):
            return cache[1]
        mh, m = self.m_holonomic, self.m
        fval, faccel, xi = self._time_base.copy(), np.zeros(mh), np.zeros(m)
        nl, nt = len(self.loads), len(self.torques)
        loads, torques = np.zeros((nl, 2)), np.zeros(nt)
        if self._time_eval is not None:
            vals = self._time_eval(float(t))
            F, k = self._n_functions, self._n_timed
            rows = self._timed_rows
            fval[rows] = vals[:k]
            xi[rows] = np.negative(vals[F:F + k])
            faccel[rows] = vals[2 * F:2 * F + k]
            loads[:] = np.reshape(vals[k:k + 2 * nl], (nl, 2))
            torques[:] = vals[k + 2 * nl:F]
        val = tuple(PlanarTime(fval, faccel, xi, loads, torques))
        self._time_cache = (t, val)
        return val

    # ------------------------------------------------------------------------------------------------------
    def initial_guess(self) -> FloatArray:
        q = np.zeros(self.n)
        for k, b in enumerate(self.entities.bodies):
            init = b.initial
            phi = float(init.get("phi", 0.0))
            c = rotate(np.array([phi]), np.array([b.com[:2]]))[0]
            q[3 * k:3 * k + 3] = (float(init.get("x", 0.0)) + c[0], float(init.get("y", 0.0)) + c[1], phi)
        return q

    def initial_velocity_specs(self) -> list[tuple[int, float]]:
        out = []
        for body, coord, value in self.entities.initial_velocities:
            if coord in COORDS:
                out.append((3 * self.index[body] + COORDS.index(coord), value))
        return out

    def held_coordinates(self) -> list[int]:
        """Indices of the coordinates that assembly keeps at their initial value ("hold" in the file)."""
        out = []
        for k, b in enumerate(self.entities.bodies):
            for c in b.initial.get("hold", []):
                if c in COORDS:
                    out.append(3 * k + COORDS.index(c))
        return out

    def body_frame_pose(self, q: FloatArray, body: str) -> tuple[float, float, float]:
        """Pose (x, y, phi) of a body's frame origin from its centre-of-mass coordinates."""
        if body == GROUND:
            return 0.0, 0.0, 0.0
        k = self.index[body]
        phi = float(q[3 * k + 2])
        c = rotate(np.array([phi]), np.array([self.com[body]]))[0]
        return float(q[3 * k] - c[0]), float(q[3 * k + 1] - c[1]), phi

    def point_position(self, q: FloatArray, body: str, point: tuple[float, ...]) -> FloatArray:
        """Global position [m] of a body-frame point of ``body``."""
        if body == GROUND:
            return np.asarray(point[:2], float)
        k = self.index[body]
        a = rotate(np.array([q[3 * k + 2]]), np.array([self._local(body, point)]))[0]
        return q[3 * k:3 * k + 2] + a
