"""Trees of rigid bodies joined by spherical joints ([004], Wittenburg's method).

* :mod:`core.tree.topology`    incidence matrix S, path matrix T = S^-1, tree validation naming the bodies,
                               the body-fixed data of the augmented bodies (K_i, barycentric vectors);
* :mod:`core.tree.orientation` quaternions, Bryant angles 1-2-3, Euler angles 3-1-3, rotation-matrix elements
                               and their kinematic equations;
* :mod:`core.tree.base_motion` the prescribed motion r0(t), omega0(t) of body 0;
* :mod:`core.tree.maximal`     the same tree in maximal coordinates (a ConstrainedSystem, cross-check);
* :mod:`core.tree.wittenburg`  the formulation "wittenburg": K_ij omega'_j = M'_i + M_i + S Y;
* :mod:`core.tree.kernels`     its compiled kernels: omega' and the fused output frame of the driver;
* :mod:`core.tree.bench`       benchmark rows for N-body chains.
"""
