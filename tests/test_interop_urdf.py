"""URDF import (core/interop/urdf.py): the imported three-axis arm against the same arm written by hand in link
frames, the rpy/xyz frame composition against hand computations, and every diagnostic.

The mass matrices are compared in joint coordinates: every hinge is driven (angle = theta_k + omega_k t), the
mechanism assembled at t = 0 (Newton, 1e-12) and its velocities solved from C q' = -xi; with omega = e_k the
velocity is q'_k = (dq/dtheta) e_k and M_red[k, l] = q'_k^T M(q) q'_l. The hand-built arm uses the URDF link frames
(quaternions Rx(90 deg), inertia tensors turned by hand), the import world-parallel frames, so the two maximal
mass matrices differ and only the physics agrees: 1e-12 relative (rounding of the assembled poses, ~1e-15)."""
from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mechstudio.core.errors import ModelError
from mechstudio.core.interop.urdf import model_from_urdf, rpy_matrix
from mechstudio.core.model import model_from_data
from mechstudio.core.simulate import initial_state
from mechstudio.core.systems.compile import compile_model

ROOT = Path(__file__).resolve().parents[1]
ARM = ROOT / "sample_models" / "imports" / "three_axis_arm.urdf"
S = math.sqrt(0.5)


def hand_built_arm() -> dict:
    """The arm of three_axis_arm.urdf written by hand, bodies in their URDF link frames."""
    a, b, c, d = 0.006, 0.0062, 0.0008, 0.0002  # forearm's inertial, turned by Ry(90 deg): [[c,0,0],[0,b,-d],[0,-d,a]]
    return {
        "format": "mechanism-studio-model", "version": 1, "name": "arm_by_hand", "kind": "spatial",
        "gravity": [0, 0, -9.81], "ground": {"points": {"W": [0, 0, 0.1]}},
        "bodies": [
            {"name": "turret", "mass": 2.0, "com": [0.01, 0, 0.15],
             "inertia": [[0.02, 0.001, -0.002], [0.001, 0.025, 0.0005], [-0.002, 0.0005, 0.006]],
             "points": {"W": [0, 0, 0], "S": [0, 0, 0.3]},
             "initial": {"x": 0, "y": 0, "z": 0.1, "quaternion": [1, 0, 0, 0]}},
            {"name": "upper_arm", "mass": 1.5, "com": [0.2, 0.005, 0],
             "inertia": [[0.001, 0.0004, 0], [0.0004, 0.02, 0], [0, 0, 0.021]],
             "points": {"S": [0, 0, 0], "E": [0.4, 0, 0]},
             "initial": {"x": 0, "y": 0, "z": 0.4, "quaternion": [S, S, 0, 0]}},
            {"name": "forearm", "mass": 0.8, "com": [0.15, 0, 0.002],
             "inertia": [[c, 0, 0], [0, b, -d], [0, -d, a]],
             "points": {"E": [0, 0, 0], "G": [0.3, 0, 0]},
             "initial": {"x": 0.4, "y": 0, "z": 0.4, "quaternion": [S, S, 0, 0]}},
            {"name": "gripper", "mass": 0.4, "com": [0.03, 0, 0],
             "inertia": [[0.0002, 0, 0], [0, 0.0003, 0], [0, 0, 0.0003]],
             "points": {"G": [0, 0, 0]},
             "initial": {"x": 0.7, "y": 0, "z": 0.4, "quaternion": [S, S, 0, 0]}}],
        "joints": [
            {"name": "waist", "type": "hinge", "body1": "ground", "point1": "W", "body2": "turret", "point2": "W",
             "axis1": [0, 0, 1], "axis2": [0, 0, 1]},
            {"name": "shoulder", "type": "hinge", "body1": "turret", "point1": "S", "body2": "upper_arm",
             "point2": "S", "axis1": [0, -1, 0], "axis2": [0, 0, 1]},
            {"name": "elbow", "type": "hinge", "body1": "upper_arm", "point1": "E", "body2": "forearm",
             "point2": "E", "axis1": [0, 0, 1], "axis2": [0, 0, 1]},
            {"name": "grip", "type": "fixed_joint", "body1": "forearm", "point1": "G", "body2": "gripper",
             "point2": "G", "axis1": [0, 0, 1], "axis2": [0, 0, 1]}]}


