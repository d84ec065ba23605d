"""The element registry (issue 14): every element type of the model schema is handled by every backend.

For each type of the model schema (core/model/schema.py: joints, drivers, forces) this checks:

* registry: the schema's types are exactly the registry's (core/elements), with fields the schema allows;
* numeric: the compiled system lists the element with the registry's row labels (force elements change h);
* finite differences (planar constraints): Phi_q against central differences of Phi (step 1e-6: truncation
  ~h^2 |Phi'''| ~ 1e-12, round-off ~eps |Phi| / h ~ 1e-10; tolerance 1e-7), Phi_t likewise in t, and gamma
  against the second difference -d^2/ds^2 Phi(q + v s, t + s) (step 1e-4: round-off ~4 eps / h^2 ~ 4e-8,
  truncation ~h^2 ~ 1e-8; tolerance 1e-5); nonholonomic rows: eta against d/ds (C_psi(q + v s) v + xi);
  conservative forces: h(q, 0) = -dV/dq by central differences of V (tolerance 1e-6);
* symbolic: Phi, Phi_q, Phi_t, gamma, C_psi, eta and Q of core.symbolic.planar at a random state equal the
  numeric ones to 1e-10 (both double precision; same equations, different evaluation order);
* compiled: the numba kernels (core.systems.planar_kernels via core.dynamics.projection_planar; their plain-Python
  source without numba) equal the numeric reference methods to 1e-12, reactions included;
* reactions: every constraint is reported, by the vectorised, reference and compiled paths alike, at its
  registry site; a pin (revolute, pin in slot) transmits no moment about the pin, a slot no force along it;
* editor placement (gui/editor/placement.py) creates the element from its palette entry (or the registry says
  where else it is created); 2D drawing (core/drawing/scene.py) gives it a record with the registry's symbol;
  3D drawing (gui/view3d/geometry.py) draws a marker for every joint type and the springs.

Spatial types (spherical, rolling_disk) are compiled from the sample models and checked the same way where
the backend exists (spatial symbolic: rolling disks; spherical joints are refused by name).
"""
from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sympy as sp

from mechstudio.core.elements import element_names, element_type
from mechstudio.core.errors import UnknownNameError
from mechstudio.core.model import Model, model_from_data
from mechstudio.core.model.schema import model_schema
from mechstudio.core.model.timefunc import T
from mechstudio.core.systems.compile import compile_model

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = model_schema()  # core/model/schema.json completed by the element types' branches
RNG_SEED = 20261124


def schema_types(section: str) -> list[str]:
    """The element types the model schema allows in a section (joints, drivers, forces)."""
    definition = {"joints": "joint", "drivers": "driver", "forces": "force"}[section]
    return list(SCHEMA["$defs"][definition]["properties"]["type"]["enum"])


def schema_fields(section: str, type_: str) -> set[str]:
    definition = {"joints": "joint", "drivers": "driver", "forces": "force"}[section]
    for branch in SCHEMA["$defs"][definition]["allOf"]:
        cond = branch["if"]["properties"]["type"]
        if cond.get("const") == type_ or type_ in cond.get("enum", ()):
            return set(branch["then"]["properties"]) - {"name", "type"}
    raise AssertionError(f"the schema has no branch for {type_}")


ALL_TYPES = [(s, t) for s in ("joints", "drivers", "forces") for t in schema_types(s)]
PLANAR_TYPES = [(s, t) for s, t in ALL_TYPES if element_type(t).dimension != "spatial"]
SPATIAL_SAMPLES = {"spherical": "spherical_pendulum.json", "rolling_disk": "rolling_disk.json",
                   "hinge": "rssr_linkage.json", "universal": "cardan_shaft.json", "slider": "cardan_shaft.json",
                   "cylindrical": "collar_pendulum.json", "fixed_joint": "collar_pendulum.json"}

# ---- a planar fixture model per element type ---------------------------------------------------------------
HARMONIC = {"type": "harmonic", "amplitude": 0.3, "frequency": 0.7, "phase": 0.2, "offset": 0.1}


