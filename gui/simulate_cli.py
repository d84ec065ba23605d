"""``mechstudio simulate ... --plots DIR --video FILE.mp4``: the GUI-side exports of the headless command.

:func:`extend` adds the options to the ``simulate`` subparser of the lead's ``core.commands.simulate`` and wraps
its function: the core command runs (and writes --out) as usual, then the trajectory it computed is exported with
the live view's plots (pyqtgraph, works offscreen) and 3D view (OpenGL: needs a display, e.g. xvfb-run). Qt is
imported only when one of these options is given. ``python -m core simulate`` has no such options (core is
Qt-free).
"""
from __future__ import annotations

import argparse
import sys
from typing import Any


def extend(sub: argparse._SubParsersAction) -> None:
    p = sub.choices.get("simulate")
    if p is None:
        return
    g = p.add_argument_group("exports (mechstudio only)")
    g.add_argument("--plots", metavar="DIR", help="write every plot as PNG, SVG and CSV into DIR")
    g.add_argument("--video", metavar="FILE", help="render the animation to FILE (.mp4 or .gif; needs OpenGL)")
    g.add_argument("--fps", type=float, default=30.0, help="video frame rate (default 30)")
    core_func = p.get_default("func")
    p.set_defaults(func=lambda args: run_with_exports(args, core_func))


def run_with_exports(args: argparse.Namespace, core_func: Any) -> int:
    if not (getattr(args, "plots", None) or getattr(args, "video", None)):
        return int(core_func(args))
    import core.commands.simulate as cmd
    captured: dict[str, Any] = {}
    original = cmd.run

    def capture(system: Any, settings: Any, **kw: Any) -> Any:
        captured["trajectory"] = traj = original(system, settings, **kw)
        return traj

    cmd.run = capture
    try:
        rc = int(core_func(args))
    finally:
        cmd.run = original
    traj = captured.get("trajectory")
    if traj is None or not len(traj.frames):
        print("no frames to export", file=sys.stderr)
        return rc or 3
    from gui.export import VideoUnavailable, headless_exports
    try:
        headless_exports(traj, traj.system.model, args.plots, args.video, fps=args.fps)
    except VideoUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return rc
