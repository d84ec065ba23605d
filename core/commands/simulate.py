"""``mechstudio simulate FILE``: run the dynamics headless and write the documented CSV (docs/results-csv.md)."""
from __future__ import annotations

import argparse

from core.dynamics.base import FORMULATIONS, get_formulation
from core.integrate.base import INTEGRATORS, get_integrator
from core.model import load_model
from core.simulate import SimulationSettings, run
from core.system import compile_model


def register(sub: argparse._SubParsersAction) -> None:
    get_formulation("projection")
    get_integrator("dop853")
    p = sub.add_parser("simulate", help="forward dynamics; writes results as CSV")
    p.add_argument("file")
    p.add_argument("--t-end", type=float, help="end time [s] (default: the file's simulation.t_end)")
    p.add_argument("--dt", type=float, help="output interval [s] (default: the file's simulation.dt)")
    p.add_argument("--method", "--formulation", dest="formulation", help=f"one of {', '.join(sorted(FORMULATIONS))}")
    p.add_argument("--integrator", help=f"one of {', '.join(sorted(INTEGRATORS))}")
    p.add_argument("--rtol", type=float, help="relative tolerance of adaptive integrators")
    p.add_argument("--atol", type=float, help="absolute tolerance of adaptive integrators")
    p.add_argument("--step", type=float, help="step [s] of the fixed-step integrators rk4 and abm")
    p.add_argument("--parametrization", help="spherical trees: quaternion, bryant, euler313 or matrix")
    p.add_argument("--no-correction", action="store_true", help="do not correct the constraint drift")
    p.add_argument("--out", help="CSV file to write")
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    model = load_model(args.file)
    overrides = dict(t_end=args.t_end, dt=args.dt, formulation=args.formulation, integrator=args.integrator,
                     rtol=args.rtol, atol=args.atol, step=args.step, parametrization=args.parametrization)
    if args.no_correction:
        overrides["correction"] = False
    settings = SimulationSettings.from_model(model, **overrides)
    settings.validate()
    traj = run(compile_model(model), settings)
    if args.out:
        traj.to_csv(args.out)
    st = traj.stats
    print(f"{traj.status.value}: {traj.message}")
    if st:
        rate = st.get("simulated_seconds", 0.0) / max(st.get("wall_seconds", 1e-9), 1e-9)
        print(f"  formulation {settings.formulation}, integrator {settings.integrator}, rtol {settings.rtol:g}; "
              f"{st['rhs_evaluations']} right-hand sides, {st['svd_count']} SVDs, {st['steps']} steps; "
              f"{st.get('wall_seconds', 0):.3g} s wall ({rate:.3g}x real time)")
    if len(traj.frames):
        e = traj.frames.kinetic + traj.frames.potential - traj.frames.work
        print(f"  energy balance (E - W) drift {abs(e - e[0]).max():.3g} J; max ||Phi|| {traj.frames.violation_position.max():.3g}, "
              f"max ||C q' + xi|| {traj.frames.violation_velocity.max():.3g}")
        if not st.get("lambda_unique", True):
            print("  note: redundant constraints: the reactions are the minimum-norm solution (not unique)")
    if args.out:
        print(f"  wrote {len(traj.frames)} rows to {args.out}")
    return 0 if traj.status.ok else 3