def base_data() -> dict[str, Any]:
    """Two bodies with off-centre mass centres, rotated frames and bar geometry (for picking), a ground point."""
    def body(name: str, com: list[float], pose: list[float], mass: float, inertia: float, color: str) -> dict:
        return {"name": name, "mass": mass, "inertia": inertia, "com": com,
                "points": ({"p": [0.4, 0.1], "q": [-0.2, 0.3]} if name == "A"
                           else {"p": [-0.3, 0.2], "q": [0.25, -0.15]}),
                "geometry": [{"type": "bar", "from": "q", "to": "p", "width": 0.05}], "color": color,
                "initial": {"x": pose[0], "y": pose[1], "phi": pose[2]}}
    return {"format": "mechanism-studio-model", "version": 1, "name": "fixture", "kind": "planar",
            "gravity": [0.3, -9.81], "ground": {"points": {"G": [0.5, 0.5]}},
            "bodies": [body("A", [0.1, 0.05], [0.3, 0.2, 0.4], 2.0, 0.3, "#d9534f"),
                       body("B", [0.05, -0.1], [1.1, -0.3, -0.7], 1.5, 0.2, "#4a90d9")],
            "joints": [], "drivers": [], "forces": []}


REVOLUTE = {"name": "R", "type": "revolute", "body1": "A", "point1": "p", "body2": "B", "point2": "p"}
PRISMATIC = {"name": "Pr", "type": "prismatic", "body1": "A", "point1": "q", "body2": "B", "point2": "q",
             "axis": [0.6, 0.8], "angle": -0.2}
ELEMENT_ITEMS: dict[str, tuple[str, list[dict[str, Any]], dict[str, Any]]] = {
    # type -> (section, supporting joints, the element)
    "revolute": ("joints", [], REVOLUTE),
    "weld": ("joints", [], {"name": "W", "type": "weld", "body1": "A", "point1": "p", "body2": "B", "point2": "p",
                            "angle": 0.3}),
    "prismatic": ("joints", [], PRISMATIC),
    "pin_in_slot": ("joints", [], {"name": "S", "type": "pin_in_slot", "body1": "A", "point1": "q", "body2": "B",
                                   "point2": "p", "axis": [0.6, -0.8], "length": 1.0}),
    "knife_edge": ("joints", [], {"name": "K", "type": "knife_edge", "body": "B", "point": "q", "axis": [0.8, 0.6]}),
    "joint_angle": ("drivers", [REVOLUTE], {"name": "M", "type": "joint_angle", "joint": "R", "function": HARMONIC}),
    "joint_distance": ("drivers", [PRISMATIC], {"name": "D", "type": "joint_distance", "joint": "Pr",
                                                "function": {"type": "polynomial", "coefficients": [0.1, 0.2, 0.3]}}),
    "coordinate": ("drivers", [], {"name": "C", "type": "coordinate", "body": "B", "coordinate": "phi",
                                   "function": HARMONIC}),
    "spring_damper": ("forces", [], {"name": "Sp", "type": "spring_damper", "body1": "A", "point1": "p",
                                     "body2": "B", "point2": "q", "stiffness": 30.0, "damping": 0.7,
                                     "free_length": 0.4}),
    "rotational_spring_damper": ("forces", [REVOLUTE], {"name": "RS", "type": "rotational_spring_damper",
                                                        "joint": "R", "stiffness": 5.0, "damping": 0.2,
                                                        "free_angle": 0.1}),
    "applied_force": ("forces", [], {"name": "F", "type": "applied_force", "body": "B", "point": "q",
                                     "force": [HARMONIC, 2.0]}),
    "applied_torque": ("forces", [], {"name": "Tq", "type": "applied_torque", "body": "A",
                                      "torque": {"type": "expression", "expression": "sin(t)"}}),
}
# gears (issue 15): gear 1 = A and gear 2 = B on revolutes to the ground (carrier), centres 0.5 m apart;
# pinion A on a ground revolute, rack B on a ground prismatic
GEAR_REVOLUTES = [{"name": "RA", "type": "revolute", "body1": "ground", "point1": [0.0, 0.0], "body2": "A",
                   "point2": "p"},
                  {"name": "RB", "type": "revolute", "body1": "B", "point1": "q", "body2": "ground",
                   "point2": [0.3, 0.4]}]
RACK_SLIDE = {"name": "PB", "type": "prismatic", "body1": "ground", "point1": [0.0, -0.3], "body2": "B",
              "point2": "q", "axis": [0.8, 0.6], "angle": -0.7}
