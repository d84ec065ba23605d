"""A compiled planar system may be shared by concurrent runs (issue 14, item 4): its last-state memos must
never hand one thread another thread's values. Four threads evaluate C, Phi, gamma, eta, h, the reactions and
the time arrays at their own random states on ONE shared system, many times interleaved, and every result must
equal (bit for bit) the same evaluation on a private system compiled from the same model."""
from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from mechstudio.core.model import load_model
from mechstudio.core.systems.planar_kernels import PlanarGeometry
from mechstudio.core.systems.compile import compile_model

ROOT = Path(__file__).resolve().parents[1]


def evaluate(s, q, v, t, lam):
    geo = PlanarGeometry(*s.fused_data()[0])
    return [s.constraint_matrix(q, t), s.constraint_matrix_shared(q, t).copy(), s.phi(q, t), s.gamma(q, v, t),
            s.eta(q, v, t), s.forces(q, v, t), np.array([r for r in s.reactions(q, lam, t).values()]),
            *[np.asarray(a).copy() for a in s.time_arrays(t)], np.array([geo.m])]


def test_threads_sharing_one_system_get_their_own_results():
    model = load_model(ROOT / "sample_models" / "slider_crank_driven.json")  # rheonomic: time memo too
    shared, private = compile_model(model), compile_model(model)
    rng = np.random.default_rng(7)
    states = [(rng.standard_normal(shared.n), rng.standard_normal(shared.n), float(rng.random()),
               rng.standard_normal(shared.m)) for _ in range(8)]
    expected = [evaluate(private, *st) for st in states]
    errors: list[str] = []
    barrier = threading.Barrier(4)

    def worker(k: int) -> None:
        barrier.wait()
        for rep in range(200):
            i = (k + rep) % len(states)
            for a, b in zip(evaluate(shared, *states[i]), expected[i]):
                if not np.array_equal(a, b):
                    errors.append(f"thread {k}, state {i}, repetition {rep}")
                    return

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors[:3]
