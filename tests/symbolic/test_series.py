"""Series arithmetic and the theory §3 transform identities, on exact rationals."""

from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from freege.symbolic import series

rationals = st.fractions(min_value=-5, max_value=5, max_denominator=7)
nonzero = rationals.filter(lambda x: x != 0)


def sequence(length: int = 7) -> st.SearchStrategy[list[Fraction]]:
    """A random exact sequence with a nonzero first entry (m_1 != 0 for S-transforms)."""
    return st.tuples(nonzero, st.lists(rationals, min_size=length - 1, max_size=length - 1)).map(
        lambda t: [t[0], *t[1]]
    )


def naive_moments(kappa: list[Fraction]) -> list[Fraction]:
    """Moments from free cumulants by the recursion m_n = sum_s kappa_s [z^(n-s)] M^s
    (theory §3, M = 1 + sum m_k z^k): an algorithm independent of Lagrange inversion."""
    m = [Fraction(1)]
    for n in range(1, len(kappa) + 1):
        total = Fraction(0)
        for s in range(1, n + 1):
            total += kappa[s - 1] * series.power(m, s, n - s + 1)[n - s]
        m.append(total)
    return m[1:]


@given(sequence())
def test_cumulant_moment_round_trip(kappa: list[Fraction]) -> None:
    moments = series.cumulants_to_moments(kappa)
    assert moments == naive_moments(kappa)
    assert series.moments_to_cumulants(moments) == kappa


@given(sequence())
def test_s_transform_round_trip(moments: list[Fraction]) -> None:
    s = series.moments_to_s(moments)
    assert s[0] == 1 / moments[0]  # S(0) = 1/m1
    assert series.s_to_moments(s) == moments


@given(sequence())
def test_s_times_r_of_w_s_is_one(moments: list[Fraction]) -> None:
    """theory §3: S(w) R(w S(w)) = 1 as power series in w."""
    n = len(moments)
    s = series.moments_to_s(moments)
    r = series.moments_to_cumulants(moments)  # R(z) = sum kappa_q z^(q-1)
    w_s = [Fraction(0), *s[: n - 1]]
    product = series.mul(s, series.compose(r, w_s, n), n)
    assert product == [1] + [0] * (n - 1)


@given(sequence(), st.integers(min_value=-4, max_value=4))
def test_power_matches_repeated_product(a: list[Fraction], alpha: int) -> None:
    n = len(a)
    base = a if alpha >= 0 else series.power(a, -1, n)
    expected = [Fraction(1)] + [Fraction(0)] * (n - 1)
    for _ in range(abs(alpha)):
        expected = series.mul(expected, base, n)
    assert series.power(a, alpha, n) == expected


@given(sequence())
def test_reversion_inverts(f_tail: list[Fraction]) -> None:
    f = [Fraction(0), *f_tail]
    g = series.reversion(f, len(f))
    assert series.compose(g, f, len(f)) == [0, 1] + [0] * (len(f) - 2)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_product_of_mp_laws_is_fuss_catalan(k: int) -> None:
    """⊠ of k copies of MP_1 (all free cumulants 1) has the Fuss–Catalan moments
    C((k+1) q, q) / (k q + 1), via the general S-series product."""
    order = 8
    catalan = series.cumulants_to_moments([Fraction(1)] * order)
    product = series.s_product_moments([catalan] * k)
    assert product == [
        Fraction(int(sp.binomial((k + 1) * q, q)), k * q + 1) for q in range(1, order + 1)
    ]


@given(sequence(), nonzero, nonzero)
def test_inverse_linear_product_matches_s_series(m: list[Fraction], a, b) -> None:
    """The division-free Lagrange formula for ``nu ⊠ lambda`` with ``S_lambda = 1/(a + b w)``
    equals the general S-series product."""
    n = len(m)
    s_lambda = series.power([a, b], -1, n)
    expected = series.s_to_moments(series.mul(series.moments_to_s(m), s_lambda, n))
    assert series.conv_inverse_linear_moments(m, a, b) == expected


def test_bad_series_raise() -> None:
    with pytest.raises(ValueError, match="nonzero constant"):
        series.power([Fraction(0), Fraction(1)], -1, 3)
    with pytest.raises(ValueError, match="f_0 = 0"):
        series.reversion([Fraction(1), Fraction(1)], 3)
    with pytest.raises(ValueError, match="constant term"):
        series.compose([Fraction(1)], [Fraction(1), Fraction(1)], 2)