ELEMENT_ITEMS.update({
    "gear_pair": ("joints", GEAR_REVOLUTES, {"name": "GP", "type": "gear_pair", "joint1": "RA", "joint2": "RB",
                                             "radius1": 0.2, "radius2": 0.3, "pressure_angle": 0.35}),
    "rack_pinion": ("joints", [GEAR_REVOLUTES[0], RACK_SLIDE],
                    {"name": "RP", "type": "rack_pinion", "joint1": "RA", "joint2": "PB", "radius": 0.25,
                     "offset": 0.1, "pressure_angle": 0.3}),
})
# belt drive: pulleys A and B on the ground revolutes of the gears (centres 0.5 m apart), a crossed belt
ELEMENT_ITEMS["belt_drive"] = ("joints", GEAR_REVOLUTES, {"name": "BD", "type": "belt_drive", "joint1": "RA",
                                                          "joint2": "RB", "radius1": 0.15, "radius2": 0.1,
                                                          "crossed": True})
# contact (issue 15): planar rolling disk, cam and follower (flat face here; the roller in GROUND_VARIANTS)
CAM_PROFILE = {"type": "expression", "expression": "0.3 + 0.05*cos(t) + 0.02*sin(2*t)"}
ELEMENT_ITEMS["planar_rolling_disk"] = ("joints", [], {"name": "RD", "type": "planar_rolling_disk", "body1": "A",
                                                       "point1": "q", "axis": [0.6, 0.8], "body2": "B",
                                                       "point2": "p", "radius": 0.25})
ELEMENT_ITEMS["cam_follower"] = ("joints", [], {"name": "CF", "type": "cam_follower", "body1": "A", "point1": "p",
                                                "profile": CAM_PROFILE, "follower": "flat", "body2": "B",
                                                "point2": "q", "axis": [0.8, 0.6]})
# contacts that can let go: a contact pair between the bodies' bars (capsules); it adds no rows nor forces
ELEMENT_ITEMS["contact_pair"] = ("forces", [], {"name": "CP", "type": "contact_pair", "body1": "A", "shape1": 0,
                                                "body2": "B", "shape2": 0, "restitution": 0.5,
                                                "friction_static": 0.3, "friction_kinetic": 0.2})
#: the same types attached to the ground (other reaction sites and ground columns)
GROUND_VARIANTS = {
    "revolute_on_ground": {"name": "RG", "type": "revolute", "body1": "A", "point1": "q", "body2": "ground",
                           "point2": "G"},
    "pin_in_ground_slot": {"name": "SG", "type": "pin_in_slot", "body1": "ground", "point1": "G", "body2": "A",
                           "point2": "p", "axis": [1.0, 0.5]},
    # a ring gear fixed to the ground (gear 1) and a planet B on the moving carrier A (internal gearing)
    "gear_pair_ring_on_ground": {"name": "GR", "type": "gear_pair", "joint1": "RC", "joint2": "RD", "radius1": 0.8,
                                 "radius2": 0.3, "internal": True},
    # the pinion fixed to the ground, the rack B sliding on the moving carrier A (prismatic body1 = the rack)
    "rack_on_moving_carrier": {"name": "RM", "type": "rack_pinion", "joint1": "RC", "joint2": "PA",
                               "radius": 0.2, "side": "left"},
}
#: joints the ground variants rely on
VARIANT_SUPPORT = {
    "gear_pair_ring_on_ground": [
        {"name": "RC", "type": "revolute", "body1": "ground", "point1": [0.0, 0.0], "body2": "A", "point2": [0.0, 0.0]},
        {"name": "RD", "type": "revolute", "body1": "A", "point1": [0.5, 0.0], "body2": "B", "point2": "q"}],
    "rack_on_moving_carrier": [
        {"name": "RC", "type": "revolute", "body1": "ground", "point1": [0.0, 0.0], "body2": "A", "point2": [0.0, 0.0]},
        {"name": "PA", "type": "prismatic", "body1": "B", "point1": "p", "body2": "A", "point2": "q",
         "axis": [0.6, 0.8], "angle": 0.4}],
}
# an open belt from a pulley fixed to the ground (pulley 1) to pulley B on the moving carrier A
GROUND_VARIANTS["belt_open_on_moving_carrier"] = {"name": "BO", "type": "belt_drive", "joint1": "RC",
                                                  "joint2": "RD", "radius1": 0.2, "radius2": 0.1}
