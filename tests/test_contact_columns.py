"""The contact columns of a rolling disk that may leave its line but has no friction data (docs/results-csv.md,
"Contacts"), against closed forms.

Such a disk rolls without slipping while it touches (its rolling row holds: unlimited friction), so the friction
it needs is reported, and its ``state`` column says it sticks (1), not "closed without friction" (3, the state of
a cam or a frictionless pair, whose friction column is zero). On a ground incline of angle alpha a uniform disk
(r = 0.1 m, m = 1 kg, J = m r^2 / 2) rolls with N = m g cos(alpha) and the friction m g sin(alpha) J / (J + m r^2)
up the slope (the sample planar_rolling_disk_incline.json, made unilateral). Tolerance 1e-9 relative: the
multipliers of a constant-acceleration motion are exact to round-off; the run's rtol (1e-10) bounds the state.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from mechstudio.core.model.io import model_from_data
from mechstudio.core.simulate import simulate
from mechstudio.core.types import Status

SAMPLES = Path(__file__).resolve().parents[1] / "sample_models"
G = 9.81


def test_unilateral_disk_without_friction_data_reports_its_rolling_friction_as_sticking():
    data = json.loads((SAMPLES / "planar_rolling_disk_incline.json").read_text(encoding="utf-8"))
    data["joints"][0]["unilateral"] = True
    traj = simulate(model_from_data(data, "<test>"), t_end=0.3, dt=0.05, rtol=1e-10)
    assert traj.status == Status.FINISHED, traj.message
    cols = traj.columns(points=())
    alpha, m, r, J = math.radians(30.0), 1.0, 0.1, 0.005
    normal, friction = m * G * math.cos(alpha), m * G * math.sin(alpha) * J / (J + m * r * r)
    assert np.all(cols["contact.contact.state"] == 1.0)
    assert np.allclose(cols["contact.contact.normal"], normal, rtol=1e-9, atol=0.0)
    # tau is the line's direction, down the slope: the friction on the disk acts up it
    assert np.allclose(cols["contact.contact.friction"], -friction, rtol=1e-9, atol=0.0)
    assert np.allclose(cols["reaction.contact.friction"], -friction, rtol=1e-9, atol=0.0)


def test_frictionless_contacts_still_report_closed_without_friction():
    """The ball of bouncing_ball.json at rest on the floor (a frictionless pair): state 3, no friction."""
    traj = simulate(str(SAMPLES / "bouncing_ball.json"), t_end=4.2, dt=0.1)
    assert traj.status == Status.FINISHED, traj.message
    cols = traj.columns(points=())
    assert cols["contact.floor.state"][-1] == 3.0
    assert cols["contact.floor.friction"][-1] == 0.0
    assert math.isclose(cols["contact.floor.normal"][-1], 1.0 * G, rel_tol=1e-9)
