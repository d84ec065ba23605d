"""Numerical building blocks with no knowledge of models: compiled dense linear algebra
(:mod:`~mechstudio.core.numerics.dense_kernels`) and orientation parametrizations
(:mod:`~mechstudio.core.numerics.orientation`: quaternions, Bryant and Euler angles, rotation matrices)."""
