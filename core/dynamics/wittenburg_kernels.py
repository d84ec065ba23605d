"""Compiled kernels (numba) of Wittenburg's formulation ([004]) on a spherical-joint tree.

Plain Python with numpy semantics (they also run uncompiled); :func:`kernels` compiles them once per process.

* :func:`k_omega_dot`: omega' of eqs. (59)-(63), the right-hand side's linear system (the numpy path
  ``WittenburgFormulation._omega_dot_numpy`` is its reference, in the same order of operations);
* :func:`k_output`: one recorded output frame of an integrator state, fused into one call. It computes exactly
  what the simulation driver's generic path computes for this formulation (``unpack``, the drift correction's
  residuals, ``accelerations`` and ``TreeMaximalSystem.reactions``/energies), without forming the 7n x 4n
  constraint matrix of the maximal model:

  - the maximal coordinates (``TreeMaximalSystem.state_from_orientations`` and ``TreeKinematics.state``):
    p = a/|a|, A = A(p), r_k = J_k - A_k c_in,k with the inboard joint points J_k = J_parent - A_parent e_k
    (J = P(t), the base point, for a root-level body: eq. (20) summed by the tree recursion instead of the
    product with T^T), r'_k = J'_k - omega_k x A_k c_in,k, p' = 1/2 E(p)^T omega;
  - the residuals the drift correction (``mechstudio.core.dynamics.correction``) measures: ||Phi|| (joint rows
    r_P + A(p_P) c_P - r_K - A(p_K) c_K with the quadratic A(p) of ``mechstudio.core.systems.tree_maximal``, norm rows
    (p.p - 1)/2) and ||C q' + xi|| (joint rows with d(A(p) c)/dt = (dA(p) c/dp) p', norm rows p.p');
    when either is above the correction's tolerance (POSITION_TOL, VELOCITY_TOL) the kernel returns status 1
    and the caller takes the generic path, which corrects. A Wittenburg state is on the constraint manifold
    by construction, so this happens only through round-off far above 1e-13 (never in the tests);
  - the frame at that state: omega' (:func:`k_omega_dot`), r'' (eq. (20) differentiated twice), the joint
    forces X = T (m r'' - F) (eq. (12), by the subtree sums of the tree recursion), p'' = 1/2 (E(p')^T omega +
    E(p)^T omega'), the reaction of every joint as ``TreeMaximalSystem.reactions`` reports it (the force on the
    file's body2 and the moment E(p) g_p / (2 p.p) - arm x force of the generalized force g = C_rows^T lambda
    with lambda_rows = -X), the kinetic energy 1/2 sum m |r'|^2 + 1/2 omega_b^T J omega_b (omega_b =
    2 G(p) p') and the potential energy of gravity -sum m r.g.

  The multipliers of the unit-norm rows are not computed: no output uses them (they are not reactions).
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from mechstudio.core.numerics import dense_kernels
from mechstudio.core.dynamics import packed_output, packed_planar
from mechstudio.core.dynamics.packed_planar import fseg, iseg
from mechstudio.core.dynamics.correction import POSITION_TOL, VELOCITY_TOL
from mechstudio.core.jit import array_types, compile_helper, compile_kernel, kernel_set

#: status of :func:`k_output`: 0 frame computed; 1 the state needs the drift correction (generic path)
OUTPUT_NEEDS_CORRECTION = 1

cholesky_solve = dense_kernels.cholesky_solve  # the compiled ones are bound by kernels() before compiling
pack_frame = packed_output.pack_frame


# --- omega' (eqs. (59)-(63)) -------------------------------------------------------------------------------------
# omega_dot of WittenburgFormulation written as one loop kernel: the same equations (59)-(63) in the same order of
# operations as the numpy path (_omega_dot_numpy), which stays the fallback and the reference of the tests
# (tests/test_performance_equivalence.py). One call instead of ~50 numpy operations per evaluation. K is solved by
# its Cholesky factor (LAPACK through numba; not positive definite -> LinAlgError -> SolverFailure).
def k_omega_dot(A, w, Vb, eb, Kb, par, pi, pj, pc, T, P, Tt, F, mom, base):  # noqa: ANN001, ANN201
    """omega' (n, 3) at orientations A (n, 3, 3) and angular velocities w (n, 3), world components."""
    n = w.shape[0]
    cin = np.empty((n, 3))
    h = np.empty((n, 3))
    e = np.empty((n, 3))
    K = np.zeros((3 * n, 3 * n))
    Kw = np.empty((n, 3))
    u = np.empty((n, 3))
    we = np.empty((n, 3))
    for i in range(n):
        p = par[i]
        for r in range(3):
            a0 = 0.0
            a1 = 0.0
            a2 = 0.0
            for c in range(3):
                a0 += A[i, r, c] * Vb[i, c, 0]
                a1 += A[i, r, c] * Vb[i, c, 1]
                a2 += A[p, r, c] * eb[i, c]
            cin[i, r], h[i, r], e[i, r] = a0, a1, a2
        AK = np.zeros((3, 3))
        for r in range(3):
            for c in range(3):
                s = 0.0
                for m in range(3):
                    s += A[i, r, m] * Kb[i, m, c]
                AK[r, c] = s
        for r in range(3):
            for c in range(3):
                s = 0.0
                for m in range(3):
                    s += AK[r, m] * A[i, c, m]
                K[3 * i + r, 3 * i + c] = s
    for q in range(pi.shape[0]):
        i, j, c = pi[q], pj[q], pc[q]
        he = h[j, 0] * e[c, 0] + h[j, 1] * e[c, 1] + h[j, 2] * e[c, 2]
        for r in range(3):
            for s in range(3):
                v = -h[j, r] * e[c, s]
                if r == s:
                    v += he
                K[3 * i + r, 3 * j + s] = v  # (h_j . d_ij) E - h_j d_ij^T
                K[3 * j + s, 3 * i + r] = v  # its transpose
    for i in range(n):
        w0, w1, w2 = w[i, 0], w[i, 1], w[i, 2]
        for r in range(3):
            Kw[i, r] = K[3 * i + r, 3 * i] * w0 + K[3 * i + r, 3 * i + 1] * w1 + K[3 * i + r, 3 * i + 2] * w2
        h0, h1, h2 = h[i, 0], h[i, 1], h[i, 2]
        wh0, wh1, wh2 = w1 * h2 - w2 * h1, w2 * h0 - w0 * h2, w0 * h1 - w1 * h0
        u[i, 0], u[i, 1], u[i, 2] = w1 * wh2 - w2 * wh1, w2 * wh0 - w0 * wh2, w0 * wh1 - w1 * wh0
        p = par[i]
        p0, p1, p2 = w[p, 0], w[p, 1], w[p, 2]
        e0, e1, e2 = e[i, 0], e[i, 1], e[i, 2]
        c0, c1, c2 = p1 * e2 - p2 * e1, p2 * e0 - p0 * e2, p0 * e1 - p1 * e0
        we[i, 0], we[i, 1], we[i, 2] = p1 * c2 - p2 * c1, p2 * c0 - p0 * c2, p0 * c1 - p1 * c0
    anc = np.dot(Tt, we) - base
    TuF = np.dot(T, u + F)
    cr = np.empty((n, 3))
    for i in range(n):
        cr[i, 0] = TuF[i, 1] * e[i, 2] - TuF[i, 2] * e[i, 1]
        cr[i, 1] = TuF[i, 2] * e[i, 0] - TuF[i, 0] * e[i, 2]
        cr[i, 2] = TuF[i, 0] * e[i, 1] - TuF[i, 1] * e[i, 0]
    rhs = np.dot(P, cr)
    for i in range(n):
        w0, w1, w2 = w[i, 0], w[i, 1], w[i, 2]
        k0, k1, k2 = Kw[i, 0], Kw[i, 1], Kw[i, 2]
        a0, a1, a2 = anc[i, 0], anc[i, 1], anc[i, 2]
        h0, h1, h2 = h[i, 0], h[i, 1], h[i, 2]
        c0, c1, c2 = cin[i, 0], cin[i, 1], cin[i, 2]
        f0, f1, f2 = F[i, 0], F[i, 1], F[i, 2]
        rhs[i, 0] += -(w1 * k2 - w2 * k1) + (a1 * h2 - a2 * h1) - (c1 * f2 - c2 * f1) + mom[i, 0]
        rhs[i, 1] += -(w2 * k0 - w0 * k2) + (a2 * h0 - a0 * h2) - (c2 * f0 - c0 * f2) + mom[i, 1]
        rhs[i, 2] += -(w0 * k1 - w1 * k0) + (a0 * h1 - a1 * h0) - (c0 * f1 - c1 * f0) + mom[i, 2]
    L = np.linalg.cholesky(K)  # K = L L^T
    b = rhs.ravel().copy()
    cholesky_solve(L, b)
    return b.reshape(n, 3)


