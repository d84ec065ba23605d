"""Mode animation: the views show the mechanism vibrating in one of its modes, about the equilibrium of the Modes
analysis, without touching the document.

**Motion.** A mode of the linearisation (docs/analysis-modes.md) is the first-order motion
q(t) = q* + a s sin(2 pi t / T), s the mode shape in all coordinates (V x, largest component +1), a the amplitude.
The pose shown is that motion put back on the constraints: q(z) of the linearisation's own chart
(:class:`mechstudio.core.analysis.modes.Chart`) at z = a x_s sin(2 pi t / T), x_s the reduced shape scaled like s,
i.e. q* + V z (which is q* + a s sin(...)) corrected along the range of Phi_q^T by Newton until ||Phi|| <= 1e-14.
So links keep their lengths at any amplitude, and a pose whose joints cannot close (an amplitude beyond the
mechanism's reach) is not shown: the last good pose stays and the status says so.

**Amplitude** is given as the largest displacement of a point of the mechanism (its bodies' named points, centres
of mass and axes: :func:`motion_points`, in 3D for spatial models), as a fraction of the mechanism's size (the
largest side of their bounding box with the ground points): a fraction f gives a = f * size / g, g the
displacement per unit of a (a central difference on the chart, :func:`displacement_gain`). A shape mixes metres,
radians and quaternion components; this scale is what the eye sees.

**Time.** A mode whose period lies in :data:`SHOWN_PERIOD_S` is shown at its real speed; a faster one is slowed down
to the shortest, a slower one sped up to the longest, and a zero-frequency or unstable mode (no period) is swung
with :data:`NO_PERIOD_S`; the status line says which.

**Steady motions.** A Floquet mode of a driven model (:mod:`mechstudio.core.analysis.steady_motion`) is shown riding
on its periodic steady motion (:class:`SteadyModeMotion`): the steady motion plus the mode's scaled perturbation
with its growth or decay removed, put back on the constraints at the motion's own time; the steady motion's period
takes the place of the mode's period above.

**Views.** :class:`ModeAnimator` draws each pose on the 2D canvas (``canvas.show_configuration``) and, where the
window has the live view and it shows the same mechanism with no run computing, in the 3D view
(``view.set_state``). It never edits the document (no undo step; the model is unchanged), and it stops — the views
show what they showed before — on *Stop*, when the model is edited or another model is opened, when the canvas is
needed for placing an element or shows something else (a run's frame), or when the run's time is moved.
"""
from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np
from PySide6.QtCore import QElapsedTimer, QObject, QTimer, Signal

from mechstudio.core.analysis.linkage import length_scale
from mechstudio.core.analysis.modes import Chart, Linearisation, NaturalMode
from mechstudio.core.analysis.steady_motion import FloquetAnalysis, FloquetMode
from mechstudio.core.systems.points import BodyFrames
from mechstudio.core.types import FloatArray

log = logging.getLogger(__name__)

#: the animation's frame interval [ms] (about 30 frames per second; a canvas redraw costs 5-15 ms)
FRAME_MS = 33
#: modes with a period in this range [s] are shown at their real speed; others are slowed down or sped up to it
SHOWN_PERIOD_S = (1.0, 4.0)
#: the period [s] a zero-frequency or unstable mode (no period) is swung with
NO_PERIOD_S = 2.0
#: the default amplitude: largest displacement of a drawn point, as a fraction of the mechanism's size
DEFAULT_AMPLITUDE = 0.15
#: a projected pose is shown when ||Phi|| <= CLOSURE_RTOL * size (units of Phi: m or rad; size in m)
CLOSURE_RTOL = 1e-9
#: step of the central difference of :func:`displacement_gain`, in units of the shape (m or rad)
GAIN_STEP = 1e-6


def motion_points(system: Any, q: FloatArray) -> np.ndarray:
    """(k, dim) [m]: points that show every body's motion at q, in a fixed order for a given model: each body's
    named points, its centre of mass, and the centre of mass plus ``reach`` along each body axis (so that a turn
    about the centre shows too; ``reach`` the body's largest point distance from its centre, else a tenth of the
    model's length scale); in 3D for spatial models (core.systems.points.BodyFrames)."""
    frames = BodyFrames.of_system(system)
    dim = frames.dim
    fallback = 0.1 * length_scale(system.model)
    bodies: list[str] = []
    local: list[np.ndarray] = []
    for b in system.model.bodies:
        com = np.asarray((list(b.com) + [0.0, 0.0, 0.0])[:dim], float)
        pts = [np.asarray((list(p) + [0.0, 0.0, 0.0])[:dim], float) for p in b.points.values()]
        reach = max([float(np.linalg.norm(p - com)) for p in pts] + [0.0]) or fallback
        for p in pts + [com] + [com + reach * e for e in np.eye(dim)]:
            bodies.append(b.name)
            local.append(p)
    if not local:
        return np.zeros((0, dim))
    return np.asarray(frames.world(np.asarray(q, float), bodies, np.array(local)), float)


