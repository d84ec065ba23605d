"""Suite "startup" of ``mechstudio bench``: what a user waits for before the first results.

Every figure is measured in fresh subprocesses (``python -m mechstudio.core ...``), never in this process:

* **start-up ratio**: process CPU (user + system of the child process) of ``simulate`` of the pendulum sample for 1 s
  against the CPU of ``python -c "import numpy, scipy.integrate"``, the two interleaved, best of ``repeats`` each
  (target: at most 2). The user's kernel cache as it is (the pendulum's short run takes the numpy path either way:
  ``mechstudio.core.run.kernels``).
* **cold first run**: wall time of ``simulate`` of a sample with its file's own settings, as right after an
  install or upgrade: an empty ``MECHSTUDIO_CACHE_DIR`` (no compiled kernel; target: within 10 s on a 2-core
  machine), with whether a background compiler was still running when the command ended (it must not be).
* **first block**: wall time from starting a fresh process with an empty cache to the first block of frames of
  ``iter_simulation`` (what the editor's run shows first; target: within 5 s).
* **compiled start-up**: CPU of ``python -c "import numba"`` over a bare interpreter, and CPU of a short
  pendulum run with the compiled kernels minus the same run on the numpy path (warm cache: numba's import plus
  loading the path's kernels): the measured values of the constants ``IMPORT_CPU_S`` and ``IMPORT_CPU_S +
  LOAD_CPU_S`` of ``mechstudio.core.run.kernels``.
* **long run**: one long run with ``kernels`` "numpy", "compiled" and "auto" (warm cache, each in a fresh
  process): auto is within the start-up cost of the compiled run.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mechstudio.core.bench import BenchTable
from mechstudio.core.model.samples import sample_path

#: the targets of the start-up suite
RATIO_TARGET = 2.0
COLD_WALL_TARGET_S = 10.0
FIRST_BLOCK_TARGET_S = 5.0
#: samples of the cold first run (planar chain, closed loop, rolling disk, spherical tree)
COLD_SAMPLES = ("pendulum", "four_bar", "rolling_disk", "spherical_chain_3")
#: the long run: (sample, simulated seconds)
LONG_RUN = ("double_pendulum", 60.0)

_FIRST_BLOCK = """
import sys, time
from mechstudio.core.model import load_model
from mechstudio.core.simulate import SimulationSettings, iter_simulation
from mechstudio.core.systems.compile import compile_model
model = load_model(sys.argv[1])
for block in iter_simulation(compile_model(model), SimulationSettings.from_model(model), block_seconds=0.0):
    print("first block", flush=True)
    break
"""

_LONG = """
import json, sys
from mechstudio.core.simulate import simulate
traj = simulate(sys.argv[1], t_end=float(sys.argv[2]), kernels=sys.argv[3])
print(json.dumps({"status": traj.status.value, "kernels": traj.stats.get("kernels"),
                  "switch_cpu_s": traj.stats.get("kernel_switch_cpu_seconds", 0.0),
                  "run_cpu_s": traj.stats.get("cpu_seconds")}))
"""


def _env(cache: str | None = None) -> dict[str, str]:
    """The environment of a measured process: the default kernel choice; ``cache`` as its cache folder."""
    env = {k: v for k, v in os.environ.items() if k not in ("MECHSTUDIO_KERNELS", "NUMBA_CACHE_DIR")}
    if cache is not None:
        env["MECHSTUDIO_CACHE_DIR"] = cache
    return env


def _children_cpu() -> float:
    """User + system CPU [s] of this process's waited-for children so far (NaN where ``resource`` is missing)."""
    try:
        import resource  # POSIX only: elsewhere the suite reports wall times and NaN for CPU
    except ImportError:  # pragma: no cover
        return float("nan")
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _run(argv: list[str], env: dict[str, str] | None = None, cwd: str | None = None) -> dict[str, Any]:
    """Run ``argv`` to its end: wall time [s], process CPU [s] (the child's user + system time, its own waited-for
    children included), exit status and output. One child at a time (the CPU is a difference of this process's
    children totals)."""
    c0, w0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False)
    wall, cpu = time.perf_counter() - w0, _children_cpu() - c0
    return {"wall_s": wall, "cpu_s": cpu, "rc": proc.returncode, "out": proc.stdout.decode(errors="replace"),
            "err": proc.stderr.decode(errors="replace")}


def startup_ratio(repeats: int = 5) -> dict[str, Any]:
    """The start-up ratio row (module docstring)."""
    py = sys.executable
    base_argv = [py, "-c", "import numpy, scipy.integrate"]
    with tempfile.TemporaryDirectory() as tmp:
        ours_argv = [py, "-m", "mechstudio.core", "simulate", str(sample_path("pendulum")), "--t-end", "1",
                     "--out", str(Path(tmp) / "x.csv"), "-q"]
        base, ours, rcs = [], [], []
        for _ in range(max(1, repeats)):
            b = _run(base_argv, _env())
            o = _run(ours_argv, _env())
            base.append(b["cpu_s"])
            ours.append(o["cpu_s"])
            rcs.append(o["rc"])
    ratio = min(ours) / min(base)
    return {"case": "start-up ratio: simulate pendulum 1 s / import numpy, scipy.integrate (CPU, best of "
                    f"{len(base)})", "value": ratio, "ours_cpu_s": min(ours), "baseline_cpu_s": min(base),
            "target": f"<= {RATIO_TARGET:g}", "met": "yes" if ratio <= RATIO_TARGET and not any(rcs) else "NO"}


def _compilers_left(before: set[int]) -> int:
    """Processes of the background compiler running now that were not running ``before`` (Linux /proc)."""
    return len(_compiler_pids() - before)


