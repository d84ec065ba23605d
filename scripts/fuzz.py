"""Fuzz the model loader, compiler and a short run with structurally mutated sample models.

Usage: ``python scripts/fuzz.py N [--seed S] [--run-fraction F] [--timeout SECONDS]``. Prints a summary and every
defect (an exception other than a ModelError with diagnostics at load/compile, a run raising instead of ending
with a status, or a trial exceeding the timeout: a hang) with the seed that reproduces it; exits 1 when any
defect was found. See core/robustness/fuzz.py for the mutations.
"""
from __future__ import annotations

import argparse
import collections
import random
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mechstudio.core.robustness.fuzz import mutate, sample_documents, trial  # noqa: E402


class Hang(BaseException):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise Hang()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, help="number of mutants")
    ap.add_argument("--seed", type=int, default=0, help="first seed (mutant k uses seed + k)")
    ap.add_argument("--run-fraction", type=float, default=0.1,
                    help="fraction of mutants that also run 0.05 s of simulation (default 0.1)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds before a trial counts as a hang")
    args = ap.parse_args(argv)
    docs = sample_documents(ROOT / "sample_models")
    names = sorted(docs)
    counts: collections.Counter[str] = collections.Counter()
    defects: collections.Counter[str] = collections.Counter()
    examples: dict[str, str] = {}
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # kill PID: stop like Ctrl-C, with the summary
    start = time.time()
    done = 0
    try:
        done = _loop(args, docs, names, counts, defects, examples, start)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: report what was done so far
        done = counts["ok"] + counts["rejected"] + counts["defect"]
        print("interrupted", file=sys.stderr)
    print(f"{done} mutants (seeds {args.seed}..{args.seed + done - 1}) in {time.time() - start:.1f} s: "
          f"{counts['rejected']} rejected with diagnostics, {counts['ok']} accepted, {counts['defect']} defects; "
          f"{counts['ran:True']} also ran 0.05 s")
    for key, n in defects.most_common():
        print(f"  {n:6d} x {key}\n         e.g. {examples[key]}")
    return 1 if counts["defect"] else 0


def _loop(args: argparse.Namespace, docs: dict, names: list[str], counts: collections.Counter,
          defects: collections.Counter, examples: dict[str, str], start: float) -> int:
    for k in range(args.n):
        seed = args.seed + k
        rng = random.Random(seed)
        name = rng.choice(names)
        doc, muts = mutate(docs[name], rng)
        runs = rng.random() < args.run_fraction
        signal.setitimer(signal.ITIMER_REAL, args.timeout)
        try:
            out = trial(doc, 0.05 if runs else None)
        except Hang:
            out = None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if out is None:
            key, kind = f"hang (> {args.timeout:g} s)", "defect"
        else:
            key, kind = out.detail.split(":")[0] + f" [{out.stage}]", out.kind
        counts[kind] += 1
        counts[f"ran:{runs}"] += 1
        if kind == "defect":
            defects[key] += 1
            if key not in examples:
                examples[key] = f"seed {seed} {name} {muts}: {out.detail if out else ''}"
                print(f"  new defect: {key}: {examples[key]}", file=sys.stderr, flush=True)
        if (k + 1) % 1000 == 0:
            print(f"  {k + 1} mutants, {counts['defect']} defects, {time.time() - start:.0f} s", file=sys.stderr,
                  flush=True)
    return args.n


if __name__ == "__main__":
    sys.exit(main())
