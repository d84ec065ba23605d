"""The live-simulation UI plugged into the main window: 3D view and plot docks, the Simulation toolbar and menu
(Run / Pause / Stop / Step / Reset / Replay / Settings, time slider, speed, progress with ETA), view options and
the exports. Installed by :func:`install_live_view` through the window's hook (``MainWindow.add_live_view``).

The toolbar never changes size: its actions are icons with fixed texts (the changing part, e.g. "Resume the
paused run", is in the tooltip). The time slider, time readout, speed, progress and run status are one widget,
:attr:`LiveView.time_bar`, of fixed layout: the window puts it on a toolbar row of its own through
``window.add_time_bar(widget)`` when it has that method, otherwise it goes at the end of the Simulation toolbar.
The progress bar (with the ETA) shows only while the solver runs; the status label is the run's only status.
:meth:`LiveView.reset` clears the plots, legends and cursors (the controller calls it itself when a file is opened
or a new model started: the document's reset signal; a save keeps the results).
"""
from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QComboBox, QFileDialog, QHBoxLayout, QLabel, QProgressBar, QSizePolicy, QStyle,
                               QWidget)

from mechstudio.core.model import edit
from mechstudio.gui.plots.panel import PlotPanel
from mechstudio.gui.simulation.canvas_motion import CanvasMotion
from mechstudio.gui.simulation.controller import SimulationController
from mechstudio.gui.simulation.event_ticks import EventSlider
from mechstudio.gui.simulation.point_traces import PointTraces
from mechstudio.gui.simulation.settings_values import simulation_section
from mechstudio.gui.view3d.scene import SceneContainer

log = logging.getLogger(__name__)

SLIDER_STEPS = 1000
STATUS_TEXT = {"idle": "ready", "running": "running", "paused": "paused", "finished": "finished",
               "stopped": "stopped", "failed": "FAILED"}
SPEEDS = ("0.1", "0.25", "0.5", "1", "2", "4")
TRACE_CANVAS_MS = 100  # the canvas's traces follow a playing run at most this often [ms]
#: the simulation settings in words (undo step names)
SETTING_WORDS = {"t_end": "end time", "dt": "output interval", "rtol": "relative tolerance",
                 "atol": "absolute tolerance", "correction": "drift correction"}


