"""Trees of spatial joints in minimal coordinates (core/dynamics/joint_tree.py, the "wittenburg" formulation of a
MaximalJointSystem without loops) against independent references.

* Every tree model run by both formulations, Kane's equations in joint coordinates and the projection formulation
  in maximal coordinates (core/dynamics/projection.py: a different state, different equations, the constraint
  rows of core/elements/primitives/spatial_rows.py), over 1 s: every result column (coordinates, rates, reactions
  in both frames, joint coordinates, energies, work) equal to 1e-9 relative to the column's size (the
  integrators run at rtol 1e-11: their errors ~1e-10 stay below it).
* M against the Hessian of the kinetic energy of the maximal system (MaximalBodies.kinetic_energy: T is exactly
  quadratic in the rates, so the second differences are exact up to round-off: 1e-12) and the bias against
  Lagrange's equations f = dT/dtheta - dV/dtheta - (dM/dt) theta' by central differences of T, V and M (step 1e-6:
  truncation ~1e-12, round-off ~1e-10 relative; bound 1e-7).
* The hinge pendulum against the planar pendulum (revolute joint), as tests/test_spatial_joints.py does for the
  projection.
* The heavy symmetric top in steady precession. Lagrange's function of the top (pivot fixed, 3-1-3 Euler angles
  phi, theta, psi; I1 about the pivot, I1 = I1c + m l^2): L = I1 (theta'^2 + phi'^2 sin^2 theta)/2 + I3 (psi' + phi'
  cos theta)^2/2 - m g l cos theta. With theta'' = 0, phi' = Omega, psi' constant, the theta equation
  I1 Omega^2 sin theta cos theta - I3 (psi' + Omega cos theta) Omega sin theta + m g l sin theta = 0 gives
  m g l = Omega (I3 psi' - (I1 - I3) Omega cos theta) (Goldstein, Classical Mechanics, 3rd ed., sec. 5.7, with
  omega_3 = psi' + Omega cos theta). The top hangs on a yoke whose kinetic energy Iy (phi'^2 + theta'^2)/2 does
  not change that (tests/joint_tree_models.py). theta and Omega t held to 1e-9 over 1 s; 1.2 Omega nods.
* Energy: conservative trees keep T + V, driven and damped ones E - W (the drivers' and dampers' work).
* A driver's generalized force equals the reaction moment about its axis the driver row gives in maximal
  coordinates.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from mechstudio.core.dynamics.base import get_formulation
from mechstudio.core.dynamics.joint_tree import JointTreeFormulation, is_joint_tree
from mechstudio.core.model.io import load_model, model_from_data
from mechstudio.core.model.joint_trees import is_spatial_joint_tree, joints_form_tree
from mechstudio.core.numerics.orientation import quat_to_matrix
from mechstudio.core.run.initial import initial_state
from mechstudio.core.run.settings import SimulationSettings
from mechstudio.core.simulate import simulate
from mechstudio.core.systems.compile import compile_model

from joint_tree_models import TOP, gyroscope, mixed_arm, symmetric_top, top_precession_rate
from spatial_joint_models import collar_pendulum, hinge_pendulum, rssr
from test_spatial_joints import planar_pendulum

ROOT = Path(__file__).resolve().parents[1]
CASES = {
    "hinge_pendulum": lambda: hinge_pendulum(math.radians(100.0)),
    "collar_pendulum": lambda: collar_pendulum(t_end=1.0),
    "mixed_arm": lambda: mixed_arm(),
    "mixed_arm_driven_damped": lambda: mixed_arm(driven=True, dampers=True),
    "gyroscope": lambda: gyroscope(),
}


def run(data: dict, formulation: str, t_end: float = 1.0, dt: float = 0.05):
    tr = simulate(model_from_data(data), formulation=formulation, t_end=t_end, dt=dt, rtol=1e-11, atol=1e-13)
    assert tr.status.ok, tr.message
    return tr


@pytest.mark.parametrize("case", sorted(CASES))
def test_tree_by_joint_coordinates_is_the_projection_in_maximal_coordinates(case):
    data = CASES[case]()
    witt = run(data, "wittenburg")
    assert isinstance(get_formulation("wittenburg")(witt.system), JointTreeFormulation)
    proj = run(data, "projection")
    a, b = proj.columns(), witt.columns()
    assert set(a) == set(b)
    assert any(k.startswith("reaction.") for k in a)
    for key in a:
        scale = max(1.0, float(np.abs(a[key]).max()))
        assert np.abs(a[key] - b[key]).max() <= 1e-9 * scale, key


def formulation_at_start(data: dict) -> tuple[JointTreeFormulation, np.ndarray, np.ndarray]:
    model = model_from_data(data)
    system = compile_model(model)
    st = initial_state(system, SimulationSettings.from_model(model))
    form = get_formulation("wittenburg")(system)
    assert isinstance(form, JointTreeFormulation)
    form.pack(st.q, st.v, 0.0)
    return form, st.q, st.v


def energies(form: JointTreeFormulation, th: np.ndarray, thd: np.ndarray, t: float) -> tuple[float, float]:
    q, v = form.maximal(form.kinematics(th, thd, t, need_partials=False))
    return form.system.kinetic_energy(q, v, t), form.system.potential_energy(q, t)


@pytest.mark.parametrize("case", ["mixed_arm", "gyroscope", "collar_pendulum"])
def test_mass_matrix_and_bias_against_lagrange(case):
    data = CASES[case]()
    for j in data["joints"]:  # conservative: no dampers, loads or drivers
        for key in ("damping", "linear_damping", "torque", "force", "angle", "slide"):
            j.pop(key, None)
    form, q, v = formulation_at_start(data)
    assert form.drv.size == 0
    rng = np.random.default_rng(5)
    nc, t = form.nc, 0.0
    th0, _ = form.measure(q, v, t, reset=False)
    for _ in range(3):
        th = th0 + 0.3 * rng.normal(size=nc)
        thd = rng.normal(size=nc) * 2.0
        kin, M, f, _ = form.equations(th, thd, t)
        E = np.eye(nc)
        T1 = np.array([energies(form, th, E[i], t)[0] for i in range(nc)])
        H = np.array([[energies(form, th, E[i] + E[k], t)[0] - T1[i] - T1[k] for k in range(nc)]
                      for i in range(nc)])
        assert np.allclose(M, H, rtol=0, atol=1e-12 * np.abs(M).max())
        eps = 1e-6
        dT = np.array([(energies(form, th + eps * E[i], thd, t)[0] - energies(form, th - eps * E[i], thd, t)[0])
                       / (2 * eps) for i in range(nc)])
        dV = np.array([(energies(form, th + eps * E[i], thd, t)[1] - energies(form, th - eps * E[i], thd, t)[1])
                       / (2 * eps) for i in range(nc)])
        Md = (form.equations(th + eps * thd, thd, t)[1] - form.equations(th - eps * thd, thd, t)[1]) / (2 * eps)
        ref = dT - dV - Md @ thd
        assert np.abs(ref).max() > 1e-2
        assert np.allclose(f, ref, rtol=0, atol=1e-7 * np.abs(ref).max())


def test_hinge_pendulum_is_the_planar_pendulum():
    """As tests/test_spatial_joints.py for the projection: 1.5 s of a 100 degree swing, theta = -phi to 1e-7 (the
    integrators' tolerance 1e-10)."""
    theta0 = math.radians(100.0)
    spatial = simulate(model_from_data(hinge_pendulum(theta0)), t_end=1.5, dt=0.05, formulation="wittenburg")
    planar = simulate(model_from_data(planar_pendulum(-theta0)), t_end=1.5, dt=0.05)
    assert spatial.status.ok and planar.status.ok
    angle = spatial.columns()["joint.H.angle"]
    phi = planar.coordinate("rod.phi")
    assert abs(angle[0] - theta0) < 1e-12
    assert np.abs(angle + phi).max() < 1e-7
    assert np.abs(angle).max() > 1.0 and angle.min() < -1.0


def top_axis(tr) -> tuple[np.ndarray, np.ndarray]:
    k = tr.system.index["top"]
    n = quat_to_matrix(tr.frames.q[:, 7 * k + 3:7 * k + 7])[:, :, 2]
    return n[:, 2], np.unwrap(np.arctan2(n[:, 0], -n[:, 1]))


def test_heavy_symmetric_top_in_steady_precession():
    Omega = top_precession_rate()
    assert 0.5 < Omega < 5.0  # the slow root
    tr = run(symmetric_top(), "wittenburg", dt=0.02)
    nz, phi = top_axis(tr)
    assert np.abs(nz - math.cos(TOP["theta"])).max() < 1e-9
    assert np.abs(phi - Omega * tr.frames.t).max() < 1e-9
    assert phi[-1] > 1.0
    nodding = run(symmetric_top(1.2 * Omega), "wittenburg", dt=0.02)
    assert np.abs(top_axis(nodding)[0] - math.cos(TOP["theta"])).max() > 1e-3


@pytest.mark.parametrize("case", ["mixed_arm", "gyroscope", "mixed_arm_driven_damped"])
def test_energy_balance(case):
    """T + V constant for the conservative trees, E - W (drivers', dampers' and loads' work) for the others, to
    1e-9 J (rtol 1e-11 over ~1e3 steps)."""
    tr = run(CASES[case](), "wittenburg", dt=0.02)
    c = tr.columns()
    balance = c["energy.total"] - c["work.nonconservative"]
    assert np.abs(balance - balance[0]).max() < 1e-9
    if case != "mixed_arm_driven_damped":
        assert np.abs(c["work.nonconservative"]).max() < 1e-12
    else:
        assert np.abs(c["work.nonconservative"]).max() > 0.1


def test_driver_force_is_the_reported_reaction_about_its_axis():
    data = mixed_arm(driven=True, dampers=True)
    tr = run(data, "wittenburg", t_end=0.5)
    form = get_formulation("wittenburg")(tr.system)
    form.pack(tr.frames.q[0], tr.frames.v[0], 0.0)
    Mz = tr.columns()["reaction.base.Mz"]  # hinge about the world z, body1 the ground
    taus = []
    for f in range(len(tr.frames.t)):
        acc = form.accelerations(tr.frames.q[f], tr.frames.v[f], float(tr.frames.t[f]))
        taus.append(acc.info["driver_forces"][0])  # the hinge's angle comes first
    taus = np.array(taus)
    assert np.abs(taus).max() > 0.1
    assert np.abs(taus - Mz).max() < 1e-9 * np.abs(taus).max()


def test_loops_are_refused_and_stay_with_the_projection():
    model = model_from_data(rssr(omega=None, t_end=0.1))
    assert not is_joint_tree(compile_model(model))
    tr = simulate(model, formulation="wittenburg", t_end=0.1, dt=0.05)
    assert not tr.status.ok and "closes a loop" in tr.message
    assert is_joint_tree(compile_model(model_from_data(mixed_arm())))


def test_gyroscope_sample_runs_by_joint_coordinates():
    """The sample is the test model (spin 60 rad/s, 3 s); its own settings name the wittenburg formulation. 0.3 s:
    energy constant to 1e-9 J, the outer gimbal precessing."""
    path = ROOT / "sample_models" / "gyroscope_gimbals.json"
    data = json.loads(path.read_text())
    assert data["simulation"]["formulation"] == "wittenburg"
    assert is_spatial_joint_tree(data)
    sample = {k: v for k, v in data.items() if k != "description"}
    assert sample == json.loads(json.dumps(dict(gyroscope(60.0, t_end=3.0, dt=0.01), simulation=data["simulation"])))
    tr = simulate(load_model(path), t_end=0.3, dt=0.05)
    assert tr.status.ok, tr.message
    c = tr.columns()
    assert np.abs(c["energy.total"] - c["energy.total"][0]).max() < 1e-9
    assert abs(c["joint.outer_pivot.angle"][-1]) > 1e-3


def test_tree_topology_of_documents():
    samples = ROOT / "sample_models"
    trees = {name: is_spatial_joint_tree(json.loads((samples / f"{name}.json").read_text()))
             for name in ("cardan_shaft", "rssr_linkage", "collar_pendulum", "gyroscope_gimbals", "spherical_chain_3",
                          "pendulum")}
    assert trees == {"cardan_shaft": False, "rssr_linkage": False, "collar_pendulum": True, "gyroscope_gimbals": True,
                     "spherical_chain_3": False, "pendulum": False}  # spherical-only trees are Wittenburg's own
    free = mixed_arm()
    free["joints"].pop()  # l4 no longer joined
    assert not joints_form_tree(free)
