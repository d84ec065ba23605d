"""Compiled time functions (core.model.timefunc_programs, core.systems.planar_time) against the sympy-lambdified
ones, and time-dependent models on the compiled DOP853 step against the numpy path.

Independent references: ``sympy.lambdify`` of the same trees (``TimeFunction.value/rate/accel``, the evaluation
the numpy path uses), ``PlanarSystem.time_arrays`` (Python), and whole runs on the numpy path.

Tolerances: a program evaluates the same operations as the lambdified function, but may sum and multiply in
another order (sympy's argument order against the printer's): each operation is correctly rounded, so the
results differ by a few ulps of the largest term. The test expressions have terms of magnitude <= ~1e2, so 1e-13
relative to max(|f|, 1) holds with a margin of ~10x and fails for any wrong operation, argument order or constant.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from mechstudio.core.jit import numba_module
from mechstudio.core.model import timefunc_programs
from mechstudio.core.model.timefunc import ExpressionError, function_names, time_function
from mechstudio.core.model.timefunc_programs import OPERATIONS, NotCompilable, cached_programs, program, run_program
from mechstudio.core.systems import planar_time

#: expressions covering every operation of OPERATIONS and every function the parser allows, in their values
#: and first and second derivatives (sign, Heaviside, DiracDelta come from the derivatives of abs, min, max)
EXPRESSIONS = {
    "sin": "0.3*sin(2*pi*t) + 0.1", "cos": "cos(3*t - 0.2)*t", "tan": "tan(t/3)", "asin": "asin(t/5)",
    "acos": "acos(t/6 - 0.1)", "atan": "atan(2*t - 1)", "sinh": "sinh(t - 1)", "cosh": "cosh(t/2)",
    "tanh": "tanh(3*t - 2)", "exp": "exp(-t)*cos(3*t)", "log": "log(t + 1.5) + log(t + 2, 3)",
    "sqrt": "sqrt(t + 1) + 1/sqrt(t + 2)", "abs": "abs(t - 1)*t + abs(sin(3*t))", "atan2": "atan2(sin(t), cos(t) + 2)",
    "min": "min(t, 1, 0.5*t**2 + 0.2)", "max": "max(sin(2*t), 0.5) + max(t, 2 - t)", "pow": "(t + 1)**(1/3) + 2**t",
    "div": "1/(t + 1) - 3/(t**2 + 2)", "polynomial": "-2*t*sin(t) - 3 + t**3/7 - 0.5*t**5",
    "constants": "pi*t/7 + e**(t/2) - 2^t",
}
TIMES = np.random.default_rng(7).uniform(0.01, 2.9, 25)
COMPILED = numba_module() is not None


def evaluators() -> list[object]:
    """The Python evaluator, and the compiled one when numba is available."""
    out: list[object] = [run_program]
    compiled = planar_time.kernels()
    if compiled is not None:
        out.append(compiled[1])
    return out


def _close(got: float, want: float) -> bool:
    return abs(got - want) <= 1e-13 * max(abs(want), 1.0)


def test_the_table_covers_every_function_the_parser_allows() -> None:
    """Every function a file may call has a compiled form (sqrt as a power, abs as Abs, min and max as Min and
    Max), and the test expressions call every one of them."""
    names = {"sqrt": "sqrt", "abs": "Abs", "min": "Min", "max": "Max"}
    for name in function_names():
        assert names.get(name, name) in OPERATIONS, name
        assert name in EXPRESSIONS, name


@pytest.mark.parametrize("kind", sorted(EXPRESSIONS))
def test_programs_equal_the_lambdified_functions_and_derivatives(kind: str) -> None:
    """f, f' and f'' from the programs (Python and compiled evaluator) equal the lambdified ones to 1e-13 at
    random times (module docstring)."""
    f = time_function({"type": "expression", "expression": EXPRESSIONS[kind]})
    programs = f.programs()
    assert programs is not None
    for evaluate in evaluators():
        for t in TIMES:
            for p, want in zip(programs, (f.value(t), f.rate(t), f.accel(t))):
                got = evaluate(p.code, 0, len(p.code), p.consts, float(t), np.empty(p.depth))
                assert _close(got, want), (kind, t, got, want)


def test_every_operation_is_exercised() -> None:
    """The programs of the test expressions (with their derivatives) use every operation of the table."""
    used: set[int] = set()
    for text in EXPRESSIONS.values():
        for p in time_function({"type": "expression", "expression": text}).programs():
            used.update(int(op) for op in p.code[0::2])
    assert used == set(range(len(OPERATIONS))), {name for name, k in timefunc_programs.OPCODES.items()
                                                  if k not in used}


@pytest.mark.parametrize("spec", [2.5, {"type": "constant_speed", "initial": 0.3, "speed": 6.283185307179586},
                                  {"type": "polynomial", "coefficients": [0.1, -2.0, 0.5, 0.25]},
                                  {"type": "harmonic", "amplitude": 0.2, "frequency": 7.0, "phase": 0.4,
                                   "offset": 1.0}])
def test_file_forms_compile_too(spec: object) -> None:
    f = time_function(spec)
    for t in TIMES[:5]:
        for p, want in zip(f.programs(), (f.value(t), f.rate(t), f.accel(t))):
            assert _close(timefunc_programs.evaluate(p, t), want)


def test_heaviside_at_zero_and_sign_match_lambdify() -> None:
    """At the kinks (abs at t = 1, max where its arguments cross) the derivatives take the lambdified value:
    sign(0) = 0, Heaviside(0) = 1/2."""
    for text, t in (("abs(t - 1)", 1.0), ("max(t, 2 - t)", 1.0), ("min(t, 1)*t", 1.0)):
        f = time_function({"type": "expression", "expression": text})
        for p, want in zip(f.programs(), (f.value(t), f.rate(t), f.accel(t))):
            assert timefunc_programs.evaluate(p, t) == want, text


def test_programs_are_cached_by_canonical_text() -> None:
    a = time_function({"type": "expression", "expression": "0.25*sin(5*t) + t**2"})
    b = time_function({"type": "expression", "expression": "t^2 + 0.25*sin(5*t)"})  # the same tree
    assert a.programs() is b.programs()


def test_a_node_without_compiled_form_keeps_the_python_path() -> None:
    """A tree with a node the table lacks (a Piecewise, which no file can write) has no programs; the model then
    evaluates its time functions in Python (``planar_time.pack`` gives None)."""
    import sympy as sp
    t = sp.Symbol("t", real=True)
    tree = sp.Piecewise((t, t < 1), (1, True))
    with pytest.raises(NotCompilable):
        program(tree)
    assert cached_programs("test-piecewise", (tree, tree, tree)) is None

    class Uncompiled:
        is_constant = False

        def programs(self) -> None:
            return None
    assert planar_time.pack((1, 1, 0, 0), (np.zeros(1), np.zeros(1), np.zeros(1), np.zeros((0, 2)), np.zeros(0)),
                            [(planar_time.FVAL, 0, Uncompiled())]) is None


@pytest.mark.parametrize("text, t", [("1/(t - 1)", 1.0), ("log(1 - t)", 1.5), ("sqrt(1 - t)", 1.5),
                                      ("(1 - t)**0.5", 2.0), ("asin(t)", 1.5), ("exp(1000*t)", 1.0)])
def test_domain_errors_are_not_finite_never_raised_by_the_compiled_evaluator(text: str, t: float) -> None:
    """Where Python's math raises, the compiled evaluator gives a non-finite value (the caller then hands the step
    to the Python path, which reports the error); the Python evaluator may raise like math."""
    f = time_function({"type": "expression", "expression": text})
    p = f.programs()[0]
    compiled = planar_time.kernels()
    if compiled is None:
        pytest.skip("the compiled evaluator needs numba")
    assert not math.isfinite(compiled[1](p.code, 0, len(p.code), p.consts, t, np.empty(p.depth)))


@pytest.mark.parametrize("text, message", [("sin(x)", "unknown name 'x'"), ("foo(t)", "unknown function 'foo'"),
                                           ("9**9**9*t", "too large"), ("log(t)", "cannot be evaluated at t = 0"),
                                           ("1/t", "cannot be evaluated at t = 0")])
def test_bad_expressions_keep_their_messages(text: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=message.replace("(", r"\(").replace("*", r"\*")):
        time_function({"type": "expression", "expression": text})


# --- the time arrays of planar systems --------------------------------------------------------------------------
def _chain_with_loads(n: int = 4) -> dict:
    from mechstudio.core.bench.speed import planar_chain_data
    data = planar_chain_data(n)
    data["forces"] = [
        {"name": "drive", "type": "applied_torque", "body": "link1",
         "torque": {"type": "expression", "expression": "0.2*sin(3*t) + 0.05*cos(7*t)*exp(-t/2)"}},
        {"name": "push", "type": "applied_force", "body": "link2", "point": "b",
         "force": [{"type": "harmonic", "amplitude": 1.0, "frequency": 2.0}, 3.0]},
        {"name": "still", "type": "applied_torque", "body": "link3", "torque": 0.4}]
    return data


def _systems() -> list[object]:
    from mechstudio.core.model.io import load_model, model_from_data
    from mechstudio.core.model.samples import sample_path
    from mechstudio.core.systems.compile import compile_model
    return [compile_model(model_from_data(_chain_with_loads()))] + [
        compile_model(load_model(sample_path(s))) for s in ("slider_crank_driven", "cam_follower", "belt_drive",
                                                             "gear_train")]


def test_packed_time_arrays_equal_the_python_ones() -> None:
    """f, f'', xi, loads and torques from the packed programs (Python and compiled) equal
    ``PlanarSystem.time_arrays`` (lambdified) at random times, driven samples and loads of every form; the
    time-independent gear train packs no program."""
    for system in _systems():
        TI, TF = system.packed_time()
        assert (TI[4] == 0) == system.time_independent()
        for t in TIMES[:8]:
            want = system.time_arrays(float(t))
            got = [planar_time.time_arrays_packed(float(t), TI, TF, 0, 0)]
            if COMPILED:
                got.append(planar_time.unpacked(float(t), TI, TF, 0, 0))
            for ok, *arrays in got:
                assert ok
                for a, b in zip(arrays, want):
                    np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)


# --- whole runs: compiled step against the numpy path -------------------------------------------------------------
needs_numba = pytest.mark.skipif(not COMPILED, reason="the compiled step needs numba")


def _run(system: object, kernels: str, t_end: float, rtol: float) -> object:
    from mechstudio.core.run.driver import Driver
    from mechstudio.core.simulate import SimulationSettings
    driver = Driver(system, SimulationSettings(t_end=t_end, dt=0.01, rtol=rtol, atol=rtol * 1e-2,
                                               options={"kernels": kernels}))
    driver.frames = list(driver.blocks())
    assert driver.status.value == "finished", driver.message
    return driver


@needs_numba
@pytest.mark.parametrize("which", ["chain", "slider_crank_driven", "cam_follower"])
def test_time_dependent_runs_step_compiled_and_equal_the_numpy_path(which: str) -> None:
    """A chain with time-varying loads (the sparse O(N) path) and driven closed loops (the sparse route of
    closed loops) take the compiled DOP853 step, and their states and reactions equal the numpy path's (scipy's
    Python stepping) to the integrator's tolerance (rtol 1e-10): q to 1e-10, the reactions to 1e-9 of their
    largest magnitude (their solve amplifies the states' differences), with the same steps. Measured: the two
    runs take the same steps from states that differ by round-off only (q 1e-13, reactions 2e-12 relative, the
    cam's being the largest), so the bounds fail on any wrong time function value or derivative."""
    from mechstudio.core.integrate.scipy_ivp import CompiledDOP853Stepper
    system = _systems()[0] if which == "chain" else next(s for s in _systems()[1:3]
                                                         if s.model.data["name"] == which)
    t_end = 1.0
    ours, numpy_run = _run(system, "numba", t_end, 1e-10), _run(system, "numpy", t_end, 1e-10)
    assert isinstance(ours.state.stepper.inner, CompiledDOP853Stepper)
    assert not isinstance(numpy_run.state.stepper.inner, CompiledDOP853Stepper)
    q = np.concatenate([b.q for b in ours.frames])
    q_ref = np.concatenate([b.q for b in numpy_run.frames])
    assert q.shape == q_ref.shape
    assert np.abs(q - q_ref).max() < 1e-10 * max(1.0, np.abs(q_ref).max())
    r = np.concatenate([b.reactions for b in ours.frames])
    r_ref = np.concatenate([b.reactions for b in numpy_run.frames])
    assert np.abs(r - r_ref).max() < 1e-9 * np.abs(r_ref).max()
    assert abs(ours.state.stats["steps"] - numpy_run.state.stats["steps"]) <= 1


def test_speed_suite_rows_for_time_dependent_models() -> None:
    """The speed suite's time-dependent rows (core.bench.speed.time_load_rows) on a tiny chain and one driven
    sample: the ratio row with its target, the sample row with its numpy figure and whether it stepped compiled
    (yes with numba), both runs finished and equal; no time is asserted (speed claims live in the benchmark's
    output)."""
    from mechstudio.core.bench.speed import TIME_LOAD_TARGET, time_load_rows
    rows, notes = time_load_rows(repeats=1, t_end=0.1, n=3, samples=("belt_drive",))
    chain, sample = rows
    assert chain["case"] == "planar chain N=3 time-varying load" and chain["status"] == "finished"
    assert chain["target_ratio"] == TIME_LOAD_TARGET and chain["met"] in ("yes", "NO")
    assert chain["varying_over_constant"] > 0 and chain["rhs"] > 0 and chain["constant_rhs"] > 0
    assert sample["case"] == "belt_drive compiled vs numpy" and sample["status"] == "finished"
    assert sample["compiled_step"] == ("yes" if COMPILED else "no")
    assert sample["q_difference"] < 1e-9
    assert "time-dependent rows" in notes[0]


@needs_numba
@pytest.mark.parametrize("text, t_end", [("0.1*sqrt(0.7 - t)", 0.9), ("1/(t - 0.3)", 0.5)])
def test_a_time_function_failing_during_a_run_gives_the_numpy_path_message(text: str, t_end: float) -> None:
    """A torque that leaves its domain during the run (sqrt of a negative number past t = 0.7 s) or has a pole
    (t = 0.3 s): on the compiled step the run ends FAILED with the numpy path's message, after the same frames
    (the compiled right-hand side declines the step with a non-finite value, and scipy's Python step reports)."""
    from mechstudio.core.bench.speed import chain_with_torque
    from mechstudio.core.model.io import model_from_data
    from mechstudio.core.run.driver import Driver
    from mechstudio.core.simulate import SimulationSettings
    from mechstudio.core.systems.compile import compile_model
    system = compile_model(model_from_data(chain_with_torque(3, {"type": "expression", "expression": text})))
    ends = []
    for kernels in ("numba", "numpy"):
        driver = Driver(system, SimulationSettings(t_end=t_end, dt=0.01, options={"kernels": kernels}))
        frames = sum(len(b.t) for b in driver.blocks())
        ends.append((driver.status.value, driver.message, frames))
    assert ends[0] == ends[1]
    assert ends[0][0] == "failed" and 0 < ends[0][2] < round(t_end / 0.01)
