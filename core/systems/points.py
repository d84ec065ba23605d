"""World positions of named body points (coupler points), for one state or a whole trajectory.

A model's bodies name points in their body frame (``bodies[k].points``, [m]). This module tells where those
points are in the world for coordinates q of a compiled system, vectorised over output frames, and names them
``body.point`` (the CSV columns ``point.<body>.<point>.x``, ``.y`` and, for spatial models, ``.z``;
docs/results-csv.md). The API for the GUI is described in docs/points-api.md.

Every system keeps the centre of mass r and an orientation per body ([003] for planar, [001] for spatial
bodies), so a point with body-frame coordinates s' (relative to the body-frame origin; c' the centre of mass in
the same frame) is at

    planar:          r_P = r + A(phi) (s' - c'),   A(phi) = [[cos phi, -sin phi], [sin phi, cos phi]]
    spatial 3-1-3:   r_P = r + R (s' - c'),        R = Rz(psi) Rx(theta) Rz(phi)   (core.systems.spatial)
    spherical tree:  r_P = r + A(p) (s' - c'),     A(p) of the unit quaternion p = (q0, q1, q2, q3)

and the body-frame origin is at r - R c'. The ground's frame is the world frame (its points are fixed; a moving
ground of a spatial model is not applied here).

Names: a body or point name is a model ``name`` (letters, digits, ``_``, ``-``; never a dot), so ``body.point``
splits at its one dot without ambiguity. :func:`parse_point_names` turns a user selection (``--points
crank.tip,coupler.P``) into :class:`BodyPoint` s and raises :class:`PointSelectionError` naming the unknown
body or point and the valid ones.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from mechstudio.core.model.document import GROUND, Model
from mechstudio.core.numerics.orientation import Euler313, quat_to_matrix
from mechstudio.core.types import FloatArray

#: the first part of every point column name: ``point.<body>.<point>.<axis>``
COLUMN_PREFIX = "point"
#: coordinate axes of a point column, planar models use the first two
AXES = ("x", "y", "z")

#: largest number of rotation-matrix entries :meth:`BodyFrames.world` holds at once (bounds its memory)
BLOCK_ELEMENTS = 4_000_000
#: orientation coordinates of a body after its centre of mass, per system kind (coord_names suffixes)
ORIENTATION_COORDS = {"planar": ("phi",), "euler313": ("psi", "theta", "phi"), "quaternion": ("q0", "q1", "q2", "q3")}


@dataclass(frozen=True)
class BodyPoint:
    """A named point of a body: its body-frame coordinates ``local`` [m] (relative to the body-frame origin)."""
    body: str
    point: str
    local: tuple[float, ...]

    @property
    def name(self) -> str:
        """``body.point``: the name used on the command line, in the GUI and (after ``point.``) in the CSV."""
        return f"{self.body}.{self.point}"

    def column(self, axis: str) -> str:
        """CSV column of one coordinate: ``point.<body>.<point>.<axis>`` (axis x, y or z)."""
        return f"{COLUMN_PREFIX}.{self.body}.{self.point}.{axis}"

    def columns(self, dim: int) -> tuple[str, ...]:
        """The ``dim`` (2 planar, 3 spatial) column names of this point."""
        return tuple(self.column(a) for a in AXES[:dim])


class PointSelectionError(ValueError):
    """A point selection names a body or point the model does not have (the message lists the valid ones)."""


def model_dimension(model: Model) -> int:
    """2 for a planar model, 3 for a spatial one: the number of coordinates of a point."""
    return 2 if model.kind == "planar" else 3


def named_points(model: Model) -> tuple[BodyPoint, ...]:
    """Every named point of every moving body, bodies in file order, points in each body's order.

    The ground's points are not included: they do not move."""
    return tuple(BodyPoint(b.name, p, tuple(v)) for b in model.bodies for p, v in b.points.items())


def parse_point_names(model: Model, selection: str | Iterable[str]) -> tuple[BodyPoint, ...]:
    """The points a user selected, in the given order without repeats.

    ``selection``: names ``body.point``, as one comma-separated string (``"crank.tip, coupler.P"``) or an
    iterable of names; blanks around names are ignored. Raises :class:`PointSelectionError` for an empty
    selection, a name without its dot, an unknown body (listing the bodies with named points) or an unknown
    point (listing that body's points)."""
    names = selection.split(",") if isinstance(selection, str) else list(selection)
    names = [str(n).strip() for n in names]
    if not any(names):
        raise PointSelectionError("no point named: give points as body.point, separated by commas "
                                  f"({_valid_names(model)})")
    bodies = {b.name: b for b in model.bodies}
    out: dict[str, BodyPoint] = {}
    for name in names:
        if not name:
            continue
        body, dot, point = name.partition(".")
        if not dot or not body or not point or "." in point:
            raise PointSelectionError(f"point {name!r} is not of the form body.point ({_valid_names(model)})")
        if body == GROUND:
            raise PointSelectionError(f"point {name!r}: the ground's points do not move and are not traced "
                                      f"({_valid_names(model)})")
        if body not in bodies:
            with_points = [b.name for b in model.bodies if b.points]
            raise PointSelectionError(f"point {name!r}: no body named {body!r}; bodies with named points: "
                                      f"{', '.join(with_points) or '(none)'}")
        pts = bodies[body].points
        if point not in pts:
            raise PointSelectionError(f"point {name!r}: body {body!r} has no point named {point!r}; its points: "
                                      f"{', '.join(pts) or '(none)'}")
        out.setdefault(name, BodyPoint(body, point, tuple(pts[point])))
    return tuple(out.values())


