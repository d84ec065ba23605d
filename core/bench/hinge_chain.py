"""The N-hinge chain (spatial joints in joint coordinates, formulation "wittenburg") against MuJoCo.

The chain: N uniform rods (m = 0.5 kg, l = 0.3 m, inertia diag(J, J, 0.02 J) about the centre, J = m l^2/12, the
rod along its body z), rod 1 hanging from the ground point O by a hinge, rod k + 1 from the lower end of rod k;
hinge axes y, or alternately y and x (``alternating``: a spatial motion), released at rest from a bent pose
(relative hinge angles 0.5 + 0.1 sin k [rad]); gravity -z.

Accuracy is matched as the side-by-side benchmark does (docs/benchmarks.md, "Side by side with MuJoCo"): the
end-point error is the largest distance over the rods of the lower end point at t_end from a tight reference
(ours at rtol 1e-12, cross-checked by MuJoCo RK4 at dt 1e-5); MuJoCo's RK4 time step is halved from 4e-3 s until
its error is at most ours, and the CPU time of that run is compared with ours (process CPU per simulated second,
best of ``repeats``, model building excluded on both sides).
"""
from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from mechstudio.core.numerics.orientation import quat_to_matrix

MASS, LENGTH = 0.5, 0.3


def _quat(axis: int, angle: float) -> np.ndarray:
    q = np.zeros(4)
    q[0] = math.cos(angle / 2)
    q[1 + axis] = math.sin(angle / 2)
    return q


def _qmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def hinge_axes(n: int, alternating: bool) -> list[int]:
    """Hinge axis of every rod (0 x, 1 y)."""
    return [0 if (alternating and k % 2) else 1 for k in range(n)]


def hinge_angles(n: int) -> list[float]:
    """Relative hinge angles of the initial pose [rad]."""
    return [0.5 + 0.1 * math.sin(k) for k in range(n)]


def hinge_chain_data(n: int = 10, alternating: bool = True, t_end: float = 1.0, dt: float = 0.01,
                     rtol: float = 1e-8, atol: float | None = None) -> dict[str, Any]:
    """The model document of the chain (module docstring), formulation "wittenburg"."""
    h = LENGTH / 2
    J = MASS * LENGTH ** 2 / 12
    q = np.array([1.0, 0, 0, 0])
    top = np.zeros(3)
    bodies, joints = [], []
    for k, (ax, ang) in enumerate(zip(hinge_axes(n, alternating), hinge_angles(n))):
        q = _qmul(q, _quat(ax, ang))
        A = quat_to_matrix(q[None])[0]
        com = top - A @ np.array([0, 0, h])
        name = f"rod{k + 1}"
        bodies.append({"name": name, "mass": MASS, "inertia": [[J, 0, 0], [0, J, 0], [0, 0, 0.02 * J]],
                       "com": [0, 0, 0], "points": {"top": [0, 0, h], "end": [0, 0, -h]},
                       "geometry": [{"type": "cylinder", "from": [0, 0, h], "to": [0, 0, -h], "radius": 0.01}],
                       "initial": {"x": float(com[0]), "y": float(com[1]), "z": float(com[2]),
                                   "quaternion": [float(c) for c in q]}})
        axis = [0.0, 0.0, 0.0]
        axis[ax] = 1.0
        joints.append({"name": f"h{k + 1}", "type": "hinge", "body1": "ground" if k == 0 else f"rod{k}",
                       "point1": "O" if k == 0 else "end", "body2": name, "point2": "top", "axis1": axis,
                       "axis2": axis})
        top = com - A @ np.array([0, 0, h])
    sim = {"t_end": t_end, "dt": dt, "formulation": "wittenburg", "integrator": "dop853", "rtol": rtol,
           "atol": rtol / 100 if atol is None else atol}
    return {"format": "mechanism-studio-model", "version": 1, "name": f"hinge_chain_{n}", "kind": "spatial",
            "gravity": [0.0, 0.0, -9.81], "ground": {"points": {"O": [0.0, 0.0, 0.0]}}, "bodies": bodies,
            "joints": joints, "forces": [], "simulation": sim}


__all__ = ["LENGTH", "MASS", "hinge_angles", "hinge_axes", "hinge_chain_data"]
