"""Linearisation about an equilibrium and modes (core/analysis/modes.py, ``mechstudio modes``), checked against
closed forms derived here independently: compound pendulum, double pendulum (2x2 linearised Lagrangian), sprung and
damped slider, inverted pendulum, spherical pendulum; the geometric stiffness against the Lagrange-multiplier
form; the linear response against a nonlinear simulation.

Tolerances: K_r and D_r are central differences with step 1e-5 (truncation ~1e-10 relative, rounding of the
Newton projection ~1e-14 / 1e-5 ~ 1e-9 relative), so frequencies agree with closed forms to 1e-7 relative."""
from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg

from cli_helpers import run_cli
from conftest import SAMPLES
from mechstudio.core.analysis.modes import Chart, find_equilibrium, linearise, modal_analysis
from mechstudio.core.model import load_model, loads_model
from mechstudio.core.simulate import simulate
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status

G = 9.81
RTOL = 1e-7  # see the module docstring


def sample(name: str) -> dict:
    return json.loads((Path(SAMPLES) / f"{name}.json").read_text())


def system_of(data: dict):
    return compile_model(loads_model(json.dumps(data), "<test>"))


def bar_data(body: dict) -> tuple[float, float, float, float]:
    """(m, I_c, d = |com - a|, L = |b - a|) of a bar body of the samples."""
    a, b, c = (np.array(body["points"]["a"]), np.array(body["points"]["b"]), np.array(body["com"]))
    return body["mass"], body["inertia"], float(np.linalg.norm(c - a)), float(np.linalg.norm(b - a))


# --- closed forms -------------------------------------------------------------------------------------------------
def test_compound_pendulum_frequency_is_m_g_d_over_I_O():
    data = sample("pendulum")
    m, Ic, d, _ = bar_data(data["bodies"][0])
    g = -data["gravity"][1]
    w2 = m * g * d / (Ic + m * d * d)  # compound pendulum about its hinge O
    res = modal_analysis(system_of(data))  # the file's pose (45 deg) is no equilibrium: the search finds hanging
    assert res.status.ok, res.message
    assert res.stable
    (mode,) = res.modes
    assert mode.kind == "oscillating"
    assert mode.omega_squared == pytest.approx(w2, rel=RTOL)
    assert mode.period_s == pytest.approx(2 * math.pi / math.sqrt(w2), rel=RTOL)
    assert res.equilibrium.q[2] == pytest.approx(-math.pi / 2, abs=1e-9)  # bar.phi: hanging straight down
    (s,) = res.damped
    assert s.eigenvalue == pytest.approx(1j * math.sqrt(w2), rel=RTOL) and s.damping_ratio == 0.0


def test_double_pendulum_frequencies_from_the_linearised_lagrangian():
    data = sample("double_pendulum")
    m1, I1, d1, L1 = bar_data(data["bodies"][0])
    m2, I2, d2, _ = bar_data(data["bodies"][1])
    g = -data["gravity"][1]
    # T = 1/2 th'^T M0 th', V = 1/2 th^T K0 th about hanging (th the bars' angles from the vertical)
    M0 = np.array([[I1 + m1 * d1 ** 2 + m2 * L1 ** 2, m2 * L1 * d2], [m2 * L1 * d2, I2 + m2 * d2 ** 2]])
    K0 = np.diag([(m1 * d1 + m2 * L1) * g, m2 * d2 * g])
    w2 = scipy.linalg.eigh(K0, M0, eigvals_only=True)
    res = modal_analysis(system_of(data))
    assert res.status.ok, res.message
    assert [m.omega_squared for m in res.modes] == pytest.approx(sorted(w2), rel=RTOL)
    # the slow mode: both bars swing the same way; the fast one: against each other
    slow, fast = (m.shape for m in res.modes)
    assert slow[2] * slow[5] > 0 and fast[2] * fast[5] < 0


def sprung_slider(k: float, c: float, m: float, x0: float = 0.3) -> dict:
    """A block of mass m [kg] on a horizontal prismatic joint, a spring k [N/m] and damper c [N s/m] along the rail
    to a ground anchor 1 m away, free length 1 m (equilibrium at x = 0); released at x0 [m]."""
    return {
        "format": "mechanism-studio-model", "version": 1, "name": "sprung_slider", "kind": "planar",
        "gravity": [0.0, -G],
        "ground": {"points": {"anchor": [-1.0, 0.0], "rail": [0.0, 0.0]}},
        "bodies": [{"name": "block", "mass": m, "inertia": 0.01, "com": [0.0, 0.0], "points": {"c": [0.0, 0.0]},
                    "initial": {"x": x0, "y": 0.0, "phi": 0.0}}],
        "joints": [{"name": "rail", "type": "prismatic", "body1": "ground", "point1": "rail", "body2": "block",
                    "point2": "c", "axis": [1.0, 0.0]}],
        "drivers": [],
        "forces": [{"name": "spring", "type": "spring_damper", "body1": "ground", "point1": "anchor",
                    "body2": "block", "point2": "c", "stiffness": k, "damping": c, "free_length": 1.0}],
    }