def reduced_mass_matrix(doc: dict, hinges: list[str], theta: list[float]) -> np.ndarray:
    """M_red(theta) in joint coordinates (module docstring)."""
    cols = []
    for k in range(len(hinges)):
        d = copy.deepcopy(doc)
        for j in d["joints"]:
            if j["name"] in hinges:
                i = hinges.index(j["name"])
                j["angle"] = {"type": "constant_speed", "initial": theta[i], "speed": 1.0 if i == k else 0.0}
        system = compile_model(model_from_data(d))
        state = initial_state(system)
        assert state.status.ok, state.message
        cols.append((state.q, state.v, system))
    q, _, system = cols[0]
    for qk, _, _ in cols:
        assert np.abs(qk - q).max() < 1e-13
    V = np.array([v for _, v, _ in cols])
    return V @ system.mass_matrix(q, 0.0) @ V.T


def import_text(text: str, name: str = "t.urdf") -> tuple[dict, list]:
    return model_from_urdf(text, name)


@pytest.mark.parametrize("theta", [[0.0, 0.0, 0.0], [0.3, -0.7, 1.1], [2.5, 1.2, -2.0]])
def test_imported_arm_has_the_hand_built_mass_matrix(theta):
    doc, _ = import_text(ARM.read_text(), str(ARM))
    hinges = ["waist", "shoulder", "elbow"]
    M_import = reduced_mass_matrix(doc, hinges, theta)
    M_hand = reduced_mass_matrix(hand_built_arm(), hinges, theta)
    assert np.abs(M_import - M_hand).max() < 1e-12 * np.abs(M_hand).max()
    assert np.abs(M_import - M_import.T).max() < 1e-14
    assert abs(M_hand[1, 2]) > 1e-3  # the coupling of shoulder and elbow is there (not a trivially diagonal case)


def test_arm_imports_with_its_conventions_reported():
    doc, diags = import_text(ARM.read_text(), "three_axis_arm.urdf")
    text = [d.format() for d in diags]
    assert any("root link 'base_link' is fixed to the ground" in t for t in text)
    assert any("three_axis_arm.urdf:76:/robot[three_axis_arm]/joint[tool_mount]" in t and "merged" in t
               for t in text)
    assert {b["name"] for b in doc["bodies"]} == {"turret", "upper_arm", "forearm", "gripper"}
    types = {j["name"]: j["type"] for j in doc["joints"]}
    assert types == {"waist": "hinge", "shoulder": "hinge", "elbow": "hinge", "gripper_mount": "fixed_joint"}
    assert next(j for j in doc["joints"] if j["name"] == "waist")["damping"] == 0.05
    # the initial pose is every joint at 0: the joint coordinates of the compiled model are 0
    system = compile_model(model_from_data(doc))
    state = initial_state(system)
    coords = system.joint_coordinates(state.q[None])
    assert max(abs(v[0]) for v in coords.values()) < 1e-12


def test_rpy_is_fixed_axis_roll_pitch_yaw():
    rpy = np.array([0.3, -0.4, 1.2])
    # scipy's lower-case "xyz" sequence is extrinsic (fixed axes): URDF's convention
    assert np.abs(rpy_matrix(rpy) - Rotation.from_euler("xyz", rpy).as_matrix()).max() < 1e-15
    # by hand: roll 90 deg then yaw 90 deg (fixed axes) maps x -> y, y -> z, z -> x
    assert np.abs(rpy_matrix([math.pi / 2, 0, math.pi / 2]) - np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0]])).max() \
        < 1e-15


