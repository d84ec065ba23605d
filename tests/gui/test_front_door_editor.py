"""Issue 13 (13a), the editor's front door, driven with real mouse, wheel and key events (QTest) on the widgets:
the inspector (wheel only with focus, refusals shown at the field, minus signs, undo texts), redo keys, shortcut
tooltips, the Help menu, samples as untitled copies, New/Open forgetting the previous model, every problem of a
bad file, and an assembly failure that names the joint whose gap the canvas draws."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QObject, QPoint, QPointF, Qt, QTimer, Slot
from PySide6.QtGui import QContextMenuEvent, QDesktopServices, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu, QWidget

from mechstudio.core.model import edit, load_model
from mechstudio.core.systems.compile import compile_model
from tests.gui.conftest import SAMPLES

pytestmark = pytest.mark.gui
FOUR_BAR = str(SAMPLES / "four_bar.json")
TOL_PHI = 1e-10  # the editor's "assembled" threshold on ||Phi|| (gui.document.ASSEMBLED_TOL)


@pytest.fixture
def active(qtbot: Any, window: Any) -> Any:
    """The editor window, active (keyboard focus needs an active window), with the four-bar sample open."""
    assert window.open_file(FOUR_BAR)
    window.activateWindow()
    window.raise_()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    return window


def select_in_outline(window: Any, keys: list[tuple[str, str]]) -> None:
    """Click the outline rows of ``keys`` (Ctrl+click after the first), as a user selects several elements."""
    outline = window.outline
    for i, key in enumerate(keys):
        item = outline.item_for(key)
        outline.scrollToItem(item)
        rect = outline.visualItemRect(item)
        mod = Qt.KeyboardModifier.ControlModifier if i else Qt.KeyboardModifier.NoModifier
        QTest.mouseClick(outline.viewport(), Qt.MouseButton.LeftButton, mod, rect.center())
    assert window.document.selection == keys


def type_into(field: QWidget, text: str) -> None:
    """Click into ``field``, select its text, type ``text`` and press Enter."""
    QTest.mouseClick(field, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(12, field.height() // 2))
    assert field.hasFocus()
    QTest.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(field, text)
    QTest.keyClick(field, Qt.Key.Key_Return)


def wheel(widget: QWidget, notches: int) -> None:
    """``notches`` clicks of a mouse wheel over the centre of ``widget`` (delivered like a real one)."""
    pos = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(pos, QPointF(widget.mapToGlobal(pos.toPoint())), QPoint(0, 0), QPoint(0, 120 * notches),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def test_wheel_changes_a_field_only_with_keyboard_focus(qtbot: Any, active: Any) -> None:
    doc = active.document
    select_in_outline(active, [("ground_points", "D")])
    x_field = active.inspector.field("/ground/points/D/0")
    assert not x_field.hasFocus()
    before = doc.model
    wheel(x_field, 5)  # what the issue saw: a coordinate going from 4 to 9 m while scrolling the panel
    assert doc.model is before and doc.undo_stack.count() == 0
    assert x_field.value() == pytest.approx(4.0)
    QTest.mouseClick(x_field, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(12, x_field.height() // 2))
    assert x_field.hasFocus()
    wheel(x_field, 1)  # focused: the wheel steps the value by one (single step 1)
    assert doc.model.data["ground"]["points"]["D"][0] == pytest.approx(5.0)
    assert doc.undo_stack.text(doc.undo_stack.index() - 1) == "Set D.x to 5 m"


def test_minus_one_and_zero_mass_are_refused_next_to_the_field(qtbot: Any, active: Any) -> None:
    doc = active.document
    select_in_outline(active, [("bodies", "crank")])
    mass = active.inspector.field("/bodies/0/mass")
    type_into(mass, "-1")
    assert doc.model.data["bodies"][0]["mass"] == 1.0 and doc.undo_stack.count() == 0  # model unchanged
    assert mass.cleanText() == "-1"  # the typed value stays in the field, which is marked ...
    assert mass.styleSheet()
    label = active.inspector.error_label_for("/bodies/0/mass")  # ... and the reason is right under it
    assert label.isVisible() and not label.visibleRegion().isEmpty()
    assert label.text() == "The mass must be greater than 0 kg: -1 kg was not applied, the model keeps 1 kg."
    gap = label.mapToGlobal(QPoint(0, 0)).y() - mass.mapToGlobal(QPoint(0, mass.height())).y()
    assert 0 <= gap <= 6, gap  # directly below the field, not at the bottom of the panel
    assert abs(label.mapToGlobal(QPoint(0, 0)).x() - mass.mapToGlobal(QPoint(0, 0)).x()) <= 2
    type_into(mass, "0")
    assert doc.model.data["bodies"][0]["mass"] == 1.0 and "0 kg was not applied" in label.text()
    type_into(mass, "2")
    assert doc.model.data["bodies"][0]["mass"] == 2.0
    assert not label.isVisible() and not mass.styleSheet()
    assert doc.undo_stack.count() == 1 and doc.undo_stack.undoText() == "Set crank.mass to 2 kg"


def test_minus_sign_where_a_value_may_be_negative(qtbot: Any, active: Any) -> None:
    doc = active.document
    active.document.set_selection([])  # the model's own fields: gravity may point anywhere
    gx = active.inspector.field("/gravity/0")
    type_into(gx, "-1.5")
    assert doc.model.data["gravity"] == [-1.5, -9.81]
    assert doc.undo_stack.undoText() == "Set model gravity.x to -1.5 m/s²"
    select_in_outline(active, [("bodies", "crank")])
    phi = active.inspector.field("/bodies/0/initial/phi")  # shown in degrees, stored in radians
    type_into(phi, "-30")
    assert doc.model.data["bodies"][0]["initial"]["phi"] == pytest.approx(math.radians(-30))
    assert doc.undo_stack.undoText() == "Set crank.initial.phi to -30 °"


def test_a_refused_name_is_explained_at_the_name_field(qtbot: Any, active: Any) -> None:
    select_in_outline(active, [("bodies", "crank")])
    name = active.inspector.field("name")
    type_into(name, "rocker")
    label = active.inspector.error_label_for("name")
    assert label.isVisible() and "already used" in label.text()
    assert label.mapToGlobal(QPoint(0, 0)).y() - name.mapToGlobal(QPoint(0, name.height())).y() <= 6
    assert edit.names(active.document.model, "bodies") == ["crank", "coupler", "rocker"]


def test_delete_undo_text_counts_what_is_deleted(qtbot: Any, active: Any) -> None:
    doc = active.document
    select_in_outline(active, [("joints", "A"), ("joints", "B"), ("joints", "D")])
    QTest.keyClick(active.outline, Qt.Key.Key_Delete)
    assert edit.names(doc.model, "joints") == ["O"]
    assert doc.undo_stack.undoText() == "Delete 3 elements"
    assert active.act_undo.toolTip() == "Undo Delete 3 elements (Ctrl+Z)"
    QTest.keyClick(active, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    select_in_outline(active, [("joints", "B")])
    QTest.keyClick(active.outline, Qt.Key.Key_Delete)
    assert doc.undo_stack.undoText() == "Delete B"


@pytest.mark.parametrize("redo_key", [(Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier),
                                      (Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
                                       | Qt.KeyboardModifier.ShiftModifier)])
def test_ctrl_y_and_ctrl_shift_z_redo(qtbot: Any, active: Any, redo_key: tuple[Any, Any]) -> None:
    doc = active.document
    select_in_outline(active, [("bodies", "crank")])
    type_into(active.inspector.field("/bodies/0/mass"), "2")
    active.canvas.setFocus()
    QTest.keyClick(active.canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert doc.model.data["bodies"][0]["mass"] == 1.0
    assert active.act_redo.toolTip().startswith("Redo Set crank.mass to 2 kg (")
    QTest.keyClick(active.canvas, *redo_key)
    assert doc.model.data["bodies"][0]["mass"] == 2.0
    assert {"Ctrl+Y", "Ctrl+Shift+Z"} <= {k.toString() for k in active.act_redo.shortcuts()}


def test_toolbar_buttons_keep_their_size_and_tooltips_carry_text_and_shortcut(qtbot: Any, active: Any) -> None:
    doc = active.document
    undo_button = active.toolbar_file.widgetForAction(active.act_undo)
    size = undo_button.size()
    positions = [active.toolbar_file.widgetForAction(a).pos() for a in (active.act_fit, active.act_reassemble)]
    doc.push_edit(edit.set_ground_point(doc.base_model(), "D", [4.2, 0.0]), "Move ground point D")
    assert undo_button.size() == size
    assert [active.toolbar_file.widgetForAction(a).pos() for a in (active.act_fit, active.act_reassemble)] == \
        positions
    assert active.act_undo.toolTip() == "Undo Move ground point D (Ctrl+Z)"
    assert active.act_save.toolTip().endswith("(Ctrl+S)")
    for i in range(active.palette.count()):  # every palette entry explains itself
        assert len(active.palette.item(i).toolTip()) > 10


class UrlRecorder(QObject):
    """Stands in for the desktop's browser: QDesktopServices hands it the URL instead of opening anything."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[Any] = []

    @Slot("QUrl")
    def open(self, url: Any) -> None:  # noqa: A003 - the slot name QDesktopServices calls
        self.urls.append(url)


