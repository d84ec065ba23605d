"""Symbolic Appell equations ([002], §2.3), cached per model document and quasi-velocity choice.

Given the symbolic model (M, Q, C = [Phi_q; C_psi], xi) and a choice u = F q' + f0:

1. Solve [C; F] q' = [-xi; u - f0] symbolically (sparse Gauss-Jordan elimination preferring constant pivots;
   redundant constraint rows, found numerically at the initial configuration, are left out):
   q' = H(q, t) u + h0(q, t)  (eq. 2.3.4).
2. q'' = H u' + a0 with a0 = (d/dt of q'(q, u, t) along the motion, u' = 0) = H' u + h0'.
3. The acceleration energy G = 1/2 q''^T M q'' + q''^T k (for planar bodies 1/2 sum (m a_c^2 + J_c eps^2),
   eq. 2.3.23, k = 0; for spatial bodies k holds the eps . (omega x J omega) terms, see
   :mod:`mechstudio.core.symbolic.spatial`); only its u'-dependent part matters:
   G = 1/2 u'^T (H^T M H) u' + u'^T H^T (M a0 + k) (+ terms free of u').
4. Generalized forces of the quasi-velocities Q~ = H^T Q(q, q', t) (eq. 2.3.16) and Appell's equations
   dG/du'_v = Q~_v (eq. 2.3.19), i.e. (H^T M H) u' = H^T (Q - M a0 - k).

Speed: the products are summed over the nonzero entries of M and H (:func:`congruence`, :func:`sparse_times`,
:func:`transpose_times`), a0 is expanded for small systems only, and :meth:`AppellDerivation.compiled`
lambdifies the factors (q', H, dq'/dq, dq'/dt; M, Q, k) and forms the products in numpy.

The cache key is the SHA-256 of the model document (``json.dumps(data, sort_keys=True)``) and the choice key;
:func:`derivation_time` reports how long the (uncached) derivation took (CPU seconds).
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import sympy as sp

from mechstudio.core.kinematics.assembly import rank_analysis
from mechstudio.core.model.document import Model
from mechstudio.core.model.io import load_model
from mechstudio.core.model.timefunc import T
from mechstudio.core.symbolic.planar import SymbolicModel, planar_symbolic, velocity_derivative
from mechstudio.core.symbolic.quasi import QuasiVelocityChoice, initial_configuration, load_choice
from mechstudio.core.symbolic.spatial import spatial_symbolic
from mechstudio.core.symbolic.unsupported import SymbolicUnsupported  # re-exported: callers import it from here
from mechstudio.core.systems.compile import compile_model

_MODEL_CACHE: dict[str, SymbolicModel] = {}
_APPELL_CACHE: dict[tuple[str, str], "AppellDerivation"] = {}
SIMPLIFY_OPS = 120  # entries with more operations than this are not run through sp.simplify (time budget)


def model_hash(model: Model) -> str:
    return hashlib.sha256(json.dumps(model.data, sort_keys=True).encode()).hexdigest()


def symbolic_model(model: Model) -> SymbolicModel:
    """The symbolic model of ``model`` (cached by document hash)."""
    key = model_hash(model)
    if key not in _MODEL_CACHE:
        if model.kind == "spatial":
            _MODEL_CACHE[key] = spatial_symbolic(model)
        else:
            _MODEL_CACHE[key] = planar_symbolic(model)
    return _MODEL_CACHE[key]


def clear_cache() -> None:
    _MODEL_CACHE.clear()
    _APPELL_CACHE.clear()


def simplify_small(e: sp.Expr, limit: int = SIMPLIFY_OPS) -> sp.Expr:
    """sp.simplify for expressions small enough to simplify quickly, a cheap cancel/trigsimp otherwise."""
    if e == 0 or not e.free_symbols:
        return e
    ops = sp.count_ops(e)
    if ops <= limit:
        return sp.simplify(e)
    return e


def simplify_velocity(e: sp.Expr, n: int, limit: int = 150) -> sp.Expr:
    """Simplification of an entry of q'(q, u, t) (cancel, then trigsimp: removes the sin^2 + cos^2 that the
    elimination leaves in the denominators). trigsimp dominates the derivation time, so it is applied to small
    systems (n <= 6) only; bigger ones (closed loops) keep the raw elimination result."""
    if e == 0 or n > 6 or sp.count_ops(e) > limit:
        return e
    return sp.trigsimp(sp.cancel(sp.together(e)))


def solve_sparse(A: sp.Matrix, b: sp.Matrix, at: dict[sp.Symbol, float] | None = None) -> list[sp.Expr]:
    """Solution x of the square, nonsingular system A x = b by Gauss-Jordan elimination on sparse rows.

    Pivots must be numerically nonzero at the reference point ``at`` (a configuration where the system is
    regular; an entry like sin(phi) may vanish identically on the mechanism's motion, e.g. a parallelogram's
    coupler, although it is not zero symbolically). Among those, constant entries first (the +-1 of a coordinate
    or joint row), then the entry with the fewest operations, then the largest magnitude.
    """
    n = A.shape[1]
    rows = [{j: A[i, j] for j in range(n) if A[i, j] != 0} for i in range(A.shape[0])]
    rhs = [b[i] for i in range(A.shape[0])]
    pivots: list[tuple[int, int]] = []
    free_rows = set(range(len(rows)))
    values: dict[sp.Expr, float] = {}

    def value(a: sp.Expr) -> float:
        if a.is_number:
            return abs(float(a))
        if at is None:
            return 1.0
        if a not in values:
            try:
                values[a] = abs(float(a.subs(at)))
            except (TypeError, ValueError):
                values[a] = 0.0
        return values[a]

    for _ in range(n):
        best = None
        biggest = max((value(a) for i in free_rows for a in rows[i].values()), default=0.0)
        for i in free_rows:
            for j, a in rows[i].items():
                mag = value(a)
                if mag <= 1e-6 * biggest:
                    continue
                score = (0 if a.is_number else 1, 0 if a.is_number else sp.count_ops(a), len(rows[i]), -mag)
                if best is None or score < best[0]:
                    best = (score, i, j)
        if best is None:
            raise ZeroDivisionError("the quasi-velocities and constraints do not determine q'")
        _, p, c = best
        free_rows.discard(p)
        a = rows[p][c]
        rows[p] = {j: v / a for j, v in rows[p].items()}
        rhs[p] = rhs[p] / a
        for i in range(len(rows)):
            if i == p or c not in rows[i]:
                continue
            fac = rows[i].pop(c)
            for j, v in rows[p].items():
                if j == c:
                    continue
                nv = sp.together(sp.expand(rows[i].get(j, 0) - fac * v))
                if nv == 0:
                    rows[i].pop(j, None)
                else:
                    rows[i][j] = nv
            rhs[i] = sp.expand(rhs[i] - fac * rhs[p])
        pivots.append((p, c))
    x: list[sp.Expr] = [sp.Integer(0)] * n
    for p, c in pivots:
        x[c] = rhs[p]
    return x


def _nonzero(M: sp.Matrix) -> list[tuple[int, int, sp.Expr]]:
    return [(i, j, M[i, j]) for i in range(M.shape[0]) for j in range(M.shape[1]) if M[i, j] != 0]


def sparse_times(M: sp.Matrix, x: sp.Matrix) -> sp.Matrix:
    """M x over the nonzero entries of M (the planar M is diagonal, the spatial one block-diagonal); one
    Add per entry instead of sympy's generic matrix product (which is slow on long expressions)."""
    terms: list[list[sp.Expr]] = [[] for _ in range(M.shape[0])]
    for i, j, a in _nonzero(M):
        if x[j] != 0:
            terms[i].append(a * x[j])
    return sp.Matrix([sp.Add(*t) for t in terms]) if terms else sp.zeros(0, 1)


