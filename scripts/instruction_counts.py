#!/usr/bin/env python3
"""Before/after speed of two checkouts by instruction counts (valgrind's callgrind), not by seconds.

    python3 scripts/instruction_counts.py BEFORE_CHECKOUT AFTER_CHECKOUT [CASE ...]

On a shared machine the CPU time of a 0.05-0.8 s run scatters by 7-11 % from one run to the next (other
processes, frequency scaling, caches), so a 5 % budget cannot be shown with seconds. The number of instructions
a run executes does not depend on what else the machine is doing: callgrind counts the same total twice for the
same binary, inputs and environment. This script runs the speed suite's cases (core/bench/speed.py: every sample
the projection formulation runs and the planar chains N = 1, 3, 10, 30; DOP853 rtol 1e-8, atol 1e-10, outputs
every 0.01 s with reactions, energies, violations and drift correction) under callgrind in each checkout and
prints, per case, the instructions of exactly ONE ``mechstudio.core.simulate.run`` (compilation, assembly and a warm-up run
excluded) and the ratio after/before, with the right-hand-side evaluations of both (equal when the numerics are).

How one run is isolated: the worker calls ``os.getppid()`` just before and just after the measured run, and
callgrind is started with ``--dump-before=getppid``, so the counters are dumped at each call; the dump between the
two calls of a case is that run. numba compiles for a ``generic`` CPU (``NUMBA_CPU_NAME=generic``) into a cache
of this script's own, filled first by a native run: under valgrind the CPU reports other features, which would
otherwise miss the project's cache and compile every kernel under valgrind (hours). Python's hash seed is fixed.
Both checkouts use the interpreter of AFTER_CHECKOUT/.venv. Cost: about 10 min of CPU per checkout.
"""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import tempfile

CASES = ("chaplygin_sleigh double_pendulum four_bar ice_skate_incline parallelogram pendulum rolling_disk "
         "rolling_disk_accelerating_plane slider_crank_driven slider_pendulum chain1 chain3 chain10 chain30").split()

WORKER = r'''
import json, os, sys
sys.path.insert(0, os.getcwd())
from mechstudio.core.bench.speed import planar_chain_data, sample_cases, _warm_up
from mechstudio.core.model.io import model_from_data
from mechstudio.core.simulate import SimulationSettings, initial_state, run
from mechstudio.core.systems.compile import compile_model
_warm_up()
cases = dict(sample_cases())
for n in (1, 3, 10, 30):
    cases[f"chain{n}"] = model_from_data(planar_chain_data(n))
rhs = []
for name in sys.argv[1:]:
    model = cases[name]
    t_end = 2.0 if name.startswith("chain") else min(float(model.data.get("simulation", {}).get("t_end", 5.0)), 5.0)
    system = compile_model(model)
    init = initial_state(system)
    s = SimulationSettings(t_end=t_end, dt=0.01, formulation="projection", integrator="dop853", rtol=1e-8,
                           atol=1e-10, correction=True)
    run(system, s, q0=init.q, v0=init.v)          # warm: kernels loaded, caches filled
    os.getppid()                                   # callgrind dumps here ...
    traj = run(system, s, q0=init.q, v0=init.v)
    os.getppid()                                   # ... and here: the dump between is one run
    rhs.append(int(traj.stats.get("rhs_evaluations", 0)))
print(json.dumps(rhs))
'''


def measure(checkout: str, python: str, cases: list[str], work: str) -> tuple[list[int], list[int]]:
    """(instructions of one run, rhs evaluations) per case, in ``checkout``."""
    tag = os.path.basename(os.path.abspath(checkout)) or "root"
    out_dir = tempfile.mkdtemp(prefix=f"cg_{tag}_", dir=work)
    worker = os.path.join(work, "worker.py")
    with open(worker, "w") as f:
        f.write(WORKER)
    env = dict(os.environ, NUMBA_CPU_NAME="generic", NUMBA_CACHE_DIR=os.path.join(work, f"numba_{tag}"),
               PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    subprocess.run([python, worker, *cases], cwd=checkout, env=env, check=True, capture_output=True)  # fill cache
    res = subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=getppid",
                          f"--callgrind-out-file={out_dir}/cg.%p", python, worker, *cases],
                         cwd=checkout, env=env, check=True, capture_output=True, text=True)
    rhs = json.loads(res.stdout.strip().splitlines()[-1])
    dumps = {int(p.rsplit(".", 1)[1]): p for p in glob.glob(f"{out_dir}/cg.*.*")}
    counts = []
    for k in range(1, len(cases) + 1):
        with open(dumps[2 * k]) as f:
            counts.append(next(int(line.split()[1]) for line in f if line.startswith("totals:")))
    return counts, rhs


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    before, after, *cases = argv
    cases = cases or list(CASES)
    python = os.path.join(os.path.abspath(after), ".venv", "bin", "python")
    work = tempfile.mkdtemp(prefix="instruction_counts_")
    b, rb = measure(before, python, cases, work)
    a, ra = measure(after, python, cases, work)
    print("| case | before: instructions of one run | after | after/before | rhs before/after |")
    print("|---|---|---|---|---|")
    for name, x, y, r1, r2 in zip(cases, b, a, rb, ra):
        print(f"| {name} | {x / 1e6:.1f} M | {y / 1e6:.1f} M | {y / x:.3f} | {r1}/{r2} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
