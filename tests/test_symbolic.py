"""Symbolic derivation (issue 5): the symbolic model against the numeric PlanarSystem, the printed Appell
equations against the textbook/erratum equations (symbolic differences simplify to 0), caching, the CLI.

The textbook references are written out here by hand from source 002 and the README errata; the numeric
PlanarSystem (hand-coded vectorised kinematics) is independent of the sympy derivation. Numeric comparisons
of symbolic and numeric M, h, Phi, Phi_q, gamma, C_psi, eta: both are closed-form evaluations of the same
expressions, so they agree to a few ulps; 1e-12 (relative to max(1, |value|)) is tight but safe.
"""
from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
import sympy as sp

from appell_helpers import SAMPLES, consistent_state, planar_samples
from mechstudio.core.elements.primitives.cam_profile import TABLE_TOLERANCE
from mechstudio.core.model import load_model
from mechstudio.core.model.timefunc import T
from mechstudio.core.symbolic.appell import derivation_time, derive_appell, symbolic_model
from mechstudio.core.symbolic.quasi import coordinate_symbol
from mechstudio.core.systems.compile import compile_model


@pytest.mark.parametrize("name", planar_samples())
def test_symbolic_model_matches_numeric_system(name):
    model = load_model(SAMPLES / name)
    system = compile_model(model)
    sm = symbolic_model(model)
    assert sm.row_labels == system.row_labels()
    args = (sm.q, sm.qd, T)
    fns = {k: sp.lambdify(args, getattr(sm, k), modules="numpy")
           for k in ("M", "Q", "Phi", "Phi_q", "gamma", "C", "xi", "eta")}
    rng = np.random.default_rng(11)
    # a cam's numeric rows evaluate its profile table, whose r, r', r'' the loader guarantees within
    # TABLE_TOLERANCE of max r of the exact profile the symbolic form uses (core/elements/primitives/cam_profile.py;
    # round-off of the quintic's 1/h^2 in r''): the cam's terms of gamma (r'' times the cam's rate squared) carry
    # that relative error. Measured: 3e-11 (cam_follower), 1.6e-10 (cam_follower_jump, 9x the cam speed)
    tol = TABLE_TOLERANCE if any(j.type == "cam_follower" for j in model.entities.joints) else 1e-12
    for _ in range(5):
        t = float(rng.uniform(0, 0.1)) if system.rheonomic else 0.0
        q, v = consistent_state(system, rng, t)
        v = v + 0.3 * rng.standard_normal(system.n)  # any velocity: the expressions hold off the manifold
        num = {"M": system.mass_matrix(q, t), "Q": system.forces(q, v, t), "Phi": system.phi(q, t),
               "Phi_q": system.phi_q(q, t), "gamma": system.gamma(q, v, t), "C": system.constraint_matrix(q, t),
               "xi": system.xi(q, t), "eta": system.eta(q, v, t)}
        for k, f in fns.items():
            val = np.asarray(f(q, v, t), float).reshape(np.shape(num[k]))
            scale = max(1.0, float(np.max(np.abs(num[k]))) if num[k].size else 1.0)
            assert np.max(np.abs(val - num[k]), initial=0.0) < tol * scale, (k, val, num[k])


def _subs_quasi(der, names: dict[str, tuple[sp.Symbol, sp.Symbol]]):
    """Map the quasi-velocity symbols u_v, u'_v to the given (speed, acceleration) symbols."""
    subs = {}
    for v, n in enumerate(der.choice.names):
        if n in names:
            subs[der.u[v]] = names[n][0]
            subs[der.ud[v]] = names[n][1]
    return subs


