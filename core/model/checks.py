"""Semantic checks of a raw, schema-valid model document: problems a JSON Schema cannot express.

Each check is a function of the document (the parsed JSON, after migration and schema validation) returning
``(json_pointer, message)`` pairs; :func:`document_problems` runs them all. The loader
(:func:`mechstudio.core.model.io.validate_data`) runs them before the entity checks of
:mod:`mechstudio.core.model.entities`, so that elements built from other elements (a rack and pinion from its
joints) see what is already wrong with their parts.

* cam profiles within +-``MAX_MAGNITUDE`` on a turn of the cam;
* every time-function slot the entities do not compile (``ground.motion``'s ``position`` and
  ``angular_velocity``, the quasi-velocity coefficients and offsets given as time functions) is compiled here,
  with the bounds of :mod:`mechstudio.core.model.timefunc`;
* the elements fit the model's ``kind``: a spatial element (a spherical joint, a rolling disk) in a planar model
  -- e.g. a spatial file whose ``kind`` is missing -- and a planar-only element in a spatial model are named;
* one initial velocity per coordinate;
* spatial inertia tensors symmetric, positive definite and physical (J3 <= J1 + J2); initial quaternions not zero;
* quasi-velocity coefficients, offsets and expressions given as strings: no expression bomb (the bounds of
  :mod:`mechstudio.core.model.timefunc`), and every constant within +-``MAX_MAGNITUDE`` (beyond it the
  mass-weighted products of the Appell formulations overflow). Their coordinate names are checked by the compiler.
"""
from __future__ import annotations

import ast
import math
import re
from typing import Any, Callable, Iterator

import numpy as np

from mechstudio.core.elements import element_names, element_type
from mechstudio.core.model.limits import MAX_MAGNITUDE
from mechstudio.core.model.timefunc import (LAMBDIFY_MODULES, MAX_EXPRESSION_CHARS, ExpressionError,
                                            ExpressionTooLarge, ast_to_sympy, parse_tree, time_function)
from mechstudio.core.model import timefunc

Problems = list[tuple[str, str]]

#: relative tolerance of the inertia-tensor checks: asymmetry |J - J^T| and the smallest principal moment,
#: both relative to the largest entry / moment (rounding of a tensor written with 10 digits stays far below)
INERTIA_RTOL = 1e-9
#: the smallest norm of an initial quaternion (it is normalized; below this the direction is noise)
MIN_QUATERNION_NORM = 1e-12
SECTIONS = (("joints", "joint"), ("drivers", "driver"), ("forces", "force"))


def document_problems(data: dict[str, Any]) -> Problems:
    """Every problem of the checks of this module (see module docstring), in document order."""
    out: Problems = []
    for check in (kind_problems, inertia_problems, quaternion_problems, ground_motion_problems,
                  cam_profile_problems, initial_velocity_problems, quasi_velocity_problems):
        out += check(data)
    return out


# ------------------------------------------------------------------------------------------------------------
def kind_problems(data: dict[str, Any]) -> Problems:
    """Elements that the model's ``kind`` (planar when missing) cannot use, at their ``type``."""
    kind = data.get("kind")
    spatial = kind == "spatial"
    out: Problems = []
    spatial_names = sorted(n for section, _ in SECTIONS for n in element_names(section)
                           if element_type(n, section).dimension != "planar")
    for section, noun in SECTIONS:
        for i, item in enumerate(data.get(section, [])):
            dim = element_type(item["type"], section).dimension
            if not spatial and dim == "spatial":
                said = "has no 'kind', so it is planar" if kind is None else "is planar ('kind': 'planar')"
                out.append((f"/{section}/{i}/type",
                            f"{noun} {item['name']!r} is a {item['type']} {noun}, a spatial element, but the model "
                            f"{said}: set \"kind\": \"spatial\" (and give spatial bodies 3D points and 3x3 "
                            "inertia tensors)"))
            elif spatial and dim == "planar":
                out.append((f"/{section}/{i}/type",
                            f"{noun} {item['name']!r} is a {item['type']} {noun}, a planar element: a spatial model "
                            f"can use {', '.join(spatial_names)} only (or set \"kind\": \"planar\")"))
    return out


