"""The column profile of finite-width attention (theory §2.3, rows and columns)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from freege.numeric import column_profile as cp
from freege.numeric.row_coefficient import theta_n_exact


def _over_u(x: float, dk: int, n: int | None, points: int) -> tuple[float, float]:
    """``E_u mu`` and ``E_u F2`` by the trapezoid rule over the key ratio's law."""
    u, p = cp.chi2_grid(dk, points)
    mom = np.array([cp.entry_moments(x, uj, dk, n) for uj in u])
    return float(np.trapezoid(p * mom[:, 0], u)), float(np.trapezoid(p * mom[:, 1], u))


def test_entries_average_to_the_row_coefficient_at_finite_n() -> None:
    # given the query the scores are N(0, v) over the keys: averaging the entry over the
    # key norm gives the row's mean 1 and second moment theta_n(x) + 1 (an independent
    # quadrature, freege.numeric.row_coefficient)
    x, dk, n = 1.3, 12, 48
    mu, f2 = _over_u(x, dk, n, 90)
    assert mu == pytest.approx(1.0, rel=1e-6)
    assert f2 == pytest.approx(theta_n_exact(x, n) + 1, rel=1e-6)


def test_entries_at_infinite_n_average_to_the_lognormal_moments() -> None:
    x, dk = 0.8, 8
    mu, f2 = _over_u(x, dk, None, 400)
    # the cosine grid's trapezoid rule meets (1 - c^2)^(5/2) at the ends: about 3e-8
    assert mu == pytest.approx(1.0, rel=1e-6)
    assert f2 == pytest.approx(math.exp(x), rel=1e-6)


def test_column_load_increases_and_is_below_the_row_coefficient() -> None:
    u, load = cp.column_load(1.0, 16, None)
    assert np.all(np.diff(load) > 0)
    mean, var = cp.load_moments(u, load, 16)
    # E l_c = E[F2] - E[mu^2] <= E[F2] - 1 = theta1_bar (Jensen: E mu^2 >= (E mu)^2 = 1)
    theta1_bar = (1 - 2 / 16) ** -8 - 1
    assert 0 < mean < theta1_bar and var > 0


def test_free_average_has_mean_one_and_variance_over_h() -> None:
    c = np.linspace(0.3, 2.5, 60)
    w = np.exp(-((c - 1.1) ** 2) / 0.2)
    w /= w.sum()
    c = c - w @ c + 1  # mean 1
    s = c[1] - c[0]
    var = w @ (c - 1) ** 2 + s * s
    x = np.linspace(-0.5, 2.5, 801)
    for h in (1, 3):
        d = cp.free_average_density(c, w, s, h, x)
        mass = np.trapezoid(d, x)
        mean = np.trapezoid(d * x, x)
        assert mass == pytest.approx(1.0, abs=2e-5)
        assert mean == pytest.approx(1.0, abs=2e-5)
        assert np.trapezoid(d * (x - mean) ** 2, x) == pytest.approx(var / h, rel=1e-3)


def test_refusals() -> None:
    with pytest.raises(ValueError, match="x and u"):
        cp.entry_moments(0.0, 1.0, 8, 16)
    with pytest.raises(ValueError, match="dK"):
        cp.entry_moments(1.0, 1.0, 3, 16)
    with pytest.raises(ValueError, match="n must"):
        cp.entry_moments(1.0, 1.0, 8, 1)


def test_law_with_columns_keeps_m1_and_adds_the_column_variance_to_m2(monkeypatch) -> None:
    # theory §2.3: tau_h ⊠ nu ⊠ hat tau with mean-one free factors: m1 is the row law's
    # (= freege.symbolic.finite_width's), m2 grows by m1^2 Var(hat tau), and Var(hat tau)
    # is Var l_c / (h E[l_c]^2) of the column load (coarse grids here: the identities
    # hold at every resolution)
    from freege.numeric import finite_width_law as fwl
    from freege.numeric import law
    from freege.params import Dims

    monkeypatch.setattr(cp, "V_POINTS", 12)
    monkeypatch.setattr(cp, "U_POINTS", 24)
    monkeypatch.setattr(fwl, "DENSITY_POINTS", 120)
    monkeypatch.setattr(fwl, "COARSE_POINTS", 60)
    monkeypatch.setattr(fwl, "FREE_CENTRES", 80)
    dims = Dims(n=64, h=4, dK=32, dV=32, dO=64, beta=1)
    rows = law("mha", dims, finite_width=True, row="infinite-n")
    both = law("mha", dims, finite_width=True, row="infinite-n", profile="row+column")
    mean, var = cp.load_moments(*cp.column_load(1.0, 32, None), 32)
    assert both.column_var == pytest.approx(var / (4 * mean * mean), rel=1e-12)
    m1 = float(rows.moment(1))
    assert float(both.moment(1)) == pytest.approx(m1, rel=1e-12)
    assert float(both.moment(2)) == pytest.approx(
        float(rows.moment(2)) + m1 * m1 * both.column_var, rel=1e-12)
    with pytest.raises(ValueError, match="profile must be"):
        law("mha", dims, finite_width=True, profile="columns")
    with pytest.raises(ValueError, match="tied"):
        law("mha", Dims(n=64, h=4, dK=32, dV=32, dO=64, beta=1, sharing="tied"),
            finite_width=True, profile="row+column")
    with pytest.raises(ValueError, match="dps needs profile"):
        law("mha", dims, dps=20, finite_width=True, row="infinite-n", profile="row+column")
