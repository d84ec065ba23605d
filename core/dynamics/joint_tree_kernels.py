"""Compiled kernel (numba) of the joint-tree right-hand side (``mechstudio.core.dynamics.joint_tree``).

:func:`k_rhs_joint_tree` is ``JointTreeFormulation.rhs_augmented`` in one call: the outward recursion for the
poses, the partial velocities W, V and the accelerations at theta'' = 0 (the module docstring of joint_tree, the
same equations in the same order), Kane's M and f, M theta'' = f by Cholesky, and the power of the joint dampers.
Plain Python with numpy semantics (it also runs uncompiled: tests/test_joint_tree_kernels.py checks both against
the numpy path); :func:`timed_kernel` compiles it once per process for the compiled DOP853 step
(``mechstudio.core.integrate.dop853_kernels``), which calls it as ``kernel(t, y, I, F) -> (status, y')``.

Scope (``JointTreeFormulation.compiled_rhs`` offers it only then): every joint type of the tree (its rotations
are the elementary products of ``joint_tree.ROTATIONS``, the slide after them), gravity as the only body load,
joint springs and dampers without time-function loads, no driven coordinates. The state is
y = [theta; theta'; W] (every coordinate free), the result [theta'; theta''; P], P the dampers' power -c theta'^2.

Data, packed by :func:`pack_joint_tree` (``mechstudio.core.dynamics.packed_planar.pack``: one int64 array I, one
float64 array F, segments in this order):

* ints: 0 sizes (nb, nc, nl); 1 joints (nj, 6): parent, child (-1 the ground), forward (body1 is the parent), first
  coordinate, rotations nr, slide (0/1); 2 axes (nj, 3): the elementary rotation axes (0 x, 1 y, 2 z; -1 unused);
  3 loaded coordinates (nl,); 4 their kind (nl,): 1 an angle (the spring's stretch wrapped to (-pi, pi]), 0 a slide;
* floats: 5 C1 (nj, 3, 3); 6 C2; 7 s1 (nj, 3); 8 s2; 9 D (nj, 3, 3) of the current pack; 10 masses (nb,);
  11 body inertia tensors J' (nb, 3, 3) about the centres of mass; 12 gravity (3,); 13 per loaded coordinate
  (spring k, damper c, free value x0) (nl, 3).

D changes at every (re)pack of the formulation, so the formulation packs the data again then.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from mechstudio.core.dynamics import packed_planar
from mechstudio.core.dynamics.packed_planar import fseg, iseg
from mechstudio.core.jit import compile_helper, kernel_set
from mechstudio.core.numerics import dense_kernels

cholesky = dense_kernels.cholesky  # the compiled ones are bound by timed_kernel() before compiling
cholesky_solve = dense_kernels.cholesky_solve


def k_joint_rotation(axes, nr, th, thd, R, S, sd):  # noqa: ANN001, ANN201
    """R(theta) (3, 3), S (3, nr) with columns S_k = R_<k e_k and sd = d(S)/dt theta' of one joint (in place;
    ``JointTree.rotation``)."""
    for i in range(3):
        sd[i] = 0.0
        for c in range(3):
            R[i, c] = 1.0 if i == c else 0.0
    w0 = 0.0
    w1 = 0.0
    w2 = 0.0
    for k in range(nr):
        ax = axes[k]
        c0, c1, c2 = R[0, ax], R[1, ax], R[2, ax]
        S[0, k], S[1, k], S[2, k] = c0, c1, c2
        td = thd[k]
        sd[0] += (w1 * c2 - w2 * c1) * td
        sd[1] += (w2 * c0 - w0 * c2) * td
        sd[2] += (w0 * c1 - w1 * c0) * td
        w0 += c0 * td
        w1 += c1 * td
        w2 += c2 * td
        c, s = math.cos(th[k]), math.sin(th[k])
        # R <- R Rk: the two columns other than ax rotate
        a = (ax + 1) % 3
        b = (ax + 2) % 3
        for i in range(3):
            ra, rb = R[i, a], R[i, b]
            R[i, a] = c * ra + s * rb
            R[i, b] = -s * ra + c * rb


def _mm(a, b):  # noqa: ANN001, ANN202
    """a b of 3 x 3 matrices."""
    out = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            out[i, j] = a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j]
    return out


def _mv(a, x):  # noqa: ANN001, ANN202
    """a x of a 3 x 3 matrix and a 3-vector."""
    out = np.empty(3)
    for i in range(3):
        out[i] = a[i, 0] * x[0] + a[i, 1] * x[1] + a[i, 2] * x[2]
    return out


def _cr(a, b):  # noqa: ANN001, ANN202
    """a x b."""
    out = np.empty(3)
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


def k_rhs_joint_tree(t, y, I, F):  # noqa: ANN001, ANN201
    """(0, [theta'; theta''; P]) at y = [theta; theta'; W] (module docstring); status 2 (the Python path, which
    raises the solver failure) when M is not positive definite."""
    sizes, joints, axes_all, lidx, lkind = iseg(I, 0), iseg(I, 1), iseg(I, 2), iseg(I, 3), iseg(I, 4)
    nb, nc, nl = sizes[0], sizes[1], sizes[2]
    nj = joints.shape[0] // 6
    jt = joints.reshape((nj, 6))
    axs = axes_all.reshape((nj, 3))
    C1a = fseg(I, F, 5).reshape((nj, 3, 3))
    C2a = fseg(I, F, 6).reshape((nj, 3, 3))
    s1a = fseg(I, F, 7).reshape((nj, 3))
    s2a = fseg(I, F, 8).reshape((nj, 3))
    Da = fseg(I, F, 9).reshape((nj, 3, 3))
    mass = fseg(I, F, 10)
    Jb = fseg(I, F, 11).reshape((nb, 3, 3))
    g = fseg(I, F, 12)
    lpar = fseg(I, F, 13).reshape((nl, 3))
    th = y[:nc]
    thd = y[nc:2 * nc]
    A = np.zeros((nb, 3, 3))
    w = np.zeros((nb, 3))
    W = np.zeros((nb, 3, nc))
    V = np.zeros((nb, 3, nc))
    al0 = np.zeros((nb, 3))
    a0 = np.zeros((nb, 3))
    R = np.empty((3, 3))
    S = np.zeros((3, 3))
    sd = np.empty(3)
    I3 = np.eye(3)
    z3 = np.zeros(3)
    for jj in range(nj):
        P, K, fwd, first, nr, slide = jt[jj, 0], jt[jj, 1], jt[jj, 2], jt[jj, 3], jt[jj, 4], jt[jj, 5]
        size = nr + slide
        C1, C2, s1, s2 = C1a[jj], C2a[jj], s1a[jj], s2a[jj]
        k_joint_rotation(axs[jj], nr, th[first:first + nr], thd[first:first + nr], R, S, sd)
        s = th[first + nr] if slide else 0.0
        sdot = thd[first + nr] if slide else 0.0
        Hr = np.zeros((3, size))
        Hu = np.zeros((3, size))
        B2 = np.empty((3, 3))  # D C2^T
        D = Da[jj]
        for i in range(3):
            for c in range(3):
                B2[i, c] = D[i, 0] * C2[c, 0] + D[i, 1] * C2[c, 1] + D[i, 2] * C2[c, 2]
        h1 = np.empty(3)
        for i in range(3):
            h1[i] = C1[i, 2]
        if fwd:
            G = _mm(_mm(C1, R), B2)
            for i in range(3):
                for k in range(nr):
                    Hr[i, k] = C1[i, 0] * S[0, k] + C1[i, 1] * S[1, k] + C1[i, 2] * S[2, k]
            kappa = _mv(C1, sd)
            rho = np.zeros(3)
            for i in range(3):
                for k in range(size):
                    rho[i] += Hr[i, k] * thd[first + k]
            X = _mv(G, s2)  # G s2
            u = np.empty(3)
            for i in range(3):
                u[i] = s1[i] + h1[i] * s - X[i]
            for k in range(nr):  # Hu = X~ Hr
                Hu[0, k] = X[1] * Hr[2, k] - X[2] * Hr[1, k]
                Hu[1, k] = X[2] * Hr[0, k] - X[0] * Hr[2, k]
                Hu[2, k] = X[0] * Hr[1, k] - X[1] * Hr[0, k]
            if slide:
                for i in range(3):
                    Hu[i, nr] += h1[i]
            c1 = _cr(kappa, X)
            c2 = _cr(rho, _cr(rho, X))
            mu = np.empty(3)
            for i in range(3):
                mu[i] = -c1[i] - c2[i]
        else:
            RtB = np.empty((3, 3))  # B2^T R^T
            for i in range(3):
                for c in range(3):
                    RtB[i, c] = B2[0, i] * R[c, 0] + B2[1, i] * R[c, 1] + B2[2, i] * R[c, 2]
            G = np.empty((3, 3))  # RtB C1^T
            for i in range(3):
                for c in range(3):
                    G[i, c] = RtB[i, 0] * C1[c, 0] + RtB[i, 1] * C1[c, 1] + RtB[i, 2] * C1[c, 2]
            for i in range(3):
                for k in range(nr):
                    Hr[i, k] = -(RtB[i, 0] * S[0, k] + RtB[i, 1] * S[1, k] + RtB[i, 2] * S[2, k])
            kappa = -_mv(RtB, sd)
            rho = np.zeros(3)
            for i in range(3):
                for k in range(size):
                    rho[i] += Hr[i, k] * thd[first + k]
            sv = np.empty(3)
            for i in range(3):
                sv[i] = s1[i] + h1[i] * s
            X = _mv(G, sv)  # Gw
            Gh = _mv(G, h1)
            u = np.empty(3)
            for i in range(3):
                u[i] = s2[i] - X[i]
            for k in range(nr):
                Hu[0, k] = X[1] * Hr[2, k] - X[2] * Hr[1, k]
                Hu[1, k] = X[2] * Hr[0, k] - X[0] * Hr[2, k]
                Hu[2, k] = X[0] * Hr[1, k] - X[1] * Hr[0, k]
            if slide:
                for i in range(3):
                    Hu[i, nr] -= Gh[i]
            c1 = _cr(kappa, X)
            c2 = _cr(rho, _cr(rho, X))
            c3 = _cr(rho, Gh)
            mu = np.empty(3)
            for i in range(3):
                mu[i] = -c1[i] - c2[i] - 2 * c3[i] * sdot
        if P >= 0:
            AP, wP, alP, aP = A[P], w[P], al0[P], a0[P]
        else:
            AP, wP, alP, aP = I3, z3, z3, z3
        U = _mv(AP, u)
        hud = np.zeros(3)
        for i in range(3):
            for k in range(size):
                hud[i] += Hu[i, k] * thd[first + k]
        ud = _mv(AP, hud)
        rw = _mv(AP, rho)
        A[K] = _mm(AP, G)
        for i in range(3):
            w[K, i] = wP[i] + rw[i]
        # partials: W_K = W_P + [A_P Hr], V_K = V_P - U~ W_P + [A_P Hu]
        if P >= 0:
            for c in range(nc):
                x0, x1, x2 = W[P, 0, c], W[P, 1, c], W[P, 2, c]
                W[K, 0, c] = x0
                W[K, 1, c] = x1
                W[K, 2, c] = x2
                V[K, 0, c] = V[P, 0, c] - (U[1] * x2 - U[2] * x1)
                V[K, 1, c] = V[P, 1, c] - (U[2] * x0 - U[0] * x2)
                V[K, 2, c] = V[P, 2, c] - (U[0] * x1 - U[1] * x0)
        for k in range(size):
            for i in range(3):
                W[K, i, first + k] += AP[i, 0] * Hr[0, k] + AP[i, 1] * Hr[1, k] + AP[i, 2] * Hr[2, k]
                V[K, i, first + k] += AP[i, 0] * Hu[0, k] + AP[i, 1] * Hu[1, k] + AP[i, 2] * Hu[2, k]
        e1 = _cr(wP, rw)
        e2 = _mv(AP, kappa)
        f1 = _cr(alP, U)
        f2 = _cr(wP, _cr(wP, U))
        f3 = _cr(wP, ud)
        f4 = _mv(AP, mu)
        for i in range(3):
            al0[K, i] = alP[i] + e1[i] + e2[i]
            a0[K, i] = aP[i] + f1[i] + f2[i] + 2 * f3[i] + f4[i]
    # Kane's M and f
    M = np.zeros((nc, nc))
    f = np.zeros(nc)
    for K in range(nb):
        AK = A[K]
        Jw = _mm(_mm(AK, Jb[K]), AK.T.copy())
        Jwd = _mv(Jw, w[K])
        Jal = _mv(Jw, al0[K])
        gy = _cr(w[K], Jwd)
        m = mass[K]
        fl = np.empty(3)
        tq = np.empty(3)
        for i in range(3):
            fl[i] = m * g[i] - m * a0[K, i]
            tq[i] = -Jal[i] - gy[i]
        JW = np.zeros((3, nc))
        for i in range(3):
            for c in range(nc):
                JW[i, c] = Jw[i, 0] * W[K, 0, c] + Jw[i, 1] * W[K, 1, c] + Jw[i, 2] * W[K, 2, c]
        for c in range(nc):
            f[c] += (V[K, 0, c] * fl[0] + V[K, 1, c] * fl[1] + V[K, 2, c] * fl[2]
                     + W[K, 0, c] * tq[0] + W[K, 1, c] * tq[1] + W[K, 2, c] * tq[2])
            for d in range(c, nc):
                M[c, d] += (m * (V[K, 0, c] * V[K, 0, d] + V[K, 1, c] * V[K, 1, d] + V[K, 2, c] * V[K, 2, d])
                            + W[K, 0, c] * JW[0, d] + W[K, 1, c] * JW[1, d] + W[K, 2, c] * JW[2, d])
    for c in range(nc):
        for d in range(c):
            M[c, d] = M[d, c]
    power = 0.0
    for k in range(nl):
        c = lidx[k]
        x = th[c] - lpar[k, 2]
        if lkind[k] == 1:
            x = math.atan2(math.sin(x), math.cos(x))
        xd = thd[c]
        f[c] += -lpar[k, 0] * x - lpar[k, 1] * xd
        power += -lpar[k, 1] * xd * xd
    out = np.empty(2 * nc + 1)
    if cholesky(M) == 0.0:
        return 2, out
    cholesky_solve(M, f)
    for c in range(nc):
        out[c] = thd[c]
        out[nc + c] = f[c]
    out[2 * nc] = power
    return 0, out


def pack_joint_tree(arrays: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(I, F) of :func:`k_rhs_joint_tree` from the segments of the module docstring (five int64, nine float64)."""
    ints, floats = arrays[:5], arrays[5:]
    return packed_planar.pack(tuple(np.ascontiguousarray(a, dtype=np.int64).ravel() for a in ints)
                              + tuple(np.ascontiguousarray(a, dtype=float).ravel() for a in floats))


@kernel_set
def timed_kernel() -> Callable[..., Any] | None:
    """:func:`k_rhs_joint_tree` compiled (called by the compiled DOP853 step), or None without numba."""
    g = globals()
    dense = dense_kernels.compiled()
    g["cholesky"], g["cholesky_solve"] = dense["cholesky"], dense["cholesky_solve"]
    rebuilders = packed_planar.compiled()
    g["iseg"], g["fseg"] = rebuilders["iseg"], rebuilders["fseg"]
    for name in ("k_joint_rotation", "_mm", "_mv", "_cr"):
        g[name] = compile_helper(g[name])
    return compile_helper(k_rhs_joint_tree)


__all__ = ["k_joint_rotation", "k_rhs_joint_tree", "pack_joint_tree", "timed_kernel"]
