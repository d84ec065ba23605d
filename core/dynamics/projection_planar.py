"""Fused compiled path of the projection formulation for planar systems (speed; the same numbers).

An evaluation of the projection formulation (``mechstudio.core.dynamics.projection``) on a planar system otherwise costs
about fifteen Python-level calls -- C, xi, eta and h of the system (each a loop over element groups of numpy
operations), the geometry, velocity and acceleration kernels, the power -- a few microseconds each, around about
as much arithmetic as they cost in overhead (a 10-link chain: n = 30, m = 20). Here the same algorithm runs as
one compiled call, on the system's compiled terms (``mechstudio.core.systems.planar_kernels``) and the shared steps of
``mechstudio.core.dynamics.projection_fused``:

* :func:`k_rhs`: z' = [p'; q'] and the work integrand P = P_nc + q'^T (M q'' - h) at z = [p; q];
* :func:`k_output`: one recorded output frame from an integrator state: unpack (q, q'), the drift correction of
  ``mechstudio.core.dynamics.correction`` (Newton-Raphson on Phi with the mass-weighted step of eq. 4.10, then the velocity
  projection onto C q' + xi = 0; the same tolerances and stopping rules), and at the corrected state q'',
  lambda (corrected eq. 4.2), the force and moment of every joint, contact and driver
  (``PlanarSystem.reactions``), the kinetic and potential energies and ||N||_2.

Every planar element has its compiled form, so the path applies to every planar system; the time functions of
drivers and loads are evaluated once per t in Python (``PlanarSystem.time_arrays``; inside the compiled DOP853
step of the sparse paths by their compiled programs, ``mechstudio.core.systems.planar_time``). Whenever a kernel reports
trouble (status != 0) the caller redoes the evaluation on the generic path, which raises the right
:class:`~core.dynamics.base.SolverFailure` or chooses new dependent coordinates. The generic path stays the
specification: tests/test_performance_equivalence.py checks both give the same numbers.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from mechstudio.core.systems import planar_kernels
from mechstudio.core.dynamics import projection_fused
from mechstudio.core.dynamics.correction import MAX_ITER, POSITION_TOL
from mechstudio.core.jit import compile_helper, kernel_set
from mechstudio.core.systems.planar import PlanarSystem


def k_rhs(y, basis, geo, frc, td):  # noqa: ANN001, ANN201
    """(status, [p'; q'; P]) at z = [p; q] (see module docstring)."""
    fval, faccel, xi, load_f, torque = td
    k = basis[2].shape[0]
    q = y[k:].copy()
    C, phi = _position_terms(q, geo, fval)
    status, v, B, cu_lu, cu_piv = _state(y, C, xi, basis)
    if status != 0:
        return status, np.zeros(y.shape[0] + 1)
    h, eta, power_nc = _velocity_terms(q, v, geo, frc, faccel, load_f, torque)
    return _rhs(v, B, cu_lu, cu_piv, h, eta, np.zeros((0, 0)), frc[planar_kernels.FORCES_MASS_DIAGONAL], True,
                power_nc, basis)


def k_output(y, correction, basis, geo, frc, td, react):  # noqa: ANN001, ANN201
    """One output frame of the integrator state z = [p; q] (see module docstring).

    Returns (status, q, q', q'', reactions (n_constraints, 6), scalars) with scalars = (kinetic, potential,
    ||Phi|| before, after, ||C q' + xi|| before, after, Newton iterations, converged, changed, lambda unique,
    ||N||_2 of the kept basis at the recorded state).
    """
    fval, faccel, xi, load_f, torque = td
    mh = geo[planar_kernels.GEO_MH]
    Md = frc[planar_kernels.FORCES_MASS_DIAGONAL]
    k = basis[2].shape[0]
    q = y[k:].copy()
    scal = np.zeros(11)
    R = np.zeros((react[planar_kernels.REACTIONS_ROWS].shape[0], 6))
    full = np.zeros((0, 0))
    C, phi = _position_terms(q, geo, fval)
    status, v, B, cu_lu, cu_piv = _state(y, C, xi, basis)
    if status != 0:
        return status, q, v, v, R, scal
    # --- drift correction (core.dynamics.correction.correct) ---
    before = _norm(phi)
    vbefore = _norm(_residual(C, v, xi))
    res, it, changed = before, 0, False
    if correction and res > POSITION_TOL:
        while res > POSITION_TOL and it < MAX_ITER:
            q += _min_norm_step(full, Md, True, np.ascontiguousarray(C[:mh]), -phi)
            C, phi = _position_terms(q, geo, fval)
            new = _norm(phi)
            it += 1
            changed = True
            stop = _newton_done(res, new)
            res = new
            if stop:
                break
    v, vafter, projected = _project_velocity(full, Md, True, C, v, xi, correction)
    changed = changed or projected
    # --- accelerations, multipliers, reactions, energies at the recorded state ---
    h, eta, power_nc = _velocity_terms(q, v, geo, frc, faccel, load_f, torque)
    status, qdd, Mqdd, growth = _recorded(v, C, xi, h, eta, full, Md, True, basis)
    if status != 0:
        return status, q, v, qdd, R, scal
    lam, unique = _multipliers(Mqdd - h, C, basis)
    R = _reactions(q, C, lam, react)
    kinetic = 0.0
    for i in range(v.shape[0]):
        kinetic += 0.5 * Md[i] * v[i] * v[i]
    potential = _potential(q, geo, frc)
    scal = _scalars(kinetic, potential, before, res, vbefore, vafter, it, changed, unique, growth)
    return 0, q, v, qdd, R, scal


# helpers the kernels call: compiled versions (bound at build; plain Python without numba)
_norm = _residual = _min_norm_step = _state = _rhs = _recorded = _multipliers = None
_newton_done = _project_velocity = _scalars = None
_position_terms = _velocity_terms = _potential = _reactions = None


@kernel_set
def kernels() -> tuple[Callable[..., Any], Callable[..., Any]] | None:
    """(k_rhs, k_output) compiled, or None without numba (the projection formulation's generic path)."""
    global _position_terms, _velocity_terms, _potential, _reactions
    if not projection_fused.bind(globals()):
        return None
    # the terms' own helpers, compiled before the terms that call them
    for name in ("_trig", "_rot", "_spring", "_relative", "_ext", "_put", "_cam_row", "_turned", "_placed",
                 "_couple_reactions", "_coupling_forces"):
        setattr(planar_kernels, name, compile_helper(getattr(planar_kernels, name)))
    _position_terms = compile_helper(planar_kernels.k_position_terms)
    _velocity_terms = compile_helper(planar_kernels.k_velocity_terms)
    _potential = compile_helper(planar_kernels.k_potential)
    _reactions = compile_helper(planar_kernels.k_reactions)
    return compile_helper(k_rhs), compile_helper(k_output)


def applies(system: Any) -> bool:
    """True for planar systems with constraints (every planar element has its compiled form)."""
    return isinstance(system, PlanarSystem) and system.m > 0


class FusedPath:
    """The projection formulation's fused calls for one planar system (see module docstring)."""

    def __init__(self, system: Any):
        self.system = system
        self.k_rhs, self.k_output = kernels()
        self.geo, self.frc, self.react = system.fused_data()

    def rhs(self, y: np.ndarray, basis: tuple, t: float) -> tuple[int, np.ndarray]:
        return self.k_rhs(y, basis, self.geo, self.frc, self.system.time_arrays(t))

    def output(self, y: np.ndarray, correction: bool, basis: tuple, t: float) -> tuple:
        return self.k_output(y, correction, basis, self.geo, self.frc, self.system.time_arrays(t), self.react)