def test_sprung_slider_frequency_and_damping_ratio():
    k, c, m = 200.0, 3.0, 2.0
    res = modal_analysis(system_of(sprung_slider(k, c, m)))
    assert res.status.ok, res.message
    assert res.equilibrium.q[0] == pytest.approx(0.0, abs=1e-12)  # block.x: the spring at its free length
    zeta = c / (2 * math.sqrt(k * m))
    (mode,) = res.modes
    assert mode.omega == pytest.approx(math.sqrt(k / m), rel=RTOL)
    assert mode.damping_ratio == pytest.approx(zeta, rel=RTOL)  # one DOF: the modal ratio is exact
    (s,) = res.damped
    assert s.damping_ratio == pytest.approx(zeta, rel=RTOL)
    assert s.natural_frequency_hz == pytest.approx(math.sqrt(k / m) / (2 * math.pi), rel=RTOL)
    assert s.damped_frequency_hz == pytest.approx(math.sqrt(k / m) * math.sqrt(1 - zeta ** 2) / (2 * math.pi),
                                                  rel=RTOL)
    lin = res.linearisation
    assert lin.mass[0, 0] == pytest.approx(m, rel=1e-12)
    assert lin.stiffness[0, 0] == pytest.approx(k, rel=RTOL)
    assert lin.damping[0, 0] == pytest.approx(c, rel=RTOL)


def test_overdamped_slider_has_two_real_decaying_eigenvalues():
    k, c, m = 8.0, 20.0, 2.0  # zeta = 2.5
    res = modal_analysis(system_of(sprung_slider(k, c, m)))
    roots = np.sort(np.roots([m, c, k]).real)
    assert sorted(s.eigenvalue.real for s in res.damped) == pytest.approx(roots, rel=RTOL)
    assert all(s.eigenvalue.imag == 0.0 and s.stable for s in res.damped)


def test_inverted_pendulum_is_reported_unstable_with_its_growth_rate():
    data = sample("pendulum")
    data["bodies"][0]["initial"]["phi"] = math.pi / 2  # straight up: an equilibrium, an unstable one
    m, Ic, d, _ = bar_data(data["bodies"][0])
    res = modal_analysis(system_of(data), search=False)
    assert res.status.ok, res.message
    assert not res.stable
    (mode,) = res.modes
    assert mode.kind == "unstable" and mode.omega == 0.0 and math.isnan(mode.damping_ratio)
    rate = math.sqrt(m * G * d / (Ic + m * d * d))
    assert mode.omega_squared == pytest.approx(-rate ** 2, rel=RTOL)
    assert mode.growth_rate == pytest.approx(rate, rel=RTOL)
    assert sorted(s.eigenvalue.real for s in res.damped) == pytest.approx([-rate, rate], rel=RTOL)
    assert [s.stable for s in sorted(res.damped, key=lambda s: s.eigenvalue.real)] == [True, False]


def test_spherical_pendulum_has_two_equal_frequencies_and_a_free_spin():
    data = sample("spherical_pendulum")  # a tree of spherical joints: quaternion coordinates
    body = data["bodies"][0]
    body["initial"] = {"quaternion": [1.0, 0.0, 0.0, 0.0]}  # hanging straight down
    m, J = body["mass"], body["inertia"][0][0]
    d = body["points"]["in"][2] - body["com"][2]
    w2 = m * G * d / (J + m * d * d)
    res = modal_analysis(system_of(data), search=False)
    assert res.status.ok, res.message
    assert [m.kind for m in res.modes] == ["zero", "oscillating", "oscillating"]
    assert [m.omega_squared for m in res.modes[1:]] == pytest.approx([w2, w2], rel=RTOL)
    assert res.stable


# --- the geometric stiffness --------------------------------------------------------------------------------------
def hessian_fd(f, q, step=1e-4):
    """Central second differences of a vector function f: R^n -> R^m, (m, n, n); exact for quadratics."""
    n = q.size
    out = np.zeros((f(q).size, n, n))
    E = np.eye(n) * step
    for i in range(n):
        for j in range(n):
            out[:, i, j] = (f(q + E[i] + E[j]) - f(q + E[i] - E[j]) - f(q - E[i] + E[j]) + f(q - E[i] - E[j])) \
                / (4 * step * step)
    return out


