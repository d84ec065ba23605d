"""Placement of the canvas's name labels so that they do not cover each other or the markers they name.

Pure geometry in viewport pixels (x right, y down), no Qt: each label has an anchor (the point it names), its
text size and the offset its caller prefers (the label's top-left corner relative to the anchor). The labels are
placed greedily in the order given (the canvas adds body names, then ground points, forces, joints, drivers:
earlier ones keep their preferred place): a label takes the first of its candidate places (the preferred offset,
then the places around the anchor: :func:`candidate_offsets`) whose rectangle overlaps no label already placed and
no marker box (:data:`MARKER_PX` around every anchor); when every candidate overlaps something, the one with the
least overlapping area. A label's previous choice is tried first (``previous``), so that labels do not jump from
frame to frame of a run's playback while their place stays free.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

#: distance [px] between an anchor and the nearest side of a label placed around it
GAP_PX = 5.0
#: half-size [px] of the square kept free around every anchor (the joint and point markers)
MARKER_PX = 5.0

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 [px]


@dataclass(frozen=True)
class LabelRequest:
    """A label to place: ``key`` (identifies it from one layout to the next), the anchor [px], the text's width
    and height [px] and the preferred offset of its top-left corner from the anchor [px]."""
    key: str
    anchor: tuple[float, float]
    size: tuple[float, float]
    preferred: tuple[float, float]


def candidate_offsets(size: tuple[float, float], preferred: tuple[float, float]) -> list[tuple[float, float]]:
    """The preferred offset, then right, left, above, below and the four diagonal places around the anchor at
    :data:`GAP_PX`, then the same eight places one text line further out."""
    w, h = size
    out = [preferred]
    for g in (GAP_PX, GAP_PX + h + 2.0):
        out += [(g, -h / 2), (-g - w, -h / 2), (-w / 2, -g - h), (-w / 2, g),
                (g, -g - h), (-g - w, -g - h), (g, g), (-g - w, g)]
    return out


def _rect(anchor: tuple[float, float], size: tuple[float, float], offset: tuple[float, float]) -> Rect:
    x0, y0 = anchor[0] + offset[0], anchor[1] + offset[1]
    return (x0, y0, x0 + size[0], y0 + size[1])


def _overlap(a: Rect, b: Rect) -> float:
    """Area [px^2] of the intersection of two rectangles."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _outside(r: Rect, bounds: Rect | None) -> float:
    """Area [px^2] of ``r`` outside ``bounds`` (the viewport; nothing when no bounds are given)."""
    if bounds is None:
        return 0.0
    area = (r[2] - r[0]) * (r[3] - r[1])
    return area - _overlap(r, bounds)


def least_covered(rects: Sequence[Rect], taken: Sequence[Rect], bounds: Rect | None = None,
                  penalty: Callable[[Rect], float] | None = None) -> int:
    """Index of the first of the candidate ``rects`` that overlaps none of ``taken``, lies inside ``bounds`` and
    has no ``penalty`` [px^2]; when there is none, of the one with the least overlapping area plus area outside
    plus penalty."""
    best, best_cost = 0, float("inf")
    for i, r in enumerate(rects):
        cost = sum(_overlap(r, t) for t in taken) + _outside(r, bounds) + (penalty(r) if penalty else 0.0)
        if cost == 0.0:
            return i
        if cost < best_cost:
            best, best_cost = i, cost
    return best


def place_labels(labels: Sequence[LabelRequest], previous: dict[str, int] | None = None,
                 bounds: Rect | None = None) -> tuple[list[tuple[float, float]], dict[str, int]]:
    """The offsets [px] of ``labels`` (module docstring) and each key's chosen candidate index (pass it back as
    ``previous`` at the next layout). A place partly outside ``bounds`` (the viewport) costs like an overlap of
    the part outside, so that a label near the edge is turned inwards."""
    previous = previous or {}
    markers = [(x - MARKER_PX, y - MARKER_PX, x + MARKER_PX, y + MARKER_PX) for x, y in (lb.anchor for lb in labels)]
    placed: list[Rect] = []
    offsets: list[tuple[float, float]] = []
    chosen: dict[str, int] = {}
    for k, lb in enumerate(labels):
        candidates = candidate_offsets(lb.size, lb.preferred)
        order = list(range(len(candidates)))
        last = previous.get(lb.key)
        if last is not None and 0 <= last < len(candidates):
            order.remove(last)
            order.insert(0, last)
        others = placed + [m for j, m in enumerate(markers) if j != k]
        best = order[least_covered([_rect(lb.anchor, lb.size, candidates[i]) for i in order], others, bounds)]
        offsets.append(candidates[best])
        chosen[lb.key] = best
        placed.append(_rect(lb.anchor, lb.size, candidates[best]))
    return offsets, chosen


__all__ = ["GAP_PX", "MARKER_PX", "LabelRequest", "Rect", "candidate_offsets", "least_covered", "place_labels"]
