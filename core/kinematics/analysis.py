"""Position, velocity and acceleration analysis of driven (zero-DOF) mechanisms over time (source 003).

At each output time t_k: positions by Newton-Raphson on Phi(q, t_k) = 0 started from the second-order Taylor
prediction q + q' dt + q'' dt^2/2 of the previous time; velocities from Phi_q q' = -Phi_t; accelerations from
Phi_q q'' = gamma. Returns a status instead of raising when the mechanism locks or cannot be assembled.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mechstudio.core.kinematics.assembly import assemble, dof_report, solve_accelerations, solve_velocities
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.types import FloatArray, Status


@dataclass(frozen=True)
class KinematicResult:
    t: FloatArray  # (k,) [s]
    q: FloatArray  # (k, n)
    v: FloatArray  # (k, n)
    a: FloatArray  # (k, n)
    residual: FloatArray  # (k,) ||Phi|| after assembly
    status: Status
    message: str = ""


def driven_motion(system: ConstrainedSystem, times: FloatArray, q0: FloatArray | None = None) -> KinematicResult:
    """Kinematic analysis at ``times`` of a mechanism whose drivers fix every degree of freedom."""
    times = np.asarray(times, float)
    q = system.initial_guess() if q0 is None else np.asarray(q0, float)
    first = assemble(system, q, float(times[0]), hold=system.held_coordinates())
    empty = np.zeros((0, system.n))
    if not first.status.ok:
        return KinematicResult(times[:0], empty, empty, empty, np.zeros(0), first.status, first.message)
    report = dof_report(system, first.q, float(times[0]))
    if report.dof_positions > 0:
        return KinematicResult(times[:0], empty, empty, empty, np.zeros(0), Status.FAILED,
                               f"the mechanism has {report.dof_positions} degree(s) of freedom; kinematic analysis "
                               "needs drivers that fix all of them (d = 0). Use 'simulate' for free motion.")
    qs, vs, accs, res = [], [], [], []
    q = first.q
    v = np.zeros(system.n)
    a = np.zeros(system.n)
    t_prev = float(times[0])
    for t in times:
        dt = float(t) - t_prev
        guess = q + v * dt + 0.5 * a * dt * dt
        r = assemble(system, guess, float(t))
        if not r.status.ok:
            n = len(qs)
            return KinematicResult(times[:n], np.array(qs).reshape(n, -1), np.array(vs).reshape(n, -1),
                                   np.array(accs).reshape(n, -1), np.array(res), r.status, r.message)
        q = r.q
        v, _ = solve_velocities(system, q, float(t))
        a = solve_accelerations(system, q, v, float(t))
        qs.append(q); vs.append(v); accs.append(a); res.append(r.residual)
        t_prev = float(t)
    return KinematicResult(times, np.array(qs), np.array(vs), np.array(accs), np.array(res), Status.FINISHED)
