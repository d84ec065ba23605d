"""The point edits behind the canvas's traces (gui.editor.traced_points): ticks stored in the model file's
``editor`` section, auto-named points at body-frame coordinates, renaming a point with every reference."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mechstudio.core.errors import ModelError
from mechstudio.core.model import load_model, save_model
from mechstudio.gui.editor import traced_points as tp

SAMPLES = Path(__file__).resolve().parents[2] / "sample_models"


@pytest.fixture
def four_bar():
    return load_model(SAMPLES / "four_bar.json")


def test_ticks_live_in_the_editor_section_and_survive_save_and_load(four_bar, tmp_path: Path) -> None:
    m = tp.set_traced(four_bar, ("coupler", "b"), True)
    m = tp.set_traced(m, ("crank", "b"), True)
    assert m.data["editor"]["traces"] == ["coupler.b", "crank.b"]
    assert tp.set_traced(m, ("coupler", "b"), True) is m  # already ticked: no new model, no undo step
    path = tmp_path / "m.json"
    save_model(m, path)
    back = load_model(path)  # the schema accepts the section (free-form editor state)
    assert tp.traced(back) == [("coupler", "b"), ("crank", "b")]
    assert json.loads(path.read_text())["editor"] == {"traces": ["coupler.b", "crank.b"]}
    off = tp.set_traced(tp.set_traced(back, ("coupler", "b"), False), ("crank", "b"), False)
    assert "editor" not in off.data  # the last untick leaves no empty section behind
    assert tp.same_but_editor_state(m, four_bar) and not tp.same_but_editor_state(m, None)


def test_unknown_ticks_are_ignored_and_unknown_points_refused(four_bar) -> None:
    data = four_bar.copy_data()
    data["editor"] = {"traces": ["coupler.b", "coupler.nope", "ghost.a", "no_dot", "coupler.b"]}
    from mechstudio.core.model import model_from_data
    m = model_from_data(data)
    assert tp.traced(m) == [("coupler", "b")]
    with pytest.raises(ValueError, match="no point 'zz'"):
        tp.set_traced(m, ("coupler", "zz"), True)


def test_add_point_is_named_ticked_and_at_the_body_frame_coordinates(four_bar) -> None:
    body = next(b for b in four_bar.data["bodies"] if b["name"] == "coupler")
    x0, y0, phi = (body["initial"][k] for k in ("x", "y", "phi"))
    world = (1.3, 1.9)
    m, name = tp.add_point(four_bar, "coupler", world)
    assert name == "P1"
    local = next(b for b in m.data["bodies"] if b["name"] == "coupler")["points"]["P1"]
    # independent: rotate the offset from the frame origin back by phi
    dx, dy = world[0] - x0, world[1] - y0
    expected = (math.cos(phi) * dx + math.sin(phi) * dy, -math.sin(phi) * dx + math.cos(phi) * dy)
    assert local == pytest.approx(expected, abs=1e-12)
    assert ("coupler", "P1") in tp.traced(m)
    m2, name2 = tp.add_point(m, "coupler", (0.0, 0.0), trace=False)
    assert name2 == "P2" and ("coupler", "P2") not in tp.traced(m2)
    with pytest.raises(ValueError, match="ground"):
        tp.add_point(m, "ground", (0.0, 0.0))


def test_rename_point_follows_every_reference(four_bar) -> None:
    m = tp.set_traced(four_bar, ("coupler", "b"), True)
    r = tp.rename_point(m, "coupler", "b", "tip")
    c = next(b for b in r.data["bodies"] if b["name"] == "coupler")
    assert list(c["points"]) == ["a", "tip"]
    assert c["geometry"][0]["to"] == "tip"
    refs = [(j["body1"], j["point1"], j["body2"], j["point2"]) for j in r.data["joints"]]
    assert ("coupler", "tip") in [(b, p) for b1, p1, b2, p2 in refs for b, p in ((b1, p1), (b2, p2))]
    assert ("coupler", "b") not in [(b, p) for b1, p1, b2, p2 in refs for b, p in ((b1, p1), (b2, p2))]
    assert ("rocker", "b") in [(b, p) for b1, p1, b2, p2 in refs for b, p in ((b1, p1), (b2, p2))]  # other body
    assert tp.traced(r) == [("coupler", "tip")]
    with pytest.raises(ModelError, match="already has a point named 'a'"):
        tp.rename_point(m, "coupler", "b", "a")
    with pytest.raises(ModelError):
        tp.rename_point(m, "coupler", "b", "bad name")  # the name rule of the schema


def test_ticks_follow_a_body_rename(four_bar) -> None:
    from mechstudio.core.model import edit
    m = tp.set_traced(four_bar, ("coupler", "b"), True)
    r = tp.follow_body_rename(edit.rename(m, "bodies", "coupler", "link"), "coupler", "link")
    assert tp.traced(r) == [("link", "b")]
