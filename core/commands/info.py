"""``mechstudio info FILE``: coordinates, constraints, rank, degrees of freedom, redundant constraints."""
from __future__ import annotations

import argparse
import sys

from mechstudio.core.commands.arguments import add_model_argument, read_model
from mechstudio.core.kinematics.assembly import RANK_RTOL, assemble, dof_report
from mechstudio.core.systems.compile import compile_model


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("info", help="describe a model: coordinates, constraints, rank, DOF, redundancy")
    add_model_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    model = read_model(args.file)
    system = compile_model(model)
    print(f"model: {model.name or args.file} ({model.kind})")
    if model.description:
        print(f"  {model.description}")
    res = assemble(system, system.initial_guess(), 0.0, hold=system.held_coordinates())
    print(f"\ncoordinates (n = {system.n}):")
    for k, (name, val) in enumerate(zip(system.coord_names, res.q)):
        print(f"  q[{k:>2}] {name:<24} = {val: .9g}")
    print(f"\nconstraints (m = {system.m}: {system.m_holonomic} holonomic, {system.m_nonholonomic} nonholonomic):")
    for c in system.constraints:
        kind = "holonomic" if c.holonomic else "nonholonomic"
        rows = ", ".join(f"{r}:{comp}" for r, comp in zip(c.rows, c.components))
        print(f"  {c.name:<16} {c.type:<13} {c.body1} -> {c.body2}  [{kind}; rows {rows}]")
    if not res.status.ok:
        print(f"\nassembly FAILED ({res.status.value}): {res.message}", file=sys.stderr)
        return 3
    print(f"\nassembly: converged in {res.iterations} Newton iteration(s), ||Phi|| = {res.residual:.3g}")
    d = dof_report(system, res.q, 0.0)
    sv = ", ".join(f"{s:.3g}" for s in d.singular_values[-3:]) if d.singular_values.size else "-"
    print(f"rank of Phi_q = {d.rank_holonomic} (SVD, sigma > {RANK_RTOL:g} sigma_max; smallest: {sv})")
    if system.m_nonholonomic:
        print(f"rank of C     = {d.rank_all}")
        print(f"degrees of freedom: positions d = n - rank(Phi_q) = {d.dof_positions}, "
              f"velocities = n - rank(C) = {d.dof_velocities}")
    else:
        print(f"degrees of freedom d = n - rank = {system.n} - {d.rank_holonomic} = {d.dof_positions}")
    if d.redundant:
        print(f"redundant constraints ({len(d.redundant)}): {', '.join(d.redundant)}")
    else:
        print("redundant constraints: none")
    return 0
