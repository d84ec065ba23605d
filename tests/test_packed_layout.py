"""The compiled data layout is generated from the equation primitives' declared fields.

core/elements/primitives/<primitive>.py declares ``COMPILED_FIELDS`` (name, kind); core/systems/planar_kernels.py
generates PlanarGeometry and PlanarForces from them, and core/dynamics/packed_planar.py generates the packed
segments and their rebuilders from those layouts. Checked here: the layouts are exactly the declarations (every
registered primitive included); a field added to a primitive's declaration is packed and comes back from the
packed arrays at its place; a field a primitive returns without declaring it, or of another kind than declared,
is refused with a message naming the primitive and the field -- so no model leaves the packed fast path
silently.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mechstudio.core.dynamics import packed_planar
from mechstudio.core.elements.primitives import HOLONOMIC, NONHOLONOMIC, forces, gear_mesh
from mechstudio.core.elements.primitives.base import NUMBER, VECTOR
from mechstudio.core.model import load_model
from mechstudio.core.systems import planar_kernels
from mechstudio.core.systems.compile import compile_model
from mechstudio.core.systems.planar_kernels import (COUNT, GEOMETRY_LAYOUT, GEOMETRY_PRIMITIVES, checked_fields,
                                                    geometry_layout)

ROOT = Path(__file__).resolve().parents[1]


def gear_train():
    return compile_model(load_model(ROOT / "sample_models" / "gear_train.json"))


def test_layouts_are_the_declarations():
    expected = [("nb", COUNT), ("m", COUNT), ("mh", COUNT)]
    expected += [(f"{p.COMPILED}_{n}", k) for p in GEOMETRY_PRIMITIVES for n, k in p.COMPILED_FIELDS]
    assert list(GEOMETRY_LAYOUT) == expected
    assert planar_kernels.PlanarGeometry._fields == tuple(f for f, _ in expected)
    forces_expected = [("mass_diagonal", NUMBER), ("gravity_force", NUMBER)]
    forces_expected += [(f"{p}_{n}", k) for p, fields in forces.COMPILED_FIELDS.items() for n, k in fields]
    assert list(planar_kernels.FORCES_LAYOUT) == forces_expected
    # every registered primitive has its place in the layout (a new one cannot be left out)
    registered = {compiled for _, _, compiled in list(HOLONOMIC.values()) + list(NONHOLONOMIC.values())}
    assert registered == {p.COMPILED for p in GEOMETRY_PRIMITIVES}
    assert packed_planar.layout_matches()
    assert (packed_planar.FORCES_FIRST, packed_planar.REACTIONS_FIRST, packed_planar.PLAN_FIRST) == (
        len(GEOMETRY_LAYOUT) - 2, len(GEOMETRY_LAYOUT) - 2 + len(planar_kernels.FORCES_LAYOUT),
        len(GEOMETRY_LAYOUT) - 2 + len(planar_kernels.FORCES_LAYOUT) + len(planar_kernels.REACTIONS_LAYOUT))


def test_a_field_added_to_a_primitive_is_packed(monkeypatch: pytest.MonkeyPatch):
    """Declare a new vector field on the gear mesh and return it from its group: the generated layout has it
    after the gear mesh's other fields, and the generated rebuilder returns it, with every other field, from the
    packed arrays."""
    monkeypatch.setattr(gear_mesh, "COMPILED_FIELDS", gear_mesh.COMPILED_FIELDS + (("extra", VECTOR),))
    original = gear_mesh.GearMesh.compiled_fields

    def with_extra(self, mh):  # noqa: ANN001, ANN202
        out = original(self, mh)
        out["gm_extra"] = np.arange(2.0 * self.count).reshape(-1, 2) + 0.5
        return out
    monkeypatch.setattr(gear_mesh.GearMesh, "compiled_fields", with_extra)
    layout = geometry_layout()
    names = [f for f, _ in layout]
    assert names.index("gm_extra") == names.index("gm_radii") + 1
    s = gear_train()
    fields = {}
    for g in s.groups:
        fields.update(checked_fields(g, g.compiled_fields(s.m_holonomic)))
    geo = tuple([s.nb, s.m, s.m_holonomic] + [fields[f] if f in fields else planar_kernels.empty_array(k)
                                              for f, k in layout[3:]])
    namespace = {k: getattr(packed_planar, k) for k in ("iseg", "fseg", "vseg", "tseg", "rseg")}
    rebuilt, _ = packed_planar.unpackers((("unpack_geometry", layout),), namespace)
    packed_planar.check_layout(layout, geo, "PlanarGeometry")
    I, F = packed_planar.pack(geo)
    back = rebuilt["unpack_geometry"](I, F)
    assert len(back) == len(layout)
    for (name, _), a, b in zip(layout, geo, back):
        a, b = np.asarray(a), np.asarray(b)
        if a.size or b.size:
            assert a.shape == b.shape and np.array_equal(a, b), name
    extra = back[names.index("gm_extra")]
    assert extra.shape == (2, 2) and np.array_equal(extra, fields["gm_extra"])  # gear_train: two meshes


def test_an_undeclared_field_is_refused_naming_it(monkeypatch: pytest.MonkeyPatch):
    original = gear_mesh.GearMesh.compiled_fields
    monkeypatch.setattr(gear_mesh.GearMesh, "compiled_fields",
                        lambda self, mh: {**original(self, mh), "gm_backlash": np.zeros(self.count)})
    with pytest.raises(ValueError, match=r"GearMesh.*'gm_backlash'.*COMPILED_FIELDS"):
        gear_train().fused_data()


def test_a_declared_field_missing_or_of_another_kind_is_refused_naming_it(monkeypatch: pytest.MonkeyPatch):
    original = gear_mesh.GearMesh.compiled_fields
    monkeypatch.setattr(gear_mesh.GearMesh, "compiled_fields",
                        lambda self, mh: {k: v for k, v in original(self, mh).items() if k != "gm_e"})
    with pytest.raises(ValueError, match=r"GearMesh.*'gm_e' is missing"):
        gear_train().fused_data()
    monkeypatch.setattr(gear_mesh.GearMesh, "compiled_fields",
                        lambda self, mh: {**original(self, mh), "gm_radii": np.zeros(self.count)})
    with pytest.raises(ValueError, match=r"GearMesh.*'gm_radii'.*not the declared vector"):
        gear_train().fused_data()
    monkeypatch.setattr(gear_mesh.GearMesh, "compiled_fields", original)
    geo, frc, react = gear_train().fused_data()
    bad = list(geo)
    bad[list(planar_kernels.PlanarGeometry._fields).index("gm_bi")] = np.zeros(3)
    with pytest.raises(ValueError, match=r"PlanarGeometry.gm_bi: declared index"):
        packed_planar.pack_planar(tuple(bad), frc, react)


def test_the_generated_rebuilders_read_one_segment_per_field_in_order():
    for name, layout, first in (("unpack_geometry", GEOMETRY_LAYOUT, 0),
                                ("unpack_forces", planar_kernels.FORCES_LAYOUT, packed_planar.FORCES_FIRST),
                                ("unpack_reactions", planar_kernels.REACTIONS_LAYOUT, packed_planar.REACTIONS_FIRST)):
        source, after = packed_planar.unpacker_source(name, layout, first)
        counts = 1 if layout[0][1] == COUNT else 0
        readers = [packed_planar.READERS[kind].format(k=first + counts + i)
                   for i, (_, kind) in enumerate(f for f in layout if f[1] != COUNT)]
        positions = [source.index(r) for r in readers]
        assert positions == sorted(positions) and after == first + counts + len(readers), name
