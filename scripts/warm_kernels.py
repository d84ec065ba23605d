"""Compile the numba kernels once into their on-disk cache (<user cache>/numba-<digest>, see core.jit), so that neither
the first simulation in the app nor the first test pays ~20 s of JIT compilation. Run by the Makefile after
installing.

The three kernel families (planar projection, rolling-disk projection with the compiled DOP853 step, Wittenburg
trees) share no compiled function, so they are compiled in parallel processes, one per core (numba writes its
cache files atomically).
"""
from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor

CASES = (("pendulum", "projection"), ("rolling_disk", "projection"), ("spherical_chain_3", "wittenburg"))


def warm(case: tuple[str, str]) -> str:
    from mechstudio.core.model.samples import sample_path
    from mechstudio.core.simulate import simulate
    name, formulation = case
    simulate(str(sample_path(name)), t_end=0.02, formulation=formulation)
    return name


def main() -> int:
    workers = min(len(CASES), os.cpu_count() or 1)
    if workers <= 1:
        for case in CASES:
            warm(case)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            list(pool.map(warm, CASES))
    print("numba kernels compiled and cached")
    return 0


if __name__ == "__main__":
    sys.exit(main())
