"""The driver's compiled segments (``Stepper.segment``, ``dop853_kernels.dop853_segment``) against its own loop.

Independent reference: the same run with ``Driver(segments=False)``, which takes every step, every output inside
a step and every step-end correction through the driver's Python loop (``_take_step``, ``_outputs_inside_step``,
``_settle_step_end``) with the formulation's one-call kernels. A segment runs the same kernels in the same order, so
the frames agree to round-off: the step-end corrections of the Python loop evaluate the time functions with numpy
and re-pack the state of a closed loop with a BLAS product, the segment with compiled loops, a few ulps apart
(the tolerance 1e-12 relative is 1e4 ulps and 1e-4 of the run's rtol 1e-8: a different step, a missed
correction, a frame recorded at the wrong time or with the wrong work fails it by orders of magnitude).
"""
from __future__ import annotations

import numpy as np
import pytest

from mechstudio.core.integrate import scipy_ivp
from mechstudio.core.integrate.scipy_ivp import CompiledDOP853Stepper
from mechstudio.core.jit import numba_module
from mechstudio.core.model.io import load_model, model_from_data
from mechstudio.core.model.samples import sample_path
from mechstudio.core.run import driver as driver_module
from mechstudio.core.run.driver import Driver, iter_simulation
from mechstudio.core.run.frames import concat_blocks
from mechstudio.core.run.settings import SimulationSettings
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.types import Status

pytestmark = pytest.mark.skipif(numba_module() is None, reason="segments are compiled")

FIELDS = ("t", "q", "v", "a", "reactions", "kinetic", "potential", "work", "violation_position_before",
          "violation_position", "violation_velocity_before", "violation_velocity")


def _chain_with_varying_torque(n: int = 6) -> dict:
    from mechstudio.core.bench.speed import planar_chain_data
    data = planar_chain_data(n)
    data.setdefault("forces", []).append({"name": "drive", "type": "applied_torque", "body": "link1",
                                          "torque": {"type": "expression", "expression": "0.3*sin(4*t)"}})
    return data


def _system(case: str):  # noqa: ANN202
    if case == "chain_with_varying_torque":
        return compile_model(model_from_data(_chain_with_varying_torque()))
    return compile_model(load_model(sample_path(case)))


def _run(system, segments: bool, **overrides):  # noqa: ANN001, ANN202
    settings = SimulationSettings(**{"t_end": 1.0, "dt": 0.01, "formulation": "projection", "integrator": "dop853",
                                     "rtol": 1e-8, "atol": 1e-10, "kernels": "compiled", **overrides})
    driver = Driver(system, settings, segments=segments)
    blocks = list(driver.blocks())
    assert driver.status == Status.FINISHED, driver.message
    return driver, concat_blocks(blocks, system.n, len(system.constraints))


def _assert_same_frames(a, b) -> None:  # noqa: ANN001
    for name in FIELDS:
        x, y = np.asarray(getattr(a, name)), np.asarray(getattr(b, name))
        assert x.shape == y.shape, name
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12 * max(1.0, float(np.abs(y).max())), err_msg=name)


