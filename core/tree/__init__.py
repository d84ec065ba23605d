"""Trees of rigid bodies joined by spherical joints ([004], Wittenburg's method).

* :mod:`mechstudio.core.tree.topology`    incidence matrix S, path matrix T = S^-1, tree validation naming the bodies,
                               the body-fixed data of the augmented bodies (K_i, barycentric vectors);
* :mod:`mechstudio.core.tree.orientation` quaternions, Bryant angles 1-2-3, Euler angles 3-1-3, rotation-matrix elements
                               and their kinematic equations;
* :mod:`mechstudio.core.tree.base_motion` the prescribed motion r0(t), omega0(t) of body 0;
* :mod:`mechstudio.core.tree.maximal`     the same tree in maximal coordinates (a ConstrainedSystem, cross-check);
* :mod:`mechstudio.core.tree.wittenburg`  the formulation "wittenburg": K_ij omega'_j = M'_i + M_i + S Y;
* :mod:`mechstudio.core.tree.kernels`     its compiled kernels: omega' and the fused output frame of the driver;
* :mod:`mechstudio.core.tree.bench`       benchmark rows for N-body chains.
"""
