"""Safe parsing of user expressions in t, generalized coordinates and their speeds.

Grammar: numbers, ``t``, ``pi``, ``e``, + - * / ** (or ^), the functions of :mod:`mechstudio.core.model.timefunc`, a
coordinate written ``body.coord`` (e.g. ``skate.phi``) and its speed written ``d(body.coord)``. The text is
parsed with :mod:`ast` and converted node by node to sympy; nothing is evaluated, so a model file cannot run
code. Coordinate names are replaced by placeholder identifiers before parsing, so body names containing '-'
work too. The size, depth and exponent bounds of :mod:`mechstudio.core.model.timefunc` apply.
"""
from __future__ import annotations

import ast
import re
from typing import Mapping

import sympy as sp

from mechstudio.core.model.timefunc import MAX_EXPRESSION_CHARS, ExpressionError, ast_to_sympy, parse_tree


def parse_state_expression(text: str, coords: Mapping[str, sp.Symbol],
                           speeds: Mapping[str, sp.Symbol] | None = None) -> sp.Expr:
    """Parse ``text`` into sympy; ``coords``/``speeds`` map "body.coord" to symbols (see module docstring)."""
    if not isinstance(text, str):
        raise ExpressionError("an expression must be a string")
    names = sorted(coords, key=len, reverse=True)
    table: dict[str, str] = {}
    if len(text) > 2 * MAX_EXPRESSION_CHARS:
        raise ExpressionError(f"expression longer than {2 * MAX_EXPRESSION_CHARS} characters")
    src = text
    if names:
        pattern = re.compile(r"(?<![A-Za-z0-9_.])(" + "|".join(re.escape(n) for n in names) + r")(?![A-Za-z0-9_])")

        def sub(m: re.Match[str]) -> str:
            key = f"__q{names.index(m.group(1))}__"
            table[key] = m.group(1)
            return key
        src = pattern.sub(sub, src)
    tree = parse_tree(src, max_chars=4 * MAX_EXPRESSION_CHARS)  # placeholders lengthen the text

    symbols = {key: coords[name] for key, name in table.items()}

    def call(node: ast.Call) -> sp.Expr | None:
        if node.func.id != "d":  # type: ignore[attr-defined]
            return None
        if speeds is None:
            raise ExpressionError("speeds d(...) are not allowed here")
        if len(node.args) != 1 or not isinstance(node.args[0], ast.Name) or node.args[0].id not in table:
            raise ExpressionError("d(...) takes one coordinate, e.g. d(body.x)")
        return speeds[table[node.args[0].id]]

    def attribute(node: ast.Attribute) -> sp.Expr:
        text = ast.unparse(node)
        for key, name in table.items():
            text = text.replace(key, name)
        raise ExpressionError(f"unknown coordinate {text!r}; coordinates: {', '.join(coords) or '(none)'}")

    return ast_to_sympy(tree, symbols, f"allowed: t, pi, e, coordinates {', '.join(coords) or '(none)'} and "
                                       "d(coordinate);", call, attribute)
