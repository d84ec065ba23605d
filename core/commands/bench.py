"""``mechstudio bench [--suite NAME ...] [--out DIR]``: print (and write as Markdown/CSV) benchmark tables.

Every suite name is checked before anything is printed (an unknown one exits with status 2 naming the suites)."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from mechstudio.core.bench import SUITES, get_suite, machine_description
from mechstudio.core.model.io import atomic_write_text
from mechstudio.core.run.settings import KERNELS_ENV


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="speed and accuracy benchmarks (tables)")
    p.add_argument("--suite", action="append", help=f"suite(s) to run: {', '.join(SUITES)} or all (default: speed)")
    p.add_argument("--out", help="folder for <suite>.md and <suite>.csv")
    p.add_argument("--quick", action="store_true", help="smaller problems (a smoke run)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # the suites time the compiled kernels from a run's start, as before the kernel choice existed (the "startup"
    # suite measures the default choice in subprocesses of its own: mechstudio.core.run.kernels)
    os.environ.setdefault(KERNELS_ENV, "compiled")
    names = args.suite or ["speed"]
    if "all" in names:
        names = list(SUITES)
    suites = [(name, get_suite(name)) for name in names]  # UnknownNameError (exit 2) before any output
    print(f"machine: {machine_description()}\n")
    for name, suite in suites:
        table = suite(quick=args.quick)
        md = table.to_markdown()
        print(md)
        if args.out:
            out = Path(args.out)
            out.mkdir(parents=True, exist_ok=True)
            atomic_write_text(out / f"{name}.md", f"machine: {machine_description()}\n\n" + md)
            atomic_write_text(out / f"{name}.csv", table.to_csv())
    return 0
