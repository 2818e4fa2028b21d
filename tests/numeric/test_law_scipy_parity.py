"""scipy.stats conventions of :class:`freege.numeric.law.Law` (issue 19 item 4, issue 16
item 5): ``stats(moments='mvsk')``, ``logpdf``, ``logcdf``, ``logsf``, ``entropy``,
``moment(order=...)``, ``expect(func, lb=, ub=, conditional=)`` and nan in, nan out,
compared with ``scipy.stats.rv_continuous`` built on the same density (tabulated at
4,000 points and interpolated, so scipy's own quadrature runs fast: the comparison checks
conventions -- variance not m2, excess kurtosis, log 0 = -inf, bounds, conditional --
to 1e-4, far below any convention's difference)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from scipy import stats as sps
from scipy.integrate import quad

from freege.numeric.case_law import law
from freege.params import Ratios

# scipy's quad meets the table's kinks; its warnings say so, the 1e-4 tolerance allows it
pytestmark = pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
RTOL = 1e-4  # the interpolated table's accuracy (the conventions differ by O(1))


@pytest.fixture(scope="module")
def pair():
    L = law("mha", Ratios(beta=1, h=8, gK=2, gV=2, gO=2))
    lo, hi = L.support()
    grid = lo + (hi - lo) * (1 - np.cos(np.linspace(0, np.pi, 4000))) / 2
    table = L.pdf(grid)

    class Ref(sps.rv_continuous):
        def _pdf(self, x):
            return np.interp(x, grid, table)

        def _munp(self, n):  # raw moments of the table (scipy's generic route is slow)
            return quad(lambda x: x**n * np.interp(x, grid, table), lo, hi, limit=200)[0]

    return L, Ref(a=lo, b=hi, name="mha")


def test_stats_moment_and_entropy_match_rv_continuous(pair) -> None:
    L, ref = pair
    mine, theirs = L.stats(moments="mvsk"), ref.stats(moments="mvsk")
    assert np.allclose(mine, [float(v) for v in theirs], rtol=RTOL)
    assert L.stats("m") == pytest.approx(L.mean(), rel=1e-15)
    assert L.moment(order=3) == pytest.approx(ref.moment(order=3), rel=RTOL)
    assert L.entropy() == pytest.approx(ref.entropy(), rel=RTOL, abs=RTOL)
    assert L.stats(moments="mv")[1] == pytest.approx(L.var(), rel=1e-14)


def test_log_functions_and_bounds_follow_scipy(pair) -> None:
    L, ref = pair
    lo, hi = L.support()
    xs = np.array([lo - 1, lo + 0.3 * (hi - lo), hi + 1])
    for name in ("logpdf", "logcdf", "logsf"):
        mine, theirs = getattr(L, name)(xs), getattr(ref, name)(xs)
        assert np.array_equal(np.isinf(mine), np.isinf(theirs)), name
        finite = np.isfinite(theirs)
        assert np.allclose(mine[finite], theirs[finite], rtol=RTOL, atol=RTOL), name
    a, b = lo + 0.2 * (hi - lo), lo + 0.6 * (hi - lo)
    assert L.expect(lambda x: x**2, lb=a, ub=b) == pytest.approx(
        ref.expect(lambda x: x**2, lb=a, ub=b), rel=RTOL)
    assert L.expect(lambda x, c: c * x, args=(3,), lb=a, ub=b, conditional=True) == (
        pytest.approx(ref.expect(lambda x: 3 * x, lb=a, ub=b, conditional=True), rel=RTOL))
    assert L.expect(lb=a, ub=b) == pytest.approx(L.expect(lambda x: x, lb=a, ub=b),
                                                 rel=1e-15)


def test_nan_in_nan_out(pair) -> None:
    L, ref = pair
    for name in ("pdf", "cdf", "sf", "ppf"):
        assert np.isnan(getattr(L, name)(np.nan)) and np.isnan(getattr(ref, name)(np.nan))
    L20 = L.with_dps(20)
    assert mpmath.isnan(L20.pdf(mpmath.mpf("nan"))) and mpmath.isnan(L20.cdf(mpmath.mpf("nan")))


def test_atom_counts_in_expect_and_blocks_entropy() -> None:
    L = law("value-tied", Ratios(beta=1, h=4, gK="0.5", gV="0.5", gO=1))
    atom = L.atoms()[0.0]
    lo, hi = L.intervals()[0]
    assert L.expect(lambda x: np.ones_like(x), lb=-1, ub=hi) == pytest.approx(1, abs=1e-12)
    assert L.expect(lambda x: np.ones_like(x), lb=lo / 2, ub=hi) == pytest.approx(
        1 - atom, abs=1e-12)
    with pytest.raises(ValueError, match="atom"):
        L.entropy()
