"""Running a simulation: settings (``settings``), the initial state (``initial``), the driver (``driver``), the
frames and trajectory it produces (``frames``), BLAS threads during a run (``blas``), the choice between the numpy
and the compiled path of a run (``kernels``) with the background compiler of the kernels (``compiler``, its process
``compiler_child``), and the separate ALI3-P driver of the augmented Lagrangian comparison method (``ali3p``).
``mechstudio.core.simulate`` is the public face."""
