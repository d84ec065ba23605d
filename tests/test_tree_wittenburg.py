"""Wittenburg's method (core.dynamics.wittenburg) against independent results (issue 4 acceptance).

Independent references: the maximal-coordinate system solved by the Lagrange-multiplier (KKT) formulation
(a different set of equations: 7 coordinates per body, constraint forces as multipliers), conserved quantities
(energy, vertical angular momentum of a spherical pendulum), the energy balance with the work of a moving base
and of dampers/torques, and the four orientation parametrizations against each other.

Tolerances: accelerations and joint forces at one state come from two direct linear solves with condition
numbers ~1e3-1e5, so they agree to ~1e-13; the acceptance bound is 1e-9. Trajectory comparisons integrate
with DOP853 at rtol 1e-11 (atol 1e-13) over 2 s; the global error of each run is ~1e-9 relative, so 1e-7 is the
bound (the acceptance figure). Conserved quantities: rtol 1e-12 gives drifts ~1e-11, bound 1e-9 (pendulum:
1e-10 at rtol 1e-13).
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from mechstudio.core.dynamics import get_formulation
from mechstudio.core.model.io import load_model, model_from_data
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.numerics.orientation import quat_to_matrix
from mechstudio.core.dynamics.wittenburg import ParametrizationSwitch, WittenburgFormulation, integrate

SAMPLES = Path(__file__).resolve().parents[1] / "sample_models"
ALL = ["spherical_pendulum", "spherical_chain_3", "spherical_chain_10", "branched_tree", "chain_on_shaking_base"]


def data(name: str) -> dict:
    return json.loads((SAMPLES / f"{name}.json").read_text())


def system(name: str):
    return compile_model(load_model(SAMPLES / f"{name}.json"))


def loaded_variant() -> dict:
    """spherical_chain_3 with joint springs, dampers, a joint torque, an applied force and torque, and a base
    that translates and rotates."""
    d = data("spherical_chain_3")
    d["joints"][0].update(spring=2.0, damping=0.05)
    d["joints"][1].update(spring=1.5, torque=[{"type": "harmonic", "amplitude": 0.2, "frequency": 3.0}, 0.05, 0.0])
    d["joints"][2].update(damping=0.02, spring=0.5)
    d["forces"] = [{"name": "push", "type": "applied_force", "body": "link2", "point": "out",
                    "force": [0.5, {"type": "harmonic", "amplitude": 1.0, "frequency": 2.0}, 0.0]},
                   {"name": "twist", "type": "applied_torque", "body": "link3", "torque": [0.0, 0.01, 0.03]}]
    d["ground"]["motion"] = {"position": [{"type": "harmonic", "amplitude": 0.02, "frequency": 9.0}, 0.0, 0.0],
                             "angular_velocity": [0.0, 0.0, {"type": "harmonic", "amplitude": 1.0,
                                                             "frequency": 2.0, "offset": 0.5}]}
    return d


def random_state(s, seed: int):
    rng = np.random.default_rng(seed)
    A = quat_to_matrix(rng.normal(size=(s.nb, 4)))
    w = rng.normal(scale=2.0, size=(s.nb, 3))
    t = float(rng.uniform(0, 2))
    q, v = s.state_from_orientations(A, w, t)
    return q, v, t


def lagrange(s):
    return get_formulation("lagrange")(s)


@pytest.mark.parametrize("name", ALL + ["loaded"])
def test_accelerations_and_joint_forces_match_the_maximal_formulation(name):
    s = compile_model(model_from_data(loaded_variant())) if name == "loaded" else system(name)
    W, L = WittenburgFormulation(s), lagrange(s)
    nj = 3 * s.nb
    for seed in range(5):
        q, v, t = random_state(s, seed)
        a_w, a_l = W.reactions(q, v, t), L.reactions(q, v, t)
        assert np.abs(a_w.qdd - a_l.qdd).max() <= 1e-9 * np.abs(a_l.qdd).max()
        wd_l = s.omegas(q, a_l.qdd)[0] + 2 * np.einsum("kij,kj->ki", __import__(
            "mechstudio.core.numerics.orientation", fromlist=["quat_E"]).quat_E(s.split(v)[1]), s.split(v)[1])
        assert np.abs(a_w.info["omega_dot"] - wd_l).max() <= 1e-9 * np.abs(wd_l).max()
        assert np.abs(a_w.lam[:nj] - a_l.lam[:nj]).max() <= 1e-9 * np.abs(a_l.lam[:nj]).max()
        rw, rl = s.reactions(q, a_w.lam, t), s.reactions(q, a_l.lam, t)
        scale = max(np.abs(r[:3]).max() for r in rl.values())
        for j in rl:
            assert np.abs(rw[j] - rl[j]).max() <= 1e-9 * scale
            assert np.abs(rw[j][3:]).max() <= 1e-9 * scale  # an ideal spherical joint transmits no moment


def run_maximal(s, q0, v0, t_end, dt, rtol=1e-11, atol=1e-13):
    """The maximal system through the Lagrange formulation, plain solve_ivp (no drift correction)."""
    L = lagrange(s)
    ts = np.linspace(0, t_end, int(round(t_end / dt)) + 1)
    sol = solve_ivp(lambda t, y: L.rhs(t, y), (0, t_end), np.concatenate([q0, v0]), method="DOP853",
                    rtol=rtol, atol=atol, t_eval=ts)
    assert sol.success
    return sol.y[:s.n].T


def positions(s, Q):
    return Q.reshape(len(Q), s.nb, 7)[:, :, :3]


def matrices(s, Q):
    return quat_to_matrix(Q.reshape(-1, 7)[:, 3:]).reshape(len(Q), s.nb, 3, 3)


@pytest.mark.parametrize("name", ["spherical_chain_3", "branched_tree", "chain_on_shaking_base"])
def test_trajectories_match_the_maximal_formulation(name):
    s = system(name)
    q0, v0 = s.consistent_state(0.0)
    W = WittenburgFormulation(s)
    out = integrate(W, q0, v0, 2.0, 0.1, rtol=1e-11, atol=1e-13)
    Qm = run_maximal(s, q0, v0, 2.0, 0.1)
    scale = np.abs(positions(s, Qm)).max()
    assert np.abs(positions(s, out["q"]) - positions(s, Qm)).max() <= 1e-7 * scale
    assert np.abs(matrices(s, out["q"]) - matrices(s, Qm)).max() <= 1e-7


def test_four_parametrizations_give_the_same_motion():
    s = system("spherical_chain_3")
    q0, v0 = s.consistent_state(0.0)
    runs = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParametrizationSwitch)
        for p in ("quaternion", "bryant", "euler313", "matrix"):
            runs[p] = integrate(WittenburgFormulation(s, parametrization=p), q0, v0, 2.0, 0.05,
                                rtol=1e-11, atol=1e-13)
    ref = runs["quaternion"]
    for p, out in runs.items():
        assert np.abs(positions(s, out["q"]) - positions(s, ref["q"])).max() <= 1e-7
        assert np.abs(matrices(s, out["q"]) - matrices(s, ref["q"])).max() <= 1e-7
        assert np.abs(out["v"].reshape(-1, s.nb, 7)[:, :, :3] - ref["v"].reshape(-1, s.nb, 7)[:, :, :3]).max() \
            <= 1e-7 * np.abs(ref["v"]).max()


def test_the_parametrization_comes_from_the_file():
    d = data("spherical_chain_3")
    d["simulation"]["parametrization"] = "euler313"
    s = compile_model(model_from_data(d))
    assert WittenburgFormulation(s).param.name == "euler313"
    assert WittenburgFormulation(s, parametrization="matrix").param.name == "matrix"


def test_a_run_through_a_bryant_singularity_switches_and_stays_accurate():
    d = data("spherical_pendulum")
    d["bodies"][0]["initial"] = {"quaternion": [1.0, 0.0, 0.0, 0.0], "omega": [0.3, 8.0, 0.5]}
    s = compile_model(model_from_data(d))
    q0, v0 = s.consistent_state(0.0)
    ref = integrate(WittenburgFormulation(s), q0, v0, 2.0, 0.02, rtol=1e-11, atol=1e-13)
    W = WittenburgFormulation(s, parametrization="bryant")
    with pytest.warns(ParametrizationSwitch, match="bryant angles near their singularity"):
        out = integrate(W, q0, v0, 2.0, 0.02, rtol=1e-11, atol=1e-13)
    assert len(out["switches"]) >= 1 and out["switches"][0]["body"] == "bob"
    # the body does pass alpha2 = 90 deg: its axis e_z goes through the horizontal x direction
    A = matrices(s, ref["q"])
    assert np.max(np.abs(A[:, 0, 0, 2])) > 0.999
    assert np.abs(matrices(s, out["q"]) - A).max() <= 1e-7
    assert np.abs(positions(s, out["q"]) - positions(s, ref["q"])).max() <= 1e-7


def energy(s, Q, V, ts):
    return np.array([s.kinetic_energy(q, v, t) + s.potential_energy(q, t) for q, v, t in zip(Q, V, ts)])


@pytest.mark.parametrize("name,param", [("spherical_chain_3", "quaternion"), ("branched_tree", "matrix"),
                                        ("spherical_chain_10", "quaternion"), ("spherical_chain_3", "euler313")])
def test_energy_is_conserved_on_a_fixed_base(name, param):
    s = system(name)
    q0, v0 = s.consistent_state(0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ParametrizationSwitch)
        out = integrate(WittenburgFormulation(s, parametrization=param), q0, v0, 2.0, 0.1, rtol=1e-12,
                        atol=1e-14)
    E = energy(s, out["q"], out["v"], out["t"])
    scale = s.kinetic_energy(q0, v0, 0.0) + abs(s.potential_energy(q0, 0.0))
    assert np.abs(E - E[0]).max() <= 1e-9 * scale


@pytest.mark.parametrize("name", ["chain_on_shaking_base", "loaded"])
def test_energy_minus_base_and_load_work_is_constant(name):
    s = compile_model(model_from_data(loaded_variant())) if name == "loaded" else system(name)
    q0, v0 = s.consistent_state(0.0)
    t_end = 2.0 if name == "chain_on_shaking_base" else 1.0  # the loaded variant is slow (loads, time-varying omega0)
    out = integrate(WittenburgFormulation(s), q0, v0, t_end, 0.1, rtol=1e-12, atol=1e-14, work=True)
    E = energy(s, out["q"], out["v"], out["t"])
    scale = max(np.abs(E).max(), np.abs(out["work"]).max())
    assert np.abs(out["work"]).max() > 1e-2 * scale  # the base really does work
    assert np.abs((E - out["work"]) - E[0]).max() <= 1e-9 * scale


def test_spherical_pendulum_conserves_energy_and_vertical_angular_momentum():
    s = system("spherical_pendulum")
    q0, v0 = s.consistent_state(0.0)
    out = integrate(WittenburgFormulation(s), q0, v0, 2.0, 0.05, rtol=1e-13, atol=1e-15)
    E = energy(s, out["q"], out["v"], out["t"])

    def Lz(q, v):  # about the fixed pivot (origin): J_world w + m r x r'
        w, _ = s.omegas(q, v)
        A = quat_to_matrix(q[3:7][None])[0]
        return float((A @ s.Jb[0] @ A.T @ w[0] + s.mass[0] * np.cross(q[:3], v[:3]))[2])

    L = np.array([Lz(q, v) for q, v in zip(out["q"], out["v"])])
    scaleE = s.kinetic_energy(q0, v0, 0.0) + abs(s.potential_energy(q0, 0.0))
    assert np.abs(E - E[0]).max() <= 1e-10 * scaleE
    assert np.abs(L - L[0]).max() <= 1e-10 * abs(L[0])
    assert np.ptp(out["q"][:, 2]) > 0.05  # it does swing


def test_pack_unpack_round_trip():
    s = compile_model(model_from_data(loaded_variant()))
    q, v, t = random_state(s, 11)
    for p in ("quaternion", "bryant", "euler313", "matrix"):
        W = WittenburgFormulation(s, parametrization=p, switch_threshold=0.0)
        q2, v2 = W.unpack(W.pack(q, v, t), t)
        assert np.allclose(positions(s, q2[None]), positions(s, q[None]), atol=1e-14)
        assert np.allclose(matrices(s, q2[None]), matrices(s, q[None]), atol=1e-14)
        assert np.allclose(s.omegas(q2, v2)[0], s.omegas(q, v)[0], atol=1e-13)


def test_the_simulation_driver_runs_the_tree():
    simulate = pytest.importorskip("mechstudio.core.simulate")
    model = load_model(SAMPLES / "chain_on_shaking_base.json")
    traj = simulate.simulate(model, t_end=0.3, dt=0.05, formulation="wittenburg", rtol=1e-10, atol=1e-12)
    assert traj.status.ok, traj.message
    cols = traj.columns()
    assert "reaction.J1.Fz" in cols and "q.link3.q0" in cols
    E, W = cols["energy.total"], cols["work.nonconservative"]
    assert np.abs(E - W - E[0]).max() < 1e-7 * np.abs(E).max()
    ref = simulate.simulate(model, t_end=0.3, dt=0.05, formulation="lagrange", rtol=1e-10, atol=1e-12)
    assert np.abs(cols["reaction.J2.Fx"] - ref.columns()["reaction.J2.Fx"]).max() < 1e-6