def test_help_menu_quick_start_shortcuts_and_documentation(qtbot: Any, active: Any) -> None:
    texts = [a.text() for a in active.menu_help.actions() if not a.isSeparator()]
    assert texts[:3] == ["&Quick start", "&Keyboard shortcuts", "&Documentation"]
    active.act_shortcuts.trigger()
    rows = active.shortcuts_dialog.rows()
    qtbot.addWidget(active.shortcuts_dialog)
    assert any("Ctrl+Y" in keys and what == "Redo" for _w, keys, what in rows)
    assert any("F1" in keys and what == "Quick start" for _w, keys, what in rows)
    QTest.keyClick(active, Qt.Key.Key_F1)
    dialog = active.quick_start_dialog
    qtbot.addWidget(dialog)
    assert dialog.isVisible()
    text = dialog.browser.toPlainText()
    from mechstudio.gui.editor.placement import PALETTE  # the page names the palette entries as the palette shows them
    for kind in ("ground", "bar", "revolute"):
        assert PALETTE[kind][0] in text
    assert "DOF: 1" in text and "Run" in text and "F5" in text
    recorder = UrlRecorder()
    QDesktopServices.setUrlHandler("file", recorder, "open")
    try:
        active.act_documentation.trigger()
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert len(recorder.urls) == 1 and Path(recorder.urls[0].toLocalFile()).name == "README.md"
    assert Path(recorder.urls[0].toLocalFile()).exists()


