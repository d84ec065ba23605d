"""A run's contact events on the playback time bar: :class:`EventSlider`, the time slider with a coloured tick at
the time of every event (closure/impact, lift-off, stick to slip, slip velocity zero, ...; docs/contact.md,
"Results") and a tooltip naming the events under the pointer (kind, element, time and the event's numbers).

The tick of an event at time t sits where the slider's handle centre is when it shows t (the slider's full travel
covers :attr:`EventSlider.span` seconds, the run's data). Also the words and colours of the event kinds, shared with
the plots' event markers (gui/plots/panel.py).
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QSlider, QStyle, QStyleOptionSlider, QToolTip

#: colour of each event kind (ticks on the time bar, markers on the plots)
EVENT_COLORS = {"impact": "#d62728", "liftoff": "#ff7f0e", "slip": "#9467bd", "stop": "#2ca02c",
                "feature": "#8c8c8c", "mode": "#17becf"}
#: the event kinds in words
EVENT_WORDS = {"impact": "impact (contact closes)", "liftoff": "lift-off", "slip": "starts to slip",
               "stop": "slip velocity zero (sticks or reverses)", "feature": "contact feature changes",
               "mode": "contact state changes"}
#: the contact state column's values in words (``contact.<name>.state``)
STATE_WORDS = {0: "open", 1: "stick", 2: "slip", 3: "closed"}
DETAIL_WORDS = {"impulse_Ns": ("impulse", "N s"), "approach_speed": ("approach speed", "m/s"),
                "energy_dissipated_J": ("energy dissipated", "J"), "friction_N": ("friction", "N")}
TICK_PICK_PX = 4  # the tooltip names the events whose ticks are this close to the pointer [px]


def event_color(kind: str) -> str:
    return EVENT_COLORS.get(kind, "#555555")


def describe_event(ev: dict[str, Any]) -> str:
    """One line: what happened, where and when, with the event's numbers (impulse, approach speed, ...)."""
    kind = str(ev.get("kind", ""))
    text = f"t = {float(ev.get('t', 0.0)):.6g} s: {EVENT_WORDS.get(kind, kind)} at {ev.get('contact', '?')}"
    details = []
    for key, (word, unit) in DETAIL_WORDS.items():
        if key in ev:
            details.append(f"{word} {float(ev[key]):.4g} {unit}")
    if "state" in ev:
        details.append(f"now {STATE_WORDS.get(int(ev['state']), ev['state'])}")
    return text + (f" ({', '.join(details)})" if details else "")


class EventSlider(QSlider):
    """The time slider with the run's events as ticks (module docstring)."""

    def __init__(self, parent: Any = None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.events: list[dict[str, Any]] = []
        self.span = 0.0  # [s] the time the full travel covers

    def set_events(self, events: list[dict[str, Any]], span: float | None = None) -> None:
        """Show ``events`` (dicts with ``t`` [s], ``kind``, ``contact``); ``span``: see :meth:`set_span`."""
        self.events = list(events)
        if span is not None:
            self.span = float(span)
        self.update()

    def set_span(self, span: float) -> None:
        """The time [s] the slider's full travel covers (the ticks move when it changes)."""
        if abs(float(span) - self.span) > 1e-12 * max(abs(span), 1.0):
            self.span = float(span)
            if self.events:
                self.update()

    def _geometry(self) -> tuple[float, float, QRectF]:
        """(x of time 0, pixels per full travel, groove rectangle) in widget coordinates."""
        opt = QStyleOptionSlider()
        self.initStyleOption(opt)
        style = self.style()
        groove = QRectF(style.subControlRect(QStyle.ComplexControl.CC_Slider, opt,
                                             QStyle.SubControl.SC_SliderGroove, self))
        handle = QRectF(style.subControlRect(QStyle.ComplexControl.CC_Slider, opt,
                                             QStyle.SubControl.SC_SliderHandle, self))
        travel = max(groove.width() - handle.width(), 1.0)
        return groove.left() + handle.width() / 2, travel, groove

    def tick_x(self, t: float) -> float | None:
        """Widget x [px] of the tick of time ``t`` [s]; None when the span is zero or t is outside it."""
        if self.span <= 0 or not (0.0 <= t <= self.span * (1 + 1e-9)):
            return None
        x0, travel, _ = self._geometry()
        return x0 + travel * min(t / self.span, 1.0)

    def events_near(self, x: float, px: float = TICK_PICK_PX) -> list[dict[str, Any]]:
        """The events whose ticks are within ``px`` of widget x ``x``."""
        out = []
        for ev in self.events:
            tx = self.tick_x(float(ev.get("t", -1.0)))
            if tx is not None and abs(tx - x) <= px:
                out.append(ev)
        return out

    def paintEvent(self, event: Any) -> None:  # noqa: N802 - Qt API
        if self.events and self.span > 0:
            painter = QPainter(self)
            h = self.height()
            for ev in self.events:
                x = self.tick_x(float(ev.get("t", -1.0)))
                if x is None:
                    continue
                pen = QPen(QColor(event_color(str(ev.get("kind", "")))), 2)
                painter.setPen(pen)
                painter.drawLine(QPointF(x, 1), QPointF(x, h - 1))
            painter.end()
        super().paintEvent(event)  # the groove and the handle over the ticks

    def event(self, e: QEvent) -> bool:  # noqa: D102 - Qt API
        if e.type() == QEvent.Type.ToolTip and self.events:
            near = self.events_near(e.position().x() if hasattr(e, "position") else e.pos().x())
            if near:
                lines = [describe_event(ev) for ev in near[:12]]
                if len(near) > 12:
                    lines.append(f"... and {len(near) - 12} more")
                QToolTip.showText(e.globalPos(), "\n".join(lines), self)
                return True
        return super().event(e)


__all__ = ["EVENT_COLORS", "EVENT_WORDS", "EventSlider", "STATE_WORDS", "describe_event", "event_color"]
