"""User expressions in coordinates and speeds (mechstudio.core.symbolic.expr): every occurrence of a coordinate is
recognised, also right after an operator such as '-', and body names containing '-' still resolve. Each parsed
expression is compared with the sympy expression written out by hand (exact symbolic equality)."""
from __future__ import annotations

import pytest
import sympy as sp

from mechstudio.core.model.timefunc import ExpressionError
from mechstudio.core.symbolic.expr import parse_state_expression

x, y, phi, z = sp.symbols("x y phi z", real=True)
xd = sp.Symbol("xd", real=True)
COORDS = {"skate.x": x, "skate.y": y, "skate.phi": phi, "arm-2.x": z}
SPEEDS = {"skate.x": xd, "skate.y": sp.Symbol("yd"), "skate.phi": sp.Symbol("phid"), "arm-2.x": sp.Symbol("zd")}


@pytest.mark.parametrize("text, expected", [
    ("skate.x-skate.x", 0 * x),
    ("skate.x-skate.y", x - y),
    ("-skate.phi+skate.x*skate.y", -phi + x * y),
    ("skate.x-arm-2.x", x - z),
    ("arm-2.x-skate.x", z - x),
    ("cos(skate.phi)*d(skate.x)-skate.y", sp.cos(phi) * xd - y),
    ("2*skate.x**2-skate.x", 2 * x**2 - x),
])
def test_every_coordinate_is_recognised(text: str, expected: sp.Expr) -> None:
    assert sp.simplify(parse_state_expression(text, COORDS, SPEEDS) - expected) == 0


@pytest.mark.parametrize("text", ["skate.z", "skate.x-skate.q", "kate.x"])
def test_unknown_coordinates_are_refused_by_name(text: str) -> None:
    with pytest.raises(ExpressionError, match="unknown coordinate|not allowed|unknown"):
        parse_state_expression(text, COORDS, SPEEDS)
