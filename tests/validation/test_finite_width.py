"""The conditional Gaussian equivalent and the finite-width moments (theory §2.3).

Seeded; every statistical tolerance is a Student-t or normal quantile times a standard
error computed from the sample itself."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from freege.params import Dims
from freege.validation import finite_width as fw
from freege.validation.sampling import metrics
from freege.validation.sampling.backend import get_backend
from freege.validation.sampling.sample import (
    REALISED_MODEL,
    ROW_MODEL,
    _grams,
    centred_softmax,
    centred_softmax_values,
    draw,
    row_noise_scale,
)

Z = 4.5  # normal quantile of the checks below: a false alarm about once in 3e5 runs


def test_row_noise_scale_is_its_definition():
    """``sqrt(theta1_i - theta2_i)`` with ``x_i = beta^2 |q_i|^2/dK``, against mpmath at
    50 digits on both sides of the series switch (x = 1e-3)."""
    rng = np.random.default_rng(1)
    q = rng.standard_normal((64, 8)) * np.geomspace(1e-3, 1.5, 64)[:, None]
    beta = 0.9
    got = row_noise_scale(np, q, beta)
    with mpmath.workdps(50):
        want = [float(mpmath.sqrt(mpmath.expm1(x) - x))
                for x in (mpmath.mpf(beta) ** 2 * mpmath.fsum(mpmath.mpf(v) ** 2 for v in row) / 8
                          for row in q)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def _first_query(seed: int, n: int, dk: int) -> np.ndarray:
    """Q of head 0 as the sampler draws it (first normals of the weight stream)."""
    bk = get_backend("numpy")
    weights = np.random.SeedSequence(seed).spawn(3)[0]
    return bk.normal(bk.generator(weights), (n, dk))


def _slope(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Least-squares slope of y on x and its standard error."""
    xc = x - x.mean()
    b = float(xc @ (y - y.mean()) / (xc @ xc))
    resid = y - y.mean() - b * xc
    se = math.sqrt(float(resid @ resid) / (x.size - 2) / float(xc @ xc))
    return b, se


def test_conditional_ge_rows_carry_theta1_i():
    """One head, attention case: the conditional GE's row ``i`` has squared norm with
    expectation ``theta1_i = e^{beta^2 |q_i|^2/dK} - 1`` of the drawn query ``q_i``, so the
    diagonal of its Gram regressed on theta1_i has slope 1 and no offset; the plain GE
    (scalar noise) fails the same check."""
    n, dk, seed = 400, 8, 7
    dims = Dims(n=n, h=1, dK=dk, dV=dk, dO=n)
    theta1_i = np.expm1((_first_query(seed, n, dk) ** 2).sum(axis=1) / dk)
    bk = get_backend("numpy")
    diag = {model: np.diagonal(g).copy()
            for model, g in _grams("attention", dims, seed, bk, ("ge", ROW_MODEL))}
    slope, se = _slope(theta1_i, diag[ROW_MODEL])
    assert abs(slope - 1) < Z * se, (slope, se)
    resid = diag[ROW_MODEL] - theta1_i
    assert abs(resid.mean()) < Z * resid.std(ddof=1) / math.sqrt(n)
    plain, plain_se = _slope(theta1_i, diag["ge"])
    assert abs(plain - 1) > Z * plain_se, (plain, plain_se)


def test_finite_width_draw_keeps_softmax_and_ge():
    """Asking for the conditional GE changes neither the softmax nor the GE spectrum of
    the same seed (same weights, same noise)."""
    dims = Dims(n=96, h=3, dK=8, dV=8, dO=64)
    plain = draw(dims, seed=(3, 1))
    both = draw(dims, seed=(3, 1), finite_width=True)
    assert np.array_equal(plain.softmax, both.softmax)
    assert np.array_equal(plain.ge, both.ge)
    assert plain.ge_row is None and both.ge_row is not None and both.ge_realised is not None


