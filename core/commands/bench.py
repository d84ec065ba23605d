"""``mechstudio bench [--suite NAME ...] [--out DIR]``: print (and write as Markdown/CSV) benchmark tables."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from mechstudio.core.bench import SUITES, get_suite, machine_description
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
    print(f"machine: {machine_description()}\n")
    for name in names:
        table = get_suite(name)(quick=args.quick)
        md = table.to_markdown()
        print(md)
        if args.out:
            out = Path(args.out)
            out.mkdir(parents=True, exist_ok=True)
            (out / f"{name}.md").write_text(f"machine: {machine_description()}\n\n" + md, encoding="utf-8")
            (out / f"{name}.csv").write_text(table.to_csv(), encoding="utf-8")
    return 0
