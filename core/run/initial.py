"""The initial state of a run: the file's rough positions assembled, and consistent velocities."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mechstudio.core.kinematics.assembly import assemble, solve_velocities
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.types import FloatArray, Status

#: the residual ||C q' + xi|| (units of q') above which the initial velocities count as inconsistent
VELOCITY_RESIDUAL_MAX = 1e-8


@dataclass
class InitialState:
    """Assembled q and consistent q' (``status`` ok), or what was reached and why it failed (``message``)."""
    q: FloatArray
    v: FloatArray
    status: Status
    message: str


def initial_state(system: ConstrainedSystem, t0: float = 0.0) -> InitialState:
    """Assembled positions (Newton-Raphson, held coordinates kept) and the velocities solved from the prescribed
    coordinate rates (C q' = -xi exactly) of the file's initial conditions."""
    res = assemble(system, system.initial_guess(), t0, hold=system.held_coordinates())
    if not res.status.ok:  # the message names the time (the assembly's own messages mostly do already)
        message = res.message
        if "t = " not in message:
            message = f"the mechanism cannot be assembled at t = {t0:.6g} s: {message}"
        return InitialState(res.q, np.zeros(system.n), res.status, message)
    v, vres = solve_velocities(system, res.q, t0, system.initial_velocity_specs())
    if not np.all(np.isfinite(v)) or not vres <= VELOCITY_RESIDUAL_MAX:
        return InitialState(res.q, v, Status.FAILED,
                            f"no consistent initial velocities at t = {t0:.6g} s (residual {vres:.3g})")
    return InitialState(res.q, v, Status.CONVERGED, "")


__all__ = ["InitialState", "initial_state"]
