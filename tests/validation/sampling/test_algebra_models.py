"""Random-matrix models of freege.algebra against the exact algebra (docs/algebra.md):
seeded random expressions of depth <= 3 (tests/algebra/strategies.py), sampled moments
and atoms against the exact ones, and a negative control that shows the tolerance bites."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings

from freege import algebra
from freege.validation.sampling import algebra_models
from freege.validation.sampling.backend import get_backend
from tests.algebra.strategies import expressions

#: matrix size (divisible by 8: the strategies' masses, ratios and rates give exact
#: counts) and draws per expression
N, DRAWS = 160, 4
ORDERS = (1, 2, 3, 4)


def sampled(expr, n=N, draws=DRAWS, seed=0):
    backend = get_backend("numpy")
    return [algebra_models.eigenvalues(expr, n, backend, np.random.SeedSequence([seed, k]))
            for k in range(draws)]


def moment_tolerance(k, spectra, n=N):
    """Finite-size bias and draw-to-draw fluctuation of ``tr(M^k)/n`` are both
    ``O(k sqrt(m_2k) / n)`` (second-order freeness); the bias bound counts twice, the
    fluctuation four standard errors over the draws: ``k s (2 + 4/sqrt(draws)) / n``
    with ``s`` the sampled ``sqrt(m_2k)``."""
    s = np.sqrt(np.mean([np.mean(ev ** (2 * k)) for ev in spectra]))
    return k * s * (2 + 4 / np.sqrt(len(spectra))) / n


def moment_errors(expr, spectra):
    exact = [float(m) for m in expr.moments(max(ORDERS))]
    out = []
    for k in ORDERS:
        got = np.mean([np.mean(ev**k) for ev in spectra])
        out.append((k, got, exact[k - 1], moment_tolerance(k, spectra)))
    return out


@settings(max_examples=12)
@given(expressions())
def test_sampled_moments_and_atoms_match_the_algebra(expr):
    spectra = sampled(expr)
    for k, got, exact, tol in moment_errors(expr, spectra):
        assert abs(got - exact) <= tol, f"{expr}: m_{k} sampled {got}, exact {exact} (tol {tol})"
    reach = max(1.0, max(float(np.max(np.abs(ev))) for ev in spectra))
    for location, mass in expr.atoms():
        for ev in spectra:
            share = np.mean(np.abs(ev - float(location)) <= 1e-9 * reach)
            assert abs(share - float(mass)) <= 2 / N, (expr, location, mass, share)


def test_the_tolerance_tells_free_from_classical_sums():
    """Commuting (diagonal, unrotated) semicircle samples have the classical m_4 = 12, the
    free sum m_4 = 8: the test above rejects them."""
    free = algebra.parse("semicircle(1) + semicircle(1)")
    k, got, exact, tol = moment_errors(free, classical_semicircle_sums())[3]
    assert abs(got - exact) > tol
    k, got, exact, tol = moment_errors(free, sampled(free))[3]
    assert abs(got - exact) <= tol


def test_counts_are_exact_and_sum_to_n():
    assert algebra_models.counts([Fraction(1, 4), Fraction(3, 4)], 8) == [2, 6]
    assert sum(algebra_models.counts([Fraction(1, 3)] * 3, 10)) == 10


def test_models_run_on_the_cupy_double(cupy_double):
    """One code path: the CuPy test double (CuPy's public names only) samples too."""
    backend = get_backend("cupy")
    expr = algebra.parse("(mp(1/2) + point(1)) * poisson(2, atoms((1, 1/2), (3, 1/2)))")
    ev = algebra_models.eigenvalues(expr, 16, backend, np.random.SeedSequence(3))
    assert ev.shape == (16,) and np.all(np.isfinite(ev))


def classical_semicircle_sums(n=N, draws=DRAWS):
    """Spectra of two independent semicircle(1) samples added as commuting (diagonal,
    randomly paired) matrices: the classical sum, a negative control for the free one."""
    backend = get_backend("numpy")
    out = []
    for k in range(draws):
        gen = backend.generator(np.random.SeedSequence([1, k]))
        one, two = (np.linalg.eigvalsh(algebra_models.sample_matrix(
            algebra.semicircle(1), n, backend, gen)) for _ in range(2))
        out.append(one + gen.permutation(two))
    return out
