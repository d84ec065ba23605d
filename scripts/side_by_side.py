"""Side-by-side speed and accuracy of Mechanism Studio against peer engines, in ONE invocation.

Project copy of ../shared/benchmarks/side_by_side.py (2026-11-24), adapted in four places only: the results go to
build/side_by_side/ (not next to the shared script); ``--skip TEXT`` (repeatable) leaves out the timed variants
whose label contains TEXT (a short run, e.g. ``--skip "dt 1e-5"`` without Exudyn's ~55 s-a-repeat fine-step rows);
and Mechanism Studio's worker compiles its kernels into an
empty numba cache (filled by the untimed warm-ups) instead of a copy of core/__pycache__/numba-*. That folder is
where an old version of the project kept its kernel cache; core.jit now keys the cache folder by a digest of the
kernel sources (in the user cache folder), and a stale core/__pycache__/numba-* copy pointed to by
NUMBA_CACHE_DIR would load kernels compiled from older sources. The warm-up of a driver variant first runs it
briefly with ``kernels="compiled"`` (compiling in the foreground, as ``mechstudio warm`` does after an install): the
default kernel choice ("auto", mechstudio.core.run.kernels) starts a short run on the numpy path while a background
compiler fills an empty cache, which takes minutes; a process that has loaded the kernels starts every later run
compiled, as the timed runs then do (the start-up of a fresh process is measured by
``mechstudio bench --suite startup``).

    OPENBLAS_NUM_THREADS=1 python3 side_by_side.py [--repeats 3] [--ms-python P] [--peers-python P]

The orchestrator (this file, stdlib only) starts one worker subprocess per engine (this file again with
``--worker NAME``, under the engine's own venv) and talks to it with one JSON line per request/answer on a private
pipe (the worker's fd 1 is redirected to stderr, so that anything an engine prints cannot corrupt the protocol).
Workers are started once and stay warm; every timed run is preceded by an untimed warm-up of the same variant.

Workers and their venvs:
  ms      Mechanism Studio, the project's venv (MS_PROJECT, default the current directory; its .venv); the project tree is only read:
          PYTHONDONTWRITEBYTECODE=1, and numba's cache is pointed at a copy (in the temp folder) of the project's
          compiled-kernel cache core/__pycache__/numba-<digest>
  mujoco  MuJoCo, peers venv (PEERS_PYTHON, default MS_PROJECT/.venv-peers: pip install mujoco==4.0.0 exudyn==1.13.6 numpy scipy)
  exudyn  Exudyn, peers venv (PEERS_PYTHON, default MS_PROJECT/.venv-peers: pip install mujoco==4.0.0 exudyn==1.13.6 numpy scipy)
  scipy   a hand-written minimal-coordinate planar chain (absolute angles, dense mass matrix, numpy solve) with scipy's
          DOP853: the independent planar reference (rtol 1e-13) and a context row (rtol 1e-8); peers venv (PEERS_PYTHON, default MS_PROJECT/.venv-peers: pip install mujoco==4.0.0 exudyn==1.13.6 numpy scipy)

Phases:
  0. references (untimed): planar N = 10, 30: scipy minimal coordinates rtol 1e-13 (primary), Mechanism Studio
     rtol 1e-12, MuJoCo RK4 dt 1e-5 (cross-checks); spherical N = 10: Mechanism Studio Wittenburg rtol 1e-12
     (primary), MuJoCo RK4 dt 1e-5 (cross-check). Geometry check: the link end points at t = 0 of every model.
  1. interleaved timing: for repeat r = 1..R, for each case, for each (engine, variant): one run of 2 s simulated.
     Process CPU time (time.process_time in the worker, around the engine call only: model building, assembly
     and initial state excluded) and wall time. Accuracy = max over the links of |end point - reference| at
     t = 2 s [m].
  2. Mechanism Studio scaling: planar chains N = 3, 10, 30, 60, same settings, R repeats interleaved.
  3. cProfile of one Mechanism Studio run of the 30-link chain.
Load average (and a 1 s /proc/stat sample of the whole machine's busy fraction) before and after, plus the
load average after every repeat.

Geometry (core/bench/speed.py planar_chain_data, core/bench/tree_chains.py chain_model_data): N uniform links, m = 0.5 kg,
l = 0.3 m, J = m l^2/12 about the centre of mass (spherical: diag(J, J, 0.02 J), link along body z), released
from rest, gravity 9.81 m/s^2. Planar: absolute angle of link k phi_k = -pi/2 + 0.5 + 0.1 sin k, gravity -y
(MuJoCo: the x-z plane, hinge axis -y so that the angle is counter-clockwise, gravity -z; end points (x, z) ->
(x, y)). Spherical: orientation of link k (body -> world) = rotation vector (0.5, 0.1 sin k, 0), gravity -z.
Output (build/side_by_side/): side_by_side.json, side_by_side.md, side_by_side_profile_N30.txt.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(os.path.dirname(HERE), "build", "side_by_side")
PROJECT = os.environ.get("MS_PROJECT", os.getcwd())  # the project checkout (its .venv is used)
MS_PYTHON = os.path.join(PROJECT, ".venv", "bin", "python")
PEERS_PYTHON = os.environ.get("PEERS_PYTHON", os.path.join(PROJECT, ".venv-peers", "bin", "python"))
NUMBA_CACHE_COPY = os.path.join(tempfile.gettempdir(), "side_by_side_numba_cache")

L, MASS, G = 0.3, 0.5, 9.81
J = MASS * L * L / 12
T_END = 2.0
TILT = 0.5


def planar_angles(n):
    return [-math.pi / 2 + TILT + 0.1 * math.sin(k) for k in range(n)]


# ================================================================================================================
# workers
# ================================================================================================================
class Worker:
    """Base: ``handle(request) -> dict``; ``op`` selects the method."""
    name = "?"

    def handle(self, req):
        return getattr(self, "op_" + req["op"])(**{k: v for k, v in req.items() if k != "op"})

    def op_versions(self):
        return {"python": sys.version.split()[0], "executable": sys.executable}

    def timed(self, prepare, go, finish):
        """prepare() -> ctx (untimed); go(ctx) timed by process CPU and wall time; finish(ctx, out) -> dict."""
        import gc
        ctx = prepare()
        gc.collect()
        c0, w0 = time.process_time(), time.perf_counter()
        out = go(ctx)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        res = finish(ctx, out)
        res.update(cpu=cpu, wall=wall)
        return res


# ---------------------------------------------------------------------------------------------------- Mechanism Studio
class MSWorker(Worker):
    name = "ms"

    def __init__(self):
        import numpy as np
        from mechstudio.core.bench.speed import planar_chain_data
        from mechstudio.core.model.io import model_from_data
        from mechstudio.core.simulate import SimulationSettings, initial_state, run
        from mechstudio.core.systems.compile import compile_model
        from mechstudio.core.bench.tree_chains import chain_model_data
        self.np, self.run, self.Settings, self.initial_state = np, run, SimulationSettings, initial_state
        self.compile_model, self.model_from_data = compile_model, model_from_data
        self.planar_chain_data, self.chain_model_data = planar_chain_data, chain_model_data
        self.systems = {}
        self.compiled = set()  # (kind, n, variant) whose kernels this worker has compiled and loaded

    def op_versions(self):
        import numba
        import numpy
        import scipy
        out = super().op_versions()
        out.update(numpy=numpy.__version__, scipy=scipy.__version__, numba=numba.__version__,
                   NUMBA_CACHE_DIR=os.environ.get("NUMBA_CACHE_DIR"))
        try:
            out["project_commit"] = subprocess.run(["git", "-C", PROJECT, "rev-parse", "HEAD"], capture_output=True,
                                                   text=True).stdout.strip()
        except OSError:
            pass
        return out

    def system(self, kind, n):
        key = (kind, n)
        if key not in self.systems:
            data = self.planar_chain_data(n) if kind == "planar" else self.chain_model_data(n)
            b0 = data["bodies"][0]
            assert abs(b0["mass"] - MASS) < 1e-15, b0
            if kind == "planar":
                assert b0["points"]["b"] == [L, 0.0] and abs(b0["inertia"] - J) < 1e-15, b0
            else:
                assert b0["points"]["out"] == [0.0, 0.0, -L / 2] and abs(b0["inertia"][0][0] - J) < 1e-15, b0
            system = self.compile_model(self.model_from_data(data))
            init = self.initial_state(system)
            assert init.status.ok, init.message
            self.systems[key] = (system, init)
        return self.systems[key]

    def tips(self, kind, q):
        np = self.np
        if kind == "planar":
            q = np.asarray(q).reshape(-1, 3)  # centre of mass x, y and phi per link
            return (q[:, :2] + (L / 2) * np.stack([np.cos(q[:, 2]), np.sin(q[:, 2])], 1)).tolist()
        q = np.asarray(q).reshape(-1, 7)  # centre of mass x, y, z and Euler parameters (body -> world)
        out = []
        for r in q:
            w, x, y, z = r[3:] / np.linalg.norm(r[3:])
            R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                          [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                          [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
            out.append((r[:3] + R @ np.array([0.0, 0.0, -L / 2])).tolist())
        return out

    def op_initial_tips(self, kind, n):
        system, init = self.system(kind, n)
        return {"tips": self.tips(kind, init.q)}

    def op_run(self, kind, n, variant, t_end=T_END, rtol=1e-8, atol=1e-10):
        np = self.np
        system, init = self.system(kind, n)
        if variant in ("projection", "wittenburg"):  # the application's driver, as core/bench/speed.py run_case
            settings = self.Settings(t_end=t_end, dt=0.01, formulation=variant, integrator="dop853", rtol=rtol,
                                     atol=atol, correction=True)

            if (kind, n, variant) not in self.compiled:  # untimed: the kernels compiled and loaded (module docstring)
                self.run(system, self.Settings(t_end=0.02, dt=0.01, formulation=variant, integrator="dop853",
                                               rtol=rtol, atol=atol, correction=True, kernels="compiled"),
                         q0=init.q, v0=init.v)
                self.compiled.add((kind, n, variant))

            def go(_):
                return self.run(system, settings, q0=init.q, v0=init.v)

            def finish(_, traj):
                st = traj.stats
                ok = traj.status.value == "finished" and abs(float(traj.frames.t[-1]) - t_end) < 1e-9
                return {"ok": bool(ok), "status": traj.status.value, "t_final": float(traj.frames.t[-1]),
                        "tips": self.tips(kind, traj.frames.q[-1]), "rhs_evaluations": int(st["rhs_evaluations"]),
                        "steps": int(st["steps"]), "svds": int(st.get("svd_count", 0)),
                        "outputs": int(len(traj.frames.t)),
                        "max_violation": float(traj.frames.violation_position.max())}
            return self.timed(lambda: None, go, finish)
        if variant == "wittenburg_bare":  # core/bench/tree_chains.py chain_row: one solve_ivp span, no outputs/correction
            from scipy.integrate import solve_ivp

            from mechstudio.core.dynamics.wittenburg import WittenburgFormulation

            def prepare():
                form = WittenburgFormulation(system, parametrization="quaternion")
                q0, v0 = system.consistent_state(0.0)
                return form, form.pack(q0, v0, 0.0)

            def go(ctx):
                form, y0 = ctx
                return solve_ivp(lambda t, y: form.rhs_and_power(t, y)[0], (0.0, t_end), y0, method="DOP853",
                                 rtol=rtol, atol=atol, dense_output=True)

            def finish(ctx, sol):
                form, _ = ctx
                q, _ = form.unpack(sol.y[:, -1], float(sol.t[-1]))
                return {"ok": bool(sol.success and abs(sol.t[-1] - t_end) < 1e-12), "t_final": float(sol.t[-1]),
                        "tips": self.tips(kind, q), "rhs_evaluations": int(sol.nfev), "steps": int(len(sol.t) - 1)}
            return self.timed(prepare, go, finish)
        raise ValueError(variant)

    def op_rhs_cost(self, n, calls=200, repeats=5):
        """Per-call CPU time of the projection formulation's right-hand side and of one output frame (unpack,
        correction, q'', lambda, reactions, energies) at the initial state of the planar N-link chain [us]."""
        np = self.np
        from mechstudio.core.dynamics.base import get_formulation
        system, init = self.system("planar", n)
        form = get_formulation("projection")(system)
        y = form.restart(init.q, init.v, 0.0)
        yy = np.append(y, 0.0)
        out = {}
        for name, fn in (("rhs_us", lambda: form.rhs_augmented(0.0, yy)),
                         ("output_us", lambda: form.fast_output(y, 0.0, True))):
            fn()
            best = math.inf
            for _ in range(repeats):
                c0 = time.process_time()
                for _ in range(calls):
                    fn()
                best = min(best, (time.process_time() - c0) / calls)
            out[name] = 1e6 * best
        out["fused_path"] = form.fast_output(y, 0.0, True) is not None
        return out

    def op_profile(self, n, kind="planar", variant="projection", top=10, path=None):
        import cProfile
        import io
        import pstats
        system, init = self.system(kind, n)
        settings = self.Settings(t_end=T_END, dt=0.01, formulation=variant, integrator="dop853", rtol=1e-8,
                                 atol=1e-10, correction=True)
        self.run(system, settings, q0=init.q, v0=init.v)  # warm
        c0 = time.process_time()
        traj = self.run(system, settings, q0=init.q, v0=init.v)
        plain = time.process_time() - c0
        pr = cProfile.Profile()
        c0 = time.process_time()
        pr.enable()
        traj = self.run(system, settings, q0=init.q, v0=init.v)
        pr.disable()
        profiled = time.process_time() - c0
        st = pstats.Stats(pr)
        total = st.total_tt

        def rows(key):
            out = []
            for (fn, line, func), (cc, nc, tt, ct, _) in sorted(st.stats.items(), key=lambda kv: -kv[1][key])[:top]:
                short = fn.replace(PROJECT + "/", "").replace(sys.prefix, "<venv>")
                out.append({"function": f"{short}:{line}({func})", "ncalls": nc, "tottime_s": tt, "cumtime_s": ct,
                            "cum_percent": 100 * ct / total, "tot_percent": 100 * tt / total})
            return out
        if path:
            buf = io.StringIO()
            s2 = pstats.Stats(pr, stream=buf)
            s2.sort_stats("cumulative").print_stats(40)
            s2.sort_stats("tottime").print_stats(30)
            with open(path, "w") as f:
                f.write(f"# Mechanism Studio {kind} chain N={n}, 2 s, {variant} DOP853 rtol 1e-8 atol 1e-10, "
                        f"run() driver\n# CPU s without profiler {plain:.4f}, with {profiled:.4f}; "
                        f"rhs evaluations {traj.stats['rhs_evaluations']}, steps {traj.stats['steps']}\n")
                f.write(buf.getvalue())
        return {"kind": kind, "variant": variant, "n": n, "cpu_unprofiled_s": plain, "cpu_profiled_s": profiled, "profile_total_s": total,
                "rhs_evaluations": int(traj.stats["rhs_evaluations"]), "steps": int(traj.stats["steps"]),
                "top_cumulative": rows(3), "top_tottime": rows(2)}


# --------------------------------------------------------------------------------------------------------------- MuJoCo
def _qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return [w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2]


def _quat_rv(r):
    a = math.sqrt(sum(x * x for x in r))
    if a < 1e-12:
        return [1.0, 0.0, 0.0, 0.0]
    s = math.sin(a / 2) / a
    return [math.cos(a / 2), r[0] * s, r[1] * s, r[2] * s]


def ball_quats(n):
    """Absolute orientations (w, x, y, z), body -> world, as core/bench/tree_chains.py chain_model_data."""
    return [_quat_rv([TILT, 0.1 * math.sin(k), 0.0]) for k in range(n)]


class MuJoCoWorker(Worker):
    name = "mujoco"

    def __init__(self):
        import mujoco
        import numpy as np
        self.mj, self.np = mujoco, np
        self.models = {}

    def op_versions(self):
        import numpy
        out = super().op_versions()
        out.update(mujoco=self.mj.__version__, numpy=numpy.__version__)
        return out

    @staticmethod
    def xml(kind, n, dt):
        body = ""
        for i in range(n):
            if kind == "planar":  # link along body x, hinge about -y: counter-clockwise angle in the x-z plane
                pos = "0 0 0" if i == 0 else f"{L!r} 0 0"
                body += (f'<body name="b{i}" pos="{pos}"><joint type="hinge" axis="0 -1 0"/>'
                         f'<inertial pos="{L / 2!r} 0 0" mass="{MASS!r}" diaginertia="{0.02 * J!r} {J!r} {J!r}"/>'
                         f'<site name="tip{i}" pos="{L!r} 0 0"/>')
            else:  # body frame at the joint, link along -z, same axes as the project's body frame
                pos = "0 0 0" if i == 0 else f"0 0 {-L!r}"
                body += (f'<body name="b{i}" pos="{pos}"><joint type="ball"/>'
                         f'<inertial pos="0 0 {-L / 2!r}" mass="{MASS!r}" diaginertia="{J!r} {J!r} {0.02 * J!r}"/>'
                         f'<site name="tip{i}" pos="0 0 {-L!r}"/>')
        body += "</body>" * n
        return (f'<mujoco><option timestep="{dt!r}" integrator="RK4" gravity="0 0 {-G!r}">'
                f'<flag contact="disable"/></option><worldbody>{body}</worldbody></mujoco>')

    def model(self, kind, n, dt):
        key = (kind, n, dt)
        if key not in self.models:
            m = self.mj.MjModel.from_xml_string(self.xml(kind, n, dt))
            self.models[key] = (m, self.mj.MjData(m))
        return self.models[key]

    def reset(self, kind, n, dt):
        m, d = self.model(kind, n, dt)
        self.mj.mj_resetData(m, d)
        if kind == "planar":
            ph = planar_angles(n)
            d.qpos[:] = [ph[0]] + [ph[k] - ph[k - 1] for k in range(1, n)]
        else:
            Q = ball_quats(n)
            for k in range(n):
                d.qpos[4 * k:4 * k + 4] = Q[0] if k == 0 else _qmul([Q[k - 1][0]] + [-x for x in Q[k - 1][1:]], Q[k])
        d.qvel[:] = 0.0
        self.mj.mj_forward(m, d)
        return m, d

    def tips(self, kind, d):
        p = self.np.array(d.site_xpos)
        return (p[:, [0, 2]] if kind == "planar" else p).tolist()

    def op_initial_tips(self, kind, n):
        m, d = self.reset(kind, n, 1e-3)
        return {"tips": self.tips(kind, d)}

    def op_run(self, kind, n, dt, t_end=T_END):
        steps = int(round(t_end / dt))

        def go(ctx):
            m, d = ctx
            self.mj.mj_step(m, d, nstep=steps)  # the C loop

        def finish(ctx, _):
            m, d = ctx
            ok = bool(self.np.isfinite(d.qpos).all()) and abs(d.time - t_end) < 1e-6
            return {"ok": ok, "t_final": float(d.time), "tips": self.tips(kind, d), "steps": steps}
        return self.timed(lambda: self.reset(kind, n, dt), go, finish)


# --------------------------------------------------------------------------------------------------------------- Exudyn
class ExudynWorker(Worker):
    name = "exudyn"

    def __init__(self):
        import exudyn
        import numpy as np
        self.exu, self.np = exudyn, np

    def op_versions(self):
        import numpy
        out = super().op_versions()
        out.update(exudyn=self.exu.__version__, numpy=numpy.__version__)
        return out

    def build_redundant(self, n):
        """As bench_exudyn.py 2D: NodeRigidBody2D (x, y, phi) per link + RevoluteJoint2D, here with this geometry."""
        exu, np = self.exu, self.np
        from exudyn.utilities import MarkerBodyPosition, ObjectGround, RevoluteJoint2D, RigidBodyInertia, \
            RotationVector2RotationMatrix
        SC = exu.SystemContainer()
        mbs = SC.AddSystem()
        ground = mbs.AddObject(ObjectGround())
        p = np.zeros(3)
        prev, bodies = ground, []
        for i, ph in enumerate(planar_angles(n)):
            e = np.array([math.cos(ph), math.sin(ph), 0.0])
            b = mbs.CreateRigidBody(inertia=RigidBodyInertia(MASS, np.diag([0.02 * J, J, J])),
                                    referencePosition=list(p + 0.5 * L * e),
                                    referenceRotationMatrix=RotationVector2RotationMatrix([0, 0, ph]),
                                    gravity=[0, -G, 0], create2D=True)
            mb = mbs.AddMarker(MarkerBodyPosition(bodyNumber=b, localPosition=[-L / 2, 0, 0]))
            mp = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground if i == 0 else prev,
                                                  localPosition=[0, 0, 0] if i == 0 else [L / 2, 0, 0]))
            mbs.AddObject(RevoluteJoint2D(markerNumbers=[mp, mb]))
            p = p + L * e
            prev = b
            bodies.append(b)
        mbs.Assemble()
        return SC, mbs, bodies

    def build_tree(self, n):
        """Exudyn's minimal-coordinate ObjectKinematicTree (RevoluteZ joints): the model its explicit solvers run."""
        exu, np = self.exu, self.np
        import exudyn.itemInterface as eii
        SC = exu.SystemContainer()
        mbs = SC.AddSystem()
        ph = planar_angles(n)
        q0 = [ph[0]] + [ph[k] - ph[k - 1] for k in range(1, n)]
        node = mbs.AddNode(eii.NodeGenericODE2(referenceCoordinates=[0.0] * n, initialCoordinates=q0,
                                               initialCoordinates_t=[0.0] * n, numberOfODE2Coordinates=n))
        mbs.AddObject(eii.ObjectKinematicTree(
            nodeNumber=node, jointTypes=[exu.JointType.RevoluteZ] * n, linkParents=list(range(-1, n - 1)),
            jointTransformations=exu.Matrix3DList([np.eye(3)] * n),
            jointOffsets=exu.Vector3DList([[0.0, 0.0, 0.0]] + [[L, 0.0, 0.0]] * (n - 1)),
            linkInertiasCOM=exu.Matrix3DList([np.diag([0.02 * J, J, J])] * n),
            linkCOMs=exu.Vector3DList([[L / 2, 0.0, 0.0]] * n), linkMasses=[MASS] * n, gravity=[0.0, -G, 0.0]))
        mbs.Assemble()
        return SC, mbs, None

    def settings(self, dt, t_end, sparse=True, auto=False, rtol=1e-8, atol=1e-10):
        exu = self.exu
        s = exu.SimulationSettings()
        s.timeIntegration.numberOfSteps = int(round(t_end / dt))
        s.timeIntegration.endTime = t_end
        s.timeIntegration.verboseMode = 0
        s.solution.file.write = False
        s.solution.sensors.writePeriod = 1e9
        s.show.computationTime = False
        s.show.statistics = False
        s.linearSolver.solverType = exu.LinearSolverType.EigenSparse if sparse else exu.LinearSolverType.EXUdense
        s.timeIntegration.automaticStepSize = auto
        if auto:
            s.timeIntegration.relativeTolerance = rtol
            s.timeIntegration.absoluteTolerance = atol
        return s

    def tips(self, model, mbs, bodies):
        np, exu = self.np, self.exu
        if model == "redundant":
            return [list(mbs.GetObjectOutputBody(b, exu.OutputVariableType.Position, localPosition=[L / 2, 0, 0],
                                                 configuration=exu.ConfigurationType.Current))[:2] for b in bodies]
        ph = np.cumsum(np.asarray(mbs.systemData.GetODE2Coordinates()))  # absolute angles from joint angles
        return np.cumsum(np.stack([L * np.cos(ph), L * np.sin(ph)], 1), 0).tolist()

    def op_initial_tips(self, kind, n, model):
        SC, mbs, bodies = (self.build_redundant if model == "redundant" else self.build_tree)(n)
        return {"tips": self.tips(model, mbs, bodies)}

    def op_probe_explicit_redundant(self, n=3):
        """Does an explicit RK solver accept the redundant chain (joints as algebraic constraints)?"""
        SC, mbs, bodies = self.build_redundant(n)
        try:
            ok = mbs.SolveDynamic(self.settings(1e-3, 0.01), solverType=self.exu.DynamicSolverType.RK44)
            return {"accepted": bool(ok), "message": ""}
        except Exception as exc:  # noqa: BLE001 - the engine's own error is the answer
            return {"accepted": False, "message": f"{type(exc).__name__}: {exc}"}

    def op_run(self, kind, n, model, solver, dt, sparse=True, auto=False, rtol=1e-8, atol=1e-10, t_end=T_END):
        assert kind == "planar"
        exu = self.exu

        def prepare():
            SC, mbs, bodies = (self.build_redundant if model == "redundant" else self.build_tree)(n)
            return SC, mbs, bodies, self.settings(dt, t_end, sparse=sparse, auto=auto, rtol=rtol, atol=atol)

        def go(ctx):
            SC, mbs, bodies, s = ctx
            return mbs.SolveDynamic(s, solverType=getattr(exu.DynamicSolverType, solver))

        def finish(ctx, ok):
            SC, mbs, bodies, s = ctx
            t = float(mbs.systemData.GetTime())
            return {"ok": bool(ok) and abs(t - t_end) < 1e-6, "t_final": t, "tips": self.tips(model, mbs, bodies),
                    "steps": None if auto else int(round(t_end / dt))}
        return self.timed(prepare, go, finish)


