"""Time the loading of large models: planar chains of N bodies (``core.bench.speed.planar_chain_data``).

Usage: ``python scripts/bench_load.py [N ...] [--repeats R]`` (default N = 100 1000 10000). For each chain it
prints the best CPU time of R loads (``loads_model`` on the JSON text) split by stage -- JSON parsing, the value
walk, schema validation (the compiled check, and jsonschema alone for comparison), the raw-document and entity
checks -- and the time per body. The memory guard is switched off for the 10^4-body chain
(``MECHSTUDIO_MEMORY_LIMIT``): it is the loading that is timed, not the refusal.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mechstudio.core.bench.speed import planar_chain_data  # noqa: E402
from mechstudio.core.model import io  # noqa: E402
from mechstudio.core.model.checks import document_problems  # noqa: E402
from mechstudio.core.model.entities import parse_entities  # noqa: E402


def best(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, nargs="*", default=[100, 1000, 10000])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--jsonschema", action="store_true", help="also time jsonschema alone (slow: ~1 ms per body)")
    args = ap.parse_args(argv)
    os.environ["MECHSTUDIO_MEMORY_LIMIT"] = "1T"
    import jsonschema
    validator = jsonschema.Draft202012Validator(io.schema())
    print(f"{'bodies':>7} {'json':>7} {'values':>7} {'schema':>7} {'checks':>7} {'entities':>8} {'total':>7} "
          f"{'per body':>9}" + (f" {'jsonschema':>10}" if args.jsonschema else ""))
    for n in args.n:
        text = json.dumps(planar_chain_data(n))
        data = io.parse_json(text)
        io.loads_model(text)  # warm the caches (compiled schema, element registry)
        row = [best(lambda: io.parse_json(text), args.repeats),
               best(lambda: io.bad_values(data), args.repeats),
               best(lambda: io.schema_errors(data), args.repeats),
               best(lambda: document_problems(data), args.repeats),
               best(lambda: parse_entities(data, []), args.repeats),
               best(lambda: io.loads_model(text), args.repeats)]
        line = f"{n:>7} " + " ".join(f"{x:7.3f}" for x in row[:4]) + f" {row[4]:8.3f} {row[5]:7.3f} " \
               f"{row[5] / n * 1e3:6.3f} ms"
        if args.jsonschema:
            line += f" {best(lambda: list(validator.iter_errors(data)), 1):10.3f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
