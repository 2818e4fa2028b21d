"""The CPU eigensolver (:mod:`freege.validation.sampling.eigensolver`): the size-chosen
driver (issue 8, item 5) against NumPy's ``eigvalsh``, and learning-curve weights without
the eigenvector matrix (issue 18, item 2), ``eigenvalues_and_weights``, against a full
``eigh``."""


import numpy as np
import pytest

from freege.validation.finite_readout import flow_loss_from_weights, gradient_flow_loss
from freege.validation.sampling import eigensolver
from freege.validation.sampling.backend import get_backend
from freege.validation.sampling.eigensolver import eigenvalues_and_weights

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


# -- learning-curve weights (issue 18, item 2) ------------------------------------------

TIMES = np.geomspace(1e-3, 1e3, 50)


def _gram_and_target(n: int, rank: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((n, rank))
    g = m @ m.T
    return g * (n / np.trace(g)), rng.standard_normal(n)


@pytest.mark.parametrize(("n", "rank"), [(1, 1), (2, 1), (7, 7), (160, 81), (160, 160)])
def test_curve_and_eigenvalues_agree_with_full_eigh(n, rank):
    g, y = _gram_and_target(n, rank, seed=n + rank)
    kept = g.copy()
    vals, weights = eigenvalues_and_weights(g, y)
    assert np.array_equal(g, kept)  # not destroyed without overwrite
    ref_vals, ref_vecs = np.linalg.eigh(g)
    scale = max(1.0, float(ref_vals[-1]))
    assert np.max(np.abs(vals - ref_vals)) <= 1e-13 * scale
    assert np.isclose(weights.sum(), y @ y, rtol=1e-13)  # Parseval
    curve = flow_loss_from_weights(vals, weights / (y @ y), TIMES)
    assert np.max(np.abs(curve - gradient_flow_loss(ref_vals, ref_vecs, y, TIMES))) <= 1e-12


def test_float32_and_fortran_input_and_backend_route():
    g, y = _gram_and_target(60, 40, seed=3)
    ref_vals, ref_vecs = np.linalg.eigh(g)
    ref = gradient_flow_loss(ref_vals, ref_vecs, y, TIMES)
    v32, w32 = eigenvalues_and_weights(g.astype(np.float32), y)
    assert v32.dtype == w32.dtype == np.float64
    # float32 rounding of the Gram and of the reduction: a backward error of a few
    # n eps32 ||g|| moves the curve by about as much
    tol = 60 * 4 * np.finfo(np.float32).eps * ref_vals[-1]
    assert np.max(np.abs(flow_loss_from_weights(v32, w32 / (y @ y), TIMES) - ref)) < tol
    fortran = np.asfortranarray(g)
    vf, wf = eigenvalues_and_weights(fortran, y)
    assert np.array_equal(fortran, g)  # not destroyed without overwrite
    vb, wb = get_backend("numpy").eigenvalues_and_weights(g.copy(), y, overwrite=True)
    assert np.allclose(vf, vb, rtol=0, atol=1e-13) and np.allclose(wf, wb, rtol=1e-12)


def test_shapes_are_checked():
    with pytest.raises(ValueError, match="gram must be n x n"):
        eigenvalues_and_weights(np.eye(3), np.ones(4))
    with pytest.raises(ValueError, match="gram must be n x n"):
        eigenvalues_and_weights(np.ones((3, 2)), np.ones(3))
