"""Finite-matrix readout (theory §5 finite versions): the closed forms against direct
simulation of ridge regression and against the matrix exponential."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import expm

from freege.params import Dims
from freege.validation import finite_readout


@settings(max_examples=8)
@given(st.integers(4, 12), st.integers(2, 16), st.floats(1e-3, 2.0), st.floats(0.0, 1.0),
       st.integers(0, 2**32 - 1))
def test_ridge_error_is_the_average_over_teacher_and_noise(n, d_o, lam, sigma2, seed):
    """Monte Carlo over teacher ``theta ~ N(0, I/dO)`` and noise: the mean squared
    coefficient error of ``theta_hat = (F^T F + lam)^-1 F^T y / sqrt(n)`` matches the
    formula within 5 standard errors."""
    rng = np.random.default_rng(seed)
    f = rng.standard_normal((n, d_o)) / math.sqrt(d_o)
    reps = 4000
    theta = rng.standard_normal((d_o, reps)) / math.sqrt(d_o)
    y = math.sqrt(n) * f @ theta + math.sqrt(sigma2) * rng.standard_normal((n, reps))
    est = np.linalg.solve(f.T @ f + lam * np.eye(d_o), f.T @ y) / math.sqrt(n)
    err = np.sum((est - theta) ** 2, axis=0)
    exact = finite_readout.ridge_error(np.linalg.eigvalsh(f @ f.T), d_o / n, [lam], sigma2)[0]
    assert abs(err.mean() - exact) <= 5 * err.std(ddof=1) / math.sqrt(reps) + 1e-12


def test_gradient_flow_loss_matches_the_matrix_exponential():
    rng = np.random.default_rng(2)
    f = rng.standard_normal((10, 7)) / 3
    y = finite_readout.target(10, seed=4)
    assert abs(y.sum()) < 1e-12
    vals, vecs = np.linalg.eigh(f @ f.T)
    times = [0.0, 0.3, 2.0, 15.0]
    loss = finite_readout.gradient_flow_loss(vals, vecs, y, times)
    for t, value in zip(times, loss, strict=True):
        residual = expm(-t * f @ f.T) @ y  # y - F v(t) for v' = F^T (y - F v), v(0) = 0
        assert value == pytest.approx(residual @ residual / (y @ y), rel=1e-10)


def test_dof_limits():
    x = np.array([0.0, 1.0, 3.0])
    assert finite_readout.dof(x, [1e-12])[0] == pytest.approx(2 / 3)
    assert finite_readout.dof(x, [1e12])[0] == pytest.approx(0.0, abs=1e-11)


def test_measure_reports_both_models_with_intervals():
    dims = Dims(n=40, h=2, dK=8, dV=8, dO=60)
    out = finite_readout.measure(dims, draws=2, lam=[1e-3, 1.0], t=[0.0, 5.0])
    for model in ("softmax", "ge"):
        assert out[model]["loss"]["mean"][0] == pytest.approx(1.0)
        assert len(out[model]["ridge"]["ci95"]) == 2
        assert all(v > 0 for v in out[model]["ridge"]["mean"])


def test_bad_input():
    with pytest.raises(ValueError, match="lam"):
        finite_readout.ridge_error(np.ones(3), 1.0, [0.0])
    with pytest.raises(ValueError, match="draws"):
        finite_readout.measure(Dims(n=8, h=1, dK=2, dV=2, dO=8), draws=1, lam=[1.0], t=[1.0])
    with pytest.raises(ValueError, match="non-zero"):
        finite_readout.gradient_flow_loss(np.ones(2), np.eye(2), np.zeros(2), [1.0])
