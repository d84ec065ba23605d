"""The sweep worker's cache (core.sweep.cache): runs that share the structure objects of an earlier run's system
compute the same numbers as runs that build everything themselves.

Equality is exact (``==`` on floats, NaN = NaN): the shared objects (the loop route's pattern, orderings and column
plans, the count of closed loops) hold no number a run computes with, and the per-run numbers (masses, inertias,
points, spring constants, driver speeds) come out of the same compile of the same document, so any difference
would be a bug, not round-off. The runs use the compiled kernels (``kernels="compiled"``: the loop route, whose
structure is shared, runs only there); with ``MECHSTUDIO_NO_NUMBA=1`` they run on the numpy path and the tests
still check the rows, the validation messages and the fallback.
"""
from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest

from mechstudio.core import jit
from mechstudio.core.dynamics import projection_loops
from mechstudio.core.errors import ModelError
from mechstudio.core.model.edit import set_value
from mechstudio.core.model.io import load_model, model_from_data
from mechstudio.core.simulate import SimulationSettings, run
from mechstudio.core.sweep import prepare
from mechstudio.core.sweep.address import apply_values
from mechstudio.core.sweep.cache import RUN_CACHE, RunCache, SweepCache, structure_signature
from mechstudio.core.sweep.runner import run_batch
from mechstudio.core.systems.compile import compile_model
from test_sweep_helpers import FOUR_BAR, ROOT

SLIDER_CRANK = ROOT / "sample_models" / "slider_crank_driven.json"
#: short runs (the equality is exact, a few steps with basis refreshes show it as well as long runs)
OVERRIDES = {"t_end": 0.3, "kernels": "compiled"}
METRICS = ["peak=absmax(reaction.O.Fy)", "phi=final(q.crank.phi)", "rms=rms(v.crank.phi)"]
#: the compiled kernels run (else the loop route, whose structure is shared, never does: every run is a donor)
COMPILED = jit.numba_available()


def four_bar_with_spring() -> dict:
    """The four-bar sample with a spring-damper from the ground point D to the coupler's end b."""
    data = json.loads(FOUR_BAR.read_text())
    data["forces"] = [{"name": "spring", "type": "spring_damper", "body1": "ground", "point1": "D",
                       "body2": "coupler", "point2": "b", "stiffness": 40.0, "damping": 0.3, "free_length": 2.0}]
    return data


def plan_of(model_data: dict | None, path, params: dict[str, list[float]]):
    model = model_from_data(model_data) if model_data is not None else load_model(path)
    return prepare(model, pd.DataFrame(params), METRICS, OVERRIDES)


def both_ways(plan) -> tuple[list[dict], list[dict]]:
    """The rows of the plan's runs without and with the cache (a fresh cache: the first run is the donor)."""
    values = plan.params.to_numpy().tolist()
    runs = list(range(len(values)))
    plain = run_batch(dataclasses.replace(plan.spec, reuse=False), runs, values)
    RUN_CACHE.clear()
    cached = run_batch(plan.spec, runs, values)
    return plain, cached


def same_rows(a: list[dict], b: list[dict]) -> None:
    assert len(a) == len(b)
    for ra, rb in zip(a, b):
        assert ra.keys() == rb.keys()
        for k in ra:
            if k == "wall_s":
                continue
            x, y = ra[k], rb[k]
            if isinstance(x, float) and math.isnan(x):
                assert isinstance(y, float) and math.isnan(y), k
            else:
                assert x == y, (k, x, y)


CASES = [
    ("four-bar masses, inertia", None, FOUR_BAR,
     {"crank.mass": [1.0, 1.5, 2.0], "coupler.inertia": [3.0, 3.6, 4.2]}),
    ("four-bar point coordinate, centre of mass", None, FOUR_BAR,
     {"coupler.points.b.0": [3.5, 3.45, 3.55], "rocker.com.0": [1.5, 1.4, 1.6]}),
    ("four-bar spring constant, damping", "spring", FOUR_BAR,
     {"spring.stiffness": [40.0, 10.0, 80.0], "spring.damping": [0.3, 0.0, 1.0]}),
    ("slider-crank masses, driver speed", None, SLIDER_CRANK,
     {"rod.mass": [3.0, 2.0, 4.0], "slider.mass": [0.5, 0.8, 0.3], "motor.function.speed": [6.0, 3.0, 9.0]}),
]


@pytest.mark.parametrize("name,extra,path,params", CASES, ids=[c[0] for c in CASES])
def test_cached_rows_equal_uncached_rows(name, extra, path, params):
    plan = plan_of(four_bar_with_spring() if extra == "spring" else None, path, params)
    plain, cached = both_ways(plan)
    assert all(r["status"] == "finished" for r in plain), [r["message"] for r in plain]
    same_rows(plain, cached)
    entry = RUN_CACHE.get(plan.spec.model_json, plan.spec.pointers, plan.spec.overrides)
    assert (entry.built, entry.shared) == ((1, len(plain) - 1) if COMPILED else (len(plain), 0))


