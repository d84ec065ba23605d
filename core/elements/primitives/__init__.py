"""Equation primitives of planar elements, each defined once in its own module (see docs/elements.md):
numeric group class, sympy form, and the name of its compiled loop in ``mechstudio.core.systems.planar_kernels``.

``HOLONOMIC`` and ``NONHOLONOMIC`` map each constraint spec class to (group class, symbolic function, compiled
name); the order of ``HOLONOMIC`` is the order of the groups in a planar system.
"""
from __future__ import annotations

from typing import Any, Callable

from mechstudio.core.elements.primitives import coordinate_driver, knife_edge, point_coincidence, point_line, relative_angle
from mechstudio.core.elements.primitives import gear_mesh, rack_mesh  # gears

Primitive = tuple[type, Callable[..., list[Any]], str]

HOLONOMIC: dict[type, Primitive] = {
    point_coincidence.PointCoincidenceSpec: (point_coincidence.PointCoincidence, point_coincidence.symbolic,
                                             point_coincidence.COMPILED),
    point_line.PointLineSpec: (point_line.PointLine, point_line.symbolic, point_line.COMPILED),
    relative_angle.RelativeAngleSpec: (relative_angle.RelativeAngle, relative_angle.symbolic,
                                       relative_angle.COMPILED),
    coordinate_driver.CoordinateDriverSpec: (coordinate_driver.CoordinateDriver, coordinate_driver.symbolic,
                                             coordinate_driver.COMPILED),
}
# gear pair and rack and pinion (gears)
HOLONOMIC.update({
    gear_mesh.GearMeshSpec: (gear_mesh.GearMesh, gear_mesh.symbolic, gear_mesh.COMPILED),
    rack_mesh.RackMeshSpec: (rack_mesh.RackMesh, rack_mesh.symbolic, rack_mesh.COMPILED),
})
# contact: planar rolling disk, cam and follower
from mechstudio.core.elements.primitives import cam_contact, disk_on_line  # noqa: E402

HOLONOMIC[disk_on_line.DiskOnLineSpec] = (disk_on_line.DiskOnLine, disk_on_line.symbolic, disk_on_line.COMPILED)
HOLONOMIC[cam_contact.CamContactSpec] = (cam_contact.CamContact, cam_contact.symbolic, cam_contact.COMPILED)

NONHOLONOMIC: dict[type, Primitive] = {
    knife_edge.KnifeEdgeSpec: (knife_edge.KnifeEdge, knife_edge.symbolic, knife_edge.COMPILED),
}
