"""Optional numba compilation of the numerical kernels, shared by every module that has some.

A kernel is written once as plain Python with numpy semantics (so it also runs, slowly, without numba) and
compiled here for exactly one signature of C-contiguous arrays, eagerly, ``nogil`` and cached on disk
(``scripts/warm_kernels.py`` fills the cache right after installing). Without numba, or with
``MECHSTUDIO_NO_NUMBA=1`` in the environment, :func:`compile_kernel` returns None and callers take their numpy
path, which the tests check equal to the kernels.

The on-disk cache lives in the user's cache folder, ``<cache>/numba-<digest>`` (``mechstudio.core.host.userdirs.user_cache_dir``:
``~/.cache/mechstudio`` on Linux, ``$XDG_CACHE_HOME`` and ``$MECHSTUDIO_CACHE_DIR`` respected), never inside the
installed package, the digest taken over the source of the kernel modules (those that import its compiling
functions, :data:`KERNEL_API`) and of the core modules they import (helpers, and constants such as the
correction's tolerances, which a compiled kernel freezes). Numba checks only the timestamp of a kernel's own file,
but a compiled kernel contains the code of the helpers it calls, which may live in other files
(``mechstudio.core.dynamics.projection_fused``): after a change there a stale kernel could otherwise be loaded. Several installed versions
share the cache folder, so caches of other digests are kept while in use: each use touches its folder, and folders
unused for ``CACHE_MAX_AGE_DAYS`` are removed. A ``NUMBA_CACHE_DIR`` set in the environment is respected.

Kernel policy (:func:`kernel_policy`, a context variable; the simulation driver sets it for its own code, see
``mechstudio.core.run.kernels``): ``"compile"`` (the default) compiles whatever the cache lacks, in the caller's
thread, as before; ``"cached"`` only loads kernels from the on-disk cache: a kernel numba would have to compile
raises :class:`KernelNotCached` (numba's ``numba:compile`` event, which it fires on a cache miss only) and the
caller takes its numpy path; ``"numpy"`` gives no kernels at all (:func:`numba_module` is None and numba is not
even imported). A kernel set that fails under ``"cached"`` leaves its module's globals as they were. Which
compiled paths the cache holds is recorded by marker files (:func:`mark_path_ready`, :func:`path_ready`), written
by the background compiler (``mechstudio.core.run.compiler``) after it ran a path with every kernel compiled.
"""
from __future__ import annotations

import ast
import contextlib
import contextvars
import functools
import hashlib
import json
import logging
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from mechstudio.core.host.userdirs import user_cache_dir

_NUMBA: Any = None
_CORE = Path(__file__).resolve().parent
#: a kernel cache folder unused for this long is removed (another installed version may still use younger ones)
CACHE_MAX_AGE_DAYS = 30
#: the kernel policies (module docstring)
POLICIES = ("compile", "cached", "numpy")
_POLICY: contextvars.ContextVar[str] = contextvars.ContextVar("mechstudio_kernel_policy", default="compile")
_GUARD_INSTALLED = False

log = logging.getLogger(__name__)


def _imported_core_files(tree: ast.AST) -> set[Path]:
    """Files of the ``core`` modules a module imports (``from mechstudio.core.x import y``: core/x.py or core/x/__init__.py,
    and core/x/y.py when y is a module)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mechstudio.core."):
            base = _CORE.joinpath(*node.module.split(".")[2:])
            out.update({base.with_suffix(".py"), base / "__init__.py"} | {base / f"{a.name}.py" for a in node.names})
    return {p for p in out if p.is_file()}


#: the names of this module a kernel module imports (modules that only use the policy or the markers, such as the
#: simulation driver, are not kernel modules: editing them must not invalidate the compiled kernels)
KERNEL_API = frozenset({"array_types", "compile_helper", "compile_kernel", "kernel_set", "numba_module"})


def _compiles_kernels(tree: ast.AST) -> bool:
    """True when a module imports one of :data:`KERNEL_API` from this module."""
    return any(isinstance(node, ast.ImportFrom) and node.module == "mechstudio.core.jit"
               and any(a.name in KERNEL_API for a in node.names) for node in ast.walk(tree))


def kernel_sources() -> list[Path]:
    """The kernel modules of ``core`` (every module that imports one of :data:`KERNEL_API` from
    ``mechstudio.core.jit``) and the core modules they import."""
    files = set()
    for path in _CORE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "mechstudio.core.jit" in text and path.name != "jit.py":
            tree = ast.parse(text)
            if _compiles_kernels(tree):
                files.add(path)
                files.update(_imported_core_files(tree))
    return sorted(files | {Path(__file__).resolve()})


@functools.cache
def source_digest() -> str:
    """A digest of the kernel sources (names and contents, see :func:`kernel_sources`); computed once per process
    (reading the sources costs ~0.1 s)."""
    h = hashlib.sha1()
    for path in kernel_sources():
        h.update(str(path.relative_to(_CORE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def kernel_cache_dir() -> Path:
    """``<user cache>/numba-<digest>`` (see module docstring)."""
    return user_cache_dir() / f"numba-{source_digest()}"


def prune_kernel_caches(root: Path, keep: Path, max_age_days: float = CACHE_MAX_AGE_DAYS) -> list[Path]:
    """Remove the ``numba-*`` folders of ``root`` other than ``keep`` not modified for ``max_age_days``;
    return the removed folders."""
    limit = time.time() - max_age_days * 86400.0
    removed = []
    for old in root.glob("numba-*"):
        try:
            if old != keep and old.stat().st_mtime < limit:
                shutil.rmtree(old)
                removed.append(old)
        except OSError as exc:  # another process removing it, or no permission: leave it
            log.info("kernel cache %s not pruned: %s", old, exc)
    return removed


def _use_source_keyed_cache() -> None:
    """Point numba's cache at the user cache folder's numba-<digest>, mark it used, prune unused old ones."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    here = kernel_cache_dir()
    try:
        here.mkdir(parents=True, exist_ok=True)
        os.utime(here)
        prune_kernel_caches(here.parent, here)
    except OSError as exc:  # no writable cache folder: numba's default cache locations
        log.warning("numba kernel cache folder %s not usable (%s); kernels may be recompiled", here, exc)
        return
    os.environ["NUMBA_CACHE_DIR"] = str(here)


