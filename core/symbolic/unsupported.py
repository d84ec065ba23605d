"""The exception of the symbolic derivations (planar, spatial, Appell) for models they do not cover."""
from __future__ import annotations


class SymbolicUnsupported(ValueError):
    """The model contains elements the symbolic derivation does not handle (the message says which)."""


__all__ = ["SymbolicUnsupported"]