class LiveView(QObject):
    """Everything the live simulation adds to a MainWindow (``window.live``)."""

    def __init__(self, window: Any):
        super().__init__(window)
        self.window = window
        self.container = SceneContainer()
        self.view = self.container.scene  # the scene (a QOpenGLWindow in a window container)
        self.plots = PlotPanel()
        self.controller = SimulationController(window.document, self.view, self.plots, self,
                                               report_error=self._report_error)
        window.add_live_view(self.container, self.plots)
        self._last_label = self._last_progress = 0.0
        self.ask_directory = self._ask_directory  # tests replace these
        self.ask_file = self._ask_file
        self.ask_plot_size = self._ask_plot_size
        self.ask_video_size = self._ask_video_size
        from mechstudio.gui.export import VIDEO_SIZE
        from mechstudio.gui.plots.figure import DEFAULT_SIZE
        self.plot_size = DEFAULT_SIZE  # the last size chosen for plot pictures (every plot of a bundle has it)
        self.video_size = VIDEO_SIZE  # [px] (width, height) of exported videos
        self.settings_dialog: Any = None  # the settings dialog while it is open
        self._build_actions()
        self._build_toolbar()
        self._build_menu()
        c = self.controller
        c.sig_state_changed.connect(self._on_state_changed)
        c.sig_time_changed.connect(self._on_time_changed)
        c.sig_progress.connect(self._on_progress)
        c.sig_events.connect(self._on_events)
        self._install_point_traces()
        self.canvas_motion = CanvasMotion(self.controller, window.canvas, self)  # the 2D canvas follows the run
        self.plots.sig_export.connect(self._on_plot_export)
        window.installEventFilter(self)
        self._on_state_changed(c.state)

    # ---- UI ----------------------------------------------------------------------------------------------
    def _act(self, text: str, slot: Any, shortcut: str | None = None, tip: str = "", name: str = "",
             icon: QStyle.StandardPixmap | None = None) -> QAction:
        a = QAction(text, self.window)
        a.setObjectName(name or f"act_{text.strip('&').lower().replace(' ', '_').replace('…', '')}")
        if icon is not None:
            a.setIcon(self.window.style().standardIcon(icon))
        if shortcut:
            a.setShortcut(QKeySequence(shortcut))
        self._set_tip(a, tip)
        a.triggered.connect(lambda _c=False: slot())
        return a

    @staticmethod
    def _set_tip(a: QAction, tip: str) -> None:
        """Tooltip and status tip, with the shortcut: the changing part of an action lives here, not in its text."""
        if not tip:
            return
        keys = a.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        a.setStatusTip(tip)
        a.setToolTip(f"{tip} ({keys})" if keys else tip)

    def _build_actions(self) -> None:
        c = self.controller
        P = QStyle.StandardPixmap
        self.act_run = self._act("Run", c.run_or_resume, "F5", "Run the simulation", "act_run", P.SP_MediaPlay)
        self.act_pause = self._act("Pause", c.pause, "F6", "Pause the run", "act_pause", P.SP_MediaPause)
        self.act_stop = self._act("Stop", c.stop, "Shift+F5", "Stop the run (results are kept)", "act_stop",
                                  P.SP_MediaStop)
        self.act_step_back = self._act("Step back", c.step_back, "Shift+F7", "Show the previous output frame",
                                       "act_step_back", P.SP_MediaSkipBackward)
        self.act_step = self._act("Step", c.step, "F7", "Show the next output frame (computes it when needed)",
                                  "act_step", P.SP_MediaSkipForward)
        self.act_reset = self._act("Reset", self.reset, None, "Drop the results and show the initial pose",
                                   "act_reset", P.SP_DialogResetButton)
        self.act_replay = self._act("Replay", c.replay, None, "Play the run again from the start", "act_replay",
                                    P.SP_BrowserReload)
        self.act_settings = self._act("Settings…", self.edit_settings, None,
                                      "Simulation settings: end time, output interval, formulation, integrator, "
                                      "tolerances", "act_sim_settings", P.SP_FileDialogDetailedView)
        self.act_trails = QAction("Trails of the centres of mass", self.window, checkable=True)
        self.act_trails.toggled.connect(self._on_trails)
        self.act_reactions = QAction("Reaction-force arrows", self.window, checkable=True)
        self.act_reactions.toggled.connect(self._on_reaction_arrows)
        self.act_follow = QAction("Camera follows the mechanism", self.window, checkable=True, checked=True)
        self.act_follow.toggled.connect(lambda on: setattr(self.view, "follow", on))
        self.act_camera = self._act("Reset 3D camera", self.view.reset_camera, None, "", "act_reset_camera")
        self.act_export_csv = self._act("Run to CSV…", self.export_csv_dialog, None, "", "act_export_csv")
        self.act_export_plots = self._act("All plots (PNG, SVG, CSV)…", self.export_plots_dialog, None, "",
                                          "act_export_plots")
        self.act_export_mp4 = self._act("Animation to MP4…", lambda: self.export_video_dialog(".mp4"), None, "",
                                        "act_export_mp4")
        self.act_export_gif = self._act("Animation to GIF…", lambda: self.export_video_dialog(".gif"), None, "",
                                        "act_export_gif")
        self.act_export_bundle = self._act("Export bundle…", self.export_bundle_dialog, None,
                                           "model, settings, CSV, plots and video in one folder", "act_export_bundle")

    @property
    def transport_actions(self) -> list[QAction]:
        """The Simulation toolbar's actions, in order."""
        return [self.act_run, self.act_pause, self.act_stop, self.act_step_back, self.act_step, self.act_reset,
                self.act_replay, self.act_settings]

    def _build_toolbar(self) -> None:
        tb = self.window.toolbar_simulation
        tb.addActions(self.transport_actions)
        self.time_bar = self._build_time_bar()
        place = getattr(self.window, "add_time_bar", None)
        if callable(place):
            place(self.time_bar)
        else:
            tb.addSeparator()
            tb.addWidget(self.time_bar)

    def _build_time_bar(self) -> QWidget:
        """Slider, time readout, speed, progress and status in one widget of fixed layout (nothing in it changes
        size: the labels have fixed widths, the progress bar keeps its room while hidden)."""
        bar = QWidget()
        bar.setObjectName("time_bar")
        lay = QHBoxLayout(bar)
        lay.setContentsMargins(4, 0, 4, 0)
        fm = bar.fontMetrics()
        self.slider = EventSlider()  # the run's contact events are ticks on it (gui/simulation/event_ticks.py)
        self.slider.setObjectName("time_slider")
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setMinimumWidth(160)
        self.slider.setToolTip("Time: drag to scrub (the mechanism and the plots' cursors move together)")
        self.slider.sliderMoved.connect(self._on_slider_moved)
        lay.addWidget(self.slider, 1)
        self.time_label = QLabel("t = 0.000 s")
        self.time_label.setObjectName("time_label")
        self.time_label.setFixedWidth(fm.horizontalAdvance("t = 00000.000 s") + 8)
        lay.addWidget(self.time_label)
        self.speed = QComboBox()
        self.speed.setObjectName("speed")
        self.speed.addItems([f"{s}×" for s in SPEEDS])
        self.speed.setCurrentText("1×")
        self.speed.setToolTip("Playback speed (1× = real time)")
        self.speed.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.speed.currentTextChanged.connect(lambda s: self.controller.set_speed(float(s.rstrip("×"))))
        lay.addWidget(self.speed)
        self.progress = QProgressBar()
        self.progress.setObjectName("sim_progress")
        self.progress.setRange(0, 1000)
        self.progress.setFixedWidth(fm.horizontalAdvance("100%  ETA 00 min 00 s") + 24)
        self.progress.setTextVisible(True)
        self.progress.setFormat("")
        policy = self.progress.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.progress.setSizePolicy(policy)
        self.progress.hide()
        lay.addWidget(self.progress)
        self.state_label = QLabel("")
        self.state_label.setObjectName("sim_state")
        self.state_label.setFixedWidth(fm.horizontalAdvance("finished (stale)") + 16)
        lay.addWidget(self.state_label)
        bar.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        return bar

    def reset(self) -> None:
        """Drop the results: plots, legends and cursors cleared, the 3D view shows the initial pose."""
        self.controller.reset()

    def _build_menu(self) -> None:
        m = self.window.menu_simulation
        m.addActions(self.transport_actions[:-1])
        m.addSeparator()
        m.addAction(self.act_settings)
        v = m.addMenu("3D &view")
        v.addActions([self.act_trails, self.act_reactions, self.act_follow, self.act_camera])
        e = m.addMenu("&Export")
        e.addActions([self.act_export_csv, self.act_export_plots, self.act_export_mp4, self.act_export_gif])
        e.addSeparator()
        e.addAction(self.act_export_bundle)

    # ---- state -> UI -------------------------------------------------------------------------------------
    def _on_state_changed(self, state: str) -> None:
        c = self.controller
        running, paused = state == "running", state == "paused"
        has_results = len(c.buffer) > 0
        self.act_run.setEnabled(not running)
        self._set_tip(self.act_run, "Resume the paused run" if paused else
                      ("Run the simulation again (the results are replaced)" if has_results else
                       "Run the simulation"))
        self.act_pause.setEnabled(running or (state in ("finished", "stopped", "failed") and c.clock.playing))
        self.act_stop.setEnabled(c.active)
        self.act_step.setEnabled(state != "idle" or bool(self.window.document.model.data.get("bodies")))
        self.act_step_back.setEnabled(has_results)
        self.act_reset.setEnabled(has_results or c.active)
        self.act_replay.setEnabled(not c.active and has_results)
        self.act_settings.setEnabled(not c.active)
        for a in (self.act_export_csv, self.act_export_plots, self.act_export_mp4, self.act_export_gif,
                  self.act_export_bundle):
            a.setEnabled(not c.active and has_results)
        self.slider.setEnabled(has_results)
        self.slider.set_span(self.slider_span())
        text = STATUS_TEXT.get(state, state)
        tip = {"failed": c.last_error, "idle": "no results yet: Run (F5) or Step (F7)"}.get(state, "")
        if c.stale:
            text += " (stale)"
            tip = "The model was edited after this run started: the results show the model as it was. Run again."
        self.state_label.setText(text)
        self.state_label.setToolTip(tip)
        self.state_label.setStyleSheet("color: #c00; font-weight: bold" if state == "failed" else
                                       ("color: #a60" if c.stale else ""))
        if state != "running":  # progress and ETA only while the solver runs; the label is the one status
            self.progress.hide()
            self.progress.setFormat("")
        if state == "idle":
            self.progress.setValue(0)
            self.time_label.setText("t = 0.000 s")
            self.slider.setValue(0)
        if state == "failed" and c.last_error:
            self.window.statusBar().showMessage(f"Simulation failed: {c.last_error}", 15000)

    def _on_time_changed(self, t: float) -> None:
        # throttled to ~10 Hz: every widget repaint re-composes the window that holds the GL view
        now = time.perf_counter()
        if now - self._last_label < 0.1 and self.controller.clock.playing:
            return
        self._last_label = now
        self.time_label.setText(f"t = {t:.3f} s")
        t_max = self.slider_span()
        self.slider.set_span(t_max)
        if t_max > 0 and not self.slider.isSliderDown():
            self.slider.blockSignals(True)
            self.slider.setValue(int(round(SLIDER_STEPS * min(t / t_max, 1.0))))
            self.slider.blockSignals(False)

    def _on_progress(self, t: float, t_end: float, rate: float) -> None:
        if self.controller.state != "running":
            return
        self.progress.show()
        now = time.perf_counter()
        if now - self._last_progress < 0.25 and t < t_end:  # QProgressBar.setValue repaints synchronously
            return
        self._last_progress = now
        frac = min(t / t_end, 1.0) if t_end > 0 else 0.0
        self.progress.setValue(int(1000 * frac))
        if rate > 0:
            eta = (t_end - t) / rate
            self.progress.setFormat(f"{100 * frac:.0f}%  ETA {format_duration(eta)}")
            self.progress.setToolTip(f"{t:.6g} s of {t_end:.6g} s simulated, {rate:.3g}× real time; about "
                                     f"{format_duration(eta)} to go")
        else:
            self.progress.setFormat(f"{100 * frac:.0f}%")
            self.progress.setToolTip(f"{t:.6g} s of {t_end:.6g} s simulated")

    def slider_span(self) -> float:
        """The time the slider's full travel covers [s]: the run's data (what can be shown), else its end time."""
        c = self.controller
        if len(c.buffer) and c.buffer.t_latest > 0:
            return c.buffer.t_latest
        return c.settings.t_end if c.settings else 0.0

    def _on_events(self, events: list[dict[str, Any]]) -> None:
        """The run's contact events changed: ticks on the time bar, markers on the plots."""
        self.slider.set_events(events, self.slider_span())
        self.plots.set_events(events)

    def _on_slider_moved(self, value: int) -> None:
        self.controller.seek(value / SLIDER_STEPS * self.slider_span())

    def _on_trails(self, on: bool) -> None:
        self.view.show_trails = on
        self.view.clear_trails()
        self.controller._dirty = True
        self.controller._on_display_tick()

    def _on_reaction_arrows(self, on: bool) -> None:
        self.view.show_reactions = on
        self.controller._dirty = True
        self.controller._on_display_tick()

    # ---- traces of ticked points (canvas and 3D view) -----------------------------------------------------
    def _install_point_traces(self) -> None:
        """The ticked points' traces: the 3D view asks for them with every frame it draws; the canvas gets them
        at most every TRACE_CANVAS_MS while a run or replay plays (at once when scrubbing or stepping)."""
        self.point_traces = PointTraces(self.controller, self.window.document)
        self.view.point_traces = self.point_traces.lines
        self._trace_timer = QTimer(self)
        self._trace_timer.setSingleShot(True)
        self._trace_timer.setInterval(TRACE_CANVAS_MS)
        self._trace_timer.timeout.connect(self.push_canvas_traces)
        self.controller.sig_time_changed.connect(self._on_trace_time)
        self.controller.sig_state_changed.connect(lambda _s: self.refresh_point_traces())
        self.window.document.sig_model_changed.connect(lambda _m: self.refresh_point_traces())

    def _on_trace_time(self, _t: float) -> None:
        if self.controller.clock.playing or self.controller.state == "running":
            if not self._trace_timer.isActive():
                self._trace_timer.start()
        else:
            self.push_canvas_traces()

    def push_canvas_traces(self) -> None:
        canvas = getattr(self.window, "canvas", None)
        if canvas is not None and hasattr(canvas, "set_point_traces"):
            canvas.set_point_traces(self.point_traces.lines())

    def refresh_point_traces(self) -> None:
        """Ticks, results or their staleness changed: redraw the traces in both views."""
        c = self.controller
        if len(c.buffer) and c.poser is not None and not c.clock.playing:
            c._dirty = True
            c._on_display_tick()
        self.push_canvas_traces()

    def _report_error(self, title: str, text: str) -> None:
        self.window.statusBar().showMessage(f"{title}: {text.splitlines()[0]}", 15000)
        # after the current event: a modal box must not run inside the worker's signal delivery
        QTimer.singleShot(0, lambda: self.window.messenger.error(self.window, title, text))

    def edit_settings(self) -> bool:
        """*Simulation → Settings…*: the document's settings in a dialog; accepted, they become one undoable edit
        of the document (see :meth:`apply_settings`). True when the document changed."""
        from mechstudio.gui.simulation.settings_dialog import SettingsDialog  # the dialog: loaded when first used
        dlg = SettingsDialog(self.controller.effective_settings(), self.window, model=self.window.document.model)
        self.settings_dialog = dlg  # tests drive the modal dialog through this
        try:
            if not dlg.exec():
                return False
            return self.apply_settings(dlg.values())
        finally:
            self.settings_dialog = None

    def apply_settings(self, values: dict[str, Any]) -> bool:
        """Write ``values`` (of ``settings_values.FIELDS``) into the document's ``simulation`` section as one
        undoable edit that marks the document modified; they are saved with the file, and another document has its
        own. True when something changed."""
        doc = self.window.document
        self.controller.overrides.clear()  # the dialog showed them: what was accepted is the document's now
        section = simulation_section(doc.model, values)
        old = doc.model.data.get("simulation", {})
        if section == old:
            return False
        changed = [k for k in section if section.get(k) != old.get(k)]
        text = "Simulation settings: " + ", ".join(setting_words(k, section[k]) for k in changed)
        return doc.push_edit(edit.set_value(doc.model, "/simulation", section), text, reassemble=False)

    # ---- exports -----------------------------------------------------------------------------------------
    def _ask_directory(self, title: str) -> str | None:
        d = QFileDialog.getExistingDirectory(self.window, title, str(Path.cwd()))
        return d or None

    def _ask_file(self, title: str, suggestion: str, filt: str) -> str | None:
        p, _ = QFileDialog.getSaveFileName(self.window, title, suggestion, filt)
        return p or None

    def _stem(self) -> str:
        doc = self.window.document
        return Path(doc.path).stem if doc.path else (doc.model.name or "run")

    def _guard(self, fn: Any) -> Any:
        try:
            return fn()
        except Exception as exc:  # noqa: BLE001 (any failure of an export becomes a message; the app stays)
            log.warning("export failed", exc_info=True)
            self.window.messenger.error(self.window, "Export failed", f"{type(exc).__name__}: {exc}")
            return None

    def _ask_plot_size(self, what: str) -> Any:
        from mechstudio.gui.plots.export_dialog import PlotExportDialog
        return PlotExportDialog(self.window, what, self.plot_size).chosen()

    def _ask_video_size(self) -> tuple[int, int] | None:
        from PySide6.QtWidgets import QInputDialog
        from mechstudio.gui.export import parse_video_size
        current = f"{self.video_size[0]}x{self.video_size[1]}"
        choices = list(dict.fromkeys([current, "1280x720", "1920x1080", "854x480", "640x360", "1080x1080"]))
        text, ok = QInputDialog.getItem(self.window, "Video size", "Width x height [px] (the camera frames the "
                                        "whole motion):", choices, 0, True)
        if not ok:
            return None
        try:
            return parse_video_size(text)
        except ValueError as exc:
            self.window.messenger.error(self.window, "Video size", str(exc))
            return None

    def export_csv_dialog(self) -> None:
        from mechstudio.gui.export import export_run_csv
        path = self.ask_file("Export the run to CSV", f"{self._stem()}_results.csv", "CSV (*.csv)")
        if path and self._guard(lambda: export_run_csv(self.controller.trajectory(), path)) is not None:
            self.window.statusBar().showMessage(f"Wrote {path}", 5000)

    def export_plots_dialog(self) -> None:
        size = self.ask_plot_size("all plots")
        if size is None:
            return
        self.plot_size = size
        d = self.ask_directory("Export all plots into a folder")
        if d and self._guard(lambda: self.export_plots(d)) is not None:
            self.window.statusBar().showMessage(f"Wrote the plots to {d}", 5000)

    def export_plots(self, directory: str) -> list[Path]:
        """Every plot as PNG, SVG and CSV into ``directory``, all at :attr:`plot_size`."""
        from mechstudio.gui.export import export_plots
        return export_plots(self.plots, directory, size=self.plot_size)

    def _on_plot_export(self, key: str, fmt: str) -> None:
        if fmt in ("png", "svg"):
            size = self.ask_plot_size(f"the {self.plots.plots[key].title} plot")
            if size is None:
                return
            self.plot_size = size
        path = self.ask_file(f"Export the {key} plot", f"{self._stem()}_{key}.{fmt}", f"{fmt.upper()} (*.{fmt})")
        if path and self._guard(lambda: self.export_plot(key, path)) is not None:
            self.window.statusBar().showMessage(f"Wrote {path}", 5000)

    def export_plot(self, key: str, path: str) -> Path:
        """One plot (``reactions``, ``violation``, ``energy``, ``coordinates``) by suffix, PNG/SVG at
        :attr:`plot_size`."""
        from mechstudio.gui.export import export_plot
        return export_plot(self.plots.plots[key], path, self.plot_size)

    def export_video_dialog(self, suffix: str) -> None:
        size = self.ask_video_size()
        if size is None:
            return
        self.video_size = size
        path = self.ask_file("Export the animation", f"{self._stem()}{suffix}", f"Video (*{suffix})")
        if path:
            self._guard(lambda: self.export_video(path))

    def export_video(self, path: str, fps: float = 30.0) -> int:
        """The run as MP4 or GIF (by suffix) at :attr:`video_size`, the camera framing the whole motion."""
        from mechstudio.gui.export import export_video
        c = self.controller
        if not len(c.buffer) or c.poser is None:
            raise ValueError("there are no results to export: run the simulation first")
        self.window.statusBar().showMessage("Rendering the animation…")
        names = [x.name for x in c.system.constraints]
        n = export_video(self.view, c.buffer, c.poser, path, fps=fps, speed=c.clock.speed, size=self.video_size,
                         constraint_names=names)
        c.seek(c.clock.t)
        self.window.statusBar().showMessage(f"Wrote {n} frames to {path}", 5000)
        return n

    def export_bundle_dialog(self) -> None:
        d = self.ask_directory("Export bundle: choose an empty folder")
        if d:
            self._guard(lambda: self.export_bundle(d))

    def export_bundle(self, directory: str, video: str | None = "animation.mp4") -> dict[str, Any]:
        """Model, settings, CSV, every plot (at :attr:`plot_size`) and the video (:attr:`video_size`)."""
        from mechstudio.gui.export import export_bundle
        c = self.controller
        out = export_bundle(directory, c.model, c.trajectory(), self.plots, self.view, c.buffer, c.poser, video,
                            plot_size=self.plot_size, video_size=self.video_size)
        c.seek(c.clock.t)
        self.window.statusBar().showMessage(f"Wrote the export bundle to {directory}", 5000)
        return out

    # ---- window close ------------------------------------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.window and event.type() == QEvent.Type.Close:
            QTimer.singleShot(0, self._after_close)
        return False

    def _after_close(self) -> None:
        if not self.window.isVisible():
            self.controller.shutdown()


