"""Wittenburg's general right-hand side (core.dynamics.wittenburg_kernels ``k_rhs_tree_timed``, ``k_tree_derivative``):
every parametrization, a moving base, against the numpy path (``WittenburgFormulation(kernels="numpy")``), which
is the reference (it is checked against the maximal system's KKT solution in tests/test_tree_wittenburg.py).

The kernels are plain Python with numpy semantics: the tests of the equations run them uncompiled (no numba
needed); those marked ``numba`` check the compiled functions and whole runs on the compiled path.

Tolerances: one right-hand side solves with K_ij (condition ~1e3-1e5 on random states with |omega| ~ 2 rad/s),
in loops instead of BLAS: agreement ~1e-14 measured, asserted 1e-12 relative to the largest component. The
base-point tables equal ``BaseMotion.point`` to round-off of the same formulas (measured <= 2.3e-16 m), asserted
1e-13 (positions of order 0.1-1 m, accelerations of order 10 m/s^2). Whole runs: the compiled and the numpy
path step the same DOP853 (rtol 1e-10) with right-hand sides equal to ~1e-14: the trajectories agree to the
integrator's tolerance, asserted 1e-8 m and 1e-8 in the rotation matrices over 1 s.
"""
from __future__ import annotations

import json
import warnings
from typing import Any

import numpy as np
import pytest

from mechstudio.core import jit
from mechstudio.core.bench.tree_chains import SHAKING_BASE, chain_model_data
from mechstudio.core.dynamics import wittenburg_kernels as wk
from mechstudio.core.dynamics.wittenburg import ParametrizationSwitch, WittenburgFormulation
from mechstudio.core.model.io import model_from_data
from mechstudio.core.model.samples import sample_path
from mechstudio.core.numerics.orientation import quat_to_matrix
from mechstudio.core.simulate import SimulationSettings, initial_state, run
from mechstudio.core.systems.base_motion import BaseMotion
from mechstudio.core.systems.compile import compile_model

PARAMS = ("quaternion", "bryant", "euler313", "matrix")
#: a base with every kind of term the tables hold: an expression (cosine, cubic), a number, a polynomial, the
#: velocity and acceleration fields, and a constant angular velocity
ROTATING = {"position": [{"type": "expression", "expression": "0.1*cos(3*t + 0.2) - 0.02*t**3 + 0.05"}, 0.1,
                         {"type": "polynomial", "coefficients": [0.0, 0.1, 0.2]}],
            "velocity": [0.1, 0.0, 0.0], "acceleration": [0.0, 0.3, 0.0], "angular_velocity": [0.2, -0.3, 0.5]}

needs_numba = pytest.mark.skipif(not jit.numba_available() or jit.numba_module() is None,
                                 reason="numba unavailable or switched off")


def sample(name: str) -> dict[str, Any]:
    return json.loads(sample_path(name).read_text())


def model(name: str) -> dict[str, Any]:
    if name == "rotating_base":
        return chain_model_data(4, base=ROTATING)
    if name == "shaking_chain_10":
        return chain_model_data(10, base=SHAKING_BASE)
    return sample(name)


def initial_y(form: WittenburgFormulation) -> np.ndarray:
    """The packed initial state (packing may re-parametrise a body: done before the kernel data are taken)."""
    q, v = form.system.consistent_state(0.0)
    return form.pack(q, v, 0.0)