def _compiler_pids() -> set[int]:
    found = set()
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    for p in proc.iterdir():
        if p.name.isdigit():
            try:
                if b"mechstudio.core.run.compiler_child" in (p / "cmdline").read_bytes():
                    found.add(int(p.name))
            except OSError:
                pass
    return found


def cold_first_run(sample: str) -> dict[str, Any]:
    """The cold first run row of ``sample`` (module docstring)."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as tmp:
        before = _compiler_pids()
        r = _run([sys.executable, "-m", "mechstudio.core", "simulate", str(sample_path(sample)),
                  "--out", str(Path(tmp) / "x.csv"), "-q"], _env(cache))
        left = _compilers_left(before)
    return {"case": f"cold first run: simulate {sample} (its file's settings, empty kernel cache; wall)",
            "value": r["wall_s"], "cpu_s": r["cpu_s"], "target": f"<= {COLD_WALL_TARGET_S:g} s",
            "met": "yes" if r["wall_s"] <= COLD_WALL_TARGET_S and r["rc"] == 0 and not left else "NO",
            "status": "ok" if r["rc"] == 0 else f"exit {r['rc']}: {r['err'].strip()[-200:]}",
            "compilers_left": left}


def first_block(sample: str = "pendulum") -> dict[str, Any]:
    """The first block row (module docstring)."""
    with tempfile.TemporaryDirectory() as cache:
        r = _run([sys.executable, "-c", _FIRST_BLOCK, str(sample_path(sample))], _env(cache))
    ok = r["rc"] == 0 and "first block" in r["out"]
    return {"case": f"first block of frames: {sample}, fresh process, empty kernel cache (wall)",
            "value": r["wall_s"], "cpu_s": r["cpu_s"], "target": f"<= {FIRST_BLOCK_TARGET_S:g} s",
            "met": "yes" if ok and r["wall_s"] <= FIRST_BLOCK_TARGET_S else "NO",
            "status": "ok" if ok else r["err"].strip()[-200:]}


def numba_import() -> dict[str, Any]:
    """CPU of importing numba, over a bare interpreter (the ``IMPORT_CPU_S`` of ``mechstudio.core.run.kernels``)."""
    r = _run([sys.executable, "-c", "import numba"], _env())
    base = _run([sys.executable, "-c", "pass"], _env())
    return {"case": "compiled start-up: import numba (CPU over a bare interpreter)",
            "value": r["cpu_s"] - base["cpu_s"], "target": "IMPORT_CPU_S",
            "status": "ok" if r["rc"] == 0 else "no numba"}


def compiled_startup(sample: str = "pendulum", repeats: int = 3) -> dict[str, Any]:
    """CPU of a short run with the compiled kernels minus the same run on the numpy path, fresh processes, warm
    cache (the first compiled run fills it): numba's import plus loading the path's kernels, S of
    ``mechstudio.core.run.kernels`` (the constants there, ``IMPORT_CPU_S + LOAD_CPU_S``)."""
    argv = [sys.executable, "-c", _LONG, str(sample_path(sample)), "0.05"]
    _run(argv + ["compiled"], _env())
    compiled, numpy_ = [], []
    for _ in range(max(1, repeats)):
        compiled.append(_run(argv + ["compiled"], _env())["cpu_s"])
        numpy_.append(_run(argv + ["numpy"], _env())["cpu_s"])
    return {"case": f"compiled start-up: {sample} 0.05 s compiled minus numpy (CPU, warm cache, best of {repeats})",
            "value": min(compiled) - min(numpy_), "target": "IMPORT_CPU_S + LOAD_CPU_S"}


def long_runs(sample: str, t_end: float) -> list[dict[str, Any]]:
    """Long-run rows: numpy, compiled, auto (warm cache: the compiled run first fills it)."""
    rows = []
    for kernels in ("compiled", "numpy", "auto"):
        r = _run([sys.executable, "-c", _LONG, str(sample_path(sample)), str(t_end), kernels], _env())
        try:
            info = json.loads(r["out"].strip().splitlines()[-1])
        except (ValueError, IndexError):
            info = {"status": f"exit {r['rc']}: {r['err'].strip()[-200:]}"}
        rows.append({"case": f"long run: {sample} {t_end:g} s, kernels={kernels} (process CPU, warm cache)",
                     "value": r["cpu_s"], "wall_s": r["wall_s"], "status": info.get("status"),
                     "kernels": info.get("kernels"), "switch_cpu_s": info.get("switch_cpu_s")})
    return rows


def run(quick: bool = False, **_: Any) -> BenchTable:
    rows = [startup_ratio(3 if quick else 5)]
    for sample in COLD_SAMPLES[:1] if quick else COLD_SAMPLES:
        rows.append(cold_first_run(sample))
    rows.append(first_block())
    rows.append(numba_import())
    rows.append(compiled_startup(repeats=2 if quick else 3))
    sample, t_end = LONG_RUN
    rows += long_runs(sample, 10.0 if quick else t_end)
    notes = ["process CPU = user + system time of the measured subprocess; wall = its elapsed time",
             "cold: MECHSTUDIO_CACHE_DIR an empty folder (no compiled kernel), as after an install; a run that "
             "would pay for the compiled kernels starts the background compiler, which must not outlive it "
             "(compilers_left)",
             "long run: the switch_cpu_s of the auto run is numba's import plus loading the path's kernels (the "
             "start-up cost S of mechstudio.core.run.kernels)"]
    return BenchTable("Start-up and first run (subprocesses)", rows, notes)


__all__ = ["COLD_SAMPLES", "COLD_WALL_TARGET_S", "FIRST_BLOCK_TARGET_S", "LONG_RUN", "RATIO_TARGET",
           "cold_first_run", "compiled_startup", "first_block", "long_runs", "numba_import", "run", "startup_ratio"]
