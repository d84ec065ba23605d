"""Orientation parametrizations of a rigid body and their kinematic equations ([004], eqs. (65)-(68)).

A^i is the matrix of the body's orientation: it maps body-frame components to base (world) components,
v^(0) = A^i v^(i). omega_b = omega^(i) are the body-frame components of the angular velocity, and
A' = A omega_b~ (omega_b~ the skew matrix). All functions work on batches: params (n, k), omega_b (n, 3).

* ``quaternion`` (default), p = (p0, p1, p2, p3), scalar first, |p| = 1:
  A = (p0^2 - v.v) E + 2 v v^T + 2 p0 v~,   p' = 1/2 p (x) (0, omega_b) = 1/2 G(p)^T omega_b.
  The kinematic equation keeps |p| constant; the matrix is built from p/|p| (renormalised), and
  :meth:`normalize` rescales the stored parameters at restarts.
* ``bryant`` angles 1-2-3 (alpha1, alpha2, alpha3): A = R1(alpha1) R2(alpha2) R3(alpha3), eq. (66) with the
  corrected legend c1 = cos alpha1, c2 = cos alpha2 (docs/references.md, errata);
  alpha1' = (c3 wx - s3 wy)/c2,  alpha2' = s3 wx + c3 wy,  alpha3' = (-c3 wx + s3 wy) tan(alpha2) + wz  (65).
  Singular at cos alpha2 = 0.
* ``euler313`` angles (psi, theta, phi): A = R3(psi) R1(theta) R3(phi), eq. (68);
  psi' = (s_phi wx + c_phi wy)/s_theta,  theta' = c_phi wx - s_phi wy,
  phi' = -(s_phi wx + c_phi wy) cot(theta) + wz  (67). Singular at sin theta = 0.
* ``matrix``: the nine elements of A row by row, A' = A omega_b~; the matrix used for the dynamics is the
  orthonormalised one (two Newton steps of the polar decomposition, R <- R (3 E - R^T R)/2), and
  :meth:`normalize` re-orthonormalises the stored elements at restarts.

For the angle sets a constant reference R_ref per body may be used, A = R_ref A(angles) (re-parametrisation
near a singularity: the angles restart at their ``home`` values, farthest from the singular set: (0, 0, 0) for
Bryant, (0, pi/2, 0) for Euler 3-1-3, with R_ref = A A(home)^T). omega_b is unchanged by it,
so the kinematic equations are the same.
"""
from __future__ import annotations

import numpy as np

from mechstudio.core.errors import UnknownNameError
from mechstudio.core.types import FloatArray

NAMES = ("quaternion", "bryant", "euler313", "matrix")


def cross3(a: FloatArray, b: FloatArray) -> FloatArray:
    """a x b of two 3-vectors (numpy.cross costs ten times more on single vectors: axis handling)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def skew(v: FloatArray) -> FloatArray:
    """Skew matrices v~ (v~ w = v x w) of a batch of vectors (n, 3) -> (n, 3, 3)."""
    z = np.zeros(v.shape[:-1])
    return np.stack([np.stack([z, -v[..., 2], v[..., 1]], -1),
                     np.stack([v[..., 2], z, -v[..., 0]], -1),
                     np.stack([-v[..., 1], v[..., 0], z], -1)], -2)


# --- quaternions -----------------------------------------------------------------------------------------------
def _quat_forms() -> tuple[FloatArray, FloatArray]:
    """Constant tensors: A(p) = (p (x) p) Q / |p|^2 (Q: 16 x 9) and p' = (p (x) omega_b) R (R: 12 x 4)."""
    def quad(p: FloatArray) -> FloatArray:
        w, v = p[0], p[1:]
        vs = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
        return (w * w - v @ v) * np.eye(3) + 2 * np.outer(v, v) + 2 * w * vs

    eye4 = np.eye(4)
    Q = np.zeros((4, 4, 9))
    for a in range(4):
        Q[a, a] = quad(eye4[a]).ravel()
        for b in range(a + 1, 4):
            Q[a, b] = Q[b, a] = 0.5 * (quad(eye4[a] + eye4[b]) - quad(eye4[a]) - quad(eye4[b])).ravel()
    R = np.zeros((4, 3, 4))
    for a in range(4):
        for i in range(3):
            w = np.zeros(3)
            w[i] = 1.0
            p = eye4[a]
            R[a, i] = 0.5 * np.array([-p[1:] @ w, *(p[0] * w + np.cross(p[1:], w))])
    return Q.reshape(16, 9), R.reshape(12, 4)


