"""Modes about a periodic steady motion (core/analysis/steady_motion.py), checked against closed forms derived here
and against independent integrations.

Closed forms (planar, no gravity unless stated; Omega the drive's constant speed, T = 2 pi/Omega):

* centrifugal pendulum absorber: a rotor driven at Omega, a pendulum (mass m, centre d from its pin, inertia J_c
  about its centre) pinned at radius R. In the frame turning with the rotor, with alpha the pendulum's angle from
  the radial direction, Lagrange's equation is (J_c + m d^2) alpha'' + m R d Omega^2 sin(alpha) = 0 (derived from
  T = 1/2 m |v_c|^2 + 1/2 J_c (Omega + alpha')^2, |v_c|^2 = R^2 Omega^2 + d^2 (Omega + alpha')^2
  + 2 R d Omega (Omega + alpha') cos(alpha)): the relative equilibrium points radially outward and oscillates at
  w = Omega sqrt(m R d/(J_c + m d^2)), i.e. Omega sqrt(R/l) for a point mass at l;
* sprung, damped slider on a rotating arm (prismatic slot along the arm, mass m, spring k and damper c along the
  slot from an anchor a behind the hub, free length r0): radially m r'' = m Omega^2 r - k (r + a - r0) - c r'
  (the Coriolis force 2 m Omega r' is perpendicular to the slot: the slot's reaction takes it and it does no work
  along the slot). So r* = k (r0 - a)/(k - m Omega^2), and m dr'' + c dr' + (k - m Omega^2) dr = 0:
  w_n^2 = k/m - Omega^2, zeta = c/(2 sqrt(m (k - m Omega^2))); for m Omega^2 > k a real multiplier
  exp(T sqrt(Omega^2 - k/m)) > 1 (unstable);
* a knife-edge sleigh towed by a pin at radius R on a driven rotor, blade a distance b behind the pin
  (nonholonomic: no velocity coordinate is free, f_u = 0): with alpha the sleigh's angle from the radial direction,
  the blade condition gives alpha' = (R Omega/b) cos(alpha) - Omega; steady at cos(alpha*) = b/R, and
  d alpha' = -(R Omega/b) sin(alpha*) d alpha: one real multiplier exp(-2 pi sqrt(R^2 - b^2)/b) (sin alpha* > 0);
* a pendulum (bar, I_P about its pin, centre d) on a pivot driven vertically y_p = A sin(w t), under gravity:
  I_P theta'' + m d (g + y_p'') theta = 0, the Mathieu equation; its monodromy is integrated here with scipy,
  independently of the mechanism.

Tolerances: the monodromy is a central difference of one stacked integration at rtol 1e-11 (truncation
~FD_STEP^2 = 1e-10, rounding ~1e-16/1e-5 = 1e-11, integration ~1e-11 relative): multipliers and exponents agree
with closed forms to 1e-7 relative (measured: 2e-10 .. 2e-9)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg
from scipy.integrate import solve_ivp

from conftest import SAMPLES
from mechstudio.core.analysis.modes import find_equilibrium, modal_analysis
from mechstudio.core.analysis.steady_motion import (Flow, PeriodMap, StateChart, combined_period, drive_period,
                                                    find_steady_motion, floquet_analysis)
from mechstudio.core.model import load_model, loads_model
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status

RTOL = 1e-7  # see the module docstring
G = 9.81


def system_of(data: dict):
    return compile_model(loads_model(json.dumps(data), "<test>"))


def sample(name: str) -> dict:
    return json.loads((Path(SAMPLES) / f"{name}.json").read_text())


def base(name: str, gravity: float = 0.0) -> dict:
    return {"format": "mechanism-studio-model", "version": 1, "name": name, "kind": "planar",
            "gravity": [0.0, -gravity], "ground": {"points": {"O": [0.0, 0.0]}}, "bodies": [], "joints": [],
            "drivers": [], "forces": []}


def rotor(data: dict, omega: float, radius: float, mass: float = 2.0) -> dict:
    """A rotor on a ground revolute O driven at ``omega`` [rad/s], with a pin at ``radius`` [m]."""
    data["bodies"].append({"name": "rotor", "mass": mass, "inertia": 0.5 * mass * radius ** 2, "com": [0.0, 0.0],
                           "points": {"hub": [0.0, 0.0], "pin": [radius, 0.0]},
                           "initial": {"x": 0.0, "y": 0.0, "phi": 0.0}})
    data["joints"].append({"name": "O", "type": "revolute", "body1": "ground", "point1": "O", "body2": "rotor",
                           "point2": "hub"})
    data["drivers"].append({"name": "motor", "type": "joint_angle", "joint": "O",
                            "function": {"type": "constant_speed", "initial": 0.0, "speed": omega}})
    return data


def absorber(R: float, length: float, m: float, omega: float, Jc: float, phi0: float = 0.0) -> dict:
    """A pendulum of mass m, centre at ``length``/2 from its pin (inertia Jc about it), pinned at radius R on a
    rotor driven at omega; its file pose turned phi0 [rad] from radial, not spinning (the search finds the steady
    motion)."""
    data = rotor(base("absorber"), omega, R)
    data["bodies"].append({"name": "pendulum", "mass": m, "inertia": Jc, "com": [length / 2, 0.0],
                           "points": {"a": [0.0, 0.0], "b": [length, 0.0]},
                           "initial": {"x": R, "y": 0.0, "phi": phi0}})
    data["joints"].append({"name": "P", "type": "revolute", "body1": "rotor", "point1": "pin", "body2": "pendulum",
                           "point2": "a"})
    return data


def rotating_slider(k: float, m: float, omega: float, r0: float, c: float = 0.0, anchor: float = 0.0,
                    r_start: float | None = None) -> dict:
    """A slider of mass m in a slot along an arm driven at omega, spring k and damper c to the arm's point
    ``anchor`` [m] behind the hub (free length r0), started at r_start (default r0 - anchor)."""
    data = rotor(base("rotating_slider"), omega, 1.0, mass=1.0)
    data["bodies"][0]["points"]["anchor"] = [-anchor, 0.0]
    data["bodies"].append({"name": "slider", "mass": m, "inertia": 0.01, "com": [0.0, 0.0], "points": {"c": [0.0, 0.0]},
                           "initial": {"x": r0 - anchor if r_start is None else r_start, "y": 0.0, "phi": 0.0}})
    data["joints"].append({"name": "slot", "type": "prismatic", "body1": "rotor", "point1": "hub", "body2": "slider",
                           "point2": "c", "axis": [1.0, 0.0]})
    data["forces"].append({"name": "spring", "type": "spring_damper", "body1": "rotor", "point1": "anchor",
                           "body2": "slider", "point2": "c", "stiffness": k, "damping": c, "free_length": r0})
    return data


# --- closed forms ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("Jc", [0.0, 0.2 * 0.24 ** 2 / 12])
def test_centrifugal_pendulum_absorber_tuned_order(Jc):
    """Point mass (Jc = 0): w = Omega sqrt(R/l); a bar: w = Omega sqrt(m R d/(Jc + m d^2)). The file's pose is
    0.3 rad off radial and not spinning with the rotor: the Newton search finds the relative equilibrium. (The
    order w/Omega is not a whole number here: at a whole order every small swing repeats after T too, and the
    steady motions form a family.)"""
    R, length, m, omega = 0.3, 0.24, 0.2, 2 * math.pi
    d = length / 2
    res = floquet_analysis(system_of(absorber(R, length, m, omega, Jc, phi0=0.3)))
    assert res.status.ok, res.message
    st = res.steady
    assert st.period == pytest.approx(2 * math.pi / omega, rel=1e-15) and st.iterations >= 1
    assert st.residual <= st.tolerance
    q = st.q  # rotor.x, rotor.y, rotor.phi, pendulum.x, pendulum.y, pendulum.phi at t0 = 0
    assert q[5] == pytest.approx(q[2], abs=1e-8)  # pointing radially outward, like the rotor's pin
    assert st.v[5] == pytest.approx(omega, rel=1e-8)  # turning with the rotor
    assert res.dof == (1, 1)
    (mode,) = res.modes
    w = omega * math.sqrt(m * R * d / (Jc + m * d * d))
    assert mode.kind == "oscillating" and mode.stable and res.stable
    assert mode.exponent.imag == pytest.approx(w, rel=RTOL)
    assert abs(mode.exponent.real) <= 1e-7 * w and mode.damping_ratio == pytest.approx(0.0, abs=1e-7)
    assert abs(mode.multiplier) == pytest.approx(1.0, abs=1e-7)
    assert mode.multiplier == pytest.approx(np.exp(1j * w * st.period), abs=1e-7)
    assert mode.frequency_hz == pytest.approx(w / (2 * math.pi), rel=RTOL)
    if Jc == 0.0:
        assert w == pytest.approx(omega * math.sqrt(R / (length / 2)), rel=1e-15)
    assert abs(mode.shape[5]) == pytest.approx(1.0)  # the pendulum's angle moves most


def test_sprung_slider_on_a_rotating_arm():
    k, m, omega, r0 = 200.0, 2.0, 6.0, 0.5
    res = floquet_analysis(system_of(rotating_slider(k, m, omega, r0)))  # started at the free length
    assert res.status.ok, res.message
    r_star = k * r0 / (k - m * omega ** 2)
    assert res.steady.q[3] == pytest.approx(r_star, rel=1e-9)  # slider.x at t0 = 0 (arm along x)
    (mode,) = res.modes
    w = math.sqrt(k / m - omega ** 2)
    assert mode.exponent == pytest.approx(1j * w, rel=RTOL, abs=RTOL * w)
    assert mode.harmonic == 1  # w T = 8/6 turns: one turn above the principal branch
    assert res.stable and mode.frequency_hz == pytest.approx(w / (2 * math.pi), rel=RTOL)


def test_damped_slider_damping_ratio():
    """zeta = c/(2 sqrt(m (k - m Omega^2))), s = -zeta w_n + i w_n sqrt(1 - zeta^2), w_n^2 = k/m - Omega^2."""
    k, m, omega, r0, c = 200.0, 2.0, 6.0, 0.5, 3.0
    res = floquet_analysis(system_of(rotating_slider(k, m, omega, r0, c=c)))
    assert res.status.ok, res.message
    (mode,) = res.modes
    wn = math.sqrt(k / m - omega ** 2)
    zeta = c / (2 * math.sqrt(m * (k - m * omega ** 2)))
    assert mode.damping_ratio == pytest.approx(zeta, rel=RTOL)
    assert mode.exponent == pytest.approx(complex(-zeta * wn, wn * math.sqrt(1 - zeta ** 2)), rel=RTOL)
    assert abs(mode.multiplier) == pytest.approx(math.exp(-zeta * wn * 2 * math.pi / omega), rel=RTOL)
    assert mode.stable and mode.natural_frequency_hz == pytest.approx(wn / (2 * math.pi), rel=RTOL)


def test_overspun_slider_is_unstable_with_its_growth_rate():
    """m Omega^2 > k: the anchor 1 m behind the hub keeps the spring stretched at r* = k (r0 - a)/(k - m Omega^2)
    > 0; the multipliers are exp(+-T sqrt(Omega^2 - k/m)), real."""
    k, m, omega, r0, a = 200.0, 2.0, 12.0, 0.5, 1.0
    r_star = k * (r0 - a) / (k - m * omega ** 2)
    res = floquet_analysis(system_of(rotating_slider(k, m, omega, r0, anchor=a, r_start=r_star + 0.01)))
    assert res.status.ok, res.message
    assert res.steady.q[3] == pytest.approx(r_star, rel=1e-9)
    lam = math.sqrt(omega ** 2 - k / m)
    T = 2 * math.pi / omega
    assert not res.stable
    assert sorted(m_.exponent.real for m_ in res.modes) == pytest.approx([-lam, lam], rel=RTOL)
    assert all(m_.kind == "real" and m_.exponent.imag == 0.0 for m_ in res.modes)
    grow = max(res.modes, key=lambda m_: abs(m_.multiplier))
    assert grow.multiplier.real == pytest.approx(math.exp(lam * T), rel=RTOL) and not grow.stable


def test_knife_edge_sleigh_towed_in_a_circle_nonholonomic():
    """No free velocity coordinate (f_u = 0): one real multiplier exp(-2 pi sqrt(R^2 - b^2)/b)."""
    R, b, omega = 0.3, 0.25, 3.0
    data = rotor(base("towed_sleigh"), omega, R)
    alpha = math.acos(b / R)
    data["bodies"].append({"name": "sleigh", "mass": 0.5, "inertia": 0.004, "com": [-b / 2, 0.0],
                           "points": {"pin": [0.0, 0.0], "blade": [-b, 0.0]},
                           "initial": {"x": R, "y": 0.0, "phi": alpha + 0.2}})
    data["joints"] += [{"name": "P", "type": "revolute", "body1": "rotor", "point1": "pin", "body2": "sleigh",
                        "point2": "pin"},
                       {"name": "blade", "type": "knife_edge", "body": "sleigh", "point": "blade", "axis": [1.0, 0.0]}]
    res = floquet_analysis(system_of(data))
    assert res.status.ok, res.message
    assert res.dof == (1, 0)
    assert res.steady.q[5] == pytest.approx(alpha, abs=1e-8)  # sleigh.phi - rotor.phi at t0 = 0
    (mode,) = res.modes
    assert mode.kind == "real" and mode.stable
    assert mode.multiplier.real == pytest.approx(math.exp(-2 * math.pi * math.sqrt(R * R - b * b) / b), rel=RTOL)
    assert mode.exponent.real == pytest.approx(-(R * omega / b) * math.sin(alpha), rel=RTOL)


def vibrating_pivot_pendulum(amplitude: float, w: float) -> dict:
    """A uniform bar (1 m, 1 kg) hanging from a carriage driven vertically y = A sin(w t), under gravity."""
    data = base("vibrating_pivot", gravity=G)
    data["ground"]["points"]["rail"] = [0.0, 0.0]
    data["bodies"] = [
        {"name": "carriage", "mass": 1.0, "inertia": 0.01, "com": [0.0, 0.0], "points": {"c": [0.0, 0.0]},
         "initial": {"x": 0.0, "y": 0.0, "phi": 0.0}},
        {"name": "bar", "mass": 1.0, "inertia": 1 / 12, "com": [0.5, 0.0], "points": {"a": [0.0, 0.0], "b": [1.0, 0.0]},
         "initial": {"x": 0.0, "y": 0.0, "phi": -math.pi / 2}}]
    data["joints"] = [{"name": "rail", "type": "prismatic", "body1": "ground", "point1": "rail", "body2": "carriage",
                       "point2": "c", "axis": [0.0, 1.0]},
                      {"name": "pin", "type": "revolute", "body1": "carriage", "point1": "c", "body2": "bar",
                       "point2": "a"}]
    data["drivers"] = [{"name": "shaker", "type": "joint_distance", "joint": "rail",
                        "function": {"type": "harmonic", "amplitude": amplitude, "frequency": w, "phase": 0.0}}]
    return data


def mathieu_multipliers(amplitude: float, w: float) -> np.ndarray:
    """Multipliers of I_P theta'' + m d (g - A w^2 sin(w t)) theta = 0 (I_P = 1/3, m d = 0/5) over T = 2 pi/w,
    integrated here with scipy (rtol 1e-12)."""
    k = 0.5 / (1 / 3)

    def rhs(t, y):
        th, dth = y[:2], y[2:]
        return np.concatenate((dth, -k * (G - amplitude * w * w * math.sin(w * t)) * th))
    sol = solve_ivp(rhs, (0.0, 2 * math.pi / w), np.array([1.0, 0.0, 0.0, 1.0]), rtol=1e-12, atol=1e-14,
                    method="DOP853")
    Y = sol.y[:, -1]
    return np.linalg.eigvals(np.array([[Y[0], Y[1]], [Y[2], Y[3]]]))


@pytest.mark.parametrize("w, unstable", [(5.5, False), (7.6, True)])
def test_pendulum_on_a_vibrating_pivot_against_the_mathieu_monodromy(w, unstable):
    """Not a relative equilibrium: the carriage shakes, the pendulum hangs still. w = 7.6 rad/s lies in the
    principal parametric resonance (w near 2 w_0, w_0^2 = 1.5 g): real negative multipliers, the perturbation
    oscillating at half the drive's frequency."""
    A = 0.05
    res = floquet_analysis(system_of(vibrating_pivot_pendulum(A, w)))
    assert res.status.ok, res.message
    assert res.steady.period == pytest.approx(2 * math.pi / w, rel=1e-15)
    ref = mathieu_multipliers(A, w)
    got = []
    for m_ in res.modes:
        got += [m_.multiplier] if m_.multiplier.imag == 0 or m_.kind != "oscillating" else \
            [m_.multiplier, m_.multiplier.conjugate()]
    assert sorted(got, key=lambda z: (z.real, z.imag)) == pytest.approx(sorted(ref, key=lambda z: (z.real, z.imag)),
                                                                        abs=1e-7)
    assert res.stable is not unstable
    w0 = math.sqrt(1.5 * G)
    for m_ in res.modes:
        assert np.exp(m_.exponent * res.steady.period) == pytest.approx(m_.multiplier, abs=1e-7)
        if unstable:
            assert m_.multiplier.real < 0 and m_.exponent.imag == pytest.approx(w / 2, rel=1e-9)
        else:
            assert abs(m_.exponent.imag - w0) < 0.15 * w0  # the branch near w_0, not w_0 -+ w


