"""The planar canvas's point tools: traces of ticked points, the right-click menu, and "Add point".

Mixed into :class:`mechstudio.gui.editor.canvas.PlanarCanvas`:

* :meth:`PointTools.set_point_traces` takes the traces of the ticked points (``mechstudio.gui.simulation.point_traces``) and
  :meth:`PointTools.draw_point_traces` paints them over the mechanism (a polyline in the body's colour and a dot
  at the shown time). Spatial models are shown in the x–z front view, so their traces are projected there too.
* :meth:`PointTools.context_actions` is what a right click offers at a world point: *Trace body.point* (checkable)
  for every body point under the mouse, *Add point here* for every planar body under it, or a disabled line that
  says why there is nothing to do there.
* The *Add point* tool (:meth:`PointTools.arm_point_tool`): the next left click on a body adds a named point there,
  at the clicked position itself (no grid snap: a coupler point lies anywhere on its body; its coordinates can be
  typed in Properties afterwards).

Ticking and adding are ordinary undoable edits of the document (``mechstudio.gui.editor.traced_points``).
"""
from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QAction, QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QMenu, QToolTip

from mechstudio.core.model import GROUND
from mechstudio.gui.editor import traced_points
from mechstudio.core.drawing.scene import Vec2

TRACE_PEN_PX = 2.0
TRACE_DOT_PX = 4.0


