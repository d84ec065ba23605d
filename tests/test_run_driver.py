"""The simulation driver's contracts (issue 14): failures are statuses, RestartRequired restarts from the last
accepted state, BLAS threads are limited during a run only, the registries list names without importing.

Independent checks: a restarted run is compared with an unperturbed one (same physics, different step sequence:
agreement to 1e-7 at rtol 1e-10, i.e. well inside the integrators' global error of ~10-100 x rtol over 1 s), and
the BLAS thread counts are read from threadpoolctl in a fresh interpreter.
"""
from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import mechstudio.core.dynamics.base as base
from mechstudio.core.dynamics.base import FORMULATIONS, RestartRequired, get_formulation
from mechstudio.core.dynamics.lagrange import LagrangeFormulation
from mechstudio.core.errors import ModelError, UnknownNameError
from mechstudio.core.integrate.base import INTEGRATORS
from mechstudio.core.model import loads_model
from mechstudio.core.model.document import Model
from mechstudio.core.simulate import SimulationSettings, run, simulate
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status

ROOT = Path(__file__).resolve().parents[1]


def sample(name: str) -> dict:
    return json.loads((ROOT / "sample_models" / f"{name}.json").read_text())


@pytest.fixture
def registered():
    """Register formulation classes for one test (removed afterwards)."""
    names = []

    def add(name, cls):
        FORMULATIONS[name] = cls
        names.append(name)
    yield add
    for name in names:
        del FORMULATIONS[name]


# --- failures are statuses -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["spherical_pendulum", "four_bar", "rolling_disk"])
def test_fuzzed_centre_of_mass_ends_with_a_status(name):
    """A centre of mass of -1e308 (found by fuzzing: 'LinAlgError: SVD did not converge' escaped simulate()).
    The loader refuses it, naming the JSON pointer; and a model that gets past the loader anyway (built in
    memory, unvalidated) still ends its run with FAILED and a message naming the time, never an exception."""
    doc = sample(name)
    doc["bodies"][0]["com"] = [-1e308] * len(doc["bodies"][0]["com"])
    with pytest.raises(ModelError) as refused:
        loads_model(json.dumps(doc))
    assert "/bodies/0/com/0" in str(refused.value)
    unvalidated = Model(doc, "<fuzzed>")
    with warnings.catch_warnings():  # overflow warnings of the absurd model are expected (pytest makes core's
        warnings.simplefilter("ignore", RuntimeWarning)  # RuntimeWarnings errors: pyproject.toml)
        traj = simulate(unvalidated, t_end=0.1)
    assert traj.status == Status.FAILED
    assert "t = " in traj.message, traj.message


def failing_formulation(exc: Exception, after: float):
    """Lagrange formulation whose right-hand side raises ``exc`` at times t > ``after``."""
    class Failing(LagrangeFormulation):
        def rhs_and_power(self, t, y):
            if t > after:
                raise exc
            return super().rhs_and_power(t, y)
    return Failing


@pytest.mark.parametrize("integrator", ["dop853", "rk4", "radau"])
@pytest.mark.parametrize("exc", [np.linalg.LinAlgError("SVD did not converge"), FloatingPointError("overflow"),
                                 ZeroDivisionError("float division by zero")])
def test_numerical_exception_inside_a_run_is_a_status(registered, integrator, exc):
    registered("failing", failing_formulation(exc, after=0.25))
    system = compile_model(loads_model(json.dumps(sample("pendulum"))))
    traj = run(system, SimulationSettings(t_end=1.0, formulation="failing", integrator=integrator))
    assert traj.status == Status.FAILED
    assert type(exc).__name__ in traj.message and str(exc) in traj.message
    assert f"{integrator}" in traj.message and "t = " in traj.message  # what failed, and when
    assert 0.2 <= traj.frames.t[-1] <= 0.25  # the frames before the failure are kept
    assert traj.stats["simulated_seconds"] <= 0.25


def test_non_finite_state_ends_the_run(registered):
    """A NaN that raises nowhere (here: in the power, so the work W becomes NaN while q, q' stay finite) ends the
    run as FAILED at the step where it appeared (RK4 sees it first; the driver checks [y; W] after every step
    or interval as well)."""
    class NaNAfter(LagrangeFormulation):
        def rhs_and_power(self, t, y):
            ydot, power = super().rhs_and_power(t, y)
            return (ydot, np.nan) if t > 0.3 else (ydot, power)
    registered("nan_after", NaNAfter)
    system = compile_model(loads_model(json.dumps(sample("pendulum"))))
    traj = run(system, SimulationSettings(t_end=1.0, formulation="nan_after", integrator="rk4", correction=False))
    assert traj.status == Status.FAILED
    assert "non-finite" in traj.message and "t = 0.30" in traj.message, traj.message
    assert np.isfinite(traj.frames.q).all()


