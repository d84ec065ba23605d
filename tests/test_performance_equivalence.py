"""The fast paths give the same numbers as the reference implementations (speed work of issues 3 and 4).

* planar systems: the fused, cached C / Phi / gamma / eta / h / reactions against the element-by-element
  ``*_reference`` methods (the original code), on random states;
* spatial bodies and rolling disks: the scalar-math methods against the vectorised ``*_reference`` ones;
* the projection formulation: the structured solve (block elimination with dependent coordinates, numpy path)
  and the compiled kernels (numba path) against a dense transcription of the errata equations written here
  (A = [C_r; V2^T] factored densely, N = A^-1 [0; I], ...), with a kept, stale basis;
* the drift correction: eq. (4.10) with a diagonal M against the KKT solve;
* the driver: continuous stepping (correction after each step) against interval-by-interval restarts.

Tolerances: 1e-12 relative for the same formulas evaluated differently (round-off only).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla

from mechstudio.core.bench.speed import planar_chain_data
from mechstudio.core.dynamics import get_formulation
from mechstudio.core.dynamics.correction import _kkt_step, correct
from mechstudio.core.model import load_model
from mechstudio.core.model.io import model_from_data
from mechstudio.core.simulate import SimulationSettings, initial_state, run
from mechstudio.core.systems.compile import compile_model

ROOT = Path(__file__).resolve().parents[1]
PLANAR = ["pendulum", "double_pendulum", "four_bar", "slider_crank_driven", "parallelogram", "ice_skate_incline",
          "slider_pendulum", "chaplygin_sleigh"]
DISKS = ["rolling_disk", "rolling_disk_accelerating_plane"]
RTOL = 1e-12


def close(a, b, rtol=RTOL):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape
    if b.size:
        scale = max(float(np.abs(b).max()), 1.0)
        assert float(np.abs(a - b).max()) <= rtol * scale, (float(np.abs(a - b).max()), scale)


def system_of(name):
    if name.startswith("chain") and name[5:].isdigit():
        return compile_model(model_from_data(planar_chain_data(int(name[5:]))))
    path = ROOT / "sample_models" / f"{name}.json"
    if not path.exists():
        pytest.skip(f"{path.name} not present")
    return compile_model(load_model(path))


@pytest.mark.parametrize("name", PLANAR + ["chain7"])
def test_planar_fast_paths_equal_reference(name):
    s = system_of(name)
    rng = np.random.default_rng(11)
    for _ in range(6):
        q, v, t, lam = rng.standard_normal(s.n), rng.standard_normal(s.n), float(rng.random()), rng.standard_normal(s.m)
        for _ in range(2):  # the second round hits the per-q caches
            close(s.constraint_matrix(q, t), s.constraint_matrix_reference(q, t))
            close(s.phi(q, t), s.phi_reference(q, t))
            close(s.phi_q(q, t), s.phi_q_reference(q, t))
            close(s.gamma(q, v, t), s.gamma_reference(q, v, t))
            close(s.xi(q, t), s.xi_reference(q, t))
            close(s.eta(q, v, t), s.eta_reference(q, v, t))
            close(s.forces(q, v, t), s.forces_reference(q, v, t))
            ra, rb = s.reactions(q, lam, t), s.reactions_reference(q, lam, t)
            assert list(ra) == list(rb)
            for k in rb:
                close(ra[k], rb[k])
        C = s.constraint_matrix(q, t)
        C[:] = 1e9  # callers get copies: the cache cannot be corrupted
        close(s.constraint_matrix(q, t), s.constraint_matrix_reference(q, t))


@pytest.mark.parametrize("name", DISKS)
def test_spatial_fast_paths_equal_reference(name):
    s = system_of(name)
    rng = np.random.default_rng(5)
    for _ in range(10):
        q, v, t = rng.standard_normal(s.n), rng.standard_normal(s.n), float(rng.random())
        for meth, args in (("mass_matrix", (q, t)), ("forces", (q, v, t)), ("phi", (q, t)), ("phi_q", (q, t)),
                           ("phi_t", (q, t)), ("gamma", (q, v, t)), ("constraint_matrix", (q, t)), ("xi", (q, t)),
                           ("eta", (q, v, t)), ("kinetic_energy", (q, v, t)), ("nonconservative_power", (q, v, t))):
            close(getattr(s, meth)(*args), getattr(s, meth + "_reference")(*args))


# --- projection: a dense transcription of the errata equations (the original implementation) -----------------
def dense_projection(system, V2, rows, q, p, v, t):
    """(q', q'', p') from A = [C_r; V2^T] factored densely (shared/sources/README.md, errata for section 3)."""
    C = system.constraint_matrix(q, t)
    A = np.vstack((C[rows], V2.T))
    lu = sla.lu_factor(A)
    r, k = len(rows), V2.shape[1]
    if v is None:
        v = sla.lu_solve(lu, np.concatenate((-system.xi(q, t)[rows], p)))
    eta = system.eta(q, v, t)
    rhs = np.zeros((system.n, k + 1))
    rhs[:r, 0] = -eta[rows]
    rhs[r:, 1:] = np.eye(k)
    sol = sla.lu_solve(lu, rhs)
    qdd0, N = sol[:, 0], sol[:, 1:]
    M = system.mass_matrix(q, t)
    h = system.forces(q, v, t)
    if k == 0:  # fully driven
        return v, qdd0, np.zeros(0), 1.0
    pd = np.linalg.solve(N.T @ M @ N, N.T @ (h - M @ qdd0))
    growth = float(np.sqrt(np.linalg.eigvalsh(N.T @ N)[-1]))
    return v, qdd0 + N @ pd, pd, growth


def random_consistent(system, rng, t=0.37, spread=0.05):
    init = initial_state(system, 0.0)
    assert init.status.ok, init.message
    q = init.q + spread * rng.standard_normal(system.n)
    v = rng.standard_normal(system.n)
    for _ in range(3):
        cr = correct(system, q, v, t)
        q, v = cr.q, cr.v
    return init.q, q, v


def kernel_variants():
    from mechstudio.core.jit import numba_module
    return ["numpy"] + (["numba"] if numba_module() is not None else [])


def needs_numba():
    from mechstudio.core.jit import numba_module
    if numba_module() is None:
        pytest.skip("numba is not available (or MECHSTUDIO_NO_NUMBA is set)")


@pytest.mark.parametrize("kernels", kernel_variants())
@pytest.mark.parametrize("name", ["pendulum", "four_bar", "slider_crank_driven", "parallelogram", "ice_skate_incline",
                                  "slider_pendulum", "chain7", "rolling_disk_accelerating_plane"])
def test_projection_fast_paths_equal_dense_errata_form(name, kernels):
    s = system_of(name)
    rng = np.random.default_rng(3)
    form = get_formulation("projection")(s, kernels=kernels)
    for _ in range(3):
        q0, q, v, = random_consistent(s, rng)
        t = 0.37
        form.refresh_basis(q0, 0.0)  # a kept basis from another state: the errata form matters
        V2, rows = form.V2, form.rows
        p = V2.T @ v
        y = np.concatenate((p, q))
        # velocities from the state, accelerations, p'
        qq, vv = form.unpack(y, t)
        vr, qddr, pdr, growth = dense_projection(s, V2, rows, q, p, None, t)
        close(vv, vr)
        ydot, _ = form.rhs_and_power(t, y)
        close(ydot, np.concatenate((pdr, vr)))
        acc = form.reactions(q, v, t)
        _, qddr2, _, _ = dense_projection(s, V2, rows, q, p, v, t)
        close(acc.qdd, qddr2)
        # C_r q'' + eta_r = 0 at every evaluation (the redundant rows follow on the constraint manifold)
        assert np.abs((s.constraint_matrix(q, t) @ acc.qdd + s.eta(q, v, t))[rows]).max() < 1e-11 * max(
            1.0, float(np.abs(acc.qdd).max()))
        # lambda = least-squares solution of C^T lambda = M q'' - h (min-norm with redundant rows)
        lam_ref = np.linalg.lstsq(s.constraint_matrix(q, t).T, s.mass_matrix(q, t) @ acc.qdd - s.forces(q, v, t),
                                  rcond=None)[0]
        close(acc.lam, lam_ref, rtol=1e-10)
        # ||N||_2 relative to its value at the choice of the basis; 1 for the coordinate basis with a constant C_u
        expected = 1.0 if form.fixed_coordinate_basis else growth / form.growth_reference
        assert form.null_space_growth(q, t) == pytest.approx(expected, rel=1e-10)


def test_numba_and_numpy_kernels_agree_on_a_long_chain():
    needs_numba()
    s = system_of("chain30")
    rng = np.random.default_rng(8)
    a, b = (get_formulation("projection")(s, kernels=k) for k in ("numpy", "numba"))
    q0, q, v = random_consistent(s, rng, spread=0.02)
    for f in (a, b):
        f.refresh_basis(q0, 0.0)
    y = a.pack(q, v, 0.37)
    close(b.rhs_and_power(0.37, y)[0], a.rhs_and_power(0.37, y)[0])
    close(b.reactions(q, v, 0.37).lam, a.reactions(q, v, 0.37).lam)


@pytest.mark.parametrize("name", ["four_bar", "chain7", "slider_crank_driven"])
def test_diagonal_mass_correction_equals_kkt(name):
    s = system_of(name)
    rng = np.random.default_rng(2)
    _, q, v = random_consistent(s, rng)
    C = s.constraint_matrix(q, 0.37)
    r = 1e-6 * rng.standard_normal(s.m)
    from mechstudio.core.dynamics.correction import _diag_step
    close(_diag_step(1.0 / s.mass_diagonal, C, r), _kkt_step(np.diag(s.mass_diagonal), C, r))


def test_correction_reports_no_change_when_consistent():
    s = system_of("four_bar")
    rng = np.random.default_rng(4)
    _, q, v = random_consistent(s, rng)
    cr = correct(s, q, v, 0.37)
    assert not cr.changed and cr.q is q and cr.iterations == 0
    cr = correct(s, q + 1e-9, v, 0.37)
    assert cr.changed and cr.position_after < 1e-12


@pytest.mark.parametrize("name", ["four_bar", "rolling_disk_accelerating_plane"])
def test_continuous_stepping_agrees_with_restarting_intervals(name):
    """Continuous DOP853 with the correction after each step vs the interval-by-interval restarts (rk45 is
    continuous too; radau always restarts): the same motion to the integration tolerance."""
    s = system_of(name)
    base = dict(t_end=1.0, dt=0.05, rtol=1e-10, atol=1e-12)
    cont = run(s, SimulationSettings(integrator="dop853", **base))
    assert cont.stats["mode"] == "continuous"
    ref = run(s, SimulationSettings(integrator="radau", **base))
    assert ref.stats["mode"] == "intervals"
    assert cont.status.ok and ref.status.ok
    np.testing.assert_allclose(cont.frames.q, ref.frames.q, atol=1e-6)
    assert cont.frames.violation_position.max() < 1e-12
    assert math.isclose(cont.frames.t[-1], 1.0)


@pytest.mark.parametrize("name", ["spherical_chain_3", "branched_tree", "chain_on_shaking_base", "bench10"])
def test_wittenburg_kernel_equals_numpy_path(name):
    needs_numba()
    from mechstudio.core.bench.tree_chains import chain_model_data
    from mechstudio.core.dynamics.wittenburg import WittenburgFormulation
    if name == "bench10":
        s = compile_model(model_from_data(chain_model_data(10)))
    else:
        s = system_of(name)
    a, b = WittenburgFormulation(s, kernels="numpy"), WittenburgFormulation(s, kernels="numba")
    assert a._nb is None and b._nb is not None
    q0, v0 = s.consistent_state(0.0)
    rng = np.random.default_rng(0)
    for _ in range(4):
        y = a.pack(q0, v0, 0.0) + 0.1 * rng.standard_normal(a.nk + 3 * a.n)
        ya, pa = a.rhs_and_power(0.3, y)
        yb, pb = b.rhs_and_power(0.3, y)
        close(yb, ya)
        assert pb == pytest.approx(pa, rel=1e-12, abs=1e-12)


# --- the fused compiled path of the projection formulation for rolling disks (core.dynamics.projection_spatial) --
def two_disks_and_a_ball_data():
    """Two disks of different radii with general (off-diagonal) inertia tensors on a plane that also moves
    vertically, plus a free body with no contact: exercises every index path of the spatial kernels."""
    def body(name, mass, J, init):
        return {"name": name, "mass": mass, "inertia": J, "com": [0.0, 0.0, 0.0], "points": {},
                "initial": init}
    J1 = [[0.07, 0.004, -0.002], [0.004, 0.06, 0.003], [-0.002, 0.003, 0.12]]
    J2 = [[0.02, 0.0, 0.001], [0.0, 0.025, 0.0], [0.001, 0.0, 0.04]]
    return {"format": "mechanism-studio-model", "version": 1, "name": "two_disks", "kind": "spatial",
            "gravity": [0.0, 0.0, -9.81],
            "ground": {"points": {}, "motion": {"velocity": [0.1, -0.05, 0.02], "acceleration": [0.3, -0.2, 0.1]}},
            "bodies": [body("ball", 0.7, [[0.01, 0, 0], [0, 0.01, 0], [0, 0, 0.01]],
                            {"x": 1.0, "y": 2.0, "z": 3.0, "psi": 0.2, "theta": 0.9, "phi": 0.1}),
                       body("disk1", 1.2, J1, {"x": 0.0, "y": 0.0, "z": 0.4, "psi": 0.1, "theta": 1.1, "phi": 0.3,
                                               "hold": ["x", "y", "psi", "theta", "phi"]}),
                       body("disk2", 0.5, J2, {"x": 2.0, "y": 1.0, "z": 0.2, "psi": -0.4, "theta": 1.4, "phi": 0.0,
                                               "hold": ["x", "y", "psi", "theta", "phi"]})],
            "joints": [{"name": "c1", "type": "rolling_disk", "body": "disk1", "radius": 0.45},
                       {"name": "c2", "type": "rolling_disk", "body": "disk2", "radius": 0.25}],
            "drivers": [], "forces": [],
            "initial_velocities": [{"body": "disk1", "coordinate": "psi", "value": 0.8},
                                   {"body": "disk1", "coordinate": "phi", "value": -5.0},
                                   {"body": "disk2", "coordinate": "theta", "value": 0.3},
                                   {"body": "disk2", "coordinate": "phi", "value": 7.0},
                                   {"body": "ball", "coordinate": "z", "value": 1.0}]}


def shaking_plane_data():
    """The still-plane disk sample on a plane that shakes (harmonic x, expression z position functions)."""
    import json
    data = json.loads((ROOT / "sample_models" / "rolling_disk.json").read_text())
    data["ground"]["motion"] = {"position": [{"type": "harmonic", "amplitude": 0.05, "frequency": 3.0}, 0.0,
                                             {"type": "expression", "expression": "0.02*sin(5*t)"}]}
    return data


def disk_system_of(name):
    if name == "two_disks":
        return compile_model(model_from_data(two_disks_and_a_ball_data()))
    if name == "shaking_plane":
        return compile_model(model_from_data(shaking_plane_data()))
    return system_of(name)


@pytest.mark.parametrize("name", DISKS + ["two_disks"])
def test_spatial_kernels_and_reactions_equal_reference(name):
    s = disk_system_of(name)
    rng = np.random.default_rng(7)
    for _ in range(6):
        q, v, t, lam = (rng.standard_normal(s.n), rng.standard_normal(s.n), float(rng.random()),
                        rng.standard_normal(s.m))
        for meth, args in (("mass_matrix", (q, t)), ("forces", (q, v, t)), ("phi", (q, t)), ("gamma", (q, v, t)),
                           ("constraint_matrix", (q, t)), ("eta", (q, v, t)), ("kinetic_energy", (q, v, t))):
            close(getattr(s, meth)(*args), getattr(s, meth + "_reference")(*args))
        ra, rb = s.reactions(q, lam, t), s.reactions_reference(q, lam, t)
        assert list(ra) == list(rb)
        for k in rb:
            close(ra[k], rb[k])


def generic_output(form, s, y, t):
    """The driver's generic output pipeline: unpack, correct, q'', lambda, reactions, energies."""
    q, v = form.unpack(y, t)
    cr = correct(s, q, v, t)
    acc = form.reactions(cr.q, cr.v, t)
    reac = s.reactions(cr.q, acc.lam, t)
    R = np.array([reac[c.name] for c in s.constraints])
    return cr, acc, R


