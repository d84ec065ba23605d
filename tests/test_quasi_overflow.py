"""A quasi-velocity whose coefficient grows without bound during a run (exp(50 x) at the ice skate's centre
coordinate: it passes 1e12 once x > 0.55 m) ends the run with a status that says what and when, and nothing
else: no numpy warning, no LAPACK message, no exception. The recorded frames before the failure are kept, and
they are right: the skate's energy balance still holds on them (checked against the formulation-independent
projection run of the same skate over the same times)."""
from __future__ import annotations

import copy
import json
import warnings

import numpy as np

from conftest import SAMPLES
from mechstudio.core.model.io import model_from_data
from mechstudio.core.simulate import simulate

GROWING = "exp(50*skate.x)*cos(skate.phi)*d(skate.x) + sin(skate.phi)*d(skate.y)"


def skate(expression: str | None) -> object:
    data = json.loads((SAMPLES / "ice_skate_incline.json").read_text())
    data = copy.deepcopy(data)
    data["simulation"].update(t_end=2.0)
    if expression is not None:
        data["quasi_velocities"]["choice"][0]["expression"] = expression
    return model_from_data(data, source="skate")


def test_overflowing_quasi_velocity_is_a_status_with_its_time() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any numpy RuntimeWarning fails the test
        traj = simulate(skate(GROWING), formulation="appell")
    assert not traj.status.ok
    assert "t = " in traj.message and ("singular" in traj.message or "overflow" in traj.message), traj.message
    assert len(traj.t) > 2
    # the frames kept agree with the projection run of the same skate (Appell with a growing but finite
    # coefficient is exact; 1e-6 m: both runs use rtol 1e-10 over under 2 s)
    ref = simulate(skate(None), formulation="projection")
    n = len(traj.t)
    assert np.allclose(traj.t, ref.t[:n])
    assert np.abs(np.asarray(traj.q) - np.asarray(ref.q)[:n]).max() < 1e-6
