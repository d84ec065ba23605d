"""The planar canvas: draws the document's posed model and turns mouse gestures into undoable edits.

Graphics items are display only and are rebuilt from the model after every change; picking is done on the
plain geometry of :mod:`mechstudio.core.drawing.scene`, so a drag survives the rebuilds it causes. World coordinates are
metres with y up (the view flips the scene's y axis).

Gestures (left button):

* on a selected bar's end handle: resize and rotate the bar (mass and inertia follow the length);
* on a selected body's rotate handle: rotate it;
* on a ground point: move it (the linkage re-assembles while dragging);
* on a body: select it (Shift/Ctrl toggles) and move it;
* on a joint, force or driver: select it;
* on empty space: rubber-band selection.

Each drag is pushed as merged commands (one undo step). A palette element dropped on the canvas, or an armed
palette tool and a click, places an element (:mod:`mechstudio.gui.editor.placement`); joints whose second body is not under
the drop point wait for a second click (Esc or the right button cancels).

The right button opens the point menu (trace a body point, add a point here) and the *Add point* tool adds a point
where a body is clicked: :mod:`mechstudio.gui.editor.canvas_points`, which also paints the traces of the ticked points.

Overlays (the linkage analyses' instant centres, transmission angle and limit positions:
:mod:`mechstudio.gui.analysis.overlays`) paint over the mechanism through :attr:`PlanarCanvas.overlay_painters`,
for the configuration shown (:attr:`PlanarCanvas.shown_configuration`); they are not items, so clicks never pick them.
"""
from __future__ import annotations

import itertools
import logging
import math
from typing import Any, Callable

import numpy as np

from PySide6.QtCore import QEvent, QLineF, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (QBrush, QColor, QFont, QPainter, QPainterPath, QPalette, QPen, QPolygonF, QTransform)
from PySide6.QtWidgets import (QGraphicsEllipseItem, QGraphicsItem, QGraphicsPathItem, QGraphicsRectItem,
                               QGraphicsScene, QGraphicsSimpleTextItem, QGraphicsView)

from mechstudio.core.model import GROUND
from mechstudio.core.model import edit
from mechstudio.core.errors import ModelError
from mechstudio.gui.document import Document
from mechstudio.gui.editor import contact_drawing, placement, traced_points
from mechstudio.gui.editor.canvas_points import PointTools
from mechstudio.gui.editor.label_layout import LabelRequest, place_labels
from mechstudio.core.drawing.build import posed_scene
from mechstudio.core.drawing.scene import SceneGeometry, Vec2, dist_segment, scene_geometry

PICK_PX = 9.0  # pick and snap radius [px]
HANDLE_PX = 5.0
GRID_STEP = 0.1  # [m]
BODY_ROLE = 0  # graphics item data key: the body a shape item draws
FOCUS_FRAME_PX = 2  # the frame drawn inside the canvas's edge while it has the keyboard focus
_gesture_ids = itertools.count(1)

log = logging.getLogger(__name__)


def _snap_value(v: float, step: float) -> float:
    return round(round(v / step) * step, 10)


