"""The main window: menus, toolbar, the planar canvas in the centre, palette / outline / inspector / undo
history / spatial-tree docks, a status bar with the live DOF, redundant constraints and assembly state, and
empty docks for the live view (3D view, plots) of the live-simulation issue.

Hook for the live view: :meth:`MainWindow.add_live_view` puts widgets into the "3D view" and "Plots" docks;
:attr:`MainWindow.menu_simulation` and :attr:`MainWindow.toolbar_simulation` are empty until it fills them. If a
module ``mechstudio.gui.simulation`` exists and defines ``install_live_view(window)``, the window calls it once at the end
of its construction (see :meth:`_install_live_view`).

The window talks to the user only through :attr:`messenger` (message boxes, file dialogs, questions), so tests
replace it with a recorder instead of clicking modal dialogs.

Layout: the first start fills the screen's available area; :meth:`MainWindow.reset_layout` (*View → Reset
layout*, also applied on a first start) puts every dock back: palette (a grid of icons with labels) over the
outline on the left, properties / spatial tree / undo history as tabs over the 3D view on the right, plots
under the canvas. The toolbars have icon-only buttons of one fixed size (``mechstudio.gui.widgets.toolbar_style``), so a
changing text ("Undo Move G2", "Resume") lives in the tooltip and never moves the buttons or the time slider.
File and Simulation share the first toolbar row, the time bar has the second. The last session's window state
is restored at the end of the construction, once every toolbar and dock exists (:meth:`MainWindow._restore_layout`
says why); a state of another layout version, or one that leaves a toolbar out of its row, is not restored.

Samples (``sample_models/``) open as untitled copies: *Save* asks where to save, and no save ever overwrites a
shipped sample.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import os
import stat
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QEvent, QMimeData, QObject, QSettings, QSize, Qt, QTimer, QUrl
from PySide6.QtGui import QAction, QCloseEvent, QDesktopServices, QKeySequence, QShowEvent
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QDockWidget, QFileDialog, QLabel, QListView,
                               QMainWindow, QMessageBox, QStyle, QToolBar, QUndoView, QWidget)

from mechstudio.core.errors import Diagnostic, ModelError
from mechstudio.core.model import Model, empty_model_data, load_model, model_from_data, save_model
from mechstudio.core.model import edit
from mechstudio.gui.analysis import install_analysis
from mechstudio.gui.document import Analysis, Document
from mechstudio.gui.editor.canvas import PlanarCanvas
from mechstudio.gui.editor.palette import Palette
from mechstudio.gui.paths import SAMPLE_MODELS, config_dir, sample_models
from mechstudio.gui.recovery import Autosaver, clear_recovery, find_recovery
from mechstudio.gui.keyboard import install_keyboard
from mechstudio.gui.sweep import install_sweep
from mechstudio.gui.widgets.inspector import Inspector
from mechstudio.gui.widgets.outline import Outline
from mechstudio.gui.widgets.toolbar_style import stabilize_toolbar, track_shortcut_tooltips
from mechstudio.gui.widgets.tree_editor import TreeEditor

log = logging.getLogger(__name__)

APP_NAME = "Mechanism Studio"
MIME = "application/x-mechstudio-elements"
MAX_RECENT = 8
FILE_FILTER = "Mechanism Studio models (*.json);;All files (*)"
IMPORT_FILTER = "Robot descriptions (*.urdf *.xml);;URDF (*.urdf);;MuJoCo MJCF (*.xml);;All files (*)"
#: default dock sizes as fractions of the window: right column width, plots height, properties height (of the
#: right column when the 3D view is under it)
RIGHT_FRACTION, PLOTS_FRACTION, PROPERTIES_FRACTION = 0.26, 0.34, 0.6
RIGHT_MIN_PX = 330  # the properties column is never narrower (two vector components side by side)
PALETTE_COLUMNS = 2
PALETTE_MAX_FRACTION = 0.7  # the palette may take this much of the left column (18 entries in 9 rows at 1280x800)
OUTLINE_MIN_PX = 90  # ... or all of it but this much for the outline (its header and three rows), if that is more
DOCK_CHROME_PX = 34  # a dock's title bar and frame around its widget
VIEW3D_FRACTION = 0.3  # of the window width, for the 3D view beside the plots
VIEW3D_BESIDE_PLOTS_PX = 280  # the 3D view goes beside the plots when it gets at least this width there
#: the first window covers at least this fraction of the screen's available area in each direction
FIRST_START_FILL = 0.9
#: version of the saved window state (docks and toolbars): a state saved under another number is not restored
LAYOUT_VERSION = 2


def is_sample(path: str | os.PathLike[str]) -> bool:
    """True for a file of the shipped ``sample_models/`` folder (opened as an untitled copy, never saved over)."""
    try:
        return Path(path).resolve().is_relative_to(SAMPLE_MODELS.resolve())
    except OSError:
        return False


def documentation_url() -> QUrl:
    """The user documentation: the checkout's README.md (its links lead to docs/). An installed copy has no
    checkout: its README is the package's long description, written once into the config folder."""
    readme = Path(__file__).resolve().parent.parent / "README.md"
    if not readme.exists():
        from importlib import metadata
        readme = config_dir() / "README.md"
        try:
            readme.write_text(metadata.metadata("mechanism-studio").get("Description") or "", encoding="utf-8")
        except (OSError, metadata.PackageNotFoundError) as exc:
            log.warning("no documentation to open: %s", exc)
    return QUrl.fromLocalFile(str(readme))


def make_settings() -> QSettings:
    """Settings in ``<config>/settings.ini`` (the config folder honours MECHSTUDIO_CONFIG_DIR)."""
    return QSettings(str(config_dir() / "settings.ini"), QSettings.Format.IniFormat)


