"""``mechstudio warm``: compile every family of numba kernels once into the on-disk cache (``<user cache>/
numba-<digest>``, see :mod:`mechstudio.core.jit`), so that neither the first simulation in the editor nor the first
run of a sweep pays for it (about 1-2 minutes). Run it after installing or upgrading; ``make run`` and ``make test``
do.

Each kernel family is compiled by short runs of samples that use it (:data:`CASES`: the planar projection with
its O(N) tree path, its closed-loop path and the compiled DOP853 step; the spatial projection of the rolling disk;
the Wittenburg trees, spherical and of hinges (joint coordinates); the spatial joints' rows in maximal coordinates
(the Cardan shaft); together they build every kernel set of the core, which tests/test_cli_warm.py checks). The
samples of one family run one after the other in one process, each twice (with the driver's compiled segments
of steps and with its own steps: ``mechstudio.core.run.driver.compile_runs``), the later ones compiling only what
the earlier left (the closed-loop sample shares the planar kernels of the tree sample). The families share no compiled
function, so they are compiled in parallel processes, one per core up to ``--jobs`` (numba writes its cache
files atomically). With ``MECHSTUDIO_NO_NUMBA=1`` there is nothing to compile.
"""
from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor

from mechstudio.core.commands.arguments import add_quiet_argument, positive_int
from mechstudio.core.jit import kernel_cache_dir, numba_module
from mechstudio.core.model.io import load_model
from mechstudio.core.model.samples import sample_path
from mechstudio.core.run.driver import compile_runs
from mechstudio.core.run.settings import SimulationSettings
from mechstudio.core.systems.compile import compile_model

#: (sample models, formulation): the short runs of one case, in one process, compile a family of kernels
CASES = ((("pendulum", "four_bar"), "projection"), (("rolling_disk",), "projection"),
         (("spherical_chain_3", "gyroscope_gimbals"), "wittenburg"), (("cardan_shaft",), "projection"))
WARM_T_END_S = 0.02


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("warm", help="compile the numerical kernels once into the cache (after an install)")
    p.add_argument("--jobs", type=positive_int, help="parallel processes (default: the cores, at most one per family)")
    add_quiet_argument(p)
    p.set_defaults(func=run)


def warm_case(case: tuple[tuple[str, ...], str]) -> str:
    """Run each sample of one case for :data:`WARM_T_END_S` seconds (compiling its kernels: ``compile_runs``); the
    sample names."""
    names, formulation = case
    for name in names:
        model = load_model(sample_path(name))
        compile_runs(compile_model(model), SimulationSettings.from_model(model, t_end=WARM_T_END_S,
                                                                         formulation=formulation, kernels="compiled"))
    return ", ".join(names)


def warm(jobs: int | None = None) -> list[str]:
    """Compile every kernel family (:data:`CASES`), in parallel processes; the cases run."""
    workers = min(len(CASES), jobs or os.cpu_count() or 1)
    if workers <= 1:
        return [warm_case(case) for case in CASES]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(warm_case, CASES))


def run(args: argparse.Namespace) -> int:
    if numba_module() is None:
        if not args.quiet:
            print("numba is switched off (MECHSTUDIO_NO_NUMBA) or missing: nothing to compile", file=sys.stderr)
        return 0
    warm(args.jobs)
    if not args.quiet:
        print(f"numba kernels compiled and cached in {kernel_cache_dir()}", file=sys.stderr)
    return 0
