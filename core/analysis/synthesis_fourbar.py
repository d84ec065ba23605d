"""Four-bar kinematics for dimensional synthesis: the coupler point in closed form, the loop-closure equations of a
linkage through target points, their continuation (homotopy) to the targets, the check that a driven crank reaches
the targets in order on one assembly branch, and the timed (prescribed crank angle) dyad fits.

Notation (R. L. Norton, *Design of Machinery*, ch. 4; angles in rad, measured counter-clockwise from the world x axis
unless said otherwise): ground pivots O2 = (x0, y0) and O4 = O2 + d u(gamma), u(t) = (cos t, sin t); crank
a = |O2 A|, coupler b = |A B|, rocker c = |O4 B|, ground d = |O2 O4|; the coupler point P has the coordinates (p, q)
in the coupler frame at A with its x axis along A -> B. A linkage is the vector g = (x0, y0, gamma, d, a, b, c, p, q)
and its assembly branch sigma = +-1.

**Closed form** (circle intersection): at the crank angle theta, A = O2 + a u(theta); with z = |O4 - A| and
e = (O4 - A) / z, B lies on the circles (A, b) and (O4, c):

    along = (b^2 - c^2 + z^2) / (2 z),   h^2 = b^2 - along^2,   B = A + along e + sigma h perp(e)          (F1)
    P = A + p e_AB + q perp(e_AB),       e_AB = (B - A) / b

(perp(v) = (-v_y, v_x)). The pose exists where h^2 >= 0, i.e. |b - c| <= z <= b + c; with z^2 = a^2 + d^2 -
2 a d cos(theta - gamma) (law of cosines) this is

    L <= cos(theta - gamma) <= U,   L = (a^2 + d^2 - (b + c)^2) / (2 a d),   U = (a^2 + d^2 - (b - c)^2) / (2 a d)  (F2)

so the reachable crank angles form at most two intervals, symmetric about the ground line (a full turn when
L <= -1 and U >= 1: Grashof's crank). sigma = sign((O4 - A) x (B - A)) is the side of the diagonal A O4 on which B
lies; it changes only where h = 0 (coupler and rocker collinear: a stop of the driven crank), so a crank driven
continuously between two reachable angles keeps its branch exactly when the whole swept interval satisfies (F2).

**Loop closure** (for continuation and polishing; smooth everywhere, no square roots): unknowns g, the crank angles
theta_j (or, with prescribed timing, theta_j = theta_1 + delta_j with delta_j given), the coupler angles phi_j
(direction A -> B) and the rocker angles psi_j (direction O4 -> B) of each target T_j:

    a u(theta_j) + b u(phi_j) - d u(gamma) - c u(psi_j) = 0                     (loop, 2 rows)
    O2 + a u(theta_j) + R(phi_j) (p, q) - T_j = 0                              (coupler point, 2 rows)   (F3)

4 N equations in 9 + 3 N unknowns (10 + 2 N with timing). Newton's method with the minimum-norm (least-squares)
step J^+ r follows the solution set; :func:`continue_to_targets` moves the targets from the points P0_j a linkage
already passes through to T_j along T(lambda) = (1 - lambda) P0 + lambda T, with a secant predictor and step halving.

**Timed dyad fit** (prescribed crank rotations delta_j): the crank dyad O2 -> A -> P turns by delta_j, so with the
crank vector Z = a u(theta_1), A_j = O2 + R(delta_j) Z and |T_j - A_j| = e (the coupler distance |A P|):

    2 (T_j - O2) . R(delta_j) Z + k = |T_j - O2|^2,    k = e^2 - |Z|^2                                   (F4)

linear in (Z, k) for a fixed O2: the ground pivot is found on a grid, then (O2, Z, e) by Gauss-Newton on
|T_j - O2 - R(delta_j) Z| - e. The coupler's angles follow (the direction P -> A_j); the rocker's end B is a
*circle point* of those coupler poses (Burmester): a point s of the coupler frame at P whose images
W_j = T_j + R(phi_j) s lie on one circle, centre O4 and radius c. For a fixed s the circle is a linear least-squares
fit (Kasa: 2 W_j . C + k = |W_j|^2); s is found on a grid and refined by Gauss-Newton on the same equations in
(s, C, k). The trivial circle point s = A (its circle is the crank's) is deflated by dividing the residual by the
distance from it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Iterable

import numpy as np

from mechstudio.core.analysis.synthesis_deadline import check_time
from mechstudio.core.types import FloatArray

TWO_PI = 2.0 * math.pi
#: names of the linkage vector g
PARAMS = ("x0", "y0", "gamma", "d", "a", "b", "c", "p", "q")
#: the shortest link may not be shorter than this fraction of the longest (a linkage with a link near zero fits
#: anything: a coupler of length zero lets the coupler point turn freely about A)
MIN_LINK_RATIO = 0.02
#: tolerance on (F2) when checking that a swept crank interval stays assembled (relative to 1)
REACH_TOL = 1e-12
#: Newton corrector: largest number of steps per continuation step, and the contraction asked of each step
CORRECTOR_STEPS = 8
CORRECTOR_CONTRACTION = 0.5
#: continuation: first and largest step in lambda, and the smallest before giving up
HOMOTOPY_FIRST_STEP = 0.1
HOMOTOPY_MAX_STEP = 0.25
HOMOTOPY_MIN_STEP = 1e-5
HOMOTOPY_MAX_STEPS = 400
#: residual [normalised length] accepted on the way (lambda < 1) and at the end (lambda = 1) of a continuation
PATH_TOL = 1e-9
FINAL_TOL = 1e-10
#: crank dyad fits: Gauss-Newton starts from the best points of the pivot grid (besides its local minima)
DYAD_STARTS = 160


def unit(t: FloatArray | float) -> FloatArray:
    """(cos t, sin t) over the last axis."""
    t = np.asarray(t, float)
    return np.stack([np.cos(t), np.sin(t)], axis=-1)


def rotate(v: FloatArray, t: FloatArray) -> FloatArray:
    """v (..., 2) turned by t (...) [rad]."""
    c, s = np.cos(t), np.sin(t)
    return np.stack([c * v[..., 0] - s * v[..., 1], s * v[..., 0] + c * v[..., 1]], axis=-1)


def solve_batch(A: FloatArray, b: FloatArray) -> FloatArray:
    """x (..., n) with A x = b for a stack of square systems A (..., n, n), b (..., n); a singular or non-finite
    system gets its least-squares (minimum-norm) solution, or zeros when it has no finite entries."""
    A = np.asarray(A, float)
    b = np.asarray(b, float)
    bad = ~(np.isfinite(A).all(axis=(-2, -1)) & np.isfinite(b).all(axis=-1))
    A = np.where(bad[..., None, None], np.eye(A.shape[-1]), A)
    b = np.where(bad[..., None], 0.0, b)
    try:
        return np.linalg.solve(A, b[..., None])[..., 0]
    except np.linalg.LinAlgError:
        flat_A, flat_b = A.reshape(-1, *A.shape[-2:]), b.reshape(-1, b.shape[-1])
        out = np.array([np.linalg.lstsq(a, v, rcond=None)[0] for a, v in zip(flat_A, flat_b)])
        return out.reshape(b.shape)


# --- one linkage -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FourBarGeometry:
    """A four-bar path generator (module docstring): ground pivot O2 = (x0, y0) [length], ground direction gamma
    [rad] (O2 -> O4), link lengths d (ground), a (crank), b (coupler), c (rocker), coupler point (p, q) in the coupler
    frame at A (x along A -> B), and the assembly branch (+1 or -1, (F1))."""
    x0: float
    y0: float
    gamma: float
    d: float
    a: float
    b: float
    c: float
    p: float
    q: float
    branch: int = 1

    @classmethod
    def from_vector(cls, g: Iterable[float], branch: int) -> "FourBarGeometry":
        v = [float(x) for x in g]
        return cls(*v, branch=1 if branch >= 0 else -1)

    def vector(self) -> FloatArray:
        return np.array([self.x0, self.y0, self.gamma, self.d, self.a, self.b, self.c, self.p, self.q])

    @property
    def O2(self) -> FloatArray:
        return np.array([self.x0, self.y0])

    @property
    def O4(self) -> FloatArray:
        return self.O2 + self.d * unit(self.gamma)

    @property
    def lengths(self) -> dict[str, float]:
        """The link lengths: ground d, crank a, coupler b, rocker c."""
        return {"ground": self.d, "crank": self.a, "coupler": self.b, "rocker": self.c}

    @property
    def link_scale(self) -> float:
        """The longest of the four links: the length errors are measured against."""
        return max(self.d, self.a, self.b, self.c)

    def positions(self, theta: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """(A, B, P, assembled) at crank angles theta (K,): points (K, 2) by (F1); ``assembled`` False where the
        loop does not close there (the points are then those of h = 0)."""
        theta = np.atleast_1d(np.asarray(theta, float))
        P, ok, A, B = coupler_points(self.vector()[None], theta[None], self.branch, with_joints=True)
        return A[0], B[0], P[0], ok[0]

    def coupler_point(self, theta: FloatArray) -> FloatArray:
        """P at crank angles theta: (K, 2)."""
        return self.positions(theta)[2]

    def angles(self, theta: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(phi, psi): the coupler's direction A -> B and the rocker's O4 -> B at crank angles theta."""
        A, B, _, _ = self.positions(theta)
        AB, OB = B - A, B - self.O4
        return np.arctan2(AB[:, 1], AB[:, 0]), np.arctan2(OB[:, 1], OB[:, 0])

    def cos_bounds(self) -> tuple[float, float]:
        """(L, U) of (F2)."""
        a, b, c, d = self.a, self.b, self.c, self.d
        return (a * a + d * d - (b + c) ** 2) / (2 * a * d), (a * a + d * d - (b - c) ** 2) / (2 * a * d)

    def reachable_intervals(self) -> list[tuple[float, float]]:
        """The crank angle intervals [lo, hi] (world angles) where the loop closes ((F2)); one interval of length
        2 pi when the crank turns fully; none when the links cannot form a loop."""
        return intervals_from_bounds(*self.cos_bounds(), self.gamma)

    def full_turn(self) -> bool:
        lo, hi = self.cos_bounds()
        return lo <= -1.0 and hi >= 1.0

    def sweep_reachable(self, theta_from: float, theta_to: float, tol: float = REACH_TOL) -> bool:
        """Whether every crank angle between the two (the crank turning from one to the other) closes the loop."""
        lo, hi = sorted((theta_from - self.gamma, theta_to - self.gamma))
        c_min, c_max = cos_range(lo, hi)
        L, U = self.cos_bounds()
        return c_min >= L - tol and c_max <= U + tol

    def transformed(self, scale: float, offset: FloatArray) -> "FourBarGeometry":
        """The same linkage scaled by ``scale`` about the origin, then moved by ``offset``."""
        return replace(self, x0=self.x0 * scale + float(offset[0]), y0=self.y0 * scale + float(offset[1]),
                       d=self.d * scale, a=self.a * scale, b=self.b * scale, c=self.c * scale, p=self.p * scale,
                       q=self.q * scale)


