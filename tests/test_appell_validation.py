"""Validation of quasi-velocity choices in model files (issue 5): dependent or malformed choices are rejected
with messages that name the quasi-velocity and the constraint rows involved -- when the model is compiled
(issue 14: loading validates the file and never compiles it; checks that need the compiled system run in
``compile_model``, with the same ModelError diagnostics)."""
from __future__ import annotations

import json

import pytest

from appell_helpers import SAMPLES
from mechstudio.core.errors import ModelError
from mechstudio.core.model.io import loads_model
from mechstudio.core.systems.compile import compile_model


def _load_with(name: str, qv: dict):
    """Load and compile the sample with the given choices (either step may raise the ModelError)."""
    data = json.loads((SAMPLES / name).read_text())
    data["quasi_velocities"] = qv
    return compile_model(loads_model(json.dumps(data), "test.json"))


def _messages(exc: ModelError) -> str:
    return "\n".join(d.format() for d in exc.diagnostics)


def test_samples_with_choices_load():
    for name in ("ice_skate_incline.json", "slider_pendulum.json", "chaplygin_sleigh.json"):
        compile_model(loads_model((SAMPLES / name).read_text(), name))


def test_loading_never_compiles():
    """A dependent choice loads (the loader only validates the file); compiling reports it."""
    data = json.loads((SAMPLES / "ice_skate_incline.json").read_text())
    data["quasi_velocities"] = {"choice": [{"name": "a", "coefficients": {"skate.phi": 1}},
                                           {"name": "b", "coefficients": {"skate.phi": 2}}]}
    model = loads_model(json.dumps(data), "test.json")
    with pytest.raises(ModelError):
        compile_model(model)


def test_choice_equal_to_a_constraint_row_is_rejected_naming_it_and_the_row():
    # the blade's normal speed is zero by the knife-edge constraint: not an independent quasi-velocity
    qv = {"choice": [{"name": "slip", "expression": "-sin(skate.phi)*d(skate.x) + cos(skate.phi)*d(skate.y)"},
                     {"name": "w", "coefficients": {"skate.phi": 1}}]}
    with pytest.raises(ModelError) as info:
        _load_with("ice_skate_incline.json", qv)
    text = _messages(info.value)
    assert "'slip'" in text and "not independent" in text and "blade.normal (row 0)" in text
    assert "/quasi_velocities/choice/0" in text


def test_choice_fixed_by_a_holonomic_constraint_is_rejected():
    qv = {"choice": [{"name": "ys", "coefficients": {"slider.y": 1}}, {"name": "u2", "coefficients": {"bob.phi": 1}}]}
    with pytest.raises(ModelError) as info:
        _load_with("slider_pendulum.json", qv)
    text = _messages(info.value)
    assert "'ys'" in text and "rail.normal" in text
    assert "velocity degrees of freedom" not in text or "give exactly 2" in text


def test_dependent_on_another_quasi_velocity_is_named():
    qv = {"choice": [{"name": "a", "coefficients": {"skate.phi": 1}},
                     {"name": "b", "coefficients": {"skate.phi": 2}}]}
    with pytest.raises(ModelError) as info:
        _load_with("ice_skate_incline.json", qv)
    text = _messages(info.value)
    assert "'b'" in text and "quasi-velocity 'a'" in text


def test_wrong_number_of_quasi_velocities():
    qv = {"choice": [{"name": "w", "coefficients": {"skate.phi": 1}}]}
    with pytest.raises(ModelError) as info:
        _load_with("ice_skate_incline.json", qv)
    assert "2 velocity degrees of freedom" in _messages(info.value)


def test_alternative_is_validated_too():
    qv = {"choice": [{"name": "v", "coefficients": {"skate.x": 1}}, {"name": "w", "coefficients": {"skate.phi": 1}}],
          "alternatives": {"bad": {"choice": [{"name": "p", "coefficients": {"skate.phi": 1}},
                                              {"name": "q", "coefficients": {"skate.phi": -1}}]}}}
    with pytest.raises(ModelError) as info:
        _load_with("ice_skate_incline.json", qv)
    text = _messages(info.value)
    assert "/quasi_velocities/alternatives/bad/choice/1" in text and "'q'" in text


@pytest.mark.parametrize("item,needle", [
    ({"name": "u", "coefficients": {"skate.z": 1}}, "no coordinate 'skate.z'"),
    ({"name": "u", "expression": "d(skate.x)*d(skate.y)"}, "linear in the speeds"),
    ({"name": "u", "expression": "cos(skate.psi)*d(skate.x)"}, "unknown coordinate"),
    ({"name": "u", "expression": "__import__('os')"}, "unknown function '__import__'"),
    ({"name": "u", "expression": "skate.x.__class__"}, "unknown coordinate 'skate.x.__class__'"),
    ({"name": "u", "coefficients": {"skate.x": "foo(skate.phi)"}}, "unknown function"),
])
def test_malformed_items(item, needle):
    qv = {"choice": [item, {"name": "w", "coefficients": {"skate.phi": 1}}]}
    with pytest.raises(ModelError) as info:
        _load_with("ice_skate_incline.json", qv)
    assert needle in _messages(info.value)


def test_schema_rejects_reserved_alternative_names_and_missing_definition():
    with pytest.raises(ModelError):
        _load_with("ice_skate_incline.json", {"alternatives": {"auto": {"choice": []}}})
    with pytest.raises(ModelError):
        _load_with("ice_skate_incline.json", {"choice": [{"name": "u"}]})
