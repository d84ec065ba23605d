"""The compiled numeric systems of a model (the equations the formulations integrate):

* :mod:`~mechstudio.core.systems.base`            ConstrainedSystem (M, h, Phi, C, xi, eta, energies, reactions);
* :mod:`~mechstudio.core.systems.compile`         compile_model: the model's kind picks the system;
* :mod:`~mechstudio.core.systems.planar`          planar bodies in Cartesian coordinates ([003]), with
  :mod:`~mechstudio.core.systems.planar_kernels` (its compiled loops);
* :mod:`~mechstudio.core.systems.spatial`         spatial free bodies and rolling disks ([001]), with
  :mod:`~mechstudio.core.systems.spatial_kernels`;
* :mod:`~mechstudio.core.systems.tree_maximal`    spherical-joint trees in maximal coordinates ([004] cross-check),
  with :mod:`~mechstudio.core.systems.base_motion` (the prescribed motion of body 0);
* :mod:`~mechstudio.core.systems.points`          world positions of named body points.
"""