def cos_range(lo: float, hi: float) -> tuple[float, float]:
    """(min, max) of cos over [lo, hi]."""
    values = [math.cos(lo), math.cos(hi)]
    k0, k1 = math.ceil(lo / math.pi), math.floor(hi / math.pi)
    if k1 >= k0:
        values += [1.0 if k % 2 == 0 else -1.0 for k in range(k0, min(k1, k0 + 1) + 1)]
    return min(values), max(values)


def intervals_from_bounds(L: float, U: float, gamma: float) -> list[tuple[float, float]]:
    """The crank angles with L <= cos(theta - gamma) <= U ((F2)) as intervals of world angles."""
    if not (math.isfinite(L) and math.isfinite(U)) or L > U or L > 1.0 or U < -1.0:
        return []
    if L <= -1.0 and U >= 1.0:
        return [(gamma - math.pi, gamma + math.pi)]
    if U >= 1.0:
        t = math.acos(L)
        return [(gamma - t, gamma + t)]
    if L <= -1.0:
        t = math.acos(U)
        return [(gamma + t, gamma + TWO_PI - t)]
    t1, t2 = math.acos(U), math.acos(L)
    return [(gamma + t1, gamma + t2), (gamma - t2, gamma - t1)]


# --- many linkages at once ---------------------------------------------------------------------------------------