@pytest.mark.parametrize("name", ["double_pendulum", "four_bar"])
def test_stiffness_equals_the_lagrange_multiplier_form(name):
    """K_r = -V^T h_q V - sum_i lambda_i V^T Phi_i,qq V with h + Phi_q^T lambda = 0 (every term computed here
    independently of the module's chart: Hessians and h_q by finite differences, lambda by least squares)."""
    system = system_of(sample(name))
    eq = find_equilibrium(system)
    assert eq.status.ok, eq.message
    q, t, n = eq.q, 0.0, system.n
    lin = linearise(system, q)
    V = lin.basis
    h0 = system.forces(q, np.zeros(n), t)
    lam = np.linalg.lstsq(system.phi_q(q, t).T, -h0, rcond=None)[0]
    H = hessian_fd(lambda x: system.phi(x, t), q)
    step = 1e-6
    hq = np.column_stack([(system.forces(q + step * e, np.zeros(n), t) - system.forces(q - step * e, np.zeros(n), t))
                          / (2 * step) for e in np.eye(n)])
    K = -V.T @ hq @ V - V.T @ np.einsum("i,ijk->jk", lam, H) @ V
    assert lin.stiffness == pytest.approx(K, rel=1e-5, abs=1e-5 * np.abs(K).max())  # h_q by FD: ~1e-7


def test_frozen_basis_misses_the_geometric_stiffness_of_a_pendulum():
    """In Cartesian coordinates gravity is constant (h_q = 0): differentiating V^T h with V frozen gives K = 0,
    only the turning basis J(z) (the rod's tension on the curved constraint) gives m g d."""
    system = system_of(sample("pendulum"))
    eq = find_equilibrium(system)
    chart = Chart(system, eq.q, 0.0)
    V, e = chart.basis, np.array([1e-5])
    frozen = [V.T @ system.forces(chart.pose(s * e)[0], np.zeros(system.n), 0.0) for s in (1, -1)]
    assert abs((frozen[0] - frozen[1])[0]) < 1e-12
    assert linearise(system, eq.q).stiffness[0, 0] > 1.0


# --- equilibrium --------------------------------------------------------------------------------------------------
def test_a_pose_that_is_no_equilibrium_is_refused_without_search_and_found_with_it():
    system = system_of(sample("pendulum"))  # released at -45 deg
    eq = find_equilibrium(system, search=False)
    assert eq.status is Status.FAILED and "not an equilibrium" in eq.message
    m, _, d, _ = bar_data(sample("pendulum")["bodies"][0])
    # the torque about O per unit of z: V is the unit tangent (x', y', phi') = (d sin, -d cos, 1) / sqrt(1 + d^2)
    # (the point at the hinge fixed), so V^T h = m g d cos(45 deg) / sqrt(1 + d^2)
    assert eq.residual == pytest.approx(m * G * d * math.cos(math.pi / 4) / math.sqrt(1 + d * d), rel=1e-9)
    assert find_equilibrium(system).status.ok


def test_the_search_prefers_a_stable_equilibrium():
    """The four-bar's file pose lies nearer an unstable equilibrium (plain Newton on Q_r = 0 goes there); the
    saddle-free steps go downhill in the potential to a stable one."""
    system = compile_model(load_model(Path(SAMPLES) / "four_bar.json"))
    res = modal_analysis(system)
    assert res.status.ok and res.stable
    assert all(m.kind == "oscillating" and m.omega_squared > 0 for m in res.modes)
    # an equilibrium: the potential is stationary along the allowed motion (central difference of V along V)
    chart = Chart(system, res.equilibrium.q, 0.0)
    e = 1e-4 * np.ones(chart.dof)
    dV = system.potential_energy(chart.pose(e)[0], 0.0) - system.potential_energy(chart.pose(-e)[0], 0.0)
    assert abs(dV) / 2e-4 < 1e-6


@pytest.mark.parametrize("name, words", [("rolling_disk", "nonholonomic"), ("slider_crank_driven", "time-dependent")])
def test_unsupported_models_fail_with_a_message(name, words):
    res = modal_analysis(compile_model(load_model(Path(SAMPLES) / f"{name}.json")))
    assert res.status is Status.FAILED and words in res.message and res.modes == ()


# --- the linear model against the nonlinear one -------------------------------------------------------------------
def damped_slider_pendulum() -> dict:
    data = sample("slider_pendulum")
    data["bodies"][0]["initial"].pop("hold", None)
    return data


