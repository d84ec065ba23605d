"""The coordinate basis and the sparse O(N) planar path of the projection formulation
(core.dynamics.projection_sparse, core.dynamics.packed_planar): the banded and sparse solves against dense
LAPACK, the sparse kernels against the dense fused path and the generic numpy path of the same basis, the
automatic choice of the basis, the fallbacks, the O(N) structure, and whole runs against an independent model.

Tolerances: single evaluations 1e-11 relative (the same equations by two elimination orders: round-off of a
condition number ~1e2-1e4); whole runs against the hand-written minimal-coordinate model integrated at rtol
1e-13: 2e-8 m at rtol 1e-8 over 1 s (the integrator's own error, ~1e-10 m measured, with margin)."""
from __future__ import annotations

import numpy as np
import pytest

from mechstudio.core.bench.iftomm_models import nfourbar_model
from mechstudio.core.bench.minimal_chain import MinimalChain, simulate
from mechstudio.core.bench.speed import planar_chain_data
from mechstudio.core.dynamics import packed_planar, projection_sparse
from mechstudio.core.dynamics.base import get_formulation
from mechstudio.core.jit import numba_module
from mechstudio.core.model.io import load_model, model_from_data
from mechstudio.core.simulate import SimulationSettings, initial_state, run
from mechstudio.core.systems.compile import compile_model
from tests.test_performance_equivalence import ROOT, close, every_planar_element_data, random_consistent

pytestmark = pytest.mark.skipif(numba_module() is None, reason="numba is not available")


def chain(n: int):
    return compile_model(model_from_data(planar_chain_data(n)))


def sample(name: str):
    return compile_model(load_model(ROOT / "sample_models" / f"{name}.json"))


# --- the linear algebra ----------------------------------------------------------------------------------------
def test_band_cholesky_and_solve_equal_dense() -> None:
    rng = np.random.default_rng(1)
    r, bw = 12, 3
    A = np.zeros((r, r))
    for i in range(r):
        for j in range(max(0, i - bw), i + 1):
            A[i, j] = A[j, i] = rng.normal()
    A += 8.0 * np.eye(r)  # diagonally dominant: SPD
    Wb = np.zeros((r, bw + 1))
    for i in range(r):
        for d in range(min(bw, i) + 1):
            Wb[i, d] = A[i, i - d]
    assert projection_sparse.band_cholesky(Wb) > 0.0
    b = rng.normal(size=r)
    x = b.copy()
    projection_sparse.band_solve(Wb, x)
    close(x, np.linalg.solve(A, b), rtol=1e-13)
    Wb[:, 0] = -1.0  # not positive definite
    assert projection_sparse.band_cholesky(Wb) == 0.0


def test_gram_solve_reports_redundant_rows() -> None:
    """Two equal rows make W = C M^-1 C^T singular: status instead of a number (the dense path takes over)."""
    C = np.array([[1.0, 0.0, 2.0], [1.0, 0.0, 2.0], [0.0, 1.0, 0.0]])
    Md = np.array([1.0, 2.0, 0.5])
    from scipy.sparse import csr_matrix
    P = csr_matrix(np.ones_like(C))
    Pc = P.tocsc()
    rows = (np.arange(3, dtype=np.int64), np.arange(3, dtype=np.int64), np.array([2], np.int64))
    ok, _ = projection_sparse.gram_solve(C, 1 / Md, 3, np.ones(3), rows, Pc.indptr.astype(np.int64),
                                         Pc.indices.astype(np.int64), 1e-12)
    assert not ok
    ok, x = projection_sparse.gram_solve(C[1:], 1 / Md, 2, np.ones(2), (np.arange(2), np.arange(2), np.array([1])),
                                         np.array([0, 1, 2, 3]), np.array([0, 1, 0], np.int64), 1e-12)
    assert ok
    close(x, np.linalg.solve(C[1:] @ np.diag(1 / Md) @ C[1:].T, np.ones(2)), rtol=1e-13)


def test_sparse_lu_solve_equals_dense() -> None:
    rng = np.random.default_rng(2)
    n = 10
    A = np.eye(n) * 0.1 + np.diag(rng.normal(size=n - 1), -1) + np.diag(rng.normal(size=n - 2), 2)
    plan = projection_sparse.build_plan(chain(2), initial_state(chain(2)).q, 0.0, A, np.arange(2), np.arange(2, 6))
    b = rng.normal(size=n)
    close(projection_sparse.lu_sparse_solve(plan[8], b), np.linalg.solve(A, b), rtol=1e-12)


# --- the basis and the path ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, kind", [("chain10", "coordinates"), ("pendulum", "coordinates"),
                                        ("double_pendulum", "coordinates"), ("four_bar", "svd"),
                                        ("parallelogram", "svd"), ("slider_crank_driven", "svd"),
                                        ("chaplygin_sleigh", "svd"), ("slider_pendulum", "svd")])