_QA, _QR = _quat_forms()
#: the constant tensors of the quaternion forms (for compiled kernels): A(p) = (p (x) p) QUAT_MATRIX_FORM / |p|^2,
#: p' = (p (x) omega_b) QUAT_RATES_FORM
QUAT_MATRIX_FORM, QUAT_RATES_FORM = _QA, _QR


def quat_to_matrix(p: FloatArray) -> FloatArray:
    """A(p/|p|) for quaternions (n, 4) -> (n, 3, 3)."""
    n = p.shape[0]
    pp = p[:, :, None] * p[:, None, :]
    A = pp.reshape(n, 16) @ _QA
    A /= (pp.reshape(n, 16)[:, ::5].sum(1))[:, None]
    return A.reshape(n, 3, 3)


def matrix_to_quat(A: FloatArray) -> FloatArray:
    """Unit quaternions (n, 4), p0 >= 0, of rotation matrices (n, 3, 3) (Shepperd's method, batched)."""
    A = np.asarray(A, float)
    tr = A[..., 0, 0] + A[..., 1, 1] + A[..., 2, 2]
    # candidates 4 p_k^2: k = 0..3
    cand = np.stack([1 + tr, 1 + 2 * A[..., 0, 0] - tr, 1 + 2 * A[..., 1, 1] - tr, 1 + 2 * A[..., 2, 2] - tr], -1)
    k = np.argmax(cand, axis=-1)
    out = np.empty(A.shape[:-2] + (4,))
    s = np.sqrt(np.maximum(np.take_along_axis(cand, k[..., None], -1)[..., 0], 1e-300))  # 2 |p_k|
    r32, r23 = A[..., 2, 1], A[..., 1, 2]
    r13, r31 = A[..., 0, 2], A[..., 2, 0]
    r21, r12 = A[..., 1, 0], A[..., 0, 1]
    q0 = np.stack([s / 2, (r32 - r23) / (2 * s), (r13 - r31) / (2 * s), (r21 - r12) / (2 * s)], -1)
    q1 = np.stack([(r32 - r23) / (2 * s), s / 2, (r12 + r21) / (2 * s), (r13 + r31) / (2 * s)], -1)
    q2 = np.stack([(r13 - r31) / (2 * s), (r12 + r21) / (2 * s), s / 2, (r23 + r32) / (2 * s)], -1)
    q3 = np.stack([(r21 - r12) / (2 * s), (r13 + r31) / (2 * s), (r23 + r32) / (2 * s), s / 2], -1)
    out = np.choose(k[..., None], [q0, q1, q2, q3])
    out *= np.where(out[..., :1] < 0, -1.0, 1.0)
    return out / np.linalg.norm(out, axis=-1, keepdims=True)


def quat_G(p: FloatArray) -> FloatArray:
    """G(p) (n, 3, 4): omega_b = 2 G(p) p'."""
    w, x, y, z = p[..., 0], p[..., 1], p[..., 2], p[..., 3]
    return np.stack([np.stack([-x, w, z, -y], -1), np.stack([-y, -z, w, x], -1),
                     np.stack([-z, y, -x, w], -1)], -2)


def quat_E(p: FloatArray) -> FloatArray:
    """E(p) (n, 3, 4): omega (world) = 2 E(p) p'."""
    w, x, y, z = p[..., 0], p[..., 1], p[..., 2], p[..., 3]
    return np.stack([np.stack([-x, w, -z, y], -1), np.stack([-y, z, w, -x], -1),
                     np.stack([-z, -y, x, w], -1)], -2)


def quat_rates(p: FloatArray, wb: FloatArray) -> FloatArray:
    """p' = 1/2 p (x) (0, omega_b) = 1/2 G(p)^T omega_b for (n, 4), (n, 3)."""
    return (p[:, :, None] * wb[:, None, :]).reshape(p.shape[0], 12) @ _QR


