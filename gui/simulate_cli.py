"""``mechstudio simulate ... --plots DIR --video FILE.mp4``: the GUI-side exports of the headless command.

:func:`extend` adds the options to the ``simulate`` subparser of ``mechstudio.core.commands.simulate`` and passes
:func:`export_after_run` as that command's ``after_run`` extension point: the core command runs (and writes --out)
as usual, then the trajectory it computed is exported with the live view's plots (pyqtgraph, works offscreen) and
3D view (OpenGL). Without a display, a virtual one is started for the video when Xvfb is installed
(:mod:`mechstudio.gui.virtual_display`). Qt is imported only when one of these options is given. ``python -m mechstudio.core simulate``
has no such options (core is Qt-free).
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from mechstudio.core.commands.arguments import positive_float
from mechstudio.core.commands.simulate import run_command


def extend(sub: argparse._SubParsersAction) -> None:
    p = sub.choices.get("simulate")
    if p is None:
        return
    g = p.add_argument_group("exports (mechstudio only)")
    g.add_argument("--plots", metavar="DIR", help="write every plot as PNG, SVG and CSV into DIR")
    g.add_argument("--video", metavar="FILE", help="render the animation to FILE (.mp4 or .gif; OpenGL: without "
                                                   "a display a virtual one is started when Xvfb is installed)")
    g.add_argument("--fps", type=positive_float, default=30.0, help="video frame rate (default 30)")
    g.add_argument("--video-size", metavar="WxH", type=video_size, default=None,
                   help="video size in pixels, two even numbers (default 1280x720)")
    p.set_defaults(func=lambda args: run_command(args, after_run=export_after_run))


def video_size(text: str) -> tuple[int, int]:
    """argparse type of ``--video-size``: "1280x720" -> (1280, 720); a bad value is a usage error (exit 2)."""
    from mechstudio.gui.export import parse_video_size  # Qt-side module: imported only when the option is given
    try:
        return parse_video_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def export_after_run(traj: Any, args: argparse.Namespace) -> int | None:
    """Write the --plots and --video exports of a finished run; an exit status on failure, else None."""
    if not (getattr(args, "plots", None) or getattr(args, "video", None)):
        return None
    if not len(traj.frames):
        print("error: no frames to export", file=sys.stderr)
        return 3
    from mechstudio.gui.virtual_display import virtual_display
    with virtual_display(needed=bool(args.video)):
        from mechstudio.gui.export import VideoUnavailable, headless_exports
        try:
            size = {"video_size": args.video_size} if getattr(args, "video_size", None) else {}
            headless_exports(traj, traj.system.model, args.plots, args.video, fps=args.fps, **size)
        except VideoUnavailable as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    return None
