"""The compiled DOP853 step (core.integrate.dop853_kernels) against scipy's own DOP853, which it reimplements.

Independent reference: scipy.integrate.DOP853 stepping the same ODE through its Python right-hand side. The
compiled step sums the stages in loops instead of BLAS dot products, so states agree to round-off, not bitwise;
the tolerance 1e-12 (relative to max |y|, over 300+ steps of a nonlinear ODE at rtol 1e-10) is a few hundred
ulps of accumulated round-off and ~1e-2 of the local error the step control allows, so a wrong coefficient, a
wrong error norm or a different step-size decision (which would change the step sequence) fails it.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.integrate import DOP853

from mechstudio.core.integrate import dop853_kernels
from mechstudio.core.integrate.dop853_kernels import CompiledRHS
from mechstudio.core.integrate.scipy_ivp import DOP853 as OurDOP853, CompiledDOP853Stepper
from mechstudio.core.jit import compile_helper, numba_module
from mechstudio.core.model.samples import sample_path

pytestmark = pytest.mark.skipif(numba_module() is None, reason="the compiled step needs numba")

MU = 3.0  # Van der Pol parameter: a limit cycle with fast and slow phases (the step size varies 10x)


def van_der_pol(t, y, I, F):  # noqa: ANN001, ANN201
    """(status, y') of the Van der Pol oscillator with a forcing F[0] sin(t) and the integral of x^2 appended;
    status 2 (decline) for t > F[1]."""
    out = np.empty(3)
    out[0] = y[1]
    out[1] = MU * (1.0 - y[0] * y[0]) * y[1] - y[0] + F[0] * math.sin(t)
    out[2] = y[0] * y[0]
    return (2 if t > F[1] else 0), out


def python_rhs(t: float, y: np.ndarray, forcing: float = 0.5) -> np.ndarray:
    return np.array([y[1], MU * (1.0 - y[0] ** 2) * y[1] - y[0] + forcing * math.sin(t), y[0] ** 2])


KERNEL = compile_helper(van_der_pol)
Y0 = np.array([2.0, 0.0, 0.0])


def _compiled(decline_after: float = math.inf) -> CompiledRHS:
    I, F = np.zeros(1, np.int64), np.array([0.5, decline_after])
    counts = []
    return CompiledRHS(KERNEL, lambda: (I, F), counts.append)


def _resync(ours: CompiledDOP853Stepper, ref: DOP853) -> None:
    """Start our next step from scipy's state (t, y, f, proposed |h|)."""
    s = ours.solver
    s.t, s.y, s.f, s.h_abs = ref.t, ref.y.copy(), ref.f.copy(), ref.h_abs


def test_each_step_and_dense_output_equal_scipy() -> None:
    """From the same (t, y, f, |h|), every step of a Van der Pol run (rejections included): the same t_new and y_new
    as scipy's DOP853 to 1e-13 (stage sums in a different order), the same next |h| to 1e-6 and the same dense
    output to 1e-13; the same evaluation count. The |h| proposal comes from the error estimate, a difference of
    stage sums of size |h f| ~ 0.1 that cancels down to ~rtol |y| ~ 1e-10: round-off in it is amplified ~1e9
    (2e-7 relative, measured 3e-7 in the first step), and |h| takes the 1/8th power of it."""
    rtol, atol, t_end = 1e-10, 1e-12, 12.0
    ref = DOP853(python_rhs, 0.0, Y0.copy(), t_end, rtol=rtol, atol=atol)
    evaluations: list[int] = []
    compiled = _compiled()
    compiled.counted = evaluations.append
    ours = CompiledDOP853Stepper(python_rhs, 0.0, Y0.copy(), t_end, rtol, atol, None, None, "dop853", compiled,
                                 dop853_kernels.specialized(KERNEL))
    steps, rejected, h_sizes = 0, 0, []
    while ref.status == "running":
        _resync(ours, ref)
        nfev0 = ref.nfev
        ref.step()
        ok, msg = ours.step()
        assert ok, msg
        steps += 1
        scale = np.abs(ref.y).max()
        ref_dense = ref.dense_output()  # (3 more evaluations, counted below as scipy counts them)
        if ref.nfev - nfev0 > 15:  # a rejected attempt: its |h| came from the estimate (1e-6, see above)
            rejected += 1
            assert ours.t == pytest.approx(ref.t, rel=1e-6)
            # the two steps end at times 1e-6 apart, so y is compared with scipy's solution at *our* time (its
            # dense output): both are DOP853 results from the same state, within the local error ~ rtol |y|
            np.testing.assert_allclose(ours.y, ref_dense(ours.t), rtol=0, atol=rtol * scale)
        else:
            assert ours.t == ref.t
            np.testing.assert_allclose(ours.y, ref.y, rtol=0, atol=1e-13 * scale)
        assert ours.solver.h_abs == pytest.approx(ref.h_abs, rel=1e-6)
        h_sizes.append(ours.h)
        inside = np.linspace(ours.t_old, min(ours.t, ref.t), 5)
        np.testing.assert_allclose(ours.dense()(inside), ref_dense(inside), rtol=0,
                                   atol=(rtol if ours.t != ref.t else 1e-13) * scale)
        assert sum(evaluations) == ref.nfev - nfev0  # 12 per attempt + 3 for the dense output, as scipy
        evaluations.clear()
    assert steps > 150 and max(h_sizes) > 10 * min(h_sizes)  # a real test of the step-size control
    assert 0 < rejected < 0.25 * steps


def _error_at_end(stepper: object, t_end: float) -> float:
    ref = DOP853(python_rhs, 0.0, Y0.copy(), t_end, rtol=1e-13, atol=1e-15)
    while ref.status == "running":
        ref.step()
    return float(np.abs(stepper.y - ref.y).max())


def test_whole_run_as_accurate_as_scipy() -> None:
    """Left to itself (no resync) over 12 s: the error at t_end against scipy at rtol 1e-13 is of the size of
    scipy's own at the same rtol (within a factor 3: the two step sequences differ from the first proposal on, by
    ~1e-8 relative), with the same number of steps within 2 %."""
    rtol, atol, t_end = 1e-9, 1e-12, 12.0
    ref = DOP853(python_rhs, 0.0, Y0.copy(), t_end, rtol=rtol, atol=atol)
    ours = CompiledDOP853Stepper(python_rhs, 0.0, Y0.copy(), t_end, rtol, atol, None, None, "dop853",
                                 _compiled(), dop853_kernels.specialized(KERNEL))
    n_ref = n_ours = 0
    while ref.status == "running":
        ref.step()
        n_ref += 1
    while ours.solver.status == "running":
        assert ours.step()[0]
        n_ours += 1
    e_ref, e_ours = _error_at_end(ref, t_end), _error_at_end(ours, t_end)
    assert e_ref > 1e-10  # the comparison is of integration errors, not of round-off
    assert e_ours < 3 * e_ref and e_ref < 3 * e_ours
    assert abs(n_ours - n_ref) <= 0.02 * n_ref


def test_declined_evaluation_falls_back_to_scipy_step() -> None:
    """A right-hand side that declines (status 2) from t = 3 on: from there scipy's own Python steps are taken
    (step for step the same as scipy's from the same state), and the run reaches t_end."""
    rtol, atol, t_end = 1e-9, 1e-12, 6.0
    ref = DOP853(python_rhs, 0.0, Y0.copy(), t_end, rtol=rtol, atol=atol)
    ours = CompiledDOP853Stepper(python_rhs, 0.0, Y0.copy(), t_end, rtol, atol, None, None, "dop853",
                                 _compiled(decline_after=3.0), dop853_kernels.specialized(KERNEL))
    kinds = []
    while ref.status == "running":
        _resync(ours, ref)
        t0 = ref.t
        ref.step()
        ok, _ = ours.step()
        assert ok
        kinds.append((t0, ours._last_compiled))
        if not ours._last_compiled:  # scipy's step: the very same arithmetic
            np.testing.assert_array_equal(ours.y, ref.y)
    assert all(compiled for t0, compiled in kinds if t0 + 0.5 < 3.0)
    assert not any(compiled for t0, compiled in kinds if t0 > 3.0)
    assert ours.t == t_end


def test_too_small_step_is_a_failure_message() -> None:
    """A blow-up (y' = y^2 from y = 1: y = 1/(1 - t)) stops with scipy's message instead of looping."""
    def blow_up(t, y, I, F):  # noqa: ANN001, ANN201
        out = np.empty(1)
        out[0] = y[0] * y[0]
        return 0, out
    kernel = compile_helper(blow_up)
    ours = CompiledDOP853Stepper(lambda t, y: y ** 2, 0.0, np.ones(1), 2.0, 1e-8, 1e-10, None, None, "dop853",
                                 CompiledRHS(kernel, lambda: (np.zeros(1, np.int64), np.zeros(1)), lambda n: None),
                                 dop853_kernels.specialized(kernel))
    for _ in range(5000):
        ok, msg = ours.step()
        if not ok:
            break
    assert not ok and "spacing between numbers" in msg and 0.99 < ours.t < 1.01


def test_integrator_uses_the_compiled_step_only_with_a_compiled_rhs() -> None:
    integ = OurDOP853(rtol=1e-8, atol=1e-10)
    assert isinstance(integ.start(python_rhs, 0.0, Y0, 1.0, compiled=_compiled()).inner, CompiledDOP853Stepper)
    assert not isinstance(integ.start(python_rhs, 0.0, Y0, 1.0).inner, CompiledDOP853Stepper)


def _as_accurate_as_scipy_stepping(run: object, formulation: type, monkeypatch: pytest.MonkeyPatch,
                                   min_error: float) -> object:
    """``run(rtol) -> Driver`` at rtol 1e-8 steps compiled, and against a run at rtol 1e-12 its final q has the
    error of the same run on scipy's Python stepping (``formulation.compiled_rhs`` switched off) within a factor
    3, both errors above ``min_error`` (integration errors, not round-off, are compared), with the same number
    of steps within 2 %. Returns the compiled run."""
    ours = run(1e-8)
    assert isinstance(ours.state.stepper.inner, CompiledDOP853Stepper)
    with monkeypatch.context() as m:
        m.setattr(formulation, "compiled_rhs", lambda self: None)
        python = run(1e-8)
        reference = run(1e-12)
    assert not isinstance(python.state.stepper.inner, CompiledDOP853Stepper)
    q = [np.asarray(d.frames[-1].q[-1]) for d in (ours, python, reference)]
    e_ours, e_python = np.abs(q[0] - q[2]).max(), np.abs(q[1] - q[2]).max()
    assert e_python > min_error
    assert e_ours < 3 * e_python and e_python < 3 * e_ours
    steps_ours, steps_python = ours.state.stats["steps"], python.state.stats["steps"]
    assert abs(steps_ours - steps_python) <= max(2, 0.02 * steps_python)
    return ours


@pytest.mark.parametrize("sample", ["rolling_disk", "rolling_disk_accelerating_plane"])
def test_rolling_disk_runs_step_compiled_as_accurately_as_scipy(sample: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rolling disks run on the compiled step by default. Against a run at rtol 1e-12 (scipy's stepping), the
    5 s run at rtol 1e-8 has the error of the same run on scipy's Python stepping (within a factor 3), the same
    number of steps within 2 %, and every output still on the constraints (||Phi|| < 1e-12)."""
    from mechstudio.core.dynamics.projection import ProjectionFormulation
    from mechstudio.core.model.io import load_model
    from mechstudio.core.run.driver import Driver
    from mechstudio.core.model.samples import sample_path
    from mechstudio.core.simulate import SimulationSettings, initial_state
    from mechstudio.core.systems.compile import compile_model
    system = compile_model(load_model(sample_path(sample)))
    init = initial_state(system)

    def run(rtol: float) -> Driver:
        settings = SimulationSettings(t_end=5.0, dt=0.01, formulation="projection", integrator="dop853", rtol=rtol,
                                      atol=rtol * 1e-2, correction=True)
        driver = Driver(system, settings, q0=init.q, v0=init.v)
        frames = [b for b in driver.blocks()]
        driver.frames = frames
        assert driver.status.value == "finished", driver.message
        return driver

    compiled = _as_accurate_as_scipy_stepping(run, ProjectionFormulation, monkeypatch, 1e-12)
    assert max(float(np.max(b.violation_position)) for b in compiled.frames) < 1e-12


@pytest.mark.parametrize("sample", ["rolling_disk", "rolling_disk_accelerating_plane", "double_pendulum", "four_bar",
                                    "slider_crank_driven"])
def test_batched_output_frames_equal_one_at_a_time(sample: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The outputs inside a step come from one compiled call per step (``fast_outputs``: rolling disks, the
    sparse path of a chain, the sparse route of closed loops, with a driver's time function) when the driver
    steps one step at a time (no compiled segments: tests/test_driver_segments.py); the run with them asked one
    at a time (``fast_output``) records the same frames to round-off (the same kernels, the time functions and
    the plane's motion evaluated in compiled code instead of numpy: 1e-14 relative)."""
    from mechstudio.core.dynamics.projection import ProjectionFormulation
    from mechstudio.core.model.samples import sample_path
    from mechstudio.core.run.driver import Driver
    from mechstudio.core.run.frames import Trajectory, concat_blocks
    from mechstudio.core.simulate import SimulationSettings
    from mechstudio.core.model.io import load_model
    from mechstudio.core.systems.compile import compile_model
    system = compile_model(load_model(sample_path(sample)))
    settings = SimulationSettings(t_end=2.0, dt=0.01, formulation="projection", integrator="dop853", rtol=1e-8,
                                  atol=1e-10, kernels="compiled")

    def run(system, settings):  # noqa: ANN001, ANN202
        driver = Driver(system, settings, segments=False)
        frames = concat_blocks(list(driver.blocks()), system.n, len(system.constraints))
        return Trajectory(system, settings, frames, driver.status, driver.message, driver.stats)
    calls = []
    original = ProjectionFormulation.fast_outputs

    def counting(self, Y, times, correction):  # noqa: ANN001, ANN202
        out = original(self, Y, times, correction)
        calls.append(out is not None and all(f is not None for f in out))
        return out
    monkeypatch.setattr(ProjectionFormulation, "fast_outputs", counting)
    batched = run(system, settings)
    assert calls and all(calls)  # every step's outputs came from the batch
    monkeypatch.setattr(ProjectionFormulation, "fast_outputs", lambda self, Y, times, correction: None)
    single = run(system, settings)
    assert batched.status.ok and single.status.ok
    for name in ("t", "q", "v", "a", "reactions", "kinetic", "potential", "work", "violation_position_before",
                 "violation_position", "violation_velocity"):
        a, b = np.asarray(getattr(batched.frames, name)), np.asarray(getattr(single.frames, name))
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-14 * max(1.0, np.abs(b).max()), err_msg=name)


def test_a_plane_motion_not_quadratic_in_t_takes_the_python_stepping() -> None:
    """A shaking plane (harmonic and sine motion) has no compiled right-hand side of t: scipy's stepping and the
    outputs one at a time, and the run still finishes on the constraints."""
    import json
    from mechstudio.core.model.io import model_from_data
    from mechstudio.core.run.driver import Driver
    from mechstudio.core.model.samples import sample_path
    from mechstudio.core.simulate import SimulationSettings
    from mechstudio.core.systems.compile import compile_model
    data = json.loads(sample_path("rolling_disk").read_text())
    data["ground"]["motion"] = {"position": [{"type": "harmonic", "amplitude": 0.05, "frequency": 3.0}, 0.0,
                                             {"type": "expression", "expression": "0.02*sin(5*t)"}]}
    driver = Driver(compile_model(model_from_data(data)), SimulationSettings(t_end=0.5, dt=0.01))
    blocks = list(driver.blocks())
    assert driver.status.value == "finished", driver.message
    assert driver.form.compiled_rhs() is None
    assert not isinstance(driver.state.stepper.inner, CompiledDOP853Stepper)
    assert driver.form.fast_outputs(np.zeros((1, 7)), np.zeros(1), True) is None
    assert max(float(np.max(b.violation_position)) for b in blocks) < 1e-12


def _chain_with_torque(torque: object) -> dict:
    from mechstudio.core.bench.speed import planar_chain_data
    data = planar_chain_data(6)
    data.setdefault("forces", []).append({"name": "drive", "type": "applied_torque", "body": "link1",
                                          "torque": torque})
    return data


@pytest.mark.parametrize("torque", [0.2, {"type": "expression", "expression": "0.2*sin(3*t)"}])
def test_planar_chain_steps_compiled_with_constant_or_time_varying_loads(torque: object,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A loop-free planar chain on the sparse path steps compiled with a constant torque and with one that
    depends on t (its time function compiled: core.systems.planar_time); the compiled run has the error of
    scipy's stepping (factor 3) against a run at rtol 1e-12, the same number of steps within 2 %, and its energy
    balance holds (the work of the torque included) to 1e-7 relative."""
    from mechstudio.core.dynamics.projection import ProjectionFormulation
    from mechstudio.core.model.io import model_from_data
    from mechstudio.core.run.driver import Driver
    from mechstudio.core.simulate import SimulationSettings
    from mechstudio.core.systems.compile import compile_model
    system = compile_model(model_from_data(_chain_with_torque(torque)))

    def run(rtol: float) -> Driver:
        driver = Driver(system, SimulationSettings(t_end=1.0, dt=0.01, rtol=rtol, atol=rtol * 1e-2))
        driver.frames = list(driver.blocks())
        assert driver.status.value == "finished", driver.message
        return driver
    ours = _as_accurate_as_scipy_stepping(run, ProjectionFormulation, monkeypatch, 1e-12)
    assert ours.form._sparse is not None  # the O(N) path
    balance = np.concatenate([b.total - b.work for b in ours.frames])
    assert np.ptp(balance) < 1e-7 * max(1.0, np.abs(np.concatenate([b.kinetic for b in ours.frames])).max())


def test_a_time_function_without_a_compiled_form_takes_the_python_stepping(monkeypatch: pytest.MonkeyPatch) -> None:
    """When a time function has no compiled form (``TimeFunction.programs`` None) the chain steps on scipy's
    Python DOP853 as before, and still finishes."""
    from mechstudio.core.model.io import model_from_data
    from mechstudio.core.model.timefunc import TimeFunction
    from mechstudio.core.run.driver import Driver
    from mechstudio.core.simulate import SimulationSettings
    from mechstudio.core.systems.compile import compile_model
    monkeypatch.setattr(TimeFunction, "programs", lambda self: None)
    system = compile_model(model_from_data(_chain_with_torque({"type": "expression", "expression": "0.2*sin(3*t)"})))
    driver = Driver(system, SimulationSettings(t_end=0.2, dt=0.01))
    for _ in driver.blocks():
        pass
    assert driver.status.value == "finished", driver.message
    assert not isinstance(driver.state.stepper.inner, CompiledDOP853Stepper)


def _wittenburg(sample_or_data: object, **options: object):  # noqa: ANN202
    from mechstudio.core.dynamics.base import get_formulation
    from mechstudio.core.model.io import load_model, model_from_data
    from mechstudio.core.model.samples import sample_path
    from mechstudio.core.systems.compile import compile_model
    model = (model_from_data(sample_or_data) if isinstance(sample_or_data, dict)
             else load_model(sample_path(sample_or_data)))
    system = compile_model(model)
    return system, get_formulation("wittenburg")(system, **options)


@pytest.mark.parametrize("sample", ["spherical_chain_3", "branched_tree", "spherical_chain_10"])
def test_compiled_tree_rhs_equals_the_python_rhs(sample: str) -> None:
    """Wittenburg's right-hand side (quaternions, still base, gravity only) compiled for the DOP853 step: the
    same [p'; omega'; P] as ``derivative_and_power`` at random states (unnormalised quaternions included) to
    1e-13 relative (the same equations; the quaternion form's sums in loops instead of BLAS)."""
    system, form = _wittenburg(sample)
    compiled = form.compiled_rhs()
    assert compiled is not None
    I, F = compiled.data()
    rng = np.random.default_rng(5)
    n = form.n
    for _ in range(10):
        y = np.concatenate([rng.standard_normal(4 * n) * 0.7, rng.standard_normal(3 * n) * 3.0, [0.0]])
        t = float(rng.random())
        status, out = compiled.kernel(t, y, I, F)
        ref = form.rhs_augmented(t, y)
        assert status == 0
        np.testing.assert_allclose(out, ref, rtol=0, atol=1e-13 * np.abs(ref).max())


def test_tree_rhs_is_compiled_only_where_it_applies() -> None:
    """Every parametrization and a base moving by powers and sines of t are compiled; applied loads, joint
    moments or a time-varying base rotation keep the Python right-hand side and scipy's stepping."""
    assert _wittenburg("spherical_chain_3", parametrization="bryant")[1].compiled_rhs() is not None
    assert _wittenburg("chain_on_shaking_base")[1].compiled_rhs() is not None
    assert _wittenburg("spherical_chain_3")[1].compiled_rhs() is not None
    with_spring = json.loads(sample_path("spherical_chain_3").read_text())
    with_spring["joints"][0]["spring"] = 1.0
    assert _wittenburg(with_spring)[1].compiled_rhs() is None


def test_spherical_chain_steps_compiled_as_accurately_as_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The 10-link spherical chain through run(): compiled steps, the error of scipy's stepping (factor 3)
    against a run at rtol 1e-12, the same number of steps within 2 %, and energy conserved to 1e-8 relative."""
    from mechstudio.core.run.driver import Driver
    from mechstudio.core.simulate import SimulationSettings, initial_state
    from mechstudio.core.dynamics.wittenburg import WittenburgFormulation
    system, _ = _wittenburg("spherical_chain_10")
    init = initial_state(system)

    def run(rtol: float) -> Driver:
        driver = Driver(system, SimulationSettings(t_end=1.0, dt=0.01, formulation="wittenburg", rtol=rtol,
                                                   atol=rtol * 1e-2), q0=init.q, v0=init.v)
        driver.frames = list(driver.blocks())
        assert driver.status.value == "finished", driver.message
        return driver
    ours = _as_accurate_as_scipy_stepping(run, WittenburgFormulation, monkeypatch, 1e-11)
    total = np.concatenate([b.total for b in ours.frames])
    assert np.ptp(total) < 1e-8 * np.abs(np.concatenate([b.kinetic for b in ours.frames])).max()


def van_der_pol_prepare(I, F):  # noqa: ANN001, ANN201
    """The data of :func:`van_der_pol_prepared`, unpacked once per step: (forcing, decline time)."""
    return F[0], F[1]


def van_der_pol_prepared(t, y, P):  # noqa: ANN001, ANN201
    """:func:`van_der_pol` taking its data prepared by :func:`van_der_pol_prepare`."""
    forcing, decline_after = P
    out = np.empty(3)
    out[0] = y[1]
    out[1] = MU * (1.0 - y[0] * y[0]) * y[1] - y[0] + forcing * math.sin(t)
    out[2] = y[0] * y[0]
    return (2 if t > decline_after else 0), out


def test_a_prepared_rhs_steps_exactly_as_the_plain_one() -> None:
    """A right-hand side that unpacks its data once per step (CompiledRHS.prepare) gives the very same steps and
    dense outputs, bit for bit, as the same arithmetic unpacking at every stage."""
    I, F = np.zeros(1, np.int64), np.array([0.5, math.inf])
    plain = CompiledRHS(KERNEL, lambda: (I, F), lambda n: None)
    prepared = CompiledRHS(compile_helper(van_der_pol_prepared), lambda: (I, F), lambda n: None,
                           compile_helper(van_der_pol_prepare))
    runs = []
    for compiled in (plain, prepared):
        stepper = CompiledDOP853Stepper(lambda t, y: python_rhs(t, y), 0.0, Y0, 20.0, 1e-10, 1e-12, None, None,
                                        "DOP853", compiled,
                                        dop853_kernels.specialized(compiled.kernel, compiled.prepare))
        states = []
        for _ in range(60):
            assert stepper.step()[0]
            states.append(np.concatenate([[stepper.t], stepper.y, stepper.dense()(stepper.t - 0.3 * stepper.h)]))
        runs.append(np.array(states))
    assert np.array_equal(runs[0], runs[1])
    assert np.array_equal(prepared.evaluate(0.3, Y0)[1], python_rhs(0.3, Y0))


@pytest.mark.parametrize("case", ["four_bar", "chain_with_time_varying_torque"])
def test_planar_compiled_rhs_equals_the_python_rhs(case: str) -> None:
    """The compiled right-hand sides of the sparse routes (closed loops: the four-bar; loop-free: a chain with a
    torque depending on t), their data prepared once per step, give the formulation's [p'; q'; P] at the run's
    states and at perturbed independent velocities p, to 1e-12 of the largest entry (the same equations; sums in
    another order)."""
    from mechstudio.core.model.io import load_model, model_from_data
    from mechstudio.core.run.driver import Driver
    from mechstudio.core.simulate import SimulationSettings
    from mechstudio.core.systems.compile import compile_model
    model = (load_model(sample_path("four_bar")) if case == "four_bar" else
             model_from_data(_chain_with_torque({"type": "expression", "expression": "0.2*sin(3*t)"})))
    driver = Driver(compile_model(model), SimulationSettings(t_end=0.3, dt=0.01, kernels="compiled"), block_frames=5)
    rng = np.random.default_rng(3)
    checked = 0
    for _ in driver.blocks():
        form, stepper = driver.form, driver.state.stepper
        compiled = form.compiled_rhs()
        assert compiled is not None and compiled.prepare is not None
        if stepper is None:
            continue
        y = np.array(stepper.y, dtype=float)
        k = form.V2.shape[1]
        for trial in range(3):
            z = y.copy()
            if trial:
                z[:k] += rng.normal(0.0, 0.5, k)
            status, out = compiled.evaluate(stepper.t, z)
            ref = form.rhs_augmented(stepper.t, z)
            assert status == 0
            np.testing.assert_allclose(out, ref, rtol=0, atol=1e-12 * np.abs(ref).max())
            checked += 1
    assert driver.status.value == "finished", driver.message
    assert checked >= 6


def test_compiled_dense_values_equal_scipys_bit_for_bit() -> None:
    """The compiled evaluation of a step's dense output (scalar and vector times) gives scipy's values exactly."""
    from scipy.integrate._ivp.rk import Dop853DenseOutput

    from mechstudio.core.integrate.scipy_ivp import CompiledDop853DenseOutput
    rng = np.random.default_rng(11)
    coef, y_old = rng.standard_normal((7, 5)), rng.standard_normal(5)
    ours, ref = CompiledDop853DenseOutput(0.3, 0.37, y_old, coef), Dop853DenseOutput(0.3, 0.37, y_old, coef)
    times = np.linspace(0.3, 0.37, 9)
    assert np.array_equal(ours(times), ref(times))
    assert np.array_equal(ours(0.33), ref(0.33))
    assert ours(times).shape == (5, 9) and ours(0.33).shape == (5,)
