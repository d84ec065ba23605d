"""Topology of spherical-joint trees: incidence/path matrices and the model checks naming the bodies (issue 4)."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from mechstudio.core.errors import ModelError
from mechstudio.core.model.io import load_model, model_from_data
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.systems.tree_maximal import TreeMaximalSystem

SAMPLES = Path(__file__).resolve().parents[1] / "sample_models"


def data(name: str) -> dict:
    return json.loads((SAMPLES / f"{name}.json").read_text())


def messages(d: dict) -> str:
    with pytest.raises(ModelError) as exc:
        model_from_data(d)
    return "\n".join(x.format() for x in exc.value.diagnostics)


def test_incidence_and_path_matrix_of_the_branched_tree():
    s = compile_model(load_model(SAMPLES / "branched_tree.json"))
    assert isinstance(s, TreeMaximalSystem)
    tr = s.tree
    names = tr.names  # trunk, left_arm, right_arm, left_hand
    idx = {n: k for k, n in enumerate(names)}
    # T = S^-1 and T[i, k] = 1 exactly when i is k or an ancestor of k
    assert np.allclose(tr.S @ tr.T, np.eye(tr.n))
    assert np.allclose(np.linalg.inv(tr.S), tr.T)
    anc = {"trunk": {"trunk"}, "left_arm": {"trunk", "left_arm"}, "right_arm": {"trunk", "right_arm"},
           "left_hand": {"trunk", "left_arm", "left_hand"}}
    for k, n in enumerate(names):
        for i, m in enumerate(names):
            assert tr.T[i, k] == (1.0 if m in anc[n] else 0.0)
    assert tr.parent[idx["left_hand"]] == idx["left_arm"]
    assert tr.parent[idx["trunk"]] == -1
    # augmented-body inertia (47): about the inboard joint, K_i = J_i + sum_k m_k (|d|^2 E - d d^T)
    k = idx["trunk"]
    J = tr.J[k].copy()
    for d, m in ((tr.c_in[k], tr.mass[k]), (tr.e[idx["left_arm"]], tr.subtree_mass[idx["left_arm"]]),
                 (tr.e[idx["right_arm"]], tr.subtree_mass[idx["right_arm"]])):
        J += m * ((d @ d) * np.eye(3) - np.outer(d, d))
    assert np.allclose(tr.K[k], J, rtol=1e-14)
    # barycentric vectors (38): h_i = M b_i0 = m_i d_ii + sum of subtree masses times d_ij
    assert np.allclose(tr.h[idx["left_hand"]], tr.mass[idx["left_hand"]] * tr.c_in[idx["left_hand"]])


def test_a_joint_given_child_first_is_oriented_from_the_ground():
    d = data("spherical_chain_3")
    j = d["joints"][1]
    j["body1"], j["body2"], j["point1"], j["point2"] = j["body2"], j["body1"], j["point2"], j["point1"]
    s = compile_model(model_from_data(d))
    ref = compile_model(model_from_data(data("spherical_chain_3")))
    assert list(s.tree.parent) == list(ref.tree.parent)
    q, v = s.consistent_state(0.0)
    q2, v2 = ref.consistent_state(0.0)
    assert np.allclose(q, q2, atol=1e-15) and np.allclose(v, v2, atol=1e-15)


def test_a_loop_of_spherical_joints_is_named():
    d = data("spherical_chain_3")
    d["joints"].append({"name": "J_loop", "type": "spherical", "body1": "link3", "point1": "in",
                        "body2": "link1", "point2": "out"})
    msg = messages(d)
    assert "J_loop" in msg and "closed loop" in msg and "/joints/3" in msg
    for b in ("link1", "link2", "link3"):
        assert b in msg


def test_a_loop_through_the_ground_is_named():
    d = data("spherical_chain_3")
    d["joints"].append({"name": "J_back", "type": "spherical", "body1": "ground", "point1": "O",
                        "body2": "link3", "point2": "in"})
    msg = messages(d)
    assert "J_back" in msg and "closed loop" in msg and "'ground'" in msg


def test_a_body_without_a_joint_is_named():
    d = data("spherical_chain_3")
    extra = copy.deepcopy(d["bodies"][2])
    extra["name"] = "loose"
    d["bodies"].append(extra)
    msg = messages(d)
    assert "'loose' has no joint" in msg


def test_bodies_not_connected_to_the_ground_are_named():
    d = data("spherical_chain_3")
    d["joints"][1]["body1"] = "link3"  # link2 and link3 now only hang from each other
    d["joints"][1]["point1"] = "in"
    d["joints"][2]["point1"] = "out"
    d["bodies"][2]["points"]["out"] = [0.0, 0.0, -0.1]
    msg = messages(d)
    assert "not connected to the ground" in msg or "closed loop" in msg
    assert "link2" in msg and "link3" in msg


def test_a_singular_inertia_tensor_is_named():
    d = data("spherical_chain_3")
    d["bodies"][1]["inertia"] = [[0.01, 0, 0], [0, 0.01, 0], [0, 0, 0.0]]  # a thin rod: singular
    msg = messages(d)
    assert "link2" in msg and "singular inertia tensor" in msg and "/bodies/1/inertia" in msg


def test_an_unphysical_or_asymmetric_inertia_tensor_is_named():
    d = data("spherical_chain_3")
    d["bodies"][0]["inertia"] = [[0.01, 0, 0], [0, 0.01, 0], [0, 0, 0.05]]
    d["bodies"][2]["inertia"] = [[0.01, 0.002, 0], [0, 0.01, 0], [0, 0, 0.01]]
    msg = messages(d)
    assert "link1" in msg and "triangle inequality" in msg
    assert "link3" in msg and "not symmetric" in msg


def test_other_joint_types_cannot_be_mixed_into_a_tree():
    d = data("spherical_chain_3")
    d["joints"].append({"name": "disk", "type": "rolling_disk", "body": "link3", "radius": 0.1})
    msg = messages(d)
    assert "'disk'" in msg and "spherical joints only" in msg
