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
    lines: list[str] = []
    say = lines.append  # the report is printed whole at the end: nothing on stdout before an error
    say(f"model: {model.name or args.file} ({model.kind})")
    if model.description:
        say(f"  {model.description}")
    res = assemble(system, system.initial_guess(), 0.0, hold=system.held_coordinates())
    say(f"\ncoordinates (n = {system.n}):")
    for k, (name, val) in enumerate(zip(system.coord_names, res.q)):
        say(f"  q[{k:>2}] {name:<24} = {val: .9g}")
    say(f"\nconstraints (m = {system.m}: {system.m_holonomic} holonomic, {system.m_nonholonomic} nonholonomic):")
    for c in system.constraints:
        kind = "holonomic" if c.holonomic else "nonholonomic"
        rows = ", ".join(f"{r}:{comp}" for r, comp in zip(c.rows, c.components))
        say(f"  {c.name:<16} {c.type:<13} {c.body1} -> {c.body2}  [{kind}; rows {rows}]")
    if not res.status.ok:
        emit(lines)
        sys.stderr.write(f"\nassembly FAILED ({res.status.value}): {res.message}\n")
        return 3
    say(f"\nassembly: converged in {res.iterations} Newton iteration(s), ||Phi|| = {res.residual:.3g}")
    d = dof_report(system, res.q, 0.0)
    sv = ", ".join(f"{s:.3g}" for s in d.singular_values[-3:]) if d.singular_values.size else "-"
    say(f"rank of Phi_q = {d.rank_holonomic} (SVD, sigma > {RANK_RTOL:g} sigma_max; smallest: {sv})")
    if system.m_nonholonomic:
        say(f"rank of C     = {d.rank_all}")
        say(f"degrees of freedom: positions d = n - rank(Phi_q) = {d.dof_positions}, "
            f"velocities = n - rank(C) = {d.dof_velocities}")
    else:
        say(f"degrees of freedom d = n - rank = {system.n} - {d.rank_holonomic} = {d.dof_positions}")
    if d.redundant:
        say(f"redundant constraints ({len(d.redundant)}): {', '.join(d.redundant)}")
    else:
        say("redundant constraints: none")
    emit(lines)
    return 0


def emit(lines: list[str]) -> None:
    """Print the report's lines to standard output in one write."""
    sys.stdout.write("".join(line + "\n" for line in lines))
