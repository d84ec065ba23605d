"""PlaybackClock: the displayed time of the animation, advanced by wall time at a speed factor.

Live and replay are the same thing: the clock advances by ``speed * wall dt`` while playing, and is clamped to
the newest frame that has arrived (so a run slower than real time is shown as it comes, a faster one plays at
the real rate). Scrubbing sets the time directly and stops playing.
"""
from __future__ import annotations

import time


class PlaybackClock:
    def __init__(self, speed: float = 1.0):
        self.speed = speed
        self.t = 0.0
        self.playing = False
        self._last: float | None = None

    def play(self) -> None:
        self.playing = True
        self._last = time.perf_counter()

    def pause(self) -> None:
        self.playing = False
        self._last = None

    def seek(self, t: float) -> None:
        self.t = max(0.0, float(t))

    def tick(self, t_available: float, now: float | None = None) -> bool:
        """Advance while playing, clamped to ``t_available``; True when the time changed."""
        now = time.perf_counter() if now is None else now
        if not self.playing:
            self._last = now
            return False
        last = self._last if self._last is not None else now
        self._last = now
        old = self.t
        self.t = min(self.t + self.speed * (now - last), t_available)
        return self.t != old
