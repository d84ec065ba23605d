"""Live plots (pyqtgraph) of a run: reactions, constraint violation, energy, and coordinates on request.

Each :class:`LivePlot` is a small header (title, selectors, an export button with PNG / SVG / CSV) over a
PlotWidget. :meth:`PlotPanel.refresh` copies the buffer's arrays into the curves and is driven by a QTimer
(never once per frame); it does nothing when the buffer's version did not change. A vertical time cursor on
every plot follows the animation: every refresh moves all four to the same time.

Repaint cost (it is paid on the GUI thread, between two frames of the 3D view): all curves of a plot are one
item with one ``paint()`` (:class:`~gui.plots.curves.CurveSet`); the axes with their grid are cached as pixmaps,
re-rendered only when their range changes; the y range is not pyqtgraph's auto-range (which moves, and so
re-renders the axis, at every refresh of a growing run) but grows with headroom only when the data leave it
(:meth:`LivePlot.grow_y_range`); and a live refresh gives new curves to a single plot, so that no event-loop
iteration repaints all four in full (cursor moves repaint thin strips); a growth of the y range gets an iteration
of its own, the new curves follow on the next. See docs/benchmarks.md (live view).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPainter, QPicture
from PySide6.QtWidgets import (QCheckBox, QComboBox, QGraphicsItem, QHBoxLayout, QLabel, QMenu, QSizePolicy,
                               QSplitter, QToolButton, QVBoxLayout, QWidget)

from mechstudio.core.simulate import REACTION_COMPONENTS
from mechstudio.core.contact.contacts import ContactModelError, contact_set
from mechstudio.gui.plots.curves import Curve, CurveSet, EventMarks
from mechstudio.gui.plots.log_axis import NonOverlappingAxis
from mechstudio.gui.simulation.event_ticks import event_color

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22"]
LOG_FLOOR = 1e-18  # violations are plotted on a log axis: exact zeros are shown at this floor
#: a y range is at least this fraction of the values' magnitude: a curve constant but for rounding (1e-16
#: relative) is drawn flat in a range whose tick labels read, not as noise filling the plot
MIN_RELATIVE_SPAN = 1e-6
HEADROOM = 0.15  # the y range grows by this fraction of its span beyond the data (and never shrinks in a run)
TIME_GROWTH = 2.0  # during a run the time axis ends at this multiple of the newest data time when it grows
FIRST_TIME_SPAN = 1.0  # [s] the time axis of a run starts as [0, min(end time, this)]
KEY_LINES = 2  # the colour key over a plot takes at most this many lines; the rest is in its tooltip
TICK_TEXT_WIDTH = 40  # [px] room for the left axis' tick labels (pyqtgraph starts at 30 and grows as labels come)


def _pen(i: int, style: Qt.PenStyle = Qt.PenStyle.SolidLine, width: float = 1.0) -> Any:
    return pg.mkPen(PALETTE[i % len(PALETTE)], width=width, style=style)


class KeyLabel(QLabel):
    """The coloured key of a plot's curves in at most :data:`KEY_LINES` lines: what does not fit is counted
    ("+3 more") and the whole key is in the tooltip, so a plot with many curves keeps its height for the curves."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setStyleSheet("font-size: 8pt")
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Maximum)
        self.entries: list[tuple[str, str]] = []  # (colour, text) of every curve

    def set_entries(self, entries: list[tuple[str, str]]) -> None:
        if entries != self.entries:
            self.entries = entries
            self._relayout()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self._relayout()

    def _relayout(self) -> None:
        """Show as many entries as fit in KEY_LINES lines of the current width."""
        if not self.entries:
            self.setText("")
            self.setToolTip("")
            return
        fm = self.fontMetrics()
        gap = fm.horizontalAdvance("  ")
        width = max(self.width(), 60)
        lines, x, shown = 1, 0, 0
        for k, (_c, text) in enumerate(self.entries):
            w = fm.horizontalAdvance(text)
            more = fm.horizontalAdvance(f"+{len(self.entries) - k} more") + gap
            room = width - (more if lines == KEY_LINES and k < len(self.entries) - 1 else 0)
            if x and x + gap + w > room:
                if lines == KEY_LINES:
                    break
                lines, x = lines + 1, 0
            x += (gap if x else 0) + w
            shown = k + 1
        spans = [f'<span style="color:{c}">{html_escape(t)}</span>' for c, t in self.entries]
        text = "  ".join(spans[:shown])
        if shown < len(spans):
            text += f'  <span style="color:#555">+{len(spans) - shown} more</span>'
        if text != self.text():
            self.setText(text)
        self.setToolTip("<br>".join(spans) if shown < len(spans) else "")
        self.setMaximumHeight(KEY_LINES * fm.lineSpacing() + 4)


