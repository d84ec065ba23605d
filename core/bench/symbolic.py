"""Suite "symbolic" of ``mechstudio bench``: time to derive and compile the Appell equations (target: < 5 s
per sample, cached per model). Wraps :func:`mechstudio.core.symbolic.appell.benchmark`."""
from __future__ import annotations

from typing import Any

from mechstudio.core.bench import BenchTable
from mechstudio.core.symbolic.appell import benchmark


def run(quick: bool = False, **_: Any) -> BenchTable:
    rows = [{"sample": name, "fresh_cpu_s": fresh, "cached_cpu_s": cached, "under_5_s": fresh < 5.0}
            for name, fresh, cached in benchmark()]
    return BenchTable("Symbolic Appell derivation (derive + compile, process CPU time)", rows,
                      ["fresh: first derivation in this process (sympy + lambdify); cached: the same model again"])
