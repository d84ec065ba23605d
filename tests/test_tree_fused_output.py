"""The fused output frame of Wittenburg's formulation (``WittenburgFormulation.fast_output``, compiled kernel
``mechstudio.core.dynamics.wittenburg_kernels.k_output``) against the driver's generic path (issue 17).

Reference: what the driver computes without the fused call -- ``unpack`` to the maximal coordinates, the drift
correction's residuals ``mechstudio.core.dynamics.correction.correct`` on the 7n-coordinate model, ``accelerations`` and
``TreeMaximalSystem.reactions`` from the dense constraint matrix, the system's energies. Both evaluate the same
formulas in a different order, so they agree to round-off: q, q', reactions and energies to 1e-12; q'' to
1e-10 relative (omega' comes from a linear solve with K_ij, condition ~1e5 for the 10-link chain with its small
axial inertia: 1e-16 differences of the inputs become ~1e-12); the violations (themselves round-off, ~1e-16)
to 1e-14 absolute. Whole 2 s runs through ``mechstudio.core.simulate.run`` with and without the fused call agree to 1e-10.

Models: every tree sample, the benchmark's 10-link chain, the loaded variant of tests/test_tree_wittenburg.py
(springs, dampers, joint torque, applied force and torque, a translating and rotating base), and a chain whose
joints name the ground as body2 and the parent as body2 (the reaction is reported on body1 / the inboard body).
"""
from __future__ import annotations

import numpy as np
import pytest

from mechstudio.core.dynamics.base import Formulation, OutputScalar
from mechstudio.core.dynamics.correction import correct
from mechstudio.core.model.io import model_from_data
from mechstudio.core.simulate import SimulationSettings, initial_state, run
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.bench.tree_chains import chain_model_data
from mechstudio.core.dynamics.wittenburg import WittenburgFormulation
from test_performance_equivalence import needs_numba
from test_tree_wittenburg import ALL, data, loaded_variant

PARAMS = ("quaternion", "bryant", "euler313", "matrix")


def flipped_variant() -> dict:
    """spherical_chain_3 with J1 written ground-as-body2 and J2 parent-as-body2 (points swapped with them)."""
    d = data("spherical_chain_3")
    for j in d["joints"][:2]:
        j["body1"], j["body2"], j["point1"], j["point2"] = j["body2"], j["body1"], j["point2"], j["point1"]
    return d


def system_of(name: str):
    if name == "bench10":
        return compile_model(model_from_data(chain_model_data(10)))
    if name == "loaded":
        return compile_model(model_from_data(loaded_variant()))
    if name == "flipped":
        return compile_model(model_from_data(flipped_variant()))
    return compile_model(model_from_data(data(name)))


def generic_frame(form: WittenburgFormulation, y: np.ndarray, t: float):
    """(q, q', q'', reactions, kinetic, potential, correction result) as the driver's generic path."""
    s = form.system
    q, v = form.unpack(y, t)
    cr = correct(s, q, v, t)
    acc = form.reactions(q, v, t)
    reac = s.reactions(q, acc.lam, t)
    R = np.zeros((len(s.constraints), 6))
    for i, c in enumerate(s.constraints):
        if c.name in reac:
            R[i] = reac[c.name]
    return q, v, acc.qdd, R, s.kinetic_energy(q, v, t), s.potential_energy(q, t), cr


def close(a, b, rtol):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape
    scale = max(float(np.abs(b).max()), 1.0)
    assert float(np.abs(a - b).max()) <= rtol * scale, (float(np.abs(a - b).max()), scale)


@pytest.mark.parametrize("name", ALL + ["bench10", "loaded", "flipped"])
@pytest.mark.parametrize("param", PARAMS)
def test_fused_output_equals_the_generic_path(name, param):
    needs_numba()
    s = system_of(name)
    form = WittenburgFormulation(s, parametrization=param)
    q0, v0 = s.consistent_state(0.0)
    y0 = form.pack(q0, v0, 0.0)
    rng = np.random.default_rng(3)
    for _ in range(3):
        y = y0 + 0.1 * rng.standard_normal(y0.size)
        t = float(rng.uniform(0.0, 2.0))
        out = form.fast_output(y, t, True)
        assert out is not None  # a Wittenburg state is on the constraint manifold: nothing to correct
        qf, vf, qddf, Rf, sc = out
        q, v, qdd, R, kinetic, potential, cr = generic_frame(form, y, t)
        assert not cr.changed and cr.iterations == 0
        close(qf, q, 1e-12)
        close(vf, v, 1e-12)
        close(qddf, qdd, 1e-10)
        close(Rf, R, 1e-12)
        assert sc[OutputScalar.KINETIC] == pytest.approx(kinetic, rel=1e-12, abs=1e-12)
        assert sc[OutputScalar.POTENTIAL] == pytest.approx(potential, rel=1e-12, abs=1e-12)
        for i, ref in ((OutputScalar.POSITION_BEFORE, cr.position_before),
                       (OutputScalar.POSITION_AFTER, cr.position_after),
                       (OutputScalar.VELOCITY_BEFORE, cr.velocity_before),
                       (OutputScalar.VELOCITY_AFTER, cr.velocity_after)):
            assert abs(sc[i] - ref) < 1e-14 and sc[i] < 1e-13
        assert sc[OutputScalar.CONVERGED] == 1.0 and sc[OutputScalar.CHANGED] == 0.0
        assert sc[OutputScalar.NEWTON_ITERATIONS] == 0.0 and sc[OutputScalar.LAMBDA_UNIQUE] == 1.0
        # without the correction the same frame (the residuals are only measured)
        close(form.fast_output(y, t, False)[2], qddf, 1e-15)


