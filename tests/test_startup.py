"""Start-up and the kernel choice of a run (core.run.kernels, core.run.compiler, the kernel policy of core.jit).

* a short run imports neither numba nor sympy (what start-up costs is printed by ``mechstudio bench --suite
  startup``, never asserted here);
* the numpy and the compiled path of a short run give the same trajectory, also when a run switches from one to
  the other in its middle (continuous DOP853 and interval-by-interval RK4), and when a kernel turns out to be
  missing from the cache after the switch (the run goes back to the numpy path, no output lost);
* under the policy "cached" numba never compiles: a kernel missing from the cache raises KernelNotCached and a
  kernel set that fails leaves its module as it was; under "numpy" there are no kernels and numba is not imported;
* the background compiler never outlives its parent (normal exit, or ``os._exit`` skipping ``atexit``), and a run
  with an empty kernel cache finishes on the numpy path while the compiler fills the cache; the next process then
  switches to the compiled path without compiling anything.

Tolerances: the two paths evaluate the same equations with different operation orders (round-off, ~1e-15
relative per evaluation); over a 1 s run at rtol 1e-10 the integrators amplify that to below 1e-9 relative to the
largest value (measured: < 1e-11 on these models), so 1e-8 leaves room for the step sequences to differ after a
switch (the integrator restarts there), but not for a wrong equation (errors of order 1e-3 and more).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from mechstudio.core import jit
from mechstudio.core.jit import KernelNotCached, kernel_policy, kernel_set
from mechstudio.core.model import load_model
from mechstudio.core.run import kernels as run_kernels
from mechstudio.core.simulate import SimulationSettings, run
from mechstudio.core.systems.compile import compile_model

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_models"
TOL = 1e-8  # relative to the largest value of a field (module docstring)
FIELDS = ("q", "v", "a", "reactions", "kinetic", "potential", "work")


def numba_or_skip() -> None:
    if not jit.numba_available():
        pytest.skip("numba is off: no compiled path")


def close(a: np.ndarray, b: np.ndarray, tol: float = TOL) -> None:
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape
    if b.size:
        scale = max(float(np.abs(b).max()), 1.0)
        assert float(np.abs(a - b).max()) <= tol * scale, (float(np.abs(a - b).max()), scale)


def same_trajectory(a, b) -> None:
    assert a.status.ok and b.status.ok, (a.message, b.message)
    np.testing.assert_allclose(a.frames.t, b.frames.t, rtol=0, atol=1e-12)
    for f in FIELDS:
        close(getattr(a.frames, f), getattr(b.frames, f))


def system(name: str):
    return compile_model(load_model(SAMPLES / f"{name}.json"))


def child_env(cache: Path, **extra: str) -> dict[str, str]:
    """The environment of a child process: this tree importable, the default kernel choice, ``cache`` as the
    kernel cache folder."""
    env = {k: v for k, v in os.environ.items() if k not in ("MECHSTUDIO_KERNELS", "NUMBA_CACHE_DIR")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    env["MECHSTUDIO_CACHE_DIR"] = str(cache)
    env.update(extra)
    return env


def python(script: str, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=str(ROOT))


def gone(pid: int) -> bool:
    """True when process ``pid`` has ended (a zombie waiting for its reaper counts as ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    return "\nState:\tZ" in status or "\nState:\tX" in status


def wait_gone(pid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if gone(pid):
            return True
        time.sleep(0.2)
    return gone(pid)


# --- a short run: no numba, no sympy ---------------------------------------------------------------------------
def test_a_short_run_of_the_command_imports_neither_numba_nor_sympy(tmp_path):
    script = f"""
        import sys
        from mechstudio.core.cli import main
        rc = main(["simulate", {str(SAMPLES / 'pendulum.json')!r}, "--t-end", "1", "--out",
                   {str(tmp_path / 'x.csv')!r}, "-q"])
        print(rc, "numba" in sys.modules, "sympy" in sys.modules)
    """
    out = python(script, child_env(tmp_path / "cache"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "False", "False"], out.stdout + out.stderr
    assert (tmp_path / "x.csv").read_text().count("\n") == 102  # header and 101 rows: the run was done


def test_no_numba_keeps_working_in_auto(monkeypatch):
    """MECHSTUDIO_NO_NUMBA makes every choice the numpy path (here checked through the choice itself)."""
    monkeypatch.setattr(jit, "numba_available", lambda: False)
    choice = run_kernels.KernelChoice(system("pendulum"), SimulationSettings(kernels="auto"))
    assert choice.mode == "numpy" and choice.policy == "numpy" and choice.gave_up
    choice = run_kernels.KernelChoice(system("pendulum"), SimulationSettings(kernels="compiled"))
    assert choice.mode == "numpy"


def test_bad_kernel_choice_is_a_run_message(monkeypatch):
    traj = run(system("pendulum"), SimulationSettings(t_end=0.1, kernels="fast"))
    assert not traj.status.ok and "kernels must be one of auto, compiled, numpy" in traj.message
    monkeypatch.setenv("MECHSTUDIO_KERNELS", "quick")
    traj = run(system("pendulum"), SimulationSettings(t_end=0.1))
    assert not traj.status.ok and "MECHSTUDIO_KERNELS must be one of" in traj.message


# --- the two paths give the same numbers ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["pendulum", "double_pendulum", "four_bar", "rolling_disk", "spherical_chain_3"])
def test_numpy_and_compiled_paths_agree(name):
    numba_or_skip()
    s = system(name)
    base = dict(t_end=1.0, dt=0.01, rtol=1e-10, atol=1e-12)
    if name == "spherical_chain_3":
        base["formulation"] = "wittenburg"
    numpy_run = run(s, SimulationSettings(kernels="numpy", **base))
    compiled_run = run(s, SimulationSettings(kernels="compiled", **base))
    assert numpy_run.stats["kernels"] == "numpy" and compiled_run.stats["kernels"] == "compiled"
    same_trajectory(compiled_run, numpy_run)


def force_switch_at(monkeypatch, t_switch: float) -> None:
    """Make every auto run switch at the first step end at or after ``t_switch`` [s], the path marked ready (and
    not loaded before: no switch at the start)."""
    monkeypatch.setattr(jit, "path_ready", lambda key: {})
    monkeypatch.setattr(run_kernels, "PROCESS", run_kernels.ProcessRecord())
    monkeypatch.setattr(run_kernels.KernelChoice, "due",
                        lambda self, t, t0, cpu: not self.compiled and not self.gave_up and t >= t_switch)


@pytest.mark.parametrize("name,integrator", [("pendulum", "dop853"), ("four_bar", "dop853"), ("four_bar", "rk4"),
                                             ("rolling_disk", "dop853")])
def test_a_run_switched_mid_way_equals_the_numpy_run(monkeypatch, name, integrator):
    numba_or_skip()
    s = system(name)
    base = dict(t_end=1.0, dt=0.01, rtol=1e-10, atol=1e-12, integrator=integrator)
    if integrator == "rk4":
        base["step"] = 1e-3
    numpy_run = run(s, SimulationSettings(kernels="numpy", **base))
    force_switch_at(monkeypatch, 0.4)
    switched = run(s, SimulationSettings(kernels="auto", **base))
    assert switched.stats["kernels"].startswith("numpy, then compiled from t = 0.4"), switched.stats["kernels"]
    assert switched.stats["rhs_evaluations"] > 0
    same_trajectory(switched, numpy_run)


def test_a_kernel_missing_after_the_switch_sends_the_run_back_to_numpy(monkeypatch):
    """The compiled path raises KernelNotCached at its first output after t = 0.6 s (a kernel the cache lacks):
    the run continues on the numpy path from its last accepted state, every output is recorded once, and the
    trajectory equals the numpy run's."""
    numba_or_skip()
    from mechstudio.core.dynamics.projection import ProjectionFormulation
    from mechstudio.core.integrate.scipy_ivp import CompiledDOP853Stepper
    s = system("four_bar")
    base = dict(t_end=1.0, dt=0.01, rtol=1e-10, atol=1e-12)
    numpy_run = run(s, SimulationSettings(kernels="numpy", **base))
    force_switch_at(monkeypatch, 0.3)
    forgotten = []
    monkeypatch.setattr(jit, "forget_path", forgotten.append)
    monkeypatch.setattr(run_kernels.compiler, "request", lambda *a: True)
    fast = ProjectionFormulation.fast_output

    def missing_late(self, y, t, correction):
        if self._nb is not None and t > 0.6:
            raise KernelNotCached("k_output is not in the kernel cache")
        return fast(self, y, t, correction)
    monkeypatch.setattr(ProjectionFormulation, "fast_output", missing_late)
    # the driver's own steps (the loop that meets the missing kernel; a compiled segment that misses one hands
    # its steps to that loop: tests/test_driver_segments.py)
    monkeypatch.setattr(CompiledDOP853Stepper, "segment", lambda self, request: None)
    monkeypatch.setattr(run_kernels, "MAX_FALLBACKS", 1)  # stay on numpy after the first miss
    back = run(s, SimulationSettings(kernels="auto", **base))
    assert back.stats["kernels"].startswith("numpy (compiled from t = 0.3"), back.stats["kernels"]
    assert forgotten == ["projection-planar-svd"]
    assert len(back.frames.t) == 101 and np.all(np.diff(back.frames.t) > 0)
    same_trajectory(back, numpy_run)


def test_auto_keeps_a_short_run_on_numpy_and_switches_a_long_one(monkeypatch):
    """The decision of core.run.kernels: a run whose estimated numpy work stays below the start-up cost stays on
    numpy; one above it switches (the path marked ready; the start-up cost made large, then small)."""
    numba_or_skip()
    monkeypatch.setattr(jit, "path_ready", lambda key: {})
    monkeypatch.setattr(run_kernels, "PROCESS", run_kernels.ProcessRecord())
    s = system("double_pendulum")
    settings = SimulationSettings(t_end=2.0, dt=0.01, kernels="auto")
    monkeypatch.setattr(run_kernels, "startup_cost", lambda key: 1e9)
    assert run(s, settings).stats["kernels"] == "numpy"
    monkeypatch.setattr(run_kernels, "startup_cost", lambda key: 1e-9)
    assert run(s, settings).stats["kernels"].startswith("numpy, then compiled")


def test_a_finished_compiled_run_marks_its_path_ready(monkeypatch):
    """A run in mode "compiled" (scripts/warm_kernels.py, the test suite) leaves the marker that auto runs look for."""
    numba_or_skip()
    marked = []
    monkeypatch.setattr(jit, "path_ready", lambda key: None)
    monkeypatch.setattr(jit, "mark_path_ready", lambda key, **info: marked.append(key))
    monkeypatch.setattr(run_kernels, "PROCESS", run_kernels.ProcessRecord())
    assert run(system("pendulum"), SimulationSettings(t_end=0.05, kernels="compiled")).status.ok
    assert marked == ["projection-planar-coordinates"] and "projection-planar-coordinates" in run_kernels.PROCESS.loaded
    assert run(system("pendulum"), SimulationSettings(t_end=0.05, kernels="numpy")).status.ok
    assert marked == ["projection-planar-coordinates"]  # a numpy run marks nothing


def test_ski_rental_counts_earlier_runs_of_the_process(monkeypatch):
    """P of core.run.kernels: numpy CPU of earlier auto runs adds to the estimate, so that a process of many short
    runs (a sweep) switches; the start-up cost is 0 once the path is loaded."""
    monkeypatch.setattr(run_kernels, "PROCESS", run_kernels.ProcessRecord())
    assert run_kernels.startup_cost("k") >= run_kernels.LOAD_CPU_S
    run_kernels.PROCESS.loaded.add("k")
    monkeypatch.setattr(jit, "numba_imported", lambda: True)
    assert run_kernels.startup_cost("k") == 0.0
    choice = run_kernels.KernelChoice(system("pendulum"), SimulationSettings(t_end=1.0, kernels="auto"))
    choice.has_paths, choice.gave_up, choice.mode = True, False, "auto"
    choice.finished(0.25, None, True)
    choice.finished(0.5, None, True)
    assert run_kernels.PROCESS.numpy_cpu == pytest.approx(0.75)


# --- the kernel policies of core.jit ------------------------------------------------------------------------------
def test_policy_cached_raises_instead_of_compiling():
    numba_or_skip()
    nb = jit.numba_module()

    def plus_one(x):  # noqa: ANN001, ANN202
        return x + 1
    fresh = nb.njit(plus_one)  # not cached on disk: calling it means compiling
    with kernel_policy("cached"), pytest.raises(KernelNotCached, match="plus_one"):
        fresh(1.0)
    with kernel_policy("compile"):
        assert fresh(1.0) == 2.0
    with kernel_policy("cached"):
        assert fresh(2.0) == 3.0  # compiled in this process: no compilation needed any more


BOUND_BY_THE_BUILDER = None


def test_a_kernel_set_that_fails_under_cached_leaves_its_module_as_it_was():
    numba_or_skip()
    calls = []

    @kernel_set
    def builder():
        calls.append(1)
        g = globals()
        g["BOUND_BY_THE_BUILDER"] = "compiled"
        g["NEW_NAME_OF_THE_BUILDER"] = 1
        raise KernelNotCached("k is not in the kernel cache")
    with kernel_policy("cached"), pytest.raises(KernelNotCached):
        builder()
    assert BOUND_BY_THE_BUILDER is None and "NEW_NAME_OF_THE_BUILDER" not in globals()
    with kernel_policy("cached"), pytest.raises(KernelNotCached):
        builder()  # not remembered as None: built again on the next call
    assert len(calls) == 2


def test_policy_numpy_gives_no_kernels_without_importing_numba(tmp_path):
    script = """
        import sys
        from mechstudio.core.jit import kernel_policy, numba_module
        from mechstudio.core.numerics import dense_kernels
        from mechstudio.core.systems import spatial_kernels
        with kernel_policy("numpy"):
            print(numba_module() is None, dense_kernels.compiled() is None,
                  spatial_kernels.kernels() == (spatial_kernels.k_position_terms, spatial_kernels.k_velocity_terms),
                  "numba" in sys.modules)
    """
    out = python(script, child_env(tmp_path / "cache"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True", "True", "False"], out.stdout


# --- the background compiler ------------------------------------------------------------------------------------
START_COMPILER = """
    import os, sys
    from mechstudio.core.model import load_model
    from mechstudio.core.run import compiler
    from mechstudio.core.simulate import SimulationSettings
    from mechstudio.core.systems.compile import compile_model
    model = load_model({path!r})
    assert compiler.request(compile_model(model), SimulationSettings.from_model(model), "projection-planar-coordinates")
    print(compiler.pids()[0], flush=True)
"""


@pytest.mark.parametrize("exit_how", ["exit", "os._exit"])
def test_the_background_compiler_does_not_outlive_its_parent(tmp_path, exit_how):
    """Normal exit: atexit terminates and waits for the compiler. ``os._exit`` (a forked worker's way out, atexit
    skipped): the compiler sees its standard input close and exits by itself (within 60 s: it may still be
    importing when its parent goes)."""
    numba_or_skip()
    script = START_COMPILER.format(path=str(SAMPLES / "pendulum.json"))
    if exit_how == "os._exit":
        script += "    os._exit(0)\n"
    out = python(script, child_env(tmp_path / "cache"))
    assert out.returncode == 0, out.stderr
    pid = int(out.stdout.split()[0])
    assert wait_gone(pid, 5.0 if exit_how == "exit" else 60.0)


@pytest.mark.slow
def test_a_run_with_an_empty_cache_finishes_and_the_compiler_fills_the_cache(tmp_path):
    """A fresh install: the run finishes on the numpy path at once (status ok) while the background compiler
    compiles its path (the start-up cost made 0, so that the first estimate asks for it); once the compiler has
    finished, the cache holds the kernels and the path's marker, and a run in a new process switches to the
    compiled path under the policy "cached", i.e. without compiling anything (it would raise KernelNotCached and
    go back to numpy otherwise). No compiler outlives its process. The path is Wittenburg's (a spherical chain):
    the smallest kernel family, about 20 s of CPU to compile (the planar projection's takes 1-2 min)."""
    numba_or_skip()
    cache = tmp_path / "cache"
    key = "wittenburg-TreeMaximalSystem"
    script = f"""
        import json
        from mechstudio.core import jit
        from mechstudio.core.run import compiler, kernels
        from mechstudio.core.simulate import simulate
        kernels.IMPORT_CPU_S = kernels.LOAD_CPU_S = 0.0
        traj = simulate({str(SAMPLES / 'spherical_chain_3.json')!r}, t_end=2.0,
                            formulation='wittenburg')
        first = dict(status=traj.status.value, kernels=traj.stats["kernels"], pids=compiler.pids())
        finished = compiler.wait(900)
        print(json.dumps(dict(first, finished=finished, state=compiler.state({key!r}),
                              ready=jit.path_ready({key!r}) is not None,
                              cached=len(list(jit.kernel_cache_dir().rglob("*.nbi"))))))
    """
    out = python(script, child_env(cache), timeout=1200)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["status"] == "finished" and got["kernels"] == "numpy" and len(got["pids"]) == 1, got
    assert got["finished"] and got["state"] == "done" and got["ready"] and got["cached"] > 0, got
    assert gone(got["pids"][0])
    again = f"""
        from mechstudio.core.run import kernels
        from mechstudio.core.simulate import simulate
        kernels.IMPORT_CPU_S = kernels.LOAD_CPU_S = 0.0
        traj = simulate({str(SAMPLES / 'spherical_chain_3.json')!r}, t_end=2.0,
                            formulation='wittenburg')
        print(traj.status.value, traj.stats["kernels"].startswith("numpy, then compiled"))
    """
    out = python(again, child_env(cache), timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-2:] == ["finished", "True"], out.stdout
