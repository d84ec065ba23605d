"""Compiling a loaded model into its numeric system: :func:`compile_model`.

The system class follows the model's kind: a :class:`~mechstudio.core.systems.planar.PlanarSystem`, a
:class:`~mechstudio.core.systems.spatial.SpatialSystem` (free bodies, rolling disks), a
:class:`~mechstudio.core.systems.tree_maximal.TreeMaximalSystem` (spherical-joint trees: only spherical joints) or a
:class:`~mechstudio.core.systems.maximal_joints.MaximalJointSystem` (spatial models with a hinge, slider,
cylindrical, universal or fixed joint: any graph of them and of spherical joints, closed loops included).
"""
from __future__ import annotations

from mechstudio.core.errors import Diagnostic, ModelError
from mechstudio.core.model.document import Model
from mechstudio.core.model.spatial_joints import uses_maximal_joints
from mechstudio.core.systems.base import ConstrainedSystem


def compile_model(model: Model) -> ConstrainedSystem:
    """Compile a validated :class:`Model` into its numeric :class:`ConstrainedSystem`.

    Checks that need the compiled system run here (loading never compiles): the quasi-velocity choices of the
    file must be independent of the constraints; problems raise :class:`~core.errors.ModelError` with JSON
    pointers into the file, like the loader's."""
    system = _build(model)
    if "quasi_velocities" in model.data:
        from mechstudio.core.symbolic.quasi import quasi_velocity_problems  # sympy: imported only for such models
        problems = quasi_velocity_problems(system)
        if problems:
            raise ModelError([Diagnostic(model.source, p, m) for p, m in problems])
    return system


def _build(model: Model) -> ConstrainedSystem:
    if uses_maximal_joints(model.data):
        from mechstudio.core.systems.maximal_joints import MaximalJointSystem  # start-up: only the model's kind
        return MaximalJointSystem(model)
    if model.kind == "spatial" and any(j.type == "spherical" for j in model.joints):
        from mechstudio.core.systems.tree_maximal import TreeMaximalSystem  # start-up: only the model's kind
        return TreeMaximalSystem(model)
    if model.kind == "spatial":
        from mechstudio.core.systems.spatial import SpatialSystem  # start-up: only the model's kind is imported
        return SpatialSystem(model)
    from mechstudio.core.systems.planar import PlanarSystem  # start-up: only the model's kind is imported
    return PlanarSystem(model)
