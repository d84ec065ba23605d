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


def end_points_of(tr: Any, n: int) -> np.ndarray:
    """(n, 3) lower end points of the rods at the trajectory's last frame [m]."""
    cols = tr.columns()
    out = np.zeros((n, 3))
    for k in range(n):
        b = f"q.rod{k + 1}"
        r = np.array([cols[f"{b}.{c}"][-1] for c in "xyz"])
        p = np.array([cols[f"{b}.q{c}"][-1] for c in range(4)])
        out[k] = r - quat_to_matrix((p / np.linalg.norm(p))[None])[0] @ np.array([0, 0, LENGTH / 2])
    return out


def ours(n: int, alternating: bool, t_end: float, rtol: float, dt: float | None = None,
         kernels: str = "compiled") -> tuple[float, np.ndarray, dict[str, Any]]:
    """(process CPU s of run(), end points at t_end, the run's statistics): the model compiled and the kernels
    loaded beforehand (an untimed short run)."""
    from mechstudio.core.model.io import model_from_data  # the model layer only for the runs of this bench
    from mechstudio.core.simulate import simulate  # see above
    model = model_from_data(hinge_chain_data(n, alternating, t_end=t_end, dt=t_end if dt is None else dt, rtol=rtol))
    simulate(model, t_end=min(0.05, t_end), dt=min(0.05, t_end), kernels=kernels)  # warm-up
    c0 = time.process_time()
    tr = simulate(model, kernels=kernels)
    cpu = time.process_time() - c0
    if not tr.status.ok:
        raise RuntimeError(f"hinge chain run failed: {tr.message}")
    return cpu, end_points_of(tr, n), dict(tr.stats)


def mujoco_run(n: int, alternating: bool, t_end: float, dt: float) -> tuple[float, np.ndarray]:
    """(process CPU s, end points at t_end) of MuJoCo's RK4 at time step ``dt`` on the exported chain
    (``mechstudio.core.interop.mjcf.maximal_to_mjcf``: body frames at the centres, keyframe ``initial``)."""
    import mujoco  # an optional peer engine: only this bench needs it
    from mechstudio.core.interop.mjcf import maximal_to_mjcf  # see above
    from mechstudio.core.model.io import model_from_data  # see above
    xml = maximal_to_mjcf(model_from_data(hinge_chain_data(n, alternating)))
    m = mujoco.MjModel.from_xml_string(xml)
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.timestep = dt
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    d = mujoco.MjData(m)
    key = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_KEY, "initial")
    if key >= 0:
        mujoco.mj_resetDataKeyframe(m, d, key)
    steps = int(round(t_end / dt))
    c0 = time.process_time()
    for _ in range(steps):
        mujoco.mj_step(m, d)
    cpu = time.process_time() - c0
    ids = [mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, f"rod{k + 1}") for k in range(n)]
    ends = np.array([d.xpos[i] + d.xmat[i].reshape(3, 3) @ np.array([0, 0, -LENGTH / 2]) for i in ids])
    return cpu, ends


def versus_mujoco(n: int = 10, alternating: bool = True, t_end: float = 1.0, rtol: float = 1e-8,
                  repeats: int = 3, dt_out: float | None = None) -> dict[str, Any]:
    """The bench row (module docstring): ours through run() at ``rtol`` against MuJoCo RK4 at the largest time
    step 4e-3 / 2^k whose end-point error is at most ours; CPU per simulated second and the ratio."""
    _, ref, _ = ours(n, alternating, t_end, 1e-12, kernels="compiled")
    _, ref_mj = mujoco_run(n, alternating, t_end, 1e-5)
    cross = float(np.abs(ref - ref_mj).max())
    cpu_ms, err_ms = [], 0.0
    for _ in range(max(1, repeats)):
        cpu, end, stats = ours(n, alternating, t_end, rtol, dt=dt_out)
        cpu_ms.append(cpu)
        err_ms = float(np.linalg.norm(end - ref, axis=1).max())
    dt, err_mj, cpu_mj = 4e-3, float("inf"), []
    while dt > 1e-5:
        cpu_mj = []
        for _ in range(max(1, repeats)):
            c, end = mujoco_run(n, alternating, t_end, dt)
            cpu_mj.append(c)
        err_mj = float(np.linalg.norm(end - ref, axis=1).max())
        if err_mj <= err_ms:
            break
        dt /= 2
    ours_s, mj_s = min(cpu_ms) / t_end, min(cpu_mj) / t_end
    return {"case": f"hinge chain N={n} ({'alternating' if alternating else 'parallel'} axes), {t_end:g} s",
            "ours_rtol": rtol, "ours_cpu_per_sim_s": ours_s, "ours_error_m": err_ms,
            "ours_rhs_evaluations": stats.get("rhs_evaluations"), "ours_kernels": stats.get("kernels"),
            "mujoco_rk4_dt": dt, "mujoco_cpu_per_sim_s": mj_s, "mujoco_error_m": err_mj,
            "reference_cross_check_m": cross, "ours_over_mujoco_cpu": ours_s / mj_s,
            "outputs_every_s": t_end if dt_out is None else dt_out}


__all__ = ["LENGTH", "MASS", "end_points_of", "hinge_angles", "hinge_axes", "hinge_chain_data", "mujoco_run", "ours",
           "versus_mujoco"]