# --- the fused compiled path for planar systems (core.dynamics.projection_planar, core.systems.planar_kernels) -----------
def every_planar_element_data():
    """One planar model with every element kind of core.systems.planar_kernels: revolute joints (one with a rotational
    spring-damper), a prismatic joint with a distance driver, a weld, a joint-angle driver, a coordinate driver, a
    knife edge, spring-dampers, time-dependent applied forces and torques, and a point mass (zero rotational
    inertia: the correction's KKT fallback); the ground as body 1 and as body 2 of joints and of a spring."""
    def bar(name, mass, inertia, x, y, phi, length=0.6):
        return {"name": name, "mass": mass, "inertia": inertia, "com": [length / 2, 0.0],
                "points": {"a": [0.0, 0.0], "b": [length, 0.0]}, "initial": {"x": x, "y": y, "phi": phi}}
    harmonic = {"type": "harmonic", "amplitude": 0.2, "frequency": 3.0, "offset": 0.1}
    return {"format": "mechanism-studio-model", "version": 1, "name": "every_planar_element", "kind": "planar",
            "gravity": [0.3, -9.81], "ground": {"points": {"O": [0.0, 0.0], "rail": [0.0, -1.0], "E": [2.0, 0.0],
                                                            "G": [-2.0, 0.0], "T": [-2.0, -1.5]}},
            "bodies": [bar("A", 1.0, 0.03, 0.0, 0.0, -1.2), bar("B", 0.8, 0.024, 0.217, -0.559, -0.4),
                       bar("S", 0.5, 0.01, 0.3, -1.0, 0.0), bar("W", 0.4, 0.012, 0.77, -0.79, -0.1),
                       {"name": "P", "mass": 0.3, "inertia": 0.0, "com": [0.0, 0.0], "points": {"c": [0.0, 0.0]},
                        "initial": {"x": 0.77, "y": -0.79, "phi": 0.0}},
                       bar("K", 1.5, 0.1, -1.0, 1.0, 0.4), bar("D", 0.7, 0.02, 1.0, 0.6, 0.2),
                       bar("E", 0.6, 0.018, 2.0, 0.0, 0.1), bar("G", 0.9, 0.027, -2.0, 0.0, -0.8),
                       bar("T", 0.5, 0.015, -2.0, -1.5, 0.0)],
            "joints": [{"name": "hA", "type": "revolute", "body1": "ground", "point1": "O", "body2": "A", "point2": "a"},
                       {"name": "hAB", "type": "revolute", "body1": "A", "point1": "b", "body2": "B", "point2": "a"},
                       {"name": "slide", "type": "prismatic", "body1": "ground", "point1": "rail", "body2": "S",
                        "point2": "a", "axis": [1.0, 0.0], "angle": 0.0},
                       {"name": "weld", "type": "weld", "body1": "B", "point1": "b", "body2": "W", "point2": "a",
                        "angle": 0.3},
                       {"name": "hP", "type": "weld", "body1": "B", "point1": "b", "body2": "P", "point2": "c",
                        "angle": 0.0},
                       {"name": "blade", "type": "knife_edge", "body": "K", "point": "a", "axis": [1.0, 0.2]},
                       {"name": "hE", "type": "revolute", "body1": "ground", "point1": "E", "body2": "E",
                        "point2": "a"},
                       {"name": "hG", "type": "revolute", "body1": "G", "point1": "a", "body2": "ground",
                        "point2": "G"},
                       {"name": "slideT", "type": "prismatic", "body1": "T", "point1": "a", "body2": "ground",
                        "point2": "T", "axis": [0.6, 0.8], "angle": 0.0}],
            "drivers": [{"name": "push", "type": "joint_distance", "joint": "slide",
                         "function": {"type": "polynomial", "coefficients": [0.3, 0.2, -0.1]}},
                        {"name": "motor", "type": "joint_angle", "joint": "hE", "function": harmonic},
                        {"name": "lift", "type": "coordinate", "body": "D", "coordinate": "y",
                         "function": {"type": "expression", "expression": "0.6 + 0.1*sin(2*t)"}}],
            "forces": [{"name": "rs", "type": "rotational_spring_damper", "joint": "hAB", "stiffness": 3.0,
                        "damping": 0.2, "free_angle": 0.5},
                       {"name": "sp", "type": "spring_damper", "body1": "W", "point1": "b", "body2": "S",
                        "point2": "b", "stiffness": 40.0, "damping": 1.5, "free_length": 0.4},
                       {"name": "sp2", "type": "spring_damper", "body1": "K", "point1": "b", "body2": "D",
                        "point2": "a", "stiffness": 10.0, "damping": 0.5, "free_length": 1.0},
                       {"name": "sp3", "type": "spring_damper", "body1": "ground", "point1": "O", "body2": "G",
                        "point2": "b", "stiffness": 25.0, "damping": 0.8, "free_length": 1.2},
                       {"name": "push_K", "type": "applied_force", "body": "K", "point": "b",
                        "force": [{"type": "harmonic", "amplitude": 2.0, "frequency": 1.5}, 0.5]},
                       {"name": "twist_D", "type": "applied_torque", "body": "D",
                        "torque": {"type": "polynomial", "coefficients": [0.1, -0.3]}}],
            "initial_velocities": [{"body": "K", "coordinate": "x", "value": 1.0},
                                   {"body": "A", "coordinate": "phi", "value": 0.5}]}


