"""Functions of time f(t) used by drivers and applied loads, with analytic f'(t) and f''(t).

Forms accepted in a model file (all angles in rad, lengths in m, time in s):

* a plain number ``c``                                    f = c
* ``{"type": "constant_speed", "initial": a, "speed": b}``   f = a + b t
* ``{"type": "polynomial", "coefficients": [c0, c1, ...]}``  f = c0 + c1 t + c2 t² + ...
* ``{"type": "harmonic", "amplitude": A, "frequency": w, "phase": p, "offset": c}``
  f = c + A sin(w t + p), w in rad/s
* ``{"type": "expression", "expression": "0.1*sin(2*pi*t) + t**2"}``

Expressions are parsed with Python's :mod:`ast` and accepted only if every node is a number, the name
``t``, the constants ``pi``/``e``, an arithmetic operator or a call of a whitelisted function; the tree is
converted to a sympy expression node by node (never ``eval``), differentiated symbolically and compiled
with ``sympy.lambdify``. Nothing in a model file can execute code.

Bounds (an "expression bomb" such as ``9**9**9*t`` is a diagnostic at once, never a hang): at most
``MAX_EXPRESSION_CHARS`` characters, ``MAX_EXPRESSION_NODES`` syntax-tree nodes and ``MAX_EXPRESSION_DEPTH``
levels of nesting, ``MAX_FUNCTION_NESTING`` levels of functions and powers inside each other (checked on
the :mod:`ast` tree before any sympy object is built), a first derivative of at most ``MAX_DERIVATIVE_NODES``
nodes; a numeric exponent of magnitude
at most ``MAX_EXPONENT``; a power of two explicit numbers (which sympy folds exactly) at most 10^``MAX_POWER_DIGITS``
in magnitude; number literals within +-1e300; polynomials of at most ``MAX_POLYNOMIAL_TERMS`` coefficients.
"""
from __future__ import annotations

import ast
import functools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping

from mechstudio.core.model.timefunc_programs import Program, cached_programs, lambdify_functions

if TYPE_CHECKING:
    import sympy as sp


@functools.cache
def _sympy() -> Any:
    """sympy, imported on the first time function: a model without one (and a command that parses none) never
    imports it, which saves about half a second of start-up."""
    import sympy  # on first use only (start-up time, see the docstring)
    return sympy


@functools.cache
def _tables() -> tuple[Any, dict[str, Callable[..., Any]], dict[str, Any]]:
    """(T, the whitelisted functions, the constants) as sympy objects."""
    sp = _sympy()
    functions = {
        "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "asin": sp.asin, "acos": sp.acos, "atan": sp.atan,
        "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh, "exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt,
        "abs": sp.Abs, "atan2": sp.atan2, "min": sp.Min, "max": sp.Max,
    }
    return sp.Symbol("t", real=True), functions, {"pi": sp.pi, "e": sp.E}


def function_names() -> tuple[str, ...]:
    """The names of the functions an expression may call (sorted), as a file writes them."""
    return tuple(sorted(_tables()[1]))


def __getattr__(name: str) -> Any:
    """``T``, the sympy symbol of time, created (with sympy imported) on first access."""
    if name == "T":
        return _tables()[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a ** b}


MAX_EXPRESSION_CHARS = 2000
MAX_EXPRESSION_NODES = 400
MAX_EXPRESSION_DEPTH = 100
MAX_FUNCTION_NESTING = 8
#: the first derivative may have at most this many sympy nodes (the second is differentiated from it)
MAX_DERIVATIVE_NODES = 600
MAX_EXPONENT = 1000
MAX_POWER_DIGITS = 300
MAX_LITERAL = 1e300
MAX_POLYNOMIAL_TERMS = 64


class ExpressionError(ValueError):
    """An expression string that is not a valid, safe function of t."""


class ExpressionTooLarge(ExpressionError):
    """An expression beyond one of the bounds of the module docstring (an expression bomb): refused whatever its
    names mean, so a loader can refuse it before it knows a model's coordinates."""