def circle_intersection(Ax: FloatArray, Ay: FloatArray, Ox: FloatArray, Oy: FloatArray, b: FloatArray,
                        c: FloatArray, sigma: float | FloatArray) -> tuple[FloatArray, FloatArray, FloatArray,
                                                                            FloatArray]:
    """The dyad's joint B on the circles (A, b) and (O, c), on the side sigma of the diagonal A -> O ((F1), every
    argument broadcast): (Bx, By, assembled, h^2). Where the circles do not meet (h^2 < 0) B is the point of h = 0
    and ``assembled`` is False."""
    ex, ey = Ox - Ax, Oy - Ay
    z2 = ex * ex + ey * ey
    z = np.sqrt(np.maximum(z2, 1e-300))
    along = (b * b - c * c + z2) / (2 * z)
    h2 = b * b - along * along
    ok = (h2 >= 0) & (z2 > 0)
    h = np.sqrt(np.where(ok, h2, 0.0))
    ux, uy = ex / z, ey / z
    return Ax + along * ux - sigma * h * uy, Ay + along * uy + sigma * h * ux, ok, h2


def coupler_points(G: FloatArray, theta: FloatArray, branch: float | FloatArray,
                   with_joints: bool = False) -> tuple[FloatArray, ...]:
    """Coupler points (F1) of linkages G (S, 9) at crank angles theta (S, ..., K) (broadcast against G's leading
    axis): (P (S, ..., K, 2), assembled (S, ..., K)) and, ``with_joints``, A and B too."""
    G = np.asarray(G, float)
    theta = np.asarray(theta, float)
    extra = theta.ndim - 1
    cols = [G[:, i].reshape((-1,) + (1,) * extra) for i in range(9)]
    x0, y0, gam, d, a, b, c, p, q = cols
    sig = np.asarray(branch, float)
    if sig.ndim:
        sig = sig.reshape((-1,) + (1,) * extra)
    Ax, Ay = x0 + a * np.cos(theta), y0 + a * np.sin(theta)
    Bx, By, ok, _ = circle_intersection(Ax, Ay, x0 + d * np.cos(gam), y0 + d * np.sin(gam), b, c, sig)
    cx, cy = (Bx - Ax) / b, (By - Ay) / b
    P = np.stack([Ax + p * cx - q * cy, Ay + p * cy + q * cx], axis=-1)
    if with_joints:
        return P, ok, np.stack([Ax, Ay], -1), np.stack([Bx, By], -1)
    return P, ok


def reachable_arcs(G: FloatArray, samples: int) -> tuple[FloatArray, FloatArray]:
    """Crank angle samples (S, 2, samples) over each linkage's (at most two) reachable intervals ((F2)), NaN for
    a missing interval; a full turn is sampled over two turns (so that an ordered run of targets may start anywhere
    on it), and ``full`` (S,) says which linkages turn fully."""
    G = np.asarray(G, float)
    S = G.shape[0]
    gam, d, a, b, c = G[:, 2], G[:, 3], G[:, 4], G[:, 5], G[:, 6]
    with np.errstate(divide="ignore", invalid="ignore"):
        L = (a * a + d * d - (b + c) ** 2) / (2 * a * d)
        U = (a * a + d * d - (b - c) ** 2) / (2 * a * d)
    lo = np.full((S, 2), np.nan)
    hi = np.full((S, 2), np.nan)
    valid = np.isfinite(L) & np.isfinite(U) & (L <= U) & (L <= 1) & (U >= -1)
    full = valid & (L <= -1) & (U >= 1)
    around0 = valid & (U >= 1) & (L > -1)
    aroundpi = valid & (L <= -1) & (U < 1)
    two = valid & (L > -1) & (U < 1)
    tL, tU = np.arccos(np.clip(L, -1, 1)), np.arccos(np.clip(U, -1, 1))
    lo[full, 0], hi[full, 0] = -math.pi, 3 * math.pi
    lo[around0, 0], hi[around0, 0] = -tL[around0], tL[around0]
    lo[aroundpi, 0], hi[aroundpi, 0] = tU[aroundpi], TWO_PI - tU[aroundpi]
    lo[two, 0], hi[two, 0] = tU[two], tL[two]
    lo[two, 1], hi[two, 1] = -tL[two], -tU[two]
    s = np.linspace(0.0, 1.0, samples)
    return gam[:, None, None] + lo[..., None] + (hi - lo)[..., None] * s, full