PLANAR_FUSED = ["pendulum", "four_bar", "slider_crank_driven", "parallelogram", "ice_skate_incline",
                "slider_pendulum", "chaplygin_sleigh", "chain10", "every_element"]


def planar_system_of(name):
    if name == "every_element":
        return compile_model(model_from_data(every_planar_element_data()))
    return system_of(name)


def fused_system_of(name):
    return disk_system_of(name) if name in DISKS + ["two_disks", "shaking_plane"] else planar_system_of(name)


def test_every_planar_element_model_uses_every_kernel_branch():
    s = planar_system_of("every_element")
    geo, frc, _ = s.fused_data()
    counts = [len(geo[i]) for i in (3, 9, 15, 18, 20)] + [len(frc[i]) for i in (6, 11, 14, 16)]
    assert min(counts) >= 1, counts  # coincidences, point-lines, angles, coordinate drivers, knives; forces
    assert (s.mass_diagonal == 0).any() and s.rheonomic and s.m_nonholonomic == 1


@pytest.mark.parametrize("name", PLANAR_FUSED)
def test_planar_kernels_equal_reference(name):
    """mechstudio.core.systems.planar_kernels against the element-by-element reference methods, on random states and times."""
    needs_numba()
    from mechstudio.core.dynamics import projection_planar
    assert projection_planar.kernels() is not None
    from mechstudio.core.dynamics.projection_planar import _position_terms, _potential, _reactions, _velocity_terms
    s = planar_system_of(name)
    geo, frc, react = s.fused_data()
    rng = np.random.default_rng(13)
    for _ in range(5):
        q, v, t, lam = rng.standard_normal(s.n), rng.standard_normal(s.n), float(rng.random()), rng.standard_normal(s.m)
        fval, faccel, xi, loads, torques = s.time_arrays(t)
        C, phi = _position_terms(q, geo, fval)
        close(C, s.constraint_matrix_reference(q, t))
        close(phi, s.phi_reference(q, t))
        close(xi, s.xi_reference(q, t))
        h, eta, pnc = _velocity_terms(q, v, geo, frc, faccel, loads, torques)
        close(h, s.forces_reference(q, v, t))
        close(eta, s.eta_reference(q, v, t))
        assert pnc == pytest.approx(s.nonconservative_power(q, v, t), rel=1e-12, abs=1e-12)
        assert _potential(q, geo, frc) == pytest.approx(s.potential_energy(q, t), rel=1e-12, abs=1e-12)
        ref = s.reactions_reference(q, lam, t)
        close(_reactions(q, C, lam, react), np.array([ref[c.name] for c in s.constraints]))


