"""Welch's two-sample t test of :func:`freege.validation.sampling.metrics.welch` (theory §6.1, §7:
backends and configurations compared over a handful of draws), checked against an independent
computation: the statistic and Welch-Satterthwaite degrees of freedom written out, the
p-value and critical value by mpmath quadrature of the Student-t density (not scipy)."""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from freege.validation.sampling import metrics

draws = st.lists(st.floats(-100, 100, allow_nan=False), min_size=2, max_size=10)


def _t_tail(x: float, dof: float) -> mpmath.mpf:
    """``P(T > x)`` for Student's t with ``dof`` degrees of freedom, by quadrature of its
    density (independent of scipy)."""
    nu = mpmath.mpf(dof)
    const = mpmath.gamma((nu + 1) / 2) / (mpmath.sqrt(nu * mpmath.pi) * mpmath.gamma(nu / 2))
    return mpmath.quad(lambda u: const * (1 + u * u / nu) ** (-(nu + 1) / 2), [x, mpmath.inf])


@given(draws, draws, st.sampled_from([0.9, 0.95, 0.999]))
def test_welch_matches_the_textbook_formulas(x, y, level):
    a, b = np.array(x), np.array(y)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    if va + vb < 1e-6 * (1 + a.mean() ** 2 + b.mean() ** 2):  # (near-)exact: tested below
        return
    res = metrics.welch(a, b, level)
    t = (a.mean() - b.mean()) / math.sqrt(va + vb)
    dof = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    assert res.statistic == pytest.approx(t, rel=1e-9, abs=1e-9)
    assert res.dof == pytest.approx(dof, rel=1e-9)
    with mpmath.workdps(20):
        assert res.pvalue == pytest.approx(float(2 * _t_tail(abs(t), dof)), rel=1e-6,
                                           abs=1e-12)
        assert float(2 * _t_tail(res.critical, dof)) == pytest.approx(1 - level, rel=1e-6)
    assert res.agree == (abs(t) <= res.critical)


@pytest.mark.slow  # 4000 scipy tests: about 10 s
def test_few_draws_need_the_t_quantile_not_the_normal_one():
    """Under equal means, 3 draws per sample: Welch's test rejects at most about its
    nominal 5% (binomial 4-sigma band over 2000 trials), a normal 1.96 cutoff on the same
    statistic rejects far more often (the bug this replaces)."""
    rng = np.random.default_rng(2026)
    trials, nominal = 2000, 0.05
    band = 4 * math.sqrt(nominal * (1 - nominal) / trials)
    for spread in (1.0, 3.0):
        results = [metrics.welch(rng.standard_normal(3), spread * rng.standard_normal(3), 0.95)
                   for _ in range(trials)]
        welch_rate = np.mean([not r.agree for r in results])
        normal_rate = np.mean([abs(r.statistic) > 1.959964 for r in results])
        assert welch_rate <= nominal + band
        assert normal_rate > nominal + 2 * band


def test_a_real_shift_is_detected():
    rng = np.random.default_rng(7)
    a, b = rng.normal(0, 0.1, 10), rng.normal(1, 0.1, 10)
    res = metrics.welch(a, b, 0.999)
    assert not res.agree and res.pvalue < 1e-6


def test_a_sample_constant_up_to_rounding_has_variance_zero():
    """[1, 1 + 1 ulp] varies by rounding only: the test is the one-sample t test of the
    other sample against 1 (the Welch formulas with that variance 0), with no
    precision-loss warning from scipy."""
    import warnings

    from scipy import stats

    a, b = np.array([1.0, np.nextafter(1.0, 2.0)]), np.array([1.5, 2.0, 2.75])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = metrics.welch(a, b, 0.95)
        flipped = metrics.welch(b, a, 0.95)
    one = stats.ttest_1samp(b, a.mean())
    assert res.statistic == pytest.approx(-one.statistic, rel=1e-12)
    assert flipped.statistic == pytest.approx(one.statistic, rel=1e-12)
    assert res.dof == flipped.dof == b.size - 1 and res.pvalue == pytest.approx(one.pvalue)


def test_degenerate_and_bad_input():
    assert metrics.welch([1.0, 1.0], [1.0, 1.0]).agree
    res = metrics.welch([1.0, 1.0], [2.0, 2.0])
    assert not res.agree and res.statistic == -math.inf
    with pytest.raises(ValueError, match="at least 2"):
        metrics.welch([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="level"):
        metrics.welch([1.0, 2.0], [1.0, 2.0], level=1.0)
    with pytest.raises(ValueError, match="finite"):
        metrics.welch([1.0, math.nan], [1.0, 2.0])