# ----------------------------------------------------------------------------------- scipy minimal-coordinate chain
class ScipyWorker(Worker):
    """Planar chain in absolute angles phi_k: M(phi) phi'' + (G o sin(phi_j - phi_k)) phi'^2 = -g cos(phi) s with
    G_jk = m sum_i a_ij a_ik (a_ij = l for j < i, l/2 for j = i), M = G o cos(phi_j - phi_k) + J I, s_j = m sum_i a_ij;
    dense numpy solve per evaluation, scipy DOP853."""
    name = "scipy"

    def __init__(self):
        import numpy as np
        from scipy.integrate import solve_ivp
        self.np, self.solve_ivp = np, solve_ivp

    def op_versions(self):
        import numpy
        import scipy
        out = super().op_versions()
        out.update(numpy=numpy.__version__, scipy=scipy.__version__)
        return out

    def rhs(self, n):
        np = self.np
        A = np.zeros((n, n))
        for i in range(n):
            A[i, :i] = L
            A[i, i] = L / 2
        Gm = MASS * A.T @ A
        s = MASS * A.sum(0)
        eye = J * np.eye(n)

        def f(t, y):
            ph, w = y[:n], y[n:]
            D = ph[:, None] - ph[None, :]
            return np.concatenate([w, np.linalg.solve(Gm * np.cos(D) + eye,
                                                      -G * np.cos(ph) * s - (Gm * np.sin(D)) @ (w * w))])
        return f

    def tips(self, ph):
        np = self.np
        return np.cumsum(np.stack([L * np.cos(ph), L * np.sin(ph)], 1), 0).tolist()

    def op_initial_tips(self, kind, n):
        return {"tips": self.tips(self.np.array(planar_angles(n)))}

    def op_run(self, kind, n, rtol, atol, t_end=T_END):
        np = self.np
        f = self.rhs(n)
        y0 = np.concatenate([planar_angles(n), np.zeros(n)])

        def go(_):
            return self.solve_ivp(f, (0.0, t_end), y0, method="DOP853", rtol=rtol, atol=atol)

        def finish(_, sol):
            return {"ok": bool(sol.success and abs(sol.t[-1] - t_end) < 1e-12), "t_final": float(sol.t[-1]),
                    "tips": self.tips(sol.y[:n, -1]), "rhs_evaluations": int(sol.nfev), "steps": int(len(sol.t) - 1)}
        return self.timed(lambda: None, go, finish)


