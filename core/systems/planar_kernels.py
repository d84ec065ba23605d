"""Compiled evaluation of a :class:`~core.systems.planar.PlanarSystem` for the fused projection path: the same
equations as the system's ``*_reference`` methods (core/elements/primitives and ``mechstudio.core.systems.planar``), one
call per state instead of a Python loop over element groups.

Coordinates q[3k:3k+3] = (x, y, phi) of body k (centre of mass, body angle); the ground is body ``nb`` with
coordinates (0, 0, 0): its Jacobian columns are not stored. A(phi) s' is a body vector in the global frame and
perp(a) = (-a_y, a_x) = B(phi) s'.

* :func:`k_position_terms`: C(q) = [Phi_q; C_psi] (m, n) and Phi(q, t) (m_h,):
  point coincidence  r_i + A_i s_i - r_j - A_j s_j;
  point-line         v^T d - f(t),  v = A_i v'_i,  d = r_j + A_j s_j - r_i - A_i s_i;
  relative angle     phi_j - phi_i - f(t);   coordinate driver  q_k - f(t);
  knife edge row     n^T (r' + perp(A s') phi') = 0,  n = A n';
  gear mesh          r_1 (phi_i - phi_c) + rho_2 (phi_j - phi_c) - (r_1 + rho_2) atan2(e x d, e . d),  e = A_c e';
  rack mesh          u^T (P_b - O_p) - rho (phi_p - phi_c) - s_0,  u = A_c u'.
* :func:`k_velocity_terms`: h(q, q', t) (gravity, spring-dampers, rotational spring-dampers, applied forces and
  torques), eta = C' q' + xi' (-gamma for the holonomic rows, eq. (3.11) of [003] with f''(t)), and the
  power of the non-conservative forces P_nc (dampers, applied loads).
* :func:`k_potential`: gravity, spring and rotational-spring energies.
* :func:`k_reactions`: force and moment each constraint applies to its reported body (``PlanarSystem.reactions``).

The model's data are laid out by the named tuples below, built by name once by ``PlanarSystem.fused_data``
(:class:`PlanarGeometry`: element rows, body indices and body vectors per equation primitive, the field prefix
being the primitive's ``COMPILED`` name in core/elements/primitives; :class:`PlanarForces`: masses and force
elements; :class:`PlanarReactions`). PlanarGeometry and PlanarForces are generated from the primitives' declared
``COMPILED_FIELDS`` (:data:`GEOMETRY_LAYOUT`, :data:`FORCES_LAYOUT`), and so is the packed layout of
``mechstudio.core.dynamics.packed_planar``; and per t by ``PlanarSystem.time_arrays`` (:class:`PlanarTime`: f(t) and
f''(t) per holonomic row, xi, load and torque values). They reach the compiled kernels as plain tuples in the
same field order (``tuple(named)``): numba types a plain tuple of arrays from a C fingerprint, a named tuple in
Python (measured: +10 to 17 us per call, as much as the evaluation itself); the kernels unpack them in field
order or index them with the constants ``GEO_MH``, ``FORCES_MASS_DIAGONAL``, ``REACTIONS_ROWS``.

Plain Python with numpy semantics: compiled by numba when available (``mechstudio.core.jit``).
tests/test_performance_equivalence.py checks them against the reference methods to 1e-12.
"""
from __future__ import annotations

import math
import sys
from typing import NamedTuple

import numpy as np

from mechstudio.core.elements.primitives import (cam_contact, coordinate_driver, disk_on_line, forces, gear_mesh,
                                                  knife_edge, point_coincidence, point_line, rack_mesh,
                                                  relative_angle)
from mechstudio.core.elements.primitives.base import INDEX, NUMBER, TABLE, VECTOR
from mechstudio.core.elements.primitives.cam_contact import cam_row

IntArray = np.ndarray
FloatArray = np.ndarray


#: kinds of compiled arrays besides the primitives' (core/elements/primitives/base.py): the leading counts of
#: PlanarGeometry (ints), and the reaction rows (K, 3) int64 padded with m
COUNT, ROWS = "count", "rows"
#: the equation primitives in the order of the kernels' loops: their ``COMPILED_FIELDS`` make PlanarGeometry
GEOMETRY_PRIMITIVES = (point_coincidence, point_line, relative_angle, coordinate_driver, knife_edge, gear_mesh,
                       rack_mesh, disk_on_line, cam_contact)
Layout = tuple[tuple[str, str], ...]


def geometry_layout(primitives: tuple = GEOMETRY_PRIMITIVES) -> Layout:
    """(field, kind) of PlanarGeometry: the counts nb, m, mh, then each primitive's declared arrays under its
    prefix (``<COMPILED>_<name>``), in the order of ``primitives``."""
    counts: Layout = (("nb", COUNT), ("m", COUNT), ("mh", COUNT))
    return counts + tuple((f"{p.COMPILED}_{name}", kind) for p in primitives for name, kind in p.COMPILED_FIELDS)


def forces_layout() -> Layout:
    """(field, kind) of PlanarForces: diag(M) and the gravity forces, then the force primitives' declared arrays
    (core/elements/primitives/forces.py ``COMPILED_FIELDS``)."""
    masses: Layout = (("mass_diagonal", NUMBER), ("gravity_force", NUMBER))
    return masses + tuple((f"{prefix}_{name}", kind) for prefix, fields in forces.COMPILED_FIELDS.items()
                          for name, kind in fields)


