"""The in-process baseline of the speed suite: the planar N-link pendulum chain written by hand in
minimal coordinates, as a user would write it with numpy and scipy (absolute angles, dense mass matrix,
``numpy.linalg.solve`` per evaluation, scipy's DOP853 over the whole span, no outputs, no reactions).

The chain is the one of :func:`mechstudio.core.bench.speed.planar_chain_data`: N uniform links of mass m, length l and
centroidal inertia J = m l^2 / 12, link k hinged to the end of link k - 1 (link 1 to the ground at the origin),
absolute angles phi_k from the x axis, gravity g along -y.

Equations (Lagrange's equations of the second kind in phi). The centre of mass of link k is

    r_k = sum_j a_kj e(phi_j),   e(phi) = (cos phi, sin phi),   a_kj = l (j < k), l/2 (j = k), 0 (j > k),

so with A = (a_kj), G = m A^T A (N x N) and s_j = m sum_k a_kj:

    T = 1/2 sum_ij G_ij cos(phi_i - phi_j) phi_i' phi_j' + 1/2 J sum_i phi_i'^2,
    V = g sum_j s_j sin(phi_j),

and d/dt dT/dphi' - dT/dphi + dV/dphi = 0 gives

    M(phi) phi'' = -g s o cos(phi) - (G o sin(phi_i - phi_j)) (phi' o phi'),
    M(phi) = G o cos(phi_i - phi_j) + J I,

(o the element-wise product). ``tests/test_minimal_chain.py`` checks this right-hand side against the energy
T + V (conserved) and against the project's maximal-coordinate model (the same q'' at the same state).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.integrate import solve_ivp

from mechstudio.core.types import FloatArray

GRAVITY = 9.81  # [m/s^2]


@dataclass(frozen=True)
class MinimalChain:
    """The chain's constants (see module docstring): N links, m [kg], l [m]."""
    n: int
    mass: float = 0.5
    length: float = 0.3

    @property
    def inertia(self) -> float:
        """Centroidal moment of inertia J = m l^2 / 12 [kg m^2]."""
        return self.mass * self.length ** 2 / 12

    def arms(self) -> FloatArray:
        """A = (a_kj): the lever of angle j in the centre of mass of link k [m]."""
        a = np.tril(np.full((self.n, self.n), self.length), -1)
        a[np.diag_indices(self.n)] = self.length / 2
        return a

    def rhs(self) -> Callable[[float, FloatArray], FloatArray]:
        """y' = f(t, y) for y = [phi; phi'] (module docstring)."""
        n, g = self.n, GRAVITY
        A = self.arms()
        Gm = self.mass * A.T @ A
        s = self.mass * A.sum(axis=0)
        eye = self.inertia * np.eye(n)

        def f(t: float, y: FloatArray) -> FloatArray:
            ph, w = y[:n], y[n:]
            D = ph[:, None] - ph[None, :]
            acc = np.linalg.solve(Gm * np.cos(D) + eye, -g * s * np.cos(ph) - (Gm * np.sin(D)) @ (w * w))
            return np.concatenate((w, acc))
        return f

    def energy(self, y: FloatArray) -> float:
        """T + V [J] at y = [phi; phi']."""
        n = self.n
        ph, w = y[:n], y[n:]
        A = self.arms()
        Gm = self.mass * A.T @ A
        M = Gm * np.cos(ph[:, None] - ph[None, :]) + self.inertia * np.eye(n)
        return float(0.5 * w @ M @ w + GRAVITY * (self.mass * A.sum(axis=0)) @ np.sin(ph))

    def centres(self, phi: FloatArray) -> FloatArray:
        """(N, 2) centres of mass [m] at the angles phi."""
        A = self.arms()
        return np.stack((A @ np.cos(phi), A @ np.sin(phi)), axis=1)

    def tips(self, phi: FloatArray) -> FloatArray:
        """(N, 2) end points of the links [m] at the angles phi."""
        return np.cumsum(self.length * np.stack((np.cos(phi), np.sin(phi)), axis=1), axis=0)


def initial_angles(n: int, tilt: float = 0.5) -> FloatArray:
    """The benchmark chain's start (``mechstudio.core.bench.speed.planar_chain_data``): phi_k = -pi/2 + tilt + 0.1 sin k."""
    return np.array([-math.pi / 2 + tilt + 0.1 * math.sin(k) for k in range(n)])


def simulate(chain: MinimalChain, t_end: float, rtol: float = 1e-8, atol: float = 1e-10) -> tuple[FloatArray, int]:
    """(final state [phi; phi'], right-hand-side evaluations): one ``solve_ivp`` DOP853 span from rest."""
    y0 = np.concatenate((initial_angles(chain.n), np.zeros(chain.n)))
    sol = solve_ivp(chain.rhs(), (0.0, t_end), y0, method="DOP853", rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"minimal chain N = {chain.n}: {sol.message}")
    return sol.y[:, -1], int(sol.nfev)


__all__ = ["GRAVITY", "MinimalChain", "initial_angles", "simulate"]