def transpose_times(H: sp.Matrix, x: sp.Matrix) -> sp.Matrix:
    """H^T x, skipping zero entries of H."""
    return sp.Matrix([sp.Add(*[H[i, v] * x[i] for i in range(H.shape[0]) if H[i, v] != 0 and x[i] != 0])
                      for v in range(H.shape[1])]) if H.shape[1] else sp.zeros(0, 1)


def congruence(H: sp.Matrix, M: sp.Matrix) -> sp.Matrix:
    """H^T M H (expanded), summed over the nonzero entries of M and H."""
    f = H.shape[1]
    nz = _nonzero(M)
    out = sp.zeros(f, f)
    for v in range(f):
        for w in range(v, f):
            e = sp.expand(sp.Add(*[H[i, v] * a * H[j, w] for i, j, a in nz if H[i, v] != 0 and H[j, w] != 0]))
            out[v, w] = out[w, v] = e
    return out


def eliminations(sm: SymbolicModel, protected: set[sp.Symbol]) -> dict[sp.Symbol, sp.Expr]:
    """Dependent coordinates solved from holonomic rows in which they appear linearly with a constant
    coefficient (y = 0 of a slider, x_bob = x_slider + l sin(phi_bob) of a hinge ...), preferring coordinates
    outside ``protected`` (those of the chosen speeds). Used for display only: the compiled equations keep all
    coordinates. Returns {coordinate: expression in the remaining coordinates and t}."""
    rows = [sp.expand(r) for r in sm.Phi]
    subs: dict[sp.Symbol, sp.Expr] = {}
    changed = True
    while changed:
        changed = False
        for i, row in enumerate(rows):
            if row == 0:
                continue
            cands = [s for s in sm.q if s in row.free_symbols and s not in subs]
            cands.sort(key=lambda s: s in protected)
            for s in cands:
                c = row.diff(s)
                if c.is_number and c != 0:
                    sol = sp.expand(-(row - c * s) / c)
                    subs = {k: sp.expand(v.subs(s, sol)) for k, v in subs.items()}
                    subs[s] = sol
                    rows = [sp.expand(r.subs(s, sol)) for r in rows]
                    rows[i] = sp.Integer(0)
                    changed = True
                    break
    return subs