@pytest.mark.parametrize("extra,path,pointers,values", [
    (None, FOUR_BAR, ["/bodies/0/mass", "/bodies/1/points/b/0"], [[1.7, 3.4], [1.2, 3.6]]),
    ("spring", FOUR_BAR, ["/forces/0/stiffness", "/bodies/2/inertia"], [[15.0, 2.0], [60.0, 2.5]]),
    (None, SLIDER_CRANK, ["/bodies/1/mass", "/drivers/0/function/speed"], [[2.5, 4.0], [3.5, 8.0]]),
])
def test_full_trajectories_are_identical(extra, path, pointers, values):
    base = model_from_data(four_bar_with_spring()) if extra == "spring" else load_model(path)
    settings = SimulationSettings.from_model(base, **OVERRIDES)
    shared = SweepCache(base, settings)
    for k, v in enumerate([values[0]] + values):  # the first run is the donor of the others
        model = apply_values(base, pointers, v, share=True)
        cached_system = compile_model(model)
        assert shared.adopt(cached_system) == (k > 0 and COMPILED)
        a = run(cached_system, settings)
        b = run(compile_model(model), settings)
        assert a.status.ok and b.status.ok, (a.message, b.message)
        ca, cb = a.columns(), b.columns()
        assert ca.keys() == cb.keys()
        for key in ca:
            assert np.array_equal(ca[key], cb[key]), key
    assert shared.shared == (len(values) if COMPILED else 0)


def test_another_structure_falls_back_and_becomes_the_donor():
    """A system whose signature differs (here: another model altogether) builds its own structure objects, runs
    like a plain run, and the systems after it share its structure."""
    four_bar, slider = load_model(FOUR_BAR), load_model(SLIDER_CRANK)
    settings = SimulationSettings.from_model(four_bar, **OVERRIDES)
    shared = SweepCache(four_bar, settings)
    first = compile_model(four_bar)
    assert not shared.adopt(first)
    run(first, settings)
    other = compile_model(slider)
    assert structure_signature(other) != structure_signature(first)
    assert not shared.adopt(other)
    assert shared.donor is other and shared.built == 2
    a = run(other, SimulationSettings.from_model(slider, **OVERRIDES))
    b = run(compile_model(slider), SimulationSettings.from_model(slider, **OVERRIDES))
    for key, value in a.columns().items():
        assert np.array_equal(value, b.columns()[key]), key
    again = compile_model(apply_values(slider, ["/bodies/2/mass"], [0.7]))
    assert shared.adopt(again) == COMPILED


def test_a_changed_row_count_changes_the_signature():
    """Structure a number cannot reach but an edit can: one joint fewer (fewer rows) is another signature, and a
    changed number is not."""
    data = json.loads(FOUR_BAR.read_text())
    base = compile_model(model_from_data(data))
    heavier = compile_model(apply_values(model_from_data(data), ["/bodies/0/mass"], [5.0]))
    assert structure_signature(base) == structure_signature(heavier)
    data["joints"] = data["joints"][:-1]
    assert structure_signature(compile_model(model_from_data(data))) != structure_signature(base)


def test_invalid_values_give_the_same_status_and_message():
    plan = plan_of(None, FOUR_BAR, {"crank.mass": [1.0, -1.0, 0.0], "coupler.inertia": [3.0, 3.0, -2.0]})
    plain, cached = both_ways(plan)
    same_rows(plain, cached)
    assert [r["status"] for r in cached] == ["finished", "invalid", "invalid"]
    for row, (mass, inertia) in zip(cached[1:], [(-1.0, 3.0), (0.0, -2.0)]):  # the editor's edits say the same
        reference = load_model(FOUR_BAR)
        with pytest.raises(ModelError) as exc:
            set_value(set_value(reference, "/bodies/0/mass", mass, validate=False), "/bodies/1/inertia", inertia)
        assert row["message"] == "; ".join(f"{d.pointer}: {d.message}" for d in exc.value.diagnostics)


def test_apply_values_equals_the_edits_and_leaves_the_base_alone():
    data = four_bar_with_spring()
    del data["forces"][0]["damping"]
    base = model_from_data(data)
    before = base.to_json()
    pointers = ["/bodies/0/mass", "/bodies/1/points/b/0", "/forces/0/damping"]  # the last one is absent: created
    reference = base
    for p, v in zip(pointers, [2.0, 3.25, 0.5]):
        reference = set_value(reference, p, v)
    for share in (False, True):
        out = apply_values(base, pointers, [2.0, 3.25, 0.5], share=share)
        assert out.data == reference.data
        assert base.to_json() == before
        assert (out.data["joints"] is base.data["joints"]) == share  # untouched parts shared only with share


def test_settings_are_per_run_when_an_address_is_outside_the_elements():
    cache = RunCache()
    model_json = load_model(FOUR_BAR).to_json()
    assert cache.get(model_json, ("/bodies/0/mass",), {"t_end": 0.5}).settings.t_end == 0.5
    assert cache.get(model_json, ("/simulation/rtol",), {}).settings is None


def test_shared_loop_structure_is_bound_to_the_new_numbers():
    if not COMPILED:
        pytest.skip("the loop route needs the compiled kernels")
    base = load_model(FOUR_BAR)
    settings = SimulationSettings.from_model(base, **OVERRIDES)
    donor = compile_model(base)
    run(donor, settings)
    other = compile_model(apply_values(base, ["/bodies/1/mass"], [7.0]))
    assert projection_loops.share_structure(other, donor)
    path = projection_loops.loop_path(other, other.initial_guess(), 0.0)
    assert path.structure.system_groups[1] is other.fused_data()[1]
    assert path.structure.row_ptr is projection_loops.loop_path(donor, donor.initial_guess(), 0.0).structure.row_ptr