class PlanarCanvas(PointTools, QGraphicsView):
    """See the module docstring."""

    sig_status = Signal(str)
    """A short message for the status bar (why a drop did nothing, what a pending joint waits for)."""
    sig_pointer = Signal(float, float)
    """World position [m] of the mouse."""

    def __init__(self, document: Document, parent: Any = None):
        super().__init__(parent)
        self.document = document
        self._scene = QGraphicsScene(self)
        self._scene.setSceneRect(QRectF(-1e4, -1e4, 2e4, 2e4))
        self.setScene(self._scene)
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setBackgroundBrush(QColor("#fbfbf8"))
        # the grid is drawn once per zoom or pan (Qt invalidates the cache then): a run's playback redraws only
        # the mechanism
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setMinimumSize(320, 240)
        self.snap_to_grid = True
        self.grid_step = GRID_STEP
        self.geometry: SceneGeometry = scene_geometry(document.analysis.posed)
        self._armed: str | None = None
        self._pending: placement.Pending | None = None
        self._gesture: dict[str, Any] | None = None
        self._ghost: QGraphicsItem | None = None
        self._rubber: QGraphicsRectItem | None = None
        self._fitted = False
        self._shown: tuple[Any, Any, float] | None = None  # (system, q, t) of a run's configuration drawn
        self._contacts: tuple[list[Any], float] | None = None  # a run's contact marks at the shown time, [px/N]
        #: the contact force arrows drawn: (contact name, "normal" | "friction", tail, tip) [m] (tests, overlays)
        self.contact_arrows: list[tuple[str, str, Vec2, Vec2]] = []
        self._pair_symbols: dict[str, tuple[Vec2, Vec2]] = {}  # contact pairs: (symbol point, other end) [m]
        #: painters of overlays drawn over the mechanism in scene coordinates, never picked (gui/analysis/overlays.py)
        self.overlay_painters: list[Callable[[QPainter], None]] = []
        #: the name labels of the picture with their preferred offsets [px], and each label's last place
        self._labels: list[tuple[QGraphicsSimpleTextItem, tuple[float, float]]] = []
        self._label_choice: dict[str, int] = {}
        self._init_point_tools()
        self.setTransform(QTransform.fromScale(100.0, -100.0))
        document.sig_analysis_changed.connect(self._on_document_analysis_changed)
        document.sig_selection_changed.connect(lambda _keys: self.rebuild())
        document.sig_reset.connect(self.zoom_to_fit)
        self.rebuild()

    # ---- coordinates ------------------------------------------------------------------------------------
    @property
    def scale_px(self) -> float:
        """Pixels per metre."""
        return abs(self.transform().m11())

    @property
    def tolerance(self) -> float:
        """The pick/snap radius in metres."""
        return PICK_PX / self.scale_px

    def world_to_view(self, x: float, y: float) -> QPointF:
        """Viewport position (float pixels) of a world point — for tests and overlays."""
        return QPointF(self.transform().map(QPointF(x, y))) - QPointF(self.horizontalScrollBar().value(),
                                                                   self.verticalScrollBar().value())

    def view_point(self, x: float, y: float) -> Any:
        """Integer viewport position of a world point (what a mouse event would carry)."""
        return self.mapFromScene(QPointF(x, y))

    def to_world(self, pos: Any) -> Vec2:
        p = self.mapToScene(pos.toPoint() if hasattr(pos, "toPoint") else pos)
        return (p.x(), p.y())

    def snap(self, p: Vec2, *, points: bool = True, exclude_body: str | None = None, grid: bool = True) -> Vec2:
        """Snap to a body point, ground point or joint within the pick radius, else to the grid (when ``grid`` and
        snapping to the grid is on)."""
        if points:
            tol = self.tolerance
            cands: list[Vec2] = list(self.geometry.ground.values())
            for b in self.geometry.bodies:
                if b.name != exclude_body:
                    cands += list(b.points.values())
            cands += [j.p2 for j in self.geometry.joints]
            near = [(math.dist(p, c), c) for c in cands if math.dist(p, c) <= tol]
            if near:
                return min(near)[1]
        if self.snap_to_grid and grid:
            return (_snap_value(p[0], self.grid_step), _snap_value(p[1], self.grid_step))
        return p

    def zoom_to_fit(self) -> None:
        x0, y0, x1, y1 = self.geometry.bounds()
        pts = contact_drawing.shape_points(contact_drawing.ground_shapes(self.document.analysis.posed.data,
                                                                         self.geometry))
        if pts:  # the ground's shapes (a floor, an incline) are part of the picture
            xs, ys = [p[0] for p in pts] + [x0, x1], [p[1] for p in pts] + [y0, y1]
            if not (self.geometry.bodies or self.geometry.ground):
                xs, ys = xs[:-2], ys[:-2]
            x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
        w, h = max(x1 - x0, 0.5), max(y1 - y0, 0.5)
        vw, vh = max(self.viewport().width(), 100), max(self.viewport().height(), 100)
        s = min(vw / (w * 1.3), vh / (h * 1.3))
        s = max(10.0, min(s, 2000.0))
        self.setTransform(QTransform.fromScale(s, -s))
        self.centerOn(QPointF((x0 + x1) / 2, (y0 + y1) / 2))
        self._layout_labels()
        self.viewport().update()

    def set_view(self, scale: float, center: Vec2) -> None:
        self.setTransform(QTransform.fromScale(scale, -scale))
        self.centerOn(QPointF(*center))
        self._layout_labels()

    # ---- document -> picture --------------------------------------------------------------------------
    def _on_document_analysis_changed(self, _analysis: Any) -> None:
        self.rebuild()

    def rebuild(self) -> None:
        """Redraw everything from ``document.analysis.posed``."""
        analysis = self.document.analysis
        self.geometry = self._shown_geometry() or scene_geometry(analysis.posed, solver_frames(analysis))
        self._ghost = None
        self._rubber = None
        self._body_items: dict[str, list[QGraphicsItem]] = {}
        self._labels = []
        self._scene.clear()
        sel = set(self.document.selection)
        sg = self.geometry
        offending = set(analysis.offending) if analysis.state == "failed" and self._shown is None else set()
        self._ticked = set(traced_points.traced(self.document.model))
        data = (self._shown[0].model if self._shown is not None else analysis.posed).data
        self._draw_ground_shapes(data, sg)
        self._pair_symbols = {}
        for f in data.get("forces", []):
            if f.get("type") == "contact_pair":
                ab = contact_drawing.pair_symbol(sg, data, f)
                if ab is not None:
                    self._pair_symbols[f["name"]] = ab
        for b in sg.bodies:
            self._draw_body(b, ("bodies", b.name) in sel)
        for name, p in sg.ground.items():
            self._draw_ground(name, p, ("ground_points", name) in sel)
        for f in sg.forces:
            self._draw_force(f, ("forces", f.name) in sel)
        for j in sg.joints:
            self._draw_joint(j, ("joints", j.name) in sel, j.name in offending)
        for d in sg.drivers:
            self._draw_driver(d, ("drivers", d.name) in sel or d.name in offending)
        self.contact_arrows = []
        if self._shown is not None and self._contacts is not None:
            self._draw_contacts(*self._contacts)
        for key in sel:
            if key[0] == "bodies":
                b = sg.body(key[1])
                if b is not None:
                    for _kind, hp in self._handles(b):
                        self._marker(hp, "square", QColor("#222"), QColor("#ffd84d"), HANDLE_PX)
        if self._pending is not None and self._pending.first is not None:
            self._marker(self._pending.first.world, "circle", QColor("#d9534f"), None, 8.0)
        if not self._fitted and self.isVisible():
            self._fitted = True
            self.zoom_to_fit()
        self._layout_labels()
        self.viewport().update()

    # ---- a run's configuration (playback) ---------------------------------------------------------------
    def show_configuration(self, system: Any, q: Any, t: float, contacts: tuple[list[Any], float] | None = None
                           ) -> None:
        """Draw the mechanism at the coordinates ``q`` (n,) of the compiled ``system`` — a run's state at time ``t``
        [s] — instead of the model's assembled pose (the live view calls this while it plays or scrubs a run, the
        mode animation with the poses of a mode). ``contacts``: the run's contact marks at that time
        (:class:`~gui.simulation.contact_marks.ContactMark`) and the arrows' scale [px/N]
        (:mod:`mechstudio.gui.editor.contact_drawing`).
        Picking and the right-click menu work on what is shown; placing an element shows the model's pose again
        first (placement works on the model), and so does :meth:`show_model_pose`."""
        self._shown = (system, np.array(q, dtype=float), float(t))
        self._contacts = contacts
        self.rebuild()

    def show_model_pose(self) -> None:
        """Draw the model's assembled pose again (no run, an edit, results cleared)."""
        self._contacts = None
        if self._shown is not None:
            self._shown = None
            self.rebuild()

    @property
    def contact_marks(self) -> list[Any]:
        """The run's contact marks drawn at the shown time ([] when none)."""
        return list(self._contacts[0]) if self._shown is not None and self._contacts is not None else []

    @property
    def shown_configuration(self) -> tuple[Any, Any, float] | None:
        """(system, q, t) of the configuration drawn instead of the model's pose (:meth:`show_configuration`); None
        when the model's pose is drawn."""
        return self._shown

    @property
    def shown_time(self) -> float | None:
        """The run time [s] whose configuration is drawn; None when the model's pose is."""
        return None if self._shown is None else self._shown[2]

    @property
    def placing(self) -> bool:
        """A palette tool is armed, a placement waits for a click, or an element is being dragged in or a gesture
        is under way: the model's pose stays on screen."""
        return self._armed is not None or self._pending is not None or self._ghost is not None or \
            self._gesture is not None

    def _shown_geometry(self) -> SceneGeometry | None:
        if self._shown is None:
            return None
        system, q, _t = self._shown
        try:
            return posed_scene(system, q)
        except Exception:  # noqa: BLE001 (drawing a run's state must never break the editor: show the model)
            log.warning("cannot draw the run's configuration; showing the model's pose", exc_info=True)
            self._shown = None
            return None

    def model_world(self, body: str, world: Vec2) -> Vec2:
        """The model-pose position of the point of ``body`` that is drawn at ``world`` [m] (the same point while
        the model's pose is shown; with a run's configuration, the point that moves with the body there)."""
        if self._shown is None:
            return world
        shown = self.geometry.body(body)
        model_body = scene_geometry(self.document.base_model()).body(body)
        if shown is None or model_body is None:
            return world
        (x, y, phi), (x0, y0, phi0) = shown.pose, model_body.pose
        dx, dy = world[0] - x, world[1] - y
        c, s = math.cos(phi0 - phi), math.sin(phi0 - phi)
        return (x0 + c * dx - s * dy, y0 + s * dx + c * dy)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self._layout_labels()  # labels near the edges turn inwards

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        super().showEvent(event)
        if not self._fitted:
            self._fitted = True
            self.zoom_to_fit()

    def _pen(self, color: QColor | str, width_px: float = 1.5, style: Qt.PenStyle = Qt.PenStyle.SolidLine) -> QPen:
        pen = QPen(QColor(color), width_px, style)
        pen.setCosmetic(True)
        return pen

    def _label(self, text: str, p: Vec2, color: str = "#333", dx: float = 6, dy: float = -18) -> None:
        item = QGraphicsSimpleTextItem(text)
        item.setBrush(QColor(color))
        f = QFont()
        f.setPointSize(8)
        item.setFont(f)
        item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        item.setPos(QPointF(*p))
        item.setTransform(QTransform.fromTranslate(dx, dy))
        item.setZValue(50)
        self._scene.addItem(item)
        self._labels.append((item, (dx, dy)))

    def _layout_labels(self) -> None:
        """Move the name labels apart at the current zoom (:mod:`mechstudio.gui.editor.label_layout`)."""
        vt = self.viewportTransform()
        requests = []
        for item, preferred in self._labels:
            anchor = vt.map(item.pos())
            box = item.boundingRect()
            requests.append(LabelRequest(item.text(), (anchor.x(), anchor.y()), (box.width(), box.height()),
                                         preferred))
        view = self.viewport().rect()
        offsets, self._label_choice = place_labels(requests, self._label_choice,
                                                   (0.0, 0.0, float(view.width()), float(view.height())))
        for (item, _), (dx, dy) in zip(self._labels, offsets):
            item.setTransform(QTransform.fromTranslate(dx, dy))

    def _marker(self, p: Vec2, shape: str, pen: QColor, brush: QColor | None, r: float, z: float = 40) -> None:
        path = QPainterPath()
        if shape == "circle":
            path.addEllipse(QPointF(0, 0), r, r)
        elif shape == "square":
            path.addRect(QRectF(-r, -r, 2 * r, 2 * r))
        elif shape == "triangle":
            path.addPolygon(QPolygonF([QPointF(0, 0), QPointF(-r, r * 1.6), QPointF(r, r * 1.6), QPointF(0, 0)]))
            for k in range(-2, 3):  # ground hatching
                path.moveTo(QPointF(k * r * 0.5, r * 1.6))
                path.lineTo(QPointF(k * r * 0.5 - r * 0.4, r * 2.2))
        item = QGraphicsPathItem(path)
        item.setPen(self._pen(pen, 1.5))
        item.setBrush(QBrush(brush) if brush is not None else QBrush(Qt.BrushStyle.NoBrush))
        item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        item.setPos(QPointF(*p))
        item.setZValue(z)
        self._scene.addItem(item)

    def _draw_body(self, b: Any, selected: bool) -> None:
        color = QColor(b.color)
        fill = QColor(color)
        fill.setAlpha(90)
        outline = QColor("#ff9900") if selected else color.darker(140)
        for a, c, w in b.bars:
            path = QPainterPath()
            path.moveTo(QPointF(*a))
            path.lineTo(QPointF(*c))
            if selected:
                halo = QGraphicsPathItem(path)
                pen = QPen(QColor(255, 170, 0, 120), w + 10 / self.scale_px)
                pen.setCapStyle(Qt.PenCapStyle.RoundCap)
                halo.setPen(pen)
                halo.setZValue(9)
                self._scene.addItem(halo)
            item = QGraphicsPathItem(path)
            pen = QPen(color, max(w, 2.5 / self.scale_px))
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            item.setPen(pen)
            item.setZValue(10)
            self._scene.addItem(item)
            self._tag_body(item, b.name)
        for c, r, spokes in b.disks:
            item = QGraphicsEllipseItem(QRectF(c[0] - r, c[1] - r, 2 * r, 2 * r))
            item.setPen(self._pen(outline, 3 if selected else 1.5))
            item.setBrush(fill)
            item.setZValue(10)
            self._scene.addItem(item)
            self._tag_body(item, b.name)
            for k in range(spokes):
                ang = b.pose[2] + 2 * math.pi * k / spokes
                line = self._scene.addLine(QLineF(QPointF(*c), QPointF(c[0] + r * math.cos(ang),
                                                                      c[1] + r * math.sin(ang))),
                                           self._pen(color.darker(130), 1))
                line.setZValue(11)
        for poly in b.polygons:
            item = self._scene.addPolygon(QPolygonF([QPointF(*v) for v in poly]),
                                          self._pen(outline, 3 if selected else 1.5), QBrush(fill))
            item.setZValue(10)
            self._tag_body(item, b.name)
        for line in b.polylines:
            path = QPainterPath(QPointF(*line[0]))
            for v in line[1:]:
                path.lineTo(QPointF(*v))
            item = QGraphicsPathItem(path)
            item.setPen(self._pen(outline, 3 if selected else 1.5))
            item.setZValue(10)
            self._scene.addItem(item)
            self._tag_body(item, b.name)
        for name, p in b.points.items():
            if (b.name, name) in self._ticked:  # a traced point: filled in the body's colour, labelled
                self._marker(p, "circle", color.darker(160), color, 4.0, z=22)
                self._label(name, p, color.darker(150).name(), dx=6, dy=2)
            else:
                self._marker(p, "circle", color.darker(160), QColor("white"), 2.5, z=20)
        self._marker(b.com, "circle", QColor("#333"), QColor("#333"), 1.8, z=21)
        self._label(b.name, b.com, "#ff7700" if selected else "#333")

    def _tag_body(self, item: QGraphicsItem, body: str) -> None:
        item.setData(BODY_ROLE, body)
        self._body_items.setdefault(body, []).append(item)

    def body_items(self, body: str) -> list[QGraphicsItem]:
        """The items that draw the shapes of ``body`` (its bars' paths, disks, polygons) in world coordinates."""
        return list(self._body_items.get(body, []))

    def _draw_ground(self, name: str, p: Vec2, selected: bool) -> None:
        self._marker(p, "triangle", QColor("#ff9900") if selected else QColor("#555"),
                     QColor("#ddd"), 7.0, z=15)
        self._label(name, p, "#555", dx=-16, dy=6)

    def _draw_joint(self, j: Any, selected: bool, offending: bool) -> None:
        color = QColor("#d9000f") if offending else (QColor("#ff9900") if selected else QColor("#222"))
        if offending:
            line = self._scene.addLine(QLineF(QPointF(*j.p1), QPointF(*j.p2)),
                                       self._pen("#d9000f", 2, Qt.PenStyle.DashLine))
            line.setZValue(45)
            self._marker(j.p1, "circle", color, None, 10.0, z=46)
            self._marker(j.p2, "circle", color, None, 10.0, z=46)
        if j.type in ("revolute", "spherical"):
            self._marker(j.p2, "circle", color, QColor("white"), 5.0, z=30)
        elif j.type == "weld":
            self._marker(j.p2, "square", color, QColor("#555"), 4.5, z=30)
        elif j.type in ("prismatic", "knife_edge"):
            ax = j.axis or (1.0, 0.0)
            L = 40 / self.scale_px
            line = self._scene.addLine(QLineF(QPointF(j.p1[0] - ax[0] * L, j.p1[1] - ax[1] * L),
                                              QPointF(j.p1[0] + ax[0] * L, j.p1[1] + ax[1] * L)),
                                       self._pen(color, 1.5, Qt.PenStyle.DashDotLine))
            line.setZValue(29)
            self._marker(j.p2, "square", color, QColor("white"), 5.0, z=30)
        elif j.symbol in ("gears", "rack"):
            self._draw_gearing(j, color)
        else:
            self._marker(j.p2, "circle", color, QColor("#eee"), 5.0, z=30)
        for line in j.polylines:  # contacts: the rolling line and disk rim, the cam profile, follower
            path = QPainterPath(QPointF(*line[0]))
            for v in line[1:]:
                path.lineTo(QPointF(*v))
            item = QGraphicsPathItem(path)
            item.setPen(self._pen(color, 1.8))
            item.setZValue(28)
            self._scene.addItem(item)
        self._label(j.name, j.p2, "#d9000f" if offending else "#222", dx=7, dy=2)

    def _draw_gearing(self, j: Any, color: QColor) -> None:
        """Gear pair / rack and pinion: dashed pitch circles, the rack's pitch line with tooth ticks
        (one per pitch-circle twelfth of the pinion), a diamond at the pitch point."""
        pen = self._pen(color, 1.2, Qt.PenStyle.DashLine)
        for c, r in j.circles:
            item = self._scene.addEllipse(QRectF(c[0] - r, c[1] - r, 2 * r, 2 * r), pen)
            item.setZValue(29)
        if j.rack is not None:
            (x0, y0), (x1, y1) = j.rack
            line = self._scene.addLine(QLineF(QPointF(x0, y0), QPointF(x1, y1)), self._pen(color, 1.5))
            line.setZValue(29)
            length = math.hypot(x1 - x0, y1 - y0) or 1.0
            ux, uy = (x1 - x0) / length, (y1 - y0) / length
            r = j.circles[0][1] if j.circles else 0.1
            pitch = max(2 * math.pi * r / 12, 1e-3)  # tooth spacing hint [m]
            # ticks on the rack's side: away from the pinion's centre
            cx, cy = j.circles[0][0] if j.circles else (x0, y0)
            nx, ny = -uy, ux
            if nx * (x0 - cx) + ny * (y0 - cy) < 0:
                nx, ny = -nx, -ny
            depth = 0.4 * pitch
            for k in range(int(length / pitch) + 1):
                px, py = x0 + ux * k * pitch, y0 + uy * k * pitch
                tick = self._scene.addLine(QLineF(QPointF(px, py), QPointF(px + nx * depth, py + ny * depth)),
                                           self._pen(color, 1.0))
                tick.setZValue(29)
        self._marker(j.p2, "square", color, QColor("#eee"), 3.5, z=30)

    def _draw_force(self, f: Any, selected: bool) -> None:
        color = "#ff9900" if selected else "#7a3db8"
        if f.type == "spring_damper" and f.p2 is not None:
            (x1, y1), (x2, y2) = f.p1, f.p2
            L = math.hypot(x2 - x1, y2 - y1) or 1e-9
            ux, uy = (x2 - x1) / L, (y2 - y1) / L
            nx, ny = -uy, ux
            amp = 6 / self.scale_px
            path = QPainterPath(QPointF(x1, y1))
            n = 12
            for k in range(1, n):
                s = k / n
                side = amp * (1 if k % 2 else -1) if 1 < k < n - 1 else 0.0
                path.lineTo(QPointF(x1 + ux * L * s + nx * side, y1 + uy * L * s + ny * side))
            path.lineTo(QPointF(x2, y2))
            item = QGraphicsPathItem(path)
            item.setPen(self._pen(color, 1.5))
            item.setZValue(25)
            self._scene.addItem(item)
            self._label(f.name, ((x1 + x2) / 2, (y1 + y2) / 2), color)
        elif f.type == "applied_force" and f.vector is not None:
            vx, vy = f.vector
            n = math.hypot(vx, vy) or 1.0
            L = 45 / self.scale_px
            tip = f.p1
            tail = (tip[0] - vx / n * L, tip[1] - vy / n * L)
            self._arrow(tail, tip, color)
            self._label(f.name, tail, color)
        elif f.type == "contact_pair":
            self._draw_contact_pair(f.name, "#ff9900" if selected else "#555b63")
        else:  # torques, rotational springs: an arc around the point
            r = 14 / self.scale_px
            path = QPainterPath()
            path.arcMoveTo(QRectF(f.p1[0] - r, f.p1[1] - r, 2 * r, 2 * r), 20)
            path.arcTo(QRectF(f.p1[0] - r, f.p1[1] - r, 2 * r, 2 * r), 20, 250)
            item = QGraphicsPathItem(path)
            item.setPen(self._pen(color, 1.8))
            item.setZValue(26)
            self._scene.addItem(item)
            self._label(f.name, f.p1, color, dx=10, dy=-28)

    def _draw_driver(self, d: Any, selected: bool) -> None:
        color = "#ff9900" if selected else "#0a7d32"
        r = 19 / self.scale_px
        path = QPainterPath()
        path.arcMoveTo(QRectF(d.at[0] - r, d.at[1] - r, 2 * r, 2 * r), 200)
        path.arcTo(QRectF(d.at[0] - r, d.at[1] - r, 2 * r, 2 * r), 200, 300)
        item = QGraphicsPathItem(path)
        item.setPen(self._pen(color, 2.2))
        item.setZValue(27)
        self._scene.addItem(item)
        self._label(f"{d.name} (driver)", d.at, color, dx=12, dy=10)

    def _draw_ground_shapes(self, data: dict[str, Any], sg: SceneGeometry) -> None:
        """The ground's shapes (a floor, an incline): grey, hatched, under everything else."""
        pen = self._pen("#6b737c", 1.2)
        brush = QBrush(QColor("#9aa3ad"), Qt.BrushStyle.BDiagPattern)
        for kind, shape in contact_drawing.ground_shapes(data, sg):
            if kind == "polygon":
                item = self._scene.addPolygon(QPolygonF([QPointF(*v) for v in shape]), pen, brush)
            elif kind == "polyline":  # a hatched band on the solid side under the line itself
                line, band = shape
                self._scene.addPolygon(QPolygonF([QPointF(*v) for v in band]), QPen(Qt.PenStyle.NoPen),
                                       brush).setZValue(5)
                path = QPainterPath(QPointF(*line[0]))
                for v in line[1:]:
                    path.lineTo(QPointF(*v))
                item = QGraphicsPathItem(path)
                item.setPen(pen)
                self._scene.addItem(item)
            elif kind == "disk":
                (cx, cy), r = shape
                item = self._scene.addEllipse(QRectF(cx - r, cy - r, 2 * r, 2 * r), pen, brush)
            else:
                a, b, w = shape
                path = QPainterPath(QPointF(*a))
                path.lineTo(QPointF(*b))
                item = QGraphicsPathItem(path)
                bar_pen = QPen(QColor("#b8bec5"), w)
                bar_pen.setCapStyle(Qt.PenCapStyle.RoundCap)
                item.setPen(bar_pen)
                self._scene.addItem(item)
            item.setZValue(5)

    def _draw_contact_pair(self, name: str, color: str) -> None:
        """A contact pair's symbol: a dashed line between its shapes' nearest points and a double bar at body1's."""
        ab = self._pair_symbols.get(name)
        if ab is None:
            return
        (ax, ay), (bx, by) = ab
        line = self._scene.addLine(QLineF(QPointF(ax, ay), QPointF(bx, by)), self._pen(color, 1.2,
                                                                                     Qt.PenStyle.DashLine))
        line.setZValue(26)
        L = math.hypot(bx - ax, by - ay)
        ux, uy = ((bx - ax) / L, (by - ay) / L) if L > 1e-12 else (0.0, 1.0)
        half, gap = 7 / self.scale_px, 2.5 / self.scale_px
        path = QPainterPath()
        for k in (-1, 1):  # two short strokes across the line, like a gap
            cx, cy = ax + ux * gap * (1 + k), ay + uy * gap * (1 + k)
            path.moveTo(QPointF(cx - uy * half, cy + ux * half))
            path.lineTo(QPointF(cx + uy * half, cy - ux * half))
        item = QGraphicsPathItem(path)
        item.setPen(self._pen(color, 2.2))
        item.setZValue(31)
        self._scene.addItem(item)
        self._label(name, (ax, ay), color, dx=8, dy=2)

    def _draw_contacts(self, marks: list[Any], scale: float) -> None:
        """A run's contacts at the shown time: the touching points coloured by state, the normal and friction
        force arrows from the point of application (``scale`` [px/N])."""
        s = scale / self.scale_px  # [m/N]
        for mk in marks:
            if mk.at is None:
                continue
            color = QColor(contact_drawing.STATE_COLORS.get(mk.state, "#555"))
            for p in mk.points:
                self._marker(p, "circle", color.darker(150), color, 3.5, z=60)
            for what, vec, c in (("normal", mk.normal_force, contact_drawing.NORMAL_COLOR),
                                 ("friction", mk.friction, contact_drawing.FRICTION_COLOR)):
                if math.hypot(*vec) * scale < contact_drawing.MIN_ARROW_PX:
                    continue
                tip = (mk.at[0] + vec[0] * s, mk.at[1] + vec[1] * s)
                self._arrow(mk.at, tip, c, z=61)
                self.contact_arrows.append((mk.name, what, mk.at, tip))
            self._label(contact_drawing.STATE_NAMES.get(mk.state, ""), mk.at, color.darker(130).name(), dx=-40, dy=4)

    def _arrow(self, a: Vec2, b: Vec2, color: str, z: float = 26) -> None:
        path = QPainterPath(QPointF(*a))
        path.lineTo(QPointF(*b))
        ang = math.atan2(b[1] - a[1], b[0] - a[0])
        h = 9 / self.scale_px
        for s in (0.5, -0.5):
            path.moveTo(QPointF(*b))
            path.lineTo(QPointF(b[0] - h * math.cos(ang + s), b[1] - h * math.sin(ang + s)))
        item = QGraphicsPathItem(path)
        item.setPen(self._pen(color, 2))
        item.setZValue(z)
        self._scene.addItem(item)

    # ---- picking ----------------------------------------------------------------------------------------
    def _handles(self, b: Any) -> list[tuple[str, Vec2]]:
        if self.geometry.kind != "planar":
            return []
        out = []
        if b.is_bar and "b" in b.points:
            out.append(("resize", b.points["b"]))
        else:
            reach = max((math.dist(b.com, p) for p in b.bounds()), default=0.2)
            ang = b.pose[2]
            r = reach + 20 / self.scale_px
            out.append(("rotate", (b.pose[0] + r * math.cos(ang), b.pose[1] + r * math.sin(ang))))
        return out

    def pick(self, p: Vec2) -> tuple[str, Any] | None:
        """What is under world point ``p``, topmost first: see :meth:`pick_all`; None when nothing is."""
        hits = self.pick_all(p)
        return hits[0] if hits else None

    def pick_all(self, p: Vec2) -> list[tuple[str, Any]]:
        """Everything under world point ``p``, topmost first: ("handle", (kind, body)) of a selected body,
        ("ground_points", name) nearest first, ("joints", name), ("drivers", name), ("forces", name),
        ("bodies", name). An axle sits on its ground point and a pin on its bodies: Alt+click walks down
        this list (:meth:`mousePressEvent`)."""
        tol = self.tolerance
        sg = self.geometry
        hits: list[tuple[str, Any]] = []
        for key in self.document.selection:
            if key[0] == "bodies" and sg.body(key[1]) is not None:
                for kind, hp in self._handles(sg.body(key[1])):
                    if math.dist(p, hp) <= tol:
                        hits.append(("handle", (kind, key[1])))
                        break
        near = sorted((math.dist(p, v), n) for n, v in sg.ground.items() if math.dist(p, v) <= tol)
        hits += [("ground_points", n) for _, n in near]
        hits += [("joints", j.name) for j in reversed(sg.joints) if math.dist(p, j.p2) <= tol * 0.8]
        hits += [("drivers", d.name) for d in sg.drivers if abs(math.dist(p, d.at) - 19 / self.scale_px) <= tol * 0.6]
        for f in sg.forces:
            if f.type == "spring_damper" and f.p2 is not None:
                if dist_segment(p, f.p1, f.p2) <= tol * 0.7 and min(math.dist(p, f.p1), math.dist(p, f.p2)) > tol:
                    hits.append(("forces", f.name))
            elif f.type == "applied_force" and f.vector is not None:
                vx, vy = f.vector
                n = math.hypot(vx, vy) or 1.0
                L = 45 / self.scale_px
                tail = (f.p1[0] - vx / n * L, f.p1[1] - vy / n * L)
                if dist_segment(p, tail, f.p1) <= tol * 0.6 and math.dist(p, f.p1) > tol:
                    hits.append(("forces", f.name))
            elif f.type == "contact_pair" and f.name in self._pair_symbols:
                if contact_drawing.near_symbol(p, self._pair_symbols[f.name], tol):
                    hits.append(("forces", f.name))
        hits += [("bodies", b.name) for b in reversed(sg.bodies) if b.contains(p, tol * 0.5)]
        return hits

    def _hit_for_click(self, p: Vec2, cycle: bool) -> tuple[str, Any] | None:
        """The item a click at ``p`` selects: the topmost, or with ``cycle`` (Alt) the one below the selected
        item, round again after the last. Several items under the click are named in the status bar."""
        hits = self.pick_all(p)
        items = [h for h in hits if h[0] != "handle"]
        if cycle and items:
            sel = self.document.selection
            here = [i for i, h in enumerate(items) if h in sel]
            return items[(here[-1] + 1) % len(items)] if here else items[0]
        if len(items) > 1:
            names = ", ".join(f"{edit.collection_word(k)} '{n}'" for k, n in items)
            self.sig_status.emit(f"{len(items)} items here: {names}; Alt+click selects the next one")
        return hits[0] if hits else None

    # ---- palette interface ------------------------------------------------------------------------------
    def arm(self, kind: str | None) -> None:
        """Arm a palette tool: the next left click on the canvas places it."""
        if kind:
            self.show_model_pose()
        self._armed = kind
        self._pending = None
        self._point_tool = False
        self.setCursor(Qt.CursorShape.CrossCursor if kind else Qt.CursorShape.ArrowCursor)
        if kind:
            self.sig_status.emit(f"click on the canvas to place: {placement.PALETTE[kind][0]}")

    @property
    def armed(self) -> str | None:
        return self._armed

    @property
    def pending(self) -> placement.Pending | None:
        return self._pending

    def contains_global(self, global_pos: Any) -> bool:
        local = self.viewport().mapFromGlobal(global_pos)
        return self.viewport().rect().contains(local)

    def drop_global(self, kind: str, global_pos: Any) -> bool:
        """A palette element released at global screen position ``global_pos``; False when outside."""
        self.clear_ghost()
        local = self.viewport().mapFromGlobal(global_pos)
        if not self.viewport().rect().contains(local):
            return False
        self.drop(kind, self.to_world(local))
        return True

    def drop(self, kind: str, world: Vec2, *, grid: bool = True) -> str:
        """Place palette element ``kind`` at world point ``world`` (snapped to a point within the pick radius, else
        to the grid when ``grid``); the status text."""
        self.show_model_pose()
        p = self.snap(world, grid=grid)
        base = self.document.base_model()
        try:
            result = placement.place(base, scene_geometry(base), kind, p, self.tolerance)
        except ModelError as exc:
            text = f"cannot place: {exc.diagnostics[0].message}"
            self.sig_status.emit(text)
            return text
        return self._apply(result)

    def click_pending(self, world: Vec2, *, grid: bool = True) -> str:
        """The click at ``world`` that a pending placement waits for (a second end, a coupling's joint); the status
        text. Without a pending placement: nothing happens."""
        if self._pending is None:
            return ""
        self.show_model_pose()
        base = self.document.base_model()
        p = self.snap(world, grid=grid)
        try:
            result = placement.complete(base, scene_geometry(base), self._pending, p, self.tolerance)
        except ModelError as exc:
            result = f"cannot place: {exc.diagnostics[0].message}"
        return self._apply(result)

    def _apply(self, result: Any) -> str:
        """Show the outcome of a placement step (a message, a pending placement or the new element); its status
        text."""
        if isinstance(result, str):
            self._pending = None
            text = result
            self.rebuild()
        elif isinstance(result, placement.Pending):
            self._pending = result
            text = placement.prompt(result)
            self.rebuild()
        else:
            self._pending = None
            self.document.push_edit(result.model, result.text)
            self.document.set_selection([result.key])
            text = f"{result.text}; {result.note}" if result.note else result.text
        self.sig_status.emit(text)
        return text

    def preview_global(self, kind: str, global_pos: Any) -> None:
        """Ghost of a palette element being dragged over the canvas."""
        self.clear_ghost()
        local = self.viewport().mapFromGlobal(global_pos)
        if not self.viewport().rect().contains(local):
            return
        self.show_model_pose()
        p = self.snap(self.to_world(local))
        item = QGraphicsEllipseItem(QRectF(-7, -7, 14, 14))
        item.setPen(self._pen("#0078d7", 2, Qt.PenStyle.DashLine))
        item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        item.setPos(QPointF(*p))
        item.setZValue(100)
        self._scene.addItem(item)
        self._ghost = item

    def clear_ghost(self) -> None:
        if self._ghost is not None:
            self._scene.removeItem(self._ghost)
            self._ghost = None

    def cancel(self) -> None:
        self._pending = None
        self.arm(None)
        self.rebuild()

    # ---- mouse ------------------------------------------------------------------------------------------
    def mousePressEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        if event.button() == Qt.MouseButton.MiddleButton:
            self._gesture = {"kind": "pan", "last": event.position()}
            return
        if event.button() == Qt.MouseButton.RightButton:
            if self._pending or self._armed or self._point_tool:
                self._right_press_cancelled = True  # no context menu for this click
                self.cancel()
            return
        if event.button() != Qt.MouseButton.LeftButton:
            return
        self.setFocus()
        world = self.to_world(event.position())
        if self._pending is not None:
            self.click_pending(world)
            return
        if self._armed is not None:
            kind = self._armed
            self.arm(None)
            self.drop(kind, world)
            return
        if self._point_tool:
            self.click_point_tool(world, event.position())
            return
        mods = event.modifiers()
        hit = self._hit_for_click(world, cycle=bool(mods & Qt.KeyboardModifier.AltModifier))
        toggle = bool(mods & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier))
        if hit is None:
            if not toggle:
                self.document.set_selection([])
            self._gesture = {"kind": "rubber", "start": world}
            return
        kind, what = hit
        gid = next(_gesture_ids)
        if kind == "handle":
            hkind, body = what
            self._gesture = {"kind": hkind, "body": body, "id": gid}
            return
        key = (kind, what)
        sel = self.document.selection
        if toggle:
            sel = [k for k in sel if k != key] if key in sel else sel + [key]
            self.document.set_selection(sel)
        elif key not in sel:
            self.document.set_selection([key])
        if kind == "ground_points":
            self._gesture = {"kind": "move_ground", "name": what, "id": gid}
        elif kind == "bodies" and not toggle:
            b = edit.element(self.document.base_model(), "bodies", what)
            self._gesture = {"kind": "move_body", "body": what, "start": world, "pose": edit.body_pose(b),
                             "id": gid}

    def mouseMoveEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        world = self.to_world(event.position())
        self.sig_pointer.emit(world[0], world[1])
        g = self._gesture
        if g is None:
            return
        if g["kind"] == "pan":
            d = event.position() - g["last"]
            g["last"] = event.position()
            s = self.scale_px
            c = self.mapToScene(self.viewport().rect().center())
            self.centerOn(QPointF(c.x() - d.x() / s, c.y() + d.y() / s))
            return
        if g["kind"] == "rubber":
            self._draw_rubber(g["start"], world)
            return
        try:
            self._drag(g, world)
        except ModelError as exc:
            self.sig_status.emit(f"not applied: {exc.diagnostics[0].message}")

    def mouseReleaseEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        g, self._gesture = self._gesture, None
        if g is None:
            return
        if g["kind"] == "rubber":
            world = self.to_world(event.position())
            if self._rubber is not None:
                self._scene.removeItem(self._rubber)
                self._rubber = None
            x0, x1 = sorted((g["start"][0], world[0]))
            y0, y1 = sorted((g["start"][1], world[1]))
            if (x1 - x0) * self.scale_px < 3 and (y1 - y0) * self.scale_px < 3:
                return
            inside = lambda p: x0 <= p[0] <= x1 and y0 <= p[1] <= y1  # noqa: E731
            keys = [("bodies", b.name) for b in self.geometry.bodies if inside(b.com)]
            keys += [("ground_points", n) for n, p in self.geometry.ground.items() if inside(p)]
            keys += [("joints", j.name) for j in self.geometry.joints if inside(j.p2)]
            mods = event.modifiers()
            if mods & (Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier):
                keys = self.document.selection + keys
            self.document.set_selection(keys)

    def _draw_rubber(self, a: Vec2, b: Vec2) -> None:
        if self._rubber is None:
            self._rubber = QGraphicsRectItem()
            self._rubber.setPen(self._pen("#0078d7", 1, Qt.PenStyle.DashLine))
            self._rubber.setBrush(QColor(0, 120, 215, 30))
            self._rubber.setZValue(200)
            self._scene.addItem(self._rubber)
        self._rubber.setRect(QRectF(QPointF(*a), QPointF(*b)).normalized())

    def _drag(self, g: dict[str, Any], world: Vec2) -> None:
        doc = self.document
        base = doc.base_model()
        key = ("drag", g["id"])
        if g["kind"] == "move_ground":
            p = self.snap(world, points=False)
            new = edit.set_ground_point(base, g["name"], p)
            doc.push_edit(new, f"Move ground point {g['name']}", key)
        elif g["kind"] == "move_body":
            dx, dy = world[0] - g["start"][0], world[1] - g["start"][1]
            x0, y0, phi = g["pose"]
            x, y = x0 + dx, y0 + dy
            if self.snap_to_grid:
                x, y = _snap_value(x, self.grid_step), _snap_value(y, self.grid_step)
            new = edit.set_poses(base, {g["body"]: (x, y, phi)})
            doc.push_edit(new, f"Move {g['body']}", key, extra_hold=(f"{g['body']}.x", f"{g['body']}.y"))
        elif g["kind"] == "resize":
            new = placement.stretch_bar(base, g["body"], self.snap(world, exclude_body=g["body"]))
            if new is None:
                return
            doc.push_edit(new, f"Resize {g['body']}", key, extra_hold=(f"{g['body']}.phi",))
        elif g["kind"] == "rotate":
            b = edit.element(base, "bodies", g["body"])
            x0, y0, _ = edit.body_pose(b)
            phi = math.atan2(world[1] - y0, world[0] - x0)
            if self.snap_to_grid:
                phi = math.radians(round(math.degrees(phi) / 5.0) * 5.0)
            new = edit.set_poses(base, {g["body"]: (x0, y0, phi)})
            doc.push_edit(new, f"Rotate {g['body']}", key, extra_hold=(f"{g['body']}.phi",))

    # ---- wheel and keys ---------------------------------------------------------------------------------
    def wheelEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        factor = 1.0015 ** event.angleDelta().y()
        s = max(5.0, min(self.scale_px * factor, 5000.0))
        pos = event.position().toPoint()
        before = self.mapToScene(pos)
        self.setTransform(QTransform.fromScale(s, -s))
        after = self.mapToScene(pos)
        c = self.mapToScene(self.viewport().rect().center())
        self.centerOn(c + (before - after))
        self.rebuild()

    def keyPressEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        if event.key() == Qt.Key.Key_Escape:
            self.cancel()
            return
        super().keyPressEvent(event)

    def event(self, event: QEvent) -> bool:  # noqa: D102 - Qt API
        # Tab and Shift+Tab move the keyboard focus on to the next field of the window (a QGraphicsView hands them
        # to its scene, which keeps them: the keyboard was trapped in the canvas)
        if event.type() == QEvent.Type.KeyPress and event.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab) and \
                not event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier):
            if self.focusNextPrevChild(event.key() == Qt.Key.Key_Tab):
                return True
        return super().event(event)

    def focusInEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        super().focusInEvent(event)
        self.viewport().update()

    def focusOutEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        super().focusOutEvent(event)
        self.viewport().update()

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:  # noqa: N802 - Qt API
        super().drawForeground(painter, rect)
        self.draw_point_traces(painter)
        for paint in self.overlay_painters:
            paint(painter)
        if self.hasFocus():
            self.draw_focus_frame(painter)

    def draw_focus_frame(self, painter: QPainter) -> None:
        """A frame of :data:`FOCUS_FRAME_PX` in the style's highlight colour just inside the viewport's edge: the
        canvas has the keyboard."""
        painter.save()
        painter.resetTransform()
        pen = QPen(self.palette().color(QPalette.ColorRole.Highlight), FOCUS_FRAME_PX)
        pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        half = FOCUS_FRAME_PX / 2
        r = QRectF(self.viewport().rect()).adjusted(half, half, -half, -half)
        painter.drawRect(r)
        painter.restore()

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:  # noqa: N802 - Qt API
        super().drawBackground(painter, rect)
        s = self.scale_px
        step = self.grid_step
        while step * s < 8:
            step *= 5
        for major in (False, True):
            st = 1.0 if major else step
            if major and st * s < 8:
                continue
            pen = QPen(QColor("#d0d4da") if major else QColor("#eceef1"), 0)
            painter.setPen(pen)
            x = math.floor(rect.left() / st) * st
            while x <= rect.right():
                painter.drawLine(QLineF(x, rect.top(), x, rect.bottom()))
                x += st
            y = math.floor(rect.top() / st) * st
            while y <= rect.bottom():
                painter.drawLine(QLineF(rect.left(), y, rect.right(), y))
                y += st
        painter.setPen(QPen(QColor("#9aa3ad"), 0))
        painter.drawLine(QLineF(rect.left(), 0, rect.right(), 0))
        painter.drawLine(QLineF(0, rect.top(), 0, rect.bottom()))


def solver_frames(analysis: Any) -> dict[str, Any] | None:
    """Assembled body frames (origin, rotation) of a spatial model from its compiled system, if available."""
    model = analysis.posed
    if model.kind != "spatial" or analysis.system is None or analysis.q is None or not analysis.assembled:
        return None
    system, q, out = analysis.system, analysis.q, {}
    try:
        for b in model.data.get("bodies", []):
            name = b["name"]
            if hasattr(system, "body_frame_pose"):
                r, R = system.body_frame_pose(q, name)
            elif hasattr(system, "body_pose"):
                c, R = system.body_pose(q, name)
                r = np.asarray(c) - np.asarray(R) @ np.array((list(b.get("com", [])) + [0.0] * 3)[:3], float)
            else:
                return None
            out[name] = (np.asarray(r, float), np.asarray(R, float))
    except Exception:  # a solver without these accessors: fall back to the stored poses, and say why in the log
        log.warning("no solver frames for model %r; drawing the stored poses", model.name, exc_info=True)
        return None
    return out


def body_under(canvas: PlanarCanvas, name: str) -> Any:
    """Geometry record of body ``name`` (for tests)."""
    return canvas.geometry.body(name)


__all__ = ["PlanarCanvas", "GROUND"]