VARIANT_SUPPORT["belt_open_on_moving_carrier"] = VARIANT_SUPPORT["gear_pair_ring_on_ground"]
GROUND_VARIANTS.update({  # contact (issue 15): other followers and ground lines / cams
    "disk_on_ground_line": {"name": "RDG", "type": "planar_rolling_disk", "body1": "ground", "point1": "G",
                            "axis": [1.0, -0.3], "body2": "A", "point2": "p", "radius": 0.2},
    "cam_roller": {"name": "CR", "type": "cam_follower", "body1": "A", "point1": "q", "profile": CAM_PROFILE,
                   "follower": "roller", "body2": "B", "point2": "p", "radius": 0.1},
    "cam_roller_on_ground_cam": {"name": "CRG", "type": "cam_follower", "body1": "ground", "point1": "G",
                                 "profile": CAM_PROFILE, "follower": "roller", "body2": "A", "point2": "q",
                                 "radius": 0.05},
    "cam_flat_on_ground_cam": {"name": "CFG", "type": "cam_follower", "body1": "ground", "point1": "G",
                               "profile": CAM_PROFILE, "follower": "flat", "body2": "B", "point2": "p",
                               "axis": [1.0, 0.0]},
})


def fixture_data(type_: str, with_element: bool = True) -> dict[str, Any]:
    data = base_data()
    if type_ in GROUND_VARIANTS:
        data["joints"] += copy.deepcopy(VARIANT_SUPPORT.get(type_, []))
        if with_element:
            data["joints"].append(copy.deepcopy(GROUND_VARIANTS[type_]))
        return data
    section, support, item = ELEMENT_ITEMS[type_]
    data["joints"] += copy.deepcopy(support)
    if with_element:
        data[section].append(copy.deepcopy(item))
    return data


def fixture_model(type_: str, with_element: bool = True) -> Any:
    return model_from_data(fixture_data(type_, with_element), f"<{type_} fixture>")


def random_state(n: int, m: int, salt: int) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    rng = np.random.default_rng(RNG_SEED + salt)
    return rng.standard_normal(n), rng.standard_normal(n), 0.37 + 0.1 * salt, rng.standard_normal(m)


PLANAR_CASES = [t for _, t in PLANAR_TYPES] + list(GROUND_VARIANTS)


def element_of(type_: str) -> str:
    return GROUND_VARIANTS[type_]["type"] if type_ in GROUND_VARIANTS else type_


def name_of(type_: str) -> str:
    return GROUND_VARIANTS[type_]["name"] if type_ in GROUND_VARIANTS else ELEMENT_ITEMS[type_][2]["name"]


# ---- the registry and the schema ---------------------------------------------------------------------------
def test_every_schema_type_has_its_element_module_with_schema_fields():
    for section in ("joints", "drivers", "forces"):
        for t in schema_types(section):
            et = element_type(t, section)  # raises when core/elements/<t>.py is missing
            assert et.name == t and et.section == section
            assert set(et.fields.names) <= schema_fields(section, t), t
            assert et.editor.label and et.editor.drawing, t
            assert bool(et.components) == et.is_constraint, t


def test_unknown_type_fails_loudly_naming_it_and_the_valid_ones():
    with pytest.raises(UnknownNameError) as info:
        element_type("worm_gear", "joints")
    assert "worm_gear" in str(info.value) and "revolute" in str(info.value) and "pin_in_slot" in str(info.value)
    # a type that reaches the compiler without the loader (e.g. a new schema type nobody registered) is refused
    data = fixture_data("revolute")
    data["joints"][0]["type"] = "worm_gear"
    with pytest.raises(UnknownNameError, match="worm_gear"):
        compile_model(Model(data))


def test_every_fixture_covers_every_planar_type():
    assert sorted(ELEMENT_ITEMS) == sorted(t for _, t in PLANAR_TYPES)


# ---- numeric backend, finite differences ---------------------------------------------------------------------
def fd_jacobian(f: Any, q: np.ndarray, h: float = 1e-6) -> np.ndarray:
    cols = []
    for k in range(q.size):
        e = np.zeros_like(q)
        e[k] = h
        cols.append((f(q + e) - f(q - e)) / (2 * h))
    return np.array(cols).T


