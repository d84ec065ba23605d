"""MJCF export of models of spatial joints (core/interop/mjcf.py, maximal_to_mjcf).

* With MuJoCo (optional; tests/test_interop_mjcf_import.py's runner: this interpreter or $PEERS_PYTHON): one model
  with every joint type -- the collar pendulum (cylindrical with springs and dampers, hinge with a spring, fixed
  joint), the Cardan shaft as a tree (hinge, two universal joints, slider) with its input spinning, a spherical
  pendulum and a free body with initial velocities -- run in MuJoCo (RK4, h = 1e-4 s) and here (rtol 1e-12): the
  centres of mass agree to 1e-8 m after 0.5 s (measured ~1e-11 m; the bodies move by decimetres).
* Without MuJoCo: export -> import round trips (the URDF arm keeps the hand-built arm's mass matrix to 1e-12; the
  double pendulum runs the same to 1e-9 m), the written joints, and every refusal.
"""
from __future__ import annotations

import copy
import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from mechstudio.core.errors import ModelError
from mechstudio.core.interop.mjcf import to_mjcf
from mechstudio.core.interop.mjcf_import import model_from_mjcf
from mechstudio.core.interop.urdf import model_from_urdf
from mechstudio.core.model import model_from_data
from test_interop_mjcf_import import PENDULUM, com_positions, mujoco_runner
from test_interop_urdf import ARM, hand_built_arm, reduced_mass_matrix

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_models"


def every_joint_model() -> dict:
    """The model of the module docstring (a tree: the Cardan shaft's output bearing left out)."""
    doc = json.loads((SAMPLES / "collar_pendulum.json").read_text())
    post = doc["joints"][0]
    del post["torque"], post["force"]
    card = json.loads((SAMPLES / "cardan_shaft.json").read_text())
    doc["bodies"] += card["bodies"]
    doc["ground"]["points"]["A"] = card["ground"]["points"]["A"]
    for j in card["joints"]:
        if j["name"] != "out_bearing":
            j.pop("angle", None)
            doc["joints"].append(j)
    bodies = {b["name"]: b for b in doc["bodies"]}
    bodies["input"]["initial"]["omega"] = [6.0, 0, 0]
    bodies["bob"]["points"]["low"] = [0, 0, -0.05]
    doc["bodies"].append({"name": "ball_link", "mass": 0.2, "com": [0, 0, -0.1], "points": {"top": [0, 0, 0]},
                          "inertia": [[1e-3, 1e-4, 0], [1e-4, 2e-3, 0], [0, 0, 1.5e-3]],
                          "initial": {"x": -0.154, "y": 0, "z": -0.421, "omega": [1, 2, 0.5]}})
    doc["joints"].append({"name": "ball", "type": "spherical", "body1": "bob", "point1": "low", "body2": "ball_link",
                          "point2": "top"})
    doc["bodies"].append({"name": "puck", "mass": 0.3, "com": [0.01, 0.02, 0], "points": {},
                          "inertia": [[2e-3, 0, 2e-4], [0, 2.5e-3, 0], [2e-4, 0, 3e-3]],
                          "initial": {"x": 2, "y": 1, "z": 0.5, "quaternion": [0.9, 0.1, 0.3, 0.2],
                                      "velocity": [0.3, -0.2, 1.0], "omega": [2, -1, 3]}})
    return doc


