"""Event-driven runs of models with contacts that can let go (docs/contact.md): the part of the driver that
integrates one contact mode at a time.

Between two events the contact mode is fixed (``mechstudio.core.contact``: which points are closed, which stick,
which slip and in which direction) and the run's formulation integrates the system of that mode
(:class:`~core.contact.contacts.ActiveSystem`) on its numpy path, with the driver's usual correction after every
step and its output frames. After every accepted step the event functions of the mode
(:func:`~core.contact.modes.event_values`) are compared with their values at the step's start; where one
changed sign, its root is found on the step's dense output (Brent's method, to EVENT_XTOL) and the earliest
one is the event: the outputs before it are recorded, the state at the event is taken from the dense output and
corrected, an impact applies Newton's restitution law (:func:`~core.contact.modes.impact`), the new mode is
chosen (:func:`~core.contact.modes.select_mode`), the state is projected onto its constraints, and a new
integrator starts there. A closed point of a contact pair whose nearest feature changes (a disk rolling over a
polygon's corner) switches its row at the instant found by bisection (the gap is C1 there: no impulse).

Integrators without a continuous stepper (RK4, ABM, Radau, BDF) advance output interval by output interval;
their "dense output" is a new integration from the interval's start to the time asked, so the events are found
on the integrator's own solution.

Energy: impacts' losses are added to the run's work W, and kinetic friction's power is part of the mode
system's non-conservative power (integrated into W with the state), so energy.total - work.nonconservative stays
flat across events; the losses are also reported on their own (``energy.dissipated.impact``,
``energy.dissipated.friction``, cumulative, the latter by 4-point Gauss-Legendre quadrature of the friction power
on each step's dense output). Events go to ``stats["events"]`` and the per-frame contact columns to
``stats["columns"]`` (docs/results-csv.md).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

from mechstudio.core.contact.contacts import ActiveSystem, ContactSet, PointMode
from mechstudio.core.contact.modes import (ModeFailure, Watch, event_values, impact, select_mode, watches)
from mechstudio.core.dynamics.correction import correct
from mechstudio.core.dynamics.base import get_formulation
from mechstudio.core.host.files import atomic_write_chunks
from mechstudio.core.run.frames import Frame, FrameBlock
from mechstudio.core.types import FloatArray, Status

#: events are located to this [s]
EVENT_XTOL = 1e-12
#: the event functions are evaluated at this many points of every step (its end included), and at least once per
#: output interval of a longer step (the integrator takes its natural steps, the samples lie on its dense output):
#: a gap that closes and opens again between two samples is missed (shapes thinner than the distance a body travels
#: between two samples can be passed through)
SAMPLES = 4
#: an event function at most this (relative to its size) at a bracket's start counts as starting at zero
ZERO_START = 1e-12
#: more events than this at one instant (within EVENT_XTOL) ends the run: a mode that cannot be resolved
MAX_EVENTS_AT_ONCE = 50
#: nodes and weights of 4-point Gauss-Legendre quadrature on [0, 1]
GAUSS_X, GAUSS_W = (0.5 * (np.polynomial.legendre.leggauss(4)[0] + 1.0), 0.5 * np.polynomial.legendre.leggauss(4)[1])
#: the mode of a group in the ``contact.<name>.state`` column
STATE_OPEN, STATE_STICK, STATE_SLIP, STATE_CLOSED = 0.0, 1.0, 2.0, 3.0


@dataclass
class ContactRun:
    """The event-driven part of a run's mutable data."""
    cset: ContactSet
    mode: list[PointMode] = field(default_factory=list)
    system: ActiveSystem | None = None
    watches: list[Watch] = field(default_factory=list)
    values: FloatArray = field(default_factory=lambda: np.zeros(0))  # event values at the step's start
    impact_loss: float = 0.0  # cumulative [J]
    friction_loss: float = 0.0  # cumulative up to friction_t [J]
    friction_t: float = 0.0
    events: list[dict[str, Any]] = field(default_factory=list)
    columns: dict[str, list[float]] = field(default_factory=dict)
    last_event_t: float = -math.inf
    at_once: int = 0
    dense: Callable[[float], FloatArray] | None = None  # of the current step
    step_t0: float = 0.0