def select_points(model: Model, selection: str | Iterable[str] | None = None,
                  enabled: bool = True) -> tuple[BodyPoint, ...]:
    """The points to trace: none when ``enabled`` is False, the ``selection`` (see :func:`parse_point_names`)
    when given, else every named point (:func:`named_points`)."""
    if not enabled:
        return ()
    if selection is None:
        return named_points(model)
    return parse_point_names(model, selection)


def _valid_names(model: Model) -> str:
    names = [p.name for p in named_points(model)]
    if not names:
        return "the model has no named body points"
    shown = names if len(names) <= 20 else names[:20] + [f"... ({len(names)} in all)"]
    return "valid points: " + ", ".join(shown)


def orientation_kind(model: Model, coord_names: Sequence[str]) -> str:
    """``planar``, ``euler313`` (core.systems.spatial) or ``quaternion`` (core.systems.tree_maximal): how a system's
    coordinates give each body's orientation."""
    if model.kind == "planar":
        return "planar"
    return "quaternion" if any(n.endswith(".q0") for n in coord_names) else "euler313"


class BodyFrames:
    """Body poses and world points from the coordinates q of a compiled system (module docstring equations).

    ``model`` and ``coord_names`` (``body.coord`` per coordinate, as ``ConstrainedSystem.coord_names``) fix
    where each body's coordinates are; :meth:`of_system` reads both from a system. Every method takes q of
    shape (n,) (one state) or (F, n) (F frames) and returns arrays with that leading frame axis or without it.
    """

    def __init__(self, model: Model, coord_names: Sequence[str]):
        self.model = model
        self.dim = model_dimension(model)
        self.kind = orientation_kind(model, coord_names)
        position = {n: k for k, n in enumerate(coord_names)}
        self.body_names = [b.name for b in model.bodies]
        missing = [b for b in self.body_names
                   if f"{b}.x" not in position or any(f"{b}.{c}" not in position for c in ORIENTATION_COORDS[self.kind])]
        if missing:
            raise ValueError(f"the coordinates do not hold the pose of the bodies {', '.join(missing)} "
                             f"({self.kind} orientation expected)")
        #: index of each body's first coordinate (x of its centre of mass) in q
        self.first = {b: position[f"{b}.x"] for b in self.body_names}
        self.orientation_first = {b: position[f"{b}.{ORIENTATION_COORDS[self.kind][0]}"] for b in self.body_names}
        self.com = {b.name: np.asarray(b.com[:self.dim], float) for b in model.bodies}

    @classmethod
    def of_system(cls, system: Any) -> "BodyFrames":
        """The frames of a compiled :class:`~core.systems.base.ConstrainedSystem` (any kind)."""
        return cls(system.model, list(system.coord_names))

    def rotations(self, q: FloatArray, bodies: Sequence[str]) -> FloatArray:
        """Rotation matrices body -> world, shape (F, B, dim, dim) ((B, dim, dim) for one state); the ground's
        is the identity."""
        Q, single = _frames(q)
        F, B, d = Q.shape[0], len(bodies), self.dim
        R = np.broadcast_to(np.eye(d), (F, B, d, d)).copy()
        moving = [k for k, b in enumerate(bodies) if b != GROUND]
        if moving:
            start = np.array([self.orientation_first[bodies[k]] for k in moving])
            size = len(ORIENTATION_COORDS[self.kind])
            angles = Q[:, start[:, None] + np.arange(size)]  # (F, M, size)
            if self.kind == "planar":
                c, s = np.cos(angles[..., 0]), np.sin(angles[..., 0])
                R[:, moving] = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)
            else:
                to_matrix = quat_to_matrix if self.kind == "quaternion" else Euler313().to_matrix
                R[:, moving] = to_matrix(angles.reshape(-1, size)).reshape(F, len(moving), 3, 3)
        return R[0] if single else R

    def centres(self, q: FloatArray, bodies: Sequence[str]) -> FloatArray:
        """Centres of mass [m], shape (F, B, dim) ((B, dim) for one state); the ground's is the origin."""
        Q, single = _frames(q)
        out = np.zeros((Q.shape[0], len(bodies), self.dim))
        moving = [k for k, b in enumerate(bodies) if b != GROUND]
        if moving:
            start = np.array([self.first[bodies[k]] for k in moving])
            out[:, moving] = Q[:, start[:, None] + np.arange(self.dim)]
        return out[0] if single else out

    def poses(self, q: FloatArray, bodies: Sequence[str] | None = None) -> tuple[FloatArray, FloatArray]:
        """(origins (F, B, dim), rotations (F, B, dim, dim)) of the body frames (no F axis for one state):
        origin = r - R c'. ``bodies`` defaults to every body in file order."""
        bodies = self.body_names if bodies is None else list(bodies)
        R = self.rotations(q, bodies)
        com = np.array([self.com.get(b, np.zeros(self.dim)) for b in bodies]).reshape(len(bodies), self.dim)
        origin = self.centres(q, bodies) - np.einsum("...ij,...j->...i", R, com)
        return origin, R

    def world(self, q: FloatArray, bodies: Sequence[str], local: FloatArray) -> FloatArray:
        """World positions [m] of body-frame points: ``local[k]`` (body frame, relative to the frame origin)
        on ``bodies[k]``; shape (F, P, dim) ((P, dim) for one state).

        Each body's pose is evaluated once per frame however many points it has; frames are taken in blocks so
        that the rotation matrices of a block hold at most ``BLOCK_ELEMENTS`` numbers (large models, long runs)."""
        Q, single = _frames(q)
        d = self.dim
        unique, which = np.unique(np.asarray(list(bodies), dtype=object), return_inverse=True)
        unique = [str(b) for b in unique]
        local = np.asarray(local, float).reshape(len(bodies), d)
        com = np.array([self.com.get(b, np.zeros(d)) for b in bodies]).reshape(len(bodies), d)
        arm = local - com  # s' - c' (P, dim)
        out = np.empty((Q.shape[0], len(bodies), d))
        block = max(1, BLOCK_ELEMENTS // max(1, len(bodies) * d * d))
        for a in range(0, Q.shape[0], block):
            Qb = Q[a:a + block]
            R = self.rotations(Qb, unique)[:, which]
            out[a:a + block] = self.centres(Qb, unique)[:, which] + np.einsum("fpij,pj->fpi", R, arm)
        return out[0] if single else out


class PointTracer:
    """World positions of a fixed list of named body points for the coordinates of a compiled system.

    ``points`` defaults to every named point of the model (:func:`named_points`)."""

    def __init__(self, system: Any, points: Sequence[BodyPoint] | None = None):
        self.frames = BodyFrames.of_system(system)
        self.points: tuple[BodyPoint, ...] = named_points(system.model) if points is None else tuple(points)
        self.dim = self.frames.dim
        self._bodies = [p.body for p in self.points]
        self._local = np.array([p.local[:self.dim] for p in self.points], float).reshape(-1, self.dim)

    @property
    def names(self) -> list[str]:
        """``body.point`` of each point, in order."""
        return [p.name for p in self.points]

    @property
    def column_names(self) -> list[str]:
        """The CSV column names, point by point: ``point.<body>.<point>.x``, ``.y`` (, ``.z``)."""
        return [c for p in self.points for c in p.columns(self.dim)]

    def positions(self, q: FloatArray) -> FloatArray:
        """World positions [m]: shape (F, P, dim) for q of shape (F, n), (P, dim) for one state q (n,)."""
        return self.frames.world(q, self._bodies, self._local)

    def trace(self, q: FloatArray, name: str) -> FloatArray:
        """The path (F, dim) [m] of the point ``body.point`` over the frames q (F, n)."""
        try:
            k = self.names.index(name)
        except ValueError:
            raise PointSelectionError(f"point {name!r} is not traced; traced points: "
                                      f"{', '.join(self.names) or '(none)'}") from None
        Q, _ = _frames(q)
        return self.frames.world(Q, [self._bodies[k]], self._local[k:k + 1])[:, 0]

    def columns(self, q: FloatArray) -> dict[str, FloatArray]:
        """The point columns of a result table for frames q (F, n): name -> (F,) array."""
        Q, _ = _frames(q)
        pos = self.positions(Q)
        return {p.column(a): pos[:, k, i] for k, p in enumerate(self.points) for i, a in enumerate(AXES[:self.dim])}


def point_columns(system: Any, q: FloatArray, points: Sequence[BodyPoint] | None = None) -> dict[str, FloatArray]:
    """The CSV point columns (docs/results-csv.md) of frames q (F, n) of ``system``; all named points by
    default."""
    return PointTracer(system, points).columns(q)


def _frames(q: FloatArray) -> tuple[FloatArray, bool]:
    """q as a (F, n) array, and whether it was one state (n,)."""
    q = np.asarray(q, float)
    return (q[None, :], True) if q.ndim == 1 else (q, False)


__all__ = ["AXES", "COLUMN_PREFIX", "BodyFrames", "BodyPoint", "PointSelectionError", "PointTracer",
           "model_dimension", "named_points", "orientation_kind", "parse_point_names", "point_columns",
           "select_points"]
