"""Seeded mutators of model documents and files, and one fuzz trial (load -> compile -> short run).

Used by ``scripts/fuzz.py N`` (long offline runs) and ``tests/test_fuzz.py`` (a few thousand mutants in CI). Four
kinds of mutants (:data:`KINDS`), each from a sample model and a seed:

* ``structural`` (:func:`mutate`): 1-3 random mutations: a deleted key, a value replaced by one of another type, an
  extreme number (0, -0.0, +-1e308, 5e-324, +-2**63, 10**400, NaN, +-Infinity), an odd string (empty, NUL, very
  long, an expression bomb, path-like), or a list of the wrong length (emptied, truncated, an element duplicated);
* ``absurd`` (:func:`absurd`): physically absurd but well-typed values: zero, negative, tiny and huge masses,
  lengths, stiffnesses and speeds (within the loader's magnitude bound), degenerate directions, singular,
  indefinite or asymmetric inertia tensors, zero quaternions, duplicate initial velocities, names with a trailing
  newline, a missing or flipped ``kind``, extreme solver tolerances;
* ``bombs`` (:func:`bombs`): an expression bomb (:data:`EXPRESSION_BOMBS`) or an absurd time function in a
  time-function slot -- every slot the model has, plus slots added to it (``ground.motion``, a driver, a force,
  a quasi-velocity coefficient);
* ``bytes`` (:func:`corrupt`): the file's text corrupted at the byte level: invalid UTF-8, lone surrogates as
  ``\\ud800`` escapes, byte-order marks, NUL bytes, truncation, bit flips, other Unicode inside strings, duplicate
  keys, 5000-digit integers, deep nesting.

:func:`trial` (a document) and :func:`trial_bytes` (a file's bytes) classify the outcome: ``rejected`` (a
:class:`~core.errors.ModelError` with diagnostics at load or compile -- the expected answer to bad input), ``ok``
(loaded, compiled and, when asked, ran to a status), or ``defect`` (any other exception, a ModelError without
diagnostics, a run raising instead of ending with a status, or text a user would see -- the model's name,
coordinate and constraint names, the CSV header -- that cannot be written as UTF-8 or holds control characters).
Hangs are caught by the caller (``scripts/fuzz.py`` uses a per-trial alarm).
"""
from __future__ import annotations

import copy
import json
import random
import re
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from mechstudio.core.errors import ModelError
from mechstudio.core.model import loads_model
from mechstudio.core.model.io import loads_model_bytes
from mechstudio.core.simulate import SimulationSettings, run
from mechstudio.core.systems.compile import compile_model

EXTREME_NUMBERS: tuple[Any, ...] = (0, -0.0, 1e308, -1e308, 5e-324, -5e-324, 2 ** 63, -2 ** 63, 10 ** 400,
                                    float("nan"), float("inf"), float("-inf"), 1e20, -1e20, 1e-20, -1, 0.5)
ODD_STRINGS: tuple[str, ...] = ("", " ", "\x00", "é\u202e", "a" * 5000, "9**9**9*t", "t*10**10**8",
                                "__import__('os').system('true')", "../../etc/passwd", "NaN", "1e308*t*t",
                                "((((((((((((((((((((t))))))))))))))))))))", "sin(" * 40 + "t" + ")" * 40,
                                "exp(exp(exp(exp(t))))", "t**t**t**t**t**t", "1/(t-t)", "x.y", "d(t)")
OTHER_TYPES: tuple[Any, ...] = (None, True, False, "x", [], {}, [1.0, 2.0], {"type": "x"}, 1, 1.5, [[]], [None])