def test_skate_textbook_equations_equal_the_erratum():
    """x_c'' + x_c' theta' tan(theta) + g sin(alpha) sin(theta) cos(theta) = 0 and theta'' = 0 (README errata,
    source 002 example 2.6, m = 1 kg, J = m l^2/12 = 1/12, g sin(alpha) from the file)."""
    model = load_model(SAMPLES / "ice_skate_incline.json")
    der = derive_appell(model, "textbook")
    x, th = coordinate_symbol("skate.x"), coordinate_symbol("skate.phi")
    xd, xdd = coordinate_symbol("skate.x", 1), coordinate_symbol("skate.x", 2)
    thd, thdd = coordinate_symbol("skate.phi", 1), coordinate_symbol("skate.phi", 2)
    gs = sp.Float(-model.data["gravity"][1])
    subs = _subs_quasi(der, {"u1": (xd, xdd), "u2": (thd, thdd)})
    e1, e2 = [(eq.lhs - eq.rhs).subs(subs) for eq in der.equations()]
    erratum1 = xdd + xd * thd * sp.tan(th) + gs * sp.sin(th) * sp.cos(th)
    assert sp.simplify(e1 * sp.cos(th) ** 2 - erratum1) == 0  # (m sec^2) times the erratum equation
    assert sp.simplify(e2 * 12 - thdd) == 0  # J theta'' = 0
    # kinematics: y_c' = x_c' tan(theta)
    yd = coordinate_symbol("skate.y", 1)
    kin = {eq.lhs: eq.rhs.subs(subs) for eq in der.kinematic_equations()}
    assert sp.simplify(kin[yd] - xd * sp.tan(th)) == 0
    assert x not in sp.Matrix([e1, e2]).free_symbols


def test_skate_blade_speed_equation_has_no_cos_singularity():
    """v' = -g sin(alpha) sin(theta) (speed along the blade): no division by cos(theta) anywhere."""
    model = load_model(SAMPLES / "ice_skate_incline.json")
    der = derive_appell(model)  # the file's default choice: v, w
    assert der.choice.names == ["v", "w"]
    th = coordinate_symbol("skate.phi")
    gs = sp.Float(-model.data["gravity"][1])
    e1, e2 = [sp.together(eq.lhs - eq.rhs) for eq in der.equations()]
    v_dot = der.ud[0]
    assert sp.simplify(e1 - (v_dot + gs * sp.sin(th))) == 0
    for e in (e1, e2, *der.M_r, *der.b_r, *der.qd_expr):
        den = sp.denom(sp.together(sp.simplify(e)))
        assert not den.has(sp.cos(th)) and not den.has(sp.tan(th)) and not den.has(sp.sec(th)), e


def test_slider_pendulum_equations_equal_the_textbook():
    """(mA + mB) x'' + mB l (phi'' cos phi - phi'^2 sin phi) = -k x - c x' and l phi'' + x'' cos phi = -g sin phi
    with mA = 2, mB = 1, l = 1, k = 20, c = 0.5, g = 9.81; phi = the bob's frame angle (0 = hanging down).
    The spring's length is |x + 1| (anchor at x = -1, free length 1): the textbook form holds for x > -1,
    so x is written s - 1 with s > 0."""
    model = load_model(SAMPLES / "slider_pendulum.json")
    der = derive_appell(model)
    assert der.choice.names == ["u1", "u2"]
    x, phi = coordinate_symbol("slider.x"), coordinate_symbol("bob.phi")
    xd, xdd = coordinate_symbol("slider.x", 1), coordinate_symbol("slider.x", 2)
    pd, pdd = coordinate_symbol("bob.phi", 1), coordinate_symbol("bob.phi", 2)
    s = sp.Symbol("s", positive=True)
    mA, mB, ll, k, c, g = 2, 1, 1, 20, sp.Rational(1, 2), sp.Rational(981, 100)
    text1 = (mA + mB) * xdd + mB * ll * (pdd * sp.cos(phi) - pd ** 2 * sp.sin(phi)) + k * x + c * xd
    text2 = ll * pdd + xdd * sp.cos(phi) + g * sp.sin(phi)
    subs = _subs_quasi(der, {"u1": (xd, xdd), "u2": (pd, pdd)})
    e1, e2 = [(eq.lhs - eq.rhs).subs(subs) for eq in der.equations()]
    assert sp.simplify((e1 - text1).subs(x, s - 1)) == 0
    assert sp.simplify(e2 / (mB * ll) - text2) == 0  # Appell's second equation is mB l times the textbook one