def html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class LivePlot(QWidget):
    """One titled plot with its selectors and an export button; subclasses fill ``update_curves``."""

    sig_export = Signal(str, str)  # (plot key, format)

    key = ""
    title = ""
    ylabel = ""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(f"plot_{self.key}")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.setSpacing(2)
        self.header = QHBoxLayout()
        self.header.setSpacing(4)
        lbl = QLabel(f"<b>{self.title}</b>")
        self.header.addWidget(lbl)
        self.header.addStretch(1)
        lay.addLayout(self.header)
        self.options = QHBoxLayout()  # a second header row for selectors (keeps the plot narrow enough to share)
        self.options.setSpacing(4)
        lay.addLayout(self.options)
        self.plot_widget = pg.PlotWidget(background="w", axisItems={"left": NonOverlappingAxis("left")})
        self.plot_item: pg.PlotItem = self.plot_widget.getPlotItem()
        self.plot_item.showGrid(x=True, y=True, alpha=0.25)
        self.plot_item.setLabel("bottom", "t", units="s")
        if self.ylabel:
            self.plot_item.setLabel("left", self.ylabel)
        # Playing back an axis with its grid (a QPicture) costs ~3 ms per axis and repaint with a software
        # renderer, and every cursor move or curve update repaints the axes under it: keep them as pixmaps.
        self.set_axis_cache(True)
        # A left axis whose tick labels get wider (or narrower) resizes the view box: the whole plot is laid out and
        # repainted again, bottom axis included, right after the repaint that found the new labels. Reserve room
        # for the usual labels ("-1000", "-0.15", "10⁻¹⁸") from the start, and never shrink.
        left = self.plot_item.getAxis("left")
        left.setStyle(autoReduceTextSpace=False)
        left.textWidth = max(left.textWidth, TICK_TEXT_WIDTH)  # pyqtgraph's record of the widest tick label
        left._updateWidth()
        # pyqtgraph's in-plot legend costs ~100 ms per live repaint: a cheap coloured key label is shown live, the
        # legend only in exported images (export_plot turns it on for the export)
        self.legend = self.plot_item.addLegend(offset=(5, 5), labelTextSize="8pt")
        self.legend.setVisible(False)
        self.key_label = KeyLabel()
        self.key_label.setObjectName(f"key_{self.key}")
        self.cursor = pg.InfiniteLine(0.0, angle=90, pen=pg.mkPen("#555", width=1, style=Qt.PenStyle.DashLine))
        self.plot_item.addItem(self.cursor, ignoreBounds=True)
        # every curve of the plot in one item (one paint() for all of them: see gui/plots/curves.py), over the cursor
        self.curve_set = CurveSet()
        self.plot_item.addItem(self.curve_set)
        # the run's contact events as vertical lines (gui/simulation/event_ticks.py has their colours)
        self.event_marks = EventMarks()
        self.plot_item.addItem(self.event_marks, ignoreBounds=True)
        self._disable_item_transforms()
        lay.addWidget(self.key_label)
        lay.addWidget(self.plot_widget, 1)
        self._legend_key: list[tuple[str, str, int, float]] = []
        self.system: Any = None
        self._buffer: Any = None
        self._y_range: tuple[float, float] | None = None
        self._y_managed = True
        self._t_span: float | None = None  # the run's end time [s]: the time axis follows the data up to it
        self._x_hi: float | None = None  # the end of the time axis while it follows the data [s]
        self._range_only = False  # the last live update only grew the ranges
        # a zoom or pan by the user (mouse, wheel) hands the ranges over to them until the next run
        self.plot_item.getViewBox().sigRangeChangedManually.connect(lambda *_a: self._user_range())
        self.plot_item.enableAutoRange(y=False)

    @property
    def curves(self) -> dict[str, Curve]:
        """The shown curves by name, in drawing order (their data: ``getOriginalDataset()``)."""
        return self.curve_set.curves

    def _disable_item_transforms(self) -> None:
        """pyqtgraph's context menu offers transforms of PlotDataItems (FFT, derivative, ..., downsampling, alpha,
        points, averaging); the curves here are one CurveSet, which honours only the log axes: grey the rest out."""
        ctrl = self.plot_item.ctrl
        for name in ("fftCheck", "derivativeCheck", "phasemapCheck", "subtractMeanCheck", "decimateGroup",
                     "averageGroup", "alphaGroup", "pointsGroup"):
            w = getattr(ctrl, name, None)
            if w is not None:
                w.setEnabled(False)

    def set_axis_cache(self, on: bool) -> None:
        """Cache the axes (and their grid lines) as device pixmaps; the exporters paint without the cache."""
        mode = QGraphicsItem.CacheMode.DeviceCoordinateCache if on else QGraphicsItem.CacheMode.NoCache
        for name in ("left", "bottom", "right", "top"):
            self.plot_item.getAxis(name).setCacheMode(mode)

    def add_export_button(self) -> None:
        btn = QToolButton(self)
        btn.setText("Export")
        btn.setObjectName(f"export_{self.key}")
        btn.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(btn)
        for fmt in ("png", "svg", "csv"):
            menu.addAction(f"{fmt.upper()}…", lambda f=fmt: self.sig_export.emit(self.key, f))
        btn.setMenu(menu)
        self.header.addWidget(btn)

    def set_system(self, system: Any) -> None:
        self.system = system
        self.clear()

    def clear(self) -> None:
        """No curves, an empty legend and key, the time cursor at 0 (a new model, a new run)."""
        self.curve_set.clear()
        self.legend.clear()
        self._legend_key = []
        self.key_label.set_entries([])
        self.cursor.setValue(0.0)
        self.event_marks.set_marks([], [])
        self._y_range = None
        self._y_managed = True
        self._x_hi = None
        self._range_only = False
        self.plot_item.enableAutoRange(y=False)

    def set_time_span(self, t_end: float | None) -> None:
        """A run to ``t_end`` [s] starts: the time axis shows [0, min(t_end, FIRST_TIME_SPAN)] and then follows
        the data (:meth:`follow_time`); None: pyqtgraph's automatic range."""
        self._t_span = t_end if t_end and t_end > 0 else None
        self._x_hi = None
        if self._t_span is None:
            self.plot_item.enableAutoRange(x=True)
            return
        self.plot_item.enableAutoRange(x=False)
        self._set_x_hi(min(self._t_span, FIRST_TIME_SPAN))

    def _set_x_hi(self, hi: float) -> None:
        self._x_hi = hi
        self.plot_item.setXRange(0.0, hi, padding=0.01)
        self.prebuild_axes()

    def follow_time(self, t_last: float) -> bool:
        """Keep the newest data time ``t_last`` [s] on the time axis: when it reaches the axis' end, the end
        moves to TIME_GROWTH times it (never past the run's end time). So a long run's data fill the plot instead
        of a sliver of [0, end time], and the axis is re-rendered a few times per run, not at every refresh. Not
        after the user zoomed or panned. True when the range changed."""
        if self._t_span is None or self._x_hi is None or not self._y_managed:
            return False
        if t_last <= self._x_hi or self._x_hi >= self._t_span:
            return False
        self._set_x_hi(min(self._t_span, max(TIME_GROWTH * t_last, 2.0 * self._x_hi)))
        return True

    def fit_time(self, t_last: float) -> None:
        """The run ended at ``t_last`` [s]: the time axis shows [0, t_last] (a stopped run fills its plot)."""
        if self._t_span is None or not self._y_managed or t_last <= 0:
            return
        if self._x_hi is None or abs(self._x_hi - t_last) > 1e-12 * max(t_last, 1.0):
            self._set_x_hi(t_last)

    def grow_y_range(self, ys: list[np.ndarray]) -> bool:
        """Keep the data inside the y range: when a value leaves it, grow it (never shrink) with HEADROOM.

        A growing run thus changes the range (and re-renders the axis, its text and grid) a few times instead of at
        every refresh. Not after the user zoomed or panned, nor when pyqtgraph's auto-range is on (its "A" button).
        True when the range changed.
        """
        new = self._grown_y_range(ys)
        if new is None:
            return False
        self._y_range = new
        self.plot_item.getViewBox().setYRange(*new, padding=0)
        self.prebuild_axes()
        return True

    def prebuild_axes(self) -> None:
        """Lay out the ticks of an axis whose range changed now, not in the next repaint: what pyqtgraph's
        ``AxisItem.paint`` does first (tick values, labels and their sizes, in Python: ~3 ms; the repaint then
        only replays the picture). A live y-range growth is set in one gap between frames of the 3D view and
        painted in the next (``PlotPanel.refresh`` with ``defer_paint``): this moves that part of the cost into
        the first gap."""
        for name in ("left", "bottom"):
            ax = self.plot_item.getAxis(name)
            if getattr(ax, "picture", 0) is not None or not ax.isVisible():
                continue
            picture = QPicture()
            painter = QPainter(picture)
            try:
                if ax.style["tickFont"]:
                    painter.setFont(ax.style["tickFont"])
                specs = ax.generateDrawSpecs(painter)
                if specs is not None:
                    ax.drawPicture(painter, *specs)
            finally:
                painter.end()
            ax.picture = picture

    def _grown_y_range(self, ys: list[np.ndarray]) -> tuple[float, float] | None:
        """The range :meth:`grow_y_range` would set, or None when it stays."""
        vb = self.plot_item.getViewBox()
        if not self._y_managed or vb.state["autoRange"][1]:
            return None
        lo, hi = np.inf, -np.inf
        for y in ys:
            if not len(y):
                continue
            a, b = float(y.min()), float(y.max())  # (NaN when y has one: then over the finite values only)
            if not (np.isfinite(a) and np.isfinite(b)):
                y = y[np.isfinite(y)]
                if not len(y):
                    continue
                a, b = float(y.min()), float(y.max())
            lo, hi = min(lo, a), max(hi, b)
        if not np.isfinite(lo):
            return None
        if self.plot_item.ctrl.logYCheck.isChecked():  # the view box works in decades
            lo, hi = np.log10(max(lo, LOG_FLOOR)), np.log10(max(hi, LOG_FLOOR))
        r = self._y_range
        if r is not None and r[0] <= lo and hi <= r[1]:
            return None
        if r is not None:
            lo, hi = min(lo, r[0]), max(hi, r[1])
        if hi - lo < MIN_RELATIVE_SPAN * max(abs(lo), abs(hi)):  # constant but for rounding: centred, readable
            mid, half = (lo + hi) / 2, 0.5 * MIN_RELATIVE_SPAN * max(abs(lo), abs(hi))
            lo, hi = mid - half, mid + half
        span = hi - lo if hi > lo else max(abs(hi), 1.0) * 0.2
        return (lo - HEADROOM * span, hi + HEADROOM * span)

    def refit_y(self) -> None:
        """Forget the grown range (the selection of curves changed): the next update fits it anew."""
        self._y_range = None

    def _user_range(self) -> None:
        """The user zoomed or panned: the ranges are theirs now."""
        self._y_managed = False

    def _update_legend(self, wanted: list[tuple[str, np.ndarray, Any]]) -> None:
        """The legend (shown in exports) lists the curves in drawing order; rebuilt only when they change."""
        key = [(n, p.color().name(), p.style().value, p.widthF()) for n, _y, p in wanted]
        if key == self._legend_key:
            return
        self._legend_key = key
        self.legend.clear()
        for c in self.curves.values():
            self.legend.addItem(c, c.name)

    def series(self, buffer: Any) -> list[tuple[str, np.ndarray, Any]]:
        """(name, y, pen) of every curve to show."""
        return []

    def update_curves(self, buffer: Any, range_apart: bool = False) -> bool:
        """Copy the buffer's series into the curves (and grow the y range to hold them); True when done.

        With ``range_apart`` a growth of the y range is done alone (False is returned: call again for the curves),
        unless the previous call already did that: a range change repaints the axis and every curve, a data update
        re-sets and repaints the curves, and the two together in one event-loop iteration can delay a frame of the
        3D view by more than one display interval with a software renderer.
        """
        self._buffer = buffer
        if buffer is None or self.system is None or not len(buffer):
            return True  # no frames (a new model, a run not started): no curves, no legend (set_system cleared)
        t = buffer.t
        wanted = self.series(buffer)
        if range_apart and not self._range_only:
            grew_y = self.grow_y_range([y for _n, y, _p in wanted])
            if self.follow_time(float(t[-1])) or grew_y:
                self._range_only = True
                return False
        self._range_only = False
        self.curve_set.set_curves(t, wanted)
        self._update_legend(wanted)
        self.grow_y_range([y for _n, y, _p in wanted])
        self.follow_time(float(t[-1]))
        self.key_label.set_entries([(p.color().name(), f'{"┅" if p.style() != Qt.PenStyle.SolidLine else "━"} {n}')
                                    for n, _y, p in wanted])
        return True

    def data_range(self) -> tuple[float, float]:
        """(t_min, t_max) over the curves' data (tests check the plots hold data up to t_end)."""
        ts = [c.getData()[0] for c in self.curves.values()]
        ts = [x for x in ts if x is not None and len(x)]
        if not ts:
            return (0.0, 0.0)
        return (float(min(x[0] for x in ts)), float(max(x[-1] for x in ts)))


