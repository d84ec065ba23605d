"""A basis refresh that falls on the last output time ends the run normally.

Found by a parameter sweep: a four-bar whose kept SVD basis degenerated at exactly t_end had the driver start a
new DOP853 stepper over the empty interval [t_end, t_end], and the run failed just before its end with
"`first_step` must be positive". The masses below reproduce it with the default settings (DOP853, rtol 1e-8).
"""
from __future__ import annotations

from pathlib import Path

from mechstudio.core.model import edit
from mechstudio.core.model.io import load_model
from mechstudio.core.simulate import simulate
from mechstudio.core.types import Status

SAMPLES = Path(__file__).resolve().parents[1] / "sample_models"


def test_basis_refresh_at_t_end_finishes_the_run() -> None:
    model = load_model(SAMPLES / "four_bar.json")
    model = edit.set_value(model, edit.element_pointer(model, "bodies", "crank") + "/mass", 8 / 7)
    model = edit.set_value(model, edit.element_pointer(model, "bodies", "coupler") + "/mass", 3.75)
    traj = simulate(model, t_end=1.0)
    assert traj.status is Status.FINISHED, traj.message
    assert traj.frames.t[-1] == 1.0
    assert len(traj.frames.t) == 101