def test_constraints_symbolic_phi_q_gamma_four_bar():
    """Phi_q q'' = gamma: gamma is the velocity-independent remainder of d^2 Phi/dt^2 (checked symbolically)."""
    sm = symbolic_model(load_model(SAMPLES / "four_bar.json"))
    qs = [sp.Function(s.name)(T) for s in sm.q]
    rep = dict(zip(sm.q, qs))
    phi_t = sm.Phi.subs(rep)
    d2 = phi_t.diff(T, 2)
    back = {q.diff(T, 2): a for q, a in zip(qs, sm.qdd)}
    back.update({q.diff(T): v for q, v in zip(qs, sm.qd)})
    back.update({q: s for q, s in zip(qs, sm.q)})
    d2 = d2.subs(back)
    expect = sm.Phi_q * sp.Matrix(sm.qdd) - sm.gamma
    assert (d2 - expect).applyfunc(sp.simplify) == sp.zeros(*d2.shape)


def test_derivation_is_cached_per_model_document():
    model = load_model(SAMPLES / "slider_pendulum.json")
    a = derive_appell(model)
    b = derive_appell(load_model(SAMPLES / "slider_pendulum.json"))  # a new Model with the same document
    assert a is b
    data = model.copy_data()
    data["bodies"][0]["mass"] = 3.0
    from mechstudio.core.model.io import model_from_data
    c = derive_appell(model_from_data(data))
    assert c is not a and c.M_r != a.M_r


def test_benchmark_function_reports_fresh_and_cached_times():
    fresh, cached = derivation_time(load_model(SAMPLES / "pendulum.json"))
    assert fresh > 0 and cached < fresh


@pytest.mark.parametrize("form", ["appell", "lagrange", "constraints"])
@pytest.mark.parametrize("latex", [False, True])
def test_equations_command(form, latex):
    from mechstudio.core.cli import main
    argv = ["equations", str(SAMPLES / "ice_skate_incline.json"), "--form", form]
    if latex:
        argv.append("--latex")
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(argv) == 0
    text = out.getvalue()
    assert "skate" in text
    if form == "appell":
        assert "Appell's equations" in text and "Q~" in text
        assert ("\\dot{v}" if latex else "v̇") in text


def test_equations_command_textbook_choice_and_bad_choice():
    from mechstudio.core.cli import main
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["equations", str(SAMPLES / "ice_skate_incline.json"), "--choice", "textbook"]) == 0
    assert "tan" in out.getvalue()
    err = io.StringIO()
    with redirect_stderr(err):
        assert main(["equations", str(SAMPLES / "ice_skate_incline.json"), "--choice", "nope"]) == 2
    assert "textbook" in err.getvalue()  # lists the valid choices (on stderr, like every error)


@pytest.mark.parametrize("name", ["slider_pendulum.json", "chaplygin_sleigh.json", "four_bar.json",
                                  "rolling_disk_accelerating_plane.json"])
def test_compiled_factors_equal_the_symbolic_products(name):
    """The compiled right-hand side forms H^T M H, H^T (Q - M a0 - k) and H u' + a0 in numpy from compiled
    factors; they equal the derived symbolic M_r, b_r and qdd_expr lambdified as a whole."""
    model = load_model(SAMPLES / name)
    system = compile_model(model)
    der = derive_appell(model, system=system)
    fns = der.compiled()
    q_, u_, ud_ = der.sm.q, der.u, der.ud
    whole = sp.lambdify((q_, u_, ud_, T), [der.M_r, der.b_r, der.qdd_expr], modules="numpy", cse=True)
    rng = np.random.default_rng(3)
    for _ in range(4):
        t = float(rng.uniform(0, 2.0)) if system.rheonomic else 0.0
        q, _v = consistent_state(system, rng, t)
        u = rng.standard_normal(der.choice.f)
        ud = rng.standard_normal(der.choice.f)
        Mr, br, _qd = fns["rhs"](q, u, t)
        qdd = fns["qdd"](q, u, ud, t)
        Mr2, br2, qdd2 = (np.asarray(x, float) for x in whole(q, u, ud, t))
        for a, b in ((Mr, Mr2.reshape(Mr.shape)), (br, br2.reshape(br.shape)), (qdd, qdd2.reshape(qdd.shape))):
            assert np.max(np.abs(a - b)) < 1e-11 * max(1.0, float(np.max(np.abs(b))))