# --- the general right-hand side: any parametrization, a moving base (compiled DOP853 step and Python path) -------
#: the parametrizations' codes in the compiled right-hand side (``mechstudio.core.numerics.orientation``)
PARAM_CODES = {"quaternion": 0, "bryant": 1, "euler313": 2, "matrix": 3}


def k_param_matrices(y, code, n, ref, has_ref, QA):  # noqa: ANN001, ANN201
    """A_k = ref_k A(a_k) (n, 3, 3) of the orientation parameters y[:n size] (``WittenburgFormulation.matrices``):
    quaternion A(p/|p|) by its quadratic form, Bryant eq. (66), Euler 3-1-3 eq. (68), matrix elements
    orthonormalised by two Newton steps R (3E - R^T R)/2 (``orientation.orthonormalize``)."""
    A = np.empty((n, 3, 3))
    B = np.empty((3, 3))
    M = np.empty((3, 3))
    R = np.empty((3, 3))
    pp = np.empty(16)
    for i in range(n):
        if code == 0:
            for a in range(4):
                for b in range(4):
                    pp[4 * a + b] = y[4 * i + a] * y[4 * i + b]
            norm2 = pp[0] + pp[5] + pp[10] + pp[15]
            for k in range(9):
                acc = 0.0
                for ab in range(16):
                    acc += pp[ab] * QA[ab, k]
                B[k // 3, k % 3] = acc / norm2
        elif code == 1:  # Bryant angles, eq. (66)
            s1, s2, s3 = math.sin(y[3 * i]), math.sin(y[3 * i + 1]), math.sin(y[3 * i + 2])
            c1, c2, c3 = math.cos(y[3 * i]), math.cos(y[3 * i + 1]), math.cos(y[3 * i + 2])
            B[0, 0], B[0, 1], B[0, 2] = c2 * c3, -c2 * s3, s2
            B[1, 0], B[1, 1], B[1, 2] = c1 * s3 + s1 * s2 * c3, c1 * c3 - s1 * s2 * s3, -s1 * c2
            B[2, 0], B[2, 1], B[2, 2] = s1 * s3 - c1 * s2 * c3, s1 * c3 + c1 * s2 * s3, c1 * c2
        elif code == 2:  # Euler 3-1-3, eq. (68)
            sp, st, sf = math.sin(y[3 * i]), math.sin(y[3 * i + 1]), math.sin(y[3 * i + 2])
            cp, ct, cf = math.cos(y[3 * i]), math.cos(y[3 * i + 1]), math.cos(y[3 * i + 2])
            B[0, 0], B[0, 1], B[0, 2] = cp * cf - sp * ct * sf, -cp * sf - sp * ct * cf, sp * st
            B[1, 0], B[1, 1], B[1, 2] = sp * cf + cp * ct * sf, -sp * sf + cp * ct * cf, -cp * st
            B[2, 0], B[2, 1], B[2, 2] = st * sf, st * cf, ct
        else:  # matrix elements, two Newton steps towards the polar factor
            for r in range(3):
                for c in range(3):
                    B[r, c] = y[9 * i + 3 * r + c]
            for _ in range(2):
                for r in range(3):
                    for c in range(3):
                        M[r, c] = (3.0 if r == c else 0.0) - (B[0, r] * B[0, c] + B[1, r] * B[1, c]
                                                              + B[2, r] * B[2, c])
                for r in range(3):
                    for c in range(3):
                        R[r, c] = 0.5 * B[r, 0] * M[0, c] + 0.5 * B[r, 1] * M[1, c] + 0.5 * B[r, 2] * M[2, c]
                for r in range(3):
                    for c in range(3):
                        B[r, c] = R[r, c]
        for r in range(3):
            for c in range(3):
                if has_ref:
                    A[i, r, c] = ref[i, r, 0] * B[0, c] + ref[i, r, 1] * B[1, c] + ref[i, r, 2] * B[2, c]
                else:
                    A[i, r, c] = B[r, c]
    return A


def k_matrix_to_quat(A):  # noqa: ANN001, ANN201
    """Unit quaternions (n, 4), p0 >= 0, of rotation matrices (n, 3, 3): Shepperd's method as
    ``orientation.matrix_to_quat`` (the largest of the candidates 4 p_k^2, the first on ties)."""
    n = A.shape[0]
    out = np.empty((n, 4))
    cand = np.empty(4)
    for i in range(n):
        tr = A[i, 0, 0] + A[i, 1, 1] + A[i, 2, 2]
        cand[0], cand[1] = 1 + tr, 1 + 2 * A[i, 0, 0] - tr
        cand[2], cand[3] = 1 + 2 * A[i, 1, 1] - tr, 1 + 2 * A[i, 2, 2] - tr
        k = 0
        for j in range(1, 4):
            if cand[j] > cand[k]:
                k = j
        s = math.sqrt(max(cand[k], 1e-300))
        r32, r23, r13, r31, r21, r12 = A[i, 2, 1], A[i, 1, 2], A[i, 0, 2], A[i, 2, 0], A[i, 1, 0], A[i, 0, 1]
        if k == 0:
            q0, q1, q2, q3 = s / 2, (r32 - r23) / (2 * s), (r13 - r31) / (2 * s), (r21 - r12) / (2 * s)
        elif k == 1:
            q0, q1, q2, q3 = (r32 - r23) / (2 * s), s / 2, (r12 + r21) / (2 * s), (r13 + r31) / (2 * s)
        elif k == 2:
            q0, q1, q2, q3 = (r13 - r31) / (2 * s), (r12 + r21) / (2 * s), s / 2, (r23 + r32) / (2 * s)
        else:
            q0, q1, q2, q3 = (r21 - r12) / (2 * s), (r13 + r31) / (2 * s), (r23 + r32) / (2 * s), s / 2
        if q0 < 0:
            q0, q1, q2, q3 = -q0, -q1, -q2, -q3
        nrm = math.sqrt(q0 * q0 + q1 * q1 + q2 * q2 + q3 * q3)
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = q0 / nrm, q1 / nrm, q2 / nrm, q3 / nrm
    return out


def k_params_to_quat(y, code, n, ref, has_ref, QA):  # noqa: ANN001, ANN201
    """Unit quaternions (n, 4) of the bodies' orientations ref_k A(a_k) (the fused output frame of the angle
    sets and matrix elements)."""
    return k_matrix_to_quat(k_param_matrices(y, code, n, ref, has_ref, QA))


def k_angle_set_near_singular(q, ref, has_ref, row, limit):  # noqa: ANN001, ANN201
    """True when some body's |B[row, 2]| > limit, B = ref^T A(p) with p the Euler parameters of the maximal
    coordinates q (7 per body): Bryant sin alpha2 = B[0, 2] (eq. (66)), Euler 3-1-3 cos theta = B[2, 2] (eq. (68))."""
    n = q.shape[0] // 7
    for i in range(n):
        w, x, y, z = q[7 * i + 3], q[7 * i + 4], q[7 * i + 5], q[7 * i + 6]
        nn = w * w + x * x + y * y + z * z
        c0, c1, c2 = 2 * (x * z + w * y) / nn, 2 * (y * z - w * x) / nn, (w * w - x * x - y * y + z * z) / nn
        if has_ref:
            b = ref[i, 0, row] * c0 + ref[i, 1, row] * c1 + ref[i, 2, row] * c2
        else:
            b = c0 if row == 0 else c2
        if abs(b) > limit:
            return True
    return False


def k_param_rates(y, code, n, A, w, QR, out):  # noqa: ANN001, ANN201
    """out[:n size] = the parameters' rates at body-frame angular velocities omega_b = A^T omega (the
    parametrizations' ``rates``: quaternion 1/2 G(p)^T omega_b, Bryant eq. (65), Euler 3-1-3 eq. (67), matrix
    elements a omega_b~)."""
    pw = np.empty(12)
    for i in range(n):
        wx = w[i, 0] * A[i, 0, 0] + w[i, 1] * A[i, 1, 0] + w[i, 2] * A[i, 2, 0]
        wy = w[i, 0] * A[i, 0, 1] + w[i, 1] * A[i, 1, 1] + w[i, 2] * A[i, 2, 1]
        wz = w[i, 0] * A[i, 0, 2] + w[i, 1] * A[i, 1, 2] + w[i, 2] * A[i, 2, 2]
        if code == 0:
            for a in range(4):
                pw[3 * a] = y[4 * i + a] * wx
                pw[3 * a + 1] = y[4 * i + a] * wy
                pw[3 * a + 2] = y[4 * i + a] * wz
            for c in range(4):
                acc = 0.0
                for aj in range(12):
                    acc += pw[aj] * QR[aj, c]
                out[4 * i + c] = acc
        elif code == 1:  # eq. (65)
            c2, t2 = math.cos(y[3 * i + 1]), math.tan(y[3 * i + 1])
            s3, c3 = math.sin(y[3 * i + 2]), math.cos(y[3 * i + 2])
            u = c3 * wx - s3 * wy
            out[3 * i], out[3 * i + 1], out[3 * i + 2] = u / c2, s3 * wx + c3 * wy, -u * t2 + wz
        elif code == 2:  # eq. (67)
            st, sf, cf = math.sin(y[3 * i + 1]), math.sin(y[3 * i + 2]), math.cos(y[3 * i + 2])
            u = (sf * wx + cf * wy) / st
            out[3 * i], out[3 * i + 1], out[3 * i + 2] = u, cf * wx - sf * wy, -u * math.cos(y[3 * i + 1]) + wz
        else:  # a omega_b~, omega_b~ = [[0, -wz, wy], [wz, 0, -wx], [-wy, wx, 0]]
            for r in range(3):
                a0, a1, a2 = y[9 * i + 3 * r], y[9 * i + 3 * r + 1], y[9 * i + 3 * r + 2]
                out[9 * i + 3 * r] = a1 * wz - a2 * wy
                out[9 * i + 3 * r + 1] = -a0 * wz + a2 * wx
                out[9 * i + 3 * r + 2] = a0 * wy - a1 * wx


def k_base_points(t, root, cb, powers, sines, w0, rotating, Pb, Pbd, Pbdd):  # noqa: ANN001, ANN201
    """Rows of the root-level bodies of Pb, Pbd, Pbdd (n, 3) = position, velocity, acceleration of their base
    points cb (base frame) at t (``BaseMotion.point`` from ``BaseMotion.kernel_tables``): r0 = sum_k c_k t^k +
    sum a sin(f t + phi), A0 = exp(omega0~ t) (Rodrigues, constant omega0), s = A0 c: r0 + s,
    r0' + omega0 x s, r0'' + omega0 x (omega0 x s)."""
    r = np.zeros(3)
    rd = np.zeros(3)
    rdd = np.zeros(3)
    for i in range(3):
        for k in range(powers.shape[1] - 1, -1, -1):  # Horner
            r[i] = r[i] * t + powers[i, k]
            if k >= 1:
                rd[i] = rd[i] * t + k * powers[i, k]
            if k >= 2:
                rdd[i] = rdd[i] * t + k * (k - 1) * powers[i, k]
    for h in range(sines.shape[0]):
        i = int(sines[h, 0])
        a, f, ph = sines[h, 1], sines[h, 2], sines[h, 3]
        s, c = math.sin(f * t + ph), math.cos(f * t + ph)
        r[i] += a * s
        rd[i] += a * f * c
        rdd[i] -= a * f * f * s
    A0 = np.eye(3)
    if rotating:
        p0, p1, p2 = w0[0] * t, w0[1] * t, w0[2] * t
        ang = math.sqrt(p0 * p0 + p1 * p1 + p2 * p2)
        K = np.zeros((3, 3))
        K[0, 1], K[0, 2], K[1, 0], K[1, 2], K[2, 0], K[2, 1] = -p2, p1, p2, -p0, -p1, p0
        if ang < 1e-8:
            fa, fb = 1.0, 0.5
        else:
            fa, fb = math.sin(ang) / ang, (1 - math.cos(ang)) / ang ** 2
        for a in range(3):
            for b in range(3):
                kk = K[a, 0] * K[0, b] + K[a, 1] * K[1, b] + K[a, 2] * K[2, b]
                A0[a, b] += fa * K[a, b] + fb * kk
    for k in range(root.shape[0]):
        if not root[k]:
            continue
        s0 = A0[0, 0] * cb[k, 0] + A0[0, 1] * cb[k, 1] + A0[0, 2] * cb[k, 2]
        s1 = A0[1, 0] * cb[k, 0] + A0[1, 1] * cb[k, 1] + A0[1, 2] * cb[k, 2]
        s2 = A0[2, 0] * cb[k, 0] + A0[2, 1] * cb[k, 1] + A0[2, 2] * cb[k, 2]
        g0, g1, g2 = _cross(w0[0], w0[1], w0[2], s0, s1, s2)
        b0, b1, b2 = _cross(w0[0], w0[1], w0[2], g0, g1, g2)
        Pb[k, 0], Pb[k, 1], Pb[k, 2] = r[0] + s0, r[1] + s1, r[2] + s2
        Pbd[k, 0], Pbd[k, 1], Pbd[k, 2] = rd[0] + g0, rd[1] + g1, rd[2] + g2
        Pbdd[k, 0], Pbdd[k, 1], Pbdd[k, 2] = rdd[0] + b0, rdd[1] + b1, rdd[2] + b2


def k_tree_derivative(y, A, code, Fl, mom, Pbd, Pbdd, moving, par, pi, pj, pc, root, order, Vb, eb, Kb, T,  # noqa: ANN001
                      P, Tt, mass, QR):  # noqa: ANN201
    """[parameter rates; omega'; P_base] at y = [parameters; omega (n, 3); ...] with the orientations A
    (:func:`k_param_matrices`), applied forces Fl and moments mom (n, 3) and the base points' velocities and
    accelerations Pbd, Pbdd (rows of the root-level bodies): ``WittenburgFormulation.derivative_and_power``
    without the loads' own power. omega' from :func:`k_omega_dot` with r0'' of the base point each subtree hangs
    from; when the base moves, its power on the system sum_roots X_k . Pbd_k with the joint forces
    X = T (m r'' - F) (eq. (12); r'' from eq. (20) differentiated twice, by the tree recursion as in
    :func:`k_output`)."""
    n = par.shape[0]
    nk = y.shape[0] - 3 * n - 1
    w = np.empty((n, 3))
    for i in range(n):
        for r in range(3):
            w[i, r] = y[nk + 3 * i + r]
    bacc = np.zeros((n, 3))
    if moving:
        for kk in range(n):
            k = order[kk]
            for i in range(3):
                bacc[k, i] = Pbdd[k, i] if root[k] else bacc[par[k], i]
    wd = k_omega_dot(A, w, Vb, eb, Kb, par, pi, pj, pc, T, P, Tt, Fl, mom, bacc)
    out = np.empty(nk + 3 * n + 1)
    k_param_rates(y, code, n, A, w, QR, out)
    for i in range(n):
        for r in range(3):
            out[nk + 3 * i + r] = wd[i, r]
    power = 0.0
    if moving:
        ja = np.empty((n, 3))
        X = np.empty((n, 3))
        for kk in range(n):
            k = order[kk]
            j = par[k]
            if root[k]:
                for i in range(3):
                    ja[k, i] = Pbdd[k, i]
            else:
                e0 = A[j, 0, 0] * eb[k, 0] + A[j, 0, 1] * eb[k, 1] + A[j, 0, 2] * eb[k, 2]
                e1 = A[j, 1, 0] * eb[k, 0] + A[j, 1, 1] * eb[k, 1] + A[j, 1, 2] * eb[k, 2]
                e2 = A[j, 2, 0] * eb[k, 0] + A[j, 2, 1] * eb[k, 1] + A[j, 2, 2] * eb[k, 2]
                a0, a1, a2 = _cross(wd[j, 0], wd[j, 1], wd[j, 2], e0, e1, e2)
                g0, g1, g2 = _cross(w[j, 0], w[j, 1], w[j, 2], e0, e1, e2)
                b0, b1, b2 = _cross(w[j, 0], w[j, 1], w[j, 2], g0, g1, g2)
                ja[k, 0] = ja[j, 0] - (a0 + b0)
                ja[k, 1] = ja[j, 1] - (a1 + b1)
                ja[k, 2] = ja[j, 2] - (a2 + b2)
            c0 = A[k, 0, 0] * Vb[k, 0, 0] + A[k, 0, 1] * Vb[k, 1, 0] + A[k, 0, 2] * Vb[k, 2, 0]
            c1 = A[k, 1, 0] * Vb[k, 0, 0] + A[k, 1, 1] * Vb[k, 1, 0] + A[k, 1, 2] * Vb[k, 2, 0]
            c2 = A[k, 2, 0] * Vb[k, 0, 0] + A[k, 2, 1] * Vb[k, 1, 0] + A[k, 2, 2] * Vb[k, 2, 0]
            v0, v1, v2 = _cross(w[k, 0], w[k, 1], w[k, 2], c0, c1, c2)
            a0, a1, a2 = _cross(wd[k, 0], wd[k, 1], wd[k, 2], c0, c1, c2)
            b0, b1, b2 = _cross(w[k, 0], w[k, 1], w[k, 2], v0, v1, v2)
            X[k, 0] = mass[k] * (ja[k, 0] - (a0 + b0)) - Fl[k, 0]
            X[k, 1] = mass[k] * (ja[k, 1] - (a1 + b1)) - Fl[k, 1]
            X[k, 2] = mass[k] * (ja[k, 2] - (a2 + b2)) - Fl[k, 2]
        for kk in range(n - 1, -1, -1):  # children after parents: add each subtree sum to its parent's
            k = order[kk]
            if not root[k]:
                for i in range(3):
                    X[par[k], i] += X[k, i]
        for k in range(n):
            if root[k]:
                power += X[k, 0] * Pbd[k, 0] + X[k, 1] * Pbd[k, 1] + X[k, 2] * Pbd[k, 2]
    out[nk + 3 * n] = power
    return out


def k_rhs_tree_timed(t, y, I, F):  # noqa: ANN001, ANN201
    """(status, [parameter rates; omega'; P]) at y = [parameters; omega; W] for gravity as the only load, any
    parametrization and a base still or moving by :meth:`BaseMotion.kernel_tables`
    (``WittenburgFormulation.derivative_and_power`` on that path): :func:`k_param_matrices`,
    :func:`k_base_points`, :func:`k_tree_derivative`. I, F from :func:`pack_tree_data`."""
    par, pi, pj, pc, flags, root, order = (iseg(I, 0), iseg(I, 1), iseg(I, 2), iseg(I, 3), iseg(I, 4),
                                           iseg(I, 5), iseg(I, 6))
    n = par.shape[0]
    code, moving, rotating, has_ref = flags[0], flags[1] != 0, flags[2] != 0, flags[3] != 0
    Vb = fseg(I, F, 7).reshape((n, 3, 2))
    eb = fseg(I, F, 8).reshape((n, 3))
    Kb = fseg(I, F, 9).reshape((n, 3, 3))
    T = fseg(I, F, 10).reshape((n, n))
    P = fseg(I, F, 11).reshape((n, n))
    Tt = fseg(I, F, 12).reshape((n, n))
    Fg = fseg(I, F, 13).reshape((n, 3))
    QA = fseg(I, F, 14).reshape((16, 9))
    QR = fseg(I, F, 15).reshape((12, 4))
    ref = fseg(I, F, 16).reshape((n, 3, 3))
    mass = fseg(I, F, 17)
    cb = fseg(I, F, 18).reshape((n, 3))
    powers = fseg(I, F, 19).reshape((3, -1))
    sines = fseg(I, F, 20).reshape((-1, 4))
    w0 = fseg(I, F, 21)
    A = k_param_matrices(y, code, n, ref, has_ref, QA)
    Pb = np.zeros((n, 3))
    Pbd = np.zeros((n, 3))
    Pbdd = np.zeros((n, 3))
    if moving:
        k_base_points(t, root, cb, powers, sines, w0, rotating, Pb, Pbd, Pbdd)
    zeros = np.zeros((n, 3))
    return 0, k_tree_derivative(y, A, code, Fg, zeros, Pbd, Pbdd, moving, par, pi, pj, pc, root, order, Vb, eb,
                                Kb, T, P, Tt, mass, QR)


def pack_tree_data(arrays: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(I, F) of :func:`k_rhs_tree_timed`: (par, pairs i, j, c, flags (parametrization code, base moving, base
    rotating, reference matrices in use), root, order) as int64 and (Vb, eb, Kb, T, P, T^T, m g, Q_A, Q_R,
    ref, mass, base points c_out (base frame), powers, sines, omega0) as float64, in this order."""
    ints, floats = arrays[:7], arrays[7:]
    return packed_planar.pack(tuple(np.ascontiguousarray(a, dtype=np.int64) for a in ints)
                              + tuple(np.ascontiguousarray(a, dtype=float) for a in floats))


# --- small vector helpers of the output kernel (scalar arithmetic, inlined by the compiler) ---------------------
def _cross(a0, a1, a2, b0, b1, b2):  # noqa: ANN001, ANN202
    """a x b."""
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


def _quad(p, c):  # noqa: ANN001, ANN202
    """A(p) c with the quadratic (unnormalised) A(p) = (p0^2 - v.v) E + 2 v v^T + 2 p0 v~ (core.systems.tree_maximal)."""
    p0, x, y, z = p[0], p[1], p[2], p[3]
    s = p0 * p0 - (x * x + y * y + z * z)
    vc = x * c[0] + y * c[1] + z * c[2]
    k0, k1, k2 = _cross(x, y, z, c[0], c[1], c[2])
    return (s * c[0] + 2 * vc * x + 2 * p0 * k0, s * c[1] + 2 * vc * y + 2 * p0 * k1,
            s * c[2] + 2 * vc * z + 2 * p0 * k2)


def _dquad_rate(p, pd, c):  # noqa: ANN001, ANN202
    """d(A(p) c)/dt = (dA(p) c/dp) p' (the columns of the maximal model's constraint matrix times q')."""
    p0, x, y, z = p[0], p[1], p[2], p[3]
    d0, dx, dy, dz = pd[0], pd[1], pd[2], pd[3]
    s = 2 * (p0 * d0 - (x * dx + y * dy + z * dz))
    vc = 2 * (x * c[0] + y * c[1] + z * c[2])
    dc = 2 * (dx * c[0] + dy * c[1] + dz * c[2])
    k0, k1, k2 = _cross(x, y, z, c[0], c[1], c[2])
    l0, l1, l2 = _cross(dx, dy, dz, c[0], c[1], c[2])
    return (s * c[0] + dc * x + vc * dx + 2 * (d0 * k0 + p0 * l0),
            s * c[1] + dc * y + vc * dy + 2 * (d0 * k1 + p0 * l1),
            s * c[2] + dc * z + vc * dz + 2 * (d0 * k2 + p0 * l2))


def _dquad_transpose(p, c, lam):  # noqa: ANN001, ANN202
    """(dA(p) c/dp)^T lam (4,): the Euler-parameter part of C_rows^T lambda for one joint side."""
    p0, x, y, z = p[0], p[1], p[2], p[3]
    l0, l1, l2 = lam[0], lam[1], lam[2]
    cl = c[0] * l0 + c[1] * l1 + c[2] * l2
    vl = x * l0 + y * l1 + z * l2
    vc = x * c[0] + y * c[1] + z * c[2]
    k0, k1, k2 = _cross(x, y, z, c[0], c[1], c[2])
    m0, m1, m2 = _cross(c[0], c[1], c[2], l0, l1, l2)
    g = np.empty(4)
    g[0] = 2 * (p0 * cl + k0 * l0 + k1 * l1 + k2 * l2)
    g[1] = 2 * (vc * l0 + vl * c[0] - cl * x + p0 * m0)
    g[2] = 2 * (vc * l1 + vl * c[1] - cl * y + p0 * m1)
    g[3] = 2 * (vc * l2 + vl * c[2] - cl * z + p0 * m2)
    return g


def _half_Et(p, w, out):  # noqa: ANN001, ANN202
    """out += 1/2 E(p)^T w (4,): the Euler-parameter rates of a world angular velocity (p' = 1/2 E^T omega)."""
    p0, x, y, z = p[0], p[1], p[2], p[3]
    out[0] += 0.5 * (-x * w[0] - y * w[1] - z * w[2])
    out[1] += 0.5 * (p0 * w[0] + z * w[1] - y * w[2])
    out[2] += 0.5 * (-z * w[0] + p0 * w[1] + x * w[2])
    out[3] += 0.5 * (y * w[0] - x * w[1] + p0 * w[2])


def k_output(a, w, F, mom, Pb, Pbd, Pbdd, correction, Vb, eb, Kb, par, pi, pj, pc, T, P, Tt,  # noqa: ANN001
             c_in, c_out, root, order, mass, Jb, gravity, joint_child, rep_body, rep_parent, rep_sign,
             rep_arm, n_rows):  # noqa: ANN201
    """One output frame of the Wittenburg state (module docstring).

    a (n, 4): Euler parameters (any norm, normalised here); w (n, 3): world angular velocities; F, mom (n, 3):
    applied forces and moments about the centres of mass (``WittenburgFormulation.loads``); Pb, Pbd, Pbdd
    (n, 3): position, velocity, acceleration of the base point a root-level body hangs from (rows of the other
    bodies unused). Tree data as ``k_omega_dot`` plus c_in, c_out (n, 3), root (n,) 1 for root-level bodies,
    order (n,) parents before children, mass (n,), Jb (n, 3, 3), gravity (3,); per joint in file order:
    joint_child (its outboard body), rep_body (the body its reaction is reported on), rep_parent (1 when that is
    the inboard body), rep_sign (-1 when the file's body2 is the ground), rep_arm (point - centre of mass, body
    frame); n_rows the number of constraints (reaction rows).

    Returns (status, q, q', q'', reactions (n_rows, 6), scalars) with the scalars of
    ``mechstudio.core.dynamics.base.OutputScalar`` (kinetic, potential of gravity, ||Phi|| before and after, ||C q' + xi||
    before and after, Newton iterations 0, converged 1, changed 0, lambda unique 1, null-space growth 0).
    """
    n = w.shape[0]
    p = np.empty((n, 4))
    A = np.empty((n, 3, 3))
    for k in range(n):
        s = math.sqrt(a[k, 0] ** 2 + a[k, 1] ** 2 + a[k, 2] ** 2 + a[k, 3] ** 2)
        for i in range(4):
            p[k, i] = a[k, i] / s
        p0, x, y, z = p[k, 0], p[k, 1], p[k, 2], p[k, 3]
        nn = p0 * p0 + x * x + y * y + z * z
        A[k, 0, 0] = (p0 * p0 + x * x - y * y - z * z) / nn
        A[k, 0, 1] = 2 * (x * y - p0 * z) / nn
        A[k, 0, 2] = 2 * (x * z + p0 * y) / nn
        A[k, 1, 0] = 2 * (x * y + p0 * z) / nn
        A[k, 1, 1] = (p0 * p0 - x * x + y * y - z * z) / nn
        A[k, 1, 2] = 2 * (y * z - p0 * x) / nn
        A[k, 2, 0] = 2 * (x * z - p0 * y) / nn
        A[k, 2, 1] = 2 * (y * z + p0 * x) / nn
        A[k, 2, 2] = (p0 * p0 - x * x - y * y + z * z) / nn
    # --- maximal coordinates (r, p) and rates (r', p'), eq. (20) by the tree recursion ---
    cin = np.empty((n, 3))
    ew = np.zeros((n, 3))  # A_parent e_k (d_ik of the parent i), 0 for root-level bodies
    ve = np.empty((n, 3))  # omega_k x A_k c_in,k
    jp = np.empty((n, 3))  # inboard joint points J_k
    jv = np.empty((n, 3))  # their velocities
    r = np.empty((n, 3))
    rd = np.empty((n, 3))
    pd = np.zeros((n, 4))
    for kk in range(n):
        k = order[kk]
        j = par[k]
        for i in range(3):
            cin[k, i] = A[k, i, 0] * c_in[k, 0] + A[k, i, 1] * c_in[k, 1] + A[k, i, 2] * c_in[k, 2]
        if root[k]:
            for i in range(3):
                jp[k, i] = Pb[k, i]
                jv[k, i] = Pbd[k, i]
        else:
            for i in range(3):
                ew[k, i] = A[j, i, 0] * eb[k, 0] + A[j, i, 1] * eb[k, 1] + A[j, i, 2] * eb[k, 2]
            g0, g1, g2 = _cross(w[j, 0], w[j, 1], w[j, 2], ew[k, 0], ew[k, 1], ew[k, 2])
            jp[k, 0], jp[k, 1], jp[k, 2] = jp[j, 0] - ew[k, 0], jp[j, 1] - ew[k, 1], jp[j, 2] - ew[k, 2]
            jv[k, 0], jv[k, 1], jv[k, 2] = jv[j, 0] - g0, jv[j, 1] - g1, jv[j, 2] - g2
        v0, v1, v2 = _cross(w[k, 0], w[k, 1], w[k, 2], cin[k, 0], cin[k, 1], cin[k, 2])
        ve[k, 0], ve[k, 1], ve[k, 2] = v0, v1, v2
        for i in range(3):
            r[k, i] = jp[k, i] - cin[k, i]
            rd[k, i] = jv[k, i] - ve[k, i]
        _half_Et(p[k], w[k], pd[k])
    # --- the residuals the drift correction measures (Phi and C q' + xi of the maximal model) ---
    phi2 = 0.0
    vel2 = 0.0
    for k in range(n):
        j = par[k]
        ch = _quad(p[k], c_in[k])
        chd = _dquad_rate(p[k], pd[k], c_in[k])
        if root[k]:
            pp0, pp1, pp2 = Pb[k, 0], Pb[k, 1], Pb[k, 2]
            pv0, pv1, pv2 = Pbd[k, 0], Pbd[k, 1], Pbd[k, 2]  # xi of the root rows
        else:
            pq = _quad(p[j], c_out[k])
            pqd = _dquad_rate(p[j], pd[j], c_out[k])
            pp0, pp1, pp2 = r[j, 0] + pq[0], r[j, 1] + pq[1], r[j, 2] + pq[2]
            pv0, pv1, pv2 = rd[j, 0] + pqd[0], rd[j, 1] + pqd[1], rd[j, 2] + pqd[2]
        f0 = pp0 - (r[k, 0] + ch[0])
        f1 = pp1 - (r[k, 1] + ch[1])
        f2 = pp2 - (r[k, 2] + ch[2])
        d0 = pv0 - (rd[k, 0] + chd[0])
        d1 = pv1 - (rd[k, 1] + chd[1])
        d2 = pv2 - (rd[k, 2] + chd[2])
        nrm = 0.5 * (p[k, 0] ** 2 + p[k, 1] ** 2 + p[k, 2] ** 2 + p[k, 3] ** 2 - 1.0)
        pdp = p[k, 0] * pd[k, 0] + p[k, 1] * pd[k, 1] + p[k, 2] * pd[k, 2] + p[k, 3] * pd[k, 3]
        phi2 += f0 * f0 + f1 * f1 + f2 * f2 + nrm * nrm
        vel2 += d0 * d0 + d1 * d1 + d2 * d2 + pdp * pdp
    before = math.sqrt(phi2)
    vbefore = math.sqrt(vel2)
    q = np.empty(7 * n)
    v = np.empty(7 * n)
    qdd = np.zeros(7 * n)
    R = np.zeros((n_rows, 6))
    scal = np.zeros(11)
    if correction and (before > POSITION_TOL or vbefore > VELOCITY_TOL):
        return OUTPUT_NEEDS_CORRECTION, q, v, qdd, R, scal
    for k in range(n):
        for i in range(3):
            q[7 * k + i] = r[k, i]
            v[7 * k + i] = rd[k, i]
        for i in range(4):
            q[7 * k + 3 + i] = p[k, i]
            v[7 * k + 3 + i] = pd[k, i]
    # --- omega' and the accelerations r'' (eq. (20) differentiated twice), p'' ---
    bacc = np.empty((n, 3))  # r0'' of the base point each subtree hangs from
    for kk in range(n):
        k = order[kk]
        for i in range(3):
            bacc[k, i] = Pbdd[k, i] if root[k] else bacc[par[k], i]
    wd = k_omega_dot(A, w, Vb, eb, Kb, par, pi, pj, pc, T, P, Tt, F, mom, bacc)
    ja = np.empty((n, 3))  # accelerations of the inboard joint points
    X = np.empty((n, 3))  # m r'' - F, then summed over the subtrees: the joint forces X = T (m r'' - F)
    for kk in range(n):
        k = order[kk]
        j = par[k]
        if root[k]:
            for i in range(3):
                ja[k, i] = Pbdd[k, i]
        else:
            a0, a1, a2 = _cross(wd[j, 0], wd[j, 1], wd[j, 2], ew[k, 0], ew[k, 1], ew[k, 2])
            g0, g1, g2 = _cross(w[j, 0], w[j, 1], w[j, 2], ew[k, 0], ew[k, 1], ew[k, 2])
            b0, b1, b2 = _cross(w[j, 0], w[j, 1], w[j, 2], g0, g1, g2)
            ja[k, 0] = ja[j, 0] - (a0 + b0)
            ja[k, 1] = ja[j, 1] - (a1 + b1)
            ja[k, 2] = ja[j, 2] - (a2 + b2)
        a0, a1, a2 = _cross(wd[k, 0], wd[k, 1], wd[k, 2], cin[k, 0], cin[k, 1], cin[k, 2])
        b0, b1, b2 = _cross(w[k, 0], w[k, 1], w[k, 2], ve[k, 0], ve[k, 1], ve[k, 2])
        rdd0, rdd1, rdd2 = ja[k, 0] - (a0 + b0), ja[k, 1] - (a1 + b1), ja[k, 2] - (a2 + b2)
        qdd[7 * k], qdd[7 * k + 1], qdd[7 * k + 2] = rdd0, rdd1, rdd2
        X[k, 0] = mass[k] * rdd0 - F[k, 0]
        X[k, 1] = mass[k] * rdd1 - F[k, 1]
        X[k, 2] = mass[k] * rdd2 - F[k, 2]
        pdd = np.zeros(4)
        _half_Et(pd[k], w[k], pdd)
        _half_Et(p[k], wd[k], pdd)
        for i in range(4):
            qdd[7 * k + 3 + i] = pdd[i]
    for kk in range(n - 1, -1, -1):  # children after parents: add each subtree sum to its parent's
        k = order[kk]
        if not root[k]:
            for i in range(3):
                X[par[k], i] += X[k, i]
    # --- reactions as TreeMaximalSystem.reactions: the force on body2 and the moment about its joint point ---
    for jt in range(joint_child.shape[0]):
        kc = joint_child[jt]
        kb = rep_body[jt]
        sg = rep_sign[jt]
        lam = np.empty(3)
        for i in range(3):
            lam[i] = -X[kc, i]  # the multipliers of the joint's rows
        if rep_parent[jt]:  # body2 is the inboard body: C_rows = [+E, dA(p_P) c_out/dp] on its columns
            gp = _dquad_transpose(p[kb], c_out[kc], lam)
            f0, f1, f2 = sg * lam[0], sg * lam[1], sg * lam[2]
        else:  # the outboard body: C_rows = [-E, -dA(p_K) c_in/dp]
            gp = _dquad_transpose(p[kb], c_in[kc], lam)
            for i in range(4):
                gp[i] = -gp[i]
            f0, f1, f2 = -sg * lam[0], -sg * lam[1], -sg * lam[2]
        p0, x, y, z = p[kb, 0], p[kb, 1], p[kb, 2], p[kb, 3]
        den = 2 * (p0 * p0 + x * x + y * y + z * z)
        m0 = sg * (-x * gp[0] + p0 * gp[1] - z * gp[2] + y * gp[3]) / den  # E(p) g_p / (2 p.p)
        m1 = sg * (-y * gp[0] + z * gp[1] + p0 * gp[2] - x * gp[3]) / den
        m2 = sg * (-z * gp[0] - y * gp[1] + x * gp[2] + p0 * gp[3]) / den
        arm = np.empty(3)
        for i in range(3):
            arm[i] = A[kb, i, 0] * rep_arm[jt, 0] + A[kb, i, 1] * rep_arm[jt, 1] + A[kb, i, 2] * rep_arm[jt, 2]
        t0, t1, t2 = _cross(arm[0], arm[1], arm[2], f0, f1, f2)
        R[jt, 0], R[jt, 1], R[jt, 2] = f0, f1, f2
        R[jt, 3], R[jt, 4], R[jt, 5] = m0 - t0, m1 - t1, m2 - t2
    # --- energies ---
    kinetic = 0.0
    potential = 0.0
    for k in range(n):
        p0, x, y, z = p[k, 0], p[k, 1], p[k, 2], p[k, 3]
        d0, dx, dy, dz = pd[k, 0], pd[k, 1], pd[k, 2], pd[k, 3]
        wb0 = 2 * (-x * d0 + p0 * dx + z * dy - y * dz)  # omega_b = 2 G(p) p'
        wb1 = 2 * (-y * d0 - z * dx + p0 * dy + x * dz)
        wb2 = 2 * (-z * d0 + y * dx - x * dy + p0 * dz)
        rot = ((wb0 * Jb[k, 0, 0] + wb1 * Jb[k, 1, 0] + wb2 * Jb[k, 2, 0]) * wb0
               + (wb0 * Jb[k, 0, 1] + wb1 * Jb[k, 1, 1] + wb2 * Jb[k, 2, 1]) * wb1
               + (wb0 * Jb[k, 0, 2] + wb1 * Jb[k, 1, 2] + wb2 * Jb[k, 2, 2]) * wb2)
        kinetic += 0.5 * mass[k] * (rd[k, 0] ** 2 + rd[k, 1] ** 2 + rd[k, 2] ** 2) + 0.5 * rot
        potential -= mass[k] * (r[k, 0] * gravity[0] + r[k, 1] * gravity[1] + r[k, 2] * gravity[2])
    scal[0], scal[1] = kinetic, potential
    scal[2], scal[3], scal[4], scal[5] = before, before, vbefore, vbefore
    scal[7] = 1.0  # converged (nothing to correct)
    scal[9] = 1.0  # lambda unique (a tree's joint rows are independent)
    return 0, q, v, qdd, R, scal


def k_output_packed(a, w, F, mom, Pb, Pbd, Pbdd, correction, Vb, eb, Kb, par, pi, pj, pc, T, P, Tt,  # noqa: ANN001
                    c_in, c_out, root, order, mass, Jb, gravity, joint_child, rep_body, rep_parent, rep_sign,
                    rep_arm, n_rows):  # noqa: ANN201
    """:func:`k_output` with its arrays returned in one: (status, [q; q'; q''; reactions (row-major); scalars]).
    Numba boxes every returned array separately (about a microsecond each; ``mechstudio.core.dynamics.packed_output``)."""
    status, q, v, qdd, R, scal = k_output(a, w, F, mom, Pb, Pbd, Pbdd, correction, Vb, eb, Kb, par, pi, pj, pc, T,
                                          P, Tt, c_in, c_out, root, order, mass, Jb, gravity, joint_child,
                                          rep_body, rep_parent, rep_sign, rep_arm, n_rows)
    return status, pack_frame(q, v, qdd, R, scal)


@kernel_set
def kernels() -> tuple[Callable[..., Any], Callable[..., Any]] | None:
    """(k_omega_dot, k_output_packed) compiled, or None without numba (the formulation's numpy paths)."""
    g = globals()
    g["cholesky_solve"] = dense_kernels.compiled()["cholesky_solve"]  # the kernels call the compiled one
    f8_1, f8_2, f8_3, i8_1, _, _ = array_types()
    omega_dot = compile_kernel(k_omega_dot, (f8_3, f8_2, f8_3, f8_2, f8_3, i8_1, i8_1, i8_1, i8_1, f8_2, f8_2,
                                             f8_2, f8_2, f8_2, f8_2))
    g["k_omega_dot"] = omega_dot
    for name in ("_cross", "_quad", "_dquad_rate", "_dquad_transpose", "_half_Et", "k_param_matrices",
                 "k_param_rates", "k_base_points", "k_matrix_to_quat", "k_params_to_quat",
                 "k_angle_set_near_singular", "k_tree_derivative"):
        g[name] = compile_helper(g[name])
    g["pack_frame"] = compile_helper(packed_output.pack_frame)
    g["k_output"] = compile_helper(k_output)
    return omega_dot, compile_helper(k_output_packed)


@kernel_set
def timed_kernel() -> Callable[..., Any] | None:
    """:func:`k_rhs_tree_timed` compiled (called by the compiled DOP853 step), or None without numba."""
    if kernels() is None:
        return None
    g = globals()
    rebuilders = packed_planar.compiled()
    g["iseg"], g["fseg"] = rebuilders["iseg"], rebuilders["fseg"]
    return compile_helper(k_rhs_tree_timed)


@kernel_set
def derivative_kernels() -> tuple[Callable[..., Any], ...] | None:
    """(:func:`k_tree_derivative`, :func:`k_params_to_quat`, :func:`k_angle_set_near_singular`,
    :func:`k_base_points`) compiled (the Python right-hand side's fused call, the output frame's quaternions of
    the angle sets, the driver's singularity check, the base points of the output frame), or None without
    numba."""
    if kernels() is None:
        return None
    g = globals()
    return g["k_tree_derivative"], g["k_params_to_quat"], g["k_angle_set_near_singular"], g["k_base_points"]
