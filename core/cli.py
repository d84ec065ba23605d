"""Command-line front end of the headless subcommands (``python -m core`` and ``mechstudio``).

Bad input never produces a traceback: a :class:`~core.errors.ModelError` prints every diagnostic
(``file:/json/pointer: error: message``) and exits with status 2.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback

from core.commands import COMMAND_MODULES
from core.errors import ModelError, UnknownNameError


def build_parser(prog: str = "mechstudio") -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    parser = argparse.ArgumentParser(prog=prog, description="Mechanism Studio: constrained multibody dynamics")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"core.commands.{name}").register(sub)
    return parser, sub


def run_parsed(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args))
    except ModelError as exc:
        for d in exc.diagnostics:
            print(d.format(), file=sys.stderr)
        return 2
    except UnknownNameError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc.strerror or exc}: {getattr(exc, 'filename', '')}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug, not bad input: say so plainly, traceback on request
        if os.environ.get("MECHSTUDIO_DEBUG"):
            traceback.print_exc()
        print(f"internal error: {type(exc).__name__}: {exc} (set MECHSTUDIO_DEBUG=1 for the traceback)",
              file=sys.stderr)
        return 70


def main(argv: list[str] | None = None) -> int:
    parser, _ = build_parser("python -m core")
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 1
    return run_parsed(args)
