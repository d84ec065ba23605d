"""Symbolic derivation (sympy) of the equations of motion, for display, export and compilation.

* :mod:`mechstudio.core.symbolic.expr`: safe parsing of expressions in time, coordinates ``body.coord`` and speeds
  ``d(body.coord)`` (never ``eval``).
* :mod:`mechstudio.core.symbolic.quasi`: quasi-velocity choices u = F(q, t) q' + f0 (from the model file or automatic).
* :mod:`mechstudio.core.symbolic.planar`: symbolic planar models (M, Q, Phi, Phi_q, gamma, knife edges).
* :mod:`mechstudio.core.symbolic.spatial`: symbolic spatial models of free bodies with rolling disks (source 001, section 5):
  M and the velocity terms k from the acceleration energy, Q, Phi, Phi_q, gamma, the no-slip rows.
* :mod:`mechstudio.core.symbolic.appell`: the Appell equations dG/du'_v = Q~_v, cached per model and choice.
"""
