"""Running a simulation: settings (``settings``), the initial state (``initial``), the driver (``driver``), the
frames and trajectory it produces (``frames``), BLAS threads during a run (``blas``) and the separate ALI3-P
driver of the augmented Lagrangian comparison method (``ali3p``). ``mechstudio.core.simulate`` is the public face."""
