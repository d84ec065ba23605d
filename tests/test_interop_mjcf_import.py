"""MJCF import (core/interop/mjcf_import.py).

* Against MuJoCo (optional): sample_models/imports/double_pendulum.xml (tilted hinge axes, a full inertia tensor,
  mass from capsules/sphere/box/cylinder geoms, a spring with springref and ref in degrees, a damper, zyx Euler
  angles, default classes) run in MuJoCo (RK4, h = 1e-4 s: error ~ h^4, negligible) and here (projection, DOP853
  rtol 1e-12): the centres of mass agree to 1e-8 m after 1 s (measured ~1e-12 m; the bodies move by decimetres,
  so a wrong frame, axis, inertia or spring shows as millimetres). MuJoCo runs in this interpreter when it has
  ``mujoco``, else through tests/mujoco_reference.py under $PEERS_PYTHON (or ROOT/.venv-peers); skipped without.
* Without MuJoCo: a planar double pendulum in MJCF (hinges about y, products of inertia that do not act on that
  motion) against the same pendulum written by hand as a planar model (revolute joints, planar equations: an
  independent formulation) to 1e-8 m after 1 s; a free body falling z = z0 - g t^2/2; geom mass properties against
  their textbook formulas; every orientation form against the same rotation; default classes; every diagnostic.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mechstudio.core.errors import ModelError
from mechstudio.core.interop.mjcf_import import model_from_mjcf
from mechstudio.core.interop.robot_import import import_robot
from mechstudio.core.model import model_from_data
from mechstudio.core.simulate import simulate

ROOT = Path(__file__).resolve().parents[1]
PENDULUM = ROOT / "sample_models" / "imports" / "double_pendulum.xml"
G = 9.81


def mujoco_runner() -> list[str] | None:
    """The command that runs tests/mujoco_reference.py with MuJoCo, or None."""
    try:
        import mujoco  # noqa: F401  (optional test dependency)
        return [sys.executable]
    except ImportError:
        pass
    peers = os.environ.get("PEERS_PYTHON", str(ROOT / ".venv-peers" / "bin" / "python"))
    if Path(peers).exists():
        ok = subprocess.run([peers, "-c", "import mujoco"], capture_output=True).returncode == 0
        if ok:
            return [peers]
    return None


def com_positions(doc: dict, names: list[str], t_end: float) -> np.ndarray:
    """World centres of mass (start, end) of our run of ``doc``."""
    traj = simulate(model_from_data(doc), t_end=t_end, dt=t_end / 2, rtol=1e-12, atol=1e-13)
    assert traj.status.ok, traj.message
    q, names_q = traj.frames.q, traj.system.coord_names
    return np.array([[[q[i, names_q.index(f"{n}.{c}")] for c in "xyz"] for n in names] for i in (0, -1)])


def test_double_pendulum_runs_as_in_mujoco():
    runner = mujoco_runner()
    if runner is None:
        pytest.skip("MuJoCo is not installed (pip install mujoco, or set PEERS_PYTHON to a venv that has it)")
    names = ["upper", "lower"]
    out = subprocess.run([*runner, str(ROOT / "tests" / "mujoco_reference.py"), str(PENDULUM), "1.0", *names],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    ref = json.loads(out.stdout)
    doc, _ = model_from_mjcf(PENDULUM.read_text(), str(PENDULUM))
    assert [b["mass"] for b in doc["bodies"]] == pytest.approx(ref["mass"], rel=1e-14)
    for b, principal in zip(doc["bodies"], ref["inertia"]):  # MuJoCo keeps the principal moments
        assert np.sort(np.linalg.eigvalsh(b["inertia"])) == pytest.approx(np.sort(principal), rel=1e-10)
    ours = com_positions(doc, names, 1.0)
    assert np.abs(ours[0] - ref["start"]).max() < 1e-12
    assert np.abs(np.array(ref["end"]) - ref["start"]).max() > 0.1  # it moved
    assert np.abs(ours[1] - ref["end"]).max() < 1e-8


PLANAR_MJCF = """<mujoco model="planar">
  <compiler angle="radian"/>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="j1" type="hinge" axis="0 -1 0"/>
      <inertial pos="0.3 0.02 0" mass="1.5" fullinertia="0.01 0.03 0.03 0.002 0 0.002"/>
      <body name="lower" pos="0.6 0 0">
        <joint name="j2" type="hinge" axis="0 1 0" pos="0 0 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.03" density="700"/>
        <geom type="sphere" pos="0 0 -0.4" size="0.05" mass="0.6"/>
      </body>
    </body>
  </worldbody>
