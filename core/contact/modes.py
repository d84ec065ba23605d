"""Contact events: which mode holds at a state, the impact map, and the event functions watched between events
(docs/contact.md, "Method").

* :func:`select_mode` -- the mode at a state: a point is closed when it touches (gap <= GAP_TOL) and does not
  separate (normal velocity <= SPEED_TOL); a frictional group sticks when its slip velocity vanishes (<= SPEED_TOL)
  and the friction it then needs satisfies |F_t| <= mu_s N, else it slips against the friction it needed; a
  closed point whose normal force comes out negative is opened (the most negative first) and the mode solved
  again. A sticking joint (joint friction) whose stick row the mode cannot satisfy slips in the direction of its
  relative acceleration (:func:`_forced_motion`). Events may force a choice (a lift-off opens its point; a
  stick-to-slip event makes its group slip).
* :func:`impact` -- Newton's restitution law at a closing contact: with the points that touch (the closing one and
  those already closed) released and every other row of the mode kept as a bilateral constraint C_b, the
  impulses P >= 0 solve the LCP

      w = W P + b,   W = G K G^T,   b = G v- + e min(G v-, 0),   K = N (N^T M N)^-1 N^T,             (1)

  (N a basis of null(C_b), G the touching points' normal rows), so that the normal velocities after the impact
  are G v+ = w >= -e G v-, with P_k w_k = 0 (a point with an impulse leaves at -e times its approach speed; one
  without it leaves faster); v+ = v- + K G^T P. Impacts slower than REST_SPEED are plastic (e = 0): a bouncing
  body comes to rest after finitely many events instead of accumulating infinitely many (Zeno). Impulses are
  frictionless (tangential impulses are not modelled; the friction mode after the impact follows from the new
  velocities).
* :func:`event_values` -- the functions whose sign changes are the events: an open point's gap (closing: an
  impact), a closed point's normal force (lift-off), a slipping group's slip velocity times its direction
  (slip -> stick or reversal), a sticking group's margin mu_s N - |F_t| (stick -> slip).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mechstudio.core.contact.contacts import ActiveSystem, ContactSet, ModeFailure, PointMode, PointRows
from mechstudio.core.contact.lcp import solve_lcp
from mechstudio.core.types import FloatArray

#: a point touches when its gap is at most this [m] (events are located to 1e-10 s: the gap there is below
#: 1e-9 m at speeds below 10 m/s)
GAP_TOL = 1e-8
#: normal and slip velocities below this [m/s] count as zero when the mode is chosen
SPEED_TOL = 1e-7
#: impacts slower than this [m/s] are plastic (e = 0): the end of a sequence of bounces (module docstring)
REST_SPEED = 1e-3
#: a normal force below -FORCE_TOL times the largest applied generalized force (and 1 N) is a pull: the point opens
FORCE_TOL = 1e-9
#: a mode's solve with a relative residual above this has rows that cannot all hold (a consistent one leaves
#: ~1e-16): a sticking joint there slips
STICK_TOL = 1e-8
#: a value of an open point's gap above this [m] is clipped in the event functions (out of reach: never closes)
FAR = 1e6


def _rows_all(cset: ContactSet, mode: list[PointMode], q: FloatArray, v: FloatArray, t: float) -> list[PointRows]:
    base = cset.base_arrays(q, v, t) if cset.managed else None
    return [cset.rows(k, pm, q, v, t, base) for k, pm in enumerate(mode)]


def select_mode(cset: ContactSet, previous: list[PointMode], q: FloatArray, v: FloatArray, t: float, *,
                opened: frozenset[int] = frozenset(), slip: dict[int, float] | None = None) -> list[PointMode]:
    """The mode at (q, q', t) (module docstring); ``opened``: points forced open, ``slip``: groups forced to slip
    in the given direction (+-1)."""
    slip = dict(slip or {})
    free_rows = _rows_all(cset, [replace(pm, row=None) if not pm.closed else pm for pm in previous], q, v, t)
    mode: list[PointMode] = []
    for k, p in enumerate(cset.points):
        g = cset.groups[p.group]
        r = free_rows[k]
        vn = float(r.gn @ v)
        touching = (not g.unilateral) or (k not in opened and r.gap <= GAP_TOL and vn <= SPEED_TOL)
        if not touching:
            mode.append(PointMode())
            continue
        row = previous[k].row if previous[k].closed and previous[k].row is not None else None
        if p.normal_row < 0 and row is None and p.joint is None:
            row = cset.nearest(k, q)[1]
        mode.append(PointMode(closed=True, row=row))
    scale = max(1.0, float(np.max(np.abs(cset.base.forces(q, v, t)), initial=0.0)))
    for _ in range(4 * len(cset.points) + 4):
        mode = _friction_modes(cset, mode, q, v, t, slip)
        sys_ = ActiveSystem(cset, mode)
        dyn = sys_.dynamics(q, v, t)
        N = sys_.normal_forces(dyn)
        pulls = {k: f for k, f in N.items() if cset.groups[cset.points[k].group].unilateral
                 and f < -FORCE_TOL * scale}
        if pulls:
            k = min(pulls, key=pulls.get)
            mode[k] = PointMode()
            continue
        Ft = sys_.tangential_forces(dyn)
        changed = False
        for gi, g in enumerate(cset.groups):
            closed = [k for k in g.points if mode[k].closed]
            if not g.frictional or not closed or not mode[closed[0]].stick:
                continue
            if g.kind == "joint":
                forced = _forced_motion(dyn, closed[0])
                if forced:  # the mechanism moves the joint on: it cannot stick (docs/contact.md)
                    slip[gi] = forced
                    changed = True
                    continue
            ft = sum(Ft.get(k, 0.0) for k in closed)
            ns = sum(N.get(k, 0.0) for k in closed)
            if abs(ft) > g.mu_s * ns * (1.0 + 1e-12) + FORCE_TOL * scale:
                slip[gi] = -math.copysign(1.0, ft)
                changed = True
        if not changed:
            return mode
    raise ModeFailure(f"no consistent contact mode found at t = {t:.6g} s (the normal and friction forces keep "
                      "changing the closed set)")


def _forced_motion(dyn: Any, k: int) -> float:
    """A sticking joint whose stick row the mode cannot satisfy (the mode's solve leaves a residual: its relative
    acceleration s'' = G q'' + b is fixed by the other rows, e.g. a slider-crank's slider at a dead centre, where its
    velocity is zero but its acceleration is not): the sign of that s'' (the direction it slips in); 0 when it can
    stick."""
    if dyn.residual <= STICK_TOL:
        return 0.0
    r = dyn.rows[k]
    acc = float(r.gs @ dyn.qdd) + r.bs
    return math.copysign(1.0, acc) if acc != 0.0 else 0.0


def _friction_modes(cset: ContactSet, mode: list[PointMode], q: FloatArray, v: FloatArray, t: float,
                    slip: dict[int, float]) -> list[PointMode]:
    """Stick or slip for every closed point (module docstring); the stick rows' offsets c0 at q."""
    rows = _rows_all(cset, mode, q, v, t)
    out = list(mode)
    for gi, g in enumerate(cset.groups):
        closed = [k for k in g.points if mode[k].closed]
        if not closed:
            continue
        has_tangent = [cset.points[k].tangent_row >= 0 or cset.points[k].normal_row < 0 for k in closed]
        if not g.frictional:
            for k, ht in zip(closed, has_tangent):  # frictionless, or a disk that always rolls
                stick = ht and cset.points[k].tangent_row >= 0
                out[k] = replace(mode[k], stick=stick, slip=0.0, c0=rows[k].stick if stick else 0.0)
            continue
        vts = [float(rows[k].gt @ v) for k in closed]
        fastest = max(vts, key=abs)
        if gi in slip or abs(fastest) > SPEED_TOL:
            direction = slip.get(gi, math.copysign(1.0, fastest))
            for k, vt in zip(closed, vts):
                s = math.copysign(1.0, vt) if abs(vt) > SPEED_TOL else direction
                out[k] = replace(mode[k], stick=False, slip=s, c0=0.0)
        else:
            for k in closed:
                out[k] = replace(mode[k], stick=True, slip=0.0, c0=rows[k].stick)
    return out


@dataclass(frozen=True)
class ImpactResult:
    """The velocities after an impact, the impulses [N s] of the touching points, the change of the kinetic energy
    [J] and the energy dissipated in the contacts [J], sum P_k (v-_n,k + v+_n,k) / 2 with the sign reversed (the
    impulses' work on the relative normal velocities; the rest of the change is the work of the impulses of
    rheonomic constraints, e.g. a driven cam's motor)."""
    v: FloatArray
    impulses: dict[int, float]
    approach: dict[int, float]  # normal velocity before the impact [m/s] (negative: closing)
    change: float
    dissipated: float


def impact(cset: ContactSet, mode: list[PointMode], q: FloatArray, v: FloatArray, t: float) -> ImpactResult:
    """Eq. (1) of the module docstring at (q, q'-, t); :class:`ModeFailure` when the LCP has no solution."""
    rows = _rows_all(cset, [replace(pm, row=None) for pm in mode], q, v, t)
    touching = [k for k, p in enumerate(cset.points) if cset.groups[p.group].unilateral and rows[k].gap <= GAP_TOL]
    if not touching:
        return ImpactResult(v, {}, {}, 0.0, 0.0)
    released = [PointMode() if k in touching else pm for k, pm in enumerate(mode)]
    sys_ = ActiveSystem(cset, released)
    M = sys_.mass_matrix(q, t)
    Cb = sys_.constraint_matrix(q, t)
    n = cset.base.n
    if Cb.shape[0]:
        _, s, Vt = np.linalg.svd(Cb)
        rank = int(np.sum(s > 1e-10 * max(s[0], 1e-300)))
        N = Vt[rank:].T
    else:
        N = np.eye(n)
    K = N @ np.linalg.solve(N.T @ M @ N, N.T)
    G = np.array([rows[k].gn for k in touching])
    vn = G @ v
    e = np.array([cset.groups[cset.points[k].group].restitution if -vn[i] > REST_SPEED else 0.0
                  for i, k in enumerate(touching)])
    W = G @ K @ G.T
    b = vn + e * np.minimum(vn, 0.0)
    res = solve_lcp(W, b)
    if not res.ok:
        raise ModeFailure(f"the impact at t = {t:.6g} s has no solution: {res.message}")
    v_plus = v + K @ (G.T @ res.z)
    change = 0.5 * float(v_plus @ M @ v_plus - v @ M @ v)
    dissipated = -float(res.z @ (0.5 * (vn + G @ v_plus)))
    return ImpactResult(v_plus, {k: float(res.z[i]) for i, k in enumerate(touching)},
                        {k: float(vn[i]) for i, k in enumerate(touching)}, change, dissipated)


@dataclass(frozen=True)
class Watch:
    """One event function: ``kind`` (impact, liftoff, stick, slip) of point or group ``index``."""
    kind: str
    index: int


def watches(cset: ContactSet, mode: list[PointMode]) -> list[Watch]:
    """The event functions of a mode (module docstring)."""
    out = []
    for k, (p, pm) in enumerate(zip(cset.points, mode)):
        g = cset.groups[p.group]
        if not pm.closed:
            out.append(Watch("impact", k))
        elif g.unilateral:
            out.append(Watch("liftoff", k))
    for gi, g in enumerate(cset.groups):
        closed = [k for k in g.points if mode[k].closed]
        if g.frictional and closed:
            out.append(Watch("slip" if mode[closed[0]].stick else "stick", gi))
    return out


def event_values(sys_: ActiveSystem, ws: list[Watch], q: FloatArray, v: FloatArray, t: float) -> FloatArray:
    """The value of every watched function at (q, q', t) (positive while nothing happens)."""
    cset, mode = sys_.cset, sys_.mode
    forces = any(w.kind != "impact" for w in ws)
    dyn = sys_.dynamics(q, v, t) if forces else None
    N = sys_.normal_forces(dyn) if forces else {}
    Ft = sys_.tangential_forces(dyn) if any(w.kind == "slip" for w in ws) else {}
    out = np.empty(len(ws))
    for i, w in enumerate(ws):
        if w.kind == "impact":
            p = cset.points[w.index]
            gap = (cset.nearest(w.index, q)[0] if p.normal_row < 0
                   else float(cset.base_phi(q, t)[p.normal_row]))
            out[i] = min(gap, FAR)
        elif w.kind == "liftoff":
            out[i] = N[w.index]
        else:
            g = cset.groups[w.index]
            closed = [k for k in g.points if mode[k].closed]
            if w.kind == "slip":
                out[i] = g.mu_s * sum(N[k] for k in closed) - abs(sum(Ft.get(k, 0.0) for k in closed))
            else:
                out[i] = min(mode[k].slip * float(dyn.rows[k].gt @ v) for k in closed)
    return out


__all__ = ["FORCE_TOL", "GAP_TOL", "ImpactResult", "ModeFailure", "REST_SPEED", "SPEED_TOL", "Watch", "event_values",
           "impact", "select_mode", "watches"]