# --- RestartRequired -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("integrator", ["dop853", "rk4"])
def test_restart_required_restarts_from_the_last_accepted_state(registered, integrator):
    refreshed = []

    class RestartOnce(LagrangeFormulation):
        def rhs_and_power(self, t, y):
            if t > 0.5 and not refreshed:
                raise RestartRequired("test: the state representation degenerated")
            return super().rhs_and_power(t, y)

        def refresh_basis(self, q, t):
            refreshed.append(t)
    registered("restart_once", RestartOnce)
    system = compile_model(loads_model(json.dumps(sample("double_pendulum"))))
    settings = dict(t_end=1.0, dt=0.01, integrator=integrator, rtol=1e-10, atol=1e-12)
    traj = run(system, SimulationSettings(formulation="restart_once", **settings))
    plain = run(system, SimulationSettings(formulation="lagrange", **settings))
    assert traj.status == Status.FINISHED, traj.message
    assert traj.stats["basis_restarts"] == 1 and len(refreshed) == 1 and refreshed[0] <= 0.5
    np.testing.assert_allclose(traj.frames.q, plain.frames.q, atol=1e-7)


def test_restart_required_twice_at_the_same_state_fails(registered):
    class AlwaysDegenerate(LagrangeFormulation):
        def rhs_and_power(self, t, y):
            if t > 0.2:
                raise RestartRequired("test: degenerate at every state")
            return super().rhs_and_power(t, y)
    registered("always_degenerate", AlwaysDegenerate)
    system = compile_model(loads_model(json.dumps(sample("pendulum"))))
    traj = run(system, SimulationSettings(t_end=1.0, formulation="always_degenerate"))
    assert traj.status == Status.FAILED and "degenerate at every state" in traj.message
    assert traj.stats["basis_restarts"] == 1


# --- hooks -------------------------------------------------------------------------------------------------------
def test_flush_now_emits_every_frame_and_cancel_stops_between_frames():
    from mechstudio.core.simulate import iter_simulation
    system = compile_model(loads_model(json.dumps(sample("four_bar"))))
    outcome: dict = {}
    seen = []
    blocks = iter_simulation(system, SimulationSettings(t_end=1.0), flush_now=lambda: True,
                             cancel=lambda: len(seen) >= 5, outcome=outcome)
    for block in blocks:
        seen.append(len(block))
    assert seen == [1, 1, 1, 1, 1]  # one frame per block, and the run stopped right after the fifth
    assert outcome["status"] == Status.CANCELLED and outcome["message"] == "cancelled at t = 0.04 s"


# --- BLAS threads ------------------------------------------------------------------------------------------------
BLAS_PROBE = """
import json, os, sys
import numpy, scipy.linalg
from threadpoolctl import threadpool_info
def blas():
    return sorted(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas")
before = blas()
import mechstudio.core
from mechstudio.core.simulate import simulate
after_import = blas()
during = []
from mechstudio.core.simulate import SimulationSettings, run
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.model import load_model
system = compile_model(load_model("sample_models/pendulum.json"))
run(system, SimulationSettings(t_end=0.05), stop_requested=lambda: during.append(blas()) or False)
print(json.dumps({"before": before, "after_import": after_import, "during": during[0], "after": blas()}))
"""


def test_blas_threads_are_limited_during_a_run_only():
    import os
    env = dict(os.environ, OPENBLAS_NUM_THREADS="2", OMP_NUM_THREADS="2", MKL_NUM_THREADS="2",
               PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-c", BLAS_PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    if not out["before"] or max(out["before"]) < 2:
        pytest.skip(f"this BLAS runs single-threaded anyway: {out}")
    assert out["after_import"] == out["before"]  # importing core leaves the caller's BLAS alone
    assert out["during"] == [1] * len(out["before"])  # one thread while the run computes
    assert out["after"] == out["before"]  # and the caller's setting back afterwards


# --- registries --------------------------------------------------------------------------------------------------
def test_registries_list_builtins_without_importing_them():
    code = """
import sys
from mechstudio.core.dynamics.base import FORMULATIONS, get_formulation
from mechstudio.core.integrate.base import INTEGRATORS
names = sorted(FORMULATIONS), sorted(INTEGRATORS)
loaded = [m for m in ("mechstudio.core.dynamics.projection", "mechstudio.core.dynamics.appell", "mechstudio.core.dynamics.wittenburg",
                      "mechstudio.core.integrate.scipy_ivp", "mechstudio.core.integrate.fixed") if m in sys.modules]
print(names, loaded)
assert get_formulation("wittenburg").__name__ == "WittenburgFormulation" and "mechstudio.core.dynamics.wittenburg" in sys.modules
"""
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == ("(['appell', 'appell_symbolic', 'lagrange', 'projection', 'wittenburg'], "
                                  "['abm', 'bdf', 'dop853', 'radau', 'rk4', 'rk45']) []")


def test_every_builtin_resolves_to_a_class_of_that_name():
    for name in list(FORMULATIONS):
        cls = FORMULATIONS[name]
        assert issubclass(cls, base.Formulation) and cls.name == name
    for name in list(INTEGRATORS):
        assert INTEGRATORS[name].name == name


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(UnknownNameError, match="unknown formulation 'nope'; valid names: appell, "):
        get_formulation("nope")
    traj = simulate(str(ROOT / "sample_models" / "pendulum.json"), integrator="nope")
    assert traj.status == Status.FAILED and traj.message.startswith("unknown integrator 'nope'")
