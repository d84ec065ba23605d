"""Fuzz the model loader, compiler and a short run with mutated sample models.

Usage: ``python scripts/fuzz.py N [--kind K] [--seed S] [--run-fraction F] [--timeout SECONDS]``. K is one of
``structural`` (the default), ``absurd``, ``bombs``, ``bytes`` (see core/robustness/fuzz.py), ``new`` (absurd, bombs and bytes
in turn, by seed) or ``all`` (the four in turn). Prints a summary and every defect (an exception other than a
ModelError with diagnostics at load/compile, a run raising instead of ending with a status, text unfit for a user,
or a trial exceeding the timeout: a hang) with the kind and seed that reproduce it; exits 1 when any defect was
found. A trial over the timeout inside a run of a model that loaded and compiled (an absurdly stiff but valid model:
the run is bounded by the driver's step limits, not hung) is counted apart, as ``slow``, with its seed. A
RuntimeWarning raised in ``mechstudio.core`` (numerical noise on stderr) is an error, as in the test suite, unless
``--allow-warnings`` is given.
"""
from __future__ import annotations

import argparse
import collections
import random
import signal
import sys
import time
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mechstudio.core.robustness.fuzz import KINDS, make_mutant, sample_documents, trial, trial_bytes  # noqa: E402

#: --kind choices: one mutant kind, or several taken in turn (mutant k gets kinds[k % len(kinds)])
KIND_SETS = {**{k: (k,) for k in KINDS}, "new": ("absurd", "bombs", "bytes"), "all": KINDS}


class Hang(BaseException):
    pass


#: set when the timeout's alarm fired during the current trial: a Hang raised while a compiled (numba) call
#: returns surfaces as a SystemError ("returned a result with an exception set") that the trial reports as a
#: defect of its stage; it is the timeout all the same
ALARM_FIRED = [False]


def _alarm(signum: int, frame: object) -> None:
    ALARM_FIRED[0] = True
    raise Hang()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, help="number of mutants")
    ap.add_argument("--kind", choices=sorted(KIND_SETS), default="structural",
                    help="mutant kind (default structural; new: absurd, bombs and bytes in turn; all: the four)")
    ap.add_argument("--seed", type=int, default=0, help="first seed (mutant k uses seed + k)")
    ap.add_argument("--run-fraction", type=float, default=0.1,
                    help="fraction of mutants that also run 0.05 s of simulation (default 0.1)")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds before a trial counts as a hang")
    ap.add_argument("--allow-warnings", action="store_true",
                    help="let RuntimeWarnings of mechstudio.core pass (by default they are errors, as in the test "
                         "suite: numerical noise on stderr counts as a defect)")
    args = ap.parse_args(argv)
    if not args.allow_warnings:  # the test suite's filter (pyproject.toml, filterwarnings)
        warnings.filterwarnings("error", category=RuntimeWarning, module=r"mechstudio\.core\.")
    docs = sample_documents(ROOT / "sample_models")
    names = sorted(docs)
    counts: collections.Counter[str] = collections.Counter()
    defects: collections.Counter[str] = collections.Counter()
    examples: dict[str, str] = {}
    seeds: dict[str, list[str]] = {}
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # kill PID: stop like Ctrl-C, with the summary
    start = time.time()
    done = 0
    try:
        done = _loop(args, docs, names, counts, defects, examples, seeds, start)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: report what was done so far
        done = counts["ok"] + counts["rejected"] + counts["defect"] + counts["slow"]
        print("interrupted", file=sys.stderr)
    print(f"{done} {args.kind} mutants (seeds {args.seed}..{args.seed + done - 1}) in {time.time() - start:.1f} s: "
          f"{counts['rejected']} rejected with diagnostics, {counts['ok']} accepted, {counts['defect']} defects, "
          f"{counts['slow']} slow runs; {counts['ran:True']} also ran 0.05 s")
    for kind in KIND_SETS[args.kind]:
        print(f"  {kind}: {counts[kind + ':rejected']} rejected, {counts[kind + ':ok']} accepted, "
              f"{counts[kind + ':defect']} defects, {counts[kind + ':slow']} slow runs")
    for key, n in defects.most_common():
        print(f"  {n:6d} x {key}\n         e.g. {examples[key]}\n         first seeds: {'; '.join(seeds[key])}")
    return 1 if counts["defect"] else 0


def _loop(args: argparse.Namespace, docs: dict, names: list[str], counts: collections.Counter,
          defects: collections.Counter, examples: dict[str, str], seeds: dict[str, list[str]], start: float) -> int:
    kinds = KIND_SETS[args.kind]
    for k in range(args.n):
        seed = args.seed + k
        kind = kinds[k % len(kinds)]
        rng = random.Random(seed)
        name = rng.choice(names)
        mutant, muts = make_mutant(kind, docs[name], rng)
        runs = rng.random() < args.run_fraction
        ALARM_FIRED[0] = False
        signal.setitimer(signal.ITIMER_REAL, args.timeout)
        in_run = False
        try:
            seconds = 0.05 if runs else None
            out = trial_bytes(mutant, seconds) if isinstance(mutant, bytes) else trial(mutant, seconds)
        except Hang as exc:
            out = None
            frames = traceback.extract_tb(exc.__traceback__)
            in_run = any(Path(f.filename).parts[-3:-1] == ("core", "run") for f in frames)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if out is not None and ALARM_FIRED[0]:  # the timeout, reported by the trial as its stage's exception
            out, in_run = None, out.stage == "run"
        if out is None and in_run:
            key, outcome = f"slow run (> {args.timeout:g} s) [run]", "slow"
        elif out is None:
            key, outcome = f"hang (> {args.timeout:g} s)", "defect"
        else:
            key, outcome = out.detail.split(":")[0] + f" [{out.stage}]", out.kind
        counts[outcome] += 1
        counts[f"{kind}:{outcome}"] += 1
        counts[f"ran:{runs}"] += 1
        if outcome in ("defect", "slow"):
            defects[key] += 1
            if defects[key] <= 10:
                seeds.setdefault(key, []).append(f"{kind} {seed} {name}")
            if key not in examples:
                examples[key] = f"{kind} seed {seed} {name} {muts}: {out.detail if out else ''}"
                print(f"  new {outcome}: {key}: {examples[key]}", file=sys.stderr, flush=True)
        if (k + 1) % 1000 == 0:
            print(f"  {k + 1} mutants, {counts['defect']} defects, {counts['slow']} slow runs, "
                  f"{time.time() - start:.0f} s", file=sys.stderr, flush=True)
    return args.n


if __name__ == "__main__":
    sys.exit(main())