def rotation_vector(p: FloatArray) -> FloatArray:
    """Rotation vectors (n, 3) of quaternions (n, 4) (angle in [0, pi])."""
    p = p / np.linalg.norm(p, axis=-1, keepdims=True)
    p = p * np.where(p[..., :1] < 0, -1.0, 1.0)
    v = p[..., 1:]
    s = np.linalg.norm(v, axis=-1)
    ang = 2 * np.arctan2(s, p[..., 0])
    fac = np.where(s > 1e-12, ang / np.where(s > 1e-12, s, 1.0), 2.0 / np.maximum(p[..., 0], 1e-300))
    return v * fac[..., None]


def quat_from_rotation_vector(r: FloatArray) -> FloatArray:
    r = np.atleast_2d(np.asarray(r, float))
    ang = np.linalg.norm(r, axis=-1)
    half = 0.5 * ang
    fac = np.where(ang > 1e-12, np.sin(half) / np.where(ang > 1e-12, ang, 1.0), 0.5)
    return np.concatenate([np.cos(half)[:, None], r * fac[:, None]], -1)


def quat_mul(a: FloatArray, b: FloatArray) -> FloatArray:
    w1, v1 = a[..., :1], a[..., 1:]
    w2, v2 = b[..., :1], b[..., 1:]
    return np.concatenate([w1 * w2 - np.sum(v1 * v2, -1, keepdims=True),
                           w1 * v2 + w2 * v1 + np.cross(v1, v2)], -1)


def quat_conj(a: FloatArray) -> FloatArray:
    return a * np.array([1.0, -1.0, -1.0, -1.0])


# --- elementary rotations --------------------------------------------------------------------------------------
def _R(axis: int, ang: FloatArray) -> FloatArray:
    c, s = np.cos(ang), np.sin(ang)
    o, z = np.ones_like(ang), np.zeros_like(ang)
    if axis == 0:
        rows = [[o, z, z], [z, c, -s], [z, s, c]]
    elif axis == 1:
        rows = [[c, z, s], [z, o, z], [-s, z, c]]
    else:
        rows = [[c, -s, z], [s, c, z], [z, z, o]]
    return np.stack([np.stack(r, -1) for r in rows], -2)


# --- the parametrizations --------------------------------------------------------------------------------------
class Parametrization:
    """One orientation parametrization for n bodies: params (n, size)."""
    name = ""
    size = 0
    #: name of the singular configuration, "" when there is none
    singular = ""
    #: parameters farthest from the singular set (re-parametrisation restarts there)
    home: tuple[float, ...] = ()

    def to_matrix(self, a: FloatArray) -> FloatArray:
        raise NotImplementedError

    def from_matrix(self, A: FloatArray) -> FloatArray:
        raise NotImplementedError

    def rates(self, a: FloatArray, wb: FloatArray) -> FloatArray:
        raise NotImplementedError

    def measure(self, a: FloatArray) -> FloatArray:
        """Distance from the singular configuration (1 = far, 0 = singular), per body."""
        return np.ones(a.shape[0])

    def normalize(self, a: FloatArray) -> FloatArray:
        return a


class Quaternion(Parametrization):
    name, size = "quaternion", 4

    def to_matrix(self, a: FloatArray) -> FloatArray:
        return quat_to_matrix(a)

    def from_matrix(self, A: FloatArray) -> FloatArray:
        return matrix_to_quat(A)

    def rates(self, a: FloatArray, wb: FloatArray) -> FloatArray:
        return quat_rates(a, wb)

    def normalize(self, a: FloatArray) -> FloatArray:
        return a / np.linalg.norm(a, axis=-1, keepdims=True)


