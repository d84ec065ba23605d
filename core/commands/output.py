"""Standard output that notices when its reader goes away (not a command itself).

A command whose reader stops reading (``mechstudio simulate MODEL --out - | head -c 100``) ends with exit status 141
(128 + SIGPIPE) and prints nothing more, as other Unix tools do. Python ignores SIGPIPE, so a write to a pipe
whose reader has gone raises :class:`BrokenPipeError`; the command line (:func:`mechstudio.core.cli.run_parsed`)
turns that into status 141. But a write that fits into the pipe's buffer (64 KiB on Linux) succeeds even when the
reader later leaves without reading it, and the command would report success for output nobody read. So after the
last write :func:`finish_stdout` waits, when standard output is a pipe, until the reader has taken everything
(the pipe is empty: success) or has closed its end (:class:`BrokenPipeError`: status 141), for at most
:data:`DRAIN_WAIT_S` seconds (a reader that reads nothing until the command has ended, or a slow pager, is not
waited for longer; the command then ends normally and its output stays in the pipe).

Text goes out in chunks (:func:`write_stdout`), each flushed, so a reader that leaves is noticed after the chunk
it did not read, without formatting the rest.
"""
from __future__ import annotations

import array
import errno
import os
import select
import stat
import sys
import time
from typing import Iterable, TextIO

#: the longest wait [s] for a pipe's reader to take the last output (see module docstring)
DRAIN_WAIT_S = 5.0
POLL_MS = 20


def broken_pipe() -> BrokenPipeError:
    return BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


def pipe_fd(stream: TextIO) -> int | None:
    """The file descriptor of ``stream`` when it is a pipe (FIFO), else None (a file, a terminal, a test's
    in-memory capture, or a system without ``poll``, where only a failing write tells)."""
    if not hasattr(select, "poll"):
        return None
    try:
        fd = stream.fileno()
        return fd if stat.S_ISFIFO(os.fstat(fd).st_mode) else None
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError and a ValueError
        return None


def reader_closed(fd: int) -> bool:
    """Whether the reading end of the pipe ``fd`` has been closed (poll reports POLLERR on the writing end)."""
    poller = select.poll()
    poller.register(fd, 0)  # no events asked: only POLLERR and POLLHUP are reported
    return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))


def unread_bytes(fd: int) -> int | None:
    """Bytes written to the pipe ``fd`` and not yet read (FIONREAD; None where the system does not say)."""
    try:
        import fcntl  # Unix only
        import termios  # POSIX only
        count = array.array("i", [0])
        fcntl.ioctl(fd, termios.FIONREAD, count, True)
        return int(count[0])
    except (ImportError, OSError, AttributeError):
        return None


def wait_for_reader(fd: int, timeout_s: float = DRAIN_WAIT_S) -> None:
    """Return once the reader of pipe ``fd`` has taken everything (or after ``timeout_s``); raise
    :class:`BrokenPipeError` when the reader closes its end first."""
    deadline = time.monotonic() + timeout_s
    poller = select.poll()
    poller.register(fd, 0)  # no events asked: only POLLERR and POLLHUP are reported
    while True:
        if reader_closed(fd):
            raise broken_pipe()
        left = unread_bytes(fd)
        if left is None or left == 0 or time.monotonic() >= deadline:
            return
        poller.poll(POLL_MS)  # wakes early when the reader closes its end


def finish_stdout(timeout_s: float = DRAIN_WAIT_S) -> None:
    """Flush standard output and, when it is a pipe, wait for its reader (see module docstring); raises
    :class:`BrokenPipeError` when the reader has gone."""
    sys.stdout.flush()
    fd = pipe_fd(sys.stdout)
    if fd is not None:
        wait_for_reader(fd, timeout_s)


def write_stdout(chunks: Iterable[str]) -> None:
    """Write text ``chunks`` to standard output, flushing each, then :func:`finish_stdout`; raises
    :class:`BrokenPipeError` as soon as the reader is seen gone."""
    fd = pipe_fd(sys.stdout)
    for chunk in chunks:
        sys.stdout.write(chunk)
        sys.stdout.flush()
        if fd is not None and reader_closed(fd):
            raise broken_pipe()
    finish_stdout()
