"""The derived m1, m2 of every theory §4 case against sampled Gaussian-equivalent matrices
(theory §2: the GE Gram has the same limiting law), at moderate n with fixed seeds.

Tolerance, derived from the sizes: the sample moment ``m_q = tr(G^q)/n`` of one draw is a
linear spectral statistic, so both its fluctuation and its bias are O(1/N) with ``N`` the
smallest dimension of the Gaussian factors (a Wishart factor ``X X^T / d`` has
``E m_2 = 1 + n/d + 1/d``: relative bias ``1/d``). We average ``DRAWS`` seeded draws and
allow ``Z`` standard errors (estimated from the draws' spread) plus a bias allowance
``BIAS * q / N`` relative to ``m_q``. ``BIAS = 2``: for Gram matrices of products of at
most four Gaussian/Wishart factors, each contributes a genus-one correction of at most
about ``q / (2 N)`` relative to ``m_q`` (the Wishart example above: ``1/d`` at ``q = 2``);
measured rel. bias times N stayed within [-1.1, 1] over all cases for n = 100..400 at
beta = 0.75, h = 4. With N >= 48, the allowance (<= 8.4% at q = 2) is well below the
size of any single term of the theory's formulas at these ratios (e.g. 1/h >= 25% of m2/m1^2).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import freege.symbolic as fs
from freege.params import Dims
from freege.symbolic.symbols import beta, gK, gO, gV, h, in_beta

case_eigenvalues = pytest.importorskip("freege.validation.sampling.sample").case_eigenvalues

DRAWS = 4
Z = 4.0
BIAS = 2.0
ORDER = 2


@functools.cache
def theory(case: str):
    """m1, m2 of ``case`` as a float function of (beta, h, gK, gV, gO)."""
    return sp.lambdify((beta, h, gK, gV, gO), [in_beta(m) for m in fs.moments(case, ORDER)])


@st.composite
def configs(draw, tied: bool) -> Dims:
    n = draw(st.sampled_from([160, 200, 240]))
    heads = draw(st.integers(min_value=1, max_value=4))
    d_k = draw(st.integers(min_value=48, max_value=n))
    d_v = d_k if tied else draw(st.integers(min_value=48, max_value=n))
    d_o = draw(st.integers(min_value=48, max_value=2 * n))
    b = draw(st.floats(min_value=0.3, max_value=1.2))
    return Dims(n=n, h=heads, dK=d_k, dV=d_v, dO=d_o, beta=b,
                sharing="tied" if tied else "none")


def check(case: str, dims: Dims, seed: int) -> None:
    samples = np.array([
        [np.mean(ev**q) for q in range(1, ORDER + 1)]
        for ev in (case_eigenvalues(case, dims, seed=(seed, k)) for k in range(DRAWS))
    ])
    r = dims.ratios
    expected = np.array(theory(case)(float(r.beta), r.h, float(r.gK), float(r.gV),
                                     float(r.gO)))
    smallest = min(dims.n, dims.dK, dims.dV, dims.dO)
    stderr = samples.std(axis=0, ddof=1) / math.sqrt(DRAWS)
    for q in range(1, ORDER + 1):
        tol = Z * stderr[q - 1] + BIAS * q / smallest * expected[q - 1]
        got = samples[:, q - 1].mean()
        assert abs(got - expected[q - 1]) <= tol, (case, dims, q, got, expected[q - 1], tol)


@pytest.mark.parametrize("case", [c for c in fs.CASES if not c.endswith("-tied")])
@settings(max_examples=3)
@given(dims=configs(tied=False), seed=st.integers(min_value=0, max_value=2**16))
def test_independent_case_moments_match_samples(case: str, dims: Dims, seed: int) -> None:
    check(case, dims, seed)


@pytest.mark.parametrize("case", ["value-tied", "mha-tied"])
@settings(max_examples=3)
@given(dims=configs(tied=True), seed=st.integers(min_value=0, max_value=2**16))
def test_tied_case_moments_match_samples(case: str, dims: Dims, seed: int) -> None:
    """The tied laws pi(mu_KV, h) and D_{1/gK}(pi(mu_KV, h) ⊠ pi_gO) (theory §4) against
    samples of [Y^G_1 K_1 | ...] (and its product with W^O)."""
    check(case, dims, seed)
