"""The synthesis dialog's inputs as plain data: the path targets' table (x, y and an optional crank angle per
target), the function generator's angle pairs, and a function y = f(x) typed as an expression, checked before the
search starts. Every refusal is a :class:`Problem` that names the table cell or the field it is about, so the dialog
can show it next to what the user typed. No Qt here.

The checks are the core's (``mechstudio.core.analysis.synthesis``: at least ``MIN_PATH_POINTS`` targets, no two the
same point within ``DUPLICATE_RTOL`` of the targets' size, crank angles strictly monotonic and spanning less than a
turn, at least ``MIN_FUNCTION_POINTS`` pairs, or ``MIN_FUNCTION_POINTS_ABSOLUTE`` with absolute angles), stated per
cell; the core checks again and its message is shown as it is.

**A function as angle pairs** (the textbook function generator, e.g. R. L. Norton, *Design of Machinery*, ch. 5,
"function generation"): y = f(x) over [x_start, x_end] is sampled at ``count`` Chebyshev points
(:func:`mechstudio.core.analysis.synthesis.function_targets`) and scaled linearly to the linkage's angles,

    theta = theta_s + dtheta (x - x_start) / (x_end - x_start),   psi = psi_s + dpsi (y - y_s) / (y_e - y_s),

y_s = f(x_start), y_e = f(x_end): the input turns through ``dtheta`` while x runs over its range, the output through
``dpsi`` while y does. theta_s, psi_s (from the ground line) count only with absolute angles; otherwise the search
chooses the starting angles. The expression is parsed by the model's safe parser
(:func:`mechstudio.core.model.timefunc.parse_tree` / ``ast_to_sympy``: a whitelist of names and functions, nothing is
evaluated as Python) with the variable ``x`` and ``log10`` besides the time functions' functions.
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from mechstudio.core.analysis.synthesis import (DUPLICATE_RTOL, MIN_FUNCTION_POINTS, MIN_FUNCTION_POINTS_ABSOLUTE,
                                                MIN_PATH_POINTS, function_targets)
from mechstudio.core.model.timefunc import LAMBDIFY_MODULES, ExpressionError, ast_to_sympy, parse_tree

#: columns of the path targets' table
X_COL, Y_COL, ANGLE_COL = 0, 1, 2
#: columns of the angle pairs' table (then the achieved output and its error, filled from a result)
INPUT_COL, OUTPUT_COL, ACHIEVED_COL, ERROR_COL = 0, 1, 2, 3
#: Chebyshev points of a typed function: the core needs 5 with free starting angles (3 absolute); 20 is plenty
MIN_COUNT, MAX_COUNT = MIN_FUNCTION_POINTS_ABSOLUTE, 20
FULL_TURN_DEG = 360.0
#: f(x_start) and f(x_end) this close (relative) count as equal: no output rotation can be scaled to their difference
SAME_VALUE_RTOL = 1e-12
#: what an expression may name, for the parser's message about an unknown name
NAME_HINT = "only x, pi, e; log10"


@dataclass(frozen=True)
class Problem:
    """Why the inputs cannot be synthesized. ``row``/``column``: the table cell it is about (0-based), or
    ``field``: the name of the dialog's field (``expression``, ``x_start``, ...); neither: the table as a whole."""
    message: str
    row: int | None = None
    column: int | None = None
    field: str | None = None


def parse_number(text: str) -> float | None:
    """A finite float from a cell's text, else None."""
    try:
        value = float(text.strip())
    except (ValueError, AttributeError):
        return None
    return value if math.isfinite(value) else None


def _cell_number(rows: Sequence[Sequence[str]], r: int, c: int, what: str) -> float | Problem:
    text = rows[r][c].strip() if c < len(rows[r]) else ""
    if not text:
        return Problem(f"{what} of row {r + 1} is missing", r, c)
    value = parse_number(text)
    return Problem(f"{what} of row {r + 1} is not a number: {text!r}", r, c) if value is None else value


def monotonic_problem(angles: Sequence[float], column: int, what: str) -> Problem | None:
    """The core's rule for prescribed angles [deg here]: strictly increasing or decreasing, a span under a turn;
    the problem names the first offending row."""
    steps = np.diff(np.asarray(angles, float))
    if len(steps) == 0:
        return None
    direction = 1.0 if steps[0] > 0 else -1.0 if steps[0] < 0 else 0.0
    for k, s in enumerate(steps):
        if s == 0 or np.sign(s) != direction:
            return Problem(f"the {what}s must increase (or decrease) from each row to the next: rows {k + 1} and "
                           f"{k + 2} have {angles[k]:g} and {angles[k + 1]:g} deg", k + 1, column)
    span = abs(angles[-1] - angles[0])
    if span >= FULL_TURN_DEG:
        return Problem(f"the {what}s span {span:g} deg: they must stay within one turn (less than 360 deg)",
                       len(angles) - 1, column)
    return None


