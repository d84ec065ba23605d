"""The 3D view: a pyqtgraph GLViewWidget showing a model's bodies and moving them frame by frame.

:meth:`SceneView.set_model` builds the GL items once from the model's geometry (``mechstudio.gui.view3d.geometry``): the
bodies' meshes in one item posed by a uniform array of body matrices (``mechstudio.gui.view3d.bodies_item``: one draw
call per frame), a line item per body that has lines (moved by its transform), joints, the ground markers, the
ground plane with its grid (translated with ``plane_position(t)``), a gravity arrow, springs as coils, optional trails
of the bodies' centres of mass and optional reaction-force arrows, the spatial joints' axes (one line item for all
of them, moved with their bodies: ``geometry.joint_axes``) and the outline boxes of the highlighted bodies.
:meth:`SceneView.set_state` only sets transforms and a few vertex arrays (the axes and outlines: one batched numpy
transform per frame, no loop over their vertices), so it is cheap enough for 60 fps. Mouse: left-drag orbits,
middle-drag (or ctrl+left) pans, the wheel zooms (GLViewWidget's own controls); a left click without a drag picks
the body under the cursor (:meth:`SceneLogic.pick`: a ray against the bodies' bounding boxes and then their
triangles) and calls each of ``pick_listeners`` with its name (None: no body there). Planar models get a top
camera.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph.opengl as gl
from pyqtgraph.opengl.GLViewWidget import GLViewMixin
from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtGui import QMatrix4x4
from PySide6.QtOpenGL import QOpenGLWindow
from PySide6.QtWidgets import QVBoxLayout, QWidget

from mechstudio.core.model.document import GROUND, Model
from mechstudio.gui.view3d.bodies_item import LIT_FRAGMENT_SOURCE, MAX_BODIES, BodiesItem
from mechstudio.gui.view3d.camera_fit import Fit, body_points, pose_fit, reach_fit
from mechstudio.gui.view3d.geometry import Poser, darker, SceneSpec, build_scene, coil, disk_contact_point, hex_rgba, world
from mechstudio.gui.view3d.picking import PosedLines, box_edges, pick_body

BACKGROUND = (236, 239, 243)
TRAIL_COLOR = (0.15, 0.35, 0.85, 0.9)
ARROW_COLOR = (0.05, 0.6, 0.15, 1.0)
POINT_TRACE_WIDTH = 2.5  # [px] traces of ticked points
AXIS_WIDTH = 3.0  # [px] joint axes
HIGHLIGHT_COLOR = (1.0, 0.55, 0.0, 1.0)  # the outline of a selected body
HIGHLIGHT_WIDTH = 2.5  # [px]
CLICK_SLOP_PX = 4  # a press and release closer than this is a click (a pick), farther a drag (orbit, pan)
FRAMES_PER_BLOCK = 12  # include_frames looks at most at this many frames of a block (and each shown frame)


def _lit_shader() -> str:
    """A two-sided headlight shader (pyqtgraph's 'shaded' lights faces from behind the camera)."""
    from pyqtgraph.opengl import shaders
    name = "mechstudio_lit"
    if name not in shaders.ShaderProgram.names:
        shaders.ShaderProgram(name, [
            shaders.VertexShader("""
                uniform mat4 u_mvp;
                uniform mat3 u_normal;
                attribute vec4 a_position;
                attribute vec3 a_normal;
                attribute vec4 a_color;
                varying vec4 v_color;
                varying vec3 v_normal;
                void main() {
                    v_normal = normalize(u_normal * a_normal);
                    v_color = a_color;
                    gl_Position = u_mvp * a_position;
                }
            """),
            shaders.FragmentShader(LIT_FRAGMENT_SOURCE)])
    return name


def _matrix(origin: np.ndarray, R: np.ndarray) -> QMatrix4x4:
    m = np.eye(4)
    m[:3, :3] = R
    m[:3, 3] = origin
    return QMatrix4x4(*m.ravel())


class SceneLogic:
    """The scene: items built from a model and moved per frame (mixed into a GL widget or GL window)."""

    def _init_scene(self) -> None:
        self.setBackgroundColor(BACKGROUND)
        self.spec: SceneSpec | None = None
        self.poser: Poser | None = None
        self.show_trails = False
        self.show_reactions = False
        self.follow = True
        self._trail: list[np.ndarray] = []
        self._trail_t: list[float] = []
        self._reaction_scale: float | None = None
        self._items: dict[str, Any] = {}
        self._body_items: list[Any] = []
        self.frames_drawn = 0
        self.current_t = 0.0
        self.fit: Fit | None = None  # what the camera frames (gui/view3d/camera_fit.py)
        self._reach: Fit | None = None  # the fit of every reachable configuration, when there is one
        self._corners: dict[str, np.ndarray] = {}  # per body: the 8 corners of its points' box, body frame
        self.refits = 0  # growths of the fit during runs
        #: ``callable(t) -> [TraceLine]`` giving the ticked points' traces (gui.simulation.point_traces), or None
        self.point_traces: Any = None
        self._point_trace_items: dict[Any, Any] = {}
        #: called with the picked body's name (None: a click on no body) after a click in the view
        self.pick_listeners: list[Any] = []
        self.highlighted: list[str] = []  # the bodies outlined (the document's selected bodies)
        self.poses: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # the bodies' frame poses now (origin, R)
        self.axis_lines: PosedLines | None = None
        self.axes_item: Any = None
        self._outline: PosedLines | None = None
        self.outline_item: Any = None
        self._press_at: Any = None

    # ---- building ----------------------------------------------------------------------------------------
    def set_model(self, model: Model, system: Any = None, q: np.ndarray | None = None, t: float = 0.0) -> None:
        """(Re)build every item for ``model``; pose it with ``q`` of ``system`` when given."""
        for it in list(self.items):
            self.removeItem(it)
        self._items = {}
        self._point_trace_items = {}
        self.spec = spec = build_scene(model)
        self.poser = Poser(system) if system is not None else None
        self._trail, self._trail_t = [], []
        self._reaction_scale = None
        self._reach = reach_fit(model, spec)
        self._corners = {}
        for bv in spec.bodies:
            P = body_points(bv)
            lo, hi = P.min(axis=0), P.max(axis=0)
            self._corners[bv.name] = np.array([[a[0], b[1], c[2]] for a in (lo, hi) for b in (lo, hi)
                                               for c in (lo, hi)])
        self.fit = self._reach
        if self.poser is not None and q is not None:
            self._fit_to(q)
        ext = spec.extent
        self.bodies: dict[str, tuple[Any, Any | None]] = {}
        if spec.plane:
            self._build_plane(ext)
        elif spec.kind == "planar":
            grid = gl.GLGridItem(color=(0, 0, 0, 40))
            self.addItem(grid)
            self._items["grid"] = grid
            self._place_grid()
        if not spec.ground.empty:
            g = gl.GLMeshItem(vertexes=spec.ground.vertices, faces=spec.ground.faces, faceColors=spec.ground.colors,
                              shader=_lit_shader(), smooth=False)
            self.addItem(g)
        # every body's mesh in one item (one draw call; see bodies_item), up to MAX_BODIES bodies per item
        meshed = [bv for bv in spec.bodies if not bv.mesh.empty]
        self._body_items: list[tuple[BodiesItem, list[str]]] = []
        for k in range(0, len(meshed), MAX_BODIES):
            chunk = meshed[k:k + MAX_BODIES]
            item = BodiesItem([(bv.mesh.vertices, bv.mesh.faces, bv.mesh.colors) for bv in chunk])
            self.addItem(item)
            self._body_items.append((item, [bv.name for bv in chunk]))
        for bv in spec.bodies:
            lines = None
            if len(bv.lines):
                lines = gl.GLLinePlotItem(pos=bv.lines.reshape(-1, 3), mode="lines", color=darker(bv.color, 0.35),
                                          width=2.0, antialias=True)
                lines.setDepthValue(1)
                self.addItem(lines)
            self.bodies[bv.name] = (None, lines)
        self.springs = []
        for _ in spec.springs:
            it = gl.GLLinePlotItem(pos=np.zeros((2, 3)), color=(0.3, 0.3, 0.3, 1.0), width=2.0, antialias=True)
            self.addItem(it)
            self.springs.append(it)
        # gravity arrow: beside the mechanism (near a corner of what the camera frames), length ~ extent / 7
        g = spec.gravity
        if np.linalg.norm(g) > 0:
            gdir = g / np.linalg.norm(g)
            L = 0.15 * ext
            c, size = self._fit_center_size()
            if spec.kind == "planar":
                half = self.fit.half if self.fit is not None else np.full(3, ext / 2)
                base = np.array([c[0] + 0.9 * half[0], c[1] + 0.6 * half[1], c[2]])
            else:
                base = c + np.array([0.3, 0.3, 0.35]) * size
            tip = base + gdir * L
            side = np.cross(gdir, [0, 0, 1.0]) if spec.kind == "planar" else np.cross(gdir, [1.0, 0, 0])
            side = side / max(np.linalg.norm(side), 1e-12) * 0.08 * L
            pts = np.array([base, tip, tip, tip - 0.25 * L * gdir + side, tip, tip - 0.25 * L * gdir - side])
            arrow = gl.GLLinePlotItem(pos=pts, mode="lines", color=(0.1, 0.1, 0.1, 1.0), width=3.0, antialias=True)
            self.addItem(arrow)
            self._items["gravity"] = arrow
        self.trail_item = gl.GLLinePlotItem(pos=np.zeros((2, 3)), mode="lines", color=TRAIL_COLOR, width=1.5,
                                            antialias=True)
        self.trail_item.setVisible(False)
        self.addItem(self.trail_item)
        self.reaction_item = gl.GLLinePlotItem(pos=np.zeros((2, 3)), mode="lines", color=ARROW_COLOR, width=3.0,
                                               antialias=True)
        self.reaction_item.setVisible(False)
        self.reaction_item.setDepthValue(2)
        self.addItem(self.reaction_item)
        self.poses = {}
        self.axis_lines, self.axes_item = None, None
        if spec.axes:
            self.axis_lines = PosedLines([a.body for a in spec.axes], [a.segments for a in spec.axes],
                                         [a.color for a in spec.axes])
            self.axes_item = gl.GLLinePlotItem(pos=self.axis_lines.world({}), mode="lines",
                                               color=self.axis_lines.colors, width=AXIS_WIDTH, antialias=True)
            self.axes_item.setDepthValue(2)
            self.addItem(self.axes_item)
        self.outline_item = gl.GLLinePlotItem(pos=np.zeros((2, 3)), mode="lines", color=HIGHLIGHT_COLOR,
                                              width=HIGHLIGHT_WIDTH, antialias=True)
        self.outline_item.setDepthValue(3)
        self.outline_item.setVisible(False)
        self.addItem(self.outline_item)
        self.set_highlight(self.highlighted)
        self.reset_camera()
        if self.poser is not None and q is not None:
            self.set_state(q, t)

    def _fit_to(self, q: np.ndarray) -> None:
        """Centre and size of the posed mechanism (its mesh vertices in the world frame: ``spec.center`` and
        ``spec.extent``, which size the joints, springs and arrows), and what the camera frames (``fit``): every
        reachable configuration when the model allows that bound, else this pose (grown during runs, see
        :meth:`include_frames`)."""
        assert self.spec is not None and self.poser is not None
        poses = self.poser.poses(q)
        pts = [poses[bv.name][0] + bv.mesh.vertices @ poses[bv.name][1].T for bv in self.spec.bodies
               if bv.name in poses and not bv.mesh.empty]
        if not self.spec.ground.empty:
            pts.append(self.spec.ground.vertices)
        if pts:
            P = np.vstack(pts)
            lo, hi = P.min(axis=0), P.max(axis=0)
            self.spec.center = (lo + hi) / 2
            self.spec.extent = float(max(np.linalg.norm(hi - lo), 0.2))
            self.fit = self._reach if self._reach is not None else pose_fit(P)
        else:
            self.fit = self._reach

    def _place_grid(self) -> None:
        """The planar grid under what the camera frames."""
        grid = self._items.get("grid")
        spec = self.spec
        if grid is None or spec is None:
            return
        c, size = self._fit_center_size()
        sp = self._nice_spacing(size / 8)
        grid.resetTransform()
        grid.setSize(4 * size, 4 * size)
        grid.setSpacing(sp, sp)
        grid.translate(c[0], c[1], -0.1 * spec.extent)

    def _fit_center_size(self) -> tuple[np.ndarray, float]:
        """Centre and size (the diameter of a sphere holding it) of what the camera frames."""
        assert self.spec is not None
        if self.fit is None:
            return self.spec.center, self.spec.extent
        return self.fit.center, 2 * self.fit.radius

    def include_frames(self, qs: np.ndarray) -> bool:
        """Frames of a run arrived (configurations ``qs`` (n, nq)): grow what the camera frames when they leave it
        (and refit the camera unless the user moved it). True when it grew. Not for models with a reach bound
        (they never leave it) nor with a ground plane (the camera follows the mechanism there)."""
        if self.spec is None or self.poser is None or self._reach is not None or self.spec.plane:
            return False
        qs = np.asarray(qs, float).reshape(-1, np.asarray(qs).shape[-1])
        if len(qs) > FRAMES_PER_BLOCK:
            qs = qs[np.unique(np.linspace(0, len(qs) - 1, FRAMES_PER_BLOCK).round().astype(int))]
        boxes = [self._pose_box(self.poser.poses(q)) for q in qs]
        boxes = [b for b in boxes if b is not None]
        if not boxes:
            return False
        return self._grow_to(np.min([b[0] for b in boxes], axis=0), np.max([b[1] for b in boxes], axis=0))

    def _pose_box(self, poses: dict[str, Any]) -> tuple[np.ndarray, np.ndarray] | None:
        """The world box of the bodies' points in one pose (their body-frame boxes' corners, turned and moved)."""
        pts = [poses[n][0] + C @ poses[n][1].T for n, C in self._corners.items() if n in poses]
        if not pts:
            return None
        P = np.vstack(pts)
        return P.min(axis=0), P.max(axis=0)

    def _grow_to(self, lo: np.ndarray, hi: np.ndarray) -> bool:
        assert self.spec is not None
        planar = self.spec.kind == "planar"
        if self.fit is None or self.fit.contains(lo, hi, planar):
            return False
        self.fit = self.fit.grown(lo, hi)
        self.refits += 1
        self._place_grid()
        if not getattr(self, "_user_camera", False):
            self.reset_camera()
        return True

    def _nice_spacing(self, x: float) -> float:
        e = 10 ** np.floor(np.log10(max(x, 1e-6)))
        for m in (1, 2, 5, 10):
            if m * e >= x:
                return float(m * e)
        return float(10 * e)

    def _build_plane(self, ext: float) -> None:
        half = 2.0 * ext
        self.plane_spacing = sp = self._nice_spacing(ext / 5)
        self.plane_half = half
        quad = np.array([[-half, -half, -1e-3], [half, -half, -1e-3], [half, half, -1e-3], [-half, half, -1e-3]])
        plane = gl.GLMeshItem(vertexes=quad, faces=np.array([[0, 1, 2], [0, 2, 3]]), color=(0.80, 0.84, 0.88, 1.0),
                              shader=None, smooth=False)
        self.addItem(plane)
        n = int(np.ceil(half / sp)) + 1
        ks = np.arange(-n, n + 1) * sp
        segs = []
        for k in ks:
            segs += [[k, -half - sp, 0], [k, half + sp, 0], [-half - sp, k, 0], [half + sp, k, 0]]
        grid = gl.GLLinePlotItem(pos=np.array(segs, float), mode="lines", color=(0.35, 0.4, 0.5, 0.9), width=1.0,
                                 antialias=True)
        self.addItem(grid)
        self._items["plane"], self._items["plane_grid"] = plane, grid

    def reset_camera(self, size: tuple[int, int] | None = None) -> None:
        """Fit the camera to ``fit`` (a planar model's top camera to its width and height, a spatial model's
        camera to its sphere), for a picture of ``size`` (width, height) [px] (default: the view's)."""
        spec = self.spec
        if spec is None:
            return
        # the field of view spans the width: fit the extent into the shorter of width and height
        w, h = (max(self.width(), 1), max(self.height(), 1)) if size is None else (max(size[0], 1), max(size[1], 1))
        tan_half = np.tan(np.radians(self.opts.get("fov", 60)) / 2)
        if spec.kind == "planar":
            if self.fit is not None:
                c, half = self.fit.center, self.fit.half
            else:
                c, half = spec.center, np.full(3, spec.extent / 2)
            self.opts["center"] = _vec3(c[0], c[1], 0.0)
            need = max(half[0], half[1] * w / h)  # half the width to show
            self.setCameraPosition(distance=1.1 * need / tan_half, elevation=90, azimuth=-90)
        else:
            c, size = self._fit_center_size()
            self.opts["center"] = _vec3(c[0], c[1], c[2])
            if self.fit is not None and self.fit.tight:  # the sphere just fits the narrower field of view
                half_angle = min(np.arctan(tan_half), np.arctan(tan_half * h / w))
                distance = 1.05 * self.fit.radius / np.sin(half_angle)
            else:
                distance = 1.7 * size / (2 * tan_half * min(1.0, h / w))
            self.setCameraPosition(distance=distance, elevation=20, azimuth=-60)

    # ---- framing a whole run (video export) ------------------------------------------------------------------
    def camera_state(self) -> dict[str, Any]:
        """What :meth:`restore_camera` puts back: the camera, the fit and the follow mode."""
        o = self.opts
        return {"center": _vec3(o["center"].x(), o["center"].y(), o["center"].z()), "distance": o["distance"],
                "elevation": o["elevation"], "azimuth": o["azimuth"], "fit": self.fit, "follow": self.follow}

    def restore_camera(self, state: dict[str, Any]) -> None:
        self.fit, self.follow = state["fit"], state["follow"]
        self.opts["center"] = state["center"]
        self.setCameraPosition(distance=state["distance"], elevation=state["elevation"], azimuth=state["azimuth"])
        self._place_grid()

    def motion_points(self, qs: np.ndarray) -> np.ndarray | None:
        """Every body's box corners posed in every configuration ``qs`` (n, nq), world frame (n * bodies * 8, 3):
        the hull of a body's posed corners holds all its drawn points, so these bound every frame of a run."""
        if self.spec is None or self.poser is None:
            return None
        pts = []
        for q in np.atleast_2d(np.asarray(qs, float)):
            poses = self.poser.poses(q)
            pts += [poses[n][0] + C @ poses[n][1].T for n, C in self._corners.items() if n in poses]
        return np.vstack(pts) if pts else None

    def frame_motion(self, qs: np.ndarray, size: tuple[int, int], margin: float = 0.9) -> None:
        """Point the camera (its usual direction) at the whole motion ``qs`` and bring it as close as its points
        (:meth:`motion_points`) allow: all of them project inside ``margin`` of a ``size`` picture, centred.
        The camera then stops following the mechanism (``follow``; restore with :meth:`restore_camera`)."""
        P = self.motion_points(qs)
        if P is None or self.spec is None:
            return
        lo, hi = P.min(axis=0), P.max(axis=0)
        self.follow = False
        self.fit = Fit(lo, hi, tight=True, sphere=float(np.max(np.linalg.norm(P - (lo + hi) / 2, axis=1))))
        self.reset_camera(size)  # the sphere around them fits: a distance that is surely far enough
        self.opts["center"] = _vec3(*((lo + hi) / 2))
        w, h = size
        tan_half = float(np.tan(np.radians(self.opts.get("fov", 60)) / 2))
        for _ in range(4):  # closest distance for this centre, then centre the picture of the points; repeat
            self._closest_distance(P, size, margin)
            ndc = self.project_ndc(P, size)
            shift = (np.nanmax(ndc, axis=0) + np.nanmin(ndc, axis=0)) / 2  # the picture's offset from its centre
            V = np.array(self.viewMatrix().copyDataTo()).reshape(4, 4)
            right, up = V[0, :3], V[1, :3]  # camera axes in world coordinates
            half_w = float(self.opts["distance"]) * tan_half
            c = self.opts["center"]
            c = np.array([c.x(), c.y(), c.z()]) + shift[0] * half_w * right + shift[1] * half_w * h / w * up
            self.opts["center"] = _vec3(*c)
        self._closest_distance(P, size, margin)
        self.setCameraPosition(distance=float(self.opts["distance"]))

    def _closest_distance(self, P: np.ndarray, size: tuple[int, int], margin: float) -> None:
        """Bisection on the camera distance: the smallest at which all of ``P`` project inside ``margin``."""
        def inside(d: float) -> bool:
            self.opts["distance"] = d
            ndc = self.project_ndc(P, size)
            return bool(np.all(np.isfinite(ndc)) and np.all(np.abs(ndc) <= margin))

        far = float(self.opts["distance"])
        while not inside(far) and far < 1e9:
            far *= 1.5
        near = 1e-6 * far
        for _ in range(40):  # the points' picture shrinks as the camera backs off
            mid = (near + far) / 2
            if inside(mid):
                far = mid
            else:
                near = mid
        self.opts["distance"] = far

    def project_ndc(self, points: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """Normalised device coordinates (x, y in [-1, 1] inside the picture) of world ``points`` (n, 3) for a
        picture of ``size``; NaN for points behind the camera."""
        w, h = size
        M = np.array(self.projectionMatrix((0, 0, w, h), (0, 0, w, h)).copyDataTo()).reshape(4, 4) @ \
            np.array(self.viewMatrix().copyDataTo()).reshape(4, 4)
        P = np.c_[np.asarray(points, float).reshape(-1, 3), np.ones(len(np.asarray(points).reshape(-1, 3)))]
        clip = P @ M.T
        with np.errstate(divide="ignore", invalid="ignore"):
            ndc = clip[:, :2] / clip[:, 3:4]
        ndc[clip[:, 3] <= 0] = np.nan
        return ndc

    def project_pixels(self, points: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """Picture pixels (x right, y down) of world ``points`` (n, 3) in a ``size`` picture."""
        ndc = self.project_ndc(points, size)
        w, h = size
        return np.c_[(ndc[:, 0] + 1) * w / 2, (1 - ndc[:, 1]) * h / 2]

    # ---- per frame ---------------------------------------------------------------------------------------
    def set_state(self, q: np.ndarray, t: float, reactions: np.ndarray | None = None,
                  constraint_names: list[str] | None = None, present: bool = False) -> None:
        """Move everything to configuration ``q`` at time ``t`` (reactions (nc, 6) for the arrows).

        The view repaints at its next update request, or at once with ``present`` (where the view can: see
        :meth:`SceneWindow.present_now`)."""
        if self.spec is None or self.poser is None:
            return
        now = getattr(self, "present_now", None) if present else None
        self._updates_held = now is not None  # the items' own update requests would render the frame twice
        try:
            self._pose_items(q, t, reactions, constraint_names)
        finally:
            self._updates_held = False
        self.current_t = t
        self.frames_drawn += 1
        if now is not None:
            now()
        else:
            self.update()

    def _pose_items(self, q: np.ndarray, t: float, reactions: np.ndarray | None,
                    constraint_names: list[str] | None) -> None:
        spec = self.spec
        assert spec is not None and self.poser is not None
        poses = self.poser.poses(q)
        self.poses = poses
        if self.axes_item is not None and self.axis_lines is not None:
            self.axes_item.setData(pos=self.axis_lines.world(poses))
        if self._outline is not None and self.outline_item is not None:
            self.outline_item.setData(pos=self._outline.world(poses))
        if self._reach is None and not spec.plane and self.fit is not None:  # (frames a block check skipped)
            box = self._pose_box(poses)
            if box is not None:
                self._grow_to(*box)
        for item, names in self._body_items:
            M = item.poses()  # a body without a pose keeps its last one
            for k, name in enumerate(names):
                pose = poses.get(name)
                if pose is not None:
                    M[k, :3, :3], M[k, :3, 3] = pose[1], pose[0]
            item.set_poses(M)
        for name, (_mesh, lines) in self.bodies.items():
            pose = poses.get(name)
            if pose is not None and lines is not None:
                lines.setTransform(_matrix(*pose))
        for it, (b1, p1, b2, p2) in zip(self.springs, spec.springs):
            a = world(poses[b1], p1) if b1 in poses else p1
            b = world(poses[b2], p2) if b2 in poses else p2
            it.setData(pos=coil(a, b, 0.03 * spec.extent))
        if spec.plane:
            rp = self.poser.plane_position(t)
            sp = self.plane_spacing
            # the grid lines sit at rp + k * spacing; keep the finite patch under the mechanism
            focus = np.mean([p[0] for p in poses.values()], axis=0) if poses else np.zeros(3)
            shift = rp[:2] + np.round((focus[:2] - rp[:2]) / sp) * sp
            self._items["plane_grid"].setTransform(_matrix(np.array([shift[0], shift[1], rp[2]]), np.eye(3)))
            self._items["plane"].setTransform(_matrix(np.array([focus[0], focus[1], rp[2]]), np.eye(3)))
            if self.follow:
                self.opts["center"] = _vec3(focus[0], focus[1], self.opts["center"].z())
        # trails of the centres of mass
        if self.show_trails:
            coms = np.array([world(poses[bv.name], bv.com) for bv in spec.bodies if bv.name in poses])
            if self._trail_t and t < self._trail_t[-1]:
                self._trail, self._trail_t = [], []
            self._trail.append(coms)
            self._trail_t.append(t)
            if len(self._trail) > 600:
                self._trail, self._trail_t = self._trail[-600:], self._trail_t[-600:]
            if len(self._trail) >= 2:
                T = np.array(self._trail)  # (k, nb, 3)
                segs = np.stack((T[:-1], T[1:]), axis=2).transpose(1, 0, 2, 3).reshape(-1, 3)
                self.trail_item.setData(pos=segs)
                self.trail_item.setVisible(True)
        else:
            self.trail_item.setVisible(False)
        if self.show_reactions and reactions is not None and constraint_names is not None:
            self._draw_reactions(poses, reactions, constraint_names, t)
        else:
            self.reaction_item.setVisible(False)
        self._pose_point_traces(t)

    def _pose_point_traces(self, t: float) -> None:
        """The ticked points' traces up to time ``t``: one line strip per point in its body's colour, planar
        models in their plane (z = 0), spatial ones in 3D."""
        lines = self.point_traces(t) if self.point_traces is not None else []
        shown = set()
        for line in lines:
            shown.add(line.key)
            item = self._point_trace_items.get(line.key)
            if item is None:
                item = gl.GLLinePlotItem(pos=np.zeros((2, 3)), mode="line_strip", color=hex_rgba(line.color),
                                         width=POINT_TRACE_WIDTH, antialias=True)
                item.setDepthValue(3)
                self.addItem(item)
                self._point_trace_items[line.key] = item
            if len(line.points) >= 2:
                pts = np.asarray(line.points, float)
                pos = np.zeros((len(pts), 3))
                pos[:, :pts.shape[1]] = pts[:, :3]  # a planar model's points lie in its plane z = 0
                item.setData(pos=pos, color=hex_rgba(line.color))
                item.setVisible(True)
            else:
                item.setVisible(False)
        for key, item in self._point_trace_items.items():
            if key not in shown:
                item.setVisible(False)

    def point_trace_keys(self) -> list[Any]:
        """The points whose traces are shown now (for tests)."""
        return [k for k, it in self._point_trace_items.items() if it.visible()]

    def _draw_reactions(self, poses: dict[str, Any], reactions: np.ndarray, names: list[str], t: float) -> None:
        spec = self.spec
        assert spec is not None
        segs = []
        forces = np.asarray(reactions)[:, :3]
        fmax = float(np.max(np.linalg.norm(forces, axis=1))) if len(forces) else 0.0
        if fmax <= 0:
            self.reaction_item.setVisible(False)
            return
        if self._reaction_scale is None or fmax * self._reaction_scale > 0.8 * spec.extent:
            self._reaction_scale = 0.5 * spec.extent / fmax
        s = self._reaction_scale
        for k, name in enumerate(names):
            F = forces[k] * s
            if name in spec.joint_points:
                b, p = spec.joint_points[name]
                if b not in poses:
                    continue
                at = world(poses[b], p)
            elif name in spec.disk_contacts:
                b, r = spec.disk_contacts[name]
                bv = next(bv for bv in spec.bodies if bv.name == b)
                at = disk_contact_point(poses[b], bv.com, r)
            else:
                continue
            if np.linalg.norm(F) < 1e-9:
                continue
            tip = at + F
            e = F / np.linalg.norm(F)
            side = np.cross(e, [0, 0, 1.0])
            if np.linalg.norm(side) < 1e-6:
                side = np.cross(e, [1.0, 0, 0])
            side = side / np.linalg.norm(side) * 0.06 * np.linalg.norm(F)
            head = 0.2 * F
            segs += [at, tip, tip, tip - head + side, tip, tip - head - side]
        if segs:
            self.reaction_item.setData(pos=np.array(segs))
            self.reaction_item.setVisible(True)

    def clear_trails(self) -> None:
        self._trail, self._trail_t = [], []
        self.trail_item.setVisible(False) if hasattr(self, "trail_item") else None

    # ---- picking and highlighting ------------------------------------------------------------------------------
    def ray(self, x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
        """The world ray (origin, unit direction) under the view's pixel (x right, y down; logical pixels)."""
        w, h = max(self.width(), 1), max(self.height(), 1)
        M = np.array(self.projectionMatrix((0, 0, w, h), (0, 0, w, h)).copyDataTo()).reshape(4, 4) @ \
            np.array(self.viewMatrix().copyDataTo()).reshape(4, 4)
        inv = np.linalg.inv(M)
        nx, ny = 2.0 * x / w - 1.0, 1.0 - 2.0 * y / h
        near, far = (inv @ np.array([nx, ny, z, 1.0]) for z in (-1.0, 1.0))
        a, b = near[:3] / near[3], far[:3] / far[3]
        d = b - a
        return a, d / np.linalg.norm(d)

    def pick(self, x: float, y: float) -> str | None:
        """The body under the view's pixel (x, y) in the pose shown, or None (``picking.pick_body``)."""
        if self.spec is None or not self.poses:
            return None
        origin, direction = self.ray(x, y)
        meshes = {bv.name: bv.mesh for bv in self.spec.bodies if not bv.mesh.empty}
        return pick_body(origin, direction, meshes, self.poses, margin=0.01 * self.spec.extent)

    def set_highlight(self, names: list[str]) -> None:
        """Outline the bodies ``names`` (their meshes' boxes, moved with them); [] outlines none."""
        self.highlighted = list(names)
        if self.outline_item is None or self.spec is None:
            return
        meshes = {bv.name: bv.mesh for bv in self.spec.bodies if not bv.mesh.empty}
        shown = [n for n in self.highlighted if n in meshes]
        if not shown:
            self._outline = None
            self.outline_item.setVisible(False)
            return
        pad = 0.01 * self.spec.extent
        self._outline = PosedLines(shown, [box_edges(meshes[n].vertices, pad) for n in shown],
                                   [HIGHLIGHT_COLOR] * len(shown))
        self.outline_item.setData(pos=self._outline.world(self.poses))
        self.outline_item.setVisible(True)

    def mousePressEvent(self, ev: Any) -> None:  # noqa: N802 - Qt API
        self._press_at = ev.position() if ev.button() == Qt.MouseButton.LeftButton else None
        super().mousePressEvent(ev)

    def mouseReleaseEvent(self, ev: Any) -> None:  # noqa: N802 - Qt API
        start, self._press_at = self._press_at, None
        super().mouseReleaseEvent(ev)
        if start is None or ev.button() != Qt.MouseButton.LeftButton:
            return
        pos = ev.position()
        if abs(pos.x() - start.x()) + abs(pos.y() - start.y()) > CLICK_SLOP_PX:
            return  # a drag (orbit)
        name = self.pick(pos.x(), pos.y())
        for listener in list(self.pick_listeners):
            listener(name)

    # ---- GL context ----------------------------------------------------------------------------------------
    def paint(self, *args: Any, **kwargs: Any) -> None:
        _ensure_shaders_for_current_context()
        super().paint(*args, **kwargs)

    # ---- pixels ------------------------------------------------------------------------------------------
    def render_image(self, width: int, height: int) -> np.ndarray:
        """Render offscreen at (width, height): RGB uint8 array (height, width, 3)."""
        bgra = self.renderToArray((width, height))
        return np.ascontiguousarray(bgra[:, :, [2, 1, 0]])


_LAST_GROUP: list[int | None] = [None]


def _ensure_shaders_for_current_context() -> None:
    """pyqtgraph caches compiled shader programs globally, which breaks a second GL view whose context is not
    shared with the first (tests open many windows; the export renders offscreen). Recompile on a switch of
    context share group (a no-op when Qt.AA_ShareOpenGLContexts is set)."""
    from PySide6.QtGui import QOpenGLContext
    from shiboken6 import getCppPointer
    ctx = QOpenGLContext.currentContext()
    if ctx is None:
        return
    key = getCppPointer(ctx.shareGroup())[0]
    if key == _LAST_GROUP[0]:
        return
    if _LAST_GROUP[0] is not None:
        from pyqtgraph.opengl import items, shaders
        for prog in shaders.ShaderProgram.names.values():
            prog.prog = None
            for sh in prog.shaders:
                sh.compiled = None
        for name in ("GLImageItem", "GLLinePlotItem", "GLScatterPlotItem", "GLVolumeItem"):
            klass = getattr(getattr(items, name, None), name, None)
            if klass is not None and hasattr(klass, "_shaderProgram"):
                klass._shaderProgram = None
    _LAST_GROUP[0] = key


class SceneView(SceneLogic, gl.GLViewWidget):
    """The scene in a QOpenGLWidget (offscreen rendering: video export, benchmark, tests)."""

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self.setObjectName("view3d")
        self.setMinimumSize(240, 200)
        self._init_scene()


class SceneWindow(SceneLogic, GLViewMixin, QOpenGLWindow):
    """The scene in a QOpenGLWindow. Embedded with :func:`QWidget.createWindowContainer` it renders into its
    own native surface, so the main window is not composed through OpenGL on every repaint of any widget (with
    a software rasteriser such as llvmpipe that composition costs ~40 ms per repaint of a 1280x820 window)."""

    def __init__(self) -> None:
        # Created with a (hidden, permanent) parent QWindow so that PySide hands ownership to C++: the window
        # container deletes the window in C++, and a Python-owned wrapper would be deleted a second time at exit
        # (segmentation fault, PySide 6.10).
        super().__init__(QOpenGLWindow.UpdateBehavior.NoPartialUpdate, _anchor_window())
        self._init_scene()

    def resizeEvent(self, ev: Any) -> None:
        super().resizeEvent(ev)
        if not getattr(self, "_user_camera", False):
            self.reset_camera()

    def mouseMoveEvent(self, ev: Any) -> None:  # noqa: N802 - Qt API
        if ev.buttons() != Qt.MouseButton.NoButton:
            self._user_camera = True  # the user took over the camera (a drag): resizes no longer re-fit it
        super().mouseMoveEvent(ev)

    def update(self, *args: Any) -> None:
        """QPaintDeviceWindow.update for Python callers (the GL items ask for it when moved), held back while
        :meth:`set_state` prepares a frame that it presents itself."""
        if not getattr(self, "_updates_held", False):
            super().update(*args)

    def present_now(self) -> None:
        """Render and swap now, not at the window's next update request (a timer, 5 ms later on xcb).

        The live view's display timer presents its frames this way: each frame is then on screen at the timer's
        tick, and the time until the next tick is free for other work (plot repaints) without delaying a frame.
        (Not combined with ``update()``, which would render the same frame a second time at its request.)"""
        if self.isExposed():
            QCoreApplication.sendEvent(self, QEvent(QEvent.Type.UpdateRequest))
        else:
            self.update()

    def devicePixelRatioF(self) -> float:  # GLViewMixin expects the QWidget API
        return float(self.devicePixelRatio())

    def setFocusPolicy(self, *_a: Any) -> None:
        pass


_ANCHOR: list[Any] = []


def _anchor_window() -> Any:
    from PySide6.QtGui import QWindow
    if not _ANCHOR:
        _ANCHOR.append(QWindow())
    return _ANCHOR[0]


class SceneContainer(QWidget):
    """The QWidget that holds a :class:`SceneWindow` (``.scene``) in a dock."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("view3d")
        self.scene = SceneWindow()
        self.container = QWidget.createWindowContainer(self.scene, self)
        self.container.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.container.setMinimumSize(240, 200)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.container)

    def grab_scene(self) -> Any:
        """The rendered scene as a QImage (the GL window's framebuffer)."""
        return self.scene.grabFramebuffer()


def _vec3(x: float, y: float, z: float) -> Any:
    from PySide6.QtGui import QVector3D
    return QVector3D(float(x), float(y), float(z))


__all__ = ["SceneView", "SceneWindow", "SceneContainer", "GROUND"]