class PointTools:
    """See the module docstring (a mixin: ``self`` is the PlanarCanvas)."""

    document: Any
    geometry: Any
    model_world: Any  # (body, world) -> world of the model's pose (PlanarCanvas)

    def _init_point_tools(self) -> None:
        self._point_lines: list[Any] = []
        self._point_tool = False
        self._right_press_cancelled = False

    # ---- traces ------------------------------------------------------------------------------------------
    def set_point_traces(self, lines: list[Any]) -> None:
        """Show these traces (``TraceLine`` records, world [m]); an empty list clears them."""
        if not lines and not self._point_lines:
            return  # nothing shown, nothing to show: no repaint (the live view calls this ~10 times a second)
        self._point_lines = list(lines)
        self.viewport().update()

    @property
    def point_traces(self) -> list[Any]:
        return list(self._point_lines)

    def _plane_xy(self, pts: Any) -> list[QPointF]:
        """Canvas-plane coordinates of world points (planar: x, y; spatial front view: x, z)."""
        k = 2 if self.geometry.kind == "spatial" else 1
        return [QPointF(float(p[0]), float(p[k])) for p in pts]

    def draw_point_traces(self, painter: QPainter) -> None:
        """Paint the traces in scene coordinates (called from ``drawForeground``)."""
        if not self._point_lines:
            return
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        r = TRACE_DOT_PX / max(self.scale_px, 1e-9)
        for line in self._point_lines:
            pts = self._plane_xy(line.points)
            if not pts:
                continue
            color = QColor(line.color)
            pen = QPen(color, TRACE_PEN_PX)
            pen.setCosmetic(True)
            pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            if len(pts) >= 2:
                path = QPainterPath(pts[0])
                for p in pts[1:]:
                    path.lineTo(p)
                painter.drawPath(path)
            painter.setBrush(color)
            painter.drawEllipse(pts[-1], r, r)
        painter.restore()

    # ---- right-click menu --------------------------------------------------------------------------------
    def points_at(self, p: Vec2) -> list[tuple[str, str]]:
        """Named body points within the pick radius of world point ``p``, nearest first."""
        tol = self.tolerance
        near = [(math.dist(p, xy), b.name, name) for b in self.geometry.bodies for name, xy in b.points.items()
                if math.dist(p, xy) <= tol]
        return [(b, n) for _d, b, n in sorted(near)]

    def bodies_at(self, p: Vec2) -> list[str]:
        """Bodies under world point ``p`` (topmost first)."""
        return [b.name for b in reversed(self.geometry.bodies) if b.contains(p, self.tolerance * 0.5)]

    def context_actions(self, p: Vec2) -> list[QAction]:
        """The right-click menu's actions at world point ``p`` (parented to the canvas; see module docstring)."""
        model = self.document.model
        ticked = set(traced_points.traced(model))
        out: list[QAction] = []
        for key in self.points_at(p):
            a = QAction(f"Trace {traced_points.label(key)}", self)
            a.setObjectName(f"act_trace:{traced_points.label(key)}")
            a.setCheckable(True)
            a.setChecked(key in ticked)
            a.setStatusTip("Draw this point's path during and after a run (saved with the model)")
            a.toggled.connect(lambda on, key=key: self.set_traced(key, on))
            out.append(a)
        for body in self.bodies_at(p):
            a = QAction(f"Add point here (on {body})", self)
            a.setObjectName(f"act_add_point:{body}")
            if model.kind != "planar":
                a.setEnabled(False)
                a.setText(f"Add point here (on {body}): spatial bodies get points in Properties")
            a.triggered.connect(lambda _c=False, body=body, p=p: self.add_point(body, self.model_world(body, p)))
            out.append(a)
        if not out:
            a = QAction("Nothing here: right-click a body point to trace it, or a body to add a point", self)
            a.setEnabled(False)
            out.append(a)
        return out

    def contextMenuEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        if self._right_press_cancelled:  # this right press cancelled a tool or a pending joint
            self._right_press_cancelled = False
            return
        world = self.to_world(event.pos())
        menu = QMenu(self)
        menu.addActions(self.context_actions(world))
        menu.exec(event.globalPos())
        menu.deleteLater()

    # ---- edits -------------------------------------------------------------------------------------------
    def set_traced(self, key: tuple[str, str], on: bool) -> bool:
        """Tick (or untick) a body point for tracing: one undoable edit. False when nothing changed."""
        try:
            text = traced_points.push_trace(self.document, key, on)
        except ValueError as exc:
            self.refuse(f"cannot trace: {exc}")
            return False
        if text is None:
            return False
        self.sig_status.emit(text + (": its path shows during and after a run (Simulation → Run)" if on else ""))
        return True

    def add_point(self, body: str, world: Vec2) -> str | None:
        """Add an auto-named, ticked point to ``body`` at world point ``world`` of the model's pose (where a run's
        configuration is shown, the canvas maps the clicked point there first: ``model_world``); its name (None,
        and the reason in the status bar, when refused)."""
        try:
            new, name = traced_points.add_point(self.document.base_model(), body, world)
        except (ValueError, KeyError) as exc:
            self.refuse(str(exc))
            return None
        self.document.push_edit(new, f"Add point {body}.{name}")
        self.document.set_selection([("bodies", body)])
        self.sig_status.emit(f"Added point {body}.{name}, traced (rename it in Properties)")
        return name

    def refuse(self, text: str, view_pos: Any = None) -> None:
        """Say why nothing happened: in the status bar, and by the mouse pointer when there is one."""
        self.sig_status.emit(text)
        if view_pos is not None:
            QToolTip.showText(self.viewport().mapToGlobal(view_pos.toPoint() if hasattr(view_pos, "toPoint")
                                                          else view_pos), text, self)

    # ---- the Add point tool ------------------------------------------------------------------------------
    def arm_point_tool(self, on: bool = True) -> None:
        """Arm (or disarm) the Add point tool: the next left click on a body adds a point there."""
        if on and self.document.model.kind != "planar":
            self.refuse("Add point works on planar models; add points of spatial bodies in Properties")
            on = False
        if on:
            self.arm(None)
        self._point_tool = on
        self.setCursor(Qt.CursorShape.CrossCursor if on else Qt.CursorShape.ArrowCursor)
        if on:
            self.sig_status.emit("click on a body to add a point there (Esc cancels)")

    @property
    def point_tool_armed(self) -> bool:
        return self._point_tool

    def click_point_tool(self, world: Vec2, view_pos: Any = None) -> str | None:
        """The armed tool's click at ``world``: a point on the topmost body there, or a refusal."""
        self.arm_point_tool(False)
        bodies = [b for b in self.bodies_at(world) if b != GROUND]
        if not bodies:
            self.refuse("no body here: click on a body to add a point to it", view_pos)
            return None
        return self.add_point(bodies[0], self.model_world(bodies[0], world))
