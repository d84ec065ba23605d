"""Analyses a linkage designer asks for beyond one simulation, each on a compiled system: statics and inverse
dynamics (the pose of equilibrium, joint forces, the driver's holding force or torque), the classic linkage
outputs (instant centres, transmission angle, mechanical advantage, Grashof class, dead-centre and limit
positions), linearisation about an equilibrium (natural frequencies, damping ratios, mode shapes) and the
dimensional synthesis of four-bars (path and function generation: the linkage for a task, as a model).

The layer sits above the simulation layer (it may run simulations) and below the commands that print its
results (``mechstudio statics``, ``mechstudio linkage``, ``mechstudio modes``, ``mechstudio synthesize``).
"""
