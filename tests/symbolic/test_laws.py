"""The law algebra (theory §3): known laws, moments against S-relations, constructors."""

import functools
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from freege.symbolic import laws, series
from freege.symbolic.cases import rho
from freege.symbolic.symbols import S, gK, gO, gV, h, theta1, theta2, w

ORDER = 6

positive_rationals = st.fractions(min_value=Fraction(1, 5), max_value=5, max_denominator=9)


def annihilates_s_series(relation: sp.Expr, moments: list, values: dict) -> bool:
    """Whether ``E(S(w), w) = O(w^N)`` for the S-series built from ``moments``
    (theory §3), at the exact parameter ``values``."""
    n = len(moments)
    m = [x.subs(values) for x in moments]
    s = series.moments_to_s(m)
    poly = sp.Poly(relation.subs(values), S, w)
    total = [sp.Integer(0)] * n
    for (i, j), coeff in poly.terms():
        term = series.power(s, i, n) if i else [sp.Integer(1)] + [sp.Integer(0)] * (n - 1)
        shifted = [sp.Integer(0)] * j + term[: max(n - j, 0)]
        total = [a + coeff * b for a, b in zip(total, shifted, strict=True)]
    return all(c == 0 for c in total)


def params(draw_values: tuple) -> dict:
    t1, t2, hh, k, v, o = draw_values
    return {theta1: t1 + t2, theta2: t2, h: hh, gK: k, gV: v, gO: o}


param_values = st.tuples(*[positive_rationals] * 6).map(params)


def test_marchenko_pastur_cumulants() -> None:
    """theory §3: MP_s has free cumulants s^(q-1), mean 1."""
    law = laws.marchenko_pastur(h)
    assert [sp.simplify(k - h ** (q - 1)) for q, k in enumerate(law.cumulants(ORDER), 1)] == [
        0
    ] * ORDER


def test_free_poisson_cumulants() -> None:
    """theory §3: every free cumulant of pi_t equals t."""
    assert laws.free_poisson(gO).cumulants(ORDER) == [gO] * ORDER


def test_product_of_mp_laws_is_fuss_catalan() -> None:
    """⊠ of three MP_1 (the division-free path of the algebra): Fuss–Catalan moments."""
    mp = laws.marchenko_pastur(1)
    product = laws.free_mult_conv(mp, mp, mp)
    assert product.moments(ORDER) == [
        sp.binomial(4 * q, q) / (3 * q + 1) for q in range(1, ORDER + 1)
    ]
    assert sp.simplify(product.s_explicit - 1 / (1 + w) ** 3) == 0


def test_rho_relation_from_its_r_transform() -> None:
    """theory §3: rho_t's S-relation (built as an affine image of MP) is S R(w S) = 1 with
    R(z) = theta1 - theta2 + theta2 / (1 - theta2 z / t), and its cumulants are R's
    coefficients."""
    t = gK
    r_of = theta1 - theta2 + theta2 / (1 - theta2 * w * S / t)
    from_r = sp.numer(sp.together(S * r_of - 1))
    law = _rho(t)
    ratio = sp.cancel(law.s_relation / from_r)
    assert ratio.free_symbols.isdisjoint({S, w})
    r_series = sp.series(r_of.subs(w * S, sp.Symbol("u")), sp.Symbol("u"), 0, ORDER).removeO()
    expected = [r_series.coeff(sp.Symbol("u"), q) for q in range(ORDER)]
    assert [sp.simplify(a - b) for a, b in zip(law.cumulants(ORDER), expected, strict=True)] == [
        0
    ] * ORDER


def test_compound_free_poisson_first_moments() -> None:
    """theory §3: m1 = t m1(mu), m2 = t m2(mu) + t^2 m1(mu)^2, cumulants t m_q(mu)."""
    mu = _rho(gV)
    law = laws.compound_free_poisson(mu, h)
    m1, m2 = mu.moments(2)
    assert sp.simplify(law.moments(2)[0] - h * m1) == 0
    assert sp.simplify(law.moments(2)[1] - (h * m2 + h**2 * m1**2)) == 0
    assert [sp.simplify(k - h * m) for k, m in zip(law.cumulants(4), mu.moments(4), strict=True)] \
        == [0] * 4


def test_dilation_scales_moments_and_divides_s() -> None:
    """theory §3: D_a multiplies m_q by a^q and divides S by a."""
    base = _rho(gK)
    law = laws.dilation(base, 3 / h)
    assert [sp.simplify(a - (3 / h) ** q * b)
            for q, (a, b) in enumerate(zip(law.moments(4), base.moments(4), strict=True), 1)] \
        == [0] * 4
    assert sp.simplify(law.s_explicit - base.s_explicit * h / 3) == 0


def test_pushforward_moments_from_definition() -> None:
    """The polynomial image of MP_1 under x -> x^2 has m_q = m_(2q)(MP_1) (Catalan)."""
    law = laws.pushforward(laws.marchenko_pastur(1), [0, 0, 1])
    assert law.moments(4) == [sp.catalan(2 * q) for q in range(1, 5)]
    with pytest.raises(NotImplementedError, match="relation_fn"):
        _ = law.s_relation


@functools.cache
def built_laws() -> list[laws.FreeLaw]:
    """One law per way of deriving an S-relation: substitution (⊠ with rational S),
    compound Poisson, affine map, resultant (⊠ of two algebraic S-transforms)."""
    rho_k, rho_v = _rho(gK), _rho(gV / h)
    return [
        laws.free_mult_conv(rho_k, laws.marchenko_pastur(1 / h), laws.free_poisson(gO)),
        laws.compound_free_poisson(rho_k, gV),
        laws.affine(rho_v, gO, h),
        laws.free_mult_conv(rho_k, rho_v),
    ]


@pytest.mark.slow
@settings(max_examples=10)
@given(param_values)
def test_relations_annihilate_moment_series(values: dict) -> None:
    """The S-relation of each construction annihilates the S-series of the law's own
    moments (theory §3), at exact random parameters."""
    for law in built_laws():
        assert annihilates_s_series(law.s_relation, law.moments(5), values), law


def test_resultant_relation_keeps_the_physical_factor() -> None:
    law = laws.free_mult_conv(_rho(gK), _rho(gV))
    relation = law.s_relation
    assert sp.simplify(relation.subs({w: 0, S: 1 / law.mean})) == 0
    assert sp.Poly(relation, S).degree() == 4


def test_bad_constructions_raise() -> None:
    with pytest.raises(ValueError, match="a != 0"):
        laws.affine(laws.free_poisson(1), 0, 1)
    with pytest.raises(ValueError, match="at least two"):
        laws.free_mult_conv(laws.free_poisson(1))


def _rho(t):
    """``rho_t`` of the cases (the algebra's expression) as an exact law."""
    return rho(t).free_law