WORKERS = {"ms": MSWorker, "mujoco": MuJoCoWorker, "exudyn": ExudynWorker, "scipy": ScipyWorker}


def worker_main(name):
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything the engines print goes to stderr, never into the protocol
    sys.stdout = sys.stderr
    w = WORKERS[name]()
    proto.write(json.dumps({"ready": name}) + "\n")
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("op") == "quit":
            break
        try:
            ans = {"ok_call": True, "result": w.handle(req)}
        except Exception as exc:  # noqa: BLE001 - reported to the orchestrator
            import traceback
            ans = {"ok_call": False, "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
        proto.write(json.dumps(ans) + "\n")


# ================================================================================================================
# orchestrator
# ================================================================================================================
class Proc:
    def __init__(self, name, python, env):
        self.name = name
        self.p = subprocess.Popen([python, os.path.abspath(__file__), "--worker", name], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env=env, cwd=HERE)
        hello = json.loads(self.p.stdout.readline())
        assert hello.get("ready") == name, hello

    def call(self, **req):
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"worker {self.name} died on {req}")
        ans = json.loads(line)
        if not ans["ok_call"]:
            raise RuntimeError(f"worker {self.name} failed on {req}: {ans['error']}\n{ans['traceback']}")
        return ans["result"]

    def close(self):
        try:
            self.p.stdin.write(json.dumps({"op": "quit"}) + "\n")
            self.p.stdin.flush()
        except OSError:
            pass
        self.p.wait(timeout=60)


