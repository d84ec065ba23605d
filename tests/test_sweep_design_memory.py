"""A sweep design too large for the machine is refused before anything is allocated, with a message that names
the number of runs, the memory it needs and the limit (``MECHSTUDIO_MEMORY_LIMIT`` here, so that the figures do
not depend on the machine); a design that fits is built as before (compared with itertools.product, an
independent construction of the full factorial)."""
from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mechstudio.core.sweep import SpecError, build_design, parse_vary
from mechstudio.core.sweep.design import design_memory
from test_sweep_helpers import FOUR_BAR, ROOT


def test_a_grid_of_a_hundred_million_runs_is_refused_with_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MECHSTUDIO_MEMORY_LIMIT", "1G")
    with pytest.raises(SpecError) as info:
        build_design([parse_vary("crank.mass=1:2:100000000")])
    text = str(info.value)
    assert "100,000,000 runs" in text and "MECHSTUDIO_MEMORY_LIMIT=1G" in text
    assert f"{design_memory(10 ** 8, 1) / 1e9:.3g} GB" in text


def test_the_product_of_the_counts_is_checked_not_each_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MECHSTUDIO_MEMORY_LIMIT", "64M")
    varies = [parse_vary(f"b{k}.mass=1:2:1000") for k in range(3)]  # 10^9 runs from three counts of 1000
    with pytest.raises(SpecError, match="1,000,000,000 runs"):
        build_design(varies)


@pytest.mark.parametrize("design", ["random", "sobol"])
def test_sampled_designs_are_checked_too(design: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MECHSTUDIO_MEMORY_LIMIT", "100M")
    with pytest.raises(SpecError, match=f"the {design} design has 50,000,000 runs"):
        build_design([parse_vary("crank.mass=1:2")], design, samples=50_000_000, seed=1)


def test_a_grid_that_fits_is_the_full_factorial() -> None:
    varies = [parse_vary("a.mass=1:2:3"), parse_vary("b.length=0.5,0.7"), parse_vary("c.k=10:40:4")]
    table = build_design(varies)
    expected = np.array(list(itertools.product(*(v.grid_values() for v in varies))))
    assert table.shape == (24, 3) and list(table.columns) == ["a.mass", "b.length", "c.k"]
    assert np.array_equal(table.to_numpy(), expected)


def test_the_command_line_refuses_at_once_and_names_the_limit(tmp_path: Path) -> None:
    env = {**os.environ, "MECHSTUDIO_MEMORY_LIMIT": "2G", "PYTHONPATH": str(ROOT)}
    res = subprocess.run([sys.executable, "-m", "mechstudio.core", "sweep", str(FOUR_BAR), "--vary",
                          "crank.mass=1:2:100000000", "--metric", "m=max(t)", "--quiet", "--out",
                          str(tmp_path / "sweep.parquet")],
                         capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 2, res.stderr
    assert res.stdout == ""
    assert "100,000,000 runs" in res.stderr and "MECHSTUDIO_MEMORY_LIMIT=2G" in res.stderr
    assert not (tmp_path / "sweep.parquet").exists()