def contact_groups(system: Any) -> list[tuple[str, str]]:
    """(name, kind) of every contact element of ``system`` that can let go (``mechstudio.core.contact``: kind
    "pair" for a contact pair, "row" for a unilateral or frictional cam or rolling disk); [] for none."""
    if system is None:
        return []
    try:
        cset = contact_set(system)
    except (ContactModelError, ValueError, KeyError, AttributeError):  # the run reports a contact it cannot set up
        return []
    return [] if cset is None else [(g.name, g.kind) for g in cset.groups]


def contact_column_names(system: Any) -> list[str]:
    """The contact columns a run of ``system`` has (docs/results-csv.md, "Contacts")."""
    names = []
    for name, kind in contact_groups(system):
        parts = ("gap", "normal", "friction", "state") + (("Fx", "Fy", "Mz") if kind == "pair" else ())
        names += [f"contact.{name}.{p}" for p in parts]
    if names:
        names += ["energy.dissipated.impact", "energy.dissipated.friction"]
    return names


def buffer_column(buffer: Any, name: str) -> np.ndarray:
    """Contact column ``name`` of the buffer (NaN over the frames while it has none)."""
    try:
        return buffer.column(name)
    except (KeyError, AttributeError):
        return np.full(len(buffer), np.nan)


class ReactionPlot(LivePlot):
    key, title, ylabel = "reactions", "Reactions λ", "force [N] / moment [N m]"

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.which = QComboBox()
        self.which.setObjectName("reaction_constraint")
        self.which.setToolTip("constraint (joint, driver or contact) whose reaction is shown")
        self.which.currentIndexChanged.connect(lambda _i: self._changed())
        self.header.addWidget(self.which)
        self.boxes: dict[str, QCheckBox] = {}
        for comp in REACTION_COMPONENTS:
            cb = QCheckBox(comp)
            cb.setChecked(comp.startswith("F"))
            cb.toggled.connect(lambda _on: self._changed())
            self.boxes[comp] = cb
            self.options.addWidget(cb)
        self.options.addStretch(1)
        self.add_export_button()

    def set_system(self, system: Any) -> None:
        super().set_system(system)
        self.which.blockSignals(True)
        self.which.clear()
        self.which.addItem("all constraints", None)
        names = [c.name for c in system.constraints if c.type != "quaternion_norm"] if system is not None else []
        for n in names:
            self.which.addItem(n, n)
        self.pairs = [n for n, kind in contact_groups(system) if kind == "pair"]
        for n in self.pairs:  # contact pairs: their force on body2 (columns contact.<name>.Fx/.Fy/.Mz)
            self.which.addItem(f"{n} (contact)", n)
            names.append(n)
        self.which.setCurrentIndex(0 if len(names) != 1 else 1)
        self.which.blockSignals(False)
        planar = system is not None and system.model.kind == "planar"
        for comp, cb in self.boxes.items():
            cb.setVisible(not planar or comp in ("Fx", "Fy", "Mz"))
            if planar and comp == "Mz":
                cb.setChecked(False)

    def components(self) -> list[str]:
        return [c for c, cb in self.boxes.items() if cb.isChecked() and cb.isVisibleTo(self)]

    def set_components(self, comps: list[str]) -> None:
        for c, cb in self.boxes.items():
            cb.setChecked(c in comps)

    def _changed(self) -> None:
        self.refit_y()
        self.update_curves(self._buffer)

    def series(self, buffer: Any) -> list[tuple[str, np.ndarray, Any]]:
        sel = self.which.currentData()
        R = buffer.field("reactions")
        out = []
        i = 0
        for k, c in enumerate(self.system.constraints):
            if c.type == "quaternion_norm" or (sel is not None and c.name != sel):
                continue
            for comp in self.components():
                out.append((f"{c.name}.{comp}", R[:, k, REACTION_COMPONENTS.index(comp)], _pen(i)))
                i += 1
        for name in getattr(self, "pairs", []):
            if sel is not None and name != sel:
                continue
            for comp in self.components():
                if comp in ("Fx", "Fy", "Mz"):
                    out.append((f"{name}.{comp}", buffer_column(buffer, f"contact.{name}.{comp}"), _pen(i)))
                    i += 1
        return out