def _nests(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) or isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow)


def check_tree_size(tree: ast.AST) -> None:
    """Raise ExpressionError when ``tree`` has more than MAX_EXPRESSION_NODES nodes, is nested deeper than
    MAX_EXPRESSION_DEPTH, or nests functions and powers deeper than MAX_FUNCTION_NESTING (each level multiplies the
    size of the second derivative: a tower t**t**...**t of 20 takes seconds to differentiate). Iterative walk: no
    recursion on hostile input."""
    count, stack = 0, [(tree, 1, 0)]
    while stack:
        node, depth, nesting = stack.pop()
        count += 1
        if count > MAX_EXPRESSION_NODES:
            raise ExpressionTooLarge(f"expression too large (more than {MAX_EXPRESSION_NODES} terms)")
        if depth > MAX_EXPRESSION_DEPTH:
            raise ExpressionTooLarge(f"expression nested too deeply (more than {MAX_EXPRESSION_DEPTH} levels)")
        nesting += _nests(node)
        if nesting > MAX_FUNCTION_NESTING:
            raise ExpressionTooLarge(f"functions and powers nested too deeply (more than {MAX_FUNCTION_NESTING} "
                                  "levels)")
        stack.extend((child, depth + 1, nesting) for child in ast.iter_child_nodes(node))


