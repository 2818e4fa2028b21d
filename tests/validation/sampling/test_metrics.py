"""Metrics of theory §6.1/§6.2: exact properties of W1, KS, L1 and the Student-t CI, and
Welch's two-sample t test (:func:`freege.validation.sampling.metrics.welch`; theory §6.1,
§7: backends and configurations compared over a handful of draws) against an independent
computation: the statistic and Welch-Satterthwaite degrees of freedom written out, the
p-value and critical value by mpmath quadrature of the Student-t density (not scipy)."""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from freege.validation.sampling import metrics

samples = st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=2, max_size=40)


@given(samples, st.floats(-50, 50))
def test_w1_of_a_shift_is_the_shift(x, c):
    a = np.array(x)
    assert metrics.w1(a, a + c) == pytest.approx(abs(c), abs=1e-9 * (1 + abs(c)))


@given(samples, st.randoms(use_true_random=False))
def test_w1_and_ks_ignore_order_and_are_symmetric(x, rnd):
    a = np.array(x)
    b = a.copy()
    rnd.shuffle(b)
    assert metrics.w1(a, b) == 0.0 and metrics.ks(a, b) == 0.0
    c = a * 2 + 1
    assert metrics.ks(a, c) == metrics.ks(c, a)
    assert metrics.w1(a, c) == pytest.approx(metrics.w1(c, a))


@given(samples, samples)
def test_ks_matches_scipy(x, y):
    a, b = np.array(x), np.array(y)
    # only the statistic is compared: method="asymp" skips the exact p-value, which fails
    # to converge (with a RuntimeWarning) for some of these small samples
    ref = stats.ks_2samp(a, b, method="asymp").statistic
    assert metrics.ks(a, b) == pytest.approx(ref, abs=1e-12)


def test_hist_l1_bounds():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(500)
    assert metrics.hist_l1(a, a) == 0.0
    assert metrics.hist_l1(a, a + 100.0) == pytest.approx(2.0)


@given(st.lists(st.floats(-10, 10, allow_nan=False), min_size=2, max_size=30))
def test_mean_ci_is_the_student_t_interval(x):
    v = np.array(x)
    mean, half = metrics.mean_ci(v)
    assert mean == pytest.approx(v.mean())
    if v.std() > 0:
        expected = stats.t.interval(0.95, v.size - 1, loc=v.mean(), scale=stats.sem(v))
        assert mean + half == pytest.approx(expected[1], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.99, 0.999])
@pytest.mark.parametrize("k", [2, 3, 5, 12, 40, 300])
def test_mean_ci_matches_scipy_t_interval(k, level):
    """The one Student-t helper against ``scipy.stats.t.interval`` (a different code path:
    ``scipy.stats`` rather than ``scipy.special``) at several sizes and levels."""
    v = np.random.default_rng(k).normal(3.0, 2.0, k)
    mean, half = metrics.mean_ci(v, level)
    low, high = stats.t.interval(level, k - 1, loc=v.mean(), scale=stats.sem(v))
    assert mean == pytest.approx(v.mean(), rel=1e-14)
    assert (mean - half, mean + half) == pytest.approx((low, high), rel=1e-12)
    assert metrics.t_critical(k - 1, level) == pytest.approx(
        stats.t.ppf(0.5 + level / 2, k - 1), rel=1e-12)


def test_t_critical_takes_fractional_dof_and_refuses_bad_input():
    assert metrics.t_critical(2.5, 0.99) == pytest.approx(stats.t.ppf(0.995, 2.5), rel=1e-12)
    for dof in (0, -1.0, math.nan):
        with pytest.raises(ValueError, match="dof must be a number > 0"):
            metrics.t_critical(dof)
    for level in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match=r"level must be in \(0, 1\)"):
            metrics.t_critical(3, level)
        with pytest.raises(ValueError, match=r"level must be in \(0, 1\)"):
            metrics.mean_ci([1.0, 2.0], level)


def test_mean_ci_coverage_is_95_percent():
    """Coverage of the interval over 4000 normal samples of 5 (binomial 4-sigma band)."""
    rng = np.random.default_rng(1)
    trials = 4000
    hits = sum(abs(m) <= h for m, h in (metrics.mean_ci(rng.standard_normal(5))
                                         for _ in range(trials)))
    assert abs(hits / trials - 0.95) <= 4 * math.sqrt(0.95 * 0.05 / trials)


def test_bad_input():
    with pytest.raises(ValueError, match="at least 2 draws"):
        metrics.mean_ci([1.0])
    with pytest.raises(ValueError, match="equal sample sizes"):
        metrics.w1(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="finite"):
        metrics.ks(np.array([np.nan, 1.0]), np.ones(2))
    with pytest.raises(ValueError, match="mean"):
        metrics.rel_w1(np.ones(2), np.ones(2), 0.0)


def test_moment_errors():
    x = np.array([1.0, 3.0])
    assert metrics.empirical_moments(x, 2) == [2.0, 5.0]
    assert metrics.moment_errors(x, [2.0, 4.0]) == pytest.approx([0.0, 0.25])


def test_density_l1_small_for_the_true_density_large_for_a_shift():
    """Histogram noise gives L1 about sqrt(2 bins / (pi N)); a shifted density is far."""
    x = np.random.default_rng(3).standard_normal(20000)
    noise = math.sqrt(2 * 60 / (math.pi * x.size))
    assert metrics.density_l1(x, stats.norm.pdf, bins=60) <= 2 * noise
    assert metrics.density_l1(x, lambda t: stats.norm.pdf(t, 0.5), bins=60) > 5 * noise


def test_density_l1_leaves_the_atom_at_zero_out():
    """A 30% atom at 0 plus an exponential law: compared with the continuous part
    (0.7 times the exponential density) the distance is histogram noise only."""
    rng = np.random.default_rng(4)
    x = np.concatenate([np.zeros(6000), rng.exponential(size=14000)])
    noise = math.sqrt(2 * 60 / (math.pi * x.size))
    assert metrics.density_l1(x, lambda t: 0.7 * stats.expon.pdf(t), bins=60) <= 2 * noise


# -- Welch's t test ---------------------------------------------------------------------

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