class Bryant(Parametrization):
    name, size, singular, home = "bryant", 3, "cos(alpha2) = 0", (0.0, 0.0, 0.0)

    def to_matrix(self, a: FloatArray) -> FloatArray:  # eq. (66)
        s1, s2, s3 = np.sin(a[:, 0]), np.sin(a[:, 1]), np.sin(a[:, 2])
        c1, c2, c3 = np.cos(a[:, 0]), np.cos(a[:, 1]), np.cos(a[:, 2])
        return np.stack([np.stack([c2 * c3, -c2 * s3, s2], -1),
                         np.stack([c1 * s3 + s1 * s2 * c3, c1 * c3 - s1 * s2 * s3, -s1 * c2], -1),
                         np.stack([s1 * s3 - c1 * s2 * c3, s1 * c3 + c1 * s2 * s3, c1 * c2], -1)], -2)

    def from_matrix(self, A: FloatArray) -> FloatArray:
        a2 = np.arctan2(A[:, 0, 2], np.hypot(A[:, 0, 0], A[:, 0, 1]))
        a1 = np.arctan2(-A[:, 1, 2], A[:, 2, 2])
        a3 = np.arctan2(-A[:, 0, 1], A[:, 0, 0])
        return np.stack([a1, a2, a3], -1)

    def rates(self, a: FloatArray, wb: FloatArray) -> FloatArray:  # eq. (65)
        c2, s3, c3, t2 = np.cos(a[:, 1]), np.sin(a[:, 2]), np.cos(a[:, 2]), np.tan(a[:, 1])
        wx, wy, wz = wb[:, 0], wb[:, 1], wb[:, 2]
        u = c3 * wx - s3 * wy
        return np.stack([u / c2, s3 * wx + c3 * wy, -u * t2 + wz], -1)

    def measure(self, a: FloatArray) -> FloatArray:
        return np.abs(np.cos(a[:, 1]))


class Euler313(Parametrization):
    name, size, singular, home = "euler313", 3, "sin(theta) = 0", (0.0, np.pi / 2, 0.0)

    def to_matrix(self, a: FloatArray) -> FloatArray:  # eq. (68)
        sp, st, sf = np.sin(a[:, 0]), np.sin(a[:, 1]), np.sin(a[:, 2])
        cp, ct, cf = np.cos(a[:, 0]), np.cos(a[:, 1]), np.cos(a[:, 2])
        return np.stack([np.stack([cp * cf - sp * ct * sf, -cp * sf - sp * ct * cf, sp * st], -1),
                         np.stack([sp * cf + cp * ct * sf, -sp * sf + cp * ct * cf, -cp * st], -1),
                         np.stack([st * sf, st * cf, ct], -1)], -2)

    def from_matrix(self, A: FloatArray) -> FloatArray:
        th = np.arctan2(np.hypot(A[:, 2, 0], A[:, 2, 1]), A[:, 2, 2])
        ps = np.arctan2(A[:, 0, 2], -A[:, 1, 2])
        ph = np.arctan2(A[:, 2, 0], A[:, 2, 1])
        return np.stack([ps, th, ph], -1)

    def rates(self, a: FloatArray, wb: FloatArray) -> FloatArray:  # eq. (67)
        st, sf, cf = np.sin(a[:, 1]), np.sin(a[:, 2]), np.cos(a[:, 2])
        wx, wy, wz = wb[:, 0], wb[:, 1], wb[:, 2]
        u = (sf * wx + cf * wy) / st
        return np.stack([u, cf * wx - sf * wy, -u * np.cos(a[:, 1]) + wz], -1)

    def measure(self, a: FloatArray) -> FloatArray:
        return np.abs(np.sin(a[:, 1]))


def orthonormalize(A: FloatArray) -> FloatArray:
    """Nearest rotation (polar factor) of nearly orthogonal matrices: two Newton steps R (3E - R^T R)/2."""
    eye = np.eye(3)
    for _ in range(2):
        A = 0.5 * A @ (3 * eye - np.swapaxes(A, -1, -2) @ A)
    return A


class MatrixElements(Parametrization):
    name, size = "matrix", 9

    def to_matrix(self, a: FloatArray) -> FloatArray:
        return orthonormalize(a.reshape(-1, 3, 3))

    def from_matrix(self, A: FloatArray) -> FloatArray:
        return np.asarray(A, float).reshape(-1, 9)

    def rates(self, a: FloatArray, wb: FloatArray) -> FloatArray:
        return (a.reshape(-1, 3, 3) @ skew(wb)).reshape(-1, 9)

    def normalize(self, a: FloatArray) -> FloatArray:
        A = a.reshape(-1, 3, 3)
        U, _, Vt = np.linalg.svd(A)
        return (U @ Vt).reshape(-1, 9)


PARAMETRIZATIONS: dict[str, type[Parametrization]] = {
    "quaternion": Quaternion, "bryant": Bryant, "euler313": Euler313, "matrix": MatrixElements}


def get_parametrization(name: str) -> Parametrization:
    if name not in PARAMETRIZATIONS:
        raise UnknownNameError("parametrization", name, list(PARAMETRIZATIONS))
    return PARAMETRIZATIONS[name]()