# --- the equilibrium as a steady motion -----------------------------------------------------------------------
@pytest.mark.parametrize("name, period", [("double_pendulum", 0.7), ("double_pendulum", 2.3),
                                          ("slider_pendulum", 0.9)])
def test_an_equilibrium_with_any_period_gives_the_equilibrium_modes(name, period):
    """An undriven model started at its equilibrium: the steady motion is the equilibrium for any given T, and
    the exponents on the branch rule are the damped eigenvalues of the equilibrium's linearisation (to 1e-7;
    the slider-pendulum is damped, and its bob has no rotational inertia)."""
    data = sample(name)
    if name == "slider_pendulum":
        data["bodies"][0]["initial"].pop("hold", None)
    system = system_of(data)
    eq = find_equilibrium(system)
    ref = modal_analysis(system, eq.q, search=False)
    assert ref.status.ok, ref.message
    res = floquet_analysis(system, period, q0=eq.q)
    assert res.status.ok, res.message
    assert res.steady.iterations == 0
    s_ref = sorted((d.eigenvalue for d in ref.damped), key=abs)
    s_got = [m_.exponent for m_ in res.modes]
    assert len(s_got) == len(s_ref)
    for a, b in zip(s_got, s_ref):
        assert a == pytest.approx(b, rel=RTOL, abs=RTOL * abs(b))


