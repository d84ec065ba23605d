"""Compile the numba kernels once into their on-disk cache (core/__pycache__/numba-<digest>, see core.jit), so that neither the first
simulation in the app nor the first test pays ~20 s of JIT compilation. Run by the Makefile after installing."""
from core.simulate import simulate

for path, formulation in (("sample_models/pendulum.json", "projection"),
                          ("sample_models/rolling_disk.json", "projection"),
                          ("sample_models/spherical_chain_3.json", "wittenburg")):
    simulate(path, t_end=0.02, formulation=formulation)
print("numba kernels compiled and cached")