CHAIN = """<robot name="chain">
  <link name="base"/>
  <joint name="j1" type="continuous"><parent link="base"/><child link="a"/>
    <origin xyz="0.1 0.2 0.3" rpy="1.5707963267948966 0 1.5707963267948966"/><axis xyz="0 1 0"/></joint>
  <link name="a"><inertial><origin xyz="0 0 0.5"/><mass value="1"/>
    <inertia ixx="0.1" iyy="0.2" izz="0.3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j2" type="prismatic"><parent link="a"/><child link="b"/>
    <origin xyz="1 0 0" rpy="0 0 0"/><axis xyz="0 0 2"/><limit lower="0" upper="1" effort="1" velocity="1"/></joint>
  <link name="b"><inertial><mass value="2"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
</robot>"""


def test_frames_compose_parent_to_child_as_by_hand():
    doc, _ = import_text(CHAIN)
    bodies = {b["name"]: b for b in doc["bodies"]}
    joints = {j["name"]: j for j in doc["joints"]}
    # R1 = rpy(90, 0, 90) maps x -> y, y -> z, z -> x (test above); frame a at (0.1, 0.2, 0.3)
    a, b = bodies["a"], bodies["b"]
    assert [a["initial"][k] for k in "xyz"] == pytest.approx([0.1, 0.2, 0.3], abs=1e-15)
    assert a["com"] == pytest.approx([0.5, 0, 0], abs=1e-15)  # R1 (0, 0, 0.5)
    assert np.allclose(a["inertia"], np.diag([0.3, 0.1, 0.2]), atol=1e-15)  # R1 diag(.1,.2,.3) R1^T
    assert joints["j1"]["axis1"] == pytest.approx([0, 0, 1], abs=1e-15)  # R1 (0, 1, 0)
    # frame b = frame a + R1 (1, 0, 0) = (0.1, 1.2, 0.3); slider axis R1 (0, 0, 1) (normalised)
    assert [b["initial"][k] for k in "xyz"] == pytest.approx([0.1, 1.2, 0.3], abs=1e-15)
    assert joints["j2"]["type"] == "slider"
    assert joints["j2"]["axis1"] == pytest.approx([1, 0, 0], abs=1e-15)
    assert doc["ground"]["points"]["j1"] == pytest.approx([0.1, 0.2, 0.3])
    assert a["points"]["j2"] == pytest.approx([0, 1, 0], abs=1e-15)


def wrap(body: str) -> str:
    return f'<robot name="r"><link name="base"/>{body}</robot>'


LINK = '<link name="{n}"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" ' \
       'iyz="0"/></inertial></link>'


def joint(kind: str, child: str = "a", parent: str = "base", inner: str = "") -> str:
    return f'<joint name="j_{child}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>{inner}</joint>'


def messages(text: str) -> list[str]:
    try:
        _, diags = import_text(text)
    except ModelError as exc:
        diags = exc.diagnostics
    return [d.format() for d in diags]


@pytest.mark.parametrize("kind", ["floating", "planar"])
def test_floating_and_planar_joints_are_refused(kind):
    with pytest.raises(ModelError) as err:
        import_text(wrap(joint(kind) + LINK.format(n="a")))
    d = [x for x in err.value.diagnostics if x.severity == "error"]
    assert len(d) == 1 and d[0].pointer == "/robot[r]/joint[j_a]" and f"joint type {kind!r} is not supported" in \
        d[0].message


@pytest.mark.parametrize("inner, expected", [
    ('<limit lower="-1" upper="1" effort="2" velocity="3"/>', ["position limits lower=-1 upper=1 are not modelled",
                                                               "effort and velocity limits ignored"]),
    ('<mimic joint="x" multiplier="2"/>', ["<mimic> ignored", "without <limit>"]),
    ('<limit effort="1" velocity="1"/><dynamics damping="0.1" friction="0.2"/>',
     ["Coulomb friction is not modelled"]),
    ('<limit lower="0" upper="1" effort="1" velocity="1"/><safety_controller k_velocity="1"/>',
     ["<safety_controller> ignored"]),
])
def test_joint_warnings(inner, expected):
    out = messages(wrap(joint("revolute", inner=inner) + LINK.format(n="a")))
    for e in expected:
        assert any(e in m and "warning" in m for m in out), (e, out)


