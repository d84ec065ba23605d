"""The synthesis dialog's input checks (gui/analysis/synthesis_inputs.py, no Qt): each refusal names its cell or field
and agrees with the core's own check; a typed function gives the core's Chebyshev pairs, scaled."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mechstudio.core.analysis.synthesis import InputProblem, check_angles, check_points, function_targets
from mechstudio.gui.analysis.synthesis_inputs import (ANGLE_COL, INPUT_COL, X_COL, Y_COL, FunctionSpec, Problem,
                                                      function_pairs, pair_inputs, path_inputs)

SQUARE = [["0", "0"], ["1", "0"], ["1", "1"], ["0", "1"], ["0.5", "2"]]


def test_path_rows_become_the_cores_arrays() -> None:
    rows = [r + [a] for r, a in zip(SQUARE, ["10", "20", "35.5", "90", "350"])]
    T, angles = path_inputs(rows, timing=True)
    np.testing.assert_array_equal(T, [[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 2]])
    np.testing.assert_array_equal(angles, np.radians([10, 20, 35.5, 90, 350]))
    check_angles(angles, len(T), "crank angles")  # the core accepts them
    assert path_inputs(rows, timing=False)[1] is None


@pytest.mark.parametrize("edit, timing, where, fragment", [
    ((2, Y_COL, "a"), False, (2, Y_COL), "not a number"),
    ((4, X_COL, ""), False, (4, X_COL), "missing"),
    ((3, X_COL, "1"), False, (3, X_COL), "targets 3 and 4 are the same point"),  # (1, 1) twice
    ((2, ANGLE_COL, "15"), True, (2, ANGLE_COL), "rows 2 and 3"),
    ((4, ANGLE_COL, "370"), True, (4, ANGLE_COL), "one turn"),
    ((1, ANGLE_COL, "nan"), True, (1, ANGLE_COL), "not a number"),
])
def test_path_refusals_name_their_cell(edit: tuple[int, int, str], timing: bool, where: tuple[int, int],
                                       fragment: str) -> None:
    rows = [r + [a] for r, a in zip(SQUARE, ["10", "20", "30", "40", "50"])]
    r, c, text = edit
    rows[r][c] = text
    if (r, c) == (3, X_COL):
        rows[3][Y_COL] = "1"
    problem = path_inputs(rows, timing)
    assert isinstance(problem, Problem) and (problem.row, problem.column) == where and fragment in problem.message
    if fragment.startswith("targets") or fragment in ("one turn", "rows 2 and 3"):
        # the core refuses the same input
        with pytest.raises(InputProblem):
            T = np.array([[float(v) for v in row[:2]] for row in rows])
            check_points(T, 5)
            check_angles(np.radians([float(row[2]) for row in rows]), 5, "crank angles")


def test_too_few_targets_or_pairs() -> None:
    p = path_inputs(SQUARE[:4], timing=False)
    assert isinstance(p, Problem) and p.row is None and "at least 5" in p.message
    pairs = [["0", "0"], ["10", "5"], ["20", "12"], ["30", "20"]]
    assert "at least 5" in pair_inputs(pairs, absolute=False).message
    theta, psi = pair_inputs(pairs, absolute=True)
    np.testing.assert_array_equal(theta, np.radians([0, 10, 20, 30]))
    bad = pair_inputs([["0", "0"], ["10", "5"], ["10", "12"]], absolute=True)
    assert (bad.row, bad.column) == (2, INPUT_COL)


def test_a_typed_function_is_the_cores_chebyshev_pairs_scaled() -> None:
    theta, psi = function_pairs(FunctionSpec("y = log10(x)", "1", "2", 6, "60", "-90", "30", "200"), absolute=True)
    x, y = function_targets(np.log10, 1.0, 2.0, 6)
    np.testing.assert_allclose(theta, 30 + 60 * (x - 1), rtol=1e-14)
    np.testing.assert_allclose(psi, 200 - 90 * y / math.log10(2), rtol=1e-14)
    # relative angles: the start angles are not read (a bad one does not matter)
    theta, _ = function_pairs(FunctionSpec(input_start_deg="?"), absolute=False)
    assert theta[0] == pytest.approx(60 * (function_targets(np.log10, 1, 2, 5)[0][0] - 1))


@pytest.mark.parametrize("spec, field, fragment", [
    (FunctionSpec(expression="log10(x"), "expression", "not a valid expression"),
    (FunctionSpec(expression="t**2"), "expression", "x only"),
    (FunctionSpec(expression="open('f')"), "expression", "unknown function"),
    (FunctionSpec(expression="sqrt(x - 1.5)"), "expression", "not a finite number"),
    (FunctionSpec(expression="sin(2*pi*x)"), "expression", "cannot be scaled"),
    (FunctionSpec(x_end="1"), "x_end", "empty"),
    (FunctionSpec(x_start="one"), "x_start", "not a number"),
    (FunctionSpec(input_span_deg="400"), "input_span_deg", "less than a turn"),
    (FunctionSpec(count=4), "count", "between 5"),
])
def test_function_refusals_name_their_field(spec: FunctionSpec, field: str, fragment: str) -> None:
    problem = function_pairs(spec, absolute=False)
    assert isinstance(problem, Problem) and problem.field == field and fragment in problem.message
