"""Time functions compiled: the sympy tree of f(t) (``mechstudio.core.model.timefunc``) turned into a small postfix
program, run by one compiled evaluator.

Why a program and not a compiled function per expression: a model's time functions are data. A function
generated per expression would have to be compiled (numba, seconds to minutes with the right-hand side that
inlines it) for every new expression or constant -- every model, every point of a parameter sweep -- and could not
share the on-disk kernel cache (a cached kernel that inlined one model's expression would be stale for the next).
A program is a few integers and floats that travel with the model's packed data (``mechstudio.core.systems.planar_time``),
and the evaluator :func:`run_program` is compiled once for all of them (where compiled code calls it:
``mechstudio.core.systems.planar_time``). Its cost is a few nanoseconds per node.

What is compiled is the expression tree the parser built (``timefunc.parse_expression`` or the file's
``constant_speed``/``polynomial``/``harmonic`` forms) and its symbolic derivatives (``sympy.diff`` of the same
tree), node by node (:func:`program`):

* numbers (Integer, Rational as p/q, Float, pi, E) are constants; the symbol t is the time;
* Add and Mul fold their arguments left to right (a leading -1 of a Mul is a negation); Pow is ``math.pow``,
  except the exponents 1/2 (``sqrt``), -1 (``1/x``) and -1/2 (``1/sqrt``), as ``sympy.lambdify`` prints them;
* functions: the table :data:`OPERATIONS` -- every function the parser allows (sin, cos, ..., Abs, Min and Max
  folded pairwise, atan2) and those that derivatives bring in (sign, Heaviside; DiracDelta is 0, the derivative
  almost everywhere). The float semantics of sign, Heaviside and DiracDelta are declared here once, and
  ``timefunc``'s lambdified functions use the same definitions (:func:`lambdify_functions`).

A node of any other kind makes :class:`NotCompilable` (the model keeps the Python evaluation of its time
functions). The compiled evaluator never raises: where Python's ``math`` would raise (a division by zero, the log of a
non-positive number, an overflow) it gives a non-finite value (run as plain Python it may raise as ``math``
does), and callers treat a non-finite value as "evaluate
on the Python path", which then reports the error as before.

Encoding: a program is ``code`` (int64 pairs (operation, argument): the argument is the index of a constant for
:data:`CONST`, else 0) and ``consts`` (float64); :class:`Program` also records the stack depth it needs.
:func:`run_program` is generated from :data:`OPERATIONS` (:func:`evaluator_source`), so that the table is the one
declaration of the operations; tests/test_timefunc_compiled.py checks it against ``sympy.lambdify`` for every
node type.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

#: operations: name -> (number of stack operands, the result as numba-compilable Python over the operands a, b).
#: The order gives the opcodes; the first three are the leaves and the arithmetic of every program.
OPERATIONS: dict[str, tuple[int, str]] = {
    "const": (0, "consts[arg]"),
    "time": (0, "t"),
    "add": (2, "a + b"),
    "mul": (2, "a * b"),
    "neg": (1, "-a"),
    "div": (2, "a / b if b != 0.0 else math.nan"),
    "pow": (2, "math.pow(a, b) if a > 0.0 or (a == 0.0 and b >= 0.0) or (a < 0.0 and b == math.floor(b)) "
               "else math.nan"),
    "sqrt": (1, "math.sqrt(a) if a >= 0.0 else math.nan"),
    "sin": (1, "math.sin(a)"),
    "cos": (1, "math.cos(a)"),
    "tan": (1, "math.tan(a)"),
    "asin": (1, "math.asin(a) if -1.0 <= a <= 1.0 else math.nan"),
    "acos": (1, "math.acos(a) if -1.0 <= a <= 1.0 else math.nan"),
    "atan": (1, "math.atan(a)"),
    "sinh": (1, "math.sinh(a)"),
    "cosh": (1, "math.cosh(a)"),
    "tanh": (1, "math.tanh(a)"),
    "exp": (1, "math.exp(a)"),
    "log": (1, "math.log(a) if a > 0.0 else math.nan"),
    "Abs": (1, "abs(a)"),
    "atan2": (2, "math.atan2(a, b)"),
    "Min": (2, "b if b < a else a"),  # Python's min(a, b)
    "Max": (2, "b if b > a else a"),  # Python's max(a, b)
    # functions that derivatives contain (sympy.diff of Abs, Min, Max, sign, Heaviside)
    "sign": (1, "1.0 if a > 0.0 else (-1.0 if a < 0.0 else 0.0)"),
    "Heaviside": (2, "1.0 if a > 0.0 else (0.0 if a < 0.0 else b)"),
}
OPCODES = {name: k for k, name in enumerate(OPERATIONS)}
CONST, TIME = OPCODES["const"], OPCODES["time"]
#: sympy functions folded pairwise over their arguments (Min(a, b, c) = Min(Min(a, b), c))
FOLDED = frozenset({"Min", "Max"})
#: the value of Heaviside at 0 when the tree gives none (sympy's default H0 = 1/2)
HEAVISIDE_AT_ZERO = 0.5
#: functions whose value is 0 wherever it is finite (DiracDelta and its derivatives: the derivative almost
#: everywhere of a step)
ZERO_FUNCTIONS = frozenset({"DiracDelta"})


class NotCompilable(ValueError):
    """A node of a time function's tree with no compiled form (the function stays on the Python path)."""