def _locations(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (tuple of keys/indices) to a value inside ``value`` (the root excluded)."""
    out: list[tuple[Any, ...]] = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        out.append(path + (k,))
        out.extend(_locations(v, path + (k,)))
    return out


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for k in path[:-1]:
        doc = doc[k]
    return doc


def mutate(doc: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], list[str]]:
    """A mutated deep copy of ``doc`` and the list of mutations applied (for the report)."""
    out = copy.deepcopy(doc)
    done: list[str] = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        locs = _locations(out)
        if not locs:
            break
        path = rng.choice(locs)
        parent, key = _parent(out, path), path[-1]
        value = parent[key]
        kind = rng.choice(("delete", "type", "number", "number", "string", "length"))
        where = "/" + "/".join(map(str, path))
        if kind == "delete":
            if isinstance(parent, dict):
                del parent[key]
            else:
                parent.pop(key)
            done.append(f"delete {where}")
        elif kind == "type":
            parent[key] = copy.deepcopy(rng.choice(OTHER_TYPES))
            done.append(f"type {where}={parent[key]!r}")
        elif kind == "number":
            numeric = [p for p in locs if isinstance(_parent(out, p)[p[-1]], (int, float))
                       and not isinstance(_parent(out, p)[p[-1]], bool)]
            path = rng.choice(numeric) if numeric else path
            parent, key = _parent(out, path), path[-1]
            parent[key] = rng.choice(EXTREME_NUMBERS)
            done.append(f"number /{'/'.join(map(str, path))}={parent[key]!r}"[:120])
        elif kind == "string":
            strings = [p for p in locs if isinstance(_parent(out, p)[p[-1]], str)]
            path = rng.choice(strings) if strings and rng.random() < 0.7 else path
            parent, key = _parent(out, path), path[-1]
            parent[key] = rng.choice(ODD_STRINGS)
            done.append(f"string /{'/'.join(map(str, path))}={parent[key][:30]!r}")
        else:
            lists = [p for p in locs if isinstance(_parent(out, p)[p[-1]], list)]
            if not lists:
                continue
            path = rng.choice(lists)
            seq = _parent(out, path)[path[-1]]
            op = rng.choice(("empty", "truncate", "duplicate", "extend"))
            if op == "empty":
                seq.clear()
            elif op == "truncate" and seq:
                del seq[rng.randrange(len(seq)):]
            elif op == "duplicate" and seq:
                seq.append(copy.deepcopy(rng.choice(seq)))
            else:
                seq.append(rng.choice(EXTREME_NUMBERS[:9]))
            done.append(f"length {op} /{'/'.join(map(str, path))}")
    return out, done


# ------------------------------------------------------------------------------------------------------------
# physically absurd but well-typed values

#: numbers within the loader's magnitude bound (1e12) that no mechanism has
ABSURD_NUMBERS: tuple[float, ...] = (0.0, -0.0, -1.0, 1e12, -1e12, 1e11, 1e-300, -1e-300, 5e-324, 1e-12, 1e6,
                                     -1e6, 0.999999999999, 1e-9)
ABSURD_MASSES: tuple[float, ...] = (1e-300, 5e-324, 1e12, 1e-12, 1e11, 0.0, -1.0)
ABSURD_LENGTHS: tuple[float, ...] = (1e11, -1e11, 1e-300, 0.0, 5e-324, 1e12, 1e-12)
ABSURD_DIRECTIONS: tuple[list[float], ...] = ([0.0, 0.0], [1e-300, 0.0], [5e-324, 5e-324], [1e12, 1e-12],
                                              [-0.0, -0.0], [1e-12, 1e-12], [0.0, 1e12])
ABSURD_QUATERNIONS: tuple[list[float], ...] = ([0.0, 0.0, 0.0, 0.0], [1e-300, 0.0, 0.0, 0.0], [5e-324] * 4,
                                               [1e-13, 0.0, 0.0, 0.0], [-1.0, 0.0, 0.0, 0.0], [1e12, 1e12, 0.0, 0.0])
ABSURD_INERTIAS_3D: tuple[Any, ...] = (
    [[0.0] * 3] * 3, [[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]],
    [[1.0, 2.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 3.0]],
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1e-15]], [[1e12, 0.0, 0.0], [0.0, 1e12, 0.0], [0.0, 0.0, 1e12]],
    [[1e-300, 0.0, 0.0], [0.0, 1e-300, 0.0], [0.0, 0.0, 1e-300]], [[1.0, 1.0, 1.0]] * 3, -1.0, 0.0, 1e-300, 1e12)
ABSURD_INERTIAS_2D: tuple[Any, ...] = (-1.0, 0.0, 1e-300, 5e-324, 1e12, -1e-300)
ABSURD_NAMES: tuple[str, ...] = ("bar\n", "bar\r\n", "a\nb", "x" * 80, "x" * 81, "ground", "_", "a-", "-a", "é",
                                 "b\u0430r", "bar ", "bar\t", "\ufeffbar", "ba\u200br")
ABSURD_SIMULATION: tuple[tuple[str, Any], ...] = (
    ("rtol", 1e-300), ("rtol", 1.0), ("rtol", 1e12), ("atol", 5e-324), ("atol", 1e12), ("dt", 1e-12),
    ("t_end", 1e-12), ("t_end", 1e12), ("dt", 1e12))
LENGTH_KEYS = frozenset({"radius", "radius1", "radius2", "width", "length", "free_length", "thickness"})
POINT_KEYS = frozenset({"points", "com", "point1", "point2", "point", "from", "to", "center", "vertices", "size"})
FORCE_KEYS = frozenset({"stiffness", "damping", "spring"})


def _numbers_under(doc: Any, keys: frozenset[str]) -> list[tuple[Any, ...]]:
    """Paths to the numbers that lie under a key of ``keys``."""
    return [p for p in _locations(doc) if any(k in keys for k in p if isinstance(k, str))
            and isinstance(_parent(doc, p)[p[-1]], (int, float)) and not isinstance(_parent(doc, p)[p[-1]], bool)]


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> str:
    _parent(doc, path)[path[-1]] = copy.deepcopy(value)
    return f"/{'/'.join(map(str, path))}={value!r}"[:120]


def absurd(doc: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], list[str]]:
    """A deep copy of ``doc`` with 1-3 physically absurd but well-typed values (see module docstring)."""
    out = copy.deepcopy(doc)
    done: list[str] = []
    spatial = out.get("kind") == "spatial"
    wanted = rng.choice((1, 1, 2, 3))
    for _ in range(20):  # an operator that finds nothing to change (no axis in the model) is drawn again
        if len(done) >= wanted:
            break
        bodies = out.get("bodies") if isinstance(out.get("bodies"), list) else []
        op = rng.choice(("mass", "inertia", "length", "point", "direction", "quaternion", "gravity", "force",
                         "number", "simulation", "velocity", "name", "kind", "time"))
        if op == "mass" and bodies:
            done.append("mass " + _set(out, ("bodies", rng.randrange(len(bodies)), "mass"), rng.choice(ABSURD_MASSES)))
        elif op == "inertia" and bodies:
            values = ABSURD_INERTIAS_3D if spatial else ABSURD_INERTIAS_2D
            done.append("inertia " + _set(out, ("bodies", rng.randrange(len(bodies)), "inertia"), rng.choice(values)))
        elif op in ("length", "point", "force"):
            keys = {"length": LENGTH_KEYS, "point": POINT_KEYS, "force": FORCE_KEYS}[op]
            paths = _numbers_under(out, keys)
            if paths:
                done.append(f"{op} " + _set(out, rng.choice(paths), rng.choice(ABSURD_LENGTHS)))
        elif op == "direction":
            paths = [p for p in _locations(out) if p[-1] == "axis"]
            if paths:
                done.append("direction " + _set(out, rng.choice(paths), rng.choice(ABSURD_DIRECTIONS)))
        elif op == "quaternion" and bodies:
            i = rng.randrange(len(bodies))
            if isinstance(bodies[i], dict):
                initial = bodies[i].setdefault("initial", {})
                if isinstance(initial, dict):
                    initial.pop("psi", None), initial.pop("theta", None), initial.pop("phi", None)
                    done.append("quaternion " + _set(out, ("bodies", i, "initial", "quaternion"),
                                                     rng.choice(ABSURD_QUATERNIONS)))
        elif op == "gravity":
            g = rng.choice((1e12, -1e12, 1e-300, 0.0, 1e11))
            done.append("gravity " + _set(out, ("gravity",), [0.0, 0.0, g] if spatial else [0.0, g]))
        elif op == "number":
            paths = [p for p in _locations(out) if p[-1] != "version" and isinstance(_parent(out, p)[p[-1]], float)]
            if paths:
                done.append("number " + _set(out, rng.choice(paths), rng.choice(ABSURD_NUMBERS)))
        elif op == "simulation":
            key, value = rng.choice(ABSURD_SIMULATION)
            if isinstance(out.get("simulation"), dict):
                done.append("simulation " + _set(out, ("simulation", key), value))
        elif op == "velocity" and bodies and isinstance(bodies[0], dict):
            iv = out.setdefault("initial_velocities", [])
            if isinstance(iv, list):
                body = bodies[rng.randrange(len(bodies))].get("name", "x")
                coord = rng.choice(("x", "y", "z", "phi", "psi", "theta"))
                value = rng.choice((1e12, -1e12, 1e-300, 0.0, 1e6))
                iv.extend([{"body": body, "coordinate": coord, "value": value}] * rng.choice((1, 2)))
                done.append(f"velocity {body}.{coord}={value!r} x{len(iv)}")
        elif op == "name":
            paths = [p for p in _locations(out) if p[-1] == "name" and isinstance(_parent(out, p)[p[-1]], str)]
            if paths:
                done.append("name " + _set(out, rng.choice(paths), rng.choice(ABSURD_NAMES)))
        elif op == "kind":
            if rng.random() < 0.5:
                out.pop("kind", None)
                done.append("kind deleted")
            else:
                out["kind"] = "planar" if spatial else "spatial"
                done.append(f"kind={out['kind']}")
        elif op == "time":
            paths = [p for p in _locations(out) if isinstance(p[-1], str)
                     and p[-1] in ("amplitude", "frequency", "speed", "initial", "offset", "phase")]
            if paths:
                done.append("time " + _set(out, rng.choice(paths), rng.choice((1e12, -1e12, 1e11, 1e-300))))
    return out, done


# ------------------------------------------------------------------------------------------------------------
# expression bombs and absurd time functions in every time-function slot

EXPRESSION_BOMBS: tuple[str, ...] = (
    "9**9**9*t", "t*10**10**8", "((9**100)**100)**100*t", "(-9)**(9**9)", "9.0**9.0**9.0", "2**2**2**2**2",
    "e**e**e**e**e**e", "pi**pi**pi**pi**pi*t", "exp(exp(exp(exp(exp(exp(t))))))", "t" + "**t" * 30,
    "sin(" * 30 + "t" + ")" * 30, "-" * 1900 + "t", "(" * 250 + "t" + ")" * 250, "t+" * 999 + "t",
    "*".join(f"sin(sin(sin(sin(sin(sin(sin(t+{k})))))))" for k in range(10)),
    "(" + "*".join(f"(t+{k})" for k in range(30)) + ")**999", "1" * 1999, "t" * 5000, "1e308*1e308*t",
    "10**300*10**300*t", "t**-100000", "__import__('os').system('true')", "t.__class__", "(lambda: 1)()",
    "[t]*10**9", "'a'*10**9", "\x00", "1e308*t*t", "exp(700)*exp(700)*t", "1/(t-t)", "log(t-t)", "sqrt(-1-t)",
    "tan(pi/2+0*t)", "acos(2+t)", "t**0.5**-1000", "atan2(0, 0*t)", "max(" * 20 + "t" + ",1)" * 20,
    "abs(" * 9 + "t" + ")" * 9, "exp(1000*t)", "1e300*exp(t)", "t/0", "0**-1*t", "(-t)**0.5", "1e-300**50*t",
    "sinh(800+t)", "cosh(1e3*t)", "t**9**9", "10**-400*t", "1e12*1e12*t", "exp(50)*t", "d(t)", "x.y*t",
)
ABSURD_TIME_FUNCTIONS: tuple[Any, ...] = (
    {"type": "polynomial", "coefficients": [1e12] * 64}, {"type": "polynomial", "coefficients": [1.0] * 65},
    {"type": "polynomial", "coefficients": [0.0] * 63 + [1e12]},
    {"type": "harmonic", "amplitude": 1e12, "frequency": 1e12}, {"type": "harmonic", "amplitude": 1.0,
                                                                  "frequency": 1e12, "phase": 1e12},
    {"type": "constant_speed", "initial": 1e12, "speed": 1e12}, {"type": "constant_speed", "speed": -1e12},
    1e12, -1e12, 5e-324)


def time_function_slots(doc: Any) -> list[tuple[Any, ...]]:
    """Paths of the time-function values of a document (drivers' functions, force and torque components, joint
    torques, cam profiles, ground motion, quasi-velocity coefficients and offsets)."""
    out = []
    for p in _locations(doc):
        keys = [k for k in p if isinstance(k, str)]
        last = p[-1]
        if not keys:
            continue
        if keys[-1] in ("function", "profile", "offset") and isinstance(last, str) and last == keys[-1]:
            out.append(p)
        elif len(p) >= 2 and isinstance(last, int) and p[-2] in ("force", "torque", "position", "angular_velocity"):
            out.append(p)
        elif last == "torque" and p[0] == "forces":
            out.append(p)
        elif len(p) >= 2 and p[-2] == "coefficients":
            out.append(p)
    return out


def _bomb(rng: random.Random, string_slot: bool) -> Any:
    text = rng.choice(EXPRESSION_BOMBS)
    if string_slot:
        return text
    if rng.random() < 0.2:
        return copy.deepcopy(rng.choice(ABSURD_TIME_FUNCTIONS))
    return {"type": "expression", "expression": text}


def bombs(doc: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], list[str]]:
    """A deep copy of ``doc`` with an expression bomb or an absurd time function in 1-2 time-function slots,
    existing ones or ones added (see module docstring)."""
    out = copy.deepcopy(doc)
    done: list[str] = []
    for _ in range(rng.choice((1, 1, 2))):
        slots = time_function_slots(out)
        add = rng.random() < 0.4 or not slots
        if add:
            slot = _add_slot(out, rng)
            if slot is None:
                continue
            slots = [slot]
        path = rng.choice(slots)
        string_slot = "quasi_velocities" in path and rng.random() < 0.5
        value = _bomb(rng, string_slot)
        _parent(out, path)[path[-1]] = value
        done.append(f"{'added ' if add else ''}slot /{'/'.join(map(str, path))}={str(value)[:40]!r}")
    return out, done


def _add_slot(doc: dict[str, Any], rng: random.Random) -> tuple[Any, ...] | None:
    """Add a time-function slot to ``doc`` (filled with 0.0); its path, or None when the document has no room."""
    bodies = doc.get("bodies")
    if not isinstance(bodies, list) or not bodies or not isinstance(bodies[0], dict):
        return None
    body = str(bodies[rng.randrange(len(bodies))].get("name", "x"))
    spatial = doc.get("kind") == "spatial"
    where = rng.choice(("motion", "force", "torque", "driver", "quasi"))
    if where == "motion":
        ground = doc.setdefault("ground", {})
        if not isinstance(ground, dict):
            return None
        motion = ground.setdefault("motion", {})
        if not isinstance(motion, dict):
            return None
        key = rng.choice(("position", "angular_velocity"))
        motion[key] = [0.0, 0.0, 0.0]
        return ("ground", "motion", key, rng.randrange(3))
    if where in ("force", "torque"):
        forces = doc.setdefault("forces", [])
        if not isinstance(forces, list):
            return None
        k = len(forces)
        if where == "force":
            forces.append({"name": f"fuzz{k}", "type": "applied_force", "body": body,
                           "force": [0.0] * (3 if spatial else 2)})
            return ("forces", k, "force", 0)
        forces.append({"name": f"fuzz{k}", "type": "applied_torque", "body": body, "torque": 0.0})
        return ("forces", k, "torque")
    if where == "driver":
        drivers = doc.setdefault("drivers", [])
        if not isinstance(drivers, list):
            return None
        drivers.append({"name": f"fuzz{len(drivers)}", "type": "coordinate", "body": body,
                        "coordinate": rng.choice(("x", "y", "phi")), "function": 0.0})
        return ("drivers", len(drivers) - 1, "function")
    qv = doc.setdefault("quasi_velocities", {})
    if not isinstance(qv, dict):
        return None
    choice = qv.setdefault("choice", [])
    if not isinstance(choice, list):
        return None
    coord = f"{body}.{rng.choice(('x', 'y', 'phi'))}"
    choice.append({"name": f"u{len(choice) + 1}", "coefficients": {coord: 1.0}})
    return ("quasi_velocities", "choice", len(choice) - 1, "coefficients", coord)


# ------------------------------------------------------------------------------------------------------------
# unicode and byte-level corruption of the file text

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
INVALID_UTF8: tuple[bytes, ...] = (b"\xff", b"\xfe", b"\xc0\x80", b"\xed\xa0\x80", b"\xe2\x82", b"\x80",
                                   b"\xf8\x88\x80\x80\x80", b"\xf4\x90\x80\x80", b"\xc3")
BOMS: tuple[bytes, ...] = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff", b"\xef\xbb\xbf\xef\xbb\xbf")
ESCAPES: tuple[bytes, ...] = (rb"\ud800", rb"\udfff", rb"\ud83d", rb"\udc00\ud800", rb"\u0000", rb"\n", rb"\r\n",
                              rb"\u2028", rb"\u202e", rb"\ufeff", rb"\ud83d\ude00", rb"\t", rb"\u0085")
UNICODE: tuple[str, ...] = ("é", "\u202e", "\u2028", "\U0001F600", "\u0430", "\u200b", "\ufffd", "\u0301", "\x7f",
                            "\u00a0", "\uffff")


def corrupt(text: str, rng: random.Random) -> tuple[bytes, list[str]]:
    """The UTF-8 bytes of ``text`` with 1-2 byte-level or Unicode corruptions (see module docstring)."""
    raw = text.encode("utf-8")
    done: list[str] = []
    for _ in range(rng.choice((1, 1, 2))):
        op = rng.choice(("utf8", "escape", "escape", "bom", "truncate", "bitflip", "nul", "unicode", "duplicate_key",
                         "long_integer", "nesting", "exponent"))
        strings = [m.span() for m in _STRING.finditer(raw)]
        if op == "utf8":
            pos = rng.randrange(len(raw) + 1)
            raw = raw[:pos] + rng.choice(INVALID_UTF8) + raw[pos:]
            done.append(f"invalid utf-8 at {pos}")
        elif op in ("escape", "unicode") and strings:
            a, b = rng.choice(strings)
            pos = rng.randrange(a + 1, b)
            if raw[pos - 1:pos] == b"\\":  # never split an escape
                pos -= 1
            piece = rng.choice(ESCAPES) if op == "escape" else rng.choice(UNICODE).encode("utf-8", "surrogatepass")
            raw = raw[:pos] + piece + raw[pos:]
            done.append(f"{op} {piece!r} in string at {pos}")
        elif op == "bom":
            bom = rng.choice(BOMS)
            pos = 0 if rng.random() < 0.8 else rng.randrange(len(raw) + 1)
            raw = raw[:pos] + bom + raw[pos:]
            done.append(f"bom {bom!r} at {pos}")
        elif op == "truncate":
            pos = rng.randrange(len(raw) + 1)
            raw = raw[:pos]
            done.append(f"truncate at {pos}")
        elif op == "bitflip" and raw:
            for _ in range(rng.choice((1, 2, 3))):
                pos = rng.randrange(len(raw))
                raw = raw[:pos] + bytes([raw[pos] ^ (1 << rng.randrange(8))]) + raw[pos + 1:]
            done.append(f"bit flips near {pos}")
        elif op == "nul":
            pos = rng.randrange(len(raw) + 1)
            raw = raw[:pos] + b"\x00" + raw[pos:]
            done.append(f"NUL at {pos}")
        elif op == "duplicate_key":
            members = list(re.finditer(rb'("[A-Za-z_0-9]+"\s*:\s*)(-?[0-9.eE+-]+|"[^"\\]*")', raw))
            if members:
                m = rng.choice(members)
                dup = m.group(1) + rng.choice((b"2.5", b'"other"', b"null", m.group(2))) + b", "
                raw = raw[:m.start()] + dup + raw[m.start():]
                done.append(f"duplicate key {m.group(1)!r}")
        elif op in ("long_integer", "exponent"):
            numbers = list(re.finditer(rb"(?<=[:\[,\s])-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?(?=[,\]\s}])", raw))
            if numbers:
                m = rng.choice(numbers)
                new = b"1" * rng.choice((4301, 5000, 20000)) if op == "long_integer" else \
                    rng.choice((b"1e999999", b"-1e400", b"1e-999999", b"0.0000000000000000000000001e-330"))
                raw = raw[:m.start()] + new + raw[m.end():]
                done.append(f"{op} at {m.start()}")
        elif op == "nesting":
            depth = rng.choice((1000, 10000, 100000))
            pos = raw.find(b"[")
            if pos >= 0:
                raw = raw[:pos] + b"[" * depth + b"]" * depth + b"," + raw[pos + 1:]
                done.append(f"nesting {depth}")
    return raw, done


#: mutant kinds: name -> operator on a sample document (``bytes`` works on its JSON text)
KINDS: tuple[str, ...] = ("structural", "absurd", "bombs", "bytes")


def make_mutant(kind: str, doc: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any] | bytes, list[str]]:
    """A mutant of ``kind`` (one of :data:`KINDS`) of the sample ``doc``: a document, or bytes for ``bytes``."""
    if kind == "structural":
        return mutate(doc, rng)
    if kind == "absurd":
        return absurd(doc, rng)
    if kind == "bombs":
        return bombs(doc, rng)
    if kind == "bytes":
        return corrupt(json.dumps(doc, indent=rng.choice((None, 2)), ensure_ascii=rng.random() < 0.5), rng)
    raise ValueError(f"unknown mutant kind {kind!r}; kinds: {', '.join(KINDS)}")


# ------------------------------------------------------------------------------------------------------------
# trials

@dataclass
class Outcome:
    """Result of one trial: ``kind`` is "rejected", "ok" or "defect"; ``detail`` the exception for a defect."""
    kind: str
    stage: str
    detail: str = ""


_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")


def text_defect(what: str, texts: Iterable[str], single_line: bool = True) -> str | None:
    """Why one of ``texts`` (shown to users as ``what``) is unfit: not writable as UTF-8, or (``single_line``)
    holding a control character or line break; None when all are fine."""
    for text in texts:
        try:
            str(text).encode("utf-8")
        except UnicodeEncodeError:
            return f"{what} {text!r} cannot be written as UTF-8"
        if single_line and _CONTROL.search(str(text)):
            return f"{what} {text!r} holds a control character or line break"
    return None


def trial(doc: dict[str, Any], run_seconds: float | None = 0.05, compile: bool = True) -> Outcome:
    """Load ``doc`` (serialized as JSON text, NaN allowed), compile it (unless ``compile`` is False) and, unless
    ``run_seconds`` is None, run it for ``run_seconds`` (output every 0.01 s). See the module docstring for the
    outcome classes."""
    try:
        text = json.dumps(doc)
    except Exception as exc:  # noqa: BLE001 - a mutant the fuzzer itself cannot write
        return Outcome("defect", "serialize", f"{type(exc).__name__}: {str(exc)[:200]}")
    return _trial(lambda: _loads(text), run_seconds, compile)


def trial_bytes(raw: bytes, run_seconds: float | None = 0.05, compile: bool = True) -> Outcome:
    """:func:`trial` of a model file's bytes (decoded as the loader decodes files)."""
    return _trial(lambda: _loads_bytes(raw), run_seconds, compile)


def _loads(text: str) -> Any:
    return loads_model(text, "<fuzz>")


def _loads_bytes(raw: bytes) -> Any:
    return loads_model_bytes(raw, "<fuzz>")


def _trial(load: Callable[[], Any], run_seconds: float | None, compile: bool) -> Outcome:
    stage = "load"
    try:
        model = load()
        stage = "report"
        bad = text_defect("model name", [model.name], False) or text_defect("description", [model.description], False)
        if bad:
            return Outcome("defect", stage, f"UnfitText: {bad}")
        if not compile:
            return Outcome("ok", "load")
        stage = "compile"
        system = compile_model(model)
        bad = text_defect("coordinate name", system.coord_names) or \
            text_defect("constraint name", [c.name for c in system.constraints])
        if bad:
            return Outcome("defect", stage, f"UnfitText: {bad}")
        if run_seconds is None:
            return Outcome("ok", stage)
        stage = "run"
        settings = SimulationSettings.from_model(model, t_end=run_seconds, dt=min(0.01, run_seconds))
        settings.validate()
        traj = run(system, settings)
        if traj.status is None or not traj.message and not traj.status.ok:
            return Outcome("defect", stage, "run ended without a status message")
        bad = text_defect("CSV column", traj.columns())
        if bad:
            return Outcome("defect", stage, f"UnfitText: {bad}")
        return Outcome("ok", stage)
    except ModelError as exc:
        if not exc.diagnostics or stage not in ("load", "compile"):
            return Outcome("defect", stage, f"ModelError without diagnostics or at {stage}: {exc}")
        bad = text_defect("diagnostic", [d.format() for d in exc.diagnostics], False)
        if bad:
            return Outcome("defect", stage, f"UnfitText: {bad}")
        return Outcome("rejected", stage)
    except Exception as exc:  # the point of fuzzing: every other exception is a defect, reported
        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else "?"
        return Outcome("defect", stage, f"{type(exc).__name__} at {where}: {str(exc)[:200]}")


def sample_documents(folder: Path) -> dict[str, dict[str, Any]]:
    """The sample model documents of ``folder`` (``*.json``), by file name."""
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))}
