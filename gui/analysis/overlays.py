"""The canvas's linkage overlays: *View → Linkage overlays* (and the Linkage report's check boxes) switch on the
instant centres (with or without Kennedy lines), the transmission angle and the limit positions, drawn over the pose
the canvas shows.

:class:`LinkageOverlays` is installed once per window (``window.linkage_overlays``). It paints through the canvas's
``overlay_painters`` hook (:func:`mechstudio.gui.editor.analysis_overlay.paint_overlay`), for the configuration the
canvas draws: the model's assembled pose while editing, a run's frame during playback and scrubbing
(``canvas.shown_configuration``), a mode's pose while a mode is animated (the velocities of a mechanism with
several degrees of freedom then come from the run's frames or from the mode's motion). The picture is computed once per
configuration (:mod:`mechstudio.gui.analysis.overlay_data`: instant centres from (q, q'), the transmission angle from
q) and kept until the configuration or a switch changes; zoom and pan only repaint it.

The limit positions come from the crank sweep of the Linkage report (:func:`mechstudio.gui.analysis.jobs.linkage_job`,
360 assemblies of the linkage): it runs on a worker thread once per model, after the model has stayed unchanged for
:data:`SWEEP_DELAY_MS` (a drag changes it many times a second), or is taken from the Linkage report when that has
the current model's result.

Nothing here edits the document: switching an overlay adds no undo step. Where an overlay cannot be drawn (a model
that is not a four-bar or slider-crank, a spatial model, a mechanism that is not assembled, instant centres of a
mechanism with several degrees of freedom and no run to give its velocities) the reason is a note in the canvas's
corner, in the status bar when the switch is turned on, and in the switch's tooltip.
"""
from __future__ import annotations

import logging
from typing import Any, Callable

import numpy as np
from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction, QPainter
from PySide6.QtWidgets import QMenu

from mechstudio.core.analysis.linkage import Linkage, LinkageError, length_scale, linkage_topology
from mechstudio.gui.analysis.jobs import LinkageResult, Outcome, linkage_job
from mechstudio.gui.analysis.overlay_data import (centre_marks, free_motion, ghost_of, kennedy_lines, legend,
                                                  link_numbers, transmission_arc, user_reason)
from mechstudio.gui.analysis.panel import AnalysisWorker
from mechstudio.gui.editor.analysis_overlay import Ghost, OverlayPicture, Painted, paint_overlay

log = logging.getLogger(__name__)

#: the crank sweep of the limit positions starts once the model has not changed for this long [ms]
SWEEP_DELAY_MS = 250

#: (attribute, menu text, object name, tooltip) of the switches
SWITCHES = (
    ("act_centres", "Show &instant centres", "act_overlay_centres",
     "Mark the instant centre of every pair of links (I12: links 1 ground, 2, 3, ... in file order) on the pose "
     "shown"),
    ("act_kennedy", "&Kennedy lines", "act_overlay_kennedy",
     "With the instant centres: the line through the three centres of every three links (Kennedy's theorem)"),
    ("act_transmission", "Show &transmission angle", "act_overlay_transmission",
     "The angle between coupler and output at their joint, on the pose shown (four-bar, slider-crank)"),
    ("act_limits", "Show &limit positions", "act_overlay_limits",
     "The mechanism's outline in its limit positions (output at rest) and stops (four-bar, slider-crank)"),
)


