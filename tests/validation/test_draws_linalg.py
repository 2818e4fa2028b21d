"""The size-chosen eigensolver and the fused softmax-value product (issue 8, item 5)
against the plain routes: NumPy's ``eigvalsh`` and ``centred_softmax(...) @ V``."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from freege.params import Dims
from freege.validation import eigensolver, sample

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
    mha, _ = sample._output(z, sample._output_blocks(dims, bk, oseq))
    ref = np.linalg.eigvalsh(mha @ mha.T)
    assert np.max(np.abs(d.softmax - ref)) <= 1e-12 * ref[-1]
