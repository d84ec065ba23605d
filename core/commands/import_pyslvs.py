"""``mechstudio import EXPR|FILE --out model.json [--scale S] [--drive JOINT:SPEED] [--input B,D:SPEED]``: a
Pyslvs mechanism expression (given inline, in a file, or ``-`` on standard input) to a Mechanism Studio model (see
:mod:`mechstudio.core.interop.pyslvs`). The written model is validated and assembled first; ``--out -`` prints it.
A URDF or MJCF file (XML: recognised from the content) goes to :mod:`mechstudio.core.commands.import_robot`."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mechstudio.core.commands.arguments import STDIO, positive_float, write_text_output
from mechstudio.core.commands.import_robot import run_robot_import
from mechstudio.core.errors import Diagnostic, ModelError
from mechstudio.core.interop.pyslvs import add_input_driver, add_speed_driver, model_from_expression
from mechstudio.core.interop.robot_import import is_xml
from mechstudio.core.kinematics.assembly import assemble
from mechstudio.core.model import model_from_data
from mechstudio.core.systems.compile import compile_model


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="import a Pyslvs mechanism expression, a URDF or an MJCF file as a model file")
    p.add_argument("source", help="the expression M[...] itself, a file holding it or a URDF (<robot>) or MJCF (<mujoco>) "
                                     "file, or - for standard input")
    p.add_argument("--out", required=True, help="model file to write (.json), or - for standard output")
    p.add_argument("--scale", type=positive_float, default=0.001,
                   help="metres per Pyslvs unit (default 0.001: drawings in mm)")
    p.add_argument("--name", help="model name (default: the file's stem, or pyslvs_import)")
    p.add_argument("--drive", metavar="JOINT:SPEED", action="append", default=[],
                   help="drive a revolute joint at SPEED rad/s or a prismatic one at SPEED m/s (e.g. J0:6.28); "
                        "repeatable")
    p.add_argument("--input", metavar="B,D:SPEED", action="append", default=[],
                   help="drive Pyslvs' input pair (base joint B, driver joint D): the line B->D turns at SPEED "
                        "rad/s; B,B moves the slider of the P/RP joint B at SPEED m/s; repeatable")
    p.set_defaults(func=run)


def _speed(option: str, text: str, form: str) -> tuple[str, float] | None:
    """(target, speed) of ``TARGET:SPEED``, or None after printing the usage error."""
    target, _, speed_text = text.rpartition(":")
    try:
        speed = float(speed_text)
    except ValueError:
        speed = float("nan")
    if not target or speed != speed or abs(speed) == float("inf"):
        print(f"error: argument {option}: expected {form}, got {text!r}", file=sys.stderr)
        return None
    return target, speed


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except (OSError, ValueError):  # too long or not a possible path: an expression
        return False


def run(args: argparse.Namespace) -> int:
    source, text = "<expression>", args.source
    if args.source == STDIO:
        source, text = "<stdin>", sys.stdin.read()
    elif "[" not in args.source or _is_file(args.source):  # a file; an expression has brackets
        source, text = args.source, Path(args.source).read_text(encoding="utf-8")
    if is_xml(text):  # URDF or MJCF: the kind is in the root element
        return run_robot_import(args, text, source)
    name = args.name or (Path(source).stem if not source.startswith("<") else "pyslvs_import")
    doc = model_from_expression(text, name=name, scale=args.scale, source=source)
    for item in args.drive:
        parsed = _speed("--drive", item, "JOINT:SPEED")
        if parsed is None:
            return 2
        add_speed_driver(doc, *parsed, source=source)
    for item in args.input:
        parsed = _speed("--input", item, "B,D:SPEED (joint indices, then a speed)")
        if parsed is None:
            return 2
        pair, speed = parsed
        try:
            base, drive = (int(k) for k in pair.split(","))
        except ValueError:
            print(f"error: argument --input: expected B,D:SPEED (joint indices), got {item!r}", file=sys.stderr)
            return 2
        add_input_driver(doc, text, base, drive, speed, source=source)
    model = model_from_data(doc, source)
    system = compile_model(model)
    res = assemble(system, system.initial_guess(), 0.0, hold=system.held_coordinates())
    if not res.status.ok:
        raise ModelError([Diagnostic(source, "", f"the imported mechanism does not assemble: {res.message}")])
    write_text_output(args.out, json.dumps(doc, indent=2) + "\n",
                      f"{len(doc['bodies'])} bodies, {len(doc['joints'])} joints, {len(doc['drivers'])} drivers")
    return 0
