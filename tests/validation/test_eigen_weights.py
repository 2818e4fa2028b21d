"""Learning-curve weights without the eigenvector matrix (issue 18, item 2):
:func:`freege.validation.sampling.eigensolver.eigenvalues_and_weights` against a full ``eigh``."""

import numpy as np
import pytest

from freege.validation.finite_readout import flow_loss_from_weights, gradient_flow_loss
from freege.validation.sampling.backend import get_backend
from freege.validation.sampling.eigensolver import eigenvalues_and_weights

TIMES = np.geomspace(1e-3, 1e3, 50)


def _gram(n: int, rank: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((n, rank))
    g = m @ m.T
    return g * (n / np.trace(g)), rng.standard_normal(n)


@pytest.mark.parametrize(("n", "rank"), [(1, 1), (2, 1), (7, 7), (160, 81), (160, 160)])
def test_curve_and_eigenvalues_agree_with_full_eigh(n, rank):
    g, y = _gram(n, rank, seed=n + rank)
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
    g, y = _gram(60, 40, seed=3)
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