def _counting_segments(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The steps each segment call took, recorded."""
    steps: list[int] = []
    original = CompiledDOP853Stepper.segment

    def counting(self, request):  # noqa: ANN001, ANN202
        got = original(self, request)
        steps.append(0 if got is None else got.steps)
        return got
    monkeypatch.setattr(CompiledDOP853Stepper, "segment", counting)
    return steps


@pytest.mark.parametrize("case", ["double_pendulum", "chain_with_varying_torque", "four_bar", "slider_crank_driven",
                                  "pendulum"])
def test_segments_record_the_frames_of_the_drivers_own_loop(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trees on the sparse path (a constant and a time-varying load) and closed loops on the sparse loop route (a
    driver's time function): the frames, the steps and the corrections of the segmented run are those of the
    driver's own loop, and nearly all steps ran in segments."""
    system = _system(case)
    steps = _counting_segments(monkeypatch)
    segmented, frames = _run(system, True)
    own, own_frames = _run(system, False)
    _assert_same_frames(frames, own_frames)
    assert segmented.state.stats["corrections"] == own.state.stats["corrections"]
    assert segmented.integ.steps == own.integ.steps
    assert sum(steps) >= 0.9 * own.integ.steps


def test_a_step_a_segment_declines_is_the_drivers_and_the_run_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """With room for one frame and no spare rows, a segment declines every step with an output time inside it:
    those steps are the driver's own, the others the segment's, and the frames are still those of the driver's
    loop (the hand-over of the state both ways)."""
    system = _system("double_pendulum")
    monkeypatch.setattr(scipy_ivp, "SEGMENT_SPARE_ROWS", 0)
    monkeypatch.setattr(driver_module, "SEGMENT_FRAMES", 1)
    steps = _counting_segments(monkeypatch)
    declined = []
    original = Driver._take_step

    def own_step(self):  # noqa: ANN001, ANN202
        declined.append(self.state.t)
        return original(self)
    monkeypatch.setattr(Driver, "_take_step", own_step)
    _, frames = _run(system, True, dt=0.05)
    own_frames = _run(system, False, dt=0.05)[1]
    _assert_same_frames(frames, own_frames)
    assert sum(steps) > 0 and declined  # both kinds of steps


def test_per_frame_hooks_and_a_cancel_stop_after_the_frame_asked_for() -> None:
    """With the caller's hooks (a paused editor asks for every frame) a segment returns at each frame; a cancel
    after frame k ends the run there: k + 1 frames (the initial one included), status cancelled, the same frames
    as the driver's own loop."""
    system = _system("double_pendulum")
    settings = SimulationSettings(t_end=1.0, dt=0.01, formulation="projection", integrator="dop853", rtol=1e-8,
                                  atol=1e-10, kernels="compiled")
    seen = []

    def cancel() -> bool:
        seen.append(1)
        return len(seen) > 37
    outcome: dict = {}
    blocks = list(iter_simulation(system, settings, cancel=cancel, outcome=outcome))
    frames = concat_blocks(blocks, system.n, len(system.constraints))
    assert outcome["status"] == Status.CANCELLED and outcome["message"] == "cancelled at t = 0.37 s"
    assert len(frames.t) == 38
    own_frames = _run(system, False)[1]
    np.testing.assert_allclose(np.asarray(frames.q), np.asarray(own_frames.q)[:38], rtol=1e-12, atol=1e-12)


def test_a_segment_kernel_missing_from_the_cache_hands_the_run_to_the_drivers_own_steps(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A segment whose kernel the cache lacks (``KernelNotCached`` under the "cached" policy) ends the segments of
    that run: it goes on with the driver's own compiled steps from where the last segment ended, and records the
    frames of a run that never had segments."""
    from mechstudio.core.jit import KernelNotCached
    system = _system("double_pendulum")
    original = CompiledDOP853Stepper.segment
    refused = []

    def missing_late(self, request):  # noqa: ANN001, ANN202
        if self.t > 0.5:
            refused.append(self.t)
            raise KernelNotCached("dop853_segment is not in the kernel cache")
        return original(self, request)
    monkeypatch.setattr(CompiledDOP853Stepper, "segment", missing_late)
    driver, frames = _run(system, True)
    assert len(refused) == 1 and not driver.segments
    assert driver.stats["kernels"] == "compiled"
    _assert_same_frames(frames, _run(system, False)[1])


def test_warm_up_compiles_the_drivers_own_steps_too(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """``compile_runs`` (the background compiler, ``mechstudio warm``) runs a model with segments and without, so
    that a step a segment leaves to the driver finds its kernels in the cache."""
    calls = []
    original = Driver.__init__

    def recording(self, *args, **kwargs):  # noqa: ANN001, ANN202
        original(self, *args, **kwargs)
        calls.append(self.segments)
    monkeypatch.setattr(Driver, "__init__", recording)
    driver = driver_module.compile_runs(_system("pendulum"), SimulationSettings(t_end=0.05, dt=0.01,
                                                                                kernels="compiled"))
    assert driver.status == Status.FINISHED
    assert calls == [True, False]
