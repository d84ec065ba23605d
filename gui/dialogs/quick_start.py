"""Help → Quick start: an in-app page that walks a new user through building and running a four-bar linkage
with the palette, the canvas, the inspector and the Simulation toolbar (the steps are the ones the GUI tests
perform with the mouse: tests/gui/test_editor_build.py and tests/gui/test_front_door_scenario.py)."""
from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout

QUICK_START_HTML = """
<h2>Quick start: a four-bar linkage in five minutes</h2>
<p>You build with the mouse: drag entries from the <b>Palette</b> (left) onto the canvas (centre). Drops snap to
0.1 m grid points and to existing points; the pointer position is shown in metres at the bottom right.
Mechanism Studio starts on an empty planar model, ready for step 1; <i>File → New</i> (Ctrl+N) gives another
one. <i>Zoom to fit</i> (F) frames what you built.</p>
<ol>
<li><b>Ground points.</b> Drag <i>Ground point</i> to (0, 0) and again to (4, 0).</li>
<li><b>Crank.</b> Drag <i>Bar</i> to (0, 0): a 1 m bar of 1 kg/m from the drop point to the right.</li>
<li><b>Coupler.</b> Drag a second <i>Bar</i> to (1, 0). Click it to select it, then drag its square end handle
    to (3.1, 2.8): it becomes 3.5 m long (mass and inertia follow).</li>
<li><b>Rocker.</b> Drag a third <i>Bar</i> to (4, 0), select it and pull its end handle up to (4, 3).</li>
<li><b>Joints.</b> Drag <i>Revolute joint</i> onto (0, 0), (1, 0) and (4, 0): each connects the two things
    under the drop point. Drag a fourth onto the coupler's free end (3.1, 2.8): it waits for the second body
    (the status bar says so), so click the rocker's end (4, 3). The loop closes and the status bar shows
    <b>DOF: 1</b> and <b>Assembled</b>.</li>
<li><b>Properties.</b> Click a bar: the <b>Properties</b> panel (right) shows its fields. Type a value and press
    Enter or Tab; a refused value (a mass of 0 or -1, a name already used) turns the field red with the reason
    right under it, and the model keeps its value. The mouse wheel changes a field only after you click into it.
    </li>
<li><b>Run.</b> Press <b>Run</b> (F5) in the Simulation toolbar. The mechanism falls under gravity in the
    <b>3D view</b>; the <b>Plots</b> under the canvas fill with reactions, constraint violation, energy and
    coordinates. Pause (F6), Stop (Shift+F5), Step back (Shift+F7) and Step (F7: one output frame) are next to
    Run; drag the time slider (the row below the buttons) to scrub through the result. <i>Simulation →
    Settings…</i> sets the end time (5, 0.5 or 1e4 s), the output interval, the formulation and the integrator
    of this model: they are saved with it.</li>
<li><b>Coupler curve.</b> Right-click the coupler where you want a coupler point and choose <i>Add point
    here</i> (or <i>Model → Add point</i>, P, then click the body): the body gets a named point (P1, P2, …;
    rename it in Properties) that is ticked for tracing. Any body point can be ticked or unticked in the
    <b>Outline</b> (open the body's row) or by right-clicking it on the canvas (<i>Trace coupler.P1</i>). Run:
    the canvas and the 3D view draw each ticked point's path in its body's colour, growing as the frames
    arrive. The trace always ends at the <b>time shown</b> (a dot marks the point there): scrub the time slider
    back and the trace shortens, to the end and it is the whole curve. Ticks are saved with the model and
    undoable. An edit of the mechanism after a run hides the traces (they belong to the old mechanism) until
    the next run; <i>Reset</i> drops them with the results. <i>File → Export drawing…</i> writes the mechanism
    at the shown time with its traces as SVG or DXF.</li>
<li><b>Export.</b> Every plot has an <i>Export</i> button (PNG, SVG, CSV); <i>Simulation → Export</i> writes
    the run as CSV, all plots, a video or a bundle of everything.</li>
<li><b>Save.</b> Ctrl+S asks where to save a new model. Samples (<i>File → Open sample</i>) open as untitled
    copies, so your changes never overwrite a shipped sample.</li>
</ol>
<p>Undo with Ctrl+Z, redo with Ctrl+Y or Ctrl+Shift+Z: every edit is one step (a whole drag, a whole field
edit), named in <i>Edit → Undo</i> and in the Undo history tab. If an edit cannot be assembled, it is kept,
the status bar names the joint that stays open and the canvas draws its gap in red; undo or fix the
length. <i>Help → Keyboard shortcuts</i> lists every key; <i>View → Reset layout</i> puts the panels back.</p>
"""


class QuickStartDialog(QDialog):
    """A non-modal page (it can stay open beside the window while you follow the steps)."""

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self.setWindowTitle("Quick start")
        self.resize(640, 720)
        self.setModal(False)
        self.browser = QTextBrowser()
        self.browser.setObjectName("quick_start")
        self.browser.setOpenExternalLinks(True)
        self.browser.setHtml(QUICK_START_HTML)
        lay = QVBoxLayout(self)
        lay.addWidget(self.browser)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
