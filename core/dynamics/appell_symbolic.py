"""Appell's equations from the symbolic derivation, compiled: formulation ``"appell_symbolic"``.

:func:`core.symbolic.appell.derive_appell` derives q' = H u + h0, G, Q~ and (H^T M H) u' = H^T (Q - M a0)
with sympy from the model file (not from the numeric ConstrainedSystem), and lambdifies them with common
subexpression elimination; this formulation integrates the same state y = [u; q] as the numeric ``"appell"``
one, so the two can be compared step by step. The numeric choice check of :class:`AppellKinematics` guards
against singular quasi-velocity choices (same message as ``"appell"``); the compiled expressions themselves
would divide by zero there.

Options: as ``"appell"`` (``choice``, ``singular_tol``), plus ``check_singular`` (default True).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from core.dynamics.appell import _AppellBase, solve_reduced
from core.dynamics.base import SolverFailure, register_formulation
from core.symbolic.appell import derive_appell
from core.system import ConstrainedSystem
from core.types import FloatArray


@register_formulation("appell_symbolic")
class AppellSymbolicFormulation(_AppellBase):
    """Compiled symbolic Appell equations (module docstring)."""

    def __init__(self, system: ConstrainedSystem, **options: Any):
        super().__init__(system, **options)
        try:
            self.derivation = derive_appell(system.model, self.choice.key, system)
        except ZeroDivisionError as exc:
            raise SolverFailure(f"symbolic Appell derivation failed: {exc}") from None
        self.choice = self.derivation.choice
        self.kin.choice = self.choice
        fns = self.derivation.compiled()
        self._rhs_terms, self._qdd = fns["rhs"], fns["qdd"]
        self.check_singular = options.get("check_singular", True)

    def unpack(self, y: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        u, q = y[:self.f], y[self.f:]
        if self.check_singular:
            self.kin.basis(q, t)
        with np.errstate(all="raise"):
            try:
                _, _, qd = self._rhs_terms(q, u, t)
            except FloatingPointError as exc:
                raise SolverFailure(f"the compiled Appell equations cannot be evaluated at t = {t:.6g} s: "
                                    f"{exc}") from None
        return q, qd

    def _solve(self, q: FloatArray, u: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        if self.check_singular:
            self.kin.basis(q, t)
        Mr, br, qd = self._rhs_terms(q, u, t)
        return solve_reduced(Mr, br, self.choice.names, t), qd

    def quasi_accelerations(self, q: FloatArray, v: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        u = self.choice.values(q, v, t)
        ud, _ = self._solve(q, u, t)
        return ud, self._qdd(q, u, ud, t)

    def rhs(self, t: float, y: FloatArray) -> FloatArray:
        self.rhs_evaluations += 1
        u, q = y[:self.f], y[self.f:]
        ud, qd = self._solve(q, u, t)
        return np.concatenate((ud, qd))
