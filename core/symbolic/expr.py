"""Safe parsing of user expressions in t, generalized coordinates and their speeds.

Grammar: numbers, ``t``, ``pi``, ``e``, + - * / ** (or ^), the functions of :mod:`core.model.timefunc`, a
coordinate written ``body.coord`` (e.g. ``skate.phi``) and its speed written ``d(body.coord)``. The text is
parsed with :mod:`ast` and converted node by node to sympy; nothing is evaluated, so a model file cannot run
code. Coordinate names are replaced by placeholder identifiers before parsing, so body names containing '-'
work too.
"""
from __future__ import annotations

import ast
import math
import re
from typing import Mapping

import sympy as sp

from core.model.timefunc import _BINOPS, _CONSTANTS, _FUNCTIONS, T, ExpressionError


def parse_state_expression(text: str, coords: Mapping[str, sp.Symbol],
                           speeds: Mapping[str, sp.Symbol] | None = None) -> sp.Expr:
    """Parse ``text`` into sympy; ``coords``/``speeds`` map "body.coord" to symbols (see module docstring)."""
    if not isinstance(text, str):
        raise ExpressionError("an expression must be a string")
    if len(text) > 4000:
        raise ExpressionError("expression longer than 4000 characters")
    names = sorted(coords, key=len, reverse=True)
    table: dict[str, str] = {}
    src = text.replace("^", "**")
    if names:
        pattern = re.compile(r"(?<![A-Za-z0-9_.\-])(" + "|".join(re.escape(n) for n in names) + r")(?![A-Za-z0-9_])")

        def sub(m: re.Match[str]) -> str:
            key = f"__q{names.index(m.group(1))}__"
            table[key] = m.group(1)
            return key
        src = pattern.sub(sub, src)
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"not a valid expression: {exc.msg}") from None

    def convert(node: ast.AST) -> sp.Expr:
        if isinstance(node, ast.Expression):
            return convert(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            if not math.isfinite(node.value):
                raise ExpressionError("non-finite number")
            return sp.Float(node.value) if isinstance(node.value, float) else sp.Integer(node.value)
        if isinstance(node, ast.Name):
            if node.id in table:
                return coords[table[node.id]]
            if node.id == "t":
                return T
            if node.id in _CONSTANTS:
                return _CONSTANTS[node.id]
            raise ExpressionError(f"unknown name {node.id!r} (allowed: t, pi, e, coordinates "
                                  f"{', '.join(coords) or '(none)'} and d(coordinate))")
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](convert(node.left), convert(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            value = convert(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            if node.func.id == "d":
                if speeds is None:
                    raise ExpressionError("speeds d(...) are not allowed here")
                if len(node.args) != 1 or not isinstance(node.args[0], ast.Name) \
                        or node.args[0].id not in table:
                    raise ExpressionError("d(...) takes one coordinate, e.g. d(body.x)")
                return speeds[table[node.args[0].id]]
            if node.func.id not in _FUNCTIONS:
                raise ExpressionError(f"unknown function {node.func.id!r}; allowed: d, "
                                      f"{', '.join(sorted(_FUNCTIONS))}")
            return _FUNCTIONS[node.func.id](*[convert(a) for a in node.args])
        if isinstance(node, ast.Attribute):
            text = ast.unparse(node)
            for key, name in table.items():
                text = text.replace(key, name)
            raise ExpressionError(f"unknown coordinate {text!r}; coordinates: "
                                  f"{', '.join(coords) or '(none)'}")
        raise ExpressionError(f"not allowed in an expression: {ast.dump(node)[:60]}")

    try:
        return sp.sympify(convert(tree))
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ExpressionError):
            raise
        raise ExpressionError(str(exc)) from None
