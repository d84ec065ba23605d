"""Planar frame helpers shared by every equation primitive: rotations of body-fixed vectors, the padded ground.

Coordinates ([003], ch. "Coordinates and constraint equations"): body k owns q[3k:3k+3] = (x, y, phi), the
position of its centre of mass [m] and the angle of its body frame [rad]. A body-fixed vector s' (body frame,
measured from the centre of mass) is A(phi) s' in the global frame with A(phi) = [[cos, -sin], [sin, cos]] and
B(phi) = dA/dphi, so that B s' = perp(A s') where perp(v) = (-v_y, v_x).

The ground is padded as an extra body with index ``nb`` whose coordinates are always (0, 0, 0): primitives
address it like any body and its Jacobian columns are sliced away (see :func:`q_ext`).

:class:`BodyIndex` turns the model's names and body-frame points into what the numeric primitives read: body
indices and vectors from the centre of mass.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mechstudio.core.types import FloatArray

Vec = tuple[float, ...]


def q_ext(q: FloatArray) -> FloatArray:
    """q with the ground's (0, 0, 0) appended, so that body index nb addresses the ground."""
    return np.concatenate((q, (0.0, 0.0, 0.0)))


def rotate(phi: FloatArray, s: FloatArray) -> FloatArray:
    """A(phi) s for arrays phi (K,) and s (K, 2) -> (K, 2)."""
    c, sn = np.cos(phi), np.sin(phi)
    out = np.empty((len(phi), 2))
    out[:, 0] = c * s[:, 0] - sn * s[:, 1]
    out[:, 1] = sn * s[:, 0] + c * s[:, 1]
    return out


def perp(v: FloatArray) -> FloatArray:
    """Rotate (K, 2) vectors by +90 degrees: (-v_y, v_x); B(phi) s = perp(A(phi) s)."""
    out = np.empty_like(v)
    out[:, 0] = -v[:, 1]
    out[:, 1] = v[:, 0]
    return out


def positions(qe: FloatArray, body: FloatArray) -> FloatArray:
    """Positions (K, 2) of bodies ``body`` from the padded coordinate vector (or velocities from the padded v)."""
    out = np.empty((len(body), 2))
    out[:, 0] = qe[3 * body]
    out[:, 1] = qe[3 * body + 1]
    return out


def columns(body: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Column indices (x, y, phi) of bodies ``body`` in the padded Jacobian."""
    return 3 * body, 3 * body + 1, 3 * body + 2


def dot(a: FloatArray, b: FloatArray) -> FloatArray:
    """Row-wise dot product of (K, 2) arrays."""
    return np.einsum("ka,ka->k", a, b)


@dataclass(frozen=True)
class BodyIndex:
    """Body name -> index (the ground is ``nb``) and body-frame point -> vector from the centre of mass [m]."""
    index: dict[str, int]
    com: dict[str, FloatArray]

    def __call__(self, body: str) -> int:
        return self.index[body]

    def local(self, body: str, point: Vec) -> list[float]:
        """Body-frame point (relative to the frame origin) -> vector from the centre of mass."""
        return list(np.asarray(point[:2]) - self.com[body])
