"""Path synthesis on a dozen seeded random four-bars (core.analysis.synthesis): every Grashof class (crank-rocker,
Grashof double-rocker, drag link, non-Grashof triple rocker), placed and turned anywhere, scaled from 1 mm to 3 m, 6
to 8 targets along part or all of the coupler curve (the reachable range of a rocking input), evenly or unevenly
spaced in crank angle, visited in either direction. The targets come from driving the known linkage's model with
the kinematic solver; each result is written as a model file and driven by the solver from the first target to the
last (continuous motion, one branch), every target within 1e-4 of its longest link (the acceptance).

About a minute on a loaded two-core machine (up to a few minutes when the searches are slow), hence ``slow``; tests/test_analysis_synthesis.py keeps one
linkage of each class and the acceptance case in the normal suite.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from mechstudio.core.analysis.synthesis import synthesize_path
from mechstudio.core.types import Status
from synthesis_helpers import ACCEPT, KINDS, check_model_file, known_targets

#: (seed, kind, targets, uneven spacing)
CASES = [(100 + k, KINDS[k % 4], 6 + k % 3, bool(k % 2)) for k in range(12)]
BUDGET_S = 300.0


@pytest.mark.slow
@pytest.mark.parametrize("seed, kind, count, uneven", CASES)
def test_random_four_bar_is_recovered_through_every_target(tmp_path, seed, kind, count, uneven):
    rng = np.random.default_rng(seed)
    _, _, targets = known_targets(rng, kind, count, uneven)
    res = synthesize_path(targets, seed=seed, max_time_s=BUDGET_S)
    assert res.status == Status.CONVERGED, res.message
    path = tmp_path / "synth.json"
    path.write_text(json.dumps(res.best.to_model_data()), encoding="utf-8")
    assert check_model_file(path, targets, res.best.crank_angles) <= ACCEPT