def cpu_busy_fraction(seconds=1.0):
    """Busy fraction of all CPUs of the machine over ``seconds`` (from /proc/stat)."""
    def read():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]
    t0, i0 = read()
    time.sleep(seconds)
    t1, i1 = read()
    return 1.0 - (i1 - i0) / max(t1 - t0, 1)


def machine_state(tag):
    return {"when": tag, "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "loadavg": list(os.getloadavg()),
            "busy_fraction_1s": cpu_busy_fraction()}


def tip_error(tips, ref):
    return max(math.sqrt(sum((a - b) ** 2 for a, b in zip(p, r))) for p, r in zip(tips, ref))


def fmt(x, d=3):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    return f"{x:.{d}g}"


def variants():
    """(case, engine, label, request, note) in the order of one interleaved round."""
    out = []
    for n in (10, 30):
        case = f"planar chain N={n}"
        out += [
            (case, "ms", "Mechanism Studio, projection, DOP853 rtol 1e-8 atol 1e-10, run() driver (required)",
             dict(op="run", kind="planar", n=n, variant="projection", rtol=1e-8, atol=1e-10), "required"),
            (case, "ms", "Mechanism Studio, projection, DOP853 rtol 1e-6 atol 1e-8, run() driver",
             dict(op="run", kind="planar", n=n, variant="projection", rtol=1e-6, atol=1e-8), "extra: looser tolerance"),
            (case, "mujoco", "MuJoCo hinge chain, RK4 dt 1e-3 (required)",
             dict(op="run", kind="planar", n=n, dt=1e-3), "required"),
            (case, "mujoco", "MuJoCo hinge chain, RK4 dt 2.5e-4",
             dict(op="run", kind="planar", n=n, dt=2.5e-4), "extra: smaller step, accuracy near the project's"),
            (case, "exudyn", "Exudyn redundant 2D, generalized-alpha (default), dt 1e-3, EigenSparse",
             dict(op="run", kind="planar", n=n, model="redundant", solver="GeneralizedAlpha", dt=1e-3),
             "setting of bench_exudyn.py"),
            (case, "exudyn", "Exudyn redundant 2D, generalized-alpha (default), dt 1e-5, EigenSparse",
             dict(op="run", kind="planar", n=n, model="redundant", solver="GeneralizedAlpha", dt=1e-5),
             "required: step chosen for accuracy (default Newton tolerances)"),
            (case, "exudyn", "Exudyn KinematicTree (minimal coords), explicit RK44 dt 1e-3",
             dict(op="run", kind="planar", n=n, model="tree", solver="RK44", dt=1e-3),
             "explicit RK: not accepted on the redundant chain, so Exudyn's minimal-coordinate tree"),
            (case, "exudyn", "Exudyn KinematicTree (minimal coords), explicit DOPRI5 adaptive rtol 1e-8 atol 1e-10",
             dict(op="run", kind="planar", n=n, model="tree", solver="DOPRI5", dt=1e-3, auto=True, rtol=1e-8,
                  atol=1e-10), "explicit RK, adaptive (initial step 1e-3)"),
            (case, "scipy", "hand-written scipy minimal-coordinate chain, DOP853 rtol 1e-8 atol 1e-10",
             dict(op="run", kind="planar", n=n, rtol=1e-8, atol=1e-10), "context: 25-line numpy/scipy model"),
        ]
    case = "spherical chain N=10"
    out += [
        (case, "ms", "Mechanism Studio, wittenburg, DOP853 rtol 1e-8 atol 1e-10, run() driver (required)",
         dict(op="run", kind="spherical", n=10, variant="wittenburg", rtol=1e-8, atol=1e-10), "required"),
        (case, "ms", "Mechanism Studio, wittenburg, bare solve_ivp DOP853 rtol 1e-8 atol 1e-10 (trees-suite path)",
         dict(op="run", kind="spherical", n=10, variant="wittenburg_bare", rtol=1e-8, atol=1e-10),
         "extra: core/bench/tree_chains.py chain_row path, no outputs/correction"),
        (case, "mujoco", "MuJoCo ball chain, RK4 dt 1e-3 (required)",
         dict(op="run", kind="spherical", n=10, dt=1e-3), "required"),
        (case, "mujoco", "MuJoCo ball chain, RK4 dt 2.5e-4",
         dict(op="run", kind="spherical", n=10, dt=2.5e-4), "extra: smaller step"),
    ]
    return out


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ms-python", default=MS_PYTHON)
    ap.add_argument("--peers-python", default=PEERS_PYTHON)
    ap.add_argument("--scaling", default="3,10,30,60")
    ap.add_argument("--skip", action="append", default=[],
                    help="leave out the timed variants whose label contains this text (repeatable)")
    args = ap.parse_args(argv)
    t_start = time.perf_counter()
    os.makedirs(RESULTS, exist_ok=True)
    log = lambda *a: print(*a, file=sys.stderr, flush=True)  # noqa: E731

    # environment of every worker: single-threaded BLAS, no bytecode written, numba cache copied out of the project
    base_env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
    base_env.pop("PYTHONPATH", None)
    shutil.rmtree(NUMBA_CACHE_COPY, ignore_errors=True)  # an empty cache: compiled during the untimed warm-ups
    os.makedirs(NUMBA_CACHE_COPY)
    ms_env = dict(base_env, NUMBA_CACHE_DIR=NUMBA_CACHE_COPY)

    before = machine_state("before")
    log("machine before:", before)
    procs = {"ms": Proc("ms", args.ms_python, ms_env)}
    for name in ("mujoco", "exudyn", "scipy"):
        procs[name] = Proc(name, args.peers_python, base_env)
    versions = {name: p.call(op="versions") for name, p in procs.items()}
    log("versions:", json.dumps(versions))
    res = {"script": os.path.abspath(__file__), "argv": argv, "machine": {
        "platform": platform.platform(), "processor": platform.processor(), "nproc": os.cpu_count(),
        "cpu_model": next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")),
                          None)},
        "env": {k: base_env.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "PYTHONDONTWRITEBYTECODE")},
        "versions": versions, "machine_state": [before], "t_end": T_END}

    # ---------------------------------------------------------------------------------------------- phase 0
    log("phase 0: references and geometry")
    refs = {}
    for n in (10, 30):
        key = f"planar chain N={n}"
        r_scipy = procs["scipy"].call(op="run", kind="planar", n=n, rtol=1e-13, atol=1e-15)
        r_ms = procs["ms"].call(op="run", kind="planar", n=n, variant="projection", rtol=1e-12, atol=1e-14)
        r_mj = procs["mujoco"].call(op="run", kind="planar", n=n, dt=1e-5)
        refs[key] = {"primary": "scipy minimal coordinates DOP853 rtol 1e-13 atol 1e-15", "tips": r_scipy["tips"],
                     "cross_checks": {
                         "Mechanism Studio projection DOP853 rtol 1e-12 atol 1e-14":
                             {"diff_vs_primary_m": tip_error(r_ms["tips"], r_scipy["tips"]), "cpu": r_ms["cpu"]},
                         "MuJoCo RK4 dt 1e-5": {"diff_vs_primary_m": tip_error(r_mj["tips"], r_scipy["tips"]),
                                                "cpu": r_mj["cpu"]}},
                     "primary_cpu": r_scipy["cpu"], "primary_nfev": r_scipy["rhs_evaluations"]}
        assert r_scipy["ok"] and r_ms["ok"] and r_mj["ok"]
    key = "spherical chain N=10"
    r_ms = procs["ms"].call(op="run", kind="spherical", n=10, variant="wittenburg", rtol=1e-12, atol=1e-14)
    r_mj = procs["mujoco"].call(op="run", kind="spherical", n=10, dt=1e-5)
    assert r_ms["ok"] and r_mj["ok"]
    refs[key] = {"primary": "Mechanism Studio wittenburg DOP853 rtol 1e-12 atol 1e-14 (run() driver)",
                 "tips": r_ms["tips"], "primary_cpu": r_ms["cpu"],
                 "cross_checks": {"MuJoCo RK4 dt 1e-5": {"diff_vs_primary_m": tip_error(r_mj["tips"], r_ms["tips"]),
                                                         "cpu": r_mj["cpu"]}}}
    for k, v in refs.items():
        log(k, {c: f"{d['diff_vs_primary_m']:.2e}" for c, d in v["cross_checks"].items()})
    res["references"] = refs

    geo = {}
    for kind, n in (("planar", 10), ("planar", 30), ("spherical", 10)):
        base = procs["ms"].call(op="initial_tips", kind=kind, n=n)["tips"]
        others = {"mujoco": procs["mujoco"].call(op="initial_tips", kind=kind, n=n)["tips"]}
        if kind == "planar":
            others["exudyn redundant"] = procs["exudyn"].call(op="initial_tips", kind=kind, n=n, model="redundant")["tips"]
            others["exudyn tree"] = procs["exudyn"].call(op="initial_tips", kind=kind, n=n, model="tree")["tips"]
            others["scipy"] = procs["scipy"].call(op="initial_tips", kind=kind, n=n)["tips"]
        geo[f"{kind} N={n}"] = {k: tip_error(v, base) for k, v in others.items()}
    res["geometry_check_t0_max_endpoint_diff_vs_ms_m"] = geo
    log("geometry at t=0 (max end-point difference vs Mechanism Studio):", geo)
    res["exudyn_explicit_on_redundant_chain"] = procs["exudyn"].call(op="probe_explicit_redundant")
    log("exudyn explicit RK on the redundant chain:", res["exudyn_explicit_on_redundant_chain"])

    # ---------------------------------------------------------------------------------------------- phase 1
    var = [v for v in variants() if not any(text in v[2] for text in args.skip)]
    log("phase 1: warm-up")
    for case, eng, label, req, note in var:  # untimed warm-up of every variant (imports, JIT cache, first calls)
        procs[eng].call(**dict(req, t_end=0.1))
    runs = []
    order = 0
    for r in range(args.repeats):
        log(f"phase 1: repeat {r + 1}/{args.repeats}")
        for case, eng, label, req, note in var:
            out = procs[eng].call(**req)
            order += 1
            err = tip_error(out["tips"], refs[case]["tips"])
            runs.append({"order": order, "repeat": r + 1, "case": case, "engine": eng, "label": label,
                         "request": req, "cpu": out["cpu"], "wall": out["wall"], "ok": out["ok"],
                         "t_final": out["t_final"], "tip_error_m": err,
                         **{k: out[k] for k in ("rhs_evaluations", "steps", "svds", "outputs", "max_violation")
                            if k in out}})
            log(f"  {case:22s} {label[:70]:70s} cpu {out['cpu']:8.4f} wall {out['wall']:8.4f} err {err:.2e}"
                f" ok {out['ok']}")
        res["machine_state"].append({"when": f"after repeat {r + 1}", "loadavg": list(os.getloadavg()),
                                     "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")})
    res["runs"] = runs
    summary = []
    for case, eng, label, req, note in var:
        rs = [x for x in runs if x["case"] == case and x["label"] == label]
        cpus = [x["cpu"] for x in rs]
        walls = [x["wall"] for x in rs]
        errs = [x["tip_error_m"] for x in rs]
        row = {"case": case, "engine": eng, "label": label, "note": note, "request": req, "repeats": len(rs),
               "cpu_min": min(cpus), "cpu_median": statistics.median(cpus), "cpu_all": cpus,
               "wall_min": min(walls), "wall_median": statistics.median(walls),
               "rtf_from_min": T_END / min(cpus), "rtf_from_median": T_END / statistics.median(cpus),
               "tip_error_m": max(errs), "tip_error_spread_m": max(errs) - min(errs), "all_ok": all(x["ok"] for x in rs)}
        for k in ("rhs_evaluations", "steps", "svds"):
            if k in rs[0]:
                row[k] = rs[0][k]
        summary.append(row)
    res["summary"] = summary

    # ---------------------------------------------------------------------------------------------- phase 2
    sizes = [int(x) for x in args.scaling.split(",") if x]
    log("phase 2: Mechanism Studio scaling", sizes)
    for n in sizes:
        procs["ms"].call(op="run", kind="planar", n=n, variant="projection", rtol=1e-8, atol=1e-10, t_end=0.1)
    sc_runs = []
    for r in range(args.repeats):
        for n in sizes:
            out = procs["ms"].call(op="run", kind="planar", n=n, variant="projection", rtol=1e-8, atol=1e-10)
            sc_runs.append({"repeat": r + 1, "n": n, "cpu": out["cpu"], "wall": out["wall"], "ok": out["ok"],
                            "rhs_evaluations": out["rhs_evaluations"], "steps": out["steps"], "svds": out["svds"]})
            log(f"  N={n:3d} cpu {out['cpu']:8.4f} rhs {out['rhs_evaluations']} steps {out['steps']}")
    percall = {n: procs["ms"].call(op="rhs_cost", n=n) for n in sizes}
    scaling = []
    for n in sizes:
        rs = [x for x in sc_runs if x["n"] == n]
        cpus = [x["cpu"] for x in rs]
        scaling.append({"n": n, "coords": 3 * n, "constraints": 2 * n, "cpu_min": min(cpus),
                        "cpu_median": statistics.median(cpus), "rtf_from_min": T_END / min(cpus),
                        "rhs_evaluations": rs[0]["rhs_evaluations"], "steps": rs[0]["steps"], "svds": rs[0]["svds"],
                        "cpu_per_rhs_us": 1e6 * min(cpus) / rs[0]["rhs_evaluations"],
                        "cpu_per_step_us": 1e6 * min(cpus) / rs[0]["steps"],
                        "rhs_call_us": percall[n]["rhs_us"], "output_frame_call_us": percall[n]["output_us"],
                        "fused_path": percall[n]["fused_path"]})

    def slope(xs, ys):
        lx = [math.log(x) for x in xs]
        ly = [math.log(y) for y in ys]
        mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
        return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)
    ns = [s["n"] for s in scaling]
    exps = {}
    for key in ("cpu_min", "rhs_evaluations", "cpu_per_rhs_us", "rhs_call_us", "output_frame_call_us", "steps"):
        ys = [s[key] for s in scaling]
        exps[key] = {"fit_all": slope(ns, ys),
                     "pairwise": {f"{ns[i]}->{ns[i + 1]}": slope(ns[i:i + 2], ys[i:i + 2]) for i in range(len(ns) - 1)}}
    res["scaling"] = {"runs": sc_runs, "table": scaling, "log_log_exponents": exps}

    # ---------------------------------------------------------------------------------------------- phase 3
    log("phase 3: cProfile of the 30-link chain")
    res["profile"] = procs["ms"].call(op="profile", n=30, top=10,
                                      path=os.path.join(RESULTS, "side_by_side_profile_N30.txt"))
    log("phase 3b: cProfile of the spherical 10-link chain (wittenburg, run() driver)")
    res["profile_spherical"] = procs["ms"].call(op="profile", n=10, kind="spherical", variant="wittenburg", top=10,
                                                path=os.path.join(RESULTS, "side_by_side_profile_spherical_N10.txt"))

    for p in procs.values():
        p.close()
    after = machine_state("after")
    res["machine_state"].append(after)
    res["total_wall_s"] = time.perf_counter() - t_start
    log("machine after:", after)
    with open(os.path.join(RESULTS, "side_by_side.json"), "w") as f:
        json.dump(res, f, indent=1)
    md = markdown(res)
    with open(os.path.join(RESULTS, "side_by_side.md"), "w") as f:
        f.write(md)
    print(md)


