"""What every planar equation primitive provides (see docs/elements.md).

A primitive is one kind of constraint equation, defined once in its own module of this package:

* a frozen *spec* dataclass: one instance per element row group, in model terms (body names, body-frame points
  [m], directions, time functions); its ``size`` is the number of rows it contributes;
* a *group* class (:class:`HolonomicGroup` or a nonholonomic group) that evaluates all specs of its kind at
  once with numpy: Phi, Phi_q, Phi_t, gamma (holonomic, Phi_q q'' = gamma [003]) or C_psi, xi, eta
  (nonholonomic, C_psi q' + xi = 0, eta = C_psi' q' + xi');
* ``symbolic(spec, S)``: the same rows as sympy expressions (S is :class:`mechstudio.core.symbolic.planar.PlanarSymbols`);
  holonomic primitives return Phi rows, nonholonomic ones the velocity expression C_psi q' + xi;
* ``COMPILED``: the name of the loop over this primitive in ``mechstudio.core.systems.planar_kernels`` (its field prefix in
  ``PlanarGeometry``), and ``COMPILED_FIELDS``: the arrays that loop reads, in order, as (name after the prefix,
  kind) -- :data:`INDEX`, :data:`VECTOR`, :data:`NUMBER` or :data:`TABLE`. ``PlanarGeometry`` and the packed
  layout of ``mechstudio.core.dynamics.packed_planar`` are generated from these declarations, and the group's
  ``compiled_fields`` must return exactly them (checked when a system's compiled data are built);
  tests/test_element_registry.py checks numeric vs compiled vs symbolic vs finite differences for every
  element, hence for every primitive.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from mechstudio.core.types import FloatArray

#: kinds of a compiled array (``COMPILED_FIELDS``): int64 (K,) indices (rows, bodies, counts), float64 (K, 2)
#: body vectors or pairs of numbers, float64 (K,) numbers, float64 (T, 3) table rows (a cam's r, r', r'')
INDEX, VECTOR, NUMBER, TABLE = "index", "vector", "number", "table"


class HolonomicGroup:
    """A group of K holonomic equations of one kind. ``rows`` (K, rows_per_element) are its rows in Phi."""

    rows_per_element = 1
    #: True when Phi_q does not depend on q (its entries are written once by the fast path)
    constant_jacobian = False

    def __init__(self, rows: Sequence[int]):
        self.rows = np.asarray(rows, dtype=np.int64).reshape(-1, self.rows_per_element)

    @property
    def count(self) -> int:
        return int(self.rows.shape[0])

    def bodies_touched(self) -> tuple[np.ndarray, ...]:
        """Index arrays of the bodies whose columns the rows fill (both bodies of two-body primitives)."""
        return (self.bi, self.bj)

    @property
    def rheonomic(self) -> bool:
        """True when some row depends on time explicitly (writes Phi_t)."""
        return False

    def phi(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        raise NotImplementedError

    def jacobian(self, qe: FloatArray, t: float, out: FloatArray) -> None:
        raise NotImplementedError

    def phi_t(self, t: float, out: FloatArray) -> None:
        """Only rheonomic groups write; default: Phi_t = 0."""

    def gamma(self, qe: FloatArray, ve: FloatArray, t: float, out: FloatArray) -> None:
        raise NotImplementedError


class TimeColumn:
    """The f(t) of each row of a group: a float constant, a TimeFunction, or None (no function: 0)."""

    def __init__(self, functions: Sequence[object]):
        self.functions = list(functions)
        self.const = np.array([f if isinstance(f, float) else 0.0 for f in self.functions])
        #: rows whose f depends on time (TimeFunction objects)
        self.timed = [k for k, f in enumerate(self.functions) if f is not None and not isinstance(f, float)]

    def values(self, t: float, which: str) -> FloatArray:
        """f(t), f'(t) or f''(t) per row (``which`` = value, rate, accel)."""
        out = self.const.copy() if which == "value" else np.zeros(len(self.functions))
        for k in self.timed:
            out[k] = getattr(self.functions[k], which)(t)
        return out
