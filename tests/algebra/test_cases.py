"""The seven theory §4 laws are expressions of the law algebra (freege.symbolic.cases):
their exact laws are the expressions' laws, the tied jump law's relation agrees with the
independent generic-symbol elimination of freege.symbolic.pushforward, and every case
reads back from its text."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from freege import algebra
from freege.symbolic import pushforward
from freege.symbolic.cases import CASES, case_expression, case_law, tied_jump_law


@pytest.mark.parametrize("case", CASES)
def test_case_laws_are_the_algebra_expressions(case):
    for normalized in (False, True):
        assert case_law(case, normalized) is case_expression(case, normalized).free_law


def test_normalized_law_has_mean_one():
    assert sp.cancel(case_expression("value", normalized=True).mean - 1) == 0


def test_tied_jump_relation_agrees_with_the_generic_elimination():
    """The algebra eliminates with theta1, theta2, h, gK in place; pushforward.py in
    generic a, b, t and substitutes afterwards: the same relation up to a constant."""
    ours = tied_jump_law().s_relation
    generic = pushforward.tied_jump_relation()
    assert not sp.cancel(ours / generic).free_symbols


def test_tied_jump_moments_agree_with_the_narayana_expansion():
    ours = tied_jump_law().moments(4)
    theirs = pushforward.tied_jump_moments(4)
    assert all(sp.cancel(a - b) == 0 for a, b in zip(ours, theirs, strict=True))


@pytest.mark.parametrize("case", CASES)
def test_case_expressions_read_back_from_their_text(case):
    for normalized in (False, True):
        expr = case_expression(case, normalized)
        assert algebra.parse(str(expr)) == expr


def test_law_of_an_expression_needs_the_numeric_layer_registered():
    """The exact layer does not import the numeric one: before ``freege.algebra`` (which
    registers ``expr.law``) is imported, ``law()`` says what to import; after, it works."""
    code = (
        "from freege.symbolic.expressions import marchenko_pastur\n"
        "expr = marchenko_pastur(2)\n"
        "try:\n    expr.law()\nexcept RuntimeError as exc:\n    print(exc)\n"
        "import freege.algebra\n"
        "print(expr.law().atoms())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2]).stdout
    first, second = out.splitlines()
    assert "import freege.algebra" in first
    assert second == "{0.0: 0.5}"