@dataclass
class AppellDerivation:
    """The symbolic Appell equations of one model and quasi-velocity choice (see module docstring)."""
    sm: SymbolicModel
    choice: QuasiVelocityChoice
    u: list[sp.Symbol]
    ud: list[sp.Symbol]
    qd_expr: sp.Matrix  # q' = H u + h0
    H: sp.Matrix
    h0: sp.Matrix
    a0: sp.Matrix
    qdd_expr: sp.Matrix  # q'' = H u' + a0
    G: sp.Expr  # u'-dependent part of the acceleration energy
    Q: sp.Matrix  # generalized forces of the coordinates, on q' = H u + h0
    Q_tilde: sp.Matrix
    M_r: sp.Matrix  # H^T M H
    b_r: sp.Matrix  # H^T (Q - M a0)
    lhs: list[sp.Expr]  # dG/du'_v
    used_rows: list[int]
    seconds: float = 0.0
    _compiled: dict[str, Callable[..., Any]] = field(default_factory=dict, repr=False)

    def display(self, e: sp.Expr) -> sp.Expr:
        """``e`` on the constraint manifold (dependent coordinates substituted, see :func:`eliminations`),
        simplified when small."""
        if e == 0 or not e.free_symbols:
            return e
        subs = self.eliminated()
        e = e.subs(subs) if subs else e
        if self.sm.kind == "spatial":
            # the spatial derivation simplifies its pieces (k, H^T (M a0 + k), H^T M H) already; sp.simplify
            # of the trigonometric sums again costs ~1.5 s per entry for no shorter result
            return e
        return simplify_small(e)

    def eliminated(self) -> dict[sp.Symbol, sp.Expr]:
        if "elim" not in self._compiled:
            protected = set()
            for v in range(self.choice.f):
                protected |= {self.sm.q[j] for j in range(self.sm.n) if self.choice.F[v, j] != 0}
            self._compiled["elim"] = eliminations(self.sm, protected)  # type: ignore[assignment]
        return self._compiled["elim"]  # type: ignore[return-value]

    def equations(self) -> list[sp.Eq]:
        """Appell's equations dG/du'_v = Q~_v on the constraint manifold, each simplified when small."""
        return [sp.Eq(self.display(lhs), self.display(rhs), evaluate=False)
                for lhs, rhs in zip(self.lhs, self.Q_tilde)]

    def kinematic_equations(self) -> list[sp.Eq]:
        return [sp.Eq(s, self.display(e), evaluate=False) for s, e in zip(self.sm.qd, self.qd_expr)]

    def compiled(self) -> dict[str, Callable[..., Any]]:
        """Compiled right-hand side: (q, u, t) -> (M_r, b_r, q') and (q, u, u', t) -> q''.

        The derived pieces are lambdified with common-subexpression elimination, each in the variables it
        depends on: q' = H u + h0, H and the partial derivatives of q'(q, u, t) (q, u, t), and M, Q and the
        velocity terms k (q, q', t). The products are formed in numpy:
        a0 = (dq'/dq) q' + dq'/dt (= H' u + h0'), M_r = H^T M H, b_r = H^T (Q - M a0 - k), q'' = H u' + a0.
        Symbolically these are the derived M_r, b_r, qdd_expr; compiling the factors instead of the expanded
        products keeps the generated code (and the compilation time) small."""
        if "rhs" not in self._compiled:
            sm = self.sm
            q, u = sm.q, self.u
            f, n = len(u), sm.n
            kin = sp.lambdify((q, u, T), [self.qd_expr, self.H if f else sp.zeros(n, 1),
                                          self.qd_expr.jacobian(q), self.qd_expr.diff(T)],
                              modules="numpy", cse=True)
            k = sm.extra.get("inertial")
            dyn = sp.lambdify((q, sm.qd, T), [sm.M, sm.Q, k if k is not None else sp.zeros(n, 1)],
                              modules="numpy", cse=True)

            def parts(qv: Any, uv: Any, t: float) -> tuple[Any, Any, Any]:
                qd, H, Jq, Jt = kin(qv, uv, t)
                qd = np.asarray(qd, float).reshape(n)
                H = np.asarray(H, float).reshape(n, -1)[:, :f]
                a0 = np.asarray(Jq, float).reshape(n, n) @ qd + np.asarray(Jt, float).reshape(n)
                return qd, H, a0

            def rhs_terms(qv: Any, uv: Any, t: float) -> tuple[Any, Any, Any]:
                qd, H, a0 = parts(qv, uv, t)
                M, Q, kv = dyn(qv, qd, t)
                M = np.asarray(M, float).reshape(n, n)
                rest = np.asarray(Q, float).reshape(n) - M @ a0 - np.asarray(kv, float).reshape(n)
                return H.T @ M @ H, H.T @ rest, qd

            def qdd(qv: Any, uv: Any, udv: Any, t: float) -> Any:
                _, H, a0 = parts(qv, uv, t)
                return H @ np.asarray(udv, float).reshape(f) + a0
            self._compiled["rhs"] = rhs_terms
            self._compiled["qdd"] = qdd
        return self._compiled


