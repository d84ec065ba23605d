"""A name -> class registry whose built-in entries are imported only when asked for.

The formulations (``mechstudio.core.dynamics.registry``) and integrators (``mechstudio.core.integrate.registry``) are looked up by the
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
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any, Generic, TypeVar

from mechstudio.core.errors import UnknownNameError

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

    def register(self, name: str) -> Callable[[type], type]:
        """Class decorator: register the class under ``name`` and set its ``name`` attribute."""
        def deco(cls: type) -> type:
            cls.name = name  # type: ignore[attr-defined]
            self[name] = cls  # type: ignore[assignment]
            return cls
        return deco

    def builtin_path(self, name: str) -> str | None:
        """The ``"module:attribute"`` of a built-in entry (None for an entry registered at run time)."""
        return self._paths.get(name)


# The two registries themselves live here, at the bottom layer, so that loading a model file can check the
# names it gives (core.model.io) without importing the dynamics: names are strings until a lookup imports them.
# core.dynamics.base and core.integrate.base re-export them with their register_* / get_* functions.

#: every formulation by name: the built-ins as import paths (imported on first lookup), plus registered ones
FORMULATIONS: LazyRegistry[Any] = LazyRegistry("formulation", {
    "projection": "mechstudio.core.dynamics.projection:ProjectionFormulation",
    "lagrange": "mechstudio.core.dynamics.lagrange:LagrangeFormulation",
    "appell": "mechstudio.core.dynamics.appell:AppellFormulation",
    "appell_symbolic": "mechstudio.core.dynamics.appell_symbolic:AppellSymbolicFormulation",
    "wittenburg": "mechstudio.core.dynamics.wittenburg:WittenburgFormulation",
})


#: every integrator by name: the built-ins as import paths (imported on first lookup), plus
#: those registered with :func:`register_integrator`
INTEGRATORS: LazyRegistry[Any] = LazyRegistry("integrator", {
    "dop853": "mechstudio.core.integrate.scipy_ivp:DOP853",
    "rk45": "mechstudio.core.integrate.scipy_ivp:RK45",
    "radau": "mechstudio.core.integrate.scipy_ivp:Radau",
    "bdf": "mechstudio.core.integrate.scipy_ivp:BDF",
    "rk4": "mechstudio.core.integrate.fixed:RK4",
    "abm": "mechstudio.core.integrate.fixed:ABM4",
})


__all__ = ["FORMULATIONS", "INTEGRATORS", "LazyRegistry"]
