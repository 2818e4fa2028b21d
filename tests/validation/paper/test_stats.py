"""Statistics of the paper-reproduction protocol (theory §6.4) against direct
computations on small synthetic data."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from freege.validation.paper import stats as paper_stats

RNG = np.random.default_rng(20260)


def test_student_and_paired_difference_match_direct_formulas() -> None:
    a, b = RNG.normal(1.0, 0.1, 10), RNG.normal(0.9, 0.1, 10)
    d = a - b
    half = stats.t.ppf(0.975, 9) * d.std(ddof=1) / math.sqrt(10)
    got = paper_stats.paired_difference(a, b)
    assert got.estimate == pytest.approx(d.mean(), rel=1e-14)
    assert got.high - got.estimate == pytest.approx(half, rel=1e-12)
    assert got.bar == pytest.approx(half, rel=1e-12)


def test_fieller_endpoints_solve_the_defining_equation_and_bound_the_set() -> None:
    x = RNG.normal(2.0, 0.2, 10)
    y = 1.1 * x + RNG.normal(0.0, 0.05, 10)
    got = paper_stats.fieller(x, y)
    t = stats.t.ppf(0.975, 9)

    def excess(r: float) -> float:  # <= 0 exactly on the Fieller set
        return abs(y.mean() - r * x.mean()) - t * (y - r * x).std(ddof=1) / math.sqrt(10)

    assert excess(got.low) == pytest.approx(0.0, abs=1e-12)
    assert excess(got.high) == pytest.approx(0.0, abs=1e-12)
    grid = np.linspace(got.low - 0.2, got.high + 0.2, 4001)
    inside = grid[[excess(r) <= 0 for r in grid]]
    step = grid[1] - grid[0]
    assert inside.min() == pytest.approx(got.low, abs=step)
    assert inside.max() == pytest.approx(got.high, abs=step)
    assert got.low < y.mean() / x.mean() < got.high


def test_fieller_refuses_a_denominator_indistinguishable_from_zero() -> None:
    x = RNG.normal(0.0, 1.0, 10)
    with pytest.raises(ValueError, match="unbounded"):
        paper_stats.fieller(x - x.mean(), RNG.normal(1.0, 0.1, 10))
    with pytest.raises(ValueError, match="at least 2 draws"):
        paper_stats.fieller([2.0], [1.0])
    with pytest.raises(ValueError, match="at least 2 draws"):
        paper_stats.student([2.0])


def test_arrival_of_a_single_exponential_is_exact() -> None:
    lam = np.array([[0.5, 0.0]])
    w = np.array([[0.95, 0.05]])  # L(t) = 0.95 exp(-t) + 0.05
    got = paper_stats.arrival(lam, w, 0.1)
    assert got == pytest.approx(math.log(0.95 / 0.05), rel=1e-12)
    with pytest.raises(ValueError, match="does not reach"):
        paper_stats.arrival(lam, np.array([[0.5, 0.5]]), 0.1)


def test_arrival_is_the_root_of_the_mean_curve_not_the_mean_of_roots() -> None:
    lam = RNG.uniform(0.05, 3.0, (10, 6))
    w = RNG.dirichlet(np.ones(6), 10)
    root = paper_stats.arrival(lam, w, 0.1)
    assert paper_stats.mean_curve(lam, w, root) == pytest.approx(0.1, rel=1e-11)
    per_draw = np.mean([paper_stats.arrival(lam[i:i + 1], w[i:i + 1]) for i in range(10)])
    assert abs(per_draw - root) > 1e-6


def test_bootstrap_percentiles_match_a_direct_resampling() -> None:
    lam = RNG.uniform(0.05, 3.0, (10, 4))
    w = RNG.dirichlet(np.ones(4), 10)
    got = paper_stats.bootstrap_arrival(lam, w, resamples=2000, seed=3)
    rng = np.random.default_rng(99)
    direct = [paper_stats.arrival(lam[idx], w[idx])
              for idx in rng.integers(0, 10, (2000, 10))]
    low, high = np.percentile(direct, [2.5, 97.5])
    width = high - low
    # percentile Monte-Carlo error with 2000 resamples is a few % of the width
    assert got.low == pytest.approx(low, abs=0.15 * width)
    assert got.high == pytest.approx(high, abs=0.15 * width)
    assert got.estimate == paper_stats.arrival(lam, w)
    again = paper_stats.bootstrap_arrival(lam, w, resamples=2000, seed=3)
    assert (again.low, again.high) == (got.low, got.high)


def test_vectorised_arrivals_equal_the_root_of_each_reweighted_mean_curve() -> None:
    lam = RNG.uniform(0.0, 3.0, (10, 5))
    w = RNG.dirichlet(np.ones(5), 10)
    idx = RNG.integers(0, 10, (7, 10))
    counts = np.stack([np.bincount(row, minlength=10) for row in idx])
    got = paper_stats.arrivals(lam, w, counts)
    want = [paper_stats.arrival(lam[row], w[row]) for row in idx]
    np.testing.assert_allclose(got, want, rtol=1e-11)


def test_largest_bars_take_absolute_and_relative_maxima_separately() -> None:
    bars = [paper_stats.Interval(10.0, 9.0, 10.5), paper_stats.Interval(0.1, 0.05, 0.12)]
    assert paper_stats.largest_bars(bars) == {"absolute": 1.0, "relative": 0.5}
