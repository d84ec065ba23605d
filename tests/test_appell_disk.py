"""Appell's equations of the rolling disk (issue 5; source 001, section 5): numeric ``appell``, compiled symbolic
``appell_symbolic`` and ``projection`` against a direct KKT solve, the symbolic model against the numeric
SpatialSystem, and the source's (corrected) h and eta against the symbolic derivation.

Independence: the KKT reference (appell_helpers) uses only the numeric SpatialSystem (hand-coded kinematics);
the symbolic model (core.symbolic.spatial) derives M and the velocity terms from the Gibbs function and the
contact rows from the contact point's velocity with its own composition of the Euler rotations; the source
formulas (5.7)-(5.10) are typed in here by hand, with the README errata applied (h_theta sign, the missing
theta' in eta).

Tolerances as in tests/test_appell.py: accelerations 1e-9 relative (observed ~1e-15); trajectories integrated
with DOP853 at rtol 1e-10 / atol 1e-12 over the samples' 5 s, compared at 1e-7 relative to max(|q|, 1).
"""
from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
import sympy as sp

from appell_helpers import (SAMPLES, consistent_state, formulation_trajectory, initial_state, kkt_accelerations,
                            kkt_trajectory)
from mechstudio.core.dynamics.base import FORMULATIONS, get_formulation
from mechstudio.core.model import load_model
from mechstudio.core.model.timefunc import T
from mechstudio.core.symbolic.appell import derive_appell, symbolic_model
from mechstudio.core.systems.compile import compile_model

DISKS = ["rolling_disk.json", "rolling_disk_accelerating_plane.json"]
ACC_RTOL = 1e-9
TRAJ_RTOL = 1e-7


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1.0))


def _formulations(system) -> dict:
    get_formulation("appell")  # loads the built-in formulations
    names = ("appell", "appell_symbolic", "projection")
    return {f: FORMULATIONS[f](system) for f in names if f in FORMULATIONS}


@pytest.mark.parametrize("name", DISKS)
def test_symbolic_disk_model_matches_spatial_system(name):
    model = load_model(SAMPLES / name)
    system = compile_model(model)
    sm = symbolic_model(model)
    assert sm.kind == "spatial" and sm.row_labels == system.row_labels()
    assert sm.coord_names == list(system.coord_names)
    h = sm.Q - sm.extra["inertial"]
    exprs = {"M": sm.M, "h": h, "Phi": sm.Phi, "Phi_q": sm.Phi_q, "gamma": sm.gamma, "C": sm.C, "xi": sm.xi,
             "eta": sm.eta}
    fns = {k: sp.lambdify((sm.q, sm.qd, T), e, modules="numpy") for k, e in exprs.items()}
    rng = np.random.default_rng(7)
    for _ in range(5):
        t = float(rng.uniform(0.0, 2.0))
        q, v = consistent_state(system, rng, t, spread=0.5)
        v = v + 0.5 * rng.standard_normal(system.n)  # the expressions hold off the manifold too
        num = {"M": system.mass_matrix(q, t), "h": system.forces(q, v, t), "Phi": system.phi(q, t),
               "Phi_q": system.phi_q(q, t), "gamma": system.gamma(q, v, t), "C": system.constraint_matrix(q, t),
               "xi": system.xi(q, t), "eta": system.eta(q, v, t)}
        for k, f in fns.items():
            val = np.asarray(f(q, v, t), float).reshape(np.shape(num[k]))
            scale = max(1.0, float(np.max(np.abs(num[k]))))
            assert np.max(np.abs(val - num[k])) < 1e-12 * scale, (k, val, num[k])


@pytest.mark.parametrize("name", DISKS)
def test_disk_accelerations_agree_on_random_consistent_states(name):
    system = compile_model(load_model(SAMPLES / name))
    forms = _formulations(system)
    assert {"appell", "appell_symbolic"} <= set(forms)
    rng = np.random.default_rng(5)
    for _ in range(10):
        t = float(rng.uniform(0.0, 5.0))
        q, v = consistent_state(system, rng, t, spread=0.5)
        v = v * 3.0  # consistent_state's null-space part is O(1): spin it up a little
        v = forms["appell"].unpack(forms["appell"].pack(q, v, t), t)[1]  # back onto C q' + xi = 0 exactly
        ref = kkt_accelerations(system, q, v, t)
        for fname, form in forms.items():
            assert _rel(form.accelerations(q, v, t).qdd, ref) < ACC_RTOL, fname
        y = forms["appell"].pack(q, v, t)
        assert _rel(forms["appell"].rhs(t, y), forms["appell_symbolic"].rhs(t, y)) < ACC_RTOL


