"""Benchmark problems of issue 8 (sample_models/benchmarks/): model files, independent references, accuracy.

Tolerances (each the acceptance of issue 8 or tighter, on spans short enough for CI):
* files: the JSON files equal the builders of core/bench/iftomm_models.py and load, compile and assemble;
* A01: exact elliptic-function solution: energy and period checks to 1e-12; the simulation (projection,
  dop853 at the file's settings) stays within 1e-6 m of it over 20 s (the 2000 s run is the benchmark's);
* A02: the energy reference agrees with the quadrature t(theta) to 1e-9 s and with I theta'' = -P cos theta to
  1e-7 rad; Phi_q at the horizontal has rank 5N + 2 (DOF N + 1); ALI3-P passes the first horizontal
  configuration of a 2-parallelogram mechanism with B0 within 1e-3 (m, m/s) of the reference;
* A03 (Andrews): the 7 angles at 0.03 s within 1e-8 relative of the Test Set values, rates 1e-6; the
  initial accelerations equal the published consistent ones to 1e-9 relative; |E - E0 - tau (beta - beta0)|
  < 1e-9 J over 0.05 s;
* stiff four-bar: the DAE solution (projection, radau) within 1e-8 rad of the one-DOF reference over 2 s.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mechstudio.core.bench import iftomm as ib
from mechstudio.core.bench import iftomm_models as im
from mechstudio.core.bench import iftomm_reference as ir
from mechstudio.core.model.io import load_model, model_from_data
from mechstudio.core.simulate import SimulationSettings, initial_state, run
from mechstudio.core.systems.compile import compile_model


def _system(doc):
    return compile_model(model_from_data(doc))


@pytest.mark.parametrize("name", sorted(im.all_models()))
def test_sample_files_match_builders_and_assemble(name):
    path = im.BENCH_DIR / name
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(im.dumps(im.all_models()[name]))
    system = compile_model(load_model(path))
    st = initial_state(system)
    assert st.status.ok, st.message
    assert np.linalg.norm(system.phi(st.q, 0.0)) < 1e-12


def test_andrews_data_copy_matches_shared_file():
    shared = im.ANDREWS_DATA
    if shared is None or not shared.exists():
        pytest.skip("shared benchmark data not present (set MECHSTUDIO_SHARED_DATA to its folder)")
    local = json.loads((im.BENCH_DIR / "andrews_squeezer_data.json").read_text())
    assert local == json.loads(shared.read_text())


# --- A01 -------------------------------------------------------------------------------------------------------


def test_pendulum_exact_solution_conserves_energy_and_has_the_elliptic_period():
    T = ir.pendulum_period()
    t = np.linspace(0, 3 * T, 301)
    x, y = ir.pendulum_exact(t)
    h = 1e-6
    xp, yp = ir.pendulum_exact(t + h)
    xm, ym = ir.pendulum_exact(t - h)
    vx, vy = (xp - xm) / (2 * h), (yp - ym) / (2 * h)
    E = 0.5 * (vx ** 2 + vy ** 2) + 9.81 * y
    assert np.max(np.abs(E)) < 1e-7  # E(0) = 0 (at rest at y = 0); finite-difference velocities limit this
    assert np.allclose(np.hypot(x, y), 1.0, atol=1e-14)
    xT, yT = ir.pendulum_exact(np.array([T, T / 2]))
    assert abs(xT[0] - 1.0) < 1e-12 and abs(yT[0]) < 1e-12  # back at the start after one period
    assert abs(xT[1] + 1.0) < 1e-12  # other side after half a period
    # the small-amplitude limit: T -> 2 pi sqrt(L/g)
    assert abs(ir.pendulum_period(theta0=1e-4) - 2 * math.pi / math.sqrt(9.81)) < 1e-8


def test_pendulum_simulation_follows_the_exact_solution():
    doc = im.pendulum_model(20.0)
    tr = run(_system(doc), SimulationSettings.from_model(model_from_data(doc)))
    assert tr.status.name == "FINISHED", tr.message
    m = ib.measure_pendulum(tr)
    assert m.error < 1e-6


# --- A02 -------------------------------------------------------------------------------------------------------


def test_nfourbar_reference_energy_quadrature_and_ode_agree():
    r = ir.NFourBarReference(40)
    th, w = r.state(np.array([0.0, 0.5, 5.0, 20.0]))
    assert th[0] == pytest.approx(math.pi / 2) and w[0] == pytest.approx(-1.0)
    E = 0.5 * r.I * w ** 2 + r.P * np.sin(th)
    assert np.max(np.abs(E - r.E)) < 1e-9 * r.E
    for t, a in ((0.5, th[1]), (5.0, th[2])):
        assert abs(r.time_of(a) - t) < 1e-9
    assert abs(r.ode_check(20.0) - th[3]) < 1e-7


@pytest.mark.parametrize("N", [2, 40])
def test_nfourbar_jacobian_loses_rank_at_the_horizontal(N):
    from mechstudio.core.kinematics.assembly import rank_analysis
    s = _system(im.nfourbar_model(N, 1.0))
    assert s.n == 3 * (2 * N + 1) and s.m_holonomic == 6 * N + 2
    for angle, rank in ((math.pi / 3, 6 * N + 2), (0.0, 5 * N + 2), (math.pi, 5 * N + 2)):
        q = ib._branch_configuration(s, angle)
        assert np.linalg.norm(s.phi(q, 0.0)) < 1e-12
        assert rank_analysis(s.phi_q(q, 0.0)).rank == rank


def test_ali3p_passes_the_singular_configuration():
    N = 2
    doc = im.nfourbar_model(N, 1.0)
    tr, _ = ib.run_ali3p(doc, 1e-3, budget=120.0)
    assert tr.status.name == "FINISHED", tr.message
    m = ib.measure_nfourbar(tr, N)
    assert m.error < 1e-3 and m.error_2 < 1e-3
    drops = ib.rank_drops(tr)
    assert len(drops) == 1 and drops[0]["dof"] == N + 1 and 0.6 < drops[0]["t"] < 0.8
    k = [3 * tr.system.index[f"crank{i}"] + 2 for i in range(N + 1)]
    assert np.max(np.abs(tr.frames.q[:, k] - tr.frames.q[:, k[:1]])) < 1e-6  # no branch jump


# --- A03 -------------------------------------------------------------------------------------------------------


def test_andrews_initial_accelerations_match_the_published_consistent_values():
    from mechstudio.core.dynamics.base import get_formulation
    s = _system(im.andrews_model())
    st = initial_state(s)
    acc = get_formulation("lagrange")(s).accelerations(st.q, st.v, 0.0)
    _, qdd = ir.andrews_angles(st.q, acc.qdd)
    ref = np.array(im.andrews_data()["initial_conditions"]["qdd_consistent"])
    assert np.max(np.abs(qdd - ref)) < 1e-9 * np.max(np.abs(ref))


def test_andrews_test_set_values_at_0_03_s():
    doc = im.andrews_model(0.03)
    tr = run(_system(doc), SimulationSettings.from_model(model_from_data(doc)))
    assert tr.status.name == "FINISHED", tr.message
    m = ib.measure_andrews_testset(tr)
    assert m.error < 1e-8, m.error
    assert m.error_2 < 1e-6, m.error_2


def test_andrews_energy_balance_over_0_05_s():
    doc = im.andrews_model(0.05)
    tr = run(_system(doc), SimulationSettings.from_model(model_from_data(doc)))
    assert tr.status.name == "FINISHED", tr.message
    bal = ib.andrews_energy_balance(tr)
    assert np.max(np.abs(bal)) < 1e-9
    assert tr.frames.q[-1, 2] - tr.frames.q[0, 2] > 20  # the crank really turned (beta ~ 26 rad at 0.05 s)


# --- stiff four-bar ------------------------------------------------------------------------------------------


def test_stiff_four_bar_matches_the_one_dof_reference():
    doc = im.stiff_fourbar_model()
    tr = run(_system(doc), SimulationSettings.from_model(model_from_data(doc)))
    assert tr.status.name == "FINISHED", tr.message
    m = ib.measure_stiff(tr)
    assert m.error < 1e-8 and m.error_2 < 1e-6
    assert ib._energy_drift(tr) < 1e-8


def test_stiff_four_bar_reference_is_stiff_and_moves():
    r = ir.StiffFourBarReference(im.STIFF_FOURBAR)
    y = r.solve(np.array([0.0, 2.0]))
    assert y[-1, 0] - y[0, 0] > 0.05  # it moves about 3.7 degrees
    eps = 1e-6
    J = np.array([(np.array(r.rhs(0, y[-1] + eps * e)) - np.array(r.rhs(0, y[-1] - eps * e))) / (2 * eps)
                  for e in np.eye(2)]).T
    lam = np.sort(np.abs(np.linalg.eigvals(J).real))
    assert lam[1] / lam[0] > 500  # stiffness ratio


# --- the runner ----------------------------------------------------------------------------------------------


def test_bench_suite_table_has_the_issue_columns():
    table = ib.run(quick=True, only=["Andrews test"], formulations=["projection"])
    md, csv = table.to_markdown(), table.to_csv()
    for col in ("problem", "formulation", "integrator", "tolerance", "error", "energy_drift_J", "max_violation",
                "cpu_s", "rhs_evals", "svd_count"):
        assert col in csv.splitlines()[0]
    assert len(table.rows) == 1 and table.rows[0]["error"] < 1e-8
    assert "Andrews" in md


@pytest.mark.slow
def test_nfourbar_40_full_run_through_all_singular_configurations():
    """The benchmark itself (about 20 s CPU): projection with correction, 20 s, all 20 horizontal passages."""
    N = 40
    doc = im.nfourbar_model(N, 20.0)
    tr = run(_system(doc), SimulationSettings.from_model(model_from_data(doc)))
    assert tr.status.name == "FINISHED", tr.message
    m = ib.measure_nfourbar(tr, N)
    assert m.error < 1e-3 and m.error_2 < 1e-3
    drops = ib.rank_drops(tr)
    assert len(drops) == 20 and all(d["rank"] == 5 * N + 2 and d["dof"] == N + 1 for d in drops)
    k = [3 * tr.system.index[f"crank{i}"] + 2 for i in range(N + 1)]
    assert np.max(np.abs(tr.frames.q[:, k] - tr.frames.q[:, k[:1]])) < 1e-6  # no branch jump