def parse_tree(text: str, max_chars: int = MAX_EXPRESSION_CHARS) -> ast.Expression:
    """The :mod:`ast` tree of an expression string (``^`` read as ``**``), size-checked; raises ExpressionError."""
    if not isinstance(text, str):
        raise ExpressionError("an expression must be a string")
    if len(text) > max_chars:
        raise ExpressionTooLarge(f"expression longer than {max_chars} characters")
    try:
        tree = ast.parse(text.replace("^", "**"), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"not a valid expression: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise ExpressionTooLarge("not a valid expression: nested too deeply") from None
    except ValueError:  # NUL bytes in the source
        raise ExpressionError("not a valid expression (malformed)") from None
    check_tree_size(tree)
    return tree


def _checked_power(base: sp.Expr, exponent: sp.Expr) -> sp.Expr:
    """``base ** exponent`` after the exponent bounds of the module docstring (sympy folds number ** number
    exactly, so 9**9**9 would otherwise compute a 370-million-digit integer)."""
    sp = _sympy()
    if exponent.is_Number:
        if abs(float(exponent)) > MAX_EXPONENT:
            raise ExpressionTooLarge(f"exponent {sp.sstr(exponent)[:40]} too large (at most {MAX_EXPONENT} in "
                                  "magnitude)")
        if base.is_Number and base != 0:
            digits = abs(float(exponent)) * abs(math.log10(abs(float(base))) if abs(base) < MAX_LITERAL
                                                else math.inf)
            if digits > MAX_POWER_DIGITS:
                raise ExpressionTooLarge(f"number {sp.sstr(base)[:20]}**{sp.sstr(exponent)[:20]} out of range "
                                         f"(beyond 10^+-{MAX_POWER_DIGITS})")
    return base ** exponent


def ast_to_sympy(tree: ast.AST, names: Mapping[str, sp.Expr] | None = None,
                 name_hint: str = "only t, pi, e",
                 call: Callable[[ast.Call], sp.Expr | None] | None = None,
                 attribute: Callable[[ast.Attribute], sp.Expr] | None = None) -> sp.Expr:
    """Convert a parsed expression to sympy node by node; anything not whitelisted raises ExpressionError.

    ``names`` adds symbols besides t, pi, e; ``call`` may handle a call node first (return None to fall through
    to the whitelisted functions); ``attribute`` handles ``a.b`` nodes. Nothing is ever evaluated.
    """
    names = names or {}
    check_tree_size(tree)
    sp = _sympy()
    T, functions, constants = _tables()

    def convert(node: ast.AST) -> sp.Expr:
        if isinstance(node, ast.Expression):
            return convert(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            if isinstance(node.value, float) and not math.isfinite(node.value) or abs(node.value) > MAX_LITERAL:
                raise ExpressionTooLarge(f"number out of range (at most {MAX_LITERAL:g} in magnitude)")
            return sp.Float(node.value) if isinstance(node.value, float) else sp.Integer(node.value)
        if isinstance(node, ast.Name):
            if node.id in names:
                return names[node.id]
            if node.id == "t":
                return T
            if node.id in constants:
                return constants[node.id]
            raise ExpressionError(f"unknown name {node.id!r} ({name_hint} and functions "
                                  f"{', '.join(sorted(functions))} are allowed)")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            return _checked_power(convert(node.left), convert(node.right))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](convert(node.left), convert(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            value = convert(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            if call is not None:
                handled = call(node)
                if handled is not None:
                    return handled
            if node.func.id not in functions:
                raise ExpressionError(f"unknown function {node.func.id!r}; allowed: "
                                      f"{', '.join(sorted(functions))}")
            return functions[node.func.id](*[convert(a) for a in node.args])
        if isinstance(node, ast.Attribute) and attribute is not None:
            return attribute(node)
        raise ExpressionError(f"not allowed in an expression: {ast.dump(node)[:60]}")

    try:
        return sp.sympify(convert(tree))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError) as exc:  # wrong arity of a function, ...
        if isinstance(exc, ExpressionError):
            raise
        raise ExpressionError(str(exc)[:200]) from None


def parse_expression(text: str) -> sp.Expr:
    """Parse ``text`` into a sympy expression of ``t`` without evaluating any Python code."""
    expr = ast_to_sympy(parse_tree(text))
    if expr.free_symbols - {_tables()[0]}:
        raise ExpressionError("the expression may depend on t only")
    return expr


@dataclass(frozen=True)
class TimeFunction:
    """A scalar function of time with its first two derivatives, compiled from a file description.

    ``spec`` is the JSON value as written in the file (kept for lossless saving); ``expr`` is the sympy
    expression of t, ``rate_expr`` and ``accel_expr`` its first and second derivatives. Call :meth:`value`,
    :meth:`rate`, :meth:`accel` with t in seconds; :meth:`programs` gives the compiled form of the three
    (``mechstudio.core.model.timefunc_programs``).
    """

    spec: Any
    expr: sp.Expr = field(compare=False, repr=False)
    _f: Callable[[float], float] = field(compare=False, repr=False)
    _df: Callable[[float], float] = field(compare=False, repr=False)
    _ddf: Callable[[float], float] = field(compare=False, repr=False)
    rate_expr: sp.Expr | None = field(default=None, compare=False, repr=False)
    accel_expr: sp.Expr | None = field(default=None, compare=False, repr=False)

    @property
    def is_constant(self) -> bool:
        return not self.expr.has(_tables()[0])

    def value(self, t: float) -> float:
        return float(self._f(t))

    def rate(self, t: float) -> float:
        return float(self._df(t))

    def accel(self, t: float) -> float:
        return float(self._ddf(t))

    def to_json(self) -> Any:
        return self.spec

    def programs(self) -> tuple[Program, Program, Program] | None:
        """The compiled programs of (f, f', f'') (``mechstudio.core.model.timefunc_programs``), or None when a node of
        the tree has no compiled form; built once per expression (cached by its canonical text, ``sympy.srepr``)."""
        sp, T = _sympy(), _tables()[0]
        rate = self.rate_expr if self.rate_expr is not None else sp.diff(self.expr, T)
        accel = self.accel_expr if self.accel_expr is not None else sp.diff(rate, T)
        return cached_programs(sp.srepr(self.expr), (self.expr, rate, accel))


def _expr_from_spec(spec: Any) -> sp.Expr:
    sp, T = _sympy(), _tables()[0]
    if isinstance(spec, (int, float)) and not isinstance(spec, bool):
        return sp.Float(spec)
    if not isinstance(spec, dict) or "type" not in spec:
        raise ExpressionError("a time function is a number or an object with a 'type'")
    kind = spec["type"]
    if kind == "constant_speed":
        return sp.Float(spec.get("initial", 0.0)) + sp.Float(spec["speed"]) * T
    if kind == "polynomial":
        if len(spec["coefficients"]) > MAX_POLYNOMIAL_TERMS:
            raise ExpressionTooLarge(f"a polynomial has at most {MAX_POLYNOMIAL_TERMS} coefficients")
        return sum((sp.Float(c) * T ** k for k, c in enumerate(spec["coefficients"])), sp.Integer(0))
    if kind == "harmonic":
        return (sp.Float(spec.get("offset", 0.0)) + sp.Float(spec["amplitude"])
                * sp.sin(sp.Float(spec["frequency"]) * T + sp.Float(spec.get("phase", 0.0))))
    if kind == "expression":
        return parse_expression(str(spec["expression"]))
    raise ExpressionError(f"unknown time function type {kind!r}; valid: constant_speed, polynomial, "
                          "harmonic, expression")


#: functions that derivatives of abs, min and max contain, in floating point (DiracDelta taken as 0: the
#: derivative almost everywhere): declared once, with the compiled evaluation (``timefunc_programs.OPERATIONS``)
LAMBDIFY_MODULES = [lambdify_functions(), "math"]


def _compile(expr: sp.Expr) -> Callable[[float], float]:
    """A float function of t (``math`` module). Constants are evaluated the same way, in floating point: sympy's
    own evaluation of a constant such as e**e**e**e**e would run for ever at arbitrary precision."""
    sp, T = _sympy(), _tables()[0]
    fn = sp.lambdify(T, expr, modules=LAMBDIFY_MODULES)
    if not expr.has(T):
        c = float(fn(0.0))
        return lambda t, _c=c: _c
    return fn


def motion_evaluator(functions: "list[TimeFunction]") -> Callable[[float], list[float]]:
    """One compiled callable of t returning [f_1 .. f_k, f_1' .. f_k', f_1'' .. f_k''] of several time
    functions (one Python call per time instead of 3 k; e.g. a moving plane's position, velocity and
    acceleration)."""
    sp, T = _sympy(), _tables()[0]
    exprs = [f.expr for f in functions]
    rates = [sp.diff(e, T) for e in exprs]
    accels = [sp.diff(e, T) for e in rates]
    fn = sp.lambdify(T, exprs + rates + accels, modules=LAMBDIFY_MODULES)
    return lambda t: [float(x) for x in fn(t)]


def time_function(spec: Any) -> TimeFunction:
    """Build a :class:`TimeFunction` from its file description; raises :class:`ExpressionError`."""
    expr = _expr_from_spec(spec)
    sp, T = _sympy(), _tables()[0]
    try:
        d1 = sp.diff(expr, T)
        if sum(1 for _ in sp.preorder_traversal(d1)) > MAX_DERIVATIVE_NODES:
            raise ExpressionTooLarge(f"the derivative is too large (more than {MAX_DERIVATIVE_NODES} terms)")
        d2 = sp.diff(d1, T)
        f = TimeFunction(spec, expr, _compile(expr), _compile(d1), _compile(d2), d1, d2)
        for t in (0.0, 0.5):
            for what, value in (("function", f.value), ("first derivative", f.rate),
                                ("second derivative", f.accel)):
                if not math.isfinite(value(t)):
                    raise ExpressionError(f"the {what} is not finite at t = {t}")
    except (ZeroDivisionError, ValueError, OverflowError, TypeError, NameError) as exc:
        if isinstance(exc, ExpressionError):
            raise
        raise ExpressionError(f"the function cannot be evaluated at t = 0 and 0.5 s: {str(exc)[:100]}") from None
    return f
