"""An axis whose log-scale tick labels never overlap.

pyqtgraph's log axis labels every decade it picks (its top tick level is always labelled, however crowded) and
may add labels at 2..9 × 10^k (a second level, thinned by total text length, not by the gaps between labels): on a
short axis over many decades, or over one decade, labels overlap. :class:`NonOverlappingAxis` picks one level of
ticks whose smallest gap on screen is at least :data:`MIN_GAP` label sizes (the label height on a vertical axis,
the widest label on a horizontal one): every decade, or every 2nd, 3rd, 5th, 10th... decade; and on an axis of
less than about two decades values between them (mantissas 1, 2, 5, or 1..9, or steps of 0.1 on a very short
range) where they fit, labelled as m·10ⁿ with the digits they need. In linear mode it is pyqtgraph's axis.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetricsF

MIN_GAP = 1.4  # [label sizes] the smallest distance between two tick labels' centres
DECADE_STEPS = (1, 2, 3, 5, 10, 20, 50, 100)  # decades between labelled ticks
MANTISSAS = (tuple(round(1 + 0.1 * k, 1) for k in range(90)),  # within a decade, densest first
             (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 5), (1, 3))
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


class NonOverlappingAxis(pg.AxisItem):
    """A pyqtgraph AxisItem whose log-mode ticks are one level with room for every label (module docstring)."""

    def label_size(self) -> float:
        """The size of a tick label along the axis [px of the item]: height (vertical) or widest width."""
        font = self.style.get("tickFont") or QFont(self.font())
        fm = QFontMetricsF(font)
        if self.orientation in ("left", "right"):
            return fm.height()
        return fm.horizontalAdvance("5×10⁻¹⁸") + fm.averageCharWidth()

    def logTickValues(self, minVal: float, maxVal: float, size: float, stdTicks: Any) -> list[tuple[float, list]]:
        lo, hi = sorted((float(minVal), float(maxVal)))
        if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo or size <= 0:
            return [(1.0, [])]
        px_per_decade = size / (hi - lo)
        need = MIN_GAP * self.label_size()
        decades = [float(e) for e in range(math.ceil(lo - 1e-9), math.floor(hi + 1e-9) + 1)]
        if len(decades) < 3:  # a short range: values between the decades too, where they fit
            for mantissas in MANTISSAS:
                values = sorted(e + math.log10(m) for e in range(math.floor(lo), math.ceil(hi) + 1)
                                for m in mantissas)
                values = [v for v in values if lo - 1e-9 <= v <= hi + 1e-9]
                if len(values) >= 2 and np.min(np.diff(values)) * px_per_decade >= need:
                    return [(None, values)]  # (no uniform spacing)
        for step in DECADE_STEPS:
            if step * px_per_decade >= need:
                return [(float(step), [float(e) for e in range(math.ceil(lo / step - 1e-9) * step,
                                                               math.floor(hi + 1e-9) + 1, step)])]
        return [(float(DECADE_STEPS[-1]), [])]

    def logTickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        """10ⁿ, or m·10ⁿ with as many digits of m as the value has (pyqtgraph's labels have one digit)."""
        out = []
        for v in values:
            x = 10.0 ** float(v) * float(scale)
            if not (math.isfinite(x) and x > 0):
                out.append("")
                continue
            e = math.floor(math.log10(x) + 1e-9)
            m = round(x / 10.0 ** e, 2)
            if m >= 10:
                m, e = m / 10, e + 1
            power = "10" + str(e).translate(SUPERSCRIPT)
            out.append(power if abs(m - 1) < 1e-9 else f"{m:g}·{power}")
        return out
