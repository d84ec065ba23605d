"""Integrator tolerances the integrators cannot honour are refused with a message, at load (JSON pointer) and for
overrides (the settings' validation), instead of a scipy warning on stderr and a silently raised tolerance.
The bound is 100 machine epsilons, where scipy's step-size controllers clamp rtol (scipy.integrate._ivp.common)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import SAMPLES
from mechstudio.core.errors import ModelError
from mechstudio.core.model.io import model_from_data
from mechstudio.core.run.settings import RTOL_MIN
from mechstudio.core.simulate import simulate


def pendulum(**simulation: float) -> dict:
    data = json.loads((SAMPLES / "pendulum.json").read_text())
    data["simulation"].update(simulation)
    return data


def test_the_bound_is_scipys() -> None:
    assert RTOL_MIN == 100 * np.finfo(float).eps


@pytest.mark.parametrize("rtol", [1e-16, 0.0, -1e-8])
def test_a_file_with_a_too_small_rtol_is_refused_at_load_with_its_pointer(rtol: float) -> None:
    with pytest.raises(ModelError) as info:
        model_from_data(pendulum(rtol=rtol), source="p.json")
    assert any(d.pointer == "/simulation/rtol" for d in info.value.diagnostics), info.value.diagnostics


def test_an_override_below_the_bound_is_a_status_not_a_warning(recwarn: pytest.WarningsRecorder) -> None:
    model = model_from_data(pendulum(t_end=0.1), source="p.json")
    traj = simulate(model, rtol=1e-16)
    assert not traj.status.ok and "rtol must be at least 2.22e-14" in traj.message
    assert len(recwarn) == 0
    assert simulate(model, rtol=RTOL_MIN).status.ok  # the bound itself is accepted
