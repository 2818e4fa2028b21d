"""The inverse-cdf table behind ``CaseLaw.rvs`` (issue 28): samples are quantiles of their
uniforms to the table's bound, follow the law (Kolmogorov-Smirnov, seeded, threshold
from the sample size), draw the atom with its mass, and do not depend on whether the
table was built before."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from freege.errors import ConvergenceError
from freege.numeric import sampling_table
from freege.numeric.case_law import CaseLaw
from freege.params import Ratios

#: issue 28's rvs law: normalized MHA, beta = 1, h = 12, ratios 1.5
MHA = Ratios(beta=1, h=12, gK=Fraction(3, 2), gV=Fraction(3, 2), gO=Fraction(3, 2))
#: an atom at 0 (gO < 1)
ATOM = Ratios(beta=1, h=8, gK=Fraction(1, 2), gV=2, gO=Fraction(7, 10))
#: the 99.9% critical value of the Kolmogorov distribution (sqrt(n) D_n)
KS_999 = 1.95


def ks_distance(samples: np.ndarray, cdf: np.ndarray) -> float:
    n = samples.size
    i = np.arange(1, n + 1)
    return float(max(np.max(i / n - cdf), np.max(cdf - (i - 1) / n)))


def test_samples_are_quantiles_of_their_uniforms_and_pass_ks() -> None:
    law = CaseLaw("mha", MHA, normalized=True)
    n = 20_000
    x = law.rvs(size=n, random_state=11)
    u = np.random.default_rng(11).random(n)
    # the table's bound in probability, plus the float64 cdf's own accuracy (~1e-14)
    assert np.max(np.abs(law.cdf(x) - u)) <= sampling_table.U_TOL + 1e-13
    xs = np.sort(x)
    assert ks_distance(xs, law.cdf(xs)) < KS_999 / np.sqrt(n)


def test_samples_do_not_depend_on_an_earlier_table_or_the_precision() -> None:
    fresh = CaseLaw("mha", MHA, normalized=True).rvs(size=(3, 50), random_state=5)
    used = CaseLaw("mha", MHA, normalized=True)
    used.rvs(size=10, random_state=1)  # the table now exists
    np.testing.assert_array_equal(used.rvs(size=(3, 50), random_state=5), fresh)
    np.testing.assert_array_equal(
        CaseLaw("mha", MHA, normalized=True, dps=20).rvs(size=(3, 50), random_state=5), fresh)
    assert isinstance(used.rvs(random_state=5), float)


def test_the_atom_is_drawn_with_its_mass() -> None:
    law = CaseLaw("mha", ATOM, normalized=True)
    n = 20_000
    x = law.rvs(size=n, random_state=3)
    atom = law.atoms()[0.0]
    # binomial count at 0: 4.5 standard deviations (two-sided ~7e-6)
    assert abs(np.mean(x == 0) - atom) <= 4.5 * np.sqrt(atom * (1 - atom) / n)
    rest = np.sort(x[x > 0])
    cdf = (law.cdf(rest) - atom) / (1 - atom)  # the continuous part, conditioned
    assert ks_distance(rest, cdf) < KS_999 / np.sqrt(rest.size)


def test_a_table_that_cannot_converge_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    # a degree-40 Legendre polynomial needs cells far finer than 16 per piece
    monkeypatch.setattr(sampling_table, "MAX_DEPTH", 1)
    with pytest.raises(ConvergenceError, match="inverse-cdf table"):
        sampling_table._cells(np.array([0.0] * 40 + [1.0]), {})
