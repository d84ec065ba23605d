"""Benchmark rows for N-body spherical chains: right-hand-side cost and real-time factor.

:func:`tree_benchmark` returns one row (a dict) per chain size; ``mechstudio bench`` prints them. The chain:
N identical links (m = 0.5 kg, length 0.3 m, inertia of a slender rod about the centre of mass with a small
axial moment), joined end to end by spherical joints and hanging from a fixed point under gravity, released
from rest from a straight line tilted 0.5 rad about x and slightly twisted (tilt about y of 0.1 sin k rad for link
k). Wittenburg's formulation (quaternions) integrated by scipy's DOP853 at the given rtol (atol = rtol/100) over
``t_end`` in one span (no intermediate restarts). Columns:

* ``rhs_us``: CPU time of one right-hand-side evaluation (best of 5 repetitions of 50 calls) [us];
* ``rhs_evaluations``, ``cpu_seconds`` (process CPU time of the whole integration, single-threaded BLAS);
* ``real_time_factor`` = simulated time / CPU time (> 1: faster than real time);
* ``energy_drift``: max |E - E0| / (T0 + |V0|) over 20 sample times (no dissipation: should be ~rtol).
"""
from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
from scipy.integrate import solve_ivp

from mechstudio.core.model.io import model_from_data
from mechstudio.core.simulate import SimulationSettings, initial_state, run
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.numerics.orientation import quat_from_rotation_vector
from mechstudio.core.dynamics.wittenburg import ParametrizationSwitch, WittenburgFormulation


#: the support motion of ``sample_models/chain_on_shaking_base.json``: r0(t) = (0.03 sin 12t, 0.02 sin(7t + 0.5),
#: 0.02 sin 20t) m
SHAKING_BASE = {"position": [{"type": "harmonic", "amplitude": 0.03, "frequency": 12.0},
                             {"type": "harmonic", "amplitude": 0.02, "frequency": 7.0, "phase": 0.5},
                             {"type": "harmonic", "amplitude": 0.02, "frequency": 20.0}]}


def chain_model_data(n: int, length: float = 0.3, mass: float = 0.5, tilt: float = 0.5,
                     base: dict[str, Any] | None = None) -> dict[str, Any]:
    """The model document of the benchmark chain of ``n`` links (see module docstring), hanging from a support
    moving as ``base`` (a ``ground.motion`` object, e.g. :data:`SHAKING_BASE`) when given."""
    J = mass * length ** 2 / 12
    bodies, joints = [], []
    for k in range(n):
        q = quat_from_rotation_vector([tilt, 0.1 * np.sin(k), 0.0])[0]
        bodies.append({"name": f"link{k + 1}", "mass": mass,
                       "inertia": [[J, 0.0, 0.0], [0.0, J, 0.0], [0.0, 0.0, 0.02 * J]],
                       "points": {"in": [0.0, 0.0, length / 2], "out": [0.0, 0.0, -length / 2]},
                       "initial": {"quaternion": [float(x) for x in q], "omega": [0.0, 0.0, 0.0]}})
        joints.append({"name": f"J{k + 1}", "type": "spherical", "body1": "ground" if k == 0 else f"link{k}",
                       "point1": [0.0, 0.0, 0.0] if k == 0 else "out", "body2": f"link{k + 1}", "point2": "in"})
    return {"format": "mechanism-studio-model", "version": 1, "name": f"spherical_chain_{n}_bench",
            "kind": "spatial", "gravity": [0.0, 0.0, -9.81],
            "ground": {"points": {}} | ({"motion": base} if base else {}), "bodies": bodies, "joints": joints}


def chain_row(n: int, t_end: float = 2.0, rtol: float = 1e-8, parametrization: str = "quaternion"
              ) -> dict[str, Any]:
    """Benchmark one chain of ``n`` links (see module docstring)."""
    system = compile_model(model_from_data(chain_model_data(n)))
    form = WittenburgFormulation(system, parametrization=parametrization)
    q0, v0 = system.consistent_state(0.0)
    y0 = form.pack(q0, v0, 0.0)
    best = np.inf
    for _ in range(5):
        c0 = time.process_time()
        for _ in range(50):
            form.rhs_and_power(0.1, y0)
        best = min(best, (time.process_time() - c0) / 50)
    form.rhs_evaluations = 0
    fun = lambda t, y: form.rhs_and_power(t, y)[0]  # noqa: E731
    c0 = time.process_time()
    sol = solve_ivp(fun, (0.0, t_end), y0, method="DOP853", rtol=rtol, atol=rtol * 1e-2,
                    dense_output=True)
    cpu = time.process_time() - c0
    E0 = system.kinetic_energy(q0, v0, 0.0) + system.potential_energy(q0, 0.0)
    scale = system.kinetic_energy(q0, v0, 0.0) + abs(system.potential_energy(q0, 0.0))
    drift = 0.0
    for t in np.linspace(0.0, t_end, 21):
        q, v = form.unpack(sol.sol(t), t)
        drift = max(drift, abs(system.kinetic_energy(q, v, t) + system.potential_energy(q, t) - E0) / scale)
    return {"case": f"spherical chain N={n} (wittenburg, {parametrization})", "bodies": n, "t_end": t_end,
            "rtol": rtol, "rhs_us": best * 1e6, "rhs_evaluations": int(sol.nfev), "cpu_seconds": cpu,
            "real_time_factor": t_end / cpu if cpu > 0 else float("inf"), "energy_drift": drift,
            "status": "ok" if sol.success else sol.message}


