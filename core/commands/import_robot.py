"""The robot-description branch of ``mechstudio import FILE --out model.json``: a URDF or MJCF file (recognised
from its content by :mod:`mechstudio.core.interop.robot_import`) becomes a spatial model; the import's warnings
(what was dropped or changed, with file:line and element path) are printed on standard error."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mechstudio.core.commands.arguments import write_text_output
from mechstudio.core.interop.robot_import import import_robot


def run_robot_import(args: argparse.Namespace, text: str, source: str) -> int:
    """Import ``text`` (read from ``source``) and write the model to ``args.out``."""
    if getattr(args, "drive", None) or getattr(args, "input", None):
        print("error: --drive and --input apply to Pyslvs expressions; drive an imported joint in the model "
              "file (its 'angle' or 'slide')", file=sys.stderr)
        return 2
    name = args.name or (Path(source).stem if not source.startswith("<") else None)
    result = import_robot(text, source, name)
    for d in result.warnings:
        print(d.format(), file=sys.stderr)
    doc = result.document
    write_text_output(args.out, json.dumps(doc, indent=2) + "\n",
                      f"{result.kind} import: {len(doc['bodies'])} bodies, {len(doc['joints'])} joints, "
                      f"{len(result.warnings)} warning{'s' if len(result.warnings) != 1 else ''}")
    return 0


__all__ = ["run_robot_import"]
