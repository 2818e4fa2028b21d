"""Finite-size identities of theory §2.1, by Monte Carlo.

Exact identities are checked to within 5 standard errors of the Monte Carlo mean (the
standard error is estimated from the same samples); parameters keep ``dK > 16 beta^2``
so the fourth moments behind those standard errors exist. The large-n statements are
checked against bounds that scale with n as the theory's rates do, with constants from a
first-order (delta-method) expansion, doubled.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

Z = 5.0  # standard errors allowed for an exact identity
ROWS = 4000

betas = st.floats(0.25, 0.9)
key_widths = st.integers(24, 48)
tokens = st.integers(2, 16)


def _within(samples: np.ndarray, expected: float) -> bool:
    se = samples.std(ddof=1) / math.sqrt(samples.size)
    return abs(samples.mean() - expected) <= Z * se


def _normalizers(rng, beta: float, n: int, dk: int) -> np.ndarray:
    """ROWS independent row normalizers ``D = (1/n) sum_j exp(beta S_j - beta^2/2)``."""
    q = rng.standard_normal((ROWS, dk))
    k = rng.standard_normal((ROWS, n, dk))
    s = np.einsum("rd,rnd->rn", q, k) / math.sqrt(dk)
    return np.exp(beta * s - beta**2 / 2).mean(axis=1)


@given(betas, tokens, key_widths, st.integers(0, 2**32 - 1))
def test_normalizer_mean_and_second_moment(beta, n, dk, seed):
    d = _normalizers(np.random.default_rng(seed), beta, n, dk)
    b2 = beta**2
    mean = math.exp(-b2 / 2) * (1 - b2 / dk) ** (-dk / 2)
    second = math.exp(-b2) * ((1 - 1 / n) * (1 - 2 * b2 / dk) ** (-dk / 2)
                              + (1 / n) * (1 - 4 * b2 / dk) ** (-dk / 2))
    assert _within(d, mean)
    assert _within(d**2, second)


@given(betas, tokens, st.floats(0.3, 2.0), st.integers(0, 2**32 - 1))
def test_normalizer_given_query_norm(beta, n, v, seed):
    """Given ``v = |q|^2/dK`` the scores of one row are i.i.d. N(0, v)."""
    rng = np.random.default_rng(seed)
    b2 = beta**2
    d = np.exp(beta * math.sqrt(v) * rng.standard_normal((ROWS, n)) - b2 / 2).mean(axis=1)
    assert _within(d, math.exp(b2 * (v - 1) / 2))
    var = math.exp(b2 * (v - 1)) * math.expm1(b2 * v) / n
    assert _within((d - d.mean()) ** 2 * ROWS / (ROWS - 1), var)


@settings(max_examples=10)
@given(betas, st.integers(2, 5), key_widths, st.integers(0, 2**32 - 1))
def test_conditional_mean_and_covariance_given_keys(beta, n, dk, seed):
    """Over queries, with the keys fixed: mean and covariance of ``f(S_i.)``."""
    rng = np.random.default_rng(seed)
    keys = rng.standard_normal((n, dk))
    sigma = keys @ keys.T / dk
    rows = 20000
    s = rng.standard_normal((rows, dk)) @ keys.T / math.sqrt(dk)
    f = np.expm1(beta * s - beta**2 / 2)
    b2 = beta**2
    diag = np.diag(sigma)
    mean = np.expm1(b2 * (diag - 1) / 2)
    cov = np.exp(b2 * (diag[:, None] + diag[None, :] - 2) / 2) * np.expm1(b2 * sigma)
    for j in range(n):
        assert _within(f[:, j], mean[j])
    centred = f - mean
    for i in range(n):
        for j in range(i, n):
            assert _within(centred[:, i] * centred[:, j], cov[i, j])


def _heads(rng, beta: float, n: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """``A = [A_1 | ... | A_h]`` and the normalizers ``D_i`` with ``X = I``, ``dK = n``."""
    blocks, norms = [], []
    for _ in range(h):
        s = rng.standard_normal((n, n)) @ rng.standard_normal((n, n)).T / math.sqrt(n)
        e = np.exp(beta * s - beta**2 / 2)
        z = e.sum(axis=1, keepdims=True)
        blocks.append(e / z)
        norms.append(z[:, 0] / n)
    return np.hstack(blocks), np.concatenate(norms)


@pytest.mark.parametrize("beta", [0.5, 1.0])
def test_large_n_limits(beta):
    """theory §2.1 large-n: ``||A||_F^2/h -> e^{beta^2}`` and ``s1(A)/sqrt(h) -> 1`` at
    rate 1/n (delta-method coefficients ``2(e^{2b^2} - 1) + 3 theta1`` and ``theta1/2``,
    bounds doubled and more), ``max |D_i - 1| -> 0`` at rate n^(-1/2) log n."""
    n, h = 384, 2
    a, d = _heads(np.random.default_rng(11), beta, n, h)
    b2 = beta**2
    t1 = math.expm1(b2)
    fro = np.sum(a**2) / h
    assert abs(fro / math.exp(b2) - 1) <= 2 * (2 * math.expm1(2 * b2) + 3 * t1) / n
    s1 = np.linalg.norm(a, 2) / math.sqrt(h)
    assert 0 <= s1 - 1 <= 3 * t1 / n
    assert np.max(np.abs(d - 1)) <= 2 * math.sqrt(t1 / n) * math.log(h * n)