class Messenger:
    """Every interaction that needs the user's answer (replaced by a recorder in tests)."""

    def error(self, parent: QWidget, title: str, text: str) -> None:
        QMessageBox.critical(parent, title, text)

    def diagnostics(self, parent: QWidget, title: str, diagnostics: list[Diagnostic]) -> None:
        from mechstudio.gui.dialogs.diagnostics import DiagnosticsDialog
        DiagnosticsDialog(title, diagnostics, parent).exec()

    def ask(self, parent: QWidget, title: str, text: str) -> bool:
        return QMessageBox.question(parent, title, text) == QMessageBox.StandardButton.Yes

    def ask_save(self, parent: QWidget, name: str) -> str:
        """"save", "discard" or "cancel"."""
        b = QMessageBox.StandardButton
        r = QMessageBox.question(parent, APP_NAME, f"Save the changes to {name}?",
                                 b.Save | b.Discard | b.Cancel, b.Save)
        return {b.Save: "save", b.Discard: "discard"}.get(r, "cancel")

    def open_path(self, parent: QWidget, directory: str) -> str | None:
        path, _ = QFileDialog.getOpenFileName(parent, "Open model", directory, FILE_FILTER)
        return path or None

    def import_path(self, parent: QWidget, directory: str) -> str | None:
        path, _ = QFileDialog.getOpenFileName(parent, "Import URDF or MJCF", directory, IMPORT_FILTER)
        return path or None

    def import_report(self, parent: QWidget, title: str, diagnostics: list[Diagnostic]) -> None:
        """What an import dropped or changed (the model was opened)."""
        from mechstudio.gui.dialogs.diagnostics import DiagnosticsDialog
        DiagnosticsDialog(title, diagnostics, parent, intro="The model was imported. What was dropped or changed, "
                                                            "and why:").exec()

    def text(self, parent: QWidget, title: str, label: str) -> str | None:
        """A multi-line text from the user (None when cancelled)."""
        from PySide6.QtWidgets import QInputDialog
        text, ok = QInputDialog.getMultiLineText(parent, title, label)
        return text if ok and text.strip() else None

    def save_path(self, parent: QWidget, suggestion: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(parent, "Save model as", suggestion, FILE_FILTER)
        if path and not path.lower().endswith(".json"):
            path += ".json"
        return path or None


class MainWindow(QMainWindow):
    """See the module docstring."""

    def __init__(self, document: Document | None = None, *, messenger: Messenger | None = None,
                 autosave_ms: int | None = None, restore_layout: bool = True):
        super().__init__()
        self.document = document or Document()
        self.messenger = messenger or Messenger()
        self.settings = make_settings()
        self.setObjectName("MainWindow")
        self.sample_source: str | None = None  # the shipped sample the untitled document is a copy of
        self._layout_restored = False
        self._first_show_done = False
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks)
        self._set_corners(left_full=False, right_full=False)  # the narrowest arrangement until reset_layout
        self.resize(1280, 820)
        self.canvas = PlanarCanvas(self.document, self)
        self.setCentralWidget(self.canvas)
        self._build_docks()
        self._build_actions()
        self._build_menus()
        self._build_status_bar()
        self.autosaver = Autosaver(self.document, autosave_ms, self)
        d = self.document
        d.undo_stack.cleanChanged.connect(self._update_title)
        d.sig_path_changed.connect(lambda _p: self._update_title())
        d.sig_model_changed.connect(lambda _m: self._update_title())
        d.sig_model_changed.connect(self._on_document_model_changed)
        d.sig_analysis_changed.connect(self._on_document_analysis_changed)
        d.sig_selection_changed.connect(self._on_document_selection_changed)
        self.canvas.sig_status.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.canvas.sig_pointer.connect(lambda x, y: self.pointer_label.setText(f"x {x:.3f}  y {y:.3f} m"))
        # a message longer than the bar has room for (a small screen) can be read whole in the tooltip
        self.statusBar().messageChanged.connect(lambda text: self.statusBar().setToolTip(text))
        self._update_title()
        self._on_document_model_changed(d.model)
        self._on_document_analysis_changed(d.analysis)
        self._on_document_selection_changed(d.selection)
        self._install_live_view()
        self._stabilize_toolbars()
        install_sweep(self)  # Simulation → Parameter sweep…, inspector → Sweep this (gui/sweep)
        install_analysis(self)  # Analysis → Static equilibrium…, Linkage report…, Modes… (gui/analysis)
        install_keyboard(self)  # View → Go to panel (Ctrl+0..7), Model → Command palette (Ctrl+K) (gui/keyboard.py)
        if restore_layout:  # last: every toolbar and dock the saved state names exists now (see _restore_layout)
            self._restore_layout()
            if not self._layout_restored:
                self._fill_screen()

    # ---- construction ---------------------------------------------------------------------------------------
    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_docks(self) -> None:
        L, R, B = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea,
                   Qt.DockWidgetArea.BottomDockWidgetArea)
        self.palette = Palette(self.canvas)
        self.palette_layout = PaletteColumns(self.palette)
        self.outline = Outline(self.document)
        self.inspector = Inspector(self.document, self.angle_unit)
        self.undo_view = QUndoView(self.document.undo_stack)
        self.undo_view.setEmptyLabel("<original>")
        self.tree_editor = TreeEditor(self.document)
        self.dock_palette = self._dock("Palette", "dock_palette", self.palette, L)
        self.dock_outline = self._dock("Outline", "dock_outline", self.outline, L)
        self.dock_inspector = self._dock("Properties", "dock_inspector", self.inspector, R)
        self.dock_tree = self._dock("Spatial tree", "dock_tree", self.tree_editor, R)
        self.dock_history = self._dock("Undo history", "dock_history", self.undo_view, R)
        self.tabifyDockWidget(self.dock_inspector, self.dock_tree)
        self.tabifyDockWidget(self.dock_tree, self.dock_history)
        self.dock_inspector.raise_()
        placeholder3d = QLabel("3D view\n(live simulation view plugs in here)")
        placeholder3d.setAlignment(Qt.AlignmentFlag.AlignCenter)
        placeholder_plots = QLabel("Plots\n(live plots plug in here)")
        placeholder_plots.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.dock_view3d = self._dock("3D view", "dock_view3d", placeholder3d, R)
        self.dock_plots = self._dock("Plots", "dock_plots", placeholder_plots, B)
        self.dock_view3d.hide()
        self.dock_plots.hide()
        self._default_areas = {self.dock_palette: L, self.dock_outline: L, self.dock_inspector: R,
                               self.dock_tree: R, self.dock_history: R, self.dock_view3d: R, self.dock_plots: B}
        self.resizeDocks([self.dock_palette, self.dock_inspector], [200, 400], Qt.Orientation.Horizontal)

    def _action(self, text: str, slot: Any, shortcut: Any = None, tip: str = "", name: str = "") -> QAction:
        a = QAction(text, self)
        a.setObjectName(name or "act_" + text.replace("&", "").rstrip("…").strip().lower().replace(" ", "_"))
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setStatusTip(tip)
        a.triggered.connect(lambda _checked=False: slot())
        track_shortcut_tooltips(a)
        return a

    def _build_actions(self) -> None:
        S = QKeySequence.StandardKey
        self.act_new = self._action("&New", self.new_model, S.New, "Start an empty model")
        self.act_open = self._action("&Open…", self.open_dialog, S.Open, "Open a model file")
        self.act_import_pyslvs = self._action("&Import Pyslvs mechanism…", self.import_pyslvs, None,
                                              "Build a planar model from a Pyslvs mechanism expression "
                                              "(M[J[R, P[x, y], L[ground, link]], ...], lengths in mm)")
        self.act_import_robot = self._action("Import &URDF or MJCF…", self.import_robot, None,
                                             "Build a spatial model from a URDF (.urdf) or MuJoCo MJCF (.xml) file "
                                             "(as mechstudio import; the import report lists what was dropped)",
                                             "act_import_robot")
        self.act_export_drawing = self._action("Export &drawing…", self.export_drawing_dialog, None,
                                               "The mechanism at the shown time with the traces of the ticked "
                                               "points, as SVG or DXF (metres, a layer per body)",
                                               "act_export_drawing")
        self.act_add_point = self._action("Add &point", lambda: self.canvas.arm_point_tool(True), "P",
                                          "Click on a body to add a named point there (traced; rename it in "
                                          "Properties). Also: right-click a body → Add point here",
                                          "act_add_point")
        self.act_save = self._action("&Save", self.save, S.Save, "Save the model (a sample copy asks where)")
        self.act_save_as = self._action("Save &As…", self.save_as, S.SaveAs, "Save the model under a new name")
        self.act_quit = self._action("&Quit", self.close, S.Quit)
        self.act_undo = self.document.undo_stack.createUndoAction(self, "&Undo")
        self.act_undo.setObjectName("act_undo")
        self.act_undo.setShortcut(QKeySequence(S.Undo))
        self.act_redo = self.document.undo_stack.createRedoAction(self, "&Redo")
        self.act_redo.setObjectName("act_redo")
        self.act_redo.setShortcuts(redo_shortcuts())
        for a in (self.act_undo, self.act_redo):
            track_shortcut_tooltips(a)
        self.act_copy = self._action("&Copy", self.copy_selection, S.Copy,
                                     "Copy the selection with the bodies, joints and ground points it needs")
        self.act_paste = self._action("&Paste", self.paste, S.Paste, "Paste a copy beside the original, renamed")
        self.act_delete = self._action("&Delete", self.delete_selection, S.Delete, "Delete the selection")
        self.act_select_all = self._action("Select &all", self.select_all, S.SelectAll)
        self.act_fit = self._action("&Zoom to fit", self.canvas.zoom_to_fit, "F", "Show the whole mechanism",
                                    "act_fit")
        self.act_grid = QAction("Snap to &grid", self, checkable=True, checked=True)
        self.act_grid.toggled.connect(lambda on: setattr(self.canvas, "snap_to_grid", on))
        self.act_degrees = QAction("Angles in &degrees", self, checkable=True)
        self.act_degrees.setChecked(self.settings.value("units/angle", "deg") == "deg")
        self.act_degrees.toggled.connect(self._on_degrees_toggled)
        self.act_reset_layout = self._action("&Reset layout", self.reset_layout, None,
                                             "Put every panel back where it was at the first start")
        self.act_reassemble = self._action("Re-&assemble", self.reassemble, "Ctrl+R",
                                           "Write the assembled configuration into the model", "act_reassemble")
        self.act_add_child = self._action("Add &child body (Spatial tree)", self.tree_editor.add_child)
        self.act_quick_start = self._action("&Quick start", self.show_quick_start, S.HelpContents,
                                            "Build and run a four-bar linkage, step by step")
        self.act_shortcuts = self._action("&Keyboard shortcuts", self.show_shortcuts, "Ctrl+/",
                                          "Every keyboard shortcut and mouse gesture")
        self.act_documentation = self._action("&Documentation", self.open_documentation, None,
                                              "Open the user guide (README and docs/) in the browser")
        self.act_about = self._action("&About", lambda: QMessageBox.about(
            self, APP_NAME, f"{APP_NAME}: build mechanisms and simulate constrained multibody dynamics."))
        for a in (self.act_copy, self.act_delete):
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.canvas.addAction(a)
            self.outline.addAction(a)

    def _build_menus(self) -> None:
        mb = self.menuBar()
        self.menu_file = m = mb.addMenu("&File")
        m.addActions([self.act_new, self.act_open])
        self.menu_samples = m.addMenu("Open &sample")
        for path, name, desc in sample_models():
            a = self.menu_samples.addAction(name)
            a.setToolTip(desc)
            a.setStatusTip(desc[:200])
            a.setData(str(path))
            a.triggered.connect(lambda _c=False, p=str(path): self.open_file(p))
        self.menu_samples.setToolTipsVisible(True)
        self.menu_recent = m.addMenu("Open &recent")
        self._update_recent_menu()
        m.addAction(self.act_import_pyslvs)
        m.addAction(self.act_import_robot)
        m.addAction(self.act_export_drawing)
        m.addSeparator()
        m.addActions([self.act_save, self.act_save_as])
        m.addSeparator()
        m.addAction(self.act_quit)
        self.menu_edit = m = mb.addMenu("&Edit")
        m.addActions([self.act_undo, self.act_redo])
        m.addSeparator()
        m.addActions([self.act_copy, self.act_paste, self.act_delete, self.act_select_all])
        self.menu_view = m = mb.addMenu("&View")
        m.addActions([self.act_fit, self.act_grid, self.act_degrees])
        m.addSeparator()
        for dock in (self.dock_palette, self.dock_outline, self.dock_inspector, self.dock_tree, self.dock_history,
                     self.dock_view3d, self.dock_plots):
            m.addAction(dock.toggleViewAction())
        m.addSeparator()
        m.addAction(self.act_reset_layout)
        m = mb.addMenu("&Model")
        m.addActions([self.act_reassemble, self.act_add_child])
        m.addAction(self.act_add_point)
        self.menu_simulation = mb.addMenu("&Simulation")
        self.menu_analysis = mb.addMenu("&Analysis")  # filled by install_analysis (gui/analysis)
        self.menu_help = m = mb.addMenu("&Help")
        m.addActions([self.act_quick_start, self.act_shortcuts, self.act_documentation])
        m.addSeparator()
        m.addAction(self.act_about)
        tb = self.addToolBar("File")
        tb.setObjectName("toolbar_file")
        tb.setMovable(False)
        tb.addActions([self.act_new, self.act_open, self.act_save])
        tb.addSeparator()
        tb.addActions([self.act_undo, self.act_redo])
        tb.addSeparator()
        tb.addActions([self.act_fit, self.act_reassemble])
        self.toolbar_file = tb
        self.toolbar_simulation = self.addToolBar("Simulation")
        self.toolbar_simulation.setObjectName("toolbar_simulation")
        self.toolbar_simulation.setMovable(False)

    def _build_status_bar(self) -> None:
        sb = self.statusBar()
        self.pointer_label = QLabel("")
        self.dof_label = QLabel("")
        self.dof_label.setObjectName("status_dof")
        self.redundant_label = QLabel("")
        self.redundant_label.setObjectName("status_redundant")
        self.assembly_label = QLabel("")
        self.assembly_label.setObjectName("status_assembly")
        for w in (self.pointer_label, self.dof_label, self.redundant_label, self.assembly_label):
            sb.addPermanentWidget(w)

    # ---- live view hook --------------------------------------------------------------------------------------
    def add_live_view(self, view3d: QWidget | None = None, plots: QWidget | None = None) -> None:
        """Put the live-simulation widgets into their docks (called by the live-view code)."""
        if view3d is not None:
            self.dock_view3d.setWidget(view3d)
            self.dock_view3d.show()
            scene = getattr(view3d, "scene", None)
            if scene is not None and hasattr(scene, "pick_listeners"):  # picking follows the document's selection
                scene.pick_listeners.append(self._on_view3d_pick)
                self.document.sig_selection_changed.connect(
                    lambda keys, scene=scene: scene.set_highlight([n for c, n in keys if c == "bodies"]))
                scene.set_highlight([n for c, n in self.document.selection if c == "bodies"])
        if plots is not None:
            self.dock_plots.setWidget(plots)
            self.dock_plots.show()

    def _on_view3d_pick(self, body: str | None) -> None:
        """A click in the 3D view: the body under the cursor becomes the selection (none: the selection clears)."""
        self.document.set_selection([("bodies", body)] if body else [])

    def add_time_bar(self, widget: QWidget) -> None:
        """Put the live view's time bar (slider, time readout, speed, progress, status) on a toolbar row of its
        own, so nothing a toolbar button does can push it into an overflow menu."""
        self.addToolBarBreak(Qt.ToolBarArea.TopToolBarArea)
        tb = QToolBar("Time", self)
        tb.setObjectName("toolbar_time")
        tb.setMovable(False)
        tb.addWidget(widget)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, tb)
        self.toolbar_time = tb

    def _install_live_view(self) -> None:
        """Call ``mechstudio.gui.simulation.install_live_view(self)`` when the live-view package provides it."""
        if os.environ.get("MECHSTUDIO_NO_LIVE_VIEW"):
            return
        try:
            spec = importlib.util.find_spec("mechstudio.gui.simulation")
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            return
        module = importlib.import_module("mechstudio.gui.simulation")
        install = getattr(module, "install_live_view", None)
        if callable(install):
            install(self)

    def _stabilize_toolbars(self) -> None:
        """Icon-only, fixed-size buttons with the changing text in their tooltips (see toolbar_style)."""
        for tb in self.findChildren(QToolBar):
            stabilize_toolbar(tb)

    # ---- document -> window ---------------------------------------------------------------------------------
    def _update_title(self) -> None:
        name = self.document.display_name
        if self.sample_source is not None and not self.document.path:
            name += " (copy of a sample)"
        self.setWindowTitle(f"{name}[*] — {APP_NAME}")
        self.setWindowModified(self.document.modified)

    def _on_document_model_changed(self, model: Model) -> None:
        """The palette places planar elements only: say so, instead of letting drops fail, on a spatial model."""
        planar = model.kind == "planar"
        if self.palette.isEnabled() != planar:
            self.palette.setEnabled(planar)
            self.dock_palette.setWindowTitle("Palette" if planar else "Palette (planar models only)")
            self.palette.setToolTip("" if planar else "This is a spatial model: add bodies in the Spatial tree "
                                                      "tab. The palette builds planar models (File → New).")

    def _on_document_analysis_changed(self, a: Analysis) -> None:
        self.dof_label.setText(f"DOF: {a.dof}" if a.dof is not None else "DOF: –")
        self.redundant_label.setText("Redundant: " + (", ".join(a.redundant) if a.redundant else "none"))
        if a.state == "assembled":
            self.assembly_label.setText(f"Assembled (‖Φ‖ = {a.residual:.1e})")
            self.assembly_label.setStyleSheet("color: #0a7d32")
            self.assembly_label.setToolTip("")
        elif a.state == "empty":
            self.assembly_label.setText("Empty model")
            self.assembly_label.setStyleSheet("")
            self.assembly_label.setToolTip("")
        elif a.state == "failed":
            who = ", ".join(a.offending) or "the constraints"
            self.assembly_label.setText(f"NOT assembled: {who} open by {a.residual:.2g}"
                                        if a.offending else f"NOT assembled (‖Φ‖ = {a.residual:.2g})")
            self.assembly_label.setStyleSheet("color: #c00; font-weight: bold")
            self.assembly_label.setToolTip(a.message)
        else:
            self.assembly_label.setText("Assembly n/a")
            self.assembly_label.setStyleSheet("color: #777")
            self.assembly_label.setToolTip(a.message)

    def _on_document_selection_changed(self, keys: list[tuple[str, str]]) -> None:
        self.act_delete.setEnabled(bool(keys))
        self.act_copy.setEnabled(bool(keys))

    def status_text(self) -> str:
        """The status bar's permanent fields as one string (tests read it)."""
        return "  |  ".join(w.text() for w in (self.dof_label, self.redundant_label, self.assembly_label))

    def angle_unit(self) -> str:
        return "deg" if getattr(self, "act_degrees", None) is None or self.act_degrees.isChecked() else "rad"

    def _on_degrees_toggled(self, on: bool) -> None:
        self.settings.setValue("units/angle", "deg" if on else "rad")
        self.inspector.refresh(force=True)

    # ---- files ----------------------------------------------------------------------------------------------
    def maybe_save(self) -> bool:
        """Ask to save unsaved changes; False when the user cancels."""
        if not self.document.modified:
            return True
        answer = self.messenger.ask_save(self, self.document.display_name)
        if answer == "save":
            return self.save()
        return answer == "discard"

    def new_model(self) -> None:
        if not self.maybe_save():
            return
        self._forget_model_state()
        self.document.reset(model_from_data(empty_model_data()), None)
        clear_recovery()

    def import_pyslvs(self, text: str | None = None) -> bool:
        """File > Import Pyslvs mechanism: a planar model (untitled, lengths mm -> m) from a Pyslvs mechanism
        expression (core.interop.pyslvs, as ``mechstudio import``). A bad expression opens nothing and lists
        its problems. True when imported."""
        if text is None:
            text = self.messenger.text(self, "Import a Pyslvs mechanism",
                                       "Mechanism expression, lengths in mm (M[J[R, P[x, y], L[ground, link]], ...]):")
            if text is None:
                return False
        from mechstudio.core.interop.pyslvs import model_from_expression
        try:
            model = model_from_data(model_from_expression(text, source="<Pyslvs expression>"))
        except ModelError as exc:
            self.messenger.diagnostics(self, "Cannot import the mechanism", exc.diagnostics)
            return False
        if not self.maybe_save():
            return False
        self._forget_model_state()
        self.document.reset(model, None)
        clear_recovery()
        self.statusBar().showMessage("Imported a Pyslvs mechanism; Save asks where to keep it", 8000)
        return True

    def import_robot(self, path: str | None = None) -> bool:
        """File > Import URDF or MJCF: an untitled spatial model from a robot description (the kind from the
        content; core.interop.robot_import, as ``mechstudio import``). Problems open nothing and are listed; the
        warnings of an import are shown in its report. True when imported."""
        if path is None:
            start = os.path.dirname(self.document.path) if self.document.path else str(Path.cwd())
            path = self.messenger.import_path(self, start)
            if not path:
                return False
        from mechstudio.core.interop.robot_import import import_robot  # start-up: only when importing
        try:
            result = import_robot(Path(path).read_text(encoding="utf-8"), path, Path(path).stem)
        except ModelError as exc:
            self.messenger.diagnostics(self, "Cannot import the file", exc.diagnostics)
            return False
        except (OSError, UnicodeDecodeError) as exc:
            self.messenger.error(self, "Cannot import the file", f"{path}: {exc}")
            return False
        if not self.maybe_save():
            return False
        self._forget_model_state()
        self.document.reset(result.model, None)
        clear_recovery()
        if result.warnings:
            self.messenger.import_report(self, f"{result.kind} import of {Path(path).name}", result.warnings)
        self.statusBar().showMessage(f"Imported {Path(path).name} ({result.kind}); Save asks where to keep it", 8000)
        return True

    def open_untitled(self, model: Model, text: str, base: Model | None = None) -> bool:
        """Replace the document (asking to save its changes first) by a new untitled one holding ``model``,
        unsaved: the document starts from ``base`` (default: an empty model) and ``model`` is one undoable edit
        named ``text`` on it, so the window shows it modified and closing asks to save it. True when opened."""
        if not self.maybe_save():
            return False
        self._forget_model_state()
        self.document.reset(base if base is not None else model_from_data(empty_model_data()), None)
        self.document.push_edit(model, text, reassemble=False)
        clear_recovery()
        self._update_title()
        return True

    def _forget_model_state(self, sample: str | None = None) -> None:
        """Before New/Open: drop everything the window holds about the previous model."""
        self.sample_source = sample
        self.canvas.cancel()
        self.palette.clearSelection()
        self.statusBar().clearMessage()

    def open_dialog(self) -> None:
        start = os.path.dirname(self.document.path) if self.document.path else str(Path.cwd())
        path = self.messenger.open_path(self, start)
        if path:
            self.open_file(path)

    def open_file(self, path: str, *, ask: bool = True) -> bool:
        """Open a model file; a bad file opens nothing and shows all its problems. True when opened."""
        try:
            model = load_model(path)
        except ModelError as exc:
            self.messenger.diagnostics(self, f"Cannot open {os.path.basename(path)}", exc.diagnostics)
            return False
        if ask and not self.maybe_save():
            return False
        if is_sample(path):  # an untitled copy: Save asks where, the shipped file is never overwritten
            self._forget_model_state(os.path.abspath(path))
            self.document.reset(model, None)
            self._update_title()
            clear_recovery()
            self.statusBar().showMessage(f"Opened a copy of the sample {os.path.basename(path)}; "
                                         "Save asks where to keep it", 8000)
            return True
        self._forget_model_state()
        self.document.reset(model, os.path.abspath(path))
        self._add_recent(os.path.abspath(path))
        clear_recovery()
        self.statusBar().showMessage(f"Opened {path}", 5000)
        return True

    def save(self) -> bool:
        if not self.document.path:
            return self.save_as()
        return self.save_to(self.document.path)

    def save_as(self, path: str | None = None) -> bool:
        if path is None:
            start = Path.cwd() if not is_sample(Path.cwd() / "x.json") else Path.home()
            suggestion = self.document.path or str(start / f"{self.document.model.name or 'untitled'}.json")
            path = self.messenger.save_path(self, suggestion)
            if not path:
                return False
        return self.save_to(path)

    def save_to(self, path: str) -> bool:
        """Save atomically; on failure show why and keep everything (model, undo history, modified flag)."""
        target = Path(path)
        problem = None
        if is_sample(target):
            problem = "the shipped samples are read-only; choose a name outside sample_models/"
        elif target.exists() and not (target.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)):
            problem = "the file is read-only"
        elif target.exists() and not os.access(target, os.W_OK):
            problem = "permission denied"
        if problem is None:
            try:
                save_model(self.document.model, target)
            except OSError as exc:
                problem = exc.strerror or str(exc)
        if problem is not None:
            self.messenger.error(self, "Save failed", f"Could not save to {path}: {problem}.\n"
                                                      "Nothing was lost: the model is still open, unsaved.")
            return False
        self.sample_source = None
        self.document.set_path(os.path.abspath(path))
        self.document.undo_stack.setClean()
        self._add_recent(os.path.abspath(path))
        clear_recovery()
        self._update_title()
        self.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent_files", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _add_recent(self, path: str) -> None:
        files = [path] + [p for p in self.recent_files() if p != path]
        self.settings.setValue("recent_files", files[:MAX_RECENT])
        self._update_recent_menu()

    def _update_recent_menu(self) -> None:
        self.menu_recent.clear()
        files = self.recent_files()
        for p in files:
            a = self.menu_recent.addAction(os.path.basename(p))
            a.setToolTip(p)
            a.setData(p)
            a.triggered.connect(lambda _c=False, p=p: self.open_file(p))
        self.menu_recent.setEnabled(bool(files))

    # ---- recovery -------------------------------------------------------------------------------------------
    def offer_recovery(self) -> bool:
        """If the last session left an autosave, offer it; True when the recovered model was opened."""
        rec = find_recovery()
        if rec is None:
            return False
        where = rec.original_path or "an unsaved model"
        if not self.messenger.ask(self, "Recover unsaved changes?",
                                  f"Mechanism Studio did not exit normally. Recover the autosaved changes to "
                                  f"{where}?"):
            clear_recovery()
            return False
        base = None
        if rec.original_path and os.path.exists(rec.original_path):
            try:
                base = load_model(rec.original_path)
            except ModelError:
                base = None
        if base is None:
            base = model_from_data(empty_model_data())
        # the document starts from the file on disk; the recovered changes are one undoable, unsaved step
        self.document.reset(base, rec.original_path)
        if base != rec.model:
            self.document.push_edit(rec.model, "Recovered changes", reassemble=False)
        self.statusBar().showMessage("Recovered the autosaved model", 8000)
        return True

    # ---- drawing export -------------------------------------------------------------------------------------
    def _ask_drawing_path(self, suggestion: str) -> str | None:
        from mechstudio.gui.drawing_export import DRAWING_FILTER, normalized_path
        path, chosen = QFileDialog.getSaveFileName(self, "Export drawing", suggestion, DRAWING_FILTER)
        return normalized_path(path, chosen) if path else None

    def export_drawing_dialog(self) -> str | None:
        """File → Export drawing…: ask where, write SVG or DXF (``mechstudio.gui.drawing_export``); the path written."""
        from mechstudio.gui.drawing_export import drawing_input, write_drawing
        try:
            drawing_input(self)  # refuse before asking for a file name
        except ValueError as exc:
            self.messenger.error(self, "Export drawing", str(exc))
            return None
        stem = Path(self.document.path).stem if self.document.path else (self.document.model.name or "mechanism")
        ask = getattr(self, "ask_drawing_path", None) or self._ask_drawing_path  # tests set ask_drawing_path
        path = ask(str(Path(self.document.path).parent / f"{stem}.svg") if self.document.path else f"{stem}.svg")
        if not path:
            return None
        try:
            what = write_drawing(self, path)
        except (ValueError, KeyError, OSError, ImportError) as exc:  # KeyError: core's UnknownNameError (format)
            log.warning("drawing export failed", exc_info=True)
            self.messenger.error(self, "Export drawing", f"Could not write {path}: {exc}")
            return None
        self.statusBar().showMessage(f"Wrote the drawing {path} ({what.note})", 8000)
        return path

    # ---- edit menu ------------------------------------------------------------------------------------------
    def select_all(self) -> None:
        m = self.document.model
        keys = [(c, n) for c in ("ground_points",) + edit.COLLECTIONS for n in edit.names(m, c)]
        self.document.set_selection(keys)

    def delete_selection(self) -> None:
        """Delete the selection and what depends on it (``edit.delete_with_dependents``), after asking when that
        is more than the selection."""
        keys = self.document.selection
        if not keys:
            return
        try:
            model, deleted = edit.delete_with_dependents(self.document.base_model(), keys)
        except ModelError as exc:
            self.messenger.diagnostics(self, "Cannot delete", exc.diagnostics)
            return
        also = [edit.key_label(k) for k in deleted if k not in keys]
        if also and not self.messenger.ask(
                self, "Delete", f"Deleting the selection also deletes what is attached to it: "
                                f"{', '.join(also)}. Continue?"):
            return
        named = [k for k in deleted if k[0] in ("ground_points",) + edit.COLLECTIONS]
        text = f"Delete {named[0][1]}" if len(named) == 1 else f"Delete {len(named)} elements"
        self.document.push_edit(model, text)
        self.document.set_selection([])

    def copy_selection(self) -> None:
        """Copy the selection with what it needs (``edit.copy_closure``) to the clipboard, as JSON."""
        keys = self.document.selection
        if not keys:
            return
        clip = edit.copy_closure(self.document.base_model(), keys)
        payload = json.dumps(clip)
        mime = QMimeData()
        mime.setData(MIME, QByteArray(payload.encode("utf-8")))
        mime.setText(payload)
        QApplication.clipboard().setMimeData(mime)
        n = len(clip["items"])
        self.statusBar().showMessage(f"Copied {n} element{'' if n == 1 else 's'}", 4000)

    def paste(self, offset: tuple[float, float] = (0.3, -0.3)) -> None:
        """Paste the clipboard's elements under new names, moved by ``offset`` [m] (``edit.paste_renamed``)."""
        mime = QApplication.clipboard().mimeData()
        raw = bytes(mime.data(MIME)).decode("utf-8") if mime is not None and mime.hasFormat(MIME) else ""
        if not raw:
            return
        try:
            model, keys = edit.paste_renamed(self.document.base_model(), json.loads(raw), offset)
        except ValueError:  # not JSON
            return
        except ModelError as exc:
            self.statusBar().showMessage(f"Paste: {exc.diagnostics[0].message}", 6000)
            return
        if not keys:
            return
        self.document.push_edit(model, f"Paste {keys[0][1]}" if len(keys) == 1 else f"Paste {len(keys)} elements")
        self.document.set_selection([k for k in keys if k[0] == "bodies"] or keys)

    def reassemble(self) -> None:
        a = self.document.analysis
        if a.state == "assembled" and a.posed is not self.document.model:
            self.document.push_edit(a.posed, "Re-assemble", reassemble=False)

    # ---- help ---------------------------------------------------------------------------------------------
    def show_quick_start(self) -> None:
        from mechstudio.gui.dialogs.quick_start import QuickStartDialog
        dialog = getattr(self, "quick_start_dialog", None) or QuickStartDialog(self)
        self.quick_start_dialog = dialog
        dialog.show()
        dialog.raise_()

    def show_shortcuts(self) -> None:
        from mechstudio.gui.dialogs.shortcuts import ShortcutsDialog
        dialog = ShortcutsDialog(self)
        self.shortcuts_dialog = dialog
        dialog.show()

    def open_documentation(self) -> bool:
        """Open the user guide with the desktop's viewer; say so when nothing could open it."""
        url = documentation_url()
        if QDesktopServices.openUrl(url):
            self.statusBar().showMessage(f"Opened {url.toLocalFile()}", 5000)
            return True
        self.messenger.error(self, "Documentation", f"Could not open {url.toLocalFile()}: no viewer for it was "
                                                    "found. Open the file in a browser or text editor.")
        return False

    # ---- layout and close -----------------------------------------------------------------------------------
    def _restore_layout(self) -> None:
        """The window's geometry and its docks and toolbars as the last session left them.

        Called once every toolbar and dock exists: ``restoreState`` on a window not shown yet keeps a copy of the
        restored layout that Qt applies again at the first show, and a toolbar added after the restore is missing
        from that copy, so it ends up outside every toolbar area, drawn at the window's top-left corner over the
        menu bar. A state saved by another layout version, or one that leaves a toolbar outside its row, is
        dropped: the toolbars go back to their rows (:meth:`place_toolbars`) and the docks to their defaults.
        """
        geom = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if geom is not None:
            self.restoreGeometry(geom)
        if state is not None:
            self._layout_restored = bool(self.restoreState(state, LAYOUT_VERSION))
        if self._layout_restored and not self.toolbars_in_place():
            log.warning("the saved window layout put a toolbar out of place; using the default layout")
            self._layout_restored = False
        if not self._layout_restored:
            self.place_toolbars()

    def _toolbar_rows(self) -> list[list[QToolBar]]:
        """The toolbars of the top area by row: File and Simulation side by side, the time bar below."""
        rows = [[self.toolbar_file, self.toolbar_simulation]]
        time_bar = getattr(self, "toolbar_time", None)
        if time_bar is not None:
            rows.append([time_bar])
        return rows

    def toolbars_in_place(self) -> bool:
        """Every toolbar in the top area, the time bar (when there is one) on a row of its own."""
        top = Qt.ToolBarArea.TopToolBarArea
        rows = self._toolbar_rows()
        if any(self.toolBarArea(tb) != top for row in rows for tb in row):
            return False
        return len(rows) < 2 or self.toolBarBreak(rows[1][0])

    def place_toolbars(self) -> None:
        """Put the toolbars in their rows under the menu bar (first start, *View → Reset layout*, a bad saved
        state)."""
        top = Qt.ToolBarArea.TopToolBarArea
        rows = self._toolbar_rows()
        for row in rows:
            for tb in row:
                if self.toolBarBreak(tb):
                    self.removeToolBarBreak(tb)
                self.removeToolBar(tb)
        for k, row in enumerate(rows):
            if k:
                self.addToolBarBreak(top)
            for tb in row:
                self.addToolBar(top, tb)
                tb.show()

    def _fill_screen(self) -> None:
        """First start: cover the screen's available area (maximized where a window manager does it)."""
        screen = self.screen() or QApplication.primaryScreen()
        if screen is None:
            return
        self.setGeometry(screen.availableGeometry())
        self.setWindowState(self.windowState() | Qt.WindowState.WindowMaximized)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt API
        super().showEvent(event)
        if not self._first_show_done:
            self._first_show_done = True
            if not self._layout_restored:  # first start (or a layout that could not be restored)
                QTimer.singleShot(0, self.reset_layout)

    def _set_corners(self, left_full: bool, right_full: bool) -> None:
        """Which side columns run from the toolbars down to the status bar (``*_full``) and which stop above the
        plots: the plots need their minimum width between the columns that run down beside them."""
        L, R, B = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea,
                   Qt.DockWidgetArea.BottomDockWidgetArea)
        self.setCorner(Qt.Corner.TopLeftCorner, L)
        self.setCorner(Qt.Corner.BottomLeftCorner, L if left_full else B)
        self.setCorner(Qt.Corner.TopRightCorner, R)
        self.setCorner(Qt.Corner.BottomRightCorner, R if right_full else B)

    def reset_layout(self) -> None:
        """Put every dock and toolbar back in its place and size (also used on a first start).

        Palette over outline on the left and the properties tabs on the right, beside the canvas; the plots
        under all three, with the 3D view to their right when the window is wide enough for both (else the 3D
        view goes under the properties).
        """
        L, R, B = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea,
                   Qt.DockWidgetArea.BottomDockWidgetArea)
        live = self.dock_view3d.widget() is not None and not isinstance(self.dock_view3d.widget(), QLabel)
        w, h = max(self.width(), 800), max(self.height(), 600)
        left = self.palette_layout.columns_width(PALETTE_COLUMNS) + 8
        right = max(int(RIGHT_FRACTION * w), RIGHT_MIN_PX)
        plots_min = self.dock_plots.minimumSizeHint().width() if live else 0
        view_beside_plots = live and w - plots_min >= VIEW3D_BESIDE_PLOTS_PX
        self._set_corners(left_full=not live, right_full=not live)
        self.place_toolbars()
        for dock in self._default_areas:
            dock.setFloating(False)
            self.removeDockWidget(dock)
        for dock in (self.dock_palette, self.dock_outline):
            self.addDockWidget(L, dock, Qt.Orientation.Vertical)
        self.addDockWidget(R, self.dock_inspector, Qt.Orientation.Vertical)
        self.tabifyDockWidget(self.dock_inspector, self.dock_tree)
        self.tabifyDockWidget(self.dock_tree, self.dock_history)
        self.addDockWidget(B, self.dock_plots)
        if view_beside_plots:
            self.splitDockWidget(self.dock_plots, self.dock_view3d, Qt.Orientation.Horizontal)
        else:
            self.addDockWidget(R, self.dock_view3d, Qt.Orientation.Vertical)
        for dock in self._default_areas:
            dock.setVisible(live or dock not in (self.dock_view3d, self.dock_plots))
        self.dock_inspector.raise_()
        self.layout().activate()  # the sizes below apply to the docks' new places
        self.resizeDocks([self.dock_palette, self.dock_inspector], [left, right], Qt.Orientation.Horizontal)
        if live:
            self.resizeDocks([self.dock_plots], [int(PLOTS_FRACTION * h)], Qt.Orientation.Vertical)
            if view_beside_plots:
                view_w = min(int(VIEW3D_FRACTION * w), w - plots_min)
                self.resizeDocks([self.dock_plots, self.dock_view3d], [w - view_w, view_w], Qt.Orientation.Horizontal)
        self.layout().activate()
        column = self.centralWidget().height()
        room = max(int(PALETTE_MAX_FRACTION * column), column - OUTLINE_MIN_PX - DOCK_CHROME_PX)
        self.palette_layout.set_compact(False)
        if self.palette_layout.rows_height(PALETTE_COLUMNS) + DOCK_CHROME_PX > room:
            self.palette_layout.set_compact(True)  # a short column (small screen): every entry still shows
        palette_h = min(self.palette_layout.rows_height(PALETTE_COLUMNS) + DOCK_CHROME_PX, room)
        sizes_v = [(self.dock_palette, palette_h), (self.dock_outline, max(column - palette_h, 60))]
        if live and not view_beside_plots:
            sizes_v += [(self.dock_inspector, int(PROPERTIES_FRACTION * column)),
                        (self.dock_view3d, int((1 - PROPERTIES_FRACTION) * column))]
        self.resizeDocks([d for d, _ in sizes_v], [n for _, n in sizes_v], Qt.Orientation.Vertical)
        log.debug("reset layout: left %d px, palette %d px of %d px, 3D view beside the plots: %s", left,
                  palette_h, column, view_beside_plots)
        self.canvas.zoom_to_fit()

    def save_layout(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState(LAYOUT_VERSION))
        self.settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt API
        if not self.maybe_save():
            event.ignore()
            return
        self.save_layout()
        self.autosaver.timer.stop()
        clear_recovery()
        sweep = getattr(self, "sweep_dialog", None)
        if sweep is not None:  # its Dask cluster closes in the background: the window goes at once
            sweep.shutdown()
        event.accept()