@pytest.mark.parametrize("name", DISKS + ["two_disks", "shaking_plane"] + PLANAR_FUSED)
def test_fused_projection_path_equals_generic(name):
    """rhs and recorded output frames of the fused paths (rolling disks: projection_spatial; planar systems:
    projection_planar) against the generic path (numpy kernels), at consistent states with a stale kept basis
    and at states off the manifold (the correction has work to do)."""
    needs_numba()
    s = fused_system_of(name)
    fused, generic = (get_formulation("projection")(s, kernels=k) for k in ("numba", "numpy"))
    assert fused._fused is not None and generic._fused is None
    rng = np.random.default_rng(17)
    for trial in range(3):
        q0, q, v = random_consistent(s, rng)
        t = 0.37
        for f in (fused, generic):
            f.refresh_basis(q0, 0.0)
        y = fused.pack(q, v, t)
        yy = np.append(y, 0.25)
        close(fused.rhs_augmented(t, yy), generic.rhs_augmented(t, yy), rtol=1e-11)
        y_off = y + 1e-7 * rng.standard_normal(y.size)
        out = fused.fast_output(y_off, t, True)
        assert out is not None
        q_f, v_f, qdd_f, R_f, sc = out
        cr, acc, R = generic_output(generic, s, y_off, t)
        assert sc[6] == cr.iterations and (cr.iterations >= 1 or s.m_holonomic == 0)
        # redundant constraints (parallelogram): the correction's KKT matrix is singular, and two LU
        # factorizations of it (LAPACK's and the kernel's) differ by round-off times its condition number
        tol = 1e-12 if acc.lam_unique else 1e-10
        close(q_f, cr.q, rtol=tol)
        close(v_f, cr.v, rtol=100 * tol)
        if not acc.lam_unique:  # compare at the same (corrected) state: the correction's round-off aside
            acc = generic.reactions(q_f, v_f, t)
            reac = s.reactions(q_f, acc.lam, t)
            R = np.array([reac[c.name] for c in s.constraints])
        close(qdd_f, acc.qdd, rtol=1e-10)
        close(R_f, R, rtol=1e-10)
        assert sc[3] < 1e-12 and sc[5] < 1e-12 and bool(sc[7]) and bool(sc[9]) == acc.lam_unique
        assert sc[2] == pytest.approx(cr.position_before, rel=1e-6)
        assert sc[4] == pytest.approx(cr.velocity_before, rel=1e-6, abs=1e-12)
        assert sc[0] == pytest.approx(s.kinetic_energy(q_f, v_f, t), rel=1e-12)
        assert sc[1] == pytest.approx(s.potential_energy(q_f, t), rel=1e-12, abs=1e-12)
        assert sc[10] == pytest.approx(generic.null_space_growth(q_f, t), rel=1e-10)
        q_n, v_n, *_ = fused.fast_output(y_off, t, False)
        qg, vg = generic.unpack(y_off, t)
        close(q_n, qg)
        close(v_n, vg)


