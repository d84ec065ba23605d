"""Null-space projection by SVD ([001], sections 2-3), with the SVD kept between evaluations.

Equations ([001]; sign convention M q'' = h + C^T lambda, eq. 2.11):

* C = U [D 0] V^T (2.5), V = [V1 V2] (2.6); V2 spans the null space of C (2.8); p = V2^T q' (2.9).
* q'' = K h + (K M - I) E eta (3.5), K = V2 (V2^T M V2)^-1 V2^T (3.6), E = V1 D^-1 U^T (3.7).
* The integrated state is z = [p; q] (3.9).

The SVD is costly, so it is computed only at (re)starts and kept while A = [C; V2^T] stays well conditioned
([001], section 3). With a kept V2, eq. (3.5) is no longer exact (V2 is not the null space of the
*current* C); we use the form of the errata (docs/references.md), which is:

    A = [C_r; V2^T]  (n x n, invertible while the kept basis is valid)
    q' = A^-1 [-xi_r; p]                           (2.10)
    N  = A^-1 [0; I]   spans null(C(q, t)) exactly
    q''_0 = A^-1 [-eta_r; 0]
    (N^T M N) p' = N^T (h - M q''_0),   q'' = q''_0 + N p'

so C q'' + eta = 0 holds to round-off at every evaluation. C_r are the r rows of C found independent at the
last SVD (rank r by sigma > RANK_RTOL sigma_max; redundant rows are dropped, since they add nothing while the
rank stays r). N^T M N is invertible whenever the constraints make the motion determinate, even with a singular
M (a point mass modelled with zero rotational inertia), so M^-1 is never used.

How A^-1 is applied (speed, exact): A is never formed nor factored densely (an n x n LU costs ~130 us at
n = 90, twice per evaluation). At the SVD the coordinates are also split into r dependent ones u and k = n - r
independent ones w (pivoted QR of C_r, constant columns of C preferred), so that C_u = C_r[:, u] is square and
well conditioned. Block elimination of A = [C_u C_w; V2u^T V2w^T] gives, with

    B = [B_u; B_w] = [-C_u^-1 C_w; I]   (n x k, a basis of null(C): C_r B = 0)
    S = V2^T B                          (k x k; A invertible <=> S invertible, det A = +-det C_u det S)

the exact identities N = B S^-1 and A^-1 [c; d] = x_c + B S^-1 (d - V2^T x_c) with x_c = [C_u^-1 c; 0]. Hence

    q'  = x_xi + B S^-1 (p - V2^T x_xi),          x_xi  = [-C_u^-1 xi_r; 0]
    q'' = x_eta + B y,  (B^T M B) y = B^T (h - M x_eta),   x_eta = [-C_u^-1 eta_r; 0]
    p'  = V2^T q''

which is the errata's system multiplied by S^T on the left (N^T M N = S^-T B^T M B S^-1): the same q'' (the
unique solution of the constrained dynamics), the same p' (V2^T q''_0 = 0 and V2^T N = I give V2^T q'' = p'),
and C q'' + eta = 0 still holds to round-off. Costs: C_u is constant for most mechanisms (x, y columns of
revolute joints: its inverse is computed once per SVD; otherwise one r x r LU per evaluation), B costs one
r x r by r x k product, S and B^T M B (M diagonal for planar models) one k x n by n x k product each, and
the only factorisations are k x k (LU of S, Cholesky of B^T M B). For a 30-link planar chain that is ~5x
fewer flops than the dense form.

When is the kept basis still good? The integrator controls the error of p, and q' = A^-1 [-xi; p] amplifies
an error in p by ||N||_2 (exactly 1 right after an SVD, since then N = V2 is orthonormal). The basis is
refreshed at a restart when ||N||_2 > NULL_GROWTH_REFRESH = 2 (the driver asks ``needs_restart`` after every
accepted step, and restarts at every output with interval-by-interval integrators), so the integrator's
tolerance on p is never loosened by more than a factor 2 on q'. Within an interval, an evaluation raises
:class:`BasisDegenerate` when a pivot of the LU factors of S falls below 1/COND_FAIL (1e-8) of the largest,
and the driver restarts from the last accepted state with a fresh SVD. (When C_u itself is not constant and
becomes ill conditioned, the columns are chosen again at the current state: no SVD, V2 and p are unchanged.)
The basis (option ``basis``): "svd" is the SVD basis above. "coordinates" keeps the selection of the
independent coordinates as the basis, V2 = E_w (the columns of the identity at w; coordinate partitioning): then
p = q'_w, S = V2^T B = B_w = I and q' = x_xi + B p, so nothing dense of size k x k is left, and on planar models
with positive masses and a constant C_u every step is a sparse solve, O(N) in the bodies
(``mechstudio.core.dynamics.projection_sparse``: q'' and lambda from W = C M^-1 C^T by a banded Cholesky, q'_u by the
sparse LU of C_u, or for a varying C_u the banded Cholesky of C_u C_u^T). The coordinate basis is not refreshed
for growth (||N||_2 is reported as 1): with a constant C_u it never degenerates (B's entries are C_u^-1 times the
lever arms of C_w); with a varying C_u (only when asked for explicitly) it is refreshed when C_u degenerates (the
LU pivot test of C_u: BasisDegenerate). "auto" (the default) takes "coordinates" for planar models without closed
loops whose C has full row rank, whose masses are all positive and whose C_u is constant, and "svd" otherwise:
closed loops, sliders and knife edges, redundant constraints and singular configurations (A02) keep the SVD
basis and its figures.

The sparse route of the SVD-type basis (option ``loops``: "sparse", the default, or "dense";
``mechstudio.core.dynamics.projection_loops``): on planar models with positive masses the same kept-basis equations
run with a banded LU of C_u (rows in reverse Cuthill-McKee order, dependent coordinates by their first row), C on
its sparsity pattern (``mechstudio.core.dynamics.sparse_terms``) and the banded W of the correction, O(N) per
evaluation and per output frame for a few degrees of freedom; a refresh finds u, w and V2 (the thin QR of
B = [-C_u^-1 C_w; I], the SVD's null space) by a banded elimination instead of the SVD, and falls back to the SVD
(and the dense path for that basis) when C is not safely of full row rank (redundant constraints, a singular
configuration). ``svd_count`` counts every refresh, ``sparse_refreshes`` those without an SVD.

Reactions use lambda = E^T (M q'' - h) (corrected eq. 4.2): the least-squares solution of C^T lambda = M q'' - h,
which when C has full row rank is the exact solution C_u^T lambda = (M q'' - h)_u (the residual of the other
rows is round-off, since M q'' - h is orthogonal to null(C)); with redundant constraints the minimum-norm
least-squares lambda of the full C.

Compiled kernels: by default the three parts of an evaluation (the q-dependent geometry, q', and q''/p') run as
numba kernels implementing exactly the algorithm above (``mechstudio.core.dynamics.projection_kernels``); ``kernels="numpy"``
selects the numpy/LAPACK implementation, which is the fallback when numba is missing and is tested equal to the
kernels and to a dense transcription of the errata form (tests/test_performance_equivalence.py).

Per-state cache: the q-dependent part (C, C_u^-1 products, B, LU of S) of the last state is kept, keyed by
(t, q), so that unpack, the accelerations and reactions of a recorded output, the N growth check and the next
evaluation at the same q do not redo it.
"""
from __future__ import annotations

