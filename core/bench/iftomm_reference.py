"""Reference solutions of the benchmark problems, each independent of the multibody solver.

* A01 simple pendulum: exact solution with Jacobi elliptic functions. theta = angle of the link from the
  downward vertical, k = sin(theta0 / 2), omega0 = sqrt(g / L):  sin(theta / 2) = k sn(K(k) - omega0 t; k)
  (sn(K) = 1 gives theta(0) = theta0, and theta'(0) = 0). Position of the mass (L sin theta, -L cos theta).
* A02 N four-bar: on the parallelogram branch every crank has the same angle theta (from +x) and every coupler
  translates, so the motion has one degree of freedom and conserves
      E = 1/2 I theta'^2 + P sin theta,  I = m L^2 ((N + 1)/3 + N),  P = m g L ((N + 1)/2 + N).
  Since E > P the cranks revolve and theta' = -sqrt(2 (E - P sin theta) / I) never vanishes: this
  first-order ODE is integrated at rtol 1e-13 (dense output); the test cross-checks it against the quadrature
  t(theta) = int_theta^theta0 dtheta / |theta'| and against I theta'' = -P cos theta.
* Stiff four-bar: one degree of freedom (crank angle theta) with the closed-form position analysis, velocity
  and acceleration analysis of the loop, and the equation of motion by virtual power
      J(theta)^T M (J theta'' + a0) = J^T F,  J = d(body coordinates)/d theta,
  integrated with Radau at rtol 1e-12.
* Andrews: the published values (Test Set for IVP Solvers, PSIDE at rtol = atol = 1e-14).
"""
from __future__ import annotations

import math
import numpy as np
from scipy import integrate, special

# --- A01 --------------------------------------------------------------------------------------------------------


