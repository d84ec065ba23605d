"""Name labels on the canvas do not cover each other (gui/editor/label_layout.py, gui/editor/canvas.py).

The layout is checked on the pure function (a label whose preferred place is free keeps it; labels of one
anchor are moved apart; a previous choice is kept while free) and on the samples whose names crowd: at the
fitted zoom, the viewport rectangles of the canvas's text items overlap by less than OVERLAP_TOL_PX^2 pairwise
(an overlap of a fraction of a pixel is a rounding of the text metrics, not two names on each other).
"""
from __future__ import annotations

from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from mechstudio.gui.editor.analysis_overlay import canvas_label_rects
from mechstudio.gui.editor.label_layout import LabelRequest, place_labels

SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"
OVERLAP_TOL_PX = 1.0


def overlap(a: Any, b: Any) -> float:
    r = a.intersected(b)
    return 0.0 if r.isEmpty() else r.width() * r.height()


def test_a_free_preferred_place_is_kept() -> None:
    offsets, _ = place_labels([LabelRequest("a", (100, 100), (30, 12), (6, -18)),
                               LabelRequest("b", (300, 100), (30, 12), (6, -18))])
    assert offsets == [(6, -18), (6, -18)]


def test_labels_of_one_anchor_are_moved_apart() -> None:
    labels = [LabelRequest(k, (100, 100), (40, 12), (6, 2)) for k in "abc"]
    offsets, _ = place_labels(labels)
    rects = [(100 + dx, 100 + dy, 140 + dx, 112 + dy) for dx, dy in offsets]
    for r, s in combinations(rects, 2):
        assert min(r[2], s[2]) <= max(r[0], s[0]) or min(r[3], s[3]) <= max(r[1], s[1]), (r, s)


def test_a_previous_choice_is_kept_while_free() -> None:
    lone = [LabelRequest("a", (100, 100), (30, 12), (6, -18))]
    offsets, _ = place_labels(lone, {"a": 2})
    assert offsets[0] != (6, -18)  # the previous place (left of the anchor) wins over the preferred one
    _, chosen = place_labels(lone, {"a": 2})
    assert chosen == {"a": 2}


@pytest.mark.gui
@pytest.mark.parametrize("name", ["slider_crank_driven", "four_bar", "slider_crank_joint_friction"])
def test_sample_labels_do_not_overlap(window: Any, qtbot: Any, name: str) -> None:
    window.resize(1100, 760)
    window.show()
    qtbot.waitExposed(window)
    assert window.open_file(str(SAMPLES / f"{name}.json"), ask=False)
    canvas = window.canvas
    canvas.zoom_to_fit()
    rects = canvas_label_rects(canvas)
    assert len(rects) >= 4
    worst = max(overlap(a, b) for a, b in combinations(rects, 2))
    assert worst <= OVERLAP_TOL_PX, worst
