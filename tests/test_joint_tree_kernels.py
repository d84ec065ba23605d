"""The compiled right-hand side of joint trees (core/dynamics/joint_tree_kernels.py) against the numpy path of
JointTreeFormulation (core/dynamics/joint_tree.py), the reference it is written from.

* At random states (angles and slides perturbed by 0.3, rates ~ N(0, 2)) of the hinge chains (parallel and
  alternating axes) and of the mixed arm (slider with a spring, universal joint mounted outward-in, cylindrical
  joint; hinge damper): [theta'; theta''; P] of the kernel's plain Python function (it runs uncompiled, also under
  MECHSTUDIO_NO_NUMBA=1) equal to the numpy rhs_and_power to 1e-12 relative to the size of theta'' (the same
  equations in another order of summation: round-off ~1e-15 amplified by cond(M) ~1e3 for the chain).
* The same with the numba-compiled kernel (skipped without numba).
* The compiled path through the driver: a run of the alternating chain with kernels "compiled" equals the numpy
  run to 1e-9 (the integrators at rtol 1e-11; the same DOP853 steps up to round-off); skipped without numba.
* Out of scope (a driven coordinate, a time-function load): no compiled right-hand side is offered.
"""
from __future__ import annotations

import numpy as np
import pytest

from mechstudio.core.bench.hinge_chain import hinge_chain_data
from mechstudio.core.dynamics import joint_tree_kernels
from mechstudio.core.dynamics.base import get_formulation
from mechstudio.core.jit import numba_available
from mechstudio.core.model.io import model_from_data
from mechstudio.core.run.initial import initial_state
from mechstudio.core.simulate import simulate
from mechstudio.core.systems.compile import compile_model

from joint_tree_models import mixed_arm

CASES = {
    "chain_parallel": lambda: hinge_chain_data(10, alternating=False),
    "chain_alternating": lambda: hinge_chain_data(10, alternating=True),
    "mixed_arm": lambda: mixed_arm(dampers=False),
    "mixed_arm_damped": lambda: _damped_arm(),
}


def _damped_arm() -> dict:
    data = mixed_arm()
    data["joints"][0]["damping"] = 0.05  # a damper on the hinge: the kernel's power term
    data["joints"][1]["damping"] = 0.4
    return data


def formulation(data: dict, kernels: str):
    model = model_from_data(data)
    system = compile_model(model)
    st = initial_state(system, 0.0)
    form = get_formulation("wittenburg")(system, kernels=kernels)
    y0 = form.pack(st.q, st.v, 0.0)
    return form, y0


def random_states(form, y0: np.ndarray, count: int = 5):
    rng = np.random.default_rng(11)
    nc = form.nc
    for _ in range(count):
        y = y0.copy()
        y[:nc] += 0.3 * rng.normal(size=nc)
        y[nc:] = 2.0 * rng.normal(size=nc)
        yield np.append(y, 0.7), float(rng.uniform(0, 1))  # the work W rides along


def check_equal(kernel, case: str) -> None:
    form, y0 = formulation(CASES[case](), "numpy")
    assert form.kernel_scope
    I, F = form.kernel_data()
    nc = form.nc
    for yy, t in random_states(form, y0):
        ref, power = form.rhs_and_power(t, yy[:-1])
        status, out = kernel(t, yy, I, F)
        assert status == 0
        scale = np.abs(ref[nc:]).max()
        assert scale > 1.0
        assert np.abs(out[:nc] - ref[:nc]).max() == 0.0
        assert np.abs(out[nc:2 * nc] - ref[nc:]).max() <= 1e-12 * scale, case
        assert abs(out[-1] - power) <= 1e-12 * max(1.0, abs(power))
        if "damped" in case:
            assert power < 0.0


@pytest.mark.parametrize("case", sorted(CASES))
def test_kernel_python_function_equals_numpy_path(case):
    check_equal(joint_tree_kernels.k_rhs_joint_tree, case)


@pytest.mark.skipif(not numba_available(), reason="numba is not available (or MECHSTUDIO_NO_NUMBA is set)")
@pytest.mark.parametrize("case", sorted(CASES))
def test_compiled_kernel_equals_numpy_path(case):
    kernel = joint_tree_kernels.timed_kernel()
    assert kernel is not None
    check_equal(kernel, case)


@pytest.mark.skipif(not numba_available(), reason="numba is not available (or MECHSTUDIO_NO_NUMBA is set)")
def test_compiled_run_equals_numpy_run():
    data = hinge_chain_data(6, alternating=True, t_end=0.5, dt=0.05, rtol=1e-11, atol=1e-13)
    model = model_from_data(data)
    runs = {}
    for kernels in ("numpy", "compiled"):
        tr = simulate(model, kernels=kernels)
        assert tr.status.ok, tr.message
        runs[kernels] = tr
    form = get_formulation("wittenburg")(runs["compiled"].system, kernels="numba")
    assert form.compiled_rhs() is not None
    a, b = runs["numpy"].columns(), runs["compiled"].columns()
    for key in a:
        scale = max(1.0, float(np.abs(a[key]).max()))
        assert np.abs(a[key] - b[key]).max() <= 1e-9 * scale, key


def test_no_compiled_rhs_out_of_scope():
    for data in (mixed_arm(driven=True), mixed_arm(dampers=True)):  # a driver; a time-function torque
        form, _ = formulation(data, "numba")
        assert not form.kernel_scope
        assert form.compiled_rhs() is None
        assert form.kernel_key() is None
