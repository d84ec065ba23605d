"""Shared type aliases and the status enum of numerical results."""
from __future__ import annotations

import enum

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


class Status(enum.Enum):
    """Outcome of a numerical procedure (Newton iteration, simulation run, ...)."""

    CONVERGED = "converged"
    MAX_ITER = "max_iter"  # iteration limit reached without meeting the tolerance
    SINGULAR = "singular"  # a matrix that must be invertible was (numerically) singular
    DIVERGED = "diverged"  # the residual grew or became non-finite
    FAILED = "failed"  # any other failure; the message says what
    CANCELLED = "cancelled"  # stopped by the caller's cancel hook
    FINISHED = "finished"  # a simulation that reached t_end

    @property
    def ok(self) -> bool:
        return self in (Status.CONVERGED, Status.FINISHED)