@pytest.mark.parametrize("name", DISKS)
def test_disk_trajectories_agree_over_the_span(name):
    model = load_model(SAMPLES / name)
    system = compile_model(model)
    t_end = float(model.data["simulation"]["t_end"])
    times = np.linspace(0.0, t_end, 26)
    q0, v0 = initial_state(system)
    ref = kkt_trajectory(system, q0, v0, times, rtol=1e-10, atol=1e-12)
    for fname, form in _formulations(system).items():
        traj = formulation_trajectory(form, q0, v0, times, rtol=1e-10, atol=1e-12)
        err = float(np.max(np.abs(traj - ref) / np.maximum(np.abs(ref), 1.0)))
        assert err < TRAJ_RTOL, (fname, err)
    # the disk rolls: heading changes, it stays tilted (no fall within the span) and z = rho sin(theta)
    assert abs(ref[-1, 3] - ref[0, 3]) > 0.5
    assert np.all(np.abs(ref[:, 2] - 0.5 * np.sin(ref[:, 4])) < 1e-6)


def test_source_example_h_and_eta_with_errata():
    """Source 001, eqs. (5.7)-(5.10), coordinates (x, y, z, theta, psi, phi) there, rows (z, y, x); README errata:
    h_theta = -(m rho^2/4) psi'^2 sin th cos th - (m rho^2/2) psi' phi' sin th; eta's terms -2 rho theta' psi' ..."""
    from mechstudio.core.symbolic.planar import holonomic_terms, velocity_derivative
    from mechstudio.core.symbolic.spatial import RigidBodyTerms, disk_contact
    m, rho, g = sp.symbols("m rho g", positive=True)
    vx0, vy0, vz0, ax, ay, az = sp.symbols("v_x0 v_y0 v_z0 a_x a_y a_z", real=True)
    x, y, z, psi, th, ph = q = list(sp.symbols("x y z psi theta phi", real=True))
    xd, yd, zd, dpsi, dth, dph = qd = list(sp.symbols("xd yd zd psid thetad phid", real=True))
    qdd = list(sp.symbols("xdd ydd zdd psidd thetadd phidd", real=True))
    J = sp.diag(m * rho ** 2 / 4, m * rho ** 2 / 4, m * rho ** 2 / 2)
    body = RigidBodyTerms(q, qd, qdd, m, J)
    M, k = body.mass_and_velocity_terms()
    h = sp.Matrix([0, 0, -m * g, 0, 0, 0]) - k
    rp = sp.Matrix([vx0 * T + ax * T ** 2 / 2, vy0 * T + ay * T ** 2 / 2, vz0 * T + az * T ** 2 / 2])
    phi_row, vel = disk_contact(body, rho, rp)
    s, c = sp.sin, sp.cos
    # source order (x, y, z, theta, psi, phi) -> ours (x, y, z, psi, theta, phi)
    perm = [0, 1, 2, 4, 3, 5]
    M_src = sp.zeros(6, 6)
    M_src[0, 0] = M_src[1, 1] = M_src[2, 2] = m
    M_src[3, 3] = m * rho ** 2 / 4
    M_src[4, 4] = m * rho ** 2 * (s(th) ** 2 + 2 * c(th) ** 2) / 4
    M_src[4, 5] = M_src[5, 4] = m * rho ** 2 * c(th) / 2
    M_src[5, 5] = m * rho ** 2 / 2
    assert (M - M_src.extract(perm, perm)).applyfunc(sp.simplify) == sp.zeros(6, 6)
    h_src = sp.Matrix([0, 0, -m * g,
                       -m * rho ** 2 * dpsi ** 2 * s(th) * c(th) / 4 - m * rho ** 2 * dpsi * dph * s(th) / 2,  # erratum
                       m * rho ** 2 * dth * dpsi * c(th) * s(th) / 2 + m * rho ** 2 * dth * dph * s(th) / 2,
                       m * rho ** 2 * dth * dpsi * s(th) / 2])
    assert (h - h_src.extract(perm, [0])).applyfunc(sp.simplify) == sp.zeros(6, 1)
    # the printed (uncorrected) h_theta differs: the erratum is needed
    printed = m * rho ** 2 * dpsi ** 2 * c(th) * s(th) / 4 + m * rho ** 2 * dpsi * dph * s(th) / 2
    assert sp.simplify(h[4] - printed) != 0
    # constraints: C (5.9) with rows (z, y, x), right-hand sides v0 + a t
    C_rows = sp.Matrix([phi_row]).jacobian(q).col_join(vel.jacobian(qd))  # ours: rows z, x, y
    C_src = sp.Matrix([[0, 0, 1, -rho * c(th), 0, 0],
                       [0, 1, 0, rho * s(th) * c(psi), rho * c(th) * s(psi), rho * s(psi)],
                       [1, 0, 0, -rho * s(th) * s(psi), rho * c(th) * c(psi), rho * c(psi)]])
    C_src = C_src.extract([0, 2, 1], perm)
    assert (C_rows - C_src).applyfunc(sp.simplify) == sp.zeros(3, 6)
    # eta (5.10), corrected: C q'' + eta = 0
    _, _, gamma = holonomic_terms(sp.Matrix([phi_row]), q, qd)
    eta_nh = velocity_derivative(vel, q, qd)
    eta = (-gamma).col_join(eta_nh)
    eta_src = sp.Matrix([
        rho * dth ** 2 * s(th) - az,
        rho * dth ** 2 * c(th) * c(psi) - 2 * rho * dth * dpsi * s(th) * s(psi) + rho * dpsi ** 2 * c(th) * c(psi)
        + rho * dpsi * dph * c(psi) - ay,
        -rho * dth ** 2 * c(th) * s(psi) - 2 * rho * dth * dpsi * s(th) * c(psi) - rho * dpsi ** 2 * c(th) * s(psi)
        - rho * dpsi * dph * s(psi) - ax]).extract([0, 2, 1], [0])
    assert (eta - eta_src).applyfunc(sp.simplify) == sp.zeros(3, 1)
    # as printed (without theta') it is wrong
    wrong = eta_src[1] + 2 * rho * dth * dpsi * s(th) * c(psi) - 2 * rho * dpsi * s(th) * c(psi)
    assert sp.simplify(eta[1] - wrong) != 0


