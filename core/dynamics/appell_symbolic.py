"""Appell's equations from the symbolic derivation, compiled: formulation ``"appell_symbolic"``.

:func:`mechstudio.core.symbolic.appell.derive_appell` derives q' = H u + h0, G, Q~ and (H^T M H) u' = H^T (Q - M a0)
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

from mechstudio.core.dynamics.appell import AppellBase, solve_reduced
from mechstudio.core.dynamics.base import SolverFailure, register_formulation
from mechstudio.core.symbolic.appell import SymbolicUnsupported, derive_appell
from mechstudio.core.systems.base import ConstrainedSystem
from mechstudio.core.types import FloatArray


@register_formulation("appell_symbolic")
class AppellSymbolicFormulation(AppellBase):
    """Compiled symbolic Appell equations (module docstring)."""

    no_contact_modes = ("it derives its equations once from the model file's constraints, while a run with contacts "
                        "that can let go changes them at every event")

    def __init__(self, system: ConstrainedSystem, **options: Any):
        super().__init__(system, **options)
        try:
            self.derivation = derive_appell(system.model, self.choice.key, system)
        except ZeroDivisionError as exc:
            raise SolverFailure(f"symbolic Appell derivation failed: {exc}") from None
        except SymbolicUnsupported as exc:
            raise SolverFailure(f"formulation 'appell_symbolic' is not available for this model: {exc}; use "
                                f"'appell' (numeric) or 'projection'") from None
        self.choice = self.derivation.choice
        self.kin.choice = self.choice
        fns = self.derivation.compiled()
        self._rhs_terms, self._qdd = fns["rhs"], fns["qdd"]
        self.check_singular = options.get("check_singular", True)

    def unpack(self, y: FloatArray, t: float) -> tuple[FloatArray, FloatArray]:
        u, q = y[:self.f], y[self.f:]
        if self.check_singular:
            self.kin.basis(q, t)
        _, _, qd = self._rhs_terms(q, u, t)
        return q, qd

    def evaluate(self, q: FloatArray, t: float, u: FloatArray | None = None,
                 v: FloatArray | None = None) -> tuple[FloatArray, FloatArray, FloatArray, dict[str, Any]]:
        if self.check_singular:
            self.kin.basis(q, t)
        if u is None:
            assert v is not None
            u = self.choice.values(q, v, t)
        Mr, br, qd = self._rhs_terms(q, u, t)
        if not (np.all(np.isfinite(Mr)) and np.all(np.isfinite(br)) and np.all(np.isfinite(qd))):
            raise SolverFailure(f"the compiled Appell equations are not finite at t = {t:.6g} s (quasi-velocities "
                                f"{', '.join(self.choice.names)}): the choice is singular here; choose another")
        ud = solve_reduced(Mr, br, self.choice.names, t)
        return ud, (qd if v is None else v), self._qdd(q, u, ud, t), {}
