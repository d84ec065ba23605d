"""Expression bombs: a time-function expression that would make sympy compute a gigantic number, nest
without end or blow up when differentiated is refused at load with a diagnostic naming its JSON pointer, never a
hang. Each load runs under an alarm (HANG_GUARD_S, far above the expected milliseconds: a guard against hanging
the suite, not a speed assertion); legitimate expressions still load and evaluate correctly. Every kind of
time-function slot is checked at load (the ground motion and the quasi-velocity coefficients included), never
only when the model is compiled."""
from __future__ import annotations

import json
import math
import signal

import pytest

from conftest import SAMPLES
from mechstudio.core.errors import ModelError
from mechstudio.core.model import loads_model
from mechstudio.core.model.timefunc import ExpressionError, time_function

HANG_GUARD_S = 20
POINTER = "/drivers/0/function"

BOMBS = [
    "9**9**9*t", "t*10**10**8", "((9**100)**100)**100*t", "(-9)**(9**9)", "9.0**9.0**9.0", "2**2**2**2**2",
    "e**e**e**e**e**e", "pi**pi**pi**pi**pi*t", "exp(exp(exp(exp(exp(exp(t))))))", "t" + "**t" * 30,
    "sin(" * 30 + "t" + ")" * 30, "-" * 1900 + "t", "(" * 250 + "t" + ")" * 250, "t+" * 999 + "t",
    "*".join(f"sin(sin(sin(sin(sin(sin(sin(t+{k})))))))" for k in range(10)),
    "(" + "*".join(f"(t+{k})" for k in range(30)) + ")**999", "1" * 1999, "t" * 5000, "1e308*1e308*t",
    "10**300*10**300*t", "t**-100000", "__import__('os').system('true')", "t.__class__", "(lambda: 1)()",
    "[t]*10**9", "'a'*10**9", "\x00",
]


class Hang(BaseException):
    pass


def _alarm(signum, frame):
    raise Hang()


def load_with_driver(expression: str) -> None:
    doc = json.loads((SAMPLES / "slider_crank_driven.json").read_text())
    doc["drivers"][0]["function"] = {"type": "expression", "expression": expression}
    loads_model(json.dumps(doc), "crank.json")


@pytest.mark.parametrize("bomb", BOMBS, ids=lambda b: repr(b[:24]))
def test_bomb_is_a_diagnostic_at_its_pointer_not_a_hang(bomb):
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_GUARD_S)
    try:
        with pytest.raises(ModelError) as err:
            load_with_driver(bomb)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    (d,) = err.value.diagnostics
    assert d.file == "crank.json" and d.pointer == POINTER and "invalid time function" in d.message


@pytest.mark.parametrize("text, t, value", [
    ("0.1*sin(2*pi*t) + t**2", 0.25, 0.1 + 0.0625),
    ("2**10*t", 0.5, 512.0),
    ("(1+t)**20", 1.0, 2.0 ** 20),
    ("exp(exp(t))", 0.0, math.e),
    ("10**-300*t + 1", 1.0, 1.0),
    ("(" * 150 + "t" + ")" * 150, 0.7, 0.7),
    ("+".join(f"{k}*sin({k}*t)" for k in range(1, 25)), 0.3, sum(k * math.sin(k * 0.3) for k in range(1, 25))),
    ("abs(t-0.2) + max(t, 0.3)", 0.5, 0.8),
])
def test_ordinary_expressions_still_load_and_evaluate(text, t, value):
    load_with_driver(text)
    assert time_function({"type": "expression", "expression": text}).value(t) == pytest.approx(value, rel=1e-12)


def test_derivatives_of_abs_and_max_are_compiled():
    f = time_function({"type": "expression", "expression": "abs(t-0.2) + max(t, 0.3)"})
    # d/dt |t - 0.2| = sign(t - 0.2); d/dt max(t, 0.3) = 1 for t > 0.3, 0 below
    assert (f.rate(0.1), f.rate(0.25), f.rate(0.5)) == (-1.0, 1.0, 2.0)
    assert f.accel(0.5) == 0.0


