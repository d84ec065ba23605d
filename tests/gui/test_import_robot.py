"""File > Import URDF or MJCF: the editor's side of core/interop/robot_import.py (the conversions are tested in
tests/test_interop_urdf.py and tests/test_interop_mjcf_import.py): the menu entry, the untitled spatial model, the
import report of what was dropped, and a bad file refused with its line while the open model stays."""
from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ARM = ROOT / "sample_models" / "imports" / "three_axis_arm.urdf"


def test_import_menu_opens_the_arm_with_its_report(window: Any, messenger: Any) -> None:
    from mechstudio.gui.widgets.menu_actions import menu_actions
    assert ("File", window.act_import_robot) in list(menu_actions(window.menuBar()))
    messenger.next_open = str(ARM)
    window.act_import_robot.trigger()
    doc = window.document
    assert doc.path is None and doc.model.kind == "spatial"
    assert sorted(b["name"] for b in doc.model.data["bodies"]) == ["forearm", "gripper", "turret", "upper_arm"]
    (title, report), = messenger.diagnostic_calls
    assert title == "URDF import of three_axis_arm.urdf"
    assert any("fixed to the ground" in d.message for d in report)


def test_a_bad_file_is_refused_and_the_model_kept(window: Any, messenger: Any, tmp_path: Path) -> None:
    before = window.document.model
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco>\n<worldbody>\n</mujoco>\n")
    assert not window.import_robot(str(bad))
    assert window.document.model is before
    (title, diagnostics), = messenger.diagnostic_calls
    assert "Cannot import" in title and diagnostics[0].file.endswith("bad.xml:3")