def inertia_problems(data: dict[str, Any]) -> Problems:
    """Spatial bodies: the inertia tensor about the centre of mass (a 3x3 array, or a number J meaning J E;
    missing means zero) must be symmetric, positive definite and obey the triangle inequality of the principal
    moments (J3 <= J1 + J2, as every real body does)."""
    if data.get("kind") != "spatial":
        return []
    out: Problems = []
    for i, b in enumerate(data.get("bodies", [])):
        ptr = f"/bodies/{i}/inertia"
        given = b.get("inertia", 0.0)
        J = np.eye(3) * float(given) if isinstance(given, (int, float)) else np.array(given, float)
        what = f"body {b['name']!r}"
        scale = float(np.max(np.abs(J)))
        if scale == 0.0:
            missing = "has no inertia (a missing inertia is zero)" if "inertia" not in b else "has a zero inertia"
            out.append((ptr if "inertia" in b else f"/bodies/{i}",
                        f"{what} {missing}: a spatial body needs a positive definite 3x3 inertia tensor about "
                        "its centre of mass [kg m^2]"))
            continue
        if float(np.max(np.abs(J - J.T))) > INERTIA_RTOL * scale:
            out.append((ptr, f"{what}: the inertia tensor is not symmetric (J[r][c] != J[c][r]): {J.tolist()}"))
            continue
        ev = np.linalg.eigvalsh(J)
        moments = ", ".join(f"{x:.6g}" for x in ev)
        if abs(ev[0]) <= INERTIA_RTOL * ev[-1]:
            out.append((ptr, f"{what}: singular inertia tensor (principal moments {moments} kg m^2): a spatial body "
                             "needs a positive definite 3x3 inertia tensor about its centre of mass"))
        elif ev[0] < 0:
            out.append((ptr, f"{what}: the inertia tensor is not positive definite (principal moments {moments} "
                             "kg m^2): every principal moment must be positive"))
        elif ev[2] > (ev[0] + ev[1]) * (1 + INERTIA_RTOL):
            out.append((ptr, f"{what}: not a physical inertia tensor: the principal moments {moments} kg m^2 "
                             "violate the triangle inequality J3 <= J1 + J2"))
    return out


def quaternion_problems(data: dict[str, Any]) -> Problems:
    """An initial ``quaternion`` is normalized before use: it must not be (nearly) zero."""
    out: Problems = []
    for i, b in enumerate(data.get("bodies", [])):
        quat = b.get("initial", {}).get("quaternion")
        if quat is not None and math.hypot(*quat) < MIN_QUATERNION_NORM:
            out.append((f"/bodies/{i}/initial/quaternion",
                        f"body {b['name']!r}: the initial quaternion {quat} is zero (norm below "
                        f"{MIN_QUATERNION_NORM:g}); it gives the orientation once normalized, e.g. [1, 0, 0, 0] "
                        "for none"))
    return out


def ground_motion_problems(data: dict[str, Any]) -> Problems:
    """The time functions of ``ground.motion`` (``position``, ``angular_velocity``), compiled with the bounds of
    every time function."""
    motion = data.get("ground", {}).get("motion", {})
    out: Problems = []
    for key in ("position", "angular_velocity"):
        for k, spec in enumerate(motion.get(key, [])):
            problem = time_function_problem(spec)
            if problem:
                out.append((f"/ground/motion/{key}/{k}", problem))
    return out


#: cam profiles are sampled at this many angles on [0, 2 pi) for their magnitude
CAM_SAMPLES = 256


def cam_profile_problems(data: dict[str, Any]) -> Problems:
    """A cam profile r(theta) [m] (a time function of theta written as t) and its first two derivatives lie within
    +-MAX_MAGNITUDE on [0, 2 pi) (sampled at CAM_SAMPLES angles): beyond it the curvature terms (r^2 + 2 r'^2 -
    r r'') overflow. A profile that does not compile is reported by the entity checks."""
    out: Problems = []
    for i, j in enumerate(data.get("joints", [])):
        if j["type"] != "cam_follower" or time_function_problem(j["profile"]):
            continue
        f = time_function(j["profile"])
        for k in range(CAM_SAMPLES):
            theta = 2.0 * math.pi * k / CAM_SAMPLES
            try:
                values = (f.value(theta), f.rate(theta), f.accel(theta))
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                break  # the entity checks name it
            if not all(abs(v) <= MAX_MAGNITUDE for v in values):
                out.append((f"/joints/{i}/profile",
                            f"cam profile r(theta): r, r', r'' = {', '.join(f'{v:.3g}' for v in values)} at theta = "
                            f"{theta:.4g} rad; a cam's radius and its derivatives must lie within "
                            f"+-{MAX_MAGNITUDE:g} (m, m/rad, m/rad^2)"))
                break
    return out