def test_inspector_field_context_menu_hook(qtbot: Any, active: Any) -> None:
    """The place a parameter-sweep tool plugs in: an entry in every number field's right-click menu."""
    chosen: list[str] = []
    requested: list[str] = []
    active.inspector.add_field_action("Sweep this", chosen.append)
    active.inspector.fieldContextMenuRequested.connect(lambda ptr, _pos: requested.append(ptr))
    select_in_outline(active, [("bodies", "crank")])
    mass = active.inspector.field("/bodies/0/mass")

    def pick() -> None:
        menu = QApplication.activePopupWidget()
        assert isinstance(menu, QMenu)
        [action] = [a for a in menu.actions() if a.text() == "Sweep this"]
        action.trigger()
        menu.close()
    QTimer.singleShot(100, pick)
    center = mass.rect().center()
    QApplication.sendEvent(mass, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, center, mass.mapToGlobal(center)))
    assert requested == chosen == ["/bodies/0/mass"]


def test_sample_opens_as_untitled_copy_and_save_asks_where(qtbot: Any, active: Any, messenger: Any,
                                                           tmp_path: Path) -> None:
    shipped = Path(FOUR_BAR).read_bytes()
    doc = active.document
    assert doc.path is None and "copy of a sample" in active.windowTitle()
    doc.push_edit(edit.set_ground_point(doc.base_model(), "D", [4.2, 0.0]), "Move ground point D")
    messenger.next_save = str(tmp_path / "my_four_bar.json")
    QTest.keyClick(active, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)  # Save: asks where (a path)
    assert doc.path == messenger.next_save and not doc.modified
    assert load_model(messenger.next_save).data["ground"]["points"]["D"] == [4.2, 0.0]
    assert Path(FOUR_BAR).read_bytes() == shipped
    assert not active.save_as(FOUR_BAR)  # even chosen explicitly, a shipped sample is never overwritten
    assert "read-only" in messenger.errors[-1][1] and Path(FOUR_BAR).read_bytes() == shipped
    assert FOUR_BAR not in active.recent_files()


