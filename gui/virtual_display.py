"""A virtual X display for headless OpenGL exports (``mechstudio simulate --video`` on a server or in CI).

Qt's offscreen platform has no OpenGL, so the 3D view cannot render without a display. When no display is set
(neither ``DISPLAY`` nor ``WAYLAND_DISPLAY``) and ``Xvfb`` is installed, :func:`virtual_display` starts one on a
free display number (``-displayfd``: the server picks and reports it), points ``DISPLAY`` at it with Qt's xcb
platform and GLX (Mesa's software renderer draws). The server runs with ``-terminate``: it exits by itself when
its last client — this process's QApplication, which lives until the interpreter ends — disconnects; killing it
earlier would break the live X connection (a fatal XIO error at exit). If no client ever connected it is stopped
when the block ends. Without Xvfb nothing happens and the export reports that it needs a display.
"""
from __future__ import annotations

import logging
import os
import select
import shutil
import subprocess
from contextlib import contextmanager
from typing import Iterator

log = logging.getLogger(__name__)
START_TIMEOUT_S = 15.0
#: what the test suite uses too (scripts/run-tests.sh): xcb platform, GLX integration, software GL
GL_ENVIRONMENT = {"QT_QPA_PLATFORM": "xcb", "QT_XCB_GL_INTEGRATION": "xcb_glx", "PYOPENGL_PLATFORM": "glx"}


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _read_display_number(fd: int, timeout: float) -> str:
    """The display number Xvfb writes (followed by a newline) to ``fd``; '' on timeout or end of file."""
    text = b""
    while not text.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return ""
        chunk = os.read(fd, 16)
        if not chunk:
            return ""
        text += chunk
    return text.decode().strip()


@contextmanager
def virtual_display(needed: bool = True) -> Iterator[str | None]:
    """Provide an X display for the block when ``needed`` and none is set; yields its name (``":N"``) or None
    (a display already exists, none was needed, or Xvfb is not available or failed to start)."""
    xvfb = shutil.which("Xvfb")
    if not needed or has_display() or xvfb is None:
        yield None
        return
    read_fd, write_fd = os.pipe()
    try:
        proc = subprocess.Popen([xvfb, "-displayfd", str(write_fd), "-screen", "0", "1280x1024x24",
                                 "-nolisten", "tcp", "-terminate"], pass_fds=(write_fd,),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        os.close(write_fd)
    try:
        number = _read_display_number(read_fd, START_TIMEOUT_S)
    finally:
        os.close(read_fd)
    if not number:
        log.warning("Xvfb did not start within %.0f s; exporting without a display", START_TIMEOUT_S)
        proc.kill()
        proc.wait()
        yield None
        return
    os.environ["DISPLAY"] = f":{number}"
    for key, value in GL_ENVIRONMENT.items():
        os.environ.setdefault(key, value)
    log.info("started a virtual display :%s (Xvfb pid %d) for the export", number, proc.pid)
    try:
        yield f":{number}"
    finally:
        if not _qt_application_exists():  # nobody connected: -terminate would never fire
            proc.terminate()
            proc.wait(timeout=5)


def _qt_application_exists() -> bool:
    import sys
    widgets = sys.modules.get("PySide6.QtWidgets")
    return bool(widgets is not None and widgets.QApplication.instance() is not None)