</mujoco>"""


def planar_by_hand() -> dict:
    """PLANAR_MJCF as a planar model: world (x, z) -> plane (x, y), inertia about the hinge axis y."""
    rho, r, h = 700.0, 0.03, 0.2
    mc, ms = rho * math.pi * r * r * 2 * h, rho * 4 / 3 * math.pi * r ** 3
    cap = mc + ms
    i_cap = mc * (3 * r * r + 4 * h * h) / 12 + ms * (2 / 5 * r * r + h * h + 3 * r * h / 4)  # about its centre
    m_ball, i_ball = 0.6, 2 / 5 * 0.6 * 0.05 ** 2
    m = cap + m_ball
    yc = (cap * -0.2 + m_ball * -0.4) / m
    inertia = i_cap + cap * (yc + 0.2) ** 2 + i_ball + m_ball * (yc + 0.4) ** 2
    return {"format": "mechanism-studio-model", "version": 1, "name": "planar_by_hand", "gravity": [0, -G],
            "ground": {"points": {"O": [0, 1]}},
            "bodies": [{"name": "upper", "mass": 1.5, "inertia": 0.03, "com": [0.3, 0],
                        "points": {"O": [0, 0], "E": [0.6, 0]}, "initial": {"x": 0, "y": 1, "phi": 0}},
                       {"name": "lower", "mass": m, "inertia": inertia, "com": [0, yc], "points": {"E": [0, 0]},
                        "initial": {"x": 0.6, "y": 1, "phi": 0}}],
            "joints": [{"name": "j1", "type": "revolute", "body1": "ground", "point1": "O", "body2": "upper",
                        "point2": "O"},
                       {"name": "j2", "type": "revolute", "body1": "upper", "point1": "E", "body2": "lower",
                        "point2": "E"}]}


def test_planar_double_pendulum_agrees_with_the_planar_model():
    doc, _ = model_from_mjcf(PLANAR_MJCF, "planar.xml")
    ours = com_positions(doc, ["upper", "lower"], 1.0)
    traj = simulate(model_from_data(planar_by_hand()), t_end=1.0, dt=0.5, rtol=1e-12, atol=1e-13)
    assert traj.status.ok, traj.message
    q, names = traj.frames.q, traj.system.coord_names
    planar = np.array([[[q[i, names.index(f"{n}.{c}")] for c in "xy"] for n in ("upper", "lower")] for i in (0, -1)])
    assert np.abs(ours[..., [0, 2]] - planar).max() < 1e-8
    assert np.abs(ours[-1, :, [0, 2]].T - ours[0, :, [0, 2]].T).max() > 0.1  # it swung
    assert np.abs(ours[..., 1] - np.array([0.02, 0.0])).max() < 1e-9  # y stays (the products of inertia act
    # only on the bearing loads)


def test_free_body_falls_freely():
    text = """<mujoco><option gravity="0 0 -9.81"/><worldbody>
      <body name="arm" pos="0 0 2"><joint type="hinge" axis="1 0 0"/><geom type="sphere" size="0.1"
        pos="0 0 -0.5"/></body>
      <body name="ball" pos="1 0 3" euler="10 20 30"><freejoint/><geom type="box" size="0.1 0.2 0.3"/></body>
    </worldbody></mujoco>"""
    result = import_robot(text, "free.xml")
    assert {j["name"] for j in result.document["joints"]} == {"arm_hinge"}  # the free body has no joint
    ours = com_positions(result.document, ["ball"], 0.5)
    assert ours[1, 0] == pytest.approx([1, 0, 3 - G * 0.25 / 2], abs=1e-10)


def test_geom_mass_properties_follow_the_formulas():
    text = """<mujoco><compiler angle="radian"/><worldbody><body name="b"><joint/>
      <geom type="box" size="0.1 0.2 0.3" density="500"/>
      </body><body name="c" pos="1 0 0"><joint/><geom type="cylinder" size="0.1 0.25" mass="2" pos="0 0 0.1"/>
      <geom type="ellipsoid" size="0.1 0.2 0.3" pos="0 0 -0.1" density="100"/></body></worldbody></mujoco>"""
    doc, _ = model_from_mjcf(text, "m.xml")
    b, c = doc["bodies"]
    m = 500 * 0.2 * 0.4 * 0.6
    assert b["mass"] == pytest.approx(m, rel=1e-14)
    assert np.diag(b["inertia"]) == pytest.approx(m / 12 * np.array([0.4 ** 2 + 0.6 ** 2, 0.2 ** 2 + 0.6 ** 2,
                                                                        0.2 ** 2 + 0.4 ** 2]), rel=1e-13)
    me = 100 * 4 / 3 * math.pi * 0.1 * 0.2 * 0.3
    assert c["mass"] == pytest.approx(2 + me, rel=1e-14)
    zc = (2 * 0.1 + me * -0.1) / (2 + me)
    assert c["com"] == pytest.approx([0, 0, zc], abs=1e-15)
    izz = 2 * 0.1 ** 2 / 2 + me * (0.1 ** 2 + 0.2 ** 2) / 5
    ixx = 2 * (3 * 0.01 + 0.25) / 12 + 2 * (0.1 - zc) ** 2 + me * (0.2 ** 2 + 0.3 ** 2) / 5 + me * (0.1 + zc) ** 2
    assert c["inertia"][2][2] == pytest.approx(izz, rel=1e-13)
    assert c["inertia"][0][0] == pytest.approx(ixx, rel=1e-13)


ORIENTATIONS = ['quat="0.7071067811865476 0 0 0.7071067811865476"', 'axisangle="0 0 1 90"', 'euler="0 0 90"',
                'xyaxes="0 1 0 -1 0 0"', 'euler="90 0 0" ', 'euler="0 0 1.5707963267948966" RAD']


@pytest.mark.parametrize("orient", ORIENTATIONS)
def test_orientation_forms(orient):
    compiler = '<compiler angle="radian"/>' if orient.endswith("RAD") else \
        ('<compiler eulerseq="zyx"/>' if orient.startswith('euler="90') else "")
    orient = orient.replace("RAD", "")
    text = f"""<mujoco>{compiler}<worldbody><body name="a" {orient}><joint/><geom size="0.1"/>
      <body name="b" pos="1 0 0"><joint/><geom size="0.1"/></body></body></worldbody></mujoco>"""
    doc, _ = model_from_mjcf(text, "o.xml")
    b = doc["bodies"][1]["initial"]
    assert [b["x"], b["y"], b["z"]] == pytest.approx([0, 1, 0], abs=1e-15)  # (1, 0, 0) turned 90 deg about z


def test_euler_sequences_and_zaxis():
    def child_pos(attr: str, compiler: str = "") -> list[float]:
        doc, _ = model_from_mjcf(f"""<mujoco><compiler angle="radian" {compiler}/><worldbody><body name="a"
            {attr}><joint/><geom size="0.1"/><body name="b" pos="0.1 0.2 0.3"><joint/><geom size="0.1"/></body>
            </body></worldbody></mujoco>""", "e.xml")
        b = doc["bodies"][1]["initial"]
        return [b["x"], b["y"], b["z"]]
    # fixed axes X, Y, Z by (a, b, c) = rotating axes z, y, x by (c, b, a)
    assert child_pos('euler="0.3 0.5 0.7"', 'eulerseq="XYZ"') == pytest.approx(
        child_pos('euler="0.7 0.5 0.3"', 'eulerseq="zyx"'), abs=1e-15)
    assert child_pos('euler="0.3 0.5 0.7"', 'eulerseq="XYZ"') != pytest.approx(
        child_pos('euler="0.3 0.5 0.7"', 'eulerseq="xyz"'), abs=1e-3)
    # zaxis (1, 0, 0): the shortest rotation from z, i.e. 90 deg about y
    assert child_pos('zaxis="1 0 0"') == pytest.approx(child_pos('axisangle="0 1 0 1.5707963267948966"'), abs=1e-15)


def test_default_classes_nest_and_childclass_applies():
    text = """<mujoco><default><joint axis="1 0 0" damping="0.1"/><geom size="0.1"/>
        <default class="a"><joint damping="0.2"/><default class="b"><joint stiffness="3"/></default></default>
      </default><worldbody>
        <body name="p"><joint name="j0"/><geom/></body>
        <body name="q" childclass="b"><joint name="j1"/><geom/>
          <body name="r"><joint name="j2" class="a"/><geom/></body></body>
      </worldbody></mujoco>"""
    doc, _ = model_from_mjcf(text, "d.xml")
    j = {x["name"]: x for x in doc["joints"]}
    assert j["j0"]["damping"] == 0.1 and "spring" not in j["j0"] and j["j0"]["axis1"] == [1, 0, 0]
    assert j["j1"]["damping"] == 0.2 and j["j1"]["spring"] == 3
    assert j["j2"]["damping"] == 0.2 and "spring" not in j["j2"]


def test_joint_pairs_become_cylindrical_and_universal():
    text = """<mujoco><worldbody><body name="a" pos="0 0 1"><geom size="0.1"/>
        <joint name="turn" type="hinge" axis="0 0 1" stiffness="1"/><joint name="lift" type="slide" axis="0 0 -1"
          stiffness="5" springref="0.2"/>
        <body name="b" pos="0 0 -0.5"><geom size="0.1"/><joint name="u1" axis="1 0 0"/><joint name="u2"
          axis="0 1 0"/></body></body></worldbody></mujoco>"""
    doc, diags = model_from_mjcf(text, "p.xml")
    j = {x["name"]: x for x in doc["joints"]}
    assert j["turn"]["type"] == "cylindrical" and j["turn"]["spring"] == 1 and j["turn"]["linear_spring"] == 5
    assert j["turn"]["free_length"] == pytest.approx(-0.2)  # the slide along -z, measured along the hinge's +z
    assert j["u1"]["type"] == "universal" and j["u1"]["axis1"] == [1, 0, 0] and j["u1"]["axis2"] == [0, 1, 0]
    assert sum("imported as one" in d.message for d in diags) == 2
    traj = simulate(model_from_data(doc), t_end=0.2, dt=0.1)
    assert traj.status.ok, traj.message


def test_equality_connect_closes_a_loop():
    text = """<mujoco><worldbody>
        <body name="crank" pos="0 0 0"><joint axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.2 0 0"
          size="0.02"/>
          <body name="coupler" pos="0.2 0 0"><joint axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.6 0 0.3"
            size="0.02"/></body></body>
        <body name="rocker" pos="0.8 0 0"><joint axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0 0 0.3"
          size="0.02"/></body></worldbody>
      <equality><connect body1="coupler" body2="rocker" anchor="0.6 0 0.3"/></equality></mujoco>"""
    result = import_robot(text, "loop.xml")
    loop = result.document["joints"][-1]
    assert loop["type"] == "spherical" and (loop["body1"], loop["body2"]) == ("coupler", "rocker")
    traj = simulate(result.model, t_end=0.3, dt=0.1)
    assert traj.status.ok, traj.message


def messages(text: str) -> list[str]:
    try:
        _, diags = model_from_mjcf(text, "x.xml")
    except ModelError as exc:
        diags = exc.diagnostics
    return [d.format() for d in diags]


def body(inner: str, outer: str = "") -> str:
    return f'<mujoco>{outer}<worldbody><body name="b" pos="0 0 1">{inner}<geom size="0.1"/></body></worldbody>' \
           f'</mujoco>'


@pytest.mark.parametrize("text, expected", [
    (body('<joint range="-30 30" armature="0.1" frictionloss="0.2"/>'),
     ["range -30 30 is not modelled", "armature 0.1 is not modelled", "frictionloss 0.2 is not modelled"]),
    (body('<joint type="ball" damping="1"/>'), ["a ball joint's stiffness and damping are not imported"]),
    (body('<joint/><geom type="mesh" mesh="m"/>'), ["mesh geom not drawn and without mass"]),
    (body('<joint/>', '<actuator><motor joint="j"/></actuator><sensor><jointpos joint="j"/></sensor>'
                      '<keyframe><key qpos="0"/></keyframe>'),
     ["<actuator> ignored", "<sensor> ignored", "<keyframe> ignored"]),
    (body('<joint/><geom type="ellipsoid" size="0.1 0.2 0.3"/>'), ["ellipsoid drawn as a sphere"]),
    (body('<joint/>').replace('name="b"', 'name="b" mocap="true"'), ["mocap body 'b' is fixed to the ground"]),
    (body('<joint name="a b"/>'), ["joint 'a b' renamed 'a_b'"]),
])
def test_warnings(text, expected):
    out = messages(text)
    for e in expected:
        assert any(e in m for m in out), (e, out)


@pytest.mark.parametrize("text, expected", [
    (body('<joint/><joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 1 0"/>'), "3 joints in one body"),
    (body('<joint type="hinge"/><joint type="slide" axis="1 0 0"/>'), "2 joints in one body"),
    (body('<joint type="screw"/>'), "unknown joint type 'screw'"),
    (body('<joint axis="0 0 0"/>'), "zero joint axis"),
    (body('<joint class="nope"/>'), "unknown default class 'nope'"),
    (body('<joint/><geom type="box" size="0.1"/>'), "box geom: size needs 3 positive numbers"),
    (body('<joint/><geom type="box" size="0.1 0.1 0.1" fromto="0 0 0 1 0 0"/>'), "fromto on a box geom"),
    (body('<joint/>', '<include file="other.xml"/>'), "<include> is not supported"),
    (body('<joint/>', '<compiler coordinate="global"/>'), "coordinate=\"global\" is not supported"),
    (body('<joint/>', '<compiler angle="grad"/>'), "degree or radian"),
    (body('<joint/>', '<compiler eulerseq="xyw"/>'), "three of x, y, z"),
    (body('<joint/>').replace('pos="0 0 1"', 'pos="0 0 1" quat="1 0 0 0" euler="0 0 1"'),
     "more than one orientation"),
    (body('<joint/>').replace('pos="0 0 1"', 'pos="0 0 one"'), "expected numbers"),
    (body('<joint/><inertial pos="0 0 0"/>', '<compiler inertiafromgeom="false"/>'), "inertial needs mass and pos"),
    ('<mujoco><worldbody><body name="a"><geom size="0.1"/><joint/><body name="b"><freejoint/><geom size="0.1"/>'
     '</body></body></worldbody></mujoco>', "free joint is allowed only in a body of the world body"),
    ('<mujoco><compiler inertiafromgeom="false"/><worldbody><body name="a"><joint/><body name="b"><joint/>'
     '<geom size="0.1"/></body></body></worldbody></mujoco>', "body 'a' has no mass but carries other bodies"),
    (body('<joint/>', '<equality><connect body1="b" body2="nowhere" anchor="0 0 0"/></equality>'),
     "connect: unknown body 'nowhere'"),
    ("<mujoko/>", "root element <mujoko>"),
])
def test_errors(text, expected):
    with pytest.raises(ModelError) as err:
        model_from_mjcf(text, "x.xml")
    assert any(expected in d.message and d.severity == "error" for d in err.value.diagnostics), \
        [d.format() for d in err.value.diagnostics]


def test_bad_xml_and_unknown_roots_name_file_and_line():
    with pytest.raises(ModelError) as err:
        import_robot('<mujoco>\n<worldbody>\n<body name="a">\n</worldbody>', "bad.xml")
    assert err.value.diagnostics[0].file == "bad.xml:4" and "mismatched tag" in err.value.diagnostics[0].message
    with pytest.raises(ModelError) as err:
        import_robot("<mujoco><worldbody/></mujoco>", "empty.xml")
    assert "nothing to import" in err.value.diagnostics[-1].message
    with pytest.raises(ModelError) as err:
        import_robot("\n<sdf version='1.6'/>", "model.sdf")
    assert "expected <robot> (URDF) or <mujoco> (MJCF)" in err.value.diagnostics[0].message
    assert err.value.diagnostics[0].file == "model.sdf:2"


def test_command_imports_mjcf(tmp_path):
    res = subprocess.run([sys.executable, "-m", "mechstudio", "import", str(PENDULUM), "--out", "p.json"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "<actuator> ignored" in res.stderr and "MJCF import: 2 bodies, 2 joints" in res.stderr
    assert json.loads((tmp_path / "p.json").read_text())["name"] == "double_pendulum"