def run_versus_bare(n: int = 10, rounds: int = 5, t_end: float = 2.0, dt: float = 0.01, rtol: float = 1e-8,
                    atol: float = 1e-10) -> dict[str, Any]:
    """The chain of ``n`` links through the application's driver (``mechstudio.core.simulate.run``: Wittenburg, DOP853,
    outputs every ``dt`` with q'', reactions, energies, violations, drift correction on) against the same
    formulation's right-hand side integrated bare (scipy ``solve_ivp`` DOP853 with the same rtol/atol and the
    same output times as ``t_eval``; no frames, no correction). ``rounds`` interleaved pairs in this process
    (the machine is shared: only the ratio of the best process CPU times is meaningful).

    ``run_over_bare_speed`` = bare CPU / run() CPU: the fraction of the bare formulation's speed that a full run
    keeps (target: >= 0.8)."""
    system = compile_model(model_from_data(chain_model_data(n)))
    init = initial_state(system)
    settings = SimulationSettings(t_end=t_end, dt=dt, formulation="wittenburg", integrator="dop853", rtol=rtol,
                                  atol=atol, correction=True)
    times = np.linspace(0.0, t_end, int(round(t_end / dt)) + 1)

    def bare() -> Any:
        form = WittenburgFormulation(system, parametrization="quaternion")
        y0 = form.pack(init.q, init.v, 0.0)
        return solve_ivp(lambda t, y: form.rhs_and_power(t, y)[0], (0.0, t_end), y0, method="DOP853", rtol=rtol,
                         atol=atol, t_eval=times)

    def full() -> Any:
        return run(system, settings, q0=init.q, v0=init.v)

    bare()  # warm-up: first calls, compiled kernels loaded
    full()
    cpu_bare, cpu_run = np.inf, np.inf
    for _ in range(max(1, rounds)):
        c0 = time.process_time()
        sol = bare()
        cpu_bare = min(cpu_bare, time.process_time() - c0)
        c0 = time.process_time()
        traj = full()
        cpu_run = min(cpu_run, time.process_time() - c0)
    return {"case": f"spherical chain N={n}: run() vs bare", "bodies": n, "t_end": t_end, "rtol": rtol,
            "bare_cpu_s": cpu_bare, "run_cpu_s": cpu_run, "bare_rtf": t_end / cpu_bare, "run_rtf": t_end / cpu_run,
            "bare_rhs_evaluations": int(sol.nfev), "run_rhs_evaluations": int(traj.stats["rhs_evaluations"]),
            "run_over_bare_speed": cpu_bare / cpu_run,
            "status": traj.status.value if sol.success else f"bare: {sol.message}"}


#: the variants of :func:`variants_versus_still`: (label, moving base, parametrization)
VARIANTS = (("still base, quaternion", False, "quaternion"), ("shaking base, quaternion", True, "quaternion"),
            ("still base, bryant", False, "bryant"), ("still base, euler313", False, "euler313"),
            ("still base, matrix", False, "matrix"))


def variants_versus_still(n: int = 10, rounds: int = 3, t_end: float = 2.0, dt: float = 0.01, rtol: float = 1e-8,
                          atol: float = 1e-10, kernels: str = "numba") -> list[dict[str, Any]]:
    """The chain of ``n`` links through the application's driver (``mechstudio.core.simulate.run``, DOP853, outputs
    every ``dt``) in the :data:`VARIANTS`: on a still base and on the :data:`SHAKING_BASE`, with quaternions and
    the angle sets. ``rounds`` interleaved rounds in this process, best process CPU of each; the ratios
    ``cpu_over_still_quaternion`` are of one run (the machine is shared: only ratios measured together mean
    something). Targets: the shaking base <= 1.5x the still base, Bryant angles <= 1.5x quaternions."""
    runs = []
    for label, moving, param in VARIANTS:
        system = compile_model(model_from_data(chain_model_data(n, base=SHAKING_BASE if moving else None)))
        init = initial_state(system)
        settings = SimulationSettings(t_end=t_end, dt=dt, formulation="wittenburg", integrator="dop853", rtol=rtol,
                                      atol=atol, correction=True,
                                      options={"kernels": kernels, "parametrization": param})
        runs.append((label, system, init, settings))
    best = [np.inf] * len(runs)
    trajs: list[Any] = [None] * len(runs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParametrizationSwitch)  # the angle sets' expected switches
        for _, system, init, settings in runs:  # warm-up: kernels loaded, first calls
            run(system, settings, q0=init.q, v0=init.v)
        for _ in range(max(1, rounds)):
            for i, (_, system, init, settings) in enumerate(runs):
                c0 = time.process_time()
                trajs[i] = run(system, settings, q0=init.q, v0=init.v)
                best[i] = min(best[i], time.process_time() - c0)
    rows = []
    for (label, _, _, _), cpu, traj in zip(runs, best, trajs):
        rows.append({"case": f"spherical chain N={n}: {label}", "bodies": n, "t_end": t_end, "rtol": rtol,
                     "cpu_seconds": cpu, "real_time_factor": t_end / cpu,
                     "rhs_evaluations": int(traj.stats["rhs_evaluations"]),
                     "cpu_over_still_quaternion": cpu / best[0], "status": traj.status.value})
    return rows


def tree_benchmark(sizes: tuple[int, ...] = (1, 3, 10, 30, 100), rtol: float = 1e-8,
                   t_end: float = 2.0) -> list[dict[str, Any]]:
    """Rows for N-body spherical chains; N = 100 is integrated over t_end/4 to bound the run time."""
    return [chain_row(n, t_end=t_end if n < 100 else t_end / 4, rtol=rtol) for n in sizes]


if __name__ == "__main__":  # pragma: no cover
    for row in tree_benchmark():
        print(f"{row['case']:<42} rhs {row['rhs_us']:8.1f} us  nfev {row['rhs_evaluations']:6d}  "
              f"cpu {row['cpu_seconds']:7.3f} s  RTF {row['real_time_factor']:7.2f}  dE {row['energy_drift']:.1e}")
