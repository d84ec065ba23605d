"""A disk cam's profile r(theta) as the numeric backends evaluate it: a periodic quintic Hermite table.

The model gives the profile radius r(theta) [m] as a time-function expression (core/model/timefunc.py) with
theta [rad] written as ``t`` (the pole is the cam's centre, theta measured from the cam body's x axis). Its exact
r, r' and r'' come from sympy (``TimeFunction.value/rate/accel``). The numeric group and the compiled (numba) kernel
cannot call that Python expression from compiled code, so both evaluate one table instead, built once per cam:

* ``N = TABLE_NODES`` uniform nodes theta_k = 2 pi k / N, each with the exact (r, r', r'');
* between two nodes, the quintic Hermite interpolant matching r, r', r'' at both ends (C2 across nodes, exact at
  the nodes), with error O(h^6 r^(6)) for r, O(h^4 r^(6)) for r'' (h = 2 pi / N), plus round-off ~eps r / h^2 in
  r'' (which is why N = 1024: for the sample's eccentric cam the r'' error is 2e-12 m at N = 1024 and grows to
  1e-11 at 2048, 4e-11 at 4096); the backends evaluate it inline in
  :func:`mechstudio.core.elements.primitives.cam_contact.cam_row` (numeric group and compiled kernel alike);
* at build time :func:`profile_table` checks the table against the exact profile at every interval midpoint
  (r, r' and r'' within ``TABLE_TOLERANCE`` of max(r), evaluated with scipy's ``BPoly.from_derivatives``, the
  same piecewise quintic); a profile the table cannot resolve (a kink, a
  discontinuity) is refused with a message, never approximated silently.

The symbolic backend uses the exact expression (core/elements/primitives/cam_contact.py), so the registry test's
symbolic-vs-numeric comparison also checks the table.

:func:`profile_problems` validates a profile for a follower: positive everywhere, and for a flat-faced follower
convex (polar curvature numerator r^2 + 2 r'^2 - r r'' > 0, eq. (1) below), on a 4 N point sampling:

    kappa(theta) = (r^2 + 2 r'^2 - r r'') / (r^2 + r'^2)^(3/2)                                   (1)
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechstudio.core.types import FloatArray

TABLE_NODES = 1024
#: max table error at the interval midpoints, relative to max r (r, r' and r'')
TABLE_TOLERANCE = 1e-9
TWO_PI = 2.0 * math.pi


def exact_samples(profile: Any, theta: FloatArray) -> FloatArray:
    """(len(theta), 3): exact r, r', r'' of a TimeFunction profile at the angles ``theta`` [rad]."""
    return np.array([[profile.value(x), profile.rate(x), profile.accel(x)] for x in theta], float)


def profile_table(profile: Any) -> FloatArray:
    """The (N, 3) node table (r, r', r'') of ``profile``; raises ValueError when the quintic interpolant misses
    the exact profile by more than TABLE_TOLERANCE at an interval midpoint (see module docstring)."""
    n = TABLE_NODES
    nodes = exact_samples(profile, np.arange(n) * (TWO_PI / n))
    mids = (np.arange(n) + 0.5) * (TWO_PI / n)
    exact = exact_samples(profile, mids)
    scale = max(float(np.max(np.abs(nodes[:, 0]))), 1e-300)
    # imported here to save start-up time (scipy.interpolate is needed only by models with a cam)
    from scipy.interpolate import BPoly
    # scipy's piecewise quintic from r, r', r'' at the nodes is the interpolant the backends evaluate
    # (cam_contact.cam_row, inline); periodic: node N repeats node 0
    knots = np.arange(n + 1) * (TWO_PI / n)
    spline = BPoly.from_derivatives(knots, np.vstack((nodes, nodes[:1])))
    got = np.column_stack([spline(mids, nu) for nu in range(3)])
    err = float(np.max(np.abs(got - exact))) / scale if np.all(np.isfinite(got)) else math.inf
    if not np.all(np.isfinite(nodes)) or err > TABLE_TOLERANCE:
        raise ValueError(f"the profile is not smooth enough for its {n}-node table (error {err:.1e} of max r; "
                         f"allowed {TABLE_TOLERANCE:.0e}): use a profile with continuous r, r', r''")
    return np.ascontiguousarray(nodes)


def profile_problems(profile: Any, follower: str) -> list[str]:
    """Why ``profile`` cannot be used with a ``follower`` ("flat" or "roller"); empty when it can."""
    theta = np.arange(4 * TABLE_NODES) * (TWO_PI / (4 * TABLE_NODES))
    try:
        s = exact_samples(profile, theta)
    except (ValueError, ZeroDivisionError, OverflowError, TypeError) as exc:
        return [f"the profile cannot be evaluated on [0, 2 pi): {exc}"]
    if not np.all(np.isfinite(s)):
        k = int(np.argmin(np.all(np.isfinite(s), axis=1)))
        return [f"the profile or its derivatives are not finite at theta = {theta[k]:.4g} rad"]
    if np.min(s[:, 0]) <= 0.0:
        k = int(np.argmin(s[:, 0]))
        return [f"the profile radius must be positive; r({theta[k]:.4g} rad) = {s[k, 0]:.4g} m"]
    if follower == "flat":
        r, d1, d2 = s[:, 0], s[:, 1], s[:, 2]
        num = r * r + 2.0 * d1 * d1 - r * d2
        if np.min(num) <= 1e-12 * np.max(r) ** 2:
            k = int(np.argmin(num))
            return [f"a flat-faced follower needs a convex cam; the profile is not convex at theta = "
                    f"{theta[k]:.4g} rad (r^2 + 2 r'^2 - r r'' = {num[k]:.3g} m^2)"]
    try:
        profile_table(profile)
    except ValueError as exc:
        return [str(exc)]
    return []
