"""Conditional moments of the exponential block given the keys (theory §2.2): the closed
forms of the row mean and of Sigma_f against Monte Carlo, and Sigma_G."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from freege.validation.sampling import conditional

#: Monte-Carlo queries per example; tolerances are 5 standard errors estimated from them
QUERIES = 100_000


@settings(max_examples=6)
@given(beta=st.floats(0.2, 1.0), seed=st.integers(0, 10**6), dk=st.integers(2, 6))
def test_row_mean_and_sigma_f_match_monte_carlo(beta, seed, dk):
    """Given fixed keys, the rows ``f(K q / sqrt(dK))`` of ``sqrt(n) Y^f`` over random
    queries have mean ``exp(beta^2 (Sigma_K jj - 1)/2) - 1`` and covariance Sigma_f."""
    rng = np.random.default_rng(seed)
    n = 4
    k = rng.standard_normal((n, dk))
    sigma_k = conditional.key_covariance(k)
    f = np.expm1(beta * rng.standard_normal((QUERIES, dk)) @ k.T / math.sqrt(dk) - beta**2 / 2)
    mean = conditional.row_mean(np, np.diagonal(sigma_k), beta)
    se_mean = f.std(axis=0) / math.sqrt(QUERIES)
    assert np.all(np.abs(f.mean(axis=0) - mean) <= 5 * se_mean)
    centred = f - f.mean(axis=0)
    products = centred[:, :, None] * centred[:, None, :]
    se_cov = products.std(axis=0) / math.sqrt(QUERIES)
    sigma = conditional.sigma_f(np, sigma_k, beta)
    assert np.all(np.abs(products.mean(axis=0) - sigma) <= 5 * se_cov + 1e-12)


def test_sigma_g_and_the_limit_of_sigma_f():
    """Sigma_G = theta2 Sigma_K + (theta1 - theta2) I; at Sigma_K = I, Sigma_f is the
    diagonal theta1 I, and off the diagonal Sigma_f - Sigma_G is second order in Sigma_K."""
    beta = 0.8
    t1 = math.expm1(beta**2)
    eye = np.eye(3)
    assert np.allclose(conditional.sigma_f(np, eye, beta), t1 * eye)
    assert np.allclose(conditional.sigma_g(np, eye.copy(), beta), t1 * eye)
    for eps in (1e-2, 1e-3):
        s = eye + eps * (np.ones((3, 3)) - eye)
        off = (conditional.sigma_f(np, s, beta) - conditional.sigma_g(np, s.copy(), beta))[0, 1]
        assert abs(off) <= beta**4 * eps**2
    assert conditional.normalised_frobenius(np, 2 * eye) == 2.0
