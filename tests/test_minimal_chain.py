"""The speed suite's hand-written baseline (core.bench.minimal_chain) is the same physics as the project's model:
its accelerations equal the maximal-coordinate model's at random states, and it conserves energy."""
from __future__ import annotations

import numpy as np

from mechstudio.core.bench.minimal_chain import MinimalChain, initial_angles, simulate
from mechstudio.core.bench.speed import planar_chain_data
from mechstudio.core.dynamics.lagrange import LagrangeFormulation
from mechstudio.core.model.io import model_from_data
from mechstudio.core.systems.compile import compile_model


def _maximal_state(chain: MinimalChain, phi: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(q, q') of the project's model (x, y, phi per link, centre of mass) at angles phi and rates w."""
    A = chain.arms()
    x, y = A @ np.cos(phi), A @ np.sin(phi)
    vx, vy = A @ (-np.sin(phi) * w), A @ (np.cos(phi) * w)
    return np.stack((x, y, phi), 1).ravel(), np.stack((vx, vy, w), 1).ravel()


def test_accelerations_match_the_maximal_model() -> None:
    """phi'' of the minimal model = the angle accelerations of the KKT solution of the maximal model (1e-9
    relative: two independent derivations, round-off of a 5-link dense solve)."""
    rng = np.random.default_rng(3)
    n = 5
    chain = MinimalChain(n)
    system = compile_model(model_from_data(planar_chain_data(n)))
    form = LagrangeFormulation(system)
    f = chain.rhs()
    for _ in range(5):
        phi, w = rng.uniform(-np.pi, np.pi, n), rng.normal(0.0, 3.0, n)
        q, v = _maximal_state(chain, phi, w)
        qdd = form.accelerations(q, v, 0.0).qdd
        acc = f(0.0, np.concatenate((phi, w)))[n:]
        assert np.allclose(acc, qdd[2::3], rtol=1e-9, atol=1e-9 * np.abs(qdd).max())


def test_energy_is_conserved() -> None:
    """T + V constant over 1 s at rtol 1e-11 (to 1e-8 of the swing's kinetic energy scale)."""
    chain = MinimalChain(4)
    y, _ = simulate(chain, 1.0, rtol=1e-11, atol=1e-13)
    y0 = np.concatenate((initial_angles(4), np.zeros(4)))
    e0 = chain.energy(y0)
    assert abs(chain.energy(y) - e0) < 1e-8 * max(abs(e0), 1.0)
    assert chain.energy(y) != chain.energy(y0 + 1e-3)  # the check is sensitive to the state