def linear_vs_nonlinear_error(eps: float) -> tuple[float, float]:
    """From rest at a pose eps [rad] off the equilibrium, over 0..1.5 s: (max |q_nonlinear - (q* + V z_lin)|,
    max |V^T (q_nonlinear - q*) - z_lin|), z_lin(t) the linear model's response."""
    data = damped_slider_pendulum()
    res = modal_analysis(system_of(data))
    assert res.status.ok, res.message
    lin = res.linearisation
    names = lin.coord_names
    start = copy.deepcopy(data)
    for b in start["bodies"]:
        i = names.index(f"{b['name']}.phi")
        b["initial"].update(x=float(lin.q[i - 2]), y=float(lin.q[i - 1]), phi=float(lin.q[i]))
    start["bodies"][1]["initial"]["phi"] += eps  # the bob turned by eps; assembly moves the rest consistently
    traj = simulate(loads_model(json.dumps(start), "<test>"), t_end=1.5, dt=0.05, rtol=1e-11, atol=1e-13)
    assert traj.status.ok, traj.message
    assert np.allclose(traj.v[0], 0.0)
    sim_z = (traj.q - lin.q) @ lin.basis  # the chart coordinate: q = q* + V z + U_c w with V^T U_c = 0
    y0 = np.concatenate([sim_z[0], np.zeros(lin.dof)])
    lin_z = np.array([(scipy.linalg.expm(lin.state_matrix * t) @ y0)[:lin.dof] for t in traj.t])
    return float(np.max(np.abs(traj.q - (lin.q + lin_z @ lin.basis.T)))), float(np.max(np.abs(sim_z - lin_z)))


def test_linear_response_agrees_with_a_nonlinear_simulation_to_second_order():
    """The damped slider-pendulum (two modes, spring and damper) released eps off its equilibrium. In all
    coordinates the linear model misses the chart's curvature U_c w(z) = O(eps^2) (the bob's drop d (1 - cos)),
    in z only the nonlinear dynamics (measured O(eps^3) here: 0.51 eps^3, the swing being symmetric). Bounds:
    q within eps^2 (measured 0.50 eps^2), z within 0.1 eps^2, both shrinking at least 3.5x when eps is halved
    (second order or better; the simulation's own error, rtol 1e-11, is far below)."""
    (q1, z1), (q2, z2) = linear_vs_nonlinear_error(0.02), linear_vs_nonlinear_error(0.01)
    assert q1 < 0.02 ** 2 and z1 < 0.1 * 0.02 ** 2
    assert 3.5 < q1 / q2 < 4.5
    assert z1 / z2 > 3.5


# --- command line -------------------------------------------------------------------------------------------------
def test_modes_command_prints_frequencies_and_writes_the_csv(capsys, tmp_path):
    path = tmp_path / "slider.json"
    path.write_text(json.dumps(sprung_slider(200.0, 3.0, 2.0)))
    out_csv = tmp_path / "modes.csv"
    rc, out, err = run_cli(["modes", str(path), "--out", str(out_csv)], capsys)
    assert rc == 0, err
    f = math.sqrt(100.0) / (2 * math.pi)
    assert f"f = {f:.6g} Hz" in out and "zeta = 0.075" in out and "stable equilibrium" in out
    assert "shape: block.x +1" in out
    header = out_csv.read_text().splitlines()[0].split(",")
    row = [float(x) for x in out_csv.read_text().splitlines()[1].split(",")]
    assert header[:6] == ["mode", "omega_squared", "frequency_hz", "period_s", "growth_rate_per_s", "damping_ratio"]
    assert row[header.index("frequency_hz")] == pytest.approx(f, rel=RTOL)
    assert row[header.index("shape.block.x")] == 1.0


def test_modes_command_csv_to_stdout_report_to_stderr_and_count(capsys):
    rc, out, err = run_cli(["modes", str(Path(SAMPLES) / "double_pendulum.json"), "--out", "-", "--count", "1"],
                           capsys)
    assert rc == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("mode,omega_squared")
    assert "1 of 2" in err


def test_modes_command_reports_an_unstable_equilibrium(capsys, tmp_path):
    data = sample("pendulum")
    data["bodies"][0]["initial"]["phi"] = math.pi / 2
    path = tmp_path / "inverted.json"
    path.write_text(json.dumps(data))
    rc, out, err = run_cli(["modes", str(path), "--no-search"], capsys)
    assert rc == 0, err
    assert "UNSTABLE equilibrium" in out and "imaginary frequency" in out


@pytest.mark.parametrize("argv, words", [(["rolling_disk.json"], "nonholonomic"),
                                         (["pendulum.json", "--no-search"], "not an equilibrium")])
def test_modes_command_failures_exit_3_with_the_reason_on_stderr(capsys, argv, words):
    rc, out, err = run_cli(["modes", str(Path(SAMPLES) / argv[0]), *argv[1:]], capsys)
    assert rc == 3 and out == "" and words in err


def test_modes_command_bad_count_is_a_usage_error(capsys):
    rc, _, err = run_cli(["modes", str(Path(SAMPLES) / "pendulum.json"), "--count", "0"], capsys)
    assert rc == 2 and "--count" in err
