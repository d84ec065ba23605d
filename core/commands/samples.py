"""``mechstudio samples [NAME]``: list the sample models shipped with the installation, or print one's path.

``mechstudio simulate "$(mechstudio samples pendulum)"`` runs an installed sample from any folder.
"""
from __future__ import annotations

import argparse
import sys

from mechstudio.core.model.samples import sample_models, sample_path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("samples", help="list the installed sample models, or print the path of one")
    p.add_argument("name", nargs="?", help="a sample's file name (with or without .json): print its path")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.name:
        try:
            print(sample_path(args.name))
        except KeyError as exc:
            print(f"error: {exc.args[0]}", file=sys.stderr)
            return 2
        return 0
    for path, name, description in sample_models():
        print(f"{path.stem:<36} {name}: {description}"[:160])
        print(f"{'':<36} {path}")
    return 0