def time_function_problem(spec: Any) -> str | None:
    """Why ``spec`` is not a usable time function (None when it is); the message of every time-function slot."""
    try:
        time_function(spec)
    except (ExpressionError, KeyError, TypeError, ValueError) as exc:
        return f"invalid time function: {exc}"
    return None


def initial_velocity_problems(data: dict[str, Any]) -> Problems:
    """At most one ``initial_velocities`` entry per (body, coordinate)."""
    seen: dict[tuple[str, str], int] = {}
    out: Problems = []
    for i, v in enumerate(data.get("initial_velocities", [])):
        key = (v["body"], v["coordinate"])
        if key in seen:
            out.append((f"/initial_velocities/{i}",
                        f"a second initial velocity of {v['body']}.{v['coordinate']} (the first is "
                        f"/initial_velocities/{seen[key]}); give each coordinate's initial velocity once"))
        else:
            seen[key] = i
    return out


# ------------------------------------------------------------------------------------------------------------
def quasi_velocity_problems(data: dict[str, Any]) -> Problems:
    """Quasi-velocity coefficients, offsets and expressions: time-function objects compile, strings are no
    expression bombs, every constant (a maximal sub-expression without coordinates, speeds or t, evaluated in
    floating point) lies within +-MAX_MAGNITUDE, and the value does not overflow at the file's rough initial
    configuration (t = 0, every speed 1). A string with unknown names is left to the compiler, which knows the
    coordinates (core.symbolic.quasi)."""
    qv = data.get("quasi_velocities", {})
    choices = [("/quasi_velocities/choice", qv.get("choice", []))]
    choices += [(f"/quasi_velocities/alternatives/{_escape(k)}/choice", alt.get("choice", []))
                for k, alt in qv.get("alternatives", {}).items()]
    rough = _rough_coordinates(data)
    out: Problems = []
    for base, items in choices:
        for i, item in enumerate(items):
            slots = [(f"{base}/{i}/coefficients/{_escape(c)}", s) for c, s in item.get("coefficients", {}).items()]
            if "offset" in item:
                slots.append((f"{base}/{i}/offset", item["offset"]))
            if "expression" in item:
                slots.append((f"{base}/{i}/expression", item["expression"]))
            for ptr, spec in slots:
                problem = _quasi_slot_problem(spec, rough)
                if problem:
                    out.append((ptr, problem))
    return out


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _rough_coordinates(data: dict[str, Any]) -> dict[str, float]:
    """``body.c`` -> the rough initial value the file gives (planar x, y, phi; spatial x, y, z, psi, theta, phi and
    the quaternion q0..q3); coordinates not given are 0 (q0: 1)."""
    out: dict[str, float] = {}
    for b in data.get("bodies", []):
        initial = b.get("initial", {})
        for c in ("x", "y", "z", "phi", "psi", "theta"):
            out[f"{b['name']}.{c}"] = float(initial.get(c, 0.0))
        for k, c in enumerate(initial.get("quaternion", [1.0, 0.0, 0.0, 0.0])):
            out[f"{b['name']}.q{k}"] = float(c)
    return out


def _quasi_slot_problem(spec: Any, rough: dict[str, float]) -> str | None:
    import sympy as sp  # sympy only for models with quasi-velocities (start-up of every load)
    if isinstance(spec, (int, float)):  # numbers: bounded by the loader's magnitude check
        return None
    values: dict[sp.Symbol, float] = {}
    if isinstance(spec, dict):
        problem = time_function_problem(spec)
        if problem:
            return problem
        expr = time_function(spec).expr
    else:
        try:
            parsed = _state_expression(spec, rough)
        except ExpressionTooLarge as exc:
            return f"invalid coefficient: {exc}"
        if parsed is None:
            return None
        expr, values = parsed
    for const in _constants(expr):
        if const.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
            return f"the constant part {_short(const)} is infinite or undefined (a division by zero?)"
        value = _float_value(const)
        if value is not None and not abs(value) <= MAX_MAGNITUDE:
            shown = f"{value:.3g}" if math.isfinite(value) else "beyond the floating-point range"
            return (f"the constant {_short(const)} = {shown} is too large (constants of quasi-velocities must lie "
                    f"within +-{MAX_MAGNITUDE:g}, like every number in a model file; larger ones overflow the Appell "
                    "formulations)")
    coordinates = bool(expr.free_symbols - {timefunc.T} - {s for s in values if s.name == "speed"})
    for t in (0.0,) if coordinates else (0.0, 0.5):
        value = _float_value(expr.subs({timefunc.T: t, **values}))
        if value is not None and math.isinf(value):
            return (f"the value overflows at the file's initial configuration (t = {t:g} s, rough positions, "
                    f"speeds 1): {_short(expr)} is beyond the floating-point range")
        if not coordinates and (value is None or math.isnan(value)):  # a function of t alone: no rough guess
            return f"{_short(expr)} has no real value at t = {t:g} s"
    return None


