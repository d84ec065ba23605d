"""Diagnostics and exceptions of Mechanism Studio's core.

A model file can have many problems at once; the loader collects them as :class:`Diagnostic` records
(``file:json-pointer: severity: message``, the Drake diagnostic-policy format) and raises one
:class:`ModelError` that carries them all. Numerical routines never raise for numerical trouble: they
return a result with a :class:`~core.types.Status` (see ``core/types.py``).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in a model file.

    Attributes
    ----------
    file : str
        Path of the file as given by the caller ("<memory>" for in-memory data).
    pointer : str
        RFC 6901 JSON pointer to the offending value, e.g. ``/joints/3/body2`` ("" for the whole document).
    message : str
        What is wrong, in words a user understands.
    severity : str
        "error" or "warning".
    """

    file: str
    pointer: str
    message: str
    severity: str = "error"

    def format(self) -> str:
        return f"{self.file}:{self.pointer or '/'}: {self.severity}: {self.message}"


class ModelError(ValueError):
    """A model could not be loaded or compiled; ``diagnostics`` lists every problem found."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        lines = [d.format() for d in self.diagnostics]
        super().__init__(f"{len(lines)} problem(s) in the model:\n" + "\n".join(lines))


class UnknownNameError(KeyError):
    """Lookup of a registered strategy (formulation, integrator, ...) by a name that does not exist."""

    def __init__(self, kind: str, name: str, valid: list[str]):
        self.kind, self.name, self.valid = kind, name, sorted(valid)
        super().__init__(f"unknown {kind} {name!r}; valid names: {', '.join(self.valid)}")

    def __str__(self) -> str:  # KeyError quotes its argument; we want the plain sentence
        return str(self.args[0])
