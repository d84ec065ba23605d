"""The batched evaluation of the spatial joints' rows (core/elements/primitives/spatial_rows.RowBatch, used by
core/systems/maximal_joints.py) against the one-joint-at-a-time reference of the same module (Pair, evaluate: one
world vector at a time, the formulas of the module docstring; tests/test_spatial_joints.py checks those against
finite differences), and the body dynamics' matrix-free quaternion products against orientation's E(p), G(p).

With numba (not under MECHSTUDIO_NO_NUMBA) the batch evaluates by its compiled kernel, and the reference tests check
that; a further test checks the kernel against the numpy path directly.

Both evaluations compute the same sums in a different order, so they agree to a few ulps: bound 1e-13 relative to
max(1, the largest magnitude) at random states (not on the constraint manifold: the formulas hold everywhere).
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

from mechstudio.core.elements.primitives.spatial_rows import (GROUND_STATE, JOINT_ROWS, ROW_EQUATIONS, BodyState,
                                                              Pair, evaluate)
from mechstudio.core.model.io import model_from_data
from mechstudio.core.numerics.orientation import quat_E, quat_G
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.systems.maximal_bodies import quat_E_of, quat_G_of
from mechstudio.core.systems.maximal_joints import MaximalJointSystem

from test_spatial_joints import JOINTS, pair_model, random_state

TOL = 1e-13


def body_state(k: int, q: np.ndarray, v: np.ndarray) -> BodyState:
    if k < 0:
        return GROUND_STATE
    return BodyState(q[7 * k:7 * k + 3], q[7 * k + 3:7 * k + 7], v[7 * k:7 * k + 3], v[7 * k + 3:7 * k + 7], True)


def reference(batch, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, ...]:
    """Values, Jacobians (R, 14), rates and biases of the batch's terms, one joint and one term at a time."""
    out = []
    for jn, eq in batch.terms:
        geo, i, j = batch.joints[jn]
        out.append(evaluate(eq, Pair(geo, body_state(i, q, v), body_state(j, q, v))))
    return (np.array([x.value for x in out]), np.array([x.jac for x in out]), np.array([x.rate for x in out]),
            np.array([x.bias for x in out]))


def close(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.allclose(a, b, rtol=0, atol=TOL * max(1.0, np.abs(b).max(initial=0.0))))


def systems(kind: str) -> list[MaximalJointSystem]:
    """The two-body model of ``kind`` (driven and sprung where the type allows), and the same with its ground
    joint turned round (the ground as body2)."""
    data = pair_model(kind, springs=True)
    flipped = copy.deepcopy(data)
    j0 = flipped["joints"][0]
    j0["body1"], j0["body2"], j0["point1"], j0["point2"] = j0["body2"], j0["body1"], j0["point2"], j0["point1"]
    if "axis1" in j0:
        j0["axis1"], j0["axis2"] = j0["axis2"], j0["axis1"]
    out = [compile_model(model_from_data(d)) for d in (data, flipped)]
    assert all(isinstance(s, MaximalJointSystem) for s in out)
    return out


@pytest.mark.parametrize("kind", JOINTS)
def test_batched_rows_equal_the_per_joint_reference(kind):
    for s in systems(kind):
        batch = s.rows
        kinds = {eq.kind for _, eq in batch.terms}
        assert {"component", "dot"} & kinds  # every batch has rows of Phi
        for seed in range(4):
            q, v = random_state(s, seed)
            got = batch.scalars(q, v)
            ref = reference(batch, q, v)
            for a, b in zip(got, ref):
                assert a is not None and a.shape == b.shape
                assert close(a, b)
            # the positions alone (the cache keyed by q), then the rates at other rates
            batch.clear_cache()
            assert close(batch.scalars(q).jac, ref[1])
            v2 = -0.5 * v
            assert close(batch.scalars(q, v2).bias, reference(batch, q, v2)[3])


@pytest.mark.parametrize("kind", JOINTS)
def test_batched_values_over_frames_equal_the_reference(kind):
    """RowBatch.values over many states at once (the result columns' path) against the reference at each."""
    for s in systems(kind):
        for batch in (s.rows, s.coordinates):
            if not batch.terms:
                continue
            states = [random_state(s, 10 + f) for f in range(5)]
            Q = np.array([q for q, _ in states])
            V = np.array([v for _, v in states])
            values, rates = batch.values(Q, V)
            only, none = batch.values(Q)
            assert none is None and close(only, values)
            for f, (q, v) in enumerate(states):
                ref = reference(batch, q, v)
                assert close(values[f], ref[0]) and close(rates[f], ref[2])


def test_every_joint_type_is_declared_once():
    """Each joint type's rows are labels of ROW_EQUATIONS (the one declaration the batches are built from), and
    every kind of equation is exercised by some joint type."""
    for labels in JOINT_ROWS.values():
        assert all(c in ROW_EQUATIONS for c in labels)
    assert {eq.kind for eq in ROW_EQUATIONS.values()} == {"component", "dot"}


def test_quaternion_forms_equal_the_matrices():
    """E(p), G(p) of the body dynamics (one product with a constant form) against orientation's entry-by-entry
    matrices, at random (not unit) quaternions."""
    p = np.random.default_rng(5).normal(size=(6, 4))
    assert np.allclose(quat_E_of(p), quat_E(p), rtol=0, atol=1e-15)
    assert np.allclose(quat_G_of(p), quat_G(p), rtol=0, atol=1e-15)


@pytest.mark.parametrize("kind", JOINTS)
def test_compiled_rows_equal_the_numpy_path(kind):
    """The numba kernel of the batch (spatial_rows_kernels) against the numpy path, with and without rates."""
    from mechstudio.core.elements.primitives.spatial_rows_kernels import compiled  # only here: compiles numba
    from mechstudio.core.jit import kernel_policy, numba_module
    if numba_module() is None:
        pytest.skip("numba is not available (or MECHSTUDIO_NO_NUMBA is set)")
    kernel = compiled()
    for s in systems(kind):
        batch = s.rows
        for seed in range(3):
            q, v = random_state(s, seed)
            with kernel_policy("numpy"):
                batch.clear_cache()
                ref = batch.scalars(q, v)
            batch.clear_cache()
            got = batch.compiled_scalars(kernel, q, v)
            for a, b in zip(got, ref):
                assert close(a, b)
            batch.clear_cache()
            only = batch.compiled_scalars(kernel, q, None)
            assert only.rate is None and close(only.value, ref.value) and close(only.jac, ref.jac)
