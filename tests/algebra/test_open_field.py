"""Your symbols and exact constants in the law algebra (freege.symbolic.open_field,
docs/algebra.md "Your symbols", "Constants"; issue 42)."""

from __future__ import annotations

import pickle

import mpmath
import pytest
import sympy as sp

from freege import algebra
from freege.cli import main
from freege.symbolic import open_field

half = sp.Rational(1, 2)


def test_a_symbol_of_yours_is_bound_by_subs_and_derives_as_the_numbers_do():
    law = algebra.parse("semicircle(s) + mp(c) * mp(h)")
    c, s = open_field.user_symbol("c"), open_field.user_symbol("s")
    assert law.parameters == (algebra.SYMBOLS["h"], c, s)
    assert algebra.parse(str(law)) == law and c.is_positive
    numeric = law.subs({"c": "1/2", "s": 2, "h": "1/3"})
    assert numeric == algebra.parse("semicircle(2) + mp(1/2) * mp(1/3)")
    values = {c: half, s: 2, algebra.SYMBOLS["h"]: sp.Rational(1, 3)}
    assert [m.xreplace(values) for m in law.moments(4)] == numeric.moments(4)
    at_values = algebra.parse("mp(c)").cauchy_polynomial().as_expr().xreplace({c: half})
    assert not sp.cancel(at_values / algebra.parse("mp(1/2)").cauchy_polynomial().as_expr()
                         ).free_symbols  # the same curve
    with pytest.raises(ValueError, match="c stands for a positive number"):
        law.subs({"c": -1})
    with pytest.raises(ValueError, match="'q' is no symbol of .* its own: c, s"):
        law.subs({"q": 1})
    with pytest.raises(ValueError, match=r"free parameters \(h, c, s\)"):
        law.law()


def test_the_field_holds_six_symbols_and_constants_together():
    text = " + ".join(f"semicircle({n})" for n in ("a", "b", "c", "d", "theta1", "e", "pi"))
    with pytest.raises(ValueError, match="at most 6 symbols and constants"):
        algebra.parse(text).moments(2)
    # exp(a) exp(b) is exp(a + b): the denominators of one expression bound t = exp(1/L)
    with pytest.raises(ValueError, match="up to the power 17824139, and the limit is 60"):
        algebra.parse("mp(exp(1/3)*exp(1/7)*exp(1/11)*exp(1/13)*exp(1/17)*exp(1/19)"
                      "*exp(1/23))").moments(2)


def test_exact_constants_derive_exactly():
    # MP_c: m2 = 1 + c, m3 = 1 + 3c + c^2 (Narayana), at c = e - 1
    law = algebra.parse("mp(exp(1) - 1)")
    c = sp.E - 1
    assert law.moments(3) == [1, sp.E, sp.expand(1 + 3 * c + c**2)]
    assert algebra.parse(str(law)) == law
    # exp(1/2) and e are powers of one generator: delta_a ⊠ delta_b = delta_ab
    assert algebra.parse("point(exp(1/2)) * point(exp(1/2)) * mp(1)").mean == sp.E
    assert algebra.parse("point(sqrt(2)) * point(sqrt(2)) * mp(1)").mean == 2
    assert algebra.parse("semicircle(sqrt(2)) + point(pi)").moments(2) == [
        sp.pi, sp.pi**2 + sp.sqrt(2)]


@pytest.mark.parametrize(("text", "words"), [
    ("mp(exp(100))", "exp takes a number in [-20, 20]"),
    ("mp(exp(c))", "exp takes a rational number"),
    ("mp(sqrt(-2))", "sqrt takes a number >= 0"),
    ("mp(x)", "'x' is reserved"),
    ("mp(1 - e)", "ratio must be in [0.0001, 10000]"),
    ("atoms((0, 1/e), (1, 1 - 1/e))", "masses must be rational"),
])
def test_bad_constants_and_names_are_one_line_errors(text, words):
    with pytest.raises(ValueError) as info:
        algebra.parse(text)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_the_numeric_law_rounds_constants_beyond_the_working_precision():
    law = algebra.parse("mp(exp(1) - 1)")
    rounded = law.rounded(None).ratio
    assert rounded.is_Rational
    assert abs(rounded - (sp.E - 1)) < sp.Rational(1, 10**35)
    numbers = law.law()
    assert numbers.expr == law.rounded(None) and numbers.exact == law
    assert str(numbers) == "mp(-1 + E)" and pickle.loads(pickle.dumps(numbers)) == numbers
    assert numbers.moment(2) == pytest.approx(float(sp.E), rel=1e-14)
    # another precision rounds the exact constants anew (never the float64 rounding's)
    assert numbers.with_dps(60).expr == law.rounded(60) != law.rounded(None)
    with pytest.raises(ValueError, match="at most at dps 130"):
        law.rounded(140)
    with pytest.raises(ValueError, match="certified balls need rational parameters"):
        numbers.certify_data()


def test_the_attention_case_at_beta_1_enters_exactly():
    """theta1 = e - 1, theta2 = 1 (beta = 1, theory §2): the case law's numbers, which
    put theta1 in numerically, are the expression's."""
    from freege.numeric.case_law import CaseLaw
    from freege.params import Ratios

    case = algebra.case_expression("attention").subs(
        {"theta1": "exp(1) - 1", "theta2": 1, "h": 1, "gK": 1})
    assert case.mean == sp.E - 1
    with mpmath.workdps(30):
        reference = CaseLaw("attention", Ratios(beta=1, h=1, gK=1, gV=1, gO=1), dps=30)
        ours = case.law(30)
        assert abs(ours.moment(2) - reference.moment(2)) < mpmath.mpf(10) ** -25


def test_param_binds_a_symbol_on_the_command_line(capsys):
    assert main(["law", "--expr", "mp(c)", "--param", "c=exp(1)-1"]) == 0
    out = capsys.readouterr().out
    assert "law of mp(-1 + E)" in out and "2.71828182845904" in out
    for args, words in [([], "bind them with --param"), (["--param", "c"], "NAME=VALUE"),
                        (["--param", "q=1"], "'q' is no symbol"),
                        (["--param", "c=-1"], "positive"), (["--param", "c=(("], "cannot read")]:
        with pytest.raises(SystemExit) as exit_code:
            main(["law", "--expr", "mp(c)", *args])
        assert exit_code.value.code == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, err
