"""Writing files atomically, errors that name the file the user asked for, and clean-up of the temporary files
that killed writers leave behind.

A file is written to a hidden temporary file in the target's folder, flushed, fsynced, then renamed onto the target
(``os.replace``), so a crash or a full disk never leaves a half-written target. The temporary file is named
``.<target name>.<host>-<pid>-<random>.tmp``: ``<host>`` is a short digest of the machine's host name and ``<pid>``
the writing process. A writer killed with SIGKILL cannot remove its temporary file; the next write into the same
folder (:func:`remove_stale_temporaries`) removes the temporaries of that folder

* whose writer, on this host, is no longer running, or
* that are older than :data:`STALE_AGE_S` (a writer on another host, or a reused process id), and
* older-style temporaries ``.<target name>.<8 characters>.tmp`` of the same target older than :data:`STALE_AGE_S`.

Temporaries of live writers are left alone (several processes may write into one folder at once).

Any OSError while writing is raised again as the same kind of error (``PermissionError``, ``OSError`` with
``ENOSPC`` ...) whose ``filename`` is the *target*, never the temporary file, so that a message built from it
(``error: results.csv: No space left on device``) names the file the user asked for.
"""
from __future__ import annotations

import errno
import hashlib
import os
import re
import socket
import tempfile
import time
from pathlib import Path
from typing import Iterable

#: a temporary file older than this [s] is stale whoever wrote it (a write takes seconds, not an hour)
STALE_AGE_S = 3600.0
TEMP_SUFFIX = ".tmp"
_TEMPORARY = re.compile(r"^\.(?P<target>.+)\.(?P<host>[0-9a-f]{8})-(?P<pid>\d+)-[A-Za-z0-9_]+\.tmp\Z")
_OLD_STYLE = re.compile(r"^\.(?P<target>.+)\.[a-z0-9_]{8}\.tmp\Z")


def host_tag() -> str:
    """Eight hex digits naming this machine in temporary file names (a digest of the host name)."""
    return hashlib.sha1(socket.gethostname().encode("utf-8", "surrogateescape")).hexdigest()[:8]


def temporary_prefix(target: Path) -> str:
    """The start of the name of this process's temporary files for ``target`` (see module docstring)."""
    return f".{target.name}.{host_tag()}-{os.getpid()}-"


def process_alive(pid: int) -> bool:
    """Whether a process with this id runs on this machine (a process of another user counts as running)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def is_stale(path: Path, target_name: str | None = None, now: float | None = None) -> bool:
    """Whether ``path`` is a temporary file left by a writer that is gone (see module docstring); ``target_name``:
    the file about to be written, whose older-style temporaries are stale once old."""
    now = time.time() if now is None else now
    try:
        age = now - path.lstat().st_mtime
    except OSError:
        return False
    match = _TEMPORARY.match(path.name)
    if match:
        if age > STALE_AGE_S:
            return True
        return match["host"] == host_tag() and not process_alive(int(match["pid"]))
    old = _OLD_STYLE.match(path.name)
    return bool(old and target_name is not None and old["target"] == target_name and age > STALE_AGE_S)


def remove_stale_temporaries(folder: Path, target_name: str | None = None) -> list[Path]:
    """Remove the stale temporary files of ``folder`` (see module docstring); return those removed. Never raises:
    a file that cannot be removed (or a folder that cannot be listed) is left as it is."""
    removed = []
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(".") and e.name.endswith(TEMP_SUFFIX)]
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        path = Path(entry.path)
        try:
            if entry.is_file(follow_symlinks=False) and is_stale(path, target_name, now):
                path.unlink()
                removed.append(path)
        except OSError:
            continue
    return removed


def naming_target(exc: OSError, target: Path) -> OSError:
    """``exc`` as the same kind of OSError (same errno and text) whose ``filename`` is ``target``."""
    if exc.errno is None:
        return exc
    try:
        out = type(exc)(exc.errno, exc.strerror or os.strerror(exc.errno), str(target))
    except TypeError:  # an OSError subclass with another constructor
        out = OSError(exc.errno, exc.strerror or os.strerror(exc.errno), str(target))
    return out


def current_umask() -> int:
    """The process's file-mode creation mask (read from /proc on Linux; elsewhere set and restored at once)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_chunks(path: str | os.PathLike[str], chunks: Iterable[str]) -> None:
    """Write the text ``chunks`` (in order) to ``path`` atomically (see module docstring).

    The file gets the mode an ordinary ``open(path, "w")`` would give: an existing target's mode, else 0666 minus
    the umask (the temporary file is created 0600). Raises OSError naming ``path`` with the target untouched if
    anything fails; stale temporaries of the folder are removed first.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(target))
    remove_stale_temporaries(folder, target.name)
    try:
        fd, tmp = tempfile.mkstemp(prefix=temporary_prefix(target), suffix=TEMP_SUFFIX, dir=str(folder))
    except OSError as exc:
        raise naming_target(exc, target) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, target.stat().st_mode & 0o777 if target.exists() else 0o666 & ~current_umask())
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise naming_target(exc, target) from None
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`atomic_write_chunks`)."""
    atomic_write_chunks(path, (text,))


def temporary_path(target: Path) -> Path:
    """A fresh name for a temporary file beside ``target`` (not created) in this module's naming, for writers that
    open the file themselves (Parquet); :func:`remove_stale_temporaries` removes it should the writer be killed."""
    return target.with_name(f"{temporary_prefix(target)}{os.urandom(4).hex()}{TEMP_SUFFIX}")