def test_realised_row_theta_is_the_softmax_row_norm():
    """``centred_softmax_values(row_theta=True)`` returns ``n |A_i^perp|^2`` of the
    softmax it multiplies."""
    rng = np.random.default_rng(2)
    n, dk = 50, 6
    q, k, v = (rng.standard_normal((n, dk)) for _ in range(3))
    out, theta = centred_softmax_values(np, q, k, v, 1.3, np.empty((n, n)), row_theta=True)
    a = centred_softmax(np, q @ k.T / math.sqrt(dk), 1.3)
    np.testing.assert_allclose(theta, n * (a * a).sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(out, a @ v, rtol=1e-12, atol=1e-14)


def test_realised_model_needs_the_softmax():
    dims = Dims(n=16, h=1, dK=8, dV=8, dO=16)
    with pytest.raises(ValueError, match="needs the softmax"):
        next(_grams("mha", dims, 0, get_backend("numpy"), ("ge", REALISED_MODEL)))


def test_conditional_ge_mean_is_theta1_bar():
    """MHA: the conditional GE's mean eigenvalue has expectation ``gO theta1_bar`` at any
    n and the GE's ``gO theta1`` (theory §2.3), so their paired difference (same weights
    and noise) has mean ``gO (theta1_bar - theta1)``, well away from 0."""
    dims = Dims(n=96, h=4, dK=8, dV=8, dO=64)
    draws = [draw(dims, seed=(11, i), finite_width=True) for i in range(6)]
    target = fw.moments(dims)[0]
    assert target == pytest.approx(dims.dO / dims.n * fw.theta1_mean(dims), rel=1e-12)
    diff = np.array([d.ge_row.mean() - d.ge.mean() for d in draws])
    half = metrics.t_critical(diff.size - 1, 0.999) * diff.std(ddof=1) / math.sqrt(diff.size)
    expected = dims.dO / dims.n * (fw.theta1_mean(dims) - math.expm1(1))
    assert abs(diff.mean() - expected) <= half, (diff.mean(), expected, half)
    assert abs(diff.mean()) > half


@pytest.mark.parametrize("tied", [False, True])
def test_row_load_moments_match_monte_carlo(tied):
    """theta1_bar, E l and Var l of theory §2.3 against a chi-square Monte Carlo, within
    Z standard errors (the variance's from the sample's fourth central moment)."""
    from freege.symbolic import finite_width as sfw
    from freege.symbolic.symbols import beta, gK, h

    b, dk, heads, g_k = 0.8, 16, 4, 0.5
    rng = np.random.default_rng(5)
    v = rng.chisquare(dk, 400_000) / dk
    load = np.expm1(b * b * v) + (b * b * heads / g_k * v if tied else 0.0)
    mean, var = sfw.row_load("mha-tied" if tied else "mha")
    at = {beta: sp_rational(b), sfw.dK: dk, h: heads, gK: sp_rational(g_k)}
    n = v.size
    assert abs(load.mean() - float(mean.subs(at))) < Z * load.std() / math.sqrt(n)
    c = load - load.mean()
    var_se = math.sqrt((np.mean(c**4) - np.mean(c**2) ** 2) / n)
    assert abs(load.var() - float(var.subs(at))) < Z * var_se
    theta = np.expm1(b * b * v)
    dims = Dims(n=64, h=heads, dK=dk, dV=dk, dO=64, beta=b)
    assert abs(theta.mean() - fw.theta1_mean(dims)) < Z * theta.std() / math.sqrt(n)


def sp_rational(x: float):
    import sympy as sp

    return sp.Rational(str(x))


def test_finite_width_moments_tend_to_the_limit():
    """At a huge dK the finite-width moments are the theory §4 ones. At dK = 16 they are,
    by an independent route, the theory §4 moments at the shifted beta' (the same
    normalised law, :func:`fw.shifted_beta`) dilated to the mean ``gO theta1_bar``, with
    ``m1^2 Var(l) / (h E[l]^2)`` added to m2, ``Var(l)`` from the chi-square moment
    generating function in float64."""
    from freege.validation.sampling.limits import limiting_moments

    wide = Dims(n=10**6, h=8, dK=10**5, dV=10**5, dO=10**6)
    np.testing.assert_allclose(fw.moments(wide), limiting_moments("mha", wide, 2), rtol=1e-4)
    dk, heads = 16, 8
    narrow = Dims(n=256, h=heads, dK=dk, dV=dk, dO=128)
    m1, m2 = fw.moments(narrow)
    theta_bar = fw.theta1_mean(narrow)
    shifted = Dims(n=256, h=heads, dK=dk, dV=dk, dO=128, beta=repr(fw.shifted_beta(narrow)))
    base = limiting_moments("mha", shifted, 2)
    s = m1 / base[0]
    assert m1 == pytest.approx(128 / 256 * theta_bar, rel=1e-12)

    def mgf(t: float) -> float:
        return (1 - 2 * t / dk) ** (-dk / 2)

    var = mgf(2) - mgf(1) ** 2
    assert m2 == pytest.approx(s * s * base[1] + m1**2 * var / (heads * theta_bar**2),
                               rel=1e-9)


def test_shifted_beta_solves_its_equation():
    dims = Dims(n=256, h=8, dK=16, dV=16, dO=128)
    b = fw.shifted_beta(dims)
    assert b * b / math.expm1(b * b) == pytest.approx(1 / fw.theta1_mean(dims), rel=1e-12)


@pytest.mark.parametrize("dk", [4, 3])
def test_narrow_heads_are_refused(dk):
    dims = Dims(n=64, h=2, dK=dk, dV=dk, dO=64)
    with pytest.raises(ValueError, match="dK must be > 4 beta"):
        fw.moments(dims)
    with pytest.raises(ValueError, match="draws must be"):
        fw.measure(Dims(n=64, h=2, dK=8, dV=8, dO=64), draws=1)


def test_unknown_case_is_refused():
    from freege.symbolic import finite_width as sfw

    with pytest.raises(ValueError, match="case must be one of"):
        sfw.moments("head-average")


# -- the finite-n row coefficient in the model (theory §2.3; theta_n itself:
# tests/numeric/test_row_coefficient.py) -----------------------------------

N_TABLE, DK_TABLE = 400, 8  # one table (about 3 s), the one test_row_coefficient.py checks


def test_finite_n_conditional_ge_rows_carry_theta_n():
    """One head, attention case: row ``i`` of ``ge-row-n`` has squared norm with
    expectation ``theta_n(x_i)``; the e^x - 1 version (``ge-row``) fails the check."""
    from freege.numeric.row_coefficient import theta_n, x_bound
    from freege.validation.sampling.sample import ROW_N_MODEL

    n, dk, seed = N_TABLE, DK_TABLE, 7
    dims = Dims(n=n, h=1, dK=dk, dV=dk, dO=n)
    x = (_first_query(seed, n, dk) ** 2).sum(axis=1) / dk
    want = theta_n(x, n, x_bound(1.0, dk))
    diag = {model: np.diagonal(g).copy()
            for model, g in _grams("attention", dims, seed, get_backend("numpy"),
                                   (ROW_MODEL, ROW_N_MODEL))}
    slope, se = _slope(want, diag[ROW_N_MODEL])
    assert abs(slope - 1) < Z * se, (slope, se)
    other, other_se = _slope(want, diag[ROW_MODEL])
    assert abs(other - 1) > Z * other_se, (other, other_se)


def test_finite_n_moments_match_the_conditional_ge_mean():
    """The paired mean difference ``ge-row-n`` − ``ge`` has expectation
    ``gO (theta1_bar_n - theta1)`` (the finite-n moments' m1 minus the limit's), not the
    ``gO (theta1_bar - theta1)`` of ``e^x - 1``."""
    dims = Dims(n=96, h=4, dK=8, dV=8, dO=64)
    draws = [draw(dims, seed=(12, i), extra=("ge-row-n",)) for i in range(6)]
    assert draws[0].ge_row is None and draws[0].ge_realised is None
    diff = np.array([d.ge_row_n.mean() - d.ge.mean() for d in draws])
    half = metrics.t_critical(diff.size - 1, 0.999) * diff.std(ddof=1) / math.sqrt(diff.size)
    plain = dims.dO / dims.n * math.expm1(1)
    expected = fw.finite_n_moments(dims)[0] - plain
    assert abs(diff.mean() - expected) <= half, (diff.mean(), expected, half)
    assert abs(diff.mean() - (fw.moments(dims)[0] - plain)) > half  # not the e^x - 1 one


def test_unknown_extra_model_is_refused():
    with pytest.raises(ValueError, match="extra models must be among"):
        draw(Dims(n=16, h=1, dK=8, dV=8, dO=16), seed=0, extra=("softmax",))


def test_extra_model_memory_estimate_bounds_the_peak():
    from freege.validation.sampling.cost import COST_OVERHEAD_BYTES, draw_cost

    dims = Dims(n=200, h=4, dK=16, dV=16, dO=96)
    measured = draw(dims, seed=0, extra=("ge-row",)).peak_bytes
    estimate = draw_cost(dims, extra_models=1).peak_bytes
    assert measured <= estimate <= 2 * measured + COST_OVERHEAD_BYTES
    assert estimate > draw_cost(dims).peak_bytes


def test_finite_width_models_run_on_the_cupy_double(cupy_double):
    """Every finite-width model runs through CuPy's public names only (the double has no
    implicit host conversion) and gives n finite eigenvalues."""
    dims = Dims(n=64, h=2, dK=8, dV=8, dO=48)
    d = draw(dims, seed=(5, 0), backend="cupy", finite_width=True)
    for eigs in (d.softmax, d.ge, d.ge_row, d.ge_row_n, d.ge_realised):
        assert isinstance(eigs, np.ndarray) and eigs.shape == (64,)
        assert np.all(np.isfinite(eigs))