# --- the monodromy itself ---------------------------------------------------------------------------------------
def test_monodromy_of_the_slider_is_the_rotating_frame_exponential():
    """In (z, u) = (+-dr, +-dr') at t0 (arm along x) the monodromy is exp(A T), A = [[0, 1], [-w_n^2, -c/m]], up
    to the basis signs: every entry to 1e-7 of its norm."""
    k, m, omega, r0, c = 200.0, 2.0, 6.0, 0.5, 3.0
    res = floquet_analysis(system_of(rotating_slider(k, m, omega, r0, c=c)))
    mono = res.monodromy
    S = np.diag([np.sign(mono.position_basis[3, 0]), np.sign(mono.velocity_basis[3, 0])])
    A = np.array([[0.0, 1.0], [-(k / m - omega ** 2), -c / m]])
    E = scipy.linalg.expm(A * res.steady.period)
    assert S @ mono.matrix @ S == pytest.approx(E, abs=1e-7 * np.linalg.norm(E))


def variational_monodromy(system, chart: StateChart, t0: float, period: float) -> np.ndarray:
    """The monodromy by the variational equations Y' = (df/dy) Y of y' = f(t, y) = [v; q''] (df/dy by central
    differences of f, step 1e-5: truncation ~1e-10, rounding ~1e-11), Y(0) the chart's tangent map (central
    differences of its state, step 1e-6); read out as (V^T dq, W^T dv) at the end. One fixed-step RK4 run (1000
    steps over the period: error ~(h w)^4 ~ 1e-8, w ~ 10 rad/s) -- a different integrator from the module's."""
    flow = Flow(system)
    n = system.n
    fz, fu = chart.sizes
    f = fz + fu

    def f_of(t, y):
        return np.concatenate((y[n:], flow.form.accelerations(y[:n], y[n:], t).qdd))

    Y0 = np.zeros((2 * n, f))
    for k in range(f):
        e = np.zeros(f)
        e[k] = 1e-6
        (qp, vp, _), (qm, vm, _) = chart.state(e), chart.state(-e)
        Y0[:, k] = np.concatenate((qp - qm, vp - vm)) / 2e-6

    def rhs(t, yy):
        y, Y = yy[:2 * n], yy[2 * n:].reshape(2 * n, f)
        J = np.column_stack([(f_of(t, y + 1e-5 * e) - f_of(t, y - 1e-5 * e)) / 2e-5 for e in np.eye(2 * n)])
        return np.concatenate((f_of(t, y), (J @ Y).ravel()))
    yy = np.concatenate((chart.q0, chart.v0, Y0.ravel()))
    steps = 1000
    h = period / steps
    for j in range(steps):
        t = t0 + j * h
        k1 = rhs(t, yy)
        k2 = rhs(t + h / 2, yy + h / 2 * k1)
        k3 = rhs(t + h / 2, yy + h / 2 * k2)
        k4 = rhs(t + h, yy + h * k3)
        yy = yy + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    YT = yy[2 * n:].reshape(2 * n, f)
    return np.vstack((chart.position_basis.T @ YT[:n], chart.velocity_basis.T @ YT[n:]))