def test_polynomial_with_too_many_coefficients_is_refused():
    with pytest.raises(ExpressionError):
        time_function({"type": "polynomial", "coefficients": [1.0] * 10_000})


def _set_cam_profile(d, bomb):
    k = next(i for i, j in enumerate(d["joints"]) if j["type"] == "cam_follower")
    d["joints"][k]["profile"] = bomb
    return k


#: every kind of time-function slot of a model file: (sample, edit(doc, value) -> pointer)
SLOTS = {
    "driver": ("slider_crank_driven", lambda d, b: d["drivers"][0].update(function=b) or "/drivers/0/function"),
    "joint torque": ("spherical_pendulum",
                     lambda d, b: d["joints"][0].update(torque=[0.0, b, 0.0]) or "/joints/0/torque/1"),
    "cam profile": ("cam_follower", lambda d, b: f"/joints/{_set_cam_profile(d, b)}/profile"),
    "applied force": ("pendulum", lambda d, b: d["forces"].append(
        {"name": "F", "type": "applied_force", "body": "bar", "force": [b, 0.0]}) or "/forces/0/force/0"),
    "applied torque": ("pendulum", lambda d, b: d["forces"].append(
        {"name": "T", "type": "applied_torque", "body": "bar", "torque": b}) or "/forces/0/torque"),
    "ground position": ("chain_on_shaking_base",
                        lambda d, b: d["ground"]["motion"].update(position=[b, 0.0, 0.0])
                        or "/ground/motion/position/0"),
    "ground angular velocity": ("chain_on_shaking_base",
                                lambda d, b: d["ground"]["motion"].update(angular_velocity=[0.0, 0.0, b])
                                or "/ground/motion/angular_velocity/2"),
    "plane position": ("rolling_disk_accelerating_plane",
                       lambda d, b: d["ground"].update(motion={"position": [0.0, b, 0.0]})
                       or "/ground/motion/position/1"),
    "quasi coefficient": ("ice_skate_incline",
                          lambda d, b: d["quasi_velocities"]["choice"][1]["coefficients"].update({"skate.phi": b})
                          or "/quasi_velocities/choice/1/coefficients/skate.phi"),
    "quasi offset": ("slider_pendulum",
                     lambda d, b: d["quasi_velocities"]["choice"][0].update(offset=b)
                     or "/quasi_velocities/choice/0/offset"),
}


@pytest.mark.parametrize("bomb", ["9**9**9*t", "t" + "**t" * 30, "sin(" * 30 + "t" + ")" * 30, "t+" * 999 + "t"],
                         ids=lambda b: repr(b[:12]))
@pytest.mark.parametrize("slot", sorted(SLOTS))
def test_a_bomb_in_every_time_function_slot_is_refused_at_load_with_its_pointer(slot, bomb):
    sample, edit = SLOTS[slot]
    doc = json.loads((SAMPLES / f"{sample}.json").read_text())
    pointer = edit(doc, {"type": "expression", "expression": bomb})
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_GUARD_S)
    try:
        with pytest.raises(ModelError) as err:
            loads_model(json.dumps(doc), "slot.json")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert [d.pointer for d in err.value.diagnostics] == [pointer], err.value


@pytest.mark.parametrize("bomb", ["9**9**9*skate.x", "skate.x" + "**skate.x" * 30, "d(skate.x)*10**10**8"])
@pytest.mark.parametrize("where", ["coefficients/skate.phi", "offset", "expression"])
def test_a_bomb_in_a_quasi_velocity_string_is_refused_at_load(bomb, where):
    doc = json.loads((SAMPLES / "ice_skate_incline.json").read_text())
    item = doc["quasi_velocities"]["choice"][0 if where == "expression" else 1]
    if where == "coefficients/skate.phi":
        item["coefficients"]["skate.phi"] = bomb
    else:
        item[where] = bomb
    with pytest.raises(ModelError) as err:
        loads_model(json.dumps(doc), "skate.json")  # before: refused only when the model was compiled
    k = 0 if where == "expression" else 1
    assert [d.pointer for d in err.value.diagnostics] == [f"/quasi_velocities/choice/{k}/{where}"], err.value
