"""Compiled evaluation of :class:`~mechstudio.core.elements.primitives.spatial_rows.RowBatch`: the same terms, by
the same formulas (module docstring of ``spatial_rows``), in one kernel call per state instead of some forty numpy
operations.

:func:`k_row_terms` takes the batch's index arrays as they are (instances, slots, component, dot and angle terms,
output order) and the body states with the ground as the last row, and returns values, Jacobians (R, 14), rates and
biases. Plain Python with numpy semantics: compiled by numba when the kernel policy gives it
(``mechstudio.core.jit``); :func:`kernel` is None otherwise, and the batch takes its numpy path, which
tests/test_spatial_rows_batched.py checks equal to this kernel. Imports nothing of the core but ``jit`` (so that
editing the rows' declarations does not invalidate the kernel cache).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from mechstudio.core.jit import KernelNotCached, array_types, compile_kernel, current_policy, kernel_set, numba_module


def k_row_terms(S, Sd, rates, body, form, point, moving, plus, plus_side, minus,  # noqa: ANN001, ANN201
                minus_side, c_slot, c_comp, d_x, d_y, a_s, a_c, order):
    """(value (R,), jac (R, 14), rate (R,), bias (R,)) of a RowBatch's terms at body states S (nb + 1, 7) and rates
    Sd (the ground last; rates and biases zero unless ``rates``). Per instance n (body ``body[n]``, its (4, 12) form
    ``form[n]`` taking p to D(p) ravelled k-major): D(p), A(p) c = D(p) p / 2 (+ r for a point), rate D(p) p' (+ r'),
    bias D(p') p'. Per slot: its ``plus`` instance minus its ``minus`` instance (-1: none), Jacobian columns from
    7 * side. Then the component, dot and angle terms, concatenated in that order and put in ``order``."""
    N = body.shape[0]
    L = plus.shape[0]
    D = np.zeros((N, 3, 4))
    inst = np.zeros((N, 3, 3))  # value, rate, bias of each instance
    for n in range(N):
        k = body[n]
        for i in range(3):
            for a in range(4):
                acc = 0.0
                for b in range(4):
                    acc += S[k, 3 + b] * form[n, b, 4 * i + a]
                D[n, i, a] = acc
        for i in range(3):
            val = 0.0
            for a in range(4):
                val += D[n, i, a] * S[k, 3 + a]
            inst[n, i, 0] = 0.5 * val + point[n] * S[k, i]
            if rates:
                rate = 0.0
                bias = 0.0
                for a in range(4):
                    rate += D[n, i, a] * Sd[k, 3 + a]
                    dd = 0.0
                    for b in range(4):
                        dd += Sd[k, 3 + b] * form[n, b, 4 * i + a]
                    bias += dd * Sd[k, 3 + a]
                inst[n, i, 1] = rate + point[n] * Sd[k, i]
                inst[n, i, 2] = bias
    slot = np.zeros((L, 3, 3))
    sj = np.zeros((L, 3, 14))
    for s in range(L):
        for part in range(2):
            if part == 0:
                n = plus[s]
                side = plus_side[s]
                sign = 1.0
            else:
                n = minus[s]
                side = minus_side[s]
                sign = -1.0
            if n < 0:
                continue
            c0 = 7 * side
            for i in range(3):
                for K in range(3):
                    slot[s, i, K] += sign * inst[n, i, K]
                sj[s, i, c0 + i] += sign * point[n] * moving[n]
                for a in range(4):
                    sj[s, i, c0 + 3 + a] += sign * moving[n] * D[n, i, a]
    Rc = c_slot.shape[0]
    Rd = d_x.shape[0]
    Ra = a_s.shape[0]
    R = Rc + Rd + Ra
    val = np.zeros(R)
    jac = np.zeros((R, 14))
    rt = np.zeros(R)
    bs = np.zeros(R)
    for r in range(Rc):
        s, i = c_slot[r], c_comp[r]
        val[r] = slot[s, i, 0]
        rt[r] = slot[s, i, 1]
        bs[r] = slot[s, i, 2]
        for j in range(14):
            jac[r, j] = sj[s, i, j]
    for r in range(Rd):  # X . Y: jac Y^T X_q + X^T Y_q, rate X'.Y + X.Y', bias X_b.Y + X.Y_b + 2 X'.Y'
        x, y = d_x[r], d_y[r]
        o = Rc + r
        for i in range(3):
            val[o] += slot[x, i, 0] * slot[y, i, 0]
            rt[o] += slot[x, i, 1] * slot[y, i, 0] + slot[x, i, 0] * slot[y, i, 1]
            bs[o] += slot[x, i, 2] * slot[y, i, 0] + slot[x, i, 0] * slot[y, i, 2] + 2 * slot[x, i, 1] * slot[y, i, 1]
            for j in range(14):
                jac[o, j] += slot[y, i, 0] * sj[x, i, j] + slot[x, i, 0] * sj[y, i, j]
    for r in range(Ra):  # atan2(s, c): jac (c s_q - s c_q) / rho, bias (c b_s - s b_c) / rho - theta' rho' / rho
        si, ci = Rc + a_s[r], Rc + a_c[r]
        o = Rc + Rd + r
        sv, cv = val[si], val[ci]
        rho = sv * sv + cv * cv
        val[o] = np.arctan2(sv, cv)
        rate = (cv * rt[si] - sv * rt[ci]) / rho
        rt[o] = rate
        drho = 2 * (cv * rt[ci] + sv * rt[si])
        bs[o] = (cv * bs[si] - sv * bs[ci]) / rho - rate * drho / rho
        for j in range(14):
            jac[o, j] = (cv * jac[si, j] - sv * jac[ci, j]) / rho
    n_out = order.shape[0]
    value = np.empty(n_out)
    jac_out = np.empty((n_out, 14))
    rate_out = np.empty(n_out)
    bias_out = np.empty(n_out)
    for t in range(n_out):
        o = order[t]
        value[t] = val[o]
        rate_out[t] = rt[o]
        bias_out[t] = bs[o]
        for j in range(14):
            jac_out[t, j] = jac[o, j]
    return value, jac_out, rate_out, bias_out


@kernel_set
def compiled() -> Callable[..., Any] | None:
    """:func:`k_row_terms` compiled by numba, or None without numba (``mechstudio.core.jit``)."""
    f8_1, f8_2, f8_3, i8_1, _, b1 = array_types()
    return compile_kernel(k_row_terms, (f8_2, f8_2, b1, i8_1, f8_3, f8_1, f8_1, i8_1, i8_1, i8_1, i8_1, i8_1, i8_1,
                                        i8_1, i8_1, i8_1, i8_1, i8_1))


#: set when the kernel was found missing from the cache under the "cached" policy: not looked for again under that
#: policy in this process (each look costs numba's cache lookup; the "compile" policy compiles it)
_MISSING: list[bool] = []


def kernel() -> Callable[..., Any] | None:
    """The compiled :func:`k_row_terms` when the kernel policy gives it (not under "numpy", and under "cached" only
    from the cache), else None: the batch's numpy path."""
    if numba_module() is None or (_MISSING and current_policy() == "cached"):
        return None
    try:
        return compiled()
    except KernelNotCached:
        _MISSING.append(True)
        return None


__all__ = ["compiled", "k_row_terms", "kernel"]
