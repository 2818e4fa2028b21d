"""Numeric laws compose where the algebra can (freege.numeric.law_composition; issue 42)."""

from __future__ import annotations

import pytest
import sympy as sp

from freege import algebra
from freege.numeric import law_composition


def test_expression_laws_compose_into_the_law_of_the_combined_expression():
    a, b = algebra.parse("mp(1/2)"), algebra.parse("semicircle(1)")
    la, lb = a.law(), b.law()
    assert (la + lb).expr == a + b and (la * la).expr == a * a
    assert (2 * la + 1).expr == algebra.parse("2*mp(1/2) + 1")
    assert (1 - la).expr == 1 - a and (-la).expr == -a and (la / 2).expr == a / 2
    assert (la + lb.with_dps(30)).dps == 30  # the finer precision of the two
    # ⊞: means add, variances add (free cumulants); mp(1/2): 1 and 1/2, semicircle(1): 0, 1
    total = la + lb
    assert total.moment(1) == pytest.approx(1, abs=1e-14)
    assert total.moment(2) - total.moment(1) ** 2 == pytest.approx(1.5, rel=1e-13)


def test_a_case_law_composes_through_its_expression():
    from freege.numeric.case_law import CaseLaw
    from freege.params import Ratios

    case = CaseLaw("attention", Ratios(beta=1, h=1, gK=1, gV=1, gO=1))
    expected = algebra.case_expression("attention").subs(
        {"theta1": sp.E - 1, "theta2": 1, "h": 1, "gK": 1})
    assert law_composition.expression_of(case) == expected
    mp = algebra.parse("mp(1/2)")
    assert (mp.law() + case).expr == (mp + expected).rounded(None)


def test_case_laws_compose_directly_as_their_expression_laws_do():
    """Two case laws, a case law and a number, a law from data and a case law: the
    direct form is the law of the combined expression, as the expression-law route
    (``expression_of(case).law()``) gives, to the same densities at float64."""
    import numpy as np

    from freege.numeric.case_law import CaseLaw
    from freege.params import Ratios

    case = CaseLaw("attention", Ratios(beta=1, h=1, gK=1, gV=1, gO=1))
    via = law_composition.expression_of(case).law()  # the expression-law route
    both = case + case
    assert both == via + case and both.expr == (via + via).expr
    x = np.array([0.3, 1.1, 2.5, 4.0])
    np.testing.assert_allclose(both.pdf(x), (via + via).pdf(x), rtol=1e-13, atol=0)
    assert (2 * case - 1) == 2 * via - 1
    assert (case * 3).moment(1) == pytest.approx(3 * case.moment(1), rel=1e-14)
    # a law from data takes rational numbers: e - 1 rounded as the numeric law rounds it
    data = algebra.empirical(np.linspace(1, 2, 20))
    mixed = data.law() + case
    assert mixed.spec == (data + via.expr).spec
    assert mixed.moment(1) == pytest.approx(1.5 + case.moment(1), rel=1e-14)


def test_a_law_from_data_composes_through_its_data_expression():
    import numpy as np

    data = algebra.empirical(np.linspace(1, 2, 20))
    product = algebra.parse("mp(1/2)").law() * data.law()
    assert product.spec == (algebra.parse("mp(1/2)") * data).spec
    assert product.moment(1) == pytest.approx(1.5, rel=1e-14)  # means multiply under ⊠


def test_what_does_not_compose_is_a_type_error_saying_what_does():
    law = algebra.parse("mp(1/2)").law()
    with pytest.raises(TypeError, match="numeric laws compose where their expression is known"):
        law + object()
    with pytest.raises(TypeError, match="compose"):
        law * [1, 2]
