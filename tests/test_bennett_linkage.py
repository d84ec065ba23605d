"""The Bennett linkage: a spatial four-bar of four hinges that moves although Gruebler's count gives it -2 degrees of
freedom (its 20 hinge rows hold 3 redundant ones at every pose), run by the projection formulation in maximal
coordinates (docs/spatial-joints.md) with the first hinge driven.

Geometry (Denavit-Hartenberg, joint frames F_{i+1} = F_i Rz(theta_i) Tx(L_i) Rx(alpha_i), F_1 = the ground's):
opposite links equal, L = (a, b, a, b), twists (alpha, beta, alpha, beta), no offsets, and Bennett's condition
a / sin(alpha) = b / sin(beta). Its closure (G. T. Bennett, *A new mechanism*, Engineering 76, 1903; J. M. McCarthy
and G. S. Soh, *Geometric Design of Linkages*, 2nd ed., §9.5):

    tan(theta_1 / 2) tan(theta_2 / 2) = sin((beta + alpha) / 2) / sin((beta - alpha) / 2),
    theta_3 = 2 pi - theta_1,  theta_4 = 2 pi - theta_2,

checked here first by composing the four transforms (the chain closes to 1e-12). The test compares the second
hinge's angle of the simulated linkage with this closed form over a second of motion: the changes of the joint
angle columns from their start (the columns' zero is the joints' reference directions, not the DH zero) to 1e-8 rad
(the run's rtol is 1e-10 and its positions are projected onto the constraints at every output).
"""
from __future__ import annotations

import math

import numpy as np

from mechstudio.core.model import model_from_data
from mechstudio.core.numerics.orientation import matrix_to_quat
from mechstudio.core.simulate import simulate
from tests.spatial_joint_models import document, rod

A_LEN, ALPHA, BETA = 0.5, math.radians(40.0), math.radians(70.0)
B_LEN = A_LEN * math.sin(BETA) / math.sin(ALPHA)
LENGTHS, TWISTS = (A_LEN, B_LEN, A_LEN, B_LEN), (ALPHA, BETA, ALPHA, BETA)
K = math.sin((BETA + ALPHA) / 2) / math.sin((BETA - ALPHA) / 2)
#: [rad], [rad/s]: the first hinge turns from 0.4 to 2.8 rad in a second, short of theta_1 = pi, where theta_2 = 0 and
#: the linkage passes its singular (folded) pose
THETA1_0, OMEGA = 0.4, 2.4
ANGLE_TOL = 1e-8


def transform(rot_z: float, length: float, twist: float) -> np.ndarray:
    c, s, ct, st = math.cos(rot_z), math.sin(rot_z), math.cos(twist), math.sin(twist)
    z = np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])
    x = np.array([[1, 0, 0, length], [0, ct, -st, 0], [0, st, ct, 0], [0, 0, 0, 1.0]])
    return z @ x


def theta2(theta1: np.ndarray | float) -> np.ndarray:
    return 2 * np.arctan(K / np.tan(np.asarray(theta1) / 2))


def joint_angles(theta1: float) -> list[float]:
    t2 = float(theta2(theta1))
    return [theta1, t2, 2 * math.pi - theta1, 2 * math.pi - t2]


def link_frames(theta1: float) -> list[np.ndarray]:
    """The frames B_i = F_i Rz(theta_i) of links 1..4 (link 4 is the ground's)."""
    F, frames = np.eye(4), []
    for th, L, tw in zip(joint_angles(theta1), LENGTHS, TWISTS):
        frames.append(F @ transform(th, 0.0, 0.0))
        F = F @ transform(th, L, tw)
    return frames


def test_the_closed_form_closes_the_chain() -> None:
    for t1 in (0.4, 1.1, 2.3, 3.0):
        F = np.eye(4)
        for th, L, tw in zip(joint_angles(t1), LENGTHS, TWISTS):
            F = F @ transform(th, L, tw)
        assert np.abs(F - np.eye(4)).max() < 1e-12


def bennett_model() -> dict:
    frames = link_frames(THETA1_0)
    bodies = []
    for i in range(3):
        B = frames[i]
        L, tw = LENGTHS[i], TWISTS[i]
        body = rod(f"link{i + 1}", 0.4, L, axis=0, com=(L / 2, 0.0, 0.0),
                   points={"near": [0.0, 0.0, 0.0], "far": [L, 0.0, 0.0]},
                   initial={"x": B[0, 3], "y": B[1, 3], "z": B[2, 3],
                            "quaternion": list(matrix_to_quat(B[:3, :3]))})
        bodies.append(body)
    far_axis = [[0.0, -math.sin(tw), math.cos(tw)] for tw in TWISTS]
    F4 = frames[3]
    joints = [{"name": "J1", "type": "hinge", "body1": "ground", "point1": "O", "body2": "link1", "point2": "near",
               "axis1": [0, 0, 1], "axis2": [0, 0, 1],
               "angle": {"type": "constant_speed", "initial": THETA1_0, "speed": OMEGA}}]
    for i in (1, 2):
        joints.append({"name": f"J{i + 1}", "type": "hinge", "body1": f"link{i}", "point1": "far",
                       "body2": f"link{i + 1}", "point2": "near", "axis1": far_axis[i - 1], "axis2": [0, 0, 1]})
    joints.append({"name": "J4", "type": "hinge", "body1": "link3", "point1": "far", "body2": "ground",
                   "point2": "Q", "axis1": far_axis[2], "axis2": list(F4[:3, 2])})
    return document("bennett", bodies, joints, {"O": [0.0, 0.0, 0.0], "Q": list(F4[:3, 3])}, t_end=1.0, dt=0.02)


def test_the_simulated_bennett_linkage_follows_bennetts_closure() -> None:
    traj = simulate(model_from_data(bennett_model()))
    assert traj.status.ok, traj.message
    cols = traj.columns()
    t = np.asarray(cols["t"])
    t1 = THETA1_0 + OMEGA * t
    a1, a2 = np.asarray(cols["joint.J1.angle"]), np.asarray(cols["joint.J2.angle"])
    np.testing.assert_allclose(a1 - a1[0], OMEGA * t, atol=ANGLE_TOL)
    expected = np.unwrap(theta2(t1))
    np.testing.assert_allclose(a2 - a2[0], expected - expected[0], atol=ANGLE_TOL)
    assert np.ptp(expected) > 1.0  # the second hinge really turns (more than a radian)