def motion_size(system: Any, q: FloatArray) -> float:
    """The mechanism's size [m] at q: the largest side of the bounding box of its :func:`motion_points` and ground
    points (at least 1 mm)."""
    pts = motion_points(system, q)
    ground = [np.asarray((list(p) + [0.0, 0.0, 0.0])[:pts.shape[1]], float)
              for p in system.model.entities.ground_points.values()]
    allp = np.vstack([pts] + ([np.array(ground)] if ground else []))
    return max(float(np.max(np.ptp(allp, axis=0))) if len(allp) else 0.0, 1e-3)


class ModeMotion:
    """The motion of one mode (module docstring), without Qt: :meth:`pose` at an animation time."""

    def __init__(self, system: Any, lin: Linearisation, mode: NaturalMode, fraction: float = DEFAULT_AMPLITUDE):
        self.system, self.linearisation, self.mode = system, lin, mode
        self.rest_q = lin.q
        self.chart = Chart(system, lin.q, lin.t)
        full = lin.basis @ mode.reduced_shape
        k = int(np.argmax(np.abs(full)))
        #: the reduced shape x_s with V x_s = the mode's shape s (largest component +1)
        self.reduced = mode.reduced_shape / full[k]
        self.size = motion_size(system, lin.q)
        self.gain = displacement_gain(self)
        self.fraction = fraction
        self.amplitude = self.amplitude_for(fraction)
        if mode.kind == "oscillating" and math.isfinite(mode.period_s):
            self.shown_period = min(max(mode.period_s, SHOWN_PERIOD_S[0]), SHOWN_PERIOD_S[1])
        else:
            self.shown_period = NO_PERIOD_S

    def amplitude_for(self, fraction: float) -> float:
        """a (units of the shape: m or rad) whose largest point displacement is ``fraction`` of the size."""
        return float(fraction) * self.size / self.gain

    def set_fraction(self, fraction: float) -> None:
        self.fraction = float(fraction)
        self.amplitude = self.amplitude_for(fraction)

    def phase(self, t: float) -> float:
        """sin(2 pi t / T_shown) at animation time ``t`` [s]."""
        return math.sin(2.0 * math.pi * t / self.shown_period)

    def pose(self, t: float) -> tuple[FloatArray, float]:
        """(q, ||Phi||) at animation time ``t`` [s]: the chart's pose at z = a x_s sin(2 pi t / T_shown)."""
        return self.chart.pose(self.amplitude * self.phase(t) * self.reduced)

    def closes(self, residual: float) -> bool:
        return bool(np.isfinite(residual)) and residual <= CLOSURE_RTOL * max(self.size, 1.0)

    def velocity(self, q: FloatArray) -> FloatArray | None:
        """The direction of q' of the mode's motion at the pose q (J(q) x_s, the chart's tangent along the shape)."""
        return self.chart.tangent(np.asarray(q, float)) @ self.reduced

    def description(self) -> str:
        freq = f"{self.mode.frequency_hz:.4g} Hz, " if self.mode.kind == "oscillating" else ""
        return f"{freq}{self.speed_words()}"

    def speed_words(self) -> str:
        m = self.mode
        if m.kind != "oscillating":
            return f"{'a zero-frequency' if m.kind == 'zero' else 'an unstable'} mode: its shape swung with a " \
                   f"{self.shown_period:g} s period"
        if abs(self.shown_period - m.period_s) <= 1e-12 * m.period_s:
            return "shown at its real speed"
        ratio = self.shown_period / m.period_s
        return f"shown {ratio:.3g}x slower" if ratio > 1 else f"shown {1 / ratio:.3g}x faster"


