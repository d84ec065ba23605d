"""Topology of a spherical-joint tree ([004], eqs. (3)-(25), (38)-(41), (47)) and its validation.

Graph: vertex s_0 = body 0 (the ground, prescribed motion r0(t), omega0(t)), vertices s_1..s_n = the bodies, one
arc u_a per spherical joint. The bodies must form a tree rooted at body 0: n joints, every body reachable from
body 0. Joints are oriented away from body 0 by a breadth-first search (the file's body1/body2 = parent/child is
the usual order, the reverse is accepted), and joint a is numbered by its outboard (child) body, so that

* incidence matrix (eq. (5)): S_ia = +1 if body i is the outboard body of joint a, -1 if it is the inboard body,
  0 otherwise (body 0's row removed). Then m r'' = F + S X with X_a the force joint a applies to its outboard
  body, and S^T r + (terms of c_ia) = 0 is the closure (19);
* path matrix T = S^-1 (eq. (12)): T_ak = 1 if joint a lies on the path from body 0 to body k (the outboard
  body of a is k or an ancestor of k), else 0. Writing s_i <= s_k for "i is k or an ancestor of k",
  T[i, k] = [s_i <= s_k] with joints numbered by their outboard body.

Vectors in body i's frame (the file's points minus the centre of mass):

* c_in[i]  = d_ii (eq. (25), case i = j): centre of mass of i -> its inboard joint point;
* e[k]     = d_ik for the parent i of k and for every k' in the subtree of k (eqs. (22)-(25)): from the joint of
  i leading to k to the inboard joint of i, c_in[i] - c_out[k], in the frame of i (zero for root-level k);
* h[i]     = M b_i0 = sum_k m_k d_ik (eqs. (38)-(41)): the augmented body's first moment about the inboard joint
  (b_i0 = h/M is the barycentre vector; M = total mass);
* K[i]     = J_i + sum_k m_k (|d_ik|^2 E - d_ik d_ik^T)  (eq. (47)/(62)): inertia tensor of the augmented body
  about its inboard joint.

All three are constant in the body frame; the formulation rotates them with A^i.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechstudio.core.types import FloatArray, IntArray

GROUND = "ground"
SUPPORTED_FORCES = ("applied_force", "applied_torque")


def _inertia_problem(J: FloatArray) -> str | None:
    scale = float(np.max(np.abs(J))) if J.size else 0.0
    if scale == 0.0:
        return "singular inertia tensor (all zero)"
    if np.max(np.abs(J - J.T)) > 1e-9 * scale:
        return f"the inertia tensor is not symmetric: {J.tolist()}"
    ev = np.linalg.eigvalsh(J)
    if ev[0] <= 1e-9 * ev[-1]:
        return (f"singular inertia tensor (principal moments {', '.join(f'{x:.6g}' for x in ev)} kg m^2): "
                "every body of a spherical-joint tree needs a positive definite 3x3 inertia tensor about its "
                "centre of mass")
    if ev[2] > (ev[0] + ev[1]) * (1 + 1e-9):
        return (f"not a physical inertia tensor: the principal moments {', '.join(f'{x:.6g}' for x in ev)} "
                "violate the triangle inequality J3 <= J1 + J2")
    return None


def tree_problems(ent: Any) -> list[tuple[str, str]]:
    """Semantic problems of a spatial model with spherical joints, as (json_pointer, message) pairs.

    Checks: only spherical joints; only supported force types; positive definite, symmetric, physical inertia
    tensors; every body has a joint; the joints form a tree rooted at the ground (a loop names the joint that
    closes it and the bodies on the loop; bodies not connected to the ground are named).
    """
    problems: list[tuple[str, str]] = []
    names = [b.name for b in ent.bodies]
    known = set(names)
    for b in ent.bodies:
        J = np.asarray(b.inertia, float).reshape(3, 3)
        msg = _inertia_problem(J)
        if msg:
            problems.append((f"/bodies/{b.index}/inertia", f"body {b.name!r}: {msg}"))
    for j in ent.joints:
        if j.type != "spherical":
            problems.append((f"/joints/{j.index}/type",
                             f"joint {j.name!r} is {j.type}: a model with spherical joints is a spherical-joint "
                             "tree and may contain spherical joints only"))
    for f in ent.forces:
        if f.type not in SUPPORTED_FORCES:
            problems.append((f"/forces/{f.index}/type",
                             f"force {f.name!r} ({f.type}) is not supported in a spherical-joint tree; use the "
                             "joint's spring/damping/torque or applied_force/applied_torque"))
    sph = [j for j in ent.joints if j.type == "spherical" and j.body1 in known | {GROUND}
           and j.body2 in known | {GROUND} and j.body1 != j.body2]
    adj: dict[str, list[tuple[str, Any]]] = {GROUND: [], **{n: [] for n in names}}
    for j in sph:
        adj[j.body1].append((j.body2, j))
        adj[j.body2].append((j.body1, j))
    for b in ent.bodies:
        if not adj.get(b.name):
            problems.append((f"/bodies/{b.index}",
                             f"body {b.name!r} has no joint: every body of a spherical-joint tree hangs from "
                             "exactly one spherical joint (a free body needs a model without spherical joints)"))
    # breadth-first search from the ground; a non-tree edge closes a loop
    parent: dict[str, tuple[str, Any] | None] = {GROUND: None}
    queue = deque([GROUND])
    used: set[int] = set()
    reported: set[int] = set()

    def path(v: str) -> list[str]:
        out = [v]
        while parent[v] is not None:
            v = parent[v][0]
            out.append(v)
        return out

    while queue:
        u = queue.popleft()
        for v, j in adj[u]:
            if id(j) in used:
                continue
            used.add(id(j))
            if v in parent:
                if j.index in reported:
                    continue
                reported.add(j.index)
                pu, pv = path(u), path(v)
                common = next(x for x in pu if x in set(pv))
                loop = pu[:pu.index(common) + 1] + list(reversed(pv[:pv.index(common)]))
                ring = [parent[x][1] for x in pu[:pu.index(common)]] + \
                    [parent[x][1] for x in pv[:pv.index(common)]] + [j]
                ring.sort(key=lambda jj: jj.index)
                last = ring[-1]
                reported.update(jj.index for jj in ring)
                problems.append((f"/joints/{last.index}",
                                 f"joints {', '.join(repr(jj.name) for jj in ring)} form a closed loop of "
                                 f"spherical joints through {', '.join(repr(x) for x in loop)}: the bodies and "
                                 f"joints must form a tree rooted at the ground (remove one of them, e.g. "
                                 f"{last.name!r})"))
                continue
            parent[v] = (u, j)
            queue.append(v)
    lost = [b for b in ent.bodies if adj.get(b.name) and b.name not in parent]
    if lost:
        problems.append((f"/bodies/{lost[0].index}",
                         f"bodies {', '.join(repr(b.name) for b in lost)} are not connected to the ground by "
                         "spherical joints: the tree must be rooted at the ground (body 0)"))
    return problems


@dataclass
class TreeData:
    """Numeric description of a validated spherical-joint tree (file body order; see module docstring)."""
    names: list[str]
    n: int
    mass: FloatArray            # (n,)
    J: FloatArray               # (n, 3, 3) central inertia tensors, body axes
    com: FloatArray             # (n, 3) centre of mass in the body frame
    parent: IntArray            # (n,) parent body index, -1 = body 0
    joint_index: IntArray       # (n,) index in the file's joint list of the inboard joint of body k
    joint_names: list[str]      # inboard joint name of body k
    flipped: FloatArray         # (n,) -1 where the file's body2 of the joint is the parent, else +1
    c_in: FloatArray            # (n, 3) d_ii: CM -> inboard joint, body frame
    c_out: FloatArray           # (n, 3) joint point of k on its parent, parent frame (root: base frame point)
    e: FloatArray               # (n, 3) c_in[parent] - c_out[k] in the parent frame; 0 for root-level bodies
    S: FloatArray               # (n, n) incidence matrix (joint a numbered by its outboard body)
    T: FloatArray               # (n, n) path matrix T = S^-1, T[i, k] = [s_i <= s_k]
    P: FloatArray               # (n, n) children matrix, P[i, k] = 1 if k is a child of i
    subtree_mass: FloatArray    # (n,) sum of the masses of k and its descendants
    K: FloatArray               # (n, 3, 3) augmented-body inertia about the inboard joint, body frame (47)
    h: FloatArray               # (n, 3) M b_i0 = sum_k m_k d_ik, body frame (38)-(41)
    pairs_i: IntArray           # ancestor pairs (i strictly above j): i
    pairs_j: IntArray           # ... j
    pairs_c: IntArray           # ... the child of i on the path to j (d_ij = e[c] in the frame of i)
    roots: IntArray             # bodies attached to body 0
    order: IntArray             # breadth-first order (parents before children)
    total_mass: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def build_tree(ent: Any) -> TreeData:
    """The :class:`TreeData` of a model that passed :func:`tree_problems` (raises ValueError otherwise)."""
    problems = tree_problems(ent)
    if problems:
        raise ValueError("; ".join(m for _, m in problems))
    names = [b.name for b in ent.bodies]
    n = len(names)
    idx = {nm: k for k, nm in enumerate(names)}
    bodies = list(ent.bodies)
    com = np.array([np.asarray(b.com, float)[:3] for b in bodies]).reshape(n, 3)
    mass = np.array([b.mass for b in bodies], float)
    J = np.array([np.asarray(b.inertia, float).reshape(3, 3) for b in bodies]).reshape(n, 3, 3)
    J = 0.5 * (J + J.transpose(0, 2, 1))
    adj: dict[str, list[Any]] = {GROUND: [], **{nm: [] for nm in names}}
    for j in ent.joints:
        adj[j.body1].append(j)
        adj[j.body2].append(j)
    parent = -np.ones(n, int)
    joint_index = np.zeros(n, int)
    joint_names = [""] * n
    flipped = np.ones(n)
    c_in = np.zeros((n, 3))
    c_out = np.zeros((n, 3))
    order: list[int] = []
    seen = {GROUND}
    queue = deque([GROUND])
    while queue:
        u = queue.popleft()
        for j in adj[u]:
            v = j.body2 if j.body1 == u else j.body1
            if v in seen:
                continue
            seen.add(v)
            k = idx[v]
            order.append(k)
            pu, pv = (j.point1, j.point2) if j.body1 == u else (j.point2, j.point1)
            flipped[k] = 1.0 if j.body1 == u else -1.0
            parent[k] = -1 if u == GROUND else idx[u]
            joint_index[k] = j.index
            joint_names[k] = j.name
            c_in[k] = np.asarray(pv, float)[:3] - com[k]
            c_out[k] = np.asarray(pu, float)[:3] - (0.0 if u == GROUND else com[idx[u]])
            queue.append(v)
    e = np.zeros((n, 3))
    for k in range(n):
        if parent[k] >= 0:
            e[k] = c_in[parent[k]] - c_out[k]
    S = np.zeros((n, n))
    P = np.zeros((n, n))
    for k in range(n):
        S[k, k] = 1.0
        if parent[k] >= 0:
            S[parent[k], k] = -1.0
            P[parent[k], k] = 1.0
    T = np.zeros((n, n))
    pi, pj, pc = [], [], []
    for k in range(n):
        T[k, k] = 1.0
        child, i = k, parent[k]
        while i >= 0:
            T[i, k] = 1.0
            pi.append(i)
            pj.append(k)
            pc.append(child)
            child, i = i, parent[i]
    assert np.allclose(S @ T, np.eye(n))
    mu = T @ mass
    K = J.copy()
    h = mass[:, None] * c_in

    def parallel(d: FloatArray) -> FloatArray:
        return (d @ d) * np.eye(3) - np.outer(d, d)

    for k in range(n):
        K[k] += mass[k] * parallel(c_in[k])
        if parent[k] >= 0:
            K[parent[k]] += mu[k] * parallel(e[k])
            h[parent[k]] += mu[k] * e[k]
    return TreeData(names=names, n=n, mass=mass, J=J, com=com, parent=parent, joint_index=joint_index,
                    joint_names=joint_names, flipped=flipped, c_in=c_in, c_out=c_out, e=e, S=S, T=T, P=P,
                    subtree_mass=mu, K=K, h=h, pairs_i=np.array(pi, int), pairs_j=np.array(pj, int),
                    pairs_c=np.array(pc, int), roots=np.flatnonzero(parent < 0), order=np.array(order, int),
                    total_mass=float(mass.sum()))
