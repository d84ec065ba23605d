"""Compile the numba kernels once into their on-disk cache (<user cache>/numba-<digest>, see core.jit), so that neither the first
simulation in the app nor the first test pays ~20 s of JIT compilation. Run by the Makefile after installing."""
from core.simulate import simulate

from core.samples import sample_path

for name, formulation in (("pendulum", "projection"),
                          ("rolling_disk", "projection"),
                          ("spherical_chain_3", "wittenburg")):
    simulate(str(sample_path(name)), t_end=0.02, formulation=formulation)
print("numba kernels compiled and cached")