@pytest.mark.parametrize("name", ["rolling_disk_accelerating_plane", "two_disks", "shaking_plane", "four_bar",
                                  "slider_pendulum", "ice_skate_incline", "every_element"])
def test_fused_and_generic_runs_agree(name):
    """Whole 1 s runs on the fused and on the generic path agree to 1e-10 (1e-9 for the every-element model,
    whose stiff springs on light bodies amplify the two paths' round-off differences over the run: measured
    1.4e-10 relative in q''), and the energy balance (the plane's, drivers' and dampers' work included) holds to
    1e-9."""
    needs_numba()
    s = fused_system_of(name)
    base = dict(t_end=1.0, dt=0.01, rtol=1e-10, atol=1e-12)
    a = run(s, SimulationSettings(**base))
    b = run(s, SimulationSettings(options={"kernels": "numpy"}, **base))
    assert a.status.ok and b.status.ok, (a.message, b.message)
    for f in ("q", "v", "a", "reactions", "kinetic", "potential", "work"):
        close(getattr(a.frames, f), getattr(b.frames, f), rtol=1e-9 if name == "every_element" else 1e-10)
    assert a.frames.violation_position.max() < 1e-12
    balance = a.frames.kinetic + a.frames.potential - a.frames.work
    assert np.abs(balance - balance[0]).max() < 1e-9 * max(np.abs(a.frames.kinetic).max(), 1.0)


def test_numba_cache_key_covers_the_helpers_and_constants_kernels_freeze():
    """Compiled kernels contain their helpers' code and freeze imported constants: the cache digest must cover
    those files (core.jit), not only each kernel's own file as numba's timestamp check does."""
    from mechstudio.core.jit import kernel_sources
    names = {p.relative_to(ROOT).as_posix() for p in kernel_sources()}
    # the projection kernels and the dense helpers they call live in projection_kernels.py and dense_kernels.py
    for f in ("core/dynamics/projection_fused.py", "core/dynamics/projection_planar.py", "core/systems/planar_kernels.py",
              "core/dynamics/correction.py", "core/dynamics/projection_kernels.py", "core/numerics/dense_kernels.py"):
        assert f in names
