"""The sampler (theory §1, §2, §6.1): stable softmax, shared weights between the softmax
and GE models, reproducibility, the exact-in-law GE value noise, streamed memory, and the
fused softmax-value product (issue 8, item 5) against the plain route
``centred_softmax(...) @ V``."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from freege.params import Dims
from freege.validation.sampling import sample
from freege.validation.sampling.backend import get_backend

SMALL = Dims(n=48, h=3, dK=12, dV=10, dO=40)


@given(st.floats(0.1, 50.0), st.integers(2, 30))
def test_centred_softmax_rows_sum_to_zero_even_for_huge_scores(beta, n):
    rng = np.random.default_rng(n)
    scores = rng.standard_normal((n, n)) * 40.0
    a = sample.centred_softmax(np, scores.copy(), beta)
    assert np.all(np.isfinite(a))
    assert np.allclose(a.sum(axis=1), 0.0, atol=1e-12)
    naive = np.exp(beta * scores - (beta * scores).max(axis=1, keepdims=True))
    assert np.allclose(a, naive / naive.sum(axis=1, keepdims=True) - 1.0 / n, atol=1e-14)


def test_draw_is_reproducible_and_shares_weights_between_models():
    d1 = sample.draw(SMALL, seed=7)
    d2 = sample.draw(SMALL, seed=7)
    assert np.array_equal(d1.softmax, d2.softmax) and np.array_equal(d1.ge, d2.ge)
    assert np.allclose(d1.softmax, sample.case_eigenvalues("mha", SMALL, seed=7, model="softmax"))
    assert np.allclose(d1.ge, sample.case_eigenvalues("mha", SMALL, seed=7, model="ge"))
    other = sample.draw(SMALL, seed=8)
    assert not np.allclose(d1.softmax, other.softmax)
    assert d1.softmax.dtype == np.float64 and d1.softmax.shape == (SMALL.n,)
    assert np.all(np.diff(d1.softmax) >= 0)


def test_mha_features_match_the_draw():
    soft, ge = sample.mha_features(SMALL, seed=3)
    d = sample.draw(SMALL, seed=3)
    assert np.allclose(np.linalg.eigvalsh(soft @ soft.T), d.softmax)
    assert np.allclose(np.linalg.eigvalsh(ge @ ge.T), d.ge)


@pytest.mark.parametrize("dv", [6, 60])
def test_ge_value_noise_has_the_law_of_w_v(dv):
    """Rows of the sampled W V are N(0, V^T V): the empirical covariance over many draws
    matches V^T V entrywise within 5 standard errors (cov of Gaussian products)."""
    n, reps = 20, 4000
    bk = get_backend("numpy")
    V = np.random.default_rng(0).standard_normal((n, dv))
    noise = sample._GEValueNoise(bk, bk.generator(np.random.SeedSequence(1)))
    rows = np.concatenate([noise(V, i == 0) for i in range(reps // n)])
    cov = V.T @ V
    emp = rows.T @ rows / rows.shape[0]
    se = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / rows.shape[0])
    assert np.all(np.abs(emp - cov) <= 5 * se)


def test_cases_and_models_are_checked():
    with pytest.raises(ValueError, match="case must be one of"):
        sample.case_eigenvalues("mlp", SMALL, seed=0)
    with pytest.raises(ValueError, match="model must be one of"):
        sample.case_eigenvalues("mha", SMALL, seed=0, model="relu")
    with pytest.raises(ValueError, match="dV == dK"):
        sample.case_eigenvalues("mha-tied", SMALL, seed=0)
    tied = Dims(n=48, h=3, dK=12, dV=12, dO=40, sharing="tied")
    with pytest.raises(ValueError, match="mha-tied"):
        sample.case_eigenvalues("mha", tied, seed=0)


def test_peak_memory_is_streamed_not_all_heads():
    """Peak memory stays within a small multiple of n^2 + n (h dV + dO) floats, far below
    the h n^2 of materialising every head (here h n^2 is 8x the streamed bound)."""
    dims = Dims(n=256, h=64, dK=4, dV=4, dO=64)
    d = sample.draw(dims, seed=0)
    streamed = 8 * (dims.n**2 + dims.n * (dims.h * dims.dV + dims.dO))
    all_heads = 8 * dims.h * dims.n**2
    assert d.peak_bytes <= 8 * streamed < all_heads


def test_thetas():
    t1, t2 = sample.thetas(0.5)
    assert t1 == pytest.approx(math.expm1(0.25)) and t2 == 0.25


@given(st.integers(2, 40), st.integers(1, 12), st.integers(1, 12),
       st.floats(0.05, 30.0), st.floats(0.1, 40.0), st.integers(0, 2**32 - 1))
def test_fused_softmax_values_equals_the_plain_route(n, dk, dv, beta, scale, seed):
    """``A^perp V`` fused equals ``centred_softmax(Q K^T / sqrt(dK)) @ V`` to 1e-12 of
    ``|V|`` (a row of A^perp V is a difference of convex combinations of V's rows),
    including scores so large that exp overflows without the row max."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n, dk)) * scale
    k, v = rng.standard_normal((n, dk)), rng.standard_normal((n, dv))
    plain = sample.centred_softmax(np, q @ k.T / math.sqrt(dk), beta) @ v
    fused = sample.centred_softmax_values(np, q, k, v, beta)
    assert np.all(np.isfinite(fused))
    assert np.max(np.abs(fused - plain)) <= 1e-12 * max(1.0, np.max(np.abs(v)))


def test_fused_draw_matches_the_plain_route():
    """A whole MHA draw's softmax spectrum against the same draw built head by head by
    the plain route (same seeds, the sampler's own weight order)."""
    dims = Dims(n=64, h=3, dK=8, dV=8, dO=40)
    d = sample.draw(dims, seed=5)
    bk = sample.get_backend("numpy")
    wseq, oseq, _ = np.random.SeedSequence(5).spawn(3)
    heads = sample._heads(bk, bk.generator(wseq), dims, "mha")
    z = np.concatenate([sample.centred_softmax(np, hd.Q @ hd.K.T / math.sqrt(dims.dK),
                                               float(dims.beta)) @ hd.V
                        for hd in heads], axis=1)
    mha = z @ sample.output_weights(bk, bk.generator(oseq), dims)
    ref = np.linalg.eigvalsh(mha @ mha.T)
    assert np.max(np.abs(d.softmax - ref)) <= 1e-12 * ref[-1]
