"""Command-line front end of the headless subcommands (``python -m mechstudio.core``; the ``mechstudio`` console
script, :mod:`mechstudio.cli`, adds the editor and the GUI-side exports to the same parser).

Exit status (documented in the README):

====  =====================================================================================================
0     success
2     usage error or bad input: an unknown option or a bad option value (argparse names the option), a model
      file that cannot be read or is invalid (every diagnostic ``file:/json/pointer: error: message``)
3     the computation ran but ended with a failure status (assembly, singular matrix, integrator giving up ...)
70    internal error (a bug: ``MECHSTUDIO_DEBUG=1`` prints the traceback)
130   interrupted (Ctrl-C)
141   standard output closed by its reader (e.g. ``| head``), as 128 + SIGPIPE; nothing is printed (also when
      the reader leaves without reading output that fit into the pipe: :mod:`mechstudio.core.commands.output`)
====  =====================================================================================================

Diagnostics and errors always go to standard error; standard output carries only the requested output, and
nothing is written to it before an error is detected. A file that cannot be read or written is named in the
error (``error: results.csv: No space left on device``), never a temporary file.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
import traceback

from mechstudio import __version__
from mechstudio.core.commands import COMMAND_MODULES
from mechstudio.core.commands.arguments import os_error_text
from mechstudio.core.commands.output import finish_stdout
from mechstudio.core.errors import ModelError, UnknownNameError
from mechstudio.core.host.log import configure_cli_logging

EXIT_OK, EXIT_USAGE, EXIT_FAILED, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 0, 2, 3, 70, 130, 141

log = logging.getLogger(__name__)


def package_version() -> str:
    """The release of this code (``mechstudio.__version__``)."""
    return __version__


def commands_to_register(argv: list[str] | None) -> list[str]:
    """The command modules a parse of ``argv`` needs: only the named command's where ``argv`` starts with one (its
    options, its help and its run need no other, and a command's start-up then imports only what it uses), else
    all of them (the top-level help lists every command; an unknown command is named among the choices)."""
    if argv and argv[0] in COMMAND_MODULES:
        return [COMMAND_MODULES[argv[0]]]
    return list(COMMAND_MODULES.values())


def build_parser(prog: str = "mechstudio", argv: list[str] | None = None
                 ) -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """The parser of the headless commands; given the ``argv`` it will parse, with only the commands that parse
    needs (:func:`commands_to_register`)."""
    parser = argparse.ArgumentParser(prog=prog, description="Mechanism Studio: constrained multibody dynamics",
                                     epilog="exit status: 0 success, 2 usage error or invalid model, "
                                            "3 the computation failed, 70 internal error, 130 interrupted, "
                                            "141 the reader of standard output went away")
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in commands_to_register(argv):
        importlib.import_module(f"mechstudio.core.commands.{name}").register(sub)
    return parser, sub


def run_parsed(args: argparse.Namespace) -> int:
    """Run the parsed command; map bad input and failures to the exit statuses of the module docstring."""
    try:
        rc = int(args.func(args))
        finish_stdout()  # the reader of standard output took everything, or it went away (BrokenPipeError)
        return rc
    except ModelError as exc:
        for d in exc.diagnostics:
            print(d.format(), file=sys.stderr)
        return EXIT_USAGE
    except UnknownNameError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, like other Unix tools
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        print(f"error: {os_error_text(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug, not bad input: say so plainly, traceback on request
        log.debug("internal error", exc_info=True)
        if os.environ.get("MECHSTUDIO_DEBUG"):
            traceback.print_exc()
        print(f"internal error: {type(exc).__name__}: {exc} (set MECHSTUDIO_DEBUG=1 for the traceback)",
              file=sys.stderr)
        return EXIT_INTERNAL


def parse_and_run(parser: argparse.ArgumentParser, argv: list[str] | None) -> int:
    """Parse ``argv`` (argparse exits 2 on bad options) and run; no command: the help on stderr, status 2."""
    args = parser.parse_args(argv)
    configure_cli_logging(debug=bool(os.environ.get("MECHSTUDIO_DEBUG")))
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    return run_parsed(args)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser, _ = build_parser("python -m mechstudio.core", argv)
    return parse_and_run(parser, argv)