class ViolationPlot(LivePlot):
    key, title, ylabel = "violation", "Constraint violation", "norm"

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.plot_item.setLogMode(x=False, y=True)
        self.plot_item.getAxis("left").enableAutoSIPrefix(False)  # a log axis labelled "norm (x1e-09)" is wrong
        self.add_export_button()

    def series(self, buffer: Any) -> list[tuple[str, np.ndarray, Any]]:
        f = lambda k: np.maximum(np.abs(buffer.field(k)), LOG_FLOOR)  # noqa: E731
        dash = Qt.PenStyle.DashLine
        return [("‖Φ‖ before", f("violation_position_before"), _pen(0, dash)),
                ("‖Φ‖ after", f("violation_position"), _pen(0)),
                ("‖Cq'+ξ‖ before", f("violation_velocity_before"), _pen(1, dash)),
                ("‖Cq'+ξ‖ after", f("violation_velocity"), _pen(1))]


class EnergyPlot(LivePlot):
    key, title, ylabel = "energy", "Energy", "J"

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.add_export_button()

    def series(self, buffer: Any) -> list[tuple[str, np.ndarray, Any]]:
        T, V, W = buffer.field("kinetic"), buffer.field("potential"), buffer.field("work")
        E = T + V
        out = [("kinetic", T, _pen(0)), ("potential", V, _pen(1)), ("total", E, _pen(2, width=1.5)),
               ("work (nc + constraints)", W, _pen(3, Qt.PenStyle.DashLine)),
               ("balance total − work", E - W, _pen(4, Qt.PenStyle.DotLine, 2.0))]
        names = getattr(buffer, "column_names", [])
        if "energy.dissipated.impact" in names or "energy.dissipated.friction" in names:
            # contacts: impacts and friction dissipate energy (docs/contact.md, "Energy"); the run's work W already
            # holds both losses (so total − work stays flat), and total + dissipated is flat too when no other
            # force does work
            D = np.zeros(len(buffer))
            for k in ("energy.dissipated.impact", "energy.dissipated.friction"):
                if k in names:
                    D = D + np.nan_to_num(buffer_column(buffer, k))
            out += [("dissipated in contacts", D, _pen(5, Qt.PenStyle.DashDotLine)),
                    ("total + dissipated", E + D, _pen(6, Qt.PenStyle.DotLine, 1.5))]
        return out


