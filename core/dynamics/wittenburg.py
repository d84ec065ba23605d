"""Wittenburg's equations of a spherical-joint tree ([004]), registered as formulation "wittenburg".

The reactions are eliminated with the path matrix T = S^-1 (eqs. (10)-(12)); the centre-of-mass accelerations
are expressed through the vectors d_ij (eqs. (20)-(25)) and the barycentric vectors b_ij (eqs. (38)-(41)), which
leaves one coupled linear system for the absolute angular accelerations (eqs. (59)-(61)):

    sum_j K_ij omega'_j = M'_i + M_i + sum_a S_ia Y_a,          i = 1..n

    K_ij = K_i (augmented-body inertia about the inboard joint, eq. (47)/(62))                i = j
         = (h_j . d_ij) E - h_j d_ij^T          (h_j = M b_j0 = sum_k m_k d_jk)              s_i < s_j
         = K_ji^T                                                                             s_j < s_i
         = 0                                                                                  otherwise
    M'_i = -omega_i x K_i omega_i - sum_{j: s_i < s_j} d_ij x (omega_j x (omega_j x h_j))
           - h_i x (sum_{j: s_j < s_i} omega_j x (omega_j x d_ji) - r0'')  - sum_{j: s_i <= s_j} d_ij x F_j    (55)

(docs/references.md, errata: the index typos of (44)-(55) were corrected by deriving them again from (26)-(43) and the
principle of virtual power; r0'' is the acceleration of the base point the subtree hangs from). All vectors are
taken in the base (world) frame with the orientation matrices A^i (eqs. (62)-(64)): K_i, h_i, c_i and the d_ij
are constant in the body frames and are rotated once per evaluation. The reactions follow from (12),
X = T (m r'' - F), with r'' from eq. (20) differentiated twice.

State y = [orientation parameters of all bodies; omega (world components, 3 n)], the parameters being one of
``quaternion`` (default), ``bryant``, ``euler313``, ``matrix`` (:mod:`mechstudio.core.numerics.orientation`, eqs. (65)-(68)).
pack/unpack map y to and from the maximal coordinates (q, q') of :class:`mechstudio.core.systems.tree_maximal.TreeMaximalSystem`.

Singularities of the angle sets: whenever the state is (re)packed (at every restart of the simulation driver,
i.e. at each output time, and at the switching events of :func:`integrate`) a body whose |cos alpha2| (Bryant) or
|sin theta| (Euler) is below ``switch_threshold`` (0.3) is re-parametrised: its angles restart at the values farthest from the
singular set (Bryant (0, 0, 0), Euler (0, pi/2, 0)) about the current orientation, A = R_ref A(angles). Every switch is
appended to ``self.switches`` (time, body, measure, message) and issued as a :class:`ParametrizationSwitch`
warning.

Cost per right-hand side, n bodies, depth D (chain: D = n): O(n D) for the K_ij blocks (only ancestor-descendant
pairs are non-zero, d_ij = 0 off the path), O(n^2) for the sums along paths (products with T), and one dense
Cholesky factorisation of the 3n x 3n matrix, O(n^3) flops but done by LAPACK (about 10 us for n = 10, 1 ms
for n = 100); the Python overhead is a fixed number (~60) of vectorised numpy operations, independent of n.

Speed: omega_dot is also compiled as one numba kernel (``mechstudio.core.dynamics.wittenburg_kernels.k_omega_dot``, the same equations in
loops, K solved by its Cholesky factor), used by default; ``kernels="numpy"`` keeps the vectorised numpy path,
which stays the reference (tests/test_performance_equivalence.py: equal to 1e-12). The kernel brings a 10-body
chain from ~120 us to ~25 us per right-hand side (targets: 10-body >= 10x real time, 30-body >= 1x).
The simulation driver's output frame (maximal coordinates, the drift correction's residuals, q'', reactions,
energies) is one compiled call too, :meth:`WittenburgFormulation.fast_output` (``mechstudio.core.dynamics.wittenburg_kernels.k_output``):
a Wittenburg state is on the constraint manifold by construction, so the correction only measures; the frame is
tested equal to the generic path (tests/test_tree_fused_output.py). a full run keeps >= 80 % of the
speed of the bare formulation (``mechstudio bench --suite trees``, last row).
"""
from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from scipy.integrate import solve_ivp
from scipy.linalg.lapack import dposv as _dposv

