"""What the canvas's linkage overlays show for one configuration, computed from the core's analyses (no Qt).

The pieces of an :class:`~mechstudio.gui.editor.analysis_overlay.OverlayPicture`:

* **instant centres** of every pair of links at (q, q') (:func:`mechstudio.core.analysis.linkage.instant_centres`),
  named ``I<i><j>`` by Norton's link numbers (R. L. Norton, *Design of Machinery*, ch. 6: the ground is link 1, the
  bodies are 2, 3, ... in file order; ``I2,11`` once a number has two digits). The velocities q' are those of the
  mechanism's one free motion where its joints leave it one (:func:`free_motion`: the null space of the joints'
  velocity constraints C_j q' = 0, drivers left out). For such a mechanism every velocity state is a multiple of
  that motion, and the instant centres do not depend on the multiple (the relative centre
  P = perp(u) / (omega_i - omega_j) of docs/analysis-linkage.md is unchanged when u and omega are scaled), so they
  are the centres of any frame of a run, also where the run's mechanism is momentarily at rest. A mechanism with
  more degrees of freedom needs the velocities of the frame shown.
* **Kennedy lines** (:func:`kennedy_lines`): for every three links, the line through their three relative centres
  (collinear by the Aronhold-Kennedy theorem).
* **transmission angle** (:func:`transmission_arc`): the angle mu at the coupler-output joint B of a four-bar or
  slider-crank (:meth:`mechstudio.core.analysis.linkage.Linkage.transmission_angle`), between B->A and B->O4, or
  between the rod and the normal of the slide.
* **limit positions and stops** (:func:`ghost_of`): the mechanism drawn in the poses of the crank sweep
  (:meth:`mechstudio.core.analysis.linkage.Linkage.sweep`).
"""
from __future__ import annotations

import math
from itertools import combinations
from typing import Any

import numpy as np

from mechstudio.core.analysis.linkage import FOUR_BAR, InstantCentre, Linkage, LinkagePosition, instant_centres
from mechstudio.core.drawing.build import posed_scene
from mechstudio.core.elements.base import GROUND
from mechstudio.core.kinematics.assembly import RANK_RTOL
from mechstudio.core.types import FloatArray
from mechstudio.gui.editor.analysis_overlay import AngleArc, CentreMark, Ghost, KennedyLine

#: the number of the ground link in the centres' names
GROUND_NUMBER = 1
#: a transmission angle below this (or above 180 degrees minus this) is poor: the usual design rule for smooth
#: running (R. L. Norton, *Design of Machinery*, ch. 4, "Transmission angles") [deg]
POOR_TRANSMISSION_DEG = 40.0
#: Kennedy lines are drawn for models with at most this many links (ground included): n links have
#: n (n - 1) (n - 2) / 6 lines (20 for 6)
KENNEDY_MAX_LINKS = 6
#: two centres nearer than this fraction of the model's size are one point (no line through them alone)
COINCIDENT_RTOL = 1e-9


def link_numbers(model: Any) -> dict[str, int]:
    """Norton's link numbers: the ground 1, the bodies 2, 3, ... in file order."""
    numbers = {GROUND: GROUND_NUMBER}
    for k, b in enumerate(model.bodies):
        numbers[b.name] = GROUND_NUMBER + 1 + k
    return numbers


def centre_label(pair: tuple[str, str], numbers: dict[str, int]) -> str:
    """``I12`` for the pair's link numbers, smaller first (``I2,11`` when a number has two digits)."""
    a, b = sorted(numbers[x] for x in pair)
    return f"I{a}{b}" if a < 10 and b < 10 else f"I{a},{b}"


def legend(numbers: dict[str, int]) -> str:
    """"links: 1 ground, 2 crank, ..." (the names behind the centres' numbers)."""
    return "links: " + ", ".join(f"{n} {name}" for name, n in sorted(numbers.items(), key=lambda kv: kv[1]))


def joint_rows(system: Any) -> list[int]:
    """Rows of the velocity constraints C of the joints (every constraint but the drivers)."""
    drivers = {d.name for d in system.model.drivers}
    return sorted(r for c in system.constraints if c.name not in drivers for r in c.rows)


def free_motion(system: Any, q: FloatArray, t: float = 0.0) -> tuple[FloatArray | None, int]:
    """(v, d): the joints' degrees of freedom d at q (n minus the rank of their rows of C, rank by the relative
    tolerance ``RANK_RTOL`` of core.kinematics.assembly) and, when d = 1, a unit velocity q' of that one free
    motion (None otherwise)."""
    rows = joint_rows(system)
    n = system.n
    if not rows:
        return (None, n) if n != 1 else (np.ones(1), 1)
    C = np.asarray(system.constraint_matrix(np.asarray(q, float), t), float)[rows]
    _, sv, Wt = np.linalg.svd(C)
    rank = int(np.sum(sv > RANK_RTOL * max(float(sv[0]) if sv.size else 0.0, 1e-300)))
    dof = n - rank
    return (Wt[rank].copy() if dof == 1 else None), dof


