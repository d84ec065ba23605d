"""``mechstudio import EXPR|FILE --out model.json [--scale S] [--drive JOINT:SPEED]``: a Pyslvs mechanism
expression (given inline, in a file, or ``-`` on standard input) to a Mechanism Studio model (see
:mod:`mechstudio.core.interop.pyslvs`). The written model is validated and assembled first; ``--out -`` prints it."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mechstudio.core.commands.arguments import STDIO, positive_float, write_text_output
from mechstudio.core.errors import Diagnostic, ModelError
from mechstudio.core.interop.pyslvs import add_speed_driver, model_from_expression
from mechstudio.core.kinematics.assembly import assemble
from mechstudio.core.model import model_from_data
from mechstudio.core.systems.compile import compile_model


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="import a Pyslvs mechanism expression as a model file")
    p.add_argument("source", help="the expression M[...] itself, a file holding it, or - for standard input")
    p.add_argument("--out", required=True, help="model file to write (.json), or - for standard output")
    p.add_argument("--scale", type=positive_float, default=0.001,
                   help="metres per Pyslvs unit (default 0.001: drawings in mm)")
    p.add_argument("--name", help="model name (default: the file's stem, or pyslvs_import)")
    p.add_argument("--drive", metavar="JOINT:SPEED", help="drive a revolute joint at SPEED rad/s (e.g. J0:6.28)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    source, text = "<expression>", args.source
    if args.source == STDIO:
        source, text = "<stdin>", sys.stdin.read()
    elif not args.source.lstrip().startswith("M["):
        source, text = args.source, Path(args.source).read_text(encoding="utf-8")
    name = args.name or (Path(source).stem if not source.startswith("<") else "pyslvs_import")
    doc = model_from_expression(text, name=name, scale=args.scale, source=source)
    if args.drive:
        joint, _, speed_text = args.drive.partition(":")
        try:
            speed = float(speed_text)
        except ValueError:
            print(f"error: argument --drive: expected JOINT:SPEED, got {args.drive!r}", file=sys.stderr)
            return 2
        add_speed_driver(doc, joint, speed)
    model = model_from_data(doc, source)
    system = compile_model(model)
    res = assemble(system, system.initial_guess(), 0.0, hold=system.held_coordinates())
    if not res.status.ok:
        raise ModelError([Diagnostic(source, "", f"the imported mechanism does not assemble: {res.message}")])
    write_text_output(args.out, json.dumps(doc, indent=2) + "\n",
                      f"{len(doc['bodies'])} bodies, {len(doc['joints'])} joints")
    return 0