class CoordinatePlot(LivePlot):
    key, title, ylabel = "coordinates", "Coordinates", ""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.pick = QComboBox()
        self.pick.setObjectName("coordinate_pick")
        self.pick.setToolTip("add a coordinate (q) or velocity (v) to the plot")
        self.header.addWidget(self.pick)
        add = QToolButton()
        add.setText("+")
        add.setToolTip("add the selected coordinate or velocity")
        add.clicked.connect(lambda: self.add_series(self.pick.currentData()))
        rem = QToolButton()
        rem.setText("clear")
        rem.clicked.connect(self.clear_series)
        self.header.addWidget(add)
        self.header.addWidget(rem)
        self.add_export_button()
        self.shown: list[str] = []

    def set_system(self, system: Any) -> None:
        super().set_system(system)
        self.pick.clear()
        self.shown = []
        if system is None:
            return
        for kind in ("q", "v"):
            for name in system.coord_names:
                self.pick.addItem(f"{kind}.{name}", f"{kind}.{name}")
        for name in contact_column_names(system):  # a run with contacts: its contact columns
            self.pick.addItem(name, name)
        if system.coord_names:
            self.shown = [f"q.{system.coord_names[0]}"]

    def add_series(self, name: str | None) -> None:
        if name and name not in self.shown:
            self.shown.append(name)
            self.refit_y()
            self.update_curves(self._buffer)

    def clear_series(self) -> None:
        self.shown = []
        self.refit_y()
        self.update_curves(self._buffer)

    def series(self, buffer: Any) -> list[tuple[str, np.ndarray, Any]]:
        out = []
        for i, name in enumerate(self.shown):
            kind, coord = name.split(".", 1)
            if kind not in ("q", "v"):  # a contact column
                out.append((name, buffer_column(buffer, name), _pen(i)))
                continue
            k = self.system.coord_names.index(coord)
            out.append((name, buffer.field(kind)[:, k], _pen(i)))
        return out


