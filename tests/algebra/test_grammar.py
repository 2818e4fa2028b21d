"""The grammar of freege.algebra.parse (docs/algebra.md): the documented examples, exact
numbers, round trips of random expressions through their text, and one-line refusals
naming the offending token for everything outside the whitelist."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given

from freege import algebra
from freege.algebra import grammar
from freege.symbolic.symbols import h
from tests.algebra.strategies import expressions

mp, sc = algebra.marchenko_pastur, algebra.semicircle


@pytest.mark.parametrize(("text", "expected"), [
    ("mp(1/2) * mp(1/2)", algebra.free_mult(mp("1/2"), mp("1/2"))),
    ("semicircle(1) + mp(1/2)", algebra.free_add(sc(1), mp("1/2"))),
    ("2*mp(1) + 3", algebra.affine(mp(1), 2, 3)),
    ("3 + 2*mp(1)", algebra.affine(mp(1), 2, 3)),
    ("mp(1)/4 - 1", algebra.affine(mp(1), "1/4", -1)),
    ("-(mp(1) - 1)", algebra.affine(mp(1), -1, 1)),
    ("mp(0.25)", mp("1/4")),
    ("mp(2.5e-1)", mp("1/4")),
    ("mp((1 + 1)/8)", mp("1/4")),
    ("semicircle(1) - semicircle(1)", algebra.free_add(sc(1), algebra.affine(sc(1), -1))),
    ("poisson(2)", algebra.free_poisson(2)),
    ("poisson(2, atoms((1, 1/2), (-1, 1/2)))", algebra.free_poisson(2, [(-1, "1/2"), (1, "0.5")])),
    ("poisson(2, point(3))", algebra.free_poisson(2, [(3, 1)])),
    ("poisson(2, mp(1/2))", algebra.free_poisson(2, mp("1/2"))),
    ("pushforward(semicircle(1), x^2 - 2*x + 1)",
     algebra.pushforward(sc(1), [1, -2, 1])),
    ("pushforward(semicircle(1), (x - 1)**2)", algebra.pushforward(sc(1), [1, -2, 1])),
    ("pushforward(semicircle(1), 3*x + 1)", algebra.affine(sc(1), 3, 1)),
    ("mp(h) * mp(1/h)", algebra.free_mult(mp(h), mp(1 / h))),
    ("  mp(1)\n", mp(1)),
])
def test_examples(text, expected):
    assert algebra.parse(text) == expected


@given(expressions())
def test_text_reads_back_to_the_same_expression(expr):
    assert algebra.parse(str(expr)) == expr


@pytest.mark.parametrize(("text", "token"), [
    ("mp(1/2) ** 2", "mp(1/2) ** 2"),
    ("mp(1) ^ 2", "mp(1) ** 2"),
    ("foo(1)", "'foo'"),
    ("__import__('os')", "'__import__'"),
    ("mp(1).ratio", "mp(1).ratio"),
    ("mp(1)[0]", "mp(1)[0]"),
    ("mp", "'mp'"),
    ("mp(x)", "'x'"),
    ("mp(ratio=1)", "keyword"),
    ("mp(1, 2)", "mp takes one number"),
    ("mp(mp(1))", "expected a number"),
    ("mp(-1)", "ratio must be"),
    ("mp('1')", "not a number"),
    ("mp(True)", "not a number"),
    ("mp(1j)", "not a number"),
    ("mp(1) / mp(1)", "not by the law"),
    ("mp(1) / 0", "divisor must not be 0"),
    ("mp(1/0)", "division by zero"),
    ("mp(1) // 2", "unexpected operator"),
    ("mp(1) % 2", "unexpected operator"),
    ("mp(1) @ mp(1)", "unexpected operator"),
    ("mp(1) < 2", "unexpected"),
    ("lambda: mp(1)", "unexpected"),
    ("[mp(1)]", "unexpected"),
    ("atoms(1, 2)", "(location, mass) pairs"),
    ("atoms((1, 1/2))", "sum to 1"),
    ("poisson(1, 2)", "second argument is its jump law"),
    ("pushforward(1, x)", "needs a law first"),
    ("pushforward(mp(1), x^5)", "power 0 to 4"),
    ("pushforward(mp(1), x^2 * x^3)", "degree at most 4, not 5"),
    ("pushforward(mp(1), (x + 1)^2^2^2)", "power 0 to 4"),
    ("pushforward(mp(1), 1/x)", "by a number, not by 'x'"),
    ("pushforward(mp(1), mp(1))", "unexpected"),
    ("semicircle(1) * mp(1)", "not provably supported"),
    ("1/2", "is a number, not a law"),
    ("mp(1", "cannot read"),
    ("import os", "cannot read"),
    ("", "cannot read"),
    ("mp(1); mp(2)", "cannot read"),
    ("(" * 300 + "mp(1)" + ")" * 300, "cannot read"),
    ("-" * 300 + "mp(1)", "nested deeper"),
    ("mp(1) + " * 400 + "mp(1)", "longer than"),
])
def test_refusals_are_one_line_and_name_the_token(text, token):
    with pytest.raises(ValueError) as info:
        algebra.parse(text)
    message = str(info.value)
    assert message.startswith("expression:") and "\n" not in message
    assert token in message


def test_parse_needs_a_string():
    with pytest.raises(ValueError, match="must be a string"):
        algebra.parse(sp.Integer(1))  # type: ignore[arg-type]


def test_limits_are_stated():
    assert grammar.MAX_LENGTH >= 1000 and grammar.MAX_DEPTH >= 20
