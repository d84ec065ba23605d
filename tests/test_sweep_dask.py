"""Sweeps on a real Dask LocalCluster of two worker processes (the Python API), compared with serial runs.

One cluster serves the module (starting worker processes is the slow part); runs are short (t_end 0.3 s).
Tolerance 1e-12 (the issue's): a sweep run is the same computation as ``simulate`` on the saved modified file,
so the values agree to the last bit in practice; 1e-12 leaves room only for a different BLAS summation order
in a worker process, nothing physical.
"""
from __future__ import annotations

import math

import pandas as pd
import pyarrow.parquet as pq
import pytest

from mechstudio.core.sweep import sweep
from mechstudio.core.sweep.store import read_metadata
from test_sweep_helpers import FOUR_BAR, assert_rows_match_serial

METRICS = {"peak": ("absmax", "reaction.O.Fy"), "phi": ("final", "q.crank.phi"), "low": ("min", "v.rocker.phi"),
           "avg": ("mean", "energy.kinetic")}
METRIC_TEXT = [f"{k}={r}({c})" for k, (r, c) in METRICS.items()]
SETTINGS = {"t_end": 0.3}


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as c:
        yield c


def test_local_cluster_sweep_equals_serial_runs(client, tmp_path):
    params = {"crank.mass": [1.0, 1.0, 2.0, 2.0, -1.0, 1.0],
              "coupler.points.b.0": [3.5, 3.4, 3.5, 3.4, 3.5, 9.0]}  # -1 kg: invalid; a 9 m coupler: no assembly
    df = sweep(FOUR_BAR, params, METRIC_TEXT, SETTINGS, client=client, batch_size=2)
    assert list(df.columns) == (["run", "param.crank.mass", "param.coupler.points.b.0", "status", "message"]
                                + [f"metric.{k}" for k in METRICS] + ["wall_s"])
    assert df["run"].tolist() == list(range(6))
    assert df.loc[4, "status"] == "invalid" and "mass" in df.loc[4, "message"]
    assert df.loc[5, "status"] == "failed" and df.loc[5, "message"]
    assert math.isnan(df.loc[5, "metric.peak"])
    assert (df.loc[:3, "status"] == "finished").all()
    good = df[df["status"] != "invalid"]
    assert assert_rows_match_serial(good, FOUR_BAR, METRICS, tmp_path, **SETTINGS) == 4
    assert df.loc[:3, "metric.peak"].nunique() == 4  # each parameter change shows in the metric


def test_streamed_file_resume_skips_the_runs_already_done(client, tmp_path):
    out = tmp_path / "s.parquet"
    params = pd.DataFrame({"rocker.initial.phi": [1.7, 1.75, 1.8, 1.85], "crank.mass": [1.0, 1.2, 1.4, 1.6]})
    first = sweep(FOUR_BAR, params, METRIC_TEXT, SETTINGS, client=client, out=out)
    meta = read_metadata(out)
    assert meta["sweep"]["parameters"] == ["rocker.initial.phi", "crank.mass"]
    assert meta["settings"]["t_end"] == 0.3 and meta["model"]["name"] == "four_bar" and meta["version"]
    # keep two rows, as a sweep interrupted after two runs would have
    table = pq.read_table(out)
    kept = table.filter(pq.read_table(out).column("run").to_numpy() < 2)
    pq.write_table(kept, out)
    resumed = sweep(FOUR_BAR, params, METRIC_TEXT, SETTINGS, client=client, out=out, resume=True)
    assert resumed["run"].tolist() == [0, 1, 2, 3]
    # the kept rows were not run again (their worker wall times are the stored ones); the others equal run 1
    assert resumed.loc[:1, "wall_s"].tolist() == first.loc[:1, "wall_s"].tolist()
    pd.testing.assert_frame_equal(resumed.drop(columns="wall_s"), first.drop(columns="wall_s"))
    with pytest.raises(ValueError, match="different sweep"):
        sweep(FOUR_BAR, params, METRIC_TEXT, {"t_end": 0.2}, client=client, out=out, resume=True)


def test_a_task_that_fails_as_a_whole_gives_error_rows_and_the_sweep_goes_on(client):
    """A task that raises (here: its shared model text is broken, as a lost worker would also end a task) gives
    one ``error`` row per run of the task; the other tasks still deliver."""
    import dataclasses

    import numpy as np

    from mechstudio.core.sweep import prepare
    from mechstudio.core.sweep.execute import execute
    plan = prepare(FOUR_BAR, {"crank.mass": [1.0, 1.5]}, ["p=max(energy.kinetic)"], SETTINGS)
    broken = dataclasses.replace(plan.spec, model_json="{not json")
    rows: list[dict] = []
    outcome = execute(client, broken, [0, 1, 2], np.array([[1.0], [1.5], [2.0]]), rows.extend, batch_size=2,
                      warm=False)
    assert outcome.rows == 3 and not outcome.cancelled
    assert sorted(r["run"] for r in rows) == [0, 1, 2]
    assert all(r["status"] == "error" and "task failed (ModelError" in r["message"] for r in rows)
    assert all(math.isnan(r["metric.p"]) for r in rows)
    good = execute(client, plan.spec, [0, 1], np.array([[1.0], [1.5]]), rows.extend, warm=False)
    assert good.rows == 2 and [r["status"] for r in rows[3:]] == ["finished", "finished"]