def test_link_and_file_level_diagnostics():
    mesh = '<link name="a"><visual><geometry><mesh filename="x.stl"/></geometry></visual>' \
           '<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>'
    out = messages(wrap(joint("continuous") + mesh + '<transmission name="t"/><gazebo/>'))
    assert any("/link[a]/visual/geometry/mesh" in m and "mesh not drawn" in m for m in out)
    assert any("<transmission> ignored" in m for m in out) and any("<gazebo> ignored" in m for m in out)
    # a massless leaf on a moving joint is dropped; a massless link carrying others is refused
    out = messages(wrap(joint("continuous") + '<link name="a"/>'))
    assert any("body 'a' dropped" in m for m in out)
    out = messages(wrap(joint("continuous") + '<link name="a"/>' + joint("continuous", "b", "a") + LINK.format(n="b")))
    assert any("error: body 'a' has no mass but carries other bodies" in m for m in out)
    # renamed names, point mass
    out = messages(wrap(joint("continuous", "a b") + '<link name="a b"><inertial><mass value="1"/></inertial></link>'))
    assert any("link 'a b' renamed 'a_b'" in m for m in out) and any("point mass" in m for m in out)


@pytest.mark.parametrize("text, expected", [
    (wrap(joint("slinky") + LINK.format(n="a")), "unknown joint type 'slinky'"),
    (wrap(joint("fixed", child="nowhere")), "undefined link 'nowhere'"),
    (wrap(joint("fixed") + joint("fixed", parent="a", child="a") + LINK.format(n="a")), "is the child of two"),
    (wrap(LINK.format(n="a")), "expected one root link"),
    (wrap(joint("continuous", inner='<axis xyz="0 0 0"/>') + LINK.format(n="a")), "zero joint axis"),
    (wrap(joint("continuous", inner='<axis xyz="0 zero 1"/>') + LINK.format(n="a")), "expected numbers"),
    (wrap(joint("continuous", inner='<origin xyz="0 1"/>') + LINK.format(n="a")), "expected 3 finite numbers"),
    (wrap(joint("continuous") + '<link name="a"><inertial><mass value="-1"/></inertial></link>'), "negative mass"),
    (wrap('<joint name="j" type="fixed"><parent link="base"/></joint>'), "joint without <parent"),
    ("<robt/>", "root element <robt>"),
])
def test_errors_name_the_element(text, expected):
    with pytest.raises(ModelError) as err:
        import_text(text)
    assert any(expected in d.message and d.severity == "error" for d in err.value.diagnostics), \
        [d.format() for d in err.value.diagnostics]


def test_bad_xml_names_file_line_and_problem():
    with pytest.raises(ModelError) as err:
        import_text('<robot name="r">\n  <link name="a">\n</robot>\n', "bad.urdf")
    (d,) = err.value.diagnostics
    assert d.file == "bad.urdf:3" and "mismatched tag" in d.message


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mechstudio", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_command_imports_urdf_by_content(tmp_path):
    src = tmp_path / "arm.txt"  # the kind comes from the content, not the suffix
    src.write_text(ARM.read_text())
    res = run_cli("import", str(src), "--out", "arm.json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "root link 'base_link' is fixed to the ground" in res.stderr
    doc = json.loads((tmp_path / "arm.json").read_text())
    assert len(doc["bodies"]) == 4
    (tmp_path / "bad.urdf").write_text("<robot>\n<link>\n</robot>")
    res = run_cli("import", "bad.urdf", "--out", "x.json", cwd=tmp_path)
    assert res.returncode == 2 and "bad.urdf:3" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "x.json").exists()
