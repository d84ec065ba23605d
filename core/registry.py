"""A name -> class registry whose built-in entries are imported only when asked for.

The formulations (``core.dynamics.registry``) and integrators (``core.integrate.registry``) are looked up by the
name a model file or the command line gives. Listing the names (a settings dialog, ``--help``) must not import
every implementation (their modules pull in numba kernels, sympy, ...), and the registry module must not import
the implementations at all (they import the base class that the registry's module sits next to: a cycle). So the
built-ins are declared as ``name -> "module:attribute"`` strings and imported on the first lookup of that name;
classes registered at run time (``registry[name] = cls``, plug-ins, tests) sit next to them.

A registry is a :class:`~collections.abc.MutableMapping`: ``sorted(registry)`` lists every name, ``name in
registry`` needs no import, ``registry[name]`` imports a built-in on first use, and an unknown name raises
:class:`~core.errors.UnknownNameError` with the valid names.
"""
from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from typing import Generic, TypeVar

from core.errors import UnknownNameError

T = TypeVar("T")


class LazyRegistry(MutableMapping[str, T], Generic[T]):
    """Registry of ``kind`` (e.g. "formulation"): built-ins as ``{name: "module:attribute"}``, loaded lazily."""

    def __init__(self, kind: str, builtins: dict[str, str]):
        self.kind = kind
        self._paths = dict(builtins)
        self._loaded: dict[str, T] = {}

    def __getitem__(self, name: str) -> T:
        if name not in self._loaded:
            path = self._paths.get(name)
            if path is None:
                raise UnknownNameError(self.kind, name, list(self))
            module, attr = path.split(":")
            self._loaded[name] = getattr(importlib.import_module(module), attr)
        return self._loaded[name]

    def __setitem__(self, name: str, value: T) -> None:
        self._loaded[name] = value

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._loaded.pop(name, None)
        self._paths.pop(name, None)

    def __contains__(self, name: object) -> bool:
        return name in self._paths or name in self._loaded

    def __iter__(self) -> Iterator[str]:
        yield from self._paths
        yield from (name for name in self._loaded if name not in self._paths)

    def __len__(self) -> int:
        return len(self._paths.keys() | self._loaded.keys())

    def builtin_path(self, name: str) -> str | None:
        """The ``"module:attribute"`` of a built-in entry (None for an entry registered at run time)."""
        return self._paths.get(name)


__all__ = ["LazyRegistry"]
