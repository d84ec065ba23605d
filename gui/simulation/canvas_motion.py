"""The planar canvas follows a run: it draws the mechanism at the time the live view shows, as the 3D view does.

:class:`CanvasMotion` listens to the controller's displayed time (``sig_time_changed``: while a run computes,
during playback, when scrubbing or stepping) and hands the configuration q(t) — the buffer's frames interpolated
as the 3D view interpolates them (``controller.poser``) — to :meth:`PlanarCanvas.show_configuration`. While the
animation plays the canvas is redrawn at most every :data:`CANVAS_MS` (always with the newest time); a scrub or a
step is drawn at once. The canvas shows the model's own pose again (:meth:`PlanarCanvas.show_model_pose`) when
there are no results (none yet, or cleared: Reset, another file), when they are stale (the model was edited
after the run started: the edit is what the user looks at), and while an element is being placed.

A run with contacts also hands the canvas its contact marks at the displayed time (the output frame nearest it:
contact states and forces are not interpolated across an event; :mod:`mechstudio.gui.simulation.contact_marks`)
and the arrows' scale, :data:`~gui.editor.contact_drawing.ARROW_PX` for the run's largest contact force.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QObject, QTimer

from mechstudio.core.drawing.build import posed_scene
from mechstudio.gui.editor.contact_drawing import force_scale
from mechstudio.gui.simulation.contact_marks import contact_marks

CANVAS_MS = 50  # while the animation plays, the canvas is redrawn at most this often [ms] (20 fps: a redraw of
#                 the canvas costs 5-15 ms of the GUI thread, which the 3D view needs for its 60 fps)


class CanvasMotion(QObject):
    """See the module docstring. ``controller``: the live view's SimulationController; ``canvas``: the window's
    PlanarCanvas."""

    def __init__(self, controller: Any, canvas: Any, parent: QObject | None = None):
        super().__init__(parent)
        self.controller, self.canvas = controller, canvas
        self._scale_key: tuple[int, int] | None = None  # (buffer generation, size) of the cached arrow scale
        self._scale = 0.0
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(CANVAS_MS)
        self.timer.timeout.connect(self.update_now)
        controller.sig_time_changed.connect(self._on_time_changed)
        controller.sig_state_changed.connect(self._on_state_changed)

    def has_results(self) -> bool:
        """Results of the mechanism the model is now (not stale) that can be posed."""
        c = self.controller
        return bool(len(c.buffer)) and c.poser is not None and c.system is not None and not c.stale

    def configuration(self, t: float) -> np.ndarray:
        """q(t) (n,): the output frames around ``t`` interpolated as the 3D view does (``controller.render_at``)."""
        c = self.controller
        i, j, s = c.buffer.index_at(t)
        q = c.buffer.field("q")
        return np.asarray(c.poser.interpolate(q[i], q[j], s), float)

    def update_now(self) -> None:
        """Draw the displayed time's configuration (or the model's pose when there is nothing valid to draw)."""
        self.timer.stop()
        if not self.has_results():
            self.canvas.show_model_pose()
            return
        if self.canvas.placing:  # the user is placing an element on the model's pose
            return
        t = float(self.controller.clock.t)
        q = self.configuration(t)
        self.canvas.show_configuration(self.controller.system, q, t, self.contacts(t, q))

    def contacts(self, t: float, q: np.ndarray) -> tuple[list, float] | None:
        """The contact marks at time ``t`` (configuration q) and the arrows' scale [px/N]; None without contacts."""
        c = self.controller
        b = c.buffer
        names = [n for n in getattr(b, "column_names", []) if n.startswith("contact.")]
        if not names:
            return None
        i, j, s = b.index_at(t)
        k = j if s >= 0.5 else i
        values = {n: float(b.column(n)[k]) for n in names}
        R = b.field("reactions")
        reactions = {con.name: (float(R[k, ci, 0]), float(R[k, ci, 1])) for ci, con in enumerate(c.system.constraints)}
        key = (b.generation, len(b))
        if key != self._scale_key:
            self._scale_key = key
            self._scale = force_scale([b.column(n) for n in names
                                       if n.rsplit(".", 1)[-1] in ("normal", "friction", "Fx", "Fy")])
        try:
            scene = posed_scene(c.system, q)
        except Exception:  # noqa: BLE001 (a pose the scene cannot draw: no cam or disk marks, the canvas says why)
            scene = None
        return contact_marks(c.system, q, values, reactions, scene), self._scale

    def _on_time_changed(self, _t: float) -> None:
        if not self.has_results() or self.canvas.placing:
            return
        c = self.controller
        if c.clock.playing or c.state == "running":
            if not self.timer.isActive():
                self.timer.start()
        else:
            self.update_now()

    def _on_state_changed(self, _state: str) -> None:
        if self.has_results():
            if not self.timer.isActive():
                self.update_now()
        else:
            self.timer.stop()
            self.canvas.show_model_pose()
