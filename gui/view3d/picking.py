"""Picking bodies with a ray, and lines that move with bodies, for the 3D view (plain numpy, no Qt, no OpenGL).

:func:`pick_body`: the body a ray from the camera hits first. Each body's mesh (body frame) is bounded by its box
[lo, hi]; the ray, taken into each body's frame (o' = R^T (o - c), d' = R^T d), is clipped against the box by the
slab method (Kay and Kajiya, "Ray tracing complex scenes", SIGGRAPH 1986), and only the bodies whose box it meets
are tested against their triangles (Möller and Trumbore, "Fast, minimum storage ray-triangle intersection",
J. Graphics Tools 2(1), 1997), all of one body's triangles at once. The nearest triangle hit wins; when the ray
meets no triangle, the nearest box grown by ``margin`` (a thin rod is hard to hit exactly) does.

:class:`PosedLines`: line segments fixed in several bodies' frames, posed into the world with one batched
product per frame (no loop over the segments).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

Pose = tuple[np.ndarray, np.ndarray]  # (origin [m], rotation body -> world)


def box_hit(o: np.ndarray, d: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> float | None:
    """The ray parameter t >= 0 where o + t d enters the box [lo, hi] (0 when o is inside), or None."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / d
        t1, t2 = (lo - o) * inv, (hi - o) * inv
    t1 = np.where(np.isnan(t1), -np.inf, t1)  # a component of d of 0 with o on the slab's face
    t2 = np.where(np.isnan(t2), np.inf, t2)
    near, far = float(np.max(np.minimum(t1, t2))), float(np.min(np.maximum(t1, t2)))
    if far < max(near, 0.0):
        return None
    return max(near, 0.0)


def triangle_hit(o: np.ndarray, d: np.ndarray, vertices: np.ndarray, faces: np.ndarray) -> float | None:
    """The smallest t >= 0 where o + t d crosses one of the triangles (Möller-Trumbore, both faces), or None."""
    V = np.asarray(vertices, float)[np.asarray(faces, int)]  # (m, 3, 3)
    e1, e2 = V[:, 1] - V[:, 0], V[:, 2] - V[:, 0]
    p = np.cross(d, e2)
    det = np.einsum("ij,ij->i", e1, p)
    ok = np.abs(det) > 1e-14
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = o - V[:, 0]
    u = np.einsum("ij,ij->i", s, p) * inv
    qv = np.cross(s, e1)
    v = (qv @ d) * inv
    t = np.einsum("ij,ij->i", e2, qv) * inv
    hit = ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (t >= 0)
    return float(t[hit].min()) if np.any(hit) else None


def pick_body(origin: np.ndarray, direction: np.ndarray, meshes: Mapping[str, Any], poses: Mapping[str, Pose],
              margin: float = 0.0) -> str | None:
    """The body whose mesh the ray (origin, direction; world) meets first (module docstring); ``meshes``: name ->
    mesh with ``vertices`` (n, 3) and ``faces`` (m, 3) in the body frame; ``poses``: name -> (origin, R)."""
    surface: list[tuple[float, str]] = []
    boxes: list[tuple[float, str]] = []
    for name, mesh in meshes.items():
        pose = poses.get(name)
        if pose is None or len(mesh.faces) == 0:
            continue
        c, R = pose
        o, d = R.T @ (np.asarray(origin, float) - c), R.T @ np.asarray(direction, float)
        lo, hi = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
        t_box = box_hit(o, d, lo - margin, hi + margin)
        if t_box is None:
            continue
        boxes.append((t_box, name))
        if box_hit(o, d, lo, hi) is not None:
            t = triangle_hit(o, d, mesh.vertices, mesh.faces)
            if t is not None:
                surface.append((t, name))
    if surface:
        return min(surface)[1]
    return min(boxes)[1] if boxes else None


def box_edges(vertices: np.ndarray, pad: float = 0.0) -> np.ndarray:
    """The 12 edges (12, 2, 3) of the box around ``vertices`` grown by ``pad`` on every side."""
    lo, hi = np.asarray(vertices, float).min(axis=0) - pad, np.asarray(vertices, float).max(axis=0) + pad
    corner = [np.array([(lo, hi)[i][0], (lo, hi)[j][1], (lo, hi)[k][2]]) for i in (0, 1) for j in (0, 1)
              for k in (0, 1)]  # index 4 i + 2 j + k
    pairs = [(a, a | bit) for a in range(8) for bit in (1, 2, 4) if not a & bit]
    return np.array([[corner[a], corner[b]] for a, b in pairs])


class PosedLines:
    """Segments fixed in bodies' frames: ``bodies[k]``'s segments (n_k, 2, 3) in ``colors[k]``. A body missing
    from the poses (the ground) keeps its segments where they are (world)."""

    def __init__(self, bodies: Sequence[str], segments: Sequence[np.ndarray], colors: Sequence[Sequence[float]]):
        self.names = list(dict.fromkeys(bodies))
        index = {n: i for i, n in enumerate(self.names)}
        local = [np.asarray(s, float).reshape(-1, 3) for s in segments]
        self.local = np.vstack(local) if local else np.zeros((0, 3))
        self.body = np.concatenate([np.full(len(v), index[b]) for b, v in zip(bodies, local)]) if local \
            else np.zeros(0, int)
        self.colors = np.vstack([np.tile(np.asarray(c, float), (len(v), 1)) for c, v in zip(colors, local)]) \
            if local else np.zeros((0, 4))
        self.counts = [len(v) for v in local]  # vertices per entry (2 per segment)

    def world(self, poses: Mapping[str, Pose]) -> np.ndarray:
        """World positions (n, 3) of every vertex in ``poses``."""
        n = len(self.names)
        origins, rotations = np.zeros((n, 3)), np.tile(np.eye(3), (n, 1, 1))
        for i, name in enumerate(self.names):
            pose = poses.get(name)
            if pose is not None:
                origins[i], rotations[i] = pose
        return origins[self.body] + np.einsum("nij,nj->ni", rotations[self.body], self.local)


__all__ = ["PosedLines", "box_edges", "box_hit", "pick_body", "triangle_hit"]