def test_disk_appell_equations_hand_check():
    """Still plane, u = (psi', theta', phi') (automatic choice): an upright disk rolling straight (theta = pi/2,
    psi' = theta' = 0, phi' = w) has the rolling inertia (1/2 + 1) m rho^2 for phi'' and no forcing terms."""
    model = load_model(SAMPLES / "rolling_disk.json")
    der = derive_appell(model)
    assert der.choice.names == ["d(disk.psi)", "d(disk.theta)", "d(disk.phi)"]
    psi, th = der.sm.q[3], der.sm.q[4]
    at = {th: sp.pi / 2, der.u[0]: 0, der.u[1]: 0, der.u[2]: sp.Symbol("w")}
    Mr = der.M_r.subs(at).applyfunc(sp.simplify)
    br = der.b_r.subs(at).applyfunc(sp.simplify)
    m, rho = 1, sp.Rational(1, 2)
    assert Mr[2, 2] == sp.Rational(3, 2) * m * rho ** 2
    assert br == sp.zeros(3, 1)
    assert psi not in Mr.free_symbols


@pytest.mark.parametrize("form", ["appell", "constraints", "lagrange"])
def test_equations_command_on_the_disk(form):
    from mechstudio.core.cli import main
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["equations", str(SAMPLES / "rolling_disk_accelerating_plane.json"), "--form", form]) == 0
    text = out.getvalue()
    assert "spatial" in text
    if form == "constraints":
        assert "contact.z" in text and "contact.x" in text and "eta_psi" in text
    if form == "appell":
        assert "Appell's equations" in text and "d(disk.phi)" in text


def test_unsupported_spatial_model_fails_cleanly():
    from mechstudio.core.cli import main
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(["equations", str(SAMPLES / "spherical_pendulum.json")]) == 2
    assert out.getvalue() == "" and "error:" in err.getvalue() and "spherical" in err.getvalue()  # errors: stderr


def test_appell_symbolic_on_an_unsupported_spatial_model_is_a_solver_failure():
    from mechstudio.core.dynamics.base import SolverFailure
    system = compile_model(load_model(SAMPLES / "spherical_pendulum.json"))
    with pytest.raises(SolverFailure, match="not available for this model.*spherical"):
        get_formulation("appell_symbolic")(system)