def test_reactions_are_reported_on_the_file_body2():
    """The flipped chain reports J1 on link1 (body1, ground as body2) and J2 on link1 (the parent as body2): the
    same physical joint forces as the sample with the usual order, with the signs of action and reaction."""
    needs_numba()
    a, b = system_of("spherical_chain_3"), system_of("flipped")
    fa, fb = WittenburgFormulation(a), WittenburgFormulation(b)
    q0, v0 = a.consistent_state(0.0)
    y = fa.pack(q0, v0, 0.0) + 0.1 * np.random.default_rng(5).standard_normal(fa.nk + 3 * fa.n)
    Ra, Rb = fa.fast_output(y, 0.4, True)[3], fb.fast_output(y, 0.4, True)[3]
    close(Rb[0, :3], -Ra[0, :3], 1e-12)  # J1: the force on the ground (body2) = -(force on link1)
    close(Rb[1, :3], -Ra[1, :3], 1e-12)  # J2 on link1 = -(force on link2)
    close(Rb[2], Ra[2], 1e-12)
    assert np.abs(Ra[:3, :3]).max() > 1.0  # non-trivial forces


@pytest.mark.parametrize("name", ["bench10", "loaded", "chain_on_shaking_base", "flipped"])
def test_runs_with_and_without_the_fused_output_agree(name, monkeypatch):
    """2 s runs through core.simulate.run (DOP853 rtol 1e-8, outputs every 0.01 s, correction on) with the fused
    output and with the generic path: every recorded quantity agrees to 1e-10 (round-off only: the integration is
    the same, the frames are computed two ways)."""
    needs_numba()
    s = system_of(name)
    init = initial_state(s)
    settings = SimulationSettings(t_end=2.0 if name == "bench10" else 1.0, dt=0.01, formulation="wittenburg",
                                  integrator="dop853", rtol=1e-8, atol=1e-10, correction=True)
    calls = []
    fast = WittenburgFormulation.fast_output

    def counted(self, y, t, correction):
        out = fast(self, y, t, correction)
        calls.append(out is not None)
        return out
    monkeypatch.setattr(WittenburgFormulation, "fast_output", counted)
    fused = run(s, settings, q0=init.q, v0=init.v)
    assert len(calls) >= len(fused.frames.t) - 1 and all(calls)  # every frame fused: nothing needed correcting
    monkeypatch.setattr(WittenburgFormulation, "fast_output", Formulation.fast_output)
    generic = run(s, settings, q0=init.q, v0=init.v)
    assert fused.status.ok and generic.status.ok, (fused.message, generic.message)
    assert fused.stats["rhs_evaluations"] == generic.stats["rhs_evaluations"]
    for f in ("q", "v", "a", "reactions", "kinetic", "potential", "work"):
        close(getattr(fused.frames, f), getattr(generic.frames, f), 1e-10)
    for f in ("violation_position", "violation_velocity", "violation_position_before",
              "violation_velocity_before"):
        assert np.abs(getattr(fused.frames, f) - getattr(generic.frames, f)).max() < 1e-14


def test_the_trees_bench_row_compares_the_same_integration():
    """The trees suite's run()/bare row (core.bench.tree_chains.run_versus_bare) times the same integration both ways:
    the same steps (right-hand-side counts within the dense-output evaluations of one step) and a finished run.
    No speed is asserted (benchmarks are printed, never timed in tests)."""
    from mechstudio.core.bench.tree_chains import run_versus_bare
    row = run_versus_bare(3, rounds=1, t_end=0.2)
    assert row["status"] == "finished"
    assert abs(row["run_rhs_evaluations"] - row["bare_rhs_evaluations"]) <= 15
    assert row["run_over_bare_speed"] == pytest.approx(row["bare_cpu_s"] / row["run_cpu_s"])
