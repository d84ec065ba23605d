"""Belt drive (core/elements/belt_drive.py), checked against closed forms.

Pulley 1 (r1 = 0.1 m, J1 = 0.004 kg m^2) on a ground revolute at O is driven by a joint-angle driver
phi1(t) = A sin(w t); pulley 2 (r2 = 0.25 m, J2 = 0.05 kg m^2, its centre of mass on its axle at D) carries a
load torque tau_L = 0.3 N m. The belt does not slip, so

    phi2(t) = +-(r1/r2) phi1(t)          (open: +; crossed: -), speed ratio phi2'/phi1' = +-r1/r2,

and the free body of pulley 2 about its axle (the axle's force passes through the centre of mass: no moment)
gives the belt's effective tension T (its torque on pulley 2 over r2):

    J2 phi2'' = T r2 + tau_L   =>   T = (+-J2 (r1/r2) phi1'' - tau_L) / r2,   phi1'' = -A w^2 sin(w t).

The belt's torque on pulley 1 is -+T r1 (it pulls back on the driver), so the motor's torque on pulley 1 is
tau_m = J1 phi1'' +- T r1; the reported ``reaction.<belt>.tension``, the belt's moment Mz on pulley 2 and the
motor's Mz are compared with these. Tolerances: 0 DOF, the motion is the driver's to the assembly's tolerance:
measured 1e-13 rad on the angles, 3e-16 N on the tension and N m on the torques. 1e-9 (rad, N, N m) leaves a
margin of 1e4 while a wrong sign, ratio or reaction site shows at the size of the loads (0.3 to 3).

A belt whose pulleys overlap is refused by the loader, naming both joints.
"""
from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from mechstudio.core.errors import ModelError
from mechstudio.core.model import model_from_data
from mechstudio.core.simulate import simulate
from mechstudio.core.types import Status

R1, R2, J1, J2, TAU_L = 0.1, 0.25, 0.004, 0.05, 0.3
A, W = 0.8, 3.0  # driver amplitude [rad] and frequency [rad/s]
TOL = 1e-9


def belt_data(crossed: bool) -> dict:
    return {"format": "mechanism-studio-model", "version": 1, "name": "belt", "kind": "planar",
            "gravity": [0.0, -9.81], "ground": {"points": {"O": [0.0, 0.0], "D": [0.6, 0.1]}},
            "bodies": [{"name": "p1", "mass": 0.8, "inertia": J1, "com": [0.0, 0.0], "points": {"c": [0.0, 0.0]},
                        "initial": {"x": 0.0, "y": 0.0, "phi": 0.0}},
                       {"name": "p2", "mass": 1.6, "inertia": J2, "com": [0.0, 0.0], "points": {"c": [0.0, 0.0]},
                        "initial": {"x": 0.6, "y": 0.1, "phi": 0.0}}],
            "joints": [{"name": "a1", "type": "revolute", "body1": "ground", "point1": "O", "body2": "p1",
                        "point2": "c"},
                       {"name": "a2", "type": "revolute", "body1": "ground", "point1": "D", "body2": "p2",
                        "point2": "c"},
                       {"name": "belt", "type": "belt_drive", "joint1": "a1", "joint2": "a2", "radius1": R1,
                        "radius2": R2, "crossed": crossed}],
            "drivers": [{"name": "motor", "type": "joint_angle", "joint": "a1",
                         "function": {"type": "harmonic", "amplitude": A, "frequency": W}}],
            "forces": [{"name": "load", "type": "applied_torque", "body": "p2", "torque": TAU_L}],
            "simulation": {"t_end": 2.0, "dt": 0.02}}


@pytest.mark.parametrize("crossed", [False, True], ids=["open", "crossed"])
def test_speed_ratio_and_tension_balance_the_driven_pulley(crossed):
    sign = -1.0 if crossed else 1.0
    traj = simulate(model_from_data(belt_data(crossed)), rtol=1e-11, atol=1e-12)
    assert traj.status == Status.FINISHED, traj.message
    cols = traj.columns(points=())
    t = cols["t"]
    phi1, phi2 = cols["q.p1.phi"], cols["q.p2.phi"]
    np.testing.assert_allclose(phi1, A * np.sin(W * t), atol=TOL)  # the driver
    np.testing.assert_allclose(phi2, sign * R1 / R2 * phi1, atol=TOL)
    w1, w2 = cols["v.p1.phi"], cols["v.p2.phi"]
    moving = np.abs(w1) > 0.1
    np.testing.assert_allclose(w2[moving] / w1[moving], sign * R1 / R2, rtol=1e-9)  # the speed ratio
    acc1 = -A * W ** 2 * np.sin(W * t)
    tension = (sign * J2 * R1 / R2 * acc1 - TAU_L) / R2
    assert np.ptp(tension) > 1.0  # the belt's pull really varies
    np.testing.assert_allclose(cols["reaction.belt.tension"], tension, atol=TOL)
    np.testing.assert_allclose(cols["reaction.belt.Mz"], tension * R2, atol=TOL)  # its torque on pulley 2
    np.testing.assert_allclose(cols["reaction.motor.Mz"], J1 * acc1 + sign * tension * R1, atol=TOL)


def test_crossed_belt_reverses_the_sense_and_the_tension_sign():
    """Same driver and load: the crossed belt turns pulley 2 the other way and the load's share of the tension
    (-tau_L / r2, the part that does not depend on the motion) is the same, the inertial share reversed."""
    open_, crossed = (simulate(model_from_data(belt_data(c)), rtol=1e-11, atol=1e-12).columns(points=())
                      for c in (False, True))
    np.testing.assert_allclose(crossed["q.p2.phi"], -open_["q.p2.phi"], atol=TOL)
    np.testing.assert_allclose((open_["reaction.belt.tension"] + crossed["reaction.belt.tension"]) / 2,
                               -TAU_L / R2, atol=TOL)


@pytest.mark.parametrize("crossed,r2", [(False, 0.75), (True, 0.55)])
def test_overlapping_pulleys_are_refused(crossed, r2):
    """Centre distance 0.608 m: an open belt needs it above |r1 - r2|, a crossed one above r1 + r2."""
    data = copy.deepcopy(belt_data(crossed))
    data["joints"][2]["radius2"] = r2
    with pytest.raises(ModelError) as info:
        model_from_data(data)
    d = info.value.diagnostics[0]
    assert d.pointer == "/joints/2/radius2" and "'a1'" in d.message and "'a2'" in d.message
    assert f"{math.hypot(0.6, 0.1):.6g} m" in d.message and "overlap" in d.message
