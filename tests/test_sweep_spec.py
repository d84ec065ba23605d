"""Sweep specification without Dask: addresses, --vary parsing, designs, metrics, one run, the Parquet store."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mechstudio.core.model.io import load_model
from mechstudio.core.sweep import AddressError, SpecError, build_design, parse_metric, parse_vary, prepare, resolve
from mechstudio.core.sweep.metrics import REDUCERS, check_metrics
from mechstudio.core.sweep.runner import run_batch
from mechstudio.core.sweep.store import SweepStore, read_metadata, row_schema
from test_sweep_helpers import FOUR_BAR, ROOT, serial_metrics

SLIDER_PENDULUM = ROOT / "sample_models" / "slider_pendulum.json"
SLIDER_CRANK = ROOT / "sample_models" / "slider_crank_driven.json"


# ---- addresses ---------------------------------------------------------------------------------------------
def test_addresses_resolve_to_pointers_of_named_elements():
    m = load_model(FOUR_BAR)
    assert resolve(m, "crank.mass").pointer == "/bodies/0/mass"
    assert resolve(m, "rocker.initial.phi").pointer == "/bodies/2/initial/phi"
    assert resolve(m, "coupler.com.0").pointer == "/bodies/1/com/0"
    assert resolve(load_model(SLIDER_CRANK), "motor.function.speed").pointer == "/drivers/0/function/speed"
    assert resolve(load_model(SLIDER_PENDULUM), "spring.stiffness").pointer == "/forces/0/stiffness"


def test_unknown_name_or_field_is_refused_with_the_valid_choices():
    m = load_model(FOUR_BAR)
    with pytest.raises(AddressError, match="no element named 'crnk'; names: .*coupler, crank, rocker"):
        resolve(m, "crnk.mass")
    with pytest.raises(AddressError, match="field 'mas' of body 'crank' does not exist; numeric fields of "
                                           "'crank': mass, inertia"):
        resolve(m, "crank.mas", probe=1.0)
    with pytest.raises(AddressError, match="give a field"):
        resolve(m, "crank")
    with pytest.raises(AddressError, match="is not a number"):  # a point name, not a number
        resolve(m, "O.point1")


def test_a_field_absent_from_the_file_but_allowed_by_the_schema_is_accepted():
    from mechstudio.core.model.edit import delete_value
    sp = delete_value(load_model(SLIDER_PENDULUM), "/forces/0/damping")
    assert resolve(sp, "spring.damping", probe=0.1).pointer == "/forces/0/damping"
    with pytest.raises(AddressError, match="does not exist"):  # the strict schema has no such key
        resolve(sp, "spring.dampnig", probe=0.1)
    with pytest.raises(AddressError, match="does not exist"):
        resolve(load_model(FOUR_BAR), "crank.initial.zz", probe=0.0)


# ---- --vary and designs ------------------------------------------------------------------------------------
def test_parse_vary_ranges_and_lists():
    v = parse_vary("crank.mass=1:2:3")
    assert np.array_equal(v.grid_values(), [1.0, 1.5, 2.0])
    assert parse_vary("a.b=0.5,1e-3, 2").values == (0.5, 0.001, 2.0)
    assert parse_vary("a.b=1:2").count is None
    for bad, msg in [("crank.mass", "NAME.FIELD=START"), ("mass=1:2:3", "NAME.FIELD"),
                     ("a.b=1:x:3", "'x' is not a number"), ("a.b=1:2:0", "COUNT must be"),
                     ("a.b=1:2:2.5", "whole number"), ("a.b=nan,1", "finite")]:
        with pytest.raises(SpecError, match=msg):
            parse_vary(bad)


def test_grid_is_the_full_factorial_first_parameter_slowest():
    t = build_design([parse_vary("a.x=1:3:3"), parse_vary("b.y=10,20")])
    assert list(t.columns) == ["a.x", "b.y"]
    assert t.to_numpy().tolist() == [[1, 10], [1, 20], [2, 10], [2, 20], [3, 10], [3, 20]]
    with pytest.raises(SpecError, match="START:STOP:COUNT"):
        build_design([parse_vary("a.x=1:3")])
    with pytest.raises(SpecError, match="more than once"):
        build_design([parse_vary("a.x=1:3:2"), parse_vary("a.x=1,2")])


@pytest.mark.parametrize("design", ["random", "sobol"])
def test_sampled_designs_are_reproducible_and_inside_the_ranges(design):
    varies = [parse_vary("a.x=2:-1"), parse_vary("b.y=5,7,9")]
    t1 = build_design(varies, design, samples=64, seed=3)
    t2 = build_design(varies, design, samples=64, seed=3)
    t3 = build_design(varies, design, samples=64, seed=4)
    pd.testing.assert_frame_equal(t1, t2)
    assert not t1.equals(t3)
    assert t1["a.x"].between(-1, 2).all() and set(t1["b.y"]) <= {5.0, 7.0, 9.0}
    assert set(t1["b.y"]) == {5.0, 7.0, 9.0}  # 64 points hit each of the three listed values
    with pytest.raises(SpecError, match="--samples"):
        build_design(varies, design, samples=None, seed=1)


def test_sobol_points_are_the_scipy_sequence():
    from scipy.stats import qmc
    t = build_design([parse_vary("a.x=0:10"), parse_vary("b.y=-1:1")], "sobol", samples=16, seed=11)
    unit = qmc.Sobol(2, scramble=True, rng=11).random(16)
    assert np.allclose(t.to_numpy(), np.column_stack([10 * unit[:, 0], -1 + 2 * unit[:, 1]]), atol=1e-15)
    # a (0, m, 2)-net in base 2: each of the 16 elementary intervals [k/16, (k+1)/16) of x holds one point
    assert sorted(np.floor(unit[:, 0] * 16).astype(int)) == list(range(16))


# ---- metrics ------------------------------------------------------------------------------------------------
def test_parse_metric_and_reducers():
    m = parse_metric("peak = absmax( reaction.O.Fy )")
    assert (m.label, m.reducer, m.column) == ("peak", "absmax", "reaction.O.Fy")
    for bad, msg in [("peak=absmax", "LABEL=REDUCER"), ("p=median(t)", "unknown reducer 'median'"),
                     ("=max(t)", "LABEL=REDUCER")]:
        with pytest.raises(SpecError, match=msg):
            parse_metric(bad)
    x = np.array([1.0, -4.0, 2.0, 3.0])
    expected = {"max": 3.0, "min": -4.0, "absmax": 4.0, "mean": 0.5, "rms": math.sqrt(30 / 4), "final": 3.0}
    assert {k: f(x) for k, f in REDUCERS.items()} == pytest.approx(expected, rel=1e-15)
    with pytest.raises(SpecError, match="no column 'nope'; columns: t, q.a"):
        check_metrics([parse_metric("p=max(nope)")], ["t", "q.a"])
    with pytest.raises(SpecError, match="used twice"):
        check_metrics([parse_metric("p=max(t)"), parse_metric("p=min(t)")], ["t"])


# ---- runs ---------------------------------------------------------------------------------------------------
def test_a_batch_equals_serial_runs_and_bad_values_become_rows(tmp_path):
    metrics = {"peak": ("absmax", "reaction.O.Fy"), "phi": ("final", "q.crank.phi"), "e": ("rms", "energy.total")}
    table = pd.DataFrame({"crank.mass": [1.0, 2.5, -1.0], "rocker.initial.phi": [1.8, 1.7, 1.8]})
    plan = prepare(FOUR_BAR, table, [f"{k}={r}({c})" for k, (r, c) in metrics.items()], {"t_end": 0.2})
    rows = run_batch(plan.spec, [0, 1, 2], table.to_numpy().tolist())
    assert [r["run"] for r in rows] == [0, 1, 2]
    assert rows[2]["status"] == "invalid" and "/bodies/0/mass" in rows[2]["message"]
    assert math.isnan(rows[2]["metric.peak"])
    for row in rows[:2]:
        values = {"crank.mass": row["param.crank.mass"], "rocker.initial.phi": row["param.rocker.initial.phi"]}
        status, expected = serial_metrics(FOUR_BAR, values, metrics, tmp_path, str(row["run"]), t_end=0.2)
        assert row["status"] == status == "finished"
        for label, value in expected.items():  # the same computation: equal to the last bit (test to 1e-12)
            assert row[f"metric.{label}"] == pytest.approx(value, rel=1e-12, abs=1e-12)
        assert row["wall_s"] > 0
    assert rows[0]["metric.peak"] != rows[1]["metric.peak"]  # the mass did change the reaction


def test_prepare_refuses_bad_settings_and_columns_before_running():
    with pytest.raises(SpecError, match="unknown formulation 'nope'"):
        prepare(FOUR_BAR, {"crank.mass": [1.0]}, ["p=max(t)"], {"formulation": "nope"})
    with pytest.raises(SpecError, match="unknown simulation setting"):
        prepare(FOUR_BAR, {"crank.mass": [1.0]}, ["p=max(t)"], {"tend": 1.0})
    with pytest.raises(SpecError, match="no column 'reaction.O.Fz'"):
        prepare(FOUR_BAR, {"crank.mass": [1.0]}, ["p=max(reaction.O.Fz)"], {"t_end": 0.05})


# ---- the store ---------------------------------------------------------------------------------------------
def fake_rows(runs):
    return [{"run": r, "param.a.x": r * 0.5, "status": "finished", "message": "", "metric.p": r * 2.0,
             "wall_s": 0.01} for r in runs]


def test_store_streams_parts_merges_with_metadata_and_resumes(tmp_path):
    out = tmp_path / "s.parquet"
    meta = {"model": {"name": "m"}, "settings": {"t_end": 1.0}, "sweep": {"runs": 10}, "version": "x"}
    schema = row_schema(["a.x"], ["p"], meta)
    store = SweepStore(out, schema, flush_rows=3)
    store.write(fake_rows([4, 1, 7]))  # flushed: three rows
    store.write(fake_rows([0]))  # buffered
    parts = sorted(p.name for p in (tmp_path / "s.parquet.parts").iterdir())
    assert parts == ["part-000001.parquet"] and not out.exists()
    # a sweep killed here keeps the flushed part; resuming reads it
    again = SweepStore(out, schema, resume=True)
    assert again.done_runs() == {4, 1, 7}
    again.write(fake_rows([2]))
    again.close()
    assert not (tmp_path / "s.parquet.parts").exists()
    table = pq.read_table(out)
    assert table.column_names == ["run", "param.a.x", "status", "message", "metric.p", "wall_s"]
    assert sorted(table.column("run").to_pylist()) == [1, 2, 4, 7]
    assert read_metadata(out) == meta
    # resume of the merged file, then a different sweep is refused
    third = SweepStore(out, schema, resume=True)
    assert third.done_runs() == {1, 2, 4, 7}
    third.close()
    other = row_schema(["a.x"], ["p"], {**meta, "sweep": {"runs": 11}})
    with pytest.raises(SpecError, match="holds a different sweep \\(its sweep differ"):
        SweepStore(out, other, resume=True)
    # without --resume the old results are replaced
    fresh = SweepStore(out, schema)
    fresh.write(fake_rows([9]))
    fresh.close()
    assert pq.read_table(out).column("run").to_pylist() == [9]


def test_store_merges_in_bounded_batches(tmp_path):
    out = tmp_path / "big.parquet"
    schema = row_schema(["a.x"], ["p"], {"sweep": {}})
    with SweepStore(out, schema, flush_rows=1000, merge_rows=2500) as store:
        for start in range(0, 10000, 500):
            store.write(fake_rows(range(start, start + 500)))
    f = pq.ParquetFile(out)
    assert f.metadata.num_rows == 10000
    assert max(f.metadata.row_group(k).num_rows for k in range(f.num_row_groups)) <= 3000
    assert pa.compute.sum(f.read().column("run")).as_py() == sum(range(10000))
    assert json.loads(f.schema_arrow.metadata[b"mechstudio.sweep"]) == {}


# ---- the command line refuses bad input before anything runs ------------------------------------------------
@pytest.mark.parametrize("args, message", [
    (["--vary", "crnk.mass=1:2:3", "--metric", "p=max(t)"], "no element named 'crnk'; names: A, B, D, O, coupler"),
    (["--vary", "crank.mas=1:2:3", "--metric", "p=max(t)"], "numeric fields of 'crank': mass, inertia"),
    (["--vary", "crank.mass=1:2:3", "--metric", "p=max(reaction.O.Fz)"], "no column 'reaction.O.Fz'"),
    (["--vary", "crank.mass=1:2:3", "--metric", "p=median(t)"], "unknown reducer 'median'"),
    (["--vary", "crank.mass=1:2", "--metric", "p=max(t)"], "grid design needs START:STOP:COUNT"),
    (["--vary", "crank.mass=1:2", "--design", "sobol", "--metric", "p=max(t)"], "needs --samples"),
    (["--vary", "crank.mass=1:2:3", "--metric", "p=max(t)", "--formulation", "nope"], "unknown formulation"),
])
def test_cli_refuses_bad_input_with_status_2(args, message, tmp_path, capsys):
    from mechstudio.core.cli import main
    out = tmp_path / "s.parquet"
    assert main(["sweep", str(FOUR_BAR), *args, "--out", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "s.parquet.parts").exists()  # nothing ran, nothing written