def setting_words(key: str, value: Any) -> str:
    """``"end time 10 s"``: one simulation setting as an undo step names it."""
    if isinstance(value, bool):
        return f"{SETTING_WORDS.get(key, key)} {'on' if value else 'off'}"
    if isinstance(value, float):
        return f"{SETTING_WORDS.get(key, key)} {value:g}{' s' if key in ('t_end', 'dt') else ''}"
    return f"{SETTING_WORDS.get(key, key)} {value}"


def format_duration(seconds: float) -> str:
    """A remaining time as a person reads it: ``"< 1 s"``, ``"42 s"``, ``"4 min 05 s"``, ``"3 h 20 min"``,
    ``"2 d 04 h"``."""
    s = max(0.0, float(seconds))
    if s < 1:
        return "< 1 s"
    if s < 60:
        return f"{s:.0f} s"
    m, sec = divmod(int(round(s)), 60)
    if m < 60:
        return f"{m} min {sec:02d} s"
    h, m = divmod(m, 60)
    if h < 48:
        return f"{h} h {m:02d} min"
    d, h = divmod(h, 24)
    return f"{d} d {h:02d} h"


def install_live_view(window: Any) -> LiveView:
    """The window's hook: build the live view into ``window`` (available as ``window.live``)."""
    live = LiveView(window)
    window.live = live
    return live


__all__ = ["LiveView", "install_live_view", "os", "QWidget"]
