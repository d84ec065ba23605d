"""*Analysis → Synthesize linkage…* with a six-bar: the drawn pose is the six-bar's, the dialog runs the six-bar
search and opens its result as a model.

Independent check of the pose (gui/editor/synthesis_overlay.py, ``six_bar_pose``): every link drawn is rigid -- the
distances between the points of each link's polygon are the same at two crank angles (a point put on the wrong
link, e.g. U on the coupler instead of the rocker, changes its distances as the crank turns) -- the bars have the
six-bar's link lengths, the traced point is the core's path point, and the ground carries the dyad's pivot exactly
when the topology hangs link 6 from the ground. Distances to 1e-9 of the link scale (the closed form's rounding is
~1e-15; the assembly of a random six-bar stays away from its folds).
"""
from __future__ import annotations

from itertools import combinations
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from mechstudio.core.analysis.synthesis_sixbar import TOPOLOGIES
from mechstudio.core.analysis.synthesis_sixbar_path import SixBarCandidate
from mechstudio.gui.analysis.synthesis_tables import DEFAULT_TIME_S, SIX_BAR_TIME_S
from mechstudio.gui.editor.synthesis_overlay import six_bar_pose
from tests.sixbar_helpers import known_sixbar, random_sixbar

RTOL = 1e-9


def distances(points: tuple[tuple[float, float], ...]) -> list[float]:
    return [float(np.hypot(p[0] - q[0], p[1] - q[1])) for p, q in combinations(points, 2)]


@pytest.mark.parametrize("topology", sorted(TOPOLOGIES))
def test_the_drawn_six_bar_is_rigid_and_has_its_lengths(topology: str) -> None:
    g, theta = random_sixbar(np.random.default_rng(7), topology, 4)
    cand = SimpleNamespace(geometry=g)
    first, later = six_bar_pose(cand, float(theta[0])), six_bar_pose(cand, float(theta[-1]))  # type: ignore[arg-type]
    scale = g.link_scale
    assert len(first.links) == 5
    for a, b in zip(first.links, later.links):
        np.testing.assert_allclose(distances(a), distances(b), atol=RTOL * scale)
    crank, coupler, rocker, link5, link6 = first.links
    L = g.lengths
    for link, length in ((crank, L["crank"]), (coupler, L["coupler"]), (rocker, L["rocker"]), (link5, L["link5"]),
                         (link6, L["link6"])):
        assert abs(distances(link[:2])[0] - length) <= RTOL * scale
    np.testing.assert_allclose(first.P, g.coupler_point(np.array([theta[0]]))[0], atol=RTOL * scale)
    assert len(first.ground) == (3 if TOPOLOGIES[topology].v_link == "ground" else 2)


def test_the_dialog_runs_a_six_bar_and_opens_it(qtbot: Any, window: Any, messenger: Any) -> None:
    window.act_synthesize_linkage.trigger()
    dialog = window.synthesis_dialog
    qtbot.waitExposed(dialog)
    combo = dialog.path_page.linkage_combo
    assert dialog.time_spin.value() == DEFAULT_TIME_S
    combo.setCurrentIndex(combo.findData("watt2"))
    assert dialog.time_spin.value() == SIX_BAR_TIME_S  # an untouched budget follows the linkage
    combo.setCurrentIndex(combo.findData("fourbar"))
    assert dialog.time_spin.value() == DEFAULT_TIME_S
    dialog.time_spin.setValue(15)
    combo.setCurrentIndex(combo.findData("stephenson3"))
    assert dialog.time_spin.value() == 15  # the user's budget stays
    _, _, targets = known_sixbar(np.random.default_rng(3), "stephenson3", 8)
    for x, y in targets:
        dialog.add_target(float(x), float(y))
    with qtbot.waitSignal(dialog.sig_finished, timeout=240_000) as blocker:
        assert dialog.synthesize()
        assert "stephenson iii six-bar" in dialog.headline.text().lower()
    res = blocker.args[0]
    assert isinstance(res.best, SixBarCandidate), res.message
    assert dialog.picture.linkage is not None and len(dialog.picture.linkage.links) == 5
    assert dialog.open_as_model()
    names = {b["name"] for b in window.document.model.data["bodies"]}
    assert {"link5", "link6"} <= names
    window.document.undo_stack.setClean()


def test_stop_ends_a_six_bar_search_promptly(qtbot: Any, window: Any) -> None:
    """Stop ends a six-bar search within seconds (the search checks the worker's stop between its inner steps),
    keeping the best so far, whatever the budget."""
    import time
    window.act_synthesize_linkage.trigger()
    dialog = window.synthesis_dialog
    qtbot.waitExposed(dialog)
    combo = dialog.path_page.linkage_combo
    combo.setCurrentIndex(combo.findData("watt2"))
    _, _, targets = known_sixbar(np.random.default_rng(5), "watt2", 10)
    for x, y in targets:
        dialog.add_target(float(x), float(y))
    assert dialog.synthesize()
    qtbot.wait(3000)
    clock = time.perf_counter()
    with qtbot.waitSignal(dialog.sig_finished, timeout=60_000):
        dialog.stop_button.click()
    assert time.perf_counter() - clock < 30.0  # a budget of 240 s: the stop, not the budget, ended it