def random_y(form: WittenburgFormulation, y0: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A state near y0 (matrix elements only slightly off orthonormal: their two Newton steps must give a
    rotation), random angular velocities, W = 0."""
    spread = 0.02 if form.param.name == "matrix" else 0.3
    return np.concatenate([y0[:form.nk] + spread * rng.standard_normal(form.nk),
                           2.0 * rng.standard_normal(3 * form.n), [0.0]])


def random_references(form: WittenburgFormulation, rng: np.random.Generator) -> None:
    """Re-parametrised bodies: random rotations as reference matrices (the state y keeps its meaning)."""
    R = np.array([np.linalg.qr(rng.standard_normal((3, 3)))[0] for _ in range(form.n)])
    R[np.linalg.det(R) < 0] *= -1.0
    form.ref[:] = R
    form.has_ref = True
    form._timed_data = None  # as pack() does after a switch: the compiled data hold the reference matrices


@pytest.mark.parametrize("motion", [SHAKING_BASE, ROTATING,
                                    {"position": [{"type": "constant_speed", "initial": 0.1, "speed": 0.5},
                                                  {"type": "harmonic", "amplitude": 0.1, "frequency": 5.0,
                                                   "phase": 1.0, "offset": 0.2}, 0.0]}])
def test_base_tables_reproduce_the_base_motion(motion: dict[str, Any]) -> None:
    base = BaseMotion(motion)
    tables = base.kernel_tables()
    assert tables is not None
    powers, sines, w0 = tables
    c = np.array([[0.0, 0.0, 0.0], [0.1, -0.2, 0.3], [0.5, 0.0, -1.0]])
    root = np.ones(3, np.int64)
    for t in (0.0, 0.37, 1.5, 4.0):
        got = [np.zeros((3, 3)) for _ in range(3)]
        wk.k_base_points(t, root, c, powers, sines, w0, base.rotating, *got)
        for g, ref in zip(got, base.point(c, t)):
            np.testing.assert_allclose(g, ref, rtol=0, atol=1e-13 * max(1.0, np.abs(ref).max()))


@pytest.mark.parametrize("motion", [{"position": [{"type": "expression", "expression": "t*sin(t)"}, 0.0, 0.0]},
                                    {"position": [{"type": "expression", "expression": "sin(t)**2"}, 0.0, 0.0]},
                                    {"position": [{"type": "expression", "expression": "exp(-t)"}, 0.0, 0.0]},
                                    {"angular_velocity": [0.0, 0.0, {"type": "harmonic", "amplitude": 1.0,
                                                                     "frequency": 2.0}]}])
def test_other_base_motions_have_no_table(motion: dict[str, Any]) -> None:
    """Not a sum of powers and sines, or a time-varying omega0: the base is evaluated in Python."""
    assert BaseMotion(motion).kernel_tables() is None


@pytest.mark.parametrize("param", PARAMS)
@pytest.mark.parametrize("name", ["spherical_chain_3", "branched_tree", "chain_on_shaking_base", "rotating_base"])
def test_general_rhs_equals_the_numpy_path(name: str, param: str) -> None:
    """k_rhs_tree_timed (uncompiled) against ``rhs_augmented`` on the numpy path: [rates; omega'; P] at random
    states, with and without reference matrices (re-parametrised bodies)."""
    system = compile_model(model_from_data(model(name)))
    rng = np.random.default_rng(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParametrizationSwitch)
        form = WittenburgFormulation(system, parametrization=param, kernels="numpy")
        y0 = initial_y(form)
        for refs in (False, True):
            if refs:
                random_references(form, rng)
            I, F = form._pack_timed_data()
            for _ in range(4):
                y = random_y(form, y0, rng)
                t = float(rng.uniform(0.0, 3.0))
                status, out = wk.k_rhs_tree_timed(t, y, I, F)
                ref = form.rhs_augmented(t, y)
                assert status == 0
                np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12 * np.abs(ref).max())
                if system.base.moving:
                    assert abs(ref[-1]) > 1e-3  # the base's power is part of the comparison


def test_moving_base_power_is_part_of_the_rhs() -> None:
    """The base's power equals sum over the root joints of X . r0' with X = T (m r'' - F) from
    ``joint_forces`` (the numpy path's own, independent formula)."""
    system = compile_model(model_from_data(model("chain_on_shaking_base")))
    form = WittenburgFormulation(system, kernels="numpy")
    rng = np.random.default_rng(8)
    y = random_y(form, initial_y(form), rng)
    t = 0.83
    I, F = form._pack_timed_data()
    _, out = wk.k_rhs_tree_timed(t, y, I, F)
    a, w = form.split(y[:-1])
    A = form.matrices(a)
    wd, Fl = form.omega_dot(A, w, t)
    X = form.joint_forces(A, w, wd, Fl, t)
    Pd = system.base.point(form.tree.c_out[form.roots], t)[1]
    assert out[-1] == pytest.approx(float(np.sum(X[form.roots] * Pd)), rel=1e-12)


# --- the compiled path ------------------------------------------------------------------------------------------
@needs_numba
@pytest.mark.parametrize("name,param", [("chain_on_shaking_base", "quaternion"), ("spherical_chain_3", "bryant"),
                                        ("branched_tree", "euler313"), ("rotating_base", "matrix"),
                                        ("shaking_chain_10", "bryant")])
def test_compiled_rhs_equals_the_numpy_path(name: str, param: str) -> None:
    system = compile_model(model_from_data(model(name)))
    rng = np.random.default_rng(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParametrizationSwitch)
        fast = WittenburgFormulation(system, parametrization=param, kernels="numba")
        slow = WittenburgFormulation(system, parametrization=param, kernels="numpy")
        y0 = initial_y(slow)
        fast.ref[:], fast.has_ref = slow.ref, slow.has_ref
    compiled = fast.compiled_rhs()
    assert compiled is not None
    for refs in (False, True):
        if refs:
            random_references(fast, rng)
            slow.ref[:], slow.has_ref = fast.ref, True
        I, F = compiled.data()
        for _ in range(4):
            y = random_y(slow, y0, rng)
            t = float(rng.uniform(0.0, 3.0))
            ref = slow.rhs_augmented(t, y)
            status, out = compiled.kernel(t, y, I, F)
            assert status == 0
            np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12 * np.abs(ref).max())
            np.testing.assert_allclose(fast.rhs_augmented(t, y), ref, rtol=0, atol=1e-12 * np.abs(ref).max())


@needs_numba
def test_loads_and_a_varying_base_rotation_take_the_fused_python_path() -> None:
    """Applied loads, joint moments and a time-varying omega0: no compiled step, but the Python right-hand side's
    fused kernel call, equal to the numpy path (the loads' power added in Python)."""
    d = sample("spherical_chain_3")
    d["joints"][0].update(spring=2.0, damping=0.05)
    d["forces"] = [{"name": "push", "type": "applied_force", "body": "link2", "point": "out",
                    "force": [0.5, {"type": "harmonic", "amplitude": 1.0, "frequency": 2.0}, 0.0]}]
    d["ground"]["motion"] = {"position": [{"type": "harmonic", "amplitude": 0.02, "frequency": 9.0}, 0.0, 0.0],
                             "angular_velocity": [0.0, 0.0, {"type": "harmonic", "amplitude": 1.0,
                                                             "frequency": 2.0, "offset": 0.5}]}
    system = compile_model(model_from_data(d))
    fast = WittenburgFormulation(system, parametrization="bryant", kernels="numba")
    slow = WittenburgFormulation(system, parametrization="bryant", kernels="numpy")
    assert fast.compiled_rhs() is None and fast._k_derivative is not None
    rng = np.random.default_rng(6)
    y0 = initial_y(slow)
    fast.ref[:], fast.has_ref = slow.ref, slow.has_ref
    for _ in range(4):
        y = random_y(slow, y0, rng)
        t = float(rng.uniform(0.0, 2.0))
        ref = slow.rhs_augmented(t, y)
        np.testing.assert_allclose(fast.rhs_augmented(t, y), ref, rtol=0, atol=1e-12 * np.abs(ref).max())


def _run(data: dict[str, Any], param: str, kernels: str, t_end: float = 1.0):  # noqa: ANN202
    system = compile_model(model_from_data(data))
    init = initial_state(system)
    settings = SimulationSettings(t_end=t_end, dt=0.01, formulation="wittenburg", integrator="dop853", rtol=1e-10,
                                  atol=1e-12, correction=True, options={"kernels": kernels, "parametrization": param})
    traj = run(system, settings, q0=init.q, v0=init.v)
    assert traj.status.ok, traj.message
    return system, traj


@needs_numba
@pytest.mark.parametrize("name,param", [("shaking_chain_10", "quaternion"), ("shaking_chain_10", "bryant"),
                                        ("spherical_chain_10", "euler313"), ("rotating_base", "matrix")])
def test_compiled_runs_equal_numpy_runs(name: str, param: str) -> None:
    """Whole runs through the driver on the compiled DOP853 step and on the numpy path: the same trajectory to
    the integrator's tolerance, the same energy balance."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParametrizationSwitch)
        system, fast = _run(model(name), param, "numba")
        assert WittenburgFormulation(system, parametrization=param).compiled_rhs() is not None  # the compiled step
        _, slow = _run(model(name), param, "numpy")
    q1, q2 = np.asarray(fast.q), np.asarray(slow.q)
    r1, r2 = q1.reshape(len(q1), -1, 7)[:, :, :3], q2.reshape(len(q2), -1, 7)[:, :, :3]
    assert np.abs(r1 - r2).max() <= 1e-8
    A1, A2 = (quat_to_matrix(q.reshape(-1, 7)[:, 3:]) for q in (q1, q2))
    assert np.abs(A1 - A2).max() <= 1e-8
    cols1, cols2 = fast.columns(), slow.columns()
    assert np.abs(cols1["work.nonconservative"] - cols2["work.nonconservative"]).max() <= 1e-7


def test_the_driver_re_parametrises_an_angle_set_near_its_singularity() -> None:
    """A spherical pendulum driven through alpha2 = 90 deg with Bryant angles, through the simulation driver
    (continuous DOP853 stepping, which restarts only when asked): ``needs_restart`` asks for a restart when a
    body's |cos alpha2| falls below the threshold, the body is re-parametrised (a ParametrizationSwitch), and the
    motion equals the quaternion run's. Before, the driver stepped on towards the singularity with shrinking steps
    (2801 right-hand sides against 1748, no switch). Bound 1e-7 m: two runs at rtol 1e-10 (measured 7e-11)."""
    d = sample("spherical_pendulum")
    d["bodies"][0]["initial"] = {"quaternion": [1.0, 0.0, 0.0, 0.0], "omega": [0.3, 8.0, 0.5]}
    _, quat = _run(d, "quaternion", "numpy", t_end=2.0)
    with pytest.warns(ParametrizationSwitch, match="bryant angles near their singularity"):
        _, bryant = _run(d, "bryant", "numpy", t_end=2.0)
    q1, q2 = np.asarray(quat.q), np.asarray(bryant.q)
    assert np.abs(q1[:, :3] - q2[:, :3]).max() <= 1e-7
    assert np.max(np.abs(quat_to_matrix(q1[:, 3:7])[:, 0, 2])) > 0.999  # it does pass alpha2 = 90 deg
