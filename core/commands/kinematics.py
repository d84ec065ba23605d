"""``mechstudio kinematics FILE --t-end T --dt DT --out FILE.csv``: driven-mechanism kinematic analysis."""
from __future__ import annotations

import argparse

import numpy as np

from core.kinematics.analysis import driven_motion
from core.model import load_model
from core.results import write_csv
from core.system import compile_model


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("kinematics", help="position/velocity/acceleration analysis of a driven mechanism")
    p.add_argument("file")
    p.add_argument("--t-end", type=float, required=True, help="end time [s]")
    p.add_argument("--dt", type=float, required=True, help="output interval [s]")
    p.add_argument("--out", required=True, help="CSV file to write")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not (args.t_end > 0 and args.dt > 0):
        print("error: --t-end and --dt must be positive")
        return 2
    system = compile_model(load_model(args.file))
    times = np.linspace(0.0, args.t_end, int(round(args.t_end / args.dt)) + 1)
    res = driven_motion(system, times)
    cols: dict[str, np.ndarray] = {"t": res.t}
    for prefix, arr in (("q", res.q), ("v", res.v), ("a", res.a)):
        for k, name in enumerate(system.coord_names):
            cols[f"{prefix}.{name}"] = arr[:, k]
    cols["violation.position"] = res.residual
    write_csv(args.out, cols)
    if not res.status.ok:
        print(f"error: {res.message} ({len(res.t)} rows written to {args.out})")
        return 3
    print(f"wrote {len(res.t)} rows x {len(cols)} columns to {args.out}")
    return 0