from mechstudio.core.dynamics.base import Accelerations, FastOutput, Formulation, OutputScalar, SolverFailure, register_formulation
from mechstudio.core.dynamics.packed_output import unpack_frame
from mechstudio.core.integrate.dop853_kernels import CompiledRHS
from mechstudio.core.model.document import GROUND
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.dynamics import wittenburg_kernels as tree_kernels
from mechstudio.core.systems.tree_maximal import TreeMaximalSystem
from mechstudio.core.numerics.orientation import (QUAT_MATRIX_FORM, QUAT_RATES_FORM, get_parametrization, matrix_to_quat, quat_E,
                                   quat_to_matrix)
from mechstudio.core.types import FloatArray


class ParametrizationSwitch(UserWarning):
    """An angle parametrization came near its singularity and was re-parametrised."""


# constant bilinear forms: one outer product and one matrix product per batched operation
_EPS = np.zeros((9, 3))  # (a x b)_k = sum_ij eps_ijk a_i b_j, a (x) b flattened as 3 i + j
for (_i, _j, _k), _s in (((0, 1, 2), 1), ((1, 2, 0), 1), ((2, 0, 1), 1), ((0, 2, 1), -1), ((2, 1, 0), -1),
                         ((1, 0, 2), -1)):
    _EPS[3 * _i + _j, _k] = _s
# blocks (h . d) E - h d^T (upper) and their transposes (lower) from h (x) d
_BU = np.zeros((9, 9))
_BL = np.zeros((9, 9))
for _i in range(3):
    for _j in range(3):
        for _r in range(3):
            for _c in range(3):
                _BU[3 * _i + _j, 3 * _r + _c] = (_i == _j) * (_r == _c) - (_i == _r) * (_j == _c)
                _BL[3 * _i + _j, 3 * _r + _c] = (_i == _j) * (_r == _c) - (_i == _c) * (_j == _r)


_SKEW = np.zeros((3, 9))  # omega~ flattened = omega @ _SKEW
for (_r, _c, _k, _s) in ((0, 1, 2, -1), (0, 2, 1, 1), (1, 0, 2, 1), (1, 2, 0, -1), (2, 0, 1, -1), (2, 1, 0, 1)):
    _SKEW[_k, 3 * _r + _c] = _s


def _cross(a: FloatArray, b: FloatArray) -> FloatArray:
    """Batched cross products a x b over the last axis (broadcasting), as (a (x) b) eps."""
    o = a[..., :, None] * b[..., None, :]
    return o.reshape(o.shape[:-2] + (9,)) @ _EPS


def _rot(A: FloatArray, v: FloatArray) -> FloatArray:
    """A_k v_k for (n, 3, 3), (n, 3)."""
    return (A @ v[:, :, None])[:, :, 0]