class LinkageOverlays(QObject):
    """See the module docstring. ``window``: the main window (its canvas, document, View menu, status bar)."""

    def __init__(self, window: Any):
        super().__init__(window)
        self.window = window
        self.canvas = window.canvas
        self.document = window.document
        self.menu = QMenu("Linkage &overlays", window)
        self.menu.setObjectName("menu_linkage_overlays")
        self.menu.setToolTipsVisible(True)
        for attr, text, name, tip in SWITCHES:
            action = QAction(text, window)
            action.setObjectName(name)
            action.setCheckable(True)
            action.setStatusTip(tip)
            action.setToolTip(tip)
            action.setData(tip)
            action.toggled.connect(lambda on, a=action: self._on_switch(a, on))
            setattr(self, attr, action)
            self.menu.addAction(action)
        self.act_kennedy.setEnabled(False)
        self.picture: OverlayPicture = OverlayPicture()
        self.painted: Painted | None = None
        self.reasons: dict[str, str] = {}  # switch object name -> why it shows nothing now
        self._key: tuple[Any, ...] | None = None
        self._linkage: tuple[Any, Linkage | None, str] | None = None  # (system, linkage, why not)
        self.sweep: Outcome | None = None  # the crank sweep of the document's model
        self._ghosts: tuple[Any, tuple[Ghost, ...]] | None = None
        self.worker = AnalysisWorker(self)
        self.worker.done.connect(self._on_sweep_done)
        self.sweep_timer = QTimer(self)
        self.sweep_timer.setSingleShot(True)
        self.sweep_timer.setInterval(SWEEP_DELAY_MS)
        self.sweep_timer.timeout.connect(self._start_sweep)
        #: functions (system, q, t) -> q' or None that know the velocities of a configuration the canvas shows (the
        #: mode animation's); asked before a run's frames
        self.velocity_sources: list[Callable[[Any, Any, float], np.ndarray | None]] = []
        self.canvas.overlay_painters.append(self.paint)
        self.document.sig_analysis_changed.connect(self._on_model_changed)

    # ---- switches --------------------------------------------------------------------------------------------
    @property
    def switches(self) -> tuple[QAction, ...]:
        return tuple(getattr(self, attr) for attr, *_ in SWITCHES)

    @property
    def active(self) -> bool:
        return self.act_centres.isChecked() or self.act_transmission.isChecked() or self.act_limits.isChecked()

    def _on_switch(self, action: QAction, on: bool) -> None:
        self.act_kennedy.setEnabled(self.act_centres.isChecked())
        if action is self.act_limits and on:
            self._need_sweep()
        self.refresh()
        why = self.reasons.get(action.objectName(), "")
        if on and why:
            self.canvas.sig_status.emit(f"{action.text().replace('&', '')}: {why}")

    def refresh(self) -> None:
        """Compute the picture again (the next paint does) and repaint the canvas."""
        self._key = None
        self.update_picture()
        self.canvas.viewport().update()

    # ---- the model ---------------------------------------------------------------------------------------------
    def _on_model_changed(self, _analysis: Any) -> None:
        self._linkage = None
        if self.act_limits.isChecked():
            self._need_sweep()
        self._key = None

    def _need_sweep(self) -> None:
        if self.sweep is not None and self.sweep.model == self.document.model:
            return
        self.sweep_timer.start()

    def _start_sweep(self) -> None:
        if not self.act_limits.isChecked() or (self.sweep is not None and self.sweep.model == self.document.model):
            return
        if self.worker.is_running():  # the outcome will be for an older model: start again when it arrives
            return
        self.worker.start(linkage_job, self.document.model)
        self.refresh()

    def _on_sweep_done(self, outcome: Outcome) -> None:
        self.offer_sweep(outcome)
        if self.act_limits.isChecked() and outcome.model != self.document.model:
            self.sweep_timer.start()

    def offer_sweep(self, outcome: Outcome) -> None:
        """Use a Linkage report's outcome (from this module's worker or the report's dialog) for the limit
        positions, when it belongs to the document's model."""
        if outcome.model != self.document.model:
            return
        self.sweep = outcome
        self._ghosts = None
        self.refresh()

    # ---- the picture -------------------------------------------------------------------------------------------
    def configuration(self) -> tuple[Any, Any, float] | str:
        """(system, q, t) of the pose the canvas shows, or why there is none to analyse."""
        shown = self.canvas.shown_configuration
        if shown is not None:
            return shown
        a = self.document.analysis
        if a.state == "empty":
            return "the model has no bodies yet"
        if a.state != "assembled" or a.system is None or a.q is None:
            return "the mechanism is not assembled"
        return a.system, a.q, 0.0

    def frame_velocity(self, system: Any, t: float) -> np.ndarray | None:
        """q' at time ``t`` [s] of the run whose frame the canvas shows (its output frames interpolated); None
        without a run of ``system``."""
        live = getattr(self.window, "live", None)
        c = getattr(live, "controller", None)
        if c is None or c.system is not system or not len(c.buffer):
            return None
        i, j, s = c.buffer.index_at(t)
        V = c.buffer.field("v")
        return np.asarray((1.0 - s) * V[i] + s * V[j], float)

    def shown_velocity(self, system: Any, q: Any, t: float) -> np.ndarray | None:
        """q' of the configuration the canvas shows: from a velocity source (a mode's motion), else from the run's
        frames; None when nobody knows it."""
        for source in self.velocity_sources:
            v = source(system, q, t)
            if v is not None:
                return v
        return self.frame_velocity(system, t)

    def linkage(self, system: Any, q: Any) -> tuple[Linkage | None, str]:
        """The four-bar or slider-crank of ``system`` (kept per system), or why it is none."""
        if self._linkage is not None and self._linkage[0] is system:
            return self._linkage[1], self._linkage[2]
        try:
            lk: Linkage | None = Linkage(system, linkage_topology(system.model), q0=np.asarray(q, float))
            why = ""
        except LinkageError as exc:
            lk, why = None, user_reason(str(exc))
        self._linkage = (system, lk, why)
        return lk, why

    def update_picture(self) -> OverlayPicture:
        """The picture of the configuration shown (computed again only when it or a switch changed)."""
        centres, kennedy = self.act_centres.isChecked(), self.act_kennedy.isChecked()
        transmission, limits = self.act_transmission.isChecked(), self.act_limits.isChecked()
        if not (centres or transmission or limits):
            self.picture, self.reasons, self._key = OverlayPicture(), {}, None
            return self.picture
        config = self.configuration()
        key = (config, centres, kennedy, transmission, limits, self.sweep, self.worker.is_running())
        if self._key is not None and same_key(key, self._key):
            return self.picture
        try:
            self.picture, self.reasons = self._compute(config, centres, kennedy, transmission, limits)
        except Exception as exc:  # an overlay is never worth a traceback: a note says what went wrong
            log.warning("cannot compute the linkage overlays", exc_info=True)
            self.picture = OverlayPicture(notes=(f"overlays not shown: {type(exc).__name__}: {exc}",))
            self.reasons = {a.objectName(): str(exc) for a in self.switches}
        self._key = key
        self._update_tooltips()
        return self.picture

    def _compute(self, config: tuple[Any, Any, float] | str, centres: bool, kennedy: bool, transmission: bool,
                 limits: bool) -> tuple[OverlayPicture, dict[str, str]]:
        reasons: dict[str, str] = {}
        notes: list[str] = []
        wanted = [a for a, on in ((self.act_centres, centres), (self.act_transmission, transmission),
                                  (self.act_limits, limits)) if on]
        if isinstance(config, str):
            for a in wanted:
                reasons[a.objectName()] = config
            return OverlayPicture(notes=(f"linkage overlays: {config}",)), reasons
        system, q, t = config
        if system.model.kind != "planar":
            why = "linkage overlays are drawn for planar models only"
            return OverlayPicture(notes=(why,)), {a.objectName(): why for a in wanted}
        q = np.asarray(q, float)
        marks: tuple[Any, ...] = ()
        lines: tuple[Any, ...] = ()
        if centres:
            v, dof = free_motion(system, q, t)
            if v is None and self.canvas.shown_configuration is not None:
                v = self.shown_velocity(system, q, t)
            if v is None:
                why = ("the mechanism cannot move (0 degrees of freedom): no instant centres" if dof == 0 else
                       f"the mechanism has {dof} degrees of freedom: its instant centres depend on the velocities; "
                       f"run it and look at a frame of the run")
                reasons[self.act_centres.objectName()] = why
                notes.append(f"instant centres: {why}")
            else:
                marks = centre_marks(system, q, v)
                notes.append(f"instant centres, {legend(link_numbers(system.model))}")
                far = [f"{m.label} at infinity (a translation; arrow: its direction)" for m in marks
                       if m.point is None and m.direction is not None]
                rest = [m.label for m in marks if m.point is None and m.direction is None]
                notes += far
                if rest:
                    notes.append(f"{', '.join(rest)}: no relative motion at this instant (undefined)")
                if kennedy:
                    lines = kennedy_lines(marks, length_scale(system.model))
        arc = None
        if transmission or limits:
            lk, why = self.linkage(system, q)
            if lk is None:
                for a in (self.act_transmission, self.act_limits):
                    if a.isChecked():
                        reasons[a.objectName()] = why
                notes.append(f"{'transmission angle' if transmission else 'limit positions'}"
                             f"{' and limit positions' if transmission and limits else ''}: {why}")
            elif transmission:
                arc = transmission_arc(lk, q)
        ghosts: tuple[Ghost, ...] = ()
        if limits and not reasons.get(self.act_limits.objectName()):
            ghosts, why = self.ghosts()
            if why:
                reasons[self.act_limits.objectName()] = why
                notes.append(f"limit positions: {why}")
        return OverlayPicture(marks, lines, arc, ghosts, tuple(notes)), reasons

    def ghosts(self) -> tuple[tuple[Ghost, ...], str]:
        """The outlines of the document's model in its limit positions and stops, or why there are none (yet)."""
        out = self.sweep
        if out is None or out.model != self.document.model:
            return (), "computing the crank sweep…"
        if out.error or not isinstance(out.result, LinkageResult):
            return (), user_reason(out.error or "no result")
        if self._ghosts is None or self._ghosts[0] is not out:
            lk, sweep = out.result.linkage, out.result.sweep
            self._ghosts = (out, tuple(ghost_of(out.system, lk, p) for p in sweep.limits + sweep.stops))
        if not self._ghosts[1]:
            return (), "none (the output never comes to rest over the crank's turn)"
        return self._ghosts[1], ""

    def _update_tooltips(self) -> None:
        for a in self.switches:
            why = self.reasons.get(a.objectName(), "")
            a.setToolTip(f"{a.data()}\nNot drawn now: {why}" if why else a.data())

    # ---- painting ------------------------------------------------------------------------------------------------
    def paint(self, painter: QPainter) -> None:
        """The canvas's overlay painter (scene coordinates)."""
        if not self.active:
            self.painted = None
            return
        picture = self.update_picture()
        try:
            self.painted = paint_overlay(self.canvas, painter, picture) if not picture.empty else None
        except Exception:  # a painting bug must never break the canvas's paint (a traceback per frame)
            log.warning("cannot paint the linkage overlays", exc_info=True)
            self.painted = None


def same_key(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Whether two picture keys (configuration, switches, sweep, busy) are the same: the configuration's system
    and q by identity (a new q is a new configuration), its time and the switches by value, the sweep by
    identity."""
    ca, cb = a[0], b[0]
    if isinstance(ca, str) or isinstance(cb, str):
        if ca != cb:
            return False
    elif not (ca[0] is cb[0] and ca[1] is cb[1] and ca[2] == cb[2]):
        return False
    return a[1:5] == b[1:5] and a[5] is b[5] and a[6] == b[6]


def install_overlays(window: Any) -> LinkageOverlays:
    """``window.linkage_overlays``, with its submenu in the View menu after the view switches."""
    overlays = LinkageOverlays(window)
    window.linkage_overlays = overlays
    view = window.menu_view
    first_separator = next((a for a in view.actions() if a.isSeparator()), None)
    if first_separator is not None:
        view.insertMenu(first_separator, overlays.menu)
    else:
        view.addMenu(overlays.menu)
    return overlays


__all__ = ["LinkageOverlays", "SWEEP_DELAY_MS", "SWITCHES", "install_overlays", "same_key"]