@pytest.mark.parametrize("case", PLANAR_CASES)
def test_numeric_rows_and_jacobians_against_finite_differences(case):
    model = fixture_model(case)
    s = compile_model(model)
    et = element_type(element_of(case))
    if not et.is_constraint:
        base = compile_model(fixture_model(case, with_element=False))
        q, v, t, _ = random_state(s.n, s.m, 1)
        if case == "contact_pair":  # acts only in event-driven runs (tests/test_contact_physics.py)
            np.testing.assert_array_equal(s.forces(q, v, t), base.forces(q, v, t))
            return
        assert np.linalg.norm(s.forces(q, v, t) - base.forces(q, v, t)) > 1e-3  # the force element acts
        if case in ("spring_damper", "rotational_spring_damper"):  # conservative part: h(q, 0) = -dV/dq
            grad = fd_jacobian(lambda x: np.array([s.potential_energy(x, t)]), q)[0]
            np.testing.assert_allclose(s.forces(q, np.zeros_like(q), t), -grad, atol=1e-6)
        return
    info = next(c for c in s.constraints if c.name == name_of(case))
    assert info.components == et.row_components(model.entities.joints[-1] if et.section == "joints"
                                                else model.entities.drivers[-1])
    assert info.holonomic == et.holonomic
    for salt in range(3):
        q, v, t, _ = random_state(s.n, s.m, salt)
        mh = s.m_holonomic
        if mh:
            np.testing.assert_allclose(s.phi_q(q, t), fd_jacobian(lambda x: s.phi(x, t), q), atol=1e-7)
            np.testing.assert_allclose(s.phi_t(q, t), (s.phi(q, t + 1e-6) - s.phi(q, t - 1e-6)) / 2e-6, atol=1e-7)
            h = 1e-4
            second = (s.phi(q + v * h, t + h) - 2 * s.phi(q, t) + s.phi(q - v * h, t - h)) / h ** 2
            np.testing.assert_allclose(s.gamma(q, v, t), -second, atol=1e-5)
        if s.m_nonholonomic:
            def velocity_rows(x: np.ndarray, tt: float) -> np.ndarray:
                return (s.constraint_matrix(x, tt) @ v + s.xi(x, tt))[mh:]
            h = 1e-6
            deriv = (velocity_rows(q + v * h, t + h) - velocity_rows(q - v * h, t - h)) / (2 * h)
            np.testing.assert_allclose(s.eta(q, v, t)[mh:], deriv, atol=1e-7)


# ---- symbolic backend ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", PLANAR_CASES)
def test_symbolic_form_equals_numeric(case):
    from mechstudio.core.symbolic.planar import planar_symbolic
    model = fixture_model(case)
    s = compile_model(model)
    sym = planar_symbolic(model)
    assert sym.row_labels == s.row_labels()
    q, v, t, _ = random_state(s.n, s.m, 5)
    args = list(sym.q) + list(sym.qd) + [T]
    vals = list(q) + list(v) + [t]

    def ev(expr: sp.Matrix) -> np.ndarray:
        return np.array(sp.lambdify(args, expr, "numpy")(*vals), float).reshape(expr.shape)

    mh = s.m_holonomic
    if mh:
        np.testing.assert_allclose(ev(sym.Phi).ravel(), s.phi(q, t), atol=1e-10)
        np.testing.assert_allclose(ev(sym.Phi_q), s.phi_q(q, t), atol=1e-10)
        np.testing.assert_allclose(ev(sym.Phi_t).ravel(), s.phi_t(q, t), atol=1e-10)
        np.testing.assert_allclose(ev(sym.gamma).ravel(), s.gamma(q, v, t), atol=1e-10)
    if s.m_nonholonomic:
        np.testing.assert_allclose(ev(sym.C_psi), s.constraint_matrix(q, t)[mh:], atol=1e-10)
        np.testing.assert_allclose(ev(sym.eta_psi).ravel(), s.eta(q, v, t)[mh:], atol=1e-10)
    np.testing.assert_allclose(ev(sym.Q).ravel(), s.forces(q, v, t), atol=1e-10)


# ---- compiled backend and reactions -------------------------------------------------------------------------
def compiled_terms() -> tuple[Any, ...]:
    """(position terms, velocity terms, potential, reactions) of core.systems.planar_kernels: numba-compiled (after the
    projection's kernel set has compiled their helpers), or their plain-Python source without numba."""
    from mechstudio.core.systems import planar_kernels
    from mechstudio.core.dynamics import projection_planar
    from mechstudio.core.jit import compile_helper
    projection_planar.kernels()
    return tuple(compile_helper(f) for f in (planar_kernels.k_position_terms, planar_kernels.k_velocity_terms,
                                             planar_kernels.k_potential, planar_kernels.k_reactions))