class IntervalStepper:
    """A stepper over output intervals for the integrators without one (module docstring)."""

    def __init__(self, integ: Any, fun: Callable, t0: float, y0: FloatArray, times: FloatArray, eps: float):
        self.integ, self.fun, self.times, self.eps = integ, fun, times, eps
        self.t = self.t_old = float(t0)
        self.y = np.asarray(y0, float)
        self.y_old = self.y
        self.h = 0.0

    def step(self) -> tuple[bool, str]:
        k = int(np.searchsorted(self.times, self.t + self.eps, side="right"))
        t1 = float(self.times[min(k, len(self.times) - 1)])
        res = self.integ.advance(self.fun, self.t, self.y, t1)
        if not res.ok:
            return False, res.message
        self.t_old, self.y_old = self.t, self.y
        self.t, self.y, self.h = t1, res.y, t1 - self.t_old
        return True, ""

    def dense(self) -> Callable[[Any], FloatArray]:
        t0, y0, t1, y1 = self.t_old, self.y_old, self.t, self.y

        def at(t: Any) -> FloatArray:
            ts = np.atleast_1d(np.asarray(t, float))
            cols = []
            for tk in ts:
                if abs(tk - t1) <= 1e-15 * max(1.0, abs(t1)):
                    cols.append(y1)
                elif tk <= t0:
                    cols.append(y0)
                else:
                    res = self.integ.advance(self.fun, t0, y0, float(tk))
                    cols.append(res.y)
            out = np.array(cols).T
            return out[:, 0] if np.ndim(t) == 0 else out
        return at

    def set_state(self, y: FloatArray) -> None:
        self.y = np.asarray(y, float).copy()