def test_new_and_open_forget_the_previous_model(qtbot: Any, active: Any, ui: Any, messenger: Any) -> None:
    active.canvas.set_view(120.0, (2.0, 1.2))
    select_in_outline(active, [("bodies", "crank")])
    type_into(active.inspector.field("/bodies/0/mass"), "-1")  # a refusal on screen
    ui.palette_drag("spring", 0.5, math.sqrt(3) / 2)  # on joint A: a spring waiting for its second end
    assert active.canvas.pending is not None
    messenger.save_answer = "discard"
    QTest.keyClick(active, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert active.canvas.pending is None and active.canvas.armed is None
    assert active.document.selection == [] and not active.document.model.data.get("bodies")
    assert "copy of a sample" not in active.windowTitle()
    assert active.inspector.error_label_for("/bodies/0/mass") is None  # the form was rebuilt for the new model
    QTest.mouseClick(active.palette.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     active.palette.item_rect("bar").center())  # arm a tool, then open a file
    assert active.canvas.armed == "bar"
    assert active.open_file(str(SAMPLES / "pendulum.json"))
    assert active.canvas.armed is None and active.document.undo_stack.count() == 0


def test_a_file_with_several_problems_lists_them_all(qtbot: Any, active: Any, messenger: Any,
                                                     tmp_path: Path) -> None:
    data = json.loads(Path(FOUR_BAR).read_text())
    data["bodies"][2]["name"] = "crank"  # a duplicate name ...
    data["joints"][1]["point1"] = "nowhere"  # ... a point that does not exist ...
    data["joints"][2]["body2"] = "nobody"  # ... and a body that does not exist
    bad = tmp_path / "three_problems.json"
    bad.write_text(json.dumps(data))
    before = active.document.model
    assert not active.open_file(str(bad))
    title, diagnostics = messenger.diagnostic_calls[-1]
    pointers = {d.pointer for d in diagnostics}
    assert {"/bodies/2/name", "/joints/1/point1", "/joints/2/body2"} <= pointers
    assert active.document.model is before


def short_rocker(window: Any) -> None:
    """Type a 0.05 m rocker into the inspector: the four-bar's loop can no longer close (the crank angle is held
    at 60 degrees, so A-D = 3.6 m > coupler 3.5 m + rocker 0.05 m)."""
    select_in_outline(window, [("bodies", "rocker")])
    type_into(window.inspector.field("/bodies/2/points/b/0"), "0.05")


def test_assembly_failure_names_and_draws_the_open_joint(qtbot: Any, active: Any) -> None:
    short_rocker(active)
    doc = active.document
    a = doc.analysis
    assert a.state == "failed" and a.offending == ("B",)  # the old diagnosis blamed D, a closed joint here
    assert "NOT assembled: B open" in active.status_text()
    # what the canvas draws: every other joint closed, B's two points apart by the residual it names
    joints = {j.name: j for j in active.canvas.geometry.joints}
    for name in ("O", "A", "D"):
        assert math.dist(joints[name].p1, joints[name].p2) < 1e-9, name
    gap = math.dist(joints["B"].p1, joints["B"].p2)
    assert gap == pytest.approx(a.residual, rel=1e-9) and gap > 0.1
    # independent of the editor: the loop A-B-D cannot close, the smallest possible gap is |AD| - 3.5 - 0.05
    system = compile_model(doc.model)
    ax, ay = math.cos(math.radians(60)), math.sin(math.radians(60))
    assert gap >= math.hypot(4 - ax, ay) - 3.55 - 1e-9
    assert float(np.linalg.norm(system.phi(system.initial_guess(), 0.0))) == pytest.approx(gap, rel=1e-9)
    # fixing the length assembles again
    type_into(active.inspector.field("/bodies/2/points/b/0"), "3")
    assert doc.analysis.state == "assembled" and "Assembled" in active.status_text()


def test_diagnose_failure_core(qtbot: Any) -> None:
    """mechstudio.core.kinematics.assembly.diagnose_failure on its own: the culprit is the constraint whose omission lets the
    rest assemble, and in the configuration returned it is the only one open."""
    from mechstudio.core.kinematics.assembly import assemble, constraint_residuals, diagnose_failure
    model = edit.set_value(load_model(FOUR_BAR), "/bodies/2/points/b/0", 0.05)
    system = compile_model(model)
    q0, hold = system.initial_guess(), system.held_coordinates()
    assert not assemble(system, q0, 0.0, hold=hold).status.ok
    d = diagnose_failure(system, q0, 0.0, hold=hold)
    assert d.isolated and d.constraint == "B"
    residuals = dict(constraint_residuals(system, d.q, 0.0))
    assert residuals["B"] == pytest.approx(d.residual) and d.residuals[0][0] == "B"
    assert max(r for name, r in residuals.items() if name != "B") < TOL_PHI
    assert all(abs(d.q[i] - q0[i]) < 1e-15 for i in hold)  # the held crank angle is kept


def test_palette_says_it_builds_planar_models(qtbot: Any, active: Any, ui: Any) -> None:
    """On a spatial model a drop from the planar palette cannot work: the palette says so instead."""
    assert active.palette.isEnabled() and active.dock_palette.windowTitle() == "Palette"
    assert active.open_file(str(SAMPLES / "spherical_chain_3.json"))
    assert not active.palette.isEnabled() and "planar models only" in active.dock_palette.windowTitle()
    assert "Spatial tree" in active.palette.toolTip()
    before = active.document.model
    ui.palette_drag("bar", 0.0, 0.0)  # a drag from the disabled palette does nothing
    assert active.document.model is before
    QTest.keyClick(active, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert active.palette.isEnabled()