@register_formulation("wittenburg")
class WittenburgFormulation(Formulation):
    """Wittenburg's method for spherical-joint trees (see the module docstring)."""

    kernel_paths = True  # kernels="numba" (the compiled omega_dot, step and output) or "numpy"

    def __new__(cls, system: ConstrainedSystem, **options: Any) -> Any:
        """A tree of hinge, slider, cylindrical, universal and fixed joints (a MaximalJointSystem) is run by
        :class:`~mechstudio.core.dynamics.joint_tree.JointTreeFormulation` (minimal joint coordinates)."""
        if cls is WittenburgFormulation and not isinstance(system, TreeMaximalSystem):
            # imported here: the joint trees' module (and maximal_joints) only for such models
            from mechstudio.core.dynamics.joint_tree import JointTreeFormulation
            from mechstudio.core.systems.maximal_joints import MaximalJointSystem  # see above
            if isinstance(system, MaximalJointSystem):
                return JointTreeFormulation(system, **options)
        return super().__new__(cls)

    def __init__(self, system: ConstrainedSystem, **options: Any):
        super().__init__(system, **options)
        if not isinstance(system, TreeMaximalSystem):
            raise SolverFailure("the wittenburg formulation needs a tree of bodies joined by spherical joints "
                                f"(got a {type(system).__name__})")
        name = options.get("parametrization") or system.model.data.get("simulation", {}).get(
            "parametrization", "quaternion")
        self.param = get_parametrization(str(name))
        self.threshold = float(options.get("switch_threshold", 0.3))
        self.switches: list[dict[str, Any]] = []
        tr = self.tree = system.tree
        n = self.n = tr.n
        self.nk = self.param.size * n
        self.ref = np.tile(np.eye(3), (n, 1, 1))
        self.has_ref = False
        self.kin = system.kin
        self.base = system.base
        self.nonroot = tr.parent >= 0
        self.roots = np.flatnonzero(~self.nonroot)
        self.par = np.where(self.nonroot, tr.parent, 0)
        self.T, self.Tt, self.P = tr.T, np.ascontiguousarray(tr.T.T), tr.P
        self.e_body = tr.e
        self.mass = tr.mass
        # flat indices of the blocks of the 3n x 3n matrix
        N3 = 3 * n
        r3 = np.arange(3)
        rows = lambda b: (3 * b)[:, None, None] + r3[None, :, None]  # noqa: E731
        cols = lambda b: (3 * b)[:, None, None] + r3[None, None, :]  # noqa: E731
        ar = np.arange(n)
        self.idx_diag = (rows(ar) * N3 + cols(ar)).ravel()
        self.idx_up = (rows(tr.pairs_i) * N3 + cols(tr.pairs_j)).ravel()
        self.idx_lo = (rows(tr.pairs_j) * N3 + cols(tr.pairs_i)).ravel()
        self.idx_ul = np.concatenate([(rows(tr.pairs_i) * N3 + cols(tr.pairs_j)).reshape(-1, 9),
                                      (rows(tr.pairs_j) * N3 + cols(tr.pairs_i)).reshape(-1, 9)], 1).ravel()
        self._BULR = np.concatenate([_BU, _BL], 1)
        self.Vb = np.ascontiguousarray(np.stack([tr.c_in, tr.h], 2))
        self.eb = tr.e[:, :, None].copy()
        self.Kb = tr.K
        self.pj, self.pc = tr.pairs_j, tr.pairs_c
        self.F_gravity = self.mass[:, None] * system.gravity[None, :]
        self.K_flat = np.zeros(9 * n * n)
        self.simple = not (system.loads or system.torques or system.has_joint_moments)
        self.Pdd_zero = not system.base.moving
        self.has_spring = bool(np.any(system.spring))
        self._base_still: tuple[FloatArray, FloatArray, FloatArray] | None = None  # base points of a still base
        self._timed_data: tuple | None = None  # (I, F) of compiled_rhs (renewed when the reference matrices change)
        self._base_tables = system.base.kernel_tables() if system.base.moving else None
        # wittenburg_kernels.k_tree_derivative, k_params_to_quat, k_angle_set_near_singular compiled (None: numpy)
        self._k_derivative: Any = None
        self._k_to_quat: Any = None
        self._k_near: Any = None
        self._k_base: Any = None
        self._c_out = np.ascontiguousarray(self.tree.c_out, dtype=float)
        # compiled kernel (numba) of omega_dot; options kernels="numpy" keeps the numpy path
        kernels = str(options.get("kernels", "numba"))
        compiled = tree_kernels.kernels() if kernels == "numba" else None
        self._nb, self._k_output = compiled if compiled is not None else (None, None)
        # the kernels' arguments (also on the numpy path: the timed right-hand side's data, tests)
        c = np.ascontiguousarray
        self._Vb_c, self._eb_c, self.Kb_c = c(self.Vb, float), c(tr.e, float), c(self.Kb, float)
        self.par = c(self.par, np.int64)
        self.pi_c, self.pj, self.pc = c(tr.pairs_i, np.int64), c(self.pj, np.int64), c(self.pc, np.int64)
        self.T_c, self.P_c, self.Tt = c(self.T, float), c(self.P, float), c(self.Tt, float)
        self._zeros3 = np.zeros((n, 3))
        self._code = tree_kernels.PARAM_CODES[self.param.name]
        self._derivative_args = (self.par, self.pi_c, self.pj, self.pc, c(~self.nonroot, np.int64),
                                 c(tr.order, np.int64), self._Vb_c, self._eb_c, self.Kb_c, self.T_c, self.P_c,
                                 self.Tt, c(self.mass, float), QUAT_RATES_FORM)
        if self._nb is not None:
            self._output_args = self._output_tables()
            self._k_derivative, self._k_to_quat, self._k_near, self._k_base = tree_kernels.derivative_kernels()

    def _output_tables(self) -> tuple[Any, ...]:
        """The constant arguments of the fused output kernel (``mechstudio.core.dynamics.wittenburg_kernels.k_output``): tree data, and per
        joint in file order the body its reaction is reported on as ``TreeMaximalSystem.reactions`` does (the
        file's body2, or body1 when body2 is the ground, with the sign reversed)."""
        sysm, tr, n = self.system, self.tree, self.n
        c = np.ascontiguousarray
        joints = {j.name: j for j in sysm.entities.joints}
        rows = [ci for ci in sysm.constraints if ci.type == "spherical"]
        rep_body, rep_parent, rep_sign, rep_arm = [], [], [], []
        for a, ci in enumerate(rows):
            assert ci.rows[0] == 3 * a  # the joints' rows come first, in file order
            j = joints[ci.name]
            body, point, sign = (j.body1, j.point1, -1.0) if j.body2 == GROUND else (j.body2, j.point2, 1.0)
            kb = sysm.index[body]
            rep_body.append(kb)
            rep_parent.append(int(kb != sysm.joint_child[a]))
            rep_sign.append(sign)
            rep_arm.append(np.asarray(point, float)[:3] - tr.com[kb])
        order = np.asarray(tr.order, np.int64)
        assert sorted(order.tolist()) == list(range(n))
        return (self._Vb_c, self._eb_c, self.Kb_c, self.par, self.pi_c, self.pj, self.pc, self.T_c, self.P_c,
                self.Tt, c(tr.c_in, float), c(tr.c_out, float), c(~self.nonroot, np.int64), order,
                c(self.mass, float), c(sysm.Jb, float), c(sysm.gravity, float), c(sysm.joint_child, np.int64),
                np.array(rep_body, np.int64), np.array(rep_parent, np.int64), np.array(rep_sign, float),
                c(np.array(rep_arm, float).reshape(len(rows), 3)), len(sysm.constraints))

    def _base_points(self, t: float) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Position, velocity, acceleration (n, 3) of the base point each root-level body hangs from (rows of the
        other bodies zero), cached when the base does not move."""
        if self._base_still is not None:
            return self._base_still
        out = (np.zeros((self.n, 3)), np.zeros((self.n, 3)), np.zeros((self.n, 3)))
        if self._k_base is not None and self._base_tables is not None:  # the compiled right-hand side's formulas
            powers, sines, w0 = self._base_tables
            self._k_base(float(t), self._derivative_args[4], self._c_out, powers, sines, w0, self.base.rotating,
                         *out)
            return out
        for arr, val in zip(out, self.base.point(self.tree.c_out[self.roots], t)):
            arr[self.roots] = val
        if not self.base.moving:
            self._base_still = out
        return out

    # --- state ------------------------------------------------------------------------------------------------
    def split(self, y: FloatArray) -> tuple[FloatArray, FloatArray]:
        return y[:self.nk].reshape(self.n, self.param.size), y[self.nk:self.nk + 3 * self.n].reshape(self.n, 3)

    def matrices(self, a: FloatArray) -> FloatArray:
        A = self.param.to_matrix(a)
        return self.ref @ A if self.has_ref else A

    def pack(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        sysm = self.system
        _, p = sysm.split(q)
        p = p / np.linalg.norm(p, axis=1, keepdims=True)
        w, _ = sysm.omegas(np.concatenate([q.reshape(-1, 7)[:, :3], p], 1).ravel(), v)
        if self.param.name == "quaternion":
            a = p
        else:
            A = quat_to_matrix(p)
            a = self.param.from_matrix(np.swapaxes(self.ref, 1, 2) @ A if self.has_ref else A)
            if self.param.singular:
                meas = self.param.measure(a)
                bad = np.flatnonzero(meas < self.threshold)
                if bad.size:
                    home = np.array(self.param.home)
                    self.ref[bad] = A[bad] @ self.param.to_matrix(home[None])[0].T
                    self.has_ref = True
                    self._timed_data = None  # the compiled right-hand side's data hold the reference matrices
                    a[bad] = home
                    for k in bad:
                        msg = (f"t = {t:.6g} s: body {self.tree.names[k]!r}: {self.param.name} angles near their "
                               f"singularity ({self.param.singular}; measure {meas[k]:.3g} < {self.threshold:g});"
                               f" re-parametrised about the current orientation (angles restarted at {tuple(round(x, 4) for x in self.param.home)})")
                        self.switches.append({"t": float(t), "body": self.tree.names[k],
                                              "measure": float(meas[k]), "message": msg})
                        warnings.warn(msg, ParametrizationSwitch, stacklevel=2)
        return np.concatenate([a.ravel(), w.ravel()])

    def unpack(self, y: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        a, w = self.split(y)
        if self.param.name == "quaternion":
            pq = a / np.linalg.norm(a, axis=1, keepdims=True)
            return self.system.state_from_orientations(None, w, t, pq=pq)
        return self.system.state_from_orientations(self.matrices(a), w, t)

    def restart(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        return self.pack(q, v, t)

    def needs_restart(self, q: FloatArray, v: FloatArray, t: float) -> bool:
        """True when an angle set has come below the switching threshold since the last (re)pack: the driver then
        restarts (:meth:`pack` re-parametrises the body) instead of stepping on towards the singularity (its
        continuous stepping restarts only when the correction changed the state)."""
        if not self.param.singular:
            return False
        # the measure from one element of B = ref^T A(p) (asked after every step: the cheap way): Bryant
        # |cos alpha2| with sin alpha2 = B[0, 2] (eq. (66)), Euler 3-1-3 |sin theta| with cos theta = B[2, 2] (68)
        row = {"bryant": 0, "euler313": 2}[self.param.name]
        if self._k_near is not None:
            return bool(self._k_near(np.ascontiguousarray(q, dtype=float), self.ref, self.has_ref, row,
                                     math.sqrt(1.0 - self.threshold ** 2)))
        p = q.reshape(self.n, 7)[:, 3:]
        w, x, y, z = p[:, 0], p[:, 1], p[:, 2], p[:, 3]
        col = np.stack([2 * (x * z + w * y), 2 * (y * z - w * x), w * w - x * x - y * y + z * z], 1)
        col /= np.sum(p * p, 1)[:, None]  # the third column of A(p/|p|)
        b = np.einsum("km,km->k", self.ref[:, :, row], col) if self.has_ref else col[:, row]
        return bool(np.max(b * b) > 1.0 - self.threshold ** 2)

    def singularity_measure(self, y: FloatArray) -> float:
        """Smallest distance of a body from the singular set of the angle parametrization (1 if none)."""
        a, _ = self.split(y)
        return float(np.min(self.param.measure(a))) if self.param.singular else 1.0

    # --- the equations ----------------------------------------------------------------------------------------
    def loads(self, A: FloatArray, w: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        """Applied forces F_i and moments M_i + sum_a S_ia Y_a about the centres of mass (world)."""
        sysm = self.system
        if self.simple:
            return self.F_gravity, None
        pq = matrix_to_quat(A) if sysm.has_joint_moments else np.zeros((self.n, 4))
        F, nmom, _ = sysm.applied(A, pq, w, t)
        return F, nmom

    def base_accelerations(self, t: float) -> FloatArray:
        """r0'' of the base point each body's subtree hangs from, (n, 3)."""
        if self.Pdd_zero:
            return np.zeros((self.n, 3))
        g = np.zeros((self.n, 3))
        g[self.roots] = self.base.point(self.tree.c_out[self.roots], t)[2]
        return self.Tt @ g

    def omega_dot(self, A: FloatArray, w: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        """omega' (n, 3) from eqs. (59)-(63), and the applied forces F (for the reactions)."""
        if self._nb is None:
            return self._omega_dot_numpy(A, w, t)
        F, mom = self.loads(A, w, t)
        F = np.ascontiguousarray(F, dtype=float)
        mom = self._zeros3 if mom is None else np.ascontiguousarray(mom, dtype=float)
        base = self._zeros3 if self.Pdd_zero else np.ascontiguousarray(self.base_accelerations(t))
        try:
            wd = self._nb(np.ascontiguousarray(A), np.ascontiguousarray(w), self._Vb_c, self._eb_c, self.Kb_c,
                          self.par, self.pi_c, self.pj, self.pc, self.T_c, self.P_c, self.Tt, F, mom, base)
        except np.linalg.LinAlgError:
            raise SolverFailure(f"the matrix K_ij of the tree is not positive definite at t = {t:.6g} s") from None
        return wd, F

    def _omega_dot_numpy(self, A: FloatArray, w: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        """omega' (n, 3) from eqs. (59)-(63), and the applied forces F (for the reactions): numpy path."""
        n = self.n
        V = A @ self.Vb  # world c_in = d_ii and h_i = M b_i0 (eqs. (62)-(64))
        cin, h = V[:, :, 0], V[:, :, 1]
        e = (A[self.par] @ self.eb)[:, :, 0]  # d_ij = e[c], rotated by the parent; 0 for root-level bodies
        Kd = A @ self.Kb @ np.swapaxes(A, 1, 2)  # K_i, eq. (62)
        hd = (h[self.pj][:, :, None] * e[self.pc][:, None, :]).reshape(-1, 9)
        K = self.K_flat  # every entry written below is overwritten at each call; the rest stays 0
        K[self.idx_diag] = Kd.ravel()
        hd9 = hd @ self._BULR
        K[self.idx_ul] = hd9.ravel()  # K_ij = (h_j . d_ij) E - h_j d_ij^T (s_i < s_j) and K_ji = K_ij^T  (61)
        # M'_i, eq. (55)/(63), plus M_i + sum_a S_ia Y_a
        F, mom = self.loads(A, w, t)
        Kw = (Kd @ w[:, :, None])[:, :, 0]
        wx = (w @ _SKEW).reshape(n, 3, 3)  # omega~
        wh = (wx @ h[:, :, None])[:, :, 0]
        u = (wx @ wh[:, :, None])[:, :, 0]  # omega_j x (omega_j x h_j)
        wpx = wx[self.par]
        c2 = (wpx @ e[:, :, None])
        we = (wpx @ c2)[:, :, 0]  # omega_p x (omega_p x d_pk)
        anc = self.Tt @ we  # sum over the ancestors j of i of omega_j x (omega_j x d_ji)
        if not self.Pdd_zero:
            anc = anc - self.base_accelerations(t)
        # the sums over descendants: sum_{j > i} d_ij x (u_j + F_j) = sum_children e_c x (T (u + F))_c
        rhs = (self.P @ _cross(self.T @ (u + F), e) - (wx @ Kw[:, :, None])[:, :, 0] + _cross(anc, h)
               - _cross(cin, F))
        if mom is not None:
            rhs += mom
        _, wd, info = _dposv(K.reshape(3 * n, 3 * n), rhs.ravel(), lower=0, overwrite_a=0, overwrite_b=0)
        if info != 0:
            raise SolverFailure(f"the matrix K_ij of the tree is not positive definite at t = {t:.6g} s")
        return wd.reshape(n, 3), F

    def derivative_and_power(self, t: float, y: FloatArray) -> FloatArray:
        """[y'; P] in one array: y' = [orientation rates; omega'] and the power P of the non-conservative loads
        and of the base (0 for a still base without loads). The integrator's right-hand side (the work W is
        integrated alongside y) and :meth:`rhs_and_power` share it. With the compiled kernels everything but
        the loads and the base's motion (evaluated here, once) is one call
        (``wittenburg_kernels.k_tree_derivative``)."""
        self.rhs_evaluations += 1
        a, w = self.split(y)
        A = self.matrices(a)
        if self._k_derivative is not None:
            return self._derivative_compiled(t, y, A, w)
        wd, F = self.omega_dot(A, w, t)
        wb = (w[:, None, :] @ A)[:, 0, :]  # omega^(i) = A^T omega
        nk = self.nk
        out = np.empty(nk + 3 * self.n + 1)
        out[:nk] = self.param.rates(a, wb).ravel()
        out[nk:-1] = wd.ravel()
        out[-1] = 0.0 if self.simple and not self.base.moving else self.power_at(A, w, wd, F, t)
        return out

    def _derivative_compiled(self, t: float, y: FloatArray, A: FloatArray, w: FloatArray) -> FloatArray:
        """:meth:`derivative_and_power` through ``wittenburg_kernels.k_tree_derivative``."""
        F, mom = self.loads(A, w, t)
        F = np.ascontiguousarray(F, dtype=float)
        mom = self._zeros3 if mom is None else np.ascontiguousarray(mom, dtype=float)
        moving = self.base.moving
        _, Pbd, Pbdd = self._base_points(t) if moving else (None, self._zeros3, self._zeros3)
        yy = np.empty(y.shape[0] + 1)  # the kernel reads y = [parameters; omega; W]
        yy[:-1] = y
        yy[-1] = 0.0
        try:
            out = self._k_derivative(yy, np.ascontiguousarray(A), self._code, F, mom, Pbd, Pbdd, moving,
                                     *self._derivative_args)
        except np.linalg.LinAlgError:
            raise SolverFailure(f"the matrix K_ij of the tree is not positive definite at t = {t:.6g} s") from None
        if not self.simple:
            sysm = self.system
            q, v = sysm.state_from_orientations(A, w, t)
            out[-1] += sysm.nonconservative_power(q, v, t)
        return out

    def rhs_and_power(self, t: float, y: FloatArray) -> tuple[FloatArray, float]:
        out = self.derivative_and_power(t, y)
        return out[:-1], float(out[-1])

    def rhs_augmented(self, t: float, yy: FloatArray) -> FloatArray:
        """[y'; P] for the integrators, yy = [y; W] (as the base class, without appending P to a copy)."""
        return self.derivative_and_power(t, yy[:-1])

    def compiled_rhs(self) -> CompiledRHS | None:
        """:meth:`rhs_augmented` compiled (``Formulation.compiled_rhs``;
        ``mechstudio.core.dynamics.wittenburg_kernels.k_rhs_tree_timed``) for gravity as the only load, any
        parametrization (the reference matrices of a re-parametrised body are part of the data, which
        :meth:`pack` renews) and a base still or moving as ``BaseMotion.kernel_tables`` can write it; None
        otherwise (applied loads and joint moments, a base motion without such a table)."""
        if self._nb is None or not self.simple or (self.base.moving and self._base_tables is None):
            return None
        kernel = tree_kernels.timed_kernel()
        if kernel is None:
            return None

        def data() -> tuple[FloatArray, FloatArray]:
            if self._timed_data is None:
                self._timed_data = self._pack_timed_data()
            return self._timed_data

        def counted(n: int) -> None:
            self.rhs_evaluations += n
        return CompiledRHS(kernel, data, counted)

    def _pack_timed_data(self) -> tuple[FloatArray, FloatArray]:
        """(I, F) of ``k_rhs_tree_timed`` (``wittenburg_kernels.pack_tree_data``) with the current reference
        matrices."""
        n = self.n
        moving = self.base.moving
        powers, sines, w0 = self._base_tables if moving else (np.zeros((3, 1)), np.zeros((0, 4)), np.zeros(3))
        flags = np.array([tree_kernels.PARAM_CODES[self.param.name], int(moving), int(self.base.rotating),
                          int(self.has_ref)])
        return tree_kernels.pack_tree_data((
            self.par, self.pi_c, self.pj, self.pc, flags, ~self.nonroot, self.tree.order,
            self._Vb_c, self._eb_c, self.Kb_c, self.T_c, self.P_c, self.Tt, np.asarray(self.F_gravity, float),
            QUAT_MATRIX_FORM, QUAT_RATES_FORM, self.ref, self.mass, self.tree.c_out, powers, sines, w0))

    def fast_output(self, y: FloatArray, t: float, correction: bool) -> FastOutput | None:
        """The recorded output frame in one compiled call (``mechstudio.core.dynamics.wittenburg_kernels.k_output``: the same numbers as
        the driver's generic path of unpack, correction residuals, accelerations, reactions and energies); None
        (the generic path) without numba, when the state needs the drift correction, or when K is not positive
        definite (the generic path raises the failure)."""
        if self._k_output is None:
            return None
        a, w = self.split(y)
        if self.param.name != "quaternion":  # the frame of ref A(a) in the same compiled way
            a = self._k_to_quat(np.ascontiguousarray(y), self._code, self.n, self.ref, self.has_ref,
                                QUAT_MATRIX_FORM)
        a, w = np.ascontiguousarray(a), np.ascontiguousarray(w)
        if self.simple:
            F, mom = self.F_gravity, self._zeros3
        else:
            F, mom = self.loads(quat_to_matrix(a), w, t)
            F, mom = np.ascontiguousarray(F, dtype=float), np.ascontiguousarray(mom, dtype=float)
        Pb, Pbd, Pbdd = self._base_points(t)
        try:
            status, out = self._k_output(a, w, F, mom, Pb, Pbd, Pbdd, bool(correction), *self._output_args)
        except np.linalg.LinAlgError:
            return None
        if status != 0:
            return None
        q, v, qdd, R, scalars = unpack_frame(out, self.system.n, len(self.system.constraints))
        if self.has_spring:  # the springs' potential (rotation vectors): the system's own method
            scalars[OutputScalar.POTENTIAL] = self.system.potential_energy(q, t)
        return q, v, qdd, R, scalars

    def power_at(self, A: FloatArray, w: FloatArray, wd: FloatArray, F: FloatArray, t: float) -> float:
        """Power of the non-conservative loads plus that of the base on the system (constraint forces at the
        root joints times the base point velocities)."""
        sysm = self.system
        P = 0.0
        if not self.simple:
            q, v = sysm.state_from_orientations(A, w, t)
            P += sysm.nonconservative_power(q, v, t)
        if self.base.moving:
            X = self.joint_forces(A, w, wd, F, t)
            Pd = self.base.point(self.tree.c_out[self.roots], t)[1]
            P += float(np.sum(X[self.roots] * Pd))
        return P

    def joint_forces(self, A: FloatArray, w: FloatArray, wd: FloatArray, F: FloatArray, t: float) -> FloatArray:
        """X = T (m r'' - F), eq. (12): force joint k applies to its outboard body k (world), (n, 3)."""
        _, _, rdd = self.kin.state(A, w, t, wd)
        return self.T @ (self.mass[:, None] * rdd - F)

    def accelerations(self, q: FloatArray, v: FloatArray, t: float) -> Accelerations:
        sysm = self.system
        _, p = sysm.split(q)
        _, pd = sysm.split(v)
        A = quat_to_matrix(p)
        w, _ = sysm.omegas(q, v)
        wd, F = self.omega_dot(A, w, t)
        _, _, rdd = self.kin.state(A, w, t, wd)
        X = self.T @ (self.mass[:, None] * rdd - F)
        pdd = 0.5 * (np.einsum("kji,kj->ki", quat_E(pd), w) + np.einsum("kji,kj->ki", quat_E(p), wd))
        qdd = np.concatenate([rdd, pdd], 1).ravel()
        lam = np.zeros(sysm.m)
        lam[sysm.row_of_child.ravel()] = -X.ravel()
        # multipliers of the unit-quaternion rows: p-block of C^T lam = M q'' - h
        C = sysm.constraint_matrix(q, t)
        res = sysm.mass_matrix(q, t) @ qdd - sysm.forces(q, v, t) - C.T @ lam
        resp = res.reshape(self.n, 7)[:, 3:]
        lam[3 * self.n:] = np.sum(p * resp, 1) / np.sum(p * p, 1)
        return Accelerations(qdd, lam, True, info={"omega_dot": wd, "joint_forces": X})



def integrate(form: WittenburgFormulation, q0: FloatArray, v0: FloatArray, t_end: float, dt: float, *,
              rtol: float = 1e-10, atol: float = 1e-12, method: str = "DOP853", work: bool = False,
              ) -> dict[str, Any]:
    """Integrate with scipy's solve_ivp from output to output (restarting, i.e. re-packing, at each output
    time and at a terminal event when an angle set comes within ``threshold/3`` of its singularity).

    Returns times t (k,), q (k, n), v (k, n), the work of the non-conservative and base forces W (k,) if
    ``work``, the number of right-hand-side evaluations and the switches. Used by the tests and the benchmark
    (the application's driver is ``mechstudio.core.simulate``, which calls pack/restart/unpack the same way)."""
    n_out = int(round(t_end / dt))
    ts = np.linspace(0.0, n_out * dt, n_out + 1)
    q, v = np.asarray(q0, float), np.asarray(v0, float)
    y = form.pack(q, v, 0.0)
    W = 0.0
    Q, V, Ws = [q], [v], [W]

    def fun(t: float, yy: FloatArray) -> FloatArray:
        yd, pw = form.rhs_and_power(t, yy[:-1])
        return np.append(yd, pw)

    def near(t: float, yy: FloatArray) -> float:
        return form.singularity_measure(yy[:-1]) - form.threshold / 3

    near.terminal = True  # type: ignore[attr-defined]
    near.direction = -1  # type: ignore[attr-defined]
    events = near if form.param.singular else None
    t = 0.0
    for k in range(1, n_out + 1):
        t1 = float(ts[k])
        while True:
            sol = solve_ivp(fun, (t, t1), np.append(y, W), method=method, rtol=rtol, atol=atol, events=events)
            if sol.status < 0:
                raise SolverFailure(f"integration failed near t = {sol.t[-1]:.6g} s: {sol.message}")
            yy = sol.y[:, -1]
            W = float(yy[-1])
            q, v = form.unpack(yy[:-1], float(sol.t[-1]))
            t = float(sol.t[-1])
            y = form.restart(q, v, t)
            if sol.status == 0:
                break
        Q.append(q)
        V.append(v)
        Ws.append(W)
    out = {"t": ts, "q": np.array(Q), "v": np.array(V), "nfev": form.rhs_evaluations,
           "switches": list(form.switches)}
    if work:
        out["work"] = np.array(Ws)
    return out