def derive_appell(model: Model, key: str | None = None, system: Any = None) -> AppellDerivation:
    """The (cached) Appell derivation of ``model`` for quasi-velocity choice ``key`` (see load_choice)."""
    mh = model_hash(model)
    system = system if system is not None else compile_model(model)
    data = model.data
    resolved = key if key is not None else ("file" if data.get("quasi_velocities", {}).get("choice") else "auto")
    if (mh, resolved) in _APPELL_CACHE:
        return _APPELL_CACHE[(mh, resolved)]
    t0 = time.process_time()
    sm = symbolic_model(model)
    if list(sm.coord_names) != list(system.coord_names):
        raise SymbolicUnsupported("the symbolic model's coordinates differ from the compiled system's "
                                  f"({len(sm.coord_names)} vs {len(system.coord_names)})")
    q0 = initial_configuration(system)
    choice = load_choice(system, resolved, q0)
    C_num = system.constraint_matrix(q0, 0.0)
    redundant = set(rank_analysis(C_num).redundant_rows) if C_num.shape[0] else set()
    used = [r for r in range(C_num.shape[0]) if r not in redundant]
    C, xi = sm.C, sm.xi
    u, ud = list(choice.symbols), list(choice.rate_symbols)
    f = len(u)
    A = sp.Matrix.vstack(*([C[r, :] for r in used] + [choice.F])) if (used or f) else sp.zeros(0, sm.n)
    rhs = [-xi[r] for r in used] + [u[v] - choice.f0[v] for v in range(f)]
    at = {**dict(zip(sm.q, map(float, q0))), T: 0.0}
    qd_list = solve_sparse(A, sp.Matrix(rhs), at) if sm.n else []
    qd_expr = sp.Matrix([simplify_velocity(e, sm.n) for e in qd_list]) if qd_list else sp.zeros(0, 1)
    H = qd_expr.jacobian(u) if f else sp.zeros(sm.n, 0)
    h0 = qd_expr.subs({s: 0 for s in u})
    a0 = velocity_derivative(qd_expr, sm.q, [*qd_expr])  # H' u + h0'
    if sm.n <= 6:  # expanded for display; closed loops keep the (much shorter) unexpanded form
        a0 = a0.applyfunc(sp.expand)
    qdd_expr = H * sp.Matrix(ud) + a0 if f else a0
    subs_v = dict(zip(sm.qd, qd_expr))
    Q = sm.Q.subs(subs_v)
    M_r = congruence(H, sm.M).applyfunc(lambda e: simplify_small(e, 30))
    inertial = sm.extra.get("inertial")  # velocity terms k of dS/dq'' = M q'' + k (spatial bodies)
    if inertial is not None:
        Ma0 = transpose_times(H, sparse_times(sm.M, a0) + inertial.subs(subs_v)).applyfunc(
            lambda e: simplify_small(sp.expand(e), 400))
    else:
        Ma0 = transpose_times(H, sparse_times(sm.M, a0))
    Q_tilde = transpose_times(H, Q)
    b_r = Q_tilde - Ma0
    udm = sp.Matrix(ud)
    G = (udm.T * M_r * udm)[0, 0] / 2 + (udm.T * Ma0)[0, 0] if f else sp.Integer(0)
    lhs = list(M_r * udm + Ma0) if f else []
    der = AppellDerivation(sm, choice, u, ud, qd_expr, H, h0, a0, qdd_expr, G, Q, Q_tilde, M_r, b_r, lhs, used)
    der.seconds = time.process_time() - t0  # CPU seconds
    _APPELL_CACHE[(mh, resolved)] = der
    return der


def derivation_time(model: Model, key: str | None = None) -> tuple[float, float]:
    """Benchmark: (CPU seconds of a fresh derivation incl. compilation, CPU seconds of the cached call).

    CPU time (``time.process_time``), so that the figure does not depend on the machine's load."""
    clear_cache()
    t0 = time.process_time()
    der = derive_appell(model, key)
    der.compiled()
    t1 = time.process_time()
    derive_appell(model, key)
    t2 = time.process_time()
    return t1 - t0, t2 - t1


def benchmark(paths: list[str] | None = None) -> list[tuple[str, float, float]]:
    """Derivation benchmark of the samples the symbolic derivation covers (planar ones and the rolling disks):
    [(file, fresh CPU seconds, cached CPU seconds)] (target: < 5 s)."""
    if paths is None:
        root = Path(__file__).resolve().parents[2] / "sample_models"
        paths = [str(p) for p in sorted(root.glob("*.json"))]
    out = []
    for p in paths:
        model = load_model(p)
        if model.kind != "planar" and not any(j.type == "rolling_disk" for j in model.entities.joints):
            continue
        fresh, cached = derivation_time(model)
        out.append((Path(p).name, fresh, cached))
    return out
