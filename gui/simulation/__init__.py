"""Live simulation: worker thread, buffer, playback, controller and the UI installed into the main window.

The main window calls :func:`install_live_view` at the end of its construction (its live-view hook).
"""
from __future__ import annotations

from typing import Any


def install_live_view(window: Any) -> Any:
    from mechstudio.gui.simulation.live import install_live_view as install
    return install(window)