class SteadyModeMotion:
    """A Floquet mode riding on its periodic steady motion (module docstring, **Steady motions**), without Qt.

    The pose at motion time tau = k T + r (0 <= r < T) is q*(r) turned by k whole periods (the identification's
    shift) plus a Re((mu/|mu|)^k dq(r) e^{-Re(s) r}): the mode's perturbation y(t) = Y(t) xi without its growth or
    decay, so the animation repeats its oscillation period after period; put back on the constraints at that time
    (Phi(q, tau) = 0, Newton along the range of Phi_q^T). q*(r) and dq(r) are cubic splines through the
    monodromy's samples (64 per period: interpolation error ~1e-7 of a turn)."""

    def __init__(self, system: Any, result: FloquetAnalysis, mode: FloquetMode, fraction: float = DEFAULT_AMPLITUDE):
        from scipy.interpolate import CubicSpline  # only an animation needs it (start-up time of the editor)
        mono = result.monodromy
        if mono is None:
            raise ValueError("the analysis has no steady motion")
        self.system, self.result, self.mode = system, result, mode
        st = result.steady
        n = system.n
        self.period, self.t0 = st.period, st.t0
        times = np.append(mono.times - mono.times[0], st.period)
        N = mono.times.size
        q_ref = mono.reference[:, :n]
        self.phase = mode.multiplier / abs(mode.multiplier) if abs(mode.multiplier) > 0 else 1.0
        dq = np.array([(mono.sensitivity[j] @ mode.reduced)[:n] for j in range(N)])
        dq = dq * np.exp(-mode.exponent.real * times[:N])[:, None]
        # one period on: q*(T) = sign q*(0) + shift (whole turns, quaternion signs), dq(T) = sign mu/|mu| dq(0)
        self.shift = mono.shift if mono.shift.size == n else np.zeros(n)
        self.sign = mono.sign if mono.sign.size == n else np.ones(n)
        self.q_spline = CubicSpline(times, np.vstack((q_ref, self.sign * q_ref[0] + self.shift)), axis=0)
        dq_all = np.vstack((dq, self.sign * self.phase * dq[0]))
        self.dq_re = CubicSpline(times, dq_all.real, axis=0)
        self.dq_im = CubicSpline(times, dq_all.imag, axis=0)
        self.rest_q = np.array(st.q, dtype=float)
        self.size = motion_size(system, st.q)
        self.gain = self._gain()
        self.fraction = fraction
        self.amplitude = self.amplitude_for(fraction)
        self.shown_period = min(max(st.period, SHOWN_PERIOD_S[0]), SHOWN_PERIOD_S[1])

    def _gain(self) -> float:
        """Largest displacement [m] of a point of :func:`motion_points` per unit amplitude (central difference)."""
        h = GAIN_STEP * max(self.size, 1.0)
        best = 0.0
        for part in (self.dq_re(0.0), self.dq_im(0.0)):
            d = (motion_points(self.system, self.rest_q + h * part)
                 - motion_points(self.system, self.rest_q - h * part)) / (2 * h)
            best = max(best, float(np.max(np.linalg.norm(d, axis=1))) if d.size else 0.0)
        return best if best > 0 and math.isfinite(best) else 1.0

    def amplitude_for(self, fraction: float) -> float:
        return float(fraction) * self.size / self.gain

    def set_fraction(self, fraction: float) -> None:
        self.fraction = float(fraction)
        self.amplitude = self.amplitude_for(fraction)

    def motion_time(self, t: float) -> float:
        """The steady motion's time from t0 [s] at animation time ``t`` [s]."""
        return t * self.period / self.shown_period

    def pose(self, t: float) -> tuple[FloatArray, float]:
        """(q, ||Phi||) at animation time ``t`` [s] (class docstring)."""
        tau = self.motion_time(t)
        k = math.floor(tau / self.period)
        r = tau - k * self.period
        phase = complex(self.phase) ** k
        sign = self.sign ** k
        dq = np.asarray(self.dq_re(r), float) + 1j * np.asarray(self.dq_im(r), float)
        q = sign * (np.asarray(self.q_spline(r), float) + self.amplitude * (phase * dq).real) + k * self.shift
        time = self.t0 + tau
        chart = Chart(self.system, q, time)
        return chart.pose(np.zeros(chart.dof))

    def closes(self, residual: float) -> bool:
        return bool(np.isfinite(residual)) and residual <= CLOSURE_RTOL * max(self.size, 1.0)

    def velocity(self, q: FloatArray) -> FloatArray | None:
        """None: the instant centres of a mode riding on a steady motion are not drawn."""
        return None

    def description(self) -> str:
        m = self.mode
        freq = f"{m.frequency_hz:.4g} Hz riding on the steady motion" if m.kind == "oscillating" else \
            f"a {m.kind} Floquet mode on the steady motion"
        ratio = self.shown_period / self.period
        speed = "at its real speed" if abs(ratio - 1) <= 1e-12 else \
            (f"{ratio:.3g}x slower" if ratio > 1 else f"{1 / ratio:.3g}x faster")
        return f"{freq}, shown {speed}, growth or decay removed"


