"""Spatial joints in maximal coordinates (core/elements/primitives/spatial_rows.py, core/systems/maximal_joints.py)
against independent references.

* Phi_q, xi and gamma of every joint type (with and without the ground, driven rows included) against central finite
  differences of Phi(q, t): along q(tau) = q + v tau, t(tau) = t + tau (q'' = 0), d^2 Phi/d tau^2 = -gamma. Steps
  1e-6 (first differences, truncation ~1e-12) and 1e-4 (second, truncation ~1e-8 relative, round-off ~1e-8): bounds
  1e-7 and 1e-6 relative to the largest entry.
* The joint springs' generalized forces against -dV/dq (finite differences of the potential), damper and torque
  against the power they report.
* A hinge pendulum against the same pendulum as a planar model (revolute joint) and its energy.
* A Cardan joint's output speed w2/w1 = cos b / (1 - sin^2 b cos^2 theta1) (theta1 from the input yoke in the
  plane of the shafts) with a driven input shaft, to 1e-9; a phased double Cardan: constant velocity.
* An RSSR four-bar against its loop-closure equation |B(phi) - A(theta)| = L solved with scipy.
* Reactions against finite-difference Newton-Euler balances of every body; energy of a free closed loop.
"""
from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from scipy.optimize import newton

from mechstudio.core.errors import ModelError
from mechstudio.core.model.io import model_from_data
from mechstudio.core.numerics.orientation import quat_to_matrix
from mechstudio.core.simulate import simulate
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.systems.maximal_joints import MaximalJointSystem

from spatial_joint_models import (cardan, document, double_cardan, hinge_pendulum, rod, rssr, rssr_coupler_length,
                                  rssr_points)

JOINTS = ("spherical", "hinge", "slider", "cylindrical", "universal", "fixed_joint")


def pair_model(kind: str, drive: bool = True, springs: bool = False) -> dict:
    """Two bodies: ``kind`` between the ground and body a, and between a and b (oblique axes and offset points),
    driven (time-dependent) and/or loaded where the type allows."""
    a = rod("a", 1.3, 0.7, axis=0, com=(0.1, 0.05, -0.02), points={"p": [0.3, 0.1, 0.2], "q": [-0.2, 0.3, 0.1]})
    b = rod("b", 0.7, 0.5, axis=1, com=(0.0, 0.1, 0.0), points={"p": [0.1, -0.2, 0.3]})
    b["inertia"] = [[0.04, 0.004, 0.001], [0.004, 0.03, 0.002], [0.001, 0.002, 0.025]]
    joints = []
    for name, b1, p1, b2, p2, ax1, ax2 in (("J0", "ground", [0.2, -0.1, 0.3], "a", "p", [1, 2, 0.5], [0.3, 1, 2]),
                                          ("J1", "a", "q", "b", "p", [0.2, -1, 0.4], [1, 0.1, -0.3])):
        j = {"name": name, "type": kind, "body1": b1, "point1": p1, "body2": b2, "point2": p2}
        if kind != "spherical":
            j.update(axis1=ax1, axis2=ax2)
        if drive and kind in ("hinge", "cylindrical") and name == "J0":
            j["angle"] = {"type": "harmonic", "amplitude": 0.7, "frequency": 3.0, "phase": 0.2, "offset": 0.1}
        if drive and kind in ("slider", "cylindrical") and name == "J0":
            j["slide"] = {"type": "polynomial", "coefficients": [0.1, -0.2, 0.4]}
        if springs and kind in ("hinge", "cylindrical"):
            j.update(spring=3.0, free_angle=0.4)
        if springs and kind == "slider":
            j.update(spring=20.0, free_length=0.05)
        if springs and kind == "cylindrical":
            j.update(linear_spring=15.0, free_length=-0.1)
        joints.append(j)
    if kind == "spherical":  # spherical joints alone make a spherical tree (Wittenburg's system): add a loop
        joints.append({"name": "J2", "type": "universal", "body1": "ground", "point1": [0.5, 0.5, 0.5],
                       "body2": "b", "point2": [0.2, 0.1, -0.1], "axis1": [0, 1, 1], "axis2": [1, 0, 1]})
    return document("pair", [a, b], joints, {})