def segment_distances(T: FloatArray, P: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Squared distances (..., N, K-1) of targets T (N, 2) from the segments P[k] -> P[k+1] of polylines
    P (..., K, 2), and the position t in [0, 1] of the nearest point on each segment."""
    P0 = P[..., :-1, :][..., None, :, :]
    E = P[..., 1:, :][..., None, :, :] - P0
    W = T[:, None, :] - P0
    ee = np.sum(E * E, -1)
    t = np.clip(np.sum(W * E, -1) / np.where(ee > 0, ee, 1.0), 0.0, 1.0)
    R = W - t[..., None] * E
    return np.sum(R * R, -1), t


#: segmented prefix minima (:func:`running_min`): costs are clipped at CLIP, each segment offset by SEGMENT_OFFSET
CLIP = 1e3
SEGMENT_OFFSET = 4e3


def running_min(C: FloatArray, segment: FloatArray | None = None) -> FloatArray:
    """Prefix minima of C along the last axis; with ``segment`` (non-decreasing ids, same shape) the minimum is taken
    over the current segment only (a segment id below every earlier one by SEGMENT_OFFSET > CLIP makes the earlier
    values lose; values >= CLIP count as inf)."""
    if segment is None:
        return np.minimum.accumulate(C, axis=-1)
    shifted = np.minimum(C, CLIP) - segment * SEGMENT_OFFSET
    out = np.minimum.accumulate(shifted, axis=-1) + segment * SEGMENT_OFFSET
    return np.where(out >= CLIP * (1 - 1e-9), np.inf, out)


def segment_ids(breaks: FloatArray | None) -> FloatArray | None:
    """Segment ids of polyline segments (..., K-1) from ``breaks`` (True where a segment is not on the curve): the
    number of breaks up to each segment."""
    return None if breaks is None else np.cumsum(breaks, axis=-1).astype(float)


def ordered_cost(D: FloatArray, breaks: FloatArray | None = None) -> FloatArray:
    """min over k_1 <= k_2 <= ... <= k_N of sum_j D[..., j, k_j] (dynamic programming with prefix minima); with
    ``breaks`` (..., K) the targets' segments must lie on one unbroken run (no break between k_1 and k_N)."""
    seg = segment_ids(breaks)
    C = D[..., 0, :]
    for j in range(1, D.shape[-2]):
        C = D[..., j, :] + running_min(C, seg)
    return C.min(axis=-1)


def curve_distances(G: FloatArray, T: FloatArray, samples: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """For each linkage, branch and arc: (D (S, 2 branches, 2 arcs, N, K-1) squared target-segment distances with
    inf where a segment is not on the assembled curve, t (same shape) the position on the segment, theta
    (S, 2, K) the arcs' crank angles)."""
    theta, _ = reachable_arcs(G, samples)
    Ds, ts = [], []
    for sigma in (1.0, -1.0):
        P, ok = coupler_points(G, theta, sigma)
        bad = ~ok | np.isnan(theta)
        D, t = segment_distances(T, P)
        seg_bad = bad[..., :-1] | bad[..., 1:]
        D = np.where(seg_bad[..., None, :] | ~np.isfinite(D), np.inf, D)
        Ds.append(D)
        ts.append(t)
    return np.stack(Ds, 1), np.stack(ts, 1), theta


def ordered_fit(G: FloatArray, T: FloatArray, samples: int) -> FloatArray:
    """The rms distance (S,) of the targets T (N, 2) from each linkage's sampled coupler curve, the targets visited
    in their order (or the reverse order) along one reachable arc of one branch (inf where the links do not close)."""
    D, _, _ = curve_distances(G, T, samples)
    best = np.minimum(ordered_cost(D), ordered_cost(D[..., ::-1, :]))
    return np.sqrt(best.reshape(len(G), -1).min(axis=-1) / len(T))


def prefix_argmin(C: FloatArray, segment: FloatArray | None = None) -> FloatArray:
    """idx[k] = argmin C[0..k] (the last of equal minima); with ``segment`` ids over the current segment only
    (:func:`running_min`)."""
    if segment is not None:
        C = np.minimum(C, CLIP) - segment * SEGMENT_OFFSET
    running = np.minimum.accumulate(C)
    k = np.arange(C.shape[-1])
    return np.maximum.accumulate(np.where(C == running, k, 0))


def ordered_assignment(g: FloatArray, T: FloatArray, samples: int) -> tuple[float, int, FloatArray] | None:
    """The best ordered assignment of the targets to one linkage's coupler curve: (rms distance, branch, crank angles
    (N,)), the angles interpolated on the nearest segments; None when the links do not close."""
    D, tpos, theta = curve_distances(np.asarray(g, float)[None], T, samples)
    N = len(T)
    best: tuple[float, int, FloatArray] | None = None
    for bi, sigma in enumerate((1, -1)):
        for arc in range(2):
            th = theta[0, arc]
            if not np.isfinite(th[0]):
                continue
            for reverse in (False, True):
                Dm = D[0, bi, arc][::-1] if reverse else D[0, bi, arc]
                tm = tpos[0, bi, arc][::-1] if reverse else tpos[0, bi, arc]
                found = ordered_path(Dm, tm, th)
                if found is None or (best is not None and found[0] >= best[0]):
                    continue
                cost, angles = found
                best = (cost, sigma, angles[::-1] if reverse else angles)
    return best


def ordered_path(D: FloatArray, tpos: FloatArray, theta: FloatArray, breaks: FloatArray | None = None
                 ) -> tuple[float, FloatArray] | None:
    """The ordered assignment of N targets to one sampled arc: D, tpos (N, K-1) squared distances from the arc's
    segments and positions on them (:func:`segment_distances`), theta (K,) the arc's crank angles, ``breaks``
    (K-1,) segments off the curve (the targets stay on one unbroken run). Returns (rms distance, crank angles (N,)
    interpolated on the chosen segments, non-decreasing), or None when nothing is finite."""
    N = len(D)
    seg = segment_ids(breaks)
    C = D[0]
    back = []
    for j in range(1, N):
        back.append(prefix_argmin(C, seg))
        C = D[j] + running_min(C, seg)
    k = int(np.argmin(C))
    if not np.isfinite(C[k]):
        return None
    ks = [k]
    for j in range(N - 1, 0, -1):
        k = int(back[j - 1][k])
        ks.append(k)
    ks.reverse()
    angles = np.array([theta[k] + tpos[j, k] * (theta[k + 1] - theta[k]) for j, k in enumerate(ks)])
    angles = np.maximum.accumulate(angles)  # targets on one segment: keep their order
    return math.sqrt(float(C[ks[-1]]) / N), angles


# --- loop closure (F3) ---------------------------------------------------------------------------------------------

class LoopSystem:
    """The loop-closure equations (F3) of a four-bar through targets T (N, 2); with ``delta`` (N,) the crank angles
    are theta_1 + delta_j (prescribed timing). The unknown vector is x = [g (9), theta (N) or theta_1 (1), phi (N),
    psi (N)]."""

    def __init__(self, targets: FloatArray, delta: FloatArray | None = None):
        self.T = np.asarray(targets, float)
        self.N = len(self.T)
        self.delta = None if delta is None else np.asarray(delta, float)
        self.n_theta = self.N if self.delta is None else 1
        self.size = 9 + self.n_theta + 2 * self.N

    #: where the link lengths d, a, b, c are in x (a continuation keeps them from shrinking to nothing)
    length_index = slice(3, 7)

    def thetas(self, x: FloatArray) -> FloatArray:
        th = x[9:9 + self.n_theta]
        return th.copy() if self.delta is None else th[0] + self.delta

    def split(self, x: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """(g, theta (N), phi, psi)."""
        k = 9 + self.n_theta
        return x[:9], self.thetas(x), x[k:k + self.N], x[k + self.N:]

    def state(self, geometry: FourBarGeometry, theta: FloatArray) -> FloatArray:
        """x of a linkage at crank angles theta (N,) (with timing, theta_1 = theta[0])."""
        theta = np.asarray(theta, float)
        phi, psi = geometry.angles(theta)
        th = theta if self.delta is None else theta[:1]
        return np.concatenate([geometry.vector(), th, np.unwrap(phi), np.unwrap(psi)])

    def residuals(self, x: FloatArray, T: FloatArray | None = None) -> FloatArray:
        T = self.T if T is None else T
        g, th, ph, ps = self.split(x)
        x0, y0, gam, d, a, b, c, p, q = g
        ct, st, cp, sp = np.cos(th), np.sin(th), np.cos(ph), np.sin(ph)
        r1 = a * ct + b * cp - d * math.cos(gam) - c * np.cos(ps)
        r2 = a * st + b * sp - d * math.sin(gam) - c * np.sin(ps)
        r3 = x0 + a * ct + p * cp - q * sp - T[:, 0]
        r4 = y0 + a * st + p * sp + q * cp - T[:, 1]
        return np.concatenate([r1, r2, r3, r4])

    def jacobian(self, x: FloatArray) -> FloatArray:
        N = self.N
        g, th, ph, ps = self.split(x)
        x0, y0, gam, d, a, b, c, p, q = g
        ct, st, cp, sp, cs, ss = np.cos(th), np.sin(th), np.cos(ph), np.sin(ph), np.cos(ps), np.sin(ps)
        J = np.zeros((4 * N, 9 + 3 * N))
        i = np.arange(N)
        R1, R2, R3, R4 = i, N + i, 2 * N + i, 3 * N + i
        T0, P0, S0 = 9, 9 + N, 9 + 2 * N
        cg, sg = math.cos(gam), math.sin(gam)
        J[R1, 2], J[R1, 3], J[R1, 4], J[R1, 5], J[R1, 6] = d * sg, -cg, ct, cp, -cs
        J[R1, T0 + i], J[R1, P0 + i], J[R1, S0 + i] = -a * st, -b * sp, c * ss
        J[R2, 2], J[R2, 3], J[R2, 4], J[R2, 5], J[R2, 6] = -d * cg, -sg, st, sp, -ss
        J[R2, T0 + i], J[R2, P0 + i], J[R2, S0 + i] = a * ct, b * cp, -c * cs
        J[R3, 0], J[R3, 4], J[R3, 7], J[R3, 8] = 1.0, ct, cp, -sp
        J[R3, T0 + i], J[R3, P0 + i] = -a * st, -p * sp - q * cp
        J[R4, 1], J[R4, 4], J[R4, 7], J[R4, 8] = 1.0, st, sp, cp
        J[R4, T0 + i], J[R4, P0 + i] = a * ct, p * cp - q * sp
        if self.delta is None:
            return J
        # theta_j = theta_1 + delta_j: one column, the sum of the N crank-angle columns
        return np.concatenate([J[:, :9], J[:, T0:T0 + N].sum(axis=1, keepdims=True), J[:, P0:]], axis=1)


def newton(system: LoopSystem, x: FloatArray, T: FloatArray, tol: float,
           steps: int = CORRECTOR_STEPS) -> tuple[FloatArray, bool]:
    """Gauss-Newton with least-squares (minimum-norm where underdetermined) steps on (F3) for targets T; success
    when max |residual| <= tol, failure when a step does not contract the residual by CORRECTOR_CONTRACTION.
    Raises core.analysis.synthesis_deadline.OutOfTime once the deadline in force has passed (as do the other loops
    here that a work item may spend seconds in)."""
    r = system.residuals(x, T)
    norm = float(np.max(np.abs(r)))
    for k in range(steps):
        if norm <= tol:
            return x, True
        check_time()
        try:
            dx = np.linalg.lstsq(system.jacobian(x), r, rcond=None)[0]
        except (np.linalg.LinAlgError, ValueError):
            return x, False
        xn = x - dx
        rn = system.residuals(xn, T)
        nn = float(np.max(np.abs(rn)))
        if not np.isfinite(nn) or (k > 0 and nn > CORRECTOR_CONTRACTION * norm):
            return x, False
        x, r, norm = xn, rn, nn
    return x, norm <= tol


def continue_to_targets(system: LoopSystem, x: FloatArray, start: FloatArray, min_link: float = 0.0,
                        tol: float = FINAL_TOL) -> tuple[FloatArray, bool]:
    """Continuation of a solution x of (F3) for the targets ``start`` (N, 2) to the system's targets along
    T(lambda) = (1 - lambda) start + lambda T (module docstring); links may not become shorter than ``min_link``.
    Returns (x, reached lambda = 1)."""
    lam, step = 0.0, HOMOTOPY_FIRST_STEP
    prev: tuple[FloatArray, float] | None = None
    for _ in range(HOMOTOPY_MAX_STEPS):
        if lam >= 1.0:
            break
        target_lam = min(1.0, lam + step)
        Tl = (1.0 - target_lam) * start + target_lam * system.T
        guess = x if prev is None else x + (x - prev[0]) * (target_lam - lam) / max(lam - prev[1], 1e-15)
        xn, ok = newton(system, guess, Tl, PATH_TOL if target_lam < 1.0 else tol)
        if ok and np.all(np.abs(xn[system.length_index]) >= min_link):
            prev = (x, lam)
            x, lam = xn, target_lam
            step = min(step * 1.5, HOMOTOPY_MAX_STEP)
        else:
            step *= 0.5
            if step < HOMOTOPY_MIN_STEP:
                return x, False
    if lam < 1.0:
        return x, False
    x, ok = newton(system, x, system.T, tol, steps=2 * CORRECTOR_STEPS)
    return x, ok


def normalise_state(system: LoopSystem, x: FloatArray) -> FloatArray:
    """The same linkage with positive link lengths (a negative length is the link turned by pi)."""
    x = x.copy()
    N, k = system.N, 9 + system.n_theta
    if x[4] < 0:  # crank
        x[4] = -x[4]
        x[9:k] += math.pi
    if x[5] < 0:  # coupler: its frame turns by pi
        x[5] = -x[5]
        x[k:k + N] += math.pi
        x[7], x[8] = -x[7], -x[8]
    if x[6] < 0:  # rocker
        x[6] = -x[6]
        x[k + N:] += math.pi
    if x[3] < 0:  # ground
        x[3] = -x[3]
        x[2] += math.pi
    x[2] = math.remainder(x[2], TWO_PI)
    return x


@dataclass(frozen=True)
class Traversal:
    """A linkage that passes through the targets on one branch: ``theta`` (N,) the crank angles in the order of the
    targets, unwrapped along the crank's motion (a turn of ``direction`` +1 counter-clockwise, -1 clockwise)."""
    geometry: FourBarGeometry
    theta: FloatArray
    direction: int


def check_traversal(system: LoopSystem, x: FloatArray, min_link_ratio: float = MIN_LINK_RATIO,
                    direction: int | None = None) -> tuple[Traversal | None, str]:
    """Whether the solution x of (F3) is a linkage whose crank, driven one way, reaches every target in order on one
    assembly branch (module docstring): (Traversal, "") or (None, the reason). With prescribed timing the direction
    is that of the timing."""
    x = normalise_state(system, x)
    g, th, ph, ps = system.split(x)
    lengths = g[3:7]
    if not np.all(np.isfinite(x)):
        return None, "not finite"
    if lengths.min() < min_link_ratio * lengths.max():
        return None, f"a link shorter than {min_link_ratio:g} of the longest"
    x0, y0, gam, d, a, b, c, p, q = g
    A = np.stack([x0 + a * np.cos(th), y0 + a * np.sin(th)], -1)
    B = A + b * unit(ph)
    O4 = np.array([x0 + d * math.cos(gam), y0 + d * math.sin(gam)])
    side = (O4[0] - A[:, 0]) * (B[:, 1] - A[:, 1]) - (O4[1] - A[:, 1]) * (B[:, 0] - A[:, 0])
    tiny = 1e-9 * max(lengths.max(), 1e-300) ** 2
    signs = {int(np.sign(s)) for s in side if abs(s) > tiny}
    if len(signs) > 1:
        return None, "the targets lie on both assembly branches"
    branch = signs.pop() if signs else 1
    geometry = FourBarGeometry.from_vector(g, branch)
    turn = crank_turn(th, system.delta is not None, geometry.sweep_reachable, direction)
    if turn is None:
        return None, "the crank cannot reach the targets in order without leaving its branch"
    return Traversal(geometry, *turn), ""


def crank_turn(theta: FloatArray, timed: bool, reachable: Callable[[float, float], bool],
               direction: int | None = None) -> tuple[FloatArray, int] | None:
    """(crank angles unwrapped along the motion, direction) when the crank, turned one way (``direction``, else
    either) by less than a turn, reaches the angles theta (N,) in order and ``reachable(from, to)`` holds over every
    step (the linkage keeps its branches); with ``timed`` the angles are taken as given (their steps must have the
    direction's sign); None otherwise."""
    steps = np.diff(theta)
    for sense in ((direction,) if direction else (1, -1)):
        if timed:
            unwrapped = theta  # the timing fixes the crank's path
            if np.any(sense * steps <= 0):
                continue
        else:
            gaps = np.mod(sense * steps, TWO_PI)
            if np.any(gaps <= 0) or gaps.sum() >= TWO_PI:
                continue
            unwrapped = theta[0] + sense * np.concatenate([[0.0], np.cumsum(gaps)])
        if all(reachable(unwrapped[j], unwrapped[j + 1]) for j in range(len(theta) - 1)):
            return unwrapped, sense
    return None


# --- timed dyad fits (F4) ------------------------------------------------------------------------------------------

def grid(half_width: float, count: int) -> FloatArray:
    """A square grid of count x count points over [-half_width, half_width]^2: (count^2, 2)."""
    axis = np.linspace(-half_width, half_width, count)
    return np.stack(np.meshgrid(axis, axis, indexing="ij"), -1).reshape(-1, 2)


def circle_fit(W: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Least-squares circles (Kasa) through point sets W (..., N, 2): (centre (..., 2), radius (...), rms distance of
    the points from the circle (...))."""
    m = W.mean(-2, keepdims=True)
    Wc = W - m
    z = np.sum(Wc * Wc, -1)
    M = np.concatenate([2 * Wc, -np.ones(Wc.shape[:-1] + (1,))], -1)
    MtM = np.einsum("...ni,...nj->...ij", M, M) + 1e-12 * np.eye(3)
    sol = solve_batch(MtM, np.einsum("...ni,...n->...i", M, z))
    C, k = sol[..., :2], sol[..., 2]
    rho = np.sqrt(np.maximum(np.sum(C * C, -1) - k, 1e-300))
    res = np.linalg.norm(Wc - C[..., None, :], axis=-1) - rho[..., None]
    return C + m[..., 0, :], rho, np.sqrt(np.mean(res * res, -1))


def local_minima(values: FloatArray, count: int) -> FloatArray:
    """Indices of the ``count`` smallest local minima of values on a square grid (flattened)."""
    n = int(round(math.sqrt(values.size)))
    V = np.where(np.isfinite(values), values, np.inf).reshape(n, n)
    padded = np.pad(V, 1, constant_values=np.inf)
    neighbours = np.stack([padded[1 + di:n + 1 + di, 1 + dj:n + 1 + dj]
                           for di in (-1, 0, 1) for dj in (-1, 0, 1) if di or dj])
    is_min = (V <= neighbours.min(axis=0)) & np.isfinite(V)
    idx = np.flatnonzero(is_min.ravel())
    return idx[np.argsort(values.ravel()[idx])][:count]


def search_width(span: float, base: float = 3.0, most: float = 12.0) -> float:
    """Half-width of a grid of pivots or circle points [normalised length] for a rotation span [rad]: a link that
    turns by a small angle while its end moves by about the targets' size is long, about 1 / span."""
    return float(min(most, base * max(1.0, 1.0 / max(abs(span), 1e-9))))


def lifted_crank_dyad(T: FloatArray, delta: FloatArray) -> FloatArray | None:
    """(O2, Z, e) from (F4) made linear: with O2 . R(delta_j) Z = cos(delta_j) w1 - sin(delta_j) w2 (w1 = O2 . Z,
    w2 = O2 x Z) and m = |O2|^2 - k,

        2 (R_j^T T_j) . Z - 2 cos(delta_j) w1 + 2 sin(delta_j) w2 + 2 T_j . O2 - m = |T_j|^2,

    seven unknowns taken as independent; for N >= 7 targets the least-squares solution is the dyad when the data
    are exact (a start for Gauss-Newton otherwise); None for fewer targets or a rank-deficient system."""
    if len(T) < 7:
        return None
    c, s = np.cos(delta), np.sin(delta)
    RtT = rotate(T, -delta)
    M = np.column_stack([2 * RtT, -2 * c, 2 * s, 2 * T, -np.ones(len(T))])
    sol, _, rank, _ = np.linalg.lstsq(M, np.sum(T * T, -1), rcond=None)
    if rank < 7 or not np.all(np.isfinite(sol)):
        return None
    O2, Z = sol[4:6], sol[0:2]
    A = O2 + rotate(np.broadcast_to(Z, T.shape), delta)
    return np.concatenate([O2, Z, [float(np.mean(np.linalg.norm(T - A, axis=-1)))]])


def crank_dyads(T: FloatArray, delta: FloatArray, half_width: float | None = None, count: int = 31,
                keep: int = 4) -> list[tuple[float, FloatArray]]:
    """Crank dyads (O2, Z, e) turning by delta_j through the targets ((F4)): [(rms residual, (O2x, O2y, Zx, Zy, e))]
    best first, from the local minima of the linear fit over a grid of ground pivots (half-width by
    :func:`search_width` of the crank's rotation) and the lifted linear solution, refined by Gauss-Newton."""
    if half_width is None:
        half_width = search_width(float(np.ptp(delta)))
    O = grid(half_width, count)
    V = T[None] - O[:, None]
    RtV = rotate(V, -delta[None])  # R(delta)^T V
    M = np.concatenate([2 * RtV, np.ones(V.shape[:-1] + (1,))], -1)
    MtM = np.einsum("gni,gnj->gij", M, M) + 1e-12 * np.eye(3)
    sol = solve_batch(MtM, np.einsum("gni,gn->gi", M, np.sum(V * V, -1)))
    A = O[:, None] + rotate(np.broadcast_to(sol[:, None, :2], V.shape), delta[None])
    dist = np.linalg.norm(T[None] - A, axis=-1)
    res = np.sqrt(np.mean((dist - dist.mean(-1, keepdims=True)) ** 2, -1))
    # Gauss-Newton from the grid's local minima and its best points (a long narrow valley has its grid minimum far
    # from the dyad), all at once
    picks = np.unique(np.concatenate([local_minima(res, keep), np.argsort(res)[:DYAD_STARTS]]))
    starts = np.column_stack([O[picks], sol[picks, :2], dist[picks].mean(-1)])
    lifted = lifted_crank_dyad(T, delta)
    if lifted is not None:
        starts = np.vstack([lifted[None], starts])
    X, r = refine_crank_dyads(starts, T, delta)
    out: list[tuple[float, FloatArray]] = []
    for k in np.argsort(r):
        if np.all(np.isfinite(X[k])) and not any(np.allclose(X[k], y, rtol=0, atol=1e-9) for _, y in out):
            out.append((float(r[k]), X[k]))
        if len(out) == keep:
            break
    return out


def refine_crank_dyads(X: FloatArray, T: FloatArray, delta: FloatArray, steps: int = 30) -> tuple[FloatArray,
                                                                                                  FloatArray]:
    """Gauss-Newton on r_j = |T_j - O2 - R(delta_j) Z| - e over (O2, Z, e) from many starts X (S, 5) at once:
    (refined X, rms residual (S,))."""
    X = np.array(X, float)
    for _ in range(steps):
        check_time()
        v = T[None] - X[:, None, :2] - rotate(np.broadcast_to(X[:, None, 2:4], (len(X),) + T.shape), delta[None])
        dist = np.maximum(np.linalg.norm(v, axis=-1), 1e-300)
        r = dist - X[:, 4:5]
        u = v / dist[..., None]
        J = np.concatenate([-u, -rotate(u, -delta[None]), -np.ones(r.shape + (1,))], -1)
        JtJ = np.einsum("sni,snj->sij", J, J) + 1e-14 * np.eye(5)
        dx = solve_batch(JtJ, -np.einsum("sni,sn->si", J, r))
        dx = np.where(np.isfinite(dx), dx, 0.0)
        X = X + dx
        if np.max(np.abs(dx)) <= 1e-15 * (1 + np.max(np.abs(X))):
            break
    v = T[None] - X[:, None, :2] - rotate(np.broadcast_to(X[:, None, 2:4], (len(X),) + T.shape), delta[None])
    r = np.linalg.norm(v, axis=-1) - X[:, 4:5]
    rms = np.sqrt(np.mean(r * r, -1))
    return X, np.where(np.isfinite(rms), rms, np.inf)


def circle_point_residuals(W: FloatArray, s: FloatArray, s_avoid: FloatArray, scale: float) -> FloatArray:
    """The circle fit's rms residual of the point sets W, deflated near the trivial circle point s_avoid."""
    _, _, f = circle_fit(W)
    distance = np.linalg.norm(s - s_avoid, axis=-1)
    return f / np.maximum(np.minimum(distance / scale, 1.0), 1e-300)


def circle_points(T: FloatArray, phi: FloatArray, s_avoid: FloatArray, half_width: float | None = None,
                  count: int = 27, keep: int = 4) -> list[tuple[float, FloatArray]]:
    """Distinct circle points s of the coupler poses (T_j, phi_j) (module docstring): [(deflated rms residual, s)]
    best first, from a grid of s (half-width by :func:`search_width` of the coupler's rotation), Gauss-Newton on the
    Kasa equations in (s, C, k) from the grid's local minima and best points."""
    if half_width is None:
        half_width = search_width(float(np.ptp(np.unwrap(phi))))
    S = grid(half_width, count)
    W = T[None] + rotate(S[:, None, :], phi[None])
    scale = 0.25 * half_width
    f = circle_point_residuals(W, S, s_avoid, scale)
    picks = np.unique(np.concatenate([local_minima(f, keep), np.argsort(f)[:DYAD_STARTS]]))
    s_refined = refine_circle_points(S[picks], T, phi)
    Wr = T[None] + rotate(s_refined[:, None, :], phi[None])
    fr = circle_point_residuals(Wr, s_refined, s_avoid, scale)
    out: list[tuple[float, FloatArray]] = []
    for k in np.argsort(fr):
        if not np.isfinite(fr[k]):
            break
        if not any(np.allclose(s_refined[k], y, rtol=0, atol=1e-7 * half_width) for _, y in out):
            out.append((float(fr[k]), s_refined[k]))
        if len(out) == keep:
            break
    return out


def refine_circle_points(S: FloatArray, T: FloatArray, phi: FloatArray, steps: int = 20) -> FloatArray:
    """Gauss-Newton from many starts S (K, 2) at once on r_j = |T_j + R_j s - C|^2 - rho^2 written as
    |T_j|^2 + 2 (R_j^T T_j - R_j^T C) . s - 2 C . T_j + k' (k' = |C|^2 - rho^2 + |s|^2) over (s, C, k')."""
    W = T[None] + rotate(S[:, None, :], phi[None])
    C, rho, _ = circle_fit(W)
    X = np.column_stack([S, C, np.sum(C * C, -1) - rho ** 2 + np.sum(S * S, -1)])
    TT = np.sum(T * T, -1)
    RtT = rotate(T, -phi)
    for _ in range(steps):
        check_time()
        s, Cc, k = X[:, :2], X[:, 2:4], X[:, 4]
        RtC = rotate(np.broadcast_to(Cc[:, None, :], (len(X),) + T.shape), -phi[None])
        r = TT[None] + 2 * np.einsum("kni,ki->kn", RtT[None] - RtC, s) - 2 * Cc @ T.T + k[:, None]
        Rs = rotate(np.broadcast_to(s[:, None, :], (len(X),) + T.shape), phi[None])
        J = np.concatenate([2 * (RtT[None] - RtC), -2 * T[None] - 2 * Rs, np.ones(r.shape + (1,))], -1)
        JtJ = np.einsum("kni,knj->kij", J, J) + 1e-14 * np.eye(5)
        dx = solve_batch(JtJ, np.einsum("kni,kn->ki", J, r))
        dx = np.where(np.isfinite(dx), dx, 0.0)
        X = X - dx
        if np.max(np.abs(dx)) <= 1e-15 * (1 + np.max(np.abs(X))):
            break
    return X[:, :2]


def timed_states(system: LoopSystem, dyads: int = 3, points: int = 3) -> list[FloatArray]:
    """Starting states of (F3) for a timed system: for the best crank dyads (F4), the coupler's angles and its
    best circle points give the rocker; each combination is one state (x of the timed system)."""
    assert system.delta is not None
    T, delta = system.T, system.delta
    out = []
    for _, dyad in crank_dyads(T, delta)[:dyads]:
        check_time()
        O2, Z, e = dyad[:2], dyad[2:4], abs(dyad[4])
        A = O2 + rotate(np.broadcast_to(Z, T.shape), delta)
        to_A = A - T
        phi = np.arctan2(to_A[:, 1], to_A[:, 0])  # the coupler frame at P, x axis towards A
        for _, s in circle_points(T, phi, np.array([e, 0.0]))[:points]:
            B = T + rotate(np.broadcast_to(s, T.shape), phi)
            C, rho, _ = circle_fit(B[None])
            state = state_from_joints(system, O2, A, B, C[0], float(rho[0]))
            if state is not None:
                out.append(state)
    return out


def state_from_joints(system: LoopSystem, O2: FloatArray, A: FloatArray, B: FloatArray, O4: FloatArray,
                      c: float) -> FloatArray | None:
    """x of (F3) from the joint positions A_j, B_j (N, 2) of a linkage with pivots O2, O4 (the coupler length and
    the coupler point from the first target; the others are left to Newton's method)."""
    T = system.T
    d = float(np.linalg.norm(O4 - O2))
    a = float(np.mean(np.linalg.norm(A - O2, axis=-1)))
    b = float(np.mean(np.linalg.norm(B - A, axis=-1)))
    if min(a, b, c, d) <= 0 or not np.isfinite([a, b, c, d]).all():
        return None
    gamma = math.atan2(O4[1] - O2[1], O4[0] - O2[0])
    th = np.unwrap(np.arctan2(A[:, 1] - O2[1], A[:, 0] - O2[0]))
    ph = np.unwrap(np.arctan2(B[:, 1] - A[:, 1], B[:, 0] - A[:, 0]))
    ps = np.unwrap(np.arctan2(B[:, 1] - O4[1], B[:, 0] - O4[0]))
    rel = rotate(T - A, -ph)  # P in the coupler frame, per target
    p, q = rel.mean(axis=0)
    g = np.array([O2[0], O2[1], gamma, d, a, b, c, p, q])
    theta = th if system.delta is None else th[:1]
    return np.concatenate([g, theta, ph, ps])


__all__ = ["FourBarGeometry", "LoopSystem", "MIN_LINK_RATIO", "PARAMS", "Traversal", "check_traversal",
           "circle_fit", "circle_intersection", "circle_points", "continue_to_targets", "coupler_points", "crank_turn",
           "crank_dyads", "newton", "normalise_state", "ordered_assignment", "ordered_cost", "ordered_fit",
           "ordered_path", "reachable_arcs", "segment_distances", "timed_states", "unit"]
