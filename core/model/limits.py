"""Size limits of a model file: the magnitude of its numbers and the memory its system will need.

Memory: every system (planar, spatial, spherical-joint tree) evaluates the mass matrix M (n x n), the constraint
matrix C (m x n, m <= n for a mobile mechanism) and, in the projection method, their SVDs and projectors as
dense float64 arrays, n the number of coordinates (3 per planar body, 6 per spatial body, 7 per body of a
spherical-joint tree or a model with spatial joints, core/systems/maximal_joints.py). Measured peak growth of the resident memory while compiling and running 0.01 s of planar
chains of 300, 600 and 1000 bodies (n = 900, 1800, 3000; ``MECHSTUDIO_NO_NUMBA=1``): 17, 12 and 10 n^2 doubles,
falling towards about 10 as the fixed part stops counting. :func:`memory_problem` estimates
``DENSE_MATRICES`` n^2 doubles and refuses the model, before anything is allocated, when that exceeds the memory
the machine can give (:func:`available_memory`).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mechstudio.core.model.spatial_joints import MAXIMAL_JOINTS

#: the largest magnitude accepted for any number in a model file (SI units). Lengths, masses, stiffnesses and
#: times of a mechanism are far below it; beyond it the squared and cubed quantities of the dynamics (inertia
#: m L^2, energies, the mass-weighted SVD) lose every significant digit or overflow, so such a value is a typo or
#: corrupted data and is refused at load with its JSON pointer rather than failing inside a run.
MAX_MAGNITUDE = 1e12
#: the largest model file read [bytes]: a chain of 10^4 bodies takes about 6 MB (indented); the parsed JSON of a
#: file needs several times its size in memory
MAX_FILE_BYTES = 256 * 2 ** 20
#: dense n x n float64 arrays a system holds at its peak (module docstring: about 10 measured, plus a margin)
DENSE_MATRICES = 12
#: environment variable that caps the memory a model may use, in bytes or with a suffix K, M, G, T (powers of
#: 1024); e.g. the share of a cluster node. Without it: the memory the machine has available now.
MEMORY_LIMIT_ENV = "MECHSTUDIO_MEMORY_LIMIT"
#: coordinates per body
COORDINATES_PER_BODY = {"planar": 3, "spatial": 6, "spherical_tree": 7}


def parse_size(text: str) -> int:
    """Bytes of ``"8G"``, ``"512M"``, ``"1e9"`` (suffixes K, M, G, T: powers of 1024); raises ValueError."""
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    factor = 1
    if text and text[-1] in "KMGT":
        factor = 1024 ** ("KMGT".index(text[-1]) + 1)
        text = text[:-1]
    value = float(text) * factor
    if not value > 0 or value == float("inf"):
        raise ValueError(f"not a positive size: {text!r}")
    return int(value)


def _cgroup_room() -> int | None:
    """Memory left under this process's cgroup (v2) limit, None when there is none."""
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = Path("/sys/fs/cgroup/memory.current").read_text().strip()
    except OSError:
        return None
    if not limit.isdigit() or not used.isdigit():
        return None
    return max(int(limit) - int(used), 0)


def available_memory() -> tuple[int, str]:
    """(bytes, where the figure comes from): ``$MECHSTUDIO_MEMORY_LIMIT`` when set, else the memory available now
    (psutil), capped by a cgroup limit."""
    env = os.environ.get(MEMORY_LIMIT_ENV)
    if env:
        try:
            return parse_size(env), f"the limit {MEMORY_LIMIT_ENV}={env}"
        except ValueError:
            pass
    import psutil  # asked only for a model of 256 MiB or more (memory_problem): most loads never import it
    free = int(psutil.virtual_memory().available)
    room = _cgroup_room()
    if room is not None and room < free:
        return room, "the memory left under this process's cgroup limit"
    return free, "the memory this machine has available"


def coordinates(data: dict[str, Any]) -> tuple[int, str]:
    """(number of coordinates n, system kind) of a schema-valid document."""
    nb = len(data.get("bodies", []))
    if data.get("kind") == "spatial":
        tree = any(j.get("type") in ("spherical", *MAXIMAL_JOINTS) for j in data.get("joints", []))
        kind = "spherical_tree" if tree else "spatial"
    else:
        kind = "planar"
    return COORDINATES_PER_BODY[kind] * nb, kind


def estimated_memory(n: int) -> int:
    """Bytes the dense arrays of a system of ``n`` coordinates need at their peak (module docstring)."""
    return DENSE_MATRICES * 8 * n * n


def _gb(x: float) -> str:
    return f"{x / 1e9:.3g} GB"


def memory_problem(data: dict[str, Any], available: tuple[int, str] | None = None) -> tuple[str, str] | None:
    """(pointer, message) when the model needs more memory than ``available`` (default
    :func:`available_memory`); None when it fits."""
    n, kind = coordinates(data)
    need = estimated_memory(n)
    if need < 2 ** 28:  # below 256 MiB: no need to ask the machine
        return None
    room, where = available or available_memory()
    if need <= room:
        return None
    nb = len(data.get("bodies", []))
    return ("/bodies", f"too large for this machine: {nb} bodies are {n} coordinates "
                       f"({COORDINATES_PER_BODY[kind]} per {kind.replace('_', ' ')} body), whose dense matrices "
                       f"(mass matrix, constraint matrix, their SVD; about {DENSE_MATRICES} n x n arrays of 8-byte "
                       f"numbers) need about {_gb(need)}, more than the {_gb(room)} of {where}")
