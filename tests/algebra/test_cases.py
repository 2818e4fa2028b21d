"""The seven theory §4 laws written with freege.algebra agree with freege.symbolic.cases:
the same exact moments, and the same Cauchy polynomial for the attention law."""

from __future__ import annotations

import pytest
import sympy as sp

from freege import algebra
from freege.algebra.cases import case_expression
from freege.symbolic import equations
from freege.symbolic.cases import CASES, case_law


@pytest.mark.parametrize("case", CASES)
def test_moments_agree_with_the_symbolic_cases(case):
    ours = case_expression(case).moments(3)
    theirs = case_law(case).moments(3)
    assert all(sp.cancel(a - b) == 0 for a, b in zip(ours, theirs, strict=True))


def test_normalized_law_has_mean_one():
    assert sp.cancel(case_expression("value", normalized=True).mean - 1) == 0


def test_attention_cauchy_polynomial_is_the_cases():
    ours = case_expression("attention").cauchy_polynomial().as_expr()
    theirs = equations.cauchy_polynomial("attention").as_expr()
    assert not sp.cancel(ours / theirs).free_symbols


@pytest.mark.parametrize("case", CASES)
def test_case_expressions_read_back_from_their_text(case):
    for normalized in (False, True):
        expr = case_expression(case, normalized)
        assert algebra.parse(str(expr)) == expr