@pytest.mark.parametrize("case", PLANAR_CASES)
def test_compiled_path_and_reactions_equal_numeric(case):
    position, velocity, potential, reactions = compiled_terms()
    model = fixture_model(case)
    s = compile_model(model)
    geo, frc, react = s.fused_data()
    for salt in range(3):
        q, v, t, lam = random_state(s.n, s.m, salt)
        fval, faccel, xi, loads, torques = s.time_arrays(t)
        C, phi = position(q, geo, fval)
        np.testing.assert_allclose(C, s.constraint_matrix_reference(q, t), atol=1e-12)
        np.testing.assert_allclose(phi, s.phi_reference(q, t), atol=1e-12)
        np.testing.assert_allclose(xi, s.xi_reference(q, t), atol=1e-12)
        h, eta, _ = velocity(q, v, geo, frc, faccel, loads, torques)
        np.testing.assert_allclose(h, s.forces_reference(q, v, t), atol=1e-12)
        np.testing.assert_allclose(eta, s.eta_reference(q, v, t), atol=1e-12)
        assert potential(q, geo, frc) == pytest.approx(s.potential_energy(q, t), abs=1e-12)
        ref, fast = s.reactions_reference(q, lam, t), s.reactions(q, lam, t)
        assert list(ref) == [c.name for c in s.constraints] == list(fast)
        compiled = reactions(q, C, lam, react)
        for k, c in enumerate(s.constraints):
            np.testing.assert_allclose(fast[c.name], ref[c.name], atol=1e-12)
            np.testing.assert_allclose(compiled[k], ref[c.name], atol=1e-12)
        if element_of(case) in ("revolute", "pin_in_slot"):
            r = ref[name_of(case)]
            assert abs(r[5]) < 1e-12  # a pin transmits no moment about itself
            if element_of(case) == "pin_in_slot":
                j = next(j for j in model.entities.joints if j.name == name_of(case))
                phi1 = 0.0 if j.body1 == "ground" else q[3 * s.index[j.body1] + 2]
                axis = np.array(j.axis) / np.linalg.norm(j.axis)
                along = np.array([[math.cos(phi1), -math.sin(phi1)], [math.sin(phi1), math.cos(phi1)]]) @ axis
                assert abs(along @ r[:2]) < 1e-12 * max(1.0, np.linalg.norm(r[:2]))  # no force along the slot
        if element_of(case) in ("gear_pair", "rack_pinion"):  # the tooth force along the pressure line
            j = next(j for j in model.entities.joints if j.name == name_of(case))
            r = ref[name_of(case)]
            c1, c2 = (s.point_position(q, b, p) if b != "ground" else np.asarray(p[:2])
                      for b, p in ((j.body1, j.point1), (j.body2, j.point2)))
            phic = 0.0 if j.carrier == "ground" else q[3 * s.index[j.carrier] + 2]
            turn = np.array([[math.cos(phic), -math.sin(phic)], [math.sin(phic), math.cos(phic)]])
            u = turn @ np.array(j.axis)
            # the tangential force F_t: C_rows^T lambda on the reported body's x, y, times the site's sign
            info = next(c for c in s.constraints if c.name == name_of(case))
            body = j.body2 if j.body2 != "ground" else j.body1
            k = s.index[body]
            ft = (C[list(info.rows)][:, 3 * k:3 * k + 2].T @ lam[list(info.rows)]) * (1 if body == j.body2 else -1)
            scale = 1e-12 * max(1.0, np.linalg.norm(ft))
            if element_of(case) == "gear_pair":  # F_t perpendicular to the line of centres
                assert abs((c2 - c1) @ ft) < scale * np.linalg.norm(c2 - c1)
                radial = u if not j.internal else -u  # pushes gear 2 away from gear 1
            else:  # F_t along the rack's axis; the radial part pushes the rack away from the pinion
                assert abs(u[0] * ft[1] - u[1] * ft[0]) < scale
                eps = -1.0 if j.side == "left" else 1.0
                radial = eps * np.array([u[1], -u[0]])
            np.testing.assert_allclose(r[:2], ft + math.tan(j.pressure_angle) * np.linalg.norm(ft) * radial,
                                       atol=1e-12 * max(1.0, np.linalg.norm(ft)))
            assert np.linalg.norm(ft) > 1e-3
            if element_of(case) == "rack_pinion":  # the force acts on the pitch line, at P = O_p - rho perp(u)
                rho = j.radius if j.side != "left" else -j.radius
                arm = c1 + rho * np.array([u[1], -u[0]]) - (c2 if j.body2 != "ground" else c1)
                assert r[5] == pytest.approx(arm[0] * r[1] - arm[1] * r[0], abs=1e-12 * max(1.0, np.linalg.norm(ft)))