class PlotPanel(QWidget):
    """The four live plots side by side (a splitter); see the module docstring."""

    sig_export = Signal(str, str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("plot_panel")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.reactions = ReactionPlot()
        self.violation = ViolationPlot()
        self.energy = EnergyPlot()
        self.coordinates = CoordinatePlot()
        self.plots: dict[str, LivePlot] = {p.key: p for p in (self.reactions, self.violation, self.energy,
                                                              self.coordinates)}
        for p in self.plots.values():
            self.splitter.addWidget(p)
            p.sig_export.connect(self.sig_export)
        lay.addWidget(self.splitter)
        self._sized = False  # the plots get equal widths once, at the first real size (then the user's)
        self._version = -1
        self._versions: dict[str, int] = {}
        self._buffer: Any = None
        self.buffer: Any = None  # the run shown by show_run
        self._deferred: QWidget | None = None  # the viewport of a plot whose repaint waits for flush_paint
        self.refresh_count = 0

    def resizeEvent(self, ev: Any) -> None:
        super().resizeEvent(ev)
        if not self._sized and self.width() > 400:
            self._sized = True
            n = len(self.plots)
            self.splitter.setSizes([self.splitter.width() // n] * n)

    def set_system(self, system: Any) -> None:
        """Show the (empty) plots of ``system`` (None: no model): curves, legends, keys and cursors cleared."""
        for p in self.plots.values():
            p.set_system(system)
        self._version = -1
        self._buffer = None
        self._versions = {}
        self.flush_paint()

    def show_run(self, system: Any, buffer: Any) -> None:
        """Show every frame of a finished run (exports, tests): ``buffer`` is kept as :attr:`buffer`."""
        self.set_system(system)
        self.buffer = buffer
        self.refresh(buffer, force=True)
        self.set_events(getattr(buffer, "events", []))

    def set_events(self, events: list[dict[str, Any]]) -> None:
        """Mark the run's contact events (dicts with ``t`` [s] and ``kind``) on every plot."""
        times = [float(ev["t"]) for ev in events]
        colors = [event_color(str(ev.get("kind", ""))) for ev in events]
        for p in self.plots.values():
            p.event_marks.set_marks(times, colors)

    def clear(self) -> None:
        """Drop every curve, legend entry and key; cursors to 0 (the system stays)."""
        for p in self.plots.values():
            p.clear()
        self._version = -1
        self._buffer = None
        self._versions = {}

    def set_time_range(self, t_end: float | None) -> None:
        """A run to ``t_end`` [s] starts: the time axes follow its data up to t_end (:meth:`LivePlot.follow_time`;
        a steady axis is not re-rendered at every refresh); None: automatic."""
        for p in self.plots.values():
            p.set_time_span(t_end)

    def fit_time(self, t_last: float) -> None:
        """The run ended at ``t_last`` [s]: every time axis shows [0, t_last]."""
        for p in self.plots.values():
            p.fit_time(t_last)

    def paint_pending(self) -> bool:
        """A plot was updated with ``defer_paint`` and waits for :meth:`flush_paint`."""
        return self._deferred is not None

    def flush_paint(self) -> None:
        """Let the plot updated with ``defer_paint`` repaint (it does so in the next event-loop iteration)."""
        if self._deferred is not None:
            self._deferred.setUpdatesEnabled(True)  # schedules a repaint of the whole plot area
            self._deferred = None

    def refresh(self, buffer: Any, force: bool = False, cursor: float | None = None,
                defer_paint: bool = False) -> bool:
        """Copy the buffer into the curves when it changed; True when curves were updated (not just a y range).

        Live (``force`` False) a single plot gets new curves per call: the one whose data is the oldest. One
        event-loop iteration thus never repaints more than one plot in full (a plot repaint costs several ms with
        a software renderer, and all four at once would delay a frame of the 3D view); a plot whose y range must
        grow does that first, alone, and gets its curves at the next call. With ``force`` every plot is brought
        up to date at once.

        ``cursor`` moves the time cursor of every plot, so that all of them show the same time: a cursor move
        repaints a strip a few pixels wide over its plot (the curves draw only their points in it, the axes are
        cached pixmaps), ~1 ms per plot.

        With ``defer_paint`` (live) the plot that got new curves does not repaint until :meth:`flush_paint`:
        setting 20 curves and painting them can take longer than a display interval, in two event-loop
        iterations each fits.
        """
        self.flush_paint()
        if buffer is None:
            return False
        if buffer is not self._buffer:
            self._buffer = buffer
            self._versions = {k: -1 for k in self.plots}
        keys = list(self.plots)
        stale = [k for k in keys if self._versions.get(k) != buffer.version]
        if force:
            todo = stale
        elif stale:
            todo = [min(stale, key=lambda k: (self._versions.get(k, -1), keys.index(k)))]
            if defer_paint:
                self._deferred = self.plots[todo[0]].plot_widget.viewport()
                self._deferred.setUpdatesEnabled(False)
        else:
            todo = []
        updated = False
        for k in todo:
            if self.plots[k].update_curves(buffer, range_apart=not force):
                self._versions[k] = buffer.version
                updated = True
        if cursor is not None:
            self.set_cursor(cursor)
        if not updated:
            return False
        self._version = buffer.version
        self.refresh_count += 1
        return True

    def up_to_date(self, buffer: Any) -> bool:
        return buffer is self._buffer and all(v == buffer.version for v in self._versions.values())

    def set_cursor(self, t: float) -> None:
        for p in self.plots.values():
            if p.cursor.value() != t:
                p.cursor.setValue(t)

    def for_each(self, fn: Callable[[LivePlot], Any]) -> list[Any]:
        return [fn(p) for p in self.plots.values()]
