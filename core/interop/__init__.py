"""Exchange with other mechanism tools: :mod:`mechstudio.core.interop.pyslvs` reads Pyslvs mechanism expressions,
:mod:`mechstudio.core.interop.mjcf` writes MuJoCo MJCF files; :mod:`mechstudio.core.interop.robot_import` reads
URDF (:mod:`~mechstudio.core.interop.urdf`) and MJCF (:mod:`~mechstudio.core.interop.mjcf_import`) files, with the
shared :mod:`~mechstudio.core.interop.xmlsource` (XML with lines, the import report) and
:mod:`~mechstudio.core.interop.spatial_build` (the model document)."""