# ---- spatial types ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("type_", [t for _, t in ALL_TYPES if element_type(t).dimension == "spatial"])
def test_spatial_types_compile_and_their_symbolic_backend(type_):
    from mechstudio.core.model import load_model
    from mechstudio.core.symbolic.appell import SymbolicUnsupported
    from mechstudio.core.symbolic.spatial import spatial_symbolic
    model = load_model(ROOT / "sample_models" / SPATIAL_SAMPLES[type_])
    s = compile_model(model)
    names = [j.name for j in model.entities.joints if j.type == type_]
    assert names and all(n in [c.name for c in s.constraints] for n in names)
    q, v, t, lam = random_state(s.n, s.m, 2)
    assert set(names) <= set(s.reactions(q, lam, t))
    if type_ == "rolling_disk":
        sym = spatial_symbolic(model)
        args = list(sym.q) + list(sym.qd) + [T]
        Cs = np.array(sp.lambdify(args, sym.C, "numpy")(*(list(q) + list(v) + [t])), float)
        np.testing.assert_allclose(Cs, s.constraint_matrix(q, t), atol=1e-10)
    else:
        with pytest.raises(SymbolicUnsupported, match=type_):
            spatial_symbolic(model)
    # a spatial element in a planar model is refused by name, never silently unconstrained
    data = fixture_data("revolute")
    data["joints"].append({"name": "X", "type": type_, **({"body": "A", "radius": 0.2} if type_ == "rolling_disk"
                                                          else {"body1": "A", "point1": "p", "body2": "B",
                                                                "point2": "q"})})
    with pytest.raises(ValueError, match=type_):
        compile_model(model_from_data(data))


# ---- editor placement, 2D and 3D drawing ----------------------------------------------------------------------
def placed_types(model: Any) -> list[tuple[str, str]]:
    return [(sec, x["type"]) for sec in ("joints", "drivers", "forces") for x in model.data.get(sec, [])]


@pytest.mark.parametrize("section,type_", ALL_TYPES)
def test_editor_places_every_type_from_its_palette_entry(section, type_):
    from mechstudio.gui.editor import placement
    from mechstudio.core.drawing.scene import scene_geometry
    info = element_type(type_).editor
    if info.palette is None:
        assert info.no_palette, f"{type_}: neither a palette entry nor where else it is created"
        return
    assert info.palette in placement.PALETTE, f"{type_}: palette kind {info.palette!r} missing in placement"
    support = {t: joints for t, (_, joints, _) in ELEMENT_ITEMS.items() if joints}  # the joints it acts on
    data = base_data()
    data["joints"] += copy.deepcopy(support.get(type_, []))
    model = model_from_data(data)
    sg = scene_geometry(model)
    before = placed_types(model)
    if info.palette in placement.CONNECTOR_KINDS:
        a = placement.Attach("A", "p", sg.body("A").points["p"])
        b = placement.Attach("B", "q", sg.body("B").points["q"])
        result = placement.connect(model, info.palette, a, b)
    elif info.palette in placement.COUPLING_KINDS:  # gears (issue 15): click the two joints they couple
        first, second = (next(g for g in sg.joints if g.name == j["name"]) for j in support[type_])
        pending = placement.place(model, sg, info.palette, first.p2, 0.05)
        assert isinstance(pending, placement.Pending), pending
        result = placement.complete(model, sg, pending, second.p2, 0.05)
    elif support.get(type_):
        result = placement.place(model, sg, info.palette, sg.joints[0].p2, 0.05)
    else:
        result = placement.place(model, sg, info.palette, sg.body("A").points["p"], 0.05)
    assert isinstance(result, placement.Placed), result
    added = [x for x in placed_types(result.model) if x not in before or placed_types(result.model).count(x) >
             before.count(x)]
    assert (section, type_) in added, (type_, added)
    compile_model(result.model)  # what the editor writes compiles