@dataclass(frozen=True)
class Program:
    """A compiled time function: ``code`` (int64 (operation, argument) pairs), ``consts`` (float64) and the stack
    depth :func:`run_program` needs (module docstring)."""
    code: np.ndarray
    consts: np.ndarray
    depth: int


def evaluator_source(name: str = "run_program") -> str:
    """The source of ``name(code, start, end, consts, t, stack)``: run the program ``code[start:end]`` (pairs) at
    time t on ``stack`` (at least the program's depth) and return its value; one branch per entry of
    :data:`OPERATIONS`."""
    lines = [f"def {name}(code, start, end, consts, t, stack):  # noqa: ANN001, ANN201 - generated by "
             "timefunc_programs.evaluator_source",
             '    """The value of the program code[start:end] at t (timefunc_programs: generated from OPERATIONS)."""',
             "    sp = 0", "    i = start", "    while i < end:", "        op = code[i]", "        arg = code[i + 1]",
             "        i += 2"]
    for k, (op, (arity, expr)) in enumerate(OPERATIONS.items()):
        head = "if" if k == 0 else "elif"
        lines.append(f"        {head} op == {k}:  # {op}")
        if arity == 0:
            lines += [f"            stack[sp] = {expr}", "            sp += 1"]
        elif arity == 1:
            lines += ["            a = stack[sp - 1]", f"            stack[sp - 1] = {expr}"]
        else:
            lines += ["            b = stack[sp - 1]", "            a = stack[sp - 2]", "            sp -= 1",
                      f"            stack[sp - 1] = {expr}"]
    lines += ["        else:", "            return math.nan", "    return stack[0]"]
    return "\n".join(lines) + "\n"


_NAMESPACE: dict[str, Any] = {"math": math}
exec(compile(evaluator_source(), f"<{__name__}.run_program, generated>", "exec"), _NAMESPACE)  # noqa: S102
run_program: Callable[..., float] = _NAMESPACE["run_program"]


def lambdify_functions() -> dict[str, Callable[..., float]]:
    """sign, Heaviside and DiracDelta as float functions for ``sympy.lambdify``'s ``modules`` (the float semantics
    of :data:`OPERATIONS`, so that the Python and the compiled evaluation agree)."""
    out: dict[str, Callable[..., float]] = {}
    for name in ("sign",):
        out[name] = eval(f"lambda a: float({OPERATIONS[name][1]})", {"math": math})  # noqa: S307 - the table
    out["Heaviside"] = eval(f"lambda a, b={HEAVISIDE_AT_ZERO}: float({OPERATIONS['Heaviside'][1]})",  # noqa: S307
                            {"math": math})
    for name in ZERO_FUNCTIONS:
        out[name] = lambda a, *order: 0.0
    return out


class _Constant:
    """A constant the emitter inserts itself (Heaviside's default value at 0)."""

    def __init__(self, value: float):
        self.value = value


