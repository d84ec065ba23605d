"""The main window opens a model and shows it: status bar, outline, a canvas that is not blank, screenshots."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_models"


def test_default_model_window_screenshot(qtbot: Any, window: Any, ui: Any) -> None:
    """`make run`'s window on the four-bar: the status bar shows 1 DOF and the canvas is drawn (not blank)."""
    assert window.open_file(str(SAMPLES / "four_bar.json"))
    window.canvas.zoom_to_fit()
    qtbot.wait(50)
    assert "DOF: 1" in window.status_text()
    assert "Redundant: none" in window.status_text()
    assert "Assembled" in window.status_text()
    assert window.outline.item_for(("bodies", "coupler")) is not None
    canvas_png = ui.save_screenshot(window.canvas, "editor_canvas_four_bar.png")
    assert ui.non_background_fraction(canvas_png) > 0.02  # bars, joints and grid are drawn
    window.document.set_selection([("bodies", "coupler")])  # the inspector shows its fields, handles appear
    qtbot.wait(30)
    shot = ui.save_screenshot(window, "editor_four_bar.png")
    assert ui.non_background_fraction(shot) > 0.05
    canvas_png.unlink()


def test_parallelogram_reports_redundant_constraint(qtbot: Any, window: Any) -> None:
    assert window.open_file(str(SAMPLES / "parallelogram.json"))
    assert "Redundant: none" not in window.status_text()


def test_every_sample_opens(qtbot: Any, window: Any, messenger: Any) -> None:
    for path in sorted(SAMPLES.glob("*.json")):
        assert window.open_file(str(path), ask=False), (path, messenger.diagnostic_calls)
        assert window.document.model.name
    assert not messenger.diagnostic_calls


def test_open_sample_menu_lists_samples_with_descriptions(window: Any) -> None:
    actions = window.menu_samples.actions()
    names = {a.text() for a in actions}
    assert {"four_bar", "pendulum", "double_pendulum"} <= names
    assert all(a.toolTip() for a in actions if a.text() == "four_bar")


def test_cli_headless_subcommand_needs_no_display() -> None:
    """`mechstudio info FILE` runs without Qt: PySide6 is made unimportable in the child process."""
    code = ("import sys; sys.modules['PySide6'] = None; from gui.cli import main; "
            f"sys.exit(main(['info', {str(SAMPLES / 'four_bar.json')!r}]))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "invalid"})
    assert out.returncode == 0, out.stderr
    assert "degrees of freedom" in out.stdout


def test_bare_mechstudio_opens_an_empty_planar_model(qtbot: Any) -> None:
    """What `make run` / a bare `mechstudio` does: build_window with no file, no recovery pending: an empty planar
    model, where the Quick start begins (the palette is enabled)."""
    from mechstudio.gui.app import build_window, create_application
    create_application()
    w = build_window(None)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    assert w.document.path is None and w.sample_source is None
    assert w.document.model.kind == "planar" and not w.document.model.data.get("bodies")
    assert w.palette.isEnabled()
    assert not w.document.modified


RUN_AND_GRAB = """
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
import mechstudio.gui.app as app_module

def grab():
    app = QApplication.instance()
    if app.thread().loopLevel() == 0:  # start-up still paints inside processEvents: quit() would be lost
        QTimer.singleShot(200, grab)
        return
    app.primaryScreen().grabWindow(0).save(sys.argv[2])
    app.quit()

create = app_module.create_application
def create_and_schedule(*args):
    app = create(*args)
    QTimer.singleShot(2500, grab)
    return app
app_module.create_application = create_and_schedule
sys.exit(app_module.run(sys.argv[1]))
"""


def test_run_opens_the_window_on_the_model_screen_grab(tmp_path: Path, ui: Any) -> None:
    """The real start-up path of `make run` (gui.app.run) in its own process; the X screen shows the model."""
    import os
    out = tmp_path / "screen.png"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", RUN_AND_GRAB, str(SAMPLES / "four_bar.json"), str(out)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr
    assert out.exists()
    assert ui.non_background_fraction(out) > 0.1
