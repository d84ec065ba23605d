"""``mechstudio export-mjcf FILE --out model.xml [--timestep S]``: a spatial tree of spherical joints as MuJoCo
MJCF (see :mod:`mechstudio.core.interop.mjcf`); ``FILE`` may be ``-`` (standard input), ``--out -`` prints the XML."""
from __future__ import annotations

import argparse

from mechstudio.core.commands.arguments import add_model_argument, positive_float, read_model, write_text_output
from mechstudio.core.interop.mjcf import DEFAULT_TIMESTEP_S, to_mjcf


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export-mjcf", help="export a spatial tree of spherical joints to MuJoCo MJCF")
    add_model_argument(p)
    p.add_argument("--out", required=True, help="MJCF file to write (.xml), or - for standard output")
    p.add_argument("--timestep", type=positive_float, default=DEFAULT_TIMESTEP_S,
                   help=f"MuJoCo RK4 time step [s] (default {DEFAULT_TIMESTEP_S:g})")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    write_text_output(args.out, to_mjcf(read_model(args.file), args.timestep), "")
    return 0
