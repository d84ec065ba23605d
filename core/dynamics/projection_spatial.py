"""Fused compiled path of the projection formulation for spatial rolling-disk systems (speed; same numbers).

For a :class:`~core.systems.spatial.SpatialSystem` without applied loads, an evaluation of the projection
formulation (``mechstudio.core.dynamics.projection``) otherwise costs a dozen Python-level calls -- the system's M, C, Phi,
h, eta, the geometry, velocity and acceleration kernels, the power -- each a few microseconds of interpreter
and argument-unboxing overhead around a fraction of a microsecond of arithmetic (n = 6 for one disk). Here the
same algorithm runs as one compiled call:

* :func:`k_rhs`: z' = [p'; q'] and the power of the constraint forces (the work integrand) at z = [p; q]:
  q' = A^-1 [-xi_r; p], q'' from (B^T M B) y = B^T (h - M x_eta) (module docstring of ``projection``), and
  P = q'^T (M q'' - h) (no applied loads on this path, so P_nc = 0);
* :func:`k_output` (called as :func:`k_output_packed`, one returned array): one recorded output frame from an
  integrator state: unpack (q, q'), the drift correction of
  ``mechstudio.core.dynamics.correction`` (Newton-Raphson on Phi with the mass-weighted KKT step, eq. 4.10, then the
  velocity projection onto C q' + xi = 0, the same tolerances and stopping rules), then at the corrected state
  q'', lambda = C_u^-T (M q'' - h)_u (corrected eq. 4.2; minimum-norm least squares when C is rank deficient),
  the contact force and moment of every disk (``SpatialSystem.reactions``), the kinetic and potential
  energies, and ||N||_2 (``ProjectionFormulation.null_space_growth``, which the driver asks after each step).

The kernels are called through :func:`k_rhs_flat` and :func:`k_output_flat`, which take the kept basis and the
system's arrays packed into one int64 and one float64 array (:func:`pack_data`, rebuilt as views by
:func:`unpack_data`): numba unboxes every array argument at each call (~0.45 us each on the development host,
``mechstudio.core.dynamics.packed_planar``), and the basis tuple and the disk data are 13 arrays -- about a fifth of a
right-hand side of one disk.

Whenever a kernel reports trouble (status != 0: a degenerate C_u or S, a reduced mass matrix that is not
positive definite) the caller redoes the evaluation on the generic path, which raises the right
:class:`~core.dynamics.base.SolverFailure` or chooses new dependent coordinates. The generic path stays the
specification: tests/test_performance_equivalence.py checks both give the same numbers.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from mechstudio.core.systems import spatial_kernels
from mechstudio.core.dynamics import packed_output, projection_fused
from mechstudio.core.dynamics.packed_output import unpack_frame
from mechstudio.core.dynamics.correction import MAX_ITER, POSITION_TOL
from mechstudio.core.jit import compile_helper, kernel_set
from mechstudio.core.systems.spatial import SpatialSystem


def _xi(nd, vp):  # noqa: ANN001, ANN201
    """xi(t) of the disks: (-z_p' per disk, then -(x_p', y_p') per disk)."""
    xi = np.empty(3 * nd)
    for k in range(nd):
        xi[k] = -vp[2]
        xi[nd + 2 * k] = -vp[0]
        xi[nd + 2 * k + 1] = -vp[1]
    return xi


def k_rhs(y, basis, mass, J, mg, disk_body, disk_radius, zp, vp, ap):  # noqa: ANN001, ANN201
    """(status, [p'; q'; P]) at z = [p; q] (the work integrand P appended, see module docstring)."""
    k = basis[2].shape[0]
    q = y[k:].copy()
    xi = _xi(disk_body.shape[0], vp)
    M, C, phi = _position_terms(q, mass, J, disk_body, disk_radius, zp)
    status, v, B, cu_lu, cu_piv = _state(y, C, xi, basis)
    if status != 0:
        return status, np.zeros(y.shape[0] + 1)
    h, eta, kinetic = _velocity_terms(q, v, mass, J, mg, disk_body, disk_radius, ap)
    return _rhs(v, B, cu_lu, cu_piv, h, eta, M, np.zeros(0), False, 0.0, basis)


def k_output(y, correction, basis, mass, J, mg, disk_body, disk_radius, zp, vp, ap, mh, want_growth):  # noqa: ANN001, ANN201
    """One output frame of the integrator state z = [p; q] (see module docstring); ||N||_2 only with
    ``want_growth`` (NaN otherwise).

    Returns (status, q, q', q'', reactions (n_disks, 6), scalars) with scalars = (kinetic, potential,
    ||Phi|| before, after, ||C q' + xi|| before, after, Newton iterations, converged, changed, lambda unique,
    ||N||_2 of the kept basis at the recorded state).
    """
    nd = disk_body.shape[0]
    k = basis[2].shape[0]
    q = y[k:].copy()
    xi = _xi(nd, vp)
    scal = np.zeros(11)
    R = np.zeros((nd, 6))
    M, C, phi = _position_terms(q, mass, J, disk_body, disk_radius, zp)
    status, v, B, cu_lu, cu_piv = _state(y, C, xi, basis)
    if status != 0:
        return status, q, v, v, R, scal
    empty = np.zeros(0)
    # --- drift correction (core.dynamics.correction.correct) ---
    before = _norm(phi)
    vbefore = _norm(_residual(C, v, xi))
    res, it, changed = before, 0, False
    if correction and res > POSITION_TOL:
        while res > POSITION_TOL and it < MAX_ITER:
            q += _min_norm_step(M, empty, False, np.ascontiguousarray(C[:mh]), -phi)
            M, C, phi = _position_terms(q, mass, J, disk_body, disk_radius, zp)
            new = _norm(phi)
            it += 1
            changed = True
            stop = _newton_done(res, new)
            res = new
            if stop:
                break
    v, vafter, projected = _project_velocity(M, empty, False, C, v, xi, correction)
    changed = changed or projected
    # --- accelerations, multipliers, reactions, energies at the recorded state ---
    h, eta, kinetic = _velocity_terms(q, v, mass, J, mg, disk_body, disk_radius, ap)
    status, qdd, Mqdd, growth = _recorded(v, C, xi, h, eta, M, empty, False, basis, want_growth)
    if status != 0:
        return status, q, v, qdd, R, scal
    lam, unique = _multipliers(Mqdd - h, C, basis)
    for kk in range(nd):
        c = 6 * disk_body[kk]
        rho = disk_radius[kk]
        g = np.zeros(6)
        for r in (kk, nd + 2 * kk, nd + 2 * kk + 1):
            for j in range(6):
                g[j] += C[r, c + j] * lam[r]
        fx, fy, fz = g[0], g[1], g[2]
        psi, th = q[c + 3], q[c + 4]
        sp, cp, st, ct = math.sin(psi), math.cos(psi), math.sin(th), math.cos(th)
        if abs(st) <= 1e-6:  # gimbal lock of G_s: let the generic path take the least-squares moment
            return 4, q, v, qdd, R, scal
        a = (g[5] - ct * g[3]) / st
        mx, my, mz = cp * g[4] + sp * a, sp * g[4] - cp * a, g[3]
        dx, dy, dz = rho * sp * ct, -rho * cp * ct, -rho * st
        R[kk, 0], R[kk, 1], R[kk, 2] = fx, fy, fz
        R[kk, 3] = mx - (dy * fz - dz * fy)
        R[kk, 4] = my - (dz * fx - dx * fz)
        R[kk, 5] = mz - (dx * fy - dy * fx)
    potential = 0.0
    for b in range(mass.shape[0]):
        potential -= mg[b, 0] * q[6 * b] + mg[b, 1] * q[6 * b + 1] + mg[b, 2] * q[6 * b + 2]
    scal = _scalars(kinetic, potential, before, res, vbefore, vafter, it, changed, unique, growth)
    return 0, q, v, qdd, R, scal


def k_output_packed(y, correction, basis, mass, J, mg, disk_body, disk_radius, zp, vp, ap, mh, want_growth):  # noqa: ANN001, ANN201
    """:func:`k_output` with its arrays returned in one: (status, [q; q'; q''; reactions (row-major); scalars]).
    Returning one array instead of five saves the boxing of four (a few microseconds per output frame, as much
    as the frame's arithmetic for one disk); :meth:`FusedPath.output` takes the views apart."""
    status, q, v, qdd, R, scal = k_output(y, correction, basis, mass, J, mg, disk_body, disk_radius, zp, vp, ap, mh,
                                          want_growth)
    return status, pack_frame(q, v, qdd, R, scal)


HEADER = 14  # int64 entries before the integer data in pack_data's I


def pack_data(basis: tuple, mass: np.ndarray, J: np.ndarray, mg: np.ndarray, disk_body: np.ndarray,
              disk_radius: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(I, F): the kept basis (``ProjectionFormulation.fused_basis``) and the system's arrays in one int64 and
    one float64 array. I = [#rows, #u, #w, shapes of V2u^T, V2w^T, C_u^-1, V2^T (two each), C_u constant,
    #bodies, #disks; rows, u, w, disk bodies]; F = [V2u^T, V2w^T, C_u^-1, V2^T (row-major), masses, inertia
    tensors (3x3 each), m g (3 each), disk radii]."""
    rows, u, w, V2uT, V2wT, cu_inv, cu_const, V2T = basis
    mats = [np.ascontiguousarray(a, dtype=float) for a in (V2uT, V2wT, cu_inv, V2T)]
    head = [len(rows), len(u), len(w)]
    for a in mats:
        head += [a.shape[0], a.shape[1]]
    head += [int(bool(cu_const)), len(mass), len(disk_body)]
    I = np.concatenate([np.array(head, np.int64)] + [np.asarray(a, np.int64).ravel() for a in (rows, u, w, disk_body)])
    F = np.concatenate([a.ravel() for a in mats] + [np.asarray(a, float).ravel() for a in (mass, J, mg, disk_radius)])
    return np.ascontiguousarray(I), np.ascontiguousarray(F)


def unpack_data(I, F):  # noqa: ANN001, ANN201
    """(basis, mass, J, mg, disk_body, disk_radius) of :func:`pack_data`'s (I, F), as views (compiled)."""
    at = HEADER
    rows = I[at:at + I[0]]
    at += I[0]
    u = I[at:at + I[1]]
    at += I[1]
    w = I[at:at + I[2]]
    at += I[2]
    nb, nd = I[12], I[13]
    disk_body = I[at:at + nd]
    f = 0
    V2uT = F[f:f + I[3] * I[4]].reshape((I[3], I[4]))
    f += I[3] * I[4]
    V2wT = F[f:f + I[5] * I[6]].reshape((I[5], I[6]))
    f += I[5] * I[6]
    cu_inv = F[f:f + I[7] * I[8]].reshape((I[7], I[8]))
    f += I[7] * I[8]
    V2T = F[f:f + I[9] * I[10]].reshape((I[9], I[10]))
    f += I[9] * I[10]
    mass = F[f:f + nb]
    f += nb
    J = F[f:f + 9 * nb].reshape((nb, 3, 3))
    f += 9 * nb
    mg = F[f:f + 3 * nb].reshape((nb, 3))
    f += 3 * nb
    disk_radius = F[f:f + nd]
    basis = (rows, u, w, V2uT, V2wT, cu_inv, I[11] != 0, V2T)
    return basis, mass, J, mg, disk_body, disk_radius


def k_rhs_flat(y, I, F, zp, vp, ap):  # noqa: ANN001, ANN201
    """:func:`k_rhs` with the basis and the system's arrays packed by :func:`pack_data`."""
    basis, mass, J, mg, disk_body, disk_radius = unpack_data(I, F)
    return k_rhs(y, basis, mass, J, mg, disk_body, disk_radius, zp, vp, ap)


#: float64 entries appended to pack_data's F by :meth:`FusedPath.timed_data`: the plane's motion
#: r_p = c0 + c1 t + c2 t^2 as (c0_z, c1 (3), c2_z, 2 c2 (3)) (``mechstudio.core.systems.spatial.plane_quadratic``)
PLANE_COEFFS = 8


def _plane_at(t, F):  # noqa: ANN001, ANN201
    """(z_p, r_p', r_p'') at t from the plane's coefficients at the end of F (:data:`PLANE_COEFFS`), evaluated
    as ``SpatialSystem.plane_arrays`` does: z_p = c0_z + t (c1_z + t c2_z), r_p' = c1 + t (2 c2), r_p'' = 2 c2."""
    p = F.shape[0] - PLANE_COEFFS
    zp = F[p] + t * (F[p + 3] + t * F[p + 4])
    vp = np.empty(3)
    ap = np.empty(3)
    for i in range(3):
        vp[i] = F[p + 1 + i] + t * F[p + 5 + i]
        ap[i] = F[p + 5 + i]
    return zp, vp, ap


def k_rhs_timed(t, y, I, F):  # noqa: ANN001, ANN201
    """:func:`k_rhs` as a function of (t, [z; W], I, F) for the compiled DOP853 step
    (``mechstudio.core.integrate.dop853_kernels``); I, F of :meth:`FusedPath.timed_data` (the plane's motion at the end of
    F, :func:`_plane_at`)."""
    basis, mass, J, mg, disk_body, disk_radius = unpack_data(I, F)
    zp, vp, ap = _plane_at(t, F)
    return k_rhs(y[:-1].copy(), basis, mass, J, mg, disk_body, disk_radius, zp, vp, ap)


def k_output_batch(Z, times, correction, I, F, mh):  # noqa: ANN001, ANN201
    """The output frames (:func:`k_output_packed`, without ||N||_2) of the integrator states Z[j] = z at times[j],
    in one call: (status, count, frames (len(times), frame length)); on trouble (status != 0) at row j,
    count = j and the rows from j on are left to the caller. I, F of :meth:`FusedPath.timed_data`."""
    basis, mass, J, mg, disk_body, disk_radius = unpack_data(I, F)
    n = 6 * mass.shape[0]
    out = np.empty((times.shape[0], 3 * n + 6 * disk_body.shape[0] + 11))
    for j in range(times.shape[0]):
        zp, vp, ap = _plane_at(times[j], F)
        status, frame = k_output_packed(Z[j].copy(), correction, basis, mass, J, mg, disk_body, disk_radius, zp, vp,
                                        ap, mh, False)
        if status != 0:
            return status, j, out
        out[j, :] = frame
    return 0, times.shape[0], out


def k_output_flat(y, correction, I, F, zp, vp, ap, mh, want_growth):  # noqa: ANN001, ANN201
    """:func:`k_output_packed` with the basis and the system's arrays packed by :func:`pack_data`."""
    basis, mass, J, mg, disk_body, disk_radius = unpack_data(I, F)
    return k_output_packed(y, correction, basis, mass, J, mg, disk_body, disk_radius, zp, vp, ap, mh, want_growth)


# helpers the kernels call: compiled versions (bound at build; plain Python without numba)
_norm = _residual = _min_norm_step = _state = _rhs = _recorded = _multipliers = None
_newton_done = _project_velocity = _scalars = None
pack_frame = packed_output.pack_frame
_position_terms = _velocity_terms = None


@kernel_set
def kernels() -> tuple[Callable[..., Any], Callable[..., Any]] | None:
    """(k_rhs_flat, k_output_flat) compiled, or None without numba (the projection formulation's generic path)."""
    global _position_terms, _velocity_terms
    g = globals()
    if not projection_fused.bind(g):
        return None
    _position_terms = compile_helper(spatial_kernels.k_position_terms)
    _velocity_terms = compile_helper(spatial_kernels.k_velocity_terms)
    g["_xi"] = compile_helper(_xi)
    g["pack_frame"] = compile_helper(packed_output.pack_frame)
    g["k_output"] = compile_helper(k_output)
    for name in ("unpack_data", "k_rhs", "k_output_packed"):
        g[name] = compile_helper(g[name])
    return compile_helper(k_rhs_flat), compile_helper(k_output_flat)


@kernel_set
def timed_kernels() -> tuple[Callable[..., Any], Callable[..., Any]] | None:
    """(k_rhs_timed, k_output_batch) compiled (the former is called by the compiled DOP853 step), or None
    without numba."""
    if kernels() is None:
        return None
    g = globals()
    g["_plane_at"] = compile_helper(_plane_at)
    return compile_helper(k_rhs_timed), compile_helper(k_output_batch)


def applies(system: Any) -> bool:
    """True for the systems this path handles exactly: spatial rolling-disk systems without applied loads."""
    return isinstance(system, SpatialSystem) and not system.loads and not system.torques


class FusedPath:
    """The projection formulation's fused calls for one spatial rolling-disk system (see module docstring)."""

    def __init__(self, system: Any):
        self.system = system
        self.k_rhs, self.k_output = kernels()
        self.args = (system.mass, system._J3, system._mg3, system.disk_body, system.disk_radius)
        self.n_disks = len(system.disk_body)  # reaction rows of the packed output frame
        self._packed: tuple = (None, None, None)  # (basis, I, F): pack_data of the last kept basis
        self._timed: tuple = (None, None, None)  # (basis, I, F): timed_data of the last kept basis

    #: :meth:`output` takes ``growth`` (False: ||N||_2 not computed, NaN)
    growth_optional = True

    def packed(self, basis: tuple) -> tuple[np.ndarray, np.ndarray]:
        """(I, F) of :func:`pack_data` for ``basis`` (the formulation's kept-basis tuple, the same object until
        the basis is refreshed: packed once per basis)."""
        kept, I, F = self._packed
        if kept is not basis:
            I, F = pack_data(basis, *self.args)
            self._packed = (basis, I, F)
        return I, F

    def compiled_rhs(self) -> Callable[..., Any] | None:
        """The compiled right-hand side of (t, [z; W], I, F) (:func:`k_rhs_timed`) for the compiled DOP853 step,
        or None when the plane's motion is not a polynomial of degree <= 2 in t (evaluated by the system's
        generic compiled expressions instead)."""
        if self.system._plane_quadratic is None:
            return None
        return timed_kernels()[0]

    def timed_data(self, basis: tuple) -> tuple[np.ndarray, np.ndarray]:
        """(I, F) for :func:`k_rhs_timed`: :meth:`packed` with the plane's coefficients appended (once per
        basis)."""
        kept, I, F = self._timed
        if kept is not basis:
            I, F = self.packed(basis)
            c0, c1, c2, twice_c2, _ = self.system._plane_quadratic
            plane = np.array([c0[2], *c1, c2[2], *twice_c2], float)
            F = np.ascontiguousarray(np.concatenate((F, plane)))
            self._timed = (basis, I, F)
        return I, F

    def output_batch(self, Z: np.ndarray, times: np.ndarray, correction: bool, basis: tuple) -> list | None:
        """The output frames (q, q', q'', reactions, scalars without ||N||_2) of the integrator states
        Z[j] at times[j] from one compiled call (:func:`k_output_batch`): a list with None from the first row
        the kernel declined on; None when the plane's motion is not quadratic in t."""
        if self.system._plane_quadratic is None:
            return None
        I, F = self.timed_data(basis)
        result = timed_kernels()[1](Z, times, bool(correction), I, F, self.system.m_holonomic)
        return packed_output.batch_frames(result, self.system.n, self.n_disks)

    def rhs(self, y: np.ndarray, basis: tuple, t: float) -> tuple[int, np.ndarray]:
        zp, vp, ap = self.system.plane_arrays(t)
        I, F = self.packed(basis)
        return self.k_rhs(y, I, F, zp, vp, ap)

    def output(self, y: np.ndarray, correction: bool, basis: tuple, t: float, growth: bool = True) -> tuple:
        """(status, q, q', q'', reactions (n_disks, 6), scalars) of :func:`k_output` (views of one array)."""
        zp, vp, ap = self.system.plane_arrays(t)
        I, F = self.packed(basis)
        status, out = self.k_output(y, correction, I, F, zp, vp, ap, self.system.m_holonomic, growth)
        return (status, *unpack_frame(out, self.system.n, self.n_disks))