#: (field, kind) of PlanarReactions: rows (padded with m), sign, body, arm; the radial sites of gears, racks and
#: belts (per constraint); the couplings (per coupling element: its constraint, its joints' constraints, its
#: bodies, its pitch point)
REACTIONS_LAYOUT: Layout = (("rows", ROWS), ("sign", NUMBER), ("body", INDEX), ("arm", VECTOR),
                            ("radial_body", INDEX), ("radial_n", VECTOR), ("radial_tan", NUMBER),
                            ("radial_mz", NUMBER), ("cp_e", INDEX), ("cp_j1", INDEX), ("cp_j2", INDEX),
                            ("cp_b1", INDEX), ("cp_b2", INDEX), ("cp_bc", INDEX), ("cp_pitch", NUMBER),
                            ("cp_pb", INDEX), ("cp_ps", VECTOR), ("cp_po", VECTOR))
GEOMETRY_LAYOUT = geometry_layout()
FORCES_LAYOUT = forces_layout()


def named_tuple(name: str, layout: Layout, doc: str) -> type:
    """A NamedTuple class with the fields of ``layout`` (ints for counts, arrays otherwise)."""
    cls = NamedTuple(name, [(f, int if kind == COUNT else np.ndarray) for f, kind in layout])  # type: ignore[misc]
    cls.__doc__ = doc
    return cls  # type: ignore[no-any-return]


PlanarGeometry = named_tuple("PlanarGeometry", GEOMETRY_LAYOUT, """Constraint data per primitive (generated from
the primitives' ``COMPILED_FIELDS``, :data:`GEOMETRY_LAYOUT`): nb, m, mh, then per primitive its rows (r, rx,
ry), bodies (bi, bj; ground = nb) and body vectors from the centre of mass (si, sj, vi (unit), s, n (unit
normal)) -- (K,) int64 or (K, 2) float arrays; point coincidence co_*, point on a line pl_*, relative angle an_*,
coordinate driver cd_*, knife edge kn_*, gear mesh gm_*, rack mesh rk_*, disk on a line dl_*, cam contact cm_*.""")
#: fields of PlanarGeometry that hold float arrays: (K, 2) body vectors and (T, 3) tables (the others after mh:
#: (K,) int64 indices)
GEOMETRY_VECTORS = frozenset(f for f, kind in GEOMETRY_LAYOUT if kind in (VECTOR, TABLE))
GEO_NB = PlanarGeometry._fields.index("nb")  # type: ignore[attr-defined]
GEO_MH = PlanarGeometry._fields.index("mh")  # type: ignore[attr-defined]
#: the fields the kernels unpack at once (those before the contact fields, which they index by name below)
GEO_CORE = PlanarGeometry._fields.index("kn_n") + 1  # type: ignore[attr-defined]
GEO_GEARS_END = PlanarGeometry._fields.index("rk_rho") + 1  # type: ignore[attr-defined]  # unpacked by name
# contact: the planar rolling disk's and the cam's fields, indexed by constant in the kernels
GEO_DL_RN, GEO_DL_RT, GEO_DL_BI, GEO_DL_BJ, GEO_DL_SI, GEO_DL_SJ, GEO_DL_VI, GEO_DL_PAR = (
    PlanarGeometry._fields.index(f) for f in ("dl_rn", "dl_rt", "dl_bi", "dl_bj", "dl_si", "dl_sj",  # type: ignore
                                              "dl_vi", "dl_par"))
GEO_CM_R, GEO_CM_BI, GEO_CM_BJ, GEO_CM_KIND, GEO_CM_OFF, GEO_CM_N, GEO_CM_SI, GEO_CM_SJ, GEO_CM_U, GEO_CM_PAR, \
    GEO_CM_TAB = (PlanarGeometry._fields.index(f) for f in ("cm_r", "cm_bi", "cm_bj", "cm_kind",  # type: ignore
                                                            "cm_off", "cm_n", "cm_si", "cm_sj", "cm_u", "cm_par",
                                                            "cm_tab"))

PlanarForces = named_tuple("PlanarForces", FORCES_LAYOUT, """Masses and force elements (generated from
core/elements/primitives/forces.py ``COMPILED_FIELDS``, :data:`FORCES_LAYOUT`): diag(M), m g on the x, y
coordinates; spring-dampers sp_* (bodies, arms (K, 2), stiffness, damping, free length), rotational
spring-dampers rt_* (bodies, stiffness, damping, free angle), applied forces ld_* (body, arm (K, 2)), applied
torques tq_b (body).""")
PlanarReactions = named_tuple("PlanarReactions", REACTIONS_LAYOUT, """Reaction sites
(``PlanarSystem._compile_reactions``): rows (padded with m), sign, body, arm (K, 2); radial parts of gears, racks
and belts (``PlanarSystem._radial_sites``): carrier index, unit radial n' in its frame (K, 2), the factors k_F
(tan(alpha)) and k_M of |F_t| and |M| (0: none); couplings (``PlanarSystem._coupling_sites``, one entry per
element that couples two joints, core.elements.base.Coupling): its constraint cp_e, its joints' constraints
cp_j1, cp_j2, gear/pulley/pinion cp_b1, gear/pulley/rack cp_b2, carrier cp_bc (ground = nb), and its pitch point
(cp_pitch 1: P = r + A s' + A_c o' of body cp_pb, point cp_ps, carrier-frame offset cp_po; 0: none).""")


def empty_array(kind: str) -> np.ndarray:
    """The array of a compiled field of ``kind`` when no element has it (no rows)."""
    shapes = {INDEX: (np.zeros(0, np.int64)), NUMBER: np.zeros(0), VECTOR: np.zeros((0, 2)), TABLE: np.zeros((0, 3)),
              ROWS: np.zeros((0, 3), np.int64)}
    return shapes[kind]