def redo_shortcuts() -> list[QKeySequence]:
    """The platform's redo key plus both common ones: Ctrl+Shift+Z and Ctrl+Y."""
    keys = [QKeySequence(QKeySequence.StandardKey.Redo)]
    for extra in ("Ctrl+Shift+Z", "Ctrl+Y"):
        seq = QKeySequence(extra)
        if seq not in keys:
            keys.append(seq)
    return keys


class PaletteColumns(QObject):
    """Lays the palette out as columns of icon + full label (every entry visible in a small dock).

    The palette widget itself (``mechstudio.gui.editor.palette``) is untouched: this sets its list-view presentation and
    answers the sizes the default layout needs. When the palette is too short for every entry at the usual row
    height (a 1366×768 screen, a restored or dragged dock) its rows become compact (:meth:`set_compact`), decided
    again at every resize."""

    ICON_PX, COMPACT_ICON_PX = 24, 18  # the entries' icons; compact: on a short screen (see set_compact)

    def __init__(self, palette: QListView):
        super().__init__(palette)
        self.palette = palette
        self.compact = False
        self.cell = self.normal_cell = self._cell(self.ICON_PX)
        icon = self.ICON_PX
        palette.setViewMode(QListView.ViewMode.ListMode)
        palette.setFlow(QListView.Flow.LeftToRight)
        palette.setWrapping(True)
        palette.setResizeMode(QListView.ResizeMode.Adjust)
        palette.setMovement(QListView.Movement.Static)
        palette.setIconSize(QSize(icon, icon))
        palette.setGridSize(self.cell)
        palette.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        palette.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        palette.setMinimumWidth(self.cell.width() + 2 * palette.frameWidth())
        palette.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt API
        if obj is self.palette and event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def fit(self) -> None:
        """Compact rows exactly when the entries do not all fit the palette's height at the usual row height."""
        columns = max(1, (self.palette.width() - 2 * self.palette.frameWidth()) // self.normal_cell.width())
        rows = -(-self.palette.count() // columns)  # type: ignore[attr-defined]
        self.set_compact(rows * self.normal_cell.height() + 2 * self.palette.frameWidth() + 2 > self.palette.height())

    def _cell(self, icon: int) -> QSize:
        fm = self.palette.fontMetrics()
        labels = [self.palette.item(i).text() for i in range(self.palette.count())]  # type: ignore[attr-defined]
        return QSize(max((fm.horizontalAdvance(t) for t in labels), default=80) + icon + 22,
                     max(fm.height(), icon) + (5 if icon == self.ICON_PX else 2))

    def set_compact(self, on: bool) -> None:
        """Smaller icons and rows (every entry fits a short left column, e.g. at 1366×768), or the usual ones."""
        if on == self.compact:
            return
        self.compact = on
        icon = self.COMPACT_ICON_PX if on else self.ICON_PX
        self.cell = self._cell(icon)
        self.palette.setIconSize(QSize(icon, icon))
        self.palette.setGridSize(self.cell)

    def columns_width(self, columns: int) -> int:
        """The palette width that shows ``columns`` columns (of the usual rows: compact ones are narrower)."""
        scrollbar = self.palette.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        return columns * self.normal_cell.width() + 2 * self.palette.frameWidth() + scrollbar + 4

    def rows_height(self, columns: int) -> int:
        """The palette height that shows every entry in ``columns`` columns."""
        rows = -(-self.palette.count() // columns)  # type: ignore[attr-defined]
        return rows * self.cell.height() + 2 * self.palette.frameWidth() + 2
