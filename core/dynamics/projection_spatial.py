"""Fused compiled path of the projection formulation for spatial rolling-disk systems (speed; same numbers).

For a :class:`~core.spatial_system.SpatialSystem` without applied loads, an evaluation of the projection
formulation (``core.dynamics.projection``) otherwise costs a dozen Python-level calls -- the system's M, C, Phi,
h, eta, the geometry, velocity and acceleration kernels, the power -- each a few microseconds of interpreter
and argument-unboxing overhead around a fraction of a microsecond of arithmetic (n = 6 for one disk). Here the
same algorithm runs as one compiled call:

* :func:`k_rhs`: z' = [p'; q'] and the power of the constraint forces (the work integrand) at z = [p; q]:
  q' = A^-1 [-xi_r; p], q'' from (B^T M B) y = B^T (h - M x_eta) (module docstring of ``projection``), and
  P = q'^T (M q'' - h) (no applied loads on this path, so P_nc = 0);
* :func:`k_output`: one recorded output frame from an integrator state: unpack (q, q'), the drift correction of
  ``core.dynamics.correction`` (Newton-Raphson on Phi with the mass-weighted KKT step, eq. 4.10, then the
  velocity projection onto C q' + xi = 0, the same tolerances and stopping rules), then at the corrected state
  q'', lambda = C_u^-T (M q'' - h)_u (corrected eq. 4.2; minimum-norm least squares when C is rank deficient),
  the contact force and moment of every disk (``SpatialSystem.reactions``), the kinetic and potential
  energies, and ||N||_2 (``ProjectionFormulation.null_space_growth``, which the driver asks after each step).

Whenever a kernel reports trouble (status != 0: a degenerate C_u or S, a reduced mass matrix that is not
positive definite) the caller redoes the evaluation on the generic path, which raises the right
:class:`~core.dynamics.base.SolverFailure` or chooses new dependent coordinates. The generic path stays the
specification: tests/test_performance_equivalence.py checks both give the same numbers.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from core.dynamics import projection as _proj
from core.dynamics.correction import MAX_ITER, POSITION_TOL, VELOCITY_TOL
from core.jit import compile_helper, kernel_set
from core import spatial_kernels as _sk


def _kkt_step(M, A, rhs):  # noqa: ANN001, ANN201
    """min 1/2 dx^T M dx subject to A dx = rhs: the KKT system [M A^T; A 0] [dx; mu] = [0; rhs] (LU with
    partial pivoting; least squares when it is exactly singular or the solution is not finite)."""
    n, m = M.shape[0], A.shape[0]
    K = np.zeros((n + m, n + m))
    K[:n, :n] = M
    K[:n, n:] = A.T
    K[n:, :n] = A
    b = np.zeros((n + m, 1))
    b[n:, 0] = rhs
    K0 = K.copy()
    piv = np.zeros(n + m, np.int32)
    if _lu_inplace(K, piv) > 0.0:
        x = b.copy()
        _lu_solve(K, piv, x)
        if np.all(np.isfinite(x)):
            return x[:n, 0].copy()
    return np.linalg.lstsq(K0, b[:, 0], rcond=1e-12)[0][:n].copy()


def _norm(x):  # noqa: ANN001, ANN201
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return math.sqrt(s)


def _xi(nd, vp):  # noqa: ANN001, ANN201
    """xi(t) of the disks: (-z_p' per disk, then -(x_p', y_p') per disk)."""
    xi = np.empty(3 * nd)
    for k in range(nd):
        xi[k] = -vp[2]
        xi[nd + 2 * k] = -vp[0]
        xi[nd + 2 * k + 1] = -vp[1]
    return xi


def _kept_geometry(C, xi, rows, u, w, V2uT, V2wT, cu_inv, cu_const):  # noqa: ANN001, ANN201
    """The projection's geometry kernel (B, LU(S), x_xi, ...) for the kept independent rows of C and xi."""
    Cr = np.empty((rows.shape[0], C.shape[1]))
    xir = np.empty(rows.shape[0])
    for i in range(rows.shape[0]):
        Cr[i, :] = C[rows[i], :]
        xir[i] = xi[rows[i]]
    return _geometry(Cr, xir, u, w, V2uT, V2wT, cu_inv, cu_const)


def _unpack(y, rows, u, w, V2uT, V2wT, cu_inv, cu_const, mass, J, disk_body, disk_radius, zp, xi):  # noqa
    """(status, q, q', M, C, phi, geometry) of z = [p; q]."""
    k = w.shape[0]
    p = y[:k].copy()
    q = y[k:].copy()
    M, C, phi = _position_terms(q, mass, J, disk_body, disk_radius, zp)
    status, B, S, S_piv, x_xi, s_xi, cu_lu, cu_piv = _kept_geometry(C, xi, rows, u, w, V2uT, V2wT, cu_inv,
                                                                     cu_const)
    if status != 0 or k == 0:
        v = x_xi.copy()
    else:
        v = _velocity(B, S, S_piv, x_xi, s_xi, p)
    return status, q, v, M, C, phi, B, cu_lu, cu_piv


def _accelerations(q, v, M, C, rows, u, w, V2uT, V2wT, cu_inv, cu_const, V2T, mass, J, mg, disk_body,  # noqa
                   disk_radius, xi, ap):
    """(status, q'', M q'', h, kinetic energy, ||N||_2) at a state whose M, C are given."""
    status, B, S, S_piv, x_xi, s_xi, cu_lu, cu_piv = _kept_geometry(C, xi, rows, u, w, V2uT, V2wT, cu_inv,
                                                                     cu_const)
    h, eta, kinetic = _velocity_terms(q, v, mass, J, mg, disk_body, disk_radius, ap)
    n = q.shape[0]
    k = w.shape[0]
    growth = 1.0
    if status != 0:
        return status, np.zeros(n), np.zeros(n), h, kinetic, growth
    eta_r = np.empty(rows.shape[0])
    for i in range(rows.shape[0]):
        eta_r[i] = eta[rows[i]]
    status, qdd, Mqdd, pd = _accel(B, u, eta_r, cu_inv, cu_const, cu_lu, cu_piv, h, M, np.zeros(0), False, V2T)
    if k:  # ||N||_2 with N = B S^-1 (ProjectionFormulation.null_space_growth)
        Sinv = np.eye(k)
        _lu_solve(S, S_piv, Sinv)
        N = _mm(B, Sinv)
        growth = math.sqrt(max(np.linalg.eigvalsh(_mm(np.ascontiguousarray(N.T), N))[-1], 0.0))
    return status, qdd, Mqdd, h, kinetic, growth


def k_rhs(y, rows, u, w, V2uT, V2wT, cu_inv, cu_const, V2T, mass, J, mg, disk_body, disk_radius, zp, vp,  # noqa
          ap):
    """(status, [p'; q'; P]) at z = [p; q] (the work integrand P appended, see module docstring)."""
    nd = disk_body.shape[0]
    xi = _xi(nd, vp)
    k = w.shape[0]
    n = y.shape[0] - k
    out = np.zeros(k + n + 1)
    status, q, v, M, C, phi, B, cu_lu, cu_piv = _unpack(y, rows, u, w, V2uT, V2wT, cu_inv, cu_const, mass, J,
                                                        disk_body, disk_radius, zp, xi)
    if status != 0:
        return status, out
    h, eta, kinetic = _velocity_terms(q, v, mass, J, mg, disk_body, disk_radius, ap)
    eta_r = np.empty(rows.shape[0])
    for i in range(rows.shape[0]):
        eta_r[i] = eta[rows[i]]
    status, qdd, Mqdd, pd = _accel(B, u, eta_r, cu_inv, cu_const, cu_lu, cu_piv, h, M, np.zeros(0), False, V2T)
    if status != 0:
        return status, out
    power = 0.0
    for i in range(n):
        power += v[i] * (Mqdd[i] - h[i])
    out[:k] = pd
    out[k:k + n] = v
    out[k + n] = power
    return 0, out


def k_output(y, correction, rows, u, w, V2uT, V2wT, cu_inv, cu_const, V2T, mass, J, mg, disk_body,  # noqa
             disk_radius, zp, vp, ap, mh):
    """One output frame of the integrator state z = [p; q] (see module docstring).

    Returns (status, q, q', q'', reactions (n_disks, 6), scalars) with scalars = (kinetic, potential,
    ||Phi|| before, after, ||C q' + xi|| before, after, Newton iterations, converged, changed, lambda unique,
    ||N||_2 of the kept basis at the recorded state).
    """
    nd = disk_body.shape[0]
    n = y.shape[0] - w.shape[0]
    m = 3 * nd
    xi = _xi(nd, vp)
    scal = np.zeros(11)
    R = np.zeros((nd, 6))
    status, q, v, M, C, phi, B, cu_lu, cu_piv = _unpack(y, rows, u, w, V2uT, V2wT, cu_inv, cu_const, mass, J,
                                                        disk_body, disk_radius, zp, xi)
    if status != 0:
        return status, q, v, v, R, scal
    # --- drift correction (core.dynamics.correction.correct) ---
    before = _norm(phi)
    vres = _mv(C, v) + xi
    vbefore = _norm(vres)
    res, it, changed = before, 0, False
    if correction and res > POSITION_TOL:
        while res > POSITION_TOL and it < MAX_ITER:
            dq = _kkt_step(M, np.ascontiguousarray(C[:mh]), -phi)
            q += dq
            M, C, phi = _position_terms(q, mass, J, disk_body, disk_radius, zp)
            new = _norm(phi)
            it += 1
            changed = True
            if not np.isfinite(new) or (new > 0.5 * res and new > POSITION_TOL):
                res = new
                break
            res = new
        vres = _mv(C, v) + xi
    vnorm = _norm(vres)
    vafter = vnorm
    if correction and vnorm > VELOCITY_TOL:
        v = v + _kkt_step(M, C, -vres)
        vafter = _norm(_mv(C, v) + xi)
        changed = True
    converged = res <= max(POSITION_TOL, 1e-10)
    # --- accelerations, multipliers, reactions, energies at the recorded state ---
    status, qdd, Mqdd, h, kinetic, growth = _accelerations(q, v, M, C, rows, u, w, V2uT, V2wT, cu_inv, cu_const, V2T,
                                                       mass, J, mg, disk_body, disk_radius, xi, ap)
    if status != 0:
        return status, q, v, qdd, R, scal
    f = Mqdd - h
    unique = rows.shape[0] == m and u.shape[0] == m
    if unique:
        fu = np.empty(m)
        for i in range(m):
            fu[i] = f[u[i]]
        if cu_const:
            lam = _mv(np.ascontiguousarray(cu_inv.T), fu)
        else:
            Cu = np.empty((m, m))
            for i in range(m):
                for j in range(m):
                    Cu[i, j] = C[i, u[j]]
            lam = np.linalg.solve(Cu.T, fu)
    else:
        lam = np.linalg.lstsq(np.ascontiguousarray(C.T), f, rcond=-1.0)[0]
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
    scal[0] = kinetic
    scal[1] = potential
    scal[2] = before
    scal[3] = res
    scal[4] = vbefore
    scal[5] = vafter
    scal[6] = it
    scal[7] = 1.0 if converged else 0.0
    scal[8] = 1.0 if changed else 0.0
    scal[9] = 1.0 if unique else 0.0
    scal[10] = growth
    return 0, q, v, qdd, R, scal


# helpers the kernels call: compiled versions (bound at import; plain Python without numba)
_lu_inplace = _lu_solve = _mm = _mv = _geometry = _velocity = _accel = _position_terms = _velocity_terms = None
@kernel_set
def kernels() -> tuple[Callable[..., Any], Callable[..., Any]] | None:
    """(k_rhs, k_output) compiled, or None without numba (the projection formulation's generic path)."""
    global _lu_inplace, _lu_solve, _mm, _mv, _geometry, _velocity, _accel, _position_terms, _velocity_terms
    if _proj._kernels() is None:
        return None
    g = globals()
    _lu_inplace, _lu_solve = _proj._k_lu_inplace, _proj._k_lu_solve  # compiled by _proj._kernels()
    _mm, _mv = _proj._k_mm, _proj._k_mv
    _geometry = compile_helper(_proj._k_geometry)
    _velocity = compile_helper(_proj._k_velocity)
    _accel = compile_helper(_proj._k_accelerations)
    _position_terms = compile_helper(_sk.k_position_terms)
    _velocity_terms = compile_helper(_sk.k_velocity_terms)
    for name in ("_kkt_step", "_norm", "_xi", "_kept_geometry", "_unpack", "_accelerations"):
        g[name] = compile_helper(g[name])
    return compile_helper(k_rhs), compile_helper(k_output)


def applies(system: Any) -> bool:
    """True for the systems this path handles exactly: spatial rolling-disk systems without applied loads."""
    from core.spatial_system import SpatialSystem
    return isinstance(system, SpatialSystem) and not system.loads and not system.torques