def displacement_gain(motion: ModeMotion) -> float:
    """g [m per unit of the shape]: the largest displacement of a point of :func:`motion_points` per unit
    amplitude, by a central difference on the chart (1 when the mode moves none of them)."""
    h = GAIN_STEP * max(motion.size, 1.0)
    plus, _ = motion.chart.pose(h * motion.reduced)
    minus, _ = motion.chart.pose(-h * motion.reduced)
    d = (motion_points(motion.system, plus) - motion_points(motion.system, minus)) / (2 * h)
    g = float(np.max(np.linalg.norm(d, axis=1))) if d.size else 0.0
    return g if g > 0 and math.isfinite(g) else 1.0


class ModeAnimator(QObject):
    """Animates one mode in the window's views (module docstring); ``window.mode_animator``."""

    sig_state = Signal(str)
    """A line about the animation: what is shown, or why it stopped or did not start."""

    def __init__(self, window: Any):
        super().__init__(window)
        self.window = window
        self.canvas = window.canvas
        self.document = window.document
        self.motion: ModeMotion | None = None
        self.label = ""
        self.message = ""
        self.frames_shown = 0
        self.last_q: FloatArray | None = None
        self.last_residual = 0.0
        self.uses_3d = False
        self._before: tuple[Any, Any, float] | None = None
        self._shown_q: FloatArray | None = None
        self._stopping = False
        self.timer = QTimer(self)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self._tick)
        self.clock = QElapsedTimer()
        self.document.sig_model_changed.connect(lambda _m: self.stop("the model was edited"))
        self.document.sig_reset.connect(lambda: self.stop("another model was opened"))
        live = self._controller()
        if live is not None:
            live.sig_time_changed.connect(lambda _t: self.stop("the run's time was moved", restore_3d=False))
            live.sig_state_changed.connect(lambda _s: self._on_run_state())

    @property
    def running(self) -> bool:
        return self.motion is not None

    def _controller(self) -> Any:
        live = getattr(self.window, "live", None)
        return getattr(live, "controller", None)

    def _view3d(self, system: Any) -> Any:
        """The 3D view when it shows this mechanism and no run is computing; None otherwise."""
        c = self._controller()
        if c is None or c.state == "running" or c.system is None or getattr(c.view, "spec", None) is None:
            return None
        if list(c.system.coord_names) != list(system.coord_names):
            return None
        return c.view

    # ---- start and stop ----------------------------------------------------------------------------------------
    def start(self, system: Any, lin: Linearisation, mode: NaturalMode, number: int,
              fraction: float = DEFAULT_AMPLITUDE) -> str:
        """Animate ``mode`` (its ``number`` in the Modes table) of ``system`` about the equilibrium of ``lin``;
        "" when it runs, else why not (the views are unchanged then)."""
        return self.start_motion(lambda: ModeMotion(system, lin, mode, fraction), number, fraction)

    def start_steady(self, system: Any, result: FloquetAnalysis, mode: FloquetMode, number: int,
                     fraction: float = DEFAULT_AMPLITUDE) -> str:
        """Animate the Floquet ``mode`` (its ``number`` in the table) riding on the steady motion of ``result``
        (:class:`SteadyModeMotion`); "" when it runs, else why not."""
        return self.start_motion(lambda: SteadyModeMotion(system, result, mode, fraction), number, fraction)

    def start_motion(self, make: Any, number: int, fraction: float) -> str:
        """Animate the motion ``make()`` builds (a :class:`ModeMotion` or :class:`SteadyModeMotion`)."""
        self.stop()
        c = self._controller()
        if c is not None and c.state == "running":
            return self._say("a simulation is computing: stop it (or let it finish) to animate a mode")
        if self.canvas.placing:
            return self._say("an element is being placed: finish or cancel it (Esc) to animate a mode")
        try:
            motion = make()
        except Exception as exc:  # a failure to set the motion up is a message, never a traceback
            log.warning("cannot animate mode %d", number, exc_info=True)
            return self._say(f"cannot animate mode {number}: {type(exc).__name__}: {exc}")
        system = motion.system
        if c is not None and c.clock.playing:
            c.pause()  # the run's animation would fight over the views
        self._before = self.canvas.shown_configuration
        self.motion, self.label = motion, f"mode {number}"
        self.uses_3d = self._view3d(system) is not None
        self.frames_shown = 0
        self.clock.start()
        self.show_at(0.0)
        self.timer.start()
        self._say(f"Animating {self.label} ({motion.description()}); amplitude {fraction:.0%} of the "
                  f"mechanism's size. Stop, or edit the model, to end it.")
        return ""

    def stop(self, why: str = "", restore_3d: bool = True) -> None:
        """End the animation (if one runs): the views show again what they showed before it."""
        if self.motion is None or self._stopping:
            return
        self._stopping = True
        try:
            self.timer.stop()
            motion, self.motion = self.motion, None
            shown = self.canvas.shown_configuration
            if shown is not None and shown[1] is self._shown_q:  # still ours: put back what was there
                if self._before is not None and not why:
                    self.canvas.show_configuration(*self._before)
                else:
                    self.canvas.show_model_pose()
            if restore_3d and self.uses_3d:
                self._restore_3d(motion)
            self._before, self._shown_q = None, None
            self._say(f"Stopped animating {self.label}" + (f": {why}" if why else ""))
        finally:
            self._stopping = False

    def _restore_3d(self, motion: ModeMotion) -> None:
        c = self._controller()
        if c is None:
            return
        try:
            if len(c.buffer) and c.poser is not None and not c.stale:
                c.seek(c.clock.t)  # the run's frame it showed
                return
            view, a = self._view3d(motion.system), self.document.analysis
            if view is not None and a.q is not None and np.all(np.isfinite(a.q)):
                view.set_state(np.asarray(a.q, float), 0.0)
        except Exception:  # the 3D view must never break the editor
            log.warning("cannot restore the 3D view after a mode animation", exc_info=True)

    def _on_run_state(self) -> None:
        c = self._controller()
        if c is not None and (c.state == "running" or c.clock.playing):
            self.stop("a run is playing", restore_3d=False)

    def velocity(self, system: Any, q: Any, t: float) -> FloatArray | None:
        """The direction of q' of the mode's motion at the pose the canvas shows (J(q) x_s, the chart's tangent
        along the shape); None for any other configuration. The overlays' instant centres use it (they do not
        depend on the velocity's size)."""
        motion = self.motion
        if motion is None or system is not motion.system or self._shown_q is None or q is not self._shown_q:
            return None
        return motion.velocity(q)

    def set_fraction(self, fraction: float) -> None:
        """A new amplitude (fraction of the mechanism's size) for the running animation."""
        if self.motion is not None:
            self.motion.set_fraction(fraction)

    def _say(self, text: str) -> str:
        self.message = text
        self.sig_state.emit(text)
        return text

    # ---- frames ------------------------------------------------------------------------------------------------
    def _tick(self) -> None:
        if self.motion is None:
            return
        if self.canvas.placing:
            self.stop("an element is being placed")
            return
        shown = self.canvas.shown_configuration
        if self._shown_q is not None and (shown is None or shown[1] is not self._shown_q):
            self.stop("the canvas shows something else now", restore_3d=False)
            return
        self.show_at(self.clock.elapsed() / 1000.0)

    def show_at(self, t: float) -> bool:
        """Draw the pose at animation time ``t`` [s] in the views; False (the previous pose stays) when its joints
        cannot close."""
        motion = self.motion
        if motion is None:
            return False
        try:
            q, residual = motion.pose(t)
        except (np.linalg.LinAlgError, FloatingPointError, ValueError) as exc:
            log.info("mode pose at t = %g s failed: %s", t, exc)
            q, residual = motion.rest_q, math.inf
        if not motion.closes(residual):
            if "cannot close" not in self.message:
                self._say(f"{self.label}: at this amplitude the joints cannot close (||Phi|| = {residual:.2g}); "
                          f"reduce the amplitude")
            return False
        q = np.array(q, dtype=float)
        self.last_q, self.last_residual = q, float(residual)
        self.canvas.show_configuration(motion.system, q, float(t))
        shown = self.canvas.shown_configuration
        self._shown_q = shown[1] if shown is not None else None  # (the canvas keeps its own copy of q)
        if self.uses_3d:
            view = self._view3d(motion.system)
            if view is not None:
                try:
                    view.set_state(q, float(t))
                except Exception:  # the 3D view must never break the editor: the canvas still animates
                    log.warning("cannot pose the 3D view", exc_info=True)
                    self.uses_3d = False
        self.frames_shown += 1
        return True


__all__ = ["CLOSURE_RTOL", "DEFAULT_AMPLITUDE", "FRAME_MS", "ModeAnimator", "ModeMotion", "NO_PERIOD_S",
           "SHOWN_PERIOD_S", "SteadyModeMotion", "displacement_gain", "motion_points", "motion_size"]
