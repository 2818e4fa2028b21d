"""The size-chosen eigensolver and the fused softmax-value product (issue 8, item 5)
against the plain routes: NumPy's ``eigvalsh`` and ``centred_softmax(...) @ V``."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from freege.params import Dims
from freege.validation.sampling import eigensolver, sample

needs_two_stage = pytest.mark.skipif(eigensolver.two_stage_driver("float64") is None,
                                     reason="this NumPy build ships no ?syevd_2stage")


def _gram(n, rank, seed, dtype=np.float64):
    m = np.random.default_rng(seed).standard_normal((n, rank)).astype(dtype)
    return m @ m.T


@needs_two_stage
@pytest.mark.parametrize(("n", "rank"), [(1, 1), (7, 3), (300, 120), (513, 700)])
def test_two_stage_matches_numpy_to_1e_10_of_the_scale(n, rank):
    g = _gram(n, rank, n)
    ref = np.linalg.eigvalsh(g)
    copy = g.copy()
    w = eigensolver.eigvalsh_two_stage(g)
    assert np.array_equal(g, copy)  # not overwritten unless asked
    assert w.dtype == np.float64 and np.all(np.diff(w) >= 0)
    assert np.max(np.abs(w - ref)) <= 1e-10 * np.max(np.abs(ref))
    assert np.allclose(eigensolver.eigvalsh_two_stage(g, overwrite=True), ref,
                       rtol=0, atol=1e-10 * np.max(np.abs(ref)))


@needs_two_stage
def test_two_stage_float32():
    g = _gram(200, 80, 3, np.float32)
    w = eigensolver.eigvalsh_two_stage(g)
    ref = np.linalg.eigvalsh(g.astype(np.float64))
    assert w.dtype == np.float32
    assert np.max(np.abs(w - ref)) <= 16 * np.finfo(np.float32).eps * ref[-1]


@needs_two_stage
def test_driver_is_chosen_by_size(monkeypatch):
    calls = []
    real = eigensolver.eigvalsh_two_stage
    monkeypatch.setattr(eigensolver, "eigvalsh_two_stage",
                        lambda a, overwrite=False: calls.append(a.shape[0]) or real(a))
    monkeypatch.setattr(eigensolver, "TWO_STAGE_MIN_N", 50)
    small, large = _gram(49, 20, 0), _gram(50, 20, 1)
    assert np.allclose(eigensolver.eigvalsh(small), np.linalg.eigvalsh(small))
    assert np.allclose(eigensolver.eigvalsh(large), np.linalg.eigvalsh(large))
    assert np.allclose(eigensolver.eigvalsh(large.astype(np.float32)),
                       np.linalg.eigvalsh(large), atol=1e-3)
    assert calls == [50, 50]
    ints = np.eye(60, dtype=np.int64)
    assert np.array_equal(eigensolver.eigvalsh(ints), np.ones(60))  # NumPy's route


needs_one_stage = pytest.mark.skipif(eigensolver.one_stage_driver("float64") is None
                                     or eigensolver.syrk_routine("float64") is None,
                                     reason="this NumPy build ships no LAPACKE ?sytrd/?syrk")


@needs_one_stage
@needs_two_stage
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("n", "rank"), [(1, 1), (7, 3), (90, 40), (200, 260)])
def test_lower_triangle_gram_and_both_reductions_match_numpy(n, rank, dtype):
    """The draws' route (issue 18): ``gram(m, lower_only=True)`` fills the lower triangle
    of ``m m^T`` (the rest zero), and the one- and two-stage reductions read that triangle
    alone, in place or on a copy, to NumPy's eigenvalues of the full product (1e-12 of the
    scale in float64, 16 eps in float32); rank-deficient Grams included."""
    m = np.random.default_rng(n + rank).standard_normal((n, rank)).astype(dtype)
    full = m @ m.T
    lower = eigensolver.gram(m, lower_only=True)
    assert lower.dtype == dtype
    assert np.array_equal(np.triu(lower, 1), np.zeros((n, n)))
    assert np.allclose(np.tril(lower), np.tril(full), rtol=1e-5 if dtype == np.float32 else 1e-12)
    assert np.array_equal(eigensolver.gram(m), full)  # the whole product otherwise
    ref = np.linalg.eigvalsh(full.astype(np.float64))
    tol = (16 * np.finfo(np.float32).eps if dtype == np.float32 else 1e-12) * ref[-1]
    for solve in (eigensolver.eigvalsh_one_stage, eigensolver.eigvalsh_two_stage,
                  eigensolver.eigvalsh):
        kept = lower.copy()
        w = solve(kept)
        assert np.array_equal(kept, lower)  # not overwritten unless asked
        assert w.dtype == dtype and np.max(np.abs(w - ref)) <= tol
        assert np.max(np.abs(solve(kept, overwrite=True) - ref)) <= tol


@needs_two_stage
@pytest.mark.parametrize("band", [1, 5, 64])
def test_two_stage_any_band_width(monkeypatch, band):
    """The band of the first stage only moves the cost: half-widths 1, 5 and one above
    n - 1 give NumPy's eigenvalues."""
    monkeypatch.setattr(eigensolver, "TWO_STAGE_BAND", band)
    g = _gram(40, 25, band)
    ref = np.linalg.eigvalsh(g)
    assert np.max(np.abs(eigensolver.eigvalsh_two_stage(g) - ref)) <= 1e-12 * ref[-1]


@needs_one_stage
@needs_two_stage
def test_lapack_failures_raise():
    """A non-finite matrix is refused by LAPACK, named, never returned as NaN eigenvalues."""
    g = np.eye(30)
    g[3, 2] = np.nan
    for solve in (eigensolver.eigvalsh_one_stage, eigensolver.eigvalsh_two_stage):
        with pytest.raises((ValueError, ArithmeticError), match="sytrd|sterf"):
            solve(g)


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