def test_every_joint_runs_the_same_in_mujoco(tmp_path):
    runner = mujoco_runner()
    if runner is None:
        pytest.skip("MuJoCo is not installed (pip install mujoco, or set PEERS_PYTHON to a venv that has it)")
    doc = every_joint_model()
    path = tmp_path / "every_joint.xml"
    path.write_text(to_mjcf(model_from_data(doc)))
    names = [b["name"] for b in doc["bodies"]]
    script = ("import json, sys, mujoco\n"
              "m = mujoco.MjModel.from_xml_path(sys.argv[1]); d = mujoco.MjData(m)\n"
              "mujoco.mj_resetDataKeyframe(m, d, 0); mujoco.mj_forward(m, d)\n"
              "ids = [mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, n) for n in sys.argv[2:]]\n"
              "s = d.xipos[ids].tolist()\n"
              "while d.time < 0.5 - 0.5 * m.opt.timestep: mujoco.mj_step(m, d)\n"
              "print(json.dumps({'start': s, 'end': d.xipos[ids].tolist()}))\n")
    out = subprocess.run([*runner, "-c", script, str(path), *names], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    ref = json.loads(out.stdout)
    ours = com_positions(doc, names, 0.5)
    assert np.abs(ours[0] - ref["start"]).max() < 1e-12
    moved = np.abs(np.array(ref["end"]) - ref["start"]).max(axis=1)
    assert (moved > 0.1).sum() >= 7  # all but the input shaft (spinning about its axis) and the turret-like collar
    assert np.abs(ours[1] - ref["end"]).max() < 1e-8


def test_written_joints_and_keyframe():
    root = ET.fromstring(to_mjcf(model_from_data(every_joint_model())))
    joints = {j.get("name"): j for j in root.iter("joint")}
    assert {n: j.get("type") for n, j in joints.items()} == {
        "post": "hinge", "post_slide": "slide", "pivot": "hinge", "ball": "ball", "in_bearing": "hinge",
        "cross1_1": "hinge", "cross1_2": "hinge", "spline": "slide", "cross2_1": "hinge", "cross2_2": "hinge"}
    assert joints["post_slide"].get("stiffness") == "60.0" and joints["pivot"].get("stiffness") == "0.4"
    assert [f.get("name") for f in root.iter("freejoint")] == ["puck_free"]
    bob = next(b for b in root.iter("body") if b.get("name") == "bob")
    assert bob.find("joint") is None  # welded to the arm
    key = root.find("keyframe/key")
    # hinge/slide 1 each, ball 4/3, free 7/6: 10 hinges and slides, one ball, one free body
    assert len(key.get("qpos").split()) == 9 + 4 + 7 and len(key.get("qvel").split()) == 9 + 3 + 6


def test_urdf_arm_round_trip_keeps_the_mass_matrix():
    doc, _ = model_from_urdf(ARM.read_text(), str(ARM))
    back, _ = model_from_mjcf(to_mjcf(model_from_data(doc)), "arm.xml")
    hinges = ["waist", "shoulder", "elbow"]
    for theta in ([0.0, 0.0, 0.0], [0.4, -1.1, 0.8]):
        M = reduced_mass_matrix(back, hinges, theta)
        M_hand = reduced_mass_matrix(hand_built_arm(), hinges, theta)
        assert np.abs(M - M_hand).max() < 1e-12 * np.abs(M_hand).max()
    assert next(j for j in back["joints"] if j["name"] == "waist")["damping"] == 0.05


def test_double_pendulum_round_trip_runs_the_same():
    doc, _ = model_from_mjcf(PENDULUM.read_text(), str(PENDULUM))
    back, _ = model_from_mjcf(to_mjcf(model_from_data(doc)), "again.xml")
    for a, b in zip(doc["bodies"], back["bodies"]):
        assert a["mass"] == pytest.approx(b["mass"], rel=1e-14)
        assert np.abs(np.array(a["inertia"]) - b["inertia"]).max() < 1e-15
    names = ["upper", "lower"]
    assert np.abs(com_positions(doc, names, 1.0) - com_positions(back, names, 1.0)).max() < 1e-9


def test_loops_close_with_connects():
    doc = json.loads((SAMPLES / "rssr_linkage.json").read_text())
    doc["joints"][0].pop("angle")
    root = ET.fromstring(to_mjcf(model_from_data(doc)))
    assert len(root.findall("equality/connect")) in (1, 2)  # a spherical (1) or a hinge (2) closes the loop


def refused(doc: dict) -> list[str]:
    with pytest.raises(ModelError) as err:
        to_mjcf(model_from_data(doc))
    return [d.pointer for d in err.value.diagnostics]


def test_what_cannot_be_exported_is_refused_with_pointers():
    assert refused(json.loads((SAMPLES / "rssr_linkage.json").read_text())) == ["/joints/0/angle"]
    assert refused(json.loads((SAMPLES / "collar_pendulum.json").read_text())) == ["/joints/0/torque",
                                                                                 "/joints/0/force"]
    doc = every_joint_model()
    doc["forces"] = [{"name": "push", "type": "applied_force", "body": "puck", "point": [0, 0, 0],
                      "force": [1, 0, 0]}]
    assert refused(doc) == ["/forces"]
    card = json.loads((SAMPLES / "cardan_shaft.json").read_text())
    card["joints"][0].pop("angle")
    card["joints"].append(card["joints"].pop(2))  # the tree reaches mid_b by the slider: universal cross2 closes
    assert refused(copy.deepcopy(card)) == ["/joints/2"]
