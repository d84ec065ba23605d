"""Benchmark suites printed by ``mechstudio bench`` (speed and accuracy; never asserted in timed tests).

A suite is a function ``run(**options) -> BenchTable``; register it in ``SUITES`` by dotted path
("module:function") so that importing this package stays cheap. The GUI registers GUI-only suites (the
frame-rate benchmark of the live view) from ``gui/cli.py`` before delegating to the core command line.
"""
from __future__ import annotations

import importlib
import os
import platform
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from mechstudio.core.errors import UnknownNameError

SUITES: dict[str, str | Callable[..., "BenchTable"]] = {
    "speed": "mechstudio.core.bench.speed:run",
    "trees": "mechstudio.core.bench.trees:run",
    "iftomm": "mechstudio.core.bench.iftomm:run",
    "symbolic": "mechstudio.core.bench.symbolic:run",
    "sweep": "mechstudio.core.bench.sweep:run",
    "startup": "mechstudio.core.bench.startup:run",
    "synthesis": "mechstudio.core.bench.synthesis:run",
    "contacts": "mechstudio.core.bench.contacts:run",
    "spatial": "mechstudio.core.bench.spatial:run",
}


@dataclass
class BenchTable:
    """Rows of one benchmark suite (dicts with the same keys), with a title and notes."""
    title: str
    rows: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)

    def columns(self) -> list[str]:
        cols: list[str] = []
        for r in self.rows:
            cols += [k for k in r if k not in cols]
        return cols

    def to_markdown(self) -> str:
        cols = self.columns()

        def fmt(v: Any) -> str:
            if isinstance(v, float):
                return f"{v:.3g}"
            return str(v)
        lines = [f"### {self.title}", "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        lines += ["| " + " | ".join(fmt(r.get(c, "")) for c in cols) + " |" for r in self.rows]
        lines += [""] + [f"- {n}" for n in self.notes]
        return "\n".join(lines) + "\n"

    def to_csv(self) -> str:
        cols = self.columns()
        out = [",".join(cols)]
        out += [",".join(str(r.get(c, "")) for c in cols) for r in self.rows]
        return "\n".join(out) + "\n"


def machine_description() -> str:
    return (f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}; measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")


def get_suite(name: str) -> Callable[..., BenchTable]:
    if name not in SUITES:
        raise UnknownNameError("benchmark suite", name, list(SUITES))
    target = SUITES[name]
    if callable(target):
        return target
    module, func = target.split(":")
    return getattr(importlib.import_module(module), func)