class EventDriving:
    """The event-driven loop of :class:`~core.run.driver.Driver` (mixed into it; module docstring)."""

    contact: ContactRun | None = None

    # --- the mode: its system, formulation, integrator -------------------------------------------------------
    def _enter_mode(self, mode: list[PointMode], q: FloatArray, v: FloatArray, t: float, work: float) -> None:
        """Make ``mode`` current at (q, q', t): its system and formulation, the state projected onto its
        constraints, a new stepper, the event values at the start."""
        cr, st = self.contact, self.state
        cr.mode = mode
        cr.system = sys_ = ActiveSystem(cr.cset, mode)
        self.system = sys_
        opts = self.kernels.formulation_options(False)
        old = self.form
        self.form = get_formulation(self.settings.formulation)(sys_, **opts)
        if old is not None:
            rhs, svd = st.retired
            st.retired = (rhs + old.rhs_evaluations, svd + old.svd_count)
        st.phase = "projecting the state onto the contact mode"
        cr_ = correct(sys_, q, v, t)
        if not cr_.converged:
            raise ModeFailure(f"the state cannot be projected onto the contact mode at t = {t:.6g} s "
                              f"(||Phi|| = {cr_.position_after:.3g})")
        st.q, st.v, st.t, st.work = cr_.q, cr_.v, t, work
        st.y = self.form.restart(st.q, st.v, t)
        self.integ.reset()
        st.stepper = self._contact_stepper(t, st.y, work)
        st.accepted = (st.q, st.v, t, work)
        cr.watches = watches(cr.cset, mode)
        cr.values = event_values(sys_, cr.watches, st.q, st.v, t)
        cr.friction_t = t

    def _contact_stepper(self, t: float, y: FloatArray, work: float) -> Any:
        if self.integ.continuous:
            return self.integ.start(self.form.rhs_augmented, t, np.append(y, work), self.t_final)
        return IntervalStepper(self.integ, self.form.rhs_augmented, t, np.append(y, work), self.times, self.eps)

    # --- the loop ----------------------------------------------------------------------------------------------
    def _run_events(self) -> Iterator[FrameBlock]:
        st, cr = self.state, self.contact
        self.t_final = float(self.times[-1])
        n_out = self.settings.output_count
        while st.k <= n_out and st.t < self.t_final - self.eps:
            self._check_stop()
            t_old = st.stepper.t
            if not self._take_step():
                continue
            cr.dense, cr.step_t0 = st.stepper.dense(), t_old
            found = self._find_event(t_old, st.stepper.t)
            if found is None:
                if self.times[st.k] < st.stepper.t - self.eps:
                    yield from self._outputs_inside_step()
                frame = self._settle_step_end()
                self._friction_to(st.t)
                cr.values = event_values(cr.system, cr.watches, st.q, st.v, st.t)
                if frame is not None:
                    if self._keep(frame):
                        yield self._flush()
                    self._check_cancel()
                continue
            t_event, what = found
            if self.times[st.k] < t_event - self.eps:
                yield from self._outputs_inside_step(t_event)
            self._friction_to(t_event)
            y = np.asarray(cr.dense(t_event), float)
            self._handle_event(t_event, y, what)
            if st.k <= n_out and abs(self.times[st.k] - t_event) <= self.eps:
                st.k += 1
                frame = self._make_frame(st.q, st.v, float(self.times[st.k - 1]), st.work, 0.0, 0.0, 0.0, 0.0)
                if self._keep(frame):
                    yield self._flush()
                self._check_cancel()

    def _find_event(self, t0: float, t1: float) -> tuple[float, list[Any]] | None:
        """The earliest event in the step (t0, t1]: (time, what) or None."""
        cr = self.contact
        dense = cr.dense
        y1 = self.state.stepper.y
        q1, v1 = self.form.unpack(y1[:-1], t1)
        # the values at SAMPLES points of the step, at most an output interval apart (a fast, short crossing between
        # the step's ends is found too)
        count = max(SAMPLES, math.ceil((t1 - t0) / self.settings.dt * (1.0 - 1e-9)))
        ts = [t0 + (t1 - t0) * j / count for j in range(1, count)] + [t1]
        values = [cr.values]
        for tk in ts[:-1]:
            q, v = self.form.unpack(np.asarray(dense(tk), float)[:-1], tk)
            values.append(event_values(cr.system, cr.watches, q, v, tk))
        values.append(event_values(cr.system, cr.watches, q1, v1, t1))
        bracket = {}
        start = values[0].copy()
        start[np.abs(start) <= ZERO_START * np.maximum(1.0, np.abs(values[-1]))] = 0.0  # round-off at a switch
        values[0] = start
        for i in range(len(cr.watches)):
            for j in range(count):
                if values[j][i] >= 0.0 > values[j + 1][i]:
                    bracket[i] = ((t0, *ts)[j], ts[j])
                    break
        switched = self._feature_switch(q1)
        best: tuple[float, list[Any]] | None = None
        if bracket:
            # start-up time: scipy.optimize (0.17 s to import) only when a run has an event to locate
            from scipy.optimize import brentq
            self.state.phase = "locating a contact event"
            for i, (a, b) in bracket.items():
                def f(t: float, i: int = i) -> float:
                    q, v = self.form.unpack(np.asarray(dense(t), float)[:-1], t)
                    return float(event_values(cr.system, [cr.watches[i]], q, v, t)[0])
                fa = f(a)
                if fa <= ZERO_START * max(1.0, abs(float(values[-1][i]))):
                    # zero (or round-off below it) at the bracket's start, e.g. the gap right after a lift-off or
                    # a bounce: the crossing is where it comes back after being positive, if it ever was
                    a = self._positive_after(f, a, b)
                if a is None:
                    root = t0 if fa < 0.0 or bracket[i][0] == t0 else bracket[i][0]
                else:
                    root = brentq(f, a, b, xtol=EVENT_XTOL, rtol=4 * np.finfo(float).eps)
                if best is None or root < best[0] - EVENT_XTOL:
                    best = (root, [cr.watches[i]])
                elif abs(root - best[0]) <= EVENT_XTOL:
                    best[1].append(cr.watches[i])
        if switched:
            root = self._bisect_switch(t0, t1 if best is None else best[0], switched)
            if best is None or root < best[0] - EVENT_XTOL:
                best = (root, [("feature", k) for k in switched])
        return best

    @staticmethod
    def _positive_after(f: Callable[[float], float], a: float, b: float) -> float | None:
        """A time in (a, b) where f > 0 (halving towards a, then on a grid), or None."""
        for j in range(1, 41):
            t = a + (b - a) * 2.0 ** -j
            if t - a <= EVENT_XTOL:
                break
            if f(t) > 0.0:
                return t
        for t in np.linspace(a, b, 34)[1:-1]:
            if f(float(t)) > 0.0:
                return float(t)
        return None

    def _feature_switch(self, q: FloatArray) -> list[int]:
        """Closed pair points whose nearest feature at q is not their row's."""
        cr = self.contact
        out = []
        for k, pm in enumerate(cr.mode):
            if pm.closed and pm.row is not None and cr.cset.points[k].normal_row < 0:
                row = cr.cset.nearest(k, q)[1]
                if row is not None and row != pm.row:
                    out.append(k)
        return out

    def _bisect_switch(self, t0: float, t1: float, points: list[int]) -> float:
        cr, a, b = self.contact, t0, t1
        while b - a > EVENT_XTOL:
            mid = 0.5 * (a + b)
            q, _ = self.form.unpack(np.asarray(cr.dense(mid), float)[:-1], mid)
            if self._feature_switch(q):
                b = mid
            else:
                a = mid
        return b

    # --- at an event -------------------------------------------------------------------------------------------
    def _handle_event(self, t: float, y: FloatArray, what: list[Any]) -> None:
        st, cr = self.state, self.contact
        st.phase = "at a contact event"
        if t - cr.last_event_t <= EVENT_XTOL:
            cr.at_once += 1
            if cr.at_once > MAX_EVENTS_AT_ONCE:
                raise ModeFailure(f"more than {MAX_EVENTS_AT_ONCE} contact events at t = {t:.6g} s: the contact "
                                  "mode does not settle")
        else:
            cr.at_once = 0
        cr.last_event_t = t
        work = float(y[-1])
        q, v = self.form.unpack(y[:-1], t)
        fix = correct(cr.system, q, v, t)
        q, v = fix.q, fix.v
        opened: set[int] = set()
        slip: dict[int, float] = {}
        names = []
        for w in what:
            if isinstance(w, tuple):  # a feature switch of a closed pair point: a new row, nothing else
                names.append(("feature", cr.cset.points[w[1]].label, {}))
                continue
            if w.kind == "liftoff":
                opened.add(w.index)
                names.append(("liftoff", cr.cset.points[w.index].label, {}))
            elif w.kind == "slip":
                dyn = cr.system.dynamics(q, v, t)
                Ft = cr.system.tangential_forces(dyn)
                g = cr.cset.groups[w.index]
                ft = sum(Ft.get(k, 0.0) for k in g.points if cr.mode[k].closed)
                slip[w.index] = -math.copysign(1.0, ft)
                names.append(("slip", g.name, {"friction_N": ft}))
            elif w.kind == "stick":
                names.append(("stop", cr.cset.groups[w.index].name, {}))
        details: dict[str, Any] = {}
        if any(not isinstance(w, tuple) and w.kind == "impact" for w in what):
            res = impact(cr.cset, cr.mode, q, v, t)
            v = res.v
            work += res.change
            cr.impact_loss += res.dissipated
            for k, p in res.impulses.items():
                label = cr.cset.points[k].label
                names.append(("impact", label, {"impulse_Ns": p, "approach_speed": -res.approach[k],
                                                "energy_dissipated_J": res.dissipated}))
        previous = [PointMode(closed=pm.closed, stick=pm.stick, slip=pm.slip, c0=pm.c0,
                              row=None if any(isinstance(w, tuple) and w[1] == k for w in what) else pm.row)
                    for k, pm in enumerate(cr.mode)]
        mode = select_mode(cr.cset, previous, q, v, t, opened=frozenset(opened), slip=slip)
        for kind, name, extra in names:
            cr.events.append({"t": t, "kind": kind, "contact": name, **extra, **details})
        for gi, g in enumerate(cr.cset.groups):  # mode changes that no watched function named (after an impact)
            before, after = self._group_state(gi, cr.mode), self._group_state(gi, mode)
            if before != after and not any(n == g.name or n.startswith(g.name + ".") for _, n, _ in names):
                cr.events.append({"t": t, "kind": "mode", "contact": g.name, "state": after})
        self._enter_mode(mode, q, v, t, work)

    def _group_state(self, gi: int, mode: list[PointMode]) -> float:
        """The group's ``state`` column: open; stick when its closed points hold their tangential rows (also a
        unilateral rolling disk without friction data, which rolls without slipping while it touches: its rolling
        row carries the friction it needs); slip; closed without friction (no tangential row: a cam, a
        frictionless pair)."""
        cr = self.contact
        g = cr.cset.groups[gi]
        closed = [k for k in g.points if mode[k].closed]
        if not closed:
            return STATE_OPEN
        if mode[closed[0]].stick:
            return STATE_STICK
        return STATE_SLIP if g.frictional else STATE_CLOSED

    # --- dissipation and columns ---------------------------------------------------------------------------------
    def _friction_to(self, t: float) -> None:
        """Add the friction loss from ``friction_t`` to t (on the current step's dense output)."""
        cr = self.contact
        a = cr.friction_t
        if t <= a or not cr.system.slipping:
            cr.friction_t = max(t, a)
            return
        cr.friction_loss += self._friction_integral(a, t)
        cr.friction_t = t

    def _friction_integral(self, a: float, b: float) -> float:
        """The friction loss [J] from a to b on the current step's dense output: 4-point Gauss-Legendre quadrature
        on pieces at most an output interval long (the integrator's steps can be longer)."""
        pieces = max(1, math.ceil((b - a) / self.settings.dt * (1.0 - 1e-9)))
        return sum(self._friction_piece(a + (b - a) * j / pieces, a + (b - a) * (j + 1) / pieces)
                   for j in range(pieces))

    def _friction_piece(self, a: float, b: float) -> float:
        cr = self.contact
        total = 0.0
        for x, w in zip(GAUSS_X, GAUSS_W):
            tk = a + (b - a) * x
            q, v = self.form.unpack(np.asarray(cr.dense(tk), float)[:-1], tk)
            total -= w * cr.system.friction_power(q, v, tk)
        return total * (b - a)

    def _contact_columns(self, frame: Frame) -> None:
        """Append the frame's contact columns (docs/results-csv.md) to ``stats["columns"]``."""
        cr = self.contact
        sys_ = cr.system
        q, v, t = frame.q, frame.v, frame.t
        dyn = sys_.dynamics(q, v, t)
        N, Ft = sys_.normal_forces(dyn), sys_.tangential_forces(dyn)
        cols = cr.columns
        if sys_.slipping and cr.dense is not None and cr.friction_t < t:
            self._friction_to(t)  # the frames come in time order: the loss accumulates from frame to frame
        loss_f = cr.friction_loss
        for gi, g in enumerate(cr.cset.groups):
            if g.kind == "joint":  # joint friction: the friction and the mode next to the joint's reaction
                cols.setdefault(f"reaction.{g.name}.friction", []).append(sum(Ft.get(k, 0.0) for k in g.points))
                cols.setdefault(f"reaction.{g.name}.state", []).append(self._group_state(gi, cr.mode))
                continue
            gap = min(cr.cset.nearest(k, q)[0] if cr.cset.points[k].normal_row < 0
                      else float(cr.cset.base_phi(q, t)[cr.cset.points[k].normal_row]) for k in g.points)
            values = {"gap": min(gap, 1e300), "normal": sum(N.get(k, 0.0) for k in g.points),
                      "friction": sum(Ft.get(k, 0.0) for k in g.points), "state": self._group_state(gi, cr.mode)}
            if g.kind == "pair":
                values.update(zip(("Fx", "Fy", "Mz"), sys_.pair_force(gi, q, v, t, dyn)))
            for part, value in values.items():
                cols.setdefault(f"contact.{g.name}.{part}", []).append(float(value))
        cols.setdefault("energy.dissipated.impact", []).append(cr.impact_loss)
        cols.setdefault("energy.dissipated.friction", []).append(loss_f)

    def _contact_stats(self) -> None:
        cr = self.contact
        if cr is None:
            return
        self.state.stats["events"] = list(cr.events)
        self.state.stats["columns"] = {k: np.asarray(v, float) for k, v in cr.columns.items()}
        self.state.stats["contact_events"] = len(cr.events)
        self.system = cr.cset.base


def events_path(csv_path: str) -> str:
    """Where the events of the results ``csv_path`` go: ``results.csv`` -> ``results.events.csv``."""
    stem = csv_path[:-4] if csv_path.lower().endswith(".csv") else csv_path
    return f"{stem}.events.csv"


def write_events_csv(path: str, events: list[dict[str, Any]]) -> None:
    """The events of a run (docs/results-csv.md, "Contact events") as CSV, atomically: t (full precision), kind,
    contact, and the remaining keys as ``key=value`` pairs separated by ``;``."""
    lines = ["t,kind,contact,details\n"]
    for ev in events:
        details = ";".join(f"{k}={v!r}" if not isinstance(v, float) else f"{k}={v:.17g}"
                           for k, v in ev.items() if k not in ("t", "kind", "contact"))
        lines.append(f"{ev['t']:.17g},{ev['kind']},{ev['contact']},{details}\n")
    atomic_write_chunks(path, lines)


__all__ = ["ContactRun", "EVENT_XTOL", "EventDriving", "IntervalStepper", "MAX_EVENTS_AT_ONCE", "events_path",
           "write_events_csv"]