#: (ndim, dtype kind) of each kind of compiled array
ARRAY_KINDS = {INDEX: (1, "i"), NUMBER: (1, "f"), VECTOR: (2, "f"), TABLE: (2, "f"), ROWS: (2, "i")}


def checked_fields(group: object, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``arrays``, a primitive group's ``compiled_fields``, checked against its module's declaration
    (``COMPILED_FIELDS``): exactly the declared fields, each of its declared kind -- else a ValueError naming the
    primitive and the field (a field the layout does not know would not reach the kernels)."""
    module = sys.modules[type(group).__module__]
    declared = {f"{module.COMPILED}_{name}": kind for name, kind in module.COMPILED_FIELDS}
    where = f"{type(group).__name__} ({module.__name__})"
    for name in arrays.keys() - declared.keys():
        raise ValueError(f"{where}: compiled field {name!r} is not in its COMPILED_FIELDS {sorted(declared)}; "
                         "declare it there so that the planar layout and the packed layout carry it")
    for name in declared.keys() - arrays.keys():
        raise ValueError(f"{where}: declared compiled field {name!r} is missing from its compiled_fields()")
    for name, a in arrays.items():
        ndim, dtype = ARRAY_KINDS[declared[name]]
        a = np.asarray(a)
        if a.ndim != ndim or a.dtype.kind != dtype or (declared[name] == VECTOR and a.shape[1:] != (2,)):
            raise ValueError(f"{where}: compiled field {name!r} is a {a.dtype} array of shape {a.shape}, not the "
                             f"declared {declared[name]} (ndim {ndim}, dtype kind {dtype!r})")
    return arrays


FORCES_MASS_DIAGONAL = PlanarForces._fields.index("mass_diagonal")  # type: ignore[attr-defined]
REACTIONS_ROWS = PlanarReactions._fields.index("rows")  # type: ignore[attr-defined]


class PlanarTime(NamedTuple):
    """Values at t: f(t), f''(t) per holonomic row, xi (m,), applied forces (L, 2) [N], torques (T,) [N m]."""
    fval: FloatArray
    faccel: FloatArray
    xi: FloatArray
    load_f: FloatArray
    torque: FloatArray


#: cam and follower row (contact): compiled by the kernel builder like the helpers below
_cam_row = cam_row


def _trig(q, nb):  # noqa: ANN001, ANN201
    """cos and sin of every body angle, the ground's (1, 0) appended."""
    c = np.empty(nb + 1)
    s = np.empty(nb + 1)
    for k in range(nb):
        c[k] = math.cos(q[3 * k + 2])
        s[k] = math.sin(q[3 * k + 2])
    c[nb], s[nb] = 1.0, 0.0
    return c, s


def _rot(c, s, b, vectors, e):  # noqa: ANN001, ANN201
    """A(phi_b) v' for the body vector v' = vectors[e] (x and y components)."""
    return (c[b] * vectors[e, 0] - s[b] * vectors[e, 1], s[b] * vectors[e, 0] + c[b] * vectors[e, 1])


def _spring(c, s, qe, i, j, s1, s2, e):  # noqa: ANN001, ANN201
    """(A_i s1, A_j s2 (x, y each), length L, unit vector u (x, y)) of spring e from P1 = r_i + A_i s1 to
    P2 = r_j + A_j s2 (L floored at 1e-300, as ``PlanarSystem._spring_state``)."""
    a1x, a1y = _rot(c, s, i, s1, e)
    a2x, a2y = _rot(c, s, j, s2, e)
    dx = qe[3 * j] + a2x - qe[3 * i] - a1x
    dy = qe[3 * j + 1] + a2y - qe[3 * i + 1] - a1y
    length = max(math.sqrt(dx * dx + dy * dy), 1e-300)
    return a1x, a1y, a2x, a2y, length, dx / length, dy / length


def _relative(c, s, qe, ve, i, j, si, sj, e):  # noqa: ANN001, ANN201
    """(a_i, a_j, d, d') of the points P_i = r_i + a_i on body i and P_j = r_j + a_j on body j, a = A(phi) s'
    (x, y each): d = P_j - P_i and d' = r_j' + perp(a_j) w_j - r_i' - perp(a_i) w_i, perp(x, y) = (-y, x); the
    relative position and velocity that the pin-in-slot, gear-mesh and rack-mesh rows differentiate."""
    wi, wj = ve[3 * i + 2], ve[3 * j + 2]
    aix, aiy = _rot(c, s, i, si, e)
    ajx, ajy = _rot(c, s, j, sj, e)
    dx = qe[3 * j] + ajx - qe[3 * i] - aix
    dy = qe[3 * j + 1] + ajy - qe[3 * i + 1] - aiy
    ddx = ve[3 * j] - ajy * wj - ve[3 * i] + aiy * wi
    ddy = ve[3 * j + 1] + ajx * wj - ve[3 * i + 1] - aix * wi
    return aix, aiy, ajx, ajy, dx, dy, ddx, ddy


def _ext(x, nb):  # noqa: ANN001, ANN201
    """x with the ground's three zeros appended."""
    out = np.zeros(3 * nb + 3)
    out[:3 * nb] = x
    return out


def _put(C, r, col, val):  # noqa: ANN001, ANN201
    """C[r, col] = val unless col is a ground column (not stored)."""
    if col < C.shape[1]:
        C[r, col] = val


def k_position_terms(q, geo, fval):  # noqa: ANN001, ANN201
    """(C (m, n), Phi (m_h,)) at q; fval (m_h,) the f(t) of every holonomic row (0 where there is none)."""
    (nb, m, mh, co_rx, co_ry, co_bi, co_bj, co_si, co_sj, pl_r, pl_bi, pl_bj, pl_si, pl_sj, pl_vi,
     an_r, an_bi, an_bj, cd_r, cd_k, kn_r, kn_b, kn_s, kn_n,
     gm_r, gm_bi, gm_bj, gm_bc, gm_si, gm_sj, gm_e, gm_radii,
     rk_r, rk_bc, rk_bp, rk_bb, rk_u, rk_sp, rk_sb, rk_rho) = geo[:GEO_GEARS_END]
    n = 3 * nb
    c, s = _trig(q, nb)
    qe = _ext(q, nb)
    C = np.zeros((m, n))
    phi = np.empty(mh)
    for e in range(co_rx.shape[0]):
        i, j, rx, ry = co_bi[e], co_bj[e], co_rx[e], co_ry[e]
        aix, aiy = _rot(c, s, i, co_si, e)
        ajx, ajy = _rot(c, s, j, co_sj, e)
        phi[rx] = qe[3 * i] + aix - qe[3 * j] - ajx
        phi[ry] = qe[3 * i + 1] + aiy - qe[3 * j + 1] - ajy
        _put(C, rx, 3 * i, 1.0)
        _put(C, ry, 3 * i + 1, 1.0)
        _put(C, rx, 3 * i + 2, -aiy)
        _put(C, ry, 3 * i + 2, aix)
        _put(C, rx, 3 * j, -1.0)
        _put(C, ry, 3 * j + 1, -1.0)
        _put(C, rx, 3 * j + 2, ajy)
        _put(C, ry, 3 * j + 2, -ajx)
    for e in range(pl_r.shape[0]):
        i, j, r = pl_bi[e], pl_bj[e], pl_r[e]
        aix, aiy = _rot(c, s, i, pl_si, e)
        ajx, ajy = _rot(c, s, j, pl_sj, e)
        vx, vy = _rot(c, s, i, pl_vi, e)
        dx = qe[3 * j] + ajx - qe[3 * i] - aix
        dy = qe[3 * j + 1] + ajy - qe[3 * i + 1] - aiy
        phi[r] = vx * dx + vy * dy - fval[r]
        _put(C, r, 3 * i, -vx)
        _put(C, r, 3 * i + 1, -vy)
        _put(C, r, 3 * j, vx)
        _put(C, r, 3 * j + 1, vy)
        _put(C, r, 3 * j + 2, -vx * ajy + vy * ajx)  # v . perp(a_j)
        _put(C, r, 3 * i + 2, (-vy * dx + vx * dy) - (-vx * aiy + vy * aix))  # perp(v) . d - v . perp(a_i)
    for e in range(an_r.shape[0]):
        i, j, r = an_bi[e], an_bj[e], an_r[e]
        phi[r] = qe[3 * j + 2] - qe[3 * i + 2] - fval[r]
        _put(C, r, 3 * i + 2, -1.0)
        _put(C, r, 3 * j + 2, 1.0)
    for e in range(cd_r.shape[0]):
        r = cd_r[e]
        phi[r] = q[cd_k[e]] - fval[r]
        C[r, cd_k[e]] = 1.0
    for e in range(kn_r.shape[0]):
        b, r = kn_b[e], kn_r[e]
        nx, ny = _rot(c, s, b, kn_n, e)
        ax, ay = _rot(c, s, b, kn_s, e)
        C[r, 3 * b] = nx
        C[r, 3 * b + 1] = ny
        C[r, 3 * b + 2] = -nx * ay + ny * ax  # n . perp(A s')
    for e in range(gm_r.shape[0]):  # gear mesh: r_1 (phi_i - phi_c) + rho_2 (phi_j - phi_c) - k delta
        i, j, cb, r = gm_bi[e], gm_bj[e], gm_bc[e], gm_r[e]
        r1, rho2 = gm_radii[e, 0], gm_radii[e, 1]
        k = r1 + rho2
        aix, aiy = _rot(c, s, i, gm_si, e)
        ajx, ajy = _rot(c, s, j, gm_sj, e)
        ex, ey = _rot(c, s, cb, gm_e, e)
        dx = qe[3 * j] + ajx - qe[3 * i] - aix
        dy = qe[3 * j + 1] + ajy - qe[3 * i + 1] - aiy
        pc = qe[3 * cb + 2]
        phi[r] = (r1 * (qe[3 * i + 2] - pc) + rho2 * (qe[3 * j + 2] - pc)
                  - k * math.atan2(ex * dy - ey * dx, ex * dx + ey * dy))
        d2 = dx * dx + dy * dy
        gx, gy = -k * dy / d2, k * dx / d2  # k perp(d) / |d|^2
        _put(C, r, 3 * i, gx)
        _put(C, r, 3 * i + 1, gy)
        _put(C, r, 3 * j, -gx)
        _put(C, r, 3 * j + 1, -gy)
        _put(C, r, 3 * i + 2, r1 + (-gx * aiy + gy * aix))  # r_1 + k g . perp(a_i)
        _put(C, r, 3 * j + 2, rho2 - (-gx * ajy + gy * ajx))
    for e in range(rk_r.shape[0]):  # rack mesh: u . (P_b - O_p) - rho (phi_p - phi_c) - s_0
        cb, p, b, r = rk_bc[e], rk_bp[e], rk_bb[e], rk_r[e]
        rho = rk_rho[e, 1]
        apx, apy = _rot(c, s, p, rk_sp, e)
        abx, aby = _rot(c, s, b, rk_sb, e)
        ux, uy = _rot(c, s, cb, rk_u, e)
        dx = qe[3 * b] + abx - qe[3 * p] - apx
        dy = qe[3 * b + 1] + aby - qe[3 * p + 1] - apy
        phi[r] = ux * dx + uy * dy - rho * (qe[3 * p + 2] - qe[3 * cb + 2]) - fval[r]
        _put(C, r, 3 * b, ux)
        _put(C, r, 3 * b + 1, uy)
        _put(C, r, 3 * p, -ux)
        _put(C, r, 3 * p + 1, -uy)
        _put(C, r, 3 * b + 2, -ux * aby + uy * abx)  # u . perp(a_b)
        _put(C, r, 3 * p + 2, -(-ux * apy + uy * apx) - rho)
        _put(C, r, 3 * cb + 2, (-uy * dx + ux * dy) + rho)  # perp(u) . d + rho
    # contact: planar rolling disk rows (normal n = perp(v), rolling v), disk_on_line.py
    dl_bi, dl_bj, dl_si, dl_sj, dl_vi, dl_par = geo[GEO_DL_BI], geo[GEO_DL_BJ], geo[GEO_DL_SI], geo[GEO_DL_SJ], \
        geo[GEO_DL_VI], geo[GEO_DL_PAR]
    for e in range(dl_bi.shape[0]):
        i, j, rn, rt = dl_bi[e], dl_bj[e], geo[GEO_DL_RN][e], geo[GEO_DL_RT][e]
        aix, aiy = _rot(c, s, i, dl_si, e)
        ajx, ajy = _rot(c, s, j, dl_sj, e)
        vx, vy = _rot(c, s, i, dl_vi, e)
        dx = qe[3 * j] + ajx - qe[3 * i] - aix
        dy = qe[3 * j + 1] + ajy - qe[3 * i + 1] - aiy
        rho = dl_par[e, 0]
        phi[rn] = -vy * dx + vx * dy - rho
        phi[rt] = vx * dx + vy * dy + rho * (qe[3 * j + 2] - qe[3 * i + 2]) - dl_par[e, 1]
        for r, wx, wy, roll in ((rn, -vy, vx, 0.0), (rt, vx, vy, rho)):
            _put(C, r, 3 * i, -wx)
            _put(C, r, 3 * i + 1, -wy)
            _put(C, r, 3 * j, wx)
            _put(C, r, 3 * j + 1, wy)
            _put(C, r, 3 * j + 2, -wx * ajy + wy * ajx + roll)  # w . perp(a_j) (+ rho)
            _put(C, r, 3 * i + 2, (-wy * dx + wx * dy) - (-wx * aiy + wy * aix) - roll)
    # cam and follower rows (cam_contact.py)
    cm_bi, cm_bj, cm_tab = geo[GEO_CM_BI], geo[GEO_CM_BJ], geo[GEO_CM_TAB]
    zero = np.zeros(3)
    for e in range(cm_bi.shape[0]):
        i, j, r = cm_bi[e], cm_bj[e], geo[GEO_CM_R][e]
        row = _cam_row(geo[GEO_CM_KIND][e], cm_tab, geo[GEO_CM_OFF][e], geo[GEO_CM_N][e], qe[3 * i:3 * i + 3],
                       qe[3 * j:3 * j + 3], zero, zero, geo[GEO_CM_SI][e], geo[GEO_CM_SJ][e], geo[GEO_CM_U][e],
                       geo[GEO_CM_PAR][e, 0])
        phi[r] = row[0]
        for k in range(3):
            _put(C, r, 3 * i + k, row[1][k])
            _put(C, r, 3 * j + k, row[2][k])
    return C, phi


def k_velocity_terms(q, v, geo, frc, faccel, load_f, torque):  # noqa: ANN001, ANN201
    """(h (n,), eta (m,), P_nc [W]) at (q, q'); faccel (m_h,) the f''(t) of every holonomic row, load_f (L, 2)
    the applied forces [N], torque (T,) the applied torques [N m] at t."""
    (nb, m, mh, co_rx, co_ry, co_bi, co_bj, co_si, co_sj, pl_r, pl_bi, pl_bj, pl_si, pl_sj, pl_vi,
     an_r, an_bi, an_bj, cd_r, cd_k, kn_r, kn_b, kn_s, kn_n,
     gm_r, gm_bi, gm_bj, gm_bc, gm_si, gm_sj, gm_e, gm_radii,
     rk_r, rk_bc, rk_bp, rk_bb, rk_u, rk_sp, rk_sb, rk_rho) = geo[:GEO_GEARS_END]
    (Md, h0, sp_b1, sp_b2, sp_s1, sp_s2, sp_k, sp_c, sp_l0, rt_b1, rt_b2, rt_k, rt_c, rt_th0, ld_b, ld_s,
     tq_b) = frc
    n = 3 * nb
    c, s = _trig(q, nb)
    qe = _ext(q, nb)
    ve = _ext(v, nb)
    eta = np.zeros(m)
    # holonomic rows: eta = -gamma
    for e in range(co_rx.shape[0]):
        i, j = co_bi[e], co_bj[e]
        wi2, wj2 = ve[3 * i + 2] ** 2, ve[3 * j + 2] ** 2
        aix, aiy = _rot(c, s, i, co_si, e)
        ajx, ajy = _rot(c, s, j, co_sj, e)
        eta[co_rx[e]] = -(aix * wi2 - ajx * wj2)
        eta[co_ry[e]] = -(aiy * wi2 - ajy * wj2)
    for e in range(pl_r.shape[0]):
        i, j, r = pl_bi[e], pl_bj[e], pl_r[e]
        wi, wj = ve[3 * i + 2], ve[3 * j + 2]
        aix, aiy, ajx, ajy, dx, dy, ddx, ddy = _relative(c, s, qe, ve, i, j, pl_si, pl_sj, e)
        vx, vy = _rot(c, s, i, pl_vi, e)
        quad = (-(wi * wi) * (vx * dx + vy * dy) + 2.0 * wi * (-vy * ddx + vx * ddy)
                + vx * (aix * wi * wi - ajx * wj * wj) + vy * (aiy * wi * wi - ajy * wj * wj))
        eta[r] = quad - faccel[r]
    for e in range(an_r.shape[0]):
        eta[an_r[e]] = -faccel[an_r[e]]
    for e in range(cd_r.shape[0]):
        eta[cd_r[e]] = -faccel[cd_r[e]]
    for e in range(kn_r.shape[0]):
        b = kn_b[e]
        w = ve[3 * b + 2]
        nx, ny = _rot(c, s, b, kn_n, e)
        ax, ay = _rot(c, s, b, kn_s, e)
        bnx, bny = -ny, nx  # perp(n)
        eta[kn_r[e]] = (w * (bnx * ve[3 * b] + bny * ve[3 * b + 1])
                        + w * w * ((bnx * -ay + bny * ax) - (nx * ax + ny * ay)))
    for e in range(gm_r.shape[0]):  # gear mesh: eta = -gamma (gear_mesh.py)
        i, j = gm_bi[e], gm_bj[e]
        wi, wj = ve[3 * i + 2], ve[3 * j + 2]
        aix, aiy, ajx, ajy, dx, dy, ddx, ddy = _relative(c, s, qe, ve, i, j, gm_si, gm_sj, e)
        cx, cy = aix * wi * wi - ajx * wj * wj, aiy * wi * wi - ajy * wj * wj
        d2 = dx * dx + dy * dy
        k = gm_radii[e, 0] + gm_radii[e, 1]
        eta[gm_r[e]] = -k * ((dx * cy - dy * cx) / d2 - 2.0 * (dx * ddy - dy * ddx) * (dx * ddx + dy * ddy) / (d2 * d2))
    for e in range(rk_r.shape[0]):  # rack mesh: eta = -gamma (rack_mesh.py)
        cb, p, b, r = rk_bc[e], rk_bp[e], rk_bb[e], rk_r[e]
        wc, wp, wb = ve[3 * cb + 2], ve[3 * p + 2], ve[3 * b + 2]
        apx, apy, abx, aby, dx, dy, ddx, ddy = _relative(c, s, qe, ve, p, b, rk_sp, rk_sb, e)
        ux, uy = _rot(c, s, cb, rk_u, e)
        eta[r] = -(wc * wc * (ux * dx + uy * dy) - 2.0 * wc * (-uy * ddx + ux * ddy)
                   + ux * (abx * wb * wb - apx * wp * wp) + uy * (aby * wb * wb - apy * wp * wp)) - faccel[r]
    # contact: planar rolling disk (the rolling row is linear in the angles: the same quadratic terms)
    dl_bi, dl_bj, dl_si, dl_sj, dl_vi = geo[GEO_DL_BI], geo[GEO_DL_BJ], geo[GEO_DL_SI], geo[GEO_DL_SJ], geo[GEO_DL_VI]
    for e in range(dl_bi.shape[0]):
        i, j = dl_bi[e], dl_bj[e]
        wi, wj = ve[3 * i + 2], ve[3 * j + 2]
        aix, aiy = _rot(c, s, i, dl_si, e)
        ajx, ajy = _rot(c, s, j, dl_sj, e)
        vx, vy = _rot(c, s, i, dl_vi, e)
        # eta = w . g for w = n, v: g = (a_i - d) omega_i^2 - 2 omega_i perp(d') - a_j omega_j^2,
        # a_i - d = 2 a_i + r_i - r_j - a_j
        gx = ((2.0 * aix + qe[3 * i] - qe[3 * j] - ajx) * wi * wi
              + 2.0 * wi * (ve[3 * j + 1] + ajx * wj - ve[3 * i + 1] - aix * wi) - ajx * wj * wj)
        gy = ((2.0 * aiy + qe[3 * i + 1] - qe[3 * j + 1] - ajy) * wi * wi
              - 2.0 * wi * (ve[3 * j] - ajy * wj - ve[3 * i] + aiy * wi) - ajy * wj * wj)
        eta[geo[GEO_DL_RN][e]] = -vy * gx + vx * gy
        eta[geo[GEO_DL_RT][e]] = vx * gx + vy * gy
    # cam and follower (cam_contact.py): eta = Phi'' at q'' = 0
    cm_bi, cm_bj, cm_tab = geo[GEO_CM_BI], geo[GEO_CM_BJ], geo[GEO_CM_TAB]
    for e in range(cm_bi.shape[0]):
        i, j = cm_bi[e], cm_bj[e]
        row = _cam_row(geo[GEO_CM_KIND][e], cm_tab, geo[GEO_CM_OFF][e], geo[GEO_CM_N][e], qe[3 * i:3 * i + 3],
                       qe[3 * j:3 * j + 3], ve[3 * i:3 * i + 3], ve[3 * j:3 * j + 3], geo[GEO_CM_SI][e],
                       geo[GEO_CM_SJ][e], geo[GEO_CM_U][e], geo[GEO_CM_PAR][e, 0])
        eta[geo[GEO_CM_R][e]] = row[3]
    # applied forces
    he = np.zeros(n + 3)
    he[:n] = h0
    power = 0.0
    for e in range(sp_k.shape[0]):
        i, j = sp_b1[e], sp_b2[e]
        a1x, a1y, a2x, a2y, length, ux, uy = _spring(c, s, qe, i, j, sp_s1, sp_s2, e)
        rvx = ve[3 * j] - a2y * ve[3 * j + 2] - ve[3 * i] + a1y * ve[3 * i + 2]
        rvy = ve[3 * j + 1] + a2x * ve[3 * j + 2] - ve[3 * i + 1] - a1x * ve[3 * i + 2]
        rate = ux * rvx + uy * rvy
        tension = sp_k[e] * (length - sp_l0[e]) + sp_c[e] * rate
        fx, fy = ux * tension, uy * tension  # on P1; -f on P2
        he[3 * i] += fx
        he[3 * i + 1] += fy
        he[3 * i + 2] += a1x * fy - a1y * fx
        he[3 * j] -= fx
        he[3 * j + 1] -= fy
        he[3 * j + 2] -= a2x * fy - a2y * fx
        power -= sp_c[e] * rate * rate
    for e in range(rt_k.shape[0]):
        i, j = rt_b1[e], rt_b2[e]
        rate = ve[3 * j + 2] - ve[3 * i + 2]
        tq = -rt_k[e] * (qe[3 * j + 2] - qe[3 * i + 2] - rt_th0[e]) - rt_c[e] * rate
        he[3 * j + 2] += tq
        he[3 * i + 2] -= tq
        power -= rt_c[e] * rate * rate
    for e in range(ld_b.shape[0]):
        b = ld_b[e]
        ax, ay = _rot(c, s, b, ld_s, e)
        fx, fy = load_f[e, 0], load_f[e, 1]
        he[3 * b] += fx
        he[3 * b + 1] += fy
        he[3 * b + 2] += ax * fy - ay * fx
        power += fx * (ve[3 * b] - ay * ve[3 * b + 2]) + fy * (ve[3 * b + 1] + ax * ve[3 * b + 2])
    for e in range(tq_b.shape[0]):
        b = tq_b[e]
        he[3 * b + 2] += torque[e]
        power += torque[e] * ve[3 * b + 2]
    return he[:n].copy(), eta, power


def k_potential(q, geo, frc):  # noqa: ANN001, ANN201
    """Potential energy [J]: gravity, spring-dampers 1/2 k (L - L0)^2, rotational springs 1/2 k (th - th0)^2."""
    nb = geo[GEO_NB]
    (Md, h0, sp_b1, sp_b2, sp_s1, sp_s2, sp_k, sp_c, sp_l0, rt_b1, rt_b2, rt_k, rt_c, rt_th0, ld_b, ld_s,
     tq_b) = frc
    c, s = _trig(q, nb)
    qe = _ext(q, nb)
    e_pot = 0.0
    for k in range(nb):  # h0 holds m g on the x and y coordinates: V = -m g . r
        e_pot -= h0[3 * k] * q[3 * k] + h0[3 * k + 1] * q[3 * k + 1]
    for e in range(sp_k.shape[0]):
        length = _spring(c, s, qe, sp_b1[e], sp_b2[e], sp_s1, sp_s2, e)[4]
        stretch = length - sp_l0[e]
        e_pot += 0.5 * sp_k[e] * stretch * stretch
    for e in range(rt_k.shape[0]):
        th = qe[3 * rt_b2[e] + 2] - qe[3 * rt_b1[e] + 2] - rt_th0[e]
        e_pot += 0.5 * rt_k[e] * th * th
    return e_pot


def k_reactions(q, C, lam, react):  # noqa: ANN001, ANN201
    """(n_constraints, 6) rows (Fx, Fy, 0, 0, 0, Mz): the force C_rows^T lambda on the reported body's (x, y, phi)
    times the sign, its moment moved from the centre of mass to the joint point (``PlanarSystem.reactions``);
    the radial parts of gears, racks and belts, then the couplings (:func:`couple_reactions`)."""
    rows, sign, body, arm = react[0], react[1], react[2], react[3]  # PlanarReactions field order
    radial_body, radial_n, radial_tan, radial_mz = react[4], react[5], react[6], react[7]
    nc = rows.shape[0]
    m = C.shape[0]
    out = np.zeros((nc, 6))
    for e in range(nc):
        b = body[e]
        g0 = g1 = g2 = 0.0
        for a in range(rows.shape[1]):
            r = rows[e, a]
            if r < m:
                g0 += C[r, 3 * b] * lam[r]
                g1 += C[r, 3 * b + 1] * lam[r]
                g2 += C[r, 3 * b + 2] * lam[r]
        g0, g1, g2 = g0 * sign[e], g1 * sign[e], g2 * sign[e]
        cb, sb = math.cos(q[3 * b + 2]), math.sin(q[3 * b + 2])
        ax = cb * arm[e, 0] - sb * arm[e, 1]
        ay = sb * arm[e, 0] + cb * arm[e, 1]
        out[e, 0] = g0
        out[e, 1] = g1
        out[e, 5] = g2 - (ax * g1 - ay * g0)
        if radial_tan[e] != 0.0 or radial_mz[e] != 0.0:  # (k_F |F_t| + k_M |M|) A_c n' (ReactionSite.radial)
            rx, ry = _turned(q, radial_body[e], radial_n[e, 0], radial_n[e, 1])
            size = radial_tan[e] * math.sqrt(g0 * g0 + g1 * g1) + radial_mz[e] * abs(out[e, 5])
            out[e, 0] += size * rx
            out[e, 1] += size * ry
    _couple_reactions(q, _coupling_forces(C, lam, react), react, out)
    return out


def coupling_forces(C, lam, react):  # noqa: ANN001, ANN201
    """(K, 3, 3): per coupling k (PlanarReactions cp_*) the generalized force C_rows^T lambda of its rows on the
    (x, y, phi) of its bodies b1, b2 and carrier (0 for the ground, whose columns C does not store)."""
    rows, cp_e, cp_b1, cp_b2, cp_bc = react[0], react[8], react[11], react[12], react[13]
    m, n = C.shape[0], C.shape[1]
    G = np.zeros((cp_e.shape[0], 3, 3))
    for k in range(cp_e.shape[0]):
        for i in range(3):
            b = cp_b1[k] if i == 0 else (cp_b2[k] if i == 1 else cp_bc[k])
            for a in range(rows.shape[1]):
                r = rows[cp_e[k], a]
                if r < m and 3 * b + 2 < n:
                    for c in range(3):
                        G[k, i, c] += C[r, 3 * b + c] * lam[r]
    return G


def turned(q, b, x, y):  # noqa: ANN001, ANN201
    """A(phi_b) (x, y): a body-frame vector of body b in the global frame (the ground, b >= len(q) / 3: as is)."""
    if 3 * b >= q.shape[0]:
        return x, y
    cb, sb = math.cos(q[3 * b + 2]), math.sin(q[3 * b + 2])
    return cb * x - sb * y, sb * x + cb * y


def placed(q, b, x, y):  # noqa: ANN001, ANN201
    """r_b + A(phi_b) (x, y): the global position [m] of the point at (x, y) from body b's centre of mass (the
    ground: (x, y) is the global point)."""
    tx, ty = _turned(q, b, x, y)
    if 3 * b >= q.shape[0]:
        return tx, ty
    return q[3 * b] + tx, q[3 * b + 1] + ty


def couple_reactions(q, G, react, out):  # noqa: ANN001, ANN201
    """The couplings' part of the reactions (core.elements.base.Coupling), in place on ``out`` (n_constraints,
    6) as :func:`k_reactions` leaves it before this call; ``G`` (K, 3, 3) the generalized forces of each
    coupling's rows on its bodies (:func:`coupling_forces`). Per coupling element e between bodies b1 and b2 on
    carrier c (the ground: index nb), wrenches written as (Fx, Fy, moment about the global origin):

    * W, its reported wrench on b2: the force F = out[e] and, with a pitch point P, the moment (P - A_e) x F about
      its site point A_e (out[e, 5] replaced), else the row's moment out[e, 5];
    * G_b, its rows' generalized force C_rows^T lambda on b = b1, b2, c; the ground's is minus the others' sum
      (the row is invariant under a rigid motion of the three bodies together, so the three sum to zero);
    * D_2 = W - G_b2 and D_1 = -W - G_b1: what the reported force on each mounted body differs by from the rows'.
      Joint k's reaction on body k gains -D_k (on the carrier +D_k): out[j] += s D_k with its moment about the
      joint's site point A_j, s = -sign[j] when the joint is reported on b_k, +sign[j] when on the carrier.

    So the reported forces on every body still sum to the rows' generalized forces on it."""
    sign, body, arm = react[1], react[2], react[3]
    cp_e, cp_j1, cp_j2, cp_b1, cp_b2, cp_bc = react[8], react[9], react[10], react[11], react[12], react[13]
    cp_pitch, cp_pb, cp_ps, cp_po = react[14], react[15], react[16], react[17]
    nb = q.shape[0] // 3
    W = np.zeros((3, 3))  # about the origin: rows b1, b2, carrier
    D = np.zeros((2, 3))
    for k in range(cp_e.shape[0]):
        e = cp_e[k]
        grounded = -1
        for i in range(3):
            b = cp_b1[k] if i == 0 else (cp_b2[k] if i == 1 else cp_bc[k])
            if b >= nb:
                grounded = i
                W[i, 0] = W[i, 1] = W[i, 2] = 0.0
                continue
            W[i, 0], W[i, 1] = G[k, i, 0], G[k, i, 1]
            W[i, 2] = G[k, i, 2] + q[3 * b] * G[k, i, 1] - q[3 * b + 1] * G[k, i, 0]  # about the origin
        if grounded >= 0:
            for c in range(3):
                W[grounded, c] = -(W[0, c] + W[1, c] + W[2, c])
        ax, ay = _placed(q, body[e], arm[e, 0], arm[e, 1])
        fx, fy = out[e, 0], out[e, 1]
        if cp_pitch[k] != 0.0:  # the force acts on the pitch line at P = r + A s' + A_c o'
            px, py = _placed(q, cp_pb[k], cp_ps[k, 0], cp_ps[k, 1])
            ox, oy = _turned(q, cp_bc[k], cp_po[k, 0], cp_po[k, 1])
            out[e, 5] = (px + ox - ax) * fy - (py + oy - ay) * fx
        w = out[e, 5] + ax * fy - ay * fx
        D[1, 0], D[1, 1], D[1, 2] = fx - W[1, 0], fy - W[1, 1], w - W[1, 2]
        D[0, 0], D[0, 1], D[0, 2] = -fx - W[0, 0], -fy - W[0, 1], -w - W[0, 2]
        for kk in range(2):
            j = cp_j1[k] if kk == 0 else cp_j2[k]
            mounted = cp_b1[k] if kk == 0 else cp_b2[k]
            s = -sign[j] if body[j] == mounted else sign[j]
            jx, jy = _placed(q, body[j], arm[j, 0], arm[j, 1])
            dfx, dfy = s * D[kk, 0], s * D[kk, 1]
            out[j, 0] += dfx
            out[j, 1] += dfy
            out[j, 5] += s * D[kk, 2] - (jx * dfy - jy * dfx)
    return out


#: the couplings' helpers: compiled by the kernel builder like the helpers above
_couple_reactions, _coupling_forces, _turned, _placed = couple_reactions, coupling_forces, turned, placed
