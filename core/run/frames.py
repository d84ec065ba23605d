"""What a run produces: output frames (one recorded state each), blocks of frames, and the whole trajectory.

A frame is recorded at every output time t_k = k dt: q, q', q'', the reactions of every joint, driver and contact
(force and moment, 6 components, [N], [N m]), the energies [J], the work of the non-conservative and constraint
forces [J] and the constraint violations ||Phi|| and ||C q' + xi|| before and after the drift correction. The
driver (``mechstudio.core.run.driver``) emits frames in :class:`FrameBlock` s; :class:`Trajectory` holds them all with the
run's status. Column names of the CSV export: docs/results-csv.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Sequence

import numpy as np

from mechstudio.core.systems.points import BodyPoint, point_columns
from mechstudio.core.run.results import write_csv
from mechstudio.core.run.settings import SimulationSettings
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.types import FloatArray, Status

#: the six components of a reaction, in the order of the last axis of ``FrameBlock.reactions``
REACTION_COMPONENTS = ("Fx", "Fy", "Fz", "Mx", "My", "Mz")


class Frame(NamedTuple):
    """One recorded output frame (the fields of :class:`FrameBlock`, for one time)."""
    t: float
    q: FloatArray
    v: FloatArray
    a: FloatArray
    reactions: FloatArray  # (n_constraints, 6)
    kinetic: float
    potential: float
    work: float
    violation_position_before: float
    violation_position: float
    violation_velocity_before: float
    violation_velocity: float


@dataclass
class FrameBlock:
    """Consecutive output frames (arrays copied, never modified after emission)."""
    t: FloatArray  # (k,)
    q: FloatArray  # (k, n)
    v: FloatArray  # (k, n)
    a: FloatArray  # (k, n)
    reactions: FloatArray  # (k, n_constraints, 6) [N, N m]
    kinetic: FloatArray
    potential: FloatArray
    work: FloatArray  # cumulative work of non-conservative and constraint forces [J]
    violation_position_before: FloatArray
    violation_position: FloatArray
    violation_velocity_before: FloatArray
    violation_velocity: FloatArray

    @property
    def total(self) -> FloatArray:
        return self.kinetic + self.potential

    def __len__(self) -> int:
        return len(self.t)

    @classmethod
    def of_frames(cls, frames: list[Frame]) -> "FrameBlock":
        """The block of consecutive frames (at least one)."""
        return cls(*(np.array(column) for column in zip(*frames)))

    @classmethod
    def empty(cls, n: int, n_constraints: int) -> "FrameBlock":
        """A block without frames, for n coordinates and n_constraints constraints."""
        z = np.zeros(0)
        return cls(z, np.zeros((0, n)), np.zeros((0, n)), np.zeros((0, n)), np.zeros((0, n_constraints, 6)),
                   z, z, z, z, z, z, z)


#: the field names of a frame block, in order (the same as :class:`Frame`'s)
FRAME_FIELDS: tuple[str, ...] = Frame._fields
assert FRAME_FIELDS == tuple(FrameBlock.__dataclass_fields__)


def concat_blocks(blocks: list[FrameBlock], n: int, nc: int) -> FrameBlock:
    """All frames of ``blocks`` in one block (an empty one for n coordinates, nc constraints when none)."""
    if not blocks:
        return FrameBlock.empty(n, nc)
    return FrameBlock(**{k: np.concatenate([getattr(b, k) for b in blocks]) for k in FRAME_FIELDS})


def reaction_columns(system: ConstrainedSystem, q: FloatArray, reactions: FloatArray) -> dict[str, FloatArray]:
    """The reaction columns of a result table (docs/results-csv.md): ``reaction.<constraint>.<component>`` for
    ``reactions`` (k, n_constraints, 6) [N, N m] at the states ``q`` (k, n) (Fx, Fy, Mz for planar models, all
    six otherwise), then the contact columns of systems that have contacts."""
    cols: dict[str, FloatArray] = {}
    comps = ("Fx", "Fy", "Mz") if system.model.kind == "planar" else REACTION_COMPONENTS
    for c_idx, c in enumerate(system.constraints):
        for comp in comps:
            cols[f"reaction.{c.name}.{comp}"] = reactions[:, c_idx, REACTION_COMPONENTS.index(comp)]
    if hasattr(system, "contact_columns"):  # contacts: normal, friction, contact force [N]
        cols.update(system.contact_columns(q, reactions))
    return cols


@dataclass
class Trajectory:
    """A finished (or stopped) run: all frames plus status, message and statistics."""
    system: ConstrainedSystem
    settings: SimulationSettings
    frames: FrameBlock
    status: Status
    message: str
    stats: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        if name in FRAME_FIELDS or name == "total":
            return getattr(self.frames, name)
        raise AttributeError(name)

    def columns(self, points: Sequence[BodyPoint] | None = None) -> dict[str, FloatArray]:
        """The documented CSV columns (docs/results-csv.md); the point columns last, for ``points`` (default:
        every named body point, ``()``: none; core.systems.points)."""
        f, s = self.frames, self.system
        cols: dict[str, FloatArray] = {"t": f.t}
        for k, name in enumerate(s.coord_names):
            cols[f"q.{name}"] = f.q[:, k]
        for k, name in enumerate(s.coord_names):
            cols[f"v.{name}"] = f.v[:, k]
        cols.update(reaction_columns(s, f.q, f.reactions))
        cols["energy.kinetic"] = f.kinetic
        cols["energy.potential"] = f.potential
        cols["energy.total"] = f.kinetic + f.potential
        cols["work.nonconservative"] = f.work
        extra = (self.stats or {}).get("columns") or {}  # contact runs: contacts and dissipation (core.run.events)
        cols.update({k: np.asarray(v) for k, v in extra.items() if len(v) == len(f.t)})
        cols["violation.position"] = f.violation_position
        cols["violation.velocity"] = f.violation_velocity
        cols["violation.position_before"] = f.violation_position_before
        cols["violation.velocity_before"] = f.violation_velocity_before
        cols.update(point_columns(s, f.q, points))
        return cols

    def to_csv(self, path: str, points: Sequence[BodyPoint] | None = None) -> None:
        """Write :meth:`columns` as CSV (atomically)."""
        write_csv(path, self.columns(points))

    def coordinate(self, name: str) -> FloatArray:
        """Time history of coordinate ``body.coord``."""
        return self.frames.q[:, self.system.coord_names.index(name)]


__all__ = ["FRAME_FIELDS", "REACTION_COMPONENTS", "Frame", "FrameBlock", "Trajectory", "concat_blocks",
           "reaction_columns"]