def _short(expr: sp.Expr) -> str:
    import sympy as sp  # sympy only for models with quasi-velocities (start-up of every load)
    text = sp.sstr(expr)
    return text if len(text) <= 40 else f"{text[:30]}... ({len(text)} characters)"


#: a coordinate ``body.c`` of a quasi-velocity string (any dotted pair of names: a superset of the model's)
_DOTTED = re.compile(r"(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_\-]*\.[A-Za-z_][A-Za-z0-9_]*(?![A-Za-z0-9_])")


def _state_expression(text: str, rough: dict[str, float]) -> tuple[sp.Expr, dict[sp.Symbol, float]] | None:
    """A sympy form of a quasi-velocity string in which every dotted name (a coordinate ``body.c``) and every speed
    ``d(...)`` is a placeholder symbol, with the placeholders' rough values (speeds 1, unknown coordinates 0): enough
    to find its constants and a first value. None when it does not parse here (an unknown name: left to the
    compiler, which knows the coordinates); raises :class:`ExpressionTooLarge` for a bomb. The placeholders make
    the tree no larger than the compiler's (core.symbolic.expr), so a bound exceeded here is exceeded there too."""
    import sympy as sp  # sympy only for models with quasi-velocities (start-up of every load)
    if len(text) > 2 * MAX_EXPRESSION_CHARS:
        raise ExpressionTooLarge(f"expression longer than {2 * MAX_EXPRESSION_CHARS} characters")
    names: dict[str, str] = {}

    def placeholder(m: re.Match[str]) -> str:
        return names.setdefault(m.group(0), f"__c{len(names)}__")
    src = _DOTTED.sub(placeholder, text)
    symbols = {key: sp.Symbol(name, real=True) for name, key in names.items()}
    values: dict[sp.Symbol, float] = {symbols[key]: rough.get(name, 0.0) for name, key in names.items()}

    def call(node: ast.Call) -> sp.Expr | None:
        import sympy as sp  # sympy only for models with quasi-velocities (start-up of every load)
        if getattr(node.func, "id", "") != "d":
            return None
        speed = sp.Dummy("speed")
        values[speed] = 1.0
        return speed

    try:
        return ast_to_sympy(parse_tree(src, max_chars=4 * MAX_EXPRESSION_CHARS), symbols, "", call), values
    except ExpressionTooLarge:
        raise
    except ExpressionError:
        return None


def _constants(expr: sp.Expr) -> Iterator[sp.Expr]:
    """The maximal sub-expressions of ``expr`` free of symbols (iterative walk)."""
    import sympy as sp  # sympy only for models with quasi-velocities (start-up of every load)
    stack = [expr]
    while stack:
        node = stack.pop()
        if not node.free_symbols:
            yield node
        else:
            stack.extend(a for a in node.args if isinstance(a, sp.Basic))


def _float_value(const: sp.Expr) -> float | None:
    """``const`` evaluated in floating point (``math``; sympy's own arbitrary precision could run for ever): inf
    when it overflows, None when it is not a real number."""
    import sympy as sp  # sympy only for models with quasi-velocities (start-up of every load)
    fn: Callable[[], Any] = sp.lambdify((), const, modules=LAMBDIFY_MODULES)
    try:
        value = fn()
    except OverflowError:
        return math.inf
    except (ValueError, ZeroDivisionError, TypeError):
        return None
    try:
        return float(value)
    except OverflowError:  # an exact integer beyond the floating-point range
        return math.inf
    except (TypeError, ValueError):
        return None


__all__ = ["document_problems", "ground_motion_problems", "inertia_problems", "initial_velocity_problems",
           "kind_problems", "quasi_velocity_problems", "quaternion_problems", "time_function_problem"]