def path_inputs(rows: Sequence[Sequence[str]], timing: bool) -> tuple[np.ndarray, np.ndarray | None] | Problem:
    """(targets (N, 2) [m], crank angles (N,) [rad] or None) from the table's texts (x, y, crank angle [deg]), or
    the first problem."""
    pts: list[tuple[float, float]] = []
    angles: list[float] = []
    for r in range(len(rows)):
        x = _cell_number(rows, r, X_COL, "x")
        if isinstance(x, Problem):
            return x
        y = _cell_number(rows, r, Y_COL, "y")
        if isinstance(y, Problem):
            return y
        pts.append((x, y))
        if timing:
            a = _cell_number(rows, r, ANGLE_COL, "the crank angle")
            if isinstance(a, Problem):
                return a
            angles.append(a)
    if len(pts) < MIN_PATH_POINTS:
        return Problem(f"{len(pts)} target{'s' if len(pts) != 1 else ''}: at least {MIN_PATH_POINTS} are needed")
    T = np.array(pts, float)
    size = float(np.max(np.ptp(T, axis=0)))
    if size == 0:
        return Problem("all targets are the same point", 1, X_COL)
    for j in range(1, len(T)):  # the core's test (DUPLICATE_RTOL of the targets' size), naming the later row
        d = np.linalg.norm(T[:j] - T[j], axis=1)
        i = int(np.argmin(d))
        if d[i] <= DUPLICATE_RTOL * size:
            return Problem(f"targets {i + 1} and {j + 1} are the same point ({T[j, 0]:g}, {T[j, 1]:g})", j, X_COL)
    if not timing:
        return T, None
    bad = monotonic_problem(angles, ANGLE_COL, "crank angle")
    return bad if bad is not None else (T, np.radians(np.array(angles, float)))


def pair_inputs(rows: Sequence[Sequence[str]], absolute: bool) -> tuple[np.ndarray, np.ndarray] | Problem:
    """(input angles, output angles) [rad] from the pairs' texts [deg], or the first problem."""
    inputs: list[float] = []
    outputs: list[float] = []
    for r in range(len(rows)):
        a = _cell_number(rows, r, INPUT_COL, "the input angle")
        if isinstance(a, Problem):
            return a
        b = _cell_number(rows, r, OUTPUT_COL, "the output angle")
        if isinstance(b, Problem):
            return b
        inputs.append(a)
        outputs.append(b)
    minimum = MIN_FUNCTION_POINTS_ABSOLUTE if absolute else MIN_FUNCTION_POINTS
    if len(inputs) < minimum:
        return Problem(f"{len(inputs)} angle pair{'s' if len(inputs) != 1 else ''}: at least {minimum} are needed"
                       + ("" if absolute else f" with free starting angles ({MIN_FUNCTION_POINTS_ABSOLUTE} with "
                                              "absolute angles)"))
    bad = monotonic_problem(inputs, INPUT_COL, "input angle")
    return bad if bad is not None else (np.radians(inputs), np.radians(outputs))


# --- a function typed as an expression ------------------------------------------------------------------------

@dataclass(frozen=True)
class FunctionSpec:
    """y = f(x) over [x_start, x_end] at ``count`` Chebyshev points, the input turning ``input_span_deg`` and the
    output ``output_span_deg`` over the ranges (module docstring); ``input_start_deg``, ``output_start_deg``: the
    angles from the ground line at x_start (absolute angles only). Texts as typed."""
    expression: str = "log10(x)"
    x_start: str = "1"
    x_end: str = "2"
    count: int = 5
    input_span_deg: str = "60"
    output_span_deg: str = "90"
    input_start_deg: str = "0"
    output_start_deg: str = "0"


