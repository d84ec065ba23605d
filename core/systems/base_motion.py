"""The prescribed motion of body 0 ([004]: "the motion of body 0 is known: r0(t), omega0(t)").

From the model file's ``ground.motion``:

* r0(t) = position(t) + velocity t + acceleration t^2/2 (each part optional, default 0) [m];
* omega0(t) = angular_velocity(t), world components [rad/s] (default 0). The base orientation A0(t)
  (A0(0) = E) solves A0' = omega0~ A0: in closed form (Rodrigues) when omega0 is constant, otherwise by a
  high-accuracy integration (DOP853, rtol 1e-13) cached on a grid and extended on demand.

A point c of body 0 (base-frame components, e.g. a ground joint point) is at r0 + A0 c, with velocity
r0' + omega0 x (A0 c) and acceleration r0'' + omega0' x A0 c + omega0 x (omega0 x A0 c).

For the compiled right-hand side (``mechstudio.core.dynamics.wittenburg_kernels``) :meth:`BaseMotion.kernel_tables`
writes r0(t) as sums of powers and sines, r0_i(t) = sum_k c_ik t^k + sum_h a_h sin(f_h t + phi_h), with a constant
omega0 (A0(t) in closed form): every r0 given by numbers, ``constant_speed``, ``polynomial``, ``harmonic`` functions,
``velocity`` and ``acceleration``, and expressions that are such sums (cos x = sin(x + pi/2)). Anything else (a
product of t and a sine, a time-varying omega0) has no table: the base is then evaluated here, once per
right-hand side.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy.integrate import solve_ivp

from mechstudio.core.model.timefunc import TimeFunction, time_function
from mechstudio.core.types import FloatArray

#: a power series of r0(t) in a kernel table has at most this many terms (t^0 .. t^(MAX_POWERS - 1))
MAX_POWERS = 16


def sine_sum(f: TimeFunction) -> tuple[dict[int, float], list[tuple[float, float, float]]] | None:
    """f(t) as ({k: c_k}, [(a, freq, phase)]) with f = sum_k c_k t^k + sum a sin(freq t + phase), or None when
    f is not such a sum (module docstring). Exact rewriting of the expression tree: no fitting."""
    import sympy as sp  # time functions are sympy expressions already (timefunc imports it on first use)

    from mechstudio.core.model.timefunc import T as TIME  # the symbol needs sympy: see the line above
    if any(not (p.exp.is_number and abs(p.exp) < MAX_POWERS) for p in f.expr.atoms(sp.Pow)):
        return None  # a high or symbolic power: no expansion (its series would exceed the table anyway)
    powers: dict[int, float] = {}
    sines: list[tuple[float, float, float]] = []
    for term in sp.Add.make_args(sp.expand(f.expr, trig=False)):
        coeff, rest = term.as_coeff_Mul()
        if not coeff.is_number:
            return None
        c = float(coeff)
        if rest == 1:
            powers[0] = powers.get(0, 0.0) + c
            continue
        base, exp = rest.as_base_exp()
        if base == TIME and exp.is_Integer and 0 < int(exp) < MAX_POWERS:
            powers[int(exp)] = powers.get(int(exp), 0.0) + c
            continue
        if isinstance(rest, (sp.sin, sp.cos)) and rest.args[0].is_polynomial(TIME):
            poly = sp.Poly(rest.args[0], TIME)
            if poly.degree() != 1 or not all(x.is_number for x in poly.all_coeffs()):
                return None
            freq, phase = (float(x) for x in poly.all_coeffs())
            sines.append((c, freq, phase + (np.pi / 2 if isinstance(rest, sp.cos) else 0.0)))
            continue
        return None
    return powers, sines


def _rodrigues(w: FloatArray, t: float) -> FloatArray:
    phi = w * t
    ang = float(np.linalg.norm(phi))
    K = np.array([[0, -phi[2], phi[1]], [phi[2], 0, -phi[0]], [-phi[1], phi[0], 0]])
    if ang < 1e-8:
        return np.eye(3) + K + 0.5 * K @ K
    return np.eye(3) + np.sin(ang) / ang * K + (1 - np.cos(ang)) / ang ** 2 * K @ K


class BaseMotion:
    """r0(t), omega0(t), A0(t) and their derivatives (see module docstring)."""

    def __init__(self, spec: dict[str, Any] | None):
        spec = dict(spec or {})
        self.pos = [time_function(s) for s in spec.get("position", [0.0, 0.0, 0.0])]
        self.vel = np.asarray(spec.get("velocity", [0.0, 0.0, 0.0]), float)
        self.acc = np.asarray(spec.get("acceleration", [0.0, 0.0, 0.0]), float)
        self.omega = [time_function(s) for s in spec.get("angular_velocity", [0.0, 0.0, 0.0])]
        self.translating = (not all(f.is_constant for f in self.pos) or bool(np.any(self.vel))
                            or bool(np.any(self.acc)))
        self.omega_constant = all(f.is_constant for f in self.omega)
        self.rotating = not (self.omega_constant and all(f.value(0.0) == 0.0 for f in self.omega))
        self.moving = self.translating or self.rotating
        self._w0 = np.array([f.value(0.0) for f in self.omega])
        self._grid: list[tuple[float, float, Any]] = []  # (t_start, t_end, dense output)
        self._t_cov = 0.0
        self._A_cov = np.eye(3)
        self._tables: tuple | None = None  # (kernel_tables(),) once built

    def r(self, t: float) -> FloatArray:
        if not self.translating:
            return np.array([f.value(0.0) for f in self.pos])
        return np.array([f.value(t) for f in self.pos]) + self.vel * t + 0.5 * self.acc * t * t

    def r_dot(self, t: float) -> FloatArray:
        if not self.translating:
            return np.zeros(3)
        return np.array([f.rate(t) for f in self.pos]) + self.vel + self.acc * t

    def r_ddot(self, t: float) -> FloatArray:
        if not self.translating:
            return np.zeros(3)
        return np.array([f.accel(t) for f in self.pos]) + self.acc

    def w(self, t: float) -> FloatArray:
        if self.omega_constant:
            return self._w0
        return np.array([f.value(t) for f in self.omega])

    def w_dot(self, t: float) -> FloatArray:
        if self.omega_constant:
            return np.zeros(3)
        return np.array([f.rate(t) for f in self.omega])

    def A(self, t: float) -> FloatArray:
        if not self.rotating:
            return np.eye(3)
        if self.omega_constant:
            return _rodrigues(self._w0, t)
        return self._integrated(t)

    def _integrated(self, t: float) -> FloatArray:
        if t < 0:
            raise ValueError("the base orientation is defined for t >= 0")
        while t > self._t_cov:
            t0, t1 = self._t_cov, self._t_cov + 1.0

            def f(tt: float, y: FloatArray) -> FloatArray:
                W = self.w(tt)
                K = np.array([[0, -W[2], W[1]], [W[2], 0, -W[0]], [-W[1], W[0], 0]])
                return (K @ y.reshape(3, 3)).ravel()

            sol = solve_ivp(f, (t0, t1), self._A_cov.ravel(), method="DOP853", rtol=1e-13, atol=1e-14,
                            dense_output=True)
            self._grid.append((t0, t1, sol.sol))
            self._A_cov = sol.y[:, -1].reshape(3, 3)
            self._t_cov = t1
        for t0, t1, s in self._grid:
            if t0 <= t <= t1:
                return s(t).reshape(3, 3)
        return np.eye(3)  # pragma: no cover

    def kernel_tables(self) -> tuple[FloatArray, FloatArray, FloatArray] | None:
        """(powers (3, MAX_POWERS): c_ik, sines (h, 4): rows (component i, a, freq, phase), omega0 (3,)) of
        r0(t) = position(t) + velocity t + acceleration t^2 / 2 and a constant omega0 (module docstring), or
        None when the motion has no such table. Built once (sympy), then shared."""
        if self._tables is None:
            self._tables = (self._build_tables(),)
        return self._tables[0]

    def _build_tables(self) -> tuple[FloatArray, FloatArray, FloatArray] | None:
        if not self.omega_constant:
            return None
        powers = np.zeros((3, MAX_POWERS))
        sines = []
        for i, f in enumerate(self.pos):
            got = sine_sum(f)
            if got is None:
                return None
            for k, c in got[0].items():
                powers[i, k] += c
            sines += [(float(i), a, fr, ph) for a, fr, ph in got[1]]
        if self.translating:
            powers[:, 1] += self.vel
            powers[:, 2] += 0.5 * self.acc
        return powers, np.array(sines, float).reshape(-1, 4), np.array(self._w0, float)

    def point(self, c: FloatArray, t: float) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Position, velocity and acceleration of base-frame points c (k, 3)."""
        c = np.atleast_2d(c)
        r, v, a = self.r(t), self.r_dot(t), self.r_ddot(t)
        if not self.rotating:
            return r + c, np.broadcast_to(v, c.shape).copy(), np.broadcast_to(a, c.shape).copy()
        A, w, wd = self.A(t), self.w(t), self.w_dot(t)
        s = c @ A.T
        ws = np.cross(w, s)
        return r + s, v + ws, a + np.cross(wd, s) + np.cross(w, ws)
