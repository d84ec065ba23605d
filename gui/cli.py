"""The command line of an installation with the GUI (``python -m mechstudio.gui``; the ``mechstudio`` console
script, :mod:`mechstudio.cli`, hands over to it when the GUI packages are installed).

``mechstudio`` (no arguments), ``mechstudio open [FILE]`` or ``mechstudio FILE.json`` starts the GUI; every other
subcommand (``info``, ``kinematics``, ``simulate`` ...) is delegated to the headless ``mechstudio.core.cli`` and never
imports Qt, so it works without a display (``simulate --plots/--video`` import Qt when given).
"""
from __future__ import annotations

import os
import sys


OPEN_USAGE = "usage: mechstudio open [FILE]   (or: mechstudio FILE.json)"


def editor_file(arg: str) -> bool:
    """``mechstudio model.json``: a first argument that names a model file (not a subcommand) opens the editor."""
    return not arg.startswith("-") and (arg.lower().endswith(".json") or (os.sep in arg and os.path.isfile(arg)))


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and editor_file(argv[0]):
        argv = ["open"] + argv
    if not argv or argv[0] == "open":  # (options such as --version and --help go to the parser below)
        if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
            if len(argv) >= 2 and argv[1] in ("-h", "--help"):
                print(f"{OPEN_USAGE}\n\nOpen the model FILE in the Mechanism Studio editor (without FILE: the "
                      "editor as it starts).")
                return 0
            print(OPEN_USAGE, file=sys.stderr)
            return 2
        from mechstudio.gui.app import run  # Qt is imported only on this branch
        return run(argv[1] if len(argv) == 2 else None)
    from mechstudio.core.bench import SUITES
    SUITES.setdefault("view", "mechstudio.gui.bench_view:view_suite")  # GUI-only suite (needs a display)
    from mechstudio.core.cli import build_parser, parse_and_run
    parser, sub = build_parser("mechstudio", argv)
    sub.add_parser("open", help="open a model file in the editor (the default without arguments)").add_argument(
        "file", nargs="?")
    from mechstudio.gui.simulate_cli import extend  # --plots DIR --video FILE for simulate (Qt only when used)
    extend(sub)
    return parse_and_run(parser, argv)


if __name__ == "__main__":
    sys.exit(main())