def test_monodromy_by_differences_agrees_with_another_step_and_the_variational_equations():
    """The absorber at its steady motion: steps 1e-5 and 1e-4 (truncation ~1e-8 for the larger) and the
    variational equations agree to 1e-7 of ||Phi_M|| (measured 4e-9 and 8e-10)."""
    system = system_of(absorber(0.3, 0.24, 0.2, 2 * math.pi, 0.2 * 0.24 ** 2 / 12))
    steady, mono = find_steady_motion(system)
    assert steady.status.ok, steady.message
    pm = PeriodMap(system, steady.t0, steady.period)
    chart = StateChart(system, steady.q, steady.v, steady.t0)
    coarse = pm.monodromy(chart, step=1e-4).matrix
    var = variational_monodromy(system, chart, steady.t0, steady.period)
    scale = np.linalg.norm(mono.matrix)
    assert np.linalg.norm(coarse - mono.matrix) <= 1e-7 * scale
    assert np.linalg.norm(var - mono.matrix) <= 1e-7 * scale


# --- period of the drive, failures ----------------------------------------------------------------------------
def test_drive_period_from_the_drivers():
    assert drive_period(load_model(Path(SAMPLES) / "slider_crank_driven.json")).period == pytest.approx(1.0)
    data = rotor(base("two"), 3.0, 0.3)
    data["bodies"].append({"name": "wheel", "mass": 1.0, "inertia": 0.1, "com": [0.0, 0.0], "points": {"c": [0.0, 0.0]},
                           "initial": {"x": 1.0, "y": 0.0, "phi": 0.0}})
    data["ground"]["points"]["W"] = [1.0, 0.0]
    data["joints"].append({"name": "W", "type": "revolute", "body1": "ground", "point1": "W", "body2": "wheel",
                           "point2": "c"})
    data["drivers"].append({"name": "second", "type": "joint_angle", "joint": "W",
                            "function": {"type": "constant_speed", "initial": 0.0, "speed": -2.0}})
    model = loads_model(json.dumps(data), "<test>")
    assert drive_period(model).period == pytest.approx(2 * math.pi)  # lcm of 2 pi/3 and pi
    assert len(drive_period(model).sources) == 2
    data["drivers"][1]["function"]["speed"] = math.sqrt(2.0)
    incommensurate = drive_period(loads_model(json.dumps(data), "<test>"))
    assert incommensurate.period is None and "not commensurate" in incommensurate.message
    assert combined_period([0.5, 0.75]) == pytest.approx(1.5)


@pytest.mark.parametrize("name, words", [("pendulum", "not driven"), ("bouncing_ball", "contacts")])
def test_models_without_a_steady_motion_analysis_fail_with_a_message(name, words):
    res = floquet_analysis(compile_model(load_model(Path(SAMPLES) / f"{name}.json")))
    assert res.status is Status.FAILED and words in res.message and res.modes == ()


def test_a_drive_that_never_repeats_needs_a_period():
    data = rotating_slider(200.0, 2.0, 6.0, 0.5)
    data["drivers"][0]["function"] = {"type": "polynomial", "coefficients": [0.0, 6.0, 0.5]}
    res = floquet_analysis(system_of(data))
    assert res.status is Status.FAILED and "polynomial of time never repeats" in res.message
    assert "driver motor function" in res.message


def test_a_start_state_that_is_not_periodic_is_refused_without_search():
    res = floquet_analysis(system_of(absorber(0.3, 0.24, 0.2, 2 * math.pi, 0.0, phi0=0.3)), search=False)
    assert res.status is Status.FAILED and "not periodic" in res.message
    assert res.steady.residual > res.steady.tolerance