class KernelNotCached(RuntimeError):
    """Under the ``"cached"`` policy, a kernel is not in the on-disk cache: numba would compile it now."""


def current_policy() -> str:
    """The kernel policy in force here (module docstring)."""
    return _POLICY.get()


@contextlib.contextmanager
def kernel_policy(policy: str) -> Iterator[None]:
    """Run the body under ``policy`` (one of :data:`POLICIES`; module docstring)."""
    if policy not in POLICIES:
        raise ValueError(f"kernel policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    token = _POLICY.set(policy)
    try:
        yield
    finally:
        _POLICY.reset(token)


def set_policy(policy: str) -> contextvars.Token:
    """Set the policy of the current context until :func:`reset_policy` with the returned token (for code that
    cannot use :func:`kernel_policy`'s ``with``, such as a generator resumed step by step)."""
    if policy not in POLICIES:
        raise ValueError(f"kernel policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    return _POLICY.set(policy)


def reset_policy(token: contextvars.Token) -> None:
    _POLICY.reset(token)


def numba_available() -> bool:
    """True unless numba is missing or switched off (``MECHSTUDIO_NO_NUMBA``); does not import numba."""
    if _NUMBA is not None:
        return _NUMBA is not False
    if os.environ.get("MECHSTUDIO_NO_NUMBA"):
        return False
    if "numba" in sys.modules:  # imported already (or stood in for by a test double without a module spec)
        return sys.modules["numba"] is not None
    import importlib.util  # only here: find_spec tells whether numba is installed without importing it
    return importlib.util.find_spec("numba") is not None


def numba_imported() -> bool:
    """True when numba is already imported in this process (its start-up cost is paid)."""
    return "numba" in sys.modules


def numba_module() -> Any:
    """The numba module, or None when it is unavailable, switched off, or the policy is ``"numpy"``."""
    global _NUMBA
    if _POLICY.get() == "numpy":
        return None
    if _NUMBA is None:
        if os.environ.get("MECHSTUDIO_NO_NUMBA"):
            _NUMBA = False
        else:
            try:
                _use_source_keyed_cache()
                import numba  # only when kernels are wanted: MECHSTUDIO_NO_NUMBA runs without numba
                if os.environ.get("NUMBA_CACHE_DIR"):
                    numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]  # numba imported earlier by others
                _install_guard(numba)
                _register_borrow()
                _NUMBA = numba
            except ImportError:  # pragma: no cover - numba is a dependency
                _NUMBA = False
    return _NUMBA or None


def borrow(array):  # noqa: ANN001, ANN201
    """``array`` itself; in compiled code a view of the same memory that holds no reference to it (the NRT
    meminfo of the view is NULL, so that binding it, passing it and dropping it cost no reference counting).

    The kernels unpack the model data, packed in two arrays (I, F) that every kernel receives as arguments, into
    tuples of dozens of views, and pass those tuples down several calls per evaluation. A view that references
    its base costs an atomic increment and decrement of the base's count each time a function binds it (about
    20 cycles each; a planar right-hand side of a 10-link chain did ~1000 of them per evaluation, a third of its
    run). A borrowed view costs a null test instead. It is only valid while its base is referenced elsewhere:
    use it only for views into the arguments of the compiled call that uses them (``packed_planar``'s segment
    readers), never for a view that a kernel returns to Python for keeps."""
    return array


_BORROW_REGISTERED = False


def _register_borrow() -> None:
    """Give :func:`borrow` its compiled form (a numba overload; numba is being imported by numba_module())."""
    global _BORROW_REGISTERED
    if _BORROW_REGISTERED:
        return
    try:
        from numba.extending import intrinsic, overload  # numba is being imported by numba_module() anyway
    except ImportError:  # a stand-in numba that compiles nothing (tests/test_cli_warm.py)
        return
    try:
        from numba.core import types  # numba's array internals, for the view without a reference
        from numba.np.arrayobj import make_array, populate_array  # likewise
    except ImportError:  # a numba whose array internals moved: borrow stays a view that references its base
        overload(borrow)(lambda array: (lambda array: array))
        _BORROW_REGISTERED = True
        return

    @intrinsic
    def borrowed_view(typingctx: Any, array: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            base = make_array(signature.args[0])(context, builder, value=args[0])
            view = make_array(signature.return_type)(context, builder)
            populate_array(view, data=base.data, shape=base.shape, strides=base.strides, itemsize=base.itemsize,
                           meminfo=None)
            return view._getvalue()
        return array(array), codegen

    @overload(borrow)
    def borrow_compiled(array):  # noqa: ANN001, ANN202 - numba compares this signature with the implementation's
        if isinstance(array, types.Array):
            return lambda array: borrowed_view(array)
        return None
    _BORROW_REGISTERED = True


def _install_guard(numba: Any) -> None:
    """Listen to numba's ``numba:compile`` event (fired on a cache miss, before compiling) and raise
    :class:`KernelNotCached` there under the ``"cached"`` policy."""
    global _GUARD_INSTALLED
    if _GUARD_INSTALLED:
        return
    from numba.core import event  # numba is being imported by numba_module() anyway

    class CacheOnly(event.Listener):
        def on_start(self, ev: Any) -> None:
            if _POLICY.get() == "cached":
                disp = (ev.data or {}).get("dispatcher")
                name = getattr(getattr(disp, "py_func", None), "__qualname__", "a kernel")
                raise KernelNotCached(f"{name} is not in the kernel cache")

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", CacheOnly())
    _GUARD_INSTALLED = True


def compile_kernel(func: Callable[..., Any], signature: Any) -> Callable[..., Any] | None:
    """``func`` compiled by numba for ``signature`` (eager, cached, nogil), or None without numba."""
    numba = numba_module()
    if numba is None:
        return None
    return numba.njit(signature, cache=True, nogil=True)(func)


def compile_helper(func: Callable[..., Any]) -> Callable[..., Any]:
    """A helper that compiled kernels call (lazily typed, cached); the function itself without numba."""
    numba = numba_module()
    if numba is None or hasattr(func, "py_func"):
        return func
    return numba.njit(cache=True, nogil=True)(func)


def kernel_set(build: Callable[[], Any]) -> Callable[[], Any]:
    """Decorator for a module's builder of compiled kernels: build once, on the first call, and return the same
    object afterwards; None (the numpy paths) without numba or under the ``"numpy"`` policy. Under ``"cached"``
    a builder that would compile raises :class:`KernelNotCached` with its module's globals restored; it is built
    again on the next call."""
    built: list[Any] = []

    def get() -> Any:
        if built:
            return built[0]
        if numba_module() is None:
            if _NUMBA is False:  # numba missing or switched off for the process: never
                built.append(None)
            return None
        g = build.__globals__
        before = dict(g)
        try:
            result = build()
        except KernelNotCached:
            for name in [k for k in g if k not in before]:
                del g[name]
            g.update(before)
            raise
        built.append(result)
        return result
    get.__doc__ = build.__doc__
    return get


def array_types() -> tuple[Any, ...]:
    """(float64[::1], float64[:, ::1], float64[:, :, ::1], int64[::1], int32[::1], boolean) numba types."""
    nb = numba_module()
    return (nb.float64[::1], nb.float64[:, ::1], nb.float64[:, :, ::1], nb.int64[::1], nb.int32[::1],
            nb.boolean)


# --- which compiled paths the cache holds (markers written by the background compiler) -------------------------
def _marker(key: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in key)
    return kernel_cache_dir() / "ready" / f"{safe}.json"


def path_ready(key: str) -> dict[str, Any] | None:
    """The marker of compiled path ``key`` ({"load_cpu_s": measured loading cost or None, ...}) when the cache
    holds its kernels, else None. A stat and a small read; no numba."""
    try:
        return json.loads(_marker(key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def mark_path_ready(key: str, **info: Any) -> None:
    """Record that the cache holds the kernels of compiled path ``key`` (atomically; ``info`` kept in the marker,
    e.g. ``load_cpu_s``)."""
    path = _marker(key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(info), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:  # a read-only cache: the path is simply never known ready
        log.info("kernel marker %s not written: %s", path, exc)


def forget_path(key: str) -> None:
    """Remove the marker of ``key`` (its kernels turned out incomplete in the cache)."""
    with contextlib.suppress(OSError):
        _marker(key).unlink()
