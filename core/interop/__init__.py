"""Exchange with other mechanism tools: :mod:`core.interop.pyslvs` reads Pyslvs mechanism expressions,
:mod:`core.interop.mjcf` writes MuJoCo MJCF files."""