def test_automatic_basis(name: str, kind: str) -> None:
    """Loop-free planar models with a constant C_u get the coordinate basis; closed loops and a varying C_u (a
    knife edge; a slider, also a massless body) keep the SVD basis."""
    s = chain(10) if name == "chain10" else sample(name)
    form = get_formulation("projection")(s)
    init = initial_state(s)
    form.restart(init.q, init.v, 0.0)
    assert form.basis_kind == kind
    if kind == "coordinates" and name.startswith(("chain", "pendulum", "double")):
        assert form._sparse is not None and form._sparse.packed  # noqa: SLF001 - which path runs


@pytest.mark.parametrize("name", ["chain10", "chain30", "pendulum", "double_pendulum", "four_bar",
                                  "chaplygin_sleigh", "ice_skate_incline"])
def test_sparse_path_equals_dense_and_generic(name: str) -> None:
    """rhs and output frames of the sparse path = the dense fused path = the generic numpy path, with the same
    coordinate basis (forced for the four-bar, a closed loop), at consistent states and 1e-7 off the manifold.
    The chains and pendulums have a constant C_u (its LU factors); the others a varying one (C_u C_u^T)."""
    s = chain(int(name[5:])) if name.startswith("chain") else sample(name)
    fast = get_formulation("projection")(s, basis="coordinates")
    generic = get_formulation("projection")(s, basis="coordinates", kernels="numpy")
    rng = np.random.default_rng(5)
    t = 0.37
    for q0, q, v in [random_consistent(s, rng) for _ in range(3)]:
        fast.refresh_basis(q0, 0.0)  # a kept basis from another state
        generic.refresh_basis(q0, 0.0)
        assert fast._sparse is not None  # noqa: SLF001
        y = fast.pack(q, v, t)
        yy = np.concatenate((y, [0.25]))
        ref = generic.rhs_augmented(t, yy)
        close(fast.rhs_augmented(t, yy), ref, rtol=1e-11)
        y_off = y + 1e-7 * rng.standard_normal(y.size)
        out_sparse = fast.fast_output(y_off, t, True)
        sparse = fast._sparse  # noqa: SLF001
        fast._sparse = None  # noqa: SLF001 - the dense fused path of the same basis
        out_dense = fast.fast_output(y_off, t, True)
        close(fast.rhs_augmented(t, yy), ref, rtol=1e-11)
        fast._sparse = sparse  # noqa: SLF001
        for a, b in zip(out_sparse[:4], out_dense[:4]):
            close(a, b, rtol=1e-10)
        sa, sb = out_sparse[4], out_dense[4]
        assert sa[6] == sb[6] and sa[7] == sb[7] == 1.0 and sa[3] < 1e-12 and sa[5] < 1e-12
        close(sa[:3], sb[:3], rtol=1e-10)


def test_unknown_layout_falls_back_to_tuples(monkeypatch: pytest.MonkeyPatch) -> None:
    """When core.systems.planar_kernels' named tuples gain a field the packer does not know (a new element type), the
    sparse path calls its tuple kernels: the same numbers."""
    s = chain(6)
    init = initial_state(s)
    form = get_formulation("projection")(s)
    y = np.append(form.restart(init.q, init.v + 0.3, 0.0), 0.0)
    packed = form.rhs_augmented(0.1, y)
    monkeypatch.setattr(packed_planar, "GEOMETRY_FIELDS", packed_planar.GEOMETRY_FIELDS + ("gear_r",))
    assert not packed_planar.layout_matches()
    form2 = get_formulation("projection")(chain(6))  # another compiled system: no cached path
    form2.restart(init.q, init.v + 0.3, 0.0)
    assert form2._sparse is not None and not form2._sparse.packed  # noqa: SLF001
    close(form2.rhs_augmented(0.1, y), packed, rtol=1e-14)


def test_massless_body_keeps_the_dense_path() -> None:
    """A point mass with zero rotational inertia (M singular): no sparse path (W needs M^-1); the run finishes
    with the dense fused path and the KKT correction."""
    s = compile_model(model_from_data(every_planar_element_data()))
    assert not projection_sparse.applies(s)
    form = get_formulation("projection")(s, basis="coordinates")
    init = initial_state(s)
    form.restart(init.q, init.v, 0.0)
    assert form._sparse is None  # noqa: SLF001
    traj = run(s, SimulationSettings(t_end=0.2, dt=0.01, options={"basis": "coordinates"}), q0=init.q, v0=init.v)
    assert traj.status.value == "finished"


# --- O(N) structure and whole runs -------------------------------------------------------------------------------
def test_plan_is_linear_in_the_bodies() -> None:
    """The bandwidths of W and W_h do not grow with a chain's length, and the LU factors of C_u have O(N) entries:
    every sparse step is O(N) (docs/dynamics.md)."""
    sizes = {}
    for n in (10, 40):
        s = chain(n)
        form = get_formulation("projection")(s)
        init = initial_state(s)
        form.restart(init.q, init.v, 0.0)
        plan = form._sparse.plan  # noqa: SLF001
        lu = plan[8]
        sizes[n] = (int(plan[6][2][0]), int(plan[7][2][0]), lu[2].size + lu[5].size, plan[3].size)
    assert sizes[10][:2] == sizes[40][:2]
    for n, (_, _, lu_entries, pattern_entries) in sizes.items():  # entries per link bounded (not growing with n)
        assert lu_entries <= 2 * n and pattern_entries <= 12 * n