def pendulum_exact(t: np.ndarray, L: float = 1.0, g: float = 9.81, theta0: float = math.pi / 2
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) of the mass at times t for the pendulum released at rest from theta0 (from the downward vertical;
    theta0 = pi/2: horizontal, x = +L)."""
    t = np.asarray(t, float)
    k = math.sin(theta0 / 2)
    m = k * k
    K = special.ellipk(m)
    w0 = math.sqrt(g / L)
    sn, cn, dn, _ = special.ellipj(K - w0 * t, m)
    s = k * sn  # sin(theta/2)
    c = np.sqrt(np.maximum(1 - s * s, 0.0))  # cos(theta/2) >= 0 (|theta| <= theta0 <= pi)
    sin_t = 2 * s * c
    cos_t = 1 - 2 * s * s
    return L * sin_t, -L * cos_t


def pendulum_period(L: float = 1.0, g: float = 9.81, theta0: float = math.pi / 2) -> float:
    return 4 * special.ellipk(math.sin(theta0 / 2) ** 2) / math.sqrt(g / L)


# --- A02 --------------------------------------------------------------------------------------------------------


class NFourBarReference:
    """theta(t), theta'(t) of the N four-bar (see module docstring); B0 = (L cos theta, L sin theta)."""

    def __init__(self, N: int, m: float = 1.0, L: float = 1.0, g: float = 9.81, vx0: float = 1.0):
        self.N, self.L = N, L
        self.I = m * L * L * ((N + 1) / 3 + N)
        self.P = m * g * L * ((N + 1) / 2 + N)
        self.theta0 = math.pi / 2
        self.w0 = -vx0 / L  # x' of B0 = -L sin(theta) theta' = vx0 at theta = pi/2
        self.E = 0.5 * self.I * self.w0 ** 2 + self.P * math.sin(self.theta0)
        if self.E <= self.P:
            raise ValueError("the cranks do not revolve for these data")
        self._sol = None

    def speed(self, theta: np.ndarray | float) -> np.ndarray | float:
        return np.sqrt(2 * (self.E - self.P * np.sin(theta)) / self.I)

    def _t_of(self, theta: float) -> float:
        """Time at which the (decreasing) angle reaches theta <= theta0, by quadrature of dt = dtheta / |theta'|."""
        f = lambda th: 1.0 / self.speed(th)  # noqa: E731
        total, th_hi = 0.0, self.theta0
        while th_hi - theta > 1e-15:
            lo = max(theta, th_hi - math.pi / 2)  # piece by piece: smooth integrand, tight error
            val, _ = integrate.quad(f, lo, th_hi, epsabs=1e-14, epsrel=1e-13, limit=200)
            total += val
            th_hi = lo
        return total

    def _dense(self, t_end: float):
        if getattr(self, "_sol", None) is None or self._sol.t_max < t_end:
            # theta' = -sqrt(2 (E - P sin theta) / I): the energy integral as a first-order ODE (no turning
            # point since E > P), integrated at rtol 1e-13 with dense output
            self._sol = integrate.solve_ivp(lambda t, y: [-self.speed(y[0])], (0.0, max(t_end, 1.0) * 1.01),
                                            [self.theta0], method="DOP853", rtol=1e-13, atol=1e-14,
                                            dense_output=True)
            self._sol.t_max = self._sol.t[-1]
        return self._sol

    def theta(self, t: float) -> float:
        return float(self.state(np.array([t]))[0][0])

    def state(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = np.atleast_1d(np.asarray(t, float))
        th = self._dense(float(t.max())).sol(t)[0]
        return th, -self.speed(th)

    def time_of(self, theta: float) -> float:
        """Independent check: t(theta) by quadrature (theta0 - 2 pi <= theta <= theta0 gives one revolution)."""
        return self._t_of(theta)

    def point_b0(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Position (n, 2) and velocity (n, 2) of B0, the top of the first crank (= first coupler point)."""
        th, w = self.state(t)
        L = self.L
        pos = np.column_stack((L * np.cos(th), L * np.sin(th)))
        vel = np.column_stack((-L * np.sin(th) * w, L * np.cos(th) * w))
        return pos, vel

    def ode_check(self, t_end: float) -> float:
        """theta(t_end) by integrating I theta'' = -P cos theta at rtol 1e-13 (a cross-check)."""
        sol = integrate.solve_ivp(lambda t, y: [y[1], -self.P * math.cos(y[0]) / self.I], (0, t_end),
                                  [self.theta0, self.w0], method="DOP853", rtol=1e-13, atol=1e-14)
        return float(sol.y[0, -1])


# --- stiff four-bar -------------------------------------------------------------------------------------------


def fourbar_closed_form(theta: float, a: float = 1.0, b: float = 3.5, c: float = 3.0, d: float = 4.0
                        ) -> tuple[float, float, float]:
    """(crank, coupler, rocker) absolute angles of the four-bar O(0,0)-A-B-D(d,0) for crank angle theta, on the
    branch with B on the left of A -> D (the assembly of four_bar.json)."""
    Ax, Ay = a * math.cos(theta), a * math.sin(theta)
    rx, ry = d - Ax, -Ay
    r = math.hypot(rx, ry)
    psi = math.atan2(ry, rx)
    alpha = math.acos((b * b + r * r - c * c) / (2 * b * r))
    phi2 = psi + alpha
    Bx, By = Ax + b * math.cos(phi2), Ay + b * math.sin(phi2)
    phi3 = math.atan2(By, Bx - d)
    return theta, phi2, phi3


class StiffFourBarReference:
    """The stiff four-bar in its crank angle (module docstring)."""

    def __init__(self, data: dict):
        self.d = data
        mu = data["mass_per_length"]
        self.len = np.array([data["crank"], data["coupler"], data["rocker"]])
        self.m = mu * self.len
        self.J = self.m * self.len ** 2 / 12

    def kin(self, th: float, w: float) -> dict[str, np.ndarray]:
        a, b, c, dd = self.len[0], self.len[1], self.len[2], self.d["ground"]
        _, p2, p3 = fourbar_closed_form(th, a, b, c, dd)
        e = lambda x: np.array([math.cos(x), math.sin(x)])  # noqa: E731
        n = lambda x: np.array([-math.sin(x), math.cos(x)])  # noqa: E731
        # velocity loop: a w n(th) + b w2 n(p2) - c w3 n(p3) = 0 -> [b n2, -c n3] [w2; w3] = -a w n1
        Amat = np.column_stack((b * n(p2), -c * n(p3)))
        g1 = np.linalg.solve(Amat, -a * n(th))  # dw2/dw, dw3/dw (angle rates per unit crank rate)
        w2, w3 = g1 * w
        # acceleration loop: a al n1 - a w^2 e1 + b al2 n2 - b w2^2 e2 - c al3 n3 + c w3^2 e3 = 0
        rhs0 = a * w * w * e(th) + b * w2 * w2 * e(p2) - c * w3 * w3 * e(p3)
        g0 = np.linalg.solve(Amat, rhs0)  # (al2, al3) = g1 * al + g0
        A = a * e(th)
        B = A + b * e(p2)
        # centre-of-mass velocities per unit crank rate, and their velocity-dependent acceleration terms
        vA = a * n(th)  # per unit w
        vB = vA + b * n(p2) * g1[0]
        cm = [A / 2, (A + B) / 2, (np.array([dd, 0.0]) + B) / 2]
        Jv = [vA / 2, (vA + vB) / 2, vB / 2]  # d(cm)/d(theta)
        aA0 = -a * w * w * e(th)
        aB0 = aA0 + b * n(p2) * g0[0] - b * w2 * w2 * e(p2)
        acm0 = [aA0 / 2, (aA0 + aB0) / 2, aB0 / 2]
        Jw = np.array([1.0, g1[0], g1[1]])
        alpha0 = np.array([0.0, g0[0], g0[1]])
        return dict(cm=cm, Jv=Jv, acm0=acm0, Jw=Jw, alpha0=alpha0, B=B, vB=vB * w, angles=np.array([th, p2, p3]),
                    rates=Jw * w)

    def rhs(self, t: float, y: np.ndarray) -> list[float]:
        th, w = y
        k = self.kin(th, w)
        g = np.array([0.0, -self.d["g"]])
        mass = sum(self.m[i] * k["Jv"][i] @ k["Jv"][i] for i in range(3)) + self.J @ (k["Jw"] ** 2)
        inert0 = sum(self.m[i] * k["Jv"][i] @ k["acm0"][i] for i in range(3)) + self.J @ (k["Jw"] * k["alpha0"])
        Q = sum(self.m[i] * g @ k["Jv"][i] for i in range(3))
        B, vB = k["B"], k["vB"]
        L = float(np.linalg.norm(B))
        u = B / L
        T = self.d["k"] * (L - self.d["free_length"]) + self.d["c"] * float(u @ vB)
        Q += -T * float(u @ k["Jv"][2] * 2)  # d(B)/d(theta) = 2 d(rocker cm)/d(theta)
        return [w, (Q - inert0) / mass]

    def solve(self, times: np.ndarray) -> np.ndarray:
        """Crank angle and rate at ``times`` (rows)."""
        sol = integrate.solve_ivp(self.rhs, (0.0, float(times[-1])), [self.d["theta0"], 0.0], method="Radau",
                                  t_eval=times, rtol=1e-12, atol=1e-13)
        return sol.y.T


# --- A03 ------------------------------------------------------------------------------------------------------
ANDREWS_ANGLES = ("beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon")


def andrews_angles(q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The test set's 7 angles and rates from body coordinates q (7 bodies b1..b7 in file order)."""
    ph, w = q[2::3], v[2::3]
    conv = lambda a: np.array([a[0], a[1] - a[0], a[2], a[3] - a[4], a[4], a[5] - a[6], a[6]])  # noqa: E731
    return conv(ph), conv(w)