class _Emitter:
    """Postfix code of a sympy tree (module docstring); iterative, so a deep tree cannot exhaust the recursion
    limit. Work items: a node to visit, a :class:`_Constant`, or the name of an operation to emit."""

    def __init__(self) -> None:
        self.code: list[int] = []
        self.consts: list[float] = []
        self.depth = 0
        self.max_depth = 0

    def op(self, name: str, arg: int = 0) -> None:
        self.depth += 1 - OPERATIONS[name][0]
        self.max_depth = max(self.max_depth, self.depth)
        self.code += [OPCODES[name], arg]

    def const(self, value: float) -> None:
        self.consts.append(float(value))
        self.op("const", len(self.consts) - 1)

    def emit(self, root: Any) -> None:
        todo: list[Any] = [root]
        while todo:
            item = todo.pop()
            if isinstance(item, str):
                self.op(item)
            elif isinstance(item, _Constant):
                self.const(item.value)
            else:
                todo += reversed(self.expand(item))

    @staticmethod
    def fold(args: list[Any], name: str) -> list[Any]:
        """args[0], args[1], name, args[2], name, ...: a left fold."""
        seq = [args[0]]
        for a in args[1:]:
            seq += [a, name]
        return seq

    def expand(self, node: Any) -> list[Any]:
        """The work items of ``node`` in evaluation order (leaves are emitted at once: an empty list)."""
        if node.is_Symbol:
            if node.name != "t":
                raise NotCompilable(f"unknown symbol {node.name!r}")
            self.op("time")
            return []
        if node.is_Number or node.is_NumberSymbol:
            value = float(node)
            if not math.isfinite(value):
                raise NotCompilable(f"the constant {node} is not finite")
            self.const(value)
            return []
        args = list(node.args)
        name = type(node).__name__
        if node.is_Add:
            return self.fold(args, "add")
        if node.is_Mul:
            if args[0] == -1 and len(args) > 1:  # -x (as lambdify prints it, not -1*x)
                return self.fold(args[1:], "mul") + ["neg"]
            return self.fold(args, "mul")
        if node.is_Pow:
            base, exponent = args
            if exponent.is_Rational and exponent.q == 2 and abs(exponent.p) == 1:  # x**(1/2), x**(-1/2)
                return [base, "sqrt"] if exponent.p == 1 else [_Constant(1.0), base, "sqrt", "div"]
            if exponent.is_Integer and exponent == -1:
                return [_Constant(1.0), base, "div"]
            return [base, exponent, "pow"]
        if name in ZERO_FUNCTIONS:
            self.const(0.0)
            return []
        if name == "Heaviside" and len(args) == 1:
            return [args[0], _Constant(HEAVISIDE_AT_ZERO), "Heaviside"]
        if node.is_Function and name in OPERATIONS and OPERATIONS[name][0] > 0:
            if name in FOLDED and len(args) >= 2:
                return self.fold(args, name)
            if len(args) != OPERATIONS[name][0]:
                raise NotCompilable(f"{name} with {len(args)} arguments")
            return [*args, name]
        raise NotCompilable(f"no compiled form for {name}")


def program(expr: Any) -> Program:
    """The program of a sympy expression of t (module docstring); raises :class:`NotCompilable`."""
    em = _Emitter()
    em.emit(expr)
    if em.depth != 1:  # pragma: no cover - an arity mismatch in OPERATIONS
        raise NotCompilable(f"internal: the program leaves {em.depth} values")
    return Program(np.array(em.code, np.int64), np.array(em.consts, float), em.max_depth)


#: programs of (f, f', f'') by the canonical text of f (``sympy.srepr``): a sweep rebuilding its models compiles
#: each expression once; at most CACHE_SIZE entries (the oldest dropped first)
CACHE_SIZE = 4096
_CACHE: dict[str, tuple[Program, Program, Program] | None] = {}
_CACHE_LOCK = threading.Lock()


def cached_programs(key: str, exprs: tuple[Any, Any, Any]) -> tuple[Program, Program, Program] | None:
    """The programs of (f, f', f'') (``exprs``, sympy), or None when one has no compiled form; cached by ``key``
    (the canonical text of f)."""
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
    try:
        got: tuple[Program, Program, Program] | None = (program(exprs[0]), program(exprs[1]), program(exprs[2]))
    except (NotCompilable, TypeError, ValueError, OverflowError):
        got = None
    with _CACHE_LOCK:
        while len(_CACHE) >= CACHE_SIZE:
            del _CACHE[next(iter(_CACHE))]
        _CACHE[key] = got
    return got


def concatenate(programs: list[Program]) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(code, starts (len + 1,), consts, depth): several programs in one code and one constant array (constant
    indices shifted); program k is code[starts[k]:starts[k + 1]]."""
    codes, consts, starts = [], [], [0]
    nconst = 0
    for p in programs:
        c = p.code.copy()
        c[1::2] += np.where(c[0::2] == CONST, nconst, 0)
        codes.append(c)
        consts.append(p.consts)
        nconst += len(p.consts)
        starts.append(starts[-1] + len(c))
    code = np.ascontiguousarray(np.concatenate(codes) if codes else np.zeros(0, np.int64), dtype=np.int64)
    const = np.ascontiguousarray(np.concatenate(consts) if consts else np.zeros(0), dtype=float)
    return code, np.asarray(starts, np.int64), const, max([p.depth for p in programs], default=1)


def evaluate(p: Program, t: float) -> float:
    """The value of one program at t (the Python :func:`run_program`; the compiled one is built where compiled code
    calls it, ``mechstudio.core.systems.planar_time``)."""
    return float(run_program(p.code, 0, len(p.code), p.consts, float(t), np.empty(max(p.depth, 1))))


__all__ = ["CACHE_SIZE", "CONST", "FOLDED", "HEAVISIDE_AT_ZERO", "NotCompilable", "OPCODES", "OPERATIONS", "Program",
           "TIME", "ZERO_FUNCTIONS", "cached_programs", "concatenate", "evaluate", "evaluator_source",
           "lambdify_functions", "program", "run_program"]