def random_state(s: MaximalJointSystem, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    q = rng.normal(size=s.n) * 0.5
    v = rng.normal(size=s.n)
    for k in range(s.nb):
        q[7 * k + 3:7 * k + 7] /= np.linalg.norm(q[7 * k + 3:7 * k + 7])  # near the manifold (not required)
    return q, v


@pytest.mark.parametrize("kind", JOINTS)
def test_jacobian_xi_and_gamma_against_finite_differences(kind):
    s = compile_model(model_from_data(pair_model(kind)))
    assert isinstance(s, MaximalJointSystem)
    for seed in range(3):
        q, v = random_state(s, seed)
        t = 0.37
        eps = 1e-6
        J = np.array([(s.phi(q + eps * e, t) - s.phi(q - eps * e, t)) / (2 * eps) for e in np.eye(s.n)]).T
        C = s.constraint_matrix(q, t)
        assert np.allclose(C, J, rtol=0, atol=1e-7 * np.abs(J).max())
        xi = (s.phi(q, t + eps) - s.phi(q, t - eps)) / (2 * eps)
        assert np.allclose(s.xi(q, t), xi, rtol=0, atol=1e-7 * max(1.0, np.abs(xi).max()))
        h = 1e-4
        d2 = (s.phi(q + h * v, t + h) - 2 * s.phi(q, t) + s.phi(q - h * v, t - h)) / h ** 2
        assert np.allclose(-s.gamma(q, v, t), d2, rtol=0, atol=1e-6 * np.abs(d2).max())


@pytest.mark.parametrize("kind", ("hinge", "slider", "cylindrical"))
def test_joint_springs_are_the_gradient_of_their_potential(kind):
    data = pair_model(kind, drive=False, springs=True)
    data["gravity"] = [0.0, 0.0, 0.0]
    s = compile_model(model_from_data(data))
    q, _ = random_state(s, 7)
    t = 0.0
    eps = 1e-6
    grad = np.array([(s.potential_energy(q + eps * e, t) - s.potential_energy(q - eps * e, t)) / (2 * eps)
                     for e in np.eye(s.n)])
    h = s.forces(q, np.zeros(s.n), t)  # at rest: no gyroscopic terms, no damping
    assert np.abs(grad).max() > 1.0
    assert np.allclose(h, -grad, rtol=0, atol=1e-7 * np.abs(grad).max())


def test_joint_damper_and_torque_power():
    data = pair_model("cylindrical", drive=False)
    for j in data["joints"]:
        j.update(damping=0.7, torque={"type": "harmonic", "amplitude": 2.0, "frequency": 1.0},
                 linear_damping=3.0, force=1.5)
    data["gravity"] = [0.0, 0.0, 0.0]
    s = compile_model(model_from_data(data))
    q, v = random_state(s, 3)
    t = 0.4
    h_loads = s.forces(q, v, t) - MaximalJointSystem.__mro__[1].forces(s, q, v, t)  # the joints' share of h
    assert abs(s.nonconservative_power(q, v, t) - v @ h_loads) < 1e-12 * max(1.0, abs(v @ h_loads))
    assert abs(v @ h_loads) > 1e-3


def planar_pendulum(phi0: float, mass: float = 2.0, length: float = 1.0, J: float = 0.2) -> dict:
    h = length / 2
    return {"format": "mechanism-studio-model", "version": 1, "name": "pendulum", "kind": "planar",
            "gravity": [0.0, -9.81], "ground": {"points": {"O": [0.0, 0.0]}},
            "bodies": [{"name": "rod", "mass": mass, "inertia": J, "com": [0.0, 0.0], "points": {"top": [0.0, h]},
                        "initial": {"x": h * math.sin(phi0), "y": -h * math.cos(phi0), "phi": phi0}}],
            "joints": [{"name": "O", "type": "revolute", "body1": "ground", "point1": "O", "body2": "rod",
                        "point2": "top"}],
            "simulation": {"t_end": 1.0, "dt": 0.01, "formulation": "projection", "integrator": "dop853",
                           "rtol": 1e-10, "atol": 1e-12}}


def test_hinge_pendulum_is_the_planar_pendulum():
    """The hinge about y with gravity along -z swings as the planar pendulum in x-y with gravity along -y, mirrored
    (theta = -phi): 1.5 s of a 100 degree swing; the integrators' tolerance 1e-10 bounds the difference ~1e-8."""
    theta0 = math.radians(100.0)
    spatial = simulate(model_from_data(hinge_pendulum(theta0)), t_end=1.5, dt=0.05)
    planar = simulate(model_from_data(planar_pendulum(-theta0)), t_end=1.5, dt=0.05)
    assert spatial.status.ok and planar.status.ok
    angle = spatial.columns()["joint.H.angle"]
    phi = planar.coordinate("rod.phi")
    assert abs(angle[0] - theta0) < 1e-12
    assert np.abs(angle + phi).max() < 1e-7
    assert np.abs(angle).max() > 1.0 and angle.min() < -1.0  # it swung through
    total = spatial.kinetic + spatial.potential
    assert np.abs(total - total[0]).max() < 1e-8 * 9.81 * 2.0
    # the closed-form energy: the rod's centre 0.5 below the pivot, released at rest
    assert abs(total[0] - (-2.0 * 9.81 * 0.5 * math.cos(theta0))) < 1e-12


@pytest.mark.parametrize("beta", [0.3, 0.7])
def test_cardan_output_speed(beta):
    """w2/w1 = cos b / (1 - sin^2 b cos^2 theta1) over a whole turn of the driven input shaft (Hooke's joint; theta1
    measured from the input yoke lying in the plane of the two shafts), to 1e-9."""
    tr = simulate(model_from_data(cardan(beta, t_end=1.0, dt=0.02)))
    assert tr.status.ok, tr.message
    s = tr.system
    jc = s.joint_coordinates(tr.frames.q, tr.frames.v)
    th1, w1, w2 = jc["in_bearing.angle"], jc["in_bearing.angle_rate"], jc["out_bearing.angle_rate"]
    assert np.allclose(w1, 2 * math.pi, rtol=1e-12)
    assert th1[-1] > 2 * math.pi - 1e-9  # a whole turn
    ref = math.cos(beta) / (1 - math.sin(beta) ** 2 * np.cos(th1) ** 2)
    assert np.abs(w2 / w1 - ref).max() < 1e-9
    assert np.ptp(w2 / w1) > 0.05  # not a constant-velocity joint
    # the output angle: tan theta2 = tan theta1 / cos b (the same reference)
    th2 = jc["out_bearing.angle"]
    assert np.abs(np.sin(th2 - np.arctan2(np.sin(th1), np.cos(th1) * math.cos(beta)))).max() < 1e-9


def test_double_cardan_phased_is_constant_velocity():
    tr = simulate(model_from_data(double_cardan(0.5, t_end=1.0, dt=0.02)))
    assert tr.status.ok, tr.message
    jc = tr.system.joint_coordinates(tr.frames.q, tr.frames.v)
    assert np.abs(jc["out_bearing.angle_rate"] / jc["in_bearing.angle_rate"] - 1.0).max() < 1e-9
    assert np.abs(jc["out_bearing.angle"] - jc["in_bearing.angle"]).max() < 1e-9
    assert np.abs(jc["spline.slide"]).max() < 1e-9  # the Z arrangement keeps the shaft's length


def test_rssr_against_its_loop_closure():
    tr = simulate(model_from_data(rssr(t_end=1.0, dt=0.02)))
    assert tr.status.ok, tr.message
    jc = tr.system.joint_coordinates(tr.frames.q, tr.frames.v)
    L = rssr_coupler_length()
    phi = 0.0
    worst = 0.0
    for theta, sim in zip(jc["crank_hinge.angle"], jc["rocker_hinge.angle"]):
        def closure(p: float, theta: float = theta) -> float:
            A, B = rssr_points(theta, p)
            return float((B - A) @ (B - A) - L * L)
        phi = newton(closure, phi, tol=1e-14)
        worst = max(worst, abs(phi - sim))
    assert worst < 1e-9
    assert np.ptp(jc["rocker_hinge.angle"]) > 1.5  # the rocker swings over a wide range


def newton_euler_residuals(tr) -> tuple[float, float]:
    """Largest |m a - sum F| and |dH/dt - sum M| over the bodies and the inner frames, with a = five-point central
    differences (error O(dt^4)) of the recorded centre velocities and H = A J A^T omega (world, about the centre of mass); the sums
    are gravity, applied loads (none here) and the reported reactions, each on its body2 and reversed on its body1
    about the same reported point. Also returns the scale (largest force)."""
    s = tr.system
    f = tr.frames
    dt = f.t[1] - f.t[0]
    nb = s.nb
    res_f = res_m = 0.0
    scale = 0.0
    cols = tr.columns()
    for k in range(2, len(f.t) - 2):
        q, v = f.q[k], f.v[k]
        r, p = s.split(q)
        A = quat_to_matrix(p)
        F = s.mass[:, None] * s.gravity[None, :]
        M = np.zeros((nb, 3))
        for c_idx, e in enumerate(s.joints):
            R = f.reactions[k, c_idx]
            body, point = (e.j, e.point2) if e.j >= 0 else (e.i, e.point1)
            P = s.point_position(q, s.body_names[body], point)
            for b, sign in ((e.j, 1.0), (e.i, -1.0)):
                if b < 0:
                    continue
                F[b] += sign * R[:3]
                M[b] += sign * (R[3:] + np.cross(P - r[b], R[:3]))
        H, rd = [], []
        for kk in (k - 2, k - 1, k + 1, k + 2):
            w, _ = s.omegas(f.q[kk], f.v[kk])
            Ak = quat_to_matrix(s.split(f.q[kk])[1])
            H.append(np.einsum("bij,bjk,blk,bl->bi", Ak, s.Jb, Ak, w))
            rd.append(s.split(f.v[kk])[0])
        dH = (H[0] - 8 * H[1] + 8 * H[2] - H[3]) / (12 * dt)
        ma = s.mass[:, None] * (rd[0] - 8 * rd[1] + 8 * rd[2] - rd[3]) / (12 * dt)
        res_f = max(res_f, np.abs(ma - F).max())
        res_m = max(res_m, np.abs(dH - M).max())
        scale = max(scale, np.abs(F - s.mass[:, None] * s.gravity).max())
    assert "reaction.crank_hinge.Fx_body1" in cols
    return res_f, res_m, scale


def test_reactions_balance_newton_euler():
    """Every body's reported forces sum to m a and their moments about its centre of mass to dH/dt (five-point
    differences with dt = 1e-3: truncation ~dt^4 |x^(5)| / 30, measured 4e-8 N at dt = 1e-3 and 7e-7 N at 2e-3 (the
    dt^4 ratio 16), the integration error (rtol 1e-10) below it; bound 1e-6 N and N m for forces of ~7 N)."""
    tr = simulate(model_from_data(rssr(t_end=0.1, dt=1e-3)))
    assert tr.status.ok, tr.message
    res_f, res_m, scale = newton_euler_residuals(tr)
    assert scale > 1.0
    assert res_f < 1e-6 and res_m < 1e-6


def test_reactions_in_body1_frame():
    tr = simulate(model_from_data(rssr(t_end=0.1, dt=0.05)))
    s, cols = tr.system, tr.columns()
    k = -1
    q = tr.frames.q[k]
    A1 = quat_to_matrix(s.split(q)[1][s.index["coupler"]][None])[0]  # ball_B's body1 is the coupler
    glob = np.array([cols[f"reaction.ball_B.{c}"][k] for c in ("Fx", "Fy", "Fz", "Mx", "My", "Mz")])
    local = np.array([cols[f"reaction.ball_B.{c}_body1"][k] for c in ("Fx", "Fy", "Fz", "Mx", "My", "Mz")])
    assert np.allclose(local[:3], A1.T @ glob[:3], atol=1e-12) and np.allclose(local[3:], A1.T @ glob[3:], atol=1e-12)
    assert np.abs(glob[3:]).max() < 1e-9 * max(1.0, np.abs(glob[:3]).max())  # a ball joint carries no moment


def test_free_closed_loop_conserves_energy():
    """The undriven RSSR under gravity, started with the crank turning: total energy constant (rtol 1e-10)."""
    tr = simulate(model_from_data(rssr(omega=None, t_end=1.0, dt=0.05, crank_spin=3.0)))
    assert tr.status.ok, tr.message
    total = tr.kinetic + tr.potential
    assert tr.kinetic.max() > 0.1
    assert np.abs(total - total[0]).max() < 1e-7 * max(1.0, np.abs(total).max())
    assert tr.frames.violation_position.max() < 1e-9


@pytest.mark.parametrize("edit, pointer, words", [
    (lambda d: d["joints"][0].update(axis1=[0, 0, 0]), "/joints/0/axis1", "must not be the zero vector"),
    (lambda d: d["joints"][0].update(type="hinje"), "/joints/0", "hinje"),
    (lambda d: d["ground"].update(motion={"velocity": [1, 0, 0]}), "/ground/motion", "moving ground"),
    (lambda d: d["joints"][1].update(spring=2.0), "/joints/1/spring", "spherical-joint trees only"),
    (lambda d: d["forces"].append({"name": "S", "type": "spring_damper", "body1": "crank", "point1": "A",
                                   "body2": "rocker", "point2": "B", "stiffness": 1.0}), "/forces/0", "spring_damper"),
])
def test_bad_models_name_the_pointer(edit, pointer, words):
    data = copy.deepcopy(rssr())
    edit(data)
    with pytest.raises(ModelError) as err:
        compile_model(model_from_data(data, "bad.json"))
    text = str(err.value)
    assert pointer in text and words in text and "bad.json" in text
