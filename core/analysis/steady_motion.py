"""Modes about a periodic steady motion: the periodic orbit of a driven (or free) mechanism and its Floquet analysis.

A driven mechanism (drivers, a moving base: time-dependent constraints Phi(q, t) = 0) has no equilibrium at rest,
but it may have a **periodic steady motion**: a solution (q*(t), v*(t)) of the equations of motion
([001] eq. (2.11): M q'' = h + C^T lambda, Phi(q, t) = 0, C(q, t) q' + xi = 0) that repeats after the period T
of the drive, up to whole turns of the bodies. Examples: a rotor driven at constant speed Omega carrying a
pendulum absorber or a sprung slider (a *relative equilibrium*: every body turns with the drive, T = 2 pi/|Omega|),
or a pendulum on a vertically oscillating pivot hanging still (T the pivot's period).

**Period** (:func:`drive_period`). From the model's time functions: a driver angle at constant speed b (a
``joint_angle`` driver, a ``coordinate`` driver of phi, any time function in rad) repeats after 2 pi/|b|; a harmonic
function of frequency w after 2 pi/|w| (drivers, loads, a moving base); several of them after their least common
multiple when their ratios are rational (denominators up to :data:`MAX_PERIOD_RATIO`). Any other time dependence
(a distance driven at constant speed, polynomials, expressions, a base moving at constant velocity) has no period
known here: the caller gives one (``mechstudio modes --steady --period T``). An undriven model needs a given period
too (its steady motions are equilibria, or periodic orbits of a period that belongs to the orbit).

**Identification.** After one period the state comes back up to whole turns: each angle coordinate (planar phi;
Euler angles psi, theta, phi) is compared modulo 2 pi, each unit quaternion modulo its sign (:class:`Identify`).

**The flow** F_T: (q(t0), v(t0)) -> (q(t0 + T), v(t0 + T)) is the model's own dynamics, integrated with the
Lagrange-multiplier (KKT) formulation (``core.dynamics.lagrange``: singular M, redundant and nonholonomic
constraints allowed) by DOP853 at rtol :data:`INTEGRATION_RTOL`, atol :data:`INTEGRATION_ATOL`.

**Independent coordinates of the projection** ([001] §2) about a start state (q0, v0) on the constraints:

* positions: the chart q(z) = q0 + V z + U_c w(z) of :class:`mechstudio.core.analysis.modes.Chart`
  (V an orthonormal basis of null(Phi_q(q0, t0)), Newton on Phi(q, t0) = 0), so z = V^T (q - q0) exactly;
* velocities: v(q, u) = v0 + W u + U_v a, W an orthonormal basis of the null space of the *full* constraint
  Jacobian C(q0, t0) = [Phi_q; C_psi] (so nonholonomic constraints are allowed: dim u = n - rank C may be less than
  dim z), U_v its row space, a from C(q, t0) v + xi(q, t0) = 0 (least squares); so u = W^T (v - v0) exactly.

The state (z, u) is a coordinate system of the constrained state space near (q0, v0); the **period map**
P(x) = coordinates of identify(F_T(state(x))) maps it into itself.

**Steady motion** (:func:`find_steady_motion`). A fixed point of P: Newton (shooting) on R(x) = P(x) - x,
(dP/dx - I) dx = -R by least squares (a free model's direction along the orbit makes it singular; the
minimum-norm step is taken), backtracking when the residual grows, the chart re-centred on each new start state.
Converged when the periodicity residual ||(dz, du T/(2 pi))|| (m or rad; the velocity part scaled to a
displacement per radian of the period) is at most :data:`STEADY_RTOL` times the model's length scale. It starts
from the file's initial state (assembled, velocities from the file's rates), so the file need only be near a
steady motion; ``search=False`` checks that state only.

**Monodromy** (:func:`monodromy`). Phi_M = dP/dx at the fixed point, (f_z + f_u) square, by central differences
with steps :data:`~mechstudio.core.analysis.modes.FD_STEP` in z and FD_STEP 2 pi/T in u. The 2 (f_z + f_u) perturbed
states and the reference are integrated **together** as one ODE system, so all of them take the same steps: the
differences are those of one smooth discrete flow (internal numerical differentiation), free of the
step-size-control noise (~rtol/step) of separate runs. Errors: truncation ~FD_STEP^2 (third derivatives of the flow),
rounding ~1e-16/FD_STEP, integration ~rtol relative: about 1e-9 relative in Phi_M (tests compare steps 1e-5 and 1e-4
and an independent variational integration).

**Floquet analysis** (:func:`floquet_analysis`). The eigenvalues mu of Phi_M are the Floquet multipliers: a small
perturbation grows like |mu| per period; the steady motion is stable (linearly) when every |mu| <= 1 +
:data:`STABILITY_TOL`. The characteristic exponents s = ln(mu)/T are defined modulo 2 pi i/T (Floquet's theorem:
y(t) = p(t) e^{s t}, p T-periodic). **Branch rule**: the exponent is the one whose periodic factor
p(t) = y(t) e^{-s t}, written in the bodies' own frames (each body's translation and velocity perturbations rotated
into its frame along the steady motion; planar angles as they are, quaternion perturbations by conj(p*) *), has its
dominant Fourier harmonic at zero. So s is the frequency the perturbation has as seen riding with the bodies: in a
relative equilibrium every body turns with the drive and p is constant, and the exponent is the eigenvalue of the
linearisation in the rotating frame; about an equilibrium (an undriven model with any given T) it is the eigenvalue
of :func:`mechstudio.core.analysis.modes.linearise`'s first-order form. Concretely: with s0 = Log(mu)/T (principal
branch), p0(t) = y(t) e^{-s0 t} is sampled at :data:`HARMONIC_SAMPLES` points of the period (the perturbed states of
the monodromy integration, central differences), its discrete Fourier coefficients c_k (positions weight 1,
velocities weight T/(2 pi)) give the frequencies Im(s0) + 2 pi k/T, and the k of largest ||c_k|| is chosen (ties,
as for a real mode whose spectrum is symmetric, go to the smallest |frequency|, then the positive one). One exponent
of each complex-conjugate pair is reported, with Im s >= 0. Each mode gives the frequency |Im s|/(2 pi) [Hz], the
damping ratio zeta = -Re(s)/|s| and the growth per period |mu|. A multiplier within :data:`NEUTRAL_TOL` of 1 whose
dominant harmonic is 0 is **neutral** (s = 0: a free motion along the orbit or its family; a defective double 1 is
split by ~sqrt of the finite-difference noise); a |ln|mu|| below :data:`SNAP_TOL` is rounding and Re s is set to 0.

**Mode shapes** in all coordinates: V xi_z, the position part of the eigenvector at t0 (complex; largest component 1)
or, for a mode without a position part, W xi_u (flagged ``velocity_shape``).

Not covered (a failure status says why): contacts and joint friction that can stick or let go (not smooth); time
dependence without a period found here and no period given; a mass matrix singular on the allowed motions (the KKT
solve fails). Steady motions that repeat only after several drive periods (subharmonic orbits) are found when the
period given is that multiple.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from scipy.integrate import solve_ivp

from mechstudio.core.analysis.linkage import length_scale
from mechstudio.core.analysis.modes import FD_STEP, Chart, normalised, row_space_split
from mechstudio.core.contact.contacts import ContactModelError, contact_set
from mechstudio.core.dynamics.base import SolverFailure, get_formulation
from mechstudio.core.elements import element_type
from mechstudio.core.elements.fields import TimeFunction, TimeFunctions
from mechstudio.core.errors import UnknownNameError
from mechstudio.core.model import Model
from mechstudio.core.run.initial import initial_state
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.systems.points import ORIENTATION_COORDS, BodyFrames
from mechstudio.core.types import FloatArray, Status

#: tolerances of the integration of the flow over one period (relative, and absolute in m, rad, m/s, rad/s)
INTEGRATION_RTOL = 1e-11
INTEGRATION_ATOL = 1e-12
#: a steady motion repeats within STEADY_RTOL times the model's length scale (periodicity residual, module docstring)
STEADY_RTOL = 1e-8
#: Newton (shooting) iterations at most
MAX_NEWTON = 20
#: backtracking halvings of a Newton step at most
MAX_HALVINGS = 8
#: the periodic factor is sampled at this many points of the period for the branch rule (harmonics up to half)
HARMONIC_SAMPLES = 64
#: a steady motion is stable when every |mu| <= 1 + STABILITY_TOL (the monodromy's finite-difference noise ~1e-9)
STABILITY_TOL = 1e-6
#: a multiplier within NEUTRAL_TOL of 1 (with its dominant harmonic at 0) is neutral, s = 0: a defective double 1
#: is split by about the square root of the noise of the monodromy (~1e-9)
NEUTRAL_TOL = 1e-4
#: |ln |mu|| below SNAP_TOL is rounding: Re s = 0 (neither growing nor decaying)
SNAP_TOL = 1e-8
#: the relative ties of the harmonic amplitudes in the branch rule (a real mode's +-frequency pair)
TIE_RTOL = 1e-6
#: two drive periods are combined when their ratio is p/q with q at most this (else a period must be given)
MAX_PERIOD_RATIO = 12
#: relative tolerance of that rational ratio
PERIOD_RATIO_RTOL = 1e-9


# --- the period of the drive ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DrivePeriod:
    """The period [s] of the model's time dependence (``period`` None: none found, ``message`` says why), with
    one line per time function that set it (``sources``)."""
    period: float | None
    sources: tuple[str, ...] = ()
    message: str = ""


def function_period(spec: Any, angle: bool) -> tuple[float | None, str]:
    """(period [s] or None, "" or why none) of one time function ``spec`` (a file value); ``angle``: its value is
    an angle [rad] (constant speed repeats after a turn). (inf, "") for a constant."""
    if isinstance(spec, (int, float)) and not isinstance(spec, bool):
        return math.inf, ""
    kind = spec.get("type") if isinstance(spec, dict) else None
    if kind == "constant_speed":
        speed = float(spec.get("speed", 0.0))
        if speed == 0.0:
            return math.inf, ""
        if angle:
            return 2 * math.pi / abs(speed), ""
        return None, "a constant speed of something other than an angle never repeats"
    if kind == "harmonic":
        w, a = float(spec.get("frequency", 0.0)), float(spec.get("amplitude", 0.0))
        return (math.inf, "") if w == 0.0 or a == 0.0 else (2 * math.pi / abs(w), "")
    if kind == "polynomial":
        if all(float(c) == 0.0 for c in list(spec.get("coefficients", []))[1:]):
            return math.inf, ""
        return None, "a polynomial of time never repeats"
    return None, f"the period of a {kind or 'time'} function is not known here"


def combined_period(periods: list[float]) -> float | None:
    """The least common multiple of ``periods`` [s] when their ratios are rational (see MAX_PERIOD_RATIO)."""
    base = periods[0]
    total = Fraction(1)
    for p in periods[1:]:
        ratio = Fraction(p / base).limit_denominator(MAX_PERIOD_RATIO)
        if abs(float(ratio) * base - p) > PERIOD_RATIO_RTOL * p:
            return None
        # lcm of total*base and ratio*base in units of base: lcm of two fractions = lcm(nums) / gcd(dens)
        total = Fraction(math.lcm(total.numerator, ratio.numerator), math.gcd(total.denominator, ratio.denominator))
    return float(total) * base


def drive_period(model: Model) -> DrivePeriod:
    """The period of ``model``'s time dependence (module docstring): drivers' and loads' time functions, joints'
    loads (a joint's single time function is a profile of an angle, e.g. a cam's, not of time) and the ground's
    motion."""
    found: list[tuple[float, str]] = []
    problems: list[str] = []

    def take(spec: Any, angle: bool, where: str) -> None:
        period, why = function_period(spec, angle)
        if period is None:
            problems.append(f"{where}: {why}")
        elif math.isfinite(period):
            found.append((period, f"{where}: period {period:.6g} s"))

    for section, records in (("drivers", model.drivers), ("forces", model.forces), ("joints", model.joints)):
        for rec in records:
            try:
                et = element_type(rec.type, section)
            except UnknownNameError:
                continue
            for fd in et.fields:
                value = getattr(rec, fd.key, None)
                if isinstance(fd, TimeFunctions) and value is not None:
                    for k, fn in enumerate(value):
                        take(fn.spec, False, f"{section[:-1]} {rec.name} {fd.key}[{k}]")
                elif isinstance(fd, TimeFunction) and section != "joints" and value is not None:
                    angle = fd.units == "rad" or getattr(rec, "coordinate", None) == "phi"
                    take(value.spec, angle, f"{section[:-1]} {rec.name} {fd.key}")
    motion = model.entities.ground_motion or {}
    for key in ("position", "angular_velocity"):
        for k, spec in enumerate(motion.get(key, []) or []):
            take(spec, False, f"ground motion {key}[{k}]")
    omega = [s for s in (motion.get("angular_velocity") or []) if isinstance(s, (int, float))]
    if any(omega):  # a constant angular velocity turns the base: it repeats after a turn
        w = float(np.linalg.norm(np.asarray(omega, float)))
        found.append((2 * math.pi / w, f"ground motion angular_velocity: period {2 * math.pi / w:.6g} s"))
    for key in ("velocity", "acceleration"):
        if any(float(x) != 0.0 for x in (motion.get(key) or [])):
            problems.append(f"ground motion {key}: the base drifts away and never repeats")
    if problems:
        return DrivePeriod(None, tuple(s for _, s in found),
                           "no period of the drive is known: " + "; ".join(problems) + "; give one")
    if not found:
        return DrivePeriod(None, (), "the model is not driven (no time dependence): give the period of the steady "
                                     "motion")
    period = combined_period([p for p, _ in found])
    if period is None:
        return DrivePeriod(None, tuple(s for _, s in found),
                           "the drive's periods are not commensurate: give the period of the steady motion")
    return DrivePeriod(period, tuple(s for _, s in found))


# --- identification after a period and the bodies' frames ---------------------------------------------------------
class Identify:
    """Which coordinates are angles (compared modulo 2 pi) and which blocks are unit quaternions (modulo sign), and
    the rotation of perturbations into the bodies' frames (module docstring)."""

    def __init__(self, system: ConstrainedSystem):
        self.n = system.n
        try:
            self.frames: BodyFrames | None = BodyFrames.of_system(system)
        except (ValueError, AttributeError):
            self.frames = None
        self.angles: list[int] = []
        self.quaternions: list[int] = []  # first index of each quaternion block
        if self.frames is not None:
            kind = self.frames.kind
            for b in self.frames.body_names:
                first = self.frames.orientation_first[b]
                if kind == "quaternion":
                    self.quaternions.append(first)
                else:
                    self.angles.extend(first + k for k in range(len(ORIENTATION_COORDS[kind])))

    def shift(self, q_end: FloatArray, q_ref: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(additive shift of q, sign of each coordinate) that bring ``q_end`` next to ``q_ref``: whole turns of
        the angles, the sign of each quaternion; apply as q' = sign (q_end - shift), v' = sign v_end."""
        add = np.zeros(self.n)
        sign = np.ones(self.n)
        for i in self.angles:
            add[i] = 2 * math.pi * round((q_end[i] - q_ref[i]) / (2 * math.pi))
        for i in self.quaternions:
            if float(q_end[i:i + 4] @ q_ref[i:i + 4]) < 0:
                sign[i:i + 4] = -1.0
        return add, sign

    def body_frame(self, q: FloatArray) -> FloatArray:
        """(n, n) orthogonal map of a perturbation dq (or dv) at the pose q into the bodies' frames: each centre's
        translation by R^T, a quaternion perturbation by conj(p) *; angles unchanged. Identity when the
        coordinates are not bodies' poses."""
        T = np.eye(self.n)
        frames = self.frames
        if frames is None:
            return T
        R = frames.rotations(q, frames.body_names)
        d = frames.dim
        for k, b in enumerate(frames.body_names):
            i = frames.first[b]
            T[i:i + d, i:i + d] = R[k].T
            if frames.kind == "quaternion":
                j = frames.orientation_first[b]
                w, x, y, z = q[j:j + 4] / max(float(np.linalg.norm(q[j:j + 4])), 1e-300)
                # left multiplication by conj(p) = (w, -x, -y, -z)
                T[j:j + 4, j:j + 4] = np.array([[w, x, y, z], [-x, w, z, -y], [-y, -z, w, x], [-z, y, -x, w]])
        return T


# --- the flow ----------------------------------------------------------------------------------------------------
class FlowFailure(RuntimeError):
    """The integration over a period failed (the message says where)."""


class Flow:
    """The model's dynamics y = [q; v], y' = [v; q''(q, v, t)] (Lagrange formulation), integrated over a period
    for several states at once (module docstring)."""

    def __init__(self, system: ConstrainedSystem):
        self.system = system
        self.form = get_formulation("lagrange")(system)
        self.evaluations = 0

    def integrate(self, states: FloatArray, t0: float, period: float,
                  samples: int = 0) -> tuple[FloatArray, FloatArray | None]:
        """(end states (k, 2n), samples (N, k, 2n) at t0 + j T/N, j = 0..N-1, or None) from ``states`` (k, 2n)."""
        k, n2 = states.shape
        n = n2 // 2
        form = self.form

        def rhs(t: float, y: FloatArray) -> FloatArray:
            Y = y.reshape(k, n2)
            out = np.empty_like(Y)
            out[:, :n] = Y[:, n:]
            for i in range(k):
                out[i, n:] = form.accelerations(Y[i, :n], Y[i, n:], t).qdd
            self.evaluations += k
            return out.ravel()

        t_eval = None
        if samples:
            t_eval = t0 + period * np.arange(samples + 1) / samples
            t_eval[-1] = t0 + period
        try:
            with np.errstate(all="raise", under="ignore"):
                sol = solve_ivp(rhs, (t0, t0 + period), states.ravel(), method="DOP853", rtol=INTEGRATION_RTOL,
                                atol=INTEGRATION_ATOL, t_eval=t_eval)
        except (SolverFailure, FloatingPointError, np.linalg.LinAlgError, ValueError) as exc:
            raise FlowFailure(f"the motion over a period from t = {t0:.6g} s cannot be integrated: {exc}") from None
        if sol.status != 0 or not np.all(np.isfinite(sol.y)):
            raise FlowFailure(f"the integration over a period from t = {t0:.6g} s failed: {sol.message}")
        end = sol.y[:, -1].reshape(k, n2)
        if not samples:
            return end, None
        return end, sol.y[:, :samples].T.reshape(samples, k, n2)


# --- coordinates of the projection about a start state --------------------------------------------------------------
class StateChart:
    """(z, u) <-> (q, v) about the start state (q0, v0) at t0 (module docstring): the position chart of
    :class:`~mechstudio.core.analysis.modes.Chart` and the velocity chart on the null space W of C(q0, t0)."""

    def __init__(self, system: ConstrainedSystem, q0: FloatArray, v0: FloatArray, t0: float):
        self.system, self.t0 = system, t0
        self.position = Chart(system, q0, t0)
        self.q0, self.v0 = self.position.q0, np.array(v0, dtype=float)
        C = system.constraint_matrix(self.q0, t0) if system.m else np.zeros((0, system.n))
        #: the row space U_v (n, rank C) and the null space W (n, f_u) of the full constraint Jacobian
        self.velocity_range, self.velocity_basis = row_space_split(C)

    @property
    def position_basis(self) -> FloatArray:
        return self.position.basis

    @property
    def sizes(self) -> tuple[int, int]:
        """(f_z, f_u)."""
        return self.position.dof, self.velocity_basis.shape[1]

    def state(self, x: FloatArray) -> tuple[FloatArray, FloatArray, float]:
        """(q, v, ||Phi||) of the coordinates x = (z, u)."""
        fz, _ = self.sizes
        s = self.system
        q, res = self.position.pose(x[:fz])
        v = self.v0 + self.velocity_basis @ x[fz:]
        Uv = self.velocity_range
        if s.m and Uv.shape[1]:
            C = s.constraint_matrix(q, self.t0)
            v = v + Uv @ np.linalg.lstsq(C @ Uv, -(C @ v + s.xi(q, self.t0)), rcond=None)[0]
        return q, v, res

    def coordinates(self, q: FloatArray, v: FloatArray) -> FloatArray:
        """x = (V^T (q - q0), W^T (v - v0))."""
        return np.concatenate((self.position.basis.T @ (q - self.q0), self.velocity_basis.T @ (v - self.v0)))


# --- results -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SteadyMotion:
    """A periodic steady motion starting at (q, v) at ``t0`` with ``period`` (``status`` ok), or the best start
    state reached and why it is none (``message``)."""
    q: FloatArray
    v: FloatArray
    t0: float  # [s]
    period: float  # [s]
    status: Status
    iterations: int  # Newton steps taken (0: the start state as given)
    residual: float  # periodicity residual ||(dz, du T/(2 pi))|| after one period [m or rad]
    tolerance: float  # the residual accepted [m or rad]
    message: str = ""
    period_sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class Monodromy:
    """The monodromy matrix of the period map in the coordinates x = (z, u) about a start state, with the sampled
    sensitivities of the full state along the period."""
    matrix: FloatArray  # (f, f), f = f_z + f_u
    position_basis: FloatArray  # V (n, f_z)
    velocity_basis: FloatArray  # W (n, f_u)
    times: FloatArray  # (N,) sample times [s]
    reference: FloatArray  # (N, 2n) the steady motion [q; v] at the sample times
    sensitivity: FloatArray  # (N, 2n, f): d[q; v](t_j) / dx
    residual: FloatArray  # P(0) - 0, the coordinates of the end state (f,)
    #: the identification of the end state: q(t0 + T) = sign * q(t0) + shift for the steady motion (whole turns
    #: of the angles, quaternion signs), (n,) each
    shift: FloatArray = field(default_factory=lambda: np.zeros(0))
    sign: FloatArray = field(default_factory=lambda: np.zeros(0))


@dataclass(frozen=True)
class FloquetMode:
    """One Floquet multiplier and its exponent on the branch of the module docstring (one of each conjugate pair)."""
    multiplier: complex  # mu
    exponent: complex  # s [1/s], Im s >= 0
    harmonic: int  # the branch: s = Log(mu)/T + 2 pi i harmonic/T (up to the conjugate reported)
    kind: str  # "oscillating" (Im s != 0), "real" (Im s = 0, s != 0) or "neutral" (s = 0)
    shape: np.ndarray  # complex (n,): V xi_z (or W xi_u when velocity_shape), largest component 1
    reduced: np.ndarray  # complex (f,): the eigenvector xi in (z, u)
    velocity_shape: bool = False

    @property
    def growth_per_period(self) -> float:
        return abs(self.multiplier)

    @property
    def frequency_hz(self) -> float:
        """|Im s|/(2 pi) [Hz]: the oscillation as seen riding with the bodies."""
        return abs(self.exponent.imag) / (2 * math.pi)

    @property
    def natural_frequency_hz(self) -> float:
        return abs(self.exponent) / (2 * math.pi)

    @property
    def damping_ratio(self) -> float:
        """-Re(s)/|s| (nan for s = 0)."""
        a = abs(self.exponent)
        return -self.exponent.real / a + 0.0 if a > 0 else float("nan")

    @property
    def growth_rate(self) -> float:
        """Re s [1/s]."""
        return float(self.exponent.real)

    @property
    def stable(self) -> bool:
        return abs(self.multiplier) <= 1 + STABILITY_TOL


@dataclass(frozen=True)
class FloquetAnalysis:
    """The result of :func:`floquet_analysis`: ``status`` ok with the modes, or the failure's ``message``."""
    status: Status
    message: str
    steady: SteadyMotion
    monodromy: Monodromy | None = None
    modes: tuple[FloquetMode, ...] = ()  # by |s| ascending
    coord_names: tuple[str, ...] = ()

    @property
    def stable(self) -> bool:
        return all(m.stable for m in self.modes)

    @property
    def dof(self) -> tuple[int, int]:
        """(f_z, f_u): position and velocity coordinates of the projection."""
        if self.monodromy is None:
            return 0, 0
        return self.monodromy.position_basis.shape[1], self.monodromy.velocity_basis.shape[1]


# --- the steady motion -------------------------------------------------------------------------------------------
def unsupported_steady(system: ConstrainedSystem) -> str:
    """Why the steady-motion analysis cannot treat ``system`` ("" when it can)."""
    try:
        contacts = contact_set(system)
    except ContactModelError as exc:
        return f"the contacts cannot be set up: {exc}"
    if contacts is not None:
        return ("the model has contacts or joint friction that can let go or stick: its motion is not smooth, so it "
                "has no Floquet modes")
    return ""


class PeriodMap:
    """The period map of ``system`` about a start state (module docstring); evaluations count integrations."""

    def __init__(self, system: ConstrainedSystem, t0: float, period: float, flow: Flow | None = None):
        self.system, self.t0, self.period = system, t0, period
        self.flow = flow or Flow(system)
        self.identify = Identify(system)
        self.scale = max(length_scale(system.model), 1e-3)

    def residual_norm(self, dx: FloatArray, fz: int) -> float:
        """||(dz, du T/(2 pi))|| [m or rad]."""
        return float(math.hypot(float(np.linalg.norm(dx[:fz])),
                                float(np.linalg.norm(dx[fz:])) * self.period / (2 * math.pi)))

    def end_coordinates(self, chart: StateChart, ends: FloatArray, reference_end: FloatArray) -> FloatArray:
        """(k, f) coordinates of end states (k, 2n), identified with the shift of ``reference_end``."""
        n = self.system.n
        add, sign = self.identify.shift(reference_end[:n], chart.q0)
        return np.array([chart.coordinates(sign * (e[:n] - add), sign * e[n:]) for e in ends])

    def residual(self, chart: StateChart) -> FloatArray:
        """P(0) - 0 of the chart's start state (one integration)."""
        start = np.concatenate((chart.q0, chart.v0))[None, :]
        end, _ = self.flow.integrate(start, self.t0, self.period)
        return self.end_coordinates(chart, end, end[0])[0]

    def monodromy(self, chart: StateChart, step: float = FD_STEP, samples: int = HARMONIC_SAMPLES) -> Monodromy:
        """Phi_M = dP/dx at x = 0 by central differences of one stacked integration (module docstring)."""
        fz, fu = chart.sizes
        f = fz + fu
        steps = np.concatenate((np.full(fz, step), np.full(fu, step * 2 * math.pi / self.period)))
        starts = [np.concatenate((chart.q0, chart.v0))]
        for k in range(f):
            for sgn in (1.0, -1.0):
                x = np.zeros(f)
                x[k] = sgn * steps[k]
                q, v, _ = chart.state(x)
                starts.append(np.concatenate((q, v)))
        ends, sampled = self.flow.integrate(np.array(starts), self.t0, self.period, samples)
        coords = self.end_coordinates(chart, ends, ends[0])
        add, sign = self.identify.shift(ends[0, :self.system.n], chart.q0)
        M = np.column_stack([(coords[1 + 2 * k] - coords[2 + 2 * k]) / (2 * steps[k]) for k in range(f)])
        assert sampled is not None
        sens = np.stack([(sampled[:, 1 + 2 * k] - sampled[:, 2 + 2 * k]) / (2 * steps[k]) for k in range(f)], axis=-1)
        times = self.t0 + self.period * np.arange(samples) / samples
        return Monodromy(M, chart.position_basis, chart.velocity_basis, times, sampled[:, 0], sens, coords[0],
                         add, sign)


def start_state(system: ConstrainedSystem, q0: FloatArray | None, v0: FloatArray | None,
                t0: float) -> tuple[FloatArray, FloatArray, str]:
    """(q, v, "") on the constraints at t0: the file's initial state by default, or ``q0`` (and ``v0``) made
    consistent; "" or why not."""
    if q0 is None:
        init = initial_state(system, t0)
        if not init.status.ok:
            return init.q, init.v, init.message
        return init.q, init.v, ""
    chart = StateChart(system, np.asarray(q0, float), np.zeros(system.n) if v0 is None else np.asarray(v0, float),
                       t0)
    q, v, res = chart.state(np.zeros(sum(chart.sizes)))
    if not res <= 1e-9 * max(length_scale(system.model), 1.0):
        return q, v, f"the start pose does not satisfy the constraints at t = {t0:.6g} s (||Phi|| = {res:.3g})"
    return q, v, ""


def find_steady_motion(system: ConstrainedSystem, period: float | None = None, q0: FloatArray | None = None,
                       v0: FloatArray | None = None, t0: float = 0.0, *, search: bool = True,
                       step: float = FD_STEP) -> tuple[SteadyMotion, Monodromy | None]:
    """The periodic steady motion near the start state (default: the file's initial state) and the monodromy
    about it (module docstring). ``period`` [s] default: :func:`drive_period`. Never raises for numerical
    trouble: the status and message say what failed."""
    sources: tuple[str, ...] = ()
    why = unsupported_steady(system)
    if why:
        return SteadyMotion(system.initial_guess(), np.zeros(system.n), t0, math.nan if period is None else period,
                            Status.FAILED, 0, math.nan, math.nan, why), None
    if period is None:
        dp = drive_period(system.model)
        sources = dp.sources
        if dp.period is None:
            q = system.initial_guess()
            return SteadyMotion(q, np.zeros(system.n), t0, math.nan, Status.FAILED, 0, math.nan, math.nan,
                                dp.message, sources), None
        period = dp.period
    period = float(period)
    if not (math.isfinite(period) and period > 0):
        why = f"the period must be a positive number of seconds, not {period!r}"
    q, v, start_why = (np.asarray(system.initial_guess(), float), np.zeros(system.n), "") if why else \
        start_state(system, q0, v0, t0)
    why = why or start_why
    pm = PeriodMap(system, t0, period) if not why else None
    tol = STEADY_RTOL * (pm.scale if pm is not None else 1.0)
    if why or pm is None:
        return SteadyMotion(q, v, t0, period, Status.FAILED, 0, math.nan, tol, why, sources), None
    iterations = 0
    try:
        chart = StateChart(system, q, v, t0)
        fz = chart.sizes[0]
        mono = pm.monodromy(chart, step)
        r = pm.residual_norm(mono.residual, fz)
        while search and r > tol and iterations < MAX_NEWTON:
            f = mono.matrix.shape[0]
            dx = np.linalg.lstsq(mono.matrix - np.eye(f), -mono.residual, rcond=1e-10)[0]
            alpha, accepted = 1.0, False
            for _ in range(MAX_HALVINGS + 1):
                qn, vn, res = chart.state(alpha * dx)
                if np.all(np.isfinite(qn)) and np.all(np.isfinite(vn)) and res <= 1e-9 * max(pm.scale, 1.0):
                    trial = StateChart(system, qn, vn, t0)
                    try:
                        rn = pm.residual_norm(pm.residual(trial), fz)
                    except FlowFailure:
                        rn = math.inf
                    if rn < r:
                        accepted = True
                        break
                alpha *= 0.5
            iterations += 1
            if not accepted:
                break
            chart = trial
            mono = pm.monodromy(chart, step)
            r = pm.residual_norm(mono.residual, fz)
    except (FlowFailure, np.linalg.LinAlgError, FloatingPointError, ValueError) as exc:
        return SteadyMotion(q, v, t0, period, Status.FAILED, iterations, math.nan, tol, str(exc), sources), None
    q, v = chart.q0, chart.v0
    if r <= tol:
        return SteadyMotion(q, v, t0, period, Status.CONVERGED, iterations, r, tol, "", sources), mono
    if not search:
        message = (f"the start state is not periodic: after one period T = {period:.6g} s it is off by {r:.3g} "
                   f"(tolerance {tol:.3g}); search for a steady motion or start on one")
        return SteadyMotion(q, v, t0, period, Status.FAILED, 0, r, tol, message, sources), mono
    message = (f"no periodic steady motion of period {period:.6g} s found near the start state: after "
               f"{iterations} Newton step(s) it is still off by {r:.3g} after one period (tolerance {tol:.3g})")
    return SteadyMotion(q, v, t0, period, Status.MAX_ITER, iterations, r, tol, message, sources), mono


# --- Floquet modes ------------------------------------------------------------------------------------------------
def harmonic_amplitudes(mono: Monodromy, identify: Identify, xi: np.ndarray, s0: complex,
                        period: float) -> np.ndarray:
    """||c_k|| of the periodic factor p0(t) = y(t) e^{-s0 t} of the Floquet solution y = sensitivity xi in the
    bodies' frames, by the FFT of its samples (index k as numpy's fftfreq orders them)."""
    n = identify.n
    N = mono.times.size
    rel = mono.times - mono.times[0]
    weight = np.concatenate((np.ones(n), np.full(n, period / (2 * math.pi))))
    P = np.empty((N, 2 * n), dtype=complex)
    for j in range(N):
        y = mono.sensitivity[j] @ xi
        B = identify.body_frame(mono.reference[j, :n])
        P[j, :n], P[j, n:] = B @ y[:n], B @ y[n:]
        P[j] *= np.exp(-s0 * rel[j]) * weight
    c = np.fft.fft(P, axis=0) / N
    return np.sqrt(np.sum(np.abs(c) ** 2, axis=1))


def floquet_modes(mono: Monodromy, identify: Identify, period: float) -> tuple[FloquetMode, ...]:
    """The multipliers of the monodromy with their exponents on the branch of the module docstring, by |s|."""
    f = mono.matrix.shape[0]
    if f == 0:
        return ()
    fz = mono.position_basis.shape[1]
    mu, X = np.linalg.eig(mono.matrix)
    N = mono.times.size
    freqs = np.fft.fftfreq(N, d=1.0 / N)  # harmonic numbers 0, 1, ..., -1
    modes = []
    for k in range(f):
        m = complex(mu[k])
        scale = max(abs(m), 1e-300)
        if m.imag < -1e-12 * scale:
            continue  # its conjugate is reported
        real = abs(m.imag) <= 1e-12 * scale
        if real:
            m = complex(m.real, 0.0)
        xi = X[:, k]
        if real:
            xi = xi.real.astype(complex)  # a real eigenvector: the mode is a real motion
        s0 = complex(np.log(m)) / period
        amp = harmonic_amplitudes(mono, identify, xi, s0, period)
        omega = s0.imag + 2 * math.pi * freqs / period
        top = float(np.max(amp))
        candidates = [j for j in range(N) if amp[j] >= (1 - TIE_RTOL) * top]
        j = min(candidates, key=lambda j: (abs(omega[j]), -omega[j]))
        harmonic = int(freqs[j])
        w = float(omega[j])
        re = s0.real if abs(math.log(abs(m))) > SNAP_TOL else 0.0
        if abs(m - 1) <= NEUTRAL_TOL and harmonic == 0 and abs(w) * period <= 2 * math.pi * NEUTRAL_TOL:
            re, w = 0.0, 0.0
        if w < 0:  # report the member of the conjugate pair with Im s >= 0
            w, xi, m, harmonic = -w, xi.conj(), m.conjugate(), -harmonic
        s = complex(re, w)
        kind = "neutral" if s == 0 else ("real" if w == 0 else "oscillating")
        shape = mono.position_basis @ xi[:fz]
        velocity_shape = False
        if float(np.linalg.norm(shape)) <= 1e-9 * float(np.linalg.norm(xi)):
            shape, velocity_shape = mono.velocity_basis @ xi[fz:], True
        modes.append(FloquetMode(m, s, harmonic, kind, normalised(shape), xi, velocity_shape))
    modes.sort(key=lambda md: (abs(md.exponent), md.exponent.real))
    return tuple(modes)


def floquet_analysis(system: ConstrainedSystem, period: float | None = None, q0: FloatArray | None = None,
                     v0: FloatArray | None = None, t0: float = 0.0, *, search: bool = True,
                     step: float = FD_STEP) -> FloquetAnalysis:
    """The steady motion (:func:`find_steady_motion`), its monodromy and the Floquet modes (:func:`floquet_modes`)
    of ``system``. Never raises for numerical trouble or unsupported models: the status and message say what
    failed."""
    steady, mono = find_steady_motion(system, period, q0, v0, t0, search=search, step=step)
    names = tuple(system.coord_names)
    if not steady.status.ok or mono is None:
        return FloquetAnalysis(steady.status, steady.message, steady, mono, (), names)
    if mono.matrix.shape[0] == 0:
        return FloquetAnalysis(Status.CONVERGED, "the mechanism has no degree of freedom: no modes", steady, mono,
                               (), names)
    try:
        with np.errstate(all="raise", under="ignore"):
            modes = floquet_modes(mono, Identify(system), steady.period)
    except (FloatingPointError, np.linalg.LinAlgError, ValueError) as exc:
        return FloquetAnalysis(Status.FAILED, f"the Floquet analysis failed numerically: {exc}", steady, mono, (),
                               names)
    return FloquetAnalysis(Status.CONVERGED, "", steady, mono, modes, names)


__all__ = ["DrivePeriod", "FloquetAnalysis", "FloquetMode", "Flow", "FlowFailure", "Identify", "Monodromy",
           "PeriodMap", "StateChart", "SteadyMotion", "combined_period", "drive_period", "find_steady_motion",
           "floquet_analysis", "floquet_modes", "function_period", "harmonic_amplitudes", "start_state",
           "unsupported_steady"]
