"""The generic S-relation <-> Cauchy polynomial <-> ridge polynomial maps (theory §3, §5), on
laws typed in from theory §3."""

from __future__ import annotations

import pytest
import sympy as sp

from freege.symbolic import laws
from freege.symbolic.symbols import G, S, lam, w, z
from freege.symbolic.transforms import (
    cauchy_from_s_relation,
    cauchy_series_residual,
    physical_relation_factor,
    ridge_from_s_relation,
    s_relation_from_cauchy,
)
from tests.symbolic.helpers import proportional


def test_marchenko_pastur_cauchy_polynomial():
    """MP_s (S = 1/(1 + s w)): G^-1(g) = R(g) + 1/g = 1/(1 - s g) + 1/g (theory §3)."""
    s = sp.Symbol("s", positive=True)
    poly = cauchy_from_s_relation(S * (1 + s * w) - 1)
    assert proportional(poly, s * z * G**2 - (z + s - 1) * G + 1)
    assert proportional(s_relation_from_cauchy(poly), S * (1 + s * w) - 1)


def test_free_poisson_product_cauchy_polynomial():
    """pi_t ⊠ pi_u (S = 1/((t + w)(u + w)), theory §3): P annihilates the law algebra's moments."""
    t, u = sp.Rational(1, 3), sp.Rational(5, 2)
    poly = cauchy_from_s_relation(S * (t + w) * (u + w) - 1)
    assert poly.degree(G) == 3
    product = laws.free_mult_conv(laws.free_poisson(t), laws.free_poisson(u))
    assert all(c == 0 for c in cauchy_series_residual(poly, product.moments(8)))


def test_ridge_of_marchenko_pastur():
    """theory §5 with nubar = MP_s: lam w = (1 - w)(1 - s w)."""
    s = sp.Symbol("s", positive=True)
    assert proportional(ridge_from_s_relation(S * (1 + s * w) - 1), lam * w - (1 - w) * (1 - s * w))


def test_reducible_relation_physical_factor():
    """A product of two MP-type relations: ``mean`` picks the factor through S(0) = 1/m1."""
    product = sp.expand((S * (1 + w) - 1) * (S * (2 + w) - 1))  # MP_1 and pi_2
    assert proportional(cauchy_from_s_relation(product, mean=1), z * G**2 - z * G + 1)
    assert proportional(ridge_from_s_relation(product, mean=1), lam * w - (1 - w) ** 2)
    with pytest.raises(ValueError, match="factors of the S relation"):
        physical_relation_factor(product, sp.Integer(3))
