"""Shared helpers of the Appell tests: samples, random consistent states, an independent KKT reference."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

from mechstudio.core.kinematics.assembly import assemble, solve_velocities
from mechstudio.core.symbolic.quasi import null_space

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_models"


def planar_samples() -> list[str]:
    return sorted(p.name for p in SAMPLES.glob("*.json")
                  if json.loads(p.read_text()).get("kind", "planar") == "planar")


def choice_keys_of(name: str) -> list[str]:
    from mechstudio.core.symbolic.quasi import choice_keys
    return choice_keys(json.loads((SAMPLES / name).read_text()))


def consistent_state(system, rng: np.random.Generator, t: float = 0.0, spread: float = 0.05,
                     angle_range: tuple[int, float] | None = None):
    """A random (q, q') with Phi(q, t) = 0 (Newton from a perturbed start) and C q' + xi = 0."""
    base = system.initial_guess()
    for attempt in range(12):
        q0 = base + spread * 0.5 ** attempt * rng.standard_normal(system.n)
        if angle_range is not None:
            k, a = angle_range
            q0[k] = rng.uniform(-a, a)
        res = assemble(system, q0, t)
        if res.status.ok:
            break
    assert res.status.ok, res.message
    q = res.q
    C = system.constraint_matrix(q, t)
    N, _ = null_space(C)
    p = -np.linalg.lstsq(C, system.xi(q, t), rcond=None)[0] if C.shape[0] else np.zeros(system.n)
    v = p + N @ rng.standard_normal(N.shape[1])
    return q, v


def regular_state(system, q, t: float, rank: int, gap: float = 1e-3) -> bool:
    """True when C(q, t) has the regular rank ``rank`` with a clear gap: sigma_rank > gap sigma_1 and the
    remaining (redundant) singular values below 1e-12 sigma_1. Near a singular position (the parallelogram's
    flat change point) every formulation is ill-conditioned (KKT, projection and Appell differ by up to 1e-2
    there), so accuracy comparisons use regular states."""
    C = system.constraint_matrix(q, t)
    if C.shape[0] == 0 or rank == 0:
        return True
    s = np.linalg.svd(C, compute_uv=False)
    return bool(s[rank - 1] > gap * s[0] and (s.size == rank or s[rank] < 1e-12 * s[0]))


def regular_rank(system) -> int:
    """Rank of C at the assembled initial configuration (tolerance 1e-9 sigma_1)."""
    q0, _ = initial_state(system)
    return null_space(system.constraint_matrix(q0, 0.0))[1]


def kkt_accelerations(system, q, v, t):
    """q'' from the KKT system [M C^T; C 0] [q''; -lambda] = [h; -eta] (Lagrange multipliers; least squares
    for redundant constraints). Independent of quasi-velocities, null spaces and symbolic code."""
    M, C = system.mass_matrix(q, t), system.constraint_matrix(q, t)
    h, eta = system.forces(q, v, t), system.eta(q, v, t)
    n, m = system.n, C.shape[0]
    A = np.block([[M, C.T], [C, np.zeros((m, m))]])
    return np.linalg.lstsq(A, np.concatenate((h, -eta)), rcond=None)[0][:n]


def initial_state(system):
    res = assemble(system, system.initial_guess(), 0.0, hold=system.held_coordinates())
    v, _ = solve_velocities(system, res.q, 0.0, system.initial_velocity_specs())
    return res.q, v


def kkt_trajectory(system, q0, v0, times, rtol=1e-12, atol=1e-13):
    """Reference: y = [q; q'] with q'' from the KKT solve (index-1 DAE as ODE, no correction), DOP853."""
    n = system.n

    def f(t, y):
        return np.concatenate((y[n:], kkt_accelerations(system, y[:n], y[n:], t)))
    sol = solve_ivp(f, (times[0], times[-1]), np.concatenate((q0, v0)), method="DOP853", t_eval=times,
                    rtol=rtol, atol=atol)
    assert sol.success, sol.message
    return sol.y[:n].T


def formulation_trajectory(form, q0, v0, times, rtol=1e-12, atol=1e-13):
    y0 = form.pack(q0, v0, times[0])
    sol = solve_ivp(form.rhs, (times[0], times[-1]), y0, method="DOP853", t_eval=times, rtol=rtol, atol=atol)
    assert sol.success, sol.message
    return np.array([form.unpack(y, t)[0] for y, t in zip(sol.y.T, sol.t)])