@pytest.mark.parametrize("case", PLANAR_CASES)
def test_2d_drawing_has_a_record_for_every_planar_element(case):
    from mechstudio.core.drawing.scene import scene_geometry
    model = fixture_model(case)
    sg = scene_geometry(model)
    et = element_type(element_of(case))
    records = {"joints": sg.joints, "drivers": sg.drivers, "forces": sg.forces}[et.section]
    rec = next((r for r in records if r.name == name_of(case)), None)
    assert rec is not None, f"no 2D record for {case}"
    if et.section == "joints":
        assert rec.symbol == et.editor.drawing
    if element_of(case) == "pin_in_slot":
        j = GROUND_VARIANTS.get(case) or ELEMENT_ITEMS[case][2]
        assert rec.p2 == pytest.approx(sg.point_of(j["body2"], j["point2"]))
        if "length" in j:
            (x0, y0), (x1, y1) = rec.slot
            assert math.hypot(x1 - x0, y1 - y0) == pytest.approx(j["length"])
            assert ((x0 + x1) / 2, (y0 + y1) / 2) == pytest.approx(rec.p1)
    if element_of(case) == "gear_pair":  # pitch circles about the gears' centres, the pitch point between them
        j = GROUND_VARIANTS.get(case) or ELEMENT_ITEMS[case][2]
        (c1, r1), (c2, r2) = rec.circles
        assert (r1, r2) == (j["radius1"], j["radius2"]) and rec.p1 == c1
        assert math.dist(rec.p2, c1) == pytest.approx(r1) and math.dist(rec.p2, c2) == pytest.approx(r2)
    if element_of(case) == "rack_pinion":  # the pinion's pitch circle tangent to the rack's pitch line
        (c, r), = rec.circles
        (x0, y0), (x1, y1) = rec.rack
        dist = abs((x1 - x0) * (c[1] - y0) - (y1 - y0) * (c[0] - x0)) / math.hypot(x1 - x0, y1 - y0)
        assert dist == pytest.approx(r) and math.dist(rec.p2, c) == pytest.approx(r)


def test_2d_drawing_of_spatial_joints():
    from mechstudio.core.model import load_model
    from mechstudio.core.drawing.scene import scene_geometry
    for type_, sample in SPATIAL_SAMPLES.items():
        sg = scene_geometry(load_model(ROOT / "sample_models" / sample))
        assert any(j.type == type_ and j.symbol == element_type(type_).editor.drawing for j in sg.joints)


@pytest.mark.parametrize("section,type_", ALL_TYPES)
def test_3d_drawing_draws_every_joint_and_spring(section, type_):
    from mechstudio.core.model import load_model
    from mechstudio.gui.view3d.geometry import build_scene
    if element_type(type_).dimension == "spatial":
        scene = build_scene(load_model(ROOT / "sample_models" / SPATIAL_SAMPLES[type_]))
        name = next(j.name for j in load_model(ROOT / "sample_models" / SPATIAL_SAMPLES[type_]).entities.joints
                    if j.type == type_)
        assert name in scene.joint_points or name in scene.disk_contacts
        return
    with_el, without = build_scene(fixture_model(type_)), build_scene(fixture_model(type_, with_element=False))
    if section == "joints":
        assert _vertex_count(with_el) > _vertex_count(without), f"no 3D marker for {type_}"
    elif type_ == "spring_damper":
        assert len(with_el.springs) == len(without.springs) + 1
    else:  # drivers and loads: the 3D view shows the motion they cause, not a symbol (the 2D editor does)
        assert _vertex_count(with_el) == _vertex_count(without)


def _vertex_count(scene: Any) -> int:
    return len(scene.ground.vertices) + sum(len(b.mesh.vertices) for b in scene.bodies)


def test_element_names_cover_all_sections():
    assert set(element_names()) == {t for _, t in ALL_TYPES}


# ---- contact (issue 15): the cam's compiled route ----------------------------------------------------------------
def test_cam_compiled_route_is_its_profile_table():
    """The time-function expression of a cam profile cannot run inside numba: the numeric and compiled backends
    both evaluate its quintic Hermite table (core/elements/primitives/cam_profile.py), built from the exact r, r',
    r'' at TABLE_NODES nodes; the symbolic backend uses the exact expression, so test_symbolic_form_equals_numeric
    checks the table to 1e-10 for the cam cases. Here: the compiled data carry exactly that table, and a profile
    the table cannot resolve is refused at load time (no silent approximation)."""
    from mechstudio.core.elements.primitives.cam_profile import TABLE_NODES, profile_table
    from mechstudio.core.systems.planar_kernels import PlanarGeometry
    for case in ("cam_follower", "cam_roller"):
        model = fixture_model(case)
        geo = PlanarGeometry(*compile_model(model).fused_data()[0])
        cam = next(j for j in model.entities.joints if j.type == "cam_follower")
        assert geo.cm_tab.shape == (TABLE_NODES, 3) and list(geo.cm_n) == [TABLE_NODES]
        np.testing.assert_array_equal(geo.cm_tab, profile_table(cam.profile))
    data = fixture_data("cam_roller")
    data["joints"][-1]["profile"] = {"type": "expression", "expression": "0.3 + 0.02*abs(sin(t))"}
    with pytest.raises(Exception, match="not smooth enough"):
        model_from_data(data)
