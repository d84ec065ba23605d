"""The ``mechstudio`` console script (and ``python -m mechstudio``): the editor where the GUI is installed, the
headless commands everywhere.

The GUI packages (PySide6, pyqtgraph, PyOpenGL, imageio, Pillow) come with the ``gui`` extra
(``pip install 'mechanism-studio[gui]'``); a plain ``pip install mechanism-studio`` -- a cluster worker, a
server -- gets the engine and the command line without Qt. This module sits above both subpackages: it looks for
the GUI packages without importing them and

* with them, hands everything to :func:`mechstudio.gui.cli.main` (``mechstudio`` or ``mechstudio open FILE`` start
  the editor; the headless subcommands still import no Qt unless a GUI-side option such as ``simulate --video``
  is given);
* without them, runs the headless command line (:mod:`mechstudio.core.cli`); the editor and the GUI-side options
  of ``simulate`` (``--plots``, ``--video``) exit with status 2 and say how to install the ``gui`` extra.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys

#: the import names of the packages the editor needs (the ``gui`` extra)
GUI_PACKAGES = ("PySide6", "pyqtgraph", "OpenGL")
GUI_EXTRA = "pip install 'mechanism-studio[gui]'"
EXIT_USAGE = 2


def missing_gui_packages() -> list[str]:
    """The GUI packages that cannot be imported here (found without importing them: no Qt is loaded)."""
    missing = []
    for name in GUI_PACKAGES:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a broken or blocked installation counts as absent
            found = False
        if not found:
            missing.append(name)
    return missing


def gui_message(what: str, missing: list[str]) -> str:
    return f"error: {what} needs the gui extra (missing: {', '.join(missing)}): {GUI_EXTRA}"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    missing = missing_gui_packages()
    if not missing:
        from mechstudio.gui.cli import main as gui_main  # imports no Qt itself; the editor's branch does
        return gui_main(argv)
    return headless_main(argv, missing)


def headless_main(argv: list[str], missing: list[str]) -> int:
    """The command line of an installation without the GUI packages ``missing``."""
    from mechstudio.core.cli import build_parser, parse_and_run
    if not argv:
        print(gui_message("the editor", missing), file=sys.stderr)
        print("the headless commands: mechstudio --help", file=sys.stderr)
        return EXIT_USAGE
    parser, sub = build_parser("mechstudio", argv)
    p = sub.add_parser("open", help="open a model file in the editor (needs the gui extra)")
    p.add_argument("file")
    p.set_defaults(func=lambda args: refuse("the editor", missing))
    add_gui_only_simulate_options(sub, missing)
    return parse_and_run(parser, argv)


def refuse(what: str, missing: list[str]) -> int:
    print(gui_message(what, missing), file=sys.stderr)
    return EXIT_USAGE


def add_gui_only_simulate_options(sub: argparse._SubParsersAction, missing: list[str]) -> None:
    """``simulate --plots/--video/--fps/--video-size`` (the options :mod:`mechstudio.gui.simulate_cli` adds) as
    options that exit with status 2 before the run, naming the extra they need."""
    from mechstudio.core.commands.simulate import run_command
    p = sub.choices.get("simulate")
    if p is None:
        return
    g = p.add_argument_group("exports (need the gui extra)")
    g.add_argument("--plots", metavar="DIR", help="write every plot as PNG, SVG and CSV into DIR")
    g.add_argument("--video", metavar="FILE", help="render the animation to FILE (.mp4 or .gif)")
    g.add_argument("--fps", help=argparse.SUPPRESS)
    g.add_argument("--video-size", metavar="WxH", help=argparse.SUPPRESS)

    def run(args: argparse.Namespace) -> int:
        if args.plots or args.video:
            return refuse("--plots and --video", missing)
        return run_command(args)
    p.set_defaults(func=run)
