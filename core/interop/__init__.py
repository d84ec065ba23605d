"""Exchange with other mechanism tools: :mod:`mechstudio.core.interop.pyslvs` reads Pyslvs mechanism expressions,
:mod:`mechstudio.core.interop.mjcf` writes MuJoCo MJCF files."""