def test_chain_run_matches_the_minimal_model() -> None:
    """10-link chain, 1 s at rtol 1e-8: link end points against the minimal-coordinate model at rtol 1e-13, with
    the sparse path and with the SVD basis (same accuracy class)."""
    n, t_end = 10, 1.0
    mc = MinimalChain(n)
    ref, _ = simulate(mc, t_end, 1e-13, 1e-15)
    tips_ref = mc.tips(ref[:n])
    s = chain(n)
    init = initial_state(s)
    for basis in ("auto", "svd"):
        traj = run(s, SimulationSettings(t_end=t_end, dt=0.01, options={"basis": basis}), q0=init.q, v0=init.v)
        assert traj.status.value == "finished"
        q = traj.frames.q[-1].reshape(-1, 3)
        tips = q[:, :2] + 0.15 * np.stack((np.cos(q[:, 2]), np.sin(q[:, 2])), axis=1)
        assert np.abs(tips - tips_ref).max() < 2e-8
        e = traj.frames.kinetic + traj.frames.potential - traj.frames.work
        assert np.abs(e - e[0]).max() < 1e-7 * abs(traj.frames.potential).max()
    assert traj.stats["svd_count"] >= 1


def test_closed_loops_with_the_coordinate_basis() -> None:
    """The coordinate basis on closed loops: A02's chain of N = 4 parallelograms, 0.6 s (before the first
    horizontal configuration), against the SVD basis: B0 (the top of crank0) agrees to 1e-7 m (both at rtol
    1e-9), and the energy balance holds."""
    model = model_from_data(nfourbar_model(N=4, t_end=0.6))
    s = compile_model(model)
    init = initial_state(s)
    tops = {}
    for basis in ("coordinates", "svd"):
        settings = SimulationSettings.from_model(model, options={"basis": basis})
        form = get_formulation("projection")(s, basis=basis)
        form.restart(init.q, init.v, 0.0)
        assert (form._sparse is not None) == (basis == "coordinates")  # noqa: SLF001 - the sparse path runs loops
        traj = run(s, settings, q0=init.q, v0=init.v)
        assert traj.status.value == "finished", traj.message
        q = traj.frames.q[-1]
        tops[basis] = q[:2] + 0.5 * np.array([np.cos(q[2]), np.sin(q[2])])  # crank0: com + half its length
        e = traj.frames.kinetic + traj.frames.potential - traj.frames.work
        assert np.abs(e - e[0]).max() < 1e-6
    assert np.abs(tops["coordinates"] - tops["svd"]).max() < 1e-7


def test_sparse_plan_is_built_once_per_system() -> None:
    """Runs of one compiled system (a sweep, the benchmarks) share the structure-only data; a different system
    gets its own."""
    s, other = chain(5), chain(5)
    init = initial_state(s)
    forms = [get_formulation("projection")(x) for x in (s, s, other)]
    for f in forms:
        f.restart(init.q, init.v, 0.0)
    assert forms[0]._sparse is forms[1]._sparse  # noqa: SLF001
    assert forms[2]._sparse is not forms[0]._sparse  # noqa: SLF001


PACKED_SAMPLES = ("four_bar", "gear_train", "rack_and_pinion", "planar_rolling_disk_incline", "cam_follower",
                  "slotted_lever", "chaplygin_sleigh", "slider_crank_driven")


@pytest.mark.parametrize("name", PACKED_SAMPLES)
def test_packed_data_unpack_to_the_same_fields(name: str) -> None:
    """Every field of PlanarGeometry, PlanarForces and PlanarReactions (all element types' fields: these samples
    use every planar primitive between them) comes back from the two packed arrays through the compiled
    rebuilders with its shape, type and values (exact: views of the same numbers)."""
    assert packed_planar.layout_matches()
    rebuild = packed_planar.compiled()
    s = sample(name)
    geo, frc, react = s.fused_data()
    I, F = packed_planar.pack(geo, frc, react)
    for original, back in ((geo, rebuild["unpack_geometry"](I, F)), (frc, rebuild["unpack_forces"](I, F)),
                           (react, rebuild["unpack_reactions"](I, F))):
        assert len(back) == len(original)
        for a, b in zip(original, back):
            a, b = np.asarray(a), np.asarray(b)
            assert a.ndim == b.ndim and a.dtype.kind == b.dtype.kind, (name, a, b)
            if a.size or b.size:  # an empty field may come back (0, 3) for (0, 2): no rows either way
                assert a.shape == b.shape and np.array_equal(a, b), (name, a, b)