def centre_marks(system: Any, q: FloatArray, v: FloatArray) -> tuple[CentreMark, ...]:
    """The instant centres of every pair of links at (q, q'), labelled (module docstring)."""
    numbers = link_numbers(system.model)
    centres: dict[tuple[str, str], InstantCentre] = instant_centres(system, q, v)
    return tuple(CentreMark(centre_label(pair, numbers), pair, c.point, c.direction) for pair, c in centres.items())


def kennedy_lines(marks: tuple[CentreMark, ...], scale: float) -> tuple[KennedyLine, ...]:
    """The line of every three links whose three centres are defined (two of them finite and apart, or one finite
    and one at infinity; ``scale`` [m] the model's size for "apart"). Empty beyond :data:`KENNEDY_MAX_LINKS`."""
    by_pair = {frozenset(m.pair): m for m in marks}
    links = sorted({b for m in marks for b in m.pair}, key=lambda b: (b != GROUND, b))
    if len(links) > KENNEDY_MAX_LINKS:
        return ()
    lines = []
    for trio in combinations(links, 3):
        ms = [by_pair.get(frozenset(p)) for p in combinations(trio, 2)]
        if any(m is None or (m.point is None and m.direction is None) for m in ms):
            continue
        finite = [np.asarray(m.point, float) for m in ms if m.point is not None]
        infinite = [np.asarray(m.direction, float) for m in ms if m.point is None]
        labels = tuple(sorted(m.label for m in ms))
        if len(finite) >= 2:
            a, b = max(combinations(finite, 2), key=lambda ab: float(np.linalg.norm(ab[0] - ab[1])))
            if np.linalg.norm(b - a) > COINCIDENT_RTOL * scale:
                d = (b - a) / np.linalg.norm(b - a)
            elif infinite:
                d = infinite[0]
            else:
                continue
        elif len(finite) == 1 and infinite:
            d = infinite[0]
        else:
            continue
        lines.append(KennedyLine(labels, (float(finite[0][0]), float(finite[0][1])), (float(d[0]), float(d[1])),
                                 tuple((float(p[0]), float(p[1])) for p in finite), bool(infinite)))
    return tuple(lines)


def transmission_arc(linkage: Linkage, q: FloatArray) -> AngleArc:
    """The transmission angle mu at B (module docstring): its rays, its value [rad], its text in degrees."""
    A, B = np.asarray(linkage.points(np.asarray(q, float)), float)
    BA = A - B
    if linkage.topology.kind == FOUR_BAR:
        other = linkage.O4 - B
    else:  # the slide's normal, on the rod's side: the angle between the two is mu in [0, 90] degrees
        other = linkage.normal if float(np.dot(linkage.normal, BA)) >= 0 else -linkage.normal
    mu = float(linkage.transmission_angle(np.asarray(q, float)))
    deg = math.degrees(mu)
    poor = deg < POOR_TRANSMISSION_DEG or deg > 180.0 - POOR_TRANSMISSION_DEG
    r1, r2 = BA / np.linalg.norm(BA), other / np.linalg.norm(other)
    return AngleArc((float(B[0]), float(B[1])), (float(r1[0]), float(r1[1])), (float(r2[0]), float(r2[1])), mu,
                    f"μ = {deg:.1f}°", poor)


def position_label(position: LinkagePosition) -> str:
    """"limit θ2 = 123.4°" or "stop θ2 = ..."."""
    return f"{position.kind} θ2 = {math.degrees(position.crank_angle):.1f}°"


def ghost_of(system: Any, linkage: Linkage, position: LinkagePosition) -> Ghost:
    """The outline of the mechanism of ``system`` in the pose of ``position``, labelled at its output joint B."""
    sg = posed_scene(system, position.q)
    segments = tuple((tuple(map(float, a)), tuple(map(float, c))) for b in sg.bodies for a, c, _w in b.bars)
    polygons = tuple(tuple(tuple(map(float, v)) for v in poly) for b in sg.bodies for poly in b.polygons)
    disks = tuple(((float(c[0]), float(c[1])), float(r)) for b in sg.bodies for c, r, _s in b.disks)
    B = np.asarray(linkage.points(position.q), float)[1]
    return Ghost(position.kind, position_label(position), (float(B[0]), float(B[1])), segments, polygons, disks)


def user_reason(message: str) -> str:
    """A LinkageError's message without the file name in front and the long "(expected: ...)" at the end."""
    text = message
    head, sep, rest = text.partition(": not a ")
    if sep:
        text = "not a " + rest
    return text.split(" (expected:")[0]


__all__ = ["GROUND_NUMBER", "KENNEDY_MAX_LINKS", "POOR_TRANSMISSION_DEG", "centre_label", "centre_marks",
           "free_motion", "ghost_of", "joint_rows", "kennedy_lines", "legend", "link_numbers", "position_label",
           "transmission_arc", "user_reason"]
