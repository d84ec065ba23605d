"""Run an MJCF file in MuJoCo and print the world centres of mass of named bodies at t = 0 and t_end (JSON).

    python mujoco_reference.py MODEL.xml T_END BODY [BODY ...]

Imports only numpy and mujoco, so that a test can run it with another interpreter (a venv with MuJoCo) when the
project's venv has none. The model runs from its reference configuration at rest (qpos0, qvel = 0) with contacts
disabled, fixed-step RK4 with h = 1e-4 s (global error ~ h^4 * |x^(5)|, far below 1e-9 m over 1 s for pendulums
of decimetres)."""
from __future__ import annotations

import json
import sys

import mujoco


def run(path: str, t_end: float, names: list[str]) -> dict:
    m = mujoco.MjModel.from_xml_path(path)
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.timestep = 1e-4
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    ids = [mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, n) for n in names]
    start = d.xipos[ids].tolist()
    steps = int(round(t_end / m.opt.timestep))
    for _ in range(steps):
        mujoco.mj_step(m, d)
    return {"start": start, "end": d.xipos[ids].tolist(), "time": d.time,
            "mass": [float(m.body_mass[i]) for i in ids], "inertia": [m.body_inertia[i].tolist() for i in ids]}


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1], float(sys.argv[2]), sys.argv[3:])))
