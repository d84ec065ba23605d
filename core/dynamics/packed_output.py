"""A fused output frame returned as one array (speed of the compiled output kernels).

Numba boxes every array a compiled function returns into its own numpy object (about a microsecond each on this
machine), which for a small system costs as much as the frame's arithmetic. The fused output kernels of the
rolling disks (``mechstudio.core.dynamics.projection_spatial``) and of Wittenburg's formulation (``mechstudio.core.dynamics.wittenburg_kernels``)
therefore return (status, [q; q'; q''; reactions row by row; scalars]) built by :func:`pack_frame`, and their
Python callers take it apart into views with :func:`unpack_frame` (the :data:`~core.dynamics.base.FastOutput`
order: q, q', q'', reactions (rows, 6), the scalars of :class:`~core.dynamics.base.OutputScalar`).
"""
from __future__ import annotations

import numpy as np

from mechstudio.core.dynamics.base import OutputScalar
from mechstudio.core.types import FloatArray


def pack_frame(q, v, qdd, R, scal):  # noqa: ANN001, ANN201
    """[q; q'; q''; R row by row; scalars] in one array (compiled code: ``mechstudio.core.jit.compile_helper``)."""
    n = q.shape[0]
    nr = R.shape[0] * R.shape[1]
    out = np.empty(3 * n + nr + scal.shape[0])
    out[:n] = q
    out[n:2 * n] = v
    out[2 * n:3 * n] = qdd
    out[3 * n:3 * n + nr] = R.ravel()
    out[3 * n + nr:] = scal
    return out


def frame_width(n: int, n_rows: int) -> int:
    """Entries of a :func:`pack_frame` array of a system of n coordinates with n_rows reaction rows (the scalars
    of ``OutputScalar`` last)."""
    return 3 * n + 6 * n_rows + len(OutputScalar)


def unpack_frame(out: FloatArray, n: int, n_rows: int) -> tuple[FloatArray, ...]:
    """(q, q', q'', reactions (n_rows, 6), scalars): views of a :func:`pack_frame` array of a system of n
    coordinates with n_rows reaction rows."""
    n3, nr = 3 * n, 3 * n + 6 * n_rows
    return out[:n], out[n:2 * n], out[2 * n:n3], out[n3:nr].reshape(n_rows, 6), out[nr:]


def batch_frames(result: tuple[int, int, FloatArray], n: int, n_rows: int) -> list[tuple[FloatArray, ...] | None]:
    """The frames of a batched output kernel's result (status, count, rows of :func:`pack_frame` arrays of which
    the first ``count`` are computed): :func:`unpack_frame` views, then None for each row the kernel left to the
    caller (the status says why; the caller's one-frame path meets the same trouble and reports it)."""
    _, count, out = result
    return [unpack_frame(out[j], n, n_rows) if j < count else None for j in range(out.shape[0])]