import logging
import weakref

import numpy as np
import scipy.linalg as sla

from mechstudio.core.dynamics import projection_loops, projection_planar, projection_sparse, projection_spatial
from mechstudio.core.dynamics.base import (Accelerations, FastOutput, Formulation, OutputScalar, RestartRequired,
                                SolverFailure, multipliers_from_accelerations, register_formulation)
from mechstudio.core.dynamics.projection_kernels import COND_FAIL, kernels
from mechstudio.core.integrate.dop853_kernels import CompiledRHS
from mechstudio.core.kinematics.assembly import RANK_RTOL
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.types import FloatArray

log = logging.getLogger(__name__)

#: index of ||N||_2 in a fused output frame's scalars, as a plain int (read once per output)
NULL_SPACE_GROWTH = int(OutputScalar.NULL_SPACE_GROWTH)

NULL_GROWTH_REFRESH = 2.0
BASIS_KINDS = ("auto", "svd", "coordinates")  # the ``basis`` option (module docstring)
LOOP_ROUTES = ("sparse", "dense")  # the ``loops`` option: the SVD-type basis on the sparse route or the dense one
CU_RCOND_MIN = 1e-8  # C_u is chosen again (at the current state) when its reciprocal condition falls below this


class BasisDegenerate(RestartRequired):
    """[C; V2^T] became (nearly) singular with the kept SVD: the driver restarts with a fresh one
    (:meth:`ProjectionFormulation.refresh_basis`)."""


class _Geometry:
    """The q-dependent part of an evaluation at one (q, t) (see module docstring)."""
    __slots__ = ("C", "Cr", "B", "Bu", "lu_S", "x_xi", "s_xi", "lu_cu")

    def __init__(self) -> None:
        self.lu_cu = None


