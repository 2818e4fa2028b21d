"""The Cauchy-polynomial laws and ⊞ of freege.symbolic.additive against closed forms
(theory §3): Catalan and Narayana moments, Fuss-Catalan products, semicircles adding
their variances, free Poisson rates adding, point masses shifting, x^2 of a semicircle."""

from __future__ import annotations

import pytest
import sympy as sp

from freege.symbolic import additive, laws
from freege.symbolic.symbols import G, gK, h, z
from freege.symbolic.transforms import cauchy_series_residual

half = sp.Rational(1, 2)


def annihilates(law, order=10):
    return all(sp.cancel(c) == 0
               for c in cauchy_series_residual(law.cauchy_polynomial, law.moments(order)))


def same_curve(p, q):
    """Equal up to a nonzero constant factor."""
    ratio = sp.cancel(p.as_expr() / q.as_expr())
    return not ratio.free_symbols


@pytest.mark.parametrize("v", [1, half, sp.Rational(7, 3)])
def test_semicircle_moments_are_catalan(v):
    moments = additive.semicircle(v).moments(10)
    for q, m in enumerate(moments, start=1):
        assert m == (sp.catalan(q // 2) * sp.sympify(v) ** (q // 2) if q % 2 == 0 else 0)
    assert additive.semicircle(v).cauchy_polynomial.as_expr() == v * G**2 - z * G + 1


@pytest.mark.parametrize("c", [half, 2, sp.Rational(3, 7)])
def test_marchenko_pastur_moments_are_narayana(c):
    c = sp.sympify(c)
    narayana = [sum(sp.binomial(q, k) * sp.binomial(q, k - 1) / q * c ** (q - k)
                    for k in range(1, q + 1)) for q in range(1, 9)]
    law = laws.marchenko_pastur(c)
    assert law.moments(8) == narayana
    assert annihilates(law)


@pytest.mark.parametrize("s", [2, 3])
def test_products_of_mp1_have_fuss_catalan_moments(s):
    law = laws.free_mult_conv(*[laws.marchenko_pastur(1)] * s)
    fuss = [sp.binomial((s + 1) * k, k) / (s * k + 1) for k in range(1, 8)]
    assert law.moments(7) == fuss
    assert annihilates(law)


def test_two_semicircles_add_their_variances():
    total = additive.free_add_conv(additive.semicircle(1), additive.semicircle(half))
    assert same_curve(total.cauchy_polynomial,
                      additive.semicircle(sp.Rational(3, 2)).cauchy_polynomial)
    assert total.moments(8) == additive.semicircle(sp.Rational(3, 2)).moments(8)


def test_free_poisson_rates_add():
    total = additive.free_add_conv(laws.free_poisson(half), laws.free_poisson(2))
    assert same_curve(total.cauchy_polynomial,
                      laws.free_poisson(sp.Rational(5, 2)).cauchy_polynomial)


@pytest.mark.parametrize("law", [laws.marchenko_pastur(half), additive.semicircle(2),
                                 laws.free_mult_conv(laws.marchenko_pastur(1),
                                                     laws.marchenko_pastur(half))])
def test_adding_a_point_mass_is_a_shift(law):
    shifted = additive.free_add_conv(law, additive.point_mass(3))
    assert same_curve(shifted.cauchy_polynomial, laws.affine(law, 1, 3).cauchy_polynomial)
    assert shifted.moments(6) == laws.affine(law, 1, 3).moments(6)


def test_square_of_a_semicircle_is_a_dilated_free_poisson():
    """x^2 of sigma_v is D_v pi_1 (the Wishart square of a Wigner matrix)."""
    image = additive.polynomial_image(additive.semicircle(3), [0, 0, 1])
    assert same_curve(image.cauchy_polynomial,
                      laws.dilation(laws.free_poisson(1), 3).cauchy_polynomial)
    shifted = additive.polynomial_image(additive.semicircle(1), [1, 2, 1])  # (x + 1)^2
    assert annihilates(shifted)


@pytest.mark.parametrize(("law", "a", "b"), [
    (additive.semicircle(1), -1, 1), (laws.marchenko_pastur(half), 2, -3),
    (laws.free_poisson(gK / h), 1, h / gK),
])
def test_power_sum_elimination_matches_the_two_resultant_one_at_degree_2(law, a, b):
    """polynomial_eliminant (traces in Q(z)[x]/(phi - z)) and quadratic_eliminant (two
    resultants) are independent eliminations: their physical factors agree."""
    a, b = sp.sympify(a), sp.sympify(b)
    image = additive.polynomial_image(law, [0, a, b])
    by_resultants = additive.physical_cauchy_factor(
        additive.quadratic_eliminant(law.cauchy_polynomial, a, b), image)
    assert same_curve(image.cauchy_polynomial, by_resultants)


def test_compound_free_poisson_with_symmetric_jumps():
    """Jumps +-1 with mass 1/2: free cumulants t at even orders, 0 at odd ones."""
    jumps = additive.atomic([(-1, half), (1, half)])
    law = laws.compound_free_poisson(jumps, 2)
    kappa = [0 if q % 2 else 2 for q in range(1, 9)]
    assert law.cumulants(8) == kappa
    assert annihilates(law)
    with pytest.raises(ValueError, match="mean 0: it has no S-transform"):
        law.s_relation  # noqa: B018


def test_symbolic_parameters_match_the_s_route():
    law = laws.free_mult_conv(laws.marchenko_pastur(h), laws.marchenko_pastur(gK))
    via_sum = additive.free_add_conv(law, additive.point_mass(1))
    assert annihilates(via_sum, order=6)
    assert via_sum.moments(4) == laws.affine(law, 1, 1).moments(4)
