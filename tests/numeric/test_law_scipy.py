"""The law object a user expects (issue 7 deliverable 6): tying resolved in the
constructor, the scipy.stats methods (ppf, sf, isf, std, median, interval, rvs, expect),
``support()`` a tuple and ``intervals()`` the list of support intervals."""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from freege.numeric.case_law import CaseLaw
from freege.params import Ratios

#: an atom at 0 (gO < 1) next to a soft lower edge
ATOM = Ratios(beta=1, h=8, gK=Fraction(1, 2), gV=2, gO=Fraction(7, 10))


@functools.cache
def get(dps: int | None = None) -> CaseLaw:
    return CaseLaw("mha", ATOM, normalized=True, dps=dps)


def test_tied_sharing_is_resolved_in_the_constructor() -> None:
    """``CaseLaw("mha", tied ratios)`` is the mha-tied law (it silently returned the untied
    law before); tied cases with gV != gK are refused."""
    tied = Ratios(beta=1, h=4, gK=Fraction(1, 2), gV=Fraction(1, 2), gO=2, sharing="tied")
    untied = Ratios(beta=1, h=4, gK=Fraction(1, 2), gV=Fraction(1, 2), gO=2)
    L = CaseLaw("mha", tied)
    assert L.case == "mha-tied"
    assert L.mean() == pytest.approx(CaseLaw("mha-tied", untied).mean(), rel=1e-15)
    assert abs(L.mean() - CaseLaw("mha", untied).mean()) > 0.1
    with pytest.raises(ValueError, match="gV == gK"):
        CaseLaw("mha-tied", Ratios(beta=1, h=4, gK=1, gV=2, gO=1))


def test_support_is_a_tuple_and_intervals_a_list() -> None:
    L = get()
    (a, b), = L.intervals()
    assert a > 0
    assert L.support() == (0.0, b)  # the atom at 0 opens the support at 0
    assert L.atoms()


def test_ppf_inverts_the_cdf_and_the_atom_is_a_flat_quantile() -> None:
    L = get()
    atom = sum(L.atoms().values())
    (a, b), = L.intervals()
    x = np.linspace(a, b, 9)[1:-1]
    q = L.cdf(x)
    np.testing.assert_allclose(L.ppf(q), x, rtol=1e-11)
    assert L.ppf(atom / 2) == 0.0 and L.ppf(0.0) == 0.0 and L.ppf(1.0) == b
    np.testing.assert_allclose(L.cdf(L.ppf([0.4, 0.7, 0.99])), [0.4, 0.7, 0.99], atol=1e-13)
    np.testing.assert_allclose(L.sf(x) + L.cdf(x), 1, atol=1e-15)
    np.testing.assert_allclose(L.isf([0.2, 0.5]), L.ppf([0.8, 0.5]), rtol=1e-15)
    assert L.median() == L.ppf(0.5)
    lo, hi = L.interval(0.2)  # ppf(0.4), ppf(0.6): both above the atom's 0.3
    assert L.cdf(hi) - L.cdf(lo) == pytest.approx(0.2, abs=1e-13)
    assert L.interval(0.5)[0] == 0.0  # ppf(0.25) falls in the atom
    assert L.std() ** 2 == pytest.approx(L.var(), rel=1e-14)
    assert np.isnan(L.ppf(1.5))  # scipy.stats: nan outside [0, 1] (test_law_citizen.py)


@pytest.mark.slow
def test_dps_ppf_is_verified() -> None:
    L = get(20)
    with mpmath.workdps(20):
        q = mpmath.mpf("0.6")
        x = L.ppf(q)
        assert abs(L.cdf(x) - q) < mpmath.mpf(10) ** -18
        assert abs(float(x) - get().ppf(0.6)) < 1e-12 * float(x)


def test_rvs_is_seeded_and_follows_the_law() -> None:
    """Inverse-cdf samples: reproducible from an int seed or a Generator; the KS distance of
    n = 4000 samples to the cdf is below the 99.9% critical value 1.95/sqrt(n)."""
    L = get()
    a = L.rvs(size=4000, random_state=7)
    b = L.rvs(size=4000, random_state=np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
    xs = np.sort(a)
    n = xs.size
    cont = xs > 0  # the atom's ties at 0 are checked by their frequency below
    i = np.arange(1, n + 1)[cont]
    cdf = L.cdf(xs[cont])
    ks = max(np.max(i / n - cdf), np.max(cdf - (i - 1) / n))
    assert ks < 1.95 / np.sqrt(n)
    assert np.mean(xs == 0) == pytest.approx(sum(L.atoms().values()), abs=4 * np.sqrt(0.3 * 0.7
                                                                                      / n))


def test_expect_matches_moments_and_includes_the_atom() -> None:
    L = get()
    assert L.expect(lambda x: np.ones_like(x)) == pytest.approx(1, abs=1e-13)
    assert L.expect(lambda x: x**2) == pytest.approx(L.moment(2), rel=1e-12)
    assert L.expect(lambda x: (x == 0).astype(float)) == pytest.approx(
        sum(L.atoms().values()), abs=1e-15)
