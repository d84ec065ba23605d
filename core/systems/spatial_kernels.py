"""Compiled evaluation of :class:`~core.systems.spatial.SpatialSystem`: the same equations as its ``*_reference``
methods (module docstring of ``mechstudio.core.systems.spatial``), in two kernels per state instead of ~10 Python calls.

* :func:`k_position_terms` (q, t): M(q), C(q) and Phi(q, t) -- everything that depends on the positions only;
* :func:`k_velocity_terms` (q, q', t): h(q, q') without applied loads, eta(q, q', t) and the kinetic energy.

Coordinates q[6k:6k+6] = (x, y, z, psi, theta, phi) of body k; rows of C: the holonomic height conditions of
the disks first, then the (x, y) no-slip pairs. Every quantity is the one derived in ``mechstudio.core.systems.spatial``:

    M = diag(m I3, G_b^T J G_b),  G_b = [[sin th sin ph, cos ph, 0], [sin th cos ph, -sin ph, 0], [cos th, 0, 1]]
    h = (m g,  G_b^T (-J (G_b' alpha') - omega_b x J omega_b))
    phi = z - rho sin th - z_p(t);  C rows (0,0,1, 0,-rho cos th,0), (I2, 0 | z x d, e1 x d, e3 x d)_{x,y}
    eta = (rho sin th th'^2 - z_p'',  ((G_s' alpha') x d + omega x d' - r_p'')_{x,y})

Plain Python with numpy semantics: compiled by numba when available (``mechstudio.core.jit``), otherwise run as they are.
tests/test_performance_equivalence.py checks them against the reference methods to 1e-12.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from mechstudio.core.jit import KernelNotCached, array_types, compile_kernel, kernel_set, numba_module


def k_position_terms(q, mass, J, disk_body, disk_radius, z_plane):  # noqa: ANN001, ANN201
    """(M (n, n), C (m, n), Phi (n_disks,)) at q; J (nb, 3, 3) body-axis inertia tensors about the centres."""
    nb = mass.shape[0]
    n = 6 * nb
    nd = disk_body.shape[0]
    M = np.zeros((n, n))
    C = np.zeros((3 * nd, n))
    phi = np.empty(nd)
    G = np.zeros((3, 3))
    for k in range(nb):
        c = 6 * k
        M[c, c] = mass[k]
        M[c + 1, c + 1] = mass[k]
        M[c + 2, c + 2] = mass[k]
        th, ph = q[c + 4], q[c + 5]
        st, ct, sf, cf = math.sin(th), math.cos(th), math.sin(ph), math.cos(ph)
        G[0, 0], G[0, 1] = st * sf, cf
        G[1, 0], G[1, 1] = st * cf, -sf
        G[2, 0], G[2, 2] = ct, 1.0
        for i in range(3):
            for j in range(3):
                s = 0.0
                for a in range(3):
                    ga = G[a, i]
                    if ga != 0.0:
                        for b in range(3):
                            s += ga * J[k, a, b] * G[b, j]
                M[c + 3 + i, c + 3 + j] = s
    for kk in range(nd):
        c = 6 * disk_body[kk]
        rho = disk_radius[kk]
        psi, th = q[c + 3], q[c + 4]
        sp, cp, st, ct = math.sin(psi), math.cos(psi), math.sin(th), math.cos(th)
        dx, dy, dz = rho * sp * ct, -rho * cp * ct, -rho * st  # d = -rho u, contact point - centre
        e3x, e3y, e3z = sp * st, -cp * st, ct
        phi[kk] = q[c + 2] - rho * st - z_plane
        C[kk, c + 2] = 1.0
        C[kk, c + 4] = -rho * ct
        r0 = nd + 2 * kk
        C[r0, c] = 1.0
        C[r0, c + 3] = -dy
        C[r0, c + 4] = sp * dz
        C[r0, c + 5] = e3y * dz - e3z * dy
        C[r0 + 1, c + 1] = 1.0
        C[r0 + 1, c + 3] = dx
        C[r0 + 1, c + 4] = -cp * dz
        C[r0 + 1, c + 5] = e3z * dx - e3x * dz
    return M, C, phi


def k_velocity_terms(q, v, mass, J, mg, disk_body, disk_radius, a_plane):  # noqa: ANN001, ANN201
    """(h (n,) without applied loads, eta (m,), kinetic energy [J]) at (q, q'); a_plane = r_p''(t) (3,)."""
    nb = mass.shape[0]
    n = 6 * nb
    nd = disk_body.shape[0]
    h = np.empty(n)
    eta = np.empty(3 * nd)
    kinetic = 0.0
    for k in range(nb):
        c = 6 * k
        th, ph = q[c + 4], q[c + 5]
        dpsi, dth, dph = v[c + 3], v[c + 4], v[c + 5]
        st, ct, sf, cf = math.sin(th), math.cos(th), math.sin(ph), math.cos(ph)
        w0 = st * sf * dpsi + cf * dth  # omega_b = G_b alpha'
        w1 = st * cf * dpsi - sf * dth
        w2 = ct * dpsi + dph
        g0 = dpsi * (ct * sf * dth + st * cf * dph) - dth * sf * dph  # G_b' alpha'
        g1 = dpsi * (ct * cf * dth - st * sf * dph) - dth * cf * dph
        g2 = -dpsi * st * dth
        jw0 = J[k, 0, 0] * w0 + J[k, 0, 1] * w1 + J[k, 0, 2] * w2
        jw1 = J[k, 1, 0] * w0 + J[k, 1, 1] * w1 + J[k, 1, 2] * w2
        jw2 = J[k, 2, 0] * w0 + J[k, 2, 1] * w1 + J[k, 2, 2] * w2
        r0 = -(J[k, 0, 0] * g0 + J[k, 0, 1] * g1 + J[k, 0, 2] * g2) - (w1 * jw2 - w2 * jw1)
        r1 = -(J[k, 1, 0] * g0 + J[k, 1, 1] * g1 + J[k, 1, 2] * g2) - (w2 * jw0 - w0 * jw2)
        r2 = -(J[k, 2, 0] * g0 + J[k, 2, 1] * g1 + J[k, 2, 2] * g2) - (w0 * jw1 - w1 * jw0)
        h[c] = mg[k, 0]
        h[c + 1] = mg[k, 1]
        h[c + 2] = mg[k, 2]
        h[c + 3] = st * sf * r0 + st * cf * r1 + ct * r2
        h[c + 4] = cf * r0 - sf * r1
        h[c + 5] = r2
        vx, vy, vz = v[c], v[c + 1], v[c + 2]
        kinetic += 0.5 * mass[k] * (vx * vx + vy * vy + vz * vz) + 0.5 * (w0 * jw0 + w1 * jw1 + w2 * jw2)
    for kk in range(nd):
        c = 6 * disk_body[kk]
        rho = disk_radius[kk]
        psi, th = q[c + 3], q[c + 4]
        dpsi, dth, dph = v[c + 3], v[c + 4], v[c + 5]
        sp, cp, st, ct = math.sin(psi), math.cos(psi), math.sin(th), math.cos(th)
        eta[kk] = rho * st * dth * dth - a_plane[2]  # -gamma
        ux, uy, uz = -sp * ct, cp * ct, st
        dx, dy, dz = -rho * ux, -rho * uy, -rho * uz
        e3x, e3y, e3z = sp * st, -cp * st, ct
        wx, wy, wz = dth * cp + dph * e3x, dth * sp + dph * e3y, dpsi + dph * e3z  # omega
        fx, fy, fz = dth * cp, dth * sp, dpsi  # angular velocity of the frame (e1, u, e3)
        gx = -dth * dpsi * sp + dph * (fy * e3z - fz * e3y)  # G_s' alpha'
        gy = dth * dpsi * cp + dph * (fz * e3x - fx * e3z)
        gz = dph * (fx * e3y - fy * e3x)
        ddx = -rho * (fy * uz - fz * uy)  # d'
        ddy = -rho * (fz * ux - fx * uz)
        ddz = -rho * (fx * uy - fy * ux)
        eta[nd + 2 * kk] = gy * dz - gz * dy + wy * ddz - wz * ddy - a_plane[0]
        eta[nd + 2 * kk + 1] = gz * dx - gx * dz + wz * ddx - wx * ddz - a_plane[1]
    return h, eta, kinetic


@kernel_set
def compiled() -> tuple[Callable[..., Any], Callable[..., Any]] | None:
    """(position_terms, velocity_terms) compiled by numba, or None without numba (``mechstudio.core.jit``)."""
    f8_1, f8_2, f8_3, i8_1, _, _ = array_types()
    f8 = numba_module().float64
    return (compile_kernel(k_position_terms, (f8_1, f8_1, f8_3, i8_1, f8_1, f8)),
            compile_kernel(k_velocity_terms, (f8_1, f8_1, f8_1, f8_3, f8_2, i8_1, f8_1, f8_1)))


def kernels() -> tuple[Callable[..., Any], Callable[..., Any]]:
    """(position_terms, velocity_terms): compiled when the kernel policy gives them (``mechstudio.core.jit``: not
    under "numpy", and under "cached" only from the cache), else the Python functions."""
    try:
        return compiled() or (k_position_terms, k_velocity_terms)
    except KernelNotCached:
        return k_position_terms, k_velocity_terms