def markdown(res):
    lines = []
    ms0, ms1 = res["machine_state"][0], res["machine_state"][-1]
    v = res["versions"]
    lines.append(f"Measured {ms0['date']} on {res['machine']['cpu_model']} ({res['machine']['nproc']} CPUs), "
                 f"{res['machine']['platform']}. Load average before {ms0['loadavg']}, after {ms1['loadavg']}; "
                 f"machine busy fraction (1 s sample) before {ms0['busy_fraction_1s']:.2f}, after "
                 f"{ms1['busy_fraction_1s']:.2f}. OPENBLAS_NUM_THREADS=1.")
    lines.append(f"Versions: Mechanism Studio commit {v['ms'].get('project_commit', '?')[:10]} (numpy "
                 f"{v['ms']['numpy']}, scipy {v['ms']['scipy']}, numba {v['ms']['numba']}); MuJoCo "
                 f"{v['mujoco']['mujoco']}; Exudyn {v['exudyn']['exudyn']}; peers numpy {v['scipy']['numpy']}, scipy "
                 f"{v['scipy']['scipy']}; Python {v['ms']['python']}.")
    lines.append("")
    lines.append("| case | engine / variant | CPU s min / median | RTF (min / median) | tip error at 2 s [m] | work |")
    lines.append("|---|---|---|---|---|---|")
    for r in res["summary"]:
        work = []
        if "rhs_evaluations" in r:
            work.append(f"{r['rhs_evaluations']} rhs")
        if r.get("steps"):
            work.append(f"{r['steps']} steps")
        lines.append(f"| {r['case']} | {r['label']} | {r['cpu_min']:.4f} / {r['cpu_median']:.4f} | "
                     f"{r['rtf_from_min']:.1f} / {r['rtf_from_median']:.1f} | {r['tip_error_m']:.1e} | "
                     f"{', '.join(work)}{'' if r['all_ok'] else ' NOT OK'} |")
    lines.append("")
    lines.append("References: " + "; ".join(
        f"{k}: {d['primary']} (cross-checks: " + ", ".join(f"{c} {x['diff_vs_primary_m']:.1e} m"
                                                          for c, x in d["cross_checks"].items()) + ")"
        for k, d in res["references"].items()))
    lines.append("")
    lines.append("Mechanism Studio scaling (planar chain, projection, DOP853 1e-8, run() driver):")
    lines.append("")
    lines.append("| N | CPU s min / median | RTF | rhs evals | steps | SVDs | run CPU / rhs evals [us] | "
                 "one rhs call [us] | one output frame [us] |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for s in res["scaling"]["table"]:
        lines.append(f"| {s['n']} | {s['cpu_min']:.4f} / {s['cpu_median']:.4f} | {s['rtf_from_min']:.1f} | "
                     f"{s['rhs_evaluations']} | {s['steps']} | {s['svds']} | {s['cpu_per_rhs_us']:.1f} | "
                     f"{s['rhs_call_us']:.1f} | {s['output_frame_call_us']:.1f} |")
    e = res["scaling"]["log_log_exponents"]
    lines.append("")
    lines.append("log-log exponents: " + "; ".join(
        f"{k}: fit {d['fit_all']:.2f} (" + ", ".join(f"{p} {x:.2f}" for p, x in d["pairwise"].items()) + ")"
        for k, d in e.items()))
    lines.append("")
    for key in ("profile", "profile_spherical"):
        p = res[key]
        lines.append(f"cProfile, {p['kind']} chain N={p['n']} ({p['variant']}, run() driver): CPU "
                     f"{p['cpu_unprofiled_s']:.3f} s unprofiled, {p['cpu_profiled_s']:.3f} s profiled; "
                     f"{p['rhs_evaluations']} rhs, {p['steps']} steps. Top 10 by cumulative time:")
        lines.append("")
        lines.append("| function | calls | cumtime s | % | tottime s |")
        lines.append("|---|---|---|---|---|")
        for r in p["top_cumulative"]:
            lines.append(f"| {r['function']} | {r['ncalls']} | {r['cumtime_s']:.3f} | {r['cum_percent']:.0f} | "
                         f"{r['tottime_s']:.3f} |")
        lines.append("")
        lines.append("Top 10 by own (tot) time:")
        lines.append("")
        lines.append("| function | calls | tottime s | % | cumtime s |")
        lines.append("|---|---|---|---|---|")
        for r in p["top_tottime"]:
            lines.append(f"| {r['function']} | {r['ncalls']} | {r['tottime_s']:.3f} | {r['tot_percent']:.0f} | "
                         f"{r['cumtime_s']:.3f} |")
        lines.append("")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--worker":
        worker_main(sys.argv[2])
    else:
        main(sys.argv[1:])