def test_symbolic_disk_with_applied_force_and_torque_matches_spatial_system():
    """Applied force at a rim point (time dependent) and a global torque: generalized forces by virtual power."""
    import json

    from mechstudio.core.model.io import model_from_data
    data = json.loads((SAMPLES / "rolling_disk_accelerating_plane.json").read_text())
    data["bodies"][0]["points"]["rim"] = [0.5, 0.0, 0.01]
    data["forces"] = [{"name": "push", "type": "applied_force", "body": "disk", "point": "rim",
                       "force": [0.3, {"type": "expression", "expression": "0.2*sin(t)"}, -0.1]},
                      {"name": "twist", "type": "applied_torque", "body": "disk", "torque": [0.05, -0.02, 0.1]}]
    model = model_from_data(data)
    system = compile_model(model)
    sm = symbolic_model(model)
    fh = sp.lambdify((sm.q, sm.qd, T), sm.Q - sm.extra["inertial"], modules="numpy")
    numeric, compiled = get_formulation("appell")(system), get_formulation("appell_symbolic")(system)
    rng = np.random.default_rng(2)
    for _ in range(4):
        t = float(rng.uniform(0.0, 3.0))
        q, v = consistent_state(system, rng, t, spread=0.5)
        v = v + 0.5 * rng.standard_normal(system.n)
        ref = system.forces(q, v, t)
        assert np.max(np.abs(np.asarray(fh(q, v, t), float).reshape(-1) - ref)) < 1e-12 * max(1, np.abs(ref).max())
        # and the compiled symbolic Appell equations with these loads
        v = numeric.unpack(numeric.pack(q, v, t), t)[1]
        qdd = compiled.accelerations(q, v, t).qdd
        assert _rel(qdd, kkt_accelerations(system, q, v, t)) < ACC_RTOL


def test_disk_with_a_rolling_speed_quasi_velocity():
    """A user choice on the disk: u = (psi', theta', v) with v the speed of the centre along the heading
    e1 = (cos psi, sin psi, 0) relative to the plane. Accelerations match KKT; the v equation is
    (3/2) m v' + m rho psi' theta' sin(theta) + m a_p . e1 = 0 (rolling inertia (1/2 + 1) m, the plane's
    acceleration as a pseudo-force; m = 1, rho = 1/2, a_p = (0.3, -0.2, 0) in the sample)."""
    import json

    from mechstudio.core.model.io import model_from_data
    data = json.loads((SAMPLES / "rolling_disk_accelerating_plane.json").read_text())
    data["quasi_velocities"] = {"choice": [
        {"name": "w_psi", "coefficients": {"disk.psi": 1}},
        {"name": "w_theta", "coefficients": {"disk.theta": 1}},
        {"name": "v", "expression": "cos(disk.psi)*d(disk.x) + sin(disk.psi)*d(disk.y)"
                                    " - cos(disk.psi)*(0.1 + 0.3*t) - sin(disk.psi)*(-0.2*t)"}]}
    model = model_from_data(data)
    system = compile_model(model)
    numeric, compiled = get_formulation("appell")(system), get_formulation("appell_symbolic")(system)
    assert compiled.choice.names == ["w_psi", "w_theta", "v"]
    rng = np.random.default_rng(4)
    for _ in range(4):
        t = float(rng.uniform(0.0, 5.0))
        q, v = consistent_state(system, rng, t, spread=0.5)
        v = numeric.unpack(numeric.pack(q, 3 * v, t), t)[1]
        ref = kkt_accelerations(system, q, v, t)
        for form in (numeric, compiled):
            assert _rel(form.accelerations(q, v, t).qdd, ref) < ACC_RTOL
    der = compiled.derivation
    psi, th = der.sm.q[3], der.sm.q[4]
    w_psi, w_th, vv = der.u
    eq = der.equations()[2]
    expected = (sp.Rational(3, 2) * der.ud[2] + sp.Rational(1, 2) * w_psi * w_th * sp.sin(th)
                + sp.Rational(3, 10) * sp.cos(psi) - sp.Rational(1, 5) * sp.sin(psi))
    assert sp.simplify(sp.nsimplify(eq.lhs - eq.rhs, rational=True) - expected) == 0