@register_formulation("projection")
class ProjectionFormulation(Formulation):
    """SVD null-space projection with the reduced state z = [p; q] (see module docstring)."""

    def __init__(self, system: ConstrainedSystem, **options: object):
        super().__init__(system, **options)
        self.V2: FloatArray | None = None
        self.rows: FloatArray | None = None  # independent rows of C kept from the last SVD
        self.rank = 0
        self.basis_changes = 0
        self._cache: tuple | None = None  # ((t, q bytes), _Geometry)
        which = str(options.get("kernels", "numba"))
        if which not in ("numba", "numpy"):
            raise ValueError(f"kernels must be 'numba' or 'numpy', not {which!r}")
        self._nb = kernels() if which == "numba" else None
        self._fused = None  # the fused compiled path of the system's kind, when there is one
        if self._nb is not None:
            for path in (projection_planar, projection_spatial):
                if path.applies(system) and path.kernels() is not None:
                    self._fused = path.FusedPath(system)
        basis = str(options.get("basis", "auto"))
        if basis not in BASIS_KINDS:
            raise ValueError(f"basis must be one of {', '.join(BASIS_KINDS)}, not {basis!r}")
        self.basis_kind = basis  # "auto" is resolved at the first SVD (see choose_basis_kind)
        self._sparse = None  # the sparse O(N) fused path of the coordinate basis, when it applies
        # the sparse O(N) route of the SVD-type basis (closed loops, sliders: projection_loops), when it applies;
        # _loops_on while the current basis was set up for it
        self._loops = None
        route = str(options.get("loops", "sparse"))
        if route not in LOOP_ROUTES:
            raise ValueError(f"loops must be one of {', '.join(LOOP_ROUTES)}, not {route!r}")
        self._loops_possible = (route == "sparse" and isinstance(self._fused, projection_planar.FusedPath)
                                and projection_loops.applies(system))
        self._loops_on = False
        self._loops_declined = False
        self.sparse_refreshes = 0  # refreshes of the basis by sparse elimination instead of an SVD
        self._growth0 = 1.0  # ||N||_2 at the choice of the basis (1 for the SVD basis)
        self._cu_inv: FloatArray | None = None  # C_u^-1 when C_u is constant (set with the dependent coordinates)
        self._fused_basis: tuple | None = None
        self._growth: tuple | None = None  # ((t, q bytes), ||N||_2) from the fused output kernel
        self._empty2 = np.zeros((0, 0))
        self._empty1 = np.zeros(0)
        self._empty_piv = np.zeros(0, np.int32)

    kernel_paths = True

    def kernel_key(self) -> str | None:
        """``Formulation.kernel_key``: the system's fused family (planar, spatial rolling disks, or the generic
        kernels) and the basis (the coordinate basis takes the sparse O(N) kernels)."""
        kind = ("planar" if projection_planar.applies(self.system)
                else "spatial" if projection_spatial.applies(self.system) else "generic")
        return f"projection-{kind}-{self.basis_kind}"

    # --- basis ------------------------------------------------------------------------------------------
    def refresh_basis(self, q: FloatArray, t: float) -> None:
        """A new basis at (q, t): keep V2 and the independent rows, and choose the dependent coordinates. V2 from
        the SVD of C, or, on the sparse route of closed loops and sliders (``projection_loops``), from a sparse
        elimination of C when it has a safely full row rank (the same null space, O(N) instead of O(N^3)).
        ``svd_count`` counts both (the driver's test for a new basis); ``sparse_refreshes`` the latter."""
        n, m = self.system.n, self.system.m
        self.svd_count += 1
        self._cache = None
        self._loops_on = False
        sparse, C = None, None
        if self._loops_possible and m and self.basis_kind != "coordinates":
            if self._loops is None:
                self._loops = projection_loops.loop_path(self.system, q, t)
            sparse = self._loops.refresh(q, t)  # (u, w, V2), or None: rank deficient or ill-conditioned
            if sparse is None and not self._loops_declined:
                self._loops_declined = True  # said once per run
                log.info("projection: C is not safely of full row rank at t = %.6g s (redundant constraints or a "
                         "singular configuration): the SVD and the dense path run for this basis", t)
        if sparse is not None:
            self.V2, self.rows, self.rank = sparse[2], np.arange(m), m
        else:
            C = self.system.constraint_matrix(q, t)
            if m == 0:
                self.V2, self.rows, self.rank = np.eye(n), np.zeros(0, np.int64), 0
            else:
                U, sv, Vt = np.linalg.svd(C)
                rank = int(np.sum(sv > RANK_RTOL * max(sv[0], 1e-300)))
                self.V2 = Vt[rank:].T.copy()
                self.rank = rank
                if rank == m:
                    self.rows = np.arange(m)
                else:  # pick r independent rows (pivoted QR of C^T)
                    _, _, piv = sla.qr(C.T, mode="economic", pivoting=True)
                    self.rows = np.sort(piv[:rank])
        self._all_rows = len(self.rows) == m
        auto = self.basis_kind == "auto"
        if auto:
            self.basis_kind = choose_basis_kind(self.system, q, t, self.rank)
        V2_svd = self.V2
        self.V2T = np.ascontiguousarray(self.V2.T)
        if sparse is not None and self.basis_kind == "svd":
            self._use_loop_route(sparse)
            return
        if C is None:
            C = self.system.constraint_matrix(q, t)
        self._choose_columns(C[self.rows], q, t)
        if auto and self.basis_kind == "coordinates" and self._cu_inv is None:  # C_u varies: keep the SVD basis
            self.basis_kind, self.V2 = "svd", V2_svd
            self.V2T = np.ascontiguousarray(self.V2.T)
            if sparse is not None:
                self._use_loop_route(sparse)
                return
            self._choose_columns(C[self.rows], q, t)

    def _use_loop_route(self, sparse: tuple) -> None:
        """The basis of a sparse refresh (u, w, V2) for the sparse route, and the same basis and dependent
        coordinates for the dense paths (an evaluation the sparse route declines is redone there: C_u is then
        factored densely)."""
        u, w, V2 = sparse
        self.V2 = V2
        self.V2T = np.ascontiguousarray(V2.T)
        self._cu_const = False
        self._install_columns(np.ascontiguousarray(u, dtype=np.int64), len(u), None, None, 0.0)
        self._loops_on = True
        self.sparse_refreshes += 1

    def _choose_columns(self, Cr: FloatArray, q: FloatArray | None = None, t: float = 0.0) -> None:
        """Dependent coordinates u (C_u = C_r[:, u] square, well conditioned; constant columns of C preferred,
        then C_u^-1 is computed once) and independent ones w; with the coordinate basis also V2 = E_w (a new
        basis: only at a refresh, q and t given)."""
        if self.basis_kind == "coordinates" and q is None:  # new w = a new meaning of p: restart instead
            raise BasisDegenerate("the dependent coordinates of the coordinate basis became ill-conditioned")
        n, r = self.system.n, Cr.shape[0]
        k = n - r
        if r == 0:
            u = np.zeros(0, np.int64)
        else:
            mask = getattr(self.system, "jacobian_constant_mask", None)
            const = (np.asarray(mask)[self.rows].all(axis=0) if mask is not None else np.zeros(n, bool))
            u = None
            for weights in ((np.where(const, 10.0, 1.0),) if const.any() else ()) + (np.ones(n),):
                _, _, piv = sla.qr(Cr * weights, mode="economic", pivoting=True)
                cand = np.sort(piv[:r])
                if _rcond(Cr[:, cand]) > CU_RCOND_MIN:
                    u = cand
                    break
            if u is None:
                raise BasisDegenerate("no well-conditioned set of dependent coordinates for the kept basis")
            self._cu_const = bool(const[u].all())
        self._install_columns(np.ascontiguousarray(u, dtype=np.int64), r, Cr, q, t)

    def _install_columns(self, u: FloatArray, r: int, Cr: FloatArray | None, q: FloatArray | None,
                         t: float) -> None:
        """The dependent coordinates u and what depends on them (see :meth:`_choose_columns`); the r kept rows
        Cr of C are needed for the coordinate basis and a constant C_u only."""
        n = self.system.n
        k = n - r
        w = np.setdiff1d(np.arange(n), u).astype(np.int64)
        self.u, self.w = u, w
        self._sparse, self._growth0 = None, 1.0
        if self.basis_kind == "coordinates":  # V2 = E_w: p = q'_w, S = I (module docstring)
            self.V2 = np.zeros((n, k))
            self.V2[w, np.arange(k)] = 1.0
            self.V2T = np.ascontiguousarray(self.V2.T)
            Bu = -np.linalg.solve(Cr[:, u], Cr[:, w]) if r else np.zeros((0, k))
            self._growth0 = float(np.sqrt(np.linalg.eigvalsh(np.eye(k) + Bu.T @ Bu)[-1])) if k else 1.0
            if self._fused is not None and r and self._all_rows and projection_sparse.applies(self.system):
                self._sparse = _sparse_path(self.system, q, t, Cr[:, u] if self._cu_const else None, u, w)
        self._fused_basis = None
        self._growth = None
        self._V2u = np.ascontiguousarray(self.V2[u])  # (r, k)
        self._V2uT = np.ascontiguousarray(self._V2u.T)
        self._V2wT = np.ascontiguousarray(self.V2[w].T)  # (k, k)
        self._B0 = np.zeros((n, k))
        self._B0[w, np.arange(k)] = 1.0
        if r and self._cu_const:
            lu = _getrf(Cr[:, u])
            self._cu_inv = np.ascontiguousarray(_getrs(lu[:2], np.eye(r)))
            self._cu_invT = np.ascontiguousarray(self._cu_inv.T)
        else:
            self._cu_inv = self._cu_invT = None

    def _geometry(self, q: FloatArray, t: float, retry: bool = True) -> _Geometry:
        """C, B, LU(S), x_xi at (q, t), cached for the last state (see module docstring)."""
        key = (t, q.tobytes())
        cache = self._cache
        if cache is not None and cache[0] == key:
            return cache[1]
        if self.V2 is None:
            self.refresh_basis(q, t)
        sys_ = self.system
        g = _Geometry()
        shared = getattr(sys_, "constraint_matrix_shared", None)  # read-only, no copy (planar systems)
        C = shared(q, t) if shared is not None else sys_.constraint_matrix(q, t)
        Cr = C if self._all_rows else C[self.rows]
        g.C, g.Cr = C, Cr
        u, w = self.u, self.w
        r = len(u)
        if self._nb is not None:
            xir = sys_.xi(q, t) if r else np.zeros(0)
            if r and not self._all_rows:
                xir = xir[self.rows]
            cu_inv = self._cu_inv if self._cu_inv is not None else self._empty2
            status, B, S, S_piv, x_xi, s_xi, cu_lu, cu_piv = self._nb[0](
                np.ascontiguousarray(Cr), xir, u, w, self._V2uT, self._V2wT, cu_inv, self._cu_inv is not None)
            if status == 1:
                if not retry:
                    _raise_degenerate(t)
                self._choose_columns(Cr)
                return self._geometry(q, t, retry=False)
            if status == 2:
                _raise_degenerate(t)
            g.B, g.x_xi, g.s_xi = B, x_xi, s_xi
            g.lu_S = (S, S_piv) if len(w) else None
            g.lu_cu = (cu_lu, cu_piv) if self._cu_inv is None and r else None
            self._cache = (key, g)
            return g
        if r:
            xir = sys_.xi(q, t)
            if not self._all_rows:
                xir = xir[self.rows]
            rhs = np.empty((r, len(w) + 1))
            rhs[:, :-1] = Cr[:, w]
            rhs[:, -1] = xir
            if self._cu_inv is not None:
                sol = self._cu_inv @ rhs
                g.lu_cu = None
            else:
                lu, piv, info = _getrf(Cr[:, u])
                d = np.abs(np.diagonal(lu))
                if info != 0 or not d.min() > d.max() / COND_FAIL:
                    if not retry:
                        _raise_degenerate(t)
                    self._choose_columns(Cr)  # C_u degenerate (not the basis): other dependent coordinates
                    return self._geometry(q, t, retry=False)
                g.lu_cu = (lu, piv)
                sol = _getrs(g.lu_cu, rhs)
            Bu = -sol[:, :-1]
            xu = -sol[:, -1]
            B = self._B0.copy()
            B[u] = Bu
            S = self._V2uT @ Bu
            S += self._V2wT
            x_xi = np.zeros(sys_.n)
            x_xi[u] = xu
            g.s_xi = self._V2uT @ xu
        else:
            B, Bu, S = self._B0, np.zeros((0, len(w))), self._V2wT
            x_xi = np.zeros(sys_.n)
            g.s_xi = np.zeros(len(w))
            g.lu_cu = None
        g.B, g.Bu, g.x_xi = B, Bu, x_xi
        if len(w):
            lu, piv, info = _getrf(S)
            d = np.abs(np.diagonal(lu))
            if info != 0 or not d.min() > d.max() / COND_FAIL:  # cheap degeneracy test on the pivots
                _raise_degenerate(t)
            g.lu_S = (lu, piv)
        else:
            g.lu_S = None
        self._cache = (key, g)
        return g

    def _solve_cu(self, g: _Geometry, b: FloatArray, trans: int = 0) -> FloatArray:
        """C_u^-1 b (or C_u^-T b)."""
        if self._cu_inv is not None:
            return (self._cu_invT if trans else self._cu_inv) @ b
        x, _ = _lapack_getrs(g.lu_cu[0], g.lu_cu[1], b, trans=trans)
        return x

    def _factor(self, q: FloatArray, t: float) -> tuple[FloatArray, tuple[FloatArray, FloatArray], FloatArray]:
        """C(q, t), the LU factors of the dense A = [C_r; V2^T] (LAPACK getrf), and A (for diagnostics)."""
        C = self.system.constraint_matrix(q, t)
        A = np.vstack((C[self.rows], self.V2.T))
        lu, piv, info = _getrf(A)
        if info != 0 or not np.all(np.isfinite(lu)):
            raise BasisDegenerate(f"[C; V2^T] is singular at t = {t:.6g} s")
        return C, (lu, piv), A

    def basis_condition(self, q: FloatArray, t: float) -> float:
        if self.V2 is None:
            return np.inf
        try:
            _, lu, A = self._factor(q, t)
        except BasisDegenerate:
            return np.inf
        return _cond_estimate(lu, A)

    # --- state ------------------------------------------------------------------------------------------
    def pack(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        if self.V2 is None:
            self.refresh_basis(q, t)
        if self.basis_kind == "coordinates":  # V2 = E_w: p = q'_w, O(n) (V2^T v is a dense k x n product)
            return np.concatenate((v[self.w], q))
        return np.concatenate((self.V2T @ v, q))

    def null_space_growth(self, q: FloatArray, t: float) -> float:
        """||N||_2 with N = A^-1 [0; I] = B S^-1: how much a unit change of p changes q' (1 for a fresh SVD)."""
        if self.V2 is None:
            return np.inf
        if self.V2.shape[1] == 0 or self.fixed_coordinate_basis:  # the coordinate basis: module docstring
            return 1.0
        known = self._growth
        if known is not None and known[0] == (t, q.tobytes()):  # computed by the fused output kernel
            return known[1]
        if self._loops_on:
            status, *_, growth = self._loop_state(q, np.zeros_like(q), t)
            if status == 0:
                return float(growth)
        try:
            g = self._geometry(q, t)
        except BasisDegenerate:
            return np.inf
        NT, _ = _lapack_getrs(g.lu_S[0], g.lu_S[1], np.ascontiguousarray(g.B.T), trans=1)  # S^-T B^T
        return float(np.sqrt(np.linalg.eigvalsh(NT @ NT.T)[-1])) / self._growth0

    @property
    def fixed_coordinate_basis(self) -> bool:
        """True for the coordinate basis: it is not refreshed for growth (||N||_2 is reported as 1), only when C_u
        degenerates (module docstring)."""
        return self.basis_kind == "coordinates"

    @property
    def growth_reference(self) -> float:
        """||N||_2 at the choice of the basis (1 for the SVD basis): :meth:`null_space_growth` is relative to it."""
        return self._growth0

    def needs_restart(self, q: FloatArray, v: FloatArray, t: float) -> bool:
        """True when the kept basis should be refreshed (||N||_2 > NULL_GROWTH_REFRESH): the continuous driver
        asks after every step and then calls :meth:`restart`."""
        return self.V2 is None or self.null_space_growth(q, t) > NULL_GROWTH_REFRESH

    def restart(self, q: FloatArray, v: FloatArray, t: float) -> FloatArray:
        if self.V2 is None or self.null_space_growth(q, t) > NULL_GROWTH_REFRESH:
            if self.V2 is not None:
                self.basis_changes += 1
            self.refresh_basis(q, t)
        return self.pack(q, v, t)

    def _velocity(self, g: _Geometry, p: FloatArray) -> FloatArray:
        """q' = A^-1 [-xi_r; p] = x_xi + B S^-1 (p - V2^T x_xi)."""
        if g.lu_S is None:
            return g.x_xi.copy()
        if self._nb is not None:
            return self._nb[1](g.B, g.lu_S[0], g.lu_S[1], g.x_xi, g.s_xi, np.ascontiguousarray(p))
        z, _ = _lapack_getrs(g.lu_S[0], g.lu_S[1], p - g.s_xi)
        return g.x_xi + g.B @ z

    def unpack(self, y: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        k = self.V2.shape[1]
        p, q = y[:k], y[k:]
        return q, self._velocity(self._geometry(q, t), p)

    # --- dynamics -----------------------------------------------------------------------------------------
    def _solve(self, q: FloatArray, p: FloatArray | None, v: FloatArray | None, t: float
               ) -> tuple[FloatArray, FloatArray, FloatArray, Accelerations]:
        sys_ = self.system
        g = self._geometry(q, t)
        if v is None:
            v = self._velocity(g, p)
        eta = sys_.eta(q, v, t)
        if self._nb is not None:
            h = sys_.forces(q, v, t)
            diag = bool(sys_.diagonal_mass)
            M = self._empty2 if diag else np.ascontiguousarray(sys_.mass_matrix(q, t))
            Md = np.ascontiguousarray(sys_.mass_diagonal, dtype=float) if diag else self._empty1
            cu = g.lu_cu
            status, qdd, Mqdd, pd = self._nb[2](
                g.B, self.u, eta if self._all_rows else eta[self.rows],
                self._cu_inv if self._cu_inv is not None else self._empty2, self._cu_inv is not None,
                cu[0] if cu is not None else self._empty2, cu[1] if cu is not None else self._empty_piv,
                h, M, Md, diag, self.V2T)
            if status == 3:
                raise SolverFailure(f"the reduced mass matrix N^T M N is singular at t = {t:.6g} s: the masses "
                                    "do not determine the motion (a massless body that the constraints leave free?)")
            return v, pd, qdd, Accelerations(qdd, info={"h": h, "Mqdd": Mqdd})
        x_eta = np.zeros(sys_.n)
        if len(self.u):
            x_eta[self.u] = -self._solve_cu(g, eta if self._all_rows else eta[self.rows])
        h = sys_.forces(q, v, t)
        B = g.B
        if sys_.diagonal_mass:
            Md = sys_.mass_diagonal
            MB = Md[:, None] * B
            Mx = Md * x_eta
        else:
            M = sys_.mass_matrix(q, t)
            MB = M @ B
            Mx = M @ x_eta
        if B.shape[1] == 0:  # zero degrees of freedom (fully driven): q'' follows from the constraints alone
            return v, np.zeros(0), x_eta, Accelerations(x_eta, info={"h": h, "Mqdd": Mx})
        chol, info = _potrf(B.T @ MB, lower=0, clean=0, overwrite_a=1)
        if info != 0:
            raise SolverFailure(f"the reduced mass matrix N^T M N is singular at t = {t:.6g} s: the masses do "
                                "not determine the motion (a massless body that the constraints leave free?)")
        yy, _ = _potrs(chol, (h - Mx) @ B, lower=0)
        qdd = x_eta + B @ yy
        Mqdd = Mx + MB @ yy
        pd = self.V2T @ qdd
        return v, pd, qdd, Accelerations(qdd, info={"h": h, "Mqdd": Mqdd})

    def accelerations(self, q: FloatArray, v: FloatArray, t: float) -> Accelerations:
        if self._loops_on:
            status, qdd, Mqdd, h, lam, _ = self._loop_state(q, v, t)
            if status == 0:
                return Accelerations(qdd, lam, True, info={"h": h, "Mqdd": Mqdd})
        return self._solve(q, None, v, t)[3]

    def _loop_state(self, q: FloatArray, v: FloatArray, t: float) -> tuple:
        """(status, q'', M q'', h, lambda, ||N||_2) on the sparse route (``projection_loops``), with new dependent
        coordinates and a second try when C_u degenerated."""
        out = self._loops.state(q, v, t)
        if out[0] == projection_loops.STATUS_CU_DEGENERATE and self._loops.rechoose(q, t):
            out = self._loops.state(q, v, t)
        return out

    def reactions(self, q: FloatArray, v: FloatArray, t: float) -> Accelerations:
        """q'' with lambda = E^T (M q'' - h) (corrected eq. 4.2): C_u^T lambda = (M q'' - h)_u when C has full
        row rank, else the minimum-norm least-squares lambda (see module docstring)."""
        acc = self.accelerations(q, v, t)
        if acc.lam is not None:  # the sparse route: C_u^T lambda = (M q'' - h)_u
            return acc
        m = self.system.m
        if m and self._all_rows and len(self.u) == m:
            g = self._geometry(q, t)
            f = acc.info["Mqdd"] - acc.info["h"]
            acc.lam, acc.lam_unique = self._solve_cu(g, f[self.u], trans=1), True
        else:
            acc.lam, acc.lam_unique = multipliers_from_accelerations(self.system, q, v, t, acc.qdd)
        return acc

    # --- the fused compiled paths (core.dynamics.projection_planar, projection_spatial) -----------------------
    def fused_basis(self) -> tuple:
        """The kept basis as the fused kernels take it: (rows, u, w, V2u^T, V2w^T, C_u^-1, C_u constant, V2^T)."""
        if self._fused_basis is None:
            cu_const = self._cu_inv is not None
            self._fused_basis = (np.ascontiguousarray(self.rows, dtype=np.int64), self.u, self.w, self._V2uT,
                                 self._V2wT, self._cu_inv if cu_const else self._empty2, cu_const, self.V2T)
        return self._fused_basis

    def rhs_augmented(self, t: float, yy: FloatArray) -> FloatArray:
        if self._loops_on:
            status, out = self._loops.rhs(yy[:-1], t)
            if status == projection_loops.STATUS_CU_DEGENERATE and self._loops.rechoose(
                    yy[self.V2.shape[1]:-1], t):
                status, out = self._loops.rhs(yy[:-1], t)
            if status == 0:
                self.rhs_evaluations += 1
                return out
        if self._sparse is not None and self.V2 is not None:
            status, out = self._sparse.rhs(yy[:-1], t)
            if status == 0:
                self.rhs_evaluations += 1
                return out
        if self._fused is not None and self.V2 is not None:
            status, out = self._fused.rhs(yy[:-1], self.fused_basis(), t)
            if status == 0:
                self.rhs_evaluations += 1
                return out
        return super().rhs_augmented(t, yy)  # the generic path (raises the right failure, or re-chooses C_u)

    def compiled_rhs(self) -> CompiledRHS | None:
        """:meth:`rhs_augmented` compiled (``Formulation.compiled_rhs``) when the fused path of the system has a
        compiled right-hand side of (t, y, I, F) (``projection_spatial.FusedPath.compiled_rhs``, the rolling
        disks), or the sparse O(N) path or the sparse route of closed loops has one
        (``projection_sparse.SparsePath.compiled_rhs``, ``projection_loops.LoopPath.compiled_rhs``: planar models,
        their time functions compiled by ``mechstudio.core.systems.planar_time``); None otherwise."""
        if self._fused is None or self.V2 is None:
            return None

        def counted(n: int) -> None:
            self.rhs_evaluations += n
        path = self._loops if self._loops_on else self._sparse
        if path is not None:
            pair = path.compiled_rhs()
            if pair is None:
                return None
            outputs = path.compiled_outputs()
            if outputs is None:
                return CompiledRHS(pair[0], path.timed_data, counted, pair[1])
            kernels, width = outputs
            scalars = width - len(OutputScalar)
            flags = tuple(scalars + f for f in (OutputScalar.CONVERGED, OutputScalar.CHANGED, NULL_SPACE_GROWTH))
            # the loop route's basis is refreshed when it grew (needs_restart); the coordinate basis reports 1
            return CompiledRHS(pair[0], path.timed_data, counted, pair[1], kernels, width, flags,
                               NULL_GROWTH_REFRESH)
        make = getattr(self._fused, "compiled_rhs", None)
        kernel = make() if make is not None else None
        if kernel is None:
            return None
        return CompiledRHS(kernel, lambda: self._fused.timed_data(self.fused_basis()), counted)

    def fast_outputs(self, Y: FloatArray, times: FloatArray, correction: bool) -> list[FastOutput | None] | None:
        """``Formulation.fast_outputs`` from one compiled call: of the sparse O(N) path, of the sparse route of
        closed loops (``SparsePath.output_batch``, ``LoopPath.output_batch``), or of the
        fused path of the rolling disks (``projection_spatial.FusedPath.output_batch``); None for the others."""
        if self.V2 is None:
            return None
        if self._sparse is not None:
            return self._sparse.output_batch(np.ascontiguousarray(Y), np.ascontiguousarray(times, dtype=float),
                                             correction)
        if self._loops_on:
            return self._loops.output_batch(np.ascontiguousarray(Y), np.ascontiguousarray(times, dtype=float),
                                            correction)
        batch = getattr(self._fused, "output_batch", None)
        if batch is None:
            return None
        return batch(np.ascontiguousarray(Y), np.ascontiguousarray(times, dtype=float), correction,
                     self.fused_basis())

    def fast_output(self, y: FloatArray, t: float, correction: bool) -> FastOutput | None:
        if self._fused is None or self.V2 is None:
            return None
        if self._sparse is not None:
            status, q, v, qdd, R, scalars = self._sparse.output(y, bool(correction), t)
            if status == 0:  # the coordinate basis is not refreshed for growth
                self._growth = ((t, q.tobytes()), 1.0)
                return q, v, qdd, R, scalars
        if self._loops_on:
            want = bool(self.growth_wanted)
            out = self._loops.output(y, bool(correction), want, t)
            if out[0] == projection_loops.STATUS_CU_DEGENERATE and self._loops.rechoose(
                    y[self.V2.shape[1]:], t):
                out = self._loops.output(y, bool(correction), want, t)
            status, q, v, qdd, R, scalars = out
            if status == 0:  # ||N||_2 relative to the basis' own (1: an orthonormal V2)
                if want:
                    self._growth = ((t, q.tobytes()), float(scalars[NULL_SPACE_GROWTH]))
                return q, v, qdd, R, scalars
        if not self.growth_wanted and getattr(self._fused, "growth_optional", False):  # ||N||_2 not computed
            status, q, v, qdd, R, scalars = self._fused.output(y, bool(correction), self.fused_basis(), t, False)
            return (q, v, qdd, R, scalars) if status == 0 else None
        status, q, v, qdd, R, scalars = self._fused.output(y, bool(correction), self.fused_basis(), t)
        if status != 0:
            return None
        growth = 1.0 if self.fixed_coordinate_basis else float(scalars[NULL_SPACE_GROWTH]) / self._growth0
        scalars[NULL_SPACE_GROWTH] = growth  # relative to the basis' own, as null_space_growth
        self._growth = ((t, q.tobytes()), growth)
        return q, v, qdd, R, scalars

    def rhs_and_power(self, t: float, y: FloatArray) -> tuple[FloatArray, float]:
        self.rhs_evaluations += 1
        k = self.V2.shape[1]
        p, q = y[:k], y[k:]
        v, pd, _, acc = self._solve(q, p, None, t)
        return np.concatenate((pd, v)), self.power(q, v, t, acc)


def choose_basis_kind(system: ConstrainedSystem, q: FloatArray, t: float, rank: int) -> str:
    """The basis of ``basis="auto"``: "coordinates" for planar models without closed loops whose C has full row
    rank and whose masses are all positive (the sparse O(N) path); "svd" otherwise (loops, redundant or
    singular constraints: the SVD basis stays the one that passes A02's singular configurations)."""
    positive = bool(np.all(np.asarray(getattr(system, "mass_diagonal", 0.0)) > 0.0))
    if projection_planar.applies(system) and positive and rank == system.m:  # not numba-dependent
        known = _BY_SYSTEM.setdefault(system, {})
        if "loops" not in known:
            known["loops"] = projection_sparse.closed_loops(system, q, t)
        if known["loops"] == 0:
            return "coordinates"
    return "svd"


#: per compiled system (weakly held), what depends only on its structure: its number of closed loops and its
#: sparse paths by dependent coordinates (pattern, orderings, LU factors of a constant C_u, packed data), so that
#: repeated runs of one system (a sweep, the benchmarks) build them once
_BY_SYSTEM: "weakref.WeakKeyDictionary[ConstrainedSystem, dict]" = weakref.WeakKeyDictionary()


def share_structure(system: ConstrainedSystem, donor: ConstrainedSystem) -> bool:
    """Let ``system`` reuse what runs of ``donor`` built that depends only on the structure (its number of closed
    loops, the sparse loop route's pattern, orderings and column plans: ``projection_loops.share_structure``), not
    the sparse paths of the coordinate basis, whose packed data hold the numbers. For systems that differ only in
    numbers (the runs of a parameter sweep); the caller checks that. True when the loop route's structure was
    shared (False: ``donor`` has none, e.g. its runs stayed on the numpy path)."""
    known = _BY_SYSTEM.get(donor, {})
    if "loops" in known:
        _BY_SYSTEM.setdefault(system, {}).setdefault("loops", known["loops"])
    return projection_loops.share_structure(system, donor)


def _sparse_path(system: ConstrainedSystem, q: FloatArray, t: float, Cu: FloatArray | None, u: FloatArray,
                 w: FloatArray) -> "projection_sparse.SparsePath":
    """The sparse path of ``system`` for the dependent coordinates u (a constant C_u given, or None), cached."""
    known = _BY_SYSTEM.setdefault(system, {})
    key = (u.tobytes(), w.tobytes(), None if Cu is None else Cu.tobytes())
    path = known.get(key)
    if path is None:
        path = known[key] = projection_sparse.SparsePath(system, projection_sparse.build_plan(system, q, t, Cu, u, w))
    return path


_getrf_raw, _lapack_getrs, _potrf, _potrs = sla.get_lapack_funcs(("getrf", "getrs", "potrf", "potrs"),
                                                                (np.zeros(1),))


def _getrf(A: FloatArray) -> tuple[FloatArray, FloatArray, int]:
    return _getrf_raw(A)


def _getrs(lu: tuple[FloatArray, FloatArray], b: FloatArray) -> FloatArray:
    x, info = _lapack_getrs(lu[0], lu[1], b)
    return x


def _raise_degenerate(t: float) -> None:
    raise BasisDegenerate(f"[C; V2^T] ill-conditioned at t = {t:.6g} s")


def _rcond(A: FloatArray) -> float:
    """Reciprocal 1-norm condition estimate of a square A (0 when singular)."""
    if A.size == 0:
        return 1.0
    lu, piv, info = _getrf(A)
    if info != 0 or not np.all(np.isfinite(lu)):
        return 0.0
    return 1.0 / _cond_estimate((lu, piv), A)


def _cond_estimate(lu: tuple, A: FloatArray) -> float:
    """1-norm condition estimate of A from its LU factors (LAPACK gecon)."""
    gecon = sla.get_lapack_funcs("gecon", (lu[0],))
    anorm = np.abs(A).sum(axis=0).max()
    rcond, info = gecon(lu[0], anorm, norm="1")
    return np.inf if rcond == 0 else 1.0 / rcond