def parse_function(text: str) -> Callable[[float], float]:
    """A float function of x from an expression such as ``log10(x)`` or ``y = x**2`` (a leading ``y =`` is
    dropped); raises ExpressionError with the reason."""
    import sympy  # function-local: the module imports no sympy at load time (start-up, as core.model.timefunc)
    src = text.strip()
    if src.replace(" ", "").startswith("y=") and not src.replace(" ", "").startswith("y=="):
        src = src.split("=", 1)[1].strip()
    if not src.strip():
        raise ExpressionError("type a function of x, e.g. log10(x)")
    x = sympy.Symbol("x", real=True)
    names = {"x": x}

    def log10(node: ast.Call) -> Any:
        """ast_to_sympy's ``call`` hook: ``log10(u)`` as log(u)/log(10) (the time functions have ``log`` only)."""
        if not isinstance(node.func, ast.Name) or node.func.id != "log10":
            return None
        if len(node.args) != 1:
            raise ExpressionError("log10 takes one argument")
        return sympy.log(ast_to_sympy(node.args[0], names, NAME_HINT, log10)) / sympy.log(10)

    expr = ast_to_sympy(parse_tree(src), names, NAME_HINT, log10)
    if expr.free_symbols - {x}:
        raise ExpressionError("the function may depend on x only")
    fn = sympy.lambdify(x, expr, modules=LAMBDIFY_MODULES)
    return lambda v: float(fn(v))


def _field_number(text: str, name: str, what: str) -> float | Problem:
    value = parse_number(text)
    return Problem(f"{what} is not a number: {text.strip()!r}", field=name) if value is None else value


def function_pairs(spec: FunctionSpec, absolute: bool) -> tuple[np.ndarray, np.ndarray] | Problem:
    """(input angles, output angles) [deg] of ``spec`` (module docstring), or the first problem (naming its field)."""
    try:
        f = parse_function(spec.expression)
    except ExpressionError as exc:
        text = str(exc) + (", log10" if str(exc).startswith("unknown function") else "")
        return Problem(f"y = f(x): {text}", field="expression")
    values: dict[str, float] = {}
    for name, what in (("x_start", "the start of x"), ("x_end", "the end of x"),
                       ("input_span_deg", "the input's rotation"), ("output_span_deg", "the output's rotation"),
                       ("input_start_deg", "the input's start angle"), ("output_start_deg", "the output's start "
                                                                                              "angle")):
        if not absolute and name in ("input_start_deg", "output_start_deg"):
            values[name] = 0.0
            continue
        v = _field_number(getattr(spec, name), name, what)
        if isinstance(v, Problem):
            return v
        values[name] = v
    x0, x1 = values["x_start"], values["x_end"]
    if x0 == x1:
        return Problem("the range of x is empty: start and end are equal", field="x_end")
    if values["input_span_deg"] == 0 or abs(values["input_span_deg"]) >= FULL_TURN_DEG:
        return Problem("the input's rotation must be non-zero and less than a turn (360 deg)", field="input_span_deg")
    if values["output_span_deg"] == 0:
        return Problem("the output's rotation must be non-zero", field="output_span_deg")
    minimum = MIN_FUNCTION_POINTS_ABSOLUTE if absolute else MIN_FUNCTION_POINTS
    if not minimum <= spec.count <= MAX_COUNT:
        return Problem(f"{spec.count} points: between {minimum} and {MAX_COUNT} are needed"
                       + ("" if absolute else " with free starting angles"), field="count")

    def value_at(v: float) -> float | Problem:
        try:
            y = f(v)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            y = math.nan
        return y if math.isfinite(y) else Problem(f"f(x) is not a finite number at x = {v:g}", field="expression")

    ends = [value_at(x0), value_at(x1)]
    for e in ends:
        if isinstance(e, Problem):
            return e
    ys, ye = ends  # type: ignore[misc]
    if abs(ye - ys) <= SAME_VALUE_RTOL * max(1.0, abs(ys), abs(ye)):
        return Problem(f"f(x_start) = f(x_end) = {ys:g}: the output's rotation cannot be scaled to the range of y",
                       field="expression")
    samples: list[float] = []

    def sample(xs: np.ndarray) -> np.ndarray:
        for v in xs:
            y = value_at(float(v))
            if isinstance(y, Problem):
                raise _Undefined(y)
            samples.append(y)
        return np.array(samples, float)

    try:
        x, y = function_targets(sample, x0, x1, int(spec.count))
    except _Undefined as exc:
        return exc.problem
    theta = values["input_start_deg"] + values["input_span_deg"] * (x - x0) / (x1 - x0)
    psi = values["output_start_deg"] + values["output_span_deg"] * (y - ys) / (ye - ys)
    return theta, psi


class _Undefined(Exception):
    def __init__(self, problem: Problem):
        super().__init__(problem.message)
        self.problem = problem


__all__ = ["ACHIEVED_COL", "ANGLE_COL", "ERROR_COL", "FunctionSpec", "INPUT_COL", "MAX_COUNT", "MIN_COUNT",
           "OUTPUT_COL", "Problem", "X_COL", "Y_COL", "function_pairs", "monotonic_problem", "pair_inputs",
           "parse_function", "parse_number", "path_inputs"]
