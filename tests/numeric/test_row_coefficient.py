"""The finite-n row coefficient ``theta_n`` of theory §2.3
(:mod:`freege.numeric.row_coefficient`): its quadrature against Monte Carlo and
the large-n expansion, its interpolated table, its input checks."""

import math

import numpy as np
import pytest

from freege.numeric.row_coefficient import theta_n, theta_n_exact, x_bound

Z = 4.5  # normal quantile of the checks below: a false alarm about once in 3e5 runs
N_TABLE, DK_TABLE = 400, 8  # one table (about 3 s), the one test_finite_width.py uses


def test_theta_n_matches_monte_carlo():
    """``theta_n(x)`` against the mean of ``n |A_i^perp|^2`` over Monte-Carlo rows of n
    i.i.d. N(0, x) scores (beta = 1), within Z standard errors; it lies below
    ``e^x - 1``."""
    rng = np.random.default_rng(9)
    n = 64
    for x in (0.3, 1.5, 4.0):
        z = np.exp(math.sqrt(x) * rng.standard_normal((3000, n)))
        r = n * (z * z).sum(axis=1) / z.sum(axis=1) ** 2 - 1
        got = theta_n_exact(x, n)
        assert abs(got - r.mean()) < Z * r.std(ddof=1) / math.sqrt(r.size), (x, got)
        assert got < math.expm1(x)


def test_theta_n_at_large_n_is_the_delta_expansion():
    """At large n, ``theta_n(x) = e^x (1 + (3(e^x - 1) - 2(e^{2x} - 1))/n) - 1 +
    O(n^-2)``: an independent route to the quadrature's accuracy."""
    n, x = 10**5, 0.5
    delta = math.exp(x) * (1 + (3 * math.expm1(x) - 2 * math.expm1(2 * x)) / n) - 1
    assert theta_n_exact(x, n) == pytest.approx(delta, rel=1e-7)
    assert abs(theta_n_exact(x, n) - math.expm1(x)) > 1e3 * abs(theta_n_exact(x, n) - delta)


def test_theta_n_table_interpolates_the_quadrature():
    x_max = x_bound(1.0, DK_TABLE)
    xs = np.array([0.05, 0.77, 2.31, 5.5])
    want = [theta_n_exact(float(x), N_TABLE) for x in xs]
    np.testing.assert_allclose(theta_n(xs, N_TABLE, x_max), want, rtol=2e-3)


def test_bad_theta_n_input_is_refused():
    with pytest.raises(ValueError, match="x must be"):
        theta_n_exact(-1.0, 10)
    with pytest.raises(ValueError, match="n must be"):
        theta_n_exact(1.0, 1)
