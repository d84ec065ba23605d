"""The runs of a sweep: ``--vary`` specifications and the designs built from them (grid, random, Sobol).

``--vary NAME.FIELD=START:STOP:COUNT`` gives COUNT evenly spaced values from START to STOP (both included;
COUNT = 1 gives START); ``--vary NAME.FIELD=v1,v2,v3`` gives the listed values. Designs:

* ``grid`` (default): the full factorial of all the values, the first ``--vary`` varying slowest;
* ``random``: ``samples`` independent uniform points in the box [START, STOP] of each range
  (numpy's PCG64 generator seeded with ``seed``);
* ``sobol``: ``samples`` points of a scrambled Sobol' sequence (``scipy.stats.qmc.Sobol``, seeded), scaled to
  the box with ``scipy.stats.qmc.scale``. Its balance properties hold for powers of two.

For ``random`` and ``sobol``, a parameter given as a list draws one of the listed values with equal
probability (the unit coordinate u picks item floor(u k)), and a range may omit COUNT (``START:STOP``).
The same specification and seed give the same design, run for run.

Size: a design is refused before it is built when its runs would not fit in memory (:func:`design_problem`):
the sweep holds the parameter table and its run numbers in the planning process (``DESIGN_BYTES_PER_VALUE``
per parameter value and ``DESIGN_BYTES_PER_RUN`` per run, measured), and compares them with the memory the
machine has (:func:`mechstudio.core.model.limits.available_memory`, ``MECHSTUDIO_MEMORY_LIMIT`` respected).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

DESIGNS = ("grid", "random", "sobol")
#: peak bytes per parameter value while a design is built, planned and submitted (float64 copies: the grid,
#: the table, the values of the runs still to do). Measured as the growth of the peak resident memory of
#: build_design, the table digest and the to-do arrays of 3.4-8 million runs of 1-3 parameters (2026-11-26):
#: 16 bytes per value and 10 per run; the constants double that for pandas' temporaries and fragmentation
DESIGN_BYTES_PER_VALUE = 32
#: peak bytes per run besides its values (the run numbers, the to-do mask; same measurement)
DESIGN_BYTES_PER_RUN = 20
#: below this many bytes a design is not checked against the machine's memory
DESIGN_CHECK_FROM_BYTES = 2 ** 26


class SpecError(ValueError):
    """A ``--vary``, ``--metric`` or design option that cannot be parsed; the message says what to write."""


@dataclass(frozen=True)
class Vary:
    """One varied parameter: a range (``start``, ``stop``, ``count``; count None for sampled designs only)
    or an explicit list of ``values``."""
    address: str
    start: float | None = None
    stop: float | None = None
    count: int | None = None
    values: tuple[float, ...] | None = None

    def grid_values(self) -> np.ndarray:
        if self.values is not None:
            return np.asarray(self.values, dtype=float)
        if self.count is None:
            raise SpecError(f"--vary {self.address}: the grid design needs START:STOP:COUNT")
        return np.linspace(self.start, self.stop, self.count)

    def from_unit(self, u: np.ndarray) -> np.ndarray:
        """Map unit coordinates u in [0, 1) to values (range: affine; list: item floor(u k))."""
        if self.values is not None:
            k = len(self.values)
            return np.asarray(self.values, dtype=float)[np.minimum((u * k).astype(int), k - 1)]
        from scipy.stats import qmc  # scipy.stats only for quasi-random designs (start-up)
        if self.start == self.stop:
            return np.full(len(u), float(self.start))
        lo, hi = min(self.start, self.stop), max(self.start, self.stop)
        return qmc.scale(u[:, None], [lo], [hi])[:, 0]

    def to_dict(self) -> dict:
        return {"address": self.address, "start": self.start, "stop": self.stop, "count": self.count,
                "values": list(self.values) if self.values is not None else None}

    def text(self) -> str:
        if self.values is not None:
            return f"{self.address}=" + ",".join(repr(v) for v in self.values)
        tail = f":{self.count}" if self.count is not None else ""
        return f"{self.address}={self.start!r}:{self.stop!r}{tail}"


def _number(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise SpecError(f"{where}: {text.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise SpecError(f"{where}: {text.strip()!r} is not a finite number")
    return value


def parse_vary(text: str) -> Vary:
    """Parse ``NAME.FIELD=START:STOP:COUNT`` or ``NAME.FIELD=v1,v2,...`` (the address is checked later)."""
    where = f"--vary {text}"
    address, eq, spec = text.partition("=")
    address = address.strip()
    if not eq or not address or not spec.strip():
        raise SpecError(f"{where}: write NAME.FIELD=START:STOP:COUNT or NAME.FIELD=v1,v2,...")
    if "." not in address:
        raise SpecError(f"{where}: the parameter is NAME.FIELD (e.g. crank.mass), not {address!r}")
    if ":" in spec:
        parts = spec.split(":")
        if len(parts) not in (2, 3):
            raise SpecError(f"{where}: a range is START:STOP:COUNT")
        start, stop = _number(parts[0], where), _number(parts[1], where)
        count = None
        if len(parts) == 3:
            try:
                count = int(parts[2])
            except ValueError:
                raise SpecError(f"{where}: COUNT {parts[2]!r} is not a whole number") from None
            if count < 1:
                raise SpecError(f"{where}: COUNT must be at least 1")
        return Vary(address, start, stop, count)
    values = tuple(_number(v, where) for v in spec.split(",") if v.strip())
    if not values:
        raise SpecError(f"{where}: no values")
    return Vary(address, values=values)


def design_memory(n_runs: int, n_params: int) -> int:
    """Peak bytes of planning and submitting a design of ``n_runs`` runs of ``n_params`` parameters."""
    return n_runs * (n_params * DESIGN_BYTES_PER_VALUE + DESIGN_BYTES_PER_RUN)


def design_problem(n_runs: int, n_params: int, what: str,
                   available: tuple[int, str] | None = None) -> str | None:
    """Why a design of ``n_runs`` runs cannot be held (``what`` names it: "the grid of 3 --vary"), or None."""
    from mechstudio.core.model.limits import available_memory  # psutil only for designs worth checking
    need = design_memory(n_runs, n_params)
    if need < DESIGN_CHECK_FROM_BYTES:
        return None
    room, where = available or available_memory()
    if need <= room:
        return None
    return (f"{what} has {n_runs:,} runs; planning them needs about {need / 1e9:.3g} GB "
            f"({n_params} parameter value(s) and a run number per run), more than the {room / 1e9:.3g} GB of "
            f"{where}; use fewer values (COUNT), fewer --vary or --samples, or split the sweep")


def build_design(varies: list[Vary], design: str = "grid", samples: int | None = None,
                 seed: int | None = None) -> pd.DataFrame:
    """The parameter table of the runs: one column per address (in ``varies`` order), one row per run.
    Raises SpecError, before allocating, when the design would not fit in memory (:func:`design_problem`)."""
    if not varies:
        raise SpecError("give at least one --vary NAME.FIELD=...")
    dup = [a for a, n in pd.Series([v.address for v in varies]).value_counts().items() if n > 1]
    if dup:
        raise SpecError(f"--vary {dup[0]} is given more than once")
    columns = [v.address for v in varies]
    if design == "grid":
        if samples is not None:
            raise SpecError("--samples is for the random and sobol designs; the grid runs every combination")
        counts = [len(v.values) if v.values is not None else v.count for v in varies]
        if all(c is not None for c in counts):
            problem = design_problem(math.prod(counts), len(varies), f"the grid of {len(varies)} --vary")
            if problem:
                raise SpecError(problem)
        axes = [v.grid_values() for v in varies]
        mesh = np.meshgrid(*axes, indexing="ij", copy=False)  # the first --vary varies slowest
        rows = np.stack([m.reshape(-1) for m in mesh], axis=1) if axes else np.zeros((1, 0))
        return pd.DataFrame(rows, columns=columns, copy=False)
    if design not in DESIGNS:
        raise SpecError(f"unknown design {design!r}; designs: {', '.join(DESIGNS)}")
    if samples is None or samples < 1:
        raise SpecError(f"the {design} design needs --samples N (N >= 1)")
    if seed is None:
        raise SpecError(f"the {design} design needs a seed")
    problem = design_problem(samples, len(varies), f"the {design} design")
    if problem:
        raise SpecError(problem)
    d = len(varies)
    if design == "random":
        unit = np.random.default_rng(seed).random((samples, d))
    else:
        from scipy.stats import qmc  # scipy.stats only for quasi-random designs (start-up)
        with warnings.catch_warnings():  # "balance properties" warning for N not a power of 2 (documented)
            warnings.simplefilter("ignore", UserWarning)
            unit = qmc.Sobol(d, scramble=True, rng=seed).random(samples)
    return pd.DataFrame({v.address: v.from_unit(unit[:, k]) for k, v in enumerate(varies)}, columns=columns)
