"""`mechstudio bench --suite contacts` runs every contact sample to its end and reports its events and energy
balance (no wall-clock assertion: the timings are the benchmark's, not the test's)."""
from __future__ import annotations

from mechstudio.core.bench.contacts import CASES, run


def test_the_contacts_suite_runs_every_case_and_reports_events_and_balance():
    table = run(quick=True)
    assert len(table.rows) == len(CASES)
    for row in table.rows:
        assert row["status"] == "finished", row
        assert row["cpu_s"] > 0 and row["steps"] > 0 and row["rhs"] >= row["steps"]
        # energy - work (dissipation included) relative to the largest energy: the samples run at rtol >= 1e-8 and
        # the integration error of ~100 steps adds up (measured: 1.0e-8 for the cam, <= 5e-10 for the others)
        assert row["balance_drift"] < 100 * 1e-8, row
