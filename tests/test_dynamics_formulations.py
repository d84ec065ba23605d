"""Projection (source 001) vs Lagrange multipliers: the same q'' and reactions on random consistent states.

The two formulations are derived and coded separately (null-space projection with a kept SVD basis vs a direct
KKT solve), so agreement to 1e-9 relative (round-off of condition numbers ~1e3 is ~1e-13) is a real check.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mechstudio.core.dynamics import get_formulation
from mechstudio.core.dynamics.correction import correct
from mechstudio.core.model import load_model, loads_model
from mechstudio.core.simulate import initial_state
from mechstudio.core.systems.compile import compile_model

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ["pendulum", "double_pendulum", "four_bar", "slider_crank_driven", "parallelogram", "ice_skate_incline",
           "slider_pendulum", "rolling_disk", "rolling_disk_accelerating_plane", "spherical_chain_3"]


def random_consistent_state(system, rng, t=0.37):
    """A random state on the constraint manifold near the file's initial configuration: a random step along
    the null space of C, Newton back onto Phi = 0, random velocities projected onto C q' + xi = 0."""
    init = initial_state(system, 0.0)
    assert init.status.ok, init.message
    for _ in range(20):
        C = system.constraint_matrix(init.q, t)
        _, s, Vt = np.linalg.svd(C) if C.size else (None, np.zeros(0), np.eye(system.n))
        rank = int(np.sum(s > 1e-9 * (s[0] if s.size else 1.0)))
        tangent = Vt[rank:].T @ rng.standard_normal(system.n - rank)
        q = init.q + 0.1 * tangent
        v = rng.standard_normal(system.n)
        for _ in range(3):
            cr = correct(system, q, v, t)
            q, v = cr.q, cr.v
        if cr.position_after < 1e-12 and cr.velocity_after < 1e-10:
            return q, v, t
    raise AssertionError("no consistent random state found")


@pytest.mark.parametrize("name", SAMPLES)
def test_projection_equals_lagrange_on_random_states(name):
    path = ROOT / "sample_models" / f"{name}.json"
    if not path.exists():
        pytest.skip(f"{path.name} not present")
    system = compile_model(load_model(path))
    rng = np.random.default_rng(7)
    P = get_formulation("projection")(system)
    L = get_formulation("lagrange")(system)
    for _ in range(4):
        q, v, t = random_consistent_state(system, rng)
        P.refresh_basis(q, t)
        a, b = P.reactions(q, v, t), L.reactions(q, v, t)
        scale = max(np.abs(b.qdd).max(), 1.0)
        np.testing.assert_allclose(a.qdd, b.qdd, rtol=0, atol=1e-9 * scale)
        C = system.constraint_matrix(q, t)
        np.testing.assert_allclose(C @ a.qdd + system.eta(q, v, t), 0, atol=1e-9 * scale)
        if b.lam.size:
            lscale = max(np.abs(b.lam).max(), 1.0)
            np.testing.assert_allclose(a.lam, b.lam, rtol=0, atol=1e-9 * lscale)
            ra, rb = system.reactions(q, a.lam, t), system.reactions(q, b.lam, t)
            for k in rb:
                np.testing.assert_allclose(ra[k], rb[k], rtol=0, atol=1e-9 * lscale)
        assert a.lam_unique == b.lam_unique == (name != "parallelogram")


def test_kept_basis_still_exact_after_the_configuration_moved():
    """With the SVD of an earlier state kept, C q'' + eta = 0 still holds exactly (errata form of eq. 3.5)."""
    system = compile_model(load_model(ROOT / "sample_models" / "four_bar.json"))
    rng = np.random.default_rng(3)
    q0, v0, t = random_consistent_state(system, rng)
    P = get_formulation("projection")(system)
    P.refresh_basis(q0, t)
    q1, v1, _ = random_consistent_state(system, rng)
    acc = P.accelerations(q1, v1, t)
    ref = get_formulation("lagrange")(system).accelerations(q1, v1, t)
    np.testing.assert_allclose(acc.qdd, ref.qdd, atol=1e-10 * np.abs(ref.qdd).max())
    assert np.abs(system.constraint_matrix(q1, t) @ acc.qdd + system.eta(q1, v1, t)).max() < 1e-12


def test_unknown_formulation_lists_valid_names():
    with pytest.raises(KeyError) as info:
        get_formulation("newton-euler")
    assert "projection" in str(info.value) and "lagrange" in str(info.value)


def test_pendulum_at_rest_rod_tension_is_mg_cos_theta():
    """A point mass m on a massless rod l at rest at angle theta: tension m g cos(theta) (printed eq. 4.2: 0)."""
    m, g, l, theta = 1.7, 9.81, 0.8, 0.6
    doc = {"format": "mechanism-studio-model", "version": 1, "kind": "planar", "gravity": [0.0, -g],
           "ground": {"points": {"O": [0.0, 0.0]}},
           "bodies": [{"name": "bob", "mass": m, "inertia": 0.0, "com": [0.0, -l], "points": {"pivot": [0.0, 0.0]},
                       "initial": {"x": 0.0, "y": 0.0, "phi": theta}}],
           "joints": [{"name": "rod", "type": "revolute", "body1": "ground", "point1": "O", "body2": "bob",
                       "point2": "pivot"}]}
    system = compile_model(loads_model(json.dumps(doc)))
    init = initial_state(system)
    assert init.status.ok
    for name in ("projection", "lagrange"):
        acc = get_formulation(name)(system).reactions(init.q, np.zeros(system.n), 0.0)
        F = system.reactions(init.q, acc.lam, 0.0)["rod"][:2]  # force of the pivot on the bob
        bob = system.point_position(init.q, "bob", (0.0, -l))
        towards_pivot = -bob / np.linalg.norm(bob)
        assert F @ towards_pivot == pytest.approx(m * g * np.cos(theta), rel=1e-12)
        # and the tangential acceleration is g sin(theta) (M is singular: zero rotational inertia)
        assert acc.qdd[2] == pytest.approx(-g / l * np.sin(theta), rel=1e-12)


def test_printed_reaction_formula_is_wrong_for_the_pendulum():
    """Documents the erratum: lambda = -E^T M E eta (eq. 4.2) gives 0 for a pendulum at rest."""
    doc = json.loads((ROOT / "sample_models" / "pendulum.json").read_text())
    system = compile_model(loads_model(json.dumps(doc)))
    init = initial_state(system)
    C = system.constraint_matrix(init.q, 0.0)
    U, s, Vt = np.linalg.svd(C)
    E = Vt[:len(s)].T @ np.diag(1 / s) @ U.T
    eta = system.eta(init.q, np.zeros(system.n), 0.0)
    printed = -E.T @ system.mass_matrix(init.q, 0.0) @ E @ eta
    correct_lam = get_formulation("projection")(system).reactions(init.q, np.zeros(system.n), 0.0).lam
    assert np.abs(printed).max() == 0.0 and np.abs(correct_lam).max() > 1.0
