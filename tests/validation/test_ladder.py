"""The single-head ladder of theory §6.2."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from freege.validation import ladder
from freege.validation.sampling import metrics
from freege.validation.sampling.sample import thetas


@given(st.floats(0.1, 1.5))
def test_taylor_thetas_converge_to_the_softmax_thetas(beta):
    """The centred Taylor polynomial has Gaussian mean 0, and its exact thetas tend to
    theta1 = e^{beta^2} - 1, theta2 = beta^2 as the degree grows (theory §2, §6.2)."""
    q = ladder.centred_taylor(beta, 40)
    assert ladder._gauss_mean(q) == pytest.approx(0.0, abs=1e-14)
    t1, t2 = thetas(beta)
    q1, q2 = ladder.polynomial_thetas(q)
    assert q1 == pytest.approx(t1, rel=1e-10) and q2 == pytest.approx(t2, rel=1e-10)
    low1, _ = ladder.polynomial_thetas(ladder.centred_taylor(beta, 2))
    assert low1 < q1  # truncation drops positive terms of E f(Z)^2


def test_polynomial_thetas_of_hermite_polynomials():
    assert ladder.polynomial_thetas(np.array([0.0, 1.0])) == pytest.approx((1.0, 1.0))
    assert ladder.polynomial_thetas(np.array([-1.0, 0.0, 1.0])) == pytest.approx((2.0, 0.0))


def test_polynomial_thetas_match_monte_carlo():
    z = np.random.default_rng(0).standard_normal(400_000)
    q = ladder.centred_taylor(1.0, 6)
    vals = np.polynomial.polynomial.polyval(z, q)
    q1, q2 = ladder.polynomial_thetas(q)
    assert abs(np.mean(vals**2) - q1) <= 5 * np.std(vals**2) / math.sqrt(z.size)
    assert abs(np.mean(z * vals) - math.sqrt(q2)) <= 5 * np.std(z * vals) / math.sqrt(z.size)


def test_taylor_degree_grows_slowly():
    assert ladder.taylor_degree(1000) == math.ceil(2 * math.log(1000) / math.log(math.log(1000)))
    degrees = [ladder.taylor_degree(n) for n in (10, 100, 10_000, 10**6)]
    assert degrees == sorted(degrees) and degrees[-1] < 20
    with pytest.raises(ValueError, match="n must be"):
        ladder.taylor_degree(2)


def test_trial_outliers_and_reference():
    """``sqrt(n) A`` and ``Y`` carry one outlier near n (rows of A sum to 1); centring
    removes it; the reference is at distance 0 from itself."""
    n = 120
    t = ladder.trial(n, seed=1)
    assert set(t.spectra) == {*ladder.STEPS, ladder.FLOOR}
    assert t.spectra["sqrt(n) A"][-1] == pytest.approx(n, rel=0.2)
    assert t.spectra["sqrt(n) A^perp"][-1] < 0.2 * n
    cmp = ladder.compare(t)
    assert cmp[ladder.REFERENCE]["bulk_w1"] == 0.0
    assert all(np.isfinite(c["bulk_w1"]) and 0 <= c["bulk_l1"] <= 2 for c in cmp.values())
    # the floor: the GE step against a second GE with the same S and fresh noise
    ge, floor = t.spectra[ladder.GE_STEP][:-ladder.TOP], t.spectra[ladder.FLOOR][:-ladder.TOP]
    assert cmp["floor"]["bulk_w1"] == metrics.w1(floor, ge) > 0
    assert abs(t.normalizers.mean() - 1) < 0.1


def test_run_averages_trials():
    summary, last = ladder.run(60, trials=2, seed=3)
    assert summary["trials"] == 2 and set(summary["steps"]) == set(ladder.STEPS)
    assert summary["normalizer"]["max_dev"] >= abs(summary["normalizer"]["mean"] - 1)
    assert last.spectra["Y_f_lin"].shape == (60,)
    v = summary["verdict"]
    assert v["decision"] in ("consistent", "above_floor", "undecided")
    assert [c["metric"] for c in v["comparisons"]] == ["W1", "L1 hist"]
    assert v["comparisons"][0]["floor"] == pytest.approx(summary["floor"]["bulk_w1"])
    with pytest.raises(ValueError, match="trials"):
        ladder.run(60, trials=0)
